"""Experiment files that commands write (``airtcp reproduce``, ``airtcp mbt``): settings as
lines of an experiment's ``[set]`` table, in TOML."""

from __future__ import annotations

import json
from typing import Any


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value))


def set_lines(settings: dict[str, Any] | None) -> str:
    """``--set`` settings (of `airtcp reproduce`, `airtcp mbt`) as lines of an experiment's
    ``[set]`` table."""
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in (settings or {}).items())
