"""Høiland-Jørgensen, Kazior, Täht, Hurtig, Brunstrom, "Ending the Anomaly: Achieving Low
Latency and Airtime Fairness in WiFi" (USENIX ATC 2017): Linux mac80211's per-station
FQ-CoDel queues and airtime scheduler against a FIFO, for latency under load and airtime
fairness, and the 802.11 performance anomaly they end.

What of the paper airtcp's authors could read: its abstract ("an order of magnitude reduction
in latency under load, large improvements in multi-station throughput, and nearly perfect
airtime fairness for both TCP and downstream UDP traffic"), its introduction's statement of
the anomaly, the first author's ath9k commit (Linux 63fefa050477, December 2016) with the
testbed's throughput before and after the scheduler (three stations, "two stations operate at
the highest HT20 rate, and one station at the lowest"), and his blog's description of the
testbed (AR9580 adapters, 3x3 MIMO). The paper's figures are not among them;
docs/reproductions/atc-anomaly.md lists what is and is not known.

The built-in scenario `anomaly` is the testbed in one collision domain: sta1 at MCS 0, sta2
and sta3 at MCS 15, A-MPDUs within ath9k's limits (32 subframes, 4 ms). Four sweeps, one
output directory each, each over `wlan.queueing` (fifo, fq_codel, fq_codel_airtime):
- the main one (``out``): TCP downloads to the three stations and pings to sta1 and sta2;
- ``udp``: the same with a UDP flood to each station;
- ``mcs23-tcp`` and ``mcs23-udp``: both again with the fast stations at MCS 23 (three
  streams, the AR9580's most), because the stream count is not stated and the scheduler's
  gain depends on it (labelled a sensitivity wherever it is shown).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import _core
from ..experiments.report import _table_html, confidence_interval
from ..experiments.store import ResultStore
from ..experiments.writing import toml_value
from .claims import Claim, interval, order, ranked, section_html, verdict
from .claims import table as claims_table
from .page import experiment_head, finished, shown
from .page import write_report as write_report_page

NAME = "atc-anomaly"
SCENARIO = "anomaly"  # built in: airtcp scenarios show anomaly
QUEUEINGS = ("fifo", "fq_codel", "fq_codel_airtime")
QUEUEING = "wlan.queueing"
FAST_MCS = 15  # the scenario's: two streams, 130 Mbit/s
THREE_STREAMS = 23  # the sensitivity: three streams, 195 Mbit/s
SLOW_MCS = 0  # the scenario's sta1: one stream, 6.5 Mbit/s
DATA_FLOWS = 3  # down1..down3 (sta1 slow, sta2 and sta3 fast); then the two pings
PINGS = {"slow": "ping-slow", "fast": "ping-fast"}
PAYLOAD = 1472  # UDP: a 1500-byte IPv4 packet
# Each flood above the channel's capacity, at rates a little apart: CBR floods at one rate
# keep one phase to the channel's departures, and a full DropTail FIFO then gives every freed
# place to the same flow; rates 1 % apart drift through every phase within milliseconds.
UDP_RATES = ("150Mbps", "151Mbps", "152Mbps")
METRICS = ["aggregate_goodput_bps", "jain_fairness",
           *[f"flows[{i}].goodput_bps" for i in range(DATA_FLOWS)]]  # fmt: skip

# ath9k commit 63fefa050477 (Linux, 2016-12-05; linux-wireless, msg29225 on mail-archive):
# "two stations operate at the highest HT20 rate, and one station at the lowest", Mbit/s.
PATCH_BEFORE = {"fast 1": 19.17, "fast 2": 19.83, "slow": 2.58, "total": 41.58}
PATCH_AFTER = {"fast 1": 25.09, "fast 2": 25.21, "slow": 1.77, "total": 52.07}
PATCH_30_STATIONS = (2.14, 17.76)  # aggregate, one station "artificially limited to 1 Mbps"
PATCH_GAIN = PATCH_AFTER["total"] / PATCH_BEFORE["total"] - 1  # +25.2 %
SOURCES = {
    "abstract": "abstract (usenix.org/conference/atc17/technical-sessions/presentation/"
    "hoilan-jorgesen; arXiv 1703.00064)",
    "intro": "section 1, Introduction",
    "patch": "the first author's ath9k commit 63fefa050477 (Dec 2016), testbed figures",
}


@dataclass(frozen=True)
class Plan:
    replications: int
    duration_s: int
    measure_from_s: int


FULL = Plan(replications=10, duration_s=30, measure_from_s=5)
QUICK = Plan(replications=3, duration_s=20, measure_from_s=5)


@dataclass(frozen=True)
class Setup:
    traffic: str  # "tcp" or "udp"
    fast_mcs: int
    description: str


# Each sweep by its subdirectory of the output directory ("" the main one).
SETUPS = {
    "": Setup("tcp", FAST_MCS, "TCP downloads and pings, fast stations at MCS 15"),
    "udp": Setup("udp", FAST_MCS, "UDP floods and pings, fast stations at MCS 15"),
    "mcs23-tcp": Setup("tcp", THREE_STREAMS, "sensitivity: TCP, fast stations at MCS 23"),
    "mcs23-udp": Setup("udp", THREE_STREAMS, "sensitivity: UDP, fast stations at MCS 23"),
}


def udp_sets() -> dict[str, Any]:
    sets: dict[str, Any] = {}
    for i in range(DATA_FLOWS):
        sets |= {f"flows.{i}.kind": "udp_cbr", f"flows.{i}.rate": UDP_RATES[i],
                 f"flows.{i}.payload": PAYLOAD}  # fmt: skip
    return sets


def setup_sets(setup: Setup) -> dict[str, Any]:
    """What a sweep changes in the scenario at every point."""
    sets = udp_sets() if setup.traffic == "udp" else {}
    if setup.fast_mcs != FAST_MCS:
        sets["wlan.mcs"] = setup.fast_mcs
    return sets


def _experiment(name: str, plan: Plan, scenario: str, settings: dict[str, Any] | None) -> str:
    setup = SETUPS[name]
    fixed = "".join(f'"{key}" = {toml_value(value)}\n' for key, value in setup_sets(setup).items())
    full_name = NAME + ("-" + name if name else "")
    head = experiment_head(
        NAME, setup.description, full_name, scenario, plan, METRICS, settings, fixed
    )
    return f"""{head}
