"""The scenario schema: what users write in TOML, and its resolution into the plain JSON the
simulator runs (integers in ns, bit/s and bytes; node indices; templates expanded).

One schema serves simulation and, later, emulation. Templates: ``wlan.stations = N`` makes
stations ``sta1..staN``; links and flows with ``per_station = true`` are repeated for each
station with ``{i}`` replaced by its number, so ``--set wlan.stations=40`` scales a scenario.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    WithJsonSchema,
    model_validator,
)

from .overrides import apply_overrides
from .units import parse_duration, parse_rate, parse_size


class ScenarioError(Exception):
    """A scenario that cannot run: where (file, key) and why, for a one-line message."""

    def __init__(self, source: str, key: str, message: str):
        super().__init__(f"{source}: {key}: {message}" if key else f"{source}: {message}")
        self.source, self.key, self.message = source, key, message


def _positive(parse):
    def check(value: object) -> int:
        parsed = parse(value)
        if parsed <= 0:
            raise ValueError(f"must be positive, got {value!r}")
        return parsed

    return check


def _non_negative(parse):
    def check(value: object) -> int:
        parsed = parse(value)
        if parsed < 0:
            raise ValueError(f"must not be negative, got {value!r}")
        return parsed

    return check


_UNIT = {"type": ["string", "number"]}
Rate = Annotated[
    int,
    BeforeValidator(_positive(parse_rate)),
    WithJsonSchema({**_UNIT, "description": 'bit/s, e.g. "11Mbps", "16kbps"'}),
]
Duration = Annotated[
    int,
    BeforeValidator(_non_negative(parse_duration)),
    WithJsonSchema({"type": "string", "description": 'e.g. "5ms", "100s"'}),
]
PositiveDuration = Annotated[
    int,
    BeforeValidator(_positive(parse_duration)),
    WithJsonSchema({"type": "string", "description": 'e.g. "5ms", "100s"'}),
]
Size = Annotated[
    int,
    BeforeValidator(_positive(parse_size)),
    WithJsonSchema({**_UNIT, "description": 'bytes, e.g. "64KiB", "10MB", 1500'}),
]
Probability = Annotated[float, Field(ge=0.0, lt=1.0)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Queue(Strict):
    """A DropTail limit: ``queue = 100`` (packets) or ``queue = "64KiB"`` (bytes)."""

    packets: int | None = None
    bytes: int | None = None


def _queue(value: object) -> object:
    if isinstance(value, bool):
        raise ValueError("expected a packet count or a size like '64KiB'")
    if isinstance(value, int):
        if value <= 0:
            raise ValueError(f"must be positive, got {value}")
        return {"packets": value}
    if isinstance(value, str):
        return {"bytes": _positive(parse_size)(value)}
    return value


QueueSpec = Annotated[
    Queue,
    BeforeValidator(_queue),
    WithJsonSchema({"type": ["integer", "string"], "description": "packets, or bytes with a unit"}),
]


class Direction(Strict):
    """Per-direction overrides of a link's properties."""

    rate: Rate | None = None
    delay: Duration | None = None
    queue: QueueSpec | None = None
    loss: Probability | None = None
    ber: Probability | None = None


class Link(Strict):
    a: str
    b: str
    rate: Rate
    delay: Duration
    queue: QueueSpec = Queue(packets=100)
    loss: Probability = 0.0
    ber: Probability = 0.0
    a_to_b: Direction = Direction()
    b_to_a: Direction = Direction()
    per_station: bool = False


class Agent(Strict):
    """The AP's agent (docs/agents.md): ``agent = "ack_priority"`` or a table with settings."""

    kind: Literal["dcf", "ack_priority", "txop_burst", "ack_aggregation", "adaptive"] = "dcf"
    txop_limit: PositiveDuration | None = None
    max_aggregate: Annotated[int, Field(gt=0, le=256)] | None = None
    target_stations: Annotated[float, Field(ge=1.0, le=1000.0)] | None = None


def _agent(value: object) -> object:
    return {"kind": value} if isinstance(value, str) else value


AgentSpec = Annotated[
    Agent,
    BeforeValidator(_agent),
    WithJsonSchema(
        {"type": ["string", "object"], "description": "agent name, or a table with kind"}
    ),
]


class Wlan(Strict):
    ap: str = "ap"
    stations: Annotated[int, Field(ge=0)] | list[str] = 1
    station_name: str = "sta{i}"
    phy: Literal["802.11b", "802.11g"] = "802.11b"
    rate: Rate = 11_000_000
    basic_rate: Rate | None = None
    preamble: Literal["long", "short"] = "long"
    short_slot: bool = True
    rts_threshold: Annotated[int, Field(ge=0)] | Literal["off"] = "off"
    queue: Annotated[int, Field(gt=0)] = 100
    short_retry_limit: Annotated[int, Field(gt=0)] = 7
    long_retry_limit: Annotated[int, Field(gt=0)] = 4
    cw_min: int | None = None
    cw_max: int | None = None
    loss: Probability = 0.0
    ber: Probability = 0.0
    agent: AgentSpec | None = None

    def station_names(self) -> list[str]:
        if isinstance(self.stations, list):
            return list(self.stations)
        return [self.station_name.format(i=i) for i in range(1, self.stations + 1)]


