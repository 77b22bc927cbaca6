"""SIGTERM handled like Ctrl-C: the command line and the sweeps stop the same way for both
(workers stopped and reaped, finished runs kept, exit 128 + signal)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C (see `terminate_as_interrupt`)."""


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """In the main thread, SIGTERM raises `Terminated`, a KeyboardInterrupt, so that it is
    handled like Ctrl-C: workers are stopped and reaped and finished runs kept."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise Terminated

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
