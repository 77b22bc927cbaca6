"""The per-flow time series, from the simulator's raw little-endian columns to a DataFrame
without a per-value Python object (about 46 bytes a sample in pandas)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

COLUMNS = {
    "time_s": "<f8",
    "cwnd_bytes": "<u4",
    "ssthresh_bytes": "<f8",
    "srtt_ms": "<f8",
    "bytes_acked": "<u8",
    "goodput_bps": "<f8",
}


def frame(columns: dict[str, Any]) -> pd.DataFrame:
    """A DataFrame (flow, time_s, cwnd_bytes, ...) from ``_core.run``'s columns; the flow is
    categorical, its categories the flows' names in scenario order."""
    codes = np.frombuffer(columns["flow"], dtype="<u4").astype(np.int32)
    data: dict[str, Any] = {
        "flow": pd.Categorical.from_codes(codes, categories=list(columns["flow_names"]))
    }
    for name, dtype in COLUMNS.items():
        data[name] = np.frombuffer(columns[name], dtype=dtype)
    return pd.DataFrame(data, copy=False)
