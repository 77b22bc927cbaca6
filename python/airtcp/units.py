"""Typed units in scenario files: rates ("11Mbps"), durations ("5ms"), sizes ("64KiB").

Each parser returns an integer in base units (bit/s, nanoseconds, bytes) and raises
``ValueError`` with a message saying what was expected.
"""

from __future__ import annotations

import re

_NUMBER = r"(?P<value>[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"

_RATE_UNITS = {
    "bps": 1,
    "kbps": 10**3,
    "mbps": 10**6,
    "gbps": 10**9,
    "bit/s": 1,
    "kbit/s": 10**3,
    "mbit/s": 10**6,
    "gbit/s": 10**9,
}
# TU: the 802.11 time unit, 1024 µs.
_TIME_UNITS = {
    "ns": 1,
    "us": 10**3,
    "µs": 10**3,
    "tu": 1_024_000,
    "ms": 10**6,
    "s": 10**9,
    "min": 60 * 10**9,
}
_SIZE_UNITS = {
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
}


def _parse(
    text: object, units: dict[str, int], what: str, example: str, bare_unit: str | None
) -> int:
    if isinstance(text, bool):
        raise ValueError(f"expected {what} like {example!r}, got {text!r}")
    if isinstance(text, int | float):
        if bare_unit is None:
            raise ValueError(f"expected {what} with a unit, like {example!r}, got {text!r}")
        text = f"{text}{bare_unit}"
    if not isinstance(text, str):
        raise ValueError(f"expected {what} like {example!r}, got {text!r}")
    match = re.fullmatch(_NUMBER + r"\s*(?P<unit>[A-Za-zµ/]+)", text.strip())
    unit = match and units.get(match.group("unit").lower())
    if not match or unit is None:
        raise ValueError(
            f"expected {what} like {example!r} (units: {', '.join(units)}), got {text!r}"
        )
    value = float(match.group("value")) * unit
    if value != value or value == float("inf"):
        raise ValueError(f"{what} {text!r} is not finite")
    return round(value)


def parse_rate(text: object) -> int:
    """A rate in bit/s; a bare number is bit/s."""
    return _parse(text, _RATE_UNITS, "a rate", "11Mbps", "bps")


def parse_duration(text: object) -> int:
    """A duration in nanoseconds; a bare number needs a unit."""
    return _parse(text, _TIME_UNITS, "a duration", "5ms", None)


def parse_size(text: object) -> int:
    """A size in bytes; a bare number is bytes."""
    return _parse(text, _SIZE_UNITS, "a size", "64KiB", "B")
