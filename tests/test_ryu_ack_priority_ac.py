"""Paper 000 on 802.11ac (`airtcp reproduce ryu-ack-priority-ac`,
docs/reproductions/ryu-ack-priority-ac.md): both plans' sweeps load and resolve, every AP
policy runs, ACK priority still sends the AP's TCP ACKs as A-MPDUs with backoff 0, adaptive
gives backoff 0 to only part of them beside EDCA when many stations contend, the claims
follow their rules, and a small reproduction writes its report with its claims."""

from __future__ import annotations

import json
import math
import re
from html import escape
from types import SimpleNamespace

import airtcp as api
import pandas as pd
import pytest
from airtcp.experiments.spec import from_text
from airtcp.reproductions import REPRODUCTIONS
from airtcp.reproductions import ryu_ack_priority_ac as R
from airtcp.reproductions.claims import MEANINGS, VERDICTS
from airtcp.reproductions.runner import reproduce
from conftest import figures_in_chromium

SHORT = {"simulation.duration": "3s", "simulation.measure_from": "1s"}


def run(overrides: dict, stations: int = 4, seed: int = 1) -> dict:
    settings = SHORT | {"wlan.stations": stations} | overrides
    return api.run(R.SCENARIO, seed=seed, overrides=settings).summary


def policy(name: str, ampdu: bool) -> dict:
    settings = {"wlan.agent": R.POLICIES[name][0], "wlan.ampdu": ampdu}
    if name in R.OVER_FQ:
        settings["wlan.queueing"] = "fq_codel_airtime"
    return settings


def test_both_plans_load_and_resolve(tmp_path):
    # Every point of both sweeps passes the checks a run makes, before anything runs: the
    # agents' sweep zips each agent with A-MPDU on or off, mac80211's queues run without an
    # agent (`dcf`) and with ACK priority.
    assert REPRODUCTIONS[R.NAME] is R
    for plan in (R.QUICK, R.FULL):
        main = from_text(R.experiment_toml(plan, R.SCENARIO), tmp_path / "main" / "e.toml")
        combos = len(R.WITH_AMPDU) + len(R.WITHOUT_AMPDU)
        assert len(main.tasks) == combos * len(plan.flows) * plan.replications
        seen = set()
        for task in main.tasks:
            wlan = task.scenario["wlans"][0]
            agent = wlan["agent"]
            seen.add((agent["kind"], agent.get("ac"), wlan.get("ampdu", True) is not False))
            assert task.scenario["duration_ns"] == plan.duration_s * 10**9
        assert ("ack_priority", "vo", True) in seen and ("txop_burst", None, False) in seen
        assert {("adaptive", None, True), ("adaptive", None, False)} <= seen
        assert not any(kind in ("txop_burst", "ack_aggregation") and on for kind, _, on in seen)
        (name, text), *rest = R.more_experiments(plan).items()
        assert name == R.FQ and not rest
        fq = from_text(text, tmp_path / "fq" / "e.toml")
        assert len(fq.tasks) == 2 * 2 * len(plan.flows) * plan.replications
        wlans = [t.scenario["wlans"][0] for t in fq.tasks]
        assert {w.get("queueing") for w in wlans} == {"fq_codel_airtime"}
        assert {w["agent"]["kind"] for w in wlans} == {"dcf", "ack_priority"}
    # the quick plan is small: it runs in CI
    assert R.QUICK.replications == 2 and R.QUICK.duration_s <= 10


def test_the_resolved_scenario_is_the_documented_one():
    resolved = api.prepare(R.SCENARIO)
    wlan = resolved["wlans"][0]
    assert wlan["phy"]["standard"] == "802.11ac" and wlan["phy"]["mcs"] == 9
    assert wlan["rts_threshold"] is None and wlan["queue_packets"] == 400
    tcp = resolved["flows"][0]["app"]["tcp"]
    assert tcp["mss"] == 1024 and tcp["sack"] and tcp["window_scaling"]
    assert tcp["send_buffer"] == tcp["receive_buffer"] == 4_000_000
    settings = R.effective_settings().set_index("setting")
    assert settings.loc["wlan.rate", "value"] == "390 Mbit/s"
    assert settings.loc["wlan.edca.ap.vo", "value"] == "AIFSN 1, CW 3..7, TXOP 1.504 ms"
    assert settings["why"].str.len().min() > 10


@pytest.mark.parametrize(
    ("name", "ampdu"),
    [(name, True) for name in (*R.WITH_AMPDU, *R.OVER_FQ)]
    + [(name, False) for name in (*R.WITHOUT_AMPDU, *R.OVER_FQ)],
)
def test_each_policy_runs(name: str, ampdu: bool):
    summary = run(policy(name, ampdu), stations=3)
    assert summary["aggregate_goodput_bps"] > (100e6 if ampdu else 10e6)
    values = R.run_values(summary)
    if ampdu:
        assert values["mpdus_per_ampdu"] > 2
    else:
        assert math.isnan(values["mpdus_per_ampdu"])
    if name in R.OVER_FQ:
        assert summary["wlans"][0]["queue_drops"] == 0