[grid]
"{QUEUEING}" = {json.dumps(list(QUEUEINGS))}
"""


def experiment_toml(plan: Plan, scenario: str, settings: dict[str, Any] | None = None) -> str:
    return _experiment("", plan, scenario, settings)


def more_experiments(plan: Plan, settings: dict[str, Any] | None = None) -> dict[str, str]:
    return {name: _experiment(name, plan, SCENARIO, settings) for name in SETUPS if name}


# ---- what each run shows ------------------------------------------------------------------

HT20_DBPS = (26, 52, 78, 104, 156, 208, 234, 260)  # one stream, 0.8 µs GI (§19.5)


def ht_ppdu_ns(mcs: int, psdu_bytes: int) -> int:
    """TXTIME of an HT-mixed PPDU, 20 MHz, long GI, BCC, 5 GHz (IEEE 802.11-2020 §19.4.3):
    L-STF, L-LTF, L-SIG, HT-SIG, HT-STF and one HT-LTF per stream, then N_SYM 4-µs symbols
    of 16 service and 6 tail bits besides the PSDU; the simulator's own formula
    (airtcp_proto::wifi::mcs), checked against its airtime counters in
    tests/test_atc_anomaly.py."""
    streams = mcs // 8 + 1
    dbps = HT20_DBPS[mcs % 8] * streams
    symbols = math.ceil((8 * psdu_bytes + 16 + 6) / dbps)
    return 1000 * (20 + 8 + 4 + 4 * streams + 4 * symbols)


def udp_mpdu_bytes(payload: int) -> int:
    """A datagram's MPDU: UDP 8, IPv4 20, LLC/SNAP 8, QoS data header and FCS 30."""
    return payload + 66


def ampdu_psdu_bytes(mpdus: int, mpdu_bytes: int) -> int:
    """An A-MPDU of ``mpdus`` equal MPDUs: each behind a 4-byte delimiter, each subframe but
    the last padded to a multiple of 4 bytes (IEEE 802.11-2020 §9.7.1)."""
    subframe = 4 + mpdu_bytes
    return (mpdus - 1) * (subframe + (-subframe) % 4) + subframe


def airtime_shares(summary: dict[str, Any]) -> list[float]:
    """Each station's share of the data PPDUs' airtime over the run, both directions (the
    MAC's counters; the airtime scheduler charges both, as the paper's does)."""
    wlan = summary["wlans"][0]
    per = [u + d for u, d in zip(wlan["station_uplink_airtime_ns"],
                                 wlan["station_downlink_airtime_ns"], strict=True)]  # fmt: skip
    total = sum(per)
    return [p / total if total else math.nan for p in per]


def airtime_per_byte_ratio(summary: dict[str, Any]) -> float:
    """The slow station's data airtime per byte delivered over the run, over the fast ones'
    (their mean): with downstream UDP, where only the AP sends data and nothing collides,
    the ratio of the two MCSs' PPDU times per byte (130/6.5 = 20 at MCS 15 and MCS 0, less
    a little for the framing of 2 against 32 subframes)."""
    wlan = summary["wlans"][0]
    per_byte = []
    for i, flow in enumerate(summary["flows"][:DATA_FLOWS]):
        airtime = wlan["station_uplink_airtime_ns"][i] + wlan["station_downlink_airtime_ns"][i]
        per_byte.append(airtime / flow["bytes_delivered"] if flow["bytes_delivered"] else math.nan)
    return per_byte[0] / float(np.mean(per_byte[1:]))


def jain(values: list[float]) -> float:
    values = [v for v in values if not math.isnan(v)]
    if not values or not any(values):
        return math.nan
    return _core.jain_index(values)


def ping_median_ms(summary: dict[str, Any], name: str) -> float:
    """The median RTT of the ping flow ``name``'s probes sent in the measurement window (lost
    ones left out)."""
    start = summary["measure_from_s"] * 1e9
    for flow in summary["flows"]:
        if flow["name"] == name:
            probes = flow["probes"]
            rtts = [(back - sent) / 1e6
                    for sent, back in zip(probes["sent_ns"], probes["returned_ns"], strict=True)
                    if back is not None and sent >= start]  # fmt: skip
            return float(np.median(rtts)) if rtts else math.nan
    return math.nan


