"""A sweep's report reads as people read results: numbers in their units to three
significant figures, flows by their names, points in the grid's own order, each run beside
its point's mean, legends beside the data; and it renders in headless Chromium."""

from __future__ import annotations

import math
import re
from pathlib import Path

import airtcp
import numpy as np
import pandas as pd
import pytest
from airtcp.experiments.axes import metric_axis, readable, significant
from airtcp.experiments.report import aggregate, shown_table
from conftest import figures_in_chromium

SUMMARY = {
    "flows": [{"name": "bulk"}, {"name": "up_2.b"}],
    "links": [{"from": "client", "to": "server"}],
    "wlans": [{"ap": "ap1"}],
}


@pytest.mark.parametrize(
    ("value", "text"),
    [(7916700.0, "7920000"), (0.012345, "0.0123"), (20.6667, "20.7"), (9.7, "9.70"),
     (0, "0"), (-1234.5, "-1230"), (math.nan, ""), (999.96, "1000")],
)  # fmt: skip
def test_numbers_have_three_significant_figures_and_no_exponent(value, text):
    assert significant(value) == text


def test_metrics_are_named_as_the_summary_names_them():
    assert readable("flows[0].retransmissions", SUMMARY) == "flow bulk.retransmissions"
    assert readable("links[0].queue_drops", SUMMARY) == "link client→server.queue_drops"
    assert readable("wlans[0].collisions", SUMMARY) == "WLAN ap1.collisions"
    assert readable("flows[7].timeouts", SUMMARY) == "flows[7].timeouts"  # no such flow
    assert readable("flows[0].timeouts", None) == "flows[0].timeouts"
    # The unit comes from the path; a name keeps its underscores and dots.
    axis = metric_axis("flows[1].goodput_bps", [2.5e6], SUMMARY)
    assert axis.label == "flow up_2.b goodput (Mbit/s)"
    assert axis.values.tolist() == [2.5]


def test_points_keep_the_grids_order_and_show_mean_and_interval():
    frame = pd.DataFrame(
        {
            "point": [0, 0, 1, 1, 2, 2],
            "status": ["ok"] * 6,
            "tcp.congestion_control": ["westwood", "westwood", "cubic", "cubic", "bbr", "bbr"],
            "aggregate_goodput_bps": [7.9e6, 8.1e6, 9.0e6, 9.2e6, 5e6, 5e6],
        }
    ).sample(frac=1.0, random_state=3)  # the store's order is not the grid's
    table = aggregate(frame, ["tcp.congestion_control"], ["aggregate_goodput_bps"])
    assert table["tcp.congestion_control"].tolist() == ["westwood", "cubic", "bbr"]
    shown = shown_table(table, ["aggregate_goodput_bps"], None)
    assert list(shown.columns) == ["tcp.congestion_control", "runs", "aggregate goodput (Mbit/s)"]
    # Student-t 97.5 % with 1 degree of freedom times the standard error, in Mbit/s.
    half = 12.706 * (np.std([7.9, 8.1], ddof=1) / np.sqrt(2))
    assert shown["aggregate goodput (Mbit/s)"].tolist() == [
        f"8.00 ± {half:.2g}",
        f"9.10 ± {half:.2g}",
        "5.00 ± 0",
    ]


def test_a_sweeps_report_reads_well_and_renders(tmp_path: Path):
    experiment = tmp_path / "cc.toml"
    experiment.write_text(
        '[experiment]\nname = "cc"\nscenario = "wired-tcp"\nreplications = 2\n'
        'metrics = ["aggregate_goodput_bps", "flows[0].retransmissions"]\n'
        '[set]\n"simulation.duration" = "3s"\n"simulation.measure_from" = "1s"\n'
        '"links.0.loss" = 0.01\n'
        '[grid]\n"tcp.congestion_control" = ["westwood", "cubic", "newreno"]\n'
    )
    out = tmp_path / "out"
    airtcp.sweep(experiment, out, jobs=1)
    report = airtcp.report(out)
    page = report.read_text()
    assert "flow bulk retransmissions (count)" in page
    assert "aggregate goodput (Mbit/s)" in page
    assert not re.search(r"\de[+-]\d\d", page.split("<h2>Experiment</h2>")[0]), "an exponent"
    rows = re.findall(r"<td>(westwood|cubic|newreno)</td>", page)
    assert rows[:3] == ["westwood", "cubic", "newreno"]
    # The machine-readable aggregates keep raw numbers.
    csv = pd.read_csv(out / "aggregates.csv")
    assert csv["aggregate_goodput_bps mean"].min() > 1e5
    expected, loaded = figures_in_chromium(report, tmp_path)
    assert expected == loaded >= 3


def test_legends_stand_beside_the_data():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from airtcp.experiments.report import legend_beside

    figure, axes = plt.subplots()
    axes.plot([0, 1], [0, 1], label="a")
    legend_beside(axes)
    figure.canvas.draw()
    box = axes.get_legend().get_window_extent()
    assert box.x0 > axes.get_window_extent().x1, "right of the panel, not over its data"
    plt.close(figure)
    # Several panels: one legend for the figure, each label once, right of every panel.
    figure, (left, right) = plt.subplots(1, 2)
    left.plot([0, 1], [0, 1], label="dcf")
    right.plot([0, 1], [1, 0], label="dcf")
    right.plot([0, 1], [1, 1], label="paper")
    legend_beside(left, figure)
    figure.canvas.draw()
    (legend,) = figure.legends
    assert [text.get_text() for text in legend.get_texts()] == ["dcf", "paper"]
    assert legend.get_window_extent().x0 > right.get_window_extent().x1
    assert left.get_legend() is None and right.get_legend() is None
    plt.close(figure)


def test_settings_are_shown_as_written_and_group_when_they_are_lists():
    from airtcp.experiments.report import setting_text
    from airtcp.experiments.writing import toml_value

    assert significant(99.96) == "100" and significant(0.99996) == "1.00"
    assert [setting_text(v) for v in (3.0001, True, [1, 5], "64KiB", 7)] == [
        "3.0001", "true", "[1, 5]", "64KiB", "7",
    ]  # fmt: skip
    assert toml_value({"shape": "circle", "radius": 5.0}) == '{"shape" = "circle", "radius" = 5.0}'
    frame = pd.DataFrame(
        {
            "point": [0, 0, 1, 1],
            "status": ["ok"] * 4,
            "wlan.groups.0.stations": [[1, 5], [1, 5], [2], [2]],
            "aggregate_goodput_bps": [1e6, 2e6, 3e6, 4e6],
        }
    )
    from airtcp.experiments.report import _hashable

    table = aggregate(_hashable(frame, ["wlan.groups.0.stations"]), ["wlan.groups.0.stations"],
                      ["aggregate_goodput_bps"])  # fmt: skip
    assert table["wlan.groups.0.stations"].tolist() == ["[1, 5]", "[2]"]
    assert table["aggregate_goodput_bps mean"].tolist() == [1.5e6, 3.5e6]
