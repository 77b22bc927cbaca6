"""The quick reproductions run in CI: `airtcp reproduce ryu-ack-priority --quick` (the headline
job's engine), `airtcp reproduce park-local-ack --quick` and `airtcp reproduce ahn-dar --quick`,
from any directory."""

import math
import re
from html import escape as html_escape

import pandas as pd
import pytest
from airtcp.experiments.spec import load
from airtcp.reproductions import (
    ahn_dar,
    han_mesh,
    mun_mbt,
    park_local_ack,
    park_local_ack_wlan,
    ryu_ack_priority,
)
from airtcp.reproductions.claims import MEANINGS, VERDICTS
from conftest import airtcp, figures_in_chromium


def claims_shown(out, result, count: int) -> None:
    """The claims table has ``count`` rows with verdicts, reasons where they are not
    "agrees", and each rule printed by the CLI and in the report."""
    claims = pd.read_csv(out / "claims.csv", keep_default_na=False)
    assert len(claims) == count
    assert set(claims["verdict"]) <= set(VERDICTS)
    assert (claims.loc[claims["verdict"] != "agrees", "why"].str.len() > 20).all()
    html = (out / "report.html").read_text()
    for rule in claims["rule"]:
        assert html_escape(rule, quote=False) in html and rule in result.stdout
    for used in set(claims["verdict"]):
        assert f"{used}: {MEANINGS[used]}" in result.stdout, "the CLI says what it means"
        assert html_escape(MEANINGS[used], quote=True) in html, "and so does the report"


def test_quick_reproduction_of_paper_000(tmp_path):
    out = tmp_path / "ryu"
    result = airtcp("reproduce", "ryu-ack-priority", "--quick", "--out", str(out), "-q")
    assert result.returncode == 0, result.stderr
    assert "report:" in result.stdout
    claims_shown(out, result, 10)
    claims = pd.read_csv(out / "claims.csv", keep_default_na=False)
    assert claims["rule"].str.startswith(("agrees if", "beyond the paper")).all()
    # The hidden-stations sweep beside the paper's: every point run, both its claims shown.
    hidden = pd.read_csv(out / "hidden.csv")
    plan = ryu_ack_priority.QUICK.hidden
    assert len(hidden) == 2 * 2 * len(plan.flows)
    assert (hidden["runs"] == plan.replications).all()
    assert set(hidden["agent"]) == {"dcf", "ack_priority"} and set(hidden["rts_cts"]) == {0, 1}
    assert (claims.tail(2)["verdict"] == "beyond the paper").all()
    assert claims.tail(2)["ours"].str.contains("apart at").all()
    used = pd.read_csv(out / "hidden-settings.csv").set_index("setting")
    assert used.loc["wlan.layout", "value"] == "circle, radius 40 m"
    assert used.loc["radio.preamble_threshold", "value"] == "-82 dBm"
    assert "hidden from each other" in used.loc["wlan.layout", "why"]
    html = (out / "report.html").read_text()
    aggregates = pd.read_csv(out / "aggregates.csv")
    assert set(aggregates["agent"]) == {
        "dcf",
        "ack_priority",
        "txop_burst",
        "ack_aggregation",
        "adaptive",
    }
    assert (aggregates["runs"] == 5).all()
    assert int(re.search(r'data-figures="(\d+)"', html).group(1)) == 6
    settings = pd.read_csv(out / "settings.csv").set_index("setting")
    assert settings.loc["wlan.msdu_lifetime", "value"] == "off"
    assert settings.loc["tcp.mss", "value"] == "1024"
    assert settings["why"].str.len().min() > 10
    assert "MAC and TCP settings of every run" in html
    again = airtcp("reproduce", "ryu-ack-priority", "--quick", "--out", str(out))
    # Both sweeps ran as one: 275 runs of the paper's setup, the hidden stations' beside.
    runs = 275 + len(hidden) * plan.replications
    assert again.returncode == 0 and f"resuming: {runs} of {runs}" in again.stderr


def test_unknown_reproduction_is_one_line():
    result = airtcp("reproduce", "nope")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "ryu-ack-priority" in result.stderr


