"""Geometry in scenarios (docs/radio.md): positions, layouts, a mesh chain, the [radio]
settings as the simulator receives them, the built-in scenarios that show each effect, and
bad geometry refused in one line naming the key."""

import json
from pathlib import Path

import airtcp as api
import pytest
from airtcp.scenario.resolve import resolve
from airtcp.scenario.schema import load
from conftest import SCENARIOS, airtcp
from test_bad_input import assert_one_line_error


def resolved(name: str, *overrides: str) -> dict:
    return resolve(load(SCENARIOS / f"{name}.toml", overrides))[0]


def test_scenarios_without_geometry_resolve_as_before():
    # No new key unless used: a run's identity (a hash of this JSON) does not move.
    for name in ("ryu-upload", "han-mesh-per-hop", "wlan-saturation"):
        scenario = resolved(name)
        assert "radio" not in scenario and "positions" not in scenario
        for wlan in scenario["wlans"]:
            assert not {"channel", "station_rates", "rate_control"} & set(wlan)


def test_positions_radio_settings_and_station_rates_reach_the_simulator():
    scenario = resolved(
        "hidden-pair",
        "radio.tx_power=20dBm",
        "radio.propagation.exponent=3.5",
        "radio.fading=rayleigh",
        "radio.cca_threshold=-70dBm",
        "radio.cca_sensitivity=-82dBm",
        "radio.dcf=ns3",
        "positions.left=[-30, 0, 2]",
        "wlan.station_rates.right=11Mbps",
        "wlan.rate_control=minstrel",
    )
    nodes = scenario["nodes"]
    place = {nodes[p["node"]]: (p["x"], p["y"], p["z"]) for p in scenario["positions"]}
    assert place == {"ap": (0, 0, 0), "left": (-30, 0, 2), "right": (40, 0, 0)}
    assert scenario["radio"] == {
        "tx_power_dbm": 20.0,
        "cca_ed_threshold_dbm": -70.0,
        "cca_sensitivity_dbm": -82.0,
        "dcf": "ns3",
        "propagation": {"model": "log_distance", "exponent": 3.5},
        "fading": {"model": "rayleigh"},
    }
    wlan = scenario["wlans"][0]
    assert wlan["station_rates"] == [{"station": nodes.index("right"), "rate_bps": 11_000_000}]
    assert wlan["rate_control"] == "minstrel"


def test_a_circle_layout_places_the_stations_around_the_ap():
    scenario = resolved("rate-anomaly", "wlan.stations=4", "positions.sta2=[1, 1]")
    nodes = scenario["nodes"]
    place = {nodes[p["node"]]: (p["x"], p["y"]) for p in scenario["positions"]}
    assert place["ap"] == (0.0, 0.0)
    assert place["sta2"] == (1, 1), "[positions] wins over the layout"
    for name in ("sta1", "sta3", "sta4"):
        assert abs((place[name][0] ** 2 + place[name][1] ** 2) ** 0.5 - 5.0) < 1e-9
    assert place["sta1"] == (5.0, 0.0)


def test_a_mesh_chain_is_one_wlan_a_hop_on_a_line():
    scenario = resolved("mesh-chain", "mesh.hops=3", "mesh.spacing=30")
    nodes = scenario["nodes"]
    assert nodes[:4] == ["n0", "n1", "n2", "n3"]
    hops = [(nodes[w["ap"]], [nodes[s] for s in w["stations"]]) for w in scenario["wlans"]]
    assert hops == [("n0", ["n1"]), ("n1", ["n2"]), ("n2", ["n3"])]
    assert {w["channel"] for w in scenario["wlans"]} == {1}
    assert [p["x"] for p in scenario["positions"]] == [0.0, 30.0, 60.0, 90.0]
    flow = scenario["flows"][0]
    assert (nodes[flow["src"]], nodes[flow["dst"]]) == ("n0", "n3"), "n{hops}"
    apart = resolved("mesh-chain", "mesh.channel=per_hop")
    assert all("channel" not in w for w in apart["wlans"])


