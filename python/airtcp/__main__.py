"""``python -m airtcp``: the command line, as the ``airtcp`` script runs it."""

from .cli.main import main

main()
