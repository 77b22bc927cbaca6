"""Simulator speed on paper 000's upload scenario: wall time, events per second and peak
memory for N = 4, 10, 40 stations, 100 simulated seconds each, one core.

Each N runs in its own process so that peak RSS is that run's alone. Run: make bench
"""

from __future__ import annotations

import json
import subprocess
import sys

SCENARIO = "ryu-upload"  # built in
CHILD = """
import json, resource, sys
import airtcp
best = None
for _ in range(int(sys.argv[3])):
    r = airtcp.run(sys.argv[1], overrides={"wlan.stations": int(sys.argv[2])}).summary
    if best is None or r["wall_time_s"] < best["wall_time_s"]:
        best = r
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"wall": best["wall_time_s"], "events": best["events"], "rss_mib": rss,
                  "goodput": best["aggregate_goodput_bps"]}))
"""


def measure(stations: int, repeats: int = 3) -> dict:
    output = subprocess.run(
        [sys.executable, "-c", CHILD, str(SCENARIO), str(stations), str(repeats)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(output)


def main() -> None:
    rows = {n: measure(n) for n in (4, 10, 40)}
    header = ("N", "wall s", "events", "Mevents/s", "peak MiB", "goodput Mbit/s")
    widths = (3, 8, 10, 10, 9, 15)
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, widths, strict=True)))
    for n, r in rows.items():
        print(
            f"{n:>3} {r['wall']:>8.3f} {r['events']:>10} {r['events'] / r['wall'] / 1e6:>10.2f} "
            f"{r['rss_mib']:>9.1f} {r['goodput'] / 1e6:>15.3f}"
        )
    print(f"wall time ratio N=40 / N=4: {rows[40]['wall'] / rows[4]['wall']:.2f}")


if __name__ == "__main__":
    main()
