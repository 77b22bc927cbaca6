"""The ``airtcp`` command line.

Exit codes: 0 done; 1 the work failed (runs failed, workers could not start, an internal
error); 2 bad input (a scenario, an experiment file, an option, an output path); 130 after
Ctrl-C and 143 after SIGTERM, with finished work kept. Errors are one line on stderr.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from . import _core, cli_compare, cli_emu
from .cli_help import Command, Group
from .interrupts import Terminated, terminate_as_interrupt
from .output import OutputError, output_dir
from .overrides import parse_pair
from .terminal import stderr_console, stdout_console

# Commands import what they use (pydantic, pandas, pyarrow, dask) when they run, so that
# `airtcp --help` and short runs do not wait for libraries they never touch.

app = typer.Typer(
    cls=Group,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Simulate, emulate and measure TCP over wireless and asymmetric links.",
)
# Tables fit the terminal (or COLUMNS); lines of text are never broken (`terminal`).
out = stdout_console()
err = stderr_console()


def _print_version(wanted: bool) -> None:
    if wanted:
        from . import version_text

        out.print(version_text(), highlight=False)
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print airtcp's version (and the commit it was built from) and exit.",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """Simulate, emulate and measure TCP over wireless and asymmetric links."""


from .cli_options import (  # noqa: E402 - after the console, as the commands use both
    Backend,
    BackendOption,
    DaskOption,
    JobsOption,
    JsonOption,
    OutOption,
    PcapOption,
    QuietOption,
    ScenarioArgument,
    SeedOption,
    SetOption,
    SnaplenOption,
)


def fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True, markup=True)
    return typer.Exit(code)


def _plain(message: str) -> str:
    """Rich markup in user-supplied text would be interpreted; escape it."""
    from rich.markup import escape

    return escape(message)


def _mbps(bps: float | None) -> str:
    return "" if bps is None else f"{bps / 1e6:.3f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _rtt_text(stats: dict) -> str:
    """Round-trip statistics (`airtcp.measure.RttStats` as a dict) as ping prints them."""
    values = "/".join(_ms(stats[k]) for k in ("min_ms", "avg_ms", "max_ms", "mdev_ms"))
    return (
        f"{stats['transmitted']} sent, {stats['received']} received, {stats['loss']:.0%} loss; "
        f"min/avg/max/mdev = {values} ms"
    )


def _print_intervals(result: Any, interval_s: float) -> None:
    """iperf3's per-interval lines for each TCP flow (`airtcp.intervals`)."""
    from .intervals import intervals

    sample_s = result.scenario["sample_interval_ns"] / 1e9
    try:
        rows = intervals(result.timeseries, interval_s, sample_s)
    except ValueError as error:
        raise fail(f"--interval: {error}") from None
    table = Table(title="per interval (as iperf3 -i)", title_justify="left")
    for column in ("flow", "interval s", "transfer MB", "bitrate Mbit/s", "cwnd kB", "srtt ms"):
        table.add_column(column, justify="left" if column == "flow" else "right")
    for row in rows:
        table.add_row(
            row.flow,
            f"{row.start_s:g}-{row.end_s:g}",
            f"{row.bytes / 1e6:.3g}",
            f"{row.bitrate_bps / 1e6:.3g}",
            f"{row.cwnd_bytes / 1e3:.3g}",
            f"{row.srtt_ms:.3g}",
        )
    out.print(table)


def _print_workload(flow: dict, measure_from_ns: int) -> None:
    """A workload's flow completion times per size class (`airtcp.fct`)."""
    from .fct import fct_classes

    workload = flow["workload"]
    arrived = len(workload["size_bytes"])
    completed = sum(1 for c in workload["completed_ns"] if c is not None)
    table = Table(
        title=f"workload {flow['name']} {flow['src']} → {flow['dst']}: {arrived} flows arrived, "
        f"{completed} completed, {workload['refused']} refused; completion times of those "
        "arrived in the measurement window",
        title_justify="left",
    )
    for column in ("sizes", "flows", "completed", "mean ms", "median ms", "p99 ms"):
        table.add_column(column, justify="left" if column == "sizes" else "right")

    def shown(value: float | None) -> str:
        if value is None:
            return "-"
        return f"{value:.3g}" if value < 1000 else f"{value:.0f}"

    for row in fct_classes(workload, measure_from_ns):
        table.add_row(
            row.label,
            str(row.flows),
            str(row.completed),
            shown(row.mean_ms),
            shown(row.median_ms),
            shown(row.p99_ms),
        )
    out.print(table)


