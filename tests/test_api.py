"""The Python API and scenario resolution."""

import json
import math
import re

import airtcp
import numpy as np
import pandas as pd
import pytest
from airtcp import _core
from airtcp.scenario.schema import ScenarioError, parse
from airtcp.scenario.units import parse_duration, parse_rate, parse_size
from conftest import SCENARIOS
from hypothesis import given, settings
from hypothesis import strategies as st


def test_run_returns_summary_and_dataframe():
    result = airtcp.run(
        SCENARIOS / "ryu-upload.toml",
        seed=5,
        overrides={"wlan.stations": 3, "simulation.duration": "22s"},
    )
    assert result.summary["seed"] == 5
    assert isinstance(result.timeseries, pd.DataFrame)
    assert set(result.timeseries["flow"]) == {"up1", "up2", "up3"}
    assert result.summary["aggregate_goodput_bps"] > 1e6


def test_time_series_are_compact_columns_and_optional():
    result = airtcp.run(SCENARIOS / "wired-tcp.toml", overrides={"simulation.duration": "10s"})
    series = result.timeseries
    assert list(series.columns) == [
        "flow", "time_s", "cwnd_bytes", "send_window_bytes", "ssthresh_bytes", "srtt_ms",
        "bytes_acked", "acks_sent", "acks_received", "goodput_bps", "in_handoff",
    ]  # fmt: skip
    assert series["in_handoff"].dtype == bool and not series["in_handoff"].any()
    assert len(series) == 100 and series["time_s"].iloc[-1] == 10.0
    assert isinstance(series["flow"].dtype, pd.CategoricalDtype)
    assert list(series["flow"].cat.categories) == ["bulk"]
    # No Python object per value: the columns' 66 bytes a sample (and the frame's index).
    assert series.memory_usage(deep=True).sum() / len(series) < 68
    assert (series["bytes_acked"].diff().dropna() >= 0).all()
    for column in ("acks_sent", "acks_received"):
        assert (series[column].diff().dropna() >= 0).all() and series[column].iloc[-1] > 100
    without = airtcp.run(
        SCENARIOS / "wired-tcp.toml", overrides={"simulation.duration": "10s"}, timeseries=False
    )
    assert without.timeseries.empty
    assert without.summary["flows"] == result.summary["flows"], "series change nothing"


def test_written_time_series_read_back_as_the_dataframe(tmp_path):
    """Parquet is written from the raw columns through pyarrow, without pandas; read back
    it is the DataFrame the API gives, types and flow categories in scenario order."""
    result = airtcp.run(
        "ryu-upload", overrides={"wlan.stations": 3, "simulation.duration": "23s"}, seed=2
    )
    result.write(tmp_path)
    written = pd.read_parquet(tmp_path / "timeseries.parquet")
    assert len(written) == 3 * 230
    pd.testing.assert_frame_equal(written, result.timeseries)
    assert list(written["flow"].cat.categories) == ["up1", "up2", "up3"]


def test_same_seed_same_summary_other_seed_differs():
    def summary(seed):
        s = airtcp.run(
            SCENARIOS / "wlan-saturation.toml", seed=seed, overrides={"simulation.duration": "4s"}
        ).summary
        s.pop("wall_time_s")
        return s

    assert summary(1) == summary(1)
    assert summary(1) != summary(2)


def test_per_station_templates_scale_with_station_count():
    resolved = airtcp.prepare(SCENARIOS / "ryu-upload.toml", overrides=["wlan.stations=40"])
    assert len(resolved["flows"]) == 40
    assert len(resolved["nodes"]) == 1 + 40 + 1 + 40
    assert resolved["flows"][39]["name"] == "up40"
    assert resolved["flows"][0]["app"]["tcp"]["mss"] == 1024


def test_python_overrides_are_values_not_text():
    """A table from Python stays a table (JSON text is not TOML: it once became a string)."""
    agent = {"kind": "adaptive", "target_stations": 4}
    resolved = airtcp.prepare(
        SCENARIOS / "ryu-upload.toml", overrides={"wlan.agent": agent, "wlan.stations": 2}
    )
    assert resolved["wlans"][0]["agent"]["target_stations"] == 4.0
    text = airtcp.prepare(SCENARIOS / "ryu-upload.toml", overrides=["wlan.agent={kind = 'dcf'}"])
    assert text["wlans"][0]["agent"]["kind"] == "dcf"


