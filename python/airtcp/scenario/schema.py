"""The scenario schema: what users write in TOML (`resolve` turns it into the simulator's JSON).

One schema serves simulation and emulation. Templates: ``wlan.stations = N`` makes stations
``sta1..staN``; links and flows with ``per_station = true`` are repeated for each station (or
for some: numbers, or a ``[[wlan.groups]]`` name) with ``{i}`` replaced by its number, so
``--set wlan.stations=40`` scales a scenario; groups set some stations' rate, TCP, agent and
places (`stations`).

Bounds that the simulator enforces come from it (``_core.limits()``); every error names the
file (and the ``--set`` argument that caused it) and the key, in one line.
"""

from __future__ import annotations

import difflib
import json
import math
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    create_model,
    model_validator,
)
from pydantic import (
    Strict as PydanticStrict,
)

from .. import _core
from ..catalog import NotFound, locate
from .overrides import Overrides, apply_overrides, texts
from .units import parse_duration, parse_level, parse_rate, parse_size

LIMITS: dict[str, int] = _core.limits()


# The source of an error found in an already resolved scenario (emulation's own checks),
# whose key is the resolved one: `api.in_user_terms` names the file and the user's key.
RESOLVED = "<resolved scenario>"


class ScenarioError(Exception):
    """A scenario that cannot run: where (file, key) and why, for a one-line message."""

    def __init__(self, source: str, key: str, message: str):
        super().__init__(f"{source}: {key}: {message}" if key else f"{source}: {message}")
        self.source, self.key, self.message = source, key, message

    def blaming(self, overrides: Overrides) -> ScenarioError:
        """The same error, naming the ``--set`` argument that set its key, if one did."""
        for override in texts(overrides):
            set_key = override.partition("=")[0].strip()
            if self.key and (self.key + ".").startswith(_index_dots(set_key) + "."):
                return ScenarioError(f"{self.source} (--set {override})", self.key, self.message)
        return self


def _index_dots(key: str) -> str:
    """``links.0.rate`` as the error key reads it: ``links[0].rate``."""
    return ".".join(f"[{p}]" if p.isdigit() else p for p in key.split(".")).replace(".[", "[")


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
    WithJsonSchema(
        {**_UNIT, "description": 'bit/s, e.g. "11Mbps", "16kbps"; bytes/s: "2MBps", "2MB/s"'}
    ),
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
    WithJsonSchema({**_UNIT, "description": 'bytes, e.g. "64KiB", "64kB", "10MB", 1500'}),
]
Probability = Annotated[float, Field(ge=0.0, lt=1.0)]
Decibels = Annotated[
    float,
    BeforeValidator(lambda value: parse_level(value, "dB")),
    WithJsonSchema({**_UNIT, "description": 'a gain or loss, e.g. "7dB"'}),
]
Dbm = Annotated[
    float,
    BeforeValidator(lambda value: parse_level(value, "dBm")),
    WithJsonSchema({**_UNIT, "description": 'a power, e.g. "-82dBm", "40mW"'}),
]
Metres = Annotated[float, Field(allow_inf_nan=False)]

_DSCP_NAMES: dict[str, int] = dict(_core.dscp_names())


def _dscp(value: object) -> object:
    """A DSCP by its name (``"EF"``, ``"AF41"``, case aside) or its value."""
    if isinstance(value, str):
        if value.upper() not in _DSCP_NAMES:
            raise ValueError(f"unknown DSCP {value!r} (names: {', '.join(_DSCP_NAMES)}, or 0-63)")
        return _DSCP_NAMES[value.upper()]
    return value


Dscp = Annotated[
    int,
    Field(ge=0, le=63),
    BeforeValidator(_dscp),
    WithJsonSchema({"type": ["string", "integer"], "description": 'e.g. "EF", "CS1", 46'}),
]
ACCESS_CATEGORIES: tuple[str, ...] = tuple(_core.access_categories())
AccessCategoryName = Literal[ACCESS_CATEGORIES]  # type: ignore[valid-type]


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


class DeliveryTrace(Strict):
    """A mahimahi packet-delivery trace (docs/scenarios.md): the file and its opportunities."""

    path: str
    times_ms: list[int] = Field(repr=False)


def _read_beside(value: str, info: ValidationInfo, what: str) -> tuple[Path, str]:
    """A file named relative to the scenario file's directory and its text; a ValueError
    naming ``what`` and the file if it cannot be read."""
    path = Path((info.context or {}).get("directory", ".")) / value
    try:
        return path, path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise ValueError(f"cannot read {what} {path}: {reason}") from None


def _delivery_trace(value: object, info: ValidationInfo) -> object:
    """A trace file's path, relative to the scenario file's directory, read and parsed."""
    if not isinstance(value, str):
        return value
    path, text = _read_beside(value, info, "the delivery trace")
    try:
        times = _core.parse_delivery_trace(text)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return {"path": str(path), "times_ms": times}


