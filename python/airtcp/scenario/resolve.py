"""Resolution of a validated scenario into the plain JSON the simulator runs (integers in ns,
bit/s and bytes; node indices; templates expanded), with a record of where each resolved field
came from, so that the simulator's checks speak of the user's keys.

The simulator validates the resolved scenario (crates/airtcp-sim/src/validate.rs) and names
the resolved field at fault: ``wlans[0].phy.rate_bps``, ``flows[5].stop_ns``,
``links[3].a_to_b.queue``. :meth:`Origins.user_key` turns that into ``wlan.rate``,
``flows[0].stop`` (for station 6), ``links[1].queue``: the key the user wrote, or would write.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .. import _core
from .geometry import positions_json, radio_json, user_radio_key
from .overrides import Overrides
from .schema import (
    WLAN_DRIVER_QUEUES,
    WLAN_QUEUEINGS,
    Agent,
    Aqm,
    Direction,
    EdcaAc,
    Flow,
    Link,
    Mobile,
    Scenario,
    ScenarioError,
    Wlan,
    uses_mcs,
)
from .stations import StationSettings, WlanGroups, all_groups, template_stations

_TCP_DURATIONS = ("initial_rto", "min_rto", "max_rto", "delayed_ack_timeout", "time_wait")

# Resolved leaf names that differ from the user's, after unit suffixes are dropped.
_RENAMES = {
    "max_ampdu_bytes": "max_ampdu",
    "max_amsdu_bytes": "max_amsdu",
    "firmware_queue_frames": "firmware_queue",
    "queue_packets": "queue",
    "ack_queue_packets": "ack_queue",
    "payload_bytes": "payload",
}


def user_leaf(name: str) -> str:
    """The user's name of a resolved leaf: ``rate_bps`` -> ``rate``, ``stop_ns`` -> ``stop``."""
    if name in _RENAMES:
        return _RENAMES[name]
    return re.sub(r"_(ns|bps|m|mhz)$", "", name)


@dataclass
class _LinkOrigin:
    key: str
    link: Link
    station: int | None


@dataclass
class _FlowOrigin:
    key: str
    flow: Flow
    station: int | None
    name: str
    # The TCP settings its stations' groups gave it, by name: the group's key for each.
    group_tcp: dict[str, str] = field(default_factory=dict)


