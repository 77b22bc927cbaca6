"""Output that fits a terminal (README, "Use"): tables honour COLUMNS and
wrap descriptions at word boundaries, lines of text stay whole, `--version` names the
build, every summary and report carries it, and no library warning reaches the user."""

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import airtcp
from airtcp.catalog import KINDS, built_ins
from conftest import airtcp as cli


def _with_columns(columns: int, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"COLUMNS": str(columns)}
    command = [sys.executable, "-m", "airtcp.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def _rows(table: str) -> list[list[str]]:
    """A boxed table's rows, each cell's lines joined by spaces."""
    rows: list[list[str]] = []
    for line in table.splitlines():
        if not line.startswith("│"):
            continue
        cells = [cell.strip() for cell in line.strip("│").split("│")]
        if cells[0] or not rows:
            rows.append(cells)
        else:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
    return rows


def test_tables_fit_columns_and_wrap_descriptions_between_words():
    result = _with_columns(64, "scenarios")
    assert result.returncode == 0, result.stderr
    table = [line for line in result.stdout.splitlines() if line[:1] in "┏┃┡│└"]
    assert max(len(line) for line in table) <= 64
    described = {item.name: item.description for kind in KINDS for item in built_ins(kind)}
    rows = _rows(result.stdout)
    assert [row[0] for row in rows] == list(described)
    for name, _, text in rows:
        # every word whole, in order: wrapped only where the description has a space
        assert text == " ".join(described[name].split()), name


def test_piped_without_a_terminal_keeps_rows_whole():
    # No COLUMNS and no terminal on stdout or stderr (as here): one line a row, for other
    # programs.
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    command = [sys.executable, "-m", "airtcp.cli", "scenarios"]
    result = subprocess.run(
        command, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=300
    )
    described = {item.name: item.description for kind in KINDS for item in built_ins(kind)}
    rows = _rows(result.stdout)
    assert len(rows) == len(described)
    assert sum(line.startswith("│") for line in result.stdout.splitlines()) == len(described)


def test_a_runs_table_fits_and_its_lines_stay_whole():
    result = _with_columns(60, "run", "wired-tcp", "--set", "simulation.duration=6s")
    assert result.returncode == 0, result.stderr
    table = [line for line in result.stdout.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and max(len(line) for line in table) <= 60
    # a line of text longer than 60 columns, on one line
    whole = [line for line in result.stdout.splitlines() if line.startswith("aggregate goodput")]
    assert len(whole) == 1 and len(whole[0]) > 60 and "Jain fairness" in whole[0]


def test_version_names_the_build_and_its_commit():
    result = cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == airtcp.version_text()
    assert re.fullmatch(r"airtcp \d+\.\d+\.\d+( \(commit [0-9a-f]{12}\))?", airtcp.version_text())
    commit = airtcp.__commit__
    checkout = Path(airtcp.__file__).resolve().parents[2]
    if commit is not None:
        # a commit of the checkout it was built from
        known = subprocess.run(
            ["git", "-C", str(checkout), "cat-file", "-e", f"{commit}^{{commit}}"]
        )
        assert known.returncode == 0, commit
    elif (checkout / ".git").exists() and (checkout / "crates/airtcp-py/build.rs").exists():
        raise AssertionError("built from a checkout, yet no commit recorded")


def test_every_summary_and_report_carries_the_build(tmp_path: Path):
    out = tmp_path / "run"
    result = cli("run", "wired-tcp", "--set", "simulation.duration=6s", "--out", str(out))
    assert result.returncode == 0, result.stderr
    written = json.loads((out / "summary.json").read_text())
    assert written["airtcp"] == airtcp.build_info()
    assert written["airtcp"]["version"] == airtcp.__version__
    from airtcp.experiments.report import _versions

    versions = _versions()
    assert versions["airtcp"] == airtcp.__version__
    assert versions["airtcp commit"] == (airtcp.__commit__ or "none (not built from a checkout)")


def test_the_command_list_gives_each_summary_on_one_line():
    result = _with_columns(200, "--help")
    assert result.returncode == 0, result.stderr
    measure = next(line for line in result.stdout.splitlines() if "│ measure" in line)
    assert "--rtt, --capacity, --tcp, all three" in measure


def test_the_mbt_test_of_equal_runs_warns_of_nothing():
    from airtcp.measure.mbt import _p_lower

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # a window-limited flow's runs are often all equal: zero variance, exact
        p = _p_lower([23_186_000.0] * 3, [23_200_000.0, 23_200_000.0, 23_200_010.0])
    assert 0 < p < 1e-6
