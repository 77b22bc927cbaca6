"""Progress on stderr: a bar for sweeps (runs done, failed, time left) and, for a single run
that lasts more than a moment, a line with the simulated time and the event rate. Both are
drawn only on a terminal and vanish when done."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)


def sweep_progress(
    console: Console, description: str, quiet: bool
) -> tuple[
    contextlib.AbstractContextManager, Callable[[int, int], None], Callable[[dict[str, Any]], None]
]:
    """The bar's context, and the callbacks a sweep calls when it starts and as each run
    finishes. The bar appears when the sweep starts, so an error before (a bad experiment,
    an output directory that holds another's runs) stays one line."""
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[failed]} failed"),
        TimeRemainingColumn(),
        console=console,
        disable=quiet,
    )
    bar = progress.add_task(description, total=None, failed=0)
    failed = 0

    def started(total: int, skipped: int) -> None:
        progress.start()
        progress.update(bar, total=total, completed=skipped)
        if skipped and not quiet:
            console.print(f"resuming: {skipped} of {total} runs already done")

    def finished(record: dict[str, Any]) -> None:
        nonlocal failed
        if record["row"]["status"] != "ok":
            failed += 1
        progress.update(bar, advance=1, failed=failed)

    @contextlib.contextmanager
    def shown() -> Iterator[None]:
        try:
            yield
        finally:
            if progress.live.is_started:
                progress.stop()

    return shown(), started, finished


class RunProgress:
    """A transient line for one long run: simulated seconds of the total, events per
    second, time left. Silent for the first half second and off a terminal."""

    DELAY_S = 0.5
    REFRESH_S = 0.2

    def __init__(self, console: Console, label: str = "simulated"):
        self.console = console
        self.label = label
        self.started = time.monotonic()
        self.last = 0.0
        self.progress: Progress | None = None
        self.task = None

    def __call__(self, simulated_s: float, duration_s: float, events: int | None = None) -> None:
        now = time.monotonic()
        elapsed = now - self.started
        if (
            not self.console.is_terminal
            or elapsed < self.DELAY_S
            or now - self.last < self.REFRESH_S
        ):
            return
        self.last = now
        if self.progress is None:
            self.progress = Progress(
                TextColumn(self.label),
                BarColumn(),
                TextColumn("{task.completed:.1f} of {task.total:g} s"),
                TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
                auto_refresh=False,
            )
            self.progress.start()
            self.task = self.progress.add_task("run", total=duration_s, rate="")
        rate = "" if events is None else f"{events / elapsed / 1e6:.1f} M events/s"
        self.progress.update(self.task, completed=simulated_s, rate=rate)
        self.progress.refresh()

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
