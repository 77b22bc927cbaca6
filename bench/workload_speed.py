"""How fast the simulator runs a workload of many short flows: 100 000 TCP flows of 1 to
100 kB (uniform between, mean 50.5 kB), Poisson arrivals at 60 % of a 1 Gbit/s, 100 µs
link, the linux profile; prints the flows, the wall time, events per second and flows
per second of wall time.

Run: python bench/workload_speed.py [FLOWS]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import airtcp

SCENARIO = """
[simulation]
name = "workload-speed"
duration = "{duration}s"

[tcp]
profile = "linux"
congestion_control = "cubic"

[[links]]
a = "client"
b = "server"
rate = "1Gbps"
delay = "100us"
queue = 1000

[[flows]]
kind = "tcp_workload"
src = "client"
dst = "server"
sizes = "short.cdf"
rate = "600Mbps"
count = {flows}
"""


def main() -> None:
    flows = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    # 60 % of 1 Gbit/s in flows of 50.5 kB on average: about 1485 a second.
    duration = int(flows / 1485 * 1.2) + 5
    with tempfile.TemporaryDirectory() as directory:
        (Path(directory) / "short.cdf").write_text("1000 0\n100000 1\n")
        path = Path(directory) / "workload.toml"
        path.write_text(SCENARIO.format(duration=duration, flows=flows))
        summary = airtcp.run(path).summary
    workload = summary["flows"][0]["workload"]
    completed = sum(1 for c in workload["completed_ns"] if c is not None)
    wall = summary["wall_time_s"]
    print(
        f"{len(workload['size_bytes'])} flows arrived, {completed} completed, "
        f"{workload['refused']} refused, over {duration} simulated seconds"
    )
    print(
        f"wall {wall:.2f} s, {summary['events'] / wall / 1e6:.2f} M events/s, "
        f"{completed / wall:.0f} flows per wall second"
    )


if __name__ == "__main__":
    main()
