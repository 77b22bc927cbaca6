"""Running an experiment: skip what is done, run the rest on local processes, threads or a
Dask cluster, store each finished run at once, show progress, and stop cleanly on Ctrl-C.

Exactly-once: runs are keyed by a hash of their resolved scenario and seed, and only the
driver writes results, once per key. A local worker that dies (killed, out of memory)
breaks the process pool; the pool is rebuilt and the unfinished runs are submitted again.
A Dask cluster reschedules the tasks of a lost worker by itself.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import shutil
import signal
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .experiment import Experiment, Task
from .results import ResultStore, atomic_write
from .worker import execute, failure_record


@dataclass
class SweepOutcome:
    total: int
    skipped: int
    completed: int
    failed: int
    interrupted: bool = False


Progress = Callable[[dict[str, Any]], None]


def _local(tasks: list[Task], jobs: int, threads: bool) -> Iterator[dict[str, Any]]:
    pending = {task.run_id: task for task in tasks}
    while pending:
        if threads:
            executor: cf.Executor = cf.ThreadPoolExecutor(max_workers=jobs)
        else:
            executor = cf.ProcessPoolExecutor(
                max_workers=jobs,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_ignore_interrupts,
            )
        futures = {executor.submit(execute, task): run_id for run_id, task in pending.items()}
        try:
            for future in cf.as_completed(futures):
                try:
                    record = future.result()
                except BrokenProcessPool:
                    break  # a worker died: rebuild the pool and resubmit what is left
                pending.pop(futures[future], None)
                yield record
        except BaseException:
            _stop(executor)
            raise
        executor.shutdown(wait=True, cancel_futures=True)


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the driver, which stops them and keeps what finished."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(executor: cf.Executor) -> None:
    """Stops at once: running simulations are abandoned (they are re-run on resume)."""
    if isinstance(executor, cf.ProcessPoolExecutor):
        for process in list(getattr(executor, "_processes", {}).values()):
            process.terminate()
    executor.shutdown(wait=False, cancel_futures=True)


def _dask(tasks: list[Task], address: str) -> Iterator[dict[str, Any]]:
    from distributed import Client, as_completed

    with Client(address, timeout="30s") as client:
        futures = client.map(
            execute, tasks, key=[f"airtcp-run-{t.run_id}" for t in tasks], pure=False
        )
        by_key = {f.key: t for f, t in zip(futures, tasks, strict=True)}
        try:
            for future in as_completed(futures):
                try:
                    yield future.result()
                except Exception as error:  # e.g. KilledWorker after repeated worker loss
                    message = f"{type(error).__name__}: {error}"
                    yield failure_record(by_key[future.key], "error", message)
        finally:
            client.cancel(futures)


def run_experiment(
    experiment: Experiment,
    out: str | Path,
    jobs: int | None = None,
    dask: str | None = None,
    threads: bool = False,
    retry_failed: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_record: Progress | None = None,
) -> SweepOutcome:
    """Runs the experiment's missing runs into ``out``; safe to call again to resume."""
    store = ResultStore(out)
    atomic_write(store.out / "experiment.toml", experiment.text.encode())
    scenario_copy = (experiment.path.parent / experiment.settings.scenario).resolve()
    shutil.copyfile(scenario_copy, store.out / "scenario.toml")
    done = store.done(include_failed=not retry_failed)
    todo = [t for t in experiment.tasks if t.run_id not in done]
    unique: dict[str, Task] = {}
    for task in todo:
        unique.setdefault(task.run_id, task)
    todo = list(unique.values())
    all_ids = {t.run_id for t in experiment.tasks}
    outcome = SweepOutcome(total=len(all_ids), skipped=len(done & all_ids), completed=0, failed=0)
    if on_start:
        on_start(outcome.total, outcome.skipped)
    jobs = jobs or os.cpu_count() or 1
    source = _dask(todo, dask) if dask else _local(todo, jobs, threads)
    try:
        for record in source:
            if store.save(record, replace_failed=retry_failed):
                outcome.completed += 1
                if record["row"]["status"] != "ok":
                    outcome.failed += 1
                if on_record:
                    on_record(record)
    except KeyboardInterrupt:
        outcome.interrupted = True
        source.close()
    finally:
        store.write_parquet()
    return outcome
