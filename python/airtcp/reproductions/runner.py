"""What every reproduction does around its own sweep and report: generates its experiment
file, runs (or resumes) the runs into the output directory, which takes the file, and writes
the report unless interrupted. A reproduction module gives NAME, SCENARIO, the QUICK and FULL
plans, ``experiment_toml(plan, scenario, settings)`` and
``write_report(out, plan_name, settings)``; one with sweeps of another setup beside the main
one also gives ``more_experiments(plan, settings)``, their experiment files by the
subdirectory of the output directory each runs into: all run as one sweep, each experiment's
runs stored in its own directory."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from ..experiments.spec import from_text as experiment_from_text
from ..experiments.sweeper import SweepOutcome, run_experiments


def reproduce(
    reproduction: ModuleType,
    out: Path,
    quick: bool,
    jobs: int | None,
    dask: str | None,
    on_start=None,
    on_record=None,
    settings: dict[str, Any] | None = None,
    kernel: bool = False,
) -> tuple[SweepOutcome, Path | None, pd.DataFrame | None]:
    """The sweep's outcome, the report's path and the claims (None, None if interrupted);
    ``settings`` change the scenario at every point (``--set`` of `airtcp reproduce`);
    ``kernel`` also runs a reproduction that can (``KERNEL_AGENTS``) over the kernel."""
    plan = reproduction.QUICK if quick else reproduction.FULL
    texts = {out: reproduction.experiment_toml(plan, reproduction.SCENARIO, settings)}
    more = getattr(reproduction, "more_experiments", None)
    if more is not None:
        texts.update({out / name: text for name, text in more(plan, settings).items()})
    sweeps = [(experiment_from_text(text, where / "experiment.toml"), where)
              for where, text in texts.items()]  # fmt: skip
    outcome = run_experiments(sweeps, jobs, dask, on_start=on_start, on_record=on_record)
    if outcome.interrupted:
        return outcome, None, None
    plan_name = "quick" if quick else "full"
    extra = {"kernel": True} if kernel else {}
    target, table = reproduction.write_report(out, plan_name, settings, **extra)
    return outcome, target, table
