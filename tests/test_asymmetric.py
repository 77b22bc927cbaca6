"""The asymmetric-link scenario of paper 003 as a user meets it: the agents' counters in the
printed summary, DAR's fast_recovery setting, one-line errors for misused settings, and
agents thrown anywhere (an error in the user's keys, or a run that delivers)."""

import airtcp
from airtcp.scenario.schema import ScenarioError
from conftest import airtcp as cli
from hypothesis import given, settings
from hypothesis import strategies as st

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
    for sets, expected in cases.items():
        result = cli("validate", "ahn-asymmetric", *(a for s in sets for a in ("--set", s)))
        assert result.returncode == 2, (sets, result.stdout)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert expected in result.stderr, (sets, result.stderr)
    ok = cli("validate", "ahn-asymmetric", "--set", "agents.1.kind=dar",
             "--set", "agents.1.fast_recovery=pass")  # fmt: skip
    assert ok.returncode == 0, ok.stderr


KINDS = ["none", "af", "ar", "acc", "dar", "snoop", "ack_priority"]


@settings(max_examples=60, deadline=None)
@given(
    near=st.sampled_from(KINDS),
    far=st.sampled_from(KINDS),
    interface=st.sampled_from(["r2", "r1", "sender", "wlan", None]),
    fast_recovery=st.sampled_from([None, "pass", "regenerate", "sometimes"]),
    ber=st.sampled_from([0.0, 1e-6, 1e-5]),
)
def test_any_placement_and_setting_is_an_error_in_the_users_keys_or_a_run(
    near, far, interface, fast_recovery, ber
):
    """Agents thrown anywhere on the asymmetric scenario: one error naming the agents' key,
    or a run whose download delivers."""
    overrides = {"agents.0.kind": near, "agents.1.kind": far, "links.1.ber": ber,
                 "simulation.duration": "5s"}  # fmt: skip
    if interface is not None:
        overrides["agents.1.interface"] = interface
    if fast_recovery is not None:
        overrides["agents.1.fast_recovery"] = fast_recovery
    try:
        summary = airtcp.run("ahn-asymmetric", overrides=overrides, timeseries=False).summary
    except ScenarioError as error:
        assert error.key.startswith("agents"), error
        return
    assert far == "dar" or fast_recovery is None
    assert summary["flows"][0]["bytes_delivered"] > 0
