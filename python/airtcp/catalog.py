"""The built-in scenarios and experiment files, shipped inside the package (package data read
with importlib.resources), and how a command-line argument names one of them or a file.

A file's description is the first line of its leading comment; the rest of the comment is
its documentation. An argument that is an existing file is that file; otherwise a built-in
name (``ryu-upload``, with or without ``.toml``); otherwise an error listing the built-ins.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

KINDS = ("scenarios", "experiments")


@dataclass(frozen=True)
class BuiltIn:
    name: str
    path: Path
    description: str


class NotFound(LookupError):
    """Neither a file nor a built-in: what was asked for and why it is not there."""

    def __init__(self, argument: str, message: str):
        super().__init__(f"{argument}: {message}")
        self.argument, self.message = argument, message


def _directory(kind: str) -> Path:
    # A wheel installs as plain files, so the package directory is a real directory; a
    # zipped install would need as_file(), which airtcp does not support.
    return Path(str(resources.files("airtcp") / "builtin" / kind))


def description(text: str) -> str:
    """The first line of a TOML file's leading comment, or '' when it has none."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        return stripped.lstrip("#").strip() if stripped.startswith("#") else ""
    return ""


def built_ins(kind: str = "scenarios") -> list[BuiltIn]:
    """The built-in files of one kind, by name."""
    return [
        BuiltIn(path.stem, path, description(path.read_text(encoding="utf-8")))
        for path in sorted(_directory(kind).glob("*.toml"))
    ]


def builtin_path(name: str, kind: str = "scenarios") -> Path | None:
    """The path of the built-in ``name`` (``.toml`` optional), or None."""
    stem = name.removesuffix(".toml")
    if not stem or "/" in stem or "\\" in stem or stem.startswith("."):
        return None
    path = _directory(kind) / f"{stem}.toml"
    return path if path.is_file() else None


def locate(argument: str | Path, kind: str = "scenarios", relative_to: Path | None = None) -> Path:
    """The file an argument names: an existing path (relative to ``relative_to`` when
    given, else to the working directory), else a built-in of ``kind``."""
    path = Path(argument)
    candidate = relative_to / path if relative_to is not None else path
    if candidate.is_file():
        return candidate
    found = builtin_path(str(argument), kind)
    if found is not None:
        return found
    if candidate.exists():
        raise NotFound(str(candidate), "not a file")
    singular = kind.removesuffix("s")
    names = ", ".join(item.name for item in built_ins(kind))
    raise NotFound(str(argument), f"no such file and no built-in {singular} (built-ins: {names})")
