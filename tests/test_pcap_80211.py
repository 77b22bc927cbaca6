"""The 802.11 view (--pcap-80211): Wireshark reads each WLAN's radiotap capture with the frame
types, retry bits, FCS and timing the MAC's counters and airtime model say it should."""

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from conftest import airtcp

RTS, CTS, ACK, DATA, QOS_DATA = "0x001b", "0x001c", "0x001d", "0x0020", "0x0028"
FIELDS = [
    "frame.time_epoch", "frame.cap_len", "frame.len", "wlan.fc.type_subtype", "wlan.fc.retry",
    "wlan.seq", "wlan.ta", "wlan.ra", "radiotap.flags.badfcs", "wlan.fcs.status",
    "wlan_radio.start_tsf", "wlan_radio.end_tsf", "tcp.ack",
]  # fmt: skip


def tshark() -> str:
    path = shutil.which("tshark")
    if path is None:
        pytest.skip("tshark is not installed (make test installs it)")
    return path


def capture(out: Path, *settings: str, whole: bool = True) -> tuple[dict, list[dict]]:
    """Runs ryu-upload with 5 stations for 2 s; the summary of its WLAN and its frames as
    Wireshark dissects them (FCS checked). ``whole``: records keep whole frames."""
    result = airtcp(
        "run", "ryu-upload", "--pcap-80211", "--out", str(out), "--json",
        *(["--snaplen", "0"] if whole else []),
        "--set", "wlan.stations=5", "--set", "simulation.duration=2s",
        "--set", "simulation.measure_from=1s", *(a for s in settings for a in ("--set", s)),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    traces = list((out / "pcap-80211").iterdir())
    assert [t.name for t in traces] == ["wlan0-ap.pcap"]
    fields = subprocess.run(
        [tshark(), "-r", str(traces[0]), "-o", "wlan.check_checksum:TRUE", "-T", "fields",
         *(a for f in FIELDS for a in ("-e", f))],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    frames = [dict(zip(FIELDS, line.split("\t"), strict=True)) for line in fields.splitlines()]
    return json.loads(result.stdout)["wlans"][0], frames


def check_timing(frames: list[dict]) -> None:
    """Wireshark's own PHY timing (radio start = the TSFT at the end minus its airtime) puts
    every frame where the simulator sent it; frames overlap only when they collide."""
    previous_start, previous_end = -1, -1
    for frame in frames:
        start = int(float(frame["frame.time_epoch"]) * 1e6 + 1e-3)
        assert abs(int(frame["wlan_radio.start_tsf"] or 0) - start) <= 1, frame
        end = int(frame["wlan_radio.end_tsf"])
        assert start == previous_start or start >= previous_end, frame
        previous_start, previous_end = start, end


def test_frame_types_retries_and_fcs_match_the_mac(tmp_path):
    mac, frames = capture(tmp_path, "wlan.rts_threshold=500", "wlan.loss=0.05")
    types = Counter(f["wlan.fc.type_subtype"] for f in frames)
    assert {RTS, CTS, ACK, DATA} <= types.keys(), types
    bad = [f for f in frames if f["radiotap.flags.badfcs"] == "1"]
    # The exchange on the air when the run ends is captured but not yet counted.
    assert 0 <= len(bad) - mac["failed_attempts"] <= 1
    assert 0 <= types[ACK] - mac["successes"] <= 1
    assert mac["collisions"] > 0 and mac["channel_errors"] > 0
    # Wireshark's own FCS check agrees with the radiotap flag: 1 good, 0 bad.
    assert all(f["wlan.fcs.status"] == ("0" if f in bad else "1") for f in frames)
    # The retry bit is set exactly on data frames whose MSDU was on the air before.
    seen: set[tuple[str, str]] = set()
    retries = 0
    for frame in frames:
        if frame["wlan.fc.type_subtype"] != DATA:
            continue
        key = (frame["wlan.ta"], frame["wlan.seq"])
        assert (frame["wlan.fc.retry"] == "1") == (key in seen), frame
        retries += key in seen
        seen.add(key)
    assert retries > 0
    assert max(Counter(ta for ta, _ in seen).values()) < 4096, "no sequence number wrapped"
    check_timing(frames)


def test_a_msdus_and_txop_bursts_as_wireshark_sees_them(tmp_path):
    mac, frames = capture(tmp_path / "aggregation", "wlan.agent.kind=ack_aggregation")
    aggregates = [f for f in frames if f["wlan.fc.type_subtype"] == QOS_DATA]
    delivered = [f for f in aggregates if f["radiotap.flags.badfcs"] == "0"]
    assert len(delivered) == mac["aggregates"] > 0
    # Every subframe's TCP ACK is dissected.
    assert sum(len(f["tcp.ack"].split(",")) for f in delivered) == mac["aggregated_msdus"]
    check_timing(frames)

    mac, frames = capture(tmp_path / "txop", "wlan.agent.kind=txop_burst", "wlan.phy=802.11g",
                          "wlan.rate=54Mbps", "wlan.basic_rate=6Mbps")  # fmt: skip
    assert mac["txop_bursts"] > 0
    check_timing(frames)


def test_records_keep_headers_only_by_default(tmp_path):
    _, whole = capture(tmp_path / "whole")
    _, headers = capture(tmp_path / "headers", whole=False)
    assert len(whole) == len(headers)
    for full, cut in zip(whole, headers, strict=True):
        assert full["frame.len"] == cut["frame.len"]
        if full["wlan.fc.type_subtype"] == DATA:
            # radiotap 22, MAC header 24, LLC/SNAP 8, IPv4 20, TCP: the ACK has 20, the SYN
            # 28 (MSS and window scale, padded).
            assert int(cut["frame.cap_len"]) in (94, 102), cut
        else:
            assert cut["frame.cap_len"] == cut["frame.len"]


def test_a_scenario_without_a_wlan_has_nothing_to_capture(tmp_path):
    result = airtcp("run", "wired-tcp", "--pcap-80211", "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --pcap-80211: the scenario has no WLAN to capture"
    assert not (tmp_path / "out").exists()
