"""The emulator's link against the kernel's own shaping, in one run (issue 12): the most
kernel TCP gets through an emulated link with 10 ms of delay each way, and how far each
packet's round trip is from the configured one, next to a veth pair between two
namespaces shaped by tbf (the kernel's token bucket; this kernel has no netem, so the veth
pair has no delay and its error is its round trip itself).

Both sides are measured by the same tools in the same kind of namespaces: iperf3 (CUBIC,
8 MiB buffers, SECONDS long) for throughput at each rate, and a UDP echo timed in Python
with a nanosecond clock (ping prints 0.1 ms above 10 ms) for 300 round trips 20 ms apart.
The emulated link's configured round trip is 20 ms plus twice the 92-byte datagram's
serialisation at the link's rate.

The tests check only what a busy machine cannot change (no round trip shorter than the
configured one, every echo answered, every packet carried once); how close the round trips
come to it and how late the engine runs are measured here.

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

from airtcp import _core, emulate
from airtcp.api import prepare

RATES = ("100Mbps", "1Gbps", "10Gbps")
ECHO_PORT = 7007
ECHOES, ECHO_INTERVAL_S, ECHO_BYTES = 300, 0.02, 64
VETH_NET = "10.99.0."

ECHO_SERVER = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", int(sys.argv[1])))
while True:
    data, peer = s.recvfrom(2048)
    s.sendto(data, peer)
"""
ECHO_CLIENT = """
import json, socket, sys, time
host = sys.argv[1]
port, count, size = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[5])
interval = float(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1.0)
rtts = []
for i in range(count):
    sent = time.perf_counter_ns()
    s.sendto(i.to_bytes(4, "big") + bytes(size - 4), (host, port))
    try:
        while int.from_bytes(s.recv(2048)[:4], "big") != i:
            pass
        rtts.append((time.perf_counter_ns() - sent) / 1e6)
    except TimeoutError:
        pass
    time.sleep(interval)
print(json.dumps(rtts))
"""


def in_ns(namespace: str, *command: str) -> list[str]:
    return ["ip", "netns", "exec", namespace, *command]


def throughput_bps(client_ns: str, server_ns: str, address: str, seconds: int) -> float:
    server = subprocess.Popen(in_ns(server_ns, "iperf3", "-s", "-1", "-p", "5299"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        time.sleep(0.5)
        result = subprocess.run(
            in_ns(client_ns, "iperf3", "-c", address, "-p", "5299", "-t", str(seconds), "-J",
                  "-C", "cubic", "-w", "8M"),
            capture_output=True, text=True, timeout=seconds + 30, check=True,
        )  # fmt: skip
        return json.loads(result.stdout)["end"]["sum_received"]["bits_per_second"]
    finally:
        server.kill()
        server.wait()


def round_trips_ms(client_ns: str, server_ns: str, address: str) -> list[float]:
    server = subprocess.Popen(in_ns(server_ns, sys.executable, "-c", ECHO_SERVER, str(ECHO_PORT)))
    try:
        time.sleep(0.5)
        args = [address, ECHO_PORT, ECHOES, ECHO_INTERVAL_S, ECHO_BYTES]
        result = subprocess.run(
            in_ns(client_ns, sys.executable, "-c", ECHO_CLIENT, *map(str, args)),
            capture_output=True, text=True, check=True, timeout=ECHOES * ECHO_INTERVAL_S + 60,
        )  # fmt: skip
        return json.loads(result.stdout)
    finally:
        server.kill()
        server.wait()


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, len(ordered) * 99 // 100)]


def serialisation_ms(rate: str, ip_bytes: int) -> float:
    from airtcp.units import parse_rate

    return ip_bytes * 8 / parse_rate(rate) * 1e3


def emulated(rate: str, seconds: int) -> tuple[float, list[float]]:
    """Throughput and round trips through airtcp's emulated link (10 ms each way)."""
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
    emulation = _core.Emulation(json.dumps(resolved), None, None, seconds + 120.0)
    try:
        hosts = {host["name"]: host for host in json.loads(emulation.hosts())}
        a, b = hosts["a"]["namespace"], hosts["b"]["namespace"]
        emulation.begin()
        bps = throughput_bps(a, b, hosts["b"]["address"], seconds)
        rtts = round_trips_ms(a, b, hosts["b"]["address"])
        lag = json.loads(emulation.stop())["lag"]
    finally:
        emulation.close()
    configured = 20 + 2 * serialisation_ms(rate, ECHO_BYTES + 28)
    print(f"  (emulator lag p50 {lag['p50_us']:g} us, p99 {lag['p99_us']:g} us)", file=sys.stderr)
    return bps, [rtt - configured for rtt in rtts]


def veth_tbf(rate: str, seconds: int) -> tuple[float, list[float]]:
    """Throughput and round trips over a veth pair shaped by tbf at ``rate`` both ways."""
    from airtcp.units import parse_rate

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
        rtts = round_trips_ms(a, b, f"{VETH_NET}2")
    finally:
        for namespace in (a, b):
            subprocess.run(["ip", "netns", "del", namespace], stderr=subprocess.DEVNULL)
    return bps, rtts


def main() -> None:
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    missing = emulate.check()
    if missing:
        sys.exit("emulation cannot run here: " + "; ".join(missing))
    print(f"kernel CUBIC, {seconds} s per rate; round trips: {ECHOES} UDP echoes, "
          f"{ECHO_BYTES}-byte payloads, {ECHO_INTERVAL_S * 1e3:g} ms apart")  # fmt: skip
    print(
        f"{'rate':>8}  {'airtcp (10 ms each way)':>24}  {'veth + tbf (no delay)':>22}  "
        f"{'RTT error p50 / p99 ms: airtcp':>31}  {'veth':>14}"
    )
    for rate in RATES:
        emu_bps, emu_errors = emulated(rate, seconds)
        veth_bps, veth_rtts = veth_tbf(rate, seconds)
        e50, e99 = percentiles(emu_errors)
        v50, v99 = percentiles(veth_rtts)
        print(
            f"{rate:>8}  {emu_bps / 1e6:>18.1f} Mbit/s  {veth_bps / 1e6:>15.1f} Mbit/s  "
            f"{e50:>23.3f} / {e99:.3f}  {v50:>7.3f} / {v99:.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