def parse_cdf(text: str, source: str) -> list[tuple[float, float]]:
    """A flow-size CDF file's points: one ``size_bytes probability`` pair a line (spaces,
    tabs or a comma between), ``#`` comments and blank lines ignored; a ValueError naming
    the file and line otherwise. (Their order and range the simulator checks.)"""
    points = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split("#", 1)[0].replace(",", " ").split()
        if not fields:
            continue
        try:
            size, probability = (float(field) for field in fields)
        except ValueError:
            raise ValueError(
                f"{source}:{number}: expected 'size_bytes probability', got {line.strip()!r}"
            ) from None
        if not (math.isfinite(size) and math.isfinite(probability)):
            raise ValueError(f"{source}:{number}: not a finite number: {line.strip()!r}")
        points.append((size, probability))
    if not points:
        raise ValueError(f"{source}: no points (lines 'size_bytes probability')")
    return points


def _flow_sizes(value: object, info: ValidationInfo) -> object:
    """A workload's sizes: a built-in distribution's name, or a CDF file relative to the
    scenario file's directory, read and parsed."""
    if not isinstance(value, str) or value in _core.workload_distributions():
        return value
    try:
        path, text = _read_beside(value, info, "the CDF file")
    except ValueError as error:
        builtin = ", ".join(_core.workload_distributions())
        raise ValueError(f"not {builtin}, and {error}") from None
    return {"path": str(path), "points": parse_cdf(text, str(path))}


class CdfFile(Strict):
    """A flow-size CDF read from a file."""

    path: str
    points: list[tuple[float, float]] = Field(repr=False)


FlowSizes = Annotated[
    str | CdfFile,
    BeforeValidator(_flow_sizes),
    WithJsonSchema(
        {
            "type": "string",
            "description": "web_search, data_mining, or a CDF file relative to the scenario's",
        }
    ),
]


Trace = Annotated[
    DeliveryTrace,
    BeforeValidator(_delivery_trace),
    WithJsonSchema(
        {"type": "string", "description": "a mahimahi trace file, relative to the scenario's"}
    ),
]


def _named_kind(value: object) -> object:
    """A bare name stands for a table of that ``kind`` (``agent = "snoop"``, ``aqm = "codel"``)."""
    return {"kind": value} if isinstance(value, str) else value


LINK_AQMS: tuple[str, ...] = tuple(_core.link_aqms())
LinkAqmKind = Literal[LINK_AQMS]  # type: ignore[valid-type]


# The settings each AQM takes (docs/scenarios.md, "AQM on wired links").
AQM_SETTINGS = {
    "none": (),
    "codel": ("target", "interval", "ecn"),
    "fq_codel": ("target", "interval", "flows", "quantum", "ecn"),
    "pie": ("target", "tupdate", "alpha", "beta", "ecn"),
    "red": ("min", "max", "probability", "burst", "avpkt", "adaptive", "ecn"),
}


class Aqm(Strict):
    """A link direction's queue management (docs/scenarios.md, "AQM on wired links"):
    ``aqm = "codel"`` or a table with ``kind`` and the kind's settings (`AQM_SETTINGS`);
    unset values are Linux's defaults."""

    kind: LinkAqmKind = LINK_AQMS[0]
    target: PositiveDuration | None = None
    interval: PositiveDuration | None = None
    flows: Annotated[int, Field(gt=0)] | None = None
    quantum: Annotated[int, Field(gt=0)] | None = None
    tupdate: PositiveDuration | None = None
    alpha: Annotated[int, Field(ge=0)] | None = None
    beta: Annotated[int, Field(ge=0)] | None = None
    # Mark ECN-capable packets CE instead of dropping them (Linux: fq_codel on, others off).
    ecn: bool | None = None
    # RED's thresholds on the average backlog, its probability at max, burst (packets),
    # average packet size, and Adaptive RED (tc's defaults: docs/scenarios.md).
    min: Size | None = None
    max: Size | None = None
    probability: Annotated[float, Field(gt=0, le=1)] | None = None
    burst: Annotated[int, Field(gt=0)] | None = None
    avpkt: Size | None = None
    adaptive: bool | None = None

    @model_validator(mode="after")
    def _settings_of_the_kind(self) -> Aqm:
        allowed = AQM_SETTINGS[self.kind]
        for name in self.model_fields_set - {"kind"}:
            if getattr(self, name) is not None and name not in allowed:
                raise ValueError(f"'{name}' is not a setting of aqm '{self.kind}'")
        return self


AqmSpec = Annotated[
    Aqm,
    BeforeValidator(_named_kind),
    WithJsonSchema(
        {
            "type": ["string", "object"],
            "description": "none, codel, fq_codel, pie, red, or a table",
        }
    ),
]


class Direction(Strict):
    """Per-direction overrides of a link's properties."""

    rate: Rate | None = None
    trace: Trace | None = None
    delay: Duration | None = None
    queue: QueueSpec | None = None
    aqm: AqmSpec | None = None
    loss: Probability | None = None
    ber: Probability | None = None


