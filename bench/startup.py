"""Start-up of the command line, as whole processes a user waits for: `airtcp --help`, a
30-simulated-second run of the built-in ryu-upload scenario (10 stations) printing its
summary, the same run writing --out (Parquet through pyarrow), and `python -c pass` as the
floor every Python tool pays. Median of 7 runs each, in one sitting so the ratios hold.

Run: make bench (or python bench/startup.py)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUN = ["run", "ryu-upload", "--set", "simulation.duration=30s", "--set", "wlan.stations=10"]
CASES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "airtcp --help": [sys.executable, "-m", "airtcp.cli", "--help"],
    "airtcp run (30 s, 10 stations)": [sys.executable, "-m", "airtcp.cli", *RUN],
    "airtcp run ... --out DIR": [sys.executable, "-m", "airtcp.cli", *RUN, "--out", "out"],
}
REPEATS = 7


def median_seconds(command: list[str], cwd: Path) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        subprocess.run(command, cwd=cwd, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        results = {name: median_seconds(command, Path(scratch)) for name, command in CASES.items()}
    floor = results["python -c pass"]
    print(f"{'command':34} {'median s':>9} {'x python':>9}")
    for name, seconds in results.items():
        print(f"{name:34} {seconds:9.3f} {seconds / floor:9.1f}")


if __name__ == "__main__":
    main()
