"""Every class of bad input gives one line naming the file and key, exit code 2, no traceback."""

import pytest
from conftest import SCENARIOS, airtcp

BASE = """
[simulation]
duration = "10s"

[[links]]
a = "h1"
b = "h2"
rate = "10Mbps"
delay = "5ms"

[[flows]]
src = "h1"
dst = "h2"
"""


def assert_one_line_error(result, *fragments: str) -> None:
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.mark.parametrize(
    ("change", "fragments"),
    [
        (
            ('rate = "10Mbps"', 'rate = "10Mbps"\ncolour = "red"'),
            ("links[0].colour", "unknown key"),
        ),
        (('rate = "10Mbps"', 'rate = "fast"'), ("links[0].rate", "expected a rate")),
        (('delay = "5ms"', "delay = 5"), ("links[0].delay", "with a unit")),
        (('delay = "5ms"', 'delay = "5 parsecs"'), ("links[0].delay", "expected a duration")),
        (('rate = "10Mbps"', 'rate = "-10Mbps"'), ("links[0].rate",)),
        (('rate = "10Mbps"', 'rate = "0Mbps"'), ("links[0].rate", "positive")),
        (('duration = "10s"', "duration = true"), ("simulation.duration",)),
        (('dst = "h2"', 'dst = "nowhere"'), ("flows[0].dst", "unknown node 'nowhere'")),
        (('delay = "5ms"\n', ""), ("links[0].delay", "missing")),
        (("[simulation]", '[simulation]\nmeasure_from = "20s"'), ("simulation.measure_from",)),
        (('rate = "10Mbps"', 'rate = "10Mbps"\nloss = 1.5'), ("links[0].loss",)),
    ],
)
def test_bad_scenarios(write_scenario, change, fragments):
    old, new = change
    assert old in BASE
    path = write_scenario(BASE.replace(old, new, 1))
    for command in ("run", "validate"):
        result = airtcp(command, str(path))
        assert_one_line_error(result, str(path), *fragments)


def test_invalid_toml_names_the_file(write_scenario):
    path = write_scenario("[simulation\nduration=")
    assert_one_line_error(airtcp("run", str(path)), str(path), "invalid TOML")


def test_missing_file():
    assert_one_line_error(airtcp("run", "no/such.toml"), "no/such.toml", "no such file")


def test_bad_override_value_names_the_key():
    result = airtcp("run", str(SCENARIOS / "ryu-upload.toml"), "--set", "wlan.stations=many")
    assert_one_line_error(result, "wlan.stations")


def test_override_of_unknown_key():
    result = airtcp("validate", str(SCENARIOS / "ryu-upload.toml"), "--set", "wlan.colour=1")
    assert_one_line_error(result, "wlan.colour", "unknown key")


def test_malformed_override():
    result = airtcp("validate", str(SCENARIOS / "ryu-upload.toml"), "--set", "stations")
    assert_one_line_error(result, "KEY=VALUE")


def test_phy_rate_rejected_by_the_simulator_is_one_line(write_scenario):
    text = BASE.replace("[[links]]", '[wlan]\nstations = 2\nrate = "54Mbps"\n\n[[links]]', 1)
    assert_one_line_error(airtcp("run", str(write_scenario(text))), "wlan", "rate")


def test_bianchi_bad_arguments():
    assert_one_line_error(airtcp("bianchi", "--stations", "9-3"), "--stations")
    assert_one_line_error(airtcp("bianchi", "--phy", "802.11z"), "--phy")
    assert_one_line_error(airtcp("bianchi", "--cw-min", "30"), "--cw-min")
