"""Every class of bad input gives one line naming the file and key, exit code 2, no traceback."""

import time
from pathlib import Path

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


# Words that must never reach a user: Python's exception classes and pydantic's or the
# simulator's internal names.
INTERNALS = ("Error:", "Exception", "constrained-", "function-", "wlans[", "_ns", "_bps", "app.")


def assert_one_line_error(result, *fragments: str) -> None:
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    for internal in INTERNALS:
        assert internal not in lines[0], (internal, lines[0])


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
        (('rate = "10Mbps"', 'rate = "10mbps"'),
         ("links[0].rate", "ambiguous", "Mbps (10^6 bit/s) or MBps")),
        (('delay = "5ms"', 'delay = "5ms"\nqueue = "64kb"'), ("links[0].queue", "in bits", "kB")),
        (('delay = "5ms"', 'delay = "5ms"\nqueue = "64KB"'), ("links[0].queue", "ambiguous")),
        (('duration = "10s"', "duration = true"), ("simulation.duration",)),
        (('dst = "h2"', 'dst = "nowhere"'), ("flows[0].dst", "unknown node 'nowhere'")),
        (('delay = "5ms"\n', ""), ("links[0].delay", "missing")),
        (("[simulation]", '[simulation]\nmeasure_from = "20s"'), ("simulation.measure_from",)),
        (('rate = "10Mbps"', 'rate = "10Mbps"\nloss = 1.5'), ("links[0].loss",)),
        (('rate = "10Mbps"', 'ratee = "10Mbps"'), ("links[0].ratee", "did you mean 'rate'?")),
        (("[simulation]", "[simulaton]"), ("simulaton", "did you mean 'simulation'?")),
        # What only the simulator checked: validate must say so too.
        (('dst = "h2"', 'dst = "h2"\nstart = "5s"\nstop = "2s"'), ("flows[0].stop",)),
        (('dst = "h2"', 'dst = "h2"\nstart = "10s"'), ("flows[0].start", "after the end")),
        (('dst = "h2"', 'dst = "h2"\n[[flows]]\nsrc = "h1"\ndst = "h3"'), ("flows[1].dst",)),
        (('b = "h2"', 'b = "h2"\nper_station = true'), ("links[0].per_station", "[wlan]")),
        (('[[flows]]\nsrc = "h1"\ndst = "h2"\n', ""), ("flows", "no flows")),
        (('duration = "10s"', 'duration = "10s"\nsample_interval = "1ns"'),
         ("simulation.sample_interval", "at least 1 µs")),
        (('duration = "10s"', 'duration = "100000s"\nsample_interval = "1us"'),
         ("simulation.sample_interval", "time-series samples", "TB", '"0s"')),
    ],
)  # fmt: skip
def test_bad_scenarios(write_scenario, change, fragments):
    old, new = change
    assert old in BASE
    path = write_scenario(BASE.replace(old, new, 1))
    for command in ("run", "validate"):
        result = airtcp(command, str(path))
        assert_one_line_error(result, str(path), *fragments)


def test_a_flow_with_no_path_is_found_by_validate(write_scenario):
    text = BASE + '\n[[links]]\na = "h3"\nb = "h4"\nrate = "1Mbps"\ndelay = "1ms"\n'
    text += '\n[[flows]]\nsrc = "h1"\ndst = "h4"\n'
    path = write_scenario(text)
    for command in ("validate", "run"):
        assert_one_line_error(airtcp(command, str(path)), str(path), "flows[1]", "no path")


WLAN = """
[simulation]
name = "a-name-that-is-not-the-file"
duration = "10s"

[wlan]
stations = 2

[[links]]
a = "ap"
b = "srv{i}"
rate = "10Mbps"
delay = "5ms"
per_station = true

[[flows]]
src = "sta{i}"
dst = "srv{i}"
per_station = true
"""


