"""Experiment files: a base scenario, parameters to vary, replications and metrics; and their
expansion into runs, each keyed by a hash of its resolved scenario and seed.

```toml
[experiment]
name = "flows"
scenario = "ryu-upload"                     # a built-in name, or a path relative to this file
replications = 10
seed = 1                                     # base seed
seeds = "per-point"                          # or "common" (common random numbers)
timeout = "10min"                            # per run, wall clock
metrics = ["aggregate_goodput_bps", "wlans[0].mean_contenders"]
timeseries = false                           # keep each run's per-flow time series

[set]                                        # fixed overrides
"simulation.duration" = "50s"

[grid]                                       # cartesian product
"wlan.stations" = { start = 1, stop = 40, step = 1 }
"tcp.profile" = ["rfc", "linux"]

[zip]                                        # varied together, one dimension of the grid
"links.0.rate" = ["8kbps", "16kbps", "24kbps"]
"links.0.ber" = [0, 1e-7, 1e-6]

[zip.channel]                                # a named group: one more dimension of its own
scenario = ["wired-tcp", "ahn-asymmetric"]   # the key `scenario` names each point's base
"simulation.duration" = ["20s", "50s"]
```

The key ``scenario`` in the grid or a zip group names the base scenario of each point (a
built-in name, or a path relative to this file) instead of the experiment's; every point's
flows, WLANs and links are then checked against the metrics of its own shape.

An experiment's identity is a hash of everything that defines its results: each run's
resolved scenario and seed (so the base scenario, ``set``, the grid, the zip, replications
and seeds), the point and replication each run is and its parameters as written, the
metrics, and the backend. The name, the timeout, ``timeseries``, comments and the order of
keys are left out: they change no result. Each stored run records it, so that a results
directory holds one experiment's runs (`airtcp.experiments.store`).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from .. import _core
from ..catalog import NotFound, locate
from ..scenario.overrides import set_key
from ..scenario.resolve import resolve_checked
from ..scenario.schema import ScenarioError, find, loads_toml, parse, read_toml, validation_error
from ..scenario.units import parse_duration
from .metrics import MetricError, lookup

# Kept when no metrics are named, each if the scenario's summary has it (a wired scenario
# has no WLAN).
DEFAULT_METRICS = (
    "aggregate_goodput_bps",
    "jain_fairness",
    "wlans[0].collision_probability",
    "wlans[0].mean_contenders",
)


class Range(BaseModel):
    model_config = ConfigDict(extra="forbid")
    start: float
    stop: float
    step: float = 1.0

    def values(self) -> list[int | float]:
        if self.step <= 0:
            raise ValueError(f"step must be positive, got {self.step:g}")
        count = int((self.stop - self.start) / self.step + 1e-9) + 1
        if count <= 0:
            raise ValueError(f"empty range: start {self.start:g} is after stop {self.stop:g}")
        if count > 100_000:
            raise ValueError(f"range has {count} values; at most 100000")
        values = [self.start + i * self.step for i in range(count)]
        if all(float(v).is_integer() for v in (self.start, self.step)):
            return [int(v) for v in values]
        return [round(v, 12) for v in values]


def _values(value: object) -> list[Any]:
    if isinstance(value, dict):
        return Range.model_validate(value).values()
    if isinstance(value, list):
        if not value:
            raise ValueError("empty list of values")
        return value
    raise ValueError("expected a list of values or a range {start, stop, step}")


Values = Annotated[list[Any], BeforeValidator(_values)]


def _timeout(value: object) -> float:
    seconds = parse_duration(value) / 1e9
    if seconds <= 0:
        raise ValueError(f"must be positive, got {value!r} (every run would time out)")
    return seconds


def _directory_name(value: object) -> object:
    """The name is the default output directory's (results/NAME): one plain path component,
    so that no name writes outside results/."""
    if isinstance(value, str) and (
        value in ("", ".", "..") or "/" in value or "\\" in value or not value.isprintable()
    ):
        raise ValueError(
            f"{value!r} names the output directory results/{value}: expected a plain name, "
            "without '/', '\\' or control characters, and not '.' or '..'"
        )
    return value


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, BeforeValidator(_directory_name)] = "experiment"
    scenario: str
    replications: Annotated[int, Field(ge=1, le=100_000)] = 1
    seed: Annotated[int, Field(ge=0, lt=2**63)] = 1
    seeds: Literal["per-point", "common"] = "per-point"
    timeout: Annotated[float, BeforeValidator(_timeout)] = 3600.0
    metrics: list[str] | None = None
    timeseries: bool = False
    # "emu": each run over real kernels (docs/emulation.md), one at a time on this machine.
    backend: Literal["sim", "emu"] = "sim"


class ExperimentFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    experiment: Settings
    set: dict[str, Any] = {}
    grid: dict[str, Values] = {}
    # Lists varied together; a table of lists is a further group of its own.
    zip: dict[str, Values | dict[str, Values]] = {}


@dataclass(frozen=True)
class Task:
    """One run: everything a worker needs, picklable."""

    run_id: str
    point: int
    replication: int
    seed: int
    params: dict[str, Any]
    scenario: dict[str, Any]
    metrics: tuple[str, ...]
    timeout_s: float
    timeseries: bool
    backend: str = "sim"


@dataclass
class Experiment:
    path: Path
    text: str
    scenario_path: Path
    settings: Settings
    fixed: dict[str, Any]
    grid: dict[str, list[Any]]
    zipped: list[dict[str, list[Any]]]
    tasks: list[Task] = field(default_factory=list)
    # A hash of everything that defines the results (see the module's doc).
    identity: str = ""


def _derive_seed(*parts: object) -> int:
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).hexdigest()
    return int(digest[:15], 16)


def run_id(resolved: dict[str, Any], backend: str = "sim") -> str:
    """A run's identity: its resolved scenario, and the backend unless the simulator (so an
    emulated run never stands in for a simulated one when a sweep resumes)."""
    identity = resolved if backend == "sim" else {**resolved, "backend": backend}
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:20]


def _named_groups(zipped: dict[str, Any]) -> list[tuple[str, dict[str, list[Any]]]]:
    """The zip table's groups, each one dimension of the points, by their key: its lists as
    one ("zip"), and each table of lists as another ("zip.NAME")."""
    plain = {key: value for key, value in zipped.items() if not isinstance(value, dict)}
    named = [(f"zip.{k}", v) for k, v in zipped.items() if isinstance(v, dict)]
    return [(where, group) for where, group in [("zip", plain), *named] if group]


def points(grid: dict[str, list[Any]], groups: list[dict[str, list[Any]]]) -> list[dict[str, Any]]:
    """The cartesian product of the grid with each zip group as one more dimension."""
    dimensions = [
        [dict(zip(group, row, strict=True)) for row in zip(*group.values(), strict=True)]
        for group in groups
    ]
    grid_rows = [dict(zip(grid, combo, strict=True)) for combo in itertools.product(*grid.values())]
    return [
        {**g, **{k: v for row in rows for k, v in row.items()}}
        for g in grid_rows
        for rows in itertools.product(*dimensions)
    ]


def identity(tasks: list[Task]) -> str:
    """The identity of the experiment these are the runs of."""
    first = tasks[0]
    defining = {
        "backend": first.backend,
        "metrics": first.metrics,
        "runs": [(t.run_id, t.point, t.replication, t.params) for t in tasks],
    }
    canonical = json.dumps(defining, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:20]


def load(path: str | Path) -> Experiment:
    """Reads and expands an experiment file (a path or a built-in name); every point is
    validated before anything runs."""
    path = find(path, "experiments")
    text, data = read_toml(path)
    return _expand(path, text, data)


def from_text(text: str, path: Path) -> Experiment:
    """Expands an experiment file's text as if it were at ``path`` (its scenario is found
    from there), without writing it: a command that generates an experiment writes it with
    the results, once the results directory has taken it."""
    return _expand(path, text, loads_toml(text, str(path)))


def _expand(path: Path, text: str, data: dict[str, Any]) -> Experiment:
    source = str(path)
    try:
        parsed = ExperimentFile.model_validate(data)
    except ValidationError as error:
        raise validation_error(source, error, ExperimentFile) from None
    settings = parsed.experiment
    named = _named_groups(parsed.zip)
    groups = [group for _, group in named]
    for where, group in named:
        lengths = {len(v) for v in group.values()}
        if len(lengths) > 1:
            raise ScenarioError(
                source, where, f"lists must have the same length, got {sorted(lengths)}"
            )
    if "scenario" in parsed.set:
        raise ScenarioError(
            source,
            "set.scenario",
            "the base scenario is [experiment] scenario; vary it in grid or zip",
        )
    zipped = [key for group in groups for key in group]
    overlap = {key for key in zipped if zipped.count(key) > 1}
    overlap |= set(parsed.grid) & set(zipped) | set(parsed.set) & (set(parsed.grid) | set(zipped))
    if overlap:
        raise ScenarioError(
            source, sorted(overlap)[0], "is set in more than one of set, grid and zip"
        )
    scenario_path = _scenario(settings.scenario, path, source, "experiment.scenario")
    # Each base scenario by the name a point gives it (None: the experiment's), read once.
    bases = {None: (scenario_path, read_toml(scenario_path)[1])}
    experiment = Experiment(path, text, scenario_path, settings, parsed.set, parsed.grid, groups)
    shapes: set[tuple[int, int, int]] = set()
    for index, point in enumerate(points(parsed.grid, groups)):
        label = ", ".join(f"{k}={v}" for k, v in point.items()) or "base"
        name = str(point["scenario"]) if "scenario" in point else None
        if name not in bases:
            named = _scenario(name, path, source, f"scenario (point {label})")
            bases[name] = (named, read_toml(named)[1])
        point_path, base = bases[name]
        data = copy.deepcopy(base)
        try:
            for key, value in {**parsed.set, **point}.items():
                if key != "scenario":
                    set_key(data, key, value)
        except ValueError as error:
            raise ScenarioError(source, "", f"point {label}: {error}") from None
        try:
            point_resolved = resolve_checked(parse(data, str(point_path)), str(point_path))
        except ScenarioError as error:
            raise ScenarioError(source, error.key, f"{error.message} (point {label})") from None
        shape = tuple(len(point_resolved[k]) for k in ("flows", "wlans", "links"))
        if shape not in shapes:
            shapes.add(shape)
            template = json.loads(_core.summary_template(json.dumps(point_resolved)))
            if settings.metrics is None:
                settings.metrics = [m for m in DEFAULT_METRICS if _has(template, m)]
            _check_metrics(settings.metrics, template, source, label)
        point_key = json.dumps(point, sort_keys=True)
        for replication in range(settings.replications):
            if settings.seeds == "common":
                seed = _derive_seed(settings.seed, replication)
            else:
                seed = _derive_seed(settings.seed, point_key, replication)
            resolved = {**point_resolved, "seed": seed}
            experiment.tasks.append(
                Task(
                    run_id=run_id(resolved, settings.backend),
                    point=index,
                    replication=replication,
                    seed=seed,
                    params=point,
                    scenario=resolved,
                    metrics=tuple(settings.metrics or ()),
                    timeout_s=settings.timeout,
                    timeseries=settings.timeseries,
                    backend=settings.backend,
                )
            )
    experiment.identity = identity(experiment.tasks)
    return experiment


def _scenario(name: str, path: Path, source: str, key: str) -> Path:
    """The scenario file ``name`` means in the experiment at ``path``."""
    try:
        return locate(name, "scenarios", relative_to=path.parent).resolve()
    except NotFound as error:
        raise ScenarioError(source, key, str(error)) from None


def _has(template: dict[str, Any], metric: str) -> bool:
    try:
        lookup(template, metric)
    except MetricError:
        return False
    return True


def _check_metrics(metrics: list[str], template: dict[str, Any], source: str, label: str) -> None:
    """Each metric names a number in the summary of a run (``template`` has its shape)."""
    for metric in metrics:
        try:
            lookup(template, metric)
        except MetricError as error:
            raise ScenarioError(source, "experiment.metrics", f"{error} (point {label})") from None
