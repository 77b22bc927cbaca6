"""Simulator speed of two airtcp builds compared in one run: machines are noisy, so each
build runs paper 000's upload scenario (N = 4, 10, 40 stations, 100 simulated seconds, best
of 5) in its own interpreter, the two interleaved over several rounds, and the ratio is
reported per round: of wall times, and of events per second, which compares the builds
when a change of the model also changes how many events the scenario takes.

Run: python bench/ab_speed.py OLD_PYTHON NEW_PYTHON [ROUNDS]
  e.g. an older commit's wheel installed in its own virtualenv against .venv/bin/python.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# A path, not the built-in name: older revisions under test took paths only.
SCENARIO = Path(__file__).resolve().parents[1] / "python/airtcp/builtin/scenarios/ryu-upload.toml"
STATIONS = (4, 10, 40)
CHILD = """
import json, sys, airtcp
best = {}
for n in (4, 10, 40):
    for _ in range(5):
        s = airtcp.run(sys.argv[1], overrides={"wlan.stations": n}).summary
        if n not in best or s["wall_time_s"] < best[n][0]:
            best[n] = (s["wall_time_s"], s["events"])
print(json.dumps(best))
"""


def best_times(python: str) -> dict[str, tuple[float, int]]:
    done = subprocess.run(
        [python, "-c", CHILD, str(SCENARIO)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def main() -> None:
    old, new = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    print("wall s of old / new build (new/old), best of 5, per round;")
    print("then Mevents/s of old / new (new/old): above 1 the new build is faster per event")
    print("round " + " ".join(f"{f'N={n}':>22}" for n in STATIONS))
    for round_ in range(1, rounds + 1):
        a, b = best_times(old), best_times(new)
        walls, rates = [], []
        for n in map(str, STATIONS):
            (wall_a, events_a), (wall_b, events_b) = a[n], b[n]
            walls.append(f"{wall_a:.4f}/{wall_b:.4f} ({wall_b / wall_a:.2f})")
            rate_a, rate_b = events_a / wall_a / 1e6, events_b / wall_b / 1e6
            rates.append(f"{rate_a:.2f}/{rate_b:.2f} ({rate_b / rate_a:.2f})")
        print(f"{round_:>5} " + " ".join(f"{c:>22}" for c in walls))
        print(f"{'':>5} " + " ".join(f"{c:>22}" for c in rates))


if __name__ == "__main__":
    main()