def run_row(summary: dict[str, Any]) -> dict[str, Any]:
    """What one run shows (throughput in Mbit/s, airtime shares, ping medians in ms)."""
    goodputs = [f["goodput_bps"] / 1e6 for f in summary["flows"][:DATA_FLOWS]]
    shares = airtime_shares(summary)
    return {
        **{f"sta{i + 1}_mbps": g for i, g in enumerate(goodputs)},
        "total_mbps": sum(goodputs),
        **{f"sta{i + 1}_airtime": s for i, s in enumerate(shares)},
        "airtime_jain": jain(shares),
        "throughput_jain": jain(goodputs),
        **{f"ping_{kind}_ms": ping_median_ms(summary, name) for kind, name in PINGS.items()},
        "airtime_per_byte_ratio": airtime_per_byte_ratio(summary),
        "codel_drops": summary["wlans"][0]["codel_drops"],
    }


def per_run(out: Path, setup: Setup) -> pd.DataFrame:
    """One row per finished run of the sweep in ``out``: its parameters and what it shows."""
    rows = []
    for record in ResultStore(out).records():
        row, summary = record["row"], record.get("summary")
        if row["status"] != "ok" or summary is None:
            continue
        rows.append({"traffic": setup.traffic, "fast_mcs": setup.fast_mcs,
                     "queueing": row.get(QUEUEING, "fifo"), "replication": row["replication"],
                     **run_row(summary)})  # fmt: skip
    return pd.DataFrame(rows)


VALUES = [
    *[f"sta{i}_{kind}" for kind in ("mbps", "airtime") for i in (1, 2, 3)],
    "total_mbps",
    "airtime_jain",
    "throughput_jain",
    "ping_slow_ms",
    "ping_fast_ms",
    "airtime_per_byte_ratio",
    "codel_drops",
]


