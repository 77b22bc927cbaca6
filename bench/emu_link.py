"""The emulator's link against the kernel's own shaping, in one run (issues 12 and 25): the
most kernel TCP gets through an emulated link with 10 ms of delay each way, and how far each
packet's one-way delay is from the configured one, next to a veth pair between two
namespaces shaped by tbf (the kernel's token bucket; this kernel has no netem, so the veth
pair has no delay and its error is its one-way delay itself).

Both sides are measured by the same tools in the same kind of namespaces: iperf3 (CUBIC,
buffers autotuned up to 64 MiB, SECONDS long) for throughput at each rate, and
airtcp.emulation.one_way_probe for 300 UDP probes 20 ms apart on the idle link, timed by the
kernels (software transmit timestamp as the probe enters the sender's device, receive
timestamp as it reaches the receiver's stack: no user-space wake-up in the figure), and
once more with the engine polling instead of sleeping (`airtcp emu --poll`). The emulated
link's configured one-way delay is 10 ms plus the 92-byte probe's serialisation at the
link's rate; a round trip's error is about twice the one-way one.

The tests check only what a busy machine cannot change (no packet delivered early, every
packet carried once); how close the delays come to the configured ones, and how late the
engine runs, are measured here.

Run (root, with iperf3 and iproute2): python bench/emu_link.py [SECONDS]
Namespaces are named airtcp-<pid>-bench-*, removed at the end (`airtcp emu cleanup` removes
them if the script is killed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from airtcp import _core
from airtcp.api import prepare
from airtcp.emulation import runner as emulate

RATES = ("100Mbps", "1Gbps", "10Gbps")
VETH_NET = "10.99.0."

PROBES, PROBE_INTERVAL_S, PROBE_PORT = 300, 0.02, 7007
# Autotuned TCP buffers up to 64 MiB: 10 Gbit/s over 20 ms is a 25 MB window.
BUFFERS = {"net/ipv4/tcp_rmem": "4096 131072 67108864", "net/ipv4/tcp_wmem": "4096 16384 67108864"}
PROBE = [sys.executable, "-m", "airtcp.emulation.one_way_probe"]


def in_ns(namespace: str, *command: str) -> list[str]:
    return ["ip", "netns", "exec", namespace, *command]


def throughput_bps(client_ns: str, server_ns: str, address: str, seconds: int) -> float:
    server = subprocess.Popen(in_ns(server_ns, "iperf3", "-s", "-1", "-p", "5299"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        time.sleep(0.5)
        result = subprocess.run(
            in_ns(client_ns, "iperf3", "-c", address, "-p", "5299", "-t", str(seconds), "-J",
                  "-C", "cubic"),
            capture_output=True, text=True, timeout=seconds + 30, check=True,
        )  # fmt: skip
        return json.loads(result.stdout)["end"]["sum_received"]["bits_per_second"]
    finally:
        server.kill()
        server.wait()


def one_way_ms(sender_ns: str, receiver_ns: str, address: str) -> list[float]:
    """The probes' one-way delays by the kernels' timestamps."""
    receiver = subprocess.Popen(in_ns(receiver_ns, *PROBE, "receive", str(PROBE_PORT),
                                      str(PROBES)), stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        time.sleep(0.5)
        args = [address, PROBE_PORT, PROBES, PROBE_INTERVAL_S]
        sent = subprocess.run(
            in_ns(sender_ns, *PROBE, "send", *map(str, args)),
            capture_output=True, text=True, check=True, timeout=PROBES * PROBE_INTERVAL_S + 60,
        )  # fmt: skip
        received = json.loads(receiver.communicate(timeout=60)[0])
    finally:
        if receiver.poll() is None:
            receiver.kill()
            receiver.wait()
    transmitted = json.loads(sent.stdout)
    return [(received[i] - transmitted[i]) / 1e6 for i in received if i in transmitted]


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, len(ordered) * 99 // 100)]


def serialisation_ms(rate: str, ip_bytes: int) -> float:
    from airtcp.scenario.units import parse_rate

    return ip_bytes * 8 / parse_rate(rate) * 1e3


def emulated(rate: str, seconds: int, poll: bool = False) -> tuple[float, list[float]]:
    """Throughput (none if ``seconds`` is 0) and one-way errors through airtcp's emulated
    link (10 ms each way), the engine polling if ``poll``."""
    scenario = f"""
