"""The traffic of an emulated run: iperf3 (JSON) for bulk TCP and constant-rate UDP flows,
ping for ping flows, each run in its host's namespace with ``ip netns exec``; and what
their output and the kernel's counters say, in the simulator's summary terms.

A flow's receiver-side iperf3 intervals (``--get-server-output``, 0.1 s) give its goodput
in the scenario's measurement window, as the simulator measures it at the receiver.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import IO, Any

NS = 1e9
FIRST_PORT = 5201
INTERVAL_S = 0.1


def in_namespace(namespace: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", namespace, *args]


@dataclass
class Tool:
    """A traffic tool of one flow: its server (iperf3 flows) and its client or ping."""

    flow: dict[str, Any]
    index: int
    start_s: float
    command: list[str]
    server: subprocess.Popen | None = None
    process: subprocess.Popen | None = None
    started_at_s: float | None = None
    output: str = ""
    log: IO[str] | None = None

    @property
    def done(self) -> bool:
        return self.process is not None and self.process.poll() is not None

    def stop(self) -> None:
        for process in (self.process, self.server):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
        if self.log is not None:
            self.log.close()


def _seconds(ns: int) -> float:
    return ns / NS


def tools(resolved: dict[str, Any], hosts: dict[str, dict], kernel_options) -> list[Tool]:
    """Each flow's tool (and server), not yet started."""
    nodes = resolved["nodes"]
    duration_ns = resolved["duration_ns"]
    made = []
    for index, flow in enumerate(resolved["flows"]):
        app = flow["app"]
        src, dst = hosts[nodes[flow["src"]]], hosts[nodes[flow["dst"]]]
        start_s = _seconds(flow["start_ns"])
        length_s = _seconds((flow["stop_ns"] or duration_ns) - flow["start_ns"])
        if app["kind"] == "ping":
            command = in_namespace(
                src["namespace"],
                "ping",
                "-n",
                "-c",
                str(app["count"]),
                "-i",
                f"{_seconds(app['interval_ns']):g}",
                "-s",
                str(app["payload_bytes"]),
                "-W",
                "2",
                dst["address"],
            )
            made.append(Tool(flow, index, start_s, command))
            continue
        port = str(FIRST_PORT + index)
        client = ["iperf3", "-c", dst["address"], "-p", port, "-J", "--get-server-output"]
        client += ["-i", f"{INTERVAL_S:g}"]
        if app["kind"] == "tcp_bulk":
            client += kernel_options[flow["name"]]
            if app.get("bytes"):
                client += ["-n", str(app["bytes"])]
            else:
                client += ["-t", str(max(1, math.ceil(length_s)))]
        else:  # udp_cbr
            client += ["-u", "-b", str(app["rate_bps"]), "-l", str(app["payload_bytes"])]
            client += ["-t", str(max(1, math.ceil(length_s)))]
        tool = Tool(flow, index, start_s, in_namespace(src["namespace"], *client))
        tool.server = subprocess.Popen(
            # The server's own interval: the client's -i does not set the intervals of the
            # server output it fetches (iperf3 reports 1 s ones otherwise).
            in_namespace(
                dst["namespace"], "iperf3", "-s", "-1", "-J", "-p", port, "-i", f"{INTERVAL_S:g}"
            ),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        made.append(tool)
        _wait_listening(dst["namespace"], port)
    return made


def _wait_listening(namespace: str, port: str, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        listening = subprocess.run(
            in_namespace(namespace, "ss", "-Hltn", f"sport = :{port}"),
            capture_output=True,
            text=True,
        ).stdout
        if listening.strip():
            return
        time.sleep(0.02)
    raise OSError(f"iperf3 did not listen on port {port} in {namespace} within {timeout_s:g} s")


def start(tool: Tool, now_s: float) -> None:
    # Into a file, not a pipe: iperf3's JSON outgrows a pipe's buffer long before the end,
    # and nobody reads it until then.
    tool.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - closed by finish or stop
    tool.process = subprocess.Popen(tool.command, stdout=tool.log, stderr=subprocess.STDOUT)
    tool.started_at_s = now_s


def finish(tool: Tool) -> None:
    if tool.process is not None and tool.log is not None:
        tool.process.wait()
        tool.log.seek(0)
        tool.output = tool.log.read()
        tool.log.close()
    if tool.server is not None and tool.server.poll() is None:
        tool.server.kill()
        tool.server.wait()


def iperf_result(tool: Tool, measure_from_s: float, end_s: float) -> dict[str, Any]:
    """A flow's summary fields from its iperf3 client's JSON: bytes the receiver got over
    the run, and per second in the window [measure_from_s, end_s] of scenario time (an
    interval straddling an edge counts in proportion); and the receiver's 0.1 s intervals
    as [start_s, end_s, bytes] in scenario time (``received_series``)."""
    try:
        report = json.loads(tool.output)
    except json.JSONDecodeError:
        raise OSError(
            f"flow {tool.flow['name']}: iperf3 printed no JSON: {tool.output[:200]}"
        ) from None
    if report.get("error"):
        raise OSError(f"flow {tool.flow['name']}: iperf3: {report['error']}")
    intervals = report.get("server_output_json", {}).get("intervals", [])
    offset = tool.started_at_s if tool.started_at_s is not None else tool.start_s
    delivered, measured = 0, 0.0
    series = []
    for interval in intervals:
        total = interval["sum"]
        delivered += total["bytes"]
        start, end = total["start"] + offset, total["end"] + offset
        series.append([round(start, 4), round(end, 4), total["bytes"]])
        overlap = min(end, end_s) - max(start, measure_from_s)
        if overlap > 0 and end > start:
            measured += total["bytes"] * overlap / (end - start)
    sent = report["end"].get("sum_sent", {})
    window_s = end_s - measure_from_s
    result = {
        "goodput_bps": measured * 8 / window_s if window_s > 0 else 0.0,
        "bytes_delivered": delivered,
        "retransmissions": sent.get("retransmits", 0),
        "received_series": series,
    }
    if tool.flow["app"]["kind"] == "udp_cbr":
        # The receiver's count of datagrams sent and missing (by iperf3's sequence numbers).
        received = report.get("server_output_json", {}).get("end", {}).get("sum", {})
        result["datagrams"] = {
            "sent": received.get("packets", 0),
            "lost": received.get("lost_packets", 0),
        }
    return result


_PING_LINE = re.compile(r"icmp_seq=(\d+) .*time=([\d.]+) ms")


def ping_result(tool: Tool) -> dict[str, Any]:
    """A ping flow's probes: when each was sent (nominally, from its interval) and when its
    reply came back; arrivals at the destination are not seen from outside."""
    app = tool.flow["app"]
    count, interval_ns = app["count"], app["interval_ns"]
    start_ns = round((tool.started_at_s or tool.start_s) * NS)
    sent = [start_ns + i * interval_ns for i in range(count)]
    returned: list[int | None] = [None] * count
    for seq, rtt_ms in _PING_LINE.findall(tool.output):
        index = int(seq) - 1
        if 0 <= index < count:
            returned[index] = sent[index] + round(float(rtt_ms) * 1e6)
    received = sum(r is not None for r in returned)
    return {
        "bytes_delivered": received * app["payload_bytes"],
        "probes": {
            "train": 1,
            "ip_bytes": app["payload_bytes"] + 28,
            "sent_ns": sent,
            "arrived_ns": [None] * count,
            "returned_ns": returned,
        },
    }


def kernel_counters(namespace: str) -> dict[str, int]:
    """The namespace's TCP counters (/proc/net/snmp Tcp, /proc/net/netstat TcpExt)."""
    counters: dict[str, int] = {}
    for path, group in (("/proc/net/snmp", "Tcp:"), ("/proc/net/netstat", "TcpExt:")):
        text = subprocess.run(
            in_namespace(namespace, "cat", path), capture_output=True, text=True
        ).stdout
        lines = [line.split() for line in text.splitlines() if line.startswith(group)]
        if len(lines) >= 2:
            for name, value in zip(lines[0][1:], lines[1][1:], strict=False):
                if value.lstrip("-").isdigit():
                    counters[name] = int(value)
    return counters