@dataclass
class Origins:
    """Where the nodes, links and flows of a resolved scenario came from."""

    nodes: list[str] = field(default_factory=list)
    links: list[_LinkOrigin] = field(default_factory=list)
    flows: list[_FlowOrigin] = field(default_factory=list)
    # ``wlan`` for a file's single [wlan], else ``wlans[i]``.
    wlans: list[str] = field(default_factory=list)
    # Per WLAN, the user's key of each resolved ``station_rates`` and ``station_mcs`` entry:
    # ``wlan.station_rates.sta1``, or a group's ``wlan.groups[0].rate``.
    station_rates: list[list[str]] = field(default_factory=list)
    station_mcs: list[list[str]] = field(default_factory=list)
    # The user's key of each resolved agent: ``agents[2]``, or a group's ``wlan.groups[0].agent``.
    agents: list[str] = field(default_factory=list)
    # The user's key of each resolved position.
    positions: list[str] = field(default_factory=list)

    def user_key(self, key: str) -> tuple[str, str]:
        """The user's key for a resolved key, and a note on which instance of a template it
        is ("" if none)."""
        match = re.fullmatch(r"(\w+)(?:\[(\d+)\])?(?:\.(.*))?", key)
        if match is None:
            return key, ""
        part, index, rest = match.group(1), match.group(2), match.group(3) or ""
        i = int(index) if index is not None else None
        if part == "simulation":
            return ".".join(["simulation", *map(user_leaf, rest.split("."))]).rstrip("."), ""
        if part == "nodes" and i is not None and i < len(self.nodes):
            return self.nodes[i], ""
        if part == "wlans" and i is not None and i < len(self.wlans):
            entry = re.fullmatch(r"(station_rates|station_mcs)\[(\d+)\].*", rest)
            if entry and i < len(self.station_rates):
                keys = getattr(self, entry.group(1))[i]
                j = int(entry.group(2))
                return keys[j] if j < len(keys) else f"{self.wlans[i]}.{entry.group(1)}", ""
            return _join(self.wlans[i], _wlan_field(rest)), ""
        if part == "radio":
            return user_radio_key(rest), ""
        if part == "positions":
            if i is not None and i < len(self.positions):
                return _join(self.positions[i], _motion_field(rest)), ""
            return "positions", ""
        if part in ("mobiles", "agents") and i is not None:
            leaves = ".".join(user_leaf(p) for p in rest.split(".")) if rest else ""
            leaves = leaves.removeprefix("agent.")
            if part == "agents" and i < len(self.agents) and ".groups[" in self.agents[i]:
                # A group's agent may be just its kind's name, and its place is the group's:
                # its kind, node and interface are the agent key.
                leaves = "" if leaves in ("kind", "node", "interface") else leaves
                return _join(self.agents[i], leaves), ""
            return _join(f"{part}[{i}]", leaves), ""
        if part == "links" and i is not None and i < len(self.links):
            return self._link_key(self.links[i], rest)
        if part == "flows" and i is not None and i < len(self.flows):
            return self._flow_key(self.flows[i], rest)
        return key, ""

    @staticmethod
    def _link_key(origin: _LinkOrigin, rest: str) -> tuple[str, str]:
        note = "" if origin.station is None else f"for station {origin.station}"
        direction, _, leaf = rest.partition(".")
        if direction not in ("a_to_b", "b_to_a") or not leaf:
            return origin.key, note
        name = user_leaf(leaf.removeprefix("errors."))
        override: Direction = getattr(origin.link, direction)
        if getattr(override, name, None) is not None:
            return f"{origin.key}.{direction}.{name}", note
        return f"{origin.key}.{name}", note

    @staticmethod
    def _flow_key(origin: _FlowOrigin, rest: str) -> tuple[str, str]:
        note = "" if origin.station is None else f"{origin.name}, for station {origin.station}"
        rest = rest.removeprefix("app.").removeprefix("app")
        if not rest:
            return origin.key, note
        if rest == "congestion_control" or rest.startswith("tcp."):
            name = user_leaf(rest.removeprefix("tcp."))
            if _is_set(origin.flow.tcp, name):
                return f"{origin.key}.tcp.{name}", note
            if name in origin.group_tcp:
                return origin.group_tcp[name], note
            top, dot, deeper = name.partition(".")
            if top in origin.group_tcp:
                return f"{origin.group_tcp[top]}{dot}{deeper}", note
            return f"tcp.{name}", note
        return f"{origin.key}.{user_leaf(rest)}", note


def _is_set(settings: object, dotted: str) -> bool:
    """Whether a (nested) setting is given, e.g. ``congestion_params.cubic_c``."""
    for part in dotted.split("."):
        settings = getattr(settings, part, None)
        if settings is None:
            return False
    return True


def _wlan_field(rest: str) -> str:
    rest = rest.removeprefix("phy.").removeprefix("errors.")
    if rest == "agent.kind":
        return "agent"
    return ".".join(user_leaf(p) for p in rest.split(".")) if rest else ""


def _motion_field(rest: str) -> str:
    """The user's key under a position for a resolved one (``motion.points[0].at_ns``)."""
    if rest.startswith("motion.points"):
        return re.sub(r"^motion\.points(\[\d+\])?\.?(\w*?)(_ns)?$", r"path\1.\2", rest).rstrip(".")
    if rest.startswith("motion."):
        leaf = rest.removeprefix("motion.")
        name = "speed" if leaf.startswith("speed") else "pause" if leaf == "pause_ns" else "area"
        return f"random_waypoint.{name}"
    return user_leaf(rest) if rest else ""


def _join(prefix: str, rest: str) -> str:
    return f"{prefix}.{rest}" if rest else prefix


