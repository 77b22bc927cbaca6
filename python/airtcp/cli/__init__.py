"""The ``airtcp`` command line (Typer): ``app`` assembles the commands, one module per group
of commands; ``console`` prints, ``options`` declares the options several commands share,
``help`` formats help the Unix way, ``terminal`` sizes tables and ``progress`` draws progress.

Exit codes: 0 done; 1 the work failed (runs failed, workers could not start, an internal
error); 2 bad input (a scenario, an experiment file, an option, an output path); 130 after
Ctrl-C and 143 after SIGTERM, with finished work kept. Errors are one line on stderr.
"""

from .main import main

__all__ = ["main"]
