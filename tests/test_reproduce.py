"""`airtcp reproduce ryu-ack-priority --quick` (the headline job's engine) runs in CI."""

import re
from html import escape as html_escape

import pandas as pd
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
    again = airtcp("reproduce", "ryu-ack-priority", "--quick", "--out", str(out))
    assert again.returncode == 0 and "resuming: 275 of 275" in again.stderr


def test_unknown_reproduction_is_one_line():
    result = airtcp("reproduce", "nope")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "ryu-ack-priority" in result.stderr
