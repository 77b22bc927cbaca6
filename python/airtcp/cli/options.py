"""Arguments and options several ``airtcp`` commands share, declared once."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

ScenarioArgument = Annotated[
    str,
    typer.Argument(help="A scenario TOML file, or a built-in's name (see airtcp scenarios)."),
]
SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help="Override a scenario key, e.g. --set wlan.stations=40 (repeatable).",
    ),
]
OutOption = Annotated[
    Path | None,
    typer.Option("--out", metavar="DIR", help="Results directory (default results/NAME)."),
]
JobsOption = Annotated[
    int | None,
    typer.Option("--jobs", "-j", metavar="N", help="Local workers (default: all cores)."),
]
DaskOption = Annotated[
    str | None,
    typer.Option(
        metavar="ADDRESS", help="Run on a dask.distributed scheduler, e.g. tcp://host:8786."
    ),
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
SeedOption = Annotated[
    int | None, typer.Option(metavar="N", help="Seed (overrides simulation.seed).")
]
PcapOption = Annotated[
    bool, typer.Option("--pcap", help="Write a pcap per node (into --out, or ./pcap).")
]
SnaplenOption = Annotated[
    int | None,
    typer.Option(
        metavar="BYTES",
        help="Bytes of each packet or frame the pcaps keep (default: headers only; 0: all).",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]


class Backend(StrEnum):
    sim = "sim"
    emu = "emu"


BackendOption = Annotated[
    Backend,
    typer.Option(
        help="sim: the simulator; emu: real Linux TCP in network namespaces, in real time "
        "(docs/emulation.md).",
    ),
]
