"""The 802.11a, n, ac and ax PHYs in scenarios (docs/scenarios.md, "PHYs"): their settings
reach the simulator only when given, a lone station gets the throughput its frames' airtime
allows, captures say the MCS as Wireshark reads it, and bad settings are one line naming
the key."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from airtcp.scenario.resolve import resolve
from airtcp.scenario.schema import load
from conftest import SCENARIOS, airtcp
from test_bad_input import assert_one_line_error

BSS = """
[simulation]
name = "phys"
duration = "3s"
measure_from = "1s"

[wlan]
ap = "ap"
stations = 2
station_name = "s{{i}}"
{wlan}

[[flows]]
name = "up{{i}}"
src = "s{{i}}"
dst = "ap"
kind = "udp_cbr"
rate = "{rate}"
payload = 1472
per_station = true
"""


def scenario(tmp_path: Path, wlan: str, rate: str = "400Mbps") -> Path:
    path = tmp_path / "s.toml"
    path.write_text(BSS.format(wlan=wlan, rate=rate))
    return path


def test_mcs_settings_reach_the_simulator_only_when_given(tmp_path: Path):
    wlan = 'phy = "802.11ac"\nmcs = 7\nchannel_width = 40\nguard_interval = "400ns"'
    phy = resolve(load(scenario(tmp_path, wlan)))[0]["wlans"][0]["phy"]
    assert phy["standard"] == "802.11ac"
    assert (phy["mcs"], phy["channel_width_mhz"], phy["guard_interval_ns"]) == (7, 40, 400)
    assert "rate_bps" not in phy and "spatial_streams" not in phy and "band" not in phy
    legacy = resolve(load(scenario(tmp_path, 'phy = "802.11a"\nrate = "54Mbps"')))[0]
    assert set(legacy["wlans"][0]["phy"]) == {
        "standard", "rate_bps", "basic_rate_bps", "preamble", "short_slot", "cw_min", "cw_max",
    }  # fmt: skip


def test_one_saturated_station_gets_what_its_exchange_allows(tmp_path: Path):
    # 802.11ac, 80 MHz, MCS 9, one stream (390 Mbit/s), one station sending 1472-byte UDP
    # payloads: a 1538-byte QoS data frame as an S-MPDU of 4 + 1540 bytes, ⌈(8·1544 + 22)/1560⌉
    # = 8 symbols after a 40 µs preamble (72 µs), SIFS 16 µs, an ACK at 24 Mbit/s (28 µs),
    # AC_BE's AIFS 43 µs (DIFS 34 µs without EDCA), the mean backoff 7.5 slots of 9 µs and two
    # 1 µs propagation delays: 228.5 µs a frame (219.5 µs).
    path = scenario(tmp_path, 'phy = "802.11ac"\nmcs = 9\nampdu = false', rate="200Mbps")
    path.write_text(path.read_text().replace("stations = 2", "stations = 1"))
    for edca, exchange in (("true", 228.5e-6), ("false", 219.5e-6)):
        result = airtcp(
            "run", str(path), "--json", "--set", "simulation.duration=10s",
            "--set", f"wlan.edca={edca}",
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        goodput = json.loads(result.stdout)["aggregate_goodput_bps"]
        expected = 1472 * 8 / exchange
        assert abs(goodput / expected - 1) < 0.002, (edca, goodput, expected)


def test_aggregation_is_on_by_default_and_run_reports_it(tmp_path: Path):
    # Two stations, 802.11ac MCS 9: A-MPDUs of up to 64 MPDUs, several times the throughput
    # of single MPDUs (tests/ampdu.rs checks the figures by hand).
    path = scenario(tmp_path, 'phy = "802.11ac"\nmcs = 9', rate="300Mbps")
    result = airtcp("run", str(path), "--out", str(tmp_path / "o"))
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if "A-MPDUs:" in x)
    assert "MPDUs on average" in line and "held by the recipient" in line
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    wlan = summary["wlans"][0]
    assert wlan["ampdu_mpdus"] > 30 * wlan["ampdus"]
    assert summary["aggregate_goodput_bps"] > 250e6


def test_ax_single_shows_what_aggregation_is_worth():
    goodput = {}
    for ampdu in ("true", "false"):
        result = airtcp("run", "ax-single", "--json", "--set", f"wlan.ampdu={ampdu}",
                        "--set", "simulation.duration=5s")  # fmt: skip
        assert result.returncode == 0, result.stderr
        summary = json.loads(result.stdout)
        assert summary["flows"][0]["retransmissions"] == 0
        goodput[ampdu] = summary["aggregate_goodput_bps"]
    assert goodput["true"] > 350e6 and goodput["true"] > 8 * goodput["false"], goodput


def captured(path: Path, out: Path, fields: list[str], *tshark: str) -> tuple[dict, list[dict]]:
    """Runs `path` with `--pcap-80211` into `out`: its WLAN's summary and the frames of its
    capture as tshark dissects them (FCS checked), `fields` each."""
    result = airtcp("run", str(path), "--pcap-80211", "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    wlan = json.loads(result.stdout)["wlans"][0]
    lines = subprocess.run(
        ["tshark", "-r", str(out / "pcap-80211" / "wlan0-ap.pcap"),
         "-o", "wlan.check_checksum:TRUE", "-T", "fields", *tshark,
         *(a for f in fields for a in ("-e", f))],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout.splitlines()  # fmt: skip
    return wlan, [dict(zip(fields, line.split("\t"), strict=True)) for line in lines]


def shortened(path: Path, duration: str, measure_from: str) -> str:
    """The scenario's text with the run shortened."""
    text = path.read_text().replace('duration = "3s"', f'duration = "{duration}"')
    return text.replace('measure_from = "1s"', f'measure_from = "{measure_from}"')


