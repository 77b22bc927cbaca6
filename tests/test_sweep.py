"""The experiment layer: expansion, bad files, executors, exactly-once under failures."""

import contextlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import airtcp as api
import pandas as pd
import pytest
from airtcp.experiments.spec import load as load_experiment
from airtcp.experiments.sweeper import run_experiment
from airtcp.output import OutputError
from airtcp.scenario.schema import ScenarioError
from conftest import SCENARIOS, airtcp, figures_in_chromium

WIRED = (SCENARIOS / "wired-tcp.toml").as_posix()

FAST = f"""
[experiment]
name = "fast"
scenario = "{WIRED}"
replications = 2
metrics = ["aggregate_goodput_bps", "flows[0].retransmissions"]

[set]
"simulation.duration" = "8s"
"links.0.loss" = 0.001

[grid]
"links.0.delay" = ["5ms", "10ms", "20ms"]
"""

# Each run takes a few tenths of a second: long enough to kill or interrupt mid-sweep.
SLOW = f"""
[experiment]
name = "slow"
scenario = "{WIRED}"
replications = 4
metrics = ["aggregate_goodput_bps"]

[set]
"links.0.rate" = "1Gbps"
"links.0.queue" = 3000
"tcp.send_buffer" = "4MiB"
"tcp.receive_buffer" = "4MiB"
"simulation.duration" = "10s"

[grid]
"links.0.delay" = ["5ms", "10ms", "15ms", "20ms", "25ms", "30ms"]
"""


@pytest.fixture
def experiment_file(tmp_path):
    def write(text: str) -> Path:
        path = tmp_path / "experiment.toml"
        path.write_text(text)
        return path

    return write


def assert_exactly_once(out: Path, expected: int) -> pd.DataFrame:
    frame = pd.read_parquet(out / "results.parquet")
    assert len(frame) == expected, frame
    assert frame["run_id"].is_unique
    assert len(list((out / "runs").glob("*.json"))) == expected
    assert not list(out.rglob("*.tmp"))
    return frame


def test_default_metrics_fit_the_scenario(experiment_file):
    wired = load_experiment(experiment_file(FAST.replace(
        'metrics = ["aggregate_goodput_bps", "flows[0].retransmissions"]\n', "")))  # fmt: skip
    assert wired.settings.metrics == ["aggregate_goodput_bps", "jain_fairness"]
    wlan = FAST.replace(WIRED, (SCENARIOS / "ryu-upload.toml").as_posix()).replace(
        'metrics = ["aggregate_goodput_bps", "flows[0].retransmissions"]\n', ""
    )
    wlan = wlan.replace('"links.0.delay" = ["5ms", "10ms", "20ms"]', '"wlan.stations" = [1, 2]')
    wlan = wlan.replace('"links.0.loss" = 0.001', '"simulation.measure_from" = "1s"')
    assert "wlans[0].mean_contenders" in load_experiment(experiment_file(wlan)).settings.metrics


def test_expansion_grid_zip_range_and_seeds(experiment_file):
    path = experiment_file(
        f"""
[experiment]
scenario = "{WIRED}"
replications = 2
[grid]
"links.0.delay" = ["5ms", "10ms"]
"tcp.mss" = {{ start = 500, stop = 1500, step = 500 }}
[zip]
"links.0.rate" = ["1Mbps", "2Mbps"]
"links.0.loss" = [0.0, 0.01]
"""
    )
    experiment = load_experiment(path)
    assert len(experiment.tasks) == 2 * 3 * 2 * 2
    assert {t.params["tcp.mss"] for t in experiment.tasks} == {500, 1000, 1500}
    assert {(t.params["links.0.rate"], t.params["links.0.loss"]) for t in experiment.tasks} == {
        ("1Mbps", 0.0),
        ("2Mbps", 0.01),
    }
    assert len({t.run_id for t in experiment.tasks}) == len(experiment.tasks)
    assert len({t.seed for t in experiment.tasks}) == len(experiment.tasks), (
        "per point and replication"
    )
    again = load_experiment(path)
    assert [t.run_id for t in again.tasks] == [t.run_id for t in experiment.tasks], "deterministic"
    common = load_experiment(
        experiment_file(
            path.read_text().replace("replications = 2", 'replications = 2\nseeds = "common"')
        )
    )
    assert {t.seed for t in common.tasks if t.replication == 0} == {common.tasks[0].seed}