# Some of a WLAN's stations (`stations.numbers`): a number, numbers and ranges ("1-3,7"), or
# a list of numbers; `per_station` also takes `true` (all) or a group's name.
# Strict: true is not station 1, 2.0 not station 2, and 0 and 1 are station numbers, not
# false and true (before groups, `per_station = 1` was read as true).
StationNumber = Annotated[int, PydanticStrict(), Field(ge=1)]
StationSelection = (
    StationNumber
    | Annotated[str, Field(min_length=1)]
    | Annotated[list[StationNumber], Field(min_length=1)]
)
PerStation = Annotated[bool, PydanticStrict()] | StationSelection


class Outage(Strict):
    """A time the link is down both ways; what is on the wire or sent meanwhile is lost."""

    at: Duration
    duration: PositiveDuration


class Link(Strict):
    a: str
    b: str
    rate: Rate | None = None
    trace: Trace | None = None
    delay: Duration
    queue: QueueSpec = Queue(packets=100)
    aqm: AqmSpec = Aqm()
    loss: Probability = 0.0
    ber: Probability = 0.0
    a_to_b: Direction = Direction()
    b_to_a: Direction = Direction()
    outages: list[Outage] = []
    per_station: PerStation = False

    @model_validator(mode="after")
    def _paced(self) -> Link:
        for where in (self, self.a_to_b, self.b_to_a):
            if where.rate is not None and where.trace is not None:
                raise ValueError("'rate' and 'trace' exclude each other")
        for direction in (self.a_to_b, self.b_to_a):
            if self.pace(direction) == (None, None):
                raise ValueError("a link needs a 'rate' or a 'trace' in each direction")
        return self

    def pace(self, direction: Direction) -> tuple[int | None, DeliveryTrace | None]:
        """A direction's rate or trace: its own, else the link's."""
        if direction.rate is not None or direction.trace is not None:
            return direction.rate, direction.trace
        return self.rate, self.trace


AgentKind = Literal[tuple(_core.agent_kinds())]  # type: ignore[valid-type]
CongestionControl = Literal[tuple(_core.congestion_controls())]  # type: ignore[valid-type]


class Agent(Strict):
    """An agent (docs/agents.md): ``agent = "ack_priority"`` or a table with settings."""

    kind: AgentKind = "dcf"
    txop_limit: PositiveDuration | None = None
    max_aggregate: Annotated[int, Field(gt=0, le=256)] | None = None
    target_stations: Annotated[float, Field(ge=1.0, le=1000.0)] | None = None
    ack_queue: Annotated[int, Field(gt=0)] | None = None
    local_rto_min: PositiveDuration | None = None
    silence: PositiveDuration | None = None
    duplicate_acks: Annotated[int, Field(gt=0, le=100)] | None = None
    fast_recovery: Literal["pass", "regenerate"] | None = None
    # With EDCA: the access category whose queue the agent works on (None: best effort).
    ac: AccessCategoryName | None = None


AgentSpec = Annotated[
    Agent,
    BeforeValidator(_named_kind),
    WithJsonSchema(
        {"type": ["string", "object"], "description": "agent name, or a table with kind"}
    ),
]


class AgentPlacement(Agent):
    """An agent on a node's interface (``[[agents]]``): ``interface`` is the peer node of a
    wired link, or ``"wlan"`` (a station of several WLANs names each by its AP); it may be
    left out when the node has one interface."""

    kind: AgentKind
    node: str
    interface: str | None = None


class Layout(Strict):
    """Where a WLAN's nodes are when [positions] does not say: the AP at ``center``, the
    stations evenly on a circle of ``radius`` metres around it, or along a line from it
    every ``spacing`` metres (in x)."""

    shape: Literal["circle", "line"]
    radius: Annotated[float, Field(gt=0.0, allow_inf_nan=False)] | None = None
    spacing: Annotated[float, Field(gt=0.0, allow_inf_nan=False)] | None = None
    center: Annotated[list[Metres], Field(min_length=2, max_length=3)] = [0.0, 0.0]

    @model_validator(mode="after")
    def _sized(self) -> Layout:
        size = {"circle": "radius", "line": "spacing"}[self.shape]
        other = {"circle": "spacing", "line": "radius"}[self.shape]
        if getattr(self, size) is None:
            raise ValueError(f"a {self.shape} layout needs '{size}'")
        if getattr(self, other) is not None:
            raise ValueError(f"'{other}' is for a {'circle' if other == 'radius' else 'line'}")
        return self


RateControlName = Literal[tuple(_core.rate_controls())]  # type: ignore[valid-type]
_WLAN_PHYS = dict(_core.wlan_phys())
WlanPhy = Literal[tuple(_WLAN_PHYS)]  # type: ignore[valid-type]


WLAN_QUEUEINGS: tuple[str, ...] = tuple(_core.wlan_queueings())
WlanQueueing = Literal[WLAN_QUEUEINGS]  # type: ignore[valid-type]
WLAN_DRIVER_QUEUES: tuple[str, ...] = tuple(_core.wlan_driver_queues())
WlanDriverQueue = Literal[WLAN_DRIVER_QUEUES]  # type: ignore[valid-type]
FirmwareQueueFrames = Annotated[int, Field(gt=0, le=LIMITS["max_firmware_queue_frames"])]


