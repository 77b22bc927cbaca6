"""Analysis of a sweep: per-point aggregates with Student-t confidence intervals, matplotlib
figures, CSV, and one self-contained HTML report (figures embedded as PNG, tables, the
experiment file, versions and seeds).

The report is for reading: points in the grid's own order (as the experiment file lists its
values), metrics in their units to three significant figures and named as the runs' summary
names what they measure (the flow ``bulk``, not ``flows[0]``), each run's value drawn beside
its point's mean and interval, legends beside the data. aggregates.csv keeps the raw
numbers, for programs.
"""

from __future__ import annotations

import base64
import html
import io
import math
import platform
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import ScalarFormatter
from scipy import stats

from ..output import atomic_write
from .axes import band, metric_axis, parameter_axis, readable, significant
from .store import ResultStore, load_results
from .writing import toml_value

RESERVED = {"run_id", "point", "replication", "seed", "status", "error", "wall_time_s"}


def confidence_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Mean and half-width of the Student-t interval; NaN half-width for fewer than 2 values."""
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return math.nan, math.nan
    mean = float(values.mean())
    if len(values) < 2:
        return mean, math.nan
    sem = float(values.std(ddof=1)) / math.sqrt(len(values))
    return mean, float(stats.t.ppf(0.5 + level / 2, len(values) - 1)) * sem


def split_columns(frame: pd.DataFrame, experiment: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Parameter and metric columns of a results frame, from the experiment file's contents
    (empty when the file is missing: then every numeric column is a metric)."""
    params = [*experiment.get("grid", {}), *experiment.get("zip", {})]
    metrics = experiment.get("experiment", {}).get("metrics")
    if metrics is None:
        metrics = [
            c
            for c in frame.columns
            if c not in RESERVED and c not in params and pd.api.types.is_numeric_dtype(frame[c])
        ]
    return [p for p in params if p in frame.columns], [m for m in metrics if m in frame.columns]


def aggregate(frame: pd.DataFrame, params: list[str], metrics: list[str]) -> pd.DataFrame:
    """Per point (each combination of the parameters), the number of runs and each metric's
    mean and 95 % half-width, in the grid's own order: the order of the points' numbers,
    which follow the experiment file's values."""
    ok = frame[frame["status"] == "ok"]
    keys = params or ["point"]
    rows = []
    for key, group in ok.groupby(keys, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(keys, key, strict=True))
        row["first point"] = group["point"].min()
        row["runs"] = len(group)
        for metric in metrics:
            mean, half = confidence_interval(group[metric].to_numpy(dtype=float))
            row[f"{metric} mean"] = mean
            row[f"{metric} ci95"] = half
        rows.append(row)
    table = pd.DataFrame(rows)
    if not table.empty:
        table = table.sort_values("first point", kind="stable").drop(columns="first point")
        table = table.reset_index(drop=True)
    return table


def shown_table(
    table: pd.DataFrame, metrics: list[str], summary: dict[str, Any] | None
) -> pd.DataFrame:
    """The aggregates as the report shows them: one column a metric, named with its unit,
    each cell its mean and 95 % half-width to three significant figures."""
    shown = table.drop(columns=[c for c in table.columns if c.endswith((" mean", " ci95"))])
    for metric in metrics:
        axis = metric_axis(metric, table[f"{metric} mean"], summary)
        halves = table[f"{metric} ci95"].to_numpy(dtype=float) * axis.scale
        shown[axis.label] = [
            significant(mean) + (f" ± {significant(half, 2)}" if math.isfinite(half) else "")
            for mean, half in zip(axis.values, halves, strict=True)
        ]
    return shown