def test_zip_groups_are_dimensions_and_scenario_names_each_points_base(experiment_file):
    path = experiment_file(
        f"""
[experiment]
scenario = "{WIRED}"
[grid]
"tcp.mss" = [500, 1000]
[zip]
"links.0.rate" = ["1Mbps", "2Mbps"]
"links.0.loss" = [0.0, 0.01]
[zip.base]
scenario = ["{WIRED}", "ahn-asymmetric"]
"simulation.duration" = ["6s", "3s"]
"""
    )
    experiment = load_experiment(path)
    assert len(experiment.tasks) == 2 * 2 * 2
    pairs = {(t.params["links.0.rate"], t.params["links.0.loss"]) for t in experiment.tasks}
    assert pairs == {("1Mbps", 0.0), ("2Mbps", 0.01)}
    by_base = {t.params["scenario"]: t.scenario for t in experiment.tasks}
    assert by_base[WIRED]["duration_ns"] == 6_000_000_000
    assert by_base["ahn-asymmetric"]["duration_ns"] == 3_000_000_000
    assert by_base["ahn-asymmetric"]["links"] != by_base[WIRED]["links"], "its own base"
    assert all(t.scenario["links"][0]["a_to_b"]["rate_bps"] in (1e6, 2e6) for t in experiment.tasks)


@pytest.mark.parametrize(
    ("old", "new", "fragments"),
    [
        ("[grid]", '[zip.base]\nscenario = ["wired-tcp", "ahn-asymmetric"]\n"tcp.mss" = [500]\n'
         "[grid]", ("zip.base", "same length")),
        ("[grid]", '[zip.base]\nscenario = ["no-such-scenario"]\n[grid]',
         ("scenario (point", "no-such-scenario")),
        ("[grid]", '[zip.base]\n"links.0.delay" = ["1ms"]\n[grid]',
         ("links.0.delay", "more than one")),
        ('"links.0.loss"', 'scenario = "wired-tcp"\n"links.0.loss"',
         ("set.scenario", "[experiment] scenario")),
    ],
)  # fmt: skip
def test_bad_zip_groups_and_scenario_axes(experiment_file, old, new, fragments):
    path = experiment_file(FAST.replace(old, new, 1))
    with pytest.raises(ScenarioError) as raised:
        load_experiment(path)
    for fragment in (str(path), *fragments):
        assert fragment in str(raised.value), (fragment, str(raised.value))