# On a channel with geometry, the stations 8 m from the AP (33 dB SNR) lose some MPDUs
GEOMETRY = "edca = false\n[positions]\nap = [0, 0]\ns1 = [8, 0]\ns2 = [-8, 0]\n\n[[flows]]"


@pytest.mark.parametrize("geometry", [False, True])
def test_captures_show_each_subframe_and_the_block_acks(tmp_path: Path, geometry: bool):
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed (make test installs it)")
    wlan = 'phy = "802.11ac"\nmcs = 9' + ("" if geometry else "\nloss = 0.1")
    path = scenario(tmp_path, wlan, rate="300Mbps")
    text = shortened(path, "0.5s", "0.2s")
    path.write_text(text.replace("[[flows]]", GEOMETRY, 1) if geometry else text)
    fields = ["wlan.fc.type_subtype", "radiotap.ampdu.reference", "radiotap.flags.badfcs",
              "wlan.fcs.status", "wlan.ba.control.ba_type"]  # fmt: skip
    wlan, frames = captured(path, tmp_path / "o", fields)
    data = [f for f in frames if f["wlan.fc.type_subtype"] == "0x0028"]
    block_acks = [f for f in frames if f["wlan.fc.type_subtype"] == "0x0019"]
    acks = [f for f in frames if f["wlan.fc.type_subtype"] == "0x001d"]
    # a record per MPDU sent, bad where unacknowledged (on a channel with geometry, the
    # A-MPDUs on the air when the run ends are captured but not yet counted); the BlockAcks'
    # FCS checks out
    on_air = 2 * 64 if geometry else 0
    assert 0 <= len(data) - wlan["ampdu_mpdus"] <= on_air
    bad = [f for f in data if f["radiotap.flags.badfcs"] == "1"]
    assert 0 <= len(bad) - wlan["ampdu_failed_mpdus"] <= on_air
    assert wlan["ampdu_failed_mpdus"] > 0
    assert {f["wlan.fcs.status"] for f in block_acks} == {"1"}
    # the subframes of one A-MPDU share its reference; one BlockAck (or ACK) a success
    references = {f["radiotap.ampdu.reference"] for f in data} - {""}
    # (the exchange on the air when the run ends is captured but not yet counted)
    assert 0 <= len(block_acks) + len(acks) - wlan["successes"] <= 1
    assert len(references) == wlan["ampdus"] - sum(
        1 for f in data if not f["radiotap.ampdu.reference"]
    )
    assert {f["wlan.ba.control.ba_type"] for f in block_acks} == {"0x0002"}  # compressed


