"""Settings for some of a WLAN's stations (docs/scenarios.md, "Stations apart"): `per_station`
on a subset or a group, and `[[wlan.groups]]` setting stations' rate, MCS, TCP, agent and
places; the resolved scenario they give, their precedence, their errors in the user's keys,
and a run that shows each took effect."""

from __future__ import annotations

import copy
from typing import Any

import airtcp
import pytest
from airtcp.scenario.resolve import resolve_checked
from airtcp.scenario.schema import ScenarioError, parse
from conftest import airtcp as cli

UPLOADS: dict[str, Any] = {
    "simulation": {"name": "groups", "duration": "4s", "measure_from": "1s"},
    "wlan": {"stations": 6, "phy": "802.11b", "rate": "11Mbps"},
    "flows": [{"name": "up{i}", "src": "sta{i}", "dst": "ap", "per_station": True}],
}


def scenario(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(UPLOADS)
    for dotted, value in changes.items():
        section, _, key = dotted.partition("__")
        if key:
            data[section][key] = value
        else:
            data[section] = value
    return data


def resolved(data: dict[str, Any]) -> dict[str, Any]:
    return resolve_checked(parse(data, "groups.toml"), "groups.toml")


def error_of(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as caught:
        resolved(data)
    return str(caught.value)


def flow_names(data: dict[str, Any]) -> list[str]:
    return [flow["name"] for flow in resolved(data)["flows"]]


def test_per_station_repeats_for_the_stations_it_names():
    def only(per_station: Any) -> list[str]:
        flows = [{"name": "up{i}", "src": "sta{i}", "dst": "ap", "per_station": per_station}]
        return flow_names(scenario(flows=flows))

    assert only(True) == [f"up{i}" for i in range(1, 7)]
    assert only("2-3,6") == ["up2", "up3", "up6"]
    assert only(" 5 - 6 , 1 ") == ["up1", "up5", "up6"]
    assert only(4) == ["up4"]
    assert only([6, 2, 2]) == ["up2", "up6"]


def test_per_station_takes_a_groups_name():
    data = scenario(
        wlan__groups=[{"stations": "4-5", "name": "far"}],
        flows=[{"name": "down{i}", "src": "ap", "dst": "sta{i}", "per_station": "far"}],
    )
    assert flow_names(data) == ["down4", "down5"]


def test_links_repeat_for_a_subset_too():
    data = scenario(
        links=[{"a": "ap", "b": "srv{i}", "rate": "10Mbps", "delay": "1ms",
                "per_station": "1,3"}],
        flows=[{"name": "up{i}", "src": "sta{i}", "dst": "srv{i}", "per_station": "1,3"}],
    )  # fmt: skip
    nodes = resolved(data)["nodes"]
    assert [name for name in nodes if name.startswith("srv")] == ["srv1", "srv3"]


@pytest.mark.parametrize(
    ("per_station", "message"),
    [
        ("2-9", "flows[0].per_station: station 9: the WLAN's stations are 1..6"),
        ("3-1", "flows[0].per_station: the range '3-1' runs backwards"),
        ("1;2", 'flows[0].per_station: expected station numbers and ranges like "1-3,7"'),
        ("slow", "flows[0].per_station: no group called 'slow' (the WLAN names no groups)"),
        (0, "flows[0].per_station: "),
    ],
)
def test_a_bad_selection_is_one_line_naming_its_key(per_station: Any, message: str):
    flows = [{"name": "up{i}", "src": "sta{i}", "dst": "ap", "per_station": per_station}]
    assert message in error_of(scenario(flows=flows))


def test_a_selection_needs_a_single_wlan():
    data = scenario(
        wlan=None,
        links=[{"a": "a", "b": "b{i}", "rate": "1Mbps", "delay": "1ms", "per_station": "1"}],
        flows=[{"src": "a", "dst": "b1"}],
    )
    del data["wlan"]
    assert "links[0].per_station: needs a [wlan] whose stations it repeats for" in error_of(data)


def test_group_rates_join_the_wlans_own_which_win():
    data = scenario(
        wlan__groups=[
            {"stations": "1-3", "rate": "2Mbps"},
            {"stations": "3-4", "rate": "1Mbps"},  # later: sta3 at 1 Mbit/s
        ],
        wlan__station_rates={"sta2": "5.5Mbps"},  # the WLAN's own table wins for sta2
    )
    rates = {
        entry["station"]: entry["rate_bps"] for entry in resolved(data)["wlans"][0]["station_rates"]
    }
    nodes = resolved(data)["nodes"]
    by_name = {nodes[station]: rate for station, rate in rates.items()}
    assert by_name == {"sta1": 2_000_000, "sta2": 5_500_000, "sta3": 1_000_000, "sta4": 1_000_000}


def test_a_groups_rate_runs_as_the_same_station_rate_would():
    """The group form and the per-station table resolve to the same run, bit for bit."""
    grouped = scenario(wlan__groups=[{"stations": 1, "rate": "1Mbps"}])
    tabled = scenario(wlan__station_rates={"sta1": "1Mbps"})
    assert resolved(grouped) == resolved(tabled)
    a, b = airtcp.run(parse(grouped, "a")), airtcp.run(parse(tabled, "b"))
    assert a.summary["flows"] == b.summary["flows"]
    # The slow station drags the cell down (the performance anomaly): every station's
    # goodput is close to the slow one's, well under an even share of 11 Mbit/s.
    assert max(flow["goodput_bps"] for flow in a.summary["flows"]) < 0.5e6


def test_group_mcs_joins_station_mcs():
    data = scenario(
        wlan={"stations": 3, "phy": "802.11n", "mcs": 7, "channel_width": 20,
              "groups": [{"stations": "2", "mcs": 0}]},
    )  # fmt: skip
    data["wlan"].pop("rate", None)
    entries = resolved(data)["wlans"][0]["station_mcs"]
    assert entries == [{"station": resolved(data)["nodes"].index("sta2"), "mcs": 0}]


def test_group_tcp_sits_between_the_scenarios_and_the_flows_own():
    data = scenario(
        tcp={"congestion_control": "cubic", "mss": 1200},
        wlan__groups=[
            {"stations": "1-2", "tcp": {"congestion_control": "westwood", "sack": False}},
            {"stations": "2", "tcp": {"congestion_control": "veno"}},  # later, key by key
        ],
        flows=[
            {"name": "up{i}", "src": "sta{i}", "dst": "ap", "per_station": True},
            {"name": "own", "src": "sta1", "dst": "ap", "tcp": {"congestion_control": "reno"}},
            {"name": "down", "src": "ap", "dst": "sta2"},  # the receiving station's groups
        ],
    )
    flows = {flow["name"]: flow["app"] for flow in resolved(data)["flows"]}
    assert flows["up1"]["congestion_control"] == "westwood"
    assert flows["up1"]["tcp"] == {"mss": 1200, "sack": False}
    assert flows["up2"]["congestion_control"] == "veno"
    assert flows["up2"]["tcp"]["sack"] is False
    assert flows["up3"]["congestion_control"] == "cubic"
    assert flows["up3"]["tcp"] == {"mss": 1200}
    assert flows["own"]["congestion_control"] == "reno"
    assert flows["down"]["congestion_control"] == "veno"


def test_the_senders_groups_win_over_the_receivers():
    data = scenario(
        wlan__groups=[
            {"stations": "1", "tcp": {"congestion_control": "westwood", "nagle": False}},
            {"stations": "2", "tcp": {"congestion_control": "veno"}},
        ],
        flows=[{"name": "across", "src": "sta2", "dst": "sta1"}],
    )
    app = resolved(data)["flows"][0]["app"]
    assert app["congestion_control"] == "veno"
    assert app["tcp"] == {"nagle": False}


def test_group_agents_go_on_each_of_its_stations():
    data = scenario(wlan__groups=[{"stations": "2-3", "agent": "af"}])
    nodes = resolved(data)["nodes"]
    placed = [(nodes[a["node"]], a["interface"], a["agent"]["kind"]) for a in
              resolved(data)["agents"]]  # fmt: skip
    assert placed == [("sta2", "wlan", "af"), ("sta3", "wlan", "af")]
    summary = airtcp.run(parse(data, "agents")).summary
    assert [(agent["node"], agent["kind"]) for agent in summary["agents"]] == [
        ("sta2", "af"),
        ("sta3", "af"),
    ]


def test_group_layouts_place_their_stations_where_positions_do_not():
    data = scenario(
        wlan__layout={"shape": "circle", "radius": 5.0},
        wlan__groups=[{"stations": "5-6", "layout": {"shape": "line", "spacing": 40.0}}],
        positions={"sta6": {"x": 1.0, "y": 2.0}},
    )
    nodes = resolved(data)["nodes"]
    places = {nodes[p["node"]]: (p["x"], p["y"]) for p in resolved(data)["positions"]}
    assert places["sta6"] == (1.0, 2.0)  # [positions] first
    assert places["sta5"] == (40.0, 0.0)  # the group's line: its first station
    assert places["ap"] == (0.0, 0.0)
    assert places["sta1"] == (5.0, 0.0)  # the WLAN's circle for the rest
    # The far station is slower than those 5 m from the AP (rate control off: the SINR's
    # losses at 11 Mbit/s over 40 m).
    summary = airtcp.run(parse(data, "layout")).summary
    goodput = {flow["name"]: flow["goodput_bps"] for flow in summary["flows"]}
    assert goodput["up5"] < min(goodput[f"up{i}"] for i in (1, 2, 3, 4))


def test_errors_in_a_groups_settings_name_the_group():
    assert "wlan.groups[0].rate" in error_of(
        scenario(wlan__groups=[{"stations": 1, "rate": "7Mbps"}])
    )
    message = error_of(scenario(wlan__groups=[{"stations": 1, "agent": "ack_priority"}]))
    assert message.startswith("groups.toml: wlan.groups[0].agent: ")
    # The simulator's own check (BBR needs RACK-TLP), on the flow the group's setting reached.
    message = error_of(
        scenario(wlan__groups=[{"stations": 2, "tcp": {"congestion_control": "bbr"}}])
    )
    assert "wlan.groups[0].tcp.congestion_control: up2, for station 2: bbr takes" in message
    message = error_of(scenario(wlan__groups=[{"stations": "1-9", "rate": "1Mbps"}]))
    assert "wlan.groups[0].stations: station 9: the WLAN's stations are 1..6" in message
    message = error_of(scenario(wlan__groups=[{"stations": "1"}]))
    assert "wlan.groups[0]: a group sets nothing" in message
    message = error_of(scenario(wlan__groups=[{"stations": 1, "name": "a"},
                                              {"stations": 2, "name": "a"}]))  # fmt: skip
    assert "wlan.groups[1].name: 'a' names wlan.groups[0] too" in message
    message = error_of(scenario(wlan__groups=[{"stations": 1, "name": "1x"}]))
    assert "wlan.groups[0].name" in message


def test_set_changes_a_group_and_a_subset_from_the_command_line(tmp_path):
    path = tmp_path / "groups.toml"
    path.write_text(
        '[simulation]\nduration = "2s"\n[wlan]\nstations = 4\n'
        '[[wlan.groups]]\nstations = "1"\nrate = "1Mbps"\n'
        '[[flows]]\nname = "up{i}"\nsrc = "sta{i}"\ndst = "ap"\nper_station = true\n'
    )
    ok = cli("validate", str(path), "--set", "flows.0.per_station=2-3",
             "--set", "wlan.groups.0.rate=2Mbps")  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert "2 flows" in ok.stdout
    bad = cli("validate", str(path), "--set", "wlan.groups.0.stations=5")
    assert bad.returncode == 2
    assert bad.stderr.strip().endswith(
        "wlan.groups[0].stations: station 5: the WLAN's stations are 1..4"
    ), bad.stderr


def test_controller_parameters_merge_one_by_one_and_reach_the_controllers_that_read_them():
    data = scenario(
        wlan__groups=[
            {"stations": "1-2", "tcp": {"congestion_control": "cubic",
                                        "congestion_params": {"cubic_c": 0.5}}},
            {"stations": "2", "tcp": {"congestion_params": {"cubic_beta": 0.8}}},
        ],
        flows=[
            {"name": "up{i}", "src": "sta{i}", "dst": "ap", "per_station": "1-3"},
            {"name": "plain", "src": "sta1", "dst": "ap", "tcp": {"congestion_control": "newreno"}},
            {"name": "across", "src": "sta1", "dst": "sta2"},
        ],
    )  # fmt: skip
    apps = {flow["name"]: flow["app"] for flow in resolved(data)["flows"]}
    assert apps["up1"]["tcp"]["congestion_params"] == {"cubic_c": 0.5}
    # Station 2's later group adds a parameter; it does not replace the table.
    assert apps["up2"]["tcp"]["congestion_params"] == {"cubic_c": 0.5, "cubic_beta": 0.8}
    assert "congestion_params" not in apps["up3"]["tcp"]
    # A flow's own controller that does not read them leaves them out, as the scenario's.
    assert apps["plain"]["congestion_control"] == "newreno"
    assert "congestion_params" not in apps["plain"]["tcp"]
    # The receiver's parameters join the sender's, key by key.
    assert apps["across"]["tcp"]["congestion_params"] == {"cubic_c": 0.5, "cubic_beta": 0.8}


def test_a_groups_parameter_no_flow_reads_is_an_error_naming_it():
    data = scenario(
        wlan__groups=[{"stations": "1", "tcp": {"congestion_params": {"veno_beta": 4}}}]
    )
    assert (
        "wlan.groups[0].tcp.congestion_params.veno_beta: applies to veno, which no flow uses"
        in (error_of(data))
    )


def test_selections_are_checked_before_they_are_expanded_and_take_whole_numbers():
    huge = [{"name": "up{i}", "src": "sta{i}", "dst": "ap", "per_station": "1-3000000000"}]
    assert "station 3000000000: the WLAN's stations are 1..6" in error_of(scenario(flows=huge))
    for bad in (2.0, [True, 2], [1.0]):
        flows = [{"name": "up{i}", "src": "sta{i}", "dst": "ap", "per_station": bad}]
        assert "flows[0].per_station" in error_of(scenario(flows=flows)), bad
    assert "wlan.groups[0].stations" in error_of(
        scenario(wlan__groups=[{"stations": True, "rate": "1Mbps"}])
    )


def test_a_group_layout_that_leaves_stations_unplaced_names_the_group():
    data = scenario(
        wlan__groups=[{"stations": "1", "layout": {"shape": "line", "spacing": 30.0}}],
        positions={"ap": {"x": 0.0}},
    )
    message = error_of(data)
    assert "wlan.groups[0].layout: places only the group's stations: sta2 (and 4 more) has no " in (
        message
    )


def test_a_station_of_two_wlans_has_a_mac_series_in_each():
    data = {
        "simulation": {"duration": "1s"},
        "wlans": [
            {"ap": "ap1", "stations": ["a", "b"], "layout": {"shape": "circle", "radius": 5.0}},
            {"ap": "ap2", "stations": ["b", "c"],
             "layout": {"shape": "circle", "radius": 5.0, "center": [30.0, 0.0]}},
        ],
        "flows": [{"src": "a", "dst": "ap1"}, {"src": "c", "dst": "ap2"}],
    }  # fmt: skip
    macs = airtcp.run(data).macs
    pairs = set(macs[["node", "wlan"]].astype(str).itertuples(index=False, name=None))
    assert pairs == {("ap1", "ap1"), ("a", "ap1"), ("b", "ap1"), ("ap2", "ap2"), ("b", "ap2"),
                     ("c", "ap2")}  # fmt: skip
