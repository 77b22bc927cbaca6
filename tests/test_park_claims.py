"""Paper 001's claim rules on made-up runs: each verdict turns when the numbers do."""

import numpy as np
import pandas as pd
from airtcp.reproductions import park_claims
from airtcp.reproductions.park_local_ack import AGENTS, Trace

MSS = 512
HANDOFFS = [{"detach_s": 2.5, "attach_s": 3.5}, {"detach_s": 7.0, "attach_s": 8.0}]


def trace(cwnd_in_handoff: float, acked_after: float, timeouts: int) -> Trace:
    """10 s at 10 ms: cwnd 32 segments, ``cwnd_in_handoff`` from each detach to 0.2 s after
    its attach; ACKs at 1 Mbit/s outside the handoffs, ``acked_after`` of that rate in the
    0.5 s after each attach."""
    time = np.round(np.arange(0, 10.001, 0.01), 2)
    cwnd = np.full(len(time), 32.0 * MSS)
    rate = np.full(len(time), 1.0)
    for h in HANDOFFS:
        cwnd[(time >= h["detach_s"]) & (time <= h["attach_s"] + 0.2)] = cwnd_in_handoff * MSS
        rate[(time >= h["detach_s"]) & (time < h["attach_s"])] = 0.0
        rate[(time >= h["attach_s"]) & (time < h["attach_s"] + 0.5)] = acked_after
    acked = np.concatenate([[0.0], np.cumsum(rate[1:] * 1e6 / 8 * 0.01)])
    series = pd.DataFrame({"time_s": time, "cwnd_bytes": cwnd,
                           "ssthresh_bytes": np.nan, "bytes_acked": acked})  # fmt: skip
    flow = {"timeouts": timeouts, "fast_retransmits": 0}
    return Trace(series, flow, HANDOFFS)


def traces(standard: Trace, proposed: Trace) -> dict[str, Trace]:
    runs = {agent: proposed for agent in AGENTS}
    runs["none"] = standard
    return runs


def table(curves: dict[str, list[float]], timeouts: dict[str, float] | None = None):
    durations = [0.1, 0.5, 1.0, 1.5, 2.0, 3.0]
    rows = []
    for agent in AGENTS:
        goodputs = curves.get(agent, curves["none"])
        for duration, goodput in zip(durations, goodputs, strict=True):
            rows.append({"agent": agent, "handoff_duration_s": duration,
                         "goodput_bps": goodput * 1e6, "goodput_bps_ci95": 0.01e6,
                         "timeouts": (timeouts or {}).get(agent, 0.0)})  # fmt: skip
    return pd.DataFrame(rows)


LINE = [1.3, 1.18, 1.03, 0.88, 0.73, 0.43]


def test_fig3_and_4_rules_follow_the_traces():
    slow_start = trace(1, 0.4, timeouts=2)
    frozen = trace(32, 0.95, timeouts=0)
    assert park_claims.fig3_standard(traces(slow_start, frozen), MSS).verdict == "agrees"
    assert park_claims.fig3_standard(traces(frozen, frozen), MSS).verdict == "differs"
    assert park_claims.fig3_proposed(traces(slow_start, frozen), MSS).verdict == "agrees"
    halved = trace(16, 0.95, timeouts=0)
    assert park_claims.fig3_proposed(traces(slow_start, halved), MSS).verdict == "partly"
    assert park_claims.fig4(traces(slow_start, frozen)).verdict == "agrees"
    assert park_claims.fig4(traces(frozen, frozen)).verdict == "partly"
    assert park_claims.fig4(traces(slow_start, slow_start)).verdict == "differs"


def test_fig5_rules_tell_steps_from_a_steady_fall():
    steps = [1.1, 1.0, 1.05, 0.80, 0.72, 0.45]  # recovers where the timer meets the handoff
    stepped = table({"none": steps, "snoop_freeze": LINE})
    assert park_claims.fig5_standard_irregular(stepped, 1.0).verdict == "agrees"
    assert park_claims.fig5_steady(stepped).verdict == "agrees"
    smooth = table({"none": [g * 0.97 for g in LINE], "snoop_freeze": LINE})
    assert park_claims.fig5_standard_irregular(smooth, 1.0).verdict != "agrees"
    wobble = table({"none": [*LINE[:2], LINE[2] * 1.01, *LINE[3:]], "snoop_freeze": LINE})
    assert park_claims.fig5_standard_irregular(wobble, 1.0).verdict != "agrees", "1 % is no step"
    curved = [1.3, 1.22, 1.05, 0.86, 0.7, 0.5]  # 5 % off a line, for both alike
    alike = table({"none": [g * 0.97 for g in curved], "snoop_freeze": curved})
    assert park_claims.fig5_standard_irregular(alike, 1.0).verdict != "agrees"
    assert park_claims.fig5_decreasing(smooth).verdict == "agrees"
    bent = table({"none": LINE, "snoop_freeze": [1.3, 0.6, 0.5, 0.5, 0.49, 0.48]})
    assert park_claims.fig5_steady(bent).verdict != "agrees"
    rising = table({"none": LINE, "snoop_freeze": [1.3, 1.1, 1.2, 0.9, 0.7, 0.4]})
    assert park_claims.fig5_decreasing(rising).verdict == "partly"


def test_comparisons_need_every_duration_and_the_timeouts():
    better = [g * 1.05 for g in LINE]
    standard_times_out = {"none": 2.0, "snoop": 2.0}
    wins = table({"none": LINE, "snoop_freeze": better}, standard_times_out)
    assert park_claims.proposed_vs_standard(wins, 1.0).verdict == "agrees"
    assert park_claims.snoop_alone(wins, 1.0).verdict == "agrees"
    assert park_claims.baselines(wins).verdict == "agrees"
    once_worse = [*better[:-1], LINE[-1] * 0.9]
    loses_once = table({"none": LINE, "snoop_freeze": once_worse}, standard_times_out)
    assert park_claims.proposed_vs_standard(loses_once, 1.0).verdict == "partly"
    assert park_claims.baselines(loses_once).verdict == "partly"
    frozen_out = table({"none": LINE, "snoop_freeze": better}, {"none": 2.0, "snoop_freeze": 1.0})
    assert park_claims.proposed_vs_standard(frozen_out, 1.0).verdict == "differs"
    assert park_claims.snoop_alone(frozen_out, 1.0).verdict == "differs"
