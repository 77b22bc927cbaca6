"""`airtcp reproduce ryu-ack-priority --quick` (the headline job's engine) runs in CI."""

import re
from html import escape as html_escape

import pandas as pd
from airtcp.experiment import load
from airtcp.reproductions import ryu_ack_priority
from conftest import airtcp


def test_quick_reproduction_of_paper_000(tmp_path):
    out = tmp_path / "ryu"
    result = airtcp("reproduce", "ryu-ack-priority", "--quick", "--out", str(out), "-q")
    assert result.returncode == 0, result.stderr
    assert "report:" in result.stdout
    claims = pd.read_csv(out / "claims.csv", keep_default_na=False)
    assert len(claims) >= 8
    assert set(claims["verdict"]) <= {"agrees", "partly", "differs"}
    assert (claims.loc[claims["verdict"] != "agrees", "why"].str.len() > 20).all(), (
        "differences explained"
    )
    assert claims["rule"].str.startswith("agrees if").all()
    html = (out / "report.html").read_text()
    for rule in claims["rule"]:
        assert html_escape(rule, quote=False) in html, rule
        assert rule in result.stdout, "the CLI prints each rule with its verdict"
    aggregates = pd.read_csv(out / "aggregates.csv")
    assert set(aggregates["agent"]) == {
        "dcf",
        "ack_priority",
        "txop_burst",
        "ack_aggregation",
        "adaptive",
    }
    assert (aggregates["runs"] == 5).all()
    assert int(re.search(r'data-figures="(\d+)"', html).group(1)) == 5
    settings = pd.read_csv(out / "settings.csv").set_index("setting")
    assert settings.loc["wlan.msdu_lifetime", "value"] == "524.288 ms"
    assert settings.loc["tcp.mss", "value"] == "1024"
    assert settings["why"].str.len().min() > 10
    assert "MAC and TCP settings of every run" in html
    again = airtcp("reproduce", "ryu-ack-priority", "--quick", "--out", str(out))
    assert again.returncode == 0 and "resuming: 275 of 275" in again.stderr


def test_unknown_reproduction_is_one_line():
    result = airtcp("reproduce", "nope")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "ryu-ack-priority" in result.stderr


def test_settings_change_every_point_of_a_reproduction(tmp_path):
    off = {"wlan.msdu_lifetime": "off"}
    path = tmp_path / "experiment.toml"
    plan = ryu_ack_priority.QUICK
    path.write_text(ryu_ack_priority.experiment_toml(plan, ryu_ack_priority.SCENARIO, off))
    tasks = load(path).tasks
    assert len(tasks) == 5 * len(plan.flows) * plan.replications
    assert all(t.scenario["wlans"][0]["msdu_lifetime_ns"] is None for t in tasks)
    shown = ryu_ack_priority.effective_settings(off).set_index("setting")
    assert shown.loc["wlan.msdu_lifetime", "value"] == "off"


def test_a_bad_reproduction_setting_is_one_line(tmp_path):
    for bad, fragment in (("nonsense", "expected KEY=VALUE"), ("wlan.msdu_lifetime=0s", "")):
        result = airtcp("reproduce", "ryu-ack-priority", "--quick", "--set", bad,
                        "--out", str(tmp_path / "out"))  # fmt: skip
        assert result.returncode == 2, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and fragment in result.stderr
        assert "wlan.msdu_lifetime" in result.stderr or bad == "nonsense"
