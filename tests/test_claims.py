"""The claims table of paper 000 judged on synthetic numbers: every rule can give each of
its verdicts, and says what it tested."""

import pandas as pd
import pytest
from airtcp.reproductions.claims import Claim, verdict
from airtcp.reproductions.ryu_ack_priority import claims

FLOWS = [1, 3, 5, 10, 20, 40]


def curves(**agents: dict[int, float]) -> pd.DataFrame:
    """Mean per (agent, flows) from {agent: {flows: value}}; missing agents are flat 4e6."""
    rows = []
    for agent in ("dcf", "ack_priority", "txop_burst", "ack_aggregation", "adaptive"):
        values = agents.get(agent, dict.fromkeys(FLOWS, 4e6))
        rows += [{"agent": agent, "flows": n, "mean": v} for n, v in values.items()]
    return pd.DataFrame(rows)


PAPER_LIKE = dict(
    dcf={1: 3.9e6, 3: 4.0e6, 5: 4.1e6, 10: 4.1e6, 20: 4.1e6, 40: 4.0e6},
    ack_priority={1: 4.0e6, 3: 4.4e6, 5: 4.3e6, 10: 4.2e6, 20: 3.8e6, 40: 3.5e6},
    adaptive={1: 4.0e6, 3: 4.4e6, 5: 4.3e6, 10: 4.2e6, 20: 4.1e6, 40: 4.0e6},
)
CONTENDERS_LIKE = dict(
    dcf=dict.fromkeys(FLOWS, 2.1),
    ack_priority={1: 1.3, 3: 3.3, 5: 5.2, 10: 10.1, 20: 20.1, 40: 39.0},
)


def difs(basic: int, rts: int) -> dict[str, int]:
    """Fig 4 optima: Bianchi's model gives these; the EIFS model's far-off values must not
    be what is judged."""
    return {"basic_difs": basic, "rts_difs": rts, "basic_eifs": 99, "rts_eifs": 99}


def judged(goodput, contenders=None, optimum=None) -> list:
    """The claims rows for these numbers (contenders compared at 10, 20 and 40 flows)."""
    contenders = curves(**(contenders or CONTENDERS_LIKE))
    optimum = optimum or difs(4, 7)
    table = claims(goodput, contenders, optimum, {n: {} for n in (10, 20, 40)})
    return list(table.itertuples(index=False))


def by_start(rows: list, start: str):
    (row,) = [row for row in rows if row.claim.startswith(start)]
    return row


def test_a_paper_like_run_agrees_with_every_claim():
    rows = judged(curves(**PAPER_LIKE))
    assert len(rows) == 8
    assert {row.verdict for row in rows} == {"agrees"}
    for row in rows:
        assert row.rule.startswith("agrees if"), row


def test_optimum_rules_use_their_tolerance():
    table = judged(curves(**PAPER_LIKE), optimum=difs(6, 4))
    basic = by_start(table, "Fig 4: about 4")
    assert basic.verdict == "differs" and "<= 1" in basic.rule and basic.why
    assert by_start(table, "Fig 4: about 7").verdict == "differs"
    within = judged(curves(**PAPER_LIKE), optimum=difs(5, 9))
    assert by_start(within, "Fig 4: about 7").verdict == "agrees"


def test_peak_without_a_gain_over_dcf_is_partly():
    flat_priority = {**PAPER_LIKE, "dcf": dict.fromkeys(FLOWS, 4.5e6)}
    row = by_start(judged(curves(**flat_priority)), "Fig 5: with ACK priority")
    assert row.verdict == "partly" and row.why
    late_peak = {**PAPER_LIKE, "ack_priority": {**PAPER_LIKE["ack_priority"], 20: 5e6}}
    assert by_start(judged(curves(**late_peak)), "Fig 5: with ACK priority").verdict == "differs"


def test_dcf_flatness_has_a_strict_and_a_loose_threshold():
    def spread(low):
        dcf = {**PAPER_LIKE["dcf"], 40: low}
        return by_start(judged(curves(**{**PAPER_LIKE, "dcf": dcf})), "Fig 5: with DCF").verdict

    assert spread(4.0e6) == "agrees"
    assert spread(3.4e6) == "partly"  # 18 % below the rest
    assert spread(2.0e6) == "differs"


def test_contender_claims():
    many = {**CONTENDERS_LIKE, "dcf": {**CONTENDERS_LIKE["dcf"], 20: 8.0, 40: 9.7}}
    table = judged(curves(**PAPER_LIKE), many)
    assert by_start(table, "Fig 2").verdict == "partly"
    everywhere = {**CONTENDERS_LIKE, "dcf": dict.fromkeys(FLOWS, 6.0)}
    table = judged(curves(**PAPER_LIKE), everywhere)
    assert by_start(table, "Fig 2").verdict == "differs"
    assert by_start(table, "Fig 6").verdict == "agrees"
    same = {**CONTENDERS_LIKE, "ack_priority": CONTENDERS_LIKE["dcf"]}
    assert by_start(judged(curves(**PAPER_LIKE), same), "Fig 6").verdict == "differs"


def test_degradation_already_below_dcf_at_10_flows_is_partly():
    early = {**PAPER_LIKE, "dcf": {**PAPER_LIKE["dcf"], 10: 4.5e6}}
    row = by_start(judged(curves(**early)), "Fig 5: up to about 10")
    assert row.verdict == "partly"
    assert "falls below DCF at 10" in row.why
    rising = {**PAPER_LIKE, "ack_priority": {**PAPER_LIKE["ack_priority"], 40: 4.5e6}}
    assert by_start(judged(curves(**rising)), "Fig 5: up to about 10").verdict == "differs"


def test_adaptive_claim():
    worse_below = {**PAPER_LIKE, "adaptive": {**PAPER_LIKE["adaptive"], 3: 3.9e6}}
    assert by_start(judged(curves(**worse_below)), "Future work").verdict == "partly"
    loses_above = {**PAPER_LIKE, "adaptive": PAPER_LIKE["ack_priority"]}
    assert by_start(judged(curves(**loses_above)), "Future work").verdict == "differs"


def test_verdicts_are_checked():
    assert verdict(True, False) == "agrees"
    assert verdict(False, True) == "partly"
    assert verdict(False, False) == "differs"
    with pytest.raises(ValueError):
        Claim("c", "o", "sort of", "r")


def test_every_verdict_short_of_agreement_says_why():
    cases = [
        judged(curves(**PAPER_LIKE), optimum=difs(9, 1)),
        judged(curves(**{**PAPER_LIKE, "dcf": dict.fromkeys(FLOWS, 5e6)})),
        judged(curves(**PAPER_LIKE), {**CONTENDERS_LIKE, "dcf": dict.fromkeys(FLOWS, 6.0)}),
    ]
    short = [row for rows in cases for row in rows if row.verdict != "agrees"]
    assert len(short) >= 4
    assert all(len(row.why) > 20 for row in short), short
