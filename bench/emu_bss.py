"""Can the emulator keep an 802.11b BSS of kernel stations in real time on this machine
(issue 25's target: wall time within 5 % of the scenario's, per-packet lag p99 under 1 ms)?

Runs the built-in ryu-upload scenario (802.11b at 11 Mbit/s, each station uploading with
iperf3 to a wired server of its own) with STATIONS kernel stations for SECONDS, once with
the engine under SCHED_FIFO (the default) and once in the normal class (--no-realtime), and
prints per run: the scheduling, the emulation's wall time against the scenario's, the lag
from a packet's due time to its write (p50, p99, max), packets the hosts' TUN devices
dropped, the aggregate goodput from 5 s, and the simulator's own for the same scenario.

Run (root, with iperf3 and iproute2): python bench/emu_bss.py [STATIONS [SECONDS]]
"""

from __future__ import annotations

import sys
import time

from airtcp.api import prepare, run_resolved
from airtcp.emulation import runner as emulate

SCENARIO = "ryu-upload"  # built in
MEASURE_FROM_S = 5


def settings(stations: int, seconds: int) -> list[str]:
    return [
        f"wlan.stations={stations}",
        f"simulation.duration={seconds}s",
        f"simulation.measure_from={MEASURE_FROM_S}s",
    ]


def main() -> None:
    stations = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    missing = emulate.check()
    if missing:
        sys.exit("emulation cannot run here: " + "; ".join(missing))
    resolved = prepare(SCENARIO, None, settings(stations, seconds))
    simulated = run_resolved(resolved, timeseries=False).summary["aggregate_goodput_bps"]
    print(f"{SCENARIO}, {stations} kernel stations, {seconds} s, goodput from {MEASURE_FROM_S} s; "
          f"simulated aggregate {simulated / 1e6:.3f} Mbit/s")  # fmt: skip
    print(f"{'engine':>14}  {'wall s':>7}  {'/ scenario':>10}  {'lag p50 / p99 / max us':>24}  "
          f"{'TUN drops':>9}  {'Mbit/s':>7}  {'vs sim':>7}")  # fmt: skip
    for realtime in (True, False):
        started = time.perf_counter()
        summary = emulate.emulate(resolved, realtime=realtime)
        process_s = time.perf_counter() - started
        emulation = summary["emulation"]
        lag = emulation["lag"]
        drops = sum(d["tx_dropped"] + d["rx_dropped"] for d in emulation["device_drops"].values())
        goodput = summary["aggregate_goodput_bps"]
        scheduling = emulation["scheduling"]["policy"]
        lags = f"{lag['p50_us']:g} / {lag['p99_us']:g} / {lag['max_us']:.0f}"
        print(
            f"{scheduling:>14}  {summary['wall_time_s']:>7.2f}  "
            f"{summary['wall_time_s'] / seconds:>10.3f}  {lags:>24}  {drops:>9}  "
            f"{goodput / 1e6:>7.3f}  {goodput / simulated - 1:>+7.1%}",
            flush=True,
        )
        print(f"{'':>14}  (whole call {process_s:.1f} s: namespaces, tools, teardown)")


if __name__ == "__main__":
    main()