@pytest.mark.parametrize("geometry", [False, True])
def test_captures_show_a_msdus_inside_a_mpdus(tmp_path: Path, geometry: bool):
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed (make test installs it)")
    wlan = 'phy = "802.11ac"\nmcs = 9\nmax_amsdu = 7935' + ("" if geometry else "\nloss = 0.1")
    path = scenario(tmp_path, wlan)
    text = shortened(path, "0.5s", "0.2s")
    path.write_text(text.replace("[[flows]]", GEOMETRY, 1) if geometry else text)
    fields = ["wlan.fc.type_subtype", "radiotap.flags.badfcs", "wlan.qos.amsdupresent", "ip.id"]
    wlan, frames = captured(path, tmp_path / "o", fields, "-E", "aggregator=;")
    data = [f for f in frames if f["wlan.fc.type_subtype"] == "0x0028"]
    # a record per MPDU, an A-MSDU where it carries several datagrams, every one dissected;
    # those received carry every MSDU delivered (and those of the A-MPDU whose BlockAck
    # the run's end cut off, not yet counted: at most 64 MPDUs of 5; on a channel with
    # geometry the A-MPDUs on the air at the end are captured but not yet counted)
    assert 0 <= len(data) - wlan["ampdu_mpdus"] <= (2 * 64 if geometry else 0)
    good = [f for f in data if f["radiotap.flags.badfcs"] == "0"]
    msdus = [len(f["ip.id"].split(";")) for f in good]
    assert all(
        (f["wlan.qos.amsdupresent"] == "1") == (n > 1) for f, n in zip(good, msdus, strict=True)
    )
    assert 0 <= sum(msdus) - wlan["delivered_msdus"] <= 64 * 5
    assert len(good) < len(data) and wlan["delivered_msdus"] > 3 * len(good)


@pytest.mark.parametrize("geometry", [False, True])
def test_captures_show_block_ack_reqs_and_their_block_acks(tmp_path: Path, geometry: bool):
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed (make test installs it)")
    # (on a channel with geometry the stations 8 m from the AP lose about a fifth of the
    # MPDUs, and with one attempt each give them up)
    wlan = 'phy = "802.11ac"\nmcs = 9\nshort_retry_limit = 1' + ("" if geometry else "\nloss = 0.5")
    path = scenario(tmp_path, wlan)
    text = shortened(path, "0.3s", "0.1s")
    path.write_text(text.replace("[[flows]]", GEOMETRY, 1) if geometry else text)
    fields = ["wlan.fc.type_subtype", "wlan.fcs.status", "wlan.fixed.ssc.sequence"]
    wlan, frames = captured(path, tmp_path / "o", fields)
    # every MPDU given up is followed by a BlockAckReq; those that did not collide (FCS
    # good) are answered by a BlockAck from the same starting sequence number (on a channel
    # with geometry a BlockAck can be lost, and its BlockAckReq then counts a failure)
    bars = [k for k, f in enumerate(frames) if f["wlan.fc.type_subtype"] == "0x0018"]
    good = [k for k in bars if frames[k]["wlan.fcs.status"] == "1"]
    assert 0 <= len(good) - wlan["block_ack_reqs"] <= (5 if geometry else 1)
    assert wlan["block_ack_reqs"] > 10
    assert len(bars) > len(good), "two stations: some BlockAckReqs collide"
    for k in good[:-1]:
        bar, answer = frames[k], frames[k + 1]
        assert answer["wlan.fc.type_subtype"] == "0x0019"
        assert answer["wlan.fixed.ssc.sequence"] == bar["wlan.fixed.ssc.sequence"] != ""