@pytest.mark.parametrize(
    ("setting", "fragments"),
    [
        ("wlan.rate=7Mbps", ("wlan.rate", "7 Mbit/s is not a 802.11b rate")),
        ("wlan.rate=54Mbps", ("wlan.rate", "54 Mbit/s")),
        ("wlan.basic_rate=11Mbps", ("wlan.basic_rate",)),
        ("wlan.stations=100000", ("wlan.stations", "less than or equal to 10000")),
        ("wlan.stations=0", ("wlan.stations", "greater than or equal to 1")),
        ("wlan.cw_min=30", ("wlan.cw_min", "2^k - 1")),
        ("wlan.ap=a/p", ("wlan.ap", "names files")),
        ("flows.0.stop=0s", ("flows[0].stop", "for station 1", "after start")),
        ("wlan.msdu_lifetime=0s", ("wlan.msdu_lifetime", "must be positive", "or expected 'off'")),
    ],
)
def test_settings_only_the_simulator_checked_name_the_set_argument(
    write_scenario, setting, fragments
):
    path = write_scenario(WLAN)
    for command in ("validate", "run"):
        result = airtcp(command, str(path), "--set", setting)
        assert_one_line_error(result, f"{path} (--set {setting})", *fragments)
        assert "a-name-that-is-not-the-file" not in result.stderr


def test_node_names_that_would_escape_the_output_directory_are_refused(write_scenario, tmp_path):
    path = write_scenario(BASE.replace('"h2"', '"../../escaped"'))
    out = tmp_path / "deep" / "out"
    for command in (("validate",), ("run", "--pcap", "--out", str(out))):
        result = airtcp(command[0], str(path), *command[1:])
        assert_one_line_error(result, "links[0].b", "names files")
    assert not list(tmp_path.rglob("*.pcap"))


def test_overrides_cannot_add_a_wlan_to_a_wired_scenario():
    result = airtcp("validate", str(SCENARIOS / "wired-tcp.toml"), "--set", "wlan.stations=4")
    assert_one_line_error(result, "wlan.stations=4", "no [wlan] table")


def test_unknown_dask_addresses_fail_fast_in_one_line(tmp_path):
    experiment = tmp_path / "e.toml"
    experiment.write_text(
        f'[experiment]\nscenario = "{(SCENARIOS / "wired-tcp.toml").as_posix()}"\n'
        '[set]\n"simulation.duration" = "6s"\n'
    )
    for address, fragment in (
        ("localhost", "tcp://HOST:8786"),
        ("tcp://127.0.0.1:9", "no scheduler"),
    ):
        started = time.monotonic()
        result = airtcp("sweep", str(experiment), "--out", str(tmp_path / "o"), "--dask", address)
        assert time.monotonic() - started < 20
        assert_one_line_error(result, f"--dask {address}", fragment)


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


def test_delivery_trace_errors_name_the_file_line_and_key(write_scenario, tmp_path):
    (tmp_path / "decreasing.up").write_text("5\n7\n3\n")
    (tmp_path / "good.up").write_text("1\n")
    cases = [
        ('trace = "missing.up"', ("links[0].trace", "cannot read the delivery", "missing.up")),
        ('trace = "decreasing.up"', ("links[0].trace", "line 3: 3 ms comes after 7 ms")),
        ('rate = "1Mbps"\ntrace = "good.up"', ("links[0]", "'rate' and 'trace' exclude")),
    ]  # fmt: skip
    for pace, fragments in cases:
        path = write_scenario(BASE.replace('rate = "10Mbps"', pace, 1))
        # From another directory: the trace's path is the scenario file's.
        assert_one_line_error(airtcp("run", str(path), cwd=Path("/")), str(path), *fragments)


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["run"], ["Missing argument 'scenario'", "run --help"]),
        (["run", "wired-tcp", "--bogus"], ["No such option: --bogus", "run --help"]),
        (["run", "wired-tcp", "--seed", "abc"], ["'--seed'", "integer"]),
        (["scenarios", "show"], ["Missing argument 'name'", "scenarios show --help"]),
        (["nosuchcommand"], ["No such command 'nosuchcommand'", "--help"]),
    ],
)
def test_a_command_line_airtcp_cannot_read_is_one_line(args, fragments):
    """An unknown option, a missing argument or a value of the wrong type: one line naming
    it and where help is, exit 2, as every other error (typer's own draws a box)."""
    assert_one_line_error(airtcp(*args), *fragments)


def test_a_bare_command_prints_its_help():
    result = airtcp()
    assert result.returncode == 0 and "Usage:" in result.stdout and not result.stderr.strip()