class Tcp(Strict):
    """TCP settings; unset ones come from the profile (docs/tcp.md lists the defaults)."""

    profile: Literal["rfc", "linux"] | None = None
    congestion_control: Literal["newreno"] = "newreno"
    mss: Annotated[int, Field(ge=64, le=65000)] | None = None
    initial_window: Annotated[int, Field(gt=0)] | None = None
    initial_rto: PositiveDuration | None = None
    min_rto: PositiveDuration | None = None
    max_rto: PositiveDuration | None = None
    delayed_ack: bool | None = None
    delayed_ack_timeout: PositiveDuration | None = None
    ack_every: Annotated[int, Field(gt=0)] | None = None
    send_buffer: Size | None = None
    receive_buffer: Size | None = None
    window_scaling: bool | None = None
    nagle: bool | None = None
    time_wait: Duration | None = None


class Flow(Strict):
    name: str | None = None
    kind: Literal["tcp_bulk", "udp_cbr"] = "tcp_bulk"
    src: str
    dst: str
    start: Duration = 0
    stop: Duration | None = None
    bytes: Size | None = None
    rate: Rate | None = None
    payload: Annotated[int, Field(gt=0, le=65000)] = 1000
    tcp: Tcp = Tcp()
    per_station: bool = False

    @model_validator(mode="after")
    def _kind_fields(self) -> Flow:
        if self.kind == "udp_cbr" and self.rate is None:
            raise ValueError("a udp_cbr flow needs 'rate'")
        if self.kind == "tcp_bulk" and self.rate is not None:
            raise ValueError("'rate' applies to udp_cbr flows only")
        return self


class Simulation(Strict):
    name: str = "scenario"
    duration: PositiveDuration
    measure_from: Duration = 0
    seed: Annotated[int, Field(ge=0, lt=2**63)] = 1
    sample_interval: Duration = 100_000_000


class Scenario(Strict):
    """A scenario file."""

    simulation: Simulation
    tcp: Tcp = Tcp()
    wlan: Wlan | None = None
    links: list[Link] = []
    flows: list[Flow] = []


def _expand(template: str, i: int) -> str:
    return template.replace("{i}", str(i))


def resolve(scenario: Scenario, seed: int | None = None) -> dict[str, Any]:
    """Turns a validated scenario into the simulator's JSON; raises ValueError(key, message)."""
    stations = scenario.wlan.station_names() if scenario.wlan else []
    numbers = range(1, len(stations) + 1)
    nodes: list[str] = []
    index: dict[str, int] = {}

    def node(name: str) -> int:
        if name not in index:
            index[name] = len(nodes)
            nodes.append(name)
        return index[name]

    if scenario.wlan:
        node(scenario.wlan.ap)
        for name in stations:
            node(name)

    links = []
    for k, link in enumerate(scenario.links):
        for i in numbers if link.per_station else [None]:
            a = link.a if i is None else _expand(link.a, i)
            b = link.b if i is None else _expand(link.b, i)
            if a == b:
                raise ValueError(f"links[{k}]", f"joins {a!r} to itself")
            links.append(
                {
                    "a": node(a),
                    "b": node(b),
                    "a_to_b": _direction(link, link.a_to_b),
                    "b_to_a": _direction(link, link.b_to_a),
                }
            )

    flows = []
    for k, flow in enumerate(scenario.flows):
        for i in numbers if flow.per_station else [None]:
            expand = (lambda s: s) if i is None else (lambda s, i=i: _expand(s, i))
            src, dst = expand(flow.src), expand(flow.dst)
            for end, name in (("src", src), ("dst", dst)):
                if name not in index:
                    known = ", ".join(nodes[:8]) + (", ..." if len(nodes) > 8 else "")
                    raise ValueError(f"flows[{k}].{end}", f"unknown node {name!r} (nodes: {known})")
            if src == dst:
                raise ValueError(f"flows[{k}]", f"src and dst are both {src!r}")
            name = expand(flow.name) if flow.name else f"flow{len(flows) + 1}"
            entry: dict[str, Any] = {
                "name": name,
                "src": index[src],
                "dst": index[dst],
                "start_ns": flow.start,
                "stop_ns": flow.stop,
            }
            if flow.kind == "tcp_bulk":
                merged = {
                    **scenario.tcp.model_dump(exclude_none=True),
                    **flow.tcp.model_dump(exclude_none=True),
                }
                entry["app"] = {
                    "kind": "tcp_bulk",
                    "bytes": flow.bytes,
                    "congestion_control": merged.pop("congestion_control", "newreno"),
                    "tcp": _tcp_json(merged),
                }
            else:
                entry["app"] = {
                    "kind": "udp_cbr",
                    "rate_bps": flow.rate,
                    "payload_bytes": flow.payload,
                }
            flows.append(entry)
    names = [f["name"] for f in flows]
    if len(set(names)) != len(names):
        raise ValueError("flows", "flow names must be unique")

    sim = scenario.simulation
    if sim.measure_from >= sim.duration:
        raise ValueError("simulation.measure_from", "must be before simulation.duration")
    wlans = []
    if scenario.wlan:
        w = scenario.wlan
        wlans.append(
            {
                "ap": index[w.ap],
                "stations": [index[s] for s in stations],
                "phy": {
                    "standard": w.phy,
                    "rate_bps": w.rate,
                    "basic_rate_bps": w.basic_rate,
                    "preamble": w.preamble,
                    "short_slot": w.short_slot,
                    "cw_min": w.cw_min,
                    "cw_max": w.cw_max,
                },
                "rts_threshold": None if w.rts_threshold == "off" else w.rts_threshold,
                "queue_packets": w.queue,
                "short_retry_limit": w.short_retry_limit,
                "long_retry_limit": w.long_retry_limit,
                "errors": {"loss": w.loss, "ber": w.ber},
                "agent": None
                if w.agent is None
                else {
                    "kind": w.agent.kind,
                    "txop_limit_ns": w.agent.txop_limit,
                    "max_aggregate": w.agent.max_aggregate,
                    "target_stations": w.agent.target_stations,
                },
            }
        )
    return {
        "name": sim.name,
        "seed": sim.seed if seed is None else seed,
        "duration_ns": sim.duration,
        "measure_from_ns": sim.measure_from,
        "sample_interval_ns": sim.sample_interval,
        "nodes": nodes,
        "links": links,
        "wlans": wlans,
        "flows": flows,
    }