# A measurement window shorter than this gets a warning: goodput over it is a handful of
# round trips on most paths.
SHORT_WINDOW_S = 1.0


def print_summary(summary: dict) -> None:
    from dataclasses import asdict

    from .measure import rtt_stats

    title = f"{summary['scenario']} (seed {summary['seed']})"
    # Ping flows carry no data: their round trips are shown instead of a goodput.
    pings = [flow for flow in summary["flows"] if flow["kind"] == "ping"]
    flows = [flow for flow in summary["flows"] if flow["kind"] != "ping"]
    if flows:
        _print_flows(title, flows)
        window = f"{summary['measure_from_s']:g}-{summary['duration_s']:g} s"
        out.print(
            f"aggregate goodput {_mbps(summary['aggregate_goodput_bps'])} Mbit/s over {window}, "
            f"Jain fairness {summary['jain_fairness']:.3f}"
        )
        measured_s = summary["duration_s"] - summary["measure_from_s"]
        if measured_s < SHORT_WINDOW_S:
            err.print(
                f"warning: the measurement window ({window}) is under {SHORT_WINDOW_S:g} s: a "
                "few segments more or less move its goodput; lengthen simulation.duration or "
                "move simulation.measure_from earlier",
                highlight=False,
            )
    else:
        out.print(title, highlight=False)
    for ping in pings:
        stats = asdict(rtt_stats(ping["probes"]["sent_ns"], ping["probes"]["returned_ns"]))
        out.print(
            f"ping {ping['name']} {ping['src']} → {ping['dst']}: {_rtt_text(stats)}",
            highlight=False,
        )
    measure_from_ns = round(summary["measure_from_s"] * 1e9)
    for flow in summary["flows"]:
        if flow["kind"] == "tcp_workload":
            _print_workload(flow, measure_from_ns)
        if delay := flow.get("one_way_delay"):
            out.print(f"one-way delay {flow['name']}: {_delay_text(delay)}", highlight=False)
    for link in summary["links"]:
        # Only the link directions that dropped or marked: at the tail, or by their AQM.
        if link["queue_drops"] or link.get("aqm_drops") or link.get("ecn_marks"):
            marks = f", {link['ecn_marks']} ECN marks" if link.get("ecn_marks") else ""
            out.print(
                f"link {link['from']} → {link['to']}: {link['delivered']} delivered, "
                f"{link['queue_drops']} tail drops, {link.get('aqm_drops', 0)} AQM drops{marks}"
            )
        # With queue_sojourn, the directions that carried packets.
        if (sojourn := link.get("sojourn")) and sojourn["dequeued"]:
            out.print(
                f"queue sojourn {link['from']} → {link['to']}: {sojourn['dequeued']} packets; "
                f"mean/max = {sojourn['mean_ms']:.3f}/{sojourn['max_ms']:.3f} ms",
                highlight=False,
            )
    for wlan in summary["wlans"]:
        # Only where a mobile has left the BSS: attempts nobody answered, frames lost.
        absent = (
            f", {wlan['absent_receiver_failures']} sent to a departed station, "
            f"{wlan['absent_drops']} lost with it"
            if wlan["absent_receiver_failures"] or wlan["absent_drops"]
            else ""
        )
        radio = wlan.get("radio")
        # With geometry a failure is a collision (another signal overlapped it) or a channel
        # error (noise alone); contenders are a single collision domain's notion.
        tail = (
            f"{wlan['channel_errors']} channel errors, {radio['data_failures']} data and "
            f"{radio['rts_failures']} RTS frames unanswered, {radio['captures']} captures"
            if radio
            else f"mean contenders {wlan['mean_contenders']:.2f}"
        )
        out.print(
            f"WLAN {wlan['ap']}: {wlan['successes']} successes, {wlan['collisions']} collisions, "
            f"{wlan['retries']} retries, {wlan['retry_drops']} retry drops, "
            f"{wlan['queue_drops']} queue drops{_qdisc_counts(wlan)}{absent}, "
            f"collision probability "
            f"{wlan['collision_probability']:.3f}, {tail}"
        )
        if wlan["ampdus"]:
            mpdus = wlan["ampdu_mpdus"]
            out.print(
                f"  A-MPDUs: {wlan['ampdus']} of {mpdus / wlan['ampdus']:.1f} MPDUs on average, "
                f"{wlan['ampdu_failed_mpdus'] / mpdus:.1%} of MPDUs unacknowledged, "
                f"{wlan['reordered_mpdus']} held by the recipient for order"
            )
            _print_airtime(wlan, summary["duration_s"])
        if wlan.get("macs"):
            _print_macs(wlan["macs"])
        _print_mac_queues(wlan)
    for mobile in summary.get("mobiles", []):
        handoffs = ", ".join(
            f"{h['from']} → {h['to']} at {h['detach_s']:g} s ({h['duration_s']:.3f} s)"
            for h in mobile["handoffs"]
        )
        out.print(
            f"mobile {mobile['node']}: handoffs {handoffs or 'none'}; "
            f"{mobile['forwarded_packets']} held packets sent on"
        )
    for agent in summary.get("agents", []):
        counters = ", ".join(f"{name} {value}" for name, value in agent["counters"].items())
        out.print(f"agent {agent['kind']} on {agent['node']} → {agent['interface']}: {counters}")
    out.print(f"{summary['events']} events in {summary['wall_time_s']:.3f} s wall time")