def uses_mcs(phy: str) -> bool:
    """Whether a WLAN with this PHY sends data at an MCS (802.11n, ac, ax) or at a rate."""
    return _WLAN_PHYS[phy]


class McsSettings(Strict):
    """An MCS PHY's settings (802.11n, ac, ax; docs/scenarios.md); unset ones take the
    simulator's defaults."""

    # 802.11n: the HT MCS index 0-31, which carries the stream count.
    mcs: int | None = None
    channel_width: int | None = None
    spatial_streams: int | None = None
    guard_interval: Duration | None = None
    band: Literal["2.4GHz", "5GHz", "6GHz"] | None = None

    @model_validator(mode="after")
    def _for_mcs_phys(self) -> McsSettings:
        phy = getattr(self, "phy", None)
        if phy is not None and not uses_mcs(phy):
            for name in McsSettings.model_fields:
                if getattr(self, name) is not None:
                    raise ValueError(f"'{name}' is a setting of 802.11n, ac and ax, not of {phy}")
        return self


class EdcaAc(Strict):
    """An access category's EDCA parameters that differ from the standard's
    (docs/scenarios.md, "EDCA"); the simulator checks their ranges."""

    aifsn: int | None = None
    cw_min: int | None = None
    cw_max: int | None = None
    txop_limit: Duration | None = None


class Wlan(McsSettings):
    ap: str = "ap"
    stations: (
        Annotated[int, Field(ge=1, le=LIMITS["max_stations"])]
        | Annotated[list[str], Field(min_length=1, max_length=LIMITS["max_stations"])]
    ) = 1
    station_name: str = "sta{i}"
    phy: WlanPhy = "802.11b"
    rate: Rate = 11_000_000
    basic_rate: Rate | None = None
    preamble: Literal["long", "short"] = "long"
    short_slot: bool = True
    rts_threshold: Annotated[int, Field(ge=0)] | Literal["off"] = "off"
    queue: Annotated[int, Field(gt=0)] = 100
    short_retry_limit: Annotated[int, Field(gt=0, le=LIMITS["max_retry_limit"])] = 7
    long_retry_limit: Annotated[int, Field(gt=0, le=LIMITS["max_retry_limit"])] = 4
    # None: the simulator's default, off (the standard's MIB default is 512 TU, from an
    # MSDU's first attempt).
    msdu_lifetime: PositiveDuration | Literal["off"] | None = None
    # ns-3's MAC queue MaxDelay (sojourn from arrival); None: the simulator's default, off.
    queue_max_delay: PositiveDuration | Literal["off"] | None = None
    # None: the simulator's default, the standard's EIFS.
    eifs_after_collision: bool | None = None
    cw_min: int | None = None
    cw_max: int | None = None
    loss: Probability = 0.0
    ber: Probability = 0.0
    agent: AgentSpec | None = None
    # Geometry (docs/radio.md): WLANs naming one channel share it.
    channel: Annotated[int, Field(ge=1, le=233)] | None = None
    station_rates: dict[str, Rate] = {}
    station_mcs: dict[str, int] = {}
    # A-MPDU with Block Ack (802.11n, ac, ax; None: on for them, the simulator's default)
    ampdu: bool | None = None
    max_ampdu: Size | None = None
    ba_window: int | None = None
    max_ampdu_duration: PositiveDuration | None = None
    # A-MSDUs inside A-MPDUs: the longest an MPDU carries (None: one MSDU an MPDU)
    max_amsdu: Size | None = None
    # The queues between the stack and each MAC: a FIFO, or Linux mac80211's (docs/scenarios.md)
    queueing: WlanQueueing = WLAN_QUEUEINGS[0]
    # The driver's queue below mac80211's: ath9k's (the default), or a firmware queue of
    # `firmware_queue` frames, with or without airtime queue limits (docs/scenarios.md).
    driver_queue: WlanDriverQueue = WLAN_DRIVER_QUEUES[0]
    # Beside queueing = "fifo": a qdisc on each MAC's interface above its driver, any of the
    # links' AQMs, limited by `queue` (docs/scenarios.md, "A qdisc above the driver").
    aqm: AqmSpec = Aqm()
    firmware_queue: FirmwareQueueFrames | None = None
    aql_limit_low: PositiveDuration | None = None
    aql_limit_high: PositiveDuration | None = None
    aql_threshold: PositiveDuration | None = None
    # EDCA's four access categories (None: on for 802.11n, ac and ax, the simulator's
    # default); the stations' parameters (what the AP announces) and the AP's own, per AC,
    # where they differ from the standard's.
    edca: bool | None = None
    edca_params: dict[AccessCategoryName, EdcaAc] = {}
    ap_edca_params: dict[AccessCategoryName, EdcaAc] = {}
    rate_control: RateControlName | None = None
    layout: Layout | None = None
    # Settings for some of the stations (`StationGroup`, defined below with `Tcp`).
    groups: list[StationGroup] = []

    def station_names(self) -> list[str]:
        if isinstance(self.stations, list):
            return list(self.stations)
        return [self.station_name.format(i=i) for i in range(1, self.stations + 1)]


