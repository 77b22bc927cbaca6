"""One run at a glance (``airtcp plot RUN_DIR``, or ``airtcp run --out DIR --plot``): from a
run's summary.json and timeseries.parquet, each TCP flow's congestion window, smoothed RTT
and goodput over time, in panels that share the time axis, the flows' names in a legend
beside the first, and below them, where the run has them: the queues that held or sent packets,
the wired links' (and with ``simulation.queue_sojourn`` the WLANs' MACs', queues.parquet)
and with it their packets' mean sojourn per interval; with ``simulation.one_way_delay``,
each timed flow's mean one-way delay per interval (delays.parquet); and for WLANs with
geometry each MAC's data rate and share of failed attempts per interval (macs.parquet: a
rate control's choices, a far station's losses). PNG or SVG.

A panel of more than ``LISTED`` lines (a WLAN of many stations) draws the ``LISTED - 1``
with the highest mean each, and the rest as their median with their range as a band, so that
a 1000-station run stays readable.

The goodput is the series' own (bytes delivered in each sample interval); the cwnd and RTT
are the sender's at each sample. Flows without a TCP sender of their own (UDP, ping,
workloads) are not in the series.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FORMATS = ("png", "svg")
# Lines a panel draws one by one; beyond, the rest as a median and range.
LISTED = 8
# Intervals over which a MAC's share of failed attempts is taken.
FAILURE_SAMPLES = 10


class PlotError(Exception):
    """A run directory that cannot be plotted: why, in one line."""


def plot_run(run_dir: Path, out: Path | None = None, fmt: str = "png") -> Path:
    """Draws the run in ``run_dir`` into ``out`` (default ``run_dir/run.FMT``); returns it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from ..output import replacing

    if fmt not in FORMATS:
        raise PlotError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    summary_path, series_path = run_dir / "summary.json", run_dir / "timeseries.parquet"
    for path in (summary_path, series_path):
        if not path.is_file():
            raise PlotError(f"{run_dir}: no {path.name} (write a run with airtcp run --out DIR)")
    try:
        summary = json.loads(summary_path.read_text())
        series = pd.read_parquet(series_path)
    except (OSError, ValueError) as error:
        raise PlotError(f"{run_dir}: cannot read the run: {error}") from None
    if series.empty:
        raise PlotError(f"{run_dir}: the run has no TCP flow to plot")
    queues = _busy_queues(run_dir / "queues.parquet", pd)
    delays_path = run_dir / "delays.parquet"
    delays = pd.read_parquet(delays_path) if delays_path.is_file() else None
    macs = _active_macs(run_dir / "macs.parquet", pd)
    sojourns = queues is not None and "sojourn_mean_ms" in queues.columns
    rows = 3 + (queues is not None) + sojourns + (delays is not None) + 2 * (macs is not None)
    figure, axes = plt.subplots(rows, 1, sharex=True, figsize=(9, 2.5 * rows), layout="constrained")
    panels = (
        ("cwnd_bytes", 1e-3, "cwnd (kB)"),
        ("srtt_ms", 1.0, "smoothed RTT (ms)"),
        ("goodput_bps", 1e-6, "goodput (Mbit/s)"),
    )
    # The same flows drawn one by one in the three panels: those of the highest goodput.
    series = series.assign(**{column: series[column] * scale for column, scale, _ in panels})
    order = _highest(series, "flow", "goodput_bps")
    for axis, (column, _, _) in zip(axes[:3], panels, strict=True):
        _keyed_lines(axis, series, "flow", column, None, order)
    labels = [label for _, _, label in panels]
    below = iter(axes[3:])
    if queues is not None:
        _keyed_lines(next(below), queues, "direction", "packets", "queue")
        labels.append("queue (packets)")
    if sojourns:
        _keyed_lines(next(below), queues, "direction", "sojourn_mean_ms", "queue sojourn")
        labels.append("mean sojourn (ms)")
    if delays is not None:
        _keyed_lines(next(below), delays, "flow", "mean_ms", "one-way delay")
        labels.append("one-way delay (ms)")
    if macs is not None:
        _keyed_lines(next(below), macs, "mac", "rate_mbps", "MAC data rate")
        labels.append("data rate (Mbit/s)")
        _keyed_lines(next(below), macs, "mac", "failed_percent", "MAC failed attempts")
        labels.append(f"failed attempts (%,\n{FAILURE_SAMPLES} intervals)")
    for axis, label in zip(axes, labels, strict=True):
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
        axis.set_ylim(bottom=0)
    axes[-1].set_xlabel("time (s)")
    figure.suptitle(f"{summary.get('scenario', run_dir.name)} (seed {summary.get('seed', '?')})")
    # Beside the first panel, as every panel's: the flows' names hold for all three.
    axes[0].legend(title="TCP flow", loc="upper left", bbox_to_anchor=(1.01, 1))
    target = out or run_dir / f"run.{fmt}"
    with replacing(target) as temporary:
        figure.savefig(temporary, format=fmt, dpi=120)
    plt.close(figure)
    return target


