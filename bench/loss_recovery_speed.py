"""What Linux's loss recovery costs the simulator: the built-in `bufferbloat` scenario (two
CUBIC flows of the linux profile through a 10 Mbit/s bottleneck) run with
`tcp.loss_recovery = "rfc6675"` and `"rack_tlp"` in one build, interleaved over several
rounds, best events per second of each, with a DropTail and an FQ-CoDel bottleneck.

RACK-TLP keeps every segment in flight with its send time (one queue entry per segment)
and scans it on ACKs that deliver later data; RFC 6675 keeps SACKed ranges only.

Run: python bench/loss_recovery_speed.py [SIMULATED_SECONDS] [ROUNDS]
"""

from __future__ import annotations

import sys

import airtcp


def main() -> None:
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    for aqm in ("none", "fq_codel"):
        best: dict[str, tuple[float, int]] = {}
        for _ in range(rounds):
            for recovery in ("rfc6675", "rack_tlp"):
                summary = airtcp.run(
                    "bufferbloat",
                    overrides={
                        "simulation.duration": f"{seconds}s",
                        "links.0.aqm": aqm,
                        "tcp.loss_recovery": recovery,
                    },
                ).summary
                rate = summary["events"] / summary["wall_time_s"]
                if recovery not in best or rate > best[recovery][0]:
                    best[recovery] = (rate, summary["events"])
        for recovery, (rate, events) in best.items():
            print(f"aqm={aqm:8} {recovery:8} {rate / 1e6:6.2f} M events/s ({events} events)")
        ratio = best["rack_tlp"][0] / best["rfc6675"][0]
        print(f"aqm={aqm:8} rack_tlp / rfc6675 events per second: {ratio:.3f}")


if __name__ == "__main__":
    main()
