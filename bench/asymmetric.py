"""Cost of paper 003's agents: the built-in ahn-asymmetric scenario (8 kbit/s uplink, BER
1e-6) under each scheme, 50 and 3600 simulated seconds, best of 3 runs in this process.
Prints wall time, events, events per second, and the agents' state at its largest (ACKs
waiting in trains, DAR's list blocks), so a long run shows whether state stays bounded.
The agents' cost is the ratio to `normal` in the same run (machines are noisy).

Run: make bench (or python bench/asymmetric.py)
"""

from __future__ import annotations

import airtcp

SCENARIO = "ahn-asymmetric"  # built in
SCHEMES = {
    "normal": ("none", "none"),
    "af_ar": ("af", "ar"),
    "af_acc": ("acc", "acc"),
    "af_dar": ("af", "dar"),
}


def measure(scheme: str, duration: str) -> dict:
    near, far = SCHEMES[scheme]
    overrides = {
        "agents.0.kind": near,
        "agents.1.kind": far,
        "links.1.b_to_a.rate": "8kbps",
        "links.1.ber": 1e-6,
        "simulation.duration": duration,
    }
    best = None
    for _ in range(3):
        summary = airtcp.run(SCENARIO, overrides=overrides, timeseries=False).summary
        if best is None or summary["wall_time_s"] < best["wall_time_s"]:
            best = summary
    counters: dict[str, int] = {}
    for agent in best.get("agents", []):  # acc sits at both ends: the larger of each
        for name, value in agent["counters"].items():
            counters[name] = max(counters.get(name, 0), value)
    return {
        "scheme": scheme,
        "duration": duration,
        "wall_s": best["wall_time_s"],
        "events": best["events"],
        "mevents_per_s": best["events"] / best["wall_time_s"] / 1e6,
        "most_pending_acks": counters.get("most_pending_acks", 0),
        "most_list_blocks": counters.get("most_list_blocks", 0),
        "goodput_mbps": best["flows"][0]["goodput_bps"] / 1e6,
    }


def main() -> None:
    header = "scheme    duration  wall s   events     Mevents/s  /normal  pending  blocks  Mbit/s"
    print(header)
    for duration in ("50s", "3600s"):
        rows = [measure(scheme, duration) for scheme in SCHEMES]
        base = rows[0]["wall_s"]
        for r in rows:
            print(
                f"{r['scheme']:<9} {r['duration']:>8}  {r['wall_s']:.4f}  {r['events']:>9}  "
                f"{r['mevents_per_s']:>9.2f}  {r['wall_s'] / base:>7.2f}  "
                f"{r['most_pending_acks']:>7}  {r['most_list_blocks']:>6}  "
                f"{r['goodput_mbps']:.3f}"
            )


if __name__ == "__main__":
    main()
