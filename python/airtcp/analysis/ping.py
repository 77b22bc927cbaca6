"""Ping's statistics from echo round trips, as iputils ping prints them: sent, received,
loss, and min/avg/max/mdev (mdev: the standard deviation, sqrt(mean(x^2) - mean(x)^2)). From
raw times, so that the simulator's ping flows and the kernel's ping serve alike."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class RttStats:
    transmitted: int
    received: int
    loss: float
    min_ms: float | None
    avg_ms: float | None
    max_ms: float | None
    mdev_ms: float | None


def rtt_stats(sent_ns: list[int], returned_ns: list[int | None]) -> RttStats:
    """Statistics of echo round trips: one entry per request, ``None`` for a lost one."""
    rtts = [
        (back - sent) / 1e6
        for sent, back in zip(sent_ns, returned_ns, strict=True)
        if back is not None
    ]
    loss = 1 - len(rtts) / len(sent_ns) if sent_ns else 0.0
    if not rtts:
        return RttStats(len(sent_ns), 0, loss, None, None, None, None)
    mean = sum(rtts) / len(rtts)
    square = sum(r * r for r in rtts) / len(rtts)
    return RttStats(
        len(sent_ns),
        len(rtts),
        loss,
        min(rtts),
        mean,
        max(rtts),
        math.sqrt(max(square - mean * mean, 0.0)),
    )
