"""AQM on wired links (docs/scenarios.md, "AQM"): the `aqm` key of a link or a direction
reaches the simulator only when set, the built-in `bufferbloat` scenario shows DropTail,
CoDel and FQ-CoDel side by side, and bad settings are one line naming the key."""

from pathlib import Path

import airtcp as api
import pytest
from airtcp import _core
from airtcp.analysis.ping import rtt_stats
from airtcp.scenario.resolve import resolve
from airtcp.scenario.schema import load
from conftest import airtcp
from test_bad_input import BASE, assert_one_line_error

SHORT = {"simulation.duration": "12s", "simulation.measure_from": "4s", "flows.2.start": "4s"}


def with_link(tmp_path: Path, lines: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(BASE.replace('delay = "5ms"', f'delay = "5ms"\n{lines}'))
    return path


def test_the_aqm_reaches_the_simulator_only_when_set(tmp_path: Path):
    assert _core.link_aqms() == ["none", "codel", "fq_codel", "pie", "red"]
    plain = resolve(load(with_link(tmp_path, "")))[0]["links"][0]
    assert "aqm" not in plain["a_to_b"] and "aqm" not in plain["b_to_a"]
    both = resolve(load(with_link(tmp_path, 'aqm = "codel"')))[0]["links"][0]
    assert both["a_to_b"]["aqm"] == both["b_to_a"]["aqm"] == {"kind": "codel"}
    lines = 'aqm = "codel"\nb_to_a = {aqm = {kind = "fq_codel", target = "2ms", quantum = 300}}'
    one = resolve(load(with_link(tmp_path, lines)))[0]["links"][0]
    assert one["a_to_b"]["aqm"] == {"kind": "codel"}
    assert one["b_to_a"]["aqm"] == {"kind": "fq_codel", "target_ns": 2_000_000, "quantum": 300}
    pie = resolve(load(with_link(tmp_path, 'aqm = {kind = "pie", tupdate = "30ms", beta = 10}')))
    assert pie[0]["links"][0]["a_to_b"]["aqm"] == {
        "kind": "pie",
        "tupdate_ns": 30_000_000,
        "beta": 10,
    }
    marking = resolve(load(with_link(tmp_path, 'aqm = {kind = "codel", ecn = true}')))
    assert marking[0]["links"][0]["a_to_b"]["aqm"] == {"kind": "codel", "ecn": True}


def test_with_ecn_agreed_codel_marks_the_bulk_flows_instead_of_dropping():
    # Both ends ask for ECN (`tcp.ecn = "on"`): CoDel marks where it dropped; nothing is
    # sent twice; the ping, not ECN-capable, keeps its RTT near CoDel's target.
    overrides = SHORT | {"links.0.aqm": {"kind": "codel", "ecn": True}, "tcp.ecn": "on"}
    summary = api.run("bufferbloat", overrides=overrides).summary
    link = summary["links"][0]
    assert link["ecn_marks"] > 20 and link["aqm_drops"] <= 2 and link["queue_drops"] == 0
    assert sum(flow["retransmissions"] for flow in summary["flows"][:2]) == 0
    probes = summary["flows"][2]["probes"]
    assert rtt_stats(probes["sent_ns"], probes["returned_ns"]).avg_ms < 55


def ping_rtt_ms(aqm: str) -> tuple[float, dict]:
    summary = api.run("bufferbloat", overrides=SHORT | {"links.0.aqm": aqm}).summary
    probes = summary["flows"][2]["probes"]
    return rtt_stats(probes["sent_ns"], probes["returned_ns"]).avg_ms, summary


def test_bufferbloat_shows_what_each_queue_does_to_a_ping_beside_bulk_tcp():
    # 40 ms of base RTT: DropTail adds the full buffer's wait, CoDel about its 5 ms target,
    # PIE its 15 ms, FQ-CoDel almost nothing (the ping is a sparse flow); each keeps the
    # link busy.
    droptail, fifo = ping_rtt_ms("none")
    codel, managed = ping_rtt_ms("codel")
    fq, fair = ping_rtt_ms("fq_codel")
    pie, early = ping_rtt_ms("pie")
    assert droptail > 300 and 41 < codel < 60 and fq < 43, (droptail, codel, fq)
    assert 45 < pie < 75, pie
    link = [s["links"][0] for s in (fifo, managed, fair, early)]
    assert [entry["aqm_drops"] > 0 for entry in link] == [False, True, True, True]
    for summary in (fifo, managed, fair, early):
        assert summary["aggregate_goodput_bps"] > 9e6


@pytest.mark.parametrize(
    ("lines", "fragments"),
    [
        ('aqm = "blue"', ("links[0].aqm.kind", "red")),
        ('aqm = {kind = "red", min = "200KiB", max = "100KiB"}', ("links[0].aqm", "below max")),
        ('aqm = {kind = "red", probability = 2}', ("links[0].aqm.probability",)),
        ('aqm = {kind = "red", target = "5ms"}', ("links[0].aqm", "target", "red")),
        ('aqm = {kind = "pie", alpha = 40}', ("links[0].aqm.alpha", "32")),
        ('aqm = {kind = "pie", interval = "10ms"}', ("links[0].aqm", "interval", "pie")),
        ('aqm = {kind = "codel", quantum = 300}', ("links[0].aqm", "quantum", "codel")),
        ('aqm = {kind = "none", ecn = true}', ("links[0].aqm", "ecn", "none")),
        ('aqm = {kind = "codel", ecn = "maybe"}', ("links[0].aqm.ecn", "bool")),
        ('aqm = {kind = "codel", interval = "20s"}', ("links[0].aqm.interval", "10 s")),
        ('aqm = {kind = "fq_codel", flows = 100000}', ("links[0].aqm.flows", "65536")),
        ('aqm = "fq_codel"\nqueue = "64KiB"', ("links[0].queue", "packets")),
        (
            'aqm = "fq_codel"\n\n[[agents]]\nnode = "h1"\nkind = "snoop"',
            ("agents[0].kind", "fq_codel", "codel"),
        ),
    ],
)
def test_bad_aqm_settings_are_one_line_naming_the_key(
    tmp_path: Path, lines: str, fragments: tuple[str, ...]
):
    assert_one_line_error(airtcp("validate", str(with_link(tmp_path, lines))), *fragments)
