//! `airtcp._core`: the thin PyO3 layer. It passes JSON across the boundary (the resolved
//! scenario in, the summary out) plus the time series as raw columns, and releases the GIL
//! while the simulator runs so that threads scale. The scenario's bounds come from here too
//! (`limits`), so that they live once, in Rust.

mod emu;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use airtcp_proto::wifi::bianchi::{self, CollisionTiming, Params};
use airtcp_proto::wifi::edca::{AccessCategory, EdcaParams};
use airtcp_proto::wifi::{Modulation, Phy, Preamble};
use airtcp_sim::{
    limits as bounds, run_json, ConfigError, Monitor, Progress, RunError, RunOptions, Scenario,
    Simulation, TimeSeries,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A resolved scenario the simulator rejects: args are (key, message), the key naming the \
     resolved field."
);

fn scenario_error(e: ConfigError) -> PyErr {
    ScenarioError::new_err((e.key, e.message))
}

/// Checks a resolved scenario (JSON) exactly as a run would, without running it.
#[pyfunction]
fn check(py: Python<'_>, scenario_json: String) -> PyResult<()> {
    py.detach(|| Scenario::from_json(&scenario_json))
        .map(drop)
        .map_err(scenario_error)
}

/// The summary of a run of a resolved scenario, with zero counts (its shape), as JSON.
#[pyfunction]
fn summary_template(py: Python<'_>, scenario_json: String) -> PyResult<String> {
    let summary = py
        .detach(|| {
            let scenario = Scenario::from_json(&scenario_json)?;
            Simulation::new(scenario, &RunOptions::default()).map(|s| s.summary_template())
        })
        .map_err(scenario_error)?;
    serde_json::to_string(&summary).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The settings a run of a resolved scenario uses, defaults applied, as JSON.
#[pyfunction]
fn effective_settings(py: Python<'_>, scenario_json: String) -> PyResult<String> {
    let settings = py
        .detach(|| {
            let scenario = Scenario::from_json(&scenario_json)?;
            airtcp_sim::effective::effective_settings(&scenario)
        })
        .map_err(scenario_error)?;
    Ok(settings.to_string())
}

/// Jain's fairness index of `values` (the summary's `jain_fairness`), for summaries whose
/// flows were measured outside the simulator (emulation).
#[pyfunction]
fn jain_index(values: Vec<f64>) -> f64 {
    airtcp_sim::summary::jain_index(&values)
}

/// The opportunities (ms) of a mahimahi packet-delivery trace's text; a ValueError names the
/// line at fault (`airtcp_sim::delivery_trace`).
#[pyfunction]
fn parse_delivery_trace(text: &str) -> PyResult<Vec<u64>> {
    airtcp_sim::delivery_trace::parse(text).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// The TCP segments of a node's pcap trace as columns (`airtcp_sim::pcap::tcp_records`):
/// time_ns, src and dst (IPv4 as integers), ports, seq, ack (-1 without the ACK flag),
/// payload_bytes, syn, fin. A ValueError names the file and what is wrong with it.
#[pyfunction]
fn tcp_records(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyDict>> {
    let records = py
        .detach(|| airtcp_sim::pcap::tcp_records(&path))
        .map_err(PyValueError::new_err)?;
    let columns = PyDict::new(py);
    let column = |f: fn(&airtcp_sim::pcap::TcpRecord) -> i64| -> Vec<i64> {
        records.iter().map(f).collect()
    };
    columns.set_item("time_ns", column(|r| r.time_ns as i64))?;
    columns.set_item("src", column(|r| i64::from(r.src)))?;
    columns.set_item("dst", column(|r| i64::from(r.dst)))?;
    columns.set_item("src_port", column(|r| i64::from(r.src_port)))?;
    columns.set_item("dst_port", column(|r| i64::from(r.dst_port)))?;
    columns.set_item("seq", column(|r| i64::from(r.seq)))?;
    columns.set_item("ack", column(|r| r.ack.map_or(-1, i64::from)))?;
    columns.set_item("payload_bytes", column(|r| i64::from(r.payload_bytes)))?;
    columns.set_item("syn", records.iter().map(|r| r.syn).collect::<Vec<_>>())?;
    columns.set_item("fin", records.iter().map(|r| r.fin).collect::<Vec<_>>())?;
    Ok(columns)
}

/// The agent kinds a scenario can name (`airtcp_proto::agent::AGENTS`).
#[pyfunction]
fn agent_kinds() -> Vec<&'static str> {
    airtcp_proto::agent::AGENTS.to_vec()
}

/// The rate control algorithms a WLAN can name (`airtcp_proto::wifi::rate_control`).
#[pyfunction]
fn rate_controls() -> Vec<&'static str> {
    airtcp_proto::wifi::rate_control::RATE_CONTROLS.to_vec()
}

/// The PHYs a WLAN can name (`airtcp_sim::config::PhyStandard::WLAN`), each with whether
/// it sends data at an MCS (802.11n, ac, ax) rather than a rate.
#[pyfunction]
fn wlan_phys() -> Vec<(&'static str, bool)> {
    airtcp_sim::config::PhyStandard::WLAN
        .iter()
        .map(|phy| (phy.name(), phy.mcs_format().is_some()))
        .collect()
}

/// The queueing a WLAN can name (`airtcp_sim::wlan::Queueing`), the default first.
#[pyfunction]
fn wlan_queueings() -> Vec<&'static str> {
    airtcp_sim::wlan::Queueing::NAMES.to_vec()
}

