"""airtcp: simulate, emulate and measure TCP over wireless and asymmetric links."""

from ._core import __version__
from .api import RunResult, prepare, run
from .results import load_results
from .scenario import Scenario, ScenarioError, load


def sweep(experiment, out=None, jobs=None, dask=None, threads=False):
    """Runs (or resumes) an experiment file's sweep; returns one row per run (pandas)."""
    from pathlib import Path

    from .experiment import load as load_experiment
    from .sweeper import run_experiment

    loaded = load_experiment(experiment)
    out = Path(out) if out else Path("results") / loaded.settings.name
    run_experiment(loaded, out, jobs, dask, threads)
    return load_results(out)


def report(results_dir, output=None):
    """Writes the HTML report (and CSVs) of a sweep; returns its path."""
    from .reporting import write_report

    return write_report(results_dir, output)


__all__ = [
    "RunResult",
    "Scenario",
    "ScenarioError",
    "__version__",
    "load",
    "load_results",
    "prepare",
    "report",
    "run",
    "sweep",
]
