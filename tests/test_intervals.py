"""Per-interval reports (``airtcp run --interval``, `airtcp.analysis.intervals`): samples
gathered by hand, the whole run's bytes in the intervals' sum, and a bad interval as one line."""

import airtcp as api
import pandas as pd
import pytest
from airtcp.analysis.intervals import intervals
from conftest import airtcp
from test_bad_input import assert_one_line_error


def test_samples_gather_into_intervals_by_hand():
    # Two flows, samples every 0.5 s; intervals of 1 s take two samples each.
    series = pd.DataFrame(
        {
            "flow": pd.Categorical(["a", "a", "a", "a", "b", "b"], categories=["a", "b"]),
            "time_s": [0.5, 1.0, 1.5, 2.0, 0.5, 1.0],
            "goodput_bps": [8e6, 16e6, 0.0, 8e6, 4e6, 4e6],
            "cwnd_bytes": [10, 20, 30, 40, 50, 60],
            "srtt_ms": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
    rows = intervals(series, 1.0, 0.5)
    assert [(r.flow, r.start_s, r.end_s) for r in rows] == [
        ("a", 0.0, 1.0),
        ("a", 1.0, 2.0),
        ("b", 0.0, 1.0),
    ]
    # 0.5 s at 8 and at 16 Mbit/s: 0.5 + 1 MB, 12 Mbit/s over the second.
    assert rows[0].bytes == 1.5e6 and rows[0].bitrate_bps == 12e6
    assert (rows[0].cwnd_bytes, rows[0].srtt_ms) == (20, 2.0), "the interval's last sample"
    assert rows[1].bytes == 0.5e6
    with pytest.raises(ValueError, match="whole number"):
        intervals(series, 0.75, 0.5)


def test_the_intervals_add_up_to_the_run():
    overrides = {"simulation.duration": "6s", "simulation.measure_from": "0s"}
    result = api.run("wired-tcp", overrides=overrides, timeseries=True)
    rows = intervals(result.timeseries, 1.0, 0.1)
    assert len(rows) == 6
    total = sum(r.bytes for r in rows)
    assert total == pytest.approx(result.summary["flows"][0]["bytes_delivered"], rel=1e-9)


def test_the_cli_prints_intervals_and_refuses_a_bad_one():
    args = ["run", "wired-tcp", "--set", "simulation.duration=4s"]
    args += ["--set", "simulation.measure_from=1s"]
    result = airtcp(*args, "-i", "1")
    assert result.returncode == 0, result.stderr
    assert "per interval (as iperf3 -i)" in result.stdout and "3-4" in result.stdout
    assert_one_line_error(airtcp(*args, "--interval", "0.25"), "--interval", "whole number")
    assert_one_line_error(airtcp(*args, "--interval", "0"), "--interval", "positive")
