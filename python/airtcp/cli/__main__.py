"""``python -m airtcp.cli``: the command line, as the ``airtcp`` script runs it."""

from .main import main

main()
