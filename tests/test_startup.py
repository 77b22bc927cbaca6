"""The command line starts like a native tool: each command imports only the libraries it
uses (see docs/benchmarks.md for the times). A module imported at the top of cli.py or
airtcp/__init__.py by mistake fails here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = {"pandas", "pyarrow", "matplotlib", "scipy", "distributed", "dask", "numpy"}

PROBE = """
import json, sys
sys.argv = ["airtcp", *json.loads(sys.argv[2])]
try:
    if sys.argv[1:] == ["import"]:
        import airtcp
    else:
        from airtcp.cli import main
        main()
except SystemExit:
    pass
with open(OUT, "w") as f:
    json.dump(sorted({name.partition(".")[0] for name in sys.modules}), f)
"""


def loaded(tmp_path: Path, *args: str) -> set[str]:
    out = tmp_path / "modules.json"
    code = PROBE.replace("OUT", repr(str(out)))
    subprocess.run(
        [sys.executable, "-c", code, "probe", json.dumps(list(args))],
        cwd=tmp_path, capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    return set(json.loads(out.read_text()))


@pytest.mark.parametrize(
    ("args", "allowed"),
    [
        (("import",), set()),
        (("--help",), set()),
        (("run", "--help"), set()),
        (("scenarios",), set()),
        (("bianchi", "--stations", "1-3"), set()),
        (("run", "wired-tcp", "--set", "simulation.duration=6s"), set()),
        (
            ("run", "wired-tcp", "--set", "simulation.duration=6s", "--out", "o"),
            {"pyarrow", "numpy"},
        ),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else None,
)
def test_commands_import_only_what_they_use(tmp_path: Path, args, allowed):
    modules = loaded(tmp_path, *args)
    assert "airtcp" in modules
    assert modules & HEAVY <= allowed, modules & HEAVY - allowed
    if args in (("import",), ("--help",)):
        assert "pydantic" not in modules  # typer itself imports it to parse a command's options
