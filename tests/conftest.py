import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "python" / "airtcp" / "builtin" / "scenarios"

# Importing readline (pytest may) puts COLUMNS=80 and LINES into the process's environment
# below os.environ, and every command the tests start inherits it: the command line would
# then fit its tables to 80 columns. The tests see it as a program with no terminal would,
# unless a test sets COLUMNS itself (tests/test_terminal.py).
os.unsetenv("COLUMNS")
os.unsetenv("LINES")


# The processes airtcp() started, in order: an emulation's namespaces are named after the
# process that made it (airtcp-<pid>-...), so a test tells its own from another's by these.
STARTED: list[int] = []


def airtcp(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs the CLI as a user would, in a subprocess."""
    command = [sys.executable, "-m", "airtcp.cli", *args]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd
    ) as process:
        STARTED.append(process.pid)
        try:
            stdout, stderr = process.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def figures_in_chromium(report: Path, tmp_path: Path) -> tuple[int, int]:
    """The figures a report page says it has, and those headless chromium decoded (skips
    the test without chromium)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (make test installs it)")
    flags = [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'chromium'}", "--virtual-time-budget=5000", "--dump-dom",
    ]  # fmt: skip
    command = [chromium, *flags, report.as_uri()]
    dom = subprocess.run(command, capture_output=True, text=True, timeout=120).stdout
    expected = re.search(r'data-figures="(\d+)"', dom)
    loaded = re.search(r'data-figures-loaded="(\d+)"', dom)
    assert expected and loaded, dom[:500]
    return int(expected.group(1)), int(loaded.group(1))


@pytest.fixture
def write_scenario(tmp_path: Path):
    def write(text: str, name: str = "scenario.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write