/// The flow-size distributions a workload can name (`airtcp_sim::workload`).
#[pyfunction]
fn workload_distributions() -> Vec<&'static str> {
    airtcp_sim::workload::SizeDistribution::NAMES.to_vec()
}

/// The AQMs a wired link direction can name (`airtcp_sim::aqm::AqmConfig`), the default
/// (DropTail) first.
#[pyfunction]
fn link_aqms() -> Vec<&'static str> {
    airtcp_sim::aqm::AqmConfig::KINDS.to_vec()
}

/// The driver queues a WLAN can name (`airtcp_sim::wlan::DriverQueue`), the default first.
#[pyfunction]
fn wlan_driver_queues() -> Vec<&'static str> {
    airtcp_sim::wlan::DriverQueue::NAMES.to_vec()
}

/// The access categories of EDCA (`airtcp_proto::wifi::edca`), lowest priority first.
#[pyfunction]
fn access_categories() -> Vec<&'static str> {
    airtcp_proto::wifi::edca::AccessCategory::NAMES.to_vec()
}

/// The DSCPs' names and values (`airtcp_proto::wifi::edca::DSCP_NAMES`).
#[pyfunction]
fn dscp_names() -> Vec<(&'static str, u8)> {
    airtcp_proto::wifi::edca::DSCP_NAMES.to_vec()
}

/// The congestion controllers a scenario can name (`airtcp_proto::tcp::cc::VARIANTS`).
#[pyfunction]
fn congestion_controls() -> Vec<&'static str> {
    airtcp_proto::tcp::cc::VARIANTS.to_vec()
}

/// The congestion controllers' parameters (`airtcp_proto::tcp::cc::PARAMS`): name, the
/// controllers that read it, default, and bounds (`None` for a flag).
#[pyfunction]
fn congestion_params(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let defaults = serde_json::to_value(airtcp_proto::tcp::cc::CongestionParams::default())
        .expect("plain fields");
    airtcp_proto::tcp::cc::PARAMS
        .iter()
        .map(|spec| {
            let out = PyDict::new(py);
            out.set_item("name", spec.name)?;
            out.set_item("controllers", spec.controllers.to_vec())?;
            match &defaults[spec.name] {
                serde_json::Value::Bool(flag) => out.set_item("default", *flag)?,
                number => match number.as_u64() {
                    Some(whole) => out.set_item("default", whole)?,
                    None => out.set_item("default", number.as_f64())?,
                },
            }
            out.set_item("bounds", spec.bounds)?;
            Ok(out)
        })
        .collect()
}

