"""The per-flow time series, from the simulator's raw little-endian columns to a DataFrame
without a per-value Python object (about 66 bytes a sample in pandas), or straight to
Parquet through pyarrow (pandas is slow to import and not needed to write); and the series
of the MACs of WLANs with geometry (``columns["macs"]``), the wired links' and the MACs'
queues (``columns["queues"]``) and the flows' one-way delays (``columns["delays"]``) the
same way."""

from __future__ import annotations

import itertools
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = {
    "time_s": "<f8",
    "cwnd_bytes": "<u4",
    "send_window_bytes": "<u4",
    "ssthresh_bytes": "<f8",
    "srtt_ms": "<f8",
    "bytes_acked": "<u8",
    "acks_sent": "<u8",
    "acks_received": "<u8",
    "goodput_bps": "<f8",
    "in_handoff": "?",
}
# Per MAC of a WLAN with geometry, per sampling interval (docs/radio.md).
MAC_COLUMNS = {
    "time_s": "<f8",
    "attempts": "<u8",
    "failures": "<u8",
    "rate_bps": "<f8",
    "rssi_dbm": "<f8",
}
# Per wired link direction, per sampling instant (docs/scenarios.md, "AQM on wired links").
QUEUE_COLUMNS = {
    "time_s": "<f8",
    "packets": "<u4",
    "bytes": "<u8",
    "drops": "<u8",
    "ecn_marks": "<u8",
}
# With `simulation.queue_sojourn`, beside them: the packets dequeued since the last instant,
# their mean and longest sojourn (NaN when none left; docs/scenarios.md, "Queue sojourn").
SOJOURN_COLUMNS = {
    "dequeued": "<u8",
    "sojourn_mean_ms": "<f8",
    "sojourn_max_ms": "<f8",
}
# Per timed flow, per sampling interval (docs/scenarios.md, "One-way delay").
DELAY_COLUMNS = {
    "time_s": "<f8",
    "packets": "<u8",
    "mean_ms": "<f8",
    "max_ms": "<f8",
    "jitter_ms": "<f8",
}


def _codes(columns: dict[str, Any]) -> Any:
    import numpy as np

    return np.frombuffer(columns["flow"], dtype="<u4").astype(np.int32)


