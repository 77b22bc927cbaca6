"""Paper 002's MBT claims judged on synthetic sweeps: one verdict per RTT and loss setting,
exact = agrees, one swept step off = partly, further = differs; and the quick plan holds
every RTT and buffer a claim or figure cites."""

import pandas as pd
from airtcp.measure.mbt_sweep import ProbedPath
from airtcp.reproductions import mun_mbt
from airtcp.reproductions.mun_mbt import FULL, LOSSES, PAPER_MBT_KB, QUICK, Plan, mbt_claim

BASE_RTT_NS = 190_000
PATH = ProbedPath("host", "ap", BASE_RTT_NS, 30e6)
STEPS = FULL.buffers_kb


def test_mbt_is_exact_or_one_step_or_differs():
    # The full grid around 96 KB: ..., 64, 80, [96], 128, 160, ...
    for ours, expected in ((96, "agrees"), (80, "partly"), (128, "partly"), (64, "differs"),
                           (160, "differs")):  # fmt: skip
        row = mbt_claim(10, ours, 22e6, STEPS, 0.0)
        assert row.verdict == expected, ours
        assert (row.why == "") == (expected == "agrees")
    at_1 = mbt_claim(1, 24, 22e6, STEPS, 0.0)
    assert at_1.verdict == "partly" and "(24 KiB or 64 KiB)" in at_1.rule
    assert mbt_claim(1, 16, 22e6, STEPS, 0.0).verdict == "differs"


def test_each_row_says_which_runs_it_judges():
    clean, lossy = mbt_claim(20, 64, 22e6, STEPS, 0.0), mbt_claim(20, 64, 22e6, STEPS, 0.001)
    assert "no loss added (the paper's setup" in clean.rule and "no loss" in clean.ours
    assert "0.1% random loss" in lossy.rule and "stand-in" in lossy.ours
    # Without loss the reason names this RTT's bandwidth-delay product: 22 Mbit/s x 20 ms.
    assert "= 54 KiB" in clean.why


def test_a_steps_count_is_in_the_plans_own_grid():
    coarse = [32, 64, 96, 128]
    assert mbt_claim(5, 64, 22e6, coarse, 0.0).verdict == "partly"
    assert mbt_claim(5, 64, 22e6, STEPS, 0.0).verdict == "differs"  # 80 KB lies between


def test_the_quick_plan_holds_every_cited_point():
    assert mun_mbt.cited(QUICK) == (set(), set())
    assert mun_mbt.cited(FULL) == (set(), set())
    # The quick plan before issue 24 lacked 10 ms and 1 MiB (and 24 KB, Fig 2's).
    old = Plan([1, 5, 20, 50], [16, 32, 64, 96, 128, 256], 3, "10s")
    assert mun_mbt.cited(old) == ({10}, {24, 1024})


def sweep(plateaus: dict[float, dict[int, int]], plan: Plan) -> pd.DataFrame:
    """Runs whose goodput rises in proportion to the buffer up to a plateau that starts at
    ``plateaus[loss][rtt]`` KiB (22 Mbit/s), three runs a cell within 0.1 % of each other."""
    rows = []
    for loss, by_rtt in plateaus.items():
        for rtt in plan.rtts_ms:
            knee = by_rtt.get(rtt, 96)
            for kb in plan.buffers_kb:
                for run, wobble in enumerate((0.999, 1.0, 1.001)):
                    rows.append({
                        mun_mbt.DELAY: f"{max(rtt * 1_000_000 - BASE_RTT_NS, 0)}ns",
                        mun_mbt.LOSS: loss,
                        "tcp.send_buffer": f"{kb}KiB",
                        "flows[0].goodput_bps": 22e6 * min(1.0, kb / knee) * wobble,
                        "wlans[0].retry_drops": 0,
                        "wlans[0].delivered_msdus": 50_000,
                        "replication": run,
                        "status": "ok",
                    })  # fmt: skip
    return pd.DataFrame(rows)


def judged(plateaus: dict[float, dict[int, int]]) -> dict[tuple[int, str], str]:
    """The MBT rows' verdicts by (RTT, "no loss" or "loss")."""
    results = mun_mbt.analyse(sweep(plateaus, FULL), FULL, PATH)
    rows = mun_mbt.claims(results, FULL)
    out = {}
    for row in rows:
        for rtt in PAPER_MBT_KB:
            if row.claim.startswith(f"MBT {PAPER_MBT_KB[rtt]} KB at {rtt} ms"):
                out[(rtt, "no loss" if row.ours.startswith("no loss") else "loss")] = row.verdict
    return out


def test_claims_give_one_row_per_rtt_and_loss_setting():
    paper_like = {loss: dict(PAPER_MBT_KB) for loss in LOSSES}
    verdicts = judged(paper_like)
    assert len(verdicts) == len(PAPER_MBT_KB) * len(LOSSES)
    assert set(verdicts.values()) == {"agrees"}
    # Without loss the MBT follows the bandwidth-delay product (the model's); with the
    # stand-in, one step from the paper's at 5 ms and exact elsewhere.
    bdp_like = {0.0: {1: 16, 5: 24, 10: 32, 20: 64}, 0.001: {**PAPER_MBT_KB, 5: 80}}
    verdicts = judged(bdp_like)
    assert verdicts[(1, "no loss")] == "differs"
    assert verdicts[(20, "no loss")] == "differs"
    assert verdicts[(5, "loss")] == "partly"
    assert verdicts[(10, "loss")] == "agrees"


def test_the_channels_residual_loss_is_counted_from_the_runs_without_added_loss():
    paper_like = {loss: dict(PAPER_MBT_KB) for loss in LOSSES}
    runs = sweep(paper_like, FULL)
    clean = runs[mun_mbt.LOSS] == 0.0
    runs.loc[clean, "wlans[0].retry_drops"] = 1
    results = mun_mbt.analyse(runs, FULL, PATH)
    (falls,) = [r for r in mun_mbt.claims(results, FULL) if r.claim.startswith("The best")]
    cells = int(clean.sum())
    assert f"{cells} of {cells * 50_001} MSDUs" in falls.ours


def test_a_plateau_at_every_rtt_agrees_without_a_reason_against_it():
    paper_like = {loss: dict(PAPER_MBT_KB) for loss in LOSSES}
    results = mun_mbt.analyse(sweep(paper_like, FULL), FULL, PATH)
    plateau = mun_mbt.claims(results, FULL)[0]
    assert plateau.claim.startswith("Past a buffer size")
    assert (plateau.verdict, plateau.why) == ("agrees", "")
