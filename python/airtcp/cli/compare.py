"""``airtcp compare``: a scenario simulated and emulated, side by side
(``airtcp.emulation.compare``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ..output import OutputError, atomic_write, output_dir
from .console import fail, mbps, out, plain
from .options import JsonOption, ScenarioArgument, SeedOption, SetOption


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f} %"


def _both(pair: dict[str, Any]) -> str:
    return f"{pair['sim']} / {pair['emu']}"


def _mbit(bps: float | None) -> str:

    return mbps(bps) or "-"


def print_comparison(result: dict[str, Any]) -> None:
    from .emu import print_lag, print_warnings

    table = Table(
        title=f"{result['scenario']} (seed {result['seed']}): simulated / emulated, "
        f"{result['measure_from_s']:g}-{result['duration_s']:g} s",
        title_justify="left",
    )
    for column in ("flow", "sim Mbit/s", "emu Mbit/s", "emu vs sim", "retx", "RTOs"):
        table.add_column(column, justify="left" if column == "flow" else "right")
    for flow in result["flows"]:
        if flow["kind"] == "ping":
            rtt = flow["mean_rtt_ms"]
            cells = [f"{rtt['sim']:.3f} ms" if rtt["sim"] else "-",
                     f"{rtt['emu']:.3f} ms" if rtt["emu"] else "-"]  # fmt: skip
        else:
            cells = [_mbit(flow["goodput_bps"]["sim"]), _mbit(flow["goodput_bps"]["emu"])]
        table.add_row(
            flow["name"], *cells, _percent(flow["difference"]),
            _both(flow["retransmissions"]), _both(flow["timeouts"]),
        )  # fmt: skip
    aggregate = result["aggregate_goodput_bps"]
    table.add_row(
        "aggregate", _mbit(aggregate["sim"]), _mbit(aggregate["emu"]),
        _percent(aggregate["difference"]), "", "",
    )  # fmt: skip
    out.print(table)
    own = [f"{row['setting']} (scenario {row['scenario'] or 'default'})"
           for row in result["kernel_own_settings"]]  # fmt: skip
    if own:
        out.print("the kernel keeps its own: " + "; ".join(own), highlight=False)
    for wlan in result["wlans"]:
        pairs = ", ".join(
            f"{field.replace('_', ' ')} {wlan[field]['sim']} / {wlan[field]['emu']}"
            for field in ("attempts", "collisions", "retry_drops")
        )
        out.print(f"BSS {wlan['ap']}, 0-{result['duration_s']:g} s (sim / emu): {pairs}")
    print_lag(result["emulator_lag"])
    print_warnings(result["emulator_warnings"])
    out.print("why they differ: docs/emulation.md, 'Simulated against emulated'", highlight=False)


def compare(
    scenario: ScenarioArgument,
    seed: SeedOption = None,
    set_: SetOption = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", metavar="DIR", help="Write compare.json here.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Run a scenario in the simulator and over real Linux TCP (airtcp emu), and show both
    side by side: per flow goodput (ping: mean RTT), retransmissions and timeouts."""
    from ..api import prepare, run_resolved
    from ..emulation.compare import comparison
    from ..scenario.schema import ScenarioError
    from .emu import emulated

    if seed is not None and not 0 <= seed < 2**63:
        raise fail(f"--seed: must be in [0, 2^63), got {seed}")
    try:
        resolved = prepare(scenario, seed, set_ or [])
        if out_dir is not None:
            output_dir(out_dir)
    except (ScenarioError, OutputError) as error:
        raise fail(plain(str(error))) from None
    simulated = run_resolved(resolved, timeseries=False).summary
    result = comparison(simulated, emulated(resolved, (scenario, set_)))
    if out_dir is not None:
        atomic_write(out_dir / "compare.json", json.dumps(result, indent=1).encode())
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
        return
    print_comparison(result)
    if out_dir is not None:
        out.print(f"results in {out_dir}")
