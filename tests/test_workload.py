"""Workloads (docs/scenarios.md, "Workloads"): the built-in `short-flows` scenario, flow
completion times per size class, CDF files, and bad input as one line naming the key."""

from pathlib import Path

import airtcp as api
import pytest
from airtcp import _core
from airtcp.analysis.fct import fct_classes, nearest_rank
from airtcp.scenario.schema import parse_cdf
from conftest import airtcp
from hypothesis import given
from hypothesis import strategies as st
from test_bad_input import assert_one_line_error

SCENARIO = """
[simulation]
duration = "20s"

[[links]]
a = "client"
b = "server"
rate = "100Mbps"
delay = "2ms"

[[flows]]
kind = "tcp_workload"
src = "client"
dst = "server"
{flow}
"""


def write(tmp_path: Path, flow: str) -> Path:
    path = tmp_path / "w.toml"
    path.write_text(SCENARIO.format(flow=flow))
    return path


def test_completion_times_per_size_class_by_hand():
    workload = {
        "size_bytes": [1_000, 50_000, 200_000, 20_000_000, 3_000],
        "arrived_ns": [0, 10, 2_000_000, 3_000_000, 500],
        "completed_ns": [4_000_000, 2_000_010, 12_000_000, None, 1_000_500],
    }
    small, medium, large = fct_classes(workload)
    assert (small.flows, small.completed) == (3, 3)
    assert small.median_ms == 2.0 and small.p99_ms == 4.0
    assert small.mean_ms == pytest.approx((4 + 2 + 1) / 3)
    assert (medium.flows, medium.completed, medium.median_ms) == (1, 1, 10.0)
    assert (large.flows, large.completed, large.median_ms) == (1, 0, None)
    # The warm-up's arrivals are left out.
    assert fct_classes(workload, measure_from_ns=1_000)[0].flows == 0
    assert nearest_rank([1.0, 2.0, 3.0, 4.0], 0.99) == 4.0
    assert nearest_rank([1.0, 2.0, 3.0, 4.0], 0.5) == 2.0


def test_short_flows_reports_completion_times_and_fq_codel_shortens_the_small_ones():
    overrides = {"simulation.duration": "40s"}
    fifo = api.run("short-flows", overrides=overrides).summary
    fair = api.run("short-flows", overrides=overrides | {"links.0.aqm": "fq_codel"}).summary
    rows = [fct_classes(s["flows"][0]["workload"], 10 * 10**9) for s in (fifo, fair)]
    (fifo_small, *_), (fair_small, *_) = rows
    assert fifo_small.flows == fair_small.flows > 50, "the same arrivals (same seed)"
    # DropTail's 1000-packet queue makes short flows wait behind the long ones.
    assert fair_small.median_ms < fifo_small.median_ms
    assert fair_small.p99_ms < fifo_small.p99_ms / 3
    assert fifo["flows"][0]["workload"]["refused"] == 0


def test_the_cli_prints_the_completion_time_table(tmp_path: Path):
    result = airtcp("run", str(write(tmp_path, 'sizes = "web_search"\nrate = "20Mbps"')))
    assert result.returncode == 0, result.stderr
    assert "workload flow1 client → server:" in result.stdout
    assert "≤ 100 kB" in result.stdout and "p99 ms" in result.stdout


def test_a_cdf_file_relative_to_the_scenario(tmp_path: Path):
    (tmp_path / "sizes.cdf").write_text("# size probability\n1000 0\n2000, 0.5\n\n3000 1\n")
    path = write(tmp_path, 'sizes = "sizes.cdf"\nrate = "10Mbps"\ncount = 50')
    summary = api.run(path).summary
    sizes = summary["flows"][0]["workload"]["size_bytes"]
    assert len(sizes) == 50 and all(1000 <= s <= 3000 for s in sizes)
    assert _core.workload_distributions() == ["web_search", "data_mining"]


@pytest.mark.parametrize(
    ("flow", "fragments"),
    [
        ('sizes = "uniform"\nrate = "1Mbps"', ("flows[0].sizes", "web_search", "uniform")),
        ('sizes = "web_search"', ("flows[0]", "needs 'rate'")),
        ('rate = "1Mbps"', ("flows[0]", "needs 'sizes'")),
        ('sizes = "web_search"\nrate = "1Mbps"\nbytes = 1000', ("flows[0]", "bytes")),
        ('sizes = "web_search"\nrate = "1Mbps"\ncount = 0', ("flows[0].count",)),
        ('sizes = "web_search"\nrate = "1Mbps"\ninterval = "1s"', ("flows[0]", "interval")),
    ],
)
def test_bad_workloads_are_one_line_naming_the_key(
    tmp_path: Path, flow: str, fragments: tuple[str, ...]
):
    assert_one_line_error(airtcp("validate", str(write(tmp_path, flow))), *fragments)


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("1000 0\nten 1\n", ("sizes.cdf:2", "size_bytes probability", "ten")),
        ("1000 0\n500 1\n", ("flows[0].sizes", "must not decrease")),
        ("1000 0\n2000 0.9\n", ("flows[0].sizes", "probability 1")),
        ("# nothing\n", ("sizes.cdf", "no points")),
        ("1000 0 7\n", ("sizes.cdf:1",)),
        ("nan 0\n5 1\n", ("sizes.cdf:1", "finite")),
    ],
)
def test_bad_cdf_files_name_the_file_and_line(
    tmp_path: Path, text: str, fragments: tuple[str, ...]
):
    (tmp_path / "sizes.cdf").write_text(text)
    result = airtcp("validate", str(write(tmp_path, 'sizes = "sizes.cdf"\nrate = "1Mbps"')))
    assert_one_line_error(result, *fragments)


@given(st.text(max_size=200))
def test_the_cdf_parser_takes_any_text_without_crashing(text: str):
    try:
        points = parse_cdf(text, "fuzz")
    except ValueError as error:
        assert str(error).startswith("fuzz")
    else:
        assert points and all(len(point) == 2 for point in points)


def test_emulation_refuses_a_workload_by_name():
    from airtcp.emulation.runner import _unsupported
    from airtcp.scenario.resolve import resolve
    from airtcp.scenario.schema import ScenarioError, load

    with pytest.raises(ScenarioError, match=r"flows\[0\]\.kind.*simulator-only"):
        _unsupported(resolve(load("short-flows"))[0])
