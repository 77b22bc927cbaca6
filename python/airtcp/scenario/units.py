"""Typed units in scenario files: rates ("11Mbps"), durations ("5ms"), sizes ("64KiB").

Each parser returns an integer in base units (bit/s, nanoseconds, bytes) and raises
``ValueError`` with a message saying what was expected.

Rates and sizes are read as everyone writes them, so case matters: ``B`` is a byte and ``b``
a bit; ``k``, ``M``, ``G`` are powers of 1000 and ``Ki``, ``Mi``, ``Gi`` powers of 1024. A
unit that matches a known one only up to case (``mbps``: Mbps or MBps?) or has ``K`` alone
(``KB``: 1000 or 1024 bytes?) is an error naming what it could mean, and so is a size in
bits (``64kb``): sizes are bytes. Durations have no such ambiguity and take any case.
docs/scenarios.md has the table.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_NUMBER = r"(?P<value>[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"

# Prefix: (factor, how it reads in a message).
_DECIMAL = {"": (1, ""), "k": (10**3, "10^3 "), "M": (10**6, "10^6 "), "G": (10**9, "10^9 ")}
_BINARY = {"Ki": (2**10, "2^10 "), "Mi": (2**20, "2^20 "), "Gi": (2**30, "2^30 ")}


def _prefixed(
    forms: tuple[str, ...], prefixes: dict[str, tuple[int, str]], scale: int, reads: str
) -> dict[str, tuple[int, str]]:
    """Each of ``forms`` with each prefix in its ``{}``: its factor and what it is."""
    return {
        form.format(prefix): (factor * scale, f"{words}{reads}")
        for form in forms
        for prefix, (factor, words) in prefixes.items()
    }


@dataclass(frozen=True)
class _Units:
    what: str  # "a rate like '11Mbps'"
    table: dict[str, tuple[int, str]]  # unit: (factor, what it is)
    listed: str  # the units, in short, for a message
    bare: str | None  # the unit of a bare number (None: a unit is required)
    fold_case: bool = False


RATE = _Units(
    "a rate like '11Mbps'",
    {
        **_prefixed(("{}bps", "{}bit/s", "{}b/s"), _DECIMAL, 1, "bit/s"),
        **_prefixed(("{}bit/s",), _BINARY, 1, "bit/s"),
        **_prefixed(("{}Bps", "{}B/s"), _DECIMAL, 8, "bytes/s"),
        **_prefixed(("{}B/s",), _BINARY, 8, "bytes/s"),
    },
    "bits: bps, kbps, Mbps, Gbps, Mbit/s, Mb/s; bytes: Bps, kBps, MBps, GBps, MB/s, MiB/s",
    "bps",
)
SIZE = _Units(
    "a size like '64KiB'",
    {**_prefixed(("{}B",), _DECIMAL, 1, "bytes"), **_prefixed(("{}B",), _BINARY, 1, "bytes")},
    "B, kB, MB, GB, KiB, MiB, GiB",
    "B",
)
# TU: the 802.11 time unit, 1024 µs.
DURATION = _Units(
    "a duration like '5ms'",
    {
        "ns": (1, "ns"),
        "us": (10**3, "µs"),
        "µs": (10**3, "µs"),
        "tu": (1_024_000, "TU"),
        "ms": (10**6, "ms"),
        "s": (10**9, "s"),
        "min": (60 * 10**9, "min"),
    },
    "ns, us, µs, ms, s, min, TU",
    None,
    fold_case=True,
)
# Sizes in bits are refused rather than divided by 8: "64kb" for a buffer is a slip for kB
# or KiB far more often than it means 8000 bytes.
_SIZE_IN_BITS = set(_prefixed(("{}b", "{}bit"), _DECIMAL | _BINARY, 1, ""))


def _options(units: _Units, candidates: set[str]) -> str:
    found = sorted(candidates & units.table.keys(), key=lambda u: (units.table[u][0], u))
    return " or ".join(f"{u} ({units.table[u][1]})" for u in found)


def _unknown(units: _Units, unit: str, text: str) -> str:
    """Why ``unit`` is not one of ``units``, and what it could mean."""
    if units is SIZE and unit in _SIZE_IN_BITS:
        base = unit[:1] if unit[:1] in "kKMG" else ""
        meant = {f"{base}B", f"{base.lower()}B", f"{base.upper()}iB"}
        return f"{text!r} is in bits, but a size is in bytes: write {_options(units, meant)}"
    meant = {u for u in units.table if u.lower() == unit.lower()}
    if unit[:1] == "K" and unit[1:2] != "i":
        meant |= {f"k{unit[1:]}", f"Ki{unit[1:]}"}
    if meant & units.table.keys():
        return (
            f"unit {unit!r} in {text!r} is ambiguous (rates and sizes are case-sensitive): "
            f"write {_options(units, meant)}"
        )
    return f"expected {units.what} ({units.listed}), got {text!r}"


def _parse(text: object, units: _Units) -> int:
    if isinstance(text, bool):
        raise ValueError(f"expected {units.what}, got {text!r}")
    if isinstance(text, int | float):
        if units.bare is None:
            raise ValueError(f"expected {units.what}, with a unit, got {text!r}")
        text = f"{text}{units.bare}"
    if not isinstance(text, str):
        raise ValueError(f"expected {units.what}, got {text!r}")
    match = re.fullmatch(_NUMBER + r"\s*(?P<unit>[A-Za-zµ/]+)", text.strip())
    if not match:
        raise ValueError(f"expected {units.what} ({units.listed}), got {text!r}")
    unit = match.group("unit")
    found = units.table.get(unit.lower() if units.fold_case else unit)
    if found is None:
        raise ValueError(_unknown(units, unit, text))
    value = float(match.group("value")) * found[0]
    if value != value or value == float("inf"):
        raise ValueError(f"{units.what.split(' like ')[0]} {text!r} is not finite")
    return round(value)


def parse_rate(text: object) -> int:
    """A rate in bit/s; a bare number is bit/s."""
    return _parse(text, RATE)


def parse_duration(text: object) -> int:
    """A duration in nanoseconds; a bare number needs a unit."""
    return _parse(text, DURATION)


def parse_size(text: object) -> int:
    """A size in bytes; a bare number is bytes."""
    return _parse(text, SIZE)


_LEVEL = re.compile(
    r"(?P<value>[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*(?P<unit>[A-Za-z]*)"
)


def parse_level(text: object, unit: str) -> float:
    """A level in ``unit``, ``dB`` (a gain or loss) or ``dBm`` (a power), signed; a bare
    number is in that unit; a power may also be given in ``mW`` or ``W``."""
    what = "a power like '-82dBm' or '40mW'" if unit == "dBm" else "a level like '7dB'"
    if isinstance(text, bool) or not isinstance(text, int | float | str):
        raise ValueError(f"expected {what}, got {text!r}")
    match = _LEVEL.fullmatch(str(text).strip())
    if match is None:
        raise ValueError(f"expected {what}, got {text!r}")
    value, given = float(match.group("value")), match.group("unit") or unit
    if unit == "dBm" and given in ("mW", "W"):
        if value <= 0:
            raise ValueError(f"a power in {given} must be positive, got {text!r}")
        value = 10 * math.log10(value * (1000 if given == "W" else 1))
    elif given != unit:
        raise ValueError(f"expected {what}, got {text!r}")
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not finite")
    return value