class Procedure(Strict):
    """The handoff messages' latencies (paper 001, Fig 1); unset ones take the simulator's
    defaults (docs/scenarios.md)."""

    beacon_interval: PositiveDuration | None = None
    greeting: Duration | None = None
    inform: Duration | None = None
    adjust: Duration | None = None


class Mesh(McsSettings):
    """A chain of mesh hops (docs/radio.md): nodes ``n0`` .. ``n{hops}`` on the x axis
    ``spacing`` metres apart; hop k is a WLAN whose AP is node k and whose station is node
    k + 1, all on ``channel`` (or each on its own with ``"per_hop"``), with ``phy``, ``rate``
    (or an MCS PHY's settings), ``basic_rate``, ``rts_threshold`` and ``queue`` as a [wlan]
    has them."""

    hops: Annotated[int, Field(ge=1, le=64)] = 4
    spacing: Annotated[float, Field(gt=0.0, allow_inf_nan=False)] = 40.0
    node_name: str = "n{i}"
    channel: Annotated[int, Field(ge=1, le=233)] | Literal["per_hop"] = 1
    phy: WlanPhy = "802.11b"
    rate: Rate = 11_000_000
    basic_rate: Rate | None = None
    rts_threshold: Annotated[int, Field(ge=0)] | Literal["off"] = "off"
    queue: Annotated[int, Field(gt=0)] = 100

    def node_names(self) -> list[str]:
        return [self.node_name.replace("{i}", str(i)) for i in range(self.hops + 1)]

    def hop_wlans(self) -> list[Wlan]:
        names = self.node_names()
        shared = {
            name: getattr(self, name)
            for name in (
                "phy",
                "rate",
                "basic_rate",
                "rts_threshold",
                "queue",
                *McsSettings.model_fields,
            )
            if name in self.model_fields_set or name in ("rts_threshold", "queue")
        }
        return [
            Wlan(
                ap=names[k],
                stations=[names[k + 1]],
                channel=None if self.channel == "per_hop" else self.channel,
                **shared,
            )
            for k in range(self.hops)
        ]


class Propagation(Strict):
    """The path loss: ``log_distance`` (``exponent``, ``reference_loss`` at
    ``reference_distance``), ``friis`` or ``two_ray_ground`` (``system_loss``,
    ``antenna_height``); unset values take the simulator's defaults (ns-3's)."""

    model: Literal["log_distance", "friis", "two_ray_ground"] = "log_distance"
    exponent: Annotated[float, Field(allow_inf_nan=False)] | None = None
    reference_loss: Decibels | None = None
    reference_distance: Metres | None = None
    system_loss: Decibels | None = None
    antenna_height: Metres | None = None

    @model_validator(mode="after")
    def _for_model(self) -> Propagation:
        allowed = {
            "log_distance": {"exponent", "reference_loss", "reference_distance"},
            "friis": {"system_loss"},
            "two_ray_ground": {"system_loss", "antenna_height"},
        }[self.model]
        for name in ("exponent", "reference_loss", "reference_distance", "system_loss",
                     "antenna_height"):  # fmt: skip
            if getattr(self, name) is not None and name not in allowed:
                raise ValueError(f"'{name}' is not a setting of {self.model}")
        return self


class Fading(Strict):
    """Per-frame fading: ``rayleigh``, or ``nakagami`` with its ``m``."""

    model: Literal["none", "rayleigh", "nakagami"] = "none"
    m: Annotated[float, Field(allow_inf_nan=False)] | None = None

    @model_validator(mode="after")
    def _m(self) -> Fading:
        if (self.model == "nakagami") != (self.m is not None):
            raise ValueError("'m' is the setting of nakagami fading, which needs it")
        return self


def _named_model(value: object) -> object:
    """A bare name stands for a table of that ``model`` (``fading = "rayleigh"``)."""
    return {"model": value} if isinstance(value, str) else value


class Radio(Strict):
    """The channel of WLANs with geometry (docs/radio.md); unset values are the
    simulator's defaults, ns-3's YANS PHY and channel."""

    propagation: Annotated[Propagation, BeforeValidator(_named_model)] = Propagation()
    shadowing: Decibels | None = None
    fading: Annotated[Fading, BeforeValidator(_named_model)] = Fading()
    tx_power: Dbm | None = None
    antenna_gain: Decibels | None = None
    noise_figure: Decibels | None = None
    cca_threshold: Dbm | None = None
    cca_sensitivity: Dbm | Literal["off"] | None = None
    preamble_threshold: Dbm | None = None
    preamble_snr: Decibels | None = None
    capture_margin: Decibels | Literal["off"] | None = None
    cutoff: Dbm | None = None
    propagation_delay: bool | None = None
    cca_time: Duration | None = None
    position_update: PositiveDuration | None = None
    dcf: Literal["standard", "ns3"] | None = None


