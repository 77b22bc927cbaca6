"""airtcp: simulate, emulate and measure TCP over wireless and asymmetric links.

Names are imported on first use (PEP 562), so that ``import airtcp`` and the command line
do not pay for pydantic, pandas and pyarrow until something needs them.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ._core import __commit__, __version__
from .version import build_info, version_text

_LAZY = {
    "RunResult": ".api",
    "prepare": ".api",
    "run": ".api",
    "load_results": ".experiments.store",
    "Scenario": ".scenario.schema",
    "ScenarioError": ".scenario.schema",
    "load": ".scenario.schema",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'airtcp' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def sweep(experiment, out=None, jobs=None, dask=None, threads=False):
    """Runs (or resumes) an experiment file's sweep (a path or a built-in name); returns one
    row per run (pandas)."""
    from pathlib import Path

    from .experiments.spec import load as load_experiment
    from .experiments.store import load_results
    from .experiments.sweeper import run_experiment

    loaded = load_experiment(experiment)
    out = Path(out) if out else Path("results") / loaded.settings.name
    run_experiment(loaded, out, jobs, dask, threads)
    return load_results(out)


def report(results_dir, output=None):
    """Writes the HTML report (and CSVs) of a sweep; returns its path."""
    from .experiments.report import write_report

    return write_report(results_dir, output)


__all__ = [
    "RunResult",
    "Scenario",
    "ScenarioError",
    "__commit__",
    "__version__",
    "build_info",
    "load",
    "load_results",
    "prepare",
    "report",
    "run",
    "sweep",
    "version_text",
]
