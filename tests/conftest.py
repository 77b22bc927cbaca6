import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "python" / "airtcp" / "scenarios"


def airtcp(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs the CLI as a user would, in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "airtcp.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


@pytest.fixture
def write_scenario(tmp_path: Path):
    def write(text: str, name: str = "scenario.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write
