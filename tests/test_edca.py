"""EDCA in scenarios (docs/scenarios.md, "EDCA"): the settings reach the simulator only when
given, flows name their DSCP, a higher access category takes the channel from a lower one,
one station's ACs collide internally, the effective settings state both parameter sets, and
bad settings are one line naming the key."""

import json
from pathlib import Path

import airtcp as api
import pytest
from airtcp import _core
from airtcp.scenario.resolve import resolve
from airtcp.scenario.schema import load
from conftest import airtcp
from test_bad_input import assert_one_line_error
from test_phys import scenario

# Two stations of an 802.11g BSS with EDCA: s1 sends voice (EF) and background (CS1), s2
# best effort, each saturating the channel.
CLASSES = """
[simulation]
name = "edca"
duration = "3s"
measure_from = "1s"

[wlan]
ap = "ap"
stations = ["s1", "s2"]
phy = "802.11g"
rate = "54Mbps"
{wlan}

[[flows]]
name = "voice"
kind = "udp_cbr"
src = "s1"
dst = "ap"
rate = "40Mbps"
dscp = "EF"

[[flows]]
name = "best"
kind = "udp_cbr"
src = "s2"
dst = "ap"
rate = "40Mbps"

[[flows]]
name = "background"
kind = "udp_cbr"
src = "s1"
dst = "ap"
rate = "40Mbps"
dscp = 8
"""


def classes(tmp_path: Path, wlan: str = "") -> Path:
    """The scenario above, EDCA on unless `wlan` says otherwise."""
    path = tmp_path / "edca.toml"
    edca = "" if "edca =" in wlan else "edca = true\n"
    path.write_text(CLASSES.format(wlan=edca + wlan))
    return path


def test_edca_settings_reach_the_simulator_only_when_given(tmp_path: Path):
    plain = resolve(load(scenario(tmp_path, 'phy = "802.11ac"')))[0]
    assert not {"edca", "edca_params", "ap_edca_params"} & set(plain["wlans"][0])
    assert "dscp" not in plain["flows"][0]
    wlan = (
        'edca_params.vi = { aifsn = 3, txop_limit = "2.016ms" }\n'
        "ap_edca_params.be = { cw_max = 1023 }"
    )
    resolved = resolve(load(classes(tmp_path, wlan)))[0]
    own = resolved["wlans"][0]
    assert own["edca"] is True
    assert own["edca_params"] == {"vi": {"aifsn": 3, "txop_limit_ns": 2_016_000}}
    assert own["ap_edca_params"] == {"be": {"cw_max": 1023}}
    assert [f.get("dscp") for f in resolved["flows"]] == [46, None, 8]
    assert _core.access_categories() == ["bk", "be", "vi", "vo"]


def test_a_higher_access_category_takes_the_channel(tmp_path: Path):
    summary = api.run(classes(tmp_path)).summary
    goodput = {f["name"]: f["goodput_bps"] for f in summary["flows"]}
    # VO (AIFSN 2, CW 3..7) against BE (AIFSN 3, CW 15..1023) and BK (AIFSN 7): VO's
    # backoffs end before BE's counts down, so BE and BK get next to nothing
    assert goodput["voice"] > 25e6, goodput
    assert goodput["best"] < 0.05 * goodput["voice"], goodput
    assert goodput["background"] < goodput["best"] + 1e5, goodput
    wlan = summary["wlans"][0]
    # VO's TXOP limit (1.504 ms) carries several frames an access; s1's BK meets its VO
    assert wlan["txop_frames"] > 3 * wlan["txop_bursts"] > 0
    assert wlan["internal_collisions"] > 0
    # without EDCA the three share one DCF per station: s2's flow gets about half
    plain = api.run(classes(tmp_path), overrides={"wlan.edca": False}).summary
    shares = {f["name"]: f["goodput_bps"] for f in plain["flows"]}
    assert plain["wlans"][0]["internal_collisions"] == 0
    assert shares["best"] > 0.4 * (shares["voice"] + shares["background"] + shares["best"])


def test_a_higher_access_category_takes_the_channel_with_geometry(tmp_path: Path):
    # the same stations placed 5 m from the AP: each radio contends with four EDCAFs
    # (docs/radio.md, "EDCA"); VO takes the channel in TXOP bursts of six frames, as on the
    # central DCF (internal collisions: tests/radio_edca.rs; here BK's AIFSN 7 outwaits VO's
    # backoffs and the two hardly ever meet)
    geometry = "channel = 6\n[positions]\nap = [0, 0]\ns1 = [5, 0]\ns2 = [-5, 0]"
    summary = api.run(classes(tmp_path, geometry)).summary
    goodput = {f["name"]: f["goodput_bps"] for f in summary["flows"]}
    assert goodput["voice"] > 25e6, goodput
    assert goodput["best"] < 0.05 * goodput["voice"], goodput
    wlan = summary["wlans"][0]
    assert wlan["txop_frames"] > 5 * wlan["txop_bursts"] > 0