def test_msdu_lifetime_and_the_queues_sojourn_limit_are_off_unless_set():
    """Both defaults come from the simulator, off: frames go until sent or dropped at the
    retry limit. The standard's lifetime (512 TU from an MSDU's first attempt) drops a few
    frames of stations that wait for the channel that long under ten uploads; ns-3's
    sojourn limit (queue_max_delay) drops hundreds, the AP's queued ACKs."""
    overrides = {"wlan.stations": 10, "simulation.duration": "25s"}
    path = SCENARIOS / "ryu-upload.toml"
    resolved = airtcp.prepare(path, overrides=overrides)["wlans"][0]
    assert "msdu_lifetime_ns" not in resolved and "queue_max_delay_ns" not in resolved
    default = airtcp.run(path, overrides=overrides, timeseries=False).summary["wlans"][0]
    assert (default["lifetime_drops"], default["queue_delay_drops"]) == (0, 0)
    standard = {**overrides, "wlan.msdu_lifetime": "512TU"}
    on = airtcp.run(path, overrides=standard, timeseries=False).summary["wlans"][0]
    assert 0 < on["lifetime_drops"] < 20 and on["queue_delay_drops"] == 0
    assert on["lifetime_drops"] == on["ap_lifetime_drops"] + sum(on["station_lifetime_drops"])
    ns3 = {**overrides, "wlan.queue_max_delay": "512TU"}
    assert airtcp.prepare(path, overrides=ns3)["wlans"][0]["queue_max_delay_ns"] == 524_288_000
    sojourn = airtcp.run(path, overrides=ns3, timeseries=False).summary["wlans"][0]
    assert sojourn["queue_delay_drops"] > 100
    assert sojourn["queue_delay_drops"] == sojourn["ap_queue_delay_drops"] + sum(
        sojourn["station_queue_delay_drops"]
    )
    off = {**overrides, "wlan.msdu_lifetime": "off"}
    assert airtcp.prepare(path, overrides=off)["wlans"][0]["msdu_lifetime_ns"] is None
    summary = airtcp.run(path, overrides=off, timeseries=False).summary["wlans"][0]
    assert summary["lifetime_drops"] == 0


def test_units():
    assert parse_rate("11Mbps") == 11_000_000
    assert parse_rate("5.5 Mbit/s") == 5_500_000
    assert parse_rate("16kbps") == 16_000
    assert parse_duration("5ms") == 5_000_000
    assert parse_duration("1.5s") == 1_500_000_000
    assert parse_duration("512TU") == 524_288_000
    assert parse_size("64KiB") == 65536
    assert parse_size("1MB") == 1_000_000
    assert parse_size(1500) == 1500
    for bad in ("", "ms", "5 lightyears", "1e999s", True, None):
        with pytest.raises(ValueError):
            parse_duration(bad)


@pytest.mark.parametrize(
    ("text", "parse", "expected"),
    [
        ("10MBps", parse_rate, 80_000_000),  # bytes per second, not bits
        ("1GBps", parse_rate, 8_000_000_000),
        ("2 MB/s", parse_rate, 16_000_000),
        ("1 MiB/s", parse_rate, 8 * 2**20),
        ("54 Mb/s", parse_rate, 54_000_000),
        ("64kB", parse_size, 64_000),
        ("64KiB", parse_size, 65_536),
        ("5MS", parse_duration, 5_000_000),  # durations have no case to confuse
    ],
)
def test_units_read_bytes_and_bits_as_everyone_writes_them(text, parse, expected):
    assert parse(text) == expected


