"""Flow completion times of a workload (a ``tcp_workload`` flow: docs/scenarios.md,
"Workloads"), summarised per size class as datacenter transport studies report them
(pFabric, HPCC): small flows up to 100 kB, medium up to 10 MB, large above.

Each class gives its flows, how many completed, and the mean, median and 99th percentile
(nearest rank) of their completion times: from arrival to the receiver having every byte and
the FIN. Flows that arrived before the measurement window (warm-up) are left out; flows that
had not completed by the end are counted but have no time (they are the longest: a class
with many of them reads low, which the ``completed`` column shows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# (upper bound in bytes, label); the last class is unbounded.
SIZE_CLASSES: tuple[tuple[float, str], ...] = (
    (100e3, "≤ 100 kB"),
    (10e6, "100 kB - 10 MB"),
    (math.inf, "> 10 MB"),
)


@dataclass(frozen=True)
class FctClass:
    label: str
    flows: int
    completed: int
    mean_ms: float | None
    median_ms: float | None
    p99_ms: float | None


def nearest_rank(sorted_values: list[float], quantile: float) -> float:
    """The nearest-rank percentile of non-empty sorted values."""
    rank = max(math.ceil(quantile * len(sorted_values)), 1)
    return sorted_values[rank - 1]


def fct_classes(workload: dict, measure_from_ns: int = 0) -> list[FctClass]:
    """The completion times of a workload's flows (its summary entry's ``workload``) that
    arrived at or after ``measure_from_ns``, per size class."""
    rows = []
    lower = 0.0
    for upper, label in SIZE_CLASSES:
        times = []
        flows = 0
        for size, arrived, completed in zip(
            workload["size_bytes"], workload["arrived_ns"], workload["completed_ns"], strict=True
        ):
            if arrived < measure_from_ns or not lower < size <= upper:
                continue
            flows += 1
            if completed is not None:
                times.append((completed - arrived) / 1e6)
        times.sort()
        rows.append(
            FctClass(
                label,
                flows,
                len(times),
                sum(times) / len(times) if times else None,
                nearest_rank(times, 0.5) if times else None,
                nearest_rank(times, 0.99) if times else None,
            )
        )
        lower = upper
    return rows