@pytest.mark.parametrize(
    ("change", "fragments"),
    [
        (('name = "fast"', 'name = "fast"\ncolour = 1'), ("experiment.colour", "unknown key")),
        (('name = "fast"', 'name = "../fast"'), ("experiment.name", "plain name")),
        (('name = "fast"', 'name = "/tmp/fast"'), ("experiment.name", "plain name")),
        (('name = "fast"', 'name = ".."'), ("experiment.name", "not '.' or '..'")),
        (('["5ms", "10ms", "20ms"]', "{ start = 5, stop = 1 }"), ("grid", "empty range")),
        (('["5ms", "10ms", "20ms"]', "[]"), ("grid", "empty list")),
        (
            ('"links.0.loss" = 0.001', '"links.0.rate" = "fast"'),
            ("links[0].rate", "expected a rate"),
        ),
        (('["5ms", "10ms", "20ms"]', '["5ms", "5 parsecs"]'), ("links[0].delay", "5 parsecs")),
        (("replications = 2", "replications = 0"), ("experiment.replications",)),
        (
            ("replications = 2", 'replications = 2\ntimeout = "0s"'),
            ("experiment.timeout", "positive"),
        ),
        (
            ('"flows[0].retransmissions"', '"aggregate_goodput"'),
            ("experiment.metrics", "did you mean 'aggregate_goodput_bps'?"),
        ),
        (
            ('"flows[0].retransmissions"', '"flows[9].x"'),
            ("experiment.metrics", "the scenario has 1 flows", "point links.0.delay=5ms"),
        ),
        (
            ('"flows[0].retransmissions"', '"wlans[0].mean_contenders"'),
            ("experiment.metrics", "no wlans"),
        ),
        (('"flows[0].retransmissions"', '"flows[0].name"'), ("experiment.metrics", "not a number")),
        (('"links.0.loss" = 0.001', '"wlan.stations" = 3'), ("no [wlan] table",)),
        ((WIRED, "/no/such.toml"), ("experiment.scenario", "no such file")),
        (
            (
                '"links.0.loss" = 0.001',
                '"links.0.loss" = 0.001\n[zip]\n"a.b" = [1]\n"c.d" = [1, 2]',
            ),
            ("zip", "same length"),
        ),
    ],
)
def test_bad_experiment_files(experiment_file, change, fragments):
    old, new = change
    assert old in FAST
    path = experiment_file(FAST.replace(old, new, 1))
    result = airtcp("sweep", str(path), "--out", str(path.parent / "out"), "-q")
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for fragment in (str(path), *fragments):
        assert fragment in lines[0], (fragment, lines[0])
    assert not (path.parent / "out" / "runs").exists() or not list(
        (path.parent / "out" / "runs").iterdir()
    )


