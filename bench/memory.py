"""Memory of a large run: 1000 uploading 802.11b stations for 600 simulated seconds
(the built-in ryu-upload scenario), each measurement a fresh process, peak RSS of that process.

- `airtcp run` with default settings (the CLI keeps no time series without --out);
- `airtcp.run(...)` from Python with its default time series (every 100 ms, per flow);
- the same with timeseries=False; the difference over the samples is the cost per sample.

Run: make bench (or python bench/memory.py)
"""

from __future__ import annotations

import json
import subprocess
import sys

SCENARIO = "ryu-upload"  # built in
SETTINGS = {"wlan.stations": 1000, "simulation.duration": "600s"}

PEAK = "import resource, sys; peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss"
CLI = (
    PEAK
    + """
import atexit, json
atexit.register(lambda: print(json.dumps({"peak_kib": peak()}), file=sys.stderr))
sys.argv = ["airtcp", "run", sys.argv[1], "--json"] + sum((["--set", s] for s in sys.argv[2:]), [])
from airtcp.cli import main
main()
"""
)
API = (
    PEAK
    + """
import json, airtcp
timeseries = sys.argv[2] == "1"
result = airtcp.run(sys.argv[1], overrides=json.loads(sys.argv[3]), timeseries=timeseries)
frame = result.timeseries
print(json.dumps({"peak_kib": peak(), "samples": len(frame),
                  "frame_bytes": int(frame.memory_usage(deep=True).sum()),
                  "wall_s": result.summary["wall_time_s"]}))
"""
)


def cli() -> dict:
    sets = [f"{k}={v}" for k, v in SETTINGS.items()]
    done = subprocess.run(
        [sys.executable, "-c", CLI, str(SCENARIO), *sets],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stderr.strip().splitlines()[-1])


def api(timeseries: bool) -> dict:
    flag = "1" if timeseries else "0"
    done = subprocess.run(
        [sys.executable, "-c", API, str(SCENARIO), flag, json.dumps(SETTINGS)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def main() -> None:
    command = cli()
    with_series = api(True)
    without = api(False)
    mib = 1024
    print("1000 stations, 600 s simulated (ryu-upload), peak RSS of the whole process:")
    print(f"  airtcp run (defaults, no time series kept):  {command['peak_kib'] / mib:7.1f} MiB")
    print(
        f"  airtcp.run(), time series (default):         {with_series['peak_kib'] / mib:7.1f} MiB"
    )
    print(f"  airtcp.run(timeseries=False):                {without['peak_kib'] / mib:7.1f} MiB")
    samples = with_series["samples"]
    per_sample = (with_series["peak_kib"] - without["peak_kib"]) * 1024 / samples
    print(f"  time series: {samples} samples, {per_sample:.1f} bytes each at the peak,")
    print(f"  {with_series['frame_bytes'] / samples:.1f} bytes each in the pandas DataFrame")
    print(f"  simulation wall time {with_series['wall_s']:.2f} s")


if __name__ == "__main__":
    main()
