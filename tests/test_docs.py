"""Every example in the README and docs works as written, so none can rot: each `airtcp`
command of a shell block runs (in order, in an empty directory: files are named as
built-ins, as a user outside the source tree would), each Python block runs, and each
complete scenario or experiment file in a TOML block validates.

Placeholders a reader replaces are replaced here too: ``tcp://HOST:8786`` by a local Dask
cluster. A block that needs software the project does not install (dask-jobqueue, a batch
scheduler) is skipped by name.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import airtcp
import pytest
from airtcp.experiments.spec import load as load_experiment
from conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
NEEDS_UNINSTALLED = ("dask_jobqueue",)


def blocks(path: Path, language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(path.read_text()) if lang == language]


def commands(block: str) -> list[str]:
    """The airtcp command lines of a shell block, without their comments."""
    lines = []
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if words and words[0] == "airtcp":
            lines.append(line)
    return lines


def complete_file(text: str) -> bool:
    return "[simulation]" in text or "[experiment]" in text


def docs_with(language: str, wanted) -> list[Path]:
    return [doc for doc in DOCS if any(wanted(body) for body in blocks(doc, language))]


def name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def run_line(line: str, cwd: Path, dask_address: str | None) -> None:
    if dask_address:
        line = line.replace("tcp://HOST:8786", dask_address)
    words = shlex.split(line, comments=True)
    stdout = None
    if ">" in words:
        at = words.index(">")
        stdout = cwd / words[at + 1]
        words = words[:at]
    result = subprocess.run(
        [sys.executable, "-m", "airtcp.cli", *words[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, f"{line}\n{result.stderr}"
    if stdout is not None:
        stdout.write_text(result.stdout)


@pytest.mark.parametrize("doc", docs_with("sh", commands), ids=name)
def test_shell_examples_run(doc: Path, tmp_path: Path):
    lines = [line for block in blocks(doc, "sh") for line in commands(block)]
    if any("tcp://HOST:8786" in line for line in lines):
        distributed = pytest.importorskip("distributed")
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            for line in lines:
                run_line(line, tmp_path, cluster.scheduler_address)
    else:
        for line in lines:
            run_line(line, tmp_path, None)


@pytest.mark.parametrize("doc", docs_with("python", lambda code: "airtcp" in code), ids=name)
def test_python_examples_run(doc: Path, tmp_path: Path):
    for code in blocks(doc, "python"):
        if "airtcp" not in code or any(module in code for module in NEEDS_UNINSTALLED):
            continue  # not ours, or needs a batch scheduler (see the module doc)
        result = subprocess.run(
            [sys.executable, "-"], input=code, cwd=tmp_path, capture_output=True, text=True,
            timeout=600,
        )  # fmt: skip
        assert result.returncode == 0, f"{code}\n{result.stderr}"


@pytest.mark.parametrize("doc", docs_with("toml", complete_file), ids=name)
def test_toml_examples_validate(doc: Path, tmp_path: Path):
    for number, text in enumerate(blocks(doc, "toml")):
        if not complete_file(text):
            continue  # a fragment (one table), not a file
        if "[experiment]" in text:
            # Scenario paths are relative to the experiment file; names are built-ins.
            path = tmp_path / "docs-examples" / f"example{number}.toml"
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
            assert load_experiment(path).tasks
        else:
            assert airtcp.prepare(tomllib.loads(text))["flows"]
