"""The ``airtcp`` command line."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from . import _core
from .api import prepare, run_resolved
from .scenario import ScenarioError, json_schema

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Simulate, emulate and measure TCP over wireless and asymmetric links.",
)
out = Console()
err = Console(stderr=True)

SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set", help="Override a scenario key, e.g. --set wlan.stations=40 (repeatable)."
    ),
]


OutOption = Annotated[
    Path | None, typer.Option("--out", help="Results directory (default results/NAME).")
]
JobsOption = Annotated[
    int | None, typer.Option("--jobs", "-j", help="Local workers (default: all cores).")
]
DaskOption = Annotated[
    str | None, typer.Option(help="Run on a dask.distributed scheduler, e.g. tcp://host:8786.")
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


def fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def _mbps(bps: float) -> str:
    return f"{bps / 1e6:.3f}"


def print_summary(summary: dict) -> None:
    table = Table(title=f"{summary['scenario']} (seed {summary['seed']})", title_justify="left")
    for column in (
        "flow",
        "src → dst",
        "goodput Mbit/s",
        "delivered B",
        "retx",
        "fast retx",
        "RTOs",
    ):
        table.add_column(
            column, justify="right" if column[0].islower() and column != "flow" else "left"
        )
    for flow in summary["flows"]:
        table.add_row(
            flow["name"],
            f"{flow['src']} → {flow['dst']}",
            _mbps(flow["goodput_bps"]),
            str(flow["bytes_delivered"]),
            str(flow["retransmissions"]),
            str(flow["fast_retransmits"]),
            str(flow["timeouts"]),
        )
    out.print(table)
    window = f"{summary['measure_from_s']:g}-{summary['duration_s']:g} s"
    out.print(
        f"aggregate goodput {_mbps(summary['aggregate_goodput_bps'])} Mbit/s over {window}, "
        f"Jain fairness {summary['jain_fairness']:.3f}"
    )
    for wlan in summary["wlans"]:
        out.print(
            f"WLAN {wlan['ap']}: {wlan['successes']} successes, {wlan['collisions']} collisions, "
            f"{wlan['retries']} retries, {wlan['retry_drops']} retry drops, "
            f"{wlan['queue_drops']} queue drops, collision probability "
            f"{wlan['collision_probability']:.3f}, mean contenders {wlan['mean_contenders']:.2f}"
        )
    out.print(f"{summary['events']} events in {summary['wall_time_s']:.3f} s wall time")


@app.command()
def run(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    seed: Annotated[int | None, typer.Option(help="Seed (overrides simulation.seed).")] = None,
    set_: SetOption = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Write summary.json and timeseries.parquet here.")
    ] = None,
    pcap: Annotated[
        bool, typer.Option("--pcap", help="Write a pcap per node (into --out, or ./pcap).")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Run one simulation and print its summary."""
    if seed is not None and not 0 <= seed < 2**63:
        raise fail(f"--seed: must be in [0, 2^63), got {seed}")
    try:
        resolved = prepare(scenario, seed, set_ or [])
        pcap_dir = ((out_dir or Path(".")) / "pcap") if pcap else None
        result = run_resolved(resolved, pcap_dir)
    except ScenarioError as error:
        raise fail(str(error)) from None
    except KeyboardInterrupt:
        raise fail("interrupted: nothing was written", 130) from None
    if out_dir is not None:
        result.write(out_dir)
    if as_json:
        sys.stdout.write(json.dumps(result.summary) + "\n")
    else:
        print_summary(result.summary)
        if out_dir is not None:
            out.print(f"results in {out_dir}")
        if pcap_dir is not None:
            out.print(f"traces in {pcap_dir}")


@app.command()
def validate(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    set_: SetOption = None,
) -> None:
    """Check a scenario file without running it."""
    try:
        resolved = prepare(scenario, None, set_ or [])
    except ScenarioError as error:
        raise fail(str(error)) from None
    out.print(
        f"{scenario}: ok ({len(resolved['nodes'])} nodes, {len(resolved['links'])} links, "
        f"{len(resolved['flows'])} flows)"
    )


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    sys.stdout.write(json_schema() + "\n")


