"""What the command line prints to and how it fails: the consoles (tables fit the terminal, or
``COLUMNS``; lines of text are never broken: ``terminal``), one-line errors, and the escaping
of user text in Rich markup."""

from __future__ import annotations

import typer

from .terminal import stderr_console, stdout_console

# Tables fit the terminal (or COLUMNS); lines of text are never broken (`terminal`).
out = stdout_console()
err = stderr_console()


def fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True, markup=True)
    return typer.Exit(code)


def plain(message: str) -> str:
    """Rich markup in user-supplied text would be interpreted; escape it."""
    from rich.markup import escape

    return escape(message)


def mbps(bps: float | None) -> str:
    return "" if bps is None else f"{bps / 1e6:.3f}"
