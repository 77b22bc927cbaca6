"""A qdisc above each MAC's driver (docs/scenarios.md, "A qdisc above the driver"): the
WLAN's `aqm` reaches the simulator only when set, the effective settings state it, a run
counts its drops and marks and prints them, and bad settings are one line naming the key.
(crates/airtcp-sim/tests/wlan_qdisc.rs checks what each AQM does to a ping beside
downloads.)"""

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


def test_the_qdisc_reaches_the_simulator_only_when_set(tmp_path: Path):
    plain = resolve(load(scenario(tmp_path, 'phy = "802.11ac"')))[0]["wlans"][0]
    assert "aqm" not in plain
    codel = resolve(load(scenario(tmp_path, 'phy = "802.11ac"\naqm = "codel"')))[0]["wlans"][0]
    assert codel["aqm"] == {"kind": "codel"}
    lines = 'aqm = {kind = "pie", target = "10ms", ecn = true}'
    pie = resolve(load(scenario(tmp_path, lines)))[0]["wlans"][0]
    assert pie["aqm"] == {"kind": "pie", "target_ns": 10_000_000, "ecn": True}


def test_effective_settings_state_the_qdisc_with_its_defaults():
    sets = {"wlan.aqm": "red", "wlan.queue": "200"}
    resolved = api.prepare(SCENARIOS / "ac-bss.toml", overrides=sets)
    wlan = json.loads(_core.effective_settings(json.dumps(resolved)))["wlans"][0]
    # tc's defaults for a 200-packet limit (300 000 bytes): max a quarter, min a third of it
    assert wlan["aqm"]["kind"] == "red"
    assert (wlan["aqm"]["min_bytes"], wlan["aqm"]["max_bytes"]) == (25_000, 75_000)
    resolved = api.prepare(SCENARIOS / "ac-bss.toml", overrides={"wlan.aqm": "fq_codel"})
    wlan = json.loads(_core.effective_settings(json.dumps(resolved)))["wlans"][0]
    assert wlan["aqm"] == {
        "kind": "fq_codel", "target_ns": 5_000_000, "interval_ns": 100_000_000,
        "flows": 1024, "quantum": 1514, "ecn": True,
    }  # fmt: skip
    plain = api.prepare(SCENARIOS / "ac-bss.toml")
    assert "aqm" not in json.loads(_core.effective_settings(json.dumps(plain)))["wlans"][0]


def test_a_run_counts_the_qdiscs_drops_and_prints_them(tmp_path: Path):
    # two stations flooding an 802.11ac AP with UDP: CoDel drops at each station's qdisc's
    # head, and the qdisc, unanswered, fills and drops at its tail too
    path = scenario(tmp_path, 'phy = "802.11ac"\naqm = "codel"\nqueue = 1000', rate="600Mbps")
    wlan = api.run(path).summary["wlans"][0]
    assert wlan["aqm_drops"] > 0 and wlan["codel_drops"] == 0 and wlan["queue_drops"] > 0
    printed = airtcp("run", str(path), "--out", str(tmp_path / "out"))
    assert printed.returncode == 0, printed.stderr
    assert f"{wlan['aqm_drops']} AQM drops" in printed.stdout
    fifo = api.run(scenario(tmp_path, 'phy = "802.11ac"\nqueue = 1000', rate="600Mbps"))
    assert fifo.summary["wlans"][0]["aqm_drops"] == 0


@pytest.mark.parametrize(
    ("wlan", "fragments"),
    [
        ('queueing = "fq_codel"\naqm = "codel"', ("wlan.aqm", "mac80211", 'queueing = "fifo"')),
        ('aqm = "codel"\ndriver_queue = "firmware_aql"', ("wlan.driver_queue", "firmware")),
        ('aqm = {kind = "pie", alpha = 40}', ("wlan.aqm.alpha", "32")),
        ('aqm = {kind = "codel", quantum = 300}', ("wlan.aqm", "quantum", "codel")),
        ('aqm = "blue"', ("wlan.aqm.kind", "red")),
        ('aqm = "codel"\nagent = "snoop"', ("wlan.agent", "snoop", "qdisc")),
    ],
)
def test_bad_qdisc_settings_are_one_line_naming_the_key(
    tmp_path: Path, wlan: str, fragments: tuple[str, ...]
):
    assert_one_line_error(airtcp("validate", str(scenario(tmp_path, wlan))), *fragments)
