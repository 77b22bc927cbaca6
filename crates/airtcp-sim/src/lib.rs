//! airtcp's deterministic packet-level discrete-event simulator.
//!
//! A [`Scenario`] (resolved by the Python layer from a TOML file) becomes a [`Simulation`]:
//! nodes with static routes, wired links with DropTail queues and error models, IEEE 802.11
//! BSSs with the DCF MAC, and flows driven by the sans-IO TCP of `airtcp-proto`. Time is
//! integer nanoseconds; events are ordered by (time, insertion); every random draw comes from
//! a stream derived from (seed, component). The same scenario and seed give bit-identical
//! results.

pub mod aqm;
pub mod config;
pub mod delivery_trace;
pub mod durations;
pub mod effective;
pub mod engine;
pub mod error_model;
pub mod interface;
pub mod limits;
pub mod link;
pub mod mobility;
pub mod one_way_delay;
pub mod packet;
pub mod payloads;
pub mod pcap;
pub mod ports;
pub mod queue;
pub mod queue_series;
pub mod radio;
pub mod rng;
pub mod routing;
pub mod sim;
pub mod slab;
pub mod sojourn;
pub mod summary;
pub mod validate;
pub mod wlan;
pub mod workload;

pub use config::{ConfigError, Scenario};
pub use sim::{Monitor, Progress, RunOptions, RunResult, Simulation};
pub use summary::ExternalCounters;
pub use summary::{Summary, TimeSeries};

/// Parses, validates and runs a resolved scenario given as JSON.
pub fn run_json(scenario_json: &str, options: &RunOptions) -> Result<RunResult, RunError> {
    let scenario = Scenario::from_json(scenario_json).map_err(RunError::Config)?;
    let simulation = Simulation::new(scenario, options).map_err(RunError::Config)?;
    simulation.run().map_err(RunError::Io)
}

#[derive(Debug)]
pub enum RunError {
    Config(ConfigError),
    Io(std::io::Error),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Config(e) => e.fmt(f),
            RunError::Io(e) => write!(f, "writing results: {e}"),
        }
    }
}

impl std::error::Error for RunError {}
