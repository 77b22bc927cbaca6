"""Paper 000 on 802.11ac (beyond the paper; issue 27): does the paper's TCP-ACK priority at
the AP (Ryu et al., §2.2 c: the AP's TCP ACKs in a queue of their own, sent with backoff 0)
still help TCP uploads when Block Ack and A-MPDU aggregate the ACKs, and how does it compare
with Linux mac80211's airtime-fair FQ-CoDel queues?

The paper's topology (§3.1: N stations each uploading to its own wired server behind one
wired node, no RTS/CTS, 1024-byte segments, 5 ms wired links) on 802.11ac, MCS 9, 80 MHz,
one stream, EDCA (built-in scenario `ac-upload`, each setting's source in its comments).
The AP's policies, each over the numbers of stations, with A-MPDU on and off:
- ``dcf``: no agent, one FIFO per MAC (the agent `dcf` runs exactly as no agent: the
  summaries are identical, tests/test_ryu_ack_priority_ac.py);
- ``ack_priority``: the paper's scheme, the ACK queue in the AP's AC_BE EDCAF with
  backoff 0; with A-MPDU an access carries the ACKs queued for the head ACK's station;
- ``ack_priority_vo``: the same with the ACK queue in the AP's AC_VO EDCAF (AIFSN 1, CW
  3..7), 802.11e's own way to prioritise, still with backoff 0;
- ``fq_codel_airtime``: no agent, Linux mac80211's per-station FQ-CoDel queues with the
  airtime scheduler, on every MAC (AP and stations), in the ``fq-codel`` subdirectory;
- ``ack_priority_fq``: the paper's scheme over those queues, in the same subdirectory: the
  ACK queue below mac80211's (in the driver), backoff 0; the data through the tins;
- ``adaptive``: the paper's future work (airtcp's controller, docs/agents.md): backoff 0
  for only a share of the ACK-headed accesses, steered so that the estimated number of
  contenders tracks Bianchi's optimum; it counts the idle slots of its AC (AC_BE);
- without A-MPDU also the paper's two other schemes, ``txop_burst`` and
  ``ack_aggregation`` (A-MSDUs of ACKs), which do not run beside A-MPDU.
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import _core
from ..experiments.axes import band
from ..experiments.report import _png, _table_html, confidence_interval, legend_beside
from ..experiments.store import ResultStore
from ..experiments.writing import toml_value
from ..scenario.resolve import user_leaf
from . import ryu_ack_priority
from .claims import Claim, interval, order, ranked, section_html
from .claims import table as claims_table
from .page import experiment_head, shown
from .page import write_report as write_report_page
from .ryu_ack_priority import MSDU_OF_1024_SEGMENT

NAME = "ryu-ack-priority-ac"
SCENARIO = "ac-upload"  # built in: airtcp scenarios show ac-upload
FQ = "fq-codel"  # the subdirectory of the mac80211 queues' sweep
VO = {"kind": "ack_priority", "ac": "vo"}

# The AP's policies: name -> (the agent as the sweep writes it, its label).
POLICIES = {
    "dcf": ("dcf", "DCF, FIFO (no agent)"),
    "ack_priority": ("ack_priority", "ACK priority, backoff 0 (AC_BE)"),
    "ack_priority_vo": (VO, "ACK priority in AC_VO, backoff 0"),
    "adaptive": ("adaptive", "adaptive ACK priority (the paper's future work)"),
    "fq_codel_airtime": ("dcf", "mac80211 FQ-CoDel + airtime (no agent)"),
    "ack_priority_fq": ("ack_priority", "ACK priority over mac80211 FQ-CoDel + airtime"),
    "txop_burst": ("txop_burst", "TXOP burst of ACKs"),
    "ack_aggregation": ("ack_aggregation", "ACK aggregation (A-MSDU)"),
}
WITH_AMPDU = ("dcf", "ack_priority", "ack_priority_vo", "adaptive")
WITHOUT_AMPDU = (*WITH_AMPDU, "txop_burst", "ack_aggregation")
OVER_FQ = ("fq_codel_airtime", "ack_priority_fq")  # the fq-codel sweep's, A-MPDU on and off
METRICS = [
    "aggregate_goodput_bps",
    "jain_fairness",
    "wlans[0].mean_contenders",
    "wlans[0].collision_probability",
    "wlans[0].ap_accesses",
    "wlans[0].ap_zero_backoff_ack_headed_accesses",
    "wlans[0].ampdus",
    "wlans[0].ampdu_mpdus",
    "wlans[0].queue_drops",
    "wlans[0].codel_drops",
]


@dataclass(frozen=True)
class Plan:
    flows: list[int]
    replications: int
    duration_s: int
    measure_from_s: int


FULL = Plan(
    flows=[1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 40],
    replications=10,
    duration_s=30,
    measure_from_s=5,
)
QUICK = Plan(flows=[1, 3, 10, 20, 40], replications=2, duration_s=10, measure_from_s=3)


def _head(
    title: str,
    name: str,
    plan: Plan,
    scenario: str,
    settings: dict[str, Any] | None,
    fixed: str = "",
) -> str:
    return experiment_head(NAME, title, name, scenario, plan, METRICS, settings, fixed)


def experiment_toml(plan: Plan, scenario: str, settings: dict[str, Any] | None = None) -> str:
    """The AP agents' sweep (one FIFO per MAC): each agent with A-MPDU on and off (zipped),
    over the numbers of stations; ``settings`` (``--set``) change the scenario everywhere."""
    pairs = [(POLICIES[p][0], True) for p in WITH_AMPDU]
    pairs += [(POLICIES[p][0], False) for p in WITHOUT_AMPDU]
    head = _head("paper 000's ACK policies on 802.11ac", NAME, plan, scenario, settings)
    return f"""{head}
[zip]
"wlan.agent" = {toml_value([agent for agent, _ in pairs])}
"wlan.ampdu" = {toml_value([ampdu for _, ampdu in pairs])}