def test_hidden_pair_needs_rts_cts_and_the_summary_says_why():
    def run(*overrides: str) -> dict:
        scenario = load(SCENARIOS / "hidden-pair.toml", ("simulation.duration=12s", *overrides))
        return api.run(scenario, timeseries=False).summary

    basic, protected = run(), run("wlan.rts_threshold=0")
    radio = basic["wlans"][0]["radio"]
    assert radio["data_failures"] > 0.5 * basic["wlans"][0]["attempts"]
    assert protected["wlans"][0]["radio"]["rts_failures"] > 0
    assert protected["aggregate_goodput_bps"] > 1.5 * basic["aggregate_goodput_bps"]


def test_run_prints_a_wlan_with_geometry_by_its_channel_counters(tmp_path: Path):
    result = airtcp(
        "run", "hidden-pair", "--set", "simulation.duration=6s", "--out", str(tmp_path / "o")
    )
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("WLAN ap"))
    assert "data and 0 RTS frames unanswered" in line and "contenders" not in line
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["wlans"][0]["radio"]["data_failures"] > 0


@pytest.mark.parametrize(
    ("override", "fragments"),
    [
        ("positions.left=[1]", ("positions.left", "[x, y] or [x, y, z]")),
        ("positions.nobody=[1, 2]", ("positions.nobody", "unknown node 'nobody'")),
        ("radio.propagation.exponent=0.1", ("radio.propagation.exponent", "1 to 8")),
        ("radio.shadowing=-3dB", ("radio.shadowing", "0 to 30 dB")),
        ("radio.tx_power=5dB", ("radio.tx_power", "a power like")),
        ("radio.fading=nakagami", ("radio.fading", "'m'")),
        ("radio.cca_sensitivity=-50dBm", ("radio.cca_sensitivity", "-130 to -62 dBm")),
        ("radio.dcf=ns2", ("radio.dcf", "ns3")),
        ("wlan.channel=40", ("wlan.channel", "2.4 GHz channel")),
        ("wlan.rate_control=fast", ("wlan.rate_control", "minstrel")),
        ("wlan.station_rates.left=3Mbps", ("wlan.station_rates.left", "not a 802.11b rate")),
        ("wlan.station_rates.ap=1Mbps", ("wlan.station_rates.ap", "a station of this WLAN")),
        ("wlan.loss=0.1", ("wlan.loss", "geometry")),
        ("wlan.layout.shape=circle", ("wlan.layout", "radius")),
    ],
)
def test_bad_geometry_is_one_line_naming_the_key(override: str, fragments: tuple[str, ...]):
    assert_one_line_error(airtcp("validate", "hidden-pair", "--set", override), *fragments)


def test_a_node_of_a_wlan_with_geometry_without_a_position(tmp_path: Path):
    text = (SCENARIOS / "hidden-pair.toml").read_text().replace("right = [40, 0]\n", "")
    (tmp_path / "s.toml").write_text(text)
    result = airtcp("validate", str(tmp_path / "s.toml"))
    assert_one_line_error(result, "positions", "node 'right'", "has no position")