@pytest.mark.parametrize(
    ("text", "parse", "fragments"),
    [
        ("64kb", parse_size, ("is in bits", "kB (10^3 bytes) or KiB (2^10 bytes)")),
        ("1Mbit", parse_size, ("is in bits", "MB", "MiB")),
        ("64KB", parse_size, ("'KB'", "ambiguous", "kB (10^3 bytes) or KiB (2^10 bytes)")),
        ("10mbps", parse_rate, ("'mbps'", "ambiguous", "Mbps (10^6 bit/s) or MBps (10^6 bytes/s)")),
        ("1Kbps", parse_rate, ("ambiguous", "kbps", "kBps")),
        ("5 MBPS", parse_rate, ("ambiguous", "Mbps", "MBps")),
        ("1mb", parse_size, ("'mb'", "MB (10^6 bytes)")),
    ],
)
def test_ambiguous_units_are_errors_saying_what_they_could_mean(text, parse, fragments):
    with pytest.raises(ValueError) as error:
        parse(text)
    for fragment in fragments:
        assert fragment in str(error.value), (fragment, str(error.value))


PREFIXES = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
BITS, BYTES = ("bps", "bit/s", "b/s"), ("Bps", "B/s")


def meaning(unit: str, size: bool) -> int | None:
    """What a unit means by the table in docs/scenarios.md (bytes, or bit/s), if anything."""
    for prefix in sorted(PREFIXES, key=len, reverse=True):
        if not unit.startswith(prefix):
            continue
        rest, binary = unit[len(prefix) :], prefix.endswith("i")
        if size:
            return PREFIXES[prefix] if rest == "B" else None
        if rest in BITS and (not binary or rest == "bit/s"):
            return PREFIXES[prefix]
        if rest in BYTES and (not binary or rest == "B/s"):
            return 8 * PREFIXES[prefix]
        return None
    return None


@settings(max_examples=500, deadline=None)
@given(
    st.integers(0, 10**6),
    st.sampled_from(sorted(PREFIXES)),
    st.sampled_from([*BITS, *BYTES, "B"]),
    st.lists(st.booleans(), min_size=8, max_size=8),
    st.sampled_from(["", " "]),
)
def test_unit_strings_mean_one_thing_or_are_refused(number, prefix, form, flips, space):
    """A unit string in any case: one the table has means its number times the prefix (8
    bits a byte for rates); any other is a ValueError quoting it, never a guess."""
    flipped = zip(prefix + form, flips, strict=False)
    written = "".join(c.swapcase() if flip else c for c, flip in flipped)
    size = form == "B"
    text = f"{number}{space}{written}"
    expected = meaning(written, size)
    try:
        value = (parse_size if size else parse_rate)(text)
    except ValueError as error:
        assert expected is None, (text, str(error))
        assert repr(text) in str(error), str(error)
        return
    assert value == number * expected, text


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20))
def test_unit_parsers_fail_cleanly(text):
    for parser in (parse_rate, parse_duration, parse_size):
        try:
            value = parser(text)
        except ValueError:
            continue
        assert isinstance(value, int) and not math.isnan(value)


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 10**6),
    st.floats(allow_nan=True),
    st.text(max_size=8),
)
toml_like = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(
            st.sampled_from(
                [
                    "a",
                    "b",
                    "rate",
                    "delay",
                    "src",
                    "dst",
                    "stations",
                    "duration",
                    "x",
                    "ap",
                    "node",
                    "attached",
                    "movement",
                    "path",
                    "cells",
                    "range",
                    "kind",
                    "interface",
                    "fast_recovery",
                ]
            ),
            children,
            max_size=4,
        ),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            ["simulation", "tcp", "wlan", "wlans", "links", "flows", "mobiles", "agents", "other"]
        ),
        toml_like,
        max_size=4,
    )
)
def test_scenario_parser_never_crashes(data):
    """Fuzzing the parser of outside input: any document is accepted or a ScenarioError."""
    try:
        scenario = parse(data, "fuzz.toml")
    except ScenarioError as error:
        assert error.source == "fuzz.toml"
        return
    try:
        resolved = airtcp.prepare(scenario)
    except ScenarioError as error:
        # Only what the schema cannot see fails after parsing (references, paths, node
        # names, settings that do nothing), never units or types, and in the user's keys.
        assert error.key.startswith(
            ("links", "flows", "simulation", "wlan", "tcp", "mobiles", "agents")
        ), error
        # A single [wlan] is named as the user wrote it, never by the resolved list.
        assert not ("wlans[" in error.key and "wlan" in data), error
        assert not error.key.endswith(("_ns", "_bps", "_m")), error
        return
    json.dumps(resolved)