def resolve_checked(
    scenario: Scenario,
    source: str,
    seed: int | None = None,
    overrides: Overrides = (),
) -> dict[str, Any]:
    """Resolves a scenario and validates it exactly as the simulator will (so `airtcp
    validate` accepts what runs and nothing else); errors name the user's key."""
    try:
        resolved, origins = resolve(scenario, seed)
    except ValueError as error:
        key, message = error.args if len(error.args) == 2 else ("", str(error))
        raise ScenarioError(source, key, message).blaming(overrides) from None
    try:
        _core.check(json.dumps(resolved))
    except _core.ScenarioError as error:
        key, note = origins.user_key(error.args[0])
        message = f"{note}: {error.args[1]}" if note else error.args[1]
        raise ScenarioError(source, key, message).blaming(overrides) from None
    return resolved


def _expand(template: str, i: int) -> str:
    return template.replace("{i}", str(i))


def _expand_flow_node(scenario: Scenario, i: int | None, name: str) -> str:
    """A flow's name or end: ``{i}`` is the station of a per-station flow, ``{hops}`` the
    mesh's last node, whatever its length."""
    if i is not None:
        name = _expand(name, i)
    if scenario.mesh is not None:
        name = name.replace("{hops}", str(scenario.mesh.hops))
    return name


def resolve(scenario: Scenario, seed: int | None = None) -> tuple[dict[str, Any], Origins]:
    """The simulator's JSON and the origins of its parts; raises ValueError(key, message) for
    references the schema cannot check (unknown nodes, a node joined to itself)."""
    origins = Origins()
    wlans = scenario.all_wlans()
    origins.wlans = scenario.wlan_keys()
    groups = all_groups(scenario)
    by_station = _station_settings(groups)
    nodes: list[str] = []
    index: dict[str, int] = {}

    def node(name: str, key: str) -> int:
        if name not in index:
            index[name] = len(nodes)
            nodes.append(name)
            origins.nodes.append(key)
        return index[name]

    for key, wlan in zip(origins.wlans, wlans, strict=True):
        node(wlan.ap, f"{key}.ap")
        for name in wlan.station_names():
            node(name, f"{key}.station_name" if isinstance(wlan.stations, int) else
                 f"{key}.stations")  # fmt: skip

    # Templates repeat for the stations of a single [wlan], or those `per_station` picks.
    repeats = {
        (kind, k): template_stations(scenario, groups, item.per_station, f"{kind}[{k}].per_station")
        for kind, items in (("links", scenario.links), ("flows", scenario.flows))
        for k, item in enumerate(items)
    }

    links = []
    for k, link in enumerate(scenario.links):
        for i in repeats["links", k] or [None]:
            a = link.a if i is None else _expand(link.a, i)
            b = link.b if i is None else _expand(link.b, i)
            if a == b:
                raise ValueError(f"links[{k}]", f"joins {a!r} to itself")
            links.append(
                {
                    "a": node(a, f"links[{k}].a"),
                    "b": node(b, f"links[{k}].b"),
                    "a_to_b": _direction(link, link.a_to_b),
                    "b_to_a": _direction(link, link.b_to_a),
                    "outages": [
                        {"at_ns": outage.at, "duration_ns": outage.duration}
                        for outage in link.outages
                    ],
                }
            )
            origins.links.append(_LinkOrigin(f"links[{k}]", link, i))

    flows = []
    for k, flow in enumerate(scenario.flows):
        for i in repeats["flows", k] or [None]:
            expand = functools.partial(_expand_flow_node, scenario, i)
            src, dst = expand(flow.src), expand(flow.dst)
            src_node = _node(index, src, f"flows[{k}].src")
            dst_node = _node(index, dst, f"flows[{k}].dst")
            if src == dst:
                raise ValueError(f"flows[{k}]", f"src and dst are both {src!r}")
            name = expand(flow.name) if flow.name else f"flow{len(flows) + 1}"
            # The receiving station's groups, then the sending one's: the sender's win.
            group_tcp = {
                setting: value
                for station in (dst, src)
                for setting, value in by_station.get(station, StationSettings()).tcp.items()
            }
            flows.append(_flow_json(scenario, flow, name, src_node, dst_node, group_tcp))
            origins.flows.append(
                _FlowOrigin(f"flows[{k}]", flow, i, name, {s: v[1] for s, v in group_tcp.items()})
            )
    _check_params_are_read(scenario, flows, origins.flows)
    names = [f["name"] for f in flows]
    if len(set(names)) != len(names):
        duplicate = next(n for n in names if names.count(n) > 1)
        raise ValueError("flows", f"flow name {duplicate!r} is used more than once")

    sim = scenario.simulation
    settings_of = {g.key: g.by_station for g in groups}
    wlans_json = [
        _wlan_json(w, index, key, origins, settings_of.get(key, {}))
        for key, w in zip(origins.wlans, wlans, strict=True)
    ]
    resolved = {
        "name": sim.name,
        "seed": sim.seed if seed is None else seed,
        "duration_ns": sim.duration,
        "measure_from_ns": sim.measure_from,
        "sample_interval_ns": sim.sample_interval,
        "nodes": nodes,
        "links": links,
        "wlans": wlans_json,
        "flows": flows,
    }
    # Only when used, so that a run's key (a hash of this) is unchanged without them.
    agents = _agents_json(scenario, index, groups, origins)
    if agents:
        resolved["agents"] = agents
    if scenario.mobiles:
        resolved["mobiles"] = _mobiles_json(scenario, index)
    if sim.one_way_delay:
        resolved["one_way_delay"] = True
    if sim.queue_sojourn:
        resolved["queue_sojourn"] = True
    if scenario.radio is not None:
        resolved["radio"] = radio_json(scenario.radio)
    positions, origins.positions = positions_json(scenario, wlans, index, groups)
    if positions:
        resolved["positions"] = positions
    return resolved, origins


