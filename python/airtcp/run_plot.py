"""One run at a glance (``airtcp plot RUN_DIR``, or ``airtcp run --out DIR --plot``): from a
run's summary.json and timeseries.parquet, each TCP flow's congestion window, smoothed RTT
and goodput over time, in panels that share the time axis, the flows' names in a legend
beside them, and below them the queues that held or sent packets, the wired links' (and
with ``simulation.queue_sojourn`` the WLANs' MACs', queues.parquet) and with it their
packets' mean sojourn per interval and, with
``simulation.one_way_delay``, each timed flow's mean one-way delay per interval
(delays.parquet); PNG or SVG.

The goodput is the series' own (bytes delivered in each sample interval); the cwnd and RTT
are the sender's at each sample. Flows without a TCP sender of their own (UDP, ping,
workloads) are not in the series.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FORMATS = ("png", "svg")


class PlotError(Exception):
    """A run directory that cannot be plotted: why, in one line."""


def plot_run(run_dir: Path, out: Path | None = None, fmt: str = "png") -> Path:
    """Draws the run in ``run_dir`` into ``out`` (default ``run_dir/run.FMT``); returns it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from .output import replacing

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
    sojourns = queues is not None and "sojourn_mean_ms" in queues.columns
    rows = 3 + (queues is not None) + sojourns + (delays is not None)
    figure, axes = plt.subplots(rows, 1, sharex=True, figsize=(9, 2.5 * rows), layout="constrained")
    panels = (
        ("cwnd_bytes", 1e-3, "cwnd (kB)"),
        ("srtt_ms", 1.0, "smoothed RTT (ms)"),
        ("goodput_bps", 1e-6, "goodput (Mbit/s)"),
    )
    for flow, samples in series.groupby("flow", observed=True, sort=False):
        for axis, (column, scale, _) in zip(axes[:3], panels, strict=True):
            axis.plot(samples["time_s"], samples[column] * scale, label=str(flow), lw=1)
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
    for axis, label in zip(axes, labels, strict=True):
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
        axis.set_ylim(bottom=0)
    axes[-1].set_xlabel("time (s)")
    figure.suptitle(f"{summary.get('scenario', run_dir.name)} (seed {summary.get('seed', '?')})")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside right upper", title="flow")
    target = out or run_dir / f"run.{fmt}"
    with replacing(target) as temporary:
        figure.savefig(temporary, format=fmt, dpi=120)
    plt.close(figure)
    return target


def _keyed_lines(axis: Any, table: Any, key: str, column: str, title: str) -> None:
    """One line of ``column`` over time per value of ``key``, and their legend beside."""
    for name, samples in table.groupby(key, observed=True, sort=False):
        axis.plot(samples["time_s"], samples[column], label=str(name), lw=1)
    axis.legend(title=title, loc="upper left", bbox_to_anchor=(1.01, 1))


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
