"""``airtcp reproduce`` (a paper's experiment with one command, its claims beside ours) and
``airtcp demo`` (the headline job: paper 000's quick reproduction)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ..output import OutputError
from .console import err, fail, out, plain
from .options import (
    DaskOption,
    JobsOption,
    OutOption,
    QuietOption,
)
from .sweep import check_workers, parse_settings, stopped


def reproduce(
    name: Annotated[
        str,
        typer.Argument(
            help="Which experiment: ryu-ack-priority, park-local-ack, park-local-ack-wlan, "
            "ahn-dar, mun-mbt, han-mesh (the papers'); ryu-ack-priority-ac (paper 000 on "
            "802.11ac), atc-anomaly (mac80211's queues against Ending the Anomaly, ATC 2017)."
        ),
    ],
    quick: Annotated[
        bool, typer.Option("--quick", help="Fewer points, replications and seconds.")
    ] = False,
    out_dir: OutOption = None,
    jobs: JobsOption = None,
    dask: DaskOption = None,
    quiet: QuietOption = False,
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY=VALUE",
            help="Change the scenario at every point, e.g. wlan.msdu_lifetime=512TU; the "
            "default output directory then names the settings.",
        ),
    ] = None,
    kernel: Annotated[
        bool,
        typer.Option(
            "--kernel",
            help="park-local-ack and park-local-ack-wlan: also run the paper's 1-s handoffs "
            "over Linux's own TCP through the emulator (root; airtcp emu --check) and judge "
            "claims on it.",
        ),
    ] = False,
) -> None:
    """Reproduce a paper's experiment with one command; re-run to resume."""
    from ..experiments.sweeper import SweepError, check_scheduler
    from ..reproductions import REPRODUCTIONS
    from ..reproductions.runner import reproduce as run_reproduction
    from ..scenario.schema import ScenarioError
    from .progress import sweep_progress

    module = REPRODUCTIONS.get(name)
    if module is None:
        raise fail(f"unknown reproduction {name!r}; expected one of {', '.join(REPRODUCTIONS)}")
    check_workers(jobs, dask)
    if kernel:
        if not hasattr(module, "KERNEL_AGENTS"):
            raise fail(f"--kernel: {name} does not run on the kernel (park-local-ack does)")
        from ..emulation.runner import require

        try:
            require()
        except OSError as error:
            raise fail(f"--kernel: {error}") from None
    settings = parse_settings(sets or [])
    suffix = "".join(f"-{k}={v}" for k, v in settings.items()).replace("/", "_")
    out_dir = out_dir or Path("results") / (name + ("-quick" if quick else "") + suffix)
    progress, started, finished = sweep_progress(err, name, quiet)
    try:
        module.effective_settings(settings)  # bad settings fail here, before any progress
        if dask:
            check_scheduler(dask)
        with progress:
            outcome, report, claims = run_reproduction(
                module, out_dir, quick, jobs, dask, started, finished, settings, kernel
            )
    except (ScenarioError, OutputError) as error:
        raise fail(plain(str(error))) from None
    except SweepError as error:
        raise fail(plain(str(error)), 2 if dask else 1) from None
    if report is None:
        raise stopped(outcome.interrupted, "results so far", out_dir)
    table = Table(title=f"{name}: the paper's claims and ours", show_lines=True)
    for column in ("paper claims", "airtcp finds", "verdict", "rule"):
        table.add_column(column, overflow="fold")
    styles = {"agrees": "green", "partly": "yellow", "differs": "red", "calibrated": "cyan",
              "beyond the paper": "blue", "not significant": "magenta"}  # fmt: skip
    for claim in claims.itertuples(index=False):
        style = styles.get(claim.verdict, "white")
        texts = (plain(claim.claim), plain(claim.ours), plain(claim.rule))
        table.add_row(texts[0], texts[1], f"[{style}]{claim.verdict}[/]", texts[2])
    out.print(table)
    # The meaning of each verdict the table uses (the module holding them is imported by
    # the reproductions already).
    from ..reproductions.claims import MEANINGS

    for name in dict.fromkeys(claims["verdict"]):
        out.print(f"[{styles.get(name, 'white')}]{name}[/]: {MEANINGS[name]}", soft_wrap=True)
    out.print(
        f"{outcome.skipped + outcome.completed} runs ({outcome.failed_total} failed); "
        f"report: {report}"
    )
    if outcome.failed_total:
        raise fail(f"{outcome.failed_total} runs failed; the report leaves them out", 1)


def demo(
    out_dir: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="Where to write results.")
    ] = Path("results/demo"),
    jobs: JobsOption = None,
) -> None:
    """The headline job: the quick reproduction of paper 000 (TCP-ACK priority at the AP)."""
    reproduce("ryu-ack-priority", True, out_dir, jobs, None, False)