# Stations whose airtime and queues `airtcp run` lists one by one; beyond, the spread only.
_STATIONS_LISTED = 8


def _print_mac_queues(wlan: dict) -> None:
    """With queue_sojourn, the MAC queues whose frames went on the air: each one, or beyond
    `_STATIONS_LISTED` the AP's each and the spread of the stations' mean sojourns."""
    busy = [queue for queue in wlan.get("queues", []) if queue["sojourn"]["dequeued"]]
    listed = busy
    if len(busy) > _STATIONS_LISTED:
        listed = [queue for queue in busy if queue["node"] == wlan["ap"]]
        stations = [queue["sojourn"] for queue in busy if queue["node"] != wlan["ap"]]
        means = sorted(sojourn["mean_ms"] for sojourn in stations)
        frames = sum(sojourn["dequeued"] for sojourn in stations)
        out.print(
            f"  queue sojourn, {len(means)} station queues: {frames} frames; mean least "
            f"{means[0]:.3f}, median {means[len(means) // 2]:.3f}, most {means[-1]:.3f} ms",
            highlight=False,
        )
    for queue in listed:
        sojourn = queue["sojourn"]
        out.print(
            f"  queue sojourn {queue['queue']}: {sojourn['dequeued']} frames; "
            f"mean/max = {sojourn['mean_ms']:.3f}/{sojourn['max_ms']:.3f} ms",
            highlight=False,
        )


def _qdisc_counts(wlan: dict) -> str:
    """A qdisc's AQM drops and the CE marks (a qdisc's or mac80211's CoDel's), where any."""
    drops = f", {wlan['aqm_drops']} AQM drops" if wlan.get("aqm_drops") else ""
    return drops + (f", {wlan['ecn_marks']} CE marks" if wlan.get("ecn_marks") else "")


def _print_airtime(wlan: dict, duration_s: float) -> None:
    """Each station's share of the run's airtime in data PPDUs (down from the AP, up to it),
    or with many stations the least, median and most of their totals; and CoDel's drops
    where mac80211's queues ran."""
    pairs = [
        (down / 1e9 / duration_s, up / 1e9 / duration_s)
        for down, up in zip(
            wlan["station_downlink_airtime_ns"], wlan["station_uplink_airtime_ns"], strict=True
        )
    ]
    codel = f"; {wlan['codel_drops']} CoDel drops" if wlan["codel_drops"] else ""
    if len(pairs) <= _STATIONS_LISTED:
        shares = ", ".join(f"{down:.0%}/{up:.0%}" for down, up in pairs)
        out.print(f"  airtime per station, down/up: {shares}{codel}")
        return
    totals = sorted(down + up for down, up in pairs)
    spread = f"least {totals[0]:.1%}, median {totals[len(totals) // 2]:.1%}, most {totals[-1]:.1%}"
    out.print(f"  airtime per station (down and up, {len(totals)} stations): {spread}{codel}")


def _print_macs(macs: list[dict]) -> None:
    """Per MAC of a WLAN with geometry: its rate, its loss and how it was heard."""
    table = Table()
    for column in ("node", "rate Mbit/s", "attempts", "loss", "delivered", "RSSI dBm", "SNR dB"):
        table.add_column(column, justify="left" if column == "node" else "right")
    for mac in macs:
        if not mac["attempts"]:
            continue
        heard = mac["rssi_dbm"] is not None
        table.add_row(
            mac["node"],
            _mbps(mac["mean_rate_bps"]),
            str(mac["attempts"]),
            f"{mac['loss']:.1%}",
            str(mac["delivered"]),
            f"{mac['rssi_dbm']:.1f}" if heard else "-",
            f"{mac['snr_db']:.1f}" if heard else "-",
        )
    out.print(table)