class PathPoint(Strict):
    """Where a moving node is at ``at`` (metres); it goes in straight lines between points."""

    at: PositiveDuration
    x: Metres
    y: Metres = 0.0
    z: Metres = 0.0


class RandomWaypoint(Strict):
    """Random waypoint: to a point of ``area`` ([x_min, x_max, y_min, y_max], metres) drawn
    uniformly, at a speed drawn uniformly from ``speed`` ([min, max] m/s), then ``pause``."""

    area: Annotated[list[Metres], Field(min_length=4, max_length=4)]
    speed: Annotated[list[Annotated[float, Field(gt=0.0)]], Field(min_length=2, max_length=2)]
    pause: Duration = 0


class Place(Strict):
    """A node's radio: where it is (metres), if not the scenario's its power, and how it
    moves from there (``path`` or ``random_waypoint``), if it does."""

    x: Metres
    y: Metres = 0.0
    z: Metres = 0.0
    tx_power: Dbm | None = None
    path: Annotated[list[PathPoint], Field(min_length=1)] | None = None
    random_waypoint: RandomWaypoint | None = None

    @model_validator(mode="after")
    def _one_motion(self) -> Place:
        if self.path is not None and self.random_waypoint is not None:
            raise ValueError("a node moves by 'path' or by 'random_waypoint', not both")
        return self


def _place(value: object) -> object:
    if isinstance(value, list):
        if not 2 <= len(value) <= 3:
            raise ValueError(f"a position is [x, y] or [x, y, z] in metres, got {value!r}")
        return dict(zip("xyz", value, strict=False))
    return value


PlaceSpec = Annotated[
    Place,
    BeforeValidator(_place),
    WithJsonSchema(
        {"type": ["array", "object"], "description": "[x, y], [x, y, z] or {x, y, z, tx_power}"}
    ),
]


class Handoff(Strict):
    at: Duration
    to: str
    duration: PositiveDuration | None = None


class Waypoint(Strict):
    """Where the mobile is at ``at`` (metres); it moves in straight lines between points."""

    at: Duration
    x: Metres
    y: Metres = 0.0


class Coverage(Strict):
    """A base station's cell: the disc of ``range`` metres around its antenna at (x, y)."""

    base_station: str
    x: Metres
    y: Metres = 0.0
    range: Annotated[float, Field(gt=0.0, allow_inf_nan=False)]


class Movement(Strict):
    """The mobile's path and the cells' coverage, from which its handoffs follow."""

    path: Annotated[list[Waypoint], Field(min_length=1)]
    cells: Annotated[list[Coverage], Field(min_length=1)]


class Mobile(Strict):
    """A mobile host (``[[mobiles]]``): its cells are its links and the WLANs it is a station
    of; it starts in ``attached``'s and moves as ``handoffs`` say, or as its ``movement``
    takes it through the cells' ranges. ``handoff_duration`` is that of every scheduled
    handoff that sets none; ``handoff_jitter`` delays each one's start by a seeded draw."""

    node: str
    attached: str
    while_detached: Literal["lose", "buffer"] = "lose"
    procedure: Procedure = Procedure()
    handoff_duration: PositiveDuration | None = None
    handoff_jitter: Duration | None = None
    handoffs: list[Handoff] = []
    movement: Movement | None = None


def _congestion_param(spec: dict[str, Any]) -> Any:
    kind = type(spec["default"])
    if spec["bounds"] is None:
        return (kind | None, None)
    low, high = spec["bounds"]
    return (Annotated[kind, Field(ge=low, le=high)] | None, None)


CongestionParams = create_model(
    "CongestionParams",
    __base__=Strict,
    __doc__="Parameters of the congestion controllers (docs/tcp.md); unset ones keep their "
    "defaults.",
    **{spec["name"]: _congestion_param(spec) for spec in _core.congestion_params()},
)


class Tcp(Strict):
    """TCP settings; unset ones come from the profile (docs/tcp.md lists the defaults)."""

    profile: Literal["rfc", "linux"] | None = None
    congestion_control: CongestionControl | None = None
    mss: Annotated[int, Field(ge=64, le=65000)] | None = None
    initial_window: Annotated[int, Field(gt=0)] | None = None
    initial_rto: PositiveDuration | None = None
    min_rto: PositiveDuration | None = None
    max_rto: PositiveDuration | None = None
    rto_floor: Literal["total", "variance"] | None = None
    delayed_ack: bool | None = None
    delayed_ack_timeout: PositiveDuration | None = None
    ack_every: Annotated[int, Field(gt=0)] | None = None
    send_buffer: Size | None = None
    receive_buffer: Size | None = None
    receive_autotuning: bool | None = None
    window_scaling: bool | None = None
    sack: bool | None = None
    timestamps: bool | None = None
    nagle: bool | None = None
    time_wait: Duration | None = None
    zero_window: Literal["persist", "retransmit", "hold"] | None = None
    syn_loss_window: Literal["rfc5681", "linux"] | None = None
    slow_start: Literal["per_ack", "per_segment"] | None = None
    loss_recovery: Literal["rfc6675", "rack_tlp"] | None = None
    ecn: Literal["off", "accept", "on"] | None = None
    pacing: bool | None = None
    congestion_params: CongestionParams | None = None  # type: ignore[valid-type]


