"""The Python API: ``airtcp.run(scenario_or_path, seed=..., overrides={...})``."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _core
from .analysis.timeseries import (
    delay_frame,
    frame,
    mac_frame,
    queue_frame,
    write_delay_parquet,
    write_mac_parquet,
    write_parquet,
    write_queue_parquet,
)
from .output import atomic_write, output_dir, replacing
from .scenario.resolve import resolve, resolve_checked
from .scenario.schema import RESOLVED, Scenario, ScenarioError, load, parse_with_overrides
from .version import build_info

if TYPE_CHECKING:
    import pandas as pd

Progress = Callable[[float, float, int], None]


@dataclass
class RunResult:
    """A finished run: the summary (a dict, as ``--json`` prints it), the per-flow time
    series as a DataFrame (empty unless asked for), and the resolved scenario."""

    summary: dict[str, Any]
    columns: dict[str, Any] = field(repr=False)
    scenario: dict[str, Any]

    @cached_property
    def timeseries(self) -> pd.DataFrame:
        """Built on first use: pandas is imported only by those who ask for it."""
        return frame(self.columns)

    @cached_property
    def macs(self) -> pd.DataFrame:
        """The series of the MACs of WLANs with geometry (rate, loss, power per interval);
        empty without them."""
        return mac_frame(self.columns)

    @cached_property
    def queues(self) -> pd.DataFrame:
        """The series of the queues, each wired link direction's ("a→b"): packets, bytes,
        drops and ECN marks per queue per instant; with ``simulation.queue_sojourn`` also
        each WLAN MAC's ("sta→ap (WLAN)", "ap→stations (WLAN)", per AC with EDCA) and each
        interval's dequeued packets (for a MAC: frames that began their first transmission
        attempt) and their mean and longest sojourn. Empty without wired links and
        metered WLANs."""
        return queue_frame(self.columns)

    @cached_property
    def delays(self) -> pd.DataFrame:
        """The series of the flows' one-way delays (packets, mean, max, jitter per flow per
        interval, with ``simulation.one_way_delay``); empty without it."""
        return delay_frame(self.columns)

    def write(self, out: str | Path) -> None:
        """Writes summary.json, scenario.json and timeseries.parquet atomically into ``out``,
        macs.parquet when WLANs with geometry have a series, queues.parquet when wired links
        (or metered MAC queues) do, delays.parquet when flows' one-way delays were measured."""
        out = output_dir(Path(out))
        atomic_write(out / "summary.json", json.dumps(self.summary, indent=2).encode())
        atomic_write(out / "scenario.json", json.dumps(self.scenario, indent=2).encode())
        with replacing(out / "timeseries.parquet") as temporary:
            write_parquet(self.columns, temporary)
        if self.columns.get("macs", {}).get("mac"):
            with replacing(out / "macs.parquet") as temporary:
                write_mac_parquet(self.columns, temporary)
        if self.columns.get("queues", {}).get("direction"):
            with replacing(out / "queues.parquet") as temporary:
                write_queue_parquet(self.columns, temporary)
        if self.columns.get("delays", {}).get("flow"):
            with replacing(out / "delays.parquet") as temporary:
                write_delay_parquet(self.columns, temporary)


def prepare(
    scenario: str | Path | Scenario | dict[str, Any],
    seed: int | None = None,
    overrides: dict[str, Any] | list[str] | None = None,
) -> dict[str, Any]:
    """Loads, overrides, validates (as the simulator will) and resolves a scenario into the
    simulator's JSON; a ScenarioError names the file, the ``--set`` argument and the key.
    ``overrides``: ``["wlan.stations=40"]`` as on the command line, or ``{"wlan.stations":
    40}`` with values used as they are."""
    sets = overrides or []
    if isinstance(scenario, str | Path):
        source = str(scenario)
        model = load(scenario, sets)
    elif isinstance(scenario, Scenario):
        # A parsed scenario holds resolved integers, which are not re-parsed as units.
        if sets:
            raise TypeError("overrides apply to a scenario path or mapping, not a parsed Scenario")
        source = "<scenario>"
        model = scenario
    else:
        source = "<scenario>"
        model = parse_with_overrides(dict(scenario), source, sets)
    return resolve_checked(model, source, seed, sets)


def in_user_terms(
    error: ScenarioError,
    scenario: str | Path,
    overrides: dict[str, Any] | list[str] | None = None,
) -> ScenarioError:
    """An error that a check of the resolved scenario found (emulation's: `RESOLVED` as its
    source) named as the user wrote it: the file or built-in, the user's key, and the
    ``--set`` argument that set it; other errors as they are."""
    if error.source != RESOLVED:
        return error
    sets = overrides or []
    _, origins = resolve(load(scenario, sets))
    key, note = origins.user_key(error.key)
    message = f"{note}: {error.message}" if note else error.message
    return ScenarioError(str(scenario), key, message).blaming(sets)


def run_resolved(
    resolved: dict[str, Any],
    pcap_dir: str | Path | None = None,
    *,
    wlan_pcap_dir: str | Path | None = None,
    timeseries: bool = True,
    snaplen: int | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Runs a scenario ``prepare`` resolved. ``pcap_dir``: a trace per node;
    ``wlan_pcap_dir``: each WLAN's channel as a radiotap 802.11 capture; both keep headers only
    unless ``snaplen`` bytes of each packet are wanted. ``progress(simulated_s, duration_s,
    events)`` is called now and then."""
    try:
        summary_json, columns = _core.run(
            json.dumps(resolved),
            str(pcap_dir) if pcap_dir else None,
            None,
            timeseries,
            snaplen,
            progress,
            str(wlan_pcap_dir) if wlan_pcap_dir else None,
        )
    except _core.ScenarioError as error:
        key, message = error.args
        if key in ("pcap", "pcap-80211"):
            raise ScenarioError(f"--{key}", "", message) from None
        raise ScenarioError("<scenario>", key, message) from None
    summary = json.loads(summary_json)
    summary["airtcp"] = build_info()
    return RunResult(summary, columns, resolved)


def run(
    scenario: str | Path | Scenario | dict[str, Any],
    seed: int | None = None,
    overrides: dict[str, Any] | list[str] | None = None,
    pcap_dir: str | Path | None = None,
    timeseries: bool = True,
    wlan_pcap_dir: str | Path | None = None,
) -> RunResult:
    """Runs one simulation. ``scenario`` is a TOML path, a parsed Scenario, or a mapping.
    ``pcap_dir``: a pcap per node; ``wlan_pcap_dir``: a radiotap 802.11 capture per WLAN."""
    return run_resolved(
        prepare(scenario, seed, overrides),
        pcap_dir,
        wlan_pcap_dir=wlan_pcap_dir,
        timeseries=timeseries,
    )
