"""The CLI contract: run (summary, --json, --out, --pcap), validate, schema, bianchi."""

import json
import shutil
import struct
import subprocess

import pandas as pd
import pytest
from conftest import SCENARIOS, airtcp

REQUIRED_SUMMARY_KEYS = {"seed", "flows", "aggregate_goodput_bps", "wlans", "events", "wall_time_s"}


def test_run_json_has_the_documented_summary():
    result = airtcp(
        "run",
        str(SCENARIOS / "ryu-upload.toml"),
        "--json",
        "--seed",
        "3",
        "--set",
        "wlan.stations=4",
        "--set",
        "simulation.duration=25s",
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary.keys() >= REQUIRED_SUMMARY_KEYS
    assert summary["seed"] == 3
    assert len(summary["flows"]) == 4
    for flow in summary["flows"]:
        assert {"goodput_bps", "bytes_delivered", "retransmissions", "timeouts"} <= flow.keys()
        assert flow["goodput_bps"] > 0
    mac = summary["wlans"][0]
    assert {"successes", "collisions", "retries", "retry_drops", "contenders"} <= mac.keys()
    assert sum(mac["contenders"]) > 0
    assert (
        abs(sum(f["goodput_bps"] for f in summary["flows"]) - summary["aggregate_goodput_bps"])
        < 1e-3
    )


def test_run_out_writes_summary_and_parquet(tmp_path):
    out = tmp_path / "out"
    result = airtcp(
        "run",
        str(SCENARIOS / "wired-tcp.toml"),
        "--out",
        str(out),
        "--set",
        "simulation.duration=8s",
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    frame = pd.read_parquet(out / "timeseries.parquet")
    assert set(frame.columns) >= {
        "flow",
        "time_s",
        "cwnd_bytes",
        "ssthresh_bytes",
        "srtt_ms",
        "bytes_acked",
        "goodput_bps",
    }
    assert len(frame) == 80 - 1 or len(frame) == 80  # 100 ms samples over 8 s
    assert frame["bytes_acked"].is_monotonic_increasing
    assert summary["flows"][0]["bytes_delivered"] > 0
    assert not list(out.glob("*.tmp"))


def _ones_complement_sum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def read_pcap(path):
    data = path.read_bytes()
    order = "<" if data[:4] == bytes.fromhex("4d3cb2a1") else ">"
    magic, _, _, _, _, _, linktype = struct.unpack(order + "IHHiIII", data[:24])
    assert magic == 0xA1B23C4D, "nanosecond pcap"
    assert linktype == 1, "Ethernet"
    offset, packets = 24, []
    while offset < len(data):
        _, _, caplen, origlen = struct.unpack(order + "IIII", data[offset : offset + 16])
        packets.append(data[offset + 16 : offset + 16 + caplen])
        assert caplen == origlen
        offset += 16 + caplen
    return packets


def test_pcap_has_valid_ip_and_tcp_checksums(tmp_path):
    result = airtcp(
        "run",
        str(SCENARIOS / "wired-tcp.toml"),
        "--pcap",
        "--out",
        str(tmp_path),
        "--set",
        "simulation.duration=1s",
        "--set",
        "simulation.measure_from=0s",
    )
    assert result.returncode == 0, result.stderr
    packets = read_pcap(tmp_path / "pcap" / "client.pcap")
    assert len(packets) > 100
    flags_seen = set()
    for frame in packets:
        assert frame[12:14] == b"\x08\x00"
        ip = frame[14:]
        header_len = (ip[0] & 0x0F) * 4
        assert _ones_complement_sum(ip[:header_len]) == 0xFFFF, "IPv4 header checksum"
        total = struct.unpack("!H", ip[2:4])[0]
        assert total == len(ip)
        assert ip[9] == 6
        segment = ip[header_len:]
        pseudo = ip[12:20] + struct.pack("!BBH", 0, 6, len(segment))
        assert _ones_complement_sum(pseudo + segment) == 0xFFFF, "TCP checksum"
        flags_seen.add(segment[13])
    assert 0x02 in flags_seen, "the SYN is in the client's trace"


def test_validate_and_schema():
    result = airtcp("validate", str(SCENARIOS / "ryu-upload.toml"), "--set", "wlan.stations=40")
    assert result.returncode == 0, result.stderr
    assert "82 nodes" in result.stdout and "40 flows" in result.stdout
    schema = json.loads(airtcp("schema").stdout)
    assert {"simulation", "wlan", "links", "flows"} <= schema["properties"].keys()


def test_bianchi_json():
    result = airtcp(
        "bianchi", "--phy", "802.11b", "--payload", "1024", "--stations", "1-20", "--json"
    )
    assert result.returncode == 0, result.stderr
    model = json.loads(result.stdout)
    assert [p["stations"] for p in model["points"]] == list(range(1, 21))
    assert 2 <= model["optimal"]["stations"] <= 6


def test_wireshark_reads_the_traces(tmp_path):
    """Wireshark's TCP analysis validates every checksum and follows the sender's stream."""
    tshark = shutil.which("tshark")
    if tshark is None:
        pytest.skip("tshark is not installed (make test installs it)")
    result = airtcp(
        "run", str(SCENARIOS / "wired-tcp.toml"), "--pcap", "--out", str(tmp_path),
        "--set", "simulation.duration=3s", "--set", "simulation.measure_from=0s",
        "--set", "links.0.loss=0.01",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    trace = str(tmp_path / "pcap" / "client.pcap")

    def count(display_filter: str) -> int:
        fields = subprocess.run(
            [tshark, "-r", trace, "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
             "-Y", display_filter, "-T", "fields", "-e", "frame.number"],
            capture_output=True, text=True, check=True, timeout=120,
        ).stdout  # fmt: skip
        return len(fields.split())

    total = count("tcp")
    assert total > 500
    assert count("tcp.checksum.status == 1 && ip.checksum.status == 1") == total, (
        "all checksums good"
    )
    assert count("tcp.flags.syn == 1") >= 1
    assert count("tcp.analysis.retransmission || tcp.analysis.fast_retransmission") > 0
    assert count("tcp.analysis.ack_lost_segment") == 0, "the sender's trace misses nothing"


def test_ctrl_c_stops_a_long_run_cleanly(tmp_path):
    """A long single run stops within a second of SIGINT, exits 130, leaves no traces."""
    import signal
    import sys
    import time

    process = subprocess.Popen(
        [sys.executable, "-m", "airtcp.cli", "run", str(SCENARIOS / "wired-tcp.toml"),
         "--out", str(tmp_path / "out"), "--pcap",
         "--set", "links.0.rate=1Gbps", "--set", "links.0.queue=3000",
         "--set", "tcp.send_buffer=4MiB", "--set", "tcp.receive_buffer=4MiB",
         "--set", "simulation.duration=3000s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(2.0)
    assert process.poll() is None, "the run should still be going"
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert time.monotonic() - sent < 1.5, "stopped promptly"
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert not (tmp_path / "out" / "summary.json").exists()
    assert not list((tmp_path / "out").rglob("*.pcap")), "no half-written traces"
