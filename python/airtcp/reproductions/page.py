"""What every reproduction's report shares: the generated experiment file's extra settings,
settings shown with their units, figures as inline PNGs, and the HTML page around the
sections (its body counts the figures, and a script counts those that decode, so a test
can tell a broken image from a missing one)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..output import atomic_write
from ..reporting import _png, _table_html, _versions

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 76em; color: #222; }
table.data { border-collapse: collapse; font-size: 0.85em; }
table.data td, table.data th {
  padding: 0.3em 0.6em; border-bottom: 1px solid #ddd; text-align: left;
}
figure { display: inline-block; margin: 0.5em; } pre { background: #f6f6f6; padding: 1em; }
div.scroll { overflow-x: auto; max-width: 100%; }
"""

SCRIPT = """
window.addEventListener("load", () => {
  const decoded = Array.from(document.images)
    .filter((i) => i.complete && i.naturalWidth > 0).length;
  document.body.dataset.figuresLoaded = String(decoded);
});
"""


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value))


def set_lines(settings: dict[str, Any] | None) -> str:
    """``--set`` settings of `airtcp reproduce` as lines of an experiment's ``[set]`` table."""
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in (settings or {}).items())


def shown(key: str, value: Any) -> str:
    """A setting's value with its unit, read from its key's suffix (``_ns``, ``_bps``)."""
    if value is None:
        return "off"
    if isinstance(value, dict) and set(value) == {"secs", "nanos"}:
        return f"{value['secs'] + value['nanos'] / 1e9:g} s"
    if key.endswith("_ns"):
        return f"{value / 1e6:g} ms" if value >= 1_000_000 else f"{value / 1e3:g} µs"
    if key.endswith("_bps"):
        return f"{value / 1e6:g} Mbit/s"
    return str(value)


def finished(figure, axes, xlabel: str, ylabel: str, title: str) -> str:
    """A one-panel figure labelled, gridded and with its legend, as a base64 PNG."""
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small")
    return _png(figure)


def figure_html(title: str, png: str) -> str:
    alt = html.escape(title)
    image = f'<img alt="{alt}" src="data:image/png;base64,{png}">'
    return f"<figure>{image}<figcaption>{alt}</figcaption></figure>"


def write_report(
    out: Path,
    name: str,
    heading: str,
    intro: str,
    sections: list[tuple[str, str]],
    figures: list[tuple[str, str]],
    runs: pd.DataFrame,
    tables: dict[str, pd.DataFrame],
) -> Path:
    """Writes ``tables`` as CSV files (by file name) and ``report.html`` into ``out``, each
    atomically; returns the report's path. ``sections`` are (heading, HTML) in order, the
    figures (title, PNG) in a section of their own after the first two; then come the
    experiment file, the versions, and ``runs`` (each run's parameters, seed and status)."""
    for file_name, table in tables.items():
        atomic_write(out / file_name, table.to_csv(index=False).encode())
    experiment_text = (out / "experiment.toml").read_text()
    sections = [
        *sections,
        ("Experiment", f"<pre>{html.escape(experiment_text)}</pre>"),
        ("Versions", _table_html(pd.DataFrame([_versions()]))),
        ("Runs and seeds", _table_html(runs)),
    ]
    parts = [f"<h2>{html.escape(title)}</h2>\n{body}" for title, body in sections]
    gallery = "".join(figure_html(title, png) for title, png in figures)
    parts.insert(min(2, len(parts)), f"<h2>Figures</h2>\n{gallery}")
    joined = "\n".join(parts)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>airtcp: {html.escape(name)}</title>
<style>{STYLE}</style></head><body data-figures="{len(figures)}">
<h1>{html.escape(heading)}</h1>
<p>{intro}</p>
{joined}
<script>{SCRIPT}</script>
</body></html>
"""
    target = out / "report.html"
    atomic_write(target, page.encode())
    return target
