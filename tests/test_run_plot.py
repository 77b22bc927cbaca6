"""One run at a glance (``airtcp plot``, ``airtcp run --plot``): a PNG or SVG of each TCP
flow's cwnd, RTT and goodput, written beside the run; errors in one line."""

from pathlib import Path

from conftest import airtcp
from test_bad_input import assert_one_line_error

SHORT = ["--set", "simulation.duration=4s", "--set", "simulation.measure_from=1s"]
SHORT += ["--set", "flows.2.start=1s"]


def test_run_plot_and_plot_write_png_and_svg_beside_the_run(tmp_path: Path):
    out = tmp_path / "run"
    result = airtcp("run", "bufferbloat", *SHORT, "--out", str(out), "--plot")
    assert result.returncode == 0, result.stderr
    png = out / "run.png"
    assert f"plot in {png}" in result.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    result = airtcp("plot", str(out), "--format", "svg", "--out", str(tmp_path / "a.svg"))
    assert result.returncode == 0, result.stderr
    svg = (tmp_path / "a.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "bulk1" in svg and "bulk2" in svg
    assert not list(out.glob(".*.tmp")), "no temporary left"


def test_plot_errors_are_one_line(tmp_path: Path):
    assert_one_line_error(airtcp("plot", str(tmp_path)), "no summary.json", "--out")
    assert_one_line_error(airtcp("run", "bufferbloat", *SHORT, "--plot"), "--plot", "--out")
    out = tmp_path / "run"
    assert airtcp("run", "bufferbloat", *SHORT, "--out", str(out)).returncode == 0
    assert_one_line_error(airtcp("plot", str(out), "--format", "gif"), "--format", "png")


def test_the_queue_series_is_kept_written_and_drawn(tmp_path: Path):
    import airtcp as api
    import pandas as pd

    overrides = {
        "simulation.duration": "6s",
        "simulation.measure_from": "1s",
        "flows.2.start": "1s",
        "links.0.aqm": "codel",
    }
    result = api.run("bufferbloat", overrides=overrides)
    queues = result.queues
    assert list(queues["direction"].cat.categories) == ["client→server", "server→client"]
    assert list(queues.columns) == ["direction", "time_s", "packets", "bytes", "drops", "ecn_marks"]
    forward = queues[queues["direction"] == "client→server"]
    assert len(forward) == 60 and forward["packets"].max() > 0
    assert forward["drops"].is_monotonic_increasing
    result.write(tmp_path / "run")
    written = pd.read_parquet(tmp_path / "run" / "queues.parquet")
    assert written["packets"].tolist() == queues["packets"].tolist()
    result = airtcp("plot", str(tmp_path / "run"), "--format", "svg")
    assert result.returncode == 0, result.stderr
    assert "client→server" in (tmp_path / "run" / "run.svg").read_text()


def test_macs_are_drawn_and_many_lines_keep_to_eight(tmp_path: Path):
    """A WLAN with geometry adds each MAC's data rate and failed attempts; beyond eight lines
    a panel draws the seven highest and the rest as a median with its range."""
    out = tmp_path / "run"
    settings = ["wlan.stations=10", 'wlan.layout={shape="circle", radius=20.0}',
                "wlan.rate_control=minstrel", "simulation.duration=4s",
                "simulation.measure_from=1s"]  # fmt: skip
    sets = [word for setting in settings for word in ("--set", setting)]
    result = airtcp("run", "ryu-upload", *sets, "--out", str(out))
    assert result.returncode == 0, result.stderr
    result = airtcp("plot", str(out), "--format", "svg")
    assert result.returncode == 0, result.stderr
    svg = (out / "run.svg").read_text()
    assert "MAC data rate" in svg and "MAC failed attempts" in svg
    # Ten flows: seven drawn, three as a band; eleven MACs: seven and four.
    assert "the other 3: median, range" in svg
    assert "the other 4: median, range" in svg
    assert svg.count("<!-- up") == 7


def test_a_macs_failed_share_is_over_the_last_intervals(tmp_path: Path):
    import pandas as pd
    from airtcp.analysis.plot import FAILURE_SAMPLES, _active_macs

    assert FAILURE_SAMPLES == 10
    frame = pd.DataFrame(
        {
            "node": ["sta1"] * 3 + ["sta2"],
            "wlan": ["ap"] * 4,
            "time_s": [0.1, 0.2, 0.3, 0.1],
            "attempts": [4, 0, 2, 5],
            "failures": [1, 1, 3, 0],
            "rate_bps": [1e6, 0.0, 2e6, 11e6],
            "rssi_dbm": [-60.0] * 4,
        }
    )
    frame.to_parquet(tmp_path / "macs.parquet")
    macs = _active_macs(tmp_path / "macs.parquet", pd)
    # Intervals without an attempt are left out; a failure counted after its attempt's
    # interval stays within the window's share (5 of 6 attempts over the window).
    assert macs["mac"].tolist() == ["sta1", "sta1", "sta2"]
    assert macs["failed_percent"].tolist() == [25.0, 100 * 5 / 6, 0.0]
    assert macs["rate_mbps"].tolist() == [1.0, 2.0, 11.0]