def test_settings_change_every_point_of_a_reproduction(tmp_path):
    standard = {"wlan.msdu_lifetime": "512TU"}
    path = tmp_path / "experiment.toml"
    plan = ryu_ack_priority.QUICK
    path.write_text(ryu_ack_priority.experiment_toml(plan, ryu_ack_priority.SCENARIO, standard))
    tasks = load(path).tasks
    assert len(tasks) == 5 * len(plan.flows) * plan.replications
    assert all(t.scenario["wlans"][0]["msdu_lifetime_ns"] == 524_288_000 for t in tasks)
    shown = ryu_ack_priority.effective_settings(standard).set_index("setting")
    assert shown.loc["wlan.msdu_lifetime", "value"] == "524.288 ms"


def test_the_hidden_stations_sweep_takes_the_settings_geometry_runs(tmp_path):
    plan = ryu_ack_priority.QUICK
    sweeps = ryu_ack_priority.more_experiments(plan, {"wlan.queue": 50})
    path = tmp_path / "experiment.toml"
    path.write_text(sweeps["hidden"])
    tasks = load(path).tasks
    assert len(tasks) == 2 * 2 * len(plan.hidden.flows) * plan.hidden.replications
    assert {t.scenario["wlans"][0]["rts_threshold"] for t in tasks} == {None, 0}
    for task in tasks:
        assert task.scenario["wlans"][0]["queue_packets"] == 50
        ap, *stations = task.scenario["positions"]
        assert (ap["x"], ap["y"]) == (0.0, 0.0)
        assert all(abs(math.hypot(p["x"], p["y"]) - 40.0) < 1e-9 for p in stations)
    # A setting a WLAN with geometry does not run leaves the sweep out; the report says why.
    assert ryu_ack_priority.more_experiments(plan, {"wlan.loss": 0.1}) == {}


def test_a_bad_reproduction_setting_is_one_line(tmp_path):
    for bad, fragment in (("nonsense", "expected KEY=VALUE"), ("wlan.msdu_lifetime=0s", "")):
        result = airtcp("reproduce", "ryu-ack-priority", "--quick", "--set", bad,
                        "--out", str(tmp_path / "out"))  # fmt: skip
        assert result.returncode == 2, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and fragment in result.stderr
        assert "wlan.msdu_lifetime" in result.stderr or bad == "nonsense"


def test_a_reproduction_refuses_a_directory_of_another_experiment(tmp_path):
    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    (out / "experiment.json").write_text('{"id": "another"}')
    (out / "runs" / "r.json").write_text('{"experiment": "another", "row": {}, "summary": null}')
    (out / "experiment.toml").write_text("# another experiment\n")
    result = airtcp("reproduce", "mun-mbt", "--quick", "--out", str(out))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{out}: holds the runs of another experiment" in result.stderr
    assert (out / "experiment.toml").read_text() == "# another experiment\n"
    assert sorted(p.name for p in out.rglob("*")) == [
        "experiment.json", "experiment.toml", "r.json", "runs"
    ]  # fmt: skip


