"""Experiment files that commands write (``airtcp reproduce``, ``airtcp mbt``): settings as
lines of an experiment's ``[set]`` table, in TOML."""

from __future__ import annotations

import json
from typing import Any


def toml_value(value: Any) -> str:
    """A value as TOML writes it: true, 3, 2.5, "text", [1, 5], {shape = "circle"}."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return json.dumps(str(value))


def set_lines(settings: dict[str, Any] | None) -> str:
    """``--set`` settings (of `airtcp reproduce`, `airtcp mbt`) as lines of an experiment's
    ``[set]`` table."""
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in (settings or {}).items())