def test_captures_say_each_stations_mcs_and_answer_at_non_ht_rates(tmp_path: Path):
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed (make test installs it)")
    wlan = (
        'phy = "802.11ac"\nmcs = 7\nchannel = 36\nampdu = false\nedca = false\n'
        "[wlan.station_mcs]\ns2 = 2"
    )
    path = scenario(tmp_path, wlan)
    positions = "[positions]\nap = [0, 0]\ns1 = [5, 0]\ns2 = [-5, 0]\n\n[[flows]]"
    path.write_text(path.read_text().replace("[[flows]]", positions))
    result = airtcp("run", str(path), "--pcap-80211", "--out", str(tmp_path / "o"))
    assert result.returncode == 0, result.stderr
    fields = ["wlan.fc.type_subtype", "wlan.ta", "radiotap.vht.mcs.0", "radiotap.vht.nss.0",
              "radiotap.vht.bw", "radiotap.channel.freq", "wlan_radio.data_rate"]  # fmt: skip
    out = subprocess.run(
        ["tshark", "-r", str(tmp_path / "o" / "pcap-80211" / "wlan0-ap.pcap"), "-T", "fields",
         *(a for f in fields for a in ("-e", f))],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    frames = [dict(zip(fields, line.split("\t"), strict=True)) for line in out.splitlines()]
    data = [f for f in frames if f["wlan.fc.type_subtype"] == "0x0028"]
    assert data and all(f["radiotap.channel.freq"] == "5180" for f in frames)
    # QoS data at each sender's MCS, one stream, 80 MHz (radiotap's code 4)
    assert {f["radiotap.vht.mcs.0"] for f in data} == {"7", "2"}
    assert {(f["radiotap.vht.nss.0"], f["radiotap.vht.bw"]) for f in data} == {("1", "4")}
    # ACKs as non-HT OFDM: 24 Mbit/s after 64-QAM, 12 after QPSK 3/4 (non-HT reference 18)
    acks = {f["wlan_radio.data_rate"] for f in frames if f["wlan.fc.type_subtype"] == "0x001d"}
    assert acks == {"24", "12"}


@pytest.mark.parametrize(
    ("wlan", "fragments"),
    [
        ('phy = "802.11ac"\nrate = "54Mbps"', ("wlan.rate", "set mcs")),
        ('phy = "802.11ac"\nchannel_width = 20\nmcs = 9', ("wlan.mcs", "MCS 9", "0, 1")),
        ('phy = "802.11ac"\nchannel_width = 30', ("wlan.channel_width", "20, 40, 80, 160")),
        ('phy = "802.11n"\nmcs = 40', ("wlan.mcs", "0 to 31")),
        ('phy = "802.11n"\nmcs = 9\nspatial_streams = 1', ("wlan.spatial_streams", "2")),
        ('phy = "802.11ax"\nguard_interval = "400ns"', ("wlan.guard_interval", "800, 1600")),
        ('phy = "802.11ac"\nband = "2.4GHz"', ("wlan.band", "5 GHz")),
        ('phy = "802.11b"\nmcs = 3', ("wlan", "'mcs'", "802.11n, ac and ax")),
        ('phy = "802.11ac"\nchannel = 6', ("wlan.channel", "5 GHz", "32 to 177")),
        ('phy = "802.11ac"\nrate_control = "minstrel"', ("wlan.rate_control", "Minstrel-HT")),
        ('phy = "802.11n"\nmcs = 3\n[wlan.station_mcs]\ns1 = 40', ("wlan.station_mcs", "0 to 31")),
        (
            # on a shared channel a station keeps the WLAN's stream count
            'phy = "802.11n"\nmcs = 3\nampdu = false\nedca = false\n[wlan.station_mcs]\ns1 = 11\n'
            "[positions]\nap = [0, 0]\ns1 = [5, 0]\ns2 = [-5, 0]",
            ("wlan.station_mcs", "stream"),
        ),
        ('phy = "802.11ac"\nbasic_rate = "54Mbps"', ("wlan.basic_rate", "6, 12, 24")),
        ('phy = "802.11g"\nrate = "54Mbps"\nampdu = true', ("wlan.ampdu", "802.11g has no")),
        ('phy = "802.11ac"\nba_window = 100', ("wlan.ba_window", "1 to 64")),
        ('phy = "802.11ac"\nampdu = false\nba_window = 8', ("wlan.ba_window", "off")),
        ('phy = "802.11ac"\nmax_ampdu_duration = "10ms"', ("wlan.max_ampdu_duration", "5484 us")),
        (
            'phy = "802.11ac"\nampdu = false\nmax_ampdu_duration = "4ms"',
            ("wlan.max_ampdu_duration", "A-MPDU, which is off"),
        ),
        ('phy = "802.11n"\nmax_ampdu = "1MB"', ("wlan.max_ampdu", "1 to 65535")),
        ('phy = "802.11ac"\nagent = "txop_burst"', ("wlan.agent", "several A-MPDUs", "ampdu")),
        (
            'phy = "802.11ac"\n[[agents]]\nnode = "ap"\ninterface = "wlan"\n'
            'kind = "ack_aggregation"',
            ("agents[0].kind", "A-MSDUs of its own", "ampdu = false"),
        ),
        ('phy = "802.11n"\nmax_amsdu = 7935', ("wlan.max_amsdu", "1 to 4065", "4095")),
        ('phy = "802.11ac"\nmax_amsdu = 12000', ("wlan.max_amsdu", "1 to 11424", "MPDU")),
        ('phy = "802.11ac"\nampdu = false\nmax_amsdu = 7935', ("wlan.max_amsdu", "off")),
        (
            'phy = "802.11ac"\nmax_amsdu = 7935\nmsdu_lifetime = "100ms"',
            ("wlan.msdu_lifetime", "max_amsdu", "MSDU lifetime"),
        ),
        (
            'phy = "802.11ac"\nmax_amsdu = 7935\nagent = "ack_priority"',
            ("wlan.agent", "max_amsdu", "agent on its AP"),
        ),
        (
            'phy = "802.11ac"\nmax_amsdu = 7935\n[[agents]]\nnode = "ap"\ninterface = "wlan"\n'
            'kind = "af"',
            ("agents[0].interface", "A-MSDUs inside A-MPDUs", "max_amsdu"),
        ),
    ],
)
def test_bad_phy_settings_are_one_line_naming_the_key(
    tmp_path: Path, wlan: str, fragments: tuple[str, ...]
):
    result = airtcp("validate", str(scenario(tmp_path, wlan)))
    assert_one_line_error(result, *fragments)


def test_bianchi_models_the_mcs_phys_with_their_a_mpdus():
    def model(*args: str) -> dict:
        result = airtcp("bianchi", "--phy", "802.11ac", "--stations", "5", "--json", *args)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    aggregated = model("--mcs", "9")
    assert aggregated["mpdus_per_ampdu"] == 64 and aggregated["data_rate_bps"] == 390_000_000
    single = model("--mcs", "9", "--no-ampdu")
    assert single["mpdus_per_ampdu"] is None
    # tests/bianchi_saturation.rs checks the simulator against both within 1.5 %
    assert aggregated["points"][0]["throughput_bps"] > 5 * single["points"][0]["throughput_bps"]
    assert_one_line_error(
        airtcp("bianchi", "--phy", "802.11ac", "--mcs", "9", "--channel-width", "20"),
        "--mcs", "MCS 9 does not exist",
    )  # fmt: skip


def test_effective_settings_state_the_mcs_phy_and_its_a_mpdu_limits():
    import airtcp
    from airtcp import _core

    resolved = airtcp.prepare(SCENARIOS / "ax-single.toml")
    wlan = json.loads(_core.effective_settings(json.dumps(resolved)))["wlans"][0]
    assert (wlan["phy"], wlan["mcs"], wlan["channel_width_mhz"]) == ("802.11ax", 11, 80)
    assert (wlan["spatial_streams"], wlan["guard_interval_ns"], wlan["band"]) == (1, 800, "5 GHz")
    assert wlan["ampdu"] == {
        "ba_window": 256, "max_ampdu_bytes": 6500631, "max_ppdu_ns": 5484000, "max_amsdu_bytes": 0,
    }  # fmt: skip
    assert wlan["rate_bps"] == 600_441_176 and wlan["basic_rate_bps"] == 24_000_000


def test_a_planning_agent_beside_a_mpdu_on_a_channel_with_geometry_is_refused(tmp_path: Path):
    wlan = 'phy = "802.11ac"\nmcs = 9\nagent = "ack_priority"'
    path = scenario(tmp_path, wlan)
    path.write_text(path.read_text().replace("[[flows]]", GEOMETRY, 1))
    assert_one_line_error(airtcp("validate", str(path)), "wlan.agent", "beside A-MPDU")
    # without the agent it runs: A-MPDU on a channel with geometry
    path.write_text(path.read_text().replace('agent = "ack_priority"\n', ""))
    assert airtcp("validate", str(path)).returncode == 0