def test_effective_settings_state_both_parameter_sets(tmp_path: Path):
    resolved = api.prepare(classes(tmp_path, "edca_params.be.aifsn = 4"))
    wlan = json.loads(_core.effective_settings(json.dumps(resolved)))["wlans"][0]
    stations, ap = wlan["edca"]["stations"], wlan["edca"]["ap"]
    assert stations["be"] == {"aifsn": 4, "cw_min": 15, "cw_max": 1023, "txop_limit_ns": 0}
    assert stations["vo"] == {"aifsn": 2, "cw_min": 3, "cw_max": 7, "txop_limit_ns": 1_504_000}
    # the AP's own (dot11QAPEDCATable): AIFSN 1 for VO and VI, BE's CWmax 63
    assert (ap["vo"]["aifsn"], ap["vi"]["aifsn"], ap["be"]["cw_max"]) == (1, 1, 63)
    legacy = api.prepare(scenario(tmp_path, 'phy = "802.11g"\nrate = "54Mbps"'))
    assert "edca" not in json.loads(_core.effective_settings(json.dumps(legacy)))["wlans"][0]


@pytest.mark.parametrize(
    ("wlan", "fragments"),
    [
        ("edca_params.be.aifsn = 1", ("wlan.edca_params.be.aifsn", "2 to 15")),
        ("ap_edca_params.vo.aifsn = 0", ("wlan.ap_edca_params.vo.aifsn", "1 to 15")),
        ("edca_params.vi.cw_min = 10", ("wlan.edca_params.vi.cw_min", "2^k - 1")),
        ("edca_params.vo.cw_min = 31", ("wlan.edca_params.vo.cw_min", "above cw_max 7")),
        ('edca_params.vi.txop_limit = "1ms"', ("wlan.edca_params.vi.txop_limit", "32 us")),
        ("edca_params.voice.aifsn = 2", ("wlan.edca_params.voice", "'bk', 'be', 'vi' or 'vo'")),
        ("edca = false\nedca_params.be.aifsn = 4", ("wlan.edca_params", "EDCA, which is off")),
        (
            'edca = false\nagent = { kind = "ack_priority", ac = "vo" }',
            ("wlan.agent.ac", "EDCA, which is off"),
        ),
        (
            'edca = false\n[[agents]]\nnode = "ap"\ninterface = "wlan"\nkind = "af"\nac = "vo"',
            ("agents[0].ac", "EDCA, which is off"),
        ),
    ],
)
def test_bad_edca_settings_are_one_line_naming_the_key(
    tmp_path: Path, wlan: str, fragments: tuple[str, ...]
):
    assert_one_line_error(airtcp("validate", str(classes(tmp_path, wlan))), *fragments)


def test_bad_dscps_and_edca_with_geometry_are_one_line(tmp_path: Path):
    path = classes(tmp_path)
    path.write_text(path.read_text().replace('dscp = "EF"', 'dscp = "XF"'))
    assert_one_line_error(airtcp("validate", str(path)), "flows[0].dscp", "unknown DSCP", "EF")
    path.write_text(path.read_text().replace('dscp = "XF"', "dscp = 64"))
    assert_one_line_error(airtcp("validate", str(path)), "flows[0].dscp", "63")
    # A WLAN with geometry runs EDCA for several access categories, TXOP limits included
    geometry = "channel = 6\n[positions]\nap = [0, 0]\ns1 = [5, 0]\ns2 = [-5, 0]"
    path = classes(tmp_path, geometry)
    several = path.read_text()
    assert airtcp("validate", str(path)).returncode == 0
    # an agent there works on its AC's queue; one that plans the AP's access is refused
    agent = '\n[[agents]]\nnode = "ap"\ninterface = "wlan"\nkind = "af"\nac = "vo"\n'
    path.write_text(several + agent)
    assert airtcp("validate", str(path)).returncode == 0
    path.write_text(several + agent.replace('"af"', '"ack_priority"'))
    assert_one_line_error(
        airtcp("validate", str(path)), "agents[0].kind", "plans the AP's channel access"
    )
    best_effort = several.replace('dscp = "EF"', "dscp = 0").replace("dscp = 8", "")
    # and an agent cannot choose an AC there
    agent = '\n[[agents]]\nnode = "ap"\ninterface = "wlan"\nkind = "af"\nac = "vo"\n'
    path.write_text(best_effort + agent)
    assert_one_line_error(airtcp("validate", str(path)), "agents[0].ac", "cannot choose")


def test_bianchi_takes_aifs_for_the_qos_phys():
    def throughput(*options: str) -> float:
        result = airtcp("bianchi", "--phy", "802.11ac", "--mcs", "9", "--stations", "5",
                        "--json", *options)  # fmt: skip
        assert result.returncode == 0, result.stderr
        out = json.loads(result.stdout)
        return out["aifsn"], out["points"][0]["throughput_bps"]

    (aifsn, edca), (none, dcf) = throughput(), throughput("--no-edca")
    assert (aifsn, none) == (3, None)
    # one slot more of AIFS per exchange of about 2.2 ms
    assert 0.993 < edca / dcf < 0.998


def test_the_adaptive_agent_counts_the_idle_slots_of_its_own_ac():
    # paper 000's adaptive controller estimates the contenders from the idle slots between
    # busy periods; with EDCA those are its AC's (AIFS after the AP's AIFSN 1 of VO passes
    # first), so it gives backoff 0 about as often as over the DCF, not to every ACK
    def zero_backoff_share(edca: bool) -> float:
        sets = {"wlan.stations": 40, "wlan.agent": "adaptive", "wlan.edca": edca}
        sets |= {"simulation.duration": "10s", "simulation.measure_from": "3s"}
        wlan = api.run("ryu-upload", overrides=sets).summary["wlans"][0]
        return wlan["ap_zero_backoff_accesses"] / wlan["ap_ack_headed_accesses"]

    dcf, edca = zero_backoff_share(False), zero_backoff_share(True)
    assert dcf < 0.3 and 0.5 * dcf < edca < 2 * dcf, (dcf, edca)
