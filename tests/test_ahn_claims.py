"""Paper 003's claim rules on made-up tables and runs, both ways: each rule agrees where the
numbers say what the paper says, and does not where they do not."""

import pandas as pd
from airtcp.reproductions.ahn_claims import Trace, claims

UPLINKS = (8000, 16000, 24000)
BERS = (0.0, 1e-7, 1e-6)


def table(throughput) -> pd.DataFrame:
    """Rows for every scheme, uplink and BER; ``throughput(scheme, uplink, ber)`` in bit/s."""
    rows = [
        {"scheme": s, "uplink_bps": u, "ber": b, "throughput_bps": throughput(s, u, b)}
        for s in ("normal", "af_ar", "af_dar") for u in UPLINKS for b in BERS
    ]  # fmt: skip
    return pd.DataFrame(rows)


def paperlike(scheme: str, uplink: int, ber: float) -> float:
    normal = 50.0 * uplink * (1 - 100 * ber)
    if scheme == "normal":
        return normal
    gain = 1.9 if ber == 0 else 1.5
    return normal * (1 + gain) * (1.1 if scheme == "af_dar" and ber > 0 else 1.0)


def run(kind: str, made: int, late: int, resumes: int = 0, timeouts: int = 0) -> Trace:
    counters = {"regenerated_acks": made, "late_acks": late, "regeneration_resumes": resumes}
    summary = {
        "flows": [{"timeouts": timeouts, "fast_retransmits": 5}],
        "agents": [{"kind": "af", "counters": {"filtered_acks": 9}},
                   {"kind": kind, "counters": counters}],
    }  # fmt: skip
    return Trace(pd.DataFrame(), summary)


def verdicts(t: pd.DataFrame, traces: dict[str, Trace]) -> dict[str, str]:
    return {c.claim.split(" (")[0]: c.verdict for c in claims(t, traces)}


GOOD_RUNS = {"af_ar": run("ar", 3000, 300), "af_dar": run("dar", 400, 0, 2, 2)}


def test_paperlike_numbers_agree_with_every_claim():
    found = verdicts(table(paperlike), GOOD_RUNS)
    assert len(found) == 8
    assert set(found.values()) == {"agrees"}, found


def test_numbers_against_the_paper_do_not_agree():
    def flat(scheme, uplink, ber):  # the uplink does not matter; nothing helps; DAR worse
        return 1e6 * (0.9 if scheme == "af_dar" else 1.0)

    bad_runs = {"af_ar": run("ar", 300, 0), "af_dar": run("dar", 400, 40, 5, 0)}
    found = verdicts(table(flat), bad_runs)
    assert "agrees" not in found.values(), found
    assert found["Normal TCP's throughput falls steeply as the uplink narrows"] == "differs"
    assert found["With bit errors AF/DAR beats AF/AR by 5-26 %"] == "differs"
    assert found["Without bit errors AF/DAR and AF/AR are within 0.1-0.2 %"] == "differs"
    assert found["DAR resumes regenerating after a retransmission timeout"] == "partly"


def test_gains_outside_the_paper_range_are_partly_and_losses_differ():
    def huge(scheme, uplink, ber):
        return paperlike(scheme, uplink, ber) * (3 if scheme != "normal" else 1)

    found = verdicts(table(huge), GOOD_RUNS)
    key = "AF/AR and AF/DAR raise throughput over normal TCP by 66-232 % without bit errors"
    assert found[key] == "partly"

    def worse(scheme, uplink, ber):
        return paperlike(scheme, uplink, ber) * (0.3 if scheme != "normal" else 1)

    found = verdicts(table(worse), GOOD_RUNS)
    assert found[key] == "differs"