[simulation]
name = "bench"
duration = "{seconds + 30}s"
[tcp]
profile = "linux"
[[links]]
a = "a"
b = "b"
rate = "{rate}"
delay = "10ms"
queue = 20000
[[flows]]
name = "ping"
src = "a"
dst = "b"
kind = "ping"
count = 1
"""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "bench.toml"
        path.write_text(scenario)
        resolved = prepare(str(path))
    emulation = _core.Emulation(json.dumps(resolved), None, None, seconds + 120.0, True, poll)
    try:
        hosts = {host["name"]: host for host in json.loads(emulation.hosts())}
        a, b = hosts["a"]["namespace"], hosts["b"]["namespace"]
        for host in hosts.values():
            emulation.configure_host(host["node"], list(BUFFERS.items()), [])
        emulation.begin()
        bps = throughput_bps(a, b, hosts["b"]["address"], seconds) if seconds else 0.0
        delays = one_way_ms(a, b, hosts["b"]["address"])
        lag = json.loads(emulation.stop())["lag"]
    finally:
        emulation.close()
    configured = 10 + serialisation_ms(rate, 92)
    print(f"  (emulator lag p50 {lag['p50_us']:g} us, p99 {lag['p99_us']:g} us)", file=sys.stderr)
    return bps, [delay - configured for delay in delays]


def veth_tbf(rate: str, seconds: int) -> tuple[float, list[float]]:
    """Throughput and one-way delays over a veth pair shaped by tbf at ``rate`` both ways."""
    from airtcp.scenario.units import parse_rate

    prefix = f"airtcp-{os.getpid()}-bench-"
    a, b = prefix + "a", prefix + "b"
    bits = parse_rate(rate)
    # The bucket must hold what the rate brings in a timer tick (up to 4 ms), or tbf
    # cannot reach the rate.
    burst = max(bits // 8 // 250, 32_768)
    try:
        for namespace in (a, b):
            subprocess.run(["ip", "netns", "add", namespace], check=True)
            subprocess.run(in_ns(namespace, "ip", "link", "set", "lo", "up"), check=True)
            for key, value in BUFFERS.items():
                sysctl = f"{key.replace('/', '.')}={value}"
                subprocess.run(in_ns(namespace, "sysctl", "-q", "-w", sysctl), check=True)
        subprocess.run(["ip", "-n", a, "link", "add", "v0", "type", "veth", "peer", "name", "v1",
                        "netns", b], check=True)  # fmt: skip
        for namespace, device, host in ((a, "v0", 1), (b, "v1", 2)):
            subprocess.run(["ip", "-n", namespace, "addr", "add", f"{VETH_NET}{host}/24", "dev",
                            device], check=True)  # fmt: skip
            subprocess.run(["ip", "-n", namespace, "link", "set", device, "up"], check=True)
            subprocess.run(["ip", "netns", "exec", namespace, "tc", "qdisc", "add", "dev", device,
                            "root", "tbf", "rate", str(bits), "burst", str(burst), "latency",
                            "400ms"], check=True)  # fmt: skip
        bps = throughput_bps(a, b, f"{VETH_NET}2", seconds)
        delays = one_way_ms(a, b, f"{VETH_NET}2")
    finally:
        for namespace in (a, b):
            subprocess.run(["ip", "netns", "del", namespace], stderr=subprocess.DEVNULL)
    return bps, delays


def main() -> None:
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    missing = emulate.check()
    if missing:
        sys.exit("emulation cannot run here: " + "; ".join(missing))
    print(f"kernel CUBIC, {seconds} s per rate; one-way: {PROBES} UDP probes "
          f"{PROBE_INTERVAL_S * 1e3:g} ms apart, kernel timestamps")  # fmt: skip
    print(
        f"{'rate':>8}  {'airtcp (10 ms each way)':>24}  {'veth + tbf (no delay)':>22}  "
        f"{'one-way error p50 / p99 us: airtcp':>35}  {'--poll':>12}  {'veth':>12}"
    )
    for rate in RATES:
        emu_bps, emu_errors = emulated(rate, seconds)
        _, polled_errors = emulated(rate, 0, poll=True)
        veth_bps, veth_delays = veth_tbf(rate, seconds)
        e50, e99 = percentiles(emu_errors)
        p50, p99 = percentiles(polled_errors)
        v50, v99 = percentiles(veth_delays)
        print(
            f"{rate:>8}  {emu_bps / 1e6:>18.1f} Mbit/s  {veth_bps / 1e6:>15.1f} Mbit/s  "
            f"{e50 * 1e3:>28.0f} / {e99 * 1e3:<4.0f}  {p50 * 1e3:>6.0f} / {p99 * 1e3:<4.0f}  "
            f"{v50 * 1e3:>6.0f} / {v99 * 1e3:.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