def test_parsed_scenario_runs_as_is():
    scenario = airtcp.load(SCENARIOS / "wired-tcp.toml", ["simulation.duration=8s"])
    assert airtcp.prepare(scenario)["duration_ns"] == 8_000_000_000
    with pytest.raises(TypeError):
        airtcp.prepare(scenario, overrides={"simulation.seed": 2})


AGENTS_BASE = {
    "simulation": {"name": "agents", "duration": "12s", "measure_from": "2s"},
    "wlan": {"stations": 4},
    "links": [{"a": "ap", "b": "srv", "rate": "100Mbps", "delay": "5ms"}],
    "flows": [{"src": "sta{i}", "dst": "srv", "per_station": True}],
}


@pytest.mark.parametrize("kind", ["ack_priority", "adaptive"])
def test_agents_tables_place_what_the_wlan_shorthand_does(kind):
    """``[[agents]]`` on the AP's wlan interface is ``wlan.agent``: the same run."""
    shorthand = {**AGENTS_BASE, "wlan": {"stations": 4, "agent": {"kind": kind, "ack_queue": 30}}}
    table = {
        **AGENTS_BASE,
        "agents": [{"node": "ap", "interface": "wlan", "kind": kind, "ack_queue": 30}],
    }
    plain = airtcp.run(AGENTS_BASE, seed=4, timeseries=False).summary
    first = airtcp.run(shorthand, seed=4, timeseries=False).summary
    second = airtcp.run(table, seed=4, timeseries=False).summary
    for summary in (first, second):
        summary["wall_time_s"] = 0
    assert first == second
    assert first["wlans"][0]["ap_ack_headed_accesses"] > 0
    assert plain["wlans"][0]["ap_ack_headed_accesses"] == 0


@pytest.mark.parametrize(
    ("placement", "key", "message"),
    [
        ({"node": "ap"}, "agents[0].interface", "ap has several interfaces (srv, wlan)"),
        ({"node": "ap", "interface": "eth0"}, "agents[0].interface", "expected one of srv, wlan"),
        ({"node": "sta1"}, "agents[0].interface", "put it on an AP's wlan interface"),
        ({"node": "nobody"}, "agents[0].node", "unknown node 'nobody'"),
        ({"node": "ap", "interface": "wlan", "colour": 1}, "agents[0].colour", ""),
    ],
)
def test_misplaced_agents_are_named(placement, key, message):
    scenario = {**AGENTS_BASE, "agents": [{"kind": "ack_priority", **placement}]}
    with pytest.raises(ScenarioError) as error:
        airtcp.prepare(scenario)
    assert error.value.key == key and message in error.value.message, error.value


def test_the_scenarios_congestion_control_reaches_its_flows_and_a_flow_may_override_it():
    base = {
        "simulation": {"name": "cc", "duration": "5s"},
        "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "5ms", "loss": 0.01}],
        "tcp": {"congestion_control": "reno"},
        "flows": [
            {"name": "one", "src": "a", "dst": "b"},
            {"name": "two", "src": "a", "dst": "b", "tcp": {"congestion_control": "newreno"}},
        ],
    }  # fmt: skip
    flows = airtcp.prepare(base)["flows"]
    assert [f["app"]["congestion_control"] for f in flows] == ["reno", "newreno"]
    unset = airtcp.prepare({**base, "tcp": {}})["flows"]
    assert [f["app"]["congestion_control"] for f in unset] == ["newreno", "newreno"]


CC_PARAMS_BASE = {
    "simulation": {"name": "ccp", "duration": "8s"},
    "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "20ms", "loss": 0.01}],
    "tcp": {"congestion_control": "veno"},
    "flows": [{"name": "one", "src": "a", "dst": "b"}],
}