def test_a_name_cannot_put_results_outside_the_results_directory(experiment_file, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    path = experiment_file(FAST.replace('name = "fast"', 'name = "../../escaped"'))
    result = airtcp("sweep", str(path), "-q", cwd=work)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "experiment.name" in result.stderr and "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["experiment.toml", "work"]


def test_local_sweep_then_rerun_skips_everything(experiment_file, tmp_path):
    path = experiment_file(FAST)
    out = tmp_path / "out"
    first = airtcp("sweep", str(path), "--out", str(out), "-j", "2", "-q")
    assert first.returncode == 0, first.stderr
    assert "6 of 6 runs done (6 now, 0 failed)" in first.stdout
    frame = assert_exactly_once(out, 6)
    assert (frame["status"] == "ok").all()
    assert set(frame["links.0.delay"]) == {"5ms", "10ms", "20ms"}
    assert (frame["aggregate_goodput_bps"] > 1e6).all()
    second = airtcp("sweep", str(path), "--out", str(out), "-q")
    assert "6 of 6 runs done (0 now, 0 failed)" in second.stdout
    pd.testing.assert_frame_equal(assert_exactly_once(out, 6), frame)


def test_a_changed_experiment_is_refused_where_another_ran_and_reports_hold_one(
    experiment_file, tmp_path
):
    """Runs of an 8 s and a 6 s experiment never share a point: the second sweep into the
    first's directory is refused before anything is written, with what to do."""
    out = tmp_path / "out"
    first = airtcp("sweep", str(experiment_file(FAST)), "--out", str(out), "-q")
    assert first.returncode == 0, first.stderr
    kept = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    shorter = FAST.replace('"simulation.duration" = "8s"', '"simulation.duration" = "6s"')
    for changed in (shorter, FAST.replace("replications = 2", "replications = 3")):
        second = airtcp("sweep", str(experiment_file(changed)), "--out", str(out), "-q")
        assert second.returncode == 2, second.stderr
        assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
        assert f"{out}: holds the runs of another experiment" in second.stderr
        assert f"another --out, or remove {out}" in second.stderr
        assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == kept
    rows = api.load_results(out)
    assert len(rows) == 6 and set(rows["links.0.delay"]) == {"5ms", "10ms", "20ms"}
    records = [json.loads(p.read_text()) for p in (out / "runs").glob("*.json")]
    assert {r["experiment"] for r in records} == {load_experiment(experiment_file(FAST)).identity}
    # What changes no result is the same experiment: it resumes.
    cosmetic = FAST.replace('name = "fast"', '# renamed\nname = "quick"\ntimeout = "5min"')
    again = airtcp("sweep", str(experiment_file(cosmetic)), "--out", str(out), "-q")
    assert again.returncode == 0 and "6 of 6 runs done (0 now" in again.stdout, again.stderr
    assert (out / "experiment.toml").read_text() == cosmetic


def test_the_identity_is_what_defines_the_results(experiment_file):
    def identity(text: str) -> str:
        return load_experiment(experiment_file(text)).identity

    same = [
        FAST.replace('name = "fast"', 'name = "renamed"'),
        FAST.replace("replications = 2", 'replications = 2\ntimeout = "1min"\ntimeseries = true'),
        FAST.replace("[set]", "# a comment\n[set]"),
        FAST.replace(
            '"simulation.duration" = "8s"\n"links.0.loss" = 0.001',
            '"links.0.loss" = 0.001\n"simulation.duration" = "8s"',
        ),
    ]
    different = [
        FAST.replace('"8s"', '"9s"'),
        FAST.replace("replications = 2", "replications = 3"),
        FAST.replace("replications = 2", "replications = 2\nseed = 2"),
        FAST.replace("replications = 2", 'replications = 2\nseeds = "common"'),
        FAST.replace("replications = 2", 'replications = 2\nbackend = "emu"'),
        FAST.replace('"flows[0].retransmissions"', '"flows[0].timeouts"'),
        FAST.replace('"5ms", "10ms", "20ms"', '"5ms", "10ms"'),
        FAST.replace('"5ms"', '"5 ms"'),  # the same runs, but rows with another label
    ]
    base = identity(FAST)
    assert {identity(text) for text in same} == {base}
    assert len({identity(text) for text in different} | {base}) == len(different) + 1


def test_runs_that_do_not_record_their_experiment_are_refused(experiment_file, tmp_path):
    """Runs of an older airtcp could belong to any experiment: no sweep adds to them and no
    report averages them."""
    out = tmp_path / "out"
    run_experiment(load_experiment(experiment_file(FAST)), out, jobs=2)
    (out / "experiment.json").unlink()
    for path in (out / "runs").glob("*.json"):
        record = json.loads(path.read_text())
        del record["experiment"]
        path.write_text(json.dumps(record))
    for command in (["sweep", str(experiment_file(FAST)), "--out", str(out)], ["report", str(out)]):
        result = airtcp(*command)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert f"{out}: holds runs made by an older airtcp" in result.stderr
    with pytest.raises(OutputError, match="older airtcp"):
        api.load_results(out)
    assert not (out / "report.html").exists()


def test_failed_runs_are_recorded_and_the_sweep_goes_on(experiment_file, tmp_path):
    path = experiment_file(
        SLOW.replace(
            'metrics = ["aggregate_goodput_bps"]', 'timeout = "1us"\nmetrics = []'
        ).replace("replications = 4", "replications = 1")
    )
    out = tmp_path / "out"
    result = airtcp("sweep", str(path), "--out", str(out), "-q")
    assert result.returncode == 1, result.stderr
    assert "6 of 6 runs failed" in result.stderr
    frame = assert_exactly_once(out, 6)
    assert (frame["status"] == "timeout").all()
    assert frame["error"].str.contains("wall-clock limit").all()
    again = airtcp("sweep", str(path), "--out", str(out), "-q")
    assert again.returncode == 1, "still failed when nothing new ran"


def test_threads_give_the_same_rows_as_processes(experiment_file, tmp_path):
    experiment = load_experiment(experiment_file(FAST))
    run_experiment(experiment, tmp_path / "p", jobs=2)
    run_experiment(experiment, tmp_path / "t", jobs=2, threads=True)
    metrics = ["run_id", "seed", "aggregate_goodput_bps", "flows[0].retransmissions"]
    processes = pd.read_parquet(tmp_path / "p" / "results.parquet")[metrics]
    threads = pd.read_parquet(tmp_path / "t" / "results.parquet")[metrics]
    pd.testing.assert_frame_equal(processes, threads)


def test_dask_local_cluster_gives_the_same_rows(experiment_file, tmp_path):
    distributed = pytest.importorskip("distributed")
    experiment = load_experiment(experiment_file(FAST))
    run_experiment(experiment, tmp_path / "local", jobs=1)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        outcome = run_experiment(experiment, tmp_path / "dask", dask=cluster.scheduler_address)
    assert outcome.completed == 6 and outcome.failed == 0
    columns = [
        "run_id",
        "point",
        "replication",
        "seed",
        "links.0.delay",
        "aggregate_goodput_bps",
        "flows[0].retransmissions",
        "status",
    ]
    local = pd.read_parquet(tmp_path / "local" / "results.parquet")[columns]
    remote = pd.read_parquet(tmp_path / "dask" / "results.parquet")[columns]
    pd.testing.assert_frame_equal(local, remote)


def _children(pid: int) -> list[int]:
    found = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                for child in map(int, (task / "children").read_text().split()):
                    found.append(child)
                    found.extend(_children(child))
    return found


def _workers(pid: int) -> list[int]:
    """The sweep's worker processes (not the resource tracker)."""
    found = []
    for child in _children(pid):
        with contextlib.suppress(OSError):
            command = Path(f"/proc/{child}/cmdline").read_bytes().decode(errors="replace")
            if "spawn_main" in command and "resource_tracker" not in command:
                found.append(child)
    return found


def _start_sweep(path: Path, out: Path, jobs: int = 2) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "airtcp.cli",
            "sweep",
            str(path),
            "--out",
            str(out),
            "-j",
            str(jobs),
            "-q",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_runs(out: Path, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while len(list((out / "runs").glob("*.json"))) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "sweep made no progress"
        time.sleep(0.02)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_killed_worker_still_gives_every_run_exactly_once(experiment_file, tmp_path):
    path, out = experiment_file(SLOW), tmp_path / "out"
    process = _start_sweep(path, out)
    _wait_for_runs(out, 3, process)
    workers = _workers(process.pid)
    assert workers, "no worker processes found"
    os.kill(workers[0], signal.SIGKILL)
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert re.search(r"24 of 24 runs done \(\d+ now, 0 failed\)", stdout), stdout
    assert_exactly_once(out, 24)


def test_interrupted_driver_resumes_to_every_run_exactly_once(experiment_file, tmp_path):
    path, out = experiment_file(SLOW), tmp_path / "out"
    process = _start_sweep(path, out)
    _wait_for_runs(out, 3, process)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    partial = pd.read_parquet(out / "results.parquet")
    assert 3 <= len(partial) < 24 and partial["run_id"].is_unique
    assert (partial["status"] == "ok").all(), "only complete rows"
    again = airtcp("sweep", str(path), "--out", str(out), "-q")
    assert again.returncode == 0, again.stderr
    assert f"24 of 24 runs done ({24 - len(partial)} now, 0 failed)" in again.stdout
    assert_exactly_once(out, 24)


def test_report_renders_in_headless_chromium(experiment_file, tmp_path):
    out = tmp_path / "out"
    frame = api.sweep(experiment_file(FAST), out, jobs=2)
    assert len(frame) == 6
    assert len(api.load_results(out, backend="polars")) == 6
    result = airtcp("report", str(out))
    assert result.returncode == 0, result.stderr
    aggregates = pd.read_csv(out / "aggregates.csv")
    assert list(aggregates["runs"]) == [2, 2, 2]
    assert (aggregates["aggregate_goodput_bps ci95"] >= 0).all()
    expected, loaded = figures_in_chromium(out / "report.html", tmp_path)
    assert expected >= 3
    assert loaded == expected, "every figure decoded"


def test_report_of_an_empty_directory_is_one_line(tmp_path):
    (tmp_path / "runs").mkdir()
    result = airtcp("report", str(tmp_path))
    assert result.returncode == 2 and "no runs" in result.stderr


def test_api_rejects_bad_experiment(experiment_file):
    with pytest.raises(ScenarioError):
        api.sweep(experiment_file(FAST.replace("replications = 2", "replications = -1")))


# One run (delay 30 ms at 10 Gbit/s, 40 s) takes seconds of CPU; the others a fraction of one.
# It comes first, so that on one worker the next run is in flight with it when it kills it.
KILLER = f"""
[experiment]
name = "killer"
scenario = "{WIRED}"
metrics = ["aggregate_goodput_bps"]

[set]
"tcp.send_buffer" = "8MiB"
"tcp.receive_buffer" = "8MiB"
"links.0.queue" = 10000

[zip]
"links.0.rate" = ["10Gbps", "10Mbps", "10Mbps", "10Mbps", "10Mbps"]
"simulation.duration" = ["40s", "6s", "6s", "6s", "6s"]
"links.0.delay" = ["30ms", "1ms", "2ms", "3ms", "4ms"]
"""


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_run_that_kills_its_worker_twice_is_recorded_as_failed(experiment_file, tmp_path):
    """Each worker may use 1 s of CPU (SIGXCPU beyond): the long run kills every worker it
    is given; the sweep must end, record it with the cause, and finish the others, also the
    one that shared the first broken pool with it."""
    path, out = experiment_file(KILLER), tmp_path / "out"
    process = _start_sweep(path, out, jobs=1)
    limited: set[int] = set()
    deadline = time.monotonic() + 120
    while process.poll() is None:
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("the sweep never ended")
        for pid in _workers(process.pid):
            if pid not in limited:
                with contextlib.suppress(OSError):
                    resource.prlimit(pid, resource.RLIMIT_CPU, (1, 2))
                limited.add(pid)
        time.sleep(0.01)
    _, stderr = process.communicate(timeout=10)
    assert process.returncode == 1, stderr
    assert "1 of 5 runs failed" in stderr
    frame = assert_exactly_once(out, 5)
    failed = frame[frame["status"] != "ok"]
    assert list(failed["links.0.delay"]) == ["30ms"]
    assert failed["error"].iloc[0].startswith("its worker process died 2 times (killed by SIGXCPU")
    assert (frame[frame["status"] == "ok"]["aggregate_goodput_bps"] > 5e6).all()


SCRIPT = """
import airtcp
rows = airtcp.sweep({experiment!r}, out={out!r}, jobs=2)
print("rows", len(rows))
"""


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_a_script_without_a_main_guard_can_sweep(experiment_file, tmp_path, how):
    """Worker processes do not import the calling script, so it needs no __main__ guard."""
    code = SCRIPT.format(experiment=str(experiment_file(FAST)), out=str(tmp_path / "out"))
    script = tmp_path / "sweep_script.py"
    script.write_text(code)
    command = [sys.executable, str(script)] if how == "file" else [sys.executable, "-"]
    result = subprocess.run(
        command, input=None if how == "file" else code, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["rows", "6"]
    assert "Traceback" not in result.stderr


def test_workers_that_cannot_start_stop_the_sweep_with_one_message(experiment_file, tmp_path):
    """Worker interpreters that die before running anything (here a wrapper that exits 3)
    end the sweep with one message instead of rebuilding the pool forever."""
    dying = tmp_path / "dying-python"
    dying.write_text("#!/bin/sh\nsleep 0.3\nexit 3\n")
    dying.chmod(0o755)
    code = (
        "import multiprocessing, sys\n"
        f"multiprocessing.set_executable({str(dying)!r})\n"
        "from airtcp.cli import main\n"
        f"sys.argv = ['airtcp', 'sweep', {str(experiment_file(FAST))!r}, '--out',"
        f" {str(tmp_path / 'out')!r}, '-q']\n"
        "main()\n"
    )
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert time.monotonic() - started < 30
    assert result.returncode == 1, result.stderr
    assert "error: worker processes could not start (exit code 3)" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_sigterm_stops_the_driver_and_its_workers(experiment_file, tmp_path):
    path, out = experiment_file(SLOW), tmp_path / "out"
    process = _start_sweep(path, out)
    _wait_for_runs(out, 3, process)
    workers = _workers(process.pid)
    assert workers
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert "terminated" in stderr and "Traceback" not in stderr
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = [pid for pid in workers if Path(f"/proc/{pid}").exists()]
    assert not alive, f"workers left behind: {alive}"
    again = airtcp("sweep", str(path), "--out", str(out), "-q")
    assert again.returncode == 0, again.stderr
    assert_exactly_once(out, 24)


def test_a_broken_pools_cause_is_the_death_that_is_not_its_own_sigterm():
    from types import SimpleNamespace

    from airtcp.experiments.sweeper import _death_cause

    def pool(*codes):
        return [SimpleNamespace(exitcode=code) for code in codes]

    # The pool terminated the others after one worker exited: whichever comes first.
    assert _death_cause(pool(-signal.SIGTERM, 3, None)) == "exit code 3"
    assert _death_cause(pool(3, -signal.SIGTERM)) == "exit code 3"
    assert _death_cause(pool(-signal.SIGTERM)) == "killed by SIGTERM"
    assert _death_cause(pool(0, -signal.SIGKILL)) == "killed by SIGKILL; out of memory?"
    assert _death_cause(pool(None, 0)) == "no exit status"


def test_validate_checks_an_experiment_and_dry_run_lists_its_points(experiment_file, tmp_path):
    path = experiment_file(FAST)
    checked = airtcp("validate", str(path))
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.strip() == (
        f"{path}: ok (experiment: 3 points x 2 replications = 6 runs of wired-tcp)"
    )
    builtin = airtcp("validate", "wired-buffer")
    assert builtin.returncode == 0 and "(experiment: 12 points x 3 replications" in builtin.stdout
    # a bad point is named as a sweep names it, before anything runs
    bad = tmp_path / "bad.toml"
    bad.write_text(FAST.replace('"20ms"]', '"-1ms"]'))
    result = airtcp("validate", str(bad))
    assert result.returncode == 2 and "links.0.delay=-1ms" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    refused = airtcp("validate", str(path), "--set", "simulation.duration=9s")
    assert refused.returncode == 2 and "--set applies to scenarios" in refused.stderr
    # the points in the grid's order, each with its seeds; nothing written
    out = tmp_path / "never"
    listed = airtcp("sweep", str(path), "--dry-run", "--out", str(out))
    assert listed.returncode == 0, listed.stderr
    rows = [line for line in listed.stdout.splitlines() if line.startswith("│")]
    assert [row.split("│")[2].strip() for row in rows] == ["5ms", "10ms", "20ms"]
    tasks = load_experiment(path).tasks
    assert all(str(task.seed) in rows[task.point] for task in tasks)
    assert f"would write to {out} (nothing run)" in listed.stdout
    assert not out.exists()


def test_a_report_of_an_empty_directory_is_one_line_and_leaves_nothing(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = airtcp("report", str(empty))
    assert result.returncode == 2 and "no runs to report" in result.stderr, result.stderr
    assert list(empty.iterdir()) == []
    # reading the results makes nothing either
    assert api.load_results(empty).empty
    assert list(empty.iterdir()) == []