def _values(columns: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    return {name: np.frombuffer(columns[name], dtype=dtype) for name, dtype in COLUMNS.items()}


def frame(columns: dict[str, Any]) -> pd.DataFrame:
    """A DataFrame (flow, time_s, cwnd_bytes, ...) from ``_core.run``'s columns; the flow is
    categorical, its categories the flows' names in scenario order."""
    import pandas as pd

    flow = pd.Categorical.from_codes(_codes(columns), categories=list(columns["flow_names"]))
    return pd.DataFrame({"flow": flow, **_values(columns)}, copy=False)


def _strings(pa: Any, texts: list[str]) -> Any:
    """A pyarrow string array from its offsets and bytes (``pa.array`` would import pandas)."""
    encoded = [text.encode() for text in texts]
    offsets = array("i", [0, *itertools.accumulate(len(raw) for raw in encoded)])
    buffers = [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(texts), buffers)


def write_parquet(columns: dict[str, Any], path: Path) -> None:
    """The same table as `frame`, written to ``path`` (read back, flow is categorical).
    Arrays are made from the raw buffers: pyarrow imports pandas when handed numpy arrays."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = len(columns["flow"]) // 4
    # Booleans come one to a byte; arrow packs them in bits, hence the cast.
    types = {"<f8": pa.float64(), "<u4": pa.uint32(), "<u8": pa.uint64(), "?": pa.uint8()}

    def array(kind: Any, raw: bytes) -> Any:
        column = pa.Array.from_buffers(kind, rows, [None, pa.py_buffer(raw)])
        return column.cast(pa.bool_()) if kind == pa.uint8() else column

    flow = pa.DictionaryArray.from_arrays(
        array(pa.uint32(), columns["flow"]).cast(pa.int32()),
        _strings(pa, list(columns["flow_names"])),
    )
    data = {name: array(types[dtype], columns[name]) for name, dtype in COLUMNS.items()}
    pq.write_table(pa.table({"flow": flow, **data}), path)


def mac_frame(columns: dict[str, Any]) -> pd.DataFrame:
    """A DataFrame (node, wlan, time_s, attempts, failures, rate_bps, rssi_dbm) of the MACs
    of WLANs with geometry, one row per MAC per interval; node and wlan (its AP) are
    categorical. Empty without such WLANs or without a time series."""
    import numpy as np
    import pandas as pd

    macs = columns["macs"]
    codes = np.frombuffer(macs["mac"], dtype="<u4").astype(np.int32)
    nodes, wlans = list(macs["nodes"]), list(macs["wlans"])
    # A MAC is a (node, WLAN): a station of two WLANs has two MACs of one node name.
    node_names = sorted(set(nodes), key=nodes.index)
    node_codes = np.array([node_names.index(n) for n in nodes], dtype=np.int32)
    wlan_names = sorted(set(wlans), key=wlans.index)
    wlan_codes = np.array([wlan_names.index(w) for w in wlans], dtype=np.int32)
    values = {name: np.frombuffer(macs[name], dtype=t) for name, t in MAC_COLUMNS.items()}
    return pd.DataFrame(
        {
            "node": pd.Categorical.from_codes(
                node_codes[codes] if len(codes) else codes, categories=node_names
            ),
            "wlan": pd.Categorical.from_codes(
                wlan_codes[codes] if len(codes) else codes, categories=wlan_names
            ),
            **values,
        },
        copy=False,
    )


def write_mac_parquet(columns: dict[str, Any], path: Path) -> None:
    """The same table as `mac_frame`, written to ``path`` with node and wlan as strings."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    macs = columns["macs"]
    rows = len(macs["mac"]) // 4
    types = {"<f8": pa.float64(), "<u8": pa.uint64()}
    keys = array("I")
    keys.frombytes(macs["mac"])
    data = {
        "node": _strings(pa, [macs["nodes"][k] for k in keys]),
        "wlan": _strings(pa, [macs["wlans"][k] for k in keys]),
        **{
            name: pa.Array.from_buffers(types[t], rows, [None, pa.py_buffer(macs[name])])
            for name, t in MAC_COLUMNS.items()
        },
    }
    pq.write_table(pa.table(data), path)


def _keyed_frame(
    table: dict[str, Any], key: str, names: list[str], spec: dict[str, str]
) -> pd.DataFrame:
    """A DataFrame of ``table``'s columns (`spec`) after its ``key`` column, categorical over
    ``names``."""
    import numpy as np
    import pandas as pd

    codes = np.frombuffer(table[key], dtype="<u4").astype(np.int32)
    values = {name: np.frombuffer(table[name], dtype=t) for name, t in spec.items()}
    return pd.DataFrame(
        {key: pd.Categorical.from_codes(codes, categories=names), **values}, copy=False
    )


def _write_keyed(
    table: dict[str, Any], key: str, names: list[str], spec: dict[str, str], path: Path
) -> None:
    """The same table as `_keyed_frame`, written to ``path`` with ``key`` as a string."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = len(table[key]) // 4
    types = {"<f8": pa.float64(), "<u8": pa.uint64(), "<u4": pa.uint32()}
    keys = array("I")
    keys.frombytes(table[key])
    data = {
        key: _strings(pa, [names[k] for k in keys]),
        **{
            name: pa.Array.from_buffers(types[t], rows, [None, pa.py_buffer(table[name])])
            for name, t in spec.items()
        },
    }
    pq.write_table(pa.table(data), path)


def _queue_columns(queues: dict[str, Any]) -> dict[str, str]:
    """The queue columns a run has: the sojourns' too when it measured them."""
    return QUEUE_COLUMNS | SOJOURN_COLUMNS if queues.get("dequeued") else QUEUE_COLUMNS


def queue_frame(columns: dict[str, Any]) -> pd.DataFrame:
    """A DataFrame (direction, time_s, packets, bytes, drops, ecn_marks; with
    ``simulation.queue_sojourn`` also dequeued, sojourn_mean_ms, sojourn_max_ms) of the wired
    links' queues and, with ``simulation.queue_sojourn``, the WLANs' MAC queues, one row per
    queue per sampling instant; direction ("a→b", "sta→ap (WLAN)") is categorical. Empty
    without such queues or without a time series."""
    queues = columns["queues"]
    names = list(queues["directions"])
    return _keyed_frame(queues, "direction", names, _queue_columns(queues))


def write_queue_parquet(columns: dict[str, Any], path: Path) -> None:
    """The same table as `queue_frame`, written to ``path`` with direction as a string."""
    queues = columns["queues"]
    names = list(queues["directions"])
    _write_keyed(queues, "direction", names, _queue_columns(queues), path)


def delay_frame(columns: dict[str, Any]) -> pd.DataFrame:
    """A DataFrame (flow, time_s, packets, mean_ms, max_ms, jitter_ms) of the flows' one-way
    delays (``simulation.one_way_delay``), one row per timed flow per sampling interval: the
    data packets delivered in it, their mean and largest delay (NaN without any), and RFC
    3550's jitter then. Empty without the setting or without a time series."""
    names = list(columns["flow_names"])
    return _keyed_frame(columns["delays"], "flow", names, DELAY_COLUMNS)


def write_delay_parquet(columns: dict[str, Any], path: Path) -> None:
    """The same table as `delay_frame`, written to ``path`` with flow as a string."""
    names = list(columns["flow_names"])
    _write_keyed(columns["delays"], "flow", names, DELAY_COLUMNS, path)