/// The bounds of a scenario (`airtcp_sim::limits`), for the Python schema.
#[pyfunction]
fn limits(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("max_flows", bounds::MAX_FLOWS)?;
    out.set_item("max_nodes", bounds::MAX_NODES)?;
    out.set_item("max_stations", bounds::MAX_STATIONS)?;
    out.set_item("max_retry_limit", bounds::MAX_RETRY_LIMIT)?;
    out.set_item(
        "max_firmware_queue_frames",
        bounds::MAX_FIRMWARE_QUEUE_FRAMES,
    )?;
    out.set_item("max_series_samples", bounds::MAX_SERIES_SAMPLES)?;
    out.set_item("series_sample_bytes", bounds::SERIES_SAMPLE_BYTES)?;
    out.set_item("min_sample_interval_ns", bounds::MIN_SAMPLE_INTERVAL_NS)?;
    out.set_item("max_node_name_len", bounds::MAX_NODE_NAME_LEN)?;
    Ok(out)
}

/// Runs a resolved scenario (JSON). Returns the summary as JSON and the time series as
/// {"flow_names": [...], column: bytes of little-endian values}; the columns are empty
/// unless `time_series`. `progress(simulated_s, duration_s, events)` is called now and then
/// from the main thread; it may raise (Ctrl-C) to stop the run.
#[pyfunction]
#[pyo3(signature = (scenario_json, pcap_dir=None, wall_limit_s=None, time_series=false,
                    pcap_snaplen=None, progress=None, wlan_pcap_dir=None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, each optional
fn run<'py>(
    py: Python<'py>,
    scenario_json: String,
    pcap_dir: Option<PathBuf>,
    wall_limit_s: Option<f64>,
    time_series: bool,
    pcap_snaplen: Option<u32>,
    progress: Option<Py<PyAny>>,
    wlan_pcap_dir: Option<PathBuf>,
) -> PyResult<(String, Bound<'py, PyDict>)> {
    let wall_limit = wall_limit_s.map(|s| std::time::Duration::from_secs_f64(s.max(0.0)));
    // Ctrl-C: Python's C-level handler only records the signal while Rust runs; running the
    // handlers now and then lets a long run stop promptly (a no-op off the main thread). The
    // exception a handler or the progress callback raised is the one the run raises.
    let raised: Arc<Mutex<Option<PyErr>>> = Arc::default();
    let stop = Arc::clone(&raised);
    let monitor = Monitor(Arc::new(move |p: &Progress| {
        Python::attach(|py| {
            let outcome = py.check_signals().and_then(|()| match &progress {
                Some(callback) => callback
                    .call1(py, (p.simulated_s, p.duration_s, p.events))
                    .map(drop),
                None => Ok(()),
            });
            match outcome {
                Ok(()) => false,
                Err(error) => {
                    *stop.lock().unwrap_or_else(PoisonError::into_inner) = Some(error);
                    true
                }
            }
        })
    }));
    let options = RunOptions {
        pcap_dir,
        wlan_pcap_dir,
        pcap_snaplen,
        time_series,
        wall_limit,
        monitor: Some(monitor),
        external_hosts: false,
    };
    let result = py.detach(|| run_json(&scenario_json, &options));
    let result = match result {
        Ok(result) => result,
        Err(RunError::Config(e)) => return Err(scenario_error(e)),
        Err(RunError::Io(e)) if e.kind() == std::io::ErrorKind::Interrupted => {
            let error = raised.lock().unwrap_or_else(PoisonError::into_inner).take();
            return Err(error.unwrap_or_else(|| PyKeyboardInterrupt::new_err(e.to_string())));
        }
        Err(RunError::Io(e)) if e.kind() == std::io::ErrorKind::TimedOut => {
            return Err(PyTimeoutError::new_err(e.to_string()))
        }
        Err(RunError::Io(e)) => return Err(PyOSError::new_err(e.to_string())),
    };
    let summary =
        serde_json::to_string(&result.summary).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((summary, series_columns(py, result.series)?))
}

