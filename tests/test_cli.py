"""The CLI contract: run (summary, --json, --out, --pcap), validate, schema, bianchi."""

import contextlib
import json
import os
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import airtcp as airtcp_api
import pandas as pd
import pytest
from airtcp.catalog import built_ins
from conftest import SCENARIOS, airtcp
from pcap_check import checksums_verify, read_pcap

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


def test_pcap_has_valid_ip_and_tcp_checksums(tmp_path):
    result = airtcp(
        "run",
        str(SCENARIOS / "wired-tcp.toml"),
        "--pcap",
        "--out",
        str(tmp_path),
        "--snaplen",
        "0",
        "--set",
        "simulation.duration=1s",
        "--set",
        "simulation.measure_from=0s",
    )
    assert result.returncode == 0, result.stderr
    packets = read_pcap(tmp_path / "pcap" / "client.pcap")
    assert len(packets) > 100
    flags_seen = set()
    for frame, _ in packets:
        assert checksums_verify(frame)
        assert frame[14 + 9] == 6, "TCP"
        flags_seen.add(frame[14 + 20 + 13])
    assert 0x02 in flags_seen, "the SYN is in the client's trace"


def test_pcaps_keep_headers_only_unless_told(tmp_path):
    def trace(*extra):
        out = tmp_path / "-".join(extra or ("default",))
        result = airtcp(
            "run", str(SCENARIOS / "wired-tcp.toml"), "--pcap", "--out", str(out), *extra,
            "--set", "simulation.duration=2s", "--set", "simulation.measure_from=0s",
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        return out / "pcap" / "client.pcap"

    headers = read_pcap(trace(), whole=False)
    data = [(kept, length) for kept, length in headers if length > 100]
    assert data, "data segments in the trace"
    for kept, length in data:
        ip = kept[14:]
        transport = (ip[0] & 0x0F) * 4
        tcp_header = (ip[transport + 12] >> 4) * 4
        assert len(kept) == 14 + transport + tcp_header, "cut at the end of the TCP header"
        assert length == 14 + struct.unpack("!H", ip[2:4])[0], "original length: the packet"
    snapped = read_pcap(trace("--snaplen", "100"), whole=False)
    assert {len(kept) for kept, length in snapped if length > 100} == {100}
    assert trace().stat().st_size * 10 < trace("--snaplen", "0").stat().st_size


def test_help_reads_like_a_unix_tool():
    """No `{scenario}` for arguments and no `<bool>` for flags (Typer's defaults)."""
    commands = ["run", "validate", "schema", "bianchi", "reproduce", "demo", "sweep", "report"]
    for command in [None, *commands]:
        result = airtcp(*([command] if command else []), "--help")
        assert result.returncode == 0, result.stderr
        assert "{" not in result.stdout and "<bool>" not in result.stdout, result.stdout
    usage = airtcp("run", "--help").stdout
    assert "run [OPTIONS] SCENARIO" in usage
    assert "KEY=VALUE" in usage


def test_summary_table_keeps_long_names_whole_when_piped(write_scenario):
    long_node = "a-very-long-client-host-name-in-the-lab"
    long_flow = "bulk-transfer-with-a-name-longer-than-eighty-columns-of-terminal"
    path = write_scenario(
        (SCENARIOS / "wired-tcp.toml")
        .read_text()
        .replace('"client"', f'"{long_node}"')
        .replace('name = "bulk"', f'name = "{long_flow}"')
    )
    result = airtcp("run", str(path), "--set", "simulation.duration=6s")
    assert result.returncode == 0, result.stderr
    assert long_flow in result.stdout and f"{long_node} → server" in result.stdout


def test_results_follow_the_umask(tmp_path):
    for umask, mode in ((0o022, 0o644), (0o077, 0o600)):
        out = tmp_path / f"out{umask:o}"
        result = subprocess.run(
            [sys.executable, "-m", "airtcp.cli", "run", str(SCENARIOS / "wired-tcp.toml"),
             "--out", str(out), "--pcap", "--set", "simulation.duration=6s"],
            capture_output=True, text=True, preexec_fn=lambda u=umask: os.umask(u),
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        files = [p for p in out.rglob("*") if p.is_file()]
        assert len(files) >= 4
        for file in files:
            assert file.stat().st_mode & 0o777 == mode, (file, oct(file.stat().st_mode))


def test_a_long_run_shows_its_progress_on_a_terminal():
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "airtcp.cli", "run", str(SCENARIOS / "wired-tcp.toml"),
         "--json", "--set", "links.0.rate=1Gbps", "--set", "links.0.queue=3000",
         "--set", "tcp.send_buffer=4MiB", "--set", "tcp.receive_buffer=4MiB",
         "--set", "simulation.duration=60s"],
        stdout=subprocess.PIPE, stderr=follower, text=True,
    )  # fmt: skip
    os.close(follower)
    stdout, _ = process.communicate(timeout=120)
    shown = b""
    with contextlib.suppress(OSError):
        while chunk := os.read(leader, 65536):
            shown += chunk
    os.close(leader)
    assert process.returncode == 0
    assert json.loads(stdout)["duration_s"] == 60.0
    assert b"simulated" in shown and b"events/s" in shown, shown[-500:]