def _delay_text(delay: dict) -> str:
    """A flow's one-way delay summary (``simulation.one_way_delay``), as ping states RTTs."""
    if not delay["packets"]:
        return "no data packet delivered in the measurement"
    reordered = f", {delay['reordered']} reordered" if delay["reordered"] else ""
    return (
        f"{delay['packets']} packets; min/avg/max = {delay['min_ms']:.3f}/{delay['mean_ms']:.3f}/"
        f"{delay['max_ms']:.3f} ms, jitter {delay['jitter_ms']:.3f} ms{reordered}"
    )


def _print_flows(title: str, flows: list[dict]) -> None:
    """The table of flows that carry data."""
    finite = any(flow["completion_time_s"] is not None for flow in flows)
    table = Table(title=title, title_justify="left")
    columns = ["flow", "src → dst", "goodput Mbit/s", "delivered B", "retx", "fast retx", "RTOs"]
    if finite:
        columns += ["completed in s", "transfer Mbit/s"]
    for column in columns:
        table.add_column(column, justify="left" if column in ("flow", "src → dst") else "right")
    # Emulated flows of one host: the kernel's fast retransmits and timeouts are the host's.
    shared = [flow for flow in flows if flow.get("counters_shared_with")]
    mark = "*" if shared else ""
    for flow in flows:
        host = mark if flow.get("counters_shared_with") else ""
        row = [
            flow["name"],
            f"{flow['src']} → {flow['dst']}",
            _mbps(flow["goodput_bps"]),
            str(flow["bytes_delivered"]),
            str(flow["retransmissions"]),
            f"{flow['fast_retransmits']}{host}",
            f"{flow['timeouts']}{host}",
        ]
        if finite:
            done = flow["completion_time_s"]
            row += ["" if done is None else f"{done:.3f}", _mbps(flow["transfer_goodput_bps"])]
        table.add_row(*row)
    out.print(table)
    hosts = sorted({flow["src"] for flow in shared})
    if hosts:
        out.print(
            f"* per host: the kernel counts fast retransmits and timeouts per host, so those "
            f"of {', '.join(hosts)} are its flows' together",
            highlight=False,
        )


@app.command(cls=Command)
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
    from .api import prepare, run_resolved
    from .progress import RunProgress
    from .scenario import ScenarioError

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
        raise fail(_plain(str(error))) from None
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
            _print_intervals(result, interval)
        print_summary(result.summary)
        if out_dir is not None:
            out.print(f"results in {out_dir}")
        if plot_png and out_dir is not None:
            from .run_plot import PlotError, plot_run

            try:
                out.print(f"plot in {plot_run(out_dir)}", highlight=False)
            except PlotError as error:
                raise fail(_plain(str(error))) from None
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


def print_measurement(result: dict) -> None:
    out.print(f"{result['scenario']}: {result['from']} → {result['to']}", highlight=False)
    if "rtt" in result:
        out.print(f"rtt: {_rtt_text(result['rtt'])}", highlight=False)
    if "capacity" in result:
        c = result["capacity"]
        estimates = c["estimates_bps"]
        spread = (
            f" (trains {min(estimates) / 1e6:.2f}-{max(estimates) / 1e6:.2f})" if estimates else ""
        )
        out.print(
            f"capacity: {_mbps(c['bps']) or '-'} Mbit/s{spread}, median of {c['trains']} "
            f"trains of {c['train']} x {c['ip_bytes']} B",
            highlight=False,
        )
    if "tcp" in result:
        t = result["tcp"]
        window = "default window" if t["window_bytes"] is None else f"{t['window_bytes']} B"
        out.print(
            f"tcp {t['congestion_control']}, {window}: {_mbps(t['goodput_bps'])} Mbit/s over "
            f"{t['measured_s']:g} s, {t['retransmissions']} retransmissions, "
            f"{t['timeouts']} timeouts",
            highlight=False,
        )


@app.command(cls=Command)
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
    from .measure import measure as run_measure
    from .scenario import ScenarioError
    from .units import parse_size

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
        raise fail(_plain(str(error))) from None
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        print_measurement(result)


