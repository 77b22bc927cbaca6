"""``airtcp bianchi``: Bianchi's saturation model of the DCF, or the standard's DCF as the
simulator runs it, per number of stations (``_core.bianchi_model``)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.table import Table

from .. import _core
from .console import fail, mbps, out


def _station_range(text: str) -> tuple[int, int]:
    first, _, last = text.partition("-")
    try:
        a, b = int(first), int(last or first)
    except ValueError:
        raise fail(f"--stations: expected N or A-B, got {text!r}") from None
    if not 1 <= a <= b <= 10_000:
        raise fail(f"--stations: expected 1 <= A <= B <= 10000, got {text!r}")
    return a, b


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
            mbps(point["throughput_bps"]),
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