def aggregate(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95 % half-width per point of a sweep."""
    rows = []
    for (traffic, mcs, queueing), group in runs.groupby(["traffic", "fast_mcs", "queueing"],
                                                        sort=False):  # fmt: skip
        row: dict[str, Any] = {"traffic": traffic, "fast_mcs": mcs, "queueing": queueing,
                               "runs": len(group)}  # fmt: skip
        for value in VALUES:
            mean, half = confidence_interval(group[value].to_numpy(dtype=float))
            row[value], row[f"{value}_ci95"] = mean, half
        rows.append(row)
    return pd.DataFrame(rows)


def analyse(out: Path) -> pd.DataFrame:
    """Every sweep's points, one table."""
    parts = []
    for name, setup in SETUPS.items():
        where = out / name if name else out
        if not (where / "runs").exists():
            continue
        runs = per_run(where, setup)
        if not runs.empty:
            parts.append(aggregate(runs))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


# ---- claims -------------------------------------------------------------------------------


def _point(table: pd.DataFrame, traffic: str, queueing: str,
           mcs: int = FAST_MCS) -> pd.Series | None:  # fmt: skip
    if table.empty:
        return None
    rows = table[(table["traffic"] == traffic) & (table["queueing"] == queueing)
                 & (table["fast_mcs"] == mcs)]  # fmt: skip
    return None if rows.empty else rows.iloc[0]


def _points(table: pd.DataFrame, traffic: str, mcs: int = FAST_MCS) -> dict[str, pd.Series] | None:
    points = {q: _point(table, traffic, q, mcs) for q in QUEUEINGS}
    return None if any(p is None for p in points.values()) else points


def _pair(row: pd.Series, value: str) -> tuple[float, float]:
    return float(row[value]), float(row[f"{value}_ci95"])


def _shares(row: pd.Series) -> str:
    return " / ".join(f"{row[f'sta{i}_airtime']:.2f}" for i in (1, 2, 3))


def _mbps(row: pd.Series) -> str:
    return " / ".join(f"{row[f'sta{i}_mbps']:.2f}" for i in (1, 2, 3))


BETTER = ("agrees", "partly", "not significant", "differs")


def _best(verdicts: list[str]) -> str:
    """The better of verdicts of one rule applied to different traffic."""
    return min(verdicts, key=BETTER.index)


def calibration_claim(table: pd.DataFrame) -> Claim | None:
    points = _points(table, "udp")
    if points is None:
        return None
    ratios = {q: _pair(p, "airtime_per_byte_ratio") for q, p in points.items()}
    holds = all(abs(mean / 20 - 1) <= 0.05 for mean, _ in ratios.values())
    return Claim(
        f"Two stations at the highest HT20 rate, one at the lowest ({SOURCES['patch']})",
        "UDP: the slow station's data airtime per delivered byte, over the fast ones': "
        + ", ".join(f"{q} {interval(*r)}" for q, r in ratios.items()),
        "calibrated" if holds else "differs",
        "calibrated (the scenario sets MCS 15 and MCS 0 from this sentence): the rule checks "
        "that at every UDP point the ratio is within 5 % of 130/6.5 = 20, the two MCSs' "
        "data rates (A-MPDUs of 2 against 32 subframes, within ath9k's 4 ms, move it by "
        "under 1 %); differs otherwise",
        "By construction: the scenario sets the MCSs from this sentence (the stream count "
        "assumed); the row checks that each station's frames take its own MCS's airtime."
        if holds
        else "The slow station's frames do not take MCS 0's airtime, or the fast ones' MCS "
        "15's: the per-station MCS or the A-MPDU limits are not what the scenario sets.",
    )


def latency_claim(table: pd.DataFrame) -> Claim | None:
    points = _points(table, "tcp")
    if points is None:
        return None
    pairs, ratios = [], []
    for kind in PINGS:
        value = f"ping_{kind}_ms"
        for queueing in QUEUEINGS[1:]:
            pair = (*_pair(points["fifo"], value), *_pair(points[queueing], value))
            pairs.append(pair)
            ratios.append(pair[0] / pair[2])
    result = ranked(pairs, 10.0, math.sqrt(10.0))
    udp = _points(table, "udp")
    udp_text = ""
    if udp is not None:
        udp_text = "; under UDP floods (slow station) " + ", ".join(
            f"{q} {udp[q]['ping_slow_ms']:.0f}" for q in QUEUEINGS
        )

    def pings(kind: str) -> str:
        return ", ".join(
            f"{q} {interval(*_pair(points[q], f'ping_{kind}_ms'), digits=1)}" for q in QUEUEINGS
        )

    shown_pings = "; ".join(f"{kind} station: {pings(kind)}" for kind in PINGS)
    return Claim(
        f"An order of magnitude reduction in latency under load ({SOURCES['abstract']})",
        f"median ping RTT (ms) under the three TCP downloads, {shown_pings}: "
        f"{min(ratios):.1f} to {max(ratios):.1f} times lower with mac80211's queues{udp_text}",
        result,
        "agrees if the FIFO's median ping RTT is at least 10 times that of each of mac80211's "
        "queueings, to the slow and to a fast station, their 95 % intervals apart; partly if "
        "at least √10 ≈ 3.2 times (half an order of magnitude); not significant if some "
        "intervals overlap; differs otherwise",
        ""
        if result == "agrees"
        else "The FIFO's delay is what CUBIC keeps in its 1000 frames, most of them the slow "
        "station's (1.9 ms each at MCS 0); mac80211's queues hold a ping, a sparse flow of its "
        "station's tin, to about one round of the stations' A-MPDUs and the driver's two. "
        "The paper's own figures are not in what we could read.",
    )


def fairness_claim(table: pd.DataFrame, traffic: str) -> Claim | None:
    points = _points(table, traffic)
    if points is None:
        return None
    airtime = points["fq_codel_airtime"]
    index = float(airtime["airtime_jain"])
    result = verdict(index >= 0.99, index >= 0.95)
    name = {"udp": "downstream UDP", "tcp": "TCP"}[traffic]
    others = "; ".join(f"{q}: {_shares(points[q])}, Jain {points[q]['airtime_jain']:.3f}"
                       for q in QUEUEINGS[:2])  # fmt: skip
    return Claim(
        f"Nearly perfect airtime fairness for ... {name} traffic ({SOURCES['abstract']})",
        f"airtime shares slow / fast / fast (both directions): fq_codel_airtime "
        f"{_shares(airtime)}, Jain {index:.3f}; {others}",
        result,
        "agrees if Jain's index of the three stations' airtime (data PPDUs both ways) is at "
        "least 0.99 with fq_codel_airtime; partly if at least 0.95; differs otherwise",
        ""
        if result == "agrees"
        else "The scheduler charges every data PPDU to its station, but a station's uplink "
        "(its TCP ACKs) is not the AP's to schedule: it can only be paid back by the "
        "station's downlink turns.",
    )


def throughput_claim(table: pd.DataFrame) -> Claim | None:
    rows = {t: _points(table, t) for t in ("tcp", "udp")}
    if any(r is None for r in rows.values()):
        return None
    pairs = [(*_pair(r["fq_codel_airtime"], "total_mbps"), *_pair(r["fifo"], "total_mbps"))
             for r in rows.values()]  # fmt: skip
    result = ranked(pairs, 1 + PATCH_GAIN, 1.1)
    return Claim(
        f"Large improvements in multi-station throughput ({SOURCES['abstract']})",
        "; ".join(
            f"{t.upper()}: total "
            + ", ".join(f"{q} {interval(*_pair(r[q], 'total_mbps'), digits=1)}" for q in QUEUEINGS)
            + f" Mbit/s ({r['fq_codel_airtime']['total_mbps'] / r['fifo']['total_mbps']:.1f}"
            " times the FIFO's with fq_codel_airtime)"
            for t, r in rows.items()
        ),
        result,
        "agrees if with TCP and with UDP fq_codel_airtime's total throughput is at least "
        f"{1 + PATCH_GAIN:.3f} times the FIFO's (the commit's own gain, 52.07/41.58), their "
        "95 % intervals apart; partly if at least 1.1 times; not significant if they overlap; "
        "differs otherwise",
        ""
        if result == "agrees"
        else "The FIFO gives the slow station about as many frames as each fast one, and "
        "mac80211's queues do not; how large the gain is depends on how much airtime the "
        "slow station took before.",
    )


def anomaly_claim(table: pd.DataFrame, traffic: str) -> Claim | None:
    fifo = _point(table, traffic, "fifo")
    if fifo is None:
        return None
    ratios = [fifo[f"sta{i}_mbps"] / fifo["sta1_mbps"] for i in (2, 3)]
    result = verdict(max(ratios) <= 1.25, max(ratios) <= 2.0)
    return Claim(
        "If devices operate at different rates, the MAC protocol will ensure throughput "
        "fairness between them, meaning that all stations will effectively transmit at the "
        f"lowest rate ({SOURCES['intro']}), {traffic.upper()}",
        f"FIFO: slow / fast / fast {_mbps(fifo)} Mbit/s (the fast ones "
        f"{min(ratios):.2f} to {max(ratios):.2f} times the slow one's); the slow station "
        f"takes {fifo['sta1_airtime']:.2f} of the data airtime",
        result,
        "agrees if each fast station's throughput under the FIFO is at most 1.25 times the "
        "slow one's; partly if at most 2 times; differs otherwise",
        ""
        if result == "agrees"
        else "An A-MPDU takes its receiver's frames from anywhere in the FIFO, 32 for a fast "
        "station and 2 for the slow one, so a fast station's segments leave sooner (its "
        "pings' RTT is lower too), and TCP's windows, not equal arrivals as with the UDP "
        "floods, set each station's share of the frames: the slow station still takes most "
        "of the airtime, but not as many frames as each fast one.",
    )


def _gain_verdict(before: pd.Series, after: pd.Series) -> tuple[str, float]:
    """The commit's before/after rule on one traffic: the verdict and the total's gain."""
    gain = after["total_mbps"] / before["total_mbps"] - 1
    directions = (all(after[f"sta{i}_mbps"] > before[f"sta{i}_mbps"] for i in (2, 3))
                  and after["sta1_mbps"] < before["sta1_mbps"])  # fmt: skip
    apart = order(*_pair(after, "total_mbps"), *_pair(before, "total_mbps"))
    if apart == 0:
        return "not significant", gain
    close = abs(gain - PATCH_GAIN) <= 0.10
    return verdict(apart == 1 and directions and close, apart == 1 and directions), gain


def _changes(before: pd.Series, after: pd.Series) -> str:
    def change(value: str) -> str:
        return f"{after[value] / before[value] - 1:+.0%}"

    return (f"total {change('total_mbps')}, fast {change('sta2_mbps')} and "
            f"{change('sta3_mbps')}, slow {change('sta1_mbps')}")  # fmt: skip


PATCH_CHANGES = (f"total +{PATCH_GAIN:.1%}, fast "
                 f"+{PATCH_AFTER['fast 1'] / PATCH_BEFORE['fast 1'] - 1:.1%} and "
                 f"+{PATCH_AFTER['fast 2'] / PATCH_BEFORE['fast 2'] - 1:.1%}, slow "
                 f"{PATCH_AFTER['slow'] / PATCH_BEFORE['slow'] - 1:.1%}")  # fmt: skip
GAIN_RULE = (
    "for TCP and for UDP apart, the better verdict counting (the commit does not name its "
    "traffic): agrees if the total's gain from {before} to fq_codel_airtime is within 10 "
    f"points of the commit's +{PATCH_GAIN:.1%} with the totals' 95 % intervals apart, each fast "
    "station gains and the slow one loses; partly if only the directions hold; not "
    "significant if the totals' intervals overlap; differs otherwise"
)


def patch_gain_claim(table: pd.DataFrame, before_queueing: str, mcs: int) -> Claim | None:
    rows = {t: _points(table, t, mcs) for t in ("tcp", "udp")}
    if any(r is None for r in rows.values()):
        return None
    verdicts, texts = [], []
    for traffic, points in rows.items():
        before, after = points[before_queueing], points["fq_codel_airtime"]
        result, _ = _gain_verdict(before, after)
        verdicts.append(result)
        texts.append(f"{traffic.upper()}: {_changes(before, after)} ({result})")
    result = _best(verdicts)
    reading = {"fq_codel": "mac80211's queues, stations in turn (the commit's parent tree)",
               "fifo": "a FIFO (another reading)"}[before_queueing]  # fmt: skip
    streams = ("" if mcs == FAST_MCS
               else f" [sensitivity: fast stations at MCS {mcs}, three streams]")  # fmt: skip
    why = ""
    if result != "agrees":
        why = {
            ("fq_codel", FAST_MCS): "Stations in turn already give the slow station little "
            "more than a third of the airtime here: within ath9k's limits an A-MPDU to a fast "
            "station at MCS 15 (32 subframes, 3.1 ms) lasts almost as long as one to the slow "
            "station (2 subframes, 3.8 ms), so the airtime scheduler has little to take back. "
            "With three-stream fast stations (MCS 23, 2.1-ms A-MPDUs) it has more: the "
            "sensitivity row.",
            ("fifo", FAST_MCS): "Under the FIFO the slow station takes most of the airtime, so "
            "the airtime scheduler gains far more than the commit's quarter: whatever the "
            "commit's 'before' ran, it did not give the slow station this much airtime.",
        }.get((before_queueing, mcs), "See docs/reproductions/atc-anomaly.md.")
    return Claim(
        f"Before / after the airtime scheduler: {PATCH_BEFORE['total']} / "
        f"{PATCH_AFTER['total']} Mbit/s in total ({PATCH_CHANGES}) ({SOURCES['patch']}); "
        f"before read as {reading}{streams}",
        "; ".join(texts),
        result,
        GAIN_RULE.format(before=before_queueing),
        why,
    )


def patch_numbers_claim(table: pd.DataFrame) -> Claim | None:
    rows = {t: _points(table, t) for t in ("tcp", "udp")}
    if any(r is None for r in rows.values()):
        return None
    paper = {"before": PATCH_BEFORE, "after": PATCH_AFTER}
    queueing = {"before": "fq_codel", "after": "fq_codel_airtime"}

    def close(point: pd.Series, numbers: dict[str, float]) -> bool:
        pairs = ((1, numbers["slow"]), (2, numbers["fast 1"]), (3, numbers["fast 2"]))
        return all(abs(point[f"sta{i}_mbps"] - p) <= 0.25 * p for i, p in pairs)

    def ratio(point: pd.Series) -> float:
        return (point["sta2_mbps"] + point["sta3_mbps"]) / 2 / point["sta1_mbps"]

    def paper_ratio(numbers: dict[str, float]) -> float:
        return (numbers["fast 1"] + numbers["fast 2"]) / 2 / numbers["slow"]

    verdicts, texts = [], []
    for traffic, points in rows.items():
        strict = all(close(points[queueing[k]], paper[k]) for k in paper)
        weak = all(abs(math.log(ratio(points[queueing[k]]) / paper_ratio(paper[k])))
                   <= math.log(1.5) for k in paper)  # fmt: skip
        verdicts.append(verdict(strict, weak))
        texts.append(
            f"{traffic.upper()}: before (fq_codel) {_mbps(points['fq_codel'])}, total "
            f"{points['fq_codel']['total_mbps']:.2f}, fast/slow "
            f"{ratio(points['fq_codel']):.1f}; after {_mbps(points['fq_codel_airtime'])}, "
            f"total {points['fq_codel_airtime']['total_mbps']:.2f}, fast/slow "
            f"{ratio(points['fq_codel_airtime']):.1f}"
        )
    result = _best(verdicts)
    return Claim(
        f"Slow / fast / fast before: {PATCH_BEFORE['slow']} / {PATCH_BEFORE['fast 1']} / "
        f"{PATCH_BEFORE['fast 2']} Mbit/s (fast/slow {paper_ratio(PATCH_BEFORE):.1f}); after: "
        f"{PATCH_AFTER['slow']} / {PATCH_AFTER['fast 1']} / {PATCH_AFTER['fast 2']} "
        f"(fast/slow {paper_ratio(PATCH_AFTER):.1f}) ({SOURCES['patch']})",
        "; ".join(texts),
        result,
        "for TCP and for UDP apart, the better verdict counting: agrees if every station's "
        "throughput is within 25 % of the commit's, before (fq_codel) and after "
        "(fq_codel_airtime); partly if the fast-to-slow throughput ratio is within a factor "
        "1.5 of the commit's, before and after; differs otherwise",
        ""
        if result == "agrees"
        else "The model's fast stations deliver more than the testbed's (no channel errors, "
        "no rate control sampling other rates, each MCS fixed), and before the scheduler its "
        "slow station gets less: 2.58 Mbit/s is about half of what MCS 0 carries with all "
        "the airtime (about 5 Mbit/s of TCP in the model), so the commit's slow station had "
        "about half the airtime before the scheduler; ours has "
        + " (TCP) and ".join(f"{r['fq_codel']['sta1_airtime']:.2f}" for r in rows.values())
        + " (UDP) with stations in turn.",
    )


def claims(table: pd.DataFrame) -> list[Claim]:
    made = [
        calibration_claim(table),
        latency_claim(table),
        fairness_claim(table, "udp"),
        fairness_claim(table, "tcp"),
        throughput_claim(table),
        anomaly_claim(table, "udp"),
        anomaly_claim(table, "tcp"),
        patch_gain_claim(table, "fq_codel", FAST_MCS),
        patch_gain_claim(table, "fq_codel", THREE_STREAMS),
        patch_gain_claim(table, "fifo", FAST_MCS),
        patch_numbers_claim(table),
    ]
    return [c for c in made if c is not None]


# What the paper (or its commit) claims that the model cannot run, and why.
NOT_RUN = [
    (f"30 stations, one 'artificially limited to 1 Mbps': aggregate {PATCH_30_STATIONS[0]} to "
     f"{PATCH_30_STATIONS[1]} Mbit/s ({SOURCES['patch']})",
     "1 Mbit/s is a DSSS rate of 2.4 GHz (or a limit on the traffic: the commit does not say); "
     "an 802.11n station of the model has only MCSs, the slowest 6.5 Mbit/s"),
    ("Further experiments with application traffic (" + SOURCES["abstract"] + ")",
     "the paper's applications (VoIP, web) and their metrics are not in what we could read"),
    ("The paper's figures (throughput, airtime and latency distributions, its analytical "
     "model's table)", "not in what we could read"),
]  # fmt: skip


# ---- settings and report ------------------------------------------------------------------

WHY = {
    "stations": "ath9k commit 63fefa050477: three stations, HT20, 'two stations operate at "
    "the highest HT20 rate, and one station at the lowest', the scheduler at the AP; the "
    "stations and AP PCs with AR9580 adapters (3x3 MIMO; the author's blog, 2017-11)",
    "wlan.station_mcs.sta1": "0: 'the lowest' HT20 rate, one stream, 6.5 Mbit/s (long GI); "
    "its frames, BlockAcks and A-MPDU limits at MCS 0",
    "fast stations": "MCS 15, 130 Mbit/s: 'the highest HT20 rate' at two streams (assumed: "
    "the stream count is not stated; the AR9580 has three, so the sweeps mcs23-tcp and "
    "mcs23-udp repeat everything at MCS 23, 195 Mbit/s)",
    "queueing": "fifo: one DropTail queue of 1000 frames (Linux's default txqueuelen), the "
    "baseline before mac80211's queues; fq_codel: mac80211's FQ-CoDel per station, stations "
    "in turn (ath9k's round robin of its TIDs, what the commit's 'before' ran); "
    "fq_codel_airtime: the same with the airtime scheduler (the commit's 'after')",
    "driver_queue": "ath9k: the paper's testbed ran ath9k, whose hardware queue holds two "
    "A-MPDUs (no firmware queue, no AQL)",
    "link": "ours: the server 1 Gbit/s and 1 ms from the AP, queue 10000 (never the "
    "bottleneck); the paper's wired setup is not in what we could read",
    "tcp": "the linux profile with CUBIC, Linux's default (the paper's draft: stock Ubuntu "
    "16.04 stations; make-wifi-fast list, July 2016)",
    "udp": f"ours (sweeps udp, mcs23-udp): {', '.join(UDP_RATES)} to sta1, sta2, sta3, "
    f"{PAYLOAD}-byte datagrams (each above the channel's capacity; a little apart, because "
    "CBR floods at one rate keep one phase to the channel's departures and a full FIFO then "
    "gives every freed place to the same flow); the paper's UDP rates are not known",
    "pings": "ours: server to sta1 (slow) and sta2 (fast), each every 100 ms from 1 s (the "
    "second 50 ms later); medians of those sent in the measurement window",
    "duration": "ours: 30 s measured from 5 s, 10 replications, common seeds (quick: 20 s "
    "from 5 s, 3 replications)",
}


# Why each WLAN setting of the runs has its value; the rest are the standard's for 802.11n
# at 5 GHz (IEEE 802.11-2020 clause 19 and 10.3) as airtcp applies them.
WLAN_WHY = {
    "phy": "HT (802.11n): ath9k commit 63fefa050477 ('HT20')",
    "channel_width_mhz": "HT20: ath9k commit 63fefa050477",
    "mcs": "the per-stream MCS of the WLAN's (fast stations') MCS 15 (MCS 7 on two "
    "streams): see 'fast stations'",
    "spatial_streams": "two: see 'fast stations'",
    "rate_bps": "MCS 15 at 20 MHz, long GI",
    "guard_interval_ns": "long GI: not stated (ath9k offers the short one at HT20 on the "
    "AR9580; with it every rate is 11 % higher)",
    "band": "not stated; airtcp's default, 5 GHz",
    "ampdu.ba_window": "32: ath9k sends at most 32 subframes an A-MPDU "
    "(ATH_AMPDU_SUBFRAME_DEFAULT, half its 64-MPDU window); a 32-MPDU window limits the same "
    "while no MPDU is lost on its own (here only whole A-MPDUs collide)",
    "ampdu.max_ppdu_ns": "4 ms: ath9k's longest A-MPDU (ath_lookup_rate; the standard's "
    "aPPDUMaxTime is 5.484 ms); with long GI it keeps the slow station's A-MPDUs at 2 "
    "subframes either way",
    "ampdu.max_ampdu_bytes": "65535: ath9k's ATH_AMPDU_LIMIT_MAX, 802.11n's largest",
    "queue_packets": "the FIFO: Linux's default txqueuelen (1000 packets); with mac80211's "
    "queues the MAC's own queue is the driver's (two A-MPDUs), their limit 8192 packets",
    "queueing": "see 'queueing'",
    "rts_threshold": "off: not stated; ath9k sends A-MPDUs without RTS by default",
    "edca.stations.be": "EDCA on (802.11n's default), every packet unmarked, so all in best "
    "effort: the standard's AC_BE (Table 9-155)",
    "edca.ap.be": "the AP's AC_BE (dot11QAPEDCATable, hostapd's defaults)",
}
STANDARD = "the standard's value for 802.11n at 5 GHz (airtcp's default)"


def _flat(prefix: str, value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict) and set(value) != {"secs", "nanos"}:
        return [item for k, v in value.items() for item in _flat(f"{prefix}.{k}", v)]
    return [(prefix, value)]


def effective_settings(settings: dict[str, Any] | None = None) -> pd.DataFrame:
    """The settings every run uses (defaults applied) and why; bad ``settings`` raise a
    ScenarioError here, before any run."""
    from ..api import prepare

    rows = [{"setting": key, "value": "(see why)", "why": why} for key, why in WHY.items()]
    for name, setup in SETUPS.items():
        overrides = {**setup_sets(setup), **(settings or {})}
        resolved = prepare(SCENARIO, overrides=overrides)
        if name:
            continue
        effective = json.loads(_core.effective_settings(json.dumps(resolved)))
        for key, value in effective["wlans"][0].items():
            if key in ("stations", "ap", "agent"):
                continue
            for flat, leaf in _flat(key, value):
                if flat.startswith("edca.") and flat.rsplit(".", 2)[-2] != "be":
                    continue  # every packet is best effort: the other ACs stay idle
                why_key = flat.rsplit(".", 1)[0] if flat.startswith("edca.") else flat
                rows.append({"setting": f"wlan.{flat}", "value": shown(flat, leaf),
                             "why": WLAN_WHY.get(why_key, STANDARD)})  # fmt: skip
        for key, value in effective["flows"][0]["tcp"].items():
            rows.append({"setting": f"tcp.{key}", "value": shown(key, value),
                         "why": WHY["tcp"]})  # fmt: skip
    return pd.DataFrame(rows)


def _bars(axes, groups: list[str], series: dict[str, list[float]]) -> None:
    width = 0.8 / max(len(series), 1)
    for i, (label, values) in enumerate(series.items()):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        axes.bar(xs, values, width, label=label)
    axes.set_xticks(range(len(groups)), groups)


def _figure_shares(table: pd.DataFrame, traffic: str) -> str | None:
    points = _points(table, traffic)
    if points is None:
        return None
    figure, axes = plt.subplots(figsize=(6.5, 4))
    names = {1: "sta1 (slow, MCS 0)", 2: "sta2 (fast)", 3: "sta3 (fast)"}
    series = {names[i]: [points[q][f"sta{i}_airtime"] for q in QUEUEINGS] for i in (1, 2, 3)}
    _bars(axes, list(QUEUEINGS), series)
    axes.axhline(1 / 3, color="grey", linestyle=":", label="a third")
    return finished(figure, axes, "queueing at the AP", "share of the data airtime",
                    f"Airtime shares, {traffic.upper()} (fast stations at MCS 15)")  # fmt: skip


def _figure_throughput(table: pd.DataFrame) -> str | None:
    points = _points(table, "tcp")
    if points is None:
        return None
    figure, axes = plt.subplots(figsize=(7.5, 4))
    keys = ("slow", "fast 1", "fast 2")
    series = {"commit, before": [PATCH_BEFORE[k] for k in keys],
              "commit, after": [PATCH_AFTER[k] for k in keys]}  # fmt: skip
    for q in QUEUEINGS:
        series[f"ours, {q}"] = [points[q][f"sta{i}_mbps"] for i in (1, 2, 3)]
    _bars(axes, ["slow (sta1)", "fast (sta2)", "fast (sta3)"], series)
    return finished(figure, axes, "", "throughput (Mbit/s)",
                    "Throughput per station, TCP: commit 63fefa050477 and ours")  # fmt: skip


def _figure_latency(table: pd.DataFrame) -> str | None:
    points = _points(table, "tcp")
    if points is None:
        return None
    figure, axes = plt.subplots(figsize=(6.5, 4))
    series = {f"ping to the {kind} station": [points[q][f"ping_{kind}_ms"] for q in QUEUEINGS]
              for kind in PINGS}  # fmt: skip
    _bars(axes, list(QUEUEINGS), series)
    axes.set_yscale("log")
    axes.set_ylim(bottom=1)  # bars from 1 ms: a log axis has no zero
    return finished(figure, axes, "queueing at the AP", "median ping RTT (ms)",
                    "Latency under load: three TCP downloads")  # fmt: skip


def _figure_streams(table: pd.DataFrame) -> str | None:
    groups = [(t, m) for t in ("tcp", "udp") for m in (FAST_MCS, THREE_STREAMS)]
    rows = {g: _points(table, *g) for g in groups}
    if any(r is None for r in rows.values()):
        return None
    figure, axes = plt.subplots(figsize=(7, 4))
    series = {q: [rows[g][q]["total_mbps"] for g in groups] for q in QUEUEINGS}
    _bars(axes, [f"{t.upper()}, MCS {m}" for t, m in groups], series)
    for label, value, style in (("commit, before", PATCH_BEFORE["total"], "--"),
                                ("commit, after", PATCH_AFTER["total"], ":")):  # fmt: skip
        axes.axhline(value, color="black", linestyle=style, label=label)
    return finished(figure, axes, "traffic, fast stations' MCS", "total throughput (Mbit/s)",
                    "Total throughput by the fast stations' streams (sensitivity)")  # fmt: skip


SHOWN = ["traffic", "fast_mcs", "queueing", "runs", "sta1_mbps", "sta2_mbps", "sta3_mbps",
         "total_mbps", "total_mbps_ci95", "sta1_airtime", "sta2_airtime", "sta3_airtime",
         "airtime_jain", "ping_slow_ms", "ping_fast_ms", "airtime_per_byte_ratio",
         "codel_drops"]  # fmt: skip


def _not_run_html() -> str:
    items = "".join(f"<li>{claim}: {why}</li>" for claim, why in NOT_RUN)
    return f"<ul>{items}</ul>"


def write_report(
    out: Path, plan_name: str, settings: dict[str, Any] | None = None
) -> tuple[Path, pd.DataFrame]:
    table = analyse(out)
    claims_frame = claims_table(claims(table))
    used = effective_settings(settings)
    frame = ResultStore(out).frame()
    runs = frame[["run_id", QUEUEING, "replication", "seed", "status"]]
    shown_table = table[SHOWN] if not table.empty else table
    intro = (
        "Høiland-Jørgensen, Kazior, Täht, Hurtig, Brunstrom, <i>Ending the Anomaly: Achieving "
        "Low Latency and Airtime Fairness in WiFi</i>, USENIX ATC 2017. An 802.11n AP (HT20, "
        "A-MPDUs within ath9k's 32 subframes and 4 ms) sends TCP or UDP to two fast stations "
        "(MCS 15) and a slow one (MCS 0), all in one collision domain, and pings two of them; "
        "the queueing at the AP is a FIFO or Linux mac80211's queues (stations in turn, or by "
        "airtime). The sweeps at MCS 23 are a sensitivity to the fast stations' stream count. "
        "What we could read of the paper and every setting's source: "
        "docs/reproductions/atc-anomaly.md."
    )
    figures = [
        ("airtime, UDP", _figure_shares(table, "udp")),
        ("airtime, TCP", _figure_shares(table, "tcp")),
        ("throughput per station", _figure_throughput(table)),
        ("latency", _figure_latency(table)),
        ("stream count", _figure_streams(table)),
    ]
    figures = [(title, png) for title, png in figures if png]
    sections = [
        ("The paper's claims and ours", section_html(claims_frame)),
        ("Claims the model cannot run", _not_run_html()),
        ("Settings of every run", _table_html(used)),
        ("Every point: throughput (Mbit/s), airtime shares, latency (ms)",
         _table_html(shown_table)),
    ]  # fmt: skip
    heading = f"Ending the Anomaly (USENIX ATC 2017): mac80211's queues ({plan_name} run)"
    tables = {"claims.csv": claims_frame, "points.csv": table, "settings.csv": used}
    target = write_report_page(out, NAME, heading, intro, sections, figures, runs, tables)
    return target, claims_frame