def test_quick_reproduction_of_paper_001_from_anywhere(tmp_path):
    out = tmp_path / "park"
    result = airtcp("reproduce", "park-local-ack", "--quick", "--out", str(out), "-q",
                    cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    senders = park_local_ack.SENDERS
    claims_shown(out, result, 9 * len(senders))
    claims = pd.read_csv(out / "claims.csv")
    for label in senders.values():
        assert claims["claim"].str.endswith(f"(with the {label})").sum() == 9
    aggregates = pd.read_csv(out / "aggregates.csv")
    plan = park_local_ack.QUICK
    for column in ("goodput_bps", "timeouts", "retransmissions"):
        assert {column, f"{column}_ci95"} <= set(aggregates.columns)
    points = len(park_local_ack.AGENTS) * len(plan.durations_s)
    assert len(aggregates) == len(senders) * points
    assert not aggregates.duplicated(["sender", "agent", "handoff_duration_s"]).any()
    assert (aggregates["runs"] == plan.replications).all()
    assert set(aggregates["handoff_duration_s"]) == set(plan.durations_s)
    # The paper's mechanism shows in the numbers, not only in the verdicts: the freeze
    # spares the timeouts of a BSD sender and of the one the paper assumes, not Linux's.
    proposed = aggregates[aggregates["agent"] == "snoop_freeze"]
    spared = proposed[proposed["sender"] != "retransmit"]
    assert (spared["timeouts"] == 0).all()
    linux = proposed[(proposed["sender"] == "retransmit") & (proposed["handoff_duration_s"] >= 1)]
    assert (linux["timeouts"] >= 1).all()
    standard = aggregates[(aggregates["agent"] == "none") & (aggregates["handoff_duration_s"] >= 1)]
    assert (standard["timeouts"] >= 2).all()
    assert figures_in_chromium(out / "report.html", tmp_path) == (12, 12)
    series = pd.read_csv(out / "fig3-4.csv")
    assert set(series["agent"]) == set(park_local_ack.AGENTS)
    assert set(series["sender"]) == set(senders)
    assert (series["send_window_bytes"] == 0).any(), "the freeze closes the window"
    settings = pd.read_csv(out / "settings.csv").set_index("setting")
    assert settings.loc["tcp.mss", "value"] == "512"
    assert settings.loc["tcp.zero_window", "value"] == "persist, retransmit, hold (per run)"
    assert settings.loc["link bs1-mh", "value"].startswith("1.5 Mbit/s, 10 ms")
    assert settings.loc["agents.silence", "value"] == "300 ms (mtcp)"
    assert settings["why"].str.len().min() > 10
    again = airtcp("reproduce", "park-local-ack", "--quick", "--out", str(out), cwd=tmp_path)
    runs = len(senders) * points * plan.replications
    assert again.returncode == 0 and f"resuming: {runs} of {runs}" in again.stderr


def test_paper_001_sweep_places_each_agent_and_jitters_the_handoffs(tmp_path):
    path = tmp_path / "experiment.toml"
    plan = park_local_ack.QUICK
    lose = {"mobiles.0.while_detached": "lose"}
    path.write_text(park_local_ack.experiment_toml(plan, park_local_ack.SCENARIO, lose))
    tasks = load(path).tasks
    senders = len(park_local_ack.SENDERS)
    points = len(park_local_ack.AGENTS) * len(plan.durations_s) * plan.replications
    assert len(tasks) == senders * points
    used = {t.scenario["flows"][0]["app"]["tcp"]["zero_window"] for t in tasks}
    assert used == set(park_local_ack.SENDERS)
    by_kind = {}
    for task in tasks:
        agents = task.scenario["agents"]
        by_kind.setdefault(agents[0]["agent"]["kind"], set()).add(
            tuple((a["node"], a["interface"], a["agent"]["kind"]) for a in agents)
        )
        mobile = task.scenario["mobiles"][0]
        assert mobile["handoff_jitter_ns"] == 500_000_000
        assert mobile["while_detached"] == "lose"
    nodes = tasks[0].scenario["nodes"]
    mh, bs1, bs2 = (nodes.index(n) for n in ("mh", "bs1", "bs2"))
    assert by_kind["fast_retransmit"] == {((mh, "bs1", "fast_retransmit"), (bs2, "mh", "none"))}
    assert by_kind["snoop_freeze"] == {((bs1, "mh", "snoop_freeze"), (bs2, "mh", "snoop_freeze"))}
    shown = park_local_ack.effective_settings(lose).set_index("setting")
    assert shown.loc["mobile.while_detached", "value"] == "lose"
    assert shown.loc["simulation.duration", "value"] == "10 s"
    longer = park_local_ack.effective_settings({"simulation.duration": "20s"})
    assert longer.set_index("setting").loc["simulation.duration", "value"] == "20 s"


def test_quick_reproduction_of_paper_001_in_a_wlan(tmp_path):
    out = tmp_path / "park-wlan"
    result = airtcp("reproduce", "park-local-ack-wlan", "--quick", "--out", str(out), "-q",
                    cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    senders = len(park_local_ack.SENDERS)
    assert len(pd.read_csv(out / "claims.csv")) == 9 * senders
    aggregates = pd.read_csv(out / "aggregates.csv")
    plan = park_local_ack_wlan.QUICK
    assert len(aggregates) == senders * len(park_local_ack.AGENTS) * len(plan.durations_s)
    proposed = aggregates[aggregates["agent"] == "snoop_freeze"]
    assert (proposed[proposed["sender"] == "hold"]["timeouts"] == 0).all()
    standard = aggregates[(aggregates["agent"] == "none") & (aggregates["handoff_duration_s"] >= 1)]
    assert (standard["timeouts"] >= 2).all()
    settings = pd.read_csv(out / "settings.csv").set_index("setting")
    assert settings.loc["wlan bs1", "value"].startswith("802.11b 2 Mbit/s")
    assert not any(name.endswith("-mh") for name in settings.index)
    tasks = load(out / "experiment.toml").tasks
    placed = {tuple(a["interface"] for a in t.scenario["agents"]) for t in tasks}
    assert placed == {("wlan", "wlan"), ("bs1", "wlan")}
    assert "an 802.11b BSS" in (out / "report.html").read_text()


def test_quick_reproduction_of_paper_003_from_anywhere(tmp_path):
    out = tmp_path / "ahn"
    result = airtcp("reproduce", "ahn-dar", "--quick", "--out", str(out), "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    claims_shown(out, result, 8)
    aggregates = pd.read_csv(out / "aggregates.csv")
    plan = ahn_dar.QUICK
    assert {"scheme", "uplink_bps", "ber", "throughput_bps", "throughput_bps_ci95"} <= set(
        aggregates.columns
    )
    assert len(aggregates) == len(ahn_dar.SCHEMES) * len(plan.uplinks) * len(plan.bers)
    assert set(aggregates["scheme"]) == set(ahn_dar.SCHEMES)
    assert set(aggregates["uplink_bps"]) == {8000, 16000, 24000}
    assert set(aggregates["ber"]) == {0.0, 1e-7, 1e-6}
    assert (aggregates["runs"] == plan.replications).all()
    # The mechanisms show in the numbers: filtering lifts the slowest uplink, only the
    # regenerators make ACKs, and DAR far fewer than AR.
    at = aggregates.set_index(["scheme", "uplink_bps", "ber"]).sort_index()
    assert (
        at.loc[("af_ar", 8000, 0.0), "throughput_bps"]
        > 2 * at.loc[("normal", 8000, 0.0), "throughput_bps"]
    )
    made = at["regenerated_acks"]
    assert (made.loc["normal"].abs() <= 2).all()
    # Where losses are rare DAR regenerates in slow start only; at 1e-6 every fast
    # recovery resumes it (the paper's rule), and it makes as many as AR.
    dar, ar = made.loc["af_dar"], made.loc["af_ar"]
    rare = dar.index.get_level_values("ber") < 1e-6
    assert rare.sum() == 6 and (dar[rare] < ar[rare] / 2).all()
    assert (at.loc["af_ar", "removed_acks"] > 500).all()
    assert (at.loc["af_ar", "removed_acks"] > at.loc["normal", "removed_acks"] + 500).all()
    assert figures_in_chromium(out / "report.html", tmp_path) == (2, 2)
    series = pd.read_csv(out / "fig5.csv")
    assert set(series["scheme"]) == set(ahn_dar.SCHEMES)
    settings = pd.read_csv(out / "settings.csv").set_index("setting")
    assert settings.loc["link r1-r2 downlink", "value"].startswith("2 Mbit/s, 20 ms")
    assert settings.loc["tcp.mss", "value"] == "1000"
    assert settings.loc["tcp.delayed_ack", "value"] == "true"  # as a scenario file writes it
    assert settings["why"].str.len().min() > 10
    again = airtcp("reproduce", "ahn-dar", "--quick", "--out", str(out), cwd=tmp_path)
    assert again.returncode == 0 and "resuming: 225 of 225" in again.stderr


def test_paper_003_sweep_places_each_scheme_at_both_routers(tmp_path):
    path = tmp_path / "experiment.toml"
    plan = ahn_dar.QUICK
    faster = {"links.1.a_to_b.rate": "4Mbps"}
    path.write_text(ahn_dar.experiment_toml(plan, ahn_dar.SCENARIO, faster))
    tasks = load(path).tasks
    assert len(tasks) == len(ahn_dar.SCHEMES) * 9 * plan.replications
    nodes = tasks[0].scenario["nodes"]
    r1, r2 = nodes.index("r1"), nodes.index("r2")
    placed = set()
    for task in tasks:
        near, far = task.scenario["agents"]
        assert (near["node"], near["interface"], far["node"], far["interface"]) == (
            r2,
            "r1",
            r1,
            "r2",
        )
        placed.add((near["agent"]["kind"], far["agent"]["kind"]))
        link = task.scenario["links"][1]
        assert link["a_to_b"]["rate_bps"] == 4_000_000
        assert link["a_to_b"]["errors"]["ber"] == link["b_to_a"]["errors"]["ber"]
        assert link["b_to_a"]["rate_bps"] in (8000, 16000, 24000)
    assert placed == set(ahn_dar.SCHEMES.values())
    shown = ahn_dar.effective_settings(faster).set_index("setting")
    assert shown.loc["link r1-r2 downlink", "value"].startswith("4 Mbit/s")


def test_quick_reproduction_of_paper_002_from_anywhere(tmp_path):
    out = tmp_path / "mun"
    result = airtcp("reproduce", "mun-mbt", "--quick", "--out", str(out), "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    plan = mun_mbt.QUICK
    # One MBT row per RTT of the paper's and loss setting, and five more.
    claims_shown(out, result, 5 + len(mun_mbt.PAPER_MBT_KB) * len(mun_mbt.LOSSES))
    table = pd.read_csv(out / "table2.csv")
    assert len(table) == len(plan.rtts_ms) * len(mun_mbt.LOSSES)
    # Without loss the MBT grows with the RTT (the bandwidth-delay product), and a 16 KiB
    # window holds the goodput to about 16 KiB per round trip at 20 ms.
    clean = table[table["loss"] == 0].set_index("rtt_ms")
    assert list(clean["mbt_kib"]) == sorted(clean["mbt_kib"])
    assert clean.loc[20.0, "16KiB avg"] < 16 * 1024 * 8 / 0.02 / 1e6
    html = (out / "report.html").read_text()
    assert "sysctl -w net.core.rmem_max=" in html
    assert re.search(r'data-figures="(\d+)"', html).group(1) == "4"  # Figs 2, 3, 4, Table 2
    again = airtcp("reproduce", "mun-mbt", "--quick", "--out", str(out), cwd=tmp_path)
    assert again.returncode == 0 and "resuming: 300 of 300" in again.stderr
    assert figures_in_chromium(out / "report.html", tmp_path) == (4, 4)


def test_quick_reproduction_of_paper_004_from_anywhere(tmp_path):
    out = tmp_path / "han"
    result = airtcp("reproduce", "han-mesh", "--quick", "--out", str(out), "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    claims_shown(out, result, 14)
    claims = pd.read_csv(out / "claims.csv", keep_default_na=False)
    assert list(claims["verdict"])[:2] == ["calibrated", "calibrated"]
    assert claims["verdict"].iloc[-1] == "beyond the paper"
    probed = pd.read_csv(out / "paths.csv")
    assert set(probed["wireless"]) == set(han_mesh.PROBED)
    for _, paths in probed.groupby("wireless"):
        paths = paths.set_index("segment")
        assert list(paths.index) == [1, 2, 3, 4, 5]
        assert 190 < paths.loc[5, "rtt_avg_ms"] < 200 and paths.loc[1, "rtt_avg_ms"] < 3
        assert paths.loc[2, "capacity_mbps"] == pytest.approx(60, rel=0.02)
    capacity = probed.set_index(["wireless", "segment"])["capacity_mbps"]
    # Two hops on one channel, with collisions and Minstrel's rates, carry far less than two
    # channels at 54 Mbit/s.
    assert capacity["shared channel", 1] < 0.6 * capacity["ideal", 1]
    tcp = pd.read_csv(out / "tcp.csv")
    assert len(tcp) == 3 * len(han_mesh.VARIANTS) * 2 * len(han_mesh.WIRELESS)
    assert (tcp["runs"] == han_mesh.QUICK.replications).all()
    # A 16 KiB window caps every variant at about 16 KiB per 194 ms round trip.
    small = tcp[(tcp["window"] == "16KiB") & (tcp["segment"] == 5)]
    assert (small["goodput_mbps"] < 16 * 1024 * 8 / 0.192 / 1e6).all()
    # The shared channel's loss costs Reno's 2 MiB window most of the ideal meshes' goodput.
    reno = tcp[(tcp["window"] == "2MiB") & (tcp["variant"] == "reno") & (tcp["segment"] == 5)]
    by_model = reno.set_index("wireless")["goodput_mbps"]
    assert by_model["shared channel"] < 0.5 * by_model["ideal"]
    assert figures_in_chromium(out / "report.html", tmp_path) == (7, 7)
