"""Running an experiment: skip what is done, run the rest on local processes, threads or a
Dask cluster, store each finished run at once, show progress, and stop cleanly on Ctrl-C or
SIGTERM.

Exactly-once: runs are keyed by a hash of their resolved scenario and seed, and only the
driver writes results, once per key, into a directory that holds this experiment's runs
only (`airtcp.experiments.store`).

Always ends: a local worker that dies (killed, out of memory) breaks the process pool, and
every run it held may be the culprit. Those runs are run again one at a time; a run whose
worker dies a second time is recorded as failed with the cause, and the others finish. A pool
whose workers die before running anything stops the sweep with one message.

Worker processes are spawned without importing the user's script (they need nothing from
it), so `airtcp.sweep` works from a script without an ``if __name__ == "__main__":`` guard,
and from standard input.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import signal
import socket
import sys
from collections import Counter, deque
from collections.abc import Callable, Generator, Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..interrupts import Terminated, terminate_as_interrupt
from ..output import atomic_write
from .spec import Experiment, Task
from .store import ResultStore
from .worker import execute, failure_record

# A run whose worker process dies this many times is recorded as failed.
MAX_WORKER_DEATHS = 2
# Runs handed to each worker at a time: one running and one waiting, so that a worker does
# not idle while the driver stores a result; few enough that a dead pool names few suspects.
IN_FLIGHT_PER_WORKER = 2


class SweepError(Exception):
    """A sweep that cannot go on (workers cannot start, a cluster cannot be reached)."""


@dataclass
class SweepOutcome:
    total: int
    skipped: int
    completed: int
    failed: int
    # The signal that stopped the sweep (SIGINT or SIGTERM), 0 if none did.
    interrupted: int = 0
    # Failed runs among all the experiment's runs, stored before this sweep included.
    failed_total: int = 0


Progress = Callable[[dict[str, Any]], None]


def _threads(tasks: list[Task], jobs: int) -> Iterator[dict[str, Any]]:
    with cf.ThreadPoolExecutor(max_workers=jobs) as executor:
        futures = [executor.submit(execute, task) for task in tasks]
        try:
            for future in cf.as_completed(futures):
                yield future.result()
        except BaseException:
            executor.shutdown(wait=False, cancel_futures=True)
            raise


def _processes(tasks: list[Task], jobs: int) -> Iterator[dict[str, Any]]:
    """Runs tasks on pools of worker processes, keeping few tasks per worker in flight so
    that a dead pool tells which runs may have killed it."""
    fresh: deque[Task] = deque(tasks)
    suspects: deque[Task] = deque()
    deaths: Counter[str] = Counter()
    while fresh or suspects:
        # After a death, the runs that were on the pool go alone, one at a time on one
        # worker, so that the next death is the culprit's own.
        if suspects:
            lost, cause = yield from _one_pool(suspects, workers=1, in_flight_limit=1)
        else:
            lost, cause = yield from _one_pool(fresh, jobs, jobs * IN_FLIGHT_PER_WORKER)
        for task in lost:
            deaths[task.run_id] += 1
            if deaths[task.run_id] >= MAX_WORKER_DEATHS:
                message = f"its worker process died {deaths[task.run_id]} times ({cause})"
                yield failure_record(task, "error", message)
            else:
                suspects.append(task)


def _one_pool(
    source: deque[Task], workers: int, in_flight_limit: int
) -> Generator[dict[str, Any], None, tuple[list[Task], str]]:
    """Runs tasks from ``source`` on one pool, at most ``in_flight_limit`` handed to it at a
    time, until it is empty or the pool breaks; yields records and returns the runs lost
    with a broken pool and the cause of its death."""
    context = multiprocessing.get_context("spawn")
    started = context.Event()
    executor = cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_worker_init,
        initargs=(started,),
    )
    in_flight: dict[cf.Future, Task] = {}  # in the order handed to the pool
    lost: list[Task] = []
    try:
        while source or in_flight:
            while source and len(in_flight) < in_flight_limit:
                task = source.popleft()
                try:
                    with _without_main_script():
                        in_flight[executor.submit(execute, task)] = task
                except OSError as error:
                    raise SweepError(f"cannot start worker processes: {error}") from None
            done, _ = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
            broken = False
            for future in [f for f in in_flight if f in done]:
                try:
                    record = future.result()
                except BrokenProcessPool:
                    broken = True
                    continue
                del in_flight[future]
                yield record
            if broken:
                # In the order they were handed out, so that the culprit, which a worker
                # took first, is re-run first when they go one at a time.
                lost = list(in_flight.values())
                break
    except BaseException:
        _stop(executor)
        raise
    # Exit codes are read only after shutdown has joined the pool's manager thread: it reaps
    # the dead worker itself, and a concurrent read would see no status.
    workers_started = list(getattr(executor, "_processes", {}).values())
    executor.shutdown(wait=True, cancel_futures=True)
    cause = _death_cause(workers_started)
    if lost and not started.is_set():
        raise SweepError(
            f"worker processes could not start ({cause}); their error is printed above. "
            "--threads (threads=True) runs without worker processes"
        )
    return lost, cause


def _worker_init(started) -> None:
    """In each worker: note that it came up, and leave Ctrl-C to the driver, which stops
    the workers and keeps what finished."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    started.set()


