"""How a sweep's report draws its axes: parameters and metrics in units people read (Mbit/s,
KiB, ms), sizes on a log axis, and confidence bands of quantities that cannot be negative
kept at or above zero.

A metric's unit comes from its name's suffix (``_bps``, ``_bytes``, ``_ms``, ``_s``); a
parameter's from its values (``"64KiB"``, ``"5ms"``, ``"16kbps"``). A metric's words name
what it measures as the run's summary does (``flows[0].retransmissions`` of a flow called
bulk reads "bulk retransmissions"), and numbers are shown to three significant figures.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..scenario.units import parse_duration, parse_rate, parse_size

_FRACTION = re.compile(r"(probability|fairness|share|jain)$")
_INDEXED = re.compile(r"\b(flows|links|wlans)\[(\d+)\]")


def readable(path: str, summary: dict[str, Any] | None) -> str:
    """A metric's path with the summary's names for what it indexes: ``flows[0]`` the flow's
    name, ``links[2]`` the link direction (``client→server``), ``wlans[0]`` the WLAN of its
    AP; unchanged where the summary does not have it."""

    def name(match: re.Match[str]) -> str:
        kind, index = match.group(1), int(match.group(2))
        items = (summary or {}).get(kind) or []
        if index >= len(items):
            return match.group(0)
        item = items[index]
        if kind == "flows":
            return f"flow {item['name']}"
        if kind == "links":
            return f"link {item['from']}→{item['to']}"
        return f"WLAN {item['ap']}"

    return _INDEXED.sub(name, path)


def significant(value: float, figures: int = 3) -> str:
    """``value`` to ``figures`` significant figures, without an exponent: 7916700.0 reads
    7920000, 0.012345 reads 0.0123, 20.6667 reads 20.7."""
    if value is None or not math.isfinite(value):
        return ""
    if value == 0:
        return "0"
    digits = figures - 1 - math.floor(math.log10(abs(value)))
    rounded = round(value, digits)
    if rounded != 0:
        # Rounding can carry into the next power of ten (99.96 -> 100.0): count again.
        digits = figures - 1 - math.floor(math.log10(abs(rounded)))
    return f"{rounded:.{max(digits, 0)}f}"


@dataclass(frozen=True)
class Axis:
    """Positions to plot, their label with the unit, the factor from raw values to the unit,
    and whether the axis is logarithmic."""

    values: np.ndarray
    label: str
    scale: float = 1.0
    log_base: int | None = None


def _rate_unit(values: np.ndarray) -> tuple[float, str]:
    top = float(np.nanmax(np.abs(values))) if values.size else 0.0
    if top >= 1e6:
        return 1e-6, "Mbit/s"
    if top >= 1e3:
        return 1e-3, "kbit/s"
    return 1.0, "bit/s"


def _size_unit(values: np.ndarray) -> tuple[float, str]:
    top = float(np.nanmax(np.abs(values))) if values.size else 0.0
    if top >= 2**20:
        return 2.0**-20, "MiB"
    if top >= 2**10:
        return 2.0**-10, "KiB"
    return 1.0, "bytes"


def _words(path: str, suffix: str) -> str:
    return re.sub(rf"{suffix}$", "", path).replace("_", " ").replace(".", " ").strip()


def metric_axis(
    path: str, values: Sequence[float] | np.ndarray, summary: dict[str, Any] | None = None
) -> Axis:
    """The axis of a metric (a path into the summary) and its values scaled to its unit; with
    a run's summary, its words name the flow, link or WLAN (`readable`)."""
    values = np.asarray(values, dtype=float)

    def words(suffix: str) -> str:
        # The path's own words first, so that a name keeps its underscores and dots.
        return readable(_words(path, suffix), summary)

    if path.endswith("_bps"):
        scale, unit = _rate_unit(values)
        return Axis(values * scale, f"{words('_bps')} ({unit})", scale)
    if path.endswith("_bytes"):
        scale, unit = _size_unit(values)
        return Axis(values * scale, f"{words('_bytes')} ({unit})", scale)
    for suffix, unit in (("_ms", "ms"), ("_s", "s")):
        if path.endswith(suffix):
            return Axis(values, f"{words(suffix)} ({unit})")
    if _FRACTION.search(path):
        return Axis(values, words(""))
    return Axis(values, f"{words('')} (count)")


def parameter_axis(name: str, values: Sequence[Any]) -> Axis | None:
    """The axis of a swept parameter, or None if its values are not numbers with a unit or
    plain numbers (then it is drawn as categories)."""
    raw = list(values)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw):
        return Axis(np.asarray(raw, dtype=float), name)
    if not all(isinstance(v, str) for v in raw):
        return None
    for parse, unit in ((parse_size, _size_unit), (parse_duration, None), (parse_rate, _rate_unit)):
        try:
            parsed = np.asarray([parse(v) for v in raw], dtype=float)
        except ValueError:
            continue
        if parse is parse_duration:
            return Axis(parsed / 1e6, f"{name} (ms)", 1e-6)
        scale, label = unit(parsed)
        spread = parsed.max() / max(parsed.min(), 1.0)
        log = 2 if parse is parse_size and spread >= 4 else (10 if spread >= 100 else None)
        return Axis(parsed * scale, f"{name} ({label})", scale, log)
    return None


def band(
    path: str, mean: np.ndarray, half: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The lower and upper edge of the confidence band of a metric: one whose observed
    values are all non-negative (counts, rates, times) is not drawn below zero, and a
    fraction (probability, fairness) not above one."""
    half = np.nan_to_num(np.asarray(half, dtype=float))
    lower, upper = mean - half, mean + half
    observed = values[~np.isnan(values)]
    if observed.size and observed.min() >= 0:
        lower = np.maximum(lower, 0.0)
    if _FRACTION.search(path):
        upper = np.minimum(upper, 1.0)
    return lower, upper
