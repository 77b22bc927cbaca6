"""The traffic of an emulated run: iperf3 (JSON) for bulk TCP and constant-rate UDP flows,
ping for ping flows, each run in its host's namespace with ``ip netns exec``; and what
their output, the emulated network and the kernel's counters say, in the simulator's
summary terms.

A flow's goodput is what the emulated network delivered to its receiver in the scenario's
measurement window, on the scenario's clock (``received`` in the emulator's report: new
bytes of the flow's data connection), as the simulator measures it; iperf3's own intervals
are timed from its test's start, an instant the emulator does not see. iperf3 gives the
sender's retransmissions and, for UDP, the receiver's loss count.

The run ends at the scenario's end, as a simulated one does: what has not finished by then
is stopped (``stop_at_end``), a TCP sender's retransmissions read from its socket first
(``ss``: the kernel's ``tcpi_total_retrans``), so that no result exchange through a
congested network keeps the run going. UDP tools are waited for (their receiver's loss
count comes with iperf3's results), ping prints its replies as they come.

Every process started here carries the run's marker in its environment (only such processes
are killed when the run's namespaces go) and dies with the thread that started it
(``PR_SET_PDEATHSIG``), so that a run killed outright leaves no traffic running.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any

NS = 1e9
FIRST_PORT = 5201
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the thread that started it ends."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def spawn(command: list[str], marker: tuple[str, str], **options: Any) -> subprocess.Popen:
    """``command`` started with the run's ``marker`` (name, value) in its environment, to die
    with this thread."""
    environment = os.environ | {marker[0]: marker[1]}
    return subprocess.Popen(command, env=environment, preexec_fn=_die_with_parent, **options)


def in_namespace(namespace: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", namespace, *args]


@dataclass
class Tool:
    """A traffic tool of one flow: its server (iperf3 flows) and its client or ping."""

    flow: dict[str, Any]
    index: int
    start_s: float
    command: list[str]
    marker: tuple[str, str] = field(default=("", ""))
    server: subprocess.Popen | None = None
    process: subprocess.Popen | None = None
    started_at_s: float | None = None
    output: str = ""
    log: IO[str] | None = None
    # The sender's retransmissions read from its socket at the scenario's end (None: the
    # tool finished before, its own report has them).
    retransmissions_at_end: int | None = None
    stopped_at_end: bool = False

    @property
    def done(self) -> bool:
        return self.process is not None and self.process.poll() is not None

    @property
    def waited_for(self) -> bool:
        """Whether the run waits for this tool past the scenario's end (its results are
        only in its own report)."""
        return self.flow["app"]["kind"] == "udp_cbr"

    def stop(self) -> None:
        for process in (self.process, self.server):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
        if self.log is not None:
            self.log.close()


def _seconds(ns: int) -> float:
    return ns / NS


def tools(
    resolved: dict[str, Any],
    hosts: dict[str, dict],
    kernel_options: dict[str, list[str]],
    marker: tuple[str, str],
) -> list[Tool]:
    """Each flow's tool (and server), not yet started; their processes carry ``marker``."""
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
            made.append(Tool(flow, index, start_s, command, marker))
            continue
        port = str(FIRST_PORT + index)
        # No periodic reports: the network times the flow (``iperf_result``).
        client = ["iperf3", "-c", dst["address"], "-p", port, "-J", "-i", "0"]
        if app["kind"] == "tcp_bulk":
            client += kernel_options[flow["name"]]
            if app.get("bytes"):
                client += ["-n", str(app["bytes"])]
            else:
                # A second more than the flow's time: its test starts after the
                # connections are made, and the run stops it at the scenario's end.
                client += ["-t", str(max(1, math.ceil(length_s)) + 1)]
        else:  # udp_cbr; the receiver's loss count comes with the server's output
            client += ["-u", "-b", str(app["rate_bps"]), "-l", str(app["payload_bytes"])]
            client += ["--get-server-output"]
            client += ["-t", str(max(1, math.ceil(length_s)))]
        tool = Tool(flow, index, start_s, in_namespace(src["namespace"], *client), marker)
        tool.server = spawn(
            in_namespace(dst["namespace"], "iperf3", "-s", "-1", "-J", "-p", port, "-i", "0"),
            marker,
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
    tool.process = spawn(tool.command, tool.marker, stdout=tool.log, stderr=subprocess.STDOUT)
    tool.started_at_s = now_s


def stop_at_end(tools: list[Tool], hosts: dict[int, dict]) -> None:
    """At the scenario's end: the tools still running that the run does not wait for are
    stopped, the TCP senders' retransmissions read first (in parallel: one ``ss`` per
    sender namespace)."""
    running = [t for t in tools if t.process is not None and not t.done and not t.waited_for]
    senders = [t for t in running if t.flow["app"]["kind"] == "tcp_bulk"]

    def read(tool: Tool) -> None:
        src, dst = hosts[tool.flow["src"]], hosts[tool.flow["dst"]]
        tool.retransmissions_at_end = sender_retransmissions(
            src["namespace"], dst["address"], FIRST_PORT + tool.index
        )

    in_parallel(read, senders)
    for tool in running:
        _stop(tool)


def in_parallel(work: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    """``work`` on each item, a few at a time: the commands it runs wait on the kernel
    (namespace switches), not the CPU."""
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(work, items))


def _stop(tool: Tool) -> None:
    assert tool.process is not None
    if tool.flow["app"]["kind"] == "ping":
        # Its replies so far are its result: SIGINT makes it flush them and exit.
        tool.process.send_signal(signal.SIGINT)
        return
    tool.process.kill()
    tool.stopped_at_end = True


_SS_PEER = re.compile(r"\s(\d+\.\d+\.\d+\.\d+):(\d+)\s*$")


def sender_retransmissions(namespace: str, address: str, port: int) -> int:
    """The retransmissions (``tcpi_total_retrans``) of the connection from ``namespace``
    to ``address``:``port`` that carried the most (iperf3's data connection, not its control
    connection), by ``ss -tin``; 0 if there is none."""
    shown = subprocess.run(
        in_namespace(namespace, "ss", "-Htin", "state", "established"),
        capture_output=True,
        text=True,
    ).stdout
    return parse_sender_retransmissions(shown, address, port)


def parse_sender_retransmissions(shown: str, address: str, port: int) -> int:
    best: tuple[int, int] = (-1, 0)  # (bytes_acked, retransmissions)
    lines = shown.splitlines()
    for connection, info in zip(lines[::2], lines[1::2], strict=False):
        peer = _SS_PEER.search(connection)
        if peer is None or (peer[1], int(peer[2])) != (address, port):
            continue
        acked = re.search(r"\bbytes_acked:(\d+)", info)
        retrans = re.search(r"\bretrans:\d+/(\d+)", info)
        candidate = (int(acked[1]) if acked else 0, int(retrans[1]) if retrans else 0)
        best = max(best, candidate)
    return best[1]


def finish(tool: Tool) -> None:
    if tool.process is not None and tool.log is not None:
        tool.process.wait()
        tool.log.seek(0)
        tool.output = tool.log.read()
        tool.log.close()
    if tool.server is not None and tool.server.poll() is None:
        tool.server.kill()
        tool.server.wait()


def flow_received(tool: Tool, hosts: dict[str, dict], received: list[dict]) -> dict | None:
    """What the emulated network delivered of the flow's data: the connection (UDP: port
    pair) from its source to its destination's iperf3 port that carried the most."""
    protocol = "udp" if tool.flow["app"]["kind"] == "udp_cbr" else "tcp"
    src, dst = hosts[tool.flow["src"]]["address"], hosts[tool.flow["dst"]]["address"]
    port = FIRST_PORT + tool.index
    candidates = [
        entry
        for entry in received
        if (entry["protocol"], entry["src"], entry["dst"], entry["dst_port"])
        == (protocol, src, dst, port)
    ]
    return max(candidates, key=lambda entry: entry["bytes"], default=None)


def iperf_result(
    tool: Tool, delivered: dict | None, bin_s: float, window_s: float
) -> dict[str, Any]:
    """A flow's summary fields: from the emulated network's count of what reached its
    receiver (``delivered``, see ``flow_received``), the bytes over the run and per second
    of the measurement window (``window_s`` long), and per ``bin_s`` as [start_s, end_s,
    bytes] in scenario time (``received_series``); from its iperf3 client's JSON (or its
    socket at the scenario's end, if the run stopped it there), the sender's retransmissions
    and, for UDP, the receiver's datagram count."""
    report = _iperf_report(tool)
    delivered = delivered or {"bytes": 0, "bytes_in_window": 0, "bins": []}
    series = [
        [round(i * bin_s, 4), round((i + 1) * bin_s, 4), count]
        for i, count in enumerate(delivered["bins"])
    ]
    if report is None:  # stopped at the scenario's end: its socket said
        retransmissions = tool.retransmissions_at_end or 0
    else:
        retransmissions = report["end"].get("sum_sent", {}).get("retransmits", 0)
    result = {
        "goodput_bps": delivered["bytes_in_window"] * 8 / window_s if window_s > 0 else 0.0,
        "bytes_delivered": delivered["bytes"],
        "retransmissions": retransmissions,
        "received_series": series,
    }
    if report is not None and tool.flow["app"]["kind"] == "udp_cbr":
        # The receiver's count of datagrams sent and missing (by iperf3's sequence numbers).
        received = report.get("server_output_json", {}).get("end", {}).get("sum", {})
        result["datagrams"] = {
            "sent": received.get("packets", 0),
            "lost": received.get("lost_packets", 0),
        }
    return result


def _iperf_report(tool: Tool) -> dict[str, Any] | None:
    """The iperf3 client's JSON report, or None if the run stopped it at the scenario's end."""
    if tool.stopped_at_end:
        return None
    try:
        report = json.loads(tool.output)
    except json.JSONDecodeError:
        raise OSError(
            f"flow {tool.flow['name']}: iperf3 printed no JSON: {tool.output[:200]}"
        ) from None
    if report.get("error"):
        raise OSError(f"flow {tool.flow['name']}: iperf3: {report['error']}")
    return report


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
    text = subprocess.run(
        in_namespace(namespace, "cat", "/proc/net/snmp", "/proc/net/netstat"),
        capture_output=True,
        text=True,
    ).stdout
    for group in ("Tcp:", "TcpExt:"):
        lines = [line.split() for line in text.splitlines() if line.startswith(group)]
        if len(lines) >= 2:
            for name, value in zip(lines[0][1:], lines[1][1:], strict=False):
                if value.lstrip("-").isdigit():
                    counters[name] = int(value)
    return counters
