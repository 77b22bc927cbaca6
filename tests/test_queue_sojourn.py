"""Queue sojourn times (docs/scenarios.md, "Queue sojourn"): `simulation.queue_sojourn`
reaches the simulator only when set, a run prints and summarises each busy link direction's
sojourns, queues.parquet gains the per-interval columns, `airtcp plot` draws them, and
emulation keeps it (the emulated links' queues are the simulator's).
(crates/airtcp-sim/tests/queue_sojourn.rs checks the times by hand.)"""

import json
import re
from pathlib import Path

import airtcp as api
import pandas as pd
from airtcp.emulation.runner import _unsupported
from airtcp.scenario.resolve import resolve
from airtcp.scenario.schema import load
from conftest import airtcp
from test_bad_input import BASE, assert_one_line_error

SHORT = {"simulation.duration": "8s", "simulation.measure_from": "4s"}
SETS = {"simulation.queue_sojourn": "true", "links.0.aqm": "codel"} | SHORT


def test_the_setting_reaches_the_simulator_only_when_set():
    assert "queue_sojourn" not in resolve(load("bufferbloat"))[0]
    metered = api.prepare("bufferbloat", overrides={"simulation.queue_sojourn": "true"})
    assert metered["queue_sojourn"] is True
    _unsupported(metered)  # emulation takes it


def test_a_run_prints_summarises_and_writes_the_sojourns(tmp_path: Path):
    sets = [f"--set={key}={value}" for key, value in SETS.items()]
    printed = airtcp("run", "bufferbloat", *sets, "--out", str(tmp_path / "run"), "--plot")
    assert printed.returncode == 0, printed.stderr
    run = api.run("bufferbloat", overrides=SETS)
    forward, reverse = run.summary["links"][:2]
    sojourn = forward["sojourn"]
    # CoDel holds the bulk flows' queue near its 5 ms target.
    assert sojourn["dequeued"] > 1000 and 1.0 < sojourn["mean_ms"] < 15.0, sojourn
    assert sojourn["max_ms"] >= sojourn["mean_ms"]
    line = f"queue sojourn client → server: {sojourn['dequeued']} packets; mean/max = "
    assert line in printed.stdout
    # The ACKs' way never queues behind anything slower than itself.
    assert reverse["sojourn"]["dequeued"] > 0 and reverse["sojourn"]["max_ms"] < 2.0
    written = pd.read_parquet(tmp_path / "run" / "queues.parquet")
    assert list(written.columns)[-3:] == ["dequeued", "sojourn_mean_ms", "sojourn_max_ms"]
    assert written["dequeued"].sum() >= sojourn["dequeued"]
    assert run.queues["sojourn_mean_ms"].max() <= run.queues["sojourn_max_ms"].max()
    assert (tmp_path / "run" / "run.png").stat().st_size > 0


def test_off_no_sojourn_anywhere():
    run = api.run("bufferbloat", overrides=SHORT)
    assert all("sojourn" not in link for link in run.summary["links"])
    assert "sojourn_mean_ms" not in run.queues.columns


def test_a_bad_queue_sojourn_is_one_line_naming_the_key(tmp_path: Path):
    scenario = tmp_path / "bad.toml"
    scenario.write_text(BASE.replace('duration = "10s"', 'duration = "10s"\nqueue_sojourn = 3'))
    assert_one_line_error(airtcp("run", str(scenario)), "queue_sojourn")


