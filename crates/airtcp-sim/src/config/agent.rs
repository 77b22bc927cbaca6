//! Agents as a scenario places them (`agents[]`, `wlans[].agent`): the kind and its
//! settings, with the defaults of `airtcp_proto::agent` applied.

use airtcp_proto::wifi::edca::AccessCategory;
use serde::Deserialize;

/// An agent of `airtcp_proto::agent` and its settings (defaults in docs/agents.md).
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
    /// Contending stations `adaptive` aims for; default: Bianchi's optimum for the stations.
    #[serde(default)]
    pub target_stations: Option<f64>,
    /// With EDCA, the access category whose EDCAF the agent works on (plans, or sees the
    /// queue of); `None`: best effort.
    #[serde(default)]
    pub ac: Option<AccessCategory>,
    /// A limit of the AP's ACK queue of its own; `None` shares the WLAN's `queue_packets`
    /// between the AP's two queues, so an agent does not enlarge the AP's buffer.
    #[serde(default)]
    pub ack_queue_packets: Option<u32>,
    /// Snoop's smallest local retransmission timeout (`snoop`, `snoop_freeze`).
    #[serde(default)]
    pub local_rto_min_ns: Option<u64>,
    /// `mtcp`: silence of the mobile, with data outstanding, after which it freezes.
    #[serde(default)]
    pub silence_ns: Option<u64>,
    /// `fast_retransmit`: duplicate ACKs the mobile sends after a handoff.
    #[serde(default)]
    pub duplicate_acks: Option<u32>,
    /// `dar`: what a fast retransmit does to regeneration.
    #[serde(default)]
    pub fast_recovery: Option<FastRecoveryConfig>,
}

/// `dar`'s `fast_recovery` (`airtcp_proto::agent::FastRecovery`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FastRecoveryConfig {
    Pass,
    Regenerate,
}

impl FastRecoveryConfig {
    /// The kinds the setting applies to.
    pub const KINDS: &'static [&'static str] = &["dar"];
}

impl From<FastRecoveryConfig> for airtcp_proto::agent::FastRecovery {
    fn from(config: FastRecoveryConfig) -> Self {
        match config {
            FastRecoveryConfig::Pass => Self::Pass,
            FastRecoveryConfig::Regenerate => Self::Regenerate,
        }
    }
}

/// One setting of the mobility agents (paper 001): its key, the kinds it applies to, its
/// value as set and as used.
pub struct MobilitySetting {
    pub name: &'static str,
    pub kinds: &'static [&'static str],
    pub set: Option<u64>,
    pub effective: u64,
}

impl AgentConfig {
    /// The mobility agents' settings.
    pub fn mobility_settings(&self) -> [MobilitySetting; 3] {
        let used = self.settings();
        [
            MobilitySetting {
                name: "local_rto_min_ns",
                kinds: &["snoop", "snoop_freeze"],
                set: self.local_rto_min_ns,
                effective: used.local_rto_min_ns,
            },
            MobilitySetting {
                name: "silence_ns",
                kinds: &["mtcp"],
                set: self.silence_ns,
                effective: used.silence_ns,
            },
            MobilitySetting {
                name: "duplicate_acks",
                kinds: &["fast_retransmit"],
                set: self.duplicate_acks.map(u64::from),
                effective: u64::from(used.duplicate_acks),
            },
        ]
    }

    /// The settings of the agent, defaults applied (`AgentSettings::DEFAULT`); an AP's
    /// settings that depend on its WLAN are the caller's.
    pub fn settings(&self) -> airtcp_proto::agent::AgentSettings {
        let mut settings = airtcp_proto::agent::AgentSettings::DEFAULT;
        if let Some(ns) = self.local_rto_min_ns {
            settings.local_rto_min_ns = ns;
        }
        if let Some(ns) = self.silence_ns {
            settings.silence_ns = ns;
        }
        if let Some(copies) = self.duplicate_acks {
            settings.duplicate_acks = copies;
        }
        if let Some(fast_recovery) = self.fast_recovery {
            settings.fast_recovery = fast_recovery.into();
        }
        settings
    }
}