def test_the_dcf_agent_runs_as_no_agent():
    # The agents' sweep writes `dcf` for "no agent" (a zip needs a value at every point).
    for ampdu in (True, False):
        plain = run({"wlan.ampdu": ampdu})
        dcf = run({"wlan.ampdu": ampdu, "wlan.agent": "dcf"})
        plain.pop("wall_time_s")
        dcf.pop("wall_time_s")
        assert json.dumps(plain, sort_keys=True) == json.dumps(dcf, sort_keys=True)


@pytest.mark.parametrize("name", ["ack_priority", "ack_priority_vo", "ack_priority_fq"])
def test_ack_priority_sends_a_mpdus_of_acks_with_backoff_0(name: str):
    # Every access of the AP is headed by a TCP ACK and goes with backoff 0; each carries
    # the ACKs queued for one station as one A-MPDU, several of them. Under DCF none has
    # backoff 0 (the counter is drawn).
    summary = run(policy(name, True))
    wlan = summary["wlans"][0]
    assert wlan["ap_accesses"] > 500
    assert wlan["ap_zero_backoff_ack_headed_accesses"] > 0.95 * wlan["ap_accesses"]
    assert wlan["ap_ack_headed_accesses"] >= wlan["ap_zero_backoff_ack_headed_accesses"]
    values = R.run_values(summary)
    assert values["acks_per_ap_access"] > 3, values
    assert wlan["ampdus"] > wlan["ap_accesses"] and values["mpdus_per_ampdu"] > 3
    plain = run(policy("dcf", True))["wlans"][0]
    assert plain["ap_zero_backoff_ack_headed_accesses"] == 0
    assert plain["ap_ack_headed_accesses"] == 0


@pytest.mark.parametrize("ampdu", [True, False])
def test_adaptive_controls_beside_edca(ampdu: bool):
    # adaptive (EDCA on, as the scenario's 802.11ac) gives backoff 0 to every ACK-headed
    # access while no more stations upload than its target (Bianchi's optimum for the
    # stations' frames as the WLAN sends them: 1 for 64-MPDU A-MPDUs, 3 for single MPDUs,
    # with AC_BE's AIFS): the stations it forwards ACKs to cap its estimate, so the error
    # never turns negative. With 40 backlogged stations it gives backoff 0 to only part of
    # them: it counts the idle slots of its own AC (AC_BE, AIFSN 3), not the two slots of
    # every AIFS in which only the AP's AC_VO could send, which kept its estimate low and its
    # share at 1 beside EDCA. ack_priority gives 99 % or more (above); adaptive settles near
    # a tenth with A-MPDU and near a twentieth without, so 3/4 leaves room across seeds and
    # still tells control from none.
    agent = {"wlan.agent": "adaptive", "wlan.ampdu": ampdu}
    few = run(agent, stations=1 if ampdu else 3)["wlans"][0]
    assert few["ap_ack_headed_accesses"] > 500
    assert few["ap_zero_backoff_ack_headed_accesses"] == few["ap_ack_headed_accesses"]
    longer = {"simulation.duration": "10s", "simulation.measure_from": "3s"}
    many = run(longer | agent, stations=40)["wlans"][0]
    share = many["ap_zero_backoff_ack_headed_accesses"] / many["ap_ack_headed_accesses"]
    assert many["ap_ack_headed_accesses"] > 1000 and 0 < share < 0.75, share


def points_table(rows: list[tuple[str, bool, int, float, float, float]]) -> pd.DataFrame:
    """A points table as ``aggregate`` makes it: (policy, ampdu, flows, goodput Mbit/s, its
    half-width, mean contenders), the rest filled in."""
    table = []
    for name, ampdu, flows, goodput, half, contenders in rows:
        table.append({
            "policy": name, "ampdu": ampdu, "flows": flows, "runs": 10,
            "goodput_bps": goodput * 1e6, "goodput_bps_ci95": half * 1e6,
            "jain": 0.9, "jain_ci95": 0.01, "contenders": contenders, "contenders_ci95": 0.1,
            "collision_probability": 0.2, "acks_per_ap_access": 20.0,
            "zero_backoff_share": 1.0 if "priority" in name else 0.0,
            "mpdus_per_ampdu": 40.0, "ap_accesses_per_s": 300.0, "collisions_per_s": 100.0,
            "timeouts": 1.0, "queue_drops": 0.0, "codel_drops": 0.0,
        })  # fmt: skip
    return pd.DataFrame(table)


MODEL = {
    "ampdu": {"optimum": 1, "peak_bps": 331e6, "shortfall_at_4": 0.1, "mpdus_per_ampdu": 64},
    "single": {"optimum": 3, "peak_bps": 42e6, "shortfall_at_4": 0.01, "mpdus_per_ampdu": None},
}