def _station_range(text: str) -> tuple[int, int]:
    first, _, last = text.partition("-")
    try:
        a, b = int(first), int(last or first)
    except ValueError:
        raise fail(f"--stations: expected N or A-B, got {text!r}") from None
    if not 1 <= a <= b <= 10_000:
        raise fail(f"--stations: expected 1 <= A <= B <= 10000, got {text!r}")
    return a, b


@app.command()
def bianchi(
    phy: Annotated[
        str, typer.Option(help="802.11b, 802.11g or bianchi2000 (his FHSS set).")
    ] = "802.11b",
    payload: Annotated[int, typer.Option(help="MSDU payload in bytes.")] = 1024,
    stations: Annotated[str, typer.Option(help="N or A-B.")] = "1-50",
    rts: Annotated[
        bool, typer.Option("--rts", help="RTS/CTS access instead of basic access.")
    ] = False,
    cw_min: Annotated[int | None, typer.Option(help="CWmin (W - 1).")] = None,
    stages: Annotated[
        int | None, typer.Option(help="Backoff stages m (CWmax + 1 = 2^m (CWmin + 1)).")
    ] = None,
    retry_limit: Annotated[
        int | None, typer.Option(help="Retransmissions before a drop (default: unlimited).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Bianchi's saturation model: tau, p and throughput per number of stations."""
    first, last = _station_range(stations)
    if not 1 <= payload <= 65_000:
        raise fail(f"--payload: expected 1..65000 bytes, got {payload}")
    if cw_min is not None and (cw_min < 1 or (cw_min + 1) & cw_min):
        raise fail(f"--cw-min: expected 2^k - 1 (e.g. 31), got {cw_min}")
    if stages is not None and not 0 <= stages <= 10:
        raise fail(f"--stages: expected 0..10, got {stages}")
    try:
        result = json.loads(
            _core.bianchi_model(
                phy, payload, first, last, rts, cw_min, stages, None, None, retry_limit
            )
        )
    except ValueError as error:
        raise fail(f"--phy: {error}") from None
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
        return
    access = "RTS/CTS" if rts else "basic access"
    table = Table(
        title=f"Bianchi model: {phy}, {payload}-byte payload, {access}, "
        f"CW {result['cw_min']}..{result['cw_max']}",
        title_justify="left",
    )
    for column in ("n", "tau", "p", "S", "Mbit/s"):
        table.add_column(column, justify="right")
    for point in result["points"]:
        table.add_row(
            str(point["stations"]),
            f"{point['tau']:.5f}",
            f"{point['p']:.4f}",
            f"{point['throughput']:.4f}",
            _mbps(point["throughput_bps"]),
        )
    out.print(table)
    best = result["optimal"]
    out.print(f"optimal number of contenders: {best['stations']} (S = {best['throughput']:.4f})")


def _progress(description: str, quiet: bool):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[failed]} failed"),
        TimeRemainingColumn(),
        console=err,
        disable=quiet,
    )
    bar = progress.add_task(description, total=None, failed=0)
    failed = 0

    def started(total: int, skipped: int) -> None:
        progress.update(bar, total=total, completed=skipped)
        if skipped and not quiet:
            err.print(f"resuming: {skipped} of {total} runs already done")

    def finished(record: dict) -> None:
        nonlocal failed
        if record["row"]["status"] != "ok":
            failed += 1
        progress.update(bar, advance=1, failed=failed)

    return progress, started, finished


@app.command()
def reproduce(
    name: Annotated[str, typer.Argument(help="Which paper's experiment: ryu-ack-priority.")],
    quick: Annotated[
        bool, typer.Option("--quick", help="Fewer points, replications and seconds.")
    ] = False,
    out_dir: OutOption = None,
    jobs: JobsOption = None,
    dask: DaskOption = None,
    quiet: QuietOption = False,
) -> None:
    """Reproduce a paper's experiment with one command; re-run to resume."""
    from .reproductions import REPRODUCTIONS

    module = REPRODUCTIONS.get(name)
    if module is None:
        raise fail(f"unknown reproduction {name!r}; expected one of {', '.join(REPRODUCTIONS)}")
    if jobs is not None and jobs < 1:
        raise fail(f"--jobs: must be at least 1, got {jobs}")
    out_dir = out_dir or Path("results") / (name + ("-quick" if quick else ""))
    progress, started, finished = _progress(name, quiet)
    try:
        with progress:
            outcome, report, claims = module.reproduce(
                out_dir, quick, jobs, dask, started, finished
            )
    except FileNotFoundError as error:
        raise fail(str(error)) from None
    if report is None:
        err.print(f"interrupted: results so far in {out_dir}; run the same command again to resume")
        raise typer.Exit(130)
    table = Table(title="paper 000: claims", title_justify="left", show_lines=True)
    for column in ("paper claims", "airtcp finds", "verdict"):
        table.add_column(column, overflow="fold")
    for row in claims.itertuples(index=False):
        style = "green" if row.verdict == "agrees" else "yellow"
        table.add_row(row[0], row[1], f"[{style}]{row.verdict}[/]")
    out.print(table)
    out.print(
        f"{outcome.skipped + outcome.completed} runs ({outcome.failed} failed); report: {report}"
    )


@app.command()
def demo(
    out_dir: Annotated[Path, typer.Option("--out", help="Where to write results.")] = Path(
        "results/demo"
    ),
    jobs: JobsOption = None,
) -> None:
    """The headline job: the quick reproduction of paper 000 (TCP-ACK priority at the AP)."""
    reproduce("ryu-ack-priority", True, out_dir, jobs, None, False)


@app.command()
def sweep(
    experiment_file: Annotated[Path, typer.Argument(help="Experiment TOML file.")],
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
) -> None:
    """Run an experiment's parameter sweep with replications; re-run to resume."""
    from .experiment import load as load_experiment
    from .sweeper import run_experiment

    if jobs is not None and jobs < 1:
        raise fail(f"--jobs: must be at least 1, got {jobs}")
    if dask is not None and (jobs is not None or threads):
        raise fail("--dask: the cluster decides the workers; drop --jobs/--threads")
    try:
        experiment = load_experiment(experiment_file)
    except ScenarioError as error:
        raise fail(str(error)) from None
    out_dir = out_dir or Path("results") / experiment.settings.name
    progress, started, finished = _progress(experiment.settings.name, quiet)
    with progress:
        try:
            outcome = run_experiment(
                experiment, out_dir, jobs, dask, threads, retry_failed, started, finished
            )
        except OSError as error:
            raise fail(f"--dask {dask}: {error}" if dask else str(error), 1) from None
    done = outcome.skipped + outcome.completed
    summary = (
        f"{done} of {outcome.total} runs done ({outcome.completed} now, {outcome.failed} failed), "
        f"results in {out_dir}"
    )
    if outcome.interrupted:
        err.print(f"interrupted: {summary}; run the same command again to resume")
        raise typer.Exit(130)
    out.print(summary)


@app.command()
def report(
    results_dir: Annotated[Path, typer.Argument(help="A sweep's results directory.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="HTML file (default DIR/report.html).")
    ] = None,
) -> None:
    """Aggregate a sweep (mean, 95 % CI), draw figures, write report.html and CSVs."""
    from .reporting import write_report

    if not results_dir.is_dir():
        raise fail(f"{results_dir}: no such results directory")
    try:
        target = write_report(results_dir, output)
    except ValueError as error:
        raise fail(str(error)) from None
    out.print(f"report: {target}")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except Exception as error:  # a last resort: one line, no traceback
        if os.environ.get("AIRTCP_DEBUG"):
            raise
        err.print(f"[bold red]error:[/] {type(error).__name__}: {error}", highlight=False)
        sys.exit(1)


if __name__ == "__main__":
    main()
