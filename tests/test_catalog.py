"""Built-in scenarios and experiment files: listed, printed, and run by name from any
directory; a path still wins over a name; an unknown name is one line listing the built-ins."""

from __future__ import annotations

import json
from pathlib import Path

from airtcp.catalog import built_ins, description
from conftest import ROOT, airtcp

BUILTIN = ROOT / "python" / "airtcp" / "builtin"


def test_every_builtin_file_is_listed_with_its_description():
    files = sorted(BUILTIN.glob("scenarios/*.toml")) + sorted(BUILTIN.glob("experiments/*.toml"))
    assert len(files) >= 4
    result = airtcp("scenarios")
    assert result.returncode == 0, result.stderr
    for path in files:
        line = next(line for line in result.stdout.splitlines() if f" {path.stem} " in line)
        summary = description(path.read_text())
        assert summary and summary in line, (path, line)


def test_description_is_the_first_comment_line():
    assert description("\n# One flow.\n#\n# More.\n[simulation]\n") == "One flow."
    assert description("[simulation]\n# later\n") == ""
    assert [item.name for item in built_ins("experiments")] == ["wired-buffer"]


def test_show_prints_the_file_exactly(tmp_path: Path):
    result = airtcp("scenarios", "show", "wired-tcp", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (BUILTIN / "scenarios" / "wired-tcp.toml").read_text()
    experiment = airtcp("scenarios", "show", "wired-buffer.toml", cwd=tmp_path)
    assert experiment.stdout == (BUILTIN / "experiments" / "wired-buffer.toml").read_text()


def test_unknown_names_list_the_builtins(tmp_path: Path):
    for args in (("scenarios", "show", "nope"), ("run", "nope"), ("validate", "../x")):
        result = airtcp(*args, cwd=tmp_path)
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "ryu-upload" in result.stderr and "wired-tcp" in result.stderr
    result = airtcp("sweep", "nope", cwd=tmp_path)
    assert result.returncode == 2 and "wired-buffer" in result.stderr


def test_run_by_name_from_any_directory(tmp_path: Path):
    result = airtcp("run", "wired-tcp", "--set", "simulation.duration=8s", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["scenario"] == "wired-tcp"


def test_a_file_wins_over_a_builtin_name(tmp_path: Path):
    text = (BUILTIN / "scenarios" / "wired-tcp.toml").read_text()
    (tmp_path / "wired-tcp").write_text(text.replace('name = "wired-tcp"', 'name = "mine"'))
    result = airtcp("run", "wired-tcp", "--set", "simulation.duration=8s", "--json", cwd=tmp_path)
    assert json.loads(result.stdout)["scenario"] == "mine"


def test_experiments_name_builtin_or_relative_scenarios(tmp_path: Path):
    (tmp_path / "base.toml").write_text((BUILTIN / "scenarios" / "wired-tcp.toml").read_text())
    for scenario in ("wired-tcp", "base.toml"):
        (tmp_path / "e.toml").write_text(
            f'[experiment]\nname = "e"\nscenario = "{scenario}"\n'
            '[set]\n"simulation.duration" = "6s"\n'
        )
        result = airtcp("sweep", "e.toml", "-q", "-j", "1", "--out", "out", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        copied = (tmp_path / "out" / "scenario.toml").read_text()
        assert copied == (BUILTIN / "scenarios" / "wired-tcp.toml").read_text()
    (tmp_path / "e.toml").write_text('[experiment]\nname = "e"\nscenario = "missing"\n')
    result = airtcp("sweep", "e.toml", cwd=tmp_path)
    assert result.returncode == 2
    assert "e.toml: experiment.scenario: missing: no such file" in result.stderr
