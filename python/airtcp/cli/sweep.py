"""``airtcp sweep`` (an experiment's parameter sweep, resumable; ``--dry-run`` lists its points)
and ``airtcp report``; and what the commands that run sweeps share: the workers' options,
``--set`` pairs, and how a stopped sweep says it can resume."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ..output import OutputError
from ..scenario.overrides import parse_pair
from .console import err, fail, out, plain
from .options import (
    DaskOption,
    JobsOption,
    OutOption,
    QuietOption,
)


def parse_settings(sets: list[str]) -> dict[str, object]:
    try:
        return dict(parse_pair(text) for text in sets)
    except ValueError as error:
        raise fail(f"--set {error}") from None


def check_workers(jobs: int | None, dask: str | None, threads: bool = False) -> None:
    if jobs is not None and jobs < 1:
        raise fail(f"--jobs: must be at least 1, got {jobs}")
    if dask is not None and (jobs is not None or threads):
        raise fail("--dask: the cluster decides the workers; drop --jobs/--threads")


def stopped(signum: int, what: str, out_dir: Path) -> typer.Exit:
    name = "terminated" if signum == signal.SIGTERM else "interrupted"
    err.print(f"{name}: {what} in {out_dir}; run the same command again to resume")
    return typer.Exit(128 + signum)


def runs_text(experiment: Any) -> str:
    """``4 points x 3 replications = 12 runs of wired-tcp``."""
    points = len({task.point for task in experiment.tasks})
    replications = experiment.settings.replications
    return (
        f"{points} points x {replications} replications = {len(experiment.tasks)} runs of "
        f"{experiment.scenario_path.stem}"
    )


def sweep(
    experiment_file: Annotated[
        str,
        typer.Argument(help="An experiment TOML file, or a built-in's name (airtcp scenarios)."),
    ],
    out_dir: OutOption = None,
    jobs: JobsOption = None,
    dask: DaskOption = None,
    threads: Annotated[
        bool, typer.Option("--threads", help="Local threads instead of processes.")
    ] = False,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Run failed runs again.")
    ] = False,
    quiet: QuietOption = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="List the points and runs, and run nothing."),
    ] = False,
) -> None:
    """Run an experiment's parameter sweep with replications; re-run to resume."""
    from ..experiments.spec import load as load_experiment
    from ..experiments.sweeper import SweepError, check_scheduler, run_experiment
    from ..scenario.schema import ScenarioError
    from .progress import sweep_progress

    if dry_run:
        try:
            experiment = load_experiment(experiment_file)
        except ScenarioError as error:
            raise fail(plain(str(error))) from None
        _print_points(experiment, out_dir or Path("results") / experiment.settings.name)
        return

    check_workers(jobs, dask, threads)
    try:
        if dask:
            check_scheduler(dask)
        experiment = load_experiment(experiment_file)
        out_dir = out_dir or Path("results") / experiment.settings.name
        progress, started, finished = sweep_progress(err, experiment.settings.name, quiet)
        with progress:
            outcome = run_experiment(
                experiment, out_dir, jobs, dask, threads, retry_failed, started, finished
            )
    except (ScenarioError, OutputError) as error:
        raise fail(plain(str(error))) from None
    except SweepError as error:
        raise fail(plain(str(error)), 2 if dask else 1) from None
    done = outcome.skipped + outcome.completed
    summary = (
        f"{done} of {outcome.total} runs done ({outcome.completed} now, {outcome.failed} failed), "
        f"results in {out_dir}"
    )
    if outcome.interrupted:
        raise stopped(outcome.interrupted, summary, out_dir)
    out.print(summary, highlight=False)
    if outcome.failed_total:
        raise fail(
            f"{outcome.failed_total} of {outcome.total} runs failed (their errors are in "
            f"{out_dir / 'results.parquet'} and the report); --retry-failed runs them again",
            1,
        )


def _print_points(experiment: Any, out_dir: Path) -> None:
    """A sweep's points in the experiment's own order, each with its settings and seeds."""
    table = Table(title=f"{experiment.settings.name}: {runs_text(experiment)}",
                  title_justify="left")  # fmt: skip
    params = list(dict.fromkeys(key for task in experiment.tasks for key in task.params))
    for column in ("point", *params, "seeds"):
        table.add_column(column, overflow="fold")
    by_point: dict[int, list[Any]] = {}
    for task in experiment.tasks:
        by_point.setdefault(task.point, []).append(task)
    for point, tasks in by_point.items():
        values = [plain(str(tasks[0].params.get(key, ""))) for key in params]
        seeds = " ".join(str(task.seed) for task in tasks)
        table.add_row(str(point), *values, seeds)
    out.print(table)
    out.print(f"would write to {out_dir} (nothing run)", highlight=False)


def report(
    results_dir: Annotated[Path, typer.Argument(help="A sweep's results directory.")],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", metavar="FILE", help="HTML file (default DIR/report.html)."),
    ] = None,
) -> None:
    """Aggregate a sweep (mean, 95 % CI), draw figures, write report.html and CSVs."""
    from ..experiments.report import write_report

    if not results_dir.is_dir():
        raise fail(f"{results_dir}: no such results directory")
    try:
        target = write_report(results_dir, output)
    except (ValueError, OutputError) as error:
        raise fail(plain(str(error))) from None
    out.print(f"report: {target}")
