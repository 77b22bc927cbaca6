"""Set-up and memory of large WLANs: the built-in ryu-upload scenario with 1000 and 10000
uploading stations (a server each), 30 simulated seconds, each a fresh `airtcp run`
process; then 100 and 1000 stations with geometry (a 5 m circle around the AP: every
radio in range of every other, each frame costing work at each: docs/radio.md). Prints the
whole process's wall time, the event loop's share (the summary's wall_time_s), the rest
(start-up, loading, building the network and routes) and peak RSS.

Run: make bench (or python bench/scale.py)
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

SCENARIO = "ryu-upload"  # built in


def measure(stations: int, geometry: bool = False) -> dict:
    command = [sys.executable, "-m", "airtcp.cli", "run", str(SCENARIO), "--json"]
    command += ["--set", f"wlan.stations={stations}", "--set", "simulation.duration=30s"]
    command += ["--set", "simulation.measure_from=10s"]
    if geometry:
        command += ["--set", "wlan.layout.shape=circle", "--set", "wlan.layout.radius=5"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    summary = json.loads(done.stdout)
    loop = summary["wall_time_s"]
    return {
        "stations": f"{stations}{' geo' if geometry else ''}",
        "nodes": 2 * stations + 2,
        "process_s": wall,
        "event_loop_s": loop,
        "outside_loop_s": wall - loop,
        "events": summary["events"],
        # ru_maxrss of children is the largest child so far: measure small to large.
        "peak_rss_mib": max(peak, before) / 1024,
    }


def main() -> None:
    print(
        f"{'stations':>8} {'nodes':>6} {'process s':>9} {'loop s':>7} {'rest s':>7} "
        f"{'events':>9} {'peak RSS MiB':>12}"
    )
    # Small to large: the children's peak RSS is the largest so far.
    for stations, geometry in ((100, True), (1000, False), (1000, True), (10000, False)):
        m = measure(stations, geometry)
        print(
            f"{m['stations']:>8} {m['nodes']:>6} {m['process_s']:>9.2f} "
            f"{m['event_loop_s']:>7.2f} {m['outside_loop_s']:>7.2f} {m['events']:>9} "
            f"{m['peak_rss_mib']:>12.0f}"
        )


if __name__ == "__main__":
    main()