def test_run_prints_each_mac_and_captures_carry_power(tmp_path: Path):
    out = tmp_path / "o"
    result = airtcp(
        "run", "hidden-pair", "--set", "simulation.duration=4s", "--set",
        "simulation.measure_from=1s", "--out", str(out), "--pcap-80211",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    first_cells = [line.split("│")[1].strip() for line in result.stdout.splitlines() if "│" in line]
    rows = [cell for cell in first_cells if cell in ("left", "right")]
    assert len(rows) == 2, result.stdout
    summary = json.loads((out / "summary.json").read_text())
    macs = {mac["node"]: mac for mac in summary["wlans"][0]["macs"]}
    assert set(macs) == {"ap", "left", "right"}
    # 40 m: -78.7 dBm at the AP, 14.9 dB over the -93.55 dBm noise; 2 Mbit/s.
    assert abs(macs["left"]["rssi_dbm"] - -78.68) < 0.05
    assert abs(macs["left"]["snr_db"] - 14.87) < 0.05
    assert macs["left"]["mean_rate_bps"] == 2_000_000
    assert 0 < macs["left"]["loss"] < 1
    capture = next((out / "pcap-80211").glob("wlan0-ap.pcap")).read_bytes()
    # Records after the 24-byte pcap header: a 16-byte record header, then radiotap whose
    # length is 24 (signal and noise present).
    assert capture[24 + 16 + 2] == 24, "radiotap with dBm signal and noise"


def test_the_macs_series_follows_rate_control(tmp_path: Path):
    # ARF at 85 m (5 dB SNR, detection opened to -101 dBm) and at 40 m (15 dB), the two
    # stations hidden from each other (125 m): ARF takes their collisions for a bad channel
    # (its known weakness) and steps both down, the far one further.
    overrides = [
        "simulation.duration=6s",
        "simulation.measure_from=1s",
        "wlan.rate_control=arf",
        "radio.preamble_threshold=-101dBm",
        "positions.left=[-85, 0]",
    ]
    result = api.run("hidden-pair", overrides=overrides)
    macs = result.macs
    assert list(macs.columns) == [
        "node", "wlan", "time_s", "attempts", "failures", "rate_bps", "rssi_dbm"
    ]  # fmt: skip
    assert set(macs["node"]) == {"ap", "left", "right"} and set(macs["wlan"]) == {"ap"}
    late = macs[macs["time_s"] > 3]
    left, right = (late[late["node"] == name]["rate_bps"].mean() for name in ("left", "right"))
    assert left < right < 11e6, (left, right)
    assert abs(late[late["node"] == "left"]["rssi_dbm"].mean() - -88.56) < 0.05
    result.write(tmp_path / "out")
    import pandas as pd

    written = pd.read_parquet(tmp_path / "out" / "macs.parquet")
    assert len(written) == len(macs) and list(written["node"][:3]) == ["ap", "left", "right"]


def test_moving_nodes_reach_the_simulator_and_move():
    walk = (
        "positions.left={x=-40, random_waypoint="
        '{area=[-60, 60, -20, 20], speed=[1, 3], pause="1s"}}'
    )
    path = 'positions.right={x=40, path=[{at="5s", x=200}]}'
    scenario = resolved("hidden-pair", walk, path, "radio.position_update=50ms")
    moves = {scenario["nodes"][p["node"]]: p.get("motion") for p in scenario["positions"]}
    assert moves["ap"] is None
    assert moves["left"] == {
        "model": "random_waypoint", "x_min": -60, "x_max": 60, "y_min": -20, "y_max": 20,
        "speed_min_mps": 1, "speed_max_mps": 3, "pause_ns": 1_000_000_000,
    }  # fmt: skip
    assert moves["right"] == {
        "model": "path",
        "points": [{"at_ns": 5_000_000_000, "x": 200, "y": 0.0, "z": 0.0}],
    }
    assert scenario["radio"]["position_update_ns"] == 50_000_000

    # `right` walks out of range after about 2 s: it delivers far less than standing still.
    def right_goodput(*overrides: str) -> float:
        run = api.run("hidden-pair", overrides=["simulation.duration=10s", *overrides])
        return run.summary["flows"][1]["goodput_bps"]

    assert right_goodput(path) < 0.2 * right_goodput()


@pytest.mark.parametrize(
    ("override", "fragments"),
    [
        ('positions.left={x=-40, path=[{at="2s", x=10}, {at="1s", x=5}]}',
         ("positions.left.path[1].at", "later than the one before")),
        ("positions.left={x=-40, random_waypoint={area=[0, 10, 5, 0], speed=[1, 2]}}",
         ("positions.left.random_waypoint.area", "below its minimum")),
        ("positions.left={x=-40, random_waypoint={area=[0, 10, 0, 5], speed=[3, 2]}}",
         ("positions.left.random_waypoint.speed",)),
        ("radio.position_update=10us", ("radio.position_update", "at least 1 ms")),
    ],
)  # fmt: skip
def test_bad_motion_is_one_line_naming_the_key(override: str, fragments: tuple[str, ...]):
    assert_one_line_error(airtcp("validate", "hidden-pair", "--set", override), *fragments)
