"""A TCP sender's recovery counters in the run summary (docs/summary.md): rescue
retransmissions under RFC 6675, loss probes under RACK-TLP, ECN reductions; and
`tcp.syn_loss_window` reaching the simulator only when set. (The mechanisms themselves are
checked on scripted losses in crates/airtcp-proto/tests: rack_tlp.rs, tcp_pair.rs.)"""

import json
from pathlib import Path

import airtcp as api
from airtcp import _core
from airtcp.emulation.kernel import plan
from airtcp.scenario.resolve import resolve
from airtcp.scenario.schema import load
from conftest import airtcp
from test_bad_input import BASE, assert_one_line_error

PIE = {"links.0.aqm": "pie"}
COUNTERS = ("rescue_retransmissions", "loss_probes", "undos", "ecn_reductions")


def bulk_flows(overrides: dict) -> list[dict]:
    run = api.run("bufferbloat", overrides=overrides)
    return [flow for flow in run.summary["flows"] if flow["kind"] == "tcp_bulk"]


def test_rfc6675_rescues_and_rack_tlp_probes():
    # PIE drops the retransmissions of the flows' first slow start (docs/scenarios.md,
    # "AQM"): RFC 6675 rescues a tail once; RACK-TLP would probe instead.
    rfc = bulk_flows(PIE | {"tcp.loss_recovery": "rfc6675"})
    assert sum(flow["rescue_retransmissions"] for flow in rfc) >= 1
    assert all(flow["loss_probes"] == 0 for flow in rfc)
    rack = bulk_flows({"links.0.aqm": "codel"})
    assert all(flow["rescue_retransmissions"] == 0 for flow in rack)
    # (Their probes: test_a_workload_sums_its_connections_probes.)
    assert all(set(COUNTERS) <= flow.keys() for flow in rfc + rack)
    ping = api.run("bufferbloat", overrides=PIE).summary["flows"][2]
    assert ping["kind"] == "ping" and all(ping[key] == 0 for key in COUNTERS)


def test_a_workload_sums_its_connections_probes():
    # short-flows' transfers lose their tails behind DropTail now and then: RACK-TLP's
    # probes, summed over the workload's connections, closed and open.
    flow = api.run("short-flows", overrides={"simulation.duration": "30s"}).summary["flows"][0]
    assert flow["kind"] == "tcp_workload" and flow["loss_probes"] > 0, flow
    assert flow["rescue_retransmissions"] == 0, "RACK-TLP sends no rescue"


def test_reductions_undone_reach_the_summary():
    # Uploads through a slow 802.11 station's BSS with the linux profile: some of their
    # window reductions prove spurious (D-SACK or timestamps) and are undone.
    overrides = {"tcp.profile": "linux", "simulation.duration": "10s"}
    flows = api.run("rate-anomaly", overrides=overrides).summary["flows"]
    assert sum(flow["undos"] for flow in flows) >= 1, flows


def test_ecn_reductions_are_counted_where_codel_marks():
    marked = bulk_flows({"links.0.aqm": {"kind": "codel", "ecn": True}, "tcp.ecn": "on"})
    assert all(flow["ecn_reductions"] > 0 for flow in marked), marked
    assert all(flow["ecn_reductions"] == 0 for flow in bulk_flows({"links.0.aqm": "codel"}))


def test_syn_loss_window_reaches_the_simulator_only_when_set():
    flow = resolve(load("bufferbloat"))[0]["flows"][0]
    assert "syn_loss_window" not in flow["app"]["tcp"]
    resolved = api.prepare("bufferbloat", overrides={"tcp.syn_loss_window": "rfc5681"})
    assert resolved["flows"][0]["app"]["tcp"]["syn_loss_window"] == "rfc5681"
    effective = json.loads(_core.effective_settings(json.dumps(resolved)))
    rows = plan(resolved, effective).flows["bulk1"].rows
    assert ("syn_loss_window", "rfc5681") in [row[:2] for row in rows], "stated in emulation"
    linux = json.loads(_core.effective_settings(json.dumps(api.prepare("bufferbloat"))))
    assert linux["flows"][0]["tcp"]["syn_loss_window"] == "linux", "the linux profile's"


def test_a_bad_syn_loss_window_is_one_line_naming_the_key(tmp_path: Path):
    scenario = tmp_path / "bad.toml"
    scenario.write_text(BASE + '\n[tcp]\nsyn_loss_window = "bsd"\n')
    assert_one_line_error(airtcp("run", str(scenario)), "syn_loss_window")
