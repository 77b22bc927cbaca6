"""The ``airtcp`` command: the commands in the order ``airtcp --help`` lists them, the
``--version`` option, and the last resort that keeps every error to one line."""

from __future__ import annotations

import os
import signal
import sys
from typing import Annotated

import typer

from ..interrupts import Terminated, terminate_as_interrupt
from . import bianchi, compare, emu, measure, reproduce, run, scenarios, sweep
from .console import err, out, plain
from .help import Command, Group

# Commands import what they use (pydantic, pandas, pyarrow, dask) when they run, so that
# `airtcp --help` and short runs do not wait for libraries they never touch.

app = typer.Typer(
    cls=Group,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Simulate, emulate and measure TCP over wireless and asymmetric links.",
)


def _print_version(wanted: bool) -> None:
    if wanted:
        from ..version import version_text

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


# The commands, in the order `airtcp --help` lists them.
app.command(cls=Command)(run.run)
app.command(cls=Command)(measure.measure)
app.command(cls=Command)(scenarios.validate)
app.command(cls=Command)(scenarios.schema)
app.add_typer(scenarios.scenarios_app, name="scenarios")
app.command(cls=Command)(bianchi.bianchi)
app.command(cls=Command)(reproduce.reproduce)
app.command(cls=Command)(measure.mbt)
app.command(cls=Command)(run.plot)
app.command(cls=Command)(reproduce.demo)
app.command(cls=Command)(sweep.sweep)
app.command(cls=Command)(sweep.report)
app.command(cls=Command)(emu.emu)
app.command(cls=Command)(compare.compare)


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
        err.print(f"[bold red]error:[/] {plain(_describe(error))}", highlight=False)
        sys.exit(1)