class StationGroup(Strict):
    """Settings for some of a WLAN's stations (docs/scenarios.md, "Stations apart"): their
    rate or MCS, the TCP of the flows they send and receive, an agent on each one's WLAN
    interface, their places; and a name that ``per_station`` can repeat a template for."""

    stations: StationSelection
    name: Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]*$")] | None = None
    rate: Rate | None = None
    mcs: int | None = None
    tcp: Tcp | None = None
    agent: AgentSpec | None = None
    layout: Layout | None = None

    @model_validator(mode="after")
    def _does_something(self) -> StationGroup:
        settings = ("rate", "mcs", "tcp", "agent", "layout", "name")
        if all(getattr(self, name) is None for name in settings):
            raise ValueError(
                "a group sets nothing: give it rate, mcs, tcp, agent or layout, or a name "
                "for per_station"
            )
        return self


class Flow(Strict):
    name: str | None = None
    kind: Literal["tcp_bulk", "tcp_workload", "udp_cbr", "ping"] = "tcp_bulk"
    src: str
    dst: str
    start: Duration = 0
    stop: Duration | None = None
    bytes: Size | None = None
    rate: Rate | None = None
    # tcp_workload: flow sizes, a built-in distribution (`web_search`, `data_mining`) or a
    # CDF file (lines "size_bytes probability"); `rate` is the mean offered load and
    # `count` caps the number of flows (docs/scenarios.md, "Workloads").
    sizes: FlowSizes | None = None
    # Bytes of data a datagram or echo request carries: 1000 for udp_cbr, 56 for ping.
    payload: Annotated[int, Field(ge=0, le=65000)] | None = None
    # ping: `count` trains of `train` echo requests, `interval` apart; `one_way`: echo
    # replies instead, which nobody answers (a train for capacity, alone on the path).
    count: Annotated[int, Field(gt=0, le=10**9)] | None = None
    interval: PositiveDuration | None = None
    train: Annotated[int, Field(gt=0, le=65536)] | None = None
    one_way: bool | None = None
    tcp: Tcp = Tcp()
    per_station: PerStation = False
    # The DSCP its packets carry both ways; a WLAN with EDCA maps it to an access category.
    dscp: Dscp | None = None

    @model_validator(mode="after")
    def _kind_fields(self) -> Flow:
        rated = ("udp_cbr", "tcp_workload")
        if self.kind in rated and self.rate is None:
            raise ValueError(f"a {self.kind} flow needs 'rate'")
        if self.kind not in rated and self.rate is not None:
            raise ValueError("'rate' applies to udp_cbr and tcp_workload flows only")
        if (self.kind == "tcp_workload") != (self.sizes is not None):
            raise ValueError(
                "a tcp_workload flow needs 'sizes'"
                if self.sizes is None
                else "'sizes' applies to tcp_workload flows only"
            )
        if self.kind == "tcp_workload" and self.bytes is not None:
            raise ValueError("'bytes' applies to tcp_bulk flows only (a workload draws sizes)")
        ping_keys = [k for k in ("interval", "train", "one_way") if getattr(self, k) is not None]
        if self.kind not in ("ping", "tcp_workload") and self.count is not None:
            ping_keys.insert(0, "count")
        if self.kind != "ping" and ping_keys:
            raise ValueError(f"'{ping_keys[0]}' applies to ping flows only")
        if self.kind in ("tcp_bulk", "tcp_workload") and self.payload is not None:
            raise ValueError("'payload' applies to udp_cbr and ping flows only")
        return self


# Wlan names StationGroup, defined after it (it needs Tcp).
Wlan.model_rebuild()


class Simulation(Strict):
    name: str = "scenario"
    duration: PositiveDuration
    measure_from: Duration = 0
    seed: Annotated[int, Field(ge=0, lt=2**63)] = 1
    sample_interval: Duration = 100_000_000
    # Time every TCP bulk and UDP flow's data packets from sender to receiver (docs/
    # scenarios.md, "One-way delay"): mean, min, max and RFC 3550 jitter in the summary, per
    # interval in delays.parquet. Off: it costs a queue operation a packet.
    one_way_delay: bool = False
    # Measure every packet's sojourn in each wired link direction's queue and each WLAN MAC's
    # (docs/scenarios.md, "Queue sojourn"): per link and MAC queue in the summary, per
    # interval in queues.parquet, where the MAC queues then join the wired ones.
    queue_sojourn: bool = False


