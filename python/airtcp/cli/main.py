"""The ``airtcp`` command: the commands in the order ``airtcp --help`` lists them, the
``--version`` option, and the last resort that keeps every error to one line."""

from __future__ import annotations

import os
import signal
import sys
from typing import Annotated, NoReturn

import typer

from ..interrupts import Terminated, terminate_as_interrupt
from . import bianchi, compare, emu, measure, reproduce, run, scenarios, sweep
from .console import err, out, plain
from .help import Command, Group

try:  # typer >= 0.16 carries its own click
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover - older typer on the click package
    from click.exceptions import UsageError

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


def _usage_error(error: UsageError) -> NoReturn:
    """A command line airtcp cannot read (an unknown option, a missing argument, a value of
    the wrong type) in one line, as every other error, naming where help is."""
    if type(error).__name__ == "NoArgsIsHelpError":
        error.show()  # a bare `airtcp`: its help, as the command asks for
        sys.exit(0)
    where = error.ctx.command_path if error.ctx is not None else "airtcp"
    err.print(
        f"[bold red]error:[/] {plain(error.format_message())} (see {plain(where)} --help)",
        highlight=False,
        soft_wrap=True,
    )
    sys.exit(error.exit_code)


def main() -> None:
    try:
        with terminate_as_interrupt():
            # Not standalone: usage errors reach here, to be said in one line.
            code = app(standalone_mode=False)
    except UsageError as error:
        _usage_error(error)
    except typer.Abort:  # end of input at a prompt
        err.print("aborted")
        sys.exit(1)
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
    # A command's typer.Exit(code) comes back as its code; a command that returns, as None.
    sys.exit(code if isinstance(code, int) else 0)