def _flow_json(
    scenario: Scenario,
    flow: Flow,
    name: str,
    src: int,
    dst: int,
    group_tcp: dict[str, tuple[Any, str]],
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": name,
        "src": src,
        "dst": dst,
        "start_ns": flow.start,
        "stop_ns": flow.stop,
    }
    if flow.dscp is not None:
        entry["dscp"] = flow.dscp
    if flow.kind in ("tcp_bulk", "tcp_workload"):
        inherited = scenario.tcp.model_dump(exclude_none=True)
        # Its stations' groups' settings come between the scenario's and the flow's own.
        grouped = {s: value for s, (value, _) in group_tcp.items() if "." not in s}
        group_params = {
            s.removeprefix("congestion_params."): value
            for s, (value, _) in group_tcp.items()
            if s.startswith("congestion_params.")
        }
        own = flow.tcp.model_dump(exclude_none=True)
        merged = {**inherited, **grouped, **own}
        controller = merged.pop("congestion_control", "newreno")
        # Key by key, as every other setting; the scenario's and the groups' parameters
        # reach only the flows whose controller reads them (`_check_params_are_read` checks
        # that some flow does).
        params = {
            name: value
            for name, value in {**inherited.get("congestion_params", {}), **group_params}.items()
            if controller in _param_readers()[name]
        }
        params.update(own.get("congestion_params", {}))
        merged.pop("congestion_params", None)
        if params:
            merged["congestion_params"] = params
        entry["app"] = {
            "kind": flow.kind,
            "congestion_control": controller,
            "tcp": {f"{k}_ns" if k in _TCP_DURATIONS else k: v for k, v in merged.items()},
        }
        if flow.kind == "tcp_bulk":
            entry["app"]["bytes"] = flow.bytes
        else:
            sizes = flow.sizes
            entry["app"] |= {
                "sizes": sizes if isinstance(sizes, str) else sizes.points,
                "rate_bps": flow.rate,
                "count": flow.count,
            }
    elif flow.kind == "udp_cbr":
        payload = 1000 if flow.payload is None else flow.payload
        entry["app"] = {"kind": "udp_cbr", "rate_bps": flow.rate, "payload_bytes": payload}
    elif flow.kind == "ping":
        entry["app"] = {
            "kind": "ping",
            "count": flow.count or 10,
            "interval_ns": flow.interval or 1_000_000_000,
            "payload_bytes": 56 if flow.payload is None else flow.payload,
            "train": flow.train or 1,
            "one_way": bool(flow.one_way),
        }
    return entry


