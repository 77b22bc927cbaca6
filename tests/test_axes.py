"""The generic report's axes: units people read, log axes for sizes, bands that respect
what a quantity can be."""

import numpy as np
from airtcp.experiments.axes import band, metric_axis, parameter_axis


def test_metrics_get_units_from_their_names():
    goodput = metric_axis("aggregate_goodput_bps", [9.1e6, 9.4e6])
    assert goodput.label == "aggregate goodput (Mbit/s)"
    assert np.allclose(goodput.values, [9.1, 9.4])
    assert metric_axis("aggregate_goodput_bps", [12_000, 20_000]).label.endswith("(kbit/s)")
    assert (
        metric_axis("flows[0].retransmissions", [3, 4]).label == "flows[0] retransmissions (count)"
    )
    assert (
        metric_axis("wlans[0].collision_probability", [0.2]).label
        == "wlans[0] collision probability"
    )
    assert metric_axis("flows[0].completion_time_s", [8.2]).label == "flows[0] completion time (s)"
    cwnd = metric_axis("cwnd_bytes", [65536, 131072])
    assert cwnd.label == "cwnd (KiB)" and np.allclose(cwnd.values, [64, 128])


def test_parameters_with_units_are_numbers_on_the_right_axis():
    buffers = parameter_axis("tcp.receive_buffer", ["16KiB", "32KiB", "64KiB", "128KiB"])
    assert buffers.label == "tcp.receive_buffer (KiB)"
    assert np.allclose(buffers.values, [16, 32, 64, 128]) and buffers.log_base == 2
    delays = parameter_axis("links.0.delay", ["1ms", "5ms", "500us"])
    assert delays.label == "links.0.delay (ms)" and np.allclose(delays.values, [1, 5, 0.5])
    rates = parameter_axis("links.0.rate", ["8kbps", "16kbps", "24kbps"])
    assert rates.label == "links.0.rate (kbit/s)" and rates.log_base is None
    stations = parameter_axis("wlan.stations", [1, 2, 40])
    assert stations.label == "wlan.stations" and np.allclose(stations.values, [1, 2, 40])
    assert parameter_axis("wlan.agent", ["dcf", "ack_priority"]) is None


def test_bands_of_counts_stay_at_or_above_zero_and_fractions_below_one():
    mean, half = np.array([0.5, 3.0]), np.array([2.0, 1.0])
    lower, upper = band("flows[0].timeouts", mean, half, np.array([0.0, 1.0, 4.0]))
    assert list(lower) == [0.0, 2.0] and list(upper) == [2.5, 4.0]
    lower, upper = band("jain_fairness", np.array([0.95]), np.array([0.1]), np.array([0.9, 1.0]))
    assert upper[0] == 1.0 and np.isclose(lower[0], 0.85)
    signed = band("delta", np.array([0.0]), np.array([1.0]), np.array([-1.0, 1.0]))
    assert signed[0][0] == -1.0, "a quantity seen negative keeps its band"
