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
