"""The queues between the stack and each MAC of a WLAN (docs/wifi.md, "Queueing at the AP"):
the FIFO, and Linux mac80211's per-station FQ-CoDel queues with and without airtime
fairness, side by side in the `ac-bss` scenario; bad settings are one line naming the key."""

import json
from pathlib import Path

import airtcp as api
import pytest
from airtcp import _core
from airtcp.scenario.resolve import resolve
from airtcp.scenario.schema import load
from conftest import SCENARIOS, airtcp
from test_bad_input import assert_one_line_error
from test_phys import scenario


def test_the_fifo_is_the_default_and_resolves_as_before(tmp_path: Path):
    wlan = resolve(load(scenario(tmp_path, 'phy = "802.11ac"')))[0]["wlans"][0]
    assert "queueing" not in wlan
    chosen = resolve(load(scenario(tmp_path, 'phy = "802.11ac"\nqueueing = "fq_codel"')))
    assert chosen[0]["wlans"][0]["queueing"] == "fq_codel"
    assert _core.wlan_queueings() == ["fifo", "fq_codel", "fq_codel_airtime"]


@pytest.mark.parametrize(
    ("wlan", "fragments"),
    [
        ('queueing = "codel"', ("wlan.queueing", "fq_codel_airtime")),
        ('queueing = "fq_codel"\nagent = "snoop"', ("wlan.agent", "snoop", "fifo")),
        (
            'queueing = "fq_codel"\n[[agents]]\nnode = "ap"\ninterface = "wlan"\nkind = "af"',
            ("agents[0].kind", "mac80211", "fifo"),
        ),
        ("short_retry_limit = 300", ("wlan.short_retry_limit", "255")),
        ('driver_queue = "firmware"', ("wlan.driver_queue", "fifo", "fq_codel")),
        ('driver_queue = "deep"', ("wlan.driver_queue", "firmware_aql")),
        (
            'queueing = "fq_codel"\nfirmware_queue = 512',
            ("wlan.firmware_queue", 'driver_queue = "firmware"'),
        ),
        (
            'queueing = "fq_codel"\ndriver_queue = "firmware"\nfirmware_queue = 100000',
            ("wlan.firmware_queue", "65536"),
        ),
        (
            'queueing = "fq_codel"\ndriver_queue = "firmware"\naql_limit_high = "6ms"',
            ("wlan.aql_limit_high", "firmware_aql"),
        ),
        (
            'queueing = "fq_codel"\ndriver_queue = "firmware"\nmsdu_lifetime = "100ms"',
            ("wlan.msdu_lifetime", "firmware queue", "arrival order"),
        ),
        (
            'queueing = "fq_codel"\ndriver_queue = "firmware_aql"\naql_limit_low = "20ms"',
            ("wlan.aql_limit_low", "20000 us", "12000 us"),
        ),
    ],
)
def test_bad_queueing_settings_are_one_line_naming_the_key(
    tmp_path: Path, wlan: str, fragments: tuple[str, ...]
):
    assert_one_line_error(airtcp("validate", str(scenario(tmp_path, wlan))), *fragments)


def test_a_wlan_with_geometry_keeps_the_queues_and_counts_each_stations_airtime(
    tmp_path: Path,
):
    # two stations 5 m from the AP, sending to it: each MAC's tins feed its queue on the
    # channel (crates/airtcp-sim/tests/radio_queueing.rs checks the shares by hand)
    wlan = 'phy = "802.11ac"\nqueueing = "fq_codel_airtime"'
    path = scenario(tmp_path, wlan)
    positions = "[positions]\nap = [0, 0]\ns1 = [5, 0]\ns2 = [-5, 0]\n\n[[flows]]"
    path.write_text(path.read_text().replace("[[flows]]", positions, 1))
    summary = api.run(path).summary
    wlan = summary["wlans"][0]
    assert wlan["radio"] is not None, "geometry"
    uplink = wlan["station_uplink_airtime_ns"]
    assert len(uplink) == 2 and min(uplink) > 0.45 * sum(uplink)
    assert summary["aggregate_goodput_bps"] > 300e6


def run_ac_bss(queueing: str, **overrides) -> dict:
    sets = {"wlan.queueing": queueing, "simulation.duration": "4s"}
    sets |= {"simulation.measure_from": "2s"} | overrides
    return api.run(SCENARIOS / "ac-bss.toml", overrides=sets).summary


def test_effective_settings_state_the_queueing():
    resolved = api.prepare(SCENARIOS / "ac-bss.toml", overrides={"wlan.queueing": "fq_codel"})
    wlan = json.loads(_core.effective_settings(json.dumps(resolved)))["wlans"][0]
    assert wlan["queueing"] == "fq_codel"
    assert wlan["driver_queue"] == "ath9k" and "firmware_queue_frames" not in wlan
    sets = {"wlan.queueing": "fq_codel", "wlan.driver_queue": "firmware_aql"}
    resolved = api.prepare(
        SCENARIOS / "ac-bss.toml", overrides=sets | {"wlan.aql_limit_high": "6ms"}
    )
    wlan = json.loads(_core.effective_settings(json.dumps(resolved)))["wlans"][0]
    assert wlan["firmware_queue_frames"] == 1424
    assert (wlan["aql_limit_low_ns"], wlan["aql_limit_high_ns"]) == (5_000_000, 6_000_000)
    assert wlan["aql_threshold_ns"] == 24_000_000
    assert _core.wlan_driver_queues() == ["ath9k", "firmware", "firmware_aql"]