@app.command(cls=Command)
def validate(
    scenario: ScenarioArgument,
    set_: SetOption = None,
) -> None:
    """Check a scenario or experiment file without running it (every check a run or a
    sweep makes; an experiment's every point)."""
    from .api import prepare
    from .scenario import ScenarioError

    try:
        if _is_experiment(scenario):
            if set_:
                raise fail(f"{_plain(scenario)}: --set applies to scenarios; vary an "
                           "experiment in its set, grid or zip tables")  # fmt: skip
            from .experiment import load as load_experiment

            experiment = load_experiment(scenario)
            out.print(f"{scenario}: ok (experiment: {_runs_text(experiment)})", highlight=False)
            return
        resolved = prepare(scenario, None, set_ or [])
    except ScenarioError as error:
        raise fail(_plain(str(error))) from None
    out.print(
        f"{scenario}: ok ({len(resolved['nodes'])} nodes, {len(resolved['links'])} links, "
        f"{len(resolved['flows'])} flows)",
        highlight=False,
    )


def _is_experiment(argument: str) -> bool:
    """Whether ``argument`` names an experiment: a built-in experiment's name, or a TOML file
    with an ``[experiment]`` table (a file that does not parse is left to the scenario's
    checks, which name what is wrong)."""
    from .catalog import builtin_path
    from .scenario import ScenarioError, read_toml

    path = Path(argument)
    if not path.is_file():
        builtin = builtin_path(argument, "experiments")
        return builtin is not None and builtin_path(argument) is None
    try:
        _, data = read_toml(path)
    except ScenarioError:  # the scenario's own reading reports it
        return False
    return isinstance(data.get("experiment"), dict)


def _runs_text(experiment: Any) -> str:
    """``4 points x 3 replications = 12 runs of wired-tcp``."""
    points = len({task.point for task in experiment.tasks})
    replications = experiment.settings.replications
    return (
        f"{points} points x {replications} replications = {len(experiment.tasks)} runs of "
        f"{experiment.scenario_path.stem}"
    )


@app.command(cls=Command)
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    from .scenario import json_schema

    sys.stdout.write(json_schema() + "\n")


scenarios_app = typer.Typer(
    cls=Group,
    help="The built-in scenarios and experiment files: list them, or print one to copy.",
)
app.add_typer(scenarios_app, name="scenarios")


@scenarios_app.callback(invoke_without_command=True)
def scenarios(ctx: typer.Context) -> None:
    """List the built-in scenarios and experiment files, a line on each."""
    if ctx.invoked_subcommand is not None:
        return
    from .catalog import KINDS, built_ins

    table = Table(title="built in (run by name, or print with: airtcp scenarios show NAME)")
    for column in ("name", "kind", "what it is"):
        table.add_column(column, overflow="fold")
    for kind in KINDS:
        for item in built_ins(kind):
            table.add_row(item.name, kind.removesuffix("s"), _plain(item.description))
    out.print(table)


@scenarios_app.command(cls=Command)
def show(
    name: Annotated[str, typer.Argument(help="A built-in scenario or experiment's name.")],
) -> None:
    """Print a built-in scenario or experiment file (to copy and edit)."""
    from .catalog import KINDS, built_ins, builtin_path

    for kind in KINDS:
        path = builtin_path(name, kind)
        if path is not None:
            sys.stdout.write(path.read_text(encoding="utf-8"))
            return
    names = ", ".join(item.name for kind in KINDS for item in built_ins(kind))
    raise fail(f"{_plain(name)}: no built-in scenario or experiment (built-ins: {names})")


def _station_range(text: str) -> tuple[int, int]:
    first, _, last = text.partition("-")
    try:
        a, b = int(first), int(last or first)
    except ValueError:
        raise fail(f"--stations: expected N or A-B, got {text!r}") from None
    if not 1 <= a <= b <= 10_000:
        raise fail(f"--stations: expected 1 <= A <= B <= 10000, got {text!r}")
    return a, b


