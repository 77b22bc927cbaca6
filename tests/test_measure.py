"""Path measurement: the analysis by hand, and `airtcp measure` against paths whose RTT,
capacity and window limit are known."""

import json
import math

import pytest
from airtcp.analysis.ping import rtt_stats
from airtcp.measure.path import capacity, measure
from airtcp.scenario.schema import ScenarioError
from conftest import airtcp


def test_rtt_statistics_as_ping_prints_them():
    ms = 1_000_000
    stats = rtt_stats([0, 1000 * ms, 2000 * ms, 3000 * ms], [10 * ms, None, 2030 * ms, 3020 * ms])
    assert (stats.transmitted, stats.received, stats.loss) == (4, 3, 0.25)
    assert (stats.min_ms, stats.avg_ms, stats.max_ms) == (10.0, 20.0, 30.0)
    # mdev = sqrt(mean(x^2) - mean(x)^2) = sqrt((100 + 900 + 400) / 3 - 400)
    assert stats.mdev_ms == pytest.approx(math.sqrt(1400 / 3 - 400))
    assert rtt_stats([0], [None]).min_ms is None


def test_capacity_is_the_median_of_train_dispersions_and_skips_trains_with_a_loss():
    # Three trains of 4 x 1500 B; 1.2 ms apart is 10 Mbit/s, 0.6 ms 20, 2.4 ms 5.
    us = 1000
    arrivals = [0, 1200 * us, 2400 * us, 3600 * us]
    arrivals += [t + 10**9 for t in (0, 600 * us, 1200 * us, 1800 * us)]
    arrivals += [2 * 10**9, None, 2 * 10**9 + 4800 * us, 2 * 10**9 + 7200 * us]
    estimate = capacity(arrivals, 4, 1500)
    assert estimate.trains == 2
    assert estimate.estimates_bps == pytest.approx([10e6, 20e6])
    assert estimate.bps == pytest.approx(15e6)
    with pytest.raises(ValueError, match="at least 2"):
        capacity(arrivals, 1, 1500)


def test_a_wired_path_measures_as_its_links_say():
    # wired-tcp: 10 Mbit/s, 20 ms each way: RTT 40 ms plus 2 x 67.2 us for 84-byte pings.
    result = measure("wired-tcp", "client", "server", tcp="cubic", window=16 << 10, count=5)
    assert result["rtt"]["min_ms"] == pytest.approx(40.1344)
    assert result["rtt"]["loss"] == 0
    assert result["capacity"]["bps"] == pytest.approx(10e6, rel=1e-3)
    # 16 KiB of 1460-byte segments a round trip at most.
    cap = 16 * 1024 * 8 / 0.0401
    assert 0.8 * cap < result["tcp"]["goodput_bps"] <= cap


def test_a_window_is_a_socket_buffer_that_linux_does_not_autotune():
    # bufferbloat runs the linux profile, whose receive buffer autotunes; iperf3 -w sets
    # SO_RCVBUF, which does not: 16 KiB is the window (with autotuning it would be the
    # buffer's ceiling and offer half of it).
    result = measure("bufferbloat", "client", "server", rtt=False, tcp="cubic",
                     window=16 << 10, count=5)  # fmt: skip
    cap = 16 * 1024 * 8 / 0.0401
    assert 0.8 * cap < result["tcp"]["goodput_bps"] <= cap


def test_the_narrow_link_of_a_wlan_path_and_cross_traffic():
    alone = measure("ryu-upload", "sta1", "srv1", rtt=False, tcp=None, count=10,
                    overrides=["wlan.stations=3"])  # fmt: skip
    busy = measure("ryu-upload", "sta1", "srv1", rtt=False, tcp=None, count=10,
                   overrides=["wlan.stations=3"], keep_flows=True)  # fmt: skip
    # 802.11b at 11 Mbit/s carries about 6 Mbit/s of 1500-byte frames; with two other
    # stations uploading, trains are spread by their frames.
    assert 5e6 < alone["capacity"]["bps"] < 7e6
    assert busy["capacity"]["bps"] < 0.8 * alone["capacity"]["bps"]


def test_a_train_to_the_ap_is_not_slowed_by_its_own_answers():
    # 802.11g at 54 Mbit/s: a 1500-byte frame with DIFS, mean backoff, SIFS and ACK takes
    # about 0.38 ms (31 Mbit/s); echo replies from the AP would halve that.
    result = measure("mun-mbt", "host", "ap", rtt=False, tcp=None, count=10)
    assert 25e6 < result["capacity"]["bps"] < 33e6


def test_unknown_end_points_are_named():
    with pytest.raises(ScenarioError, match="--from: unknown node 'nope'"):
        measure("wired-tcp", "nope", "server")


def test_the_cli_prints_json_and_refuses_bad_options():
    result = airtcp("measure", "wired-tcp", "--from", "client", "--to", "server", "--rtt",
                    "--count", "3", "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {"scenario", "from", "to", "rtt"}
    for args, message in [
        (["--tcp", "vegas"], "--tcp: unknown 'vegas'"),
        (["--tcp", "reno", "--window", "lots"], "--window:"),
        (["--train", "1"], "--train: expected 2..1000"),
        (["--rtt", "--window", "16KiB"], "--window: applies to --tcp"),
    ]:
        bad = airtcp("measure", "wired-tcp", "--from", "client", "--to", "server", *args)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr
        assert "Traceback" not in bad.stderr
