"""Some of a WLAN's stations: a selection by number (``"1-3,7"``, ``4``, ``[1, 5]``: the
numbers ``{i}`` takes, 1..N, whichever way the stations are named) or by the name of one of
the WLAN's ``[[wlan.groups]]``; and each station's settings from the groups that hold it
(docs/scenarios.md, "Stations apart").

Where groups overlap, the later one's setting wins, key by key for ``tcp``; a WLAN's own
per-station tables (``station_rates``, ``station_mcs``, ``[positions]``) win over groups.
Errors are ``ValueError(key, message)``, as `resolve` raises them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .schema import Scenario, StationGroup, Wlan

_RANGE = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")


def numbers(selection: int | str | list[int], count: int, key: str) -> list[int]:
    """The station numbers a selection names, in increasing order, each once; ``count`` is
    the WLAN's number of stations."""
    if isinstance(selection, bool):
        raise ValueError(key, 'expected station numbers like "1-3,7"')
    if isinstance(selection, int):
        chosen = [selection]
    elif isinstance(selection, list):
        chosen = list(selection)
    else:
        chosen = []
        for part in selection.split(","):
            match = _RANGE.fullmatch(part)
            if match is None:
                raise ValueError(
                    key,
                    f'expected station numbers and ranges like "1-3,7", got {selection!r}',
                )
            first = int(match.group(1))
            last = int(match.group(2) or first)
            if last < first:
                raise ValueError(key, f"the range {part.strip()!r} runs backwards")
            # Checked before expanding: a typo like "1-3000000000" fails at once.
            _check_bounds([first, last], count, key)
            chosen.extend(range(first, last + 1))
    _check_bounds(chosen, count, key)
    return sorted(set(chosen))


def _check_bounds(chosen: list[int], count: int, key: str) -> None:
    for number in chosen:
        if not 1 <= number <= count:
            raise ValueError(key, f"station {number}: the WLAN's stations are 1..{count}")


@dataclass
class StationSettings:
    """One station's settings from groups, each with the user's key that set it."""

    rate: tuple[int, str] | None = None
    mcs: tuple[int, str] | None = None
    agent: tuple[Any, str] | None = None
    # Key by key: the value and the group key that set it.
    tcp: dict[str, tuple[Any, str]] = field(default_factory=dict)


@dataclass
class WlanGroups:
    """A WLAN's groups, resolved to its station names."""

    key: str
    wlan: Wlan
    # Each group's key (``wlan.groups[0]``) and its stations' names, in the file's order.
    members: list[tuple[str, StationGroup, list[str]]]
    by_station: dict[str, StationSettings]

    def named(self, name: str) -> list[int] | None:
        """The numbers of the stations of the group called ``name``, if there is one."""
        number = {station: i for i, station in enumerate(self.wlan.station_names(), 1)}
        for _, group, stations in self.members:
            if group.name == name:
                return [number[s] for s in stations]
        return None


def wlan_groups(key: str, wlan: Wlan) -> WlanGroups:
    names = wlan.station_names()
    members = []
    by_station: dict[str, StationSettings] = {}
    seen: dict[str, str] = {}
    for g, group in enumerate(wlan.groups):
        group_key = f"{key}.groups[{g}]"
        if group.name is not None:
            if group.name in seen:
                raise ValueError(
                    f"{group_key}.name", f"{group.name!r} names {seen[group.name]} too"
                )
            seen[group.name] = group_key
        stations = [
            names[n - 1] for n in numbers(group.stations, len(names), f"{group_key}.stations")
        ]
        members.append((group_key, group, stations))
        for name in stations:
            settings = by_station.setdefault(name, StationSettings())
            if group.rate is not None:
                settings.rate = (group.rate, f"{group_key}.rate")
            if group.mcs is not None:
                settings.mcs = (group.mcs, f"{group_key}.mcs")
            if group.agent is not None:
                settings.agent = (group.agent, f"{group_key}.agent")
            if group.tcp is not None:
                for setting, value in _tcp_settings(group.tcp.model_dump(exclude_none=True)):
                    settings.tcp[setting] = (value, f"{group_key}.tcp.{setting}")
    return WlanGroups(key, wlan, members, by_station)


def _tcp_settings(tcp: dict[str, Any]) -> list[tuple[str, Any]]:
    """A group's TCP settings by name, its controller's parameters each on its own
    (``congestion_params.cubic_c``), so that groups and ends merge them key by key."""
    flat = [(name, value) for name, value in tcp.items() if name != "congestion_params"]
    params = tcp.get("congestion_params", {})
    return flat + [(f"congestion_params.{name}", value) for name, value in params.items()]


def all_groups(scenario: Scenario) -> list[WlanGroups]:
    """Every WLAN's groups (the mesh's hops have none)."""
    own = [scenario.wlan] if scenario.wlan is not None else list(scenario.wlans)
    return [wlan_groups(key, w) for key, w in zip(scenario.wlan_keys(), own, strict=False)]


def template_stations(
    scenario: Scenario,
    groups: list[WlanGroups],
    per_station: bool | int | str | list[int],
    key: str,
) -> list[int] | None:
    """The station numbers a link or flow template repeats for (``None``: not a template):
    all of a single [wlan]'s stations, or those a selection or a group's name picks."""
    if per_station is False:
        return None
    if scenario.wlan is None:
        raise ValueError(key, "needs a [wlan] whose stations it repeats for")
    count = len(scenario.wlan.station_names())
    if per_station is True:
        return list(range(1, count + 1))
    if isinstance(per_station, str) and per_station[:1].isalpha():
        chosen = groups[0].named(per_station)
        if chosen is None:
            known = [group.name for _, group, _ in groups[0].members if group.name]
            hint = f" (groups: {', '.join(known)})" if known else " (the WLAN names no groups)"
            raise ValueError(key, f"no group called {per_station!r}{hint}")
        return chosen
    return numbers(per_station, count, key)
