"""Mobile hosts from scenario files: the built-in park-handoff, paper 001's agents on its base
stations, and errors that name the user's keys."""

import json

import airtcp
import pandas as pd
from conftest import airtcp as cli

AGENTS = ["none", "snoop", "freeze", "snoop_freeze", "mtcp"]


def with_agent(kind: str) -> list[str]:
    return ["--set", f"agents.0.kind={kind}", "--set", f"agents.1.kind={kind}"]


def test_park_handoff_reports_its_two_handoffs():
    result = cli("run", "park-handoff")
    assert result.returncode == 0, result.stderr
    assert "mobile mh: handoffs bs1 → bs2 at 2.5 s (1.000 s), bs2 → bs1 at 7 s" in result.stdout
    summary = airtcp.run("park-handoff", timeseries=False).summary
    (mobile,) = summary["mobiles"]
    assert [h["to"] for h in mobile["handoffs"]] == ["bs2", "bs1"]
    assert all(h["completed"] for h in mobile["handoffs"])
    assert mobile["forwarded_packets"] > 0, "the old base station held packets"


def test_handoffs_mark_the_time_series_also_in_parquet(tmp_path):
    result = airtcp.run("park-handoff")
    marked = result.timeseries.loc[result.timeseries["in_handoff"], "time_s"]
    assert marked.between(2.5, 3.5).sum() == 100 and marked.between(7, 8).sum() == 100
    result.write(tmp_path)
    again = pd.read_parquet(tmp_path / "timeseries.parquet")
    assert again["in_handoff"].dtype == bool
    assert again["in_handoff"].tolist() == result.timeseries["in_handoff"].tolist()


def test_the_papers_base_station_spares_the_sender_its_timeouts():
    flows = {}
    for kind in AGENTS:
        result = cli("run", "park-handoff", "--json", *with_agent(kind))
        assert result.returncode == 0, result.stderr
        flows[kind] = json.loads(result.stdout)["flows"][0]
    assert flows["none"]["timeouts"] >= 2
    for kind in ("freeze", "snoop_freeze", "mtcp"):
        assert flows[kind]["timeouts"] == 0, (kind, flows[kind])
    paper = flows["snoop_freeze"]
    assert paper["duplicate_acks"] == paper["fast_retransmits"] == 0
    assert paper["goodput_bps"] > flows["none"]["goodput_bps"]


def test_fast_retransmit_rides_on_the_mobile():
    result = cli(
        "run", "park-handoff", "--json",
        "--set", "agents.0.node=mh", "--set", "agents.0.interface=bs1",
        "--set", "agents.0.kind=fast_retransmit",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    flow = json.loads(result.stdout)["flows"][0]
    assert flow["fast_retransmits"] >= 2, flow
    misplaced = cli(
        "run", "park-handoff", "--set", "agents.0.node=mh", "--set", "agents.0.interface=bs2",
        "--set", "agents.0.kind=fast_retransmit",
    )  # fmt: skip
    assert misplaced.returncode == 2
    assert "agents[0].interface: an agent on mobile mh sits on the cell it starts in" in (
        misplaced.stderr
    )


def test_mobile_errors_name_the_users_keys():
    cases = {
        "mobiles.0.handoffs.0.to=nowhere": "mobiles[0].handoffs[0].to: unknown node 'nowhere'",
        "mobiles.0.handoffs.0.to=router": "mobiles[0].handoffs[0].to: not a cell of mh",
        "mobiles.0.handoffs.1.at=3s": "mobiles[0].handoffs[1].at: 3 s is before the previous",
        "mobiles.0.handoffs.1.at=20s": "mobiles[0].handoffs[1].at: 20 s is not before the end",
        "mobiles.0.attached=fh": "mobiles[0].attached: fh is not a cell of mh",
        "mobiles.0.procedure.beacon_interval=0s": "mobiles[0].procedure.beacon_interval",
        "agents.0.silence=1s": "agents[0].silence: applies to mtcp, not to none",
        "mobiles.0.handoff_jitter=4s": "mobiles[0].handoffs[1].at: 7 s is before the previous "
        "handoff ends (7.5 s with its 4 s of handoff_jitter)",
        "mobiles.0.handoff_duration=0s": "mobiles[0].handoff_duration: must be positive",
    }
    for setting, expected in cases.items():
        result = cli("validate", "park-handoff", "--set", setting)
        assert result.returncode == 2, (setting, result.stdout)
        assert expected in result.stderr, (setting, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1
