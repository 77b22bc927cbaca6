"""The Python API: ``airtcp.run(scenario_or_path, seed=..., overrides={...})``."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from . import _core
from .overrides import apply_overrides
from .scenario import Scenario, ScenarioError, load, parse, resolve_checked


@dataclass
class RunResult:
    """A finished run: the summary (a dict, as ``--json`` prints it), the per-flow time
    series as a DataFrame, and the resolved scenario that produced them."""

    summary: dict[str, Any]
    timeseries: pd.DataFrame
    scenario: dict[str, Any]

    def write(self, out: str | Path) -> None:
        """Writes summary.json, scenario.json and timeseries.parquet atomically into ``out``."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        _atomic_write(out / "summary.json", json.dumps(self.summary, indent=2).encode())
        _atomic_write(out / "scenario.json", json.dumps(self.scenario, indent=2).encode())
        with tempfile.NamedTemporaryFile(dir=out, suffix=".parquet.tmp", delete=False) as tmp:
            self.timeseries.to_parquet(tmp.name, index=False)
        os.replace(tmp.name, out / "timeseries.parquet")


def _atomic_write(path: Path, data: bytes) -> None:
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as tmp:
        tmp.write(data)
    os.replace(tmp.name, path)


def _overrides(overrides: dict[str, Any] | list[str] | None) -> list[str]:
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        return [
            f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in overrides.items()
        ]
    return list(overrides)


def prepare(
    scenario: str | Path | Scenario | dict[str, Any],
    seed: int | None = None,
    overrides: dict[str, Any] | list[str] | None = None,
) -> dict[str, Any]:
    """Loads, overrides, validates and resolves a scenario into the simulator's JSON."""
    sets = _overrides(overrides)
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
        model = _reparse(dict(scenario), sets, source)
    return resolve_checked(model, source, seed)


def _reparse(data: dict[str, Any], sets: list[str], source: str) -> Scenario:
    try:
        apply_overrides(data, sets)
    except ValueError as error:
        raise ScenarioError(source, "--set", str(error)) from None
    return parse(data, source)


def run_resolved(resolved: dict[str, Any], pcap_dir: str | Path | None = None) -> RunResult:
    try:
        summary_json, columns = _core.run(json.dumps(resolved), str(pcap_dir) if pcap_dir else None)
    except _core.ScenarioError as error:
        key, message = error.args
        raise ScenarioError(resolved.get("name", "<scenario>"), key, message) from None
    return RunResult(json.loads(summary_json), pd.DataFrame(columns), resolved)


def run(
    scenario: str | Path | Scenario | dict[str, Any],
    seed: int | None = None,
    overrides: dict[str, Any] | list[str] | None = None,
    pcap_dir: str | Path | None = None,
) -> RunResult:
    """Runs one simulation. ``scenario`` is a TOML path, a parsed Scenario, or a mapping."""
    return run_resolved(prepare(scenario, seed, overrides), pcap_dir)
