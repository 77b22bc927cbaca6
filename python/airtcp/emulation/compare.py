"""`airtcp compare`: one scenario simulated and emulated, side by side (issue 12's
cross-validation; the differences to expect are in docs/emulation.md).

Both runs take the same resolved scenario and seed: the network between the hosts is the
same code in both (links, queues, the 802.11 MAC, agents), so what differs is the hosts' TCP
(airtcp's sans-IO TCP against the kernel's, with the settings the kernel keeps its own) and
real time (the emulator's lag, the kernel's timers).
"""

from __future__ import annotations

from typing import Any

from ..analysis.ping import rtt_stats

FLOW_FIELDS = ("goodput_bps", "bytes_delivered", "retransmissions", "timeouts")
LINK_FIELDS = ("delivered", "queue_drops", "lost")
WLAN_FIELDS = ("attempts", "successes", "collisions", "retry_drops", "queue_drops")


def difference(simulated: float | None, emulated: float | None) -> float | None:
    """The emulated value relative to the simulated one (0.05: 5 % more), if both exist."""
    if simulated is None or emulated is None or simulated == 0:
        return None
    return emulated / simulated - 1


def _mean_rtt_ms(flow: dict[str, Any]) -> float | None:
    probes = flow.get("probes")
    if not probes:
        return None
    return rtt_stats(probes["sent_ns"], probes["returned_ns"]).avg_ms


def _pair(simulated: dict[str, Any], emulated: dict[str, Any], fields: tuple[str, ...]) -> dict:
    return {field: {"sim": simulated.get(field), "emu": emulated.get(field)} for field in fields}


def kernel_own_settings(emulated: dict[str, Any]) -> list[dict[str, str]]:
    """The scenario's TCP settings the kernel does not take (its own apply), once each."""
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for rows in emulated["emulation"]["kernel_settings"].values():
        for row in rows:
            if row["kernel"].startswith("kernel's own"):
                seen.setdefault((row["setting"], row["scenario"]), row)
    return list(seen.values())


def comparison(simulated: dict[str, Any], emulated: dict[str, Any]) -> dict[str, Any]:
    """Flows, the aggregate and links of two summaries of one scenario, paired."""
    flows = []
    for sim_flow, emu_flow in zip(simulated["flows"], emulated["flows"], strict=True):
        row: dict[str, Any] = {"name": sim_flow["name"], "kind": sim_flow["kind"]}
        row |= _pair(sim_flow, emu_flow, FLOW_FIELDS)
        row["mean_rtt_ms"] = {"sim": _mean_rtt_ms(sim_flow), "emu": _mean_rtt_ms(emu_flow)}
        measured = "mean_rtt_ms" if sim_flow["kind"] == "ping" else "goodput_bps"
        row["difference"] = difference(row[measured]["sim"], row[measured]["emu"])
        flows.append(row)
    links = [
        {"from": sim_link["from"], "to": sim_link["to"]} | _pair(sim_link, emu_link, LINK_FIELDS)
        for sim_link, emu_link in zip(simulated["links"], emulated["links"], strict=True)
    ]
    # Both cover time 0 to the scenario's end (the emulator reads them there).
    wlans = [
        {"ap": sim_wlan["ap"]} | _pair(sim_wlan, emu_wlan, WLAN_FIELDS)
        for sim_wlan, emu_wlan in zip(simulated["wlans"], emulated["wlans"], strict=True)
    ]
    aggregate = {
        "sim": simulated["aggregate_goodput_bps"],
        "emu": emulated["aggregate_goodput_bps"],
    }
    aggregate["difference"] = difference(aggregate["sim"], aggregate["emu"])
    return {
        "scenario": simulated["scenario"],
        "seed": simulated["seed"],
        "duration_s": simulated["duration_s"],
        "measure_from_s": simulated["measure_from_s"],
        "flows": flows,
        "aggregate_goodput_bps": aggregate,
        "links": links,
        "wlans": wlans,
        "kernel_own_settings": kernel_own_settings(emulated),
        "emulator_lag": emulated["emulation"]["lag"],
        "emulator_warnings": emulated["emulation"]["warnings"],
        "simulated": simulated,
        "emulated": emulated,
    }