def test_congestion_params_reach_the_controller():
    """Veno with a backlog threshold of 1000 segments takes every loss as random."""
    default = airtcp.run(CC_PARAMS_BASE, seed=2, timeseries=False).summary
    tcp = {**CC_PARAMS_BASE["tcp"], "congestion_params": {"veno_beta": 1000}}
    lenient = airtcp.run({**CC_PARAMS_BASE, "tcp": tcp}, seed=2, timeseries=False).summary
    assert lenient["flows"][0]["bytes_delivered"] != default["flows"][0]["bytes_delivered"]
    effective = airtcp.prepare({**CC_PARAMS_BASE, "tcp": tcp})["flows"][0]["app"]["tcp"]
    assert effective["congestion_params"] == {"veno_beta": 1000}


def test_congestion_params_merge_key_by_key():
    """The scenario's cubic_c and a flow's cubic_beta both reach the flow (a shallow merge
    ran it with C = 0.4); a Veno flow beside it does not get CUBIC's parameters."""
    scenario = {
        **CC_PARAMS_BASE,
        "tcp": {"congestion_control": "cubic", "congestion_params": {"cubic_c": 0.8}},
        "flows": [
            {"name": "cubic", "src": "a", "dst": "b",
             "tcp": {"congestion_params": {"cubic_beta": 0.8}}},
            {"name": "veno", "src": "a", "dst": "b", "tcp": {"congestion_control": "veno"}},
        ],
    }  # fmt: skip
    cubic, veno = (f["app"]["tcp"] for f in airtcp.prepare(scenario)["flows"])
    assert cubic["congestion_params"] == {"cubic_c": 0.8, "cubic_beta": 0.8}
    assert "congestion_params" not in veno
    effective = json.loads(_core.effective_settings(json.dumps(airtcp.prepare(scenario))))
    used = effective["flows"][0]["tcp"]["congestion_params"]
    assert (used["cubic_c"], used["cubic_beta"]) == (0.8, 0.8)
    # A flow's own parameter the flow's controller does not read is still an error.
    scenario["flows"][1]["tcp"]["congestion_params"] = {"cubic_c": 0.5}
    with pytest.raises(ScenarioError) as error:
        airtcp.prepare(scenario)
    assert error.value.key == "flows[1].tcp.congestion_params.cubic_c", error.value


@pytest.mark.parametrize(
    ("params", "key", "message"),
    [
        ({"cubic_c": 0.5}, "tcp.congestion_params.cubic_c", "which no flow uses"),
        ({"veno_beta": 0}, "tcp.congestion_params.veno_beta", "greater than or equal to 1"),
        ({"veno_gamma": 1}, "tcp.congestion_params.veno_gamma", ""),
    ],
)
def test_congestion_params_errors_name_the_key(params, key, message):
    scenario = {
        **CC_PARAMS_BASE,
        "tcp": {"congestion_control": "veno", "congestion_params": params},
    }
    with pytest.raises(ScenarioError) as error:
        airtcp.prepare(scenario)
    assert error.value.key == key and message in error.value.message, error.value


def test_a_receivers_acks_read_from_its_trace_match_the_senders_count(tmp_path):
    from airtcp.analysis.acks import ack_rate, acked_bytes

    result = airtcp.run(
        SCENARIOS / "wired-tcp.toml", overrides={"simulation.duration": "10s"}, pcap_dir=tmp_path
    )
    times, acked = acked_bytes(tmp_path / "server.pcap")
    series = result.timeseries
    # The sender's count at each sample is what the server had acknowledged one path delay
    # (20 ms) earlier, give or take ACKs then on the wire: within a round trip's worth.
    for at in (2.0, 5.0, 9.0):
        sender = series.loc[series["time_s"] == at, "bytes_acked"].item()
        before, after = (np.interp(t, times, acked) for t in (at - 0.02 - 0.045, at - 0.02 + 0.005))
        assert before - 1 <= sender <= after + 1, (at, before, sender, after)
    # The handshake's SYN is the first byte acknowledged; then the link's 10 Mbit/s.
    rate = ack_rate(times, acked, 5.0, 10.0)
    assert 9.0e6 < rate <= 10e6


def test_a_trace_that_is_not_a_pcap_is_one_line_naming_it(tmp_path):
    from airtcp.analysis.acks import acked_bytes

    bad = tmp_path / "bad.pcap"
    bad.write_text("not a capture")
    with pytest.raises(ValueError, match=f"^{re.escape(str(bad))}: not a pcap"):
        acked_bytes(bad)
