//! The resolved scenario the simulator runs: plain numbers (ns, bit/s, bytes) and node
//! indices. Python turns a user's TOML (units, templates, dotted overrides) into this JSON;
//! the same schema will drive the emulator. Unknown fields are errors here too, so a
//! mismatch between the two layers cannot pass silently.

use std::fmt;
use std::time::Duration;

use airtcp_proto::tcp::{cc, TcpConfig, TcpProfile};
use airtcp_proto::wifi::{Phy, Preamble};
use serde::Deserialize;

use crate::error_model::ErrorModel;
use crate::queue::QueueLimit;

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
    pub nodes: Vec<String>,
    #[serde(default)]
    pub links: Vec<LinkConfig>,
    #[serde(default)]
    pub wlans: Vec<WlanConfig>,
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub a: usize,
    pub b: usize,
    pub a_to_b: DirectionConfig,
    pub b_to_a: DirectionConfig,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionConfig {
    pub rate_bps: u64,
    pub delay_ns: u64,
    #[serde(default)]
    pub queue: QueueLimit,
    #[serde(default)]
    pub errors: ErrorModel,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum PhyStandard {
    #[serde(rename = "802.11b")]
    Dsss,
    #[serde(rename = "802.11g")]
    ErpOfdm,
    #[serde(rename = "bianchi2000")]
    Bianchi2000,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhyConfig {
    pub standard: PhyStandard,
    pub rate_bps: u64,
    #[serde(default)]
    pub basic_rate_bps: Option<u64>,
    #[serde(default = "long_preamble")]
    pub preamble: Preamble,
    #[serde(default = "yes")]
    pub short_slot: bool,
    #[serde(default)]
    pub cw_min: Option<u32>,
    #[serde(default)]
    pub cw_max: Option<u32>,
}

fn long_preamble() -> Preamble {
    Preamble::Long
}

fn yes() -> bool {
    true
}

impl PhyConfig {
    pub fn build(&self) -> Result<Phy, String> {
        let mut phy = match self.standard {
            PhyStandard::Dsss => Phy::dsss(
                self.rate_bps,
                self.basic_rate_bps.unwrap_or(1_000_000),
                self.preamble,
            )
            .map_err(|e| e.0)?,
            PhyStandard::ErpOfdm => {
                Phy::erp_ofdm(self.rate_bps, self.basic_rate_bps, self.short_slot)
                    .map_err(|e| e.0)?
            }
            PhyStandard::Bianchi2000 => Phy::bianchi2000(31, 5),
        };
        if let Some(cw_min) = self.cw_min {
            phy.cw_min = cw_min;
        }
        if let Some(cw_max) = self.cw_max {
            phy.cw_max = cw_max;
        }
        if !(phy.cw_min + 1).is_power_of_two()
            || !(phy.cw_max + 1).is_power_of_two()
            || phy.cw_max < phy.cw_min
        {
            return Err(format!(
                "contention window {}..{} must be 2^k - 1 values with cw_min <= cw_max",
                phy.cw_min, phy.cw_max
            ));
        }
        Ok(phy)
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WlanConfig {
    pub ap: usize,
    pub stations: Vec<usize>,
    pub phy: PhyConfig,
    /// Frames (MAC header + MSDU + FCS) longer than this use RTS/CTS.
    #[serde(default)]
    pub rts_threshold: Option<u32>,
    #[serde(default = "default_mac_queue")]
    pub queue_packets: u32,
    #[serde(default = "default_short_retry")]
    pub short_retry_limit: u32,
    #[serde(default = "default_long_retry")]
    pub long_retry_limit: u32,
    #[serde(default)]
    pub errors: ErrorModel,
    /// The AP's agent; `None` is plain DCF without an agent.
    #[serde(default)]
    pub agent: Option<AgentConfig>,
}

/// An access-point agent of `airtcp_proto::agent` and its settings (defaults in docs/agents.md).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    pub kind: String,
    /// TXOP limit of `txop_burst`; default: the EDCA AC_VO limit of the PHY.
    #[serde(default)]
    pub txop_limit_ns: Option<u64>,
    /// Most frames per aggregate of `ack_aggregation` (default 16).
    #[serde(default)]
    pub max_aggregate: Option<u32>,
    /// Contending stations `adaptive` aims for; default: Bianchi's optimum minus the AP.
    #[serde(default)]
    pub target_stations: Option<f64>,
}

fn default_mac_queue() -> u32 {
    100
}

fn default_short_retry() -> u32 {
    7
}

fn default_long_retry() -> u32 {
    4
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    pub name: String,
    pub src: usize,
    pub dst: usize,
    #[serde(default)]
    pub start_ns: u64,
    #[serde(default)]
    pub stop_ns: Option<u64>,
    pub app: AppConfig,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    /// FTP-like bulk transfer over TCP: unlimited, or `bytes` then close.
    TcpBulk {
        #[serde(default)]
        bytes: Option<u64>,
        #[serde(default = "newreno")]
        congestion_control: String,
        #[serde(default)]
        tcp: TcpOverrides,
    },
    /// UDP constant bit rate.
    UdpCbr { rate_bps: u64, payload_bytes: u32 },
}

fn newreno() -> String {
    "newreno".into()
}

/// TCP settings a scenario may change; the rest come from the profile.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpOverrides {
    pub profile: Option<TcpProfile>,
    pub mss: Option<u32>,
    pub initial_window: Option<u32>,
    pub initial_rto_ns: Option<u64>,
    pub min_rto_ns: Option<u64>,
    pub max_rto_ns: Option<u64>,
    pub delayed_ack: Option<bool>,
    pub delayed_ack_timeout_ns: Option<u64>,
    pub ack_every: Option<u32>,
    pub send_buffer: Option<u32>,
    pub receive_buffer: Option<u32>,
    pub window_scaling: Option<bool>,
    pub nagle: Option<bool>,
    pub time_wait_ns: Option<u64>,
}

impl TcpOverrides {
    pub fn build(&self) -> TcpConfig {
        let mut c = TcpConfig::profile(self.profile.unwrap_or_default());
        let ns = Duration::from_nanos;
        if let Some(v) = self.mss {
            c.mss = v;
        }
        if self.initial_window.is_some() {
            c.initial_window = self.initial_window;
        }
        if let Some(v) = self.initial_rto_ns {
            c.initial_rto = ns(v);
        }
        if let Some(v) = self.min_rto_ns {
            c.min_rto = ns(v);
        }
        if let Some(v) = self.max_rto_ns {
            c.max_rto = ns(v);
        }
        if let Some(v) = self.delayed_ack {
            c.delayed_ack = v;
        }
        if let Some(v) = self.delayed_ack_timeout_ns {
            c.delayed_ack_timeout = ns(v);
        }
        if let Some(v) = self.ack_every {
            c.ack_every = v;
        }
        if let Some(v) = self.send_buffer {
            c.send_buffer = v;
        }
        if let Some(v) = self.receive_buffer {
            c.receive_buffer = v;
        }
        if let Some(v) = self.window_scaling {
            c.window_scaling = v;
        }
        if let Some(v) = self.nagle {
            c.nagle = v;
        }
        if let Some(v) = self.time_wait_ns {
            c.time_wait = ns(v);
        }
        c
    }
}

/// A scenario that cannot run, with the key at fault.
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

fn fail<T>(key: impl Into<String>, message: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError {
        key: key.into(),
        message: message.into(),
    })
}

/// Largest number of flows: ports 1024 + flow index must fit below the server port range.
pub const MAX_FLOWS: usize = 60_000;

impl Scenario {
    pub fn from_json(text: &str) -> Result<Scenario, ConfigError> {
        let scenario: Scenario = serde_json::from_str(text).map_err(|e| ConfigError {
            key: "scenario".into(),
            message: e.to_string(),
        })?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// Checks what the types cannot: references, positive rates, probabilities, PHY rates.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let nodes = self.nodes.len();
        if self.duration_ns == 0 {
            return fail("simulation.duration", "must be positive");
        }
        if self.measure_from_ns >= self.duration_ns {
            return fail(
                "simulation.measure_from",
                "must be before the end of the run",
            );
        }
        let node_ok = |i: usize| i < nodes;
        for (i, link) in self.links.iter().enumerate() {
            if !node_ok(link.a) || !node_ok(link.b) || link.a == link.b {
                return fail(
                    format!("links[{i}]"),
                    "must join two different existing nodes",
                );
            }
            for (dir, d) in [("a_to_b", &link.a_to_b), ("b_to_a", &link.b_to_a)] {
                if d.rate_bps == 0 {
                    return fail(format!("links[{i}].{dir}.rate"), "must be positive");
                }
                check_errors(&format!("links[{i}].{dir}"), &d.errors)?;
                if d.queue.packets == Some(0) || d.queue.bytes == Some(0) {
                    return fail(
                        format!("links[{i}].{dir}.queue"),
                        "a zero-sized queue drops everything",
                    );
                }
            }
        }
        for (i, wlan) in self.wlans.iter().enumerate() {
            if !node_ok(wlan.ap) || wlan.stations.iter().any(|&s| !node_ok(s) || s == wlan.ap) {
                return fail(
                    format!("wlans[{i}].stations"),
                    "stations and AP must be distinct existing nodes",
                );
            }
            wlan.phy.build().map_err(|message| ConfigError {
                key: format!("wlans[{i}].phy"),
                message,
            })?;
            if wlan.queue_packets == 0 || wlan.short_retry_limit == 0 || wlan.long_retry_limit == 0
            {
                return fail(
                    format!("wlans[{i}]"),
                    "queue and retry limits must be positive",
                );
            }
            check_errors(&format!("wlans[{i}]"), &wlan.errors)?;
            if let Some(agent) = &wlan.agent {
                if !airtcp_proto::agent::AGENTS.contains(&agent.kind.as_str()) {
                    return fail(
                        format!("wlans[{i}].agent"),
                        format!(
                            "unknown '{}'; expected one of {}",
                            agent.kind,
                            airtcp_proto::agent::AGENTS.join(", ")
                        ),
                    );
                }
                if agent.max_aggregate == Some(0) || agent.txop_limit_ns == Some(0) {
                    return fail(
                        format!("wlans[{i}].agent"),
                        "txop_limit and max_aggregate must be positive",
                    );
                }
                if agent
                    .target_stations
                    .is_some_and(|t| !(t.is_finite() && t >= 1.0))
                {
                    return fail(
                        format!("wlans[{i}].agent.target_stations"),
                        "must be at least 1",
                    );
                }
            }
        }
        if self.flows.len() > MAX_FLOWS {
            return fail("flows", format!("at most {MAX_FLOWS} flows"));
        }
        for (i, flow) in self.flows.iter().enumerate() {
            if !node_ok(flow.src) || !node_ok(flow.dst) || flow.src == flow.dst {
                return fail(
                    format!("flows[{i}]"),
                    "src and dst must be different existing nodes",
                );
            }
            if flow.stop_ns.is_some_and(|stop| stop <= flow.start_ns) {
                return fail(format!("flows[{i}].stop"), "must be after start");
            }
            match &flow.app {
                AppConfig::TcpBulk {
                    congestion_control,
                    tcp,
                    ..
                } => {
                    if !cc::VARIANTS.contains(&congestion_control.as_str()) {
                        return fail(
                            format!("flows[{i}].congestion_control"),
                            format!(
                                "unknown '{congestion_control}'; expected one of {}",
                                cc::VARIANTS.join(", ")
                            ),
                        );
                    }
                    let built = tcp.build();
                    if !(64..=65_000).contains(&built.mss) {
                        return fail(
                            format!("flows[{i}].tcp.mss"),
                            "must be between 64 and 65000 bytes",
                        );
                    }
                    if built.send_buffer < built.mss || built.receive_buffer < built.mss {
                        return fail(
                            format!("flows[{i}].tcp"),
                            "buffers must hold at least one segment",
                        );
                    }
                    if built.ack_every == 0 {
                        return fail(format!("flows[{i}].tcp.ack_every"), "must be positive");
                    }
                }
                AppConfig::UdpCbr {
                    rate_bps,
                    payload_bytes,
                } => {
                    if *rate_bps == 0 || *payload_bytes == 0 || *payload_bytes > 65_000 {
                        return fail(
                            format!("flows[{i}]"),
                            "UDP rate and payload must be positive (payload <= 65000)",
                        );
                    }
                }
            }
        }
        Ok(())
    }
}

fn check_errors(key: &str, errors: &ErrorModel) -> Result<(), ConfigError> {
    if !(0.0..1.0).contains(&errors.loss) {
        return fail(format!("{key}.loss"), "must be a probability in [0, 1)");
    }
    if !(0.0..1.0).contains(&errors.ber) {
        return fail(format!("{key}.ber"), "must be a probability in [0, 1)");
    }
    Ok(())
}
