"""Experiment-layer speed: a 200-run sweep on 1 vs 2 local worker processes (and 2
threads), and the per-run overhead of the layer against bare in-process runs.

Run: make bench-sweep
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from airtcp import _core
from airtcp.experiments.spec import load
from airtcp.experiments.sweeper import run_experiment

SCENARIO = "ryu-upload"  # built in
EXPERIMENT = f"""
[experiment]
name = "bench"
scenario = "{SCENARIO}"
replications = 20
[set]
"simulation.duration" = "40s"
[grid]
"wlan.stations" = {{ start = 1, stop = 10 }}
"""


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.toml"
        path.write_text(EXPERIMENT)
        experiment = load(path)
        runs = len(experiment.tasks)
        started = time.perf_counter()
        for task in experiment.tasks:
            _core.run(json.dumps(task.scenario))
        bare = time.perf_counter() - started
        timings = {}
        for label, jobs, threads in (
            ("1 process", 1, False),
            ("2 processes", 2, False),
            ("2 threads", 2, True),
        ):
            started = time.perf_counter()
            outcome = run_experiment(
                experiment, Path(tmp) / label.replace(" ", "-"), jobs=jobs, threads=threads
            )
            timings[label] = time.perf_counter() - started
            assert outcome.completed == runs and outcome.failed == 0
    print(f"{runs} runs (ryu-upload, 1-10 stations, 40 s simulated each)")
    print(f"bare in-process loop: {bare:.2f} s ({1e3 * bare / runs:.1f} ms/run)")
    for label, seconds in timings.items():
        print(f"sweep, {label}: {seconds:.2f} s ({1e3 * seconds / runs:.1f} ms/run)")
    print(f"speed-up 2 processes vs 1: {timings['1 process'] / timings['2 processes']:.2f}x")
    print(f"speed-up 2 threads vs 1 process: {timings['1 process'] / timings['2 threads']:.2f}x")
    overhead_ms = 1e3 * (timings["1 process"] - bare) / runs
    print(f"experiment-layer overhead per run (1 process vs bare): {overhead_ms:.1f} ms")


if __name__ == "__main__":
    main()
