"""``airtcp emu``: a scenario over real Linux TCP. The end hosts are network namespaces on
TUN devices, the network between them is the simulator's own code on the wall clock (Rust,
crate ``airtcp-emu``), the traffic is iperf3 and ping in the namespaces. The summary has
the simulator's shape: flows from the tools and the kernel, links, WLANs and agents from
the emulated network, plus ``emulation`` (the kernel settings used, the kernel's TCP
counters per host, how late the emulator was).

Everything a run makes (namespaces, devices, processes) goes when it ends, also on Ctrl-C;
``cleanup`` removes what a killed run left.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import _core
from ..scenario.schema import RESOLVED, ScenarioError
from ..version import build_info
from . import kernel, traffic

# The emulator stops by itself this long after the scenario's end, whatever happens.
GRACE_S = 30.0
TOOLS = {"ip": "iproute2", "iperf3": "iperf3", "ping": "iputils-ping", "ss": "iproute2"}


def check() -> list[str]:
    """What this machine lacks for emulation, one line each (empty: ready)."""
    problems = []
    if os.geteuid() != 0 and not _has_net_admin():
        problems.append("root or CAP_NET_ADMIN: namespaces and TUN devices need it (run as root)")
    if not Path("/dev/net/tun").exists():
        problems.append("/dev/net/tun: the kernel's TUN driver (modprobe tun)")
    for tool, package in TOOLS.items():
        if shutil.which(tool) is None:
            problems.append(f"{tool}: install the {package} package")
    return problems


def _has_net_admin() -> bool:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) & (1 << 12))
    except OSError:
        pass
    return False


def cleanup(force: bool = False) -> list[str]:
    """Removes airtcp's namespaces (and their processes) whose run is gone; all of them with
    ``force``. Returns their names."""
    return _core.emu_cleanup(force=force)


def _unsupported(resolved: dict[str, Any]) -> None:
    if resolved.get("one_way_delay"):
        raise ScenarioError(
            RESOLVED,
            "simulation.one_way_delay",
            "is simulator-only (the kernel's packets carry no send time the emulator "
            "could read); leave it off in emulation",
        )
    for index, flow in enumerate(resolved["flows"]):
        app = flow["app"]
        if app["kind"] == "tcp_workload":
            raise ScenarioError(
                RESOLVED,
                f"flows[{index}].kind",
                "tcp_workload is simulator-only (its thousands of connections have no iperf3 "
                "equivalent here); emulation runs tcp_bulk, udp_cbr and ping flows",
            )
        if app["kind"] == "ping" and (app["train"] != 1 or app.get("one_way")):
            field = "train" if app["train"] != 1 else "one_way"
            raise ScenarioError(
                RESOLVED,
                f"flows[{index}].app.{field}",
                "ping trains and one-way probes are simulator-only; emulation runs ping "
                "(train = 1, one_way = false)",
            )


def require() -> None:
    """Raises an OSError naming what emulation needs that this machine lacks."""
    problems = check()
    if problems:
        raise OSError("emulation needs " + "; ".join(problems) + " (airtcp emu --check)")


def emulate(
    resolved: dict[str, Any],
    pcap_dir: str | Path | None = None,
    snaplen: int | None = None,
    progress: Callable[[float, float], None] | None = None,
    realtime: bool = True,
    poll: bool = False,
) -> dict[str, Any]:
    """Runs a resolved scenario over real kernels and returns its summary; the engine runs
    under SCHED_FIFO where permitted unless not ``realtime``, and polls instead of sleeping
    with ``poll``."""
    require()
    _unsupported(resolved)
    effective = json.loads(_core.effective_settings(json.dumps(resolved)))
    settings = kernel.plan(resolved, effective)
    duration_s = resolved["duration_ns"] / 1e9
    try:
        emulation = _core.Emulation(
            json.dumps(resolved),
            str(pcap_dir) if pcap_dir else None,
            snaplen,
            duration_s + GRACE_S,
            realtime,
            poll,
        )
    except _core.ScenarioError as error:
        key, message = error.args
        raise ScenarioError(RESOLVED, key, message) from None
    tools: list[traffic.Tool] = []
    try:
        hosts = {host["name"]: host for host in json.loads(emulation.hosts())}
        _configure(emulation, hosts, settings)
        kernel_options = {name: flow.iperf3_options for name, flow in settings.flows.items()}
        marker = tuple(emulation.process_marker())
        tools = traffic.tools(resolved, hosts, kernel_options, marker)
        emulation.begin()
        counters = _drive(
            emulation, tools, hosts, hosts_by_node(resolved, hosts), duration_s, progress
        )
        report = json.loads(emulation.stop())
    finally:
        for tool in tools:
            tool.stop()
        emulation.close()
    return _summary(resolved, report, tools, settings, counters, hosts)


def _configure(emulation: Any, hosts: dict[str, dict], plan: kernel.KernelPlan) -> None:
    for name, settings in plan.hosts.items():
        route = [part for item in settings.route.items() for part in item]
        emulation.configure_host(hosts[name]["node"], list(settings.sysctls.items()), route)


def _drive(
    emulation: Any,
    tools: list[traffic.Tool],
    hosts: dict[str, dict],
    by_node: dict[int, dict],
    duration_s: float,
    progress: Callable[[float, float], None] | None,
) -> dict[str, dict[str, int]]:
    """Starts each tool at its flow's time; at the scenario's end stops those the run does
    not wait for (``traffic.stop_at_end``) and reads every host's kernel counters, then
    waits for the rest, at most for the grace after the end. Returns the counters."""
    waiting = sorted(tools, key=lambda tool: tool.start_s)
    counters = None
    while True:
        now = emulation.elapsed_s()
        while waiting and waiting[0].start_s <= now:
            traffic.start(waiting.pop(0), now)
        if progress is not None:
            progress(min(now, duration_s), duration_s)
        finished = not waiting and all(tool.done for tool in tools)
        if counters is None and (now >= duration_s or finished):
            traffic.stop_at_end(tools, by_node)
            namespaces = [host["namespace"] for host in hosts.values()]
            read = traffic.in_parallel(traffic.kernel_counters, namespaces)
            counters = dict(zip(hosts, read, strict=True))
        if counters is not None and not waiting and all(tool.done for tool in tools):
            break
        if now > duration_s + GRACE_S:
            raise OSError(
                f"traffic still running {GRACE_S:g} s after the scenario's end; stopped it"
            )
        time.sleep(0.05)
    for tool in tools:
        traffic.finish(tool)
    return counters


# The kernel's counters of reductions undone (tcp_try_undo_recovery, _partial, _dsack,
# _loss), Linux's TCP*Undo.
_UNDO_COUNTERS = ("TCPFullUndo", "TCPPartialUndo", "TCPDSACKUndo", "TCPLossUndo")


def _summary(
    resolved: dict[str, Any],
    report: dict[str, Any],
    tools: list[traffic.Tool],
    plan: kernel.KernelPlan,
    counters: dict[str, dict[str, int]],
    hosts: dict[str, dict],
) -> dict[str, Any]:
    summary = report["summary"]
    window_s = (resolved["duration_ns"] - resolved.get("measure_from_ns", 0)) / 1e9
    received = {}
    by_node = hosts_by_node(resolved, hosts)
    # The TCP flows each host sends: the kernel's counters are theirs together.
    sent_by: dict[str, list[str]] = {}
    for tool in tools:
        if tool.flow["app"]["kind"] != "ping":
            flow = summary["flows"][tool.index]
            sent_by.setdefault(flow["src"], []).append(flow["name"])
    for tool in tools:
        flow = summary["flows"][tool.index]
        if tool.flow["app"]["kind"] == "ping":
            flow.update(traffic.ping_result(tool))
            continue
        delivered = traffic.flow_received(tool, by_node, report["received"])
        result = traffic.iperf_result(tool, delivered, report["received_bin_s"], window_s)
        received[flow["name"]] = result.pop("received_series")
        flow.update(result)
        sender = counters.get(flow["src"], {})
        # The kernel counts per namespace: a host's counters are its flows' together, which
        # `counters_shared_with` names where the host sends other flows too.
        flow["timeouts"] = sender.get("TCPTimeouts", 0)
        flow["fast_retransmits"] = sender.get("TCPFastRetrans", 0)
        others = [name for name in sent_by[flow["src"]] if name != flow["name"]]
        if others:
            flow["counters_shared_with"] = others
        if flow["kind"] != "tcp_bulk":
            continue
        flow["loss_probes"] = sender.get("TCPLossProbes", 0)
        flow["undos"] = sum(sender.get(name, 0) for name in _UNDO_COUNTERS)
        # Linux sends no rescue retransmission (RACK-TLP repairs tails): the simulator's
        # 0 stands. It counts no ECN-Echo reductions: not measured.
        flow["ecn_reductions"] = None
    # As the simulator's summary: ping flows are probes, left out of goodput and fairness.
    goodputs = [flow["goodput_bps"] for flow in summary["flows"] if flow["kind"] != "ping"]
    summary["aggregate_goodput_bps"] = sum(goodputs)
    summary["jain_fairness"] = _core.jain_index(goodputs)
    summary["backend"] = "emu"
    device_drops = dict(zip(hosts, report["device_drops"], strict=True))
    summary["emulation"] = {
        "lag": report["lag"],
        "scheduling": report["scheduling"],
        "hit_wall_limit": report["hit_wall_limit"],
        # Packets lost between the hosts' kernels and the engine, outside the scenario.
        "device_drops": device_drops,
        "write_errors": report["write_errors"],
        # Writes to the hosts, and those that joined a connection's segments (GRO).
        "writes": report["writes"],
        "malformed_reads": report["malformed_reads"],
        "warnings": warnings(report, device_drops),
        "hosts": {name: host["address"] for name, host in hosts.items()},
        "kernel_settings": {
            name: [
                {"setting": setting, "scenario": value, "kernel": how}
                for setting, value, how in flow.rows
            ]
            for name, flow in plan.flows.items()
        },
        "kernel_counters": counters,
        # Per flow, what reached its receiver in each 0.1 s: [start_s, end_s, bytes].
        "received_series": received,
    }
    summary["airtcp"] = build_info()
    return summary


def hosts_by_node(resolved: dict[str, Any], hosts: dict[str, dict]) -> dict[int, dict]:
    """The hosts by node index (flows name their ends by index)."""
    return {resolved["nodes"].index(name): host for name, host in hosts.items()}


def warnings(report: dict[str, Any], device_drops: dict[str, dict[str, int]]) -> list[str]:
    """What makes an emulated run's numbers less than the scenario's: the emulator not
    keeping real time, packets lost outside the emulated network, the run cut short."""
    found = []
    lag = report["lag"]
    if not lag["within_bound"]:
        found.append(
            f"the emulator fell behind real time: packets reached the hosts {lag['p99_us']:g} us "
            f"late at the 99th percentile (bound {lag['p99_bound_us']:g} us, max "
            f"{lag['max_us']:.0f} us); a busy machine or a network too fast for one core"
        )
    for name, drops in device_drops.items():
        if drops["tx_dropped"] or drops["rx_dropped"]:
            found.append(
                f"host {name}: its TUN device dropped {drops['tx_dropped']} packets it sent "
                f"and {drops['rx_dropped']} it was handed, outside the emulated network"
            )
    if report["write_errors"]:
        found.append(f"{report['write_errors']} packets could not be written to their host")
    if report["malformed_reads"]:
        found.append(f"{report['malformed_reads']} packets from the hosts could not be split")
    if report["hit_wall_limit"]:
        found.append(
            f"the engine stopped at its wall-clock limit ({GRACE_S:g} s after the scenario's "
            "end): the traffic tools did not finish"
        )
    return found