class Scenario(Strict):
    """A scenario file."""

    simulation: Simulation
    tcp: Tcp = Tcp()
    wlan: Wlan | None = None
    wlans: list[Wlan] = []
    links: list[Link] = []
    flows: list[Flow] = []
    agents: list[AgentPlacement] = []
    mobiles: list[Mobile] = []
    radio: Radio | None = None
    positions: dict[str, PlaceSpec] = {}
    mesh: Mesh | None = None

    @model_validator(mode="after")
    def _one_wlan_form(self) -> Scenario:
        if self.wlan is not None and self.wlans:
            raise ValueError("use [wlan] for one WLAN or [[wlans]] for several, not both")
        return self

    def all_wlans(self) -> list[Wlan]:
        """The WLANs, whichever form the file uses, then the mesh's hops."""
        own = [self.wlan] if self.wlan is not None else list(self.wlans)
        return own + (self.mesh.hop_wlans() if self.mesh is not None else [])

    def wlan_keys(self) -> list[str]:
        """Each of ``all_wlans()``'s key in the file."""
        own = ["wlan"] if self.wlan is not None else [f"wlans[{b}]" for b in range(len(self.wlans))]
        return own + ["mesh"] * (self.mesh.hops if self.mesh is not None else 0)


_TYPE_NAMES = {"int", "str", "float", "bool", "list", "dict", "none"}


def _fields(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """The field names and list indexes of a pydantic location, without its names for the
    branches of a union (``constrained-int``, ``list[str]``, ``function-before[...]``)."""
    return tuple(
        part
        for part in loc
        if isinstance(part, int) or not ("[" in part or "-" in part or part in _TYPE_NAMES)
    )


def _key(fields: tuple[Any, ...]) -> str:
    key = ""
    for part in fields:
        key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
    return key


def _model_at(root: type[BaseModel], fields: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model class that holds the last of ``fields``."""
    model: Any = root
    for part in fields[:-1]:
        if isinstance(part, int):
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return None
        info = model.model_fields.get(part)
        if info is None:
            return None
        model = _inner_model(info.annotation)
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _inner_model(annotation: Any) -> Any:
    """The model inside ``Link``, ``list[Link]``, ``Agent | None``, ``Annotated[...]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _message(error: dict[str, Any], root: type[BaseModel], fields: tuple[Any, ...]) -> str:
    if error["type"] == "extra_forbidden":
        name = str(fields[-1]) if fields else ""
        model = _model_at(root, fields)
        known = list(model.model_fields) if model else []
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"unknown key {name!r}{hint}"
    if error["type"] == "missing":
        return "missing required key"
    if error["type"] == "literal_error":
        return f"expected {error['ctx']['expected']}"
    return str(error["msg"]).removeprefix("Value error, ")


def validation_error(
    source: str, error: ValidationError, root: type[BaseModel] | None = None
) -> ScenarioError:
    """The first problem pydantic found, as a one-line error naming the key. The branches of
    a union that all failed at one key are joined ("expected an integer, or 'off'")."""
    root = root or Scenario
    errors = error.errors()
    # A misspelt key also makes the right one missing: name the misspelling.
    errors.sort(key=lambda e: e["type"] != "extra_forbidden")
    fields = _fields(errors[0]["loc"])
    same = [e for e in errors if _fields(e["loc"]) == fields]
    messages = list(dict.fromkeys(_message(e, root, fields) for e in same))
    return ScenarioError(source, _key(fields), "; or ".join(messages))


def parse(data: dict[str, Any], source: str) -> Scenario:
    """Validates a scenario mapping, naming the first offending key on failure."""
    try:
        directory = Path(source).parent
        return Scenario.model_validate(data, context={"directory": directory})
    except ValidationError as error:
        raise validation_error(source, error) from None


def read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """A TOML file's text and contents; a ScenarioError naming the file if it cannot be read."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(source, "", "no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(source, "", f"cannot read: {error}") from None
    return text, loads_toml(text, source)


def loads_toml(text: str, source: str) -> dict[str, Any]:
    """TOML text's contents; a ScenarioError naming ``source`` if it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(source, "", f"invalid TOML: {error}") from None


def find(argument: str | Path, kind: str = "scenarios") -> Path:
    """The file an argument names: a path, or a built-in name of ``kind`` (``ryu-upload``)."""
    try:
        return locate(argument, kind)
    except NotFound as error:
        raise ScenarioError(error.argument, "", error.message) from None


def load(path: str | Path, overrides: Overrides = ()) -> Scenario:
    """Reads a TOML scenario (a path or a built-in name) and applies ``--set key=value``
    overrides."""
    path = find(path)
    _, data = read_toml(path)
    return parse_with_overrides(data, str(path), overrides)


def parse_with_overrides(data: dict[str, Any], source: str, overrides: Overrides) -> Scenario:
    """Applies ``--set`` overrides to a scenario mapping, then validates it; an error names
    the override that caused it."""
    try:
        apply_overrides(data, overrides)
    except ValueError as error:
        raise ScenarioError(source, "--set", str(error)) from None
    try:
        return parse(data, source)
    except ScenarioError as error:
        raise error.blaming(overrides) from None


def json_schema() -> str:
    return json.dumps(Scenario.model_json_schema(), indent=2)