def _highest(table: Any, key: str, column: str) -> list[Any]:
    """The values of ``key`` in the table's order, or beyond ``LISTED`` of them the
    ``LISTED - 1`` with the highest mean ``column``."""
    means = table.groupby(key, observed=True, sort=False)[column].mean()
    if len(means) <= LISTED:
        return list(means.index)
    return list(means.sort_values(ascending=False, kind="stable").index[: LISTED - 1])


def _keyed_lines(
    axis: Any, table: Any, key: str, column: str, title: str | None, shown: list[Any] | None = None
) -> None:
    """One line of ``column`` over time per value of ``key`` in ``shown`` (default: the
    highest, `_highest`), the rest as their median and range; their legend beside, unless
    ``title`` is None (the figure's legend then names them)."""
    groups = dict(list(table.groupby(key, observed=True, sort=False)))
    shown = _highest(table, key, column) if shown is None else shown
    if len(shown) < len(groups):
        rest = table[~table[key].isin(shown)].groupby("time_s")[column]
        spread = rest.agg(["median", "min", "max"])
        label = f"the other {len(groups) - len(shown)}: median, range"
        (line,) = axis.plot(spread.index, spread["median"], label=label, lw=1, color="0.3")
        axis.fill_between(spread.index, spread["min"], spread["max"], color=line.get_color(),
                          alpha=0.2, lw=0)  # fmt: skip
    for name in shown:
        samples = groups[name]
        axis.plot(samples["time_s"], samples[column], label=str(name), lw=1)
    if title is not None:
        axis.legend(title=title, loc="upper left", bbox_to_anchor=(1.01, 1))


def _active_macs(path: Path, pd: Any) -> Any:
    """The MAC series of WLANs with geometry, the intervals in which a MAC sent, with its
    mean data rate in Mbit/s and its share of failed attempts; or None. A MAC is named by
    its node, and its WLAN's AP where the node has several."""
    if not path.is_file():
        return None
    macs = pd.read_parquet(path)
    if not (macs["attempts"] > 0).any():
        return None
    several = macs.groupby("node", observed=True)["wlan"].transform("nunique") > 1
    names = macs["node"].astype(str)
    macs["mac"] = names.where(~several, names + " (" + macs["wlan"].astype(str) + ")")
    macs["rate_mbps"] = macs["rate_bps"] / 1e6
    # Over the last FAILURE_SAMPLES intervals: an attempt that fails is counted when its
    # ACK (or Block Ack) times out, at times in the interval after it started (so a share
    # of one interval alone could pass 100 %).
    by_mac = macs.groupby("mac", sort=False)
    failed = by_mac["failures"].transform(lambda s: s.rolling(FAILURE_SAMPLES, 1).sum())
    tried = by_mac["attempts"].transform(lambda s: s.rolling(FAILURE_SAMPLES, 1).sum())
    macs["failed_percent"] = (100 * failed / tried).clip(upper=100)
    return macs[macs["attempts"] > 0]


def _busy_queues(path: Path, pd: Any) -> Any:
    """The series of the queues that ever held a packet at a sampling instant or (measured
    with ``queue_sojourn``) sent one, or None."""
    if not path.is_file():
        return None
    queues = pd.read_parquet(path)
    by_queue = queues.groupby("direction", observed=True)
    busy = by_queue["packets"].transform("max") > 0
    if "dequeued" in queues.columns:
        busy |= by_queue["dequeued"].transform("max") > 0
    return queues[busy] if busy.any() else None
