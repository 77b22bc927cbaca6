"""``airtcp measure`` (a path like ping, a capacity probe and iperf) and ``airtcp mbt``
(throughput against socket buffer: paper 002's Maximum Buffer Threshold)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from .. import _core
from ..output import OutputError, output_dir
from .console import err, fail, mbps, out, plain
from .options import (
    Backend,
    BackendOption,
    DaskOption,
    JobsOption,
    OutOption,
    QuietOption,
    ScenarioArgument,
    SetOption,
)
from .summary import rtt_text
from .sweep import check_workers, parse_settings, stopped


def print_measurement(result: dict) -> None:
    out.print(f"{result['scenario']}: {result['from']} → {result['to']}", highlight=False)
    if "rtt" in result:
        out.print(f"rtt: {rtt_text(result['rtt'])}", highlight=False)
    if "capacity" in result:
        c = result["capacity"]
        estimates = c["estimates_bps"]
        spread = (
            f" (trains {min(estimates) / 1e6:.2f}-{max(estimates) / 1e6:.2f})" if estimates else ""
        )
        out.print(
            f"capacity: {mbps(c['bps']) or '-'} Mbit/s{spread}, median of {c['trains']} "
            f"trains of {c['train']} x {c['ip_bytes']} B",
            highlight=False,
        )
    if "tcp" in result:
        t = result["tcp"]
        window = "default window" if t["window_bytes"] is None else f"{t['window_bytes']} B"
        out.print(
            f"tcp {t['congestion_control']}, {window}: {mbps(t['goodput_bps'])} Mbit/s over "
            f"{t['measured_s']:g} s, {t['retransmissions']} retransmissions, "
            f"{t['timeouts']} timeouts",
            highlight=False,
        )


def measure(
    scenario: ScenarioArgument,
    src: Annotated[str, typer.Option("--from", metavar="NODE", help="Where probes start.")],
    dst: Annotated[str, typer.Option("--to", metavar="NODE", help="Where they go.")],
    rtt: Annotated[bool, typer.Option("--rtt", help="Ping: round-trip times.")] = False,
    capacity: Annotated[
        bool, typer.Option("--capacity", help="Packet trains: the narrow link's capacity.")
    ] = False,
    tcp: Annotated[
        str | None,
        typer.Option(metavar="VARIANT", help="TCP bandwidth with this congestion control."),
    ] = None,
    window: Annotated[
        str | None,
        typer.Option(metavar="SIZE", help="TCP socket buffers (both ends), e.g. 16KiB."),
    ] = None,
    count: Annotated[int, typer.Option(metavar="N", help="Pings, and trains.")] = 20,
    train: Annotated[int, typer.Option(metavar="N", help="Packets a train.")] = 8,
    keep_flows: Annotated[
        bool, typer.Option("--keep-flows", help="Keep the scenario's flows as cross traffic.")
    ] = False,
    seed: Annotated[int | None, typer.Option(metavar="N", help="Seed.")] = None,
    backend: BackendOption = Backend.sim,
    set_: SetOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """Measure a path like ping, a capacity probe and iperf: with none of --rtt, --capacity,
    --tcp, all three (TCP with the scenario's controller; with --backend emu, RTT and TCP:
    packet trains are simulator-only)."""
    from ..measure.path import measure as run_measure
    from ..scenario.schema import ScenarioError
    from ..scenario.units import parse_size

    if not 1 <= count <= 10_000:
        raise fail(f"--count: expected 1..10000, got {count}")
    if not 2 <= train <= 1000:
        raise fail(f"--train: expected 2..1000 packets, got {train}")
    if count * train > 65_536:
        raise fail(f"--count x --train: at most 65536 probes, got {count * train}")
    if tcp is not None and tcp not in _core.congestion_controls():
        known = ", ".join(_core.congestion_controls())
        raise fail(f"--tcp: unknown {tcp!r}; expected one of {known}")
    try:
        window_bytes = None if window is None else parse_size(window)
    except ValueError as error:
        raise fail(f"--window: {error}") from None
    if window_bytes is not None and tcp is None and (rtt or capacity):
        raise fail("--window: applies to --tcp")
    everything = not (rtt or capacity or tcp)
    try:
        result = run_measure(
            scenario,
            src,
            dst,
            rtt=rtt or everything,
            capacity_probe=capacity or (everything and backend is Backend.sim),
            tcp=tcp or ("newreno" if everything else None),
            window=window_bytes,
            count=count,
            train=train,
            seed=seed,
            overrides=set_ or [],
            keep_flows=keep_flows,
            backend=backend.value,
        )
    except (ScenarioError, OSError) as error:
        raise fail(plain(str(error))) from None
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        print_measurement(result)


def _kib(size: int) -> str:
    return f"{size / 1024:g}KiB" if size % 1024 == 0 else f"{size}B"


def print_mbt(result: dict) -> None:
    rtts = result["rtts"]
    buffers = [cell["buffer_bytes"] for cell in rtts[0]["cells"]]
    table = Table(
        title=f"{result['scenario']}: {result['from']} → {result['to']}, goodput Mbit/s, "
        "mean (best run); * the MBT"
        + (" (emulated: the kernel's TCP)" if result.get("backend") == "emu" else ""),
        title_justify="left",
    )
    table.add_column("RTT")
    for size in buffers:
        table.add_column(_kib(size), justify="right")
    table.add_column("MBT", justify="right")
    for row in rtts:
        cells = [
            f"{c['mean_bps'] / 1e6:.1f} ({c['max_bps'] / 1e6:.1f})"
            + ("*" if c["buffer_bytes"] == row["mbt_bytes"] else "")
            for c in row["cells"]
        ]
        table.add_row(f"{row['effective_rtt_ms']:g} ms", *cells, _kib(row["mbt_bytes"]))
    out.print(table)
    rule = result["rule"]
    out.print(
        f"MBT: the smallest buffer no larger one beats by more than {rule['tolerance']:.0%} "
        f"with Welch's one-sided p < {rule['alpha']} (base RTT {result['base_rtt_ms']:.3f} ms; "
        "netem-like delay added to reach each RTT)",
        highlight=False,
    )
    if "fit" in result:
        fit = result["fit"]
        out.print(
            f"fit of the best goodput per RTT: y = {fit['a_bps'] / 1e6:.3f} "
            f"e^({-fit['b_per_ms']:+.4f} x) Mbit/s, x the RTT in ms "
            f"({', '.join(f'{r:g}' for r in fit['rtts_ms'])} ms)",
            highlight=False,
        )
    if "prediction" in result:
        p = result["prediction"]
        out.print(
            f"prediction at {p['rtt_ms']:g} ms (left out of the fit): "
            f"{p['predicted_bps'] / 1e6:.2f} Mbit/s, measured {p['measured_bps'] / 1e6:.2f}, "
            f"error {p['error']:.1%}",
            highlight=False,
        )
    if "recommendation" in result:
        r = result["recommendation"]
        out.print(
            f"recommended buffer for RTT {r['rtt_ms']:g} ms, capacity "
            f"{r['capacity_bps'] / 1e6:.1f} Mbit/s: {r['buffer_bytes']} B "
            f"(BDP {r['bdp_bytes']} B + {r['overhead_bytes']} B the sweep needed beyond its BDP)",
            highlight=False,
        )
        for line in r["sysctl"] + r["setsockopt"]:
            out.print(f"  {line}", highlight=False, markup=False)


def mbt(
    scenario: Annotated[
        str, typer.Argument(help="A scenario whose first flow is swept (default mun-mbt).")
    ] = "mun-mbt",
    rtt: Annotated[
        str, typer.Option(metavar="LIST", help="Target RTTs, e.g. 1,5,10,20,50ms.")
    ] = "1,5,10,20,50ms",
    buffers: Annotated[
        str,
        typer.Option(metavar="RANGE", help="16KiB..1MiB (doubling) or 32KiB,64KiB,96KiB."),
    ] = "16KiB..1MiB",
    runs: Annotated[int, typer.Option(metavar="N", help="Runs per cell.")] = 3,
    hold_out: Annotated[
        str | None,
        typer.Option(metavar="RTT", help="Left out of the fit and predicted (default: largest)."),
    ] = None,
    path: Annotated[
        str | None,
        typer.Option(
            metavar="RTT,CAPACITY",
            help="Recommend a buffer for this path, e.g. 30ms,20Mbps (default: the largest "
            "RTT and the scenario's measured capacity).",
        ),
    ] = None,
    delay_key: Annotated[
        str, typer.Option(metavar="KEY", help="The delay that sets the RTT.")
    ] = "links.0.a_to_b.delay",
    backend: BackendOption = Backend.sim,
    out_dir: OutOption = None,
    jobs: JobsOption = None,
    dask: DaskOption = None,
    quiet: QuietOption = False,
    set_: SetOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """Throughput against socket buffer at several RTTs (paper 002): the Maximum Buffer
    Threshold per RTT, an exponential fit with a held-out prediction, and a recommended
    buffer with the settings to apply. Re-run to resume."""
    from ..experiments.spec import from_text as experiment_from_text
    from ..experiments.store import load_results
    from ..experiments.sweeper import SweepError, check_scheduler, run_experiment
    from ..measure import mbt as analysis
    from ..measure import mbt_sweep
    from ..scenario.schema import ScenarioError
    from ..scenario.units import parse_duration, parse_rate
    from .progress import sweep_progress

    check_workers(jobs, dask)
    if not 1 <= runs <= 1000:
        raise fail(f"--runs: expected 1..1000, got {runs}")
    try:
        rtts = analysis.parse_rtts(rtt)
    except ValueError as error:
        raise fail(f"--rtt: {error}") from None
    try:
        sizes = analysis.parse_buffers(buffers)
    except ValueError as error:
        raise fail(f"--buffers: {error}") from None
    if len(sizes) > 64:
        raise fail(f"--buffers: {len(sizes)} sizes; at most 64")
    held = None
    if hold_out is not None:
        try:
            held = parse_duration(hold_out)
        except ValueError as error:
            raise fail(f"--hold-out: {error}") from None
        if held not in rtts:
            raise fail(f"--hold-out: {hold_out} is not one of --rtt")
    elif len(rtts) >= 3:
        held = max(rtts)
    recommend_for = None
    if path is not None:
        try:
            text_rtt, _, text_capacity = path.partition(",")
            recommend_for = (parse_duration(text_rtt), float(parse_rate(text_capacity)))
        except ValueError as error:
            raise fail(f"--path: expected RTT,CAPACITY like 30ms,20Mbps ({error})") from None
    settings = parse_settings(set_ or [])
    if backend is Backend.emu and dask:
        raise fail("--dask: emulated runs use this machine's kernels; run them here")
    plan = mbt_sweep.Plan(scenario, rtts, sizes, runs, held, delay_key, settings,
                          backend=backend.value)  # fmt: skip
    name = Path(scenario).stem
    out_dir = out_dir or Path("results") / f"mbt-{name}"
    progress, started, finished = sweep_progress(err, "mbt", quiet)
    try:
        output_dir(out_dir)
        probed = mbt_sweep.probe_path(plan, out_dir)
        if sum(r <= probed.base_rtt_ns for r in rtts) > 1:
            raise fail(
                f"--rtt: several RTTs at or below the path's own ({probed.base_rtt_ns / 1e6:.3f} "
                "ms) would be the same runs"
            )
        text = mbt_sweep.experiment_toml(plan, probed)
        experiment = experiment_from_text(text, out_dir / "experiment.toml")
        if dask:
            check_scheduler(dask)

        def sweep_started(total: int, skipped: int) -> None:
            # The directory is the sweep's now: keep the path its delays came from.
            mbt_sweep.record_probe(plan, probed, out_dir)
            started(total, skipped)

        with progress:
            outcome = run_experiment(experiment, out_dir, jobs, dask, on_start=sweep_started,
                                     on_record=finished)  # fmt: skip
    except (ScenarioError, OutputError, ValueError, OSError) as error:
        raise fail(plain(str(error))) from None
    except SweepError as error:
        raise fail(plain(str(error)), 2 if dask else 1) from None
    if outcome.interrupted:
        raise stopped(outcome.interrupted, "results so far", out_dir)
    try:
        result = mbt_sweep.analyse(load_results(out_dir), plan, probed, recommend_for)
    except ValueError as error:
        raise fail(plain(str(error)), 1) from None
    (out_dir / "mbt.json").write_text(json.dumps(result, indent=1))
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        print_mbt(result)
        out.print(f"results in {out_dir}")
