//! `airtcp._core`: the thin PyO3 layer. It passes JSON across the boundary (the resolved
//! scenario in, the summary out) plus the time series as columns, and releases the GIL
//! while the simulator runs so that threads scale.

use std::path::PathBuf;
use std::sync::Arc;

use airtcp_proto::wifi::bianchi::{self, CollisionTiming, Params};
use airtcp_proto::wifi::{Phy, Preamble};
use airtcp_sim::{run_json, RunError, RunOptions, StopCheck};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A resolved scenario the simulator rejects: args are (key, message)."
);

/// Runs a resolved scenario (JSON); returns (summary JSON, time-series columns).
#[pyfunction]
#[pyo3(signature = (scenario_json, pcap_dir=None, wall_limit_s=None))]
fn run<'py>(
    py: Python<'py>,
    scenario_json: String,
    pcap_dir: Option<PathBuf>,
    wall_limit_s: Option<f64>,
) -> PyResult<(String, Bound<'py, PyDict>)> {
    let wall_limit = wall_limit_s.map(|s| std::time::Duration::from_secs_f64(s.max(0.0)));
    // Ctrl-C: Python's C-level handler only records the signal while Rust runs; asking it now
    // and then lets a long run stop promptly (a no-op off the main thread).
    let stop = StopCheck(Arc::new(|| {
        Python::attach(|py| py.check_signals().is_err())
    }));
    let options = RunOptions {
        pcap_dir,
        wall_limit,
        stop: Some(stop),
    };
    let result = py.detach(|| run_json(&scenario_json, &options));
    let result = match result {
        Ok(result) => result,
        Err(RunError::Config(e)) => return Err(ScenarioError::new_err((e.key, e.message))),
        Err(RunError::Io(e)) if e.kind() == std::io::ErrorKind::Interrupted => {
            return Err(PyKeyboardInterrupt::new_err(e.to_string()))
        }
        Err(RunError::Io(e)) if e.kind() == std::io::ErrorKind::TimedOut => {
            return Err(PyTimeoutError::new_err(e.to_string()))
        }
        Err(RunError::Io(e)) => return Err(PyOSError::new_err(e.to_string())),
    };
    let summary =
        serde_json::to_string(&result.summary).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let series = PyDict::new(py);
    let s = result.series;
    series.set_item("flow", s.flow)?;
    series.set_item("time_s", s.time_s)?;
    series.set_item("cwnd_bytes", s.cwnd_bytes)?;
    series.set_item("ssthresh_bytes", s.ssthresh_bytes)?;
    series.set_item("srtt_ms", s.srtt_ms)?;
    series.set_item("bytes_acked", s.bytes_acked)?;
    series.set_item("goodput_bps", s.goodput_bps)?;
    Ok((summary, series))
}

/// Bianchi's model for a PHY over a range of station counts; returns JSON.
#[pyfunction]
#[pyo3(signature = (phy, payload, first, last, rts, cw_min=None, stages=None, rate_bps=None, basic_rate_bps=None, retry_limit=None))]
#[allow(clippy::too_many_arguments)]
fn bianchi_model(
    phy: &str,
    payload: u32,
    first: u32,
    last: u32,
    rts: bool,
    cw_min: Option<u32>,
    stages: Option<u32>,
    rate_bps: Option<u64>,
    basic_rate_bps: Option<u64>,
    retry_limit: Option<u32>,
) -> PyResult<String> {
    let invalid = |e: airtcp_proto::wifi::PhyError| PyValueError::new_err(e.0);
    let (mut model_phy, timing) = match phy {
        "802.11b" => (
            Phy::dsss(
                rate_bps.unwrap_or(11_000_000),
                basic_rate_bps.unwrap_or(1_000_000),
                Preamble::Long,
            )
            .map_err(invalid)?,
            CollisionTiming::Eifs,
        ),
        "802.11g" => (
            Phy::erp_ofdm(rate_bps.unwrap_or(54_000_000), basic_rate_bps, true).map_err(invalid)?,
            CollisionTiming::Eifs,
        ),
        "bianchi2000" => (
            Phy::bianchi2000(cw_min.unwrap_or(31), stages.unwrap_or(5)),
            CollisionTiming::Bianchi2000,
        ),
        other => return Err(PyValueError::new_err(format!("unknown PHY '{other}'"))),
    };
    if let Some(cw) = cw_min {
        let stages = stages.unwrap_or(model_phy.backoff_stages());
        model_phy.cw_min = cw;
        model_phy.cw_max = ((cw + 1) << stages) - 1;
    } else if let Some(stages) = stages {
        model_phy.cw_max = ((model_phy.cw_min + 1) << stages) - 1;
    }
    let params = Params::from_phy(&model_phy, payload, rts, timing, retry_limit);
    let points: Vec<_> = (first..=last).map(|n| bianchi::solve(&params, n)).collect();
    let best = bianchi::optimal_stations(&params, 1..=last.max(100));
    let out = serde_json::json!({
        "phy": phy, "payload_bytes": payload, "rts_cts": rts,
        "cw_min": model_phy.cw_min, "cw_max": model_phy.cw_max,
        "slot_us": model_phy.slot_ns as f64 / 1e3,
        "success_time_us": params.success_time * 1e6, "collision_time_us": params.collision_time * 1e6,
        "points": points, "optimal": best,
    });
    Ok(out.to_string())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(bianchi_model, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