[grid]
"wlan.stations" = {json.dumps(plan.flows)}
"""


def more_experiments(plan: Plan, settings: dict[str, Any] | None = None) -> dict[str, str]:
    """mac80211's queues without an agent and with ACK priority, A-MPDU on and off, in the
    ``fq-codel`` subdirectory."""
    fixed = '"wlan.queueing" = "fq_codel_airtime"\n'
    head = _head(
        "mac80211's FQ-CoDel with airtime fairness on 802.11ac",
        f"{NAME}-{FQ}",
        plan,
        SCENARIO,
        settings,
        fixed,
    )
    text = f"""{head}
[grid]
"wlan.agent" = {toml_value([POLICIES[p][0] for p in OVER_FQ])}
"wlan.ampdu" = [true, false]
"wlan.stations" = {json.dumps(plan.flows)}
"""
    return {FQ: text}


# ---- what each run shows ------------------------------------------------------------------


def _policy(row: dict[str, Any], fq: bool) -> str:
    agent = row["wlan.agent"]
    if fq:
        return next(p for p in OVER_FQ if POLICIES[p][0] == agent)
    if isinstance(agent, dict):
        return "ack_priority_vo" if agent.get("ac") == "vo" else str(agent["kind"])
    return str(agent)


def run_values(summary: dict[str, Any]) -> dict[str, float]:
    """What one run's summary shows: the metrics compared, and the AP's accesses (the MAC's
    and TCP's counters are over the whole run, the goodput over the measured part)."""
    wlan = summary["wlans"][0]
    flows = [f for f in summary["flows"] if f["kind"] == "tcp_bulk"]
    accesses = wlan["ap_accesses"]
    return {
        "goodput_bps": summary["aggregate_goodput_bps"],
        "jain": summary["jain_fairness"],
        "contenders": wlan["mean_contenders"],
        "collision_probability": wlan["collision_probability"],
        # The summary has no A-MPDU count of the AP's own: in uploads the AP sends TCP ACKs
        # only, so the ACKs the senders received per AP access stand for its MPDUs per
        # A-MPDU (a lower bound: an MPDU sent twice counts once).
        "acks_per_ap_access": sum(f["acks_received"] for f in flows) / accesses
        if accesses
        else math.nan,
        "zero_backoff_share": wlan["ap_zero_backoff_ack_headed_accesses"] / accesses
        if accesses
        else math.nan,
        "mpdus_per_ampdu": wlan["ampdu_mpdus"] / wlan["ampdus"] if wlan["ampdus"] else math.nan,
        "ap_accesses_per_s": accesses / summary["duration_s"],
        "collisions_per_s": wlan["collisions"] / summary["duration_s"],
        "timeouts": sum(f["timeouts"] for f in flows),
        "queue_drops": wlan["queue_drops"],
        "codel_drops": wlan["codel_drops"],
    }


VALUES = (
    "goodput_bps",
    "jain",
    "contenders",
    "collision_probability",
    "acks_per_ap_access",
    "zero_backoff_share",
    "mpdus_per_ampdu",
    "ap_accesses_per_s",
    "collisions_per_s",
    "timeouts",
    "queue_drops",
    "codel_drops",
)
WITH_CI = ("goodput_bps", "jain", "contenders")


def per_run(out: Path) -> pd.DataFrame:
    """One row per finished run of both sweeps: policy, A-MPDU, stations, the values."""
    rows = []
    for where, fq in ((out, False), (out / FQ, True)):
        if not (where / "runs").is_dir():
            continue
        for record in ResultStore(where).records():
            row = record["row"]
            if row["status"] != "ok":
                continue
            rows.append(
                {
                    "policy": _policy(row, fq),
                    "ampdu": bool(row["wlan.ampdu"]),
                    "flows": int(row["wlan.stations"]),
                    "run_id": row["run_id"],
                    "replication": row["replication"],
                    "seed": row["seed"],
                    **run_values(record["summary"]),
                }
            )
    return pd.DataFrame(
        rows, columns=["policy", "ampdu", "flows", "run_id", "replication", "seed", *VALUES]
    )


def aggregate(runs: pd.DataFrame) -> pd.DataFrame:
    """Per policy, A-MPDU and stations: each value's mean, and for goodput, Jain's index and
    the contenders the 95 % Student-t half-width over the replications."""
    rows = []
    for (policy, ampdu, flows), group in runs.groupby(["policy", "ampdu", "flows"]):
        row: dict[str, Any] = {
            "policy": policy,
            "ampdu": bool(ampdu),
            "flows": int(flows),
            "runs": len(group),
        }
        for value in VALUES:
            mean, half = confidence_interval(group[value].to_numpy(dtype=float))
            row[value] = mean
            if value in WITH_CI:
                row[f"{value}_ci95"] = half
        rows.append(row)
    columns = ["policy", "ampdu", "flows", "runs"]
    for value in VALUES:
        columns += [value, f"{value}_ci95"] if value in WITH_CI else [value]
    table = pd.DataFrame(rows, columns=columns)
    order_of = {p: i for i, p in enumerate(POLICIES)}
    table["_order"] = table["policy"].map(order_of)
    table = table.sort_values(["ampdu", "_order", "flows"], ascending=[False, True, True])
    return table.drop(columns="_order").reset_index(drop=True)


# ---- Bianchi's model for 802.11ac (Fig 4 restated) ------------------------------------------


def model_optimum(effective: dict[str, Any]) -> dict[str, Any]:
    """Bianchi's saturation model (the standard's DCF with EDCA's AIFS, as the simulator
    runs it) for the MSDU of a 1024-byte segment on the runs' PHY: the optimal number of
    contenders with A-MPDUs as long as the limits allow, and with single MPDUs, and how far
    below its peak the model puts 4 contenders (the paper's optimum on 802.11b)."""
    wlan = effective["wlans"][0]
    mcs = {
        "mcs": wlan["mcs"],
        "channel_width_mhz": wlan["channel_width_mhz"],
        "spatial_streams": wlan["spatial_streams"],
    }
    result: dict[str, Any] = {}
    for ampdu in (True, False):
        model = json.loads(
            _core.bianchi_model(
                wlan["phy"],
                MSDU_OF_1024_SEGMENT,
                1,
                12,
                False,
                mcs_settings=json.dumps(mcs),
                ampdu=ampdu,
                edca=True,
            )
        )
        key = "ampdu" if ampdu else "single"
        by_count = {p["stations"]: p["throughput_bps"] for p in model["points"]}
        peak = model["optimal"]["throughput_bps"]
        result[key] = {
            "optimum": int(model["optimal"]["stations"]),
            "peak_bps": peak,
            "shortfall_at_4": 1 - by_count[4] / peak,
            "mpdus_per_ampdu": model["mpdus_per_ampdu"],
        }
    return result


# ---- claims ---------------------------------------------------------------------------------

GAIN_RANGE = (2, 10)  # Fig 5: "up to about 10 flows" priority gains; from 2 flows contend
GAIN_STRONG = 1.02  # at least 2 % above DCF at every count, intervals apart
PEAK_FLOWS = 3  # Fig 5: the peak "at 3 sessions"
CONTENDER_FLOWS = (10, 20, 40)  # Fig 2 and Fig 6 show these counts
CONTENDER_STRONG = 2.0  # Fig 6 against Fig 2: about N contenders against about 2
SHOWN_FLOWS = (1, 3, 10, 20, 40)  # the counts the beyond-the-paper rows spell out


def _point(points: pd.DataFrame, policy: str, ampdu: bool, flows: int) -> pd.Series | None:
    rows = points[
        (points["policy"] == policy) & (points["ampdu"] == ampdu) & (points["flows"] == flows)
    ]
    return None if rows.empty else rows.iloc[0]


def _half(row: pd.Series, value: str) -> float:
    return float(row.get(f"{value}_ci95", math.nan))


def _counts(points: pd.DataFrame, a: str, b: str, ampdu: bool) -> list[int]:
    """The numbers of stations at which both policies ran."""
    have = [
        set(points[(points["policy"] == p) & (points["ampdu"] == ampdu)]["flows"]) for p in (a, b)
    ]
    return sorted(int(n) for n in have[0] & have[1])


def _pairs(
    points: pd.DataFrame, a: str, b: str, ampdu: bool, value: str, counts: list[int]
) -> list[tuple[float, float, float, float]]:
    pairs = []
    for n in counts:
        x, y = _point(points, a, ampdu, n), _point(points, b, ampdu, n)
        pairs.append((float(x[value]), _half(x, value), float(y[value]), _half(y, value)))
    return pairs


def _where(
    pairs: list[tuple[float, float, float, float]], counts: list[int], sign: int
) -> list[int]:
    """The counts at which the first interval lies above (1), below (-1) or overlaps (0)."""
    return [n for n, pair in zip(counts, pairs, strict=True) if order(*pair) == sign]


def _listed(counts: list[int]) -> str:
    return ", ".join(map(str, counts))


def _contenders(count: int) -> str:
    return f"{count} contender" + ("" if count == 1 else "s")


def _mode(ampdu: bool) -> str:
    return "with A-MPDU and Block Ack" if ampdu else "without A-MPDU (one MPDU an access)"


def gain_claim(points: pd.DataFrame, ampdu: bool, model: dict[str, Any]) -> Claim:
    """Fig 5's gain restated: ack_priority above DCF at every count from 2 to 10 run."""
    low, high = GAIN_RANGE
    text = (
        f"Fig 5 on 802.11ac {_mode(ampdu)}: up to about 10 flows, ACK priority (backoff 0) "
        "raises the uploads' aggregate goodput over DCF"
    )
    rule = (
        f"agrees if at every count of {low}-{high} flows run (the paper's range of gains; one "
        "flow has no other station to bring in) ack_priority's 95 % interval lies wholly above "
        f"DCF's and its mean is at least {100 * (GAIN_STRONG - 1):g} % higher; partly if the "
        "intervals are apart everywhere but some gain is smaller; not significant if some "
        "intervals overlap and none lies wholly below; differs if at some count ack_priority's "
        "interval lies wholly below DCF's"
    )
    counts = [n for n in _counts(points, "ack_priority", "dcf", ampdu) if low <= n <= high]
    if not counts:
        return Claim(text, "no runs", "differs", rule, "No runs of both policies in range.")
    pairs = _pairs(points, "ack_priority", "dcf", ampdu, "goodput_bps", counts)
    result = ranked(pairs, GAIN_STRONG, 1.0)
    ours = "ack_priority against DCF, Mbit/s: " + "; ".join(
        f"{n} flows {interval(a, ah, 1e6, 1)} vs {interval(b, bh, 1e6, 1)}"
        for n, (a, ah, b, bh) in zip(counts, pairs, strict=True)
    )
    why = ""
    if result == "differs":
        below = _where(pairs, counts, -1)
        why = f"ack_priority is below DCF at {_listed(below)} flows. " + _contention_why(
            points, ampdu, below, model
        )
    elif result == "not significant":
        why = (
            f"The 95 % intervals overlap at {_listed(_where(pairs, counts, 0))} flows: the "
            "replications cannot order the two policies there."
        )
    elif result == "partly":
        why = "ack_priority is above DCF everywhere, but somewhere by less than the threshold."
    return Claim(text, ours, result, rule, why)


def _contention_why(
    points: pd.DataFrame, ampdu: bool, counts: list[int], model: dict[str, Any]
) -> str:
    """What the runs show where priority loses most: contenders, collisions a second (each
    loses a whole A-MPDU), and the AP's accesses a second and ACKs an access."""

    def loss(n: int) -> float:
        p, d = _point(points, "ack_priority", ampdu, n), _point(points, "dcf", ampdu, n)
        return 1 - p["goodput_bps"] / d["goodput_bps"]

    n = max(counts, key=loss)
    p, d = _point(points, "ack_priority", ampdu, n), _point(points, "dcf", ampdu, n)
    parts = [
        f"At {n} flows (its largest loss, {100 * loss(n):.1f} %) priority has "
        f"{p['contenders']:.1f} stations holding a frame at an access (DCF "
        f"{d['contenders']:.1f})"
    ]
    if p["collisions_per_s"] > d["collisions_per_s"]:
        parts.append(
            f"{p['collisions_per_s']:.0f} collisions a second (DCF {d['collisions_per_s']:.0f})"
        )
    if p["ap_accesses_per_s"] > 1.3 * d["ap_accesses_per_s"]:
        parts.append(
            f"{p['ap_accesses_per_s']:.0f} AP accesses a second with "
            f"{p['acks_per_ap_access']:.1f} ACKs each (DCF {d['ap_accesses_per_s']:.0f} with "
            f"{d['acks_per_ap_access']:.1f}), each access costing AIFS, a preamble, SIFS and "
            "a BlockAck"
            if ampdu
            else f"{p['ap_accesses_per_s']:.0f} AP accesses a second (DCF "
            f"{d['ap_accesses_per_s']:.0f})"
        )
    optimum = model["ampdu" if ampdu else "single"]["optimum"]
    frames = "A-MPDUs of 64 MPDUs" if ampdu else "single MPDUs"
    return (
        ", ".join(parts)
        + f". Bianchi's model puts the optimum at {_contenders(optimum)} for {frames} (row "
        "below): the stations priority brings in add collisions rather than fill idle slots."
    )


def _peak_text(ampdu: bool) -> str:
    return (
        f"Fig 5 on 802.11ac {_mode(ampdu)}: with ACK priority, goodput peaks at 3 flows (the "
        "optimal number of contenders minus the AP), above DCF"
    )


PEAK_RULE = (
    "agrees if ack_priority's highest mean is at 3 flows (or the 95 % interval at 3 flows "
    "overlaps the highest's) and its interval lies wholly above DCF's highest mean's at any "
    "count; not significant if the two peaks' intervals overlap; partly if DCF's peak is "
    "higher; differs if ack_priority's peak is not at 3 flows (nor overlapping it)"
)


def peak_claim(points: pd.DataFrame, ampdu: bool, model: dict[str, Any]) -> Claim:
    """Peaks compared with peaks, as paper 000's reproduction does."""
    text = _peak_text(ampdu)
    mode = points["ampdu"] == ampdu
    priority = points[(points["policy"] == "ack_priority") & mode]
    dcf = points[(points["policy"] == "dcf") & mode]
    if priority.empty or dcf.empty:
        return Claim(text, "no runs", "differs", PEAK_RULE, "No runs of both policies.")
    top = priority.loc[priority["goodput_bps"].idxmax()]
    best = dcf.loc[dcf["goodput_bps"].idxmax()]

    def band(row: pd.Series) -> tuple[float, float]:
        return float(row["goodput_bps"]), _half(row, "goodput_bps")

    three = _point(points, "ack_priority", ampdu, PEAK_FLOWS)
    at_three = three is not None and (
        int(top["flows"]) == PEAK_FLOWS or order(*band(three), *band(top)) == 0
    )
    versus = order(*band(top), *band(best))
    optimum = model["ampdu" if ampdu else "single"]["optimum"]
    if not at_three:
        result = "differs"
        why = (
            f"Priority's goodput is highest at {int(top['flows'])} flows, and the interval at 3 "
            f"flows lies apart from it. Bianchi's model has its optimum at {_contenders(optimum)} "
            "here (row below), not the paper's 4."
        )
    elif versus > 0:
        result, why = "agrees", ""
    elif versus == 0:
        result, why = "not significant", "The two peaks' 95 % intervals overlap."
    else:
        result = "partly"
        why = (
            f"Priority peaks where the paper says, but DCF's best, at {int(best['flows'])} "
            "flows, is higher: under DCF goodput does not fall as stations are added."
        )
    dcf_there = _point(points, "dcf", ampdu, int(top["flows"]))
    there = (
        ""
        if dcf_there is None
        else f" (DCF at {int(top['flows'])} flows: {interval(*band(dcf_there), 1e6, 1)})"
    )
    ours = (
        f"ack_priority peaks at {int(top['flows'])} flows: {interval(*band(top), 1e6, 1)} "
        f"Mbit/s; DCF's peak {interval(*band(best), 1e6, 1)} at {int(best['flows'])} "
        f"flows{there}"
    )
    return Claim(text, ours, result, PEAK_RULE, why)


CONTENDERS_RULE = (
    "agrees if at each of 10, 20 and 40 flows run (Fig 2/6's counts) the mean number of MACs "
    "holding a frame at a channel access (AP included) under ack_priority has its 95 % "
    f"interval wholly above DCF's and is at least {CONTENDER_STRONG:g} times DCF's mean (the "
    "paper: about N against about 2); partly if above everywhere but by less somewhere; not "
    "significant if the intervals overlap somewhere and none lies wholly below; differs if "
    "below somewhere"
)


def contenders_claim(points: pd.DataFrame, ampdu: bool) -> Claim:
    text = (
        f"Fig 2 and Fig 6 on 802.11ac {_mode(ampdu)}: with ACK priority more stations contend "
        "than under DCF (the paper: about as many as flows, against about 2)"
    )
    counts = [n for n in _counts(points, "ack_priority", "dcf", ampdu) if n in CONTENDER_FLOWS]
    if not counts:
        return Claim(text, "no runs", "differs", CONTENDERS_RULE, "No runs at 10, 20 or 40.")
    pairs = _pairs(points, "ack_priority", "dcf", ampdu, "contenders", counts)
    result = ranked(pairs, CONTENDER_STRONG, 1.0)
    ours = "mean holders, ack_priority against DCF: " + "; ".join(
        f"{n} flows {interval(a, ah, 1, 1)} vs {interval(b, bh, 1, 1)}"
        for n, (a, ah, b, bh) in zip(counts, pairs, strict=True)
    )
    short = [n for n, (a, _, b, _) in zip(counts, pairs, strict=True) if a < CONTENDER_STRONG * b]
    why = {
        "agrees": "",
        "partly": f"Priority has more contenders everywhere, but less than {CONTENDER_STRONG:g} "
        f"times DCF's at {_listed(short)} flows, where DCF keeps more stations backlogged than "
        "the paper's 2.",
        "not significant": f"The intervals overlap at {_listed(_where(pairs, counts, 0))} "
        "flows: the replications cannot order the two policies there.",
        "differs": f"Priority has fewer contenders at {_listed(_where(pairs, counts, -1))} flows.",
    }[result]
    return Claim(text, ours, result, CONTENDERS_RULE, why)


def _shown(points: pd.DataFrame, a: str, b: str, ampdu: bool) -> list[int]:
    return [n for n in _counts(points, a, b, ampdu) if n in SHOWN_FLOWS]


def _against(
    points: pd.DataFrame, a: str, b: str, ampdu: bool, value: str, scale: float, digits: int = 1
) -> str:
    """``a``'s mean → ``b``'s at each shown count, each with whether ``b``'s 95 % interval
    lies wholly above ``a``'s, below it, or overlaps it; then at how many of every count run
    it lies above and below."""
    counts = _counts(points, a, b, ampdu)
    pairs = _pairs(points, a, b, ampdu, value, counts)
    shown_counts = set(_shown(points, a, b, ampdu))
    texts, above, below = [], 0, 0
    for n, (x, xh, y, yh) in zip(counts, pairs, strict=True):
        sign = order(y, yh, x, xh)
        above, below = above + (sign > 0), below + (sign < 0)
        if n in shown_counts:
            where = {1: "above", -1: "below", 0: "overlap"}[sign]
            texts.append(f"{n}: {x / scale:.{digits}f} → {y / scale:.{digits}f} ({where})")
    return f"{', '.join(texts)}; above at {above}, below at {below} of {len(counts)} counts"


BEYOND_RULE = (
    "beyond the paper: the paper ran 802.11b only, without EDCA, A-MPDU or mac80211's "
    "queues, so there is nothing of its own to compare; shown, not graded: the means at 1, 3, "
    "10, 20 and 40 flows (where run; every count in points.csv), and at how many of the "
    "counts run the second policy's 95 % interval lies wholly above or below the first's"
)


def model_claim(model: dict[str, Any]) -> Claim:
    on, off = model["ampdu"], model["single"]
    return Claim(
        "Fig 4 on 802.11ac: how many contenders are optimal for the paper's 1024-byte "
        "segments (about 4 on 802.11b)?",
        f"Bianchi's model, 802.11ac MCS 9 80 MHz, EDCA's AIFS, 1072-byte MSDUs: "
        f"{on['optimum']} with A-MPDUs of {on['mpdus_per_ampdu']} MPDUs (4 contenders "
        f"{100 * on['shortfall_at_4']:.1f} % below the peak of {on['peak_bps'] / 1e6:.0f} "
        f"Mbit/s); {off['optimum']} with one MPDU an access (4 contenders "
        f"{100 * off['shortfall_at_4']:.1f} % below {off['peak_bps'] / 1e6:.1f} Mbit/s)",
        "beyond the paper",
        "beyond the paper: the paper's Fig 4 is for 802.11b; shown, not graded: the optimum "
        "of Bianchi's model of the standard's DCF with EDCA's best-effort AIFS (`airtcp bianchi "
        "--phy 802.11ac --mcs 9 --payload 1072`, and with --no-ampdu)",
        "The paper's case for priority is that 802.11b needs about 4 contenders to fill the "
        "channel. An A-MPDU of 64 such MPDUs lasts about 1.5 ms against a mean backoff of "
        "about 70 µs (7.5 slots of 9 µs), so one contender nearly fills it and every further "
        "one adds more collision time than it saves in idle slots.",
    )


def vo_claim(points: pd.DataFrame) -> Claim:
    text_be = _against(points, "dcf", "ack_priority_vo", True, "goodput_bps", 1e6)
    text_p = _against(points, "ack_priority", "ack_priority_vo", True, "goodput_bps", 1e6)
    text_j = _against(points, "dcf", "ack_priority_vo", True, "jain", 1.0, 2)
    return Claim(
        "Beyond the paper: the ACKs in the AP's AC_VO (802.11e's priority, AIFSN 1, CW 3..7) "
        "with backoff 0, with A-MPDU",
        f"goodput (Mbit/s), DCF → AC_VO: {text_be}. ack_priority (AC_BE) → AC_VO: {text_p}. "
        f"Jain's index, DCF → AC_VO: {text_j}",
        "beyond the paper",
        BEYOND_RULE,
        "802.11e did not exist for the paper's 802.11b runs. At the AP AC_VO's AIFSN is 1, "
        "two slots shorter than AC_BE's 3 (the AP's and the stations'): with backoff 0 its "
        "ACKs go before any best-effort backoff can end, so they do not collide with a "
        "station whose counter reaches 0 in the same slot, as backoff 0 in AC_BE can.",
    )


def fq_claim(points: pd.DataFrame, ampdu: bool) -> Claim:
    goodput = _against(points, "dcf", "fq_codel_airtime", ampdu, "goodput_bps", 1e6)
    jain = _against(points, "dcf", "fq_codel_airtime", ampdu, "jain", 1.0, 2)
    best = _against(points, "ack_priority", "fq_codel_airtime", ampdu, "goodput_bps", 1e6)
    over = _against(points, "fq_codel_airtime", "ack_priority_fq", ampdu, "goodput_bps", 1e6)
    return Claim(
        f"Beyond the paper, {_mode(ampdu)}: Linux mac80211's FQ-CoDel queues with airtime "
        "fairness against the FIFO with and without ACK priority, and ACK priority over them",
        f"goodput (Mbit/s), DCF → FQ-CoDel: {goodput}. Jain's index, DCF → FQ-CoDel: {jain}. "
        f"Goodput, ack_priority → FQ-CoDel: {best}. Goodput, FQ-CoDel → ACK priority over "
        f"FQ-CoDel: {over}",
        "beyond the paper",
        BEYOND_RULE,
        "mac80211's queues run on every MAC, the stations' too (docs/scenarios.md): CoDel at "
        "each station keeps its upload's window from overflowing its own queue, which under a "
        "FIFO drops segments by the hundred and costs timeouts; and at the AP each station's "
        "ACKs have a queue of their own, so no flow's ACKs crowd out another's. ACK priority "
        "over them keeps the data in mac80211's queues and puts the AP's ACKs in the paper's "
        "queue below them (in the driver), sent first with backoff 0: it changes how many "
        "stations contend, not how the queues are served.",
    )


def schemes_claim(points: pd.DataFrame) -> Claim:
    parts = []
    for scheme in ("txop_burst", "ack_aggregation"):
        text = _against(points, "dcf", scheme, False, "goodput_bps", 1e6)
        parts.append(f"DCF → {scheme}: {text}")
    counts = [n for n in _counts(points, "dcf", "dcf", False) if n in SHOWN_FLOWS]
    gains = []
    for n in counts:
        on, off = _point(points, "dcf", True, n), _point(points, "dcf", False, n)
        if on is not None and off is not None:
            gains.append(f"{n}: {on['goodput_bps'] / off['goodput_bps']:.1f} times")
    return Claim(
        "Beyond the paper: the paper's other two schemes (§2.2 a, b: TXOP bursts and "
        "aggregation of ACKs) on 802.11ac without A-MPDU, and what A-MPDU itself gives",
        "goodput (Mbit/s), "
        + ". ".join(parts)
        + ". DCF with A-MPDU against without: "
        + ", ".join(gains),
        "beyond the paper",
        BEYOND_RULE,
        "The paper proposes both schemes without running them. They do not run beside A-MPDU "
        "(several A-MPDUs in a TXOP and A-MSDUs inside an A-MPDU are not modelled), where "
        "the Block Ack agreement already sends the AP's ACKs to a station as one A-MPDU.",
    )


def adaptive_claim(points: pd.DataFrame) -> Claim:
    """The paper's future work: adaptive against DCF and ack_priority, with A-MPDU and
    without, and the share of the AP's accesses it gives backoff 0."""
    parts = []
    for ampdu in (True, False):
        mode = "with A-MPDU" if ampdu else "without"
        dcf = _against(points, "dcf", "adaptive", ampdu, "goodput_bps", 1e6)
        priority = _against(points, "ack_priority", "adaptive", ampdu, "goodput_bps", 1e6)
        zero = [
            f"{n}: {row['zero_backoff_share']:.0%}"
            for n in SHOWN_FLOWS
            if (row := _point(points, "adaptive", ampdu, n)) is not None
        ]
        jain = [
            f"{n}: {row['jain']:.2f}"
            for n in SHOWN_FLOWS
            if (row := _point(points, "adaptive", ampdu, n)) is not None
        ]
        parts.append(
            f"{mode}, goodput (Mbit/s), DCF → adaptive: {dcf}; ack_priority → adaptive: "
            f"{priority}; accesses with backoff 0: {', '.join(zero)}; Jain: {', '.join(jain)}"
        )
    return Claim(
        "Beyond the paper: its future work (§4), ACK priority for only a share of the AP's "
        "accesses, steered to keep Bianchi's optimal number of contenders (adaptive)",
        ". ".join(parts),
        "beyond the paper",
        BEYOND_RULE,
        "adaptive is airtcp's controller (docs/agents.md), not the paper's: it estimates the "
        "contenders from the share of busy slots among those its AC hears (Bianchi and "
        "Tinnirello) and gives backoff 0 to as many ACK-headed accesses as keep that estimate "
        "at its target, Bianchi's optimum for the stations' frames as the WLAN sends them "
        "with AC_BE's AIFS: 1 for 64-MPDU A-MPDUs and 3 for single MPDUs on this PHY (the Fig 4 "
        "row).",
    )


def aggregation_claim(points: pd.DataFrame) -> Claim:
    parts = []
    modes = [(p, True) for p in WITH_AMPDU] + [(p, False) for p in WITHOUT_AMPDU]
    for policy, ampdu in modes:
        values = [
            f"{n}: {row['acks_per_ap_access']:.1f}"
            for n in SHOWN_FLOWS
            if (row := _point(points, policy, ampdu, n)) is not None
        ]
        if values:
            mode = "A-MPDU" if ampdu else "no A-MPDU"
            parts.append(f"{policy}, {mode}: {', '.join(values)}")
    zero = [
        f"{n}: {row['zero_backoff_share']:.0%}"
        for n in SHOWN_FLOWS
        if (row := _point(points, "ack_priority", True, n)) is not None
    ]
    return Claim(
        "Beyond the paper: how many TCP ACKs the AP sends per channel access when Block Ack "
        "aggregates them",
        "TCP ACKs the stations received per AP access: "
        + "; ".join(parts)
        + ". Share of the AP's accesses ACK-headed with backoff 0 under ack_priority with "
        "A-MPDU: " + ", ".join(zero),
        "beyond the paper",
        "beyond the paper: the paper's 802.11b AP sends one ACK an access; shown, not graded: "
        "the means at 1, 3, 10, 20 and 40 flows (where run) of the ACKs the senders received "
        "over the AP's channel accesses (the AP sends nothing else in uploads), which stands "
        "for its MPDUs per A-MPDU",
        "The summary counts A-MPDUs for the whole BSS, not the AP's alone; the ACKs received "
        "per AP access is a lower bound on the AP's MPDUs per A-MPDU (a retried MPDU counts "
        "once). With A-MPDU one access carries the ACKs of a whole station's A-MPDU.",
    )


def claims(points: pd.DataFrame, model: dict[str, Any]) -> pd.DataFrame:
    """The paper's claims restated for 802.11ac (graded by the stated rules) and what is
    beyond the paper (shown): ``points`` has a row per policy, A-MPDU and stations with the
    means and 95 % half-widths (``aggregate``); ``model`` is ``model_optimum``'s."""
    return claims_table(
        [
            gain_claim(points, True, model),
            peak_claim(points, True, model),
            contenders_claim(points, True),
            gain_claim(points, False, model),
            peak_claim(points, False, model),
            contenders_claim(points, False),
            model_claim(model),
            vo_claim(points),
            fq_claim(points, True),
            fq_claim(points, False),
            schemes_claim(points),
            adaptive_claim(points),
            aggregation_claim(points),
        ]
    )


# ---- settings -------------------------------------------------------------------------------

WHY = {
    "phy": "ours, beyond the paper's 802.11b: VHT (802.11ac), 5 GHz",
    "band": "802.11ac: 5 GHz only",
    "mcs": "ours: 802.11ac's top MCS (256-QAM, rate 5/6)",
    "channel_width_mhz": "ours: 802.11ac's common width (the default)",
    "spatial_streams": "ours: single-stream stations (as tests/ampdu.rs and ac-bss)",
    "guard_interval_ns": "the standard's long guard interval (the short one is optional)",
    "rate_bps": "MCS 9, 80 MHz, one stream, long GI",
    "basic_rate_bps": "the standard's rule for control responses: the highest of 6, 12 and 24 "
    "Mbit/s not above MCS 9's non-HT reference rate (docs/scenarios.md), for BlockAcks and ACKs",
    "slot_ns": "the OFDM PHY's aSlotTime",
    "sifs_ns": "the OFDM PHY's aSIFSTime (5 GHz)",
    "difs_ns": "SIFS + 2 slots (used without EDCA)",
    "eifs_ns": "SIFS + DIFS + the estimated ACK time (IEEE 802.11-2020 §10.3.2.3.7)",
    "ack_timeout_ns": "SIFS + slot + the response's preamble (IEEE 802.11-2020 §10.3.2.9)",
    "eifs_after_collision": "the standard: the others received a frame in error",
    "cw_min": "aCWmin of the OFDM PHY (EDCA's parameters below apply)",
    "cw_max": "aCWmax of the OFDM PHY",
    "rts_threshold": "paper 000 §3.1: no RTS/CTS",
    "queue_packets": "ours: each MAC's queue (at the AP shared by an agent's two queues), "
    "about six 64-MPDU A-MPDUs; the paper gives no buffer sizes (ns-3's WifiMacQueue: 500)",
    "short_retry_limit": "dot11ShortRetryLimit default, per MPDU",
    "long_retry_limit": "dot11LongRetryLimit default",
    "msdu_lifetime_ns": "none, as paper 000's reproduction and real stations",
    "queue_max_delay_ns": "none, as paper 000's reproduction",
    "agent": "per point: dcf (no agent), ack_priority, ack_priority in AC_VO, adaptive "
    "(target: Bianchi's optimum for the stations' frames as the WLAN sends them, 1 with "
    "A-MPDU, 3 without); without A-MPDU also txop_burst and ack_aggregation",
    "queueing": "per point: fifo (one DropTail queue per MAC, as the paper's ns-2) with the "
    "agents; fq_codel_airtime (mac80211's, every MAC) without an agent (dcf) and with "
    "ack_priority (its ACK queue below mac80211's, in the driver)",
    "driver_queue": "ath9k's hardware queue (the default: two A-MPDUs) below mac80211's "
    "queues; firmware queues and AQL are beyond this experiment",
    "ampdu": "per point: on (the standard's for VHT: Block Ack window, A-MPDU length and "
    "aPPDUMaxTime below) or off (one MPDU an access)",
    "edca": "on, the default for 802.11ac: the stations' parameter set is the standard's "
    "(Table 9-155), the AP's dot11QAPEDCATable (hostapd's defaults); unmarked traffic is AC_BE",
    "congestion_control": "the paper's TCP is Reno-like: NewReno (RFC 6582), as paper 000's "
    "reproduction",
    "mss": "paper 000 §3.1: 1024-byte TCP segments",
    "send_buffer": "ours: 4 MB, so that the flows fill the WLAN (with 64 KiB a flow gets "
    "about 25 Mbit/s here); Linux's default tcp_wmem maximum is 4 MiB",
    "receive_buffer": "ours: as the send buffer",
    "window_scaling": "RFC 7323, needed beyond 64 KiB",
    "sack": "RFC 2018/6675, as every current stack: a full station FIFO drops hundreds of "
    "segments of a 4 MB window at once, which NewReno alone repairs one a round trip",
}
TCP_WHY = "airtcp's RFC profile (docs/tcp.md), as paper 000's reproduction; the paper does not say"
DEFAULT_WHY = "the simulator's default for this PHY (docs/scenarios.md)"


def _effective(settings: dict[str, Any] | None) -> dict[str, Any]:
    """The simulator's effective settings of the runs (one station stands for any count)."""
    return ryu_ack_priority._effective(settings, SCENARIO)


def effective_settings(settings: dict[str, Any] | None = None) -> pd.DataFrame:
    """Every setting the runs use, defaults applied by the simulator, and why; bad
    ``settings`` raise a ScenarioError here, before any run."""
    return _settings_table(_effective(settings))


def _edca_value(params: dict[str, Any]) -> str:
    txop = params["txop_limit_ns"]
    limit = f"TXOP {txop / 1e6:g} ms" if txop else "no TXOP limit"
    return f"AIFSN {params['aifsn']}, CW {params['cw_min']}..{params['cw_max']}, {limit}"


def _settings_table(effective: dict[str, Any]) -> pd.DataFrame:
    rows = []
    wlan = effective["wlans"][0]
    for key, value in wlan.items():
        if key in ("ap", "stations"):
            continue
        if key == "edca" and isinstance(value, dict):
            for side, by_ac in value.items():
                who = "the AP's" if side == "ap" else "the stations'"
                for ac, params in by_ac.items():
                    rows.append(
                        {
                            "setting": f"wlan.edca.{side}.{ac}",
                            "value": _edca_value(params),
                            "why": f"{who} {ac.upper()} EDCA parameters, the standard's",
                        }
                    )
            continue
        if key == "ampdu" and isinstance(value, dict):
            for leaf, number in value.items():
                rows.append(
                    {
                        "setting": f"wlan.ampdu.{user_leaf(leaf)}",
                        "value": shown(leaf, number),
                        "why": "802.11ac's limits (the defaults); " + WHY["ampdu"],
                    }
                )
            continue
        used = "(per point)" if key in ("agent", "queueing") else shown(key, value)
        rows.append(
            {"setting": f"wlan.{user_leaf(key)}", "value": used, "why": WHY.get(key, DEFAULT_WHY)}
        )
    link = effective["links"][0]
    rows.append(
        {
            "setting": "links",
            "value": f"{link['rate_bps'] / 1e9:g} Gbit/s, {link['delay_ns'] / 1e6:g} ms, "
            f"{link['queue_packets']} packets",
            "why": "paper 000 §3.1's 5 ms; ours: 1 Gbit/s (the paper's 100 Mbit/s would be the "
            "bottleneck), Linux's default txqueuelen (never full at 1 Gbit/s)",
        }
    )
    flow = effective["flows"][0]
    rows.append(
        {
            "setting": "tcp.congestion_control",
            "value": flow["congestion_control"],
            "why": WHY["congestion_control"],
        }
    )
    for key, value in flow["tcp"].items():
        if key == "congestion_params":
            continue  # read by CUBIC, Veno and Westwood only
        rows.append(
            {"setting": f"tcp.{key}", "value": shown(key, value), "why": WHY.get(key, TCP_WHY)}
        )
    return pd.DataFrame(rows)


# ---- figures and the report -----------------------------------------------------------------


def _figure(
    points: pd.DataFrame, runs: pd.DataFrame, value: str, scale: float, ylabel: str, title: str
) -> str:
    """One panel with A-MPDU and one without: a line per policy, 95 % bands where kept, and
    each run's value as a dot."""
    figure, panels = plt.subplots(1, 2, figsize=(12, 4.2))
    for axes, ampdu in zip(panels, (True, False), strict=True):
        for policy in POLICIES:
            curve = points[(points["policy"] == policy) & (points["ampdu"] == ampdu)]
            if curve.empty:
                continue
            xs = curve["flows"].to_numpy()
            mean = curve[value].to_numpy(dtype=float) / scale
            (line,) = axes.plot(xs, mean, marker="o", markersize=3, label=POLICIES[policy][1])
            if f"{value}_ci95" in curve:
                half = np.nan_to_num(curve[f"{value}_ci95"].to_numpy(dtype=float)) / scale
                axes.fill_between(xs, *band(value, mean, half, mean), alpha=0.2,
                                  color=line.get_color())  # fmt: skip
            own = runs[(runs["policy"] == policy) & (runs["ampdu"] == ampdu)]
            axes.scatter(own["flows"], own[value].to_numpy(dtype=float) / scale, s=8,
                         alpha=0.5, color=line.get_color(), linewidths=0)  # fmt: skip
        axes.set_xlabel("TCP uploads (stations)")
        axes.set_ylabel(ylabel)
        axes.set_title(_mode(ampdu))
        axes.grid(alpha=0.3)
    legend_beside(panels[0], figure)
    figure.suptitle(title)
    return _png(figure)


def write_report(
    out: Path, plan_name: str, settings: dict[str, Any] | None = None
) -> tuple[Path, pd.DataFrame]:
    runs = per_run(out)
    points = aggregate(runs)
    effective = _effective(settings)
    model = model_optimum(effective)
    table = claims(points, model)
    used = _settings_table(effective)
    figures = [
        (
            "goodput",
            _figure(
                points,
                runs,
                "goodput_bps",
                1e6,
                "aggregate goodput (Mbit/s)",
                "Aggregate goodput vs stations (mean, 95 % CI, dots: runs)",
            ),
        ),
        (
            "fairness",
            _figure(
                points,
                runs,
                "jain",
                1.0,
                "Jain's fairness index",
                "Jain's index over the flows vs stations (mean, 95 % CI, dots: runs)",
            ),
        ),
        (
            "contenders",
            _figure(
                points,
                runs,
                "contenders",
                1.0,
                "MACs holding a frame (AP included)",
                "Mean contenders at a channel access (mean, 95 % CI, dots: runs)",
            ),
        ),
        (
            "ACKs per AP access",
            _figure(
                points,
                runs,
                "acks_per_ap_access",
                1.0,
                "TCP ACKs received per AP access",
                "The AP's ACKs per channel access (its A-MPDUs; dots: runs)",
            ),
        ),
    ]
    frames = []
    for where in (out, out / FQ):
        if (where / "runs").is_dir():
            frame = ResultStore(where).frame()
            frames.append(frame.assign(sweep=str(where.relative_to(out)) or "."))
    every = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    failed = int((every["status"] != "ok").sum()) if len(every) else 0
    columns = [
        c
        for c in (
            "sweep",
            "run_id",
            "wlan.agent",
            "wlan.ampdu",
            "wlan.stations",
            "replication",
            "seed",
            "status",
        )
        if c in every
    ]
    listing = every[columns].astype(str) if len(every) else every
    fq_file = out / FQ / "experiment.toml"
    fq_text = html.escape(fq_file.read_text()) if fq_file.exists() else "(not run)"
    intro = (
        "Beyond paper 000 (Ryu, Choi, Seok, Kwon, Choi, <i>Improving TCP Uploading Throughput "
        "in IEEE 802.11 WLANs</i>): its upload topology (§3.1) on 802.11ac, MCS 9, 80 MHz, one "
        "stream, EDCA, with A-MPDU and Block Ack on and off. Does the paper's TCP-ACK priority "
        "at the AP still help when the ACKs go in A-MPDUs, and how does it compare with Linux "
        f"mac80211's FQ-CoDel queues with airtime fairness? {len(runs)} runs ok, {failed} "
        "failed. docs/reproductions/ryu-ack-priority-ac.md explains every choice."
    )
    sections = [
        ("The paper's claims on 802.11ac, and ours", section_html(table)),
        ("Settings of every run", _table_html(used)),
        (
            "Per policy, A-MPDU and stations",
            "<p>Goodput in bit/s, Jain's index over the flows "
            "and the mean number of MACs holding a frame at a channel access (AP included), each "
            "with its 95 % half-width over the replications; collision probability (failed "
            "attempts over attempts); TCP ACKs the senders received per AP channel access (the "
            "AP's MPDUs per A-MPDU, a lower bound); the share of the AP's accesses that were "
            "ACK-headed with backoff 0; MPDUs per A-MPDU over all MACs; the AP's channel "
            "accesses and the collisions a second of the run; timeouts, queue drops and CoDel "
            "drops per run.</p>" + _table_html(points),
        ),
        ("mac80211 queues' sweep (fq-codel/)", f"<pre>{fq_text}</pre>"),
    ]
    heading = (
        f"Paper 000 on 802.11ac: TCP-ACK priority, A-MPDU and mac80211's queues ({plan_name} run)"
    )
    tables = {"points.csv": points, "claims.csv": table, "settings.csv": used}
    target = write_report_page(out, NAME, heading, intro, sections, figures, listing, tables)
    return target, table
