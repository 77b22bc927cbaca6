"""A scenario's geometry in the simulator's JSON: the [radio] settings (only those set, so
that the simulator's defaults, ns-3's, apply elsewhere), each node's position from
[positions] or its WLAN's ``layout``, and the user's key for a resolved radio field."""

from __future__ import annotations

import math
from typing import Any

from .schema import Layout, Radio, Scenario, Wlan
from .stations import WlanGroups

# User key: resolved key, for [radio] and [radio.propagation].
_RADIO = {
    "shadowing": "shadowing_sigma_db",
    "tx_power": "tx_power_dbm",
    "antenna_gain": "antenna_gain_db",
    "noise_figure": "noise_figure_db",
    "cca_threshold": "cca_ed_threshold_dbm",
    "cca_sensitivity": "cca_sensitivity_dbm",
    "preamble_threshold": "preamble_rssi_dbm",
    "preamble_snr": "preamble_snr_db",
    "capture_margin": "capture_margin_db",
    "cutoff": "cutoff_dbm",
    "propagation_delay": "propagation_delay",
    "cca_time": "cca_time_ns",
    "position_update": "position_update_ns",
    "dcf": "dcf",
}
_PROPAGATION = {
    "exponent": "exponent",
    "reference_loss": "reference_loss_db",
    "reference_distance": "reference_distance_m",
    "system_loss": "system_loss_db",
    "antenna_height": "antenna_height_m",
}


def radio_json(radio: Radio) -> dict[str, Any]:
    """The settings given, under the simulator's names."""
    out: dict[str, Any] = {
        resolved: getattr(radio, user)
        for user, resolved in _RADIO.items()
        if getattr(radio, user) not in (None, "off")
    }
    propagation = radio.propagation
    out["propagation"] = {
        "model": propagation.model,
        **{
            resolved: getattr(propagation, user)
            for user, resolved in _PROPAGATION.items()
            if getattr(propagation, user) is not None
        },
    }
    if radio.fading.model != "none":
        out["fading"] = radio.fading.model_dump(exclude_none=True)
    return out


def user_radio_key(rest: str) -> str:
    """The user's key for a resolved ``radio.<rest>``."""
    head, _, leaf = rest.partition(".")
    if head == "propagation" and leaf:
        user = {v: k for k, v in _PROPAGATION.items()}.get(leaf, leaf)
        return f"radio.propagation.{user}"
    if head == "fading":
        return f"radio.fading.{leaf}".rstrip(".")
    return "radio." + {v: k for k, v in _RADIO.items()}.get(head, head)


def positions_json(
    scenario: Scenario, wlans: list[Wlan], index: dict[str, int], groups: list[WlanGroups]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Each placed node's position (and power, if its own), and the user's key for each:
    [positions] first, then the stations of groups with a layout (a later group's over an
    earlier's), then the nodes of WLANs with a layout, each where the ones before leave
    it out."""
    placed: list[dict[str, Any]] = []
    keys: list[str] = []
    for name, place in scenario.positions.items():
        if name not in index:
            known = ", ".join(list(index)[:8]) + (", ..." if len(index) > 8 else "")
            raise ValueError(f"positions.{name}", f"unknown node {name!r} (nodes: {known})")
        entry: dict[str, Any] = {"node": index[name], "x": place.x, "y": place.y, "z": place.z}
        if place.tx_power is not None:
            entry["tx_power_dbm"] = place.tx_power
        if place.path is not None:
            points = [{"at_ns": p.at, "x": p.x, "y": p.y, "z": p.z} for p in place.path]
            entry["motion"] = {"model": "path", "points": points}
        if (walk := place.random_waypoint) is not None:
            x_min, x_max, y_min, y_max = walk.area
            entry["motion"] = {
                "model": "random_waypoint",
                **{"x_min": x_min, "x_max": x_max, "y_min": y_min, "y_max": y_max},
                "speed_min_mps": walk.speed[0],
                "speed_max_mps": walk.speed[1],
                "pause_ns": walk.pause,
            }
        placed.append(entry)
        keys.append(f"positions.{name}")
    done = set(scenario.positions)
    for wlan_groups in groups:
        _check_groups_leave_none_out(wlan_groups, done)
    laid_out = [
        (f"{key}.layout", _group_laid_out(group.layout, stations))
        for wlan_groups in groups
        for key, group, stations in reversed(wlan_groups.members)
        if group.layout is not None
    ]
    laid_out += [
        (f"{key}.layout", _laid_out(wlan))
        for key, wlan in zip(scenario.wlan_keys(), wlans, strict=True)
        if wlan.layout is not None
    ]
    if scenario.mesh is not None:
        spacing = scenario.mesh.spacing
        chain = [
            (name, (i * spacing, 0.0, 0.0)) for i, name in enumerate(scenario.mesh.node_names())
        ]
        laid_out.append(("mesh.spacing", chain))
    for key, spots in laid_out:
        for name, (x, y, z) in spots:
            if name not in done:
                done.add(name)
                placed.append({"node": index[name], "x": x, "y": y, "z": z})
                keys.append(key)
    return placed, keys


def _check_groups_leave_none_out(wlan_groups: WlanGroups, positioned: set[str]) -> None:
    """A group's layout places only its stations: with no layout of the WLAN's own, the AP
    and every other station need [positions] (or another group's layout), or the WLAN is
    half placed; the error names the group, whose layout made it one with geometry."""
    wlan = wlan_groups.wlan
    laid = [(key, stations) for key, group, stations in wlan_groups.members if group.layout]
    if not laid or wlan.layout is not None:
        return
    placed = positioned.union(*(stations for _, stations in laid))
    missing = [name for name in [wlan.ap, *wlan.station_names()] if name not in placed]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise ValueError(
            f"{laid[0][0]}.layout",
            f"places only the group's stations: {missing[0]}{more} has no place; give "
            f"{wlan_groups.key} a layout or [positions]",
        )


def _laid_out(wlan: Wlan) -> list[tuple[str, tuple[float, float, float]]]:
    """The AP at the layout's centre, the stations around or after it."""
    layout = wlan.layout
    assert layout is not None
    cx, cy, cz = [*layout.center, 0.0][:3]
    return [(wlan.ap, (cx, cy, cz)), *_group_laid_out(layout, wlan.station_names())]


def _group_laid_out(
    layout: Layout, stations: list[str]
) -> list[tuple[str, tuple[float, float, float]]]:
    """Stations evenly on a circle around the layout's centre, or along a line after it."""
    cx, cy, cz = [*layout.center, 0.0][:3]
    spots: list[tuple[str, tuple[float, float, float]]] = []
    for k, name in enumerate(stations):
        if layout.shape == "circle":
            assert layout.radius is not None
            angle = 2 * math.pi * k / len(stations)
            spot = (cx + layout.radius * math.cos(angle), cy + layout.radius * math.sin(angle), cz)
        else:
            assert layout.spacing is not None
            spot = (cx + layout.spacing * (k + 1), cy, cz)
        spots.append((name, spot))
    return spots
