"""Cost of the congestion controllers and of SACK and timestamps: one flow on a 100 Mbit/s,
100 ms path with 1e-5 random loss (a loss every ~12 s) for 120 simulated seconds, each
controller with the RFC profile (no options), with SACK and timestamps on, and (CUBIC and
BBR) with Linux's RACK-TLP on top, which BBR needs (its rate samples ride on RACK's records;
it also paces every segment), best of 3 in this process. Prints goodput, events, wall time
and events per second, and each row's cost per event as a ratio to NewReno without options
in the same run (machines are noisy).

Run: make bench (or python bench/tcp_variants.py)
"""

from __future__ import annotations

import airtcp

SCENARIO = {
    "simulation": {"name": "lfn", "duration": "120s", "measure_from": "5s"},
    "tcp": {"send_buffer": "32MiB", "receive_buffer": "32MiB"},
    "links": [{"a": "client", "b": "server", "rate": "100Mbps", "delay": "50ms",
               "queue": 833, "loss": 1e-5}],
    "flows": [{"name": "bulk", "src": "client", "dst": "server"}],
}  # fmt: skip


OPTIONS = {
    "-": {"sack": False, "timestamps": False},
    "sack+ts": {"sack": True, "timestamps": True},
    "rack": {"sack": True, "timestamps": True, "loss_recovery": "rack_tlp",
             "zero_window": "retransmit"},
}  # fmt: skip


def best_of_3(controller: str, options: str) -> dict:
    tcp = {**SCENARIO["tcp"], "congestion_control": controller, **OPTIONS[options]}
    best = None
    for _ in range(3):
        summary = airtcp.run({**SCENARIO, "tcp": tcp}, seed=1, timeseries=False).summary
        if best is None or summary["wall_time_s"] < best["wall_time_s"]:
            best = summary
    return best


def option_sets(controller: str) -> tuple[str, ...]:
    if controller == "bbr":
        return ("rack",)
    if controller == "cubic":
        return ("-", "sack+ts", "rack")
    return ("-", "sack+ts")


def main() -> None:
    print(f"{'controller':<16}{'options':<9}{'Mbit/s':>8}{'events':>11}{'wall s':>8}"
          f"{'Mev/s':>7}{'ns/ev vs newreno':>18}")  # fmt: skip
    base = None
    for controller in airtcp._core.congestion_controls():
        for options in option_sets(controller):
            s = best_of_3(controller, options)
            per_event = s["wall_time_s"] / s["events"]
            base = base or per_event
            print(f"{controller:<16}{options:<9}"
                  f"{s['flows'][0]['goodput_bps'] / 1e6:>8.1f}{s['events']:>11}"
                  f"{s['wall_time_s']:>8.3f}{s['events'] / s['wall_time_s'] / 1e6:>7.1f}"
                  f"{per_event / base:>18.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
