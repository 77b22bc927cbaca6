//! The resolved scenario the simulator runs: plain numbers (ns, bit/s, bytes) and node
//! indices. Python turns a user's TOML (units, templates, dotted overrides) into this JSON;
//! the same schema will drive the emulator. Unknown fields are errors here too, so a
//! mismatch between the two layers cannot pass silently.
//!
//! The scenario's types sit below the modules that run them: `interface`, `mobility`,
//! `radio` and `wlan` take their settings from here and nothing here imports them (the
//! settings of a queue, an AQM, an error model and a workload come from `queue`, `aqm`,
//! `error_model` and `workload`, which import nothing of this). Its parts: the PHY (`phy`),
//! WLANs (`wlan`) and the parameters their MACs run with (`mac`), agents (`agent`), flows
//! (`flow`), the radio channel (`radio`) and mobile hosts (`mobility`); this file keeps the
//! scenario, its wired links and the error type.

use std::fmt;

use serde::Deserialize;

use crate::aqm::AqmConfig;
use crate::error_model::ErrorModel;
use crate::queue::QueueLimit;

mod agent;
mod flow;
mod mac;
mod mobility;
mod phy;
mod radio;
mod wlan;

pub use agent::{AgentConfig, FastRecoveryConfig, MobilitySetting};
pub use flow::{AppConfig, FlowConfig, TcpOverrides};
pub use mac::{AmpduLimits, Driver, DriverQueue, EdcaSet, Qdisc, Queueing};
pub use mobility::{
    Coverage, Detached, HandoffConfig, MobileConfig, Movement, Procedure, Waypoint,
};
pub use phy::{BandConfig, PhyConfig, PhyStandard};
pub use radio::{
    DcfModel, FadingConfig, MotionConfig, NodePosition, PathPoint, PropagationConfig, RadioConfig,
};
pub use wlan::{EdcaOverride, StationMcs, StationRate, WlanConfig};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    pub seed: u64,
    pub duration_ns: u64,
    /// Goodput is measured from here to the end.
    #[serde(default)]
    pub measure_from_ns: u64,
    /// Per-flow time series sampling period; 0 disables it.
    #[serde(default)]
    pub sample_interval_ns: u64,
    /// Time each TCP bulk and UDP flow's data packets from sender to receiver
    /// (`one_way_delay`); off by default (it costs a queue operation a packet).
    #[serde(default)]
    pub one_way_delay: bool,
    /// Measure the sojourn of every packet through each wired link direction's queue and
    /// each WLAN MAC's, and put the MACs' queues in the queue series (`queue_sojourn`;
    /// `crate::sojourn`, `wlan::dcf::queue_meter`); off by default (a DropTail queue then
    /// keeps arrival times).
    #[serde(default)]
    pub queue_sojourn: bool,
    pub nodes: Vec<String>,
    #[serde(default)]
    pub links: Vec<LinkConfig>,
    #[serde(default)]
    pub wlans: Vec<WlanConfig>,
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// Agents on nodes' interfaces, after each WLAN's `agent` (placed on its AP).
    #[serde(default)]
    pub agents: Vec<AgentPlacement>,
    /// Mobile hosts and their handoffs between base stations.
    #[serde(default)]
    pub mobiles: Vec<MobileConfig>,
    /// The radio channel of WLANs with geometry (`crate::radio`).
    #[serde(default)]
    pub radio: RadioConfig,
    /// Where nodes' radios are; a WLAN any of whose nodes has one has geometry.
    #[serde(default)]
    pub positions: Vec<NodePosition>,
}

/// An agent on a node's interface: `interface` names the peer of a wired link or `"wlan"`,
/// and may be left out when the node has one interface.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentPlacement {
    pub node: usize,
    #[serde(default)]
    pub interface: Option<String>,
    pub agent: AgentConfig,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub a: usize,
    pub b: usize,
    pub a_to_b: DirectionConfig,
    pub b_to_a: DirectionConfig,
    /// Times the link is down both ways (a cable pulled, a radio link lost): the packet on
    /// the wire and everything sent meanwhile are lost.
    #[serde(default)]
    pub outages: Vec<OutageConfig>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutageConfig {
    pub at_ns: u64,
    pub duration_ns: u64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionConfig {
    /// A constant rate, or instead `trace_ms`: the times of a mahimahi packet-delivery
    /// trace (`crate::delivery_trace`).
    #[serde(default)]
    pub rate_bps: Option<u64>,
    #[serde(default)]
    pub trace_ms: Option<Vec<u64>>,
    pub delay_ns: u64,
    #[serde(default)]
    pub queue: QueueLimit,
    /// DropTail without one (`crate::aqm`).
    #[serde(default)]
    pub aqm: AqmConfig,
    #[serde(default)]
    pub errors: ErrorModel,
}

impl DirectionConfig {
    /// The constant rate, or a trace's average rate.
    pub fn mean_rate_bps(&self) -> u64 {
        match (&self.trace_ms, self.rate_bps) {
            (Some(times), _) => crate::delivery_trace::mean_rate_bps(times),
            (None, rate) => rate.unwrap_or(0),
        }
    }
}

/// A scenario that cannot run: the resolved field at fault and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

impl std::error::Error for ConfigError {}

impl Scenario {
    /// Parses and validates (`crate::validate`) a resolved scenario.
    pub fn from_json(text: &str) -> Result<Scenario, ConfigError> {
        let scenario: Scenario = serde_json::from_str(text).map_err(|e| ConfigError {
            key: "scenario".into(),
            message: e.to_string(),
        })?;
        scenario.validate()?;
        Ok(scenario)
    }
}