def legend_beside(axes: Any, figure: Any = None) -> None:
    """The legend beside the data, never over it: right of one panel, or with ``figure``
    given, once right of all its panels (their entries merged, each label once)."""
    style = {"fontsize": "small", "loc": "upper left", "borderaxespad": 0.0}
    if figure is None:
        axes.legend(bbox_to_anchor=(1.02, 1), **style)
        return
    entries: dict[str, Any] = {}
    for panel in figure.axes:
        for handle, label in zip(*panel.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    figure.legend(list(entries.values()), list(entries), bbox_to_anchor=(1.0, 0.92), **style)


def _png(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode()


@dataclass
class Figure:
    title: str
    png_base64: str


def setting_text(value: Any) -> str:
    """A parameter's value as the experiment file writes it (true, 2.5, [1, 5]), in full: a
    setting is not a measurement, so it is not rounded."""
    if isinstance(value, float):
        return f"{value:.12g}"
    if isinstance(value, bool | list | tuple | dict):
        return toml_value(value)
    return str(value)


def _settings_as_written(frame: pd.DataFrame, params: list[str]) -> pd.DataFrame:
    """The frame with its parameter columns as text, for tables."""
    return frame.assign(**{p: frame[p].map(setting_text) for p in params if p in frame})


def _hashable(frame: pd.DataFrame, params: list[str]) -> pd.DataFrame:
    """List and table values of parameters (``[1, 5]``, ``{shape = "circle"}``) as their
    TOML text, so that runs group by them."""

    def text(value: Any) -> Any:
        return toml_value(value) if isinstance(value, list | tuple | dict) else value

    return frame.assign(**{p: frame[p].map(text) for p in params})


def _group_label(others: list[str], key: Any) -> str:
    keys = key if isinstance(key, tuple) else (key,)
    return ", ".join(f"{k}={setting_text(v)}" for k, v in zip(others, keys, strict=True))


def _runs_of(ok: pd.DataFrame, others: list[str], key: Any) -> pd.DataFrame:
    """The runs of one line of a figure: those with its values of the other parameters."""
    keys = key if isinstance(key, tuple) else (key,)
    chosen = np.ones(len(ok), dtype=bool)
    for name, value in zip(others, keys, strict=True):
        chosen &= (ok[name] == value).to_numpy()
    return ok[chosen]


def figures(
    frame: pd.DataFrame,
    table: pd.DataFrame,
    params: list[str],
    metrics: list[str],
    out: Path,
    summary: dict[str, Any] | None = None,
) -> list[Figure]:
    """A figure per metric against the first parameter, a line (or bars) per combination of
    the others, in the grid's order: each point's mean with its 95 % interval, and each
    run's value as a dot beside it where points have replications."""
    made: list[Figure] = []
    if table.empty:
        return made
    x = params[0] if params else "point"
    others = params[1:]
    groups = list(table.groupby(others, sort=False)) if others else [((), table)]
    x_axis = parameter_axis(x, list(table[x]))
    ok = frame[frame["status"] == "ok"]
    replicated = bool((table["runs"] > 1).any())
    for metric in metrics:
        figure, axes = plt.subplots(figsize=(6.4, 3.8))
        y_axis = metric_axis(metric, table[f"{metric} mean"], summary)
        observed = ok[metric].to_numpy(dtype=float)
        if x_axis is not None:
            position = dict(zip(table[x], x_axis.values, strict=True))
            for key, group in groups:
                # Along the axis, whatever order the grid lists the values in.
                group = group.assign(_x=[position[v] for v in group[x]]).sort_values("_x")
                xs = group["_x"].to_numpy(dtype=float)
                mean = group[f"{metric} mean"].to_numpy(dtype=float)
                half = group[f"{metric} ci95"].to_numpy(dtype=float)
                lower, upper = band(metric, mean, half, observed)
                (line,) = axes.plot(
                    xs, mean * y_axis.scale, marker="o", label=_group_label(others, key)
                )
                axes.fill_between(xs, lower * y_axis.scale, upper * y_axis.scale, alpha=0.2,
                                  color=line.get_color())  # fmt: skip
                if replicated:
                    runs = _runs_of(ok, others, key)
                    axes.scatter([position[v] for v in runs[x]], runs[metric] * y_axis.scale,
                                 s=14, alpha=0.6, color=line.get_color(), linewidths=0)  # fmt: skip
            if x_axis.log_base:
                axes.set_xscale("log", base=x_axis.log_base)
                axes.xaxis.set_major_formatter(ScalarFormatter())
            axes.set_xlabel(x_axis.label)
        else:
            width = 0.8 / max(len(groups), 1)
            labels = list(dict.fromkeys(table[x].map(setting_text)))
            for i, (key, group) in enumerate(groups):
                index = [labels.index(setting_text(v)) for v in group[x]]
                mean = group[f"{metric} mean"].to_numpy(dtype=float)
                lower, upper = band(metric, mean, group[f"{metric} ci95"], observed)
                bars = axes.bar(
                    np.array(index) + i * width,
                    mean * y_axis.scale,
                    width,
                    yerr=np.vstack([mean - lower, upper - mean]) * y_axis.scale,
                    capsize=3,
                    label=_group_label(others, key) or None,
                )
                if replicated:
                    runs = _runs_of(ok, others, key)
                    spots = [labels.index(setting_text(v)) + i * width for v in runs[x]]
                    axes.scatter(spots, runs[metric] * y_axis.scale, s=9, alpha=0.6,
                                 color="0.2", linewidths=0, zorder=3)  # fmt: skip
                del bars
            axes.set_xticks(np.arange(len(labels)) + width * (len(groups) - 1) / 2, labels)
            axes.set_xlabel(x)
        axes.ticklabel_format(axis="y", useOffset=False, style="plain")
        axes.set_ylabel(y_axis.label)
        dots = ", dots: runs" if replicated else ""
        axes.set_title(f"{y_axis.label}: mean, 95 % CI{dots}", fontsize="medium")
        axes.grid(alpha=0.3)
        if any(axes.get_legend_handles_labels()[1]):
            legend_beside(axes)
        made.append(Figure(f"{y_axis.label} against {x_axis.label if x_axis else x}",
                           _png(figure)))  # fmt: skip
    if metrics:
        figure, axes = plt.subplots(figsize=(6.4, 3.8))
        values = metric_axis(metrics[0], ok[metrics[0]].dropna(), summary)
        axes.hist(values.values, bins=min(30, max(5, len(ok) // 3)))
        axes.ticklabel_format(axis="x", useOffset=False, style="plain")
        axes.set_xlabel(values.label)
        axes.set_ylabel("runs")
        axes.set_title(f"distribution of {values.label} over all runs", fontsize="medium")
        made.append(Figure(f"histogram of {values.label}", _png(figure)))
    series_dir = out / "timeseries"
    if series_dir.exists():
        figure, axes = plt.subplots(figsize=(6.4, 3.8))
        first = frame[(frame["replication"] == 0) & (frame["status"] == "ok")].head(6)
        for _, row in first.iterrows():
            path = series_dir / f"{row['run_id']}.parquet"
            if path.exists():
                series = pd.read_parquet(path)
                flow = series[series["flow"] == series["flow"].iloc[0]]
                label = ", ".join(f"{p}={row[p]}" for p in params) or f"point {row['point']}"
                axes.plot(flow["time_s"], flow["cwnd_bytes"] / 1024, label=label)
        axes.set_xlabel("time (s)")
        axes.set_ylabel("cwnd (KiB), first flow")
        axes.set_title("congestion window, first replication")
        legend_beside(axes)
        made.append(Figure("cwnd time series", _png(figure)))
    return made


def first_summary(results: Path) -> dict[str, Any] | None:
    """A finished run's summary, for the names of the flows, links and WLANs that metric
    paths index (every run of a sweep has the same)."""
    for record in ResultStore(results, reading=True).each_record():
        if isinstance(record.get("summary"), dict):
            return record["summary"]
    return None


def _versions() -> dict[str, str]:
    from .._core import __commit__, __version__

    return {
        "airtcp": __version__,
        "airtcp commit": __commit__ or "none (not built from a checkout)",
        "python": platform.python_version(),
        "platform": platform.platform(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "matplotlib": matplotlib.__version__,
    }


def _number(value: float) -> str:
    """A table's number to three significant figures, without trailing zeros (2.5, not 2.50:
    the tables hold settings as well as measurements)."""
    text = significant(value)
    return text.rstrip("0").rstrip(".") if "." in text else text


def _table_html(frame: pd.DataFrame) -> str:
    """A table in a box that scrolls sideways when it is wider than the page; numbers to
    three significant figures."""
    table = frame.to_html(index=False, na_rep="", float_format=_number, border=0, classes="data")
    return f'<div class="scroll">{table}</div>'


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }}
table.data {{ border-collapse: collapse; font-size: 0.85em; }}
table.data td, table.data th {{
  padding: 0.2em 0.6em; border-bottom: 1px solid #ddd; text-align: right;
}}
pre {{ background: #f6f6f6; padding: 1em; overflow-x: auto; }}
div.scroll {{ overflow-x: auto; max-width: 100%; }}
figure {{ display: inline-block; margin: 0.5em; }}
</style></head>
<body data-figures="{figure_count}">
<h1>{title}</h1>
<p>{summary}</p>
<h2>Figures</h2>
{figures}
<h2>Aggregates (per point: mean ± 95 % Student-t half-width)</h2>
{aggregates}
{failures}
<h2>Experiment</h2>
<pre>{experiment}</pre>
<h2>Versions</h2>
{versions}
<h2>Runs and seeds</h2>
{runs}
<script>
// Marks the page once every figure has decoded, so a headless check can tell.
window.addEventListener("load", () => {{
  const images = Array.from(document.images);
  const decoded = images.filter((img) => img.complete && img.naturalWidth > 0).length;
  document.body.dataset.figuresLoaded = String(decoded);
}});
</script>
</body></html>
"""


def write_report(results: str | Path, output: str | Path | None = None) -> Path:
    """Writes report.html, aggregates.csv and results.csv into the results directory."""
    results = Path(results)
    frame = load_results(results)
    if frame.empty:
        raise ValueError(f"{results}: no runs to report (run `airtcp sweep` first)")
    experiment_path = results / "experiment.toml"
    experiment_text = experiment_path.read_text() if experiment_path.exists() else ""
    experiment = tomllib.loads(experiment_text)
    params, metrics = split_columns(frame, experiment)
    frame = _hashable(frame, params)
    table = aggregate(frame, params, metrics)
    atomic_write(results / "aggregates.csv", table.to_csv(index=False).encode())
    atomic_write(results / "results.csv", frame.to_csv(index=False).encode())
    summary = first_summary(results)
    made = figures(frame, table, params, metrics, results, summary)
    failed = frame[frame["status"] != "ok"]
    failures = ""
    if not failed.empty:
        failures = "<h2>Failed runs</h2>" + _table_html(
            failed[["run_id", "point", "replication", "status", "error"]]
        )
    name = experiment.get("experiment", {}).get("name", "experiment")
    run_columns = [c for c in ("run_id", "point", "replication", "seed", *params, "status")
                   if c in frame]  # fmt: skip
    # A metric's path, and what it names where the summary has a name for it.
    named = [m if readable(m, summary) == m else f"{m} ({readable(m, summary)})" for m in metrics]
    page = PAGE.format(
        title=html.escape(f"airtcp report: {name}"),
        summary=html.escape(
            f"{len(frame)} runs, {len(frame) - len(failed)} ok, {len(failed)} failed; "
            f"parameters: {', '.join(params) or 'none'}; metrics: {', '.join(named)}"
        ),
        figure_count=len(made),
        figures="\n".join(
            f'<figure><img alt="{html.escape(f.title)}" src="data:image/png;base64,{f.png_base64}">'
            f"<figcaption>{html.escape(f.title)}</figcaption></figure>"
            for f in made
        ),
        aggregates=_table_html(_settings_as_written(shown_table(table, metrics, summary), params)),
        failures=failures,
        experiment=html.escape(experiment_text),
        versions=_table_html(pd.DataFrame([_versions()])),
        runs=_table_html(_settings_as_written(frame[run_columns], params)),
    )
    target = Path(output) if output else results / "report.html"
    atomic_write(target, page.encode())
    return target