@contextlib.contextmanager
def _without_main_script() -> Iterator[None]:
    """Spawned workers re-import the parent's ``__main__`` script unless it looks like an
    interactive session; they only need airtcp, so hide the script while they start."""
    main = sys.modules["__main__"]
    spec = getattr(main, "__spec__", None)
    path = getattr(main, "__file__", None)
    main.__spec__ = None
    if path is not None:
        del main.__file__
    try:
        yield
    finally:
        main.__spec__ = spec
        if path is not None:
            main.__file__ = path


def _death_cause(workers: list[multiprocessing.process.BaseProcess]) -> str:
    codes = [p.exitcode for p in workers if p.exitcode not in (None, 0)]
    if not codes:
        return "no exit status"
    # A broken pool terminates its other workers (SIGTERM): the cause is the death that is
    # not that, whichever worker it was (a loaded machine changes which one the list holds
    # first).
    code = next((code for code in codes if code != -signal.SIGTERM), codes[0])
    if code < 0:
        name = signal.Signals(-code).name
        hint = "; out of memory?" if -code == signal.SIGKILL else ""
        return f"killed by {name}{hint}"
    return f"exit code {code}"


def _stop(executor: cf.Executor) -> None:
    """Stops at once: running simulations are abandoned (they are re-run on resume)."""
    if isinstance(executor, cf.ProcessPoolExecutor):
        for process in list(getattr(executor, "_processes", {}).values()):
            process.terminate()
    executor.shutdown(wait=False, cancel_futures=True)


def check_scheduler(address: str, timeout: float = 5.0) -> None:
    """Fails fast, with one line, if no Dask scheduler answers at ``address``."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if parts.scheme not in ("tcp", "tls") or not host or port is None:
        raise SweepError(f"--dask {address}: expected an address like tcp://HOST:8786")
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise SweepError(f"--dask {address}: no scheduler answers ({reason})") from None


def _dask(tasks: list[Task], address: str) -> Iterator[dict[str, Any]]:
    check_scheduler(address)
    from distributed import Client, as_completed

    with Client(address, timeout="10s") as client:
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
    """Runs the experiment's missing runs into ``out``; safe to call again to resume. An
    OutputError, before anything is written, if ``out`` holds another experiment's runs."""
    return run_experiments(
        [(experiment, out)], jobs, dask, threads, retry_failed, on_start, on_record
    )


def run_experiments(
    sweeps: list[tuple[Experiment, str | Path]],
    jobs: int | None = None,
    dask: str | None = None,
    threads: bool = False,
    retry_failed: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_record: Progress | None = None,
) -> SweepOutcome:
    """Runs the missing runs of several experiments, each into its own directory, as one
    sweep: one set of workers, one count of runs (a reproduction's sweeps of two setups).
    The directories are claimed in order, each refused as `run_experiment` refuses one."""
    owners: dict[str, ResultStore] = {}
    claimed: list[tuple[ResultStore, set[str]]] = []
    todo: list[Task] = []
    total = skipped = 0
    for experiment, out in sweeps:
        store = ResultStore(out)
        store.claim(experiment.identity)
        atomic_write(store.out / "experiment.toml", experiment.text.encode())
        atomic_write(store.out / "scenario.toml", experiment.scenario_path.read_bytes())
        done = store.done(include_failed=not retry_failed)
        all_ids = {t.run_id for t in experiment.tasks}
        for task in experiment.tasks:
            if task.run_id not in done and task.run_id not in owners:
                owners[task.run_id] = store
                todo.append(task)
        claimed.append((store, all_ids))
        total += len(all_ids)
        skipped += len(done & all_ids)
    outcome = SweepOutcome(total=total, skipped=skipped, completed=0, failed=0)
    if on_start:
        on_start(outcome.total, outcome.skipped)
    jobs = jobs or os.cpu_count() or 1
    if any(experiment.settings.backend == "emu" for experiment, _ in sweeps):
        # Real time on this machine's kernels: one run at a time, in this thread, so that
        # Ctrl-C reaches the run and it removes its namespaces.
        if dask:
            raise SweepError("--dask: emulated runs use this machine's kernels; run them here")
        from ..emulation.runner import require

        try:
            require()
        except OSError as error:
            raise SweepError(str(error)) from None
        source = (execute(task) for task in todo)
    elif dask:
        source = _dask(todo, dask)
    elif threads:
        source = _threads(todo, jobs)
    else:
        source = _processes(todo, jobs)
    try:
        with terminate_as_interrupt():
            for record in source:
                if owners[record["row"]["run_id"]].save(record, replace_failed=retry_failed):
                    outcome.completed += 1
                    if record["row"]["status"] != "ok":
                        outcome.failed += 1
                    if on_record:
                        on_record(record)
    except KeyboardInterrupt as stop:
        outcome.interrupted = signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT
        source.close()
    finally:
        for store, _ in claimed:
            store.write_parquet()
    outcome.failed_total = sum(store.failed(ids) for store, ids in claimed)
    return outcome
