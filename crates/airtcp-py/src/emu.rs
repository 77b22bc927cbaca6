//! `_core.Emulation`: a scenario's network emulated between namespaces (crate `airtcp-emu`)
//! while Python runs the traffic tools in them. JSON across the boundary, as for runs.

use std::path::PathBuf;
use std::time::Duration;

use airtcp_emu::{netns, Emulation as EmulationCore, EmulationOptions, StartError};
use airtcp_sim::Scenario;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use crate::scenario_error;

/// An emulation: the hosts exist once made, `begin()` starts the clock, `stop()` ends it and returns the report (JSON). The hosts'
/// namespaces, devices and processes are removed by `stop()`, `close()` or garbage
/// collection, whichever comes first.
#[pyclass(module = "airtcp._core")]
pub struct Emulation {
    inner: Option<EmulationCore>,
}

fn os_error(error: impl std::fmt::Display) -> PyErr {
    PyOSError::new_err(error.to_string())
}

#[pymethods]
impl Emulation {
    #[new]
    #[pyo3(signature = (scenario_json, pcap_dir=None, pcap_snaplen=None, wall_limit_s=None, realtime=true, poll=false))]
    fn new(
        py: Python<'_>,
        scenario_json: String,
        pcap_dir: Option<PathBuf>,
        pcap_snaplen: Option<u32>,
        wall_limit_s: Option<f64>,
        realtime: bool,
        poll: bool,
    ) -> PyResult<Self> {
        let scenario = Scenario::from_json(&scenario_json).map_err(scenario_error)?;
        let options = EmulationOptions {
            pcap_dir,
            pcap_snaplen,
            wall_limit: wall_limit_s.map(|s| Duration::from_secs_f64(s.max(0.0))),
            realtime,
            poll,
        };
        let inner = py
            .detach(|| EmulationCore::start(scenario, &options))
            .map_err(|e| match e {
                StartError::Config(e) => scenario_error(e),
                StartError::Io(e) => os_error(e),
            })?;
        Ok(Emulation { inner: Some(inner) })
    }

    /// The end hosts as JSON: [{node, name, namespace, address}].
    fn hosts(&self) -> PyResult<String> {
        let inner = self.running()?;
        serde_json::to_string(inner.hosts()).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The (name, value) environment variable every process started in the hosts must
    /// carry: removing a namespace kills only the processes that do.
    fn process_marker(&self) -> PyResult<(&'static str, String)> {
        Ok(self.running()?.process_marker())
    }

    /// Starts the scenario's clock: time 0 is now (until then nothing is carried).
    fn begin(&mut self) -> PyResult<()> {
        self.inner
            .as_mut()
            .ok_or_else(|| os_error("the emulation was already stopped"))?
            .begin();
        Ok(())
    }

    /// Sets the kernel of the host on node index `node`: `sysctls` {key under /proc/sys:
    /// value} in its namespace and `route` attributes (["rto_min", "200ms", ...]).
    fn configure_host(
        &self,
        py: Python<'_>,
        node: usize,
        sysctls: Vec<(String, String)>,
        route: Vec<String>,
    ) -> PyResult<()> {
        let inner = self.running()?;
        let sysctls: Vec<(&str, &str)> = sysctls
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let route: Vec<&str> = route.iter().map(String::as_str).collect();
        py.detach(|| inner.configure_host(node, &sysctls, &route))
            .map_err(os_error)
    }

    /// Seconds since the scenario's time 0.
    fn elapsed_s(&self) -> PyResult<f64> {
        Ok(self.running()?.elapsed_s())
    }

    /// Stops the engine, removes the hosts and returns the report as JSON: {summary, lag,
    /// received, received_bin_s, scheduling, hit_wall_limit, device_drops, write_errors,
    /// malformed_reads, writes}.
    fn stop(&mut self, py: Python<'_>) -> PyResult<String> {
        let mut inner = self
            .inner
            .take()
            .ok_or_else(|| os_error("the emulation was already stopped"))?;
        let report = py.detach(move || {
            let report = inner.stop();
            drop(inner);
            report
        });
        let report = report.map_err(os_error)?;
        serde_json::to_string(&report).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Stops without a report (after an error or Ctrl-C); idempotent.
    fn close(&mut self, py: Python<'_>) {
        if let Some(inner) = self.inner.take() {
            py.detach(move || drop(inner));
        }
    }
}

impl Emulation {
    fn running(&self) -> PyResult<&EmulationCore> {
        self.inner
            .as_ref()
            .ok_or_else(|| os_error("the emulation was already stopped"))
    }
}

/// Removes airtcp's namespaces (marked as a run's) starting with `prefix` whose process is
/// gone (all of them with `force`), with the run's processes; returns their names.
#[pyfunction]
#[pyo3(signature = (prefix=netns::NAME_PREFIX.to_string(), force=false))]
pub fn emu_cleanup(py: Python<'_>, prefix: String, force: bool) -> PyResult<Vec<String>> {
    py.detach(|| netns::cleanup(&prefix, force))
        .map_err(os_error)
}

/// airtcp's namespaces now (any owner).
#[pyfunction]
pub fn emu_namespaces(py: Python<'_>) -> PyResult<Vec<String>> {
    py.detach(|| netns::list(netns::NAME_PREFIX))
        .map_err(os_error)
}
