"""Paper 001's claim rules on made-up runs: each verdict turns when the numbers do."""

import numpy as np
import pandas as pd
from airtcp.reproductions import park_claims
from airtcp.reproductions.park_claims import AckSeries
from airtcp.reproductions.park_local_ack import AGENTS, Trace

MSS = 512
HANDOFFS = [{"detach_s": 2.5, "attach_s": 3.5}, {"detach_s": 7.0, "attach_s": 8.0}]


def trace(
    cwnd_in_handoff: float,
    acked_after: float,
    timeouts: int,
    cwnd: float = 32.0,
    fast_retransmits: int = 0,
) -> Trace:
    """10 s at 10 ms: ``cwnd`` segments under a 32-segment advertised window (0 in the
    handoffs, as a freeze holds it), ``cwnd_in_handoff`` from each detach to 0.2 s after its
    attach; ACKs at 1 Mbit/s outside the handoffs, ``acked_after`` of that rate in the 0.5 s
    after each attach."""
    time = np.round(np.arange(0, 10.001, 0.01), 2)
    window = np.full(len(time), 32.0 * MSS)
    cwnd = np.full(len(time), cwnd * MSS)
    rate = np.full(len(time), 1.0)
    for h in HANDOFFS:
        window[(time >= h["detach_s"]) & (time < h["attach_s"])] = 0.0
        cwnd[(time >= h["detach_s"]) & (time <= h["attach_s"] + 0.2)] = cwnd_in_handoff * MSS
        rate[(time >= h["detach_s"]) & (time < h["attach_s"])] = 0.0
        rate[(time >= h["attach_s"]) & (time < h["attach_s"] + 0.5)] = acked_after
    acked = np.concatenate([[0.0], np.cumsum(rate[1:] * 1e6 / 8 * 0.01)])
    series = pd.DataFrame({"time_s": time, "cwnd_bytes": cwnd, "send_window_bytes": window,
                           "ssthresh_bytes": np.nan, "bytes_acked": acked})  # fmt: skip
    flow = {"timeouts": timeouts, "fast_retransmits": fast_retransmits}
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
    assert park_claims.fig3_proposed(traces(slow_start, frozen), MSS, "hold").verdict == "agrees"
    halved = trace(16, 0.95, timeouts=0)
    assert park_claims.fig3_proposed(traces(slow_start, halved), MSS, "hold").verdict == "partly"
    # A cwnd above the advertised window is not the window in use: 65 segments that fall
    # to 40 still leave the sender its 32.
    above = trace(40, 0.95, timeouts=0, cwnd=65)
    assert park_claims.fig3_proposed(traces(slow_start, above), MSS, "hold").verdict == "agrees"
    below = trace(20, 0.95, timeouts=0, cwnd=65)
    assert park_claims.fig3_proposed(traces(slow_start, below), MSS, "hold").verdict == "partly"
    assert park_claims.fig4(traces(slow_start, frozen), "hold").verdict == "agrees"
    assert park_claims.fig4(traces(frozen, frozen), "hold").verdict == "partly"
    assert park_claims.fig4(traces(slow_start, slow_start), "hold").verdict == "differs"


def test_a_lost_window_is_explained_by_what_the_sender_did():
    slow_start = trace(1, 0.4, timeouts=2)
    timed_out = trace(1, 0.4, timeouts=2)
    halved = trace(16, 0.6, timeouts=0, fast_retransmits=1)
    why = {
        (sender, name): park_claims.fig3_proposed(traces(slow_start, run), MSS, sender).why
        for sender in ("persist", "retransmit", "hold")
        for name, run in (("timed out", timed_out), ("halved", halved))
    }
    assert all(why[(s, "timed out")] == park_claims.TIMER_FIRES for s in ("persist", "hold"))
    assert why[("persist", "halved")] == park_claims.REWINDS  # BSD rewinds
    assert why[("hold", "halved")] == park_claims.COPIES  # no rewind: the copies the BS sent
    assert why[("retransmit", "halved")] == park_claims.COPIES
    assert park_claims.fig4(traces(slow_start, halved), "hold").why == park_claims.COPIES


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


def kernel_run(timeouts: int, goodput: float, after: float) -> tuple[dict, AckSeries]:
    """An emulated run: its summary with the fixed host's counters, and the mobile's ACKs,
    covering 1 Mbit/s outside the handoffs and ``after`` of that in the 0.5 s after each
    attach, one every 10 ms."""
    times = np.arange(1000) / 100
    rate = np.ones_like(times)
    for h in HANDOFFS:
        rate[(times >= h["detach_s"]) & (times < h["attach_s"])] = 0.0
        rate[(times >= h["attach_s"]) & (times < h["attach_s"] + 0.5)] = after
    # The ACK at t covers what arrived before t.
    acked = np.concatenate([[0], np.cumsum(rate * 1e6 / 8 * 0.01)[:-1]])
    summary = {
        "flows": [{"goodput_bps": goodput}],
        "mobiles": [{"handoffs": HANDOFFS}],
        "emulation": {
            "kernel_counters": {"fh": {"TCPTimeouts": timeouts, "RetransSegs": 3 * timeouts}},
        },
    }
    return summary, (times, acked)


def kernel_claims(standard: tuple, frozen: tuple) -> list:
    return park_claims.kernel_claims(
        {"none": standard[0], "snoop_freeze": frozen[0]},
        {"none": standard[1], "snoop_freeze": frozen[1]},
    )


def test_kernel_rules_follow_the_emulated_runs():
    standard = kernel_run(timeouts=2, goodput=1.0e6, after=0.5)
    frozen = kernel_run(timeouts=0, goodput=1.05e6, after=0.9)
    fig3, fig4, overall = kernel_claims(standard, frozen)
    assert (fig3.verdict, fig4.verdict, overall.verdict) == ("agrees", "agrees", "agrees")
    assert all("kernel" in claim.claim for claim in (fig3, fig4, overall))
    assert "snoop_freeze 90 %, 90 %; none 50 %, 50 %" in fig4.ours
    # The kernel's own RTO outlasts the handoff: no timeout without an agent either.
    quiet = kernel_run(timeouts=0, goodput=1.0e6, after=0.5)
    fig3, _, overall = kernel_claims(quiet, frozen)
    assert (fig3.verdict, overall.verdict) == ("differs", "differs")
    assert "variance term" in fig3.why
    slow = kernel_run(timeouts=0, goodput=1.05e6, after=0.6)
    _, fig4, _ = kernel_claims(standard, slow)
    assert fig4.verdict == "differs"
    assert "not traced" in fig4.why  # no retransmission: not the timer
    as_fast = kernel_run(timeouts=0, goodput=1.0e6, after=0.9)
    _, fig4, _ = kernel_claims(as_fast, frozen)
    assert fig4.verdict == "partly"
    assert "did not time out" in fig4.why


def test_each_sender_judges_every_claim_and_says_which():
    from airtcp.reproductions.park_local_ack import SENDERS, sender_claims

    slow_start = trace(1, 0.4, timeouts=2)
    frozen = trace(32, 0.95, timeouts=0)
    runs = {sender: traces(slow_start, frozen) for sender in SENDERS}
    line = table({"none": LINE, "snoop_freeze": [g * 1.05 for g in LINE]},
                 {"none": 2.0})  # fmt: skip
    frames = pd.concat([line.assign(sender=s) for s in SENDERS], ignore_index=True)
    found = sender_claims(runs, frames, MSS, 1.0)
    assert len(found) == 9 * len(SENDERS)
    for label in SENDERS.values():
        assert sum(c.claim.endswith(f"(with the {label})") for c in found) == 9
