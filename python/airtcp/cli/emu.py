"""``airtcp emu``: the command line of emulation (``airtcp.emulation``)."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..interrupts import Terminated
from ..output import OutputError, atomic_write, output_dir
from .console import err, fail, out, plain
from .options import JsonOption, PcapOption, SeedOption, SetOption, SnaplenOption
from .summary import print_summary


def emu(
    scenario: Annotated[
        str | None,
        typer.Argument(
            help="A scenario TOML file or a built-in's name; 'cleanup' removes what killed "
            "runs left."
        ),
    ] = None,
    seed: SeedOption = None,
    set_: SetOption = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", metavar="DIR", help="Write summary.json here.")
    ] = None,
    pcap: PcapOption = False,
    snaplen: SnaplenOption = None,
    as_json: JsonOption = False,
    check: Annotated[
        bool, typer.Option("--check", help="Say what emulation needs that is missing, and stop.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="With cleanup: also remove live runs' namespaces.")
    ] = False,
    no_realtime: Annotated[
        bool,
        typer.Option(
            "--no-realtime",
            help="Run the engine in the normal scheduling class, not SCHED_FIFO "
            "(later under load; docs/emulation.md).",
        ),
    ] = False,
    poll: Annotated[
        bool,
        typer.Option(
            "--poll",
            help="Let the engine poll instead of sleeping: the lowest latency on a quiet "
            "machine, for a whole core (docs/emulation.md).",
        ),
    ] = False,
) -> None:
    """Run a scenario over real Linux TCP: hosts in network namespaces, the network emulated
    in real time by the simulator's own code, iperf3 and ping as the traffic (needs root)."""
    from ..emulation import runner

    if check:
        problems = runner.check()
        for problem in problems:
            err.print(f"missing: {problem}", highlight=False)
        if problems:
            raise typer.Exit(1)
        out.print("emulation can run here")
        return
    if scenario == "cleanup":
        removed = runner.cleanup(force)
        out.print(f"removed {len(removed)} namespace(s)" + "".join(f"\n  {n}" for n in removed))
        return
    if scenario is None:
        raise fail("a scenario is needed (or --check, or cleanup)")
    if seed is not None and not 0 <= seed < 2**63:
        raise fail(f"--seed: must be in [0, 2^63), got {seed}")
    if snaplen is not None and not 0 <= snaplen <= 65_535:
        raise fail(f"--snaplen: expected 0..65535 bytes, got {snaplen}")
    from ..api import prepare
    from ..scenario.schema import ScenarioError

    try:
        resolved = prepare(scenario, seed, set_ or [])
        if out_dir is not None:
            output_dir(out_dir)
        pcap_dir = output_dir((out_dir or Path(".")) / "pcap", "--pcap") if pcap else None
    except (ScenarioError, OutputError) as error:
        raise fail(plain(str(error))) from None
    snaplen = None if snaplen is None else snaplen or 65_535
    summary = emulated(resolved, (scenario, set_), pcap_dir, snaplen, not no_realtime, poll)
    if out_dir is not None:
        atomic_write(out_dir / "summary.json", json.dumps(summary, indent=2).encode())
    if as_json:
        sys.stdout.write(json.dumps(summary) + "\n")
        return
    print_summary(summary)
    print_lag(summary["emulation"]["lag"])
    print_warnings(summary["emulation"]["warnings"])
    if out_dir is not None:
        out.print(f"results in {out_dir}")


def emulated(
    resolved: dict[str, Any],
    source: tuple[str, list[str] | None],
    pcap_dir: Path | None = None,
    snaplen: int | None = None,
    realtime: bool = True,
    poll: bool = False,
) -> dict[str, Any]:
    """The summary of a resolved scenario's emulation, with a progress bar; what stops it
    becomes a one-line error (2: the scenario, named as ``source``, the scenario argument and
    its ``--set`` arguments, wrote it; 1: the machine) or, on Ctrl-C, exit 130 once its
    namespaces are removed."""
    from ..api import in_user_terms
    from ..emulation import runner
    from ..scenario.schema import ScenarioError
    from .progress import RunProgress

    progress = RunProgress(err, label="emulated")
    try:
        return runner.emulate(resolved, pcap_dir, snaplen, progress, realtime=realtime, poll=poll)
    except ScenarioError as error:
        raise fail(plain(str(in_user_terms(error, *source)))) from None
    except OSError as error:
        raise fail(plain(str(error)), code=1) from None
    except KeyboardInterrupt as stop:
        signum = signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT
        err.print("interrupted: the emulation was stopped and its namespaces removed")
        raise typer.Exit(128 + signum) from None
    finally:
        progress.close()


def print_lag(lag: dict[str, Any]) -> None:

    out.print(
        f"emulator lag (packet due to written) p50 {lag['p50_us']:g} us, p99 "
        f"{lag['p99_us']:g} us, max {lag['max_us']:.0f} us over {lag['packets']} packets"
    )


def print_warnings(warnings: list[str]) -> None:

    for warning in warnings:
        err.print(f"warning: {warning}", markup=False, highlight=False)