/// The time series as raw little-endian columns, each written straight into a Python bytes
/// object and freed on the Rust side once copied, so that the peak memory is the series plus
/// one column.
fn series_columns(py: Python<'_>, series: TimeSeries) -> PyResult<Bound<'_, PyDict>> {
    fn column<'py, T: Copy, const N: usize>(
        py: Python<'py>,
        values: Vec<T>,
        to_le: impl Fn(T) -> [u8; N],
    ) -> PyResult<Bound<'py, PyBytes>> {
        PyBytes::new_with(py, values.len() * N, |buffer| {
            for (chunk, value) in buffer.chunks_exact_mut(N).zip(values) {
                chunk.copy_from_slice(&to_le(value));
            }
            Ok(())
        })
    }
    let out = PyDict::new(py);
    out.set_item("flow_names", series.flow_names)?;
    out.set_item("flow", column(py, series.flow, u32::to_le_bytes)?)?;
    for (name, values) in [
        ("cwnd_bytes", series.cwnd_bytes),
        ("send_window_bytes", series.send_window_bytes),
    ] {
        out.set_item(name, column(py, values, u32::to_le_bytes)?)?;
    }
    for (name, values) in [
        ("time_s", series.time_s),
        ("ssthresh_bytes", series.ssthresh_bytes),
        ("srtt_ms", series.srtt_ms),
        ("goodput_bps", series.goodput_bps),
    ] {
        out.set_item(name, column(py, values, f64::to_le_bytes)?)?;
    }
    for (name, values) in [
        ("bytes_acked", series.bytes_acked),
        ("acks_sent", series.acks_sent),
        ("acks_received", series.acks_received),
    ] {
        out.set_item(name, column(py, values, u64::to_le_bytes)?)?;
    }
    out.set_item(
        "in_handoff",
        column(py, series.in_handoff, |b| [u8::from(b)])?,
    )?;
    let macs = series.macs;
    let mac_columns = PyDict::new(py);
    mac_columns.set_item("nodes", macs.nodes)?;
    mac_columns.set_item("wlans", macs.wlans)?;
    mac_columns.set_item("mac", column(py, macs.mac, u32::to_le_bytes)?)?;
    for (name, values) in [
        ("time_s", macs.time_s),
        ("rate_bps", macs.rate_bps),
        ("rssi_dbm", macs.rssi_dbm),
    ] {
        mac_columns.set_item(name, column(py, values, f64::to_le_bytes)?)?;
    }
    for (name, values) in [("attempts", macs.attempts), ("failures", macs.failures)] {
        mac_columns.set_item(name, column(py, values, u64::to_le_bytes)?)?;
    }
    out.set_item("macs", mac_columns)?;
    let queues = series.queues;
    let queue_columns = PyDict::new(py);
    queue_columns.set_item("directions", queues.directions)?;
    queue_columns.set_item("direction", column(py, queues.direction, u32::to_le_bytes)?)?;
    queue_columns.set_item("time_s", column(py, queues.time_s, f64::to_le_bytes)?)?;
    queue_columns.set_item("packets", column(py, queues.packets, u32::to_le_bytes)?)?;
    for (name, values) in [
        ("bytes", queues.bytes),
        ("drops", queues.drops),
        ("ecn_marks", queues.ecn_marks),
        ("dequeued", queues.dequeued),
    ] {
        queue_columns.set_item(name, column(py, values, u64::to_le_bytes)?)?;
    }
    for (name, values) in [
        ("sojourn_mean_ms", queues.sojourn_mean_ms),
        ("sojourn_max_ms", queues.sojourn_max_ms),
    ] {
        queue_columns.set_item(name, column(py, values, f64::to_le_bytes)?)?;
    }
    out.set_item("queues", queue_columns)?;
    let delays = series.delays;
    let delay_columns = PyDict::new(py);
    delay_columns.set_item("flow", column(py, delays.flow, u32::to_le_bytes)?)?;
    delay_columns.set_item("packets", column(py, delays.packets, u64::to_le_bytes)?)?;
    for (name, values) in [
        ("time_s", delays.time_s),
        ("mean_ms", delays.mean_ms),
        ("max_ms", delays.max_ms),
        ("jitter_ms", delays.jitter_ms),
    ] {
        delay_columns.set_item(name, column(py, values, f64::to_le_bytes)?)?;
    }
    out.set_item("delays", delay_columns)?;
    Ok(out)
}

