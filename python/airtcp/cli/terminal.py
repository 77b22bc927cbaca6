"""The consoles the command line prints to, and the width its tables fit: a terminal's own
(rich measures it and honours ``COLUMNS``); when stdout is piped, ``COLUMNS`` if set, else
the width of the terminal on stderr (``airtcp ... | less`` in a terminal), else no limit:
with no terminal (a log, another program) tables keep every name and number whole on one
line. Lines of text are never broken (soft wrap), so they stay whole for grep; tables wrap
their cells at word boundaries to fit."""

from __future__ import annotations

import os
import sys

from rich.console import Console

# "No limit": wider than any table the command line prints.
UNLIMITED = 10_000


def piped_width() -> int:
    """The width for output that does not go to a terminal (module doc)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if sys.stderr.isatty():
            return os.get_terminal_size(sys.stderr.fileno()).columns
    except (AttributeError, OSError, ValueError):
        pass
    return UNLIMITED


def stdout_console() -> Console:
    if sys.stdout.isatty():
        return Console(soft_wrap=True)
    return Console(width=piped_width(), soft_wrap=True)


def stderr_console() -> Console:
    return Console(stderr=True, soft_wrap=True)