def test_codel_drops_only_with_mac80211_queues_and_airtime_is_counted_per_station():
    fifo = run_ac_bss("fifo")["wlans"][0]
    fq = run_ac_bss("fq_codel_airtime")["wlans"][0]
    assert fifo["codel_drops"] == 0 and fifo["queue_drops"] > 0
    assert fq["codel_drops"] > 0 and fq["queue_drops"] == 0
    for wlan in (fifo, fq):
        assert len(wlan["station_uplink_airtime_ns"]) == 4
        assert all(t > 0 for t in wlan["station_downlink_airtime_ns"])
        # data PPDUs take most of the 4 s of airtime: busy, but not more than the run
        total = sum(wlan["station_uplink_airtime_ns"]) + sum(wlan["station_downlink_airtime_ns"])
        assert 2e9 < total < 4e9


def downloads_only(tmp_path: Path) -> Path:
    """`ac-bss` without its uploads: four downloads and the ping."""
    text = (SCENARIOS / "ac-bss.toml").read_text()
    uploads = text[text.index('[[flows]]\nname = "up{i}"') : text.index('[[flows]]\nname = "ping"')]
    path = tmp_path / "downloads.toml"
    path.write_text(text.replace(uploads, ""))
    return path


def median_ping_ms(summary: dict) -> float:
    """The median round trip of the run's ping flow, in ms."""
    probes = next(f for f in summary["flows"] if f["name"] == "ping")["probes"]
    rtts = sorted(
        back - sent
        for sent, back in zip(probes["sent_ns"], probes["returned_ns"], strict=True)
        if back is not None
    )
    return rtts[len(rtts) // 2] / 1e6


def test_per_station_queues_share_the_downloads_evenly(tmp_path: Path):
    # the FIFO serves stations as their TCP windows fill it, mac80211's queues in turn
    def jain(queueing: str) -> float:
        sets = {"wlan.queueing": queueing, "simulation.duration": "4s"}
        summary = api.run(
            downloads_only(tmp_path), overrides=sets | {"simulation.measure_from": "2s"}
        ).summary
        assert len(summary["flows"]) == 5
        return summary["jain_fairness"]

    fifo, fq = jain("fifo"), jain("fq_codel")
    assert fq > 0.99 and fq > fifo


def test_latency_under_load_falls_with_mac80211s_queues(tmp_path: Path):
    # 802.11n MCS 7, 20 MHz (65 Mbit/s), where the FIFO's 1000 frames hold 185 ms: the ping
    # waits behind the downloads there, and goes as a sparse flow of its own with FQ-CoDel;
    # the downloads' throughput stays (the PPDU limit ends each A-MPDU, and a frame that no
    # longer fits waits for its station's next turn)
    def run(queueing: str) -> tuple[float, float, float]:
        sets = {"wlan.queueing": queueing, "wlan.phy": "802.11n", "wlan.mcs": 7}
        sets |= {"wlan.channel_width": 20, "simulation.duration": "12s"}
        summary = api.run(downloads_only(tmp_path), overrides=sets).summary
        return (
            median_ping_ms(summary),
            summary["aggregate_goodput_bps"],
            summary["jain_fairness"],
        )

    fifo, fq, airtime = run("fifo"), run("fq_codel"), run("fq_codel_airtime")
    assert fifo[0] > 1.5 * fq[0] and fifo[0] > 1.5 * airtime[0], (fifo, fq, airtime)
    for _, goodput, jain in (fq, airtime):
        assert goodput > 0.93 * fifo[1] and jain > 0.99


def test_run_lists_each_stations_airtime_or_with_many_their_spread():
    def airtime_line(stations: int) -> str:
        result = airtcp(
            "run", "ac-upload", "--set", f"wlan.stations={stations}",
            "--set", "simulation.duration=2s", "--set", "simulation.measure_from=1s",
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        return next(line for line in result.stdout.splitlines() if "airtime per station" in line)

    assert airtime_line(2).strip().startswith("airtime per station, down/up: ")
    assert airtime_line(2).count("/") == 3  # "down/up" and one pair a station
    many = airtime_line(40)
    assert "(down and up, 40 stations): least " in many and "median" in many
    assert len(many) < 120


def test_a_firmware_queue_adds_latency_under_load_and_aql_takes_most_of_it_back(tmp_path: Path):
    # the downloads of `ac-bss` and its ping, above ath9k's queue, a firmware queue of 1424
    # frames, and the same with AQL (crates/airtcp-sim/tests/aql.rs checks the bounds by hand)
    def median_rtt_ms(driver_queue: str) -> float:
        sets = {"wlan.queueing": "fq_codel", "wlan.driver_queue": driver_queue}
        sets |= {"simulation.duration": "6s"}
        summary = api.run(downloads_only(tmp_path), overrides=sets).summary
        return median_ping_ms(summary)

    # the firmware's 1424 frames add about 45 ms; with AQL the four stations stop near 6 ms
    # of estimated airtime each, where together they pass the interface's 24 ms threshold,
    # and the ping waits behind about 20 ms
    ath9k, firmware, aql = (median_rtt_ms(q) for q in ("ath9k", "firmware", "firmware_aql"))
    assert firmware - ath9k > 40 and aql - ath9k < 0.5 * (firmware - ath9k), (ath9k, firmware, aql)