def grid(priority: dict[int, float], dcf: dict[int, float], half: float = 1.0) -> pd.DataFrame:
    rows = [("ack_priority", True, n, g, half, float(n)) for n, g in priority.items()]
    rows += [("dcf", True, n, g, half, 4.0) for n, g in dcf.items()]
    return points_table(rows)


def test_the_gain_claim_follows_its_rule():
    flat = {1: 200.0, 3: 240.0, 10: 240.0, 40: 230.0}
    above = R.gain_claim(grid({1: 100.0, 3: 250.0, 10: 250.0, 40: 100.0}, flat), True, MODEL)
    assert above.verdict == "agrees"  # 1 and 40 flows lie outside 2-10
    small = R.gain_claim(grid({3: 243.0, 10: 243.0}, flat), True, MODEL)
    assert small.verdict == "partly"  # apart, but 1.25 % above
    overlap = R.gain_claim(grid({3: 250.0, 10: 241.0}, flat, half=2.0), True, MODEL)
    assert overlap.verdict == "not significant" and "10" in overlap.why
    below = R.gain_claim(grid({3: 250.0, 10: 200.0}, flat), True, MODEL)
    assert below.verdict == "differs" and "below DCF at 10 flows" in below.why
    assert "largest loss" in below.why and "optimum at 1 contender for" in below.why
    assert R.gain_claim(grid({3: 30.0}, {3: 20.0}), False, MODEL).verdict == "differs"  # no runs


def test_the_peak_and_contenders_claims_follow_their_rules():
    dcf = {1: 200.0, 3: 240.0, 10: 240.0}

    def peak(priority: dict[int, float]) -> str:
        return R.peak_claim(grid(priority, dcf), True, MODEL).verdict

    assert peak({1: 200.0, 3: 250.0, 10: 230.0}) == "agrees"
    assert peak({1: 260.0, 3: 230.0, 10: 230.0}) == "differs"
    assert peak({3: 241.0}) == "not significant"
    assert peak({3: 236.0}) == "partly"
    assert R.peak_claim(grid({3: 250.0}, dcf), False, MODEL).verdict == "differs"  # no runs
    # contenders: priority N against DCF's 4
    many = grid({10: 1.0, 20: 1.0, 40: 1.0}, {10: 1.0, 20: 1.0, 40: 1.0})
    assert R.contenders_claim(many, True).verdict == "agrees"
    few = grid({5: 1.0, 10: 1.0}, {5: 1.0, 10: 1.0})
    few.loc[few["policy"] == "ack_priority", "contenders"] = 6.0
    partly = R.contenders_claim(few, True)  # 6 against 4 at 10 flows
    assert partly.verdict == "partly" and "at 10 flows" in partly.why


def test_a_small_reproduction_reports_its_claims(tmp_path):
    # The quick plan shrunk to two counts and 3-s runs: both sweeps run, every policy has
    # its points, and the claims table has every row with a verdict, its rule and a reason.
    small = SimpleNamespace(**{k: getattr(R, k) for k in dir(R) if not k.startswith("__")})
    small.QUICK = R.Plan(flows=[1, 3], replications=2, duration_s=3, measure_from_s=1)
    out = tmp_path / "out"
    outcome, report, table = reproduce(small, out, True, 1, None)
    assert outcome.failed == 0 and report is not None and report.exists()
    assert len(table) == 13 and set(table["verdict"]) <= set(VERDICTS)
    assert (table.head(6)["verdict"] != "beyond the paper").all()
    assert (table.tail(7)["verdict"] == "beyond the paper").all()
    assert (table.loc[table["verdict"] != "agrees", "why"].str.len() > 20).all()
    assert table["rule"].str.startswith(("agrees if", "beyond the paper")).all()
    html = report.read_text()
    for rule in table["rule"]:
        assert escape(rule, quote=False) in html
    for used in set(table["verdict"]):
        assert escape(MEANINGS[used], quote=True) in html
    points = pd.read_csv(out / "points.csv")
    combos = {(p, True) for p in (*R.WITH_AMPDU, *R.OVER_FQ)}
    combos |= {(p, False) for p in (*R.WITHOUT_AMPDU, *R.OVER_FQ)}
    assert set(zip(points["policy"], points["ampdu"], strict=True)) == combos
    assert (points["runs"] == 2).all() and set(points["flows"]) == {1, 3}
    priority = points[points["policy"].isin(["ack_priority", "ack_priority_fq"]) & points["ampdu"]]
    assert (priority["zero_backoff_share"] > 0.95).all()
    assert (priority["acks_per_ap_access"] > 3).all()
    assert int(re.search(r'data-figures="(\d+)"', html).group(1)) == 4
    assert (out / R.FQ / "experiment.toml").exists() and "fq_codel_airtime" in html
    claims = pd.read_csv(out / "claims.csv", keep_default_na=False)
    assert list(claims["verdict"]) == list(table["verdict"])
    # Last, as it skips without chromium: every figure the page names decodes.
    assert figures_in_chromium(report, tmp_path) == (4, 4)
