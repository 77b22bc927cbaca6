"""BBR (docs/tcp.md, "BBR") from a scenario: the name reaches the simulator, the built-in
`bufferbloat` shows BBR's short queue beside CUBIC's full buffer, and a profile without
RACK-TLP and SACK is one line naming the key."""

from pathlib import Path

import airtcp as api
from airtcp import _core
from airtcp.measure.path import rtt_stats
from conftest import airtcp
from test_bad_input import BASE, assert_one_line_error

SHORT = {"simulation.duration": "12s", "simulation.measure_from": "4s", "flows.2.start": "4s"}


def ping_and_goodput(congestion_control: str) -> tuple[float, float, dict]:
    overrides = SHORT | {"tcp.congestion_control": congestion_control}
    summary = api.run("bufferbloat", overrides=overrides).summary
    probes = summary["flows"][2]["probes"]
    return (
        rtt_stats(probes["sent_ns"], probes["returned_ns"]).avg_ms,
        summary["aggregate_goodput_bps"],
        summary,
    )


def test_bbr_keeps_the_link_busy_with_a_fraction_of_cubics_queue():
    assert "bbr" in _core.congestion_controls()
    bbr_ping, bbr_goodput, bbr = ping_and_goodput("bbr")
    cubic_ping, cubic_goodput, _ = ping_and_goodput("cubic")
    # 40 ms of base RTT; two BBR v1 flows keep about a BDP or so queued (each one's cwnd is
    # two BDPs of its own estimate), CUBIC fills the 1000-packet buffer.
    assert bbr_goodput > 9e6 and cubic_goodput > 9e6
    assert 40 < bbr_ping < 150 and cubic_ping > 300, (bbr_ping, cubic_ping)
    assert bbr["links"][0]["queue_drops"] == 0


def test_bbr_without_rack_tlp_is_one_line_naming_the_key(tmp_path: Path):
    path = tmp_path / "s.toml"
    path.write_text(BASE.replace("[[links]]", '[tcp]\ncongestion_control = "bbr"\n\n[[links]]'))
    assert_one_line_error(
        airtcp("validate", str(path)), "tcp.congestion_control", "rack_tlp", "linux profile"
    )
