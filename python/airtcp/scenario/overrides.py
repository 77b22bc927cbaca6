"""Dotted overrides: ``--set wlan.stations=40`` on the command line, or ``{"wlan.stations":
40}`` from Python.

A command-line value is read as a TOML value (``40``, ``1.5``, ``true``, ``"x"``, ``[1, 2]``,
``{kind = "adaptive"}``); anything that is not valid TOML is taken as a plain string, so
``--set simulation.duration=20s`` works without quotes. A value from Python is used as it is.
List items are addressed by index: ``--set links.0.rate=1Mbps``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

Overrides = Sequence[str] | Mapping[str, Any]


def parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def parse_pair(text: str) -> tuple[str, Any]:
    """``key=value`` as typed: the dotted key (checked when it is applied) and its value."""
    key, sep, value = text.partition("=")
    if not sep:
        raise ValueError(f"{text!r}: expected KEY=VALUE with a dotted key, like wlan.stations=10")
    return key.strip(), parse_value(value.strip())


def texts(overrides: Overrides) -> list[str]:
    """The overrides as ``key=value`` texts, as a user would have typed them."""
    if isinstance(overrides, Mapping):
        return [f"{key}={value}" for key, value in overrides.items()]
    return list(overrides)


def apply_overrides(data: dict[str, Any], overrides: Overrides) -> None:
    """Applies each override to ``data`` in place; raises ValueError naming the override."""
    if isinstance(overrides, Mapping):
        pairs = [(key, value, f"{key}={value}") for key, value in overrides.items()]
    else:
        pairs = [(*parse_pair(override), override) for override in overrides]
    for key, value, text in pairs:
        try:
            set_key(data, key, value)
        except ValueError as error:
            raise ValueError(f"{text!r}: {error}") from None


def set_key(data: dict[str, Any], key: str, value: Any) -> None:
    """Sets the dotted ``key`` (list items by index) to ``value``, creating tables on the way,
    except a WLAN: an override may change a scenario's topology, not add one it lacks."""
    parts = key.split(".")
    if not all(parts):
        raise ValueError(f"{key!r} is not a dotted key like wlan.stations")
    if parts[0] == "wlan" and "wlan" not in data:
        raise ValueError("the scenario has no [wlan] table; an override cannot add a WLAN")
    target: Any = data
    for depth, part in enumerate(parts[:-1]):
        if isinstance(target, list):
            target = target[_index(target, part)]
        elif isinstance(target, dict):
            target = target.setdefault(part, {})
        else:
            raise ValueError(f"{'.'.join(parts[:depth])} is not a table")
    if isinstance(target, list):
        target[_index(target, parts[-1])] = value
    elif isinstance(target, dict):
        target[parts[-1]] = value
    else:
        raise ValueError(f"{'.'.join(parts[:-1])} is not a table")


def _index(items: list[Any], part: str) -> int:
    if not part.isdigit() or int(part) >= len(items):
        raise ValueError(f"{part!r} is not an index into a list of {len(items)}")
    return int(part)