/// Bianchi's model for a PHY over a range of station counts; returns JSON.
#[pyfunction]
#[pyo3(signature = (phy, payload, first, last, rts, cw_min=None, stages=None, rate_bps=None, basic_rate_bps=None, retry_limit=None, model=None, eifs_after_collision=true, mcs_settings=None, ampdu=None, edca=None))]
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
    model: Option<&str>,
    eifs_after_collision: bool,
    mcs_settings: Option<String>,
    ampdu: Option<bool>,
    edca: Option<bool>,
) -> PyResult<String> {
    let invalid = |e: airtcp_proto::wifi::PhyError| PyValueError::new_err(e.message);
    let mac = CollisionTiming::Mac {
        eifs_after_collision,
    };
    // The PHY's own DCF unless asked: the standard's for 802.11b/g, Bianchi's for his set.
    let (mut model_phy, default_timing) = match phy {
        "802.11b" => (
            Phy::dsss(
                rate_bps.unwrap_or(11_000_000),
                basic_rate_bps.unwrap_or(1_000_000),
                Preamble::Long,
            )
            .map_err(invalid)?,
            mac,
        ),
        "802.11g" => (
            Phy::erp_ofdm(rate_bps.unwrap_or(54_000_000), basic_rate_bps, true).map_err(invalid)?,
            mac,
        ),
        "bianchi2000" => (
            Phy::bianchi2000(cw_min.unwrap_or(31), stages.unwrap_or(5)),
            CollisionTiming::Bianchi,
        ),
        // The PHYs a scenario's WLAN has, with its settings (`mcs_settings`: the resolved
        // phy table's MCS keys, as JSON).
        "802.11a" | "802.11n" | "802.11ac" | "802.11ax" => {
            let mut config =
                serde_json::from_str::<serde_json::Value>(mcs_settings.as_deref().unwrap_or("{}"))
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
            config["standard"] = phy.into();
            if phy == "802.11a" {
                config["rate_bps"] = rate_bps.unwrap_or(54_000_000).into();
            }
            let config: airtcp_sim::config::PhyConfig =
                serde_json::from_value(config).map_err(|e| PyValueError::new_err(e.to_string()))?;
            let built = config
                .build()
                .map_err(|(field, message)| PyValueError::new_err(format!("{field}: {message}")))?;
            (built, mac)
        }
        other => return Err(PyValueError::new_err(format!("unknown PHY '{other}'"))),
    };
    let timing = match model {
        None => default_timing,
        Some("bianchi") => CollisionTiming::Bianchi,
        Some("mac") => mac,
        Some(name) => {
            return Err(PyValueError::new_err(format!(
                "unknown model '{name}' (bianchi or mac)"
            )))
        }
    };
    if let Some(cw) = cw_min {
        let stages = stages.unwrap_or(model_phy.backoff_stages());
        model_phy.cw_min = cw;
        model_phy.cw_max = ((cw + 1) << stages) - 1;
    } else if let Some(stages) = stages {
        model_phy.cw_max = ((model_phy.cw_min + 1) << stages) - 1;
    }
    // An MCS PHY aggregates as a scenario's WLAN does by default: A-MPDUs as long as its
    // limits allow, the A-MPDU the model's frame.
    let limits = match model_phy.modulation {
        Modulation::Mcs(setting) if ampdu != Some(false) && !rts => {
            Some(airtcp_sim::wlan::AmpduLimits::of(setting.format))
        }
        _ => None,
    };
    let aggregate = limits.and_then(|limits| {
        let ampdu = (limits.max_bytes, limits.max_ppdu_ns);
        Params::for_longest_ampdu(
            &model_phy,
            payload,
            limits.window,
            ampdu,
            timing,
            retry_limit,
        )
    });
    let (mpdus, mut params) = match aggregate {
        Some((mpdus, params)) => (Some(mpdus), params),
        None => (
            None,
            Params::from_phy(&model_phy, payload, rts, timing, retry_limit),
        ),
    };
    // EDCA as a scenario's WLAN has it by default (on for the MCS PHYs): AC_BE's AIFS
    let qos = matches!(model_phy.modulation, Modulation::Mcs(_));
    let be = edca.unwrap_or(qos).then(|| {
        let dsss = matches!(model_phy.modulation, Modulation::Dsss(_));
        EdcaParams::station(AccessCategory::Be, model_phy.cw_min, model_phy.cw_max, dsss)
    });
    if let Some(be) = &be {
        params = params.with_edca(be);
    }
    let points: Vec<_> = (first..=last).map(|n| bianchi::solve(&params, n)).collect();
    let best = bianchi::optimal_stations(&params, 1..=last.max(100));
    let out = serde_json::json!({
        "phy": phy, "payload_bytes": payload, "rts_cts": rts,
        "data_rate_bps": model_phy.data_rate_bps, "mpdus_per_ampdu": mpdus,
        "model": if timing == CollisionTiming::Bianchi { "bianchi" } else { "mac" },
        "eifs_after_collision": (timing == mac).then_some(eifs_after_collision),
        "retry_limit": retry_limit,
        "cw_min": model_phy.cw_min, "cw_max": model_phy.cw_max,
        "slot_us": model_phy.slot_ns as f64 / 1e3,
        "aifsn": be.map(|be| be.aifsn),
        "success_time_us": params.success_time * 1e6, "collision_time_us": params.collision_time * 1e6,
        "points": points, "optimal": best,
    });
    Ok(out.to_string())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(limits, m)?)?;
    m.add_function(wrap_pyfunction!(agent_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(rate_controls, m)?)?;
    m.add_function(wrap_pyfunction!(wlan_phys, m)?)?;
    m.add_function(wrap_pyfunction!(congestion_controls, m)?)?;
    m.add_function(wrap_pyfunction!(congestion_params, m)?)?;
    m.add_function(wrap_pyfunction!(effective_settings, m)?)?;
    m.add_function(wrap_pyfunction!(summary_template, m)?)?;
    m.add_function(wrap_pyfunction!(jain_index, m)?)?;
    m.add_function(wrap_pyfunction!(parse_delivery_trace, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_records, m)?)?;
    m.add_function(wrap_pyfunction!(bianchi_model, m)?)?;
    m.add_function(wrap_pyfunction!(wlan_queueings, m)?)?;
    m.add_function(wrap_pyfunction!(link_aqms, m)?)?;
    m.add_function(wrap_pyfunction!(workload_distributions, m)?)?;
    m.add_function(wrap_pyfunction!(wlan_driver_queues, m)?)?;
    m.add_function(wrap_pyfunction!(access_categories, m)?)?;
    m.add_function(wrap_pyfunction!(dscp_names, m)?)?;
    m.add_class::<emu::Emulation>()?;
    m.add_function(wrap_pyfunction!(emu::emu_cleanup, m)?)?;
    m.add_function(wrap_pyfunction!(emu::emu_namespaces, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // the commit it was built from, when built from a checkout (build.rs)
    m.add("__commit__", option_env!("AIRTCP_COMMIT"))?;
    Ok(())
}
