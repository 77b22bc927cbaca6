"""What a worker does with one task: run it, extract the metrics, never raise.

Kept free of driver state so that it pickles to processes and Dask workers.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

from .. import _core
from .metrics import extract
from .spec import Task


def _row(task: Task) -> dict[str, Any]:
    return {
        "run_id": task.run_id,
        "point": task.point,
        "replication": task.replication,
        "seed": task.seed,
        **task.params,
    }


def failure_record(task: Task, status: str, error: str) -> dict[str, Any]:
    """The record of a run that produced no summary."""
    row = _row(task) | {"status": status, "error": error, "wall_time_s": math.nan}
    row.update({m: math.nan for m in task.metrics})
    return {"row": row, "summary": None}


def execute(task: Task) -> dict[str, Any]:
    """Runs a task; returns {"row": ..., "summary": ..., ["timeseries": ...]}."""
    started = time.perf_counter()
    row = _row(task)
    record: dict[str, Any] = {"row": row, "summary": None}
    try:
        if task.backend == "emu":
            from ..emulation.runner import emulate

            summary, series = emulate(task.scenario), None
        else:
            summary_json, series = _core.run(
                json.dumps(task.scenario), None, task.timeout_s, task.timeseries
            )
            summary = json.loads(summary_json)
        record["summary"] = summary
        row.update({m: extract(summary, m) for m in task.metrics})
        row["status"], row["error"] = "ok", None
        if task.timeseries and series is not None:
            record["timeseries"] = series
    except TimeoutError as error:
        row["status"], row["error"] = "timeout", str(error)
    except Exception as error:  # recorded, never fatal to the sweep
        row["status"], row["error"] = "error", f"{type(error).__name__}: {error}"
    for metric in task.metrics:
        row.setdefault(metric, math.nan)
    row["wall_time_s"] = time.perf_counter() - started
    return record
