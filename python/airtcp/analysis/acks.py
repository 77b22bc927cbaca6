"""Acknowledged bytes over time, read from a node's pcap trace (``_core.tcp_records``: the
simulator's and the emulator's node traces, or any Ethernet capture). An emulated run's TCP
is the kernel's, so airtcp has no sender state to sample: the receiver's ACKs on the wire
stand in for it, as paper 001's Fig 4 plots them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .. import _core

CONNECTION = ["src", "src_port", "dst", "dst_port"]


def acked_bytes(trace: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Times (s) of the ACKs of the trace's connection whose ACKs cover the most bytes (an
    iperf3 run's data connection, not its control one), and the bytes acknowledged by each,
    counted from its first ACK; sequence numbers unwrap past 4 GiB."""
    records = pd.DataFrame(_core.tcp_records(str(trace)))
    acks = records[records["ack"] >= 0]
    if acks.empty:
        raise ValueError(f"{trace}: no TCP ACK in the trace")
    series = [_covered(connection) for _, connection in acks.groupby(CONNECTION, sort=False)]
    return max(series, key=lambda s: s[1][-1])


def _covered(connection: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    numbers = connection["ack"].to_numpy(dtype=np.int64)
    # Steps modulo 2^32 read as signed: an older ACK reordered behind a newer one steps back,
    # a wrap steps forward.
    steps = (np.diff(numbers) + 2**31) % 2**32 - 2**31
    covered = np.maximum.accumulate(np.concatenate([[0], np.cumsum(steps)]))
    return connection["time_ns"].to_numpy() / 1e9, covered


def ack_rate(times_s: np.ndarray, acked: np.ndarray, start_s: float, end_s: float) -> float:
    """Bits per second acknowledged in [start_s, end_s]: the bytes covered by the last ACK
    at or before each edge."""

    def covered(at: float) -> float:
        index = np.searchsorted(times_s, at, side="right") - 1
        return float(acked[index]) if index >= 0 else 0.0

    return 8 * (covered(end_s) - covered(start_s)) / (end_s - start_s)
