"""Metrics: paths to numbers in a run's summary, like ``aggregate_goodput_bps`` or
``wlans[0].mean_contenders`` (``airtcp run --json`` shows the summary).

An experiment's paths are checked before anything runs, against the shape of the summary
each point's scenario would produce (``_core.summary_template``), so a misspelt metric or
an index past the last flow is an error at load time, not a column of NaN.
"""

from __future__ import annotations

import difflib
import math
import re
from typing import Any

_PART = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[([0-9]+)\])?")


class MetricError(ValueError):
    """A path that leads to no number in a summary, and why."""


def lookup(summary: dict[str, Any], path: str) -> Any:
    """The value at ``path``: a number, or None where the summary has none (a transfer that
    did not complete has no completion time); a MetricError if the path does not exist."""
    value: Any = summary
    walked = ""
    for part in path.split("."):
        match = _PART.fullmatch(part)
        if match is None:
            raise MetricError(f"{path!r} is not a path like wlans[0].mean_contenders")
        name, index = match.group(1), match.group(2)
        if not isinstance(value, dict) or name not in value:
            keys = list(value) if isinstance(value, dict) else []
            close = difflib.get_close_matches(name, keys, n=1, cutoff=0.6)
            hint = (
                f"; did you mean {(walked + '.' if walked else '') + close[0]!r}?" if close else ""
            )
            where = f"in {walked}" if walked else "in a run's summary"
            raise MetricError(f"{path!r}: no {name!r} {where}{hint}")
        value = value[name]
        walked = f"{walked}.{name}" if walked else name
        if index is not None:
            if not isinstance(value, list):
                raise MetricError(f"{path!r}: {walked} is not a list")
            if int(index) >= len(value):
                count = f"{len(value)} {walked}" if value else f"no {walked}"
                raise MetricError(f"{path!r}: the scenario has {count}")
            value = value[int(index)]
            walked += f"[{index}]"
    if isinstance(value, bool) or not (value is None or isinstance(value, int | float)):
        example = _first_number(value, path)
        hint = f", such as {example!r}" if example else ""
        raise MetricError(f"{path!r} is not a number; name one inside it{hint}")
    return value


def _first_number(value: Any, prefix: str) -> str | None:
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, int | float) and not isinstance(item, bool):
                return f"{prefix}.{key}"
    if isinstance(value, list) and value:
        return _first_number(value[0], f"{prefix}[0]")
    return None


def extract(summary: dict[str, Any], path: str) -> float:
    """The number at a checked path; NaN where the summary has none."""
    value = lookup(summary, path)
    return math.nan if value is None else float(value)
