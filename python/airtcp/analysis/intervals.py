"""Per-interval reports of a run's TCP flows, as iperf3 prints them with ``-i``: for each
flow and each interval, the bytes delivered, the bit rate, and at the interval's end the
sender's congestion window and smoothed RTT (``airtcp run --interval``).

They come from the run's time series (``simulation.sample_interval`` apart, each sample the
goodput since the previous one), so an interval is a whole number of samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class Interval:
    flow: str
    start_s: float
    end_s: float
    bytes: float
    bitrate_bps: float
    cwnd_bytes: int
    srtt_ms: float


def intervals(series: pd.DataFrame, interval_s: float, sample_s: float) -> list[Interval]:
    """The series' samples gathered into intervals of ``interval_s`` (a whole number of
    samples of ``sample_s``): a sample at time t covers (t - sample_s, t]."""
    steps = round(interval_s / sample_s)
    if steps < 1 or abs(steps * sample_s - interval_s) > 1e-9 * interval_s:
        raise ValueError(
            f"{interval_s:g} s is not a whole number of the {sample_s:g} s samples "
            "(simulation.sample_interval)"
        )
    rows = []
    for flow, samples in series.groupby("flow", observed=True, sort=False):
        index = ((samples["time_s"] / sample_s).round().astype(int) - 1) // steps
        for k, group in samples.groupby(index, sort=True):
            delivered = float((group["goodput_bps"] * sample_s / 8).sum())
            last = group.iloc[-1]
            rows.append(
                Interval(
                    str(flow),
                    k * interval_s,
                    (k + 1) * interval_s,
                    delivered,
                    delivered * 8 / interval_s,
                    int(last["cwnd_bytes"]),
                    float(last["srtt_ms"]),
                )
            )
    return rows