@functools.cache
def _param_readers() -> dict[str, list[str]]:
    """The controllers that read each congestion parameter (declared in Rust)."""
    return {spec["name"]: spec["controllers"] for spec in _core.congestion_params()}


def _check_params_are_read(
    scenario: Scenario, flows: list[dict[str, Any]], origins: list[_FlowOrigin]
) -> None:
    """A parameter of the scenario's [tcp.congestion_params], or of a group's, that no TCP
    flow it reaches has a controller to read would do nothing: an error naming it."""
    tcp = [(f, o) for f, o in zip(flows, origins, strict=True)
           if f["app"]["kind"] in ("tcp_bulk", "tcp_workload")]  # fmt: skip
    params = scenario.tcp.congestion_params
    reaching = {
        f"tcp.congestion_params.{name}": (name, [f for f, _ in tcp])
        for name in (params.model_dump(exclude_none=True) if params else {})
    }
    for flow, origin in tcp:
        for setting, key in origin.group_tcp.items():
            if setting.startswith("congestion_params."):
                name = setting.removeprefix("congestion_params.")
                reaching.setdefault(key, (name, []))[1].append(flow)
    for key, (name, reached) in reaching.items():
        readers = _param_readers()[name]
        used = {f["app"]["congestion_control"] for f in reached}
        if not used.intersection(readers):
            raise ValueError(key, f"applies to {' and '.join(readers)}, which no flow uses")


def _wlan_json(
    w: Wlan,
    index: dict[str, int],
    key: str,
    origins: Origins,
    groups: dict[str, StationSettings],
) -> dict[str, Any]:
    agent = w.agent
    optional: dict[str, Any] = {}
    if w.channel is not None:
        optional["channel"] = w.channel
    rates, rate_keys = _per_station(w.station_rates, f"{key}.station_rates", groups, "rate")
    mcs, mcs_keys = _per_station(w.station_mcs, f"{key}.station_mcs", groups, "mcs")
    origins.station_rates.append(rate_keys)
    origins.station_mcs.append(mcs_keys)
    if rates:
        optional["station_rates"] = [
            {"station": _node(index, name, where), "rate_bps": rate}
            for (name, rate), where in zip(rates, rate_keys, strict=True)
        ]
    if w.rate_control is not None:
        optional["rate_control"] = w.rate_control
    for name, value in (("ampdu", w.ampdu), ("max_ampdu_bytes", w.max_ampdu),
                        ("ba_window", w.ba_window),
                        ("max_ampdu_duration_ns", w.max_ampdu_duration),
                        ("max_amsdu_bytes", w.max_amsdu)):  # fmt: skip
        if value is not None:
            optional[name] = value
    if w.queueing != WLAN_QUEUEINGS[0]:
        optional["queueing"] = w.queueing
    if w.driver_queue != WLAN_DRIVER_QUEUES[0]:
        optional["driver_queue"] = w.driver_queue
    optional |= _aqm(w.aqm)
    for name, value in (("firmware_queue_frames", w.firmware_queue),
                        ("aql_limit_low_ns", w.aql_limit_low),
                        ("aql_limit_high_ns", w.aql_limit_high),
                        ("aql_threshold_ns", w.aql_threshold)):  # fmt: skip
        if value is not None:
            optional[name] = value
    if w.edca is not None:
        optional["edca"] = w.edca
    for name in ("edca_params", "ap_edca_params"):
        if params := getattr(w, name):
            optional[name] = {ac: _edca_ac_json(changes) for ac, changes in params.items()}
    if mcs:
        optional["station_mcs"] = [
            {"station": _node(index, name, where), "mcs": value}
            for (name, value), where in zip(mcs, mcs_keys, strict=True)
        ]
    return {
        "ap": index[w.ap],
        "stations": [index[s] for s in w.station_names()],
        "phy": _phy_json(w),
        "rts_threshold": None if w.rts_threshold == "off" else w.rts_threshold,
        "queue_packets": w.queue,
        "short_retry_limit": w.short_retry_limit,
        "long_retry_limit": w.long_retry_limit,
        **_unless_default("msdu_lifetime_ns", w.msdu_lifetime),
        **_unless_default("queue_max_delay_ns", w.queue_max_delay),
        **_unless_default("eifs_after_collision", w.eifs_after_collision),
        "errors": {"loss": w.loss, "ber": w.ber},
        "agent": None if agent is None else _agent_json(agent),
        **optional,
    }