@app.command(cls=Command)
def bianchi(
    phy: Annotated[
        str,
        typer.Option(
            metavar="PHY",
            help="802.11b, 802.11g, 802.11a, 802.11n, 802.11ac, 802.11ax or bianchi2000 (his "
            "FHSS set).",
        ),
    ] = "802.11b",
    payload: Annotated[int, typer.Option(metavar="BYTES", help="MSDU payload in bytes.")] = 1024,
    stations: Annotated[str, typer.Option(metavar="N|A-B", help="N or A-B.")] = "1-50",
    rts: Annotated[
        bool, typer.Option("--rts", help="RTS/CTS access instead of basic access.")
    ] = False,
    cw_min: Annotated[int | None, typer.Option(metavar="CW", help="CWmin (W - 1).")] = None,
    stages: Annotated[
        int | None,
        typer.Option(metavar="M", help="Backoff stages m (CWmax + 1 = 2^m (CWmin + 1))."),
    ] = None,
    retry_limit: Annotated[
        int | None,
        typer.Option(metavar="N", help="Retransmissions before a drop (default: unlimited)."),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            metavar="mac|bianchi",
            help="mac: the standard's DCF as the simulator runs it (counters frozen while "
            "the medium is busy; after a collision its senders wait AckTimeout then DIFS); "
            "the default for 802.11b/g. bianchi: his model as published (collision = frame "
            "+ DIFS), the default for bianchi2000.",
        ),
    ] = None,
    eifs_after_collision: Annotated[
        bool,
        typer.Option(
            "--eifs-after-collision/--difs-after-collision",
            help="With --model mac: whether the stations that did not send in a collision "
            "wait EIFS (the standard) or DIFS (ns-3), as wlan.eifs_after_collision.",
        ),
    ] = True,
    mcs: Annotated[
        int | None, typer.Option(metavar="MCS", help="802.11n/ac/ax: the MCS (as wlan.mcs).")
    ] = None,
    channel_width: Annotated[
        int | None, typer.Option(metavar="MHZ", help="802.11n/ac/ax: the channel width.")
    ] = None,
    spatial_streams: Annotated[
        int | None, typer.Option(metavar="N", help="802.11ac/ax: spatial streams.")
    ] = None,
    ampdu: Annotated[
        bool,
        typer.Option(
            "--ampdu/--no-ampdu",
            help="802.11n/ac/ax: each access an A-MPDU as long as the format's limits allow "
            "(the model's frame; as wlan.ampdu, the default), or one MPDU.",
        ),
    ] = True,
    edca: Annotated[
        bool | None,
        typer.Option(
            "--edca/--no-edca",
            help="EDCA's best-effort AIFS (AIFSN 3) instead of DIFS, as wlan.edca: on for "
            "802.11n/ac/ax by default.",
        ),
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
    if retry_limit is not None and not 0 <= retry_limit <= 100:
        raise fail(f"--retry-limit: expected 0..100, got {retry_limit}")
    if model not in (None, "mac", "bianchi"):
        raise fail(f"--model: expected mac or bianchi, got {model!r}")
    mcs_settings = {
        key: value
        for key, value in (
            ("mcs", mcs),
            ("channel_width_mhz", channel_width),
            ("spatial_streams", spatial_streams),
        )
        if value is not None
    }
    if mcs_settings and phy not in ("802.11n", "802.11ac", "802.11ax"):
        raise fail(
            f"--mcs, --channel-width, --spatial-streams: settings of 802.11n/ac/ax, not {phy}"
        )
    try:
        result = json.loads(
            _core.bianchi_model(
                phy,
                payload,
                first,
                last,
                rts,
                cw_min,
                stages,
                retry_limit=retry_limit,
                model=model,
                eifs_after_collision=eifs_after_collision,
                mcs_settings=json.dumps(mcs_settings),
                ampdu=ampdu,
                edca=edca,
            )
        )
    except ValueError as error:
        option, _, message = str(error).partition(": ")
        name = _MODEL_OPTIONS.get(option)
        raise fail(f"--{name}: {message}" if name else f"--phy: {error}") from None
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
        return
    access = "RTS/CTS" if rts else "basic access"
    if result["mpdus_per_ampdu"]:
        access += f", A-MPDUs of {result['mpdus_per_ampdu']} MPDUs"
    rate = f" at {result['data_rate_bps'] / 1e6:.4g} Mbit/s"
    retries = "unlimited" if retry_limit is None else retry_limit
    if result["model"] == "bianchi":
        dcf = "Bianchi's model"
    else:
        others = "EIFS" if result["eifs_after_collision"] else "DIFS"
        dcf = f"the standard's DCF (others wait {others} after a collision)"
        if result["aifsn"] is not None:
            dcf = (
                f"EDCA best effort (AIFSN {result['aifsn']}; "
                f"others wait {others} after a collision)"
            )
    table = Table(
        title=f"Saturation throughput, {dcf}: {phy}{rate}, {payload}-byte payload, {access}, "
        f"CW {result['cw_min']}..{result['cw_max']}, retries {retries}",
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


# The model's PHY fields at fault, by the option that sets them.
_MODEL_OPTIONS = {
    "mcs": "mcs",
    "channel_width_mhz": "channel-width",
    "spatial_streams": "spatial-streams",
}


def _reproduction_settings(sets: list[str]) -> dict[str, object]:
    try:
        return dict(parse_pair(text) for text in sets)
    except ValueError as error:
        raise fail(f"--set {error}") from None


def _check_workers(jobs: int | None, dask: str | None, threads: bool = False) -> None:
    if jobs is not None and jobs < 1:
        raise fail(f"--jobs: must be at least 1, got {jobs}")
    if dask is not None and (jobs is not None or threads):
        raise fail("--dask: the cluster decides the workers; drop --jobs/--threads")


def _stopped(signum: int, what: str, out_dir: Path) -> typer.Exit:
    name = "terminated" if signum == signal.SIGTERM else "interrupted"
    err.print(f"{name}: {what} in {out_dir}; run the same command again to resume")
    return typer.Exit(128 + signum)


@app.command(cls=Command)
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
    from .progress import sweep_progress
    from .reproductions import REPRODUCTIONS
    from .reproductions.runner import reproduce as run_reproduction
    from .scenario import ScenarioError
    from .sweeper import SweepError, check_scheduler

    module = REPRODUCTIONS.get(name)
    if module is None:
        raise fail(f"unknown reproduction {name!r}; expected one of {', '.join(REPRODUCTIONS)}")
    _check_workers(jobs, dask)
    if kernel:
        if not hasattr(module, "KERNEL_AGENTS"):
            raise fail(f"--kernel: {name} does not run on the kernel (park-local-ack does)")
        from .emulate import require

        try:
            require()
        except OSError as error:
            raise fail(f"--kernel: {error}") from None
    settings = _reproduction_settings(sets or [])
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
        raise fail(_plain(str(error))) from None
    except SweepError as error:
        raise fail(_plain(str(error)), 2 if dask else 1) from None
    if report is None:
        raise _stopped(outcome.interrupted, "results so far", out_dir)
    table = Table(title=f"{name}: the paper's claims and ours", show_lines=True)
    for column in ("paper claims", "airtcp finds", "verdict", "rule"):
        table.add_column(column, overflow="fold")
    styles = {"agrees": "green", "partly": "yellow", "differs": "red", "calibrated": "cyan",
              "beyond the paper": "blue", "not significant": "magenta"}  # fmt: skip
    for claim in claims.itertuples(index=False):
        style = styles.get(claim.verdict, "white")
        texts = (_plain(claim.claim), _plain(claim.ours), _plain(claim.rule))
        table.add_row(texts[0], texts[1], f"[{style}]{claim.verdict}[/]", texts[2])
    out.print(table)
    # The meaning of each verdict the table uses (the module holding them is imported by
    # the reproductions already).
    from .reproductions.claims import MEANINGS

    for name in dict.fromkeys(claims["verdict"]):
        out.print(f"[{styles.get(name, 'white')}]{name}[/]: {MEANINGS[name]}", soft_wrap=True)
    out.print(
        f"{outcome.skipped + outcome.completed} runs ({outcome.failed_total} failed); "
        f"report: {report}"
    )
    if outcome.failed_total:
        raise fail(f"{outcome.failed_total} runs failed; the report leaves them out", 1)


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


@app.command(cls=Command)
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
    from . import mbt as analysis
    from . import mbt_sweep
    from .experiment import from_text as experiment_from_text
    from .progress import sweep_progress
    from .results import load_results
    from .scenario import ScenarioError
    from .sweeper import SweepError, check_scheduler, run_experiment
    from .units import parse_duration, parse_rate

    _check_workers(jobs, dask)
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
    settings = _reproduction_settings(set_ or [])
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
        raise fail(_plain(str(error))) from None
    except SweepError as error:
        raise fail(_plain(str(error)), 2 if dask else 1) from None
    if outcome.interrupted:
        raise _stopped(outcome.interrupted, "results so far", out_dir)
    try:
        result = mbt_sweep.analyse(load_results(out_dir), plan, probed, recommend_for)
    except ValueError as error:
        raise fail(_plain(str(error)), 1) from None
    (out_dir / "mbt.json").write_text(json.dumps(result, indent=1))
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        print_mbt(result)
        out.print(f"results in {out_dir}")


@app.command(cls=Command)
def plot(
    run_dir: Annotated[
        Path, typer.Argument(help="A run's directory (airtcp run --out DIR).", metavar="RUN_DIR")
    ],
    out_file: Annotated[
        Path | None,
        typer.Option("--out", metavar="FILE", help="Where to write (default RUN_DIR/run.png)."),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="png or svg.")] = "png",
) -> None:
    """Draw one run's cwnd, RTT and goodput per TCP flow over time."""
    from .run_plot import PlotError, plot_run

    try:
        target = plot_run(run_dir, out_file, fmt)
    except (PlotError, OutputError) as error:
        raise fail(_plain(str(error))) from None
    out.print(f"plot in {target}", highlight=False)


@app.command(cls=Command)
def demo(
    out_dir: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="Where to write results.")
    ] = Path("results/demo"),
    jobs: JobsOption = None,
) -> None:
    """The headline job: the quick reproduction of paper 000 (TCP-ACK priority at the AP)."""
    reproduce("ryu-ack-priority", True, out_dir, jobs, None, False)


