"""Path measurement as ping, packet-pair tools and iperf do it: round-trip times, the capacity
of the narrow link, and TCP bandwidth for a congestion controller and window.

The analyses (``analysis.ping.rtt_stats``, ``capacity``) take raw times and sizes, so that
any backend serves them: the simulator's ping flows, or with ``backend="emu"`` the kernel's
ping and iperf3 in network namespaces (docs/emulation.md; packet trains stay
simulator-only). Running the probes (``measure``) derives one scenario per measurement from
the user's, with the measurement's flow alone (the path idle, as paper 004 measured capacity
"without competing traffic"), unless the scenario's own flows are kept as cross traffic.

- RTT: `count` ICMP echo requests of 56 bytes, `interval` apart; min/avg/max and mdev as
  iputils ping prints them (mdev: the standard deviation, sqrt(mean(x^2) - mean(x)^2)).
- Capacity: trains of `train` 1500-byte probes sent back to back, one way (echo replies,
  which nobody answers, so that no answer shares the path with the train); at the destination
  a train's dispersion (last arrival minus first) gives (train - 1) x size / dispersion; the
  median over trains is the estimate (packet pair for a train of 2; longer trains average
  out a single contention gap, but a train shorter than the narrow link's queue is needed,
  and cross traffic biases trains low, as in pathrate's and CapProbe's analyses).
- TCP: one bulk flow for the scenario's duration, its goodput over the measurement window.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..analysis.ping import rtt_stats

PING_PAYLOAD = 56
TRAIN_PAYLOAD = 1472  # 1500-byte IP packets


@dataclass(frozen=True)
class Capacity:
    bps: float | None
    trains: int
    train: int
    ip_bytes: int
    estimates_bps: list[float]


def capacity(arrived_ns: list[int | None], train: int, ip_bytes: int) -> Capacity:
    """The narrow link's capacity from the arrival times of back-to-back trains (in send
    order, ``train`` per train); trains with a loss are left out."""
    if train < 2:
        raise ValueError("a capacity estimate needs trains of at least 2 packets")
    estimates = []
    for start in range(0, len(arrived_ns) - train + 1, train):
        times = arrived_ns[start : start + train]
        if any(t is None for t in times):
            continue
        dispersion = max(times) - min(times)  # type: ignore[type-var]
        if dispersion > 0:
            estimates.append((train - 1) * ip_bytes * 8e9 / dispersion)
    median = statistics.median(estimates) if estimates else None
    return Capacity(median, len(estimates), train, ip_bytes, estimates)


@dataclass(frozen=True)
class TcpBandwidth:
    congestion_control: str
    window_bytes: int | None
    goodput_bps: float
    retransmissions: int
    timeouts: int
    measured_s: float


def _with_flows(model: Any, flows: list[Any], keep: bool, **simulation: int) -> Any:
    """The scenario with the measurement's flows (and its own, if ``keep``)."""
    sim = model.simulation.model_copy(update=simulation)
    return model.model_copy(
        update={"flows": (list(model.flows) if keep else []) + flows, "simulation": sim}
    )


def _probe_run(
    model: Any,
    source: str,
    src: str,
    dst: str,
    seed: int | None,
    keep: bool,
    backend: str,
    **probe: Any,
) -> dict[str, Any]:
    from ..scenario.resolve import resolve_checked
    from ..scenario.schema import Flow

    interval = probe.pop("interval")
    flow = Flow(
        name="airtcp-measure", kind="ping", src=src, dst=dst, interval=f"{interval}ns", **probe
    )
    # Long enough for every probe and the last one's return.
    duration = probe["count"] * interval + 5_000_000_000
    derived = _with_flows(model, [flow], keep, duration=duration, measure_from=0)
    summary = _summary(resolve_checked(derived, source, seed), backend)
    return summary["flows"][-1]["probes"]


def _summary(resolved: dict[str, Any], backend: str) -> dict[str, Any]:
    """A run's summary, simulated or emulated."""
    if backend == "emu":
        from ..emulation.runner import emulate

        return emulate(resolved)
    from ..api import run_resolved

    return run_resolved(resolved, timeseries=False).summary


def measure(
    scenario: str | Path,
    src: str,
    dst: str,
    *,
    rtt: bool = True,
    capacity_probe: bool = True,
    tcp: str | None = None,
    window: int | None = None,
    count: int = 20,
    train: int = 8,
    interval_ns: int = 200_000_000,
    seed: int | None = None,
    overrides: list[str] | None = None,
    keep_flows: bool = False,
    backend: str = "sim",
) -> dict[str, Any]:
    """Measures the path from ``src`` to ``dst`` in a scenario, simulated or (``backend``
    "emu") over real kernels; a ScenarioError names what is wrong with the scenario or the
    end points."""
    from ..scenario.resolve import resolve_checked
    from ..scenario.schema import Flow, ScenarioError, Tcp, load

    source = str(scenario)
    model = load(scenario, overrides or [])
    nodes = resolve_checked(model, source, seed)["nodes"]
    for option, node in (("--from", src), ("--to", dst)):
        if node not in nodes:
            raise ScenarioError(option, "", f"unknown node {node!r}; expected one of {nodes}")
    if src == dst:
        raise ScenarioError("--to", "", "must differ from --from")
    if backend == "emu" and capacity_probe:
        raise ScenarioError(
            "--capacity", "", "packet trains are simulator-only (the emulated network is the "
            "scenario's: measure its capacity without --backend emu)",
        )  # fmt: skip
    result: dict[str, Any] = {"scenario": model.simulation.name, "from": src, "to": dst}
    if rtt:
        probes = _probe_run(
            model, source, src, dst, seed, keep_flows, backend,
            count=count, interval=interval_ns, payload=PING_PAYLOAD, train=1,
        )  # fmt: skip
        result["rtt"] = asdict(rtt_stats(probes["sent_ns"], probes["returned_ns"]))
    if capacity_probe:
        probes = _probe_run(
            model, source, src, dst, seed, keep_flows, "sim",
            count=count, interval=interval_ns, payload=TRAIN_PAYLOAD, train=train, one_way=True,
        )  # fmt: skip
        estimate = capacity(probes["arrived_ns"], train, probes["ip_bytes"])
        result["capacity"] = asdict(estimate)
    if tcp is not None:
        # iperf3's -w sets SO_SNDBUF and SO_RCVBUF, which Linux then never autotunes.
        buffers = (
            {}
            if window is None
            else {"send_buffer": window, "receive_buffer": window, "receive_autotuning": False}
        )
        flow = Flow(
            name="airtcp-measure", src=src, dst=dst, tcp=Tcp(congestion_control=tcp, **buffers)
        )
        derived = _with_flows(model, [flow], keep_flows)
        summary = _summary(resolve_checked(derived, source, seed), backend)
        measured = summary["flows"][-1]
        result["tcp"] = asdict(
            TcpBandwidth(
                tcp,
                window,
                measured["goodput_bps"],
                measured["retransmissions"],
                measured["timeouts"],
                summary["duration_s"] - summary["measure_from_s"],
            )
        )
    return result