def test_a_run_shows_no_progress_when_stderr_is_not_a_terminal():
    result = airtcp("run", str(SCENARIOS / "wired-tcp.toml"), "--set", "simulation.duration=60s")
    assert result.returncode == 0 and result.stderr == ""


def test_out_that_is_a_file_is_one_line(tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("")
    result = airtcp("run", str(SCENARIOS / "wired-tcp.toml"), "--out", str(taken))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "not a directory" in result.stderr
    assert "Error" not in result.stderr


def test_finite_transfers_show_completion_time(write_scenario):
    path = write_scenario(
        (SCENARIOS / "wired-tcp.toml")
        .read_text()
        .replace('dst = "server"', 'dst = "server"\nbytes = "10MB"')
    )
    result = airtcp("run", str(path), "--json")
    flow = json.loads(result.stdout)["flows"][0]
    assert flow["completed"] and 8.2 < flow["completion_time_s"] < 10
    table = airtcp("run", str(path)).stdout
    assert "completed in s" in table and f"{flow['completion_time_s']:.3f}" in table


def test_ping_flows_show_round_trips_and_stay_out_of_goodput_and_fairness(write_scenario):
    path = write_scenario(
        (SCENARIOS / "wired-tcp.toml").read_text()
        + '\n[[flows]]\nname = "probe"\nsrc = "client"\ndst = "server"\nkind = "ping"\n'
        "count = 10\n"
    )
    summary = json.loads(airtcp("run", str(path), "--json").stdout)
    bulk = summary["flows"][0]
    assert summary["aggregate_goodput_bps"] == bulk["goodput_bps"] > 1e6
    assert summary["jain_fairness"] == 1.0
    lines = airtcp("run", str(path)).stdout.splitlines()
    assert not any("probe" in line and "0.000" in line for line in lines), "no goodput of 0"
    rtts = r"ping probe client → server: 10 sent, \d+ received, \d+% loss; min/avg/max/mdev = "
    rtts += r"[\d.]+/[\d.]+/[\d.]+/[\d.]+ ms"
    assert any(re.fullmatch(rtts, line) for line in lines), lines
    assert any("Jain fairness 1.000" in line for line in lines)


def test_validate_and_schema(tmp_path):
    # A long path and a narrow terminal setting must not break the one-line answer.
    deep = tmp_path.joinpath(*["a-directory-with-a-long-name"] * 6)
    deep.mkdir(parents=True)
    path = deep / "ryu-upload.toml"
    path.write_text((SCENARIOS / "ryu-upload.toml").read_text())
    result = subprocess.run(
        [sys.executable, "-m", "airtcp.cli", "validate", str(path), "--set", "wlan.stations=40"],
        capture_output=True, text=True, env={**os.environ, "COLUMNS": "20"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{path}: ok (82 nodes, 41 links, 40 flows)\n"
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


def _bianchi_2000(w: int, m: int, rts: bool, n: int) -> float:
    """Bianchi's JSAC 2000 equations, written out independently for his FHSS set (Table II):
    eq. 7 for tau(p), p = 1 - (1 - tau)^(n-1) solved by bisection, eqs. 13-15 for S."""
    payload, mac_header, phy_header, ack, rts_bits, cts = 8184, 272, 128, 112, 160, 112
    rate, delta, slot, sifs, difs = 1e6, 1e-6, 50e-6, 28e-6, 128e-6
    h = (phy_header + mac_header) / rate
    ack_t, rts_t, cts_t = (ack + phy_header) / rate, (rts_bits + phy_header) / rate, \
        (cts + phy_header) / rate  # fmt: skip
    data = payload / rate
    if rts:
        ts = rts_t + sifs + delta + cts_t + sifs + delta + h + data + sifs + delta + ack_t
        ts += difs + delta
        tc = rts_t + difs + delta
    else:
        ts, tc = h + data + sifs + delta + ack_t + difs + delta, h + data + difs + delta

    def tau_of(p: float) -> float:
        # Eq. 7 with (1 - 2p) divided out: (1 - (2p)^m) / (1 - 2p) = sum of (2p)^i, i < m.
        return 2 / ((w + 1) + p * w * sum((2 * p) ** i for i in range(m)))

    lo, hi = 0.0, 1.0  # p = 1 - (1 - tau(p))^(n-1) has one root; the difference rises in p
    for _ in range(200):
        p = (lo + hi) / 2
        lo, hi = (p, hi) if p < 1 - (1 - tau_of(p)) ** (n - 1) else (lo, p)
    tau = tau_of((lo + hi) / 2)
    p_tr = 1 - (1 - tau) ** n
    p_s = n * tau * (1 - tau) ** (n - 1) / p_tr
    busy = (1 - p_tr) * slot + p_tr * p_s * ts + p_tr * (1 - p_s) * tc
    return p_s * p_tr * payload / rate / busy


@pytest.mark.parametrize("rts", [False, True])
def test_bianchi_difs_equals_bianchis_equations(rts):
    for w, m in [(32, 3), (32, 5), (128, 3)]:
        args = ["bianchi", "--phy", "bianchi2000", "--payload", "1023", "--cw-min", str(w - 1)]
        args += ["--stages", str(m), "--stations", "2-50", "--model", "bianchi", "--json"]
        args += ["--rts"] * rts
        result = airtcp(*args)
        assert result.returncode == 0, result.stderr
        for point in json.loads(result.stdout)["points"]:
            expected = _bianchi_2000(w, m, rts, point["stations"])
            assert point["throughput"] == pytest.approx(expected, rel=1e-9, abs=0), point


def test_bianchi_model_is_chosen():
    def model(*extra: str) -> dict:
        result = airtcp("bianchi", "--stations", "10", "--json", *extra)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    mac, ns3, bianchi = model(), model("--difs-after-collision"), model("--model", "bianchi")
    assert (mac["model"], mac["eifs_after_collision"]) == ("mac", True)
    assert (ns3["eifs_after_collision"], bianchi["model"]) == (False, "bianchi")
    # 802.11b at 11 Mbit/s: the senders resume AckTimeout (222 us) + DIFS after their frame,
    # 221 us + DIFS after the busy period (1 us longer); the others EIFS (10 + 248 + 50 us)
    # after it, and join the count 2 slots (40 us) after the senders.
    assert mac["collision_time_us"] - bianchi["collision_time_us"] == pytest.approx(221 + 40)
    # Without EIFS the others resume first, DIFS after the busy period (Bianchi's time).
    assert ns3["collision_time_us"] == pytest.approx(bianchi["collision_time_us"])
    bad = airtcp("bianchi", "--model", "eifs")
    assert bad.returncode == 2 and "--model: expected mac or bianchi" in bad.stderr


@pytest.mark.parametrize("scenario", [b.name for b in built_ins()])
def test_no_packet_exceeds_a_1500_byte_mtu_in_any_built_in_scenario(scenario, tmp_path):
    """RFC 6691 §2: the options every segment carries (timestamps, in the linux profile)
    come out of the payload, so a 1460-byte MSS fills a 1500-byte packet and no more; and
    every node's trace, data and ACKs both ways, stays within it."""
    traces = tmp_path / "pcap"
    short = {"simulation.duration": "10s", "simulation.measure_from": "0s"}
    airtcp_api.run(scenario, overrides=short, timeseries=False,
                   pcap_dir=traces)  # fmt: skip
    lengths = [origlen - 14 for path in traces.glob("*.pcap")
               for _, origlen in read_pcap(path, whole=False)]  # fmt: skip
    assert lengths, "the scenario sent packets"
    assert max(lengths) <= 1500, (scenario, max(lengths))


def test_wireshark_reads_the_traces(tmp_path):
    """Wireshark's TCP analysis validates every checksum and follows the sender's stream."""
    tshark = shutil.which("tshark")
    if tshark is None:
        pytest.skip("tshark is not installed (make test installs it)")

    def trace(*extra: str) -> str:
        out = tmp_path / ("-".join(extra) or "headers")
        result = airtcp(
            "run", str(SCENARIOS / "wired-tcp.toml"), "--pcap", "--out", str(out), *extra,
            "--set", "simulation.duration=3s", "--set", "simulation.measure_from=0s",
            "--set", "links.0.loss=0.01",
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        return str(out / "pcap" / "client.pcap")

    def count(trace: str, display_filter: str) -> int:
        fields = subprocess.run(
            [tshark, "-r", trace, "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
             "-Y", display_filter, "-T", "fields", "-e", "frame.number"],
            capture_output=True, text=True, check=True, timeout=120,
        ).stdout  # fmt: skip
        return len(fields.split())

    whole = trace("--snaplen", "0")
    total = count(whole, "tcp")
    assert total > 500
    assert count(whole, "tcp.checksum.status == 1 && ip.checksum.status == 1") == total, (
        "all checksums good"
    )
    # The default, headers-only trace is analysed the same way.
    for path in (whole, trace()):
        assert count(path, "tcp.flags.syn == 1") >= 1
        assert count(path, "tcp.analysis.retransmission || tcp.analysis.fast_retransmission") > 0
        assert count(path, "tcp.analysis.ack_lost_segment") == 0, "the trace misses nothing"


def _running(process: subprocess.Popen, out: Path) -> None:
    """Waits until a run has made its output directory (the command is under way), and a
    moment more, so that it is simulating."""
    deadline = time.monotonic() + 120  # a watchdog, not a speed
    while not out.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run never started"
        time.sleep(0.05)
    time.sleep(1.0)
    assert process.poll() is None, "the run should still be going"


def _cpu_s(pid: int) -> float:
    """The CPU time a running process has used, user and system (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_ctrl_c_stops_a_long_run_cleanly(tmp_path):
    """A long single run stops promptly on SIGINT, exits 130, leaves no traces. Promptly
    in CPU time, which a busy machine does not stretch as it does the wall clock: the
    simulator looks for a signal every 65536 events, then the interpreter exits."""
    children = _children_cpu_s()
    process = subprocess.Popen(
        [sys.executable, "-m", "airtcp.cli", "run", str(SCENARIOS / "wired-tcp.toml"),
         "--out", str(tmp_path / "out"), "--pcap",
         "--set", "links.0.rate=1Gbps", "--set", "links.0.queue=3000",
         "--set", "tcp.send_buffer=4MiB", "--set", "tcp.receive_buffer=4MiB",
         "--set", "simulation.duration=3000s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    _running(process, tmp_path / "out")
    before = _cpu_s(process.pid)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    after = _children_cpu_s() - children - before
    assert after < 1.0, f"{after:.2f} s of CPU after the signal"
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert not (tmp_path / "out" / "summary.json").exists()
    assert not list((tmp_path / "out").rglob("*.pcap")), "no half-written traces"


def test_sigterm_stops_a_long_run_like_ctrl_c(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "airtcp.cli", "run", str(SCENARIOS / "wired-tcp.toml"),
         "--out", str(tmp_path / "out"), "--set", "links.0.rate=1Gbps",
         "--set", "links.0.queue=3000", "--set", "simulation.duration=3000s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    _running(process, tmp_path / "out")
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert not (tmp_path / "out" / "summary.json").exists()


def test_wireshark_reads_sack_timestamps_and_pings(tmp_path):
    """The options a Linux-profile flow negotiates, and ICMP echo, as Wireshark decodes them."""
    tshark = shutil.which("tshark")
    if tshark is None:
        pytest.skip("tshark is not installed (make test installs it)")
    out = tmp_path / "linux"
    result = airtcp(
        "run", str(SCENARIOS / "wired-tcp.toml"), "--pcap", "--out", str(out), "--snaplen", "0",
        "--set", "tcp.profile=linux", "--set", "simulation.duration=3s",
        "--set", "simulation.measure_from=0s", "--set", "links.0.loss=0.02",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    trace = str(out / "pcap" / "client.pcap")

    def count(display_filter: str) -> int:
        fields = subprocess.run(
            [tshark, "-r", trace, "-o", "tcp.check_checksum:TRUE",
             "-Y", display_filter, "-T", "fields", "-e", "frame.number"],
            capture_output=True, text=True, check=True, timeout=120,
        ).stdout  # fmt: skip
        return len(fields.split())

    total = count("tcp")
    assert total > 500
    assert count("tcp.checksum.status == 1") == total
    assert count("tcp.options.sack_perm") == 2, "SYN and SYN-ACK"
    assert count("tcp.options.timestamp.tsval") == total
    assert count("tcp.options.sack_le") > 10, "the receiver's SACK blocks"
    assert count("tcp.analysis.ack_lost_segment") == 0
    ping = tmp_path / "ping"
    result = airtcp(
        "run", str(SCENARIOS / "wired-tcp.toml"), "--pcap", "--out", str(ping), "--snaplen", "0",
        "--set", "flows.0.kind=ping", "--set", "flows.0.count=5",
        "--set", "flows.0.interval=100ms",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    trace = str(ping / "pcap" / "client.pcap")
    assert count("icmp.type == 8 && icmp.checksum.status == 1") == 5
    assert count("icmp.type == 0 && icmp.resp_to") == 5, "each reply matched to its request"


def test_a_link_replays_a_delivery_trace_next_to_its_scenario(tmp_path):
    # 2 opportunities a millisecond for 1 s then one at 2 s: 24 Mbit/s with 1 s gaps.
    (tmp_path / "steps.down").write_text(
        "".join(f"{ms}\n{ms}\n" for ms in range(1, 1001)) + "2000\n"
    )
    scenario = tmp_path / "traced.toml"
    scenario.write_text(
        """
[simulation]
duration = "6s"
measure_from = "0s"
[[links]]
a = "server"
b = "phone"
trace = "steps.down"
delay = "10ms"
queue = 200
[links.b_to_a]
rate = "10Mbps"
[[flows]]
src = "server"
dst = "phone"
kind = "udp_cbr"
rate = "30Mbps"
payload = 1472
"""
    )
    result = airtcp("run", str(scenario), "--json", cwd=Path("/"))
    assert result.returncode == 0, result.stderr
    link = json.loads(result.stdout)["links"][0]
    # Rounds from 0, 2 and 4 s, each 2000 opportunities and one more; the last 10 ms
    # (propagation) are not counted.
    assert 3 * 2001 - 25 <= link["delivered"] <= 3 * 2001, link


def test_traces_an_earlier_run_left_are_named_not_taken_for_this_runs(tmp_path):
    out = tmp_path / "run"
    args = ["run", "wired-tcp", "--set", "simulation.duration=3s", "--set",
            "simulation.measure_from=1s", "--out", str(out), "--pcap"]  # fmt: skip
    first = airtcp(*args)
    assert first.returncode == 0 and "warning" not in first.stderr, first.stderr
    (out / "pcap" / "router.pcap").write_bytes(b"")  # a node of another scenario
    again = airtcp(*args)
    assert again.returncode == 0, again.stderr
    assert "1 trace(s) of an earlier run that this one did not write (router.pcap)" in again.stderr
    assert again.stderr.count("\n") == 1
    assert sorted(p.name for p in (out / "pcap").iterdir()) == [
        "client.pcap",
        "router.pcap",
        "server.pcap",
    ]


def test_a_very_short_measurement_window_is_warned_of():
    short = airtcp("run", "wired-tcp", "--set", "simulation.duration=5.5s")
    assert short.returncode == 0
    assert short.stderr.startswith("warning: the measurement window (5-5.5 s) is under 1 s")
    assert short.stderr.count("\n") == 1
    enough = airtcp("run", "wired-tcp", "--set", "simulation.duration=6s")
    assert enough.returncode == 0 and enough.stderr == ""