def _direction(link: Link, override: Direction) -> dict[str, Any]:
    queue = override.queue or link.queue
    return {
        "rate_bps": override.rate or link.rate,
        "delay_ns": link.delay if override.delay is None else override.delay,
        "queue": {"packets": queue.packets, "bytes": queue.bytes},
        "errors": {
            "loss": link.loss if override.loss is None else override.loss,
            "ber": link.ber if override.ber is None else override.ber,
        },
    }


_TCP_DURATIONS = ("initial_rto", "min_rto", "max_rto", "delayed_ack_timeout", "time_wait")


def _tcp_json(settings: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in settings.items():
        out[f"{key}_ns" if key in _TCP_DURATIONS else key] = value
    return out


def _key(loc: tuple[Any, ...]) -> str:
    key = ""
    for part in loc:
        if isinstance(part, int):
            key += f"[{part}]"
        elif str(part).startswith(("function-", "literal[", "int", "list[", "str")):
            continue  # pydantic's names for union branches
        else:
            key += f".{part}" if key else str(part)
    return key


def _message(error: dict[str, Any]) -> str:
    if error["type"] == "extra_forbidden":
        return "unknown key"
    if error["type"] == "missing":
        return "missing required key"
    message = error["msg"]
    return message.removeprefix("Value error, ")


def validation_error(source: str, error: ValidationError) -> ScenarioError:
    """The first problem pydantic found, as a one-line error naming the key."""
    first = error.errors()[0]
    return ScenarioError(source, _key(first["loc"]), _message(first))


def parse(data: dict[str, Any], source: str) -> Scenario:
    """Validates a scenario mapping, naming the first offending key on failure."""
    try:
        return Scenario.model_validate(data)
    except ValidationError as error:
        raise validation_error(source, error) from None


def read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """A TOML file's text and contents; a ScenarioError naming the file if it cannot be read."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
        return text, tomllib.loads(text)
    except FileNotFoundError:
        raise ScenarioError(source, "", "no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(source, "", f"cannot read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(source, "", f"invalid TOML: {error}") from None


def load(path: str | Path, overrides: list[str] | tuple[str, ...] = ()) -> Scenario:
    """Reads a TOML scenario and applies ``--set key=value`` overrides."""
    path = Path(path)
    source = str(path)
    _, data = read_toml(path)
    try:
        apply_overrides(data, overrides)
    except ValueError as error:
        raise ScenarioError(source, "--set", str(error)) from None
    return parse(data, source)


def resolve_checked(scenario: Scenario, source: str, seed: int | None = None) -> dict[str, Any]:
    try:
        return resolve(scenario, seed)
    except ValueError as error:
        key, message = error.args if len(error.args) == 2 else ("", str(error))
        raise ScenarioError(source, key, message) from None


def json_schema() -> str:
    return json.dumps(Scenario.model_json_schema(), indent=2)
