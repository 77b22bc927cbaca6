"""Per-flow one-way delay (docs/scenarios.md, "One-way delay"): `simulation.one_way_delay`
reaches the simulator only when set, a run prints each timed flow's delay and jitter and
writes delays.parquet, `airtcp plot` draws it, and emulation refuses it by name.
(crates/airtcp-sim/tests/one_way_delay.rs checks the delays by hand.)"""

from pathlib import Path

import airtcp as api
import pandas as pd
import pytest
from airtcp.emulation.runner import _unsupported
from airtcp.scenario.resolve import resolve
from airtcp.scenario.schema import ScenarioError, load
from conftest import airtcp

SHORT = {"simulation.duration": "8s", "simulation.measure_from": "4s"}
SETS = {"simulation.one_way_delay": "true"} | SHORT


def test_the_setting_reaches_the_simulator_only_when_set():
    assert "one_way_delay" not in resolve(load("bufferbloat"))[0]
    timed = api.prepare("bufferbloat", overrides={"simulation.one_way_delay": "true"})
    assert timed["one_way_delay"] is True


def test_a_run_prints_and_writes_each_timed_flows_delay(tmp_path: Path):
    sets = [f"--set={key}={value}" for key, value in SETS.items()]
    printed = airtcp("run", "bufferbloat", *sets, "--out", str(tmp_path / "run"), "--plot")
    assert printed.returncode == 0, printed.stderr
    run = api.run("bufferbloat", overrides=SETS)
    bulk = [flow for flow in run.summary["flows"] if flow["kind"] == "tcp_bulk"]
    assert bulk and all(flow["one_way_delay"]["packets"] > 0 for flow in bulk)
    ping = next(flow for flow in run.summary["flows"] if flow["kind"] == "ping")
    assert "one_way_delay" not in ping, "a ping has its own probes"
    for flow in bulk:
        delay = flow["one_way_delay"]
        line = f"one-way delay {flow['name']}: {delay['packets']} packets; min/avg/max = "
        assert line in printed.stdout
        # 20 ms each way and a 1500-byte packet at 10 Mbit/s at least
        assert delay["min_ms"] >= 21.2 - 1e-9 and delay["max_ms"] >= delay["mean_ms"]
    written = pd.read_parquet(tmp_path / "run" / "delays.parquet")
    assert list(written.columns) == ["flow", "time_s", "packets", "mean_ms", "max_ms", "jitter_ms"]
    assert set(written["flow"]) == {flow["name"] for flow in bulk}
    assert len(run.delays) == len(written)
    assert (tmp_path / "run" / "run.png").stat().st_size > 0


def test_off_nothing_is_written(tmp_path: Path):
    run = api.run("bufferbloat", overrides=SHORT)
    assert all("one_way_delay" not in flow for flow in run.summary["flows"])
    run.write(tmp_path / "run")
    assert not (tmp_path / "run" / "delays.parquet").exists()


def test_emulation_refuses_it_by_name():
    resolved = api.prepare("bufferbloat", overrides={"simulation.one_way_delay": "true"})
    with pytest.raises(ScenarioError, match=r"simulation\.one_way_delay.*simulator-only"):
        _unsupported(resolved)
