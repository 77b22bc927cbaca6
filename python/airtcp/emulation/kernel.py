"""A scenario's TCP settings on the real kernel (``airtcp emu``): what each setting becomes
in the host's namespace (a per-namespace sysctl, a route attribute, an iperf3 option), and
what the kernel decides itself. Every emulated run reports this table, so that a comparison
with the simulator states what was the same and what was not.

Per-namespace sysctls (Linux >= 4.15): tcp_sack, tcp_timestamps, tcp_window_scaling,
tcp_rmem/tcp_wmem (the socket buffers' autotuning ceiling), tcp_reordering (the duplicate
ACK threshold), tcp_recovery and tcp_early_retrans (RACK and TLP), tcp_ecn, tcp_retries2. Route
attributes (ip-route(8)): initcwnd, rto_min, quickack.
Per socket through iperf3: the congestion control (-C), the MSS (-M), TCP_NODELAY (-N),
pacing (--fq-rate: SO_MAX_PACING_RATE, which turns on the kernel's own pacing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..scenario.schema import RESOLVED, ScenarioError

# airtcp's controllers and the kernel modules that implement the same algorithm; Linux's
# "reno" recovers as NewReno (RFC 6582) and uses SACK when negotiated.
KERNEL_CONGESTION = {
    "newreno": "reno",
    "reno": "reno",
    "cubic": "cubic",
    "westwood": "westwood",
    "veno": "veno",
    "bbr": "bbr",
}

AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


def available_congestion_controls() -> list[str]:
    try:
        return AVAILABLE.read_text().split()
    except OSError:
        return []


@dataclass
class HostKernel:
    """What one host's namespace is given: sysctls (key under /proc/sys -> value) and
    attributes of its route to the emulated network."""

    sysctls: dict[str, str] = field(default_factory=dict)
    route: dict[str, str] = field(default_factory=dict)


@dataclass
class FlowKernel:
    """One TCP flow on the kernel: its iperf3 client options and the settings table rows
    (setting, scenario value, what the kernel does)."""

    iperf3_options: list[str]
    rows: list[tuple[str, str, str]]


@dataclass
class KernelPlan:
    hosts: dict[str, HostKernel]
    flows: dict[str, FlowKernel]


def _ms(duration: dict[str, int]) -> float:
    return duration["secs"] * 1e3 + duration["nanos"] / 1e6


def _set(host: HostKernel, table: dict[str, str], key: str, value: str, where: str) -> None:
    """Sets a namespace-wide value; two flows of one host that need different values cannot
    both have them."""
    if table.get(key, value) != value:
        raise ScenarioError(
            RESOLVED,
            where,
            f"needs {key} = {value} but another flow of the same host needs {table[key]}; "
            "on the kernel it is one setting per host",
        )
    table[key] = value


def plan(resolved: dict[str, Any], effective: dict[str, Any]) -> KernelPlan:
    """The kernel settings of every host and TCP flow of a resolved scenario, from its
    effective settings (``_core.effective_settings``)."""
    nodes = resolved["nodes"]
    hosts: dict[str, HostKernel] = {}
    flows: dict[str, FlowKernel] = {}
    available = available_congestion_controls()
    for index, (flow, settings) in enumerate(
        zip(resolved["flows"], effective["flows"], strict=True)
    ):
        src, dst = nodes[flow["src"]], nodes[flow["dst"]]
        sender = hosts.setdefault(src, HostKernel())
        receiver = hosts.setdefault(dst, HostKernel())
        if flow["app"]["kind"] != "tcp_bulk":
            continue
        where = f"flows[{index}]"
        tcp = settings["tcp"]
        ours = settings["congestion_control"]
        kernel = KERNEL_CONGESTION.get(ours)
        if kernel is None:
            raise ScenarioError(
                RESOLVED,
                f"{where}.app.congestion_control",
                f"'{ours}' is airtcp's own design; the kernel has no module for it "
                f"(emulate with one of {', '.join(sorted(KERNEL_CONGESTION))})",
            )
        if available and kernel not in available:
            raise ScenarioError(
                RESOLVED,
                f"{where}.app.congestion_control",
                f"'{ours}' needs the kernel's tcp_{kernel}, which is not loaded "
                f"(available: {' '.join(available)}; as root: modprobe tcp_{kernel})",
            )
        rows = [("congestion_control", ours, f"{kernel} (iperf3 -C, per socket)")]
        options = ["-C", kernel, "-M", str(tcp["mss"])]
        rows.append(("mss", str(tcp["mss"]), "TCP_MAXSEG on the sender (iperf3 -M)"))
        if not tcp["nagle"]:
            options.append("-N")
        rows.append(
            (
                "nagle",
                str(tcp["nagle"]).lower(),
                "TCP_NODELAY (iperf3 -N)" if not tcp["nagle"] else "on",
            )
        )
        for name in ("sack", "timestamps", "window_scaling"):
            value = "1" if tcp[name] else "0"
            for host in (sender, receiver):
                _set(host, host.sysctls, f"net/ipv4/tcp_{name}", value, f"{where}.app.tcp.{name}")
            rows.append(
                (name, str(tcp[name]).lower(), f"net.ipv4.tcp_{name} = {value} on both hosts")
            )
        for name, host, sysctl in (
            ("send_buffer", sender, "net/ipv4/tcp_wmem"),
            ("receive_buffer", receiver, "net/ipv4/tcp_rmem"),
        ):
            size = tcp[name]
            # Autotuned from Linux's 128 KiB up to the size, or fixed at it (as a socket
            # whose SO_RCVBUF is set, which Linux does not autotune).
            tuned = name == "send_buffer" or tcp["receive_autotuning"]
            value = f"4096 {min(size, 131_072) if tuned else size} {size}"
            _set(host, host.sysctls, sysctl, value, f"{where}.app.tcp.{name}")
            rows.append(
                (
                    name,
                    str(size),
                    f"{sysctl.replace('/', '.')} = {value} (autotuning ceiling; the kernel "
                    "keeps part of a buffer for overhead)",
                )
            )
        _set(
            sender,
            sender.sysctls,
            "net/ipv4/tcp_reordering",
            str(tcp["dupack_threshold"]),
            f"{where}.app.tcp",
        )
        rows.append(
            ("dupack_threshold", str(tcp["dupack_threshold"]), "net.ipv4.tcp_reordering (initial)")
        )
        tuning = "1" if tcp["receive_autotuning"] else "0"
        _set(
            receiver,
            receiver.sysctls,
            "net/ipv4/tcp_moderate_rcvbuf",
            tuning,
            f"{where}.app.tcp.receive_autotuning",
        )
        rows.append(
            (
                "receive_autotuning",
                str(tcp["receive_autotuning"]).lower(),
                f"net.ipv4.tcp_moderate_rcvbuf = {tuning} on the receiver",
            )
        )
        if tcp["pacing"]:
            # SO_MAX_PACING_RATE switches the kernel's internal pacing on (as fq would pace)
            # at tcp_update_pacing_rate's rate, capped far above any emulated link.
            options += ["--fq-rate", "10G"]
            rows.append(("pacing", "true", "SO_MAX_PACING_RATE 10 Gbit/s (iperf3 --fq-rate)"))
        else:
            rows.append(("pacing", "false", "none: without fq the kernel paces only BBR"))
        ecn = {"off": "0", "on": "1", "accept": "2"}[tcp["ecn"]]
        for host in (sender, receiver):
            _set(host, host.sysctls, "net/ipv4/tcp_ecn", ecn, f"{where}.app.tcp.ecn")
        rows.append(("ecn", tcp["ecn"], f"net.ipv4.tcp_ecn = {ecn} on both hosts"))
        # RACK and TLP are per-namespace switches; PRR has none (the kernel always runs it).
        rack = tcp["loss_recovery"] == "rack_tlp"
        for sysctl, value in (
            ("net/ipv4/tcp_recovery", "1" if rack else "0"),
            ("net/ipv4/tcp_early_retrans", "3" if rack else "0"),
        ):
            _set(sender, sender.sysctls, sysctl, value, f"{where}.app.tcp.loss_recovery")
        rows.append(
            (
                "loss_recovery",
                tcp["loss_recovery"],
                "net.ipv4.tcp_recovery = 1, tcp_early_retrans = 3 on the sender (RACK, TLP)"
                if rack
                else "net.ipv4.tcp_recovery = 0, tcp_early_retrans = 0 on the sender (no "
                "RACK, no TLP; the kernel keeps PRR)",
            )
        )
        min_rto = _ms(tcp["min_rto"])
        _set(sender, sender.route, "rto_min", f"{min_rto:g}ms", f"{where}.app.tcp.min_rto_ns")
        rows.append(("min_rto", f"{min_rto:g} ms", f"route rto_min {min_rto:g}ms on the sender"))
        if tcp["initial_window"] is not None:
            window = str(tcp["initial_window"])
            _set(sender, sender.route, "initcwnd", window, f"{where}.app.tcp.initial_window")
            rows.append(("initial_window", window, f"route initcwnd {window} on the sender"))
        else:
            rows.append(("initial_window", "RFC 3390", "kernel default (10 segments, RFC 6928)"))
        if not tcp["delayed_ack"]:
            _set(receiver, receiver.route, "quickack", "1", f"{where}.app.tcp.delayed_ack")
            rows.append(("delayed_ack", "false", "route quickack 1 on the receiver"))
        else:
            rows.append(
                (
                    "delayed_ack",
                    f"true, {_ms(tcp['delayed_ack_timeout']):g} ms",
                    "kernel's own (40 ms to RTT-based, quick ACKs at start)",
                )
            )
        rows += [
            ("initial_rto", f"{_ms(tcp['initial_rto']):g} ms", "kernel's own (1 s)"),
            ("max_rto", f"{_ms(tcp['max_rto']):g} ms", "kernel's own (120 s)"),
            ("rto_floor", tcp["rto_floor"], "kernel's own (min RTO on the variance term)"),
            (
                "zero_window",
                tcp["zero_window"],
                "kernel's own (retransmit, as tcp_retransmit_timer)",
            ),
            ("slow_start", tcp["slow_start"], "kernel's own (per segment, as tcp_slow_start)"),
            (
                "syn_loss_window",
                tcp["syn_loss_window"],
                "kernel's own (linux, as tcp_init_transfer)",
            ),
            ("congestion_params", "", "kernel's own (module parameters are machine-wide)"),
        ]
        flows[flow["name"]] = FlowKernel(options, rows)
    return KernelPlan(hosts, flows)
