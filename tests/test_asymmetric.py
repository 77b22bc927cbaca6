"""The asymmetric-link scenario of paper 003 as a user meets it: the agents' counters in the
printed summary, DAR's fast_recovery setting, and one-line errors for misused settings."""

import airtcp
from conftest import airtcp as cli

SCHEME = ("--set", "agents.0.kind=af", "--set", "agents.1.kind=dar")


def test_the_printed_summary_shows_what_the_agents_did():
    result = cli("run", "ahn-asymmetric", *SCHEME, "--set", "simulation.duration=10s")
    assert result.returncode == 0, result.stderr
    assert "agent af on r2 → r1: filtered_acks" in result.stdout
    assert "agent dar on r1 → r2: late_acks 0" in result.stdout
    assert "regenerated_acks" in result.stdout


def test_the_papers_dar_resumes_at_fast_retransmits_and_pass_keeps_out():
    overrides = {"agents.0.kind": "af", "agents.1.kind": "dar", "links.1.b_to_a.rate": "24kbps"}
    literal = airtcp.run("ahn-asymmetric", overrides=overrides, timeseries=False).summary
    kept_out = airtcp.run(
        "ahn-asymmetric",
        overrides={**overrides, "agents.1.fast_recovery": "pass"},
        timeseries=False,
    ).summary
    assert literal["flows"][0]["retransmissions"] > 3 * kept_out["flows"][0]["retransmissions"]
    resumes = [
        next(a["counters"]["regeneration_resumes"] for a in s["agents"] if a["kind"] == "dar")
        for s in (kept_out, literal)
    ]
    assert resumes[1] > resumes[0]


def test_fast_recovery_errors_name_the_users_key():
    cases = {
        ("agents.1.fast_recovery=regenerate",): "agents[1].fast_recovery: applies to dar, "
        "not to none",
        ("agents.1.kind=dar", "agents.1.fast_recovery=sometimes"): "agents.1.fast_recovery",
    }
    for settings, expected in cases.items():
        result = cli("validate", "ahn-asymmetric", *(a for s in settings for a in ("--set", s)))
        assert result.returncode == 2, (settings, result.stdout)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert expected in result.stderr, (settings, result.stderr)
    ok = cli("validate", "ahn-asymmetric", "--set", "agents.1.kind=dar",
             "--set", "agents.1.fast_recovery=pass")  # fmt: skip
    assert ok.returncode == 0, ok.stderr