def _phy_json(w: Wlan) -> dict[str, Any]:
    """A WLAN's PHY: a data rate for 802.11a/b/g (or where one is given, for the simulator to
    refuse on an MCS PHY), the MCS settings where given, only then, so that the runs of
    earlier scenarios keep their identities."""
    phy: dict[str, Any] = {"standard": w.phy}
    if not uses_mcs(w.phy) or "rate" in w.model_fields_set:
        phy["rate_bps"] = w.rate
    phy |= {
        "basic_rate_bps": w.basic_rate,
        "preamble": w.preamble,
        "short_slot": w.short_slot,
        "cw_min": w.cw_min,
        "cw_max": w.cw_max,
    }
    for name in ("mcs", "channel_width", "spatial_streams", "guard_interval", "band"):
        value = getattr(w, name)
        if value is not None:
            suffix = {"channel_width": "_mhz", "guard_interval": "_ns"}.get(name, "")
            phy[name + suffix] = value
    return phy


def _edca_ac_json(changes: EdcaAc) -> dict[str, Any]:
    fields = changes.model_dump(exclude_none=True)
    if "txop_limit" in fields:
        fields["txop_limit_ns"] = fields.pop("txop_limit")
    return fields


def _agent_json(agent: Agent) -> dict[str, Any]:
    return {
        **({"ac": agent.ac} if agent.ac is not None else {}),
        "kind": agent.kind,
        "txop_limit_ns": agent.txop_limit,
        "max_aggregate": agent.max_aggregate,
        "target_stations": agent.target_stations,
        "ack_queue_packets": agent.ack_queue,
        "local_rto_min_ns": agent.local_rto_min,
        "silence_ns": agent.silence,
        "duplicate_acks": agent.duplicate_acks,
        "fast_recovery": agent.fast_recovery,
    }


def _node(index: dict[str, int], name: str, key: str) -> int:
    """The index of node ``name``; a ValueError naming ``key`` and some nodes if none."""
    if name not in index:
        nodes = list(index)
        known = ", ".join(nodes[:8]) + (", ..." if len(nodes) > 8 else "")
        raise ValueError(key, f"unknown node {name!r} (nodes: {known})")
    return index[name]


def _mobiles_json(scenario: Scenario, index: dict[str, int]) -> list[dict[str, Any]]:
    mobiles = []
    for k, mobile in enumerate(scenario.mobiles):
        key = f"mobiles[{k}]"
        procedure = mobile.procedure.model_dump(exclude_none=True)
        mobiles.append(
            {
                "node": _node(index, mobile.node, f"{key}.node"),
                "attached": _node(index, mobile.attached, f"{key}.attached"),
                "while_detached": mobile.while_detached,
                "procedure": {f"{name}_ns": value for name, value in procedure.items()},
                "handoff_duration_ns": mobile.handoff_duration,
                **(
                    {"handoff_jitter_ns": mobile.handoff_jitter}
                    if mobile.handoff_jitter is not None
                    else {}
                ),
                "handoffs": [
                    {
                        "at_ns": h.at,
                        "to": _node(index, h.to, f"{key}.handoffs[{j}].to"),
                        "duration_ns": h.duration,
                    }
                    for j, h in enumerate(mobile.handoffs)
                ],
                **_movement_json(mobile, index, key),
            }
        )
    return mobiles


def _movement_json(mobile: Mobile, index: dict[str, int], key: str) -> dict[str, Any]:
    """A mobile's ``movement`` in metres and ns; left out without one."""
    movement = mobile.movement
    if movement is None:
        return {}
    return {
        "movement": {
            "path": [{"at_ns": p.at, "x_m": p.x, "y_m": p.y} for p in movement.path],
            "cells": [
                {
                    "base_station": _node(
                        index, c.base_station, f"{key}.movement.cells[{k}].base_station"
                    ),
                    "x_m": c.x,
                    "y_m": c.y,
                    "range_m": c.range,
                }
                for k, c in enumerate(movement.cells)
            ],
        }
    }


