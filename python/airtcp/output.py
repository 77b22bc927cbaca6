"""Writing results: every file is replaced atomically (a reader sees the old file or the new
one, never half of one) and created with the user's umask, like any other tool's output.

Temporary files are opened by name with ``O_EXCL`` rather than through ``tempfile``, whose
files are private (mode 0600) whatever the umask.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path


class OutputError(Exception):
    """An output location that cannot be used: a one-line message naming it."""


def output_dir(path: Path, option: str = "--out") -> Path:
    """Creates ``path`` as a directory if needed; an OutputError says why it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(f"{option} {path}: exists and is not a directory") from None
    except OSError as error:
        raise OutputError(f"{option} {path}: cannot create: {error.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {path}: not writable")
    return path


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A fresh temporary path beside ``path`` for a writer to create; on success it replaces
    ``path``, on failure it is removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
    try:
        yield temporary
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def atomic_write(path: Path, data: bytes, durable: bool = False) -> None:
    """Writes ``data`` to ``path`` atomically; ``durable`` also syncs it to disk first."""
    with replacing(path) as temporary, open(temporary, "xb") as file:
        file.write(data)
        if durable:
            file.flush()
            os.fsync(file.fileno())