def test_a_wlans_mac_queues_are_summarised_printed_written_and_drawn(tmp_path: Path):
    # `anomaly`: an 802.11n AP with EDCA sends TCP to three stations through its FIFO.
    sets = {"simulation.queue_sojourn": "true", "simulation.sample_interval": "100ms"} | SHORT
    printed = airtcp(
        "run",
        "anomaly",
        *[f"--set={key}={value}" for key, value in sets.items()],
        "--out",
        str(tmp_path / "run"),
    )
    assert printed.returncode == 0, printed.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    queues = {queue["queue"]: queue for queue in summary["wlans"][0]["queues"]}
    ap = queues["ap→stations (WLAN, AC_BE)"]
    assert (ap["node"], ap["ac"]) == ("ap", "be")
    # The downloads fill the AP's FIFO: its frames wait far longer than the stations' ACKs.
    station = queues["sta1→ap (WLAN, AC_BE)"]["sojourn"]
    assert ap["sojourn"]["mean_ms"] > 10 * station["mean_ms"] > 0, (ap, station)
    line = f"queue sojourn ap→stations (WLAN, AC_BE): {ap['sojourn']['dequeued']} frames"
    assert line in printed.stdout
    written = pd.read_parquet(tmp_path / "run" / "queues.parquet")
    mac_rows = written[written["direction"] == "ap→stations (WLAN, AC_BE)"]
    assert mac_rows["dequeued"].sum() >= ap["sojourn"]["dequeued"]
    assert mac_rows["packets"].max() > 0 and (mac_rows["bytes"] >= 40 * mac_rows["packets"]).all()
    # The video AC's queue held nothing: not drawn; the AP's is.
    drawn = airtcp("plot", str(tmp_path / "run"), "--format", "svg")
    assert drawn.returncode == 0, drawn.stderr
    drawn = (tmp_path / "run" / "run.svg").read_text()
    assert "ap→stations (WLAN, AC_BE)" in drawn and "AC_VI" not in drawn


def test_off_no_mac_queue_sojourn():
    summary = api.run("anomaly", overrides=SHORT).summary
    assert "queues" not in summary["wlans"][0]


def test_two_wlans_on_one_channel_each_list_their_own_queues():
    # `cochannel`: two cells on one channel with geometry; each WLAN's summary lists its own
    # MACs' queues, and every queue of the series has a name of its own.
    sets = {"simulation.queue_sojourn": "true", "simulation.sample_interval": "100ms"} | SHORT
    run = api.run("cochannel", overrides=sets)
    names = list(run.queues["direction"].cat.categories)
    assert len(names) == len(set(names))
    for wlan in run.summary["wlans"]:
        ap = wlan["ap"]
        queues = wlan["queues"]
        assert queues and queues[0]["queue"].startswith(f"{ap}→stations (WLAN")
        assert all(q["queue"].endswith(f"→{ap} (WLAN)") for q in queues[1:]), queues
        assert len(queues) == 1 + wlan["stations"]


def test_many_station_queues_print_as_their_spread():
    # paper 000's upload with 12 stations: the AP's queue on a line of its own, the
    # stations' twelve as one line of their spread (as their airtime beyond 8 stations).
    sets = ["--set", "wlan.stations=12", "--set", "simulation.queue_sojourn=true"]
    sets += ["--set", "simulation.duration=25s"]
    printed = airtcp("run", "ryu-upload", *sets)
    assert printed.returncode == 0, printed.stderr
    lines = [line for line in printed.stdout.splitlines() if line.startswith("  queue sojourn")]
    assert len(lines) == 2, lines
    assert lines[0].startswith("  queue sojourn, 12 station queues: ")
    assert re.search(r"mean least [\d.]+, median [\d.]+, most [\d.]+ ms$", lines[0])
    assert lines[1].startswith("  queue sojourn ap→stations (WLAN): ")
    # Its wired directions too (the AP's uplink and 12 stations' servers, each way): the 7 of
    # the longest mean sojourn each, and one line of the others.
    wired = [line for line in printed.stdout.splitlines() if line.startswith("queue sojourn")]
    assert len(wired) == 8, wired
    assert re.fullmatch(
        r"queue sojourn, 19 other link directions: \d+ packets; mean least [\d.]+, "
        r"median [\d.]+, most [\d.]+ ms",
        wired[0],
    ), wired[0]
    means = [float(re.search(r"mean/max = ([\d.]+)/", line).group(1)) for line in wired[1:]]
    assert means == sorted(means, reverse=True)
    least_listed = means[-1]
    most_other = float(re.search(r"most ([\d.]+) ms", wired[0]).group(1))
    assert most_other <= least_listed