@app.command(cls=Command)
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
    from .experiment import load as load_experiment
    from .progress import sweep_progress
    from .scenario import ScenarioError
    from .sweeper import SweepError, check_scheduler, run_experiment

    if dry_run:
        try:
            experiment = load_experiment(experiment_file)
        except ScenarioError as error:
            raise fail(_plain(str(error))) from None
        _print_points(experiment, out_dir or Path("results") / experiment.settings.name)
        return

    _check_workers(jobs, dask, threads)
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
        raise fail(_plain(str(error))) from None
    except SweepError as error:
        raise fail(_plain(str(error)), 2 if dask else 1) from None
    done = outcome.skipped + outcome.completed
    summary = (
        f"{done} of {outcome.total} runs done ({outcome.completed} now, {outcome.failed} failed), "
        f"results in {out_dir}"
    )
    if outcome.interrupted:
        raise _stopped(outcome.interrupted, summary, out_dir)
    out.print(summary, highlight=False)
    if outcome.failed_total:
        raise fail(
            f"{outcome.failed_total} of {outcome.total} runs failed (their errors are in "
            f"{out_dir / 'results.parquet'} and the report); --retry-failed runs them again",
            1,
        )


def _print_points(experiment: Any, out_dir: Path) -> None:
    """A sweep's points in the experiment's own order, each with its settings and seeds."""
    table = Table(title=f"{experiment.settings.name}: {_runs_text(experiment)}",
                  title_justify="left")  # fmt: skip
    params = list(dict.fromkeys(key for task in experiment.tasks for key in task.params))
    for column in ("point", *params, "seeds"):
        table.add_column(column, overflow="fold")
    by_point: dict[int, list[Any]] = {}
    for task in experiment.tasks:
        by_point.setdefault(task.point, []).append(task)
    for point, tasks in by_point.items():
        values = [_plain(str(tasks[0].params.get(key, ""))) for key in params]
        seeds = " ".join(str(task.seed) for task in tasks)
        table.add_row(str(point), *values, seeds)
    out.print(table)
    out.print(f"would write to {out_dir} (nothing run)", highlight=False)


