"""``airtcp run`` (one simulation: its summary, results, traces) and ``airtcp plot`` (one run
at a glance)."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..interrupts import Terminated
from ..output import OutputError, output_dir
from .console import err, fail, out, plain
from .options import (
    JsonOption,
    PcapOption,
    ScenarioArgument,
    SeedOption,
    SetOption,
    SnaplenOption,
)
from .summary import print_intervals, print_summary


def run(
    scenario: ScenarioArgument,
    seed: SeedOption = None,
    set_: SetOption = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="DIR", help="Write summary.json and timeseries.parquet here."
        ),
    ] = None,
    pcap: PcapOption = False,
    pcap_80211: Annotated[
        bool,
        typer.Option(
            "--pcap-80211",
            help="Write each WLAN's channel as a radiotap 802.11 capture "
            "(into --out, or ./pcap-80211).",
        ),
    ] = False,
    snaplen: SnaplenOption = None,
    plot_png: Annotated[
        bool,
        typer.Option("--plot", help="Also draw cwnd, RTT and goodput (into --out: run.png)."),
    ] = False,
    interval: Annotated[
        float | None,
        typer.Option(
            "--interval",
            "-i",
            metavar="SECONDS",
            help="Also print each TCP flow's bytes, bit rate, cwnd and RTT per interval, as "
            "iperf3 -i (a whole number of simulation.sample_interval).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Run one simulation and print its summary."""
    if seed is not None and not 0 <= seed < 2**63:
        raise fail(f"--seed: must be in [0, 2^63), got {seed}")
    if snaplen is not None and not 0 <= snaplen <= 65_535:
        raise fail(f"--snaplen: expected 0..65535 bytes, got {snaplen}")
    if snaplen is not None and not (pcap or pcap_80211):
        raise fail("--snaplen: applies to --pcap and --pcap-80211 traces; add one of them")
    if plot_png and out_dir is None:
        raise fail("--plot: needs --out DIR (the plot goes beside the run's files)")
    if interval is not None and not interval > 0:
        raise fail(f"--interval: expected a positive number of seconds, got {interval:g}")
    from ..api import prepare, run_resolved
    from ..scenario.schema import ScenarioError
    from .progress import RunProgress

    progress = RunProgress(err)
    try:
        resolved = prepare(scenario, seed, set_ or [])
        if pcap_80211 and not resolved.get("wlans"):
            raise fail("--pcap-80211: the scenario has no WLAN to capture")
        if out_dir is not None:
            output_dir(out_dir)
        base = out_dir or Path(".")
        pcap_dir = output_dir(base / "pcap", "--pcap") if pcap else None
        wlan_pcap_dir = output_dir(base / "pcap-80211", "--pcap-80211") if pcap_80211 else None
        older = _traces(pcap_dir) | _traces(wlan_pcap_dir)
        result = run_resolved(
            resolved,
            pcap_dir,
            wlan_pcap_dir=wlan_pcap_dir,
            timeseries=out_dir is not None or interval is not None,
            snaplen=None if snaplen is None else snaplen or 65_535,
            progress=progress,
        )
    except (ScenarioError, OutputError) as error:
        raise fail(plain(str(error))) from None
    except KeyboardInterrupt as stop:
        signum = signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT
        err.print("interrupted: nothing was written")
        raise typer.Exit(128 + signum) from None
    finally:
        progress.close()
    if out_dir is not None:
        result.write(out_dir)
    if as_json:
        sys.stdout.write(json.dumps(result.summary) + "\n")
    else:
        if interval is not None:
            print_intervals(result, interval)
        print_summary(result.summary)
        if out_dir is not None:
            out.print(f"results in {out_dir}")
        if plot_png and out_dir is not None:
            from ..analysis.plot import PlotError, plot_run

            try:
                out.print(f"plot in {plot_run(out_dir)}", highlight=False)
            except PlotError as error:
                raise fail(plain(str(error))) from None
        for traces in (pcap_dir, wlan_pcap_dir):
            if traces is not None:
                out.print(f"traces in {traces}")
    _warn_of_older_traces(older)


def _traces(directory: Path | None) -> set[tuple[Path, int]]:
    """The pcap files in a trace directory, with their modification times."""
    if directory is None:
        return set()
    return {(path, path.stat().st_mtime_ns) for path in sorted(directory.glob("*.pcap"))}


def _warn_of_older_traces(older: set[tuple[Path, int]]) -> None:
    """Traces an earlier run left in the directory that this run did not write again (other
    nodes, another WLAN): named, so that they are not read as this run's."""
    stale = sorted(path for path, mtime in older if path.stat().st_mtime_ns == mtime)
    if stale:
        names = ", ".join(path.name for path in stale[:5]) + (", ..." if len(stale) > 5 else "")
        err.print(
            f"warning: {stale[0].parent} holds {len(stale)} trace(s) of an earlier run that "
            f"this one did not write ({names}); remove them or use another --out",
            highlight=False,
        )


def plot(
    run_dir: Annotated[
        Path, typer.Argument(help="A run's directory (airtcp run --out DIR).", metavar="RUN_DIR")
    ],
    out_file: Annotated[
        Path | None,
        typer.Option("--out", metavar="FILE", help="Where to write (default RUN_DIR/run.png)."),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", metavar="png|svg", help="png or svg.")] = "png",
) -> None:
    """Draw one run's cwnd, RTT and goodput per TCP flow over time."""
    from ..analysis.plot import PlotError, plot_run

    try:
        target = plot_run(run_dir, out_file, fmt)
    except (PlotError, OutputError) as error:
        raise fail(plain(str(error))) from None
    out.print(f"plot in {target}", highlight=False)
