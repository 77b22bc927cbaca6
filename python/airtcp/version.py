"""This build's version, and the git commit it was built from when built from airtcp's own
checkout (crates/airtcp-py/build.rs): in every summary.json and report, and in
``airtcp --version``."""

from __future__ import annotations

from ._core import __commit__, __version__


def build_info() -> dict[str, str | None]:
    """This build's version, and the git commit it was built from when built from a
    checkout (``None`` otherwise): in every summary.json and report."""
    return {"version": __version__, "commit": __commit__}


def version_text() -> str:
    """``airtcp 0.1.0 (commit 0123456789ab)``, or without the commit when it has none."""
    commit = f" (commit {__commit__})" if __commit__ else ""
    return f"airtcp {__version__}{commit}"
