"""Sweep results on disk.

``runs/<run_id>.json`` holds one finished run (its row and full summary), written atomically:
it is the source of truth, so an interrupted sweep leaves only complete runs and a re-run
skips them. ``results.parquet`` (one row per run) is rebuilt from those files, also
atomically. Optional per-run time series go to ``timeseries/<run_id>.parquet``.

A directory holds the runs of one experiment: ``experiment.json`` names its identity
(`airtcp.experiments.spec`), each run records it, and what is read back (``records``, ``frame``,
``load_results``) is that experiment's runs only. A sweep of another experiment into it is
refused before any run (``claim``), and so are runs made before airtcp recorded identities,
which cannot be told apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from ..analysis.timeseries import write_parquet
from ..output import OutputError, atomic_write, output_dir, replacing

ROW_COLUMNS = ("run_id", "point", "replication", "seed", "status", "error", "wall_time_s")
MARKER = "experiment.json"


class ResultStore:
    def __init__(self, out: str | Path, reading: bool = False):
        """The store in ``out``, made ready to take runs; with ``reading`` only read, so that
        a report of an empty or missing directory leaves nothing behind."""
        self.out = Path(out) if reading else output_dir(Path(out))
        self.runs = self.out / "runs"
        if not reading:
            self.runs.mkdir(exist_ok=True)
        marker = self.out / MARKER
        # The identity of the experiment whose runs the directory holds, if one has run.
        self.experiment: str | None = (
            json.loads(marker.read_text())["id"] if marker.exists() else None
        )

    def _holds_runs(self) -> bool:
        return any(self.runs.glob("*.json"))

    def check_recorded(self) -> None:
        """Runs of an airtcp that did not record their experiment cannot be told apart."""
        if self.experiment is None and self._holds_runs():
            raise OutputError(
                f"{self.out}: holds runs made by an older airtcp, which do not record their "
                f"experiment; remove {self.out} and sweep again, or sweep into another --out"
            )

    def claim(self, identity: str) -> None:
        """Makes this the directory of the experiment ``identity``; refuses, before anything
        is written, a directory that holds another experiment's runs."""
        if identity == self.experiment:
            return
        self.check_recorded()
        if self._holds_runs():
            raise OutputError(
                f"{self.out}: holds the runs of another experiment, the one its "
                f"experiment.toml describes; sweep into another --out, or remove {self.out} "
                "to start over"
            )
        atomic_write(self.out / MARKER, json.dumps({"id": identity}).encode(), durable=True)
        self.experiment = identity
        # What another experiment left derived from runs since removed goes too.
        self.write_parquet()

    def done(self, include_failed: bool = True) -> set[str]:
        """Ids of stored runs; without the failed ones if ``include_failed`` is false."""
        if include_failed:
            return {p.stem for p in self.runs.glob("*.json")}
        return {r["row"]["run_id"] for r in self.records() if r["row"]["status"] == "ok"}

    def failed(self, run_ids: set[str]) -> int:
        """How many of these runs are stored as failed."""
        return sum(
            1
            for r in self.records()
            if r["row"]["run_id"] in run_ids and r["row"]["status"] != "ok"
        )

    def save(self, record: dict[str, Any], replace_failed: bool = False) -> bool:
        """Stores a finished run of the claimed experiment; returns False if that run was
        already stored (a failed one is replaced when ``replace_failed``)."""
        path = self.runs / f"{record['row']['run_id']}.json"
        if path.exists():
            previous = json.loads(path.read_text())
            if not (replace_failed and previous["row"]["status"] != "ok"):
                return False
        series = record.pop("timeseries", None)
        if series is not None:
            target = self.out / "timeseries" / f"{record['row']['run_id']}.parquet"
            with replacing(target) as temporary:
                write_parquet(series, temporary)
        stored = {"experiment": self.experiment, **record}
        atomic_write(path, json.dumps(stored).encode(), durable=True)
        return True

    def records(self) -> list[dict[str, Any]]:
        """The stored runs of the directory's experiment."""
        return list(self.each_record())

    def each_record(self) -> Iterator[dict[str, Any]]:
        """The stored runs of the directory's experiment, read one at a time as they are
        asked for (a report that needs one summary reads one file, not every run's)."""
        self.check_recorded()
        for path in sorted(self.runs.glob("*.json")):
            record = json.loads(path.read_text())
            if record.get("experiment") == self.experiment:
                yield record

    def frame(self) -> pd.DataFrame:
        rows = [r["row"] for r in self.records()]
        frame = pd.DataFrame(rows)
        if frame.empty:
            return pd.DataFrame(columns=list(ROW_COLUMNS))
        for column in frame.columns:
            kinds = {type(v) for v in frame[column] if v is not None}
            if len(kinds) > 1 and not kinds <= {int, float}:
                frame[column] = frame[column].map(lambda v: None if v is None else str(v))
        return frame.sort_values(["point", "replication"], kind="stable").reset_index(drop=True)

    def write_parquet(self) -> Path:
        target = self.out / "results.parquet"
        frame = self.frame()
        with replacing(target) as temporary:
            frame.to_parquet(temporary, index=False)
        return target


def load_results(out: str | Path, backend: str = "pandas"):
    """One row per run of the directory's experiment, as a pandas (default) or polars
    DataFrame; an OutputError if its runs do not record their experiment."""
    store = ResultStore(out, reading=True)
    store.check_recorded()
    parquet = store.out / "results.parquet"
    frame = pd.read_parquet(parquet) if parquet.exists() else store.frame()
    if backend == "polars":
        import polars as pl

        return pl.from_pandas(frame)
    if backend != "pandas":
        raise ValueError(f"backend must be 'pandas' or 'polars', got {backend!r}")
    return frame