@app.command(cls=Command)
def report(
    results_dir: Annotated[Path, typer.Argument(help="A sweep's results directory.")],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", metavar="FILE", help="HTML file (default DIR/report.html)."),
    ] = None,
) -> None:
    """Aggregate a sweep (mean, 95 % CI), draw figures, write report.html and CSVs."""
    from .reporting import write_report

    if not results_dir.is_dir():
        raise fail(f"{results_dir}: no such results directory")
    try:
        target = write_report(results_dir, output)
    except (ValueError, OutputError) as error:
        raise fail(_plain(str(error))) from None
    out.print(f"report: {target}")


cli_emu.register(app)
cli_compare.register(app)


def _describe(error: BaseException) -> str:
    """An unexpected error in words, without Python's class names where it can."""
    if isinstance(error, OSError) and error.strerror:
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror}"
    return f"internal error: {error} (AIRTCP_DEBUG=1 shows where)"


def main() -> None:
    try:
        with terminate_as_interrupt():
            app()
    except Terminated:
        err.print("terminated")
        sys.exit(128 + signal.SIGTERM)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(128 + signal.SIGINT)
    except Exception as error:  # a last resort: one line, no traceback
        if os.environ.get("AIRTCP_DEBUG"):
            raise
        err.print(f"[bold red]error:[/] {_plain(_describe(error))}", highlight=False)
        sys.exit(1)


if __name__ == "__main__":
    main()
