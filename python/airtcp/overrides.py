"""Dotted overrides from the command line: ``--set wlan.stations=40``.

The value is read as a TOML value (``40``, ``1.5``, ``true``, ``"x"``, ``[1, 2]``); anything
that is not valid TOML is taken as a plain string, so ``--set simulation.duration=20s`` works
without quotes. List items are addressed by index: ``--set links.0.rate=1Mbps``.
"""

from __future__ import annotations

import tomllib
from typing import Any


def parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def apply_overrides(data: dict[str, Any], overrides: list[str] | tuple[str, ...]) -> None:
    """Applies each ``key=value`` to ``data`` in place; raises ValueError naming the override."""
    for override in overrides:
        key, sep, text = override.partition("=")
        parts = key.strip().split(".")
        if not sep or not all(parts):
            raise ValueError(
                f"{override!r}: expected KEY=VALUE with a dotted key, like wlan.stations=10"
            )
        target: Any = data
        for depth, part in enumerate(parts[:-1]):
            target = _step(target, part, override, parts[: depth + 1])
        last = parts[-1]
        if isinstance(target, list):
            target[_index(target, last, override)] = parse_value(text.strip())
        elif isinstance(target, dict):
            target[last] = parse_value(text.strip())
        else:
            raise ValueError(f"{override!r}: {'.'.join(parts[:-1])} is not a table")


def _step(target: Any, part: str, override: str, path: list[str]) -> Any:
    if isinstance(target, list):
        return target[_index(target, part, override)]
    if not isinstance(target, dict):
        raise ValueError(f"{override!r}: {'.'.join(path[:-1])} is not a table")
    return target.setdefault(part, {})


def _index(items: list[Any], part: str, override: str) -> int:
    if not part.isdigit() or int(part) >= len(items):
        raise ValueError(f"{override!r}: {part!r} is not an index into a list of {len(items)}")
    return int(part)
