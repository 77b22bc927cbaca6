"""A run's summary as ``airtcp run`` and ``airtcp emu`` print it: the flows' table, pings,
workloads, links, WLANs (airtime, MAC queues), mobiles and agents; and iperf3-like
per-interval lines (``--interval``)."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from .console import err, fail, mbps, out


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def rtt_text(stats: dict) -> str:
    """Round-trip statistics (`airtcp.analysis.ping.RttStats` as a dict) as ping prints them."""
    values = "/".join(_ms(stats[k]) for k in ("min_ms", "avg_ms", "max_ms", "mdev_ms"))
    return (
        f"{stats['transmitted']} sent, {stats['received']} received, {stats['loss']:.0%} loss; "
        f"min/avg/max/mdev = {values} ms"
    )


def print_intervals(result: Any, interval_s: float) -> None:
    """iperf3's per-interval lines for each TCP flow (`airtcp.analysis.intervals`)."""
    from ..analysis.intervals import intervals

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
    """A workload's flow completion times per size class (`airtcp.analysis.fct`)."""
    from ..analysis.fct import fct_classes

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

    from ..analysis.ping import rtt_stats

    title = f"{summary['scenario']} (seed {summary['seed']})"
    # Ping flows carry no data: their round trips are shown instead of a goodput.
    pings = [flow for flow in summary["flows"] if flow["kind"] == "ping"]
    flows = [flow for flow in summary["flows"] if flow["kind"] != "ping"]
    if flows:
        _print_flows(title, flows)
        window = f"{summary['measure_from_s']:g}-{summary['duration_s']:g} s"
        out.print(
            f"aggregate goodput {mbps(summary['aggregate_goodput_bps'])} Mbit/s over {window}, "
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
            f"ping {ping['name']} {ping['src']} → {ping['dst']}: {rtt_text(stats)}",
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
    _print_link_sojourns(summary["links"])
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
    rest: list[dict] = []
    if len(busy) > _STATIONS_LISTED:
        rest = [queue["sojourn"] for queue in busy if queue["node"] != wlan["ap"]]
        busy = [queue for queue in busy if queue["node"] == wlan["ap"]]
    listed = [(queue["queue"], queue["sojourn"]) for queue in busy]
    _print_sojourns("  ", listed, rest, "station queues", "frames")


def _print_link_sojourns(links: list[dict]) -> None:
    """With queue_sojourn, the link directions that carried packets: each one, or beyond
    `_STATIONS_LISTED` the `_STATIONS_LISTED - 1` of the longest mean sojourn and one line of
    the others' spread (a 1000-station run has 2000 directions)."""
    busy = [link for link in links if (link.get("sojourn") or {}).get("dequeued")]
    rest: list[dict] = []
    if len(busy) > _STATIONS_LISTED:
        busy = sorted(busy, key=lambda link: -link["sojourn"]["mean_ms"])
        rest = [link["sojourn"] for link in busy[_STATIONS_LISTED - 1 :]]
        busy = busy[: _STATIONS_LISTED - 1]
    listed = [(f"{link['from']} → {link['to']}", link["sojourn"]) for link in busy]
    _print_sojourns("", listed, rest, "other link directions", "packets")


def _print_sojourns(
    indent: str, listed: list[tuple[str, dict]], rest: list[dict], rest_are: str, unit: str
) -> None:
    """A line of the spread of ``rest``'s mean sojourns (if any), then a line per listed
    queue."""
    if rest:
        means = sorted(sojourn["mean_ms"] for sojourn in rest)
        count = sum(sojourn["dequeued"] for sojourn in rest)
        out.print(
            f"{indent}queue sojourn, {len(rest)} {rest_are}: {count} {unit}; mean least "
            f"{means[0]:.3f}, median {means[len(means) // 2]:.3f}, most {means[-1]:.3f} ms",
            highlight=False,
        )
    for name, sojourn in listed:
        out.print(
            f"{indent}queue sojourn {name}: {sojourn['dequeued']} {unit}; "
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
            mbps(mac["mean_rate_bps"]),
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
            mbps(flow["goodput_bps"]),
            str(flow["bytes_delivered"]),
            str(flow["retransmissions"]),
            f"{flow['fast_retransmits']}{host}",
            f"{flow['timeouts']}{host}",
        ]
        if finite:
            done = flow["completion_time_s"]
            row += ["" if done is None else f"{done:.3f}", mbps(flow["transfer_goodput_bps"])]
        table.add_row(*row)
    out.print(table)
    hosts = sorted({flow["src"] for flow in shared})
    if hosts:
        out.print(
            f"* per host: the kernel counts fast retransmits and timeouts per host, so those "
            f"of {', '.join(hosts)} are its flows' together",
            highlight=False,
        )