def _agents_json(
    scenario: Scenario, index: dict[str, int], groups: list[WlanGroups], origins: Origins
) -> list[dict[str, Any]]:
    """The [[agents]], then the agents of groups, on each of their stations' WLAN interface
    (named by its AP where the station is in several WLANs)."""
    placed = []
    for k, placement in enumerate(scenario.agents):
        placed.append(
            {
                "node": _node(index, placement.node, f"agents[{k}].node"),
                "interface": placement.interface,
                "agent": _agent_json(placement),
            }
        )
        origins.agents.append(f"agents[{k}]")
    wlans_of: dict[str, int] = {}
    for wlan in scenario.all_wlans():
        for name in wlan.station_names():
            wlans_of[name] = wlans_of.get(name, 0) + 1
    for group in groups:
        for name in group.wlan.station_names():
            settings = group.by_station.get(name)
            if settings is None or settings.agent is None:
                continue
            agent, where = settings.agent
            placed.append(
                {
                    "node": index[name],
                    "interface": "wlan" if wlans_of[name] == 1 else group.wlan.ap,
                    "agent": _agent_json(agent),
                }
            )
            origins.agents.append(where)
    return placed


def _station_settings(groups: list[WlanGroups]) -> dict[str, StationSettings]:
    """Each station's TCP settings from its WLANs' groups (a later WLAN's over an earlier's)."""
    merged: dict[str, StationSettings] = {}
    for group in groups:
        for name, settings in group.by_station.items():
            merged.setdefault(name, StationSettings()).tcp.update(settings.tcp)
    return merged


def _per_station(
    own: dict[str, Any], key: str, groups: dict[str, StationSettings], setting: str
) -> tuple[list[tuple[str, Any]], list[str]]:
    """A WLAN's per-station values (``station_rates``, ``station_mcs``) and the user's key of
    each: its own table's first, then its groups' for the stations the table leaves out."""
    values = list(own.items())
    keys = [f"{key}.{name}" for name in own]
    for name, settings in groups.items():
        value = getattr(settings, setting)
        if value is not None and name not in own:
            values.append((name, value[0]))
            keys.append(value[1])
    return values, keys


def _unless_default(key: str, value: int | bool | str | None) -> dict[str, Any]:
    """A resolved key, left out when unset (the simulator's default); "off" is null."""
    if value is None:
        return {}
    return {key: None if value == "off" else value}


def _aqm(aqm: Aqm) -> dict[str, Any]:
    """A direction's (or a WLAN's qdisc's) AQM as the simulator reads it, left out for
    DropTail."""
    if aqm.kind == "none":
        return {}
    settings = {"target_ns": aqm.target, "interval_ns": aqm.interval, "tupdate_ns": aqm.tupdate}
    settings |= {"flows": aqm.flows, "quantum": aqm.quantum, "alpha": aqm.alpha, "beta": aqm.beta}
    settings |= {"ecn": aqm.ecn, "min": aqm.min, "max": aqm.max, "probability": aqm.probability}
    settings |= {"burst": aqm.burst, "avpkt": aqm.avpkt, "adaptive": aqm.adaptive}
    return {"aqm": {"kind": aqm.kind} | {k: v for k, v in settings.items() if v is not None}}


def _direction(link: Link, override: Direction) -> dict[str, Any]:
    queue = override.queue or link.queue
    rate, trace = link.pace(override)
    return {
        **({"trace_ms": trace.times_ms} if trace else {"rate_bps": rate}),
        "delay_ns": link.delay if override.delay is None else override.delay,
        "queue": {"packets": queue.packets, "bytes": queue.bytes},
        **_aqm(override.aqm or link.aqm),
        "errors": {
            "loss": link.loss if override.loss is None else override.loss,
            "ber": link.ber if override.ber is None else override.ber,
        },
    }
