//! The queue discipline of a link direction as the scenario sets it (`AqmConfig`), with
//! Linux's defaults for each kind (sch_codel's and sch_fq_codel's CoDel, RFC 8289 §4.2,
//! §4.3; sch_pie's, RFC 8033; sch_red's with tc's derivation of RED's thresholds), and the
//! effective settings a queue runs with.

use airtcp_proto::aqm::codel::CodelParams;
use airtcp_proto::aqm::fq::FqParams;
use airtcp_proto::aqm::pie::PieParams;
use airtcp_proto::aqm::red::RedParams;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::queue::QueueLimit;

/// CoDel's defaults (RFC 8289 §4.2, §4.3; sch_codel's and sch_fq_codel's).
pub const TARGET_NS: u64 = CodelParams::RFC.target_ns;
pub const INTERVAL_NS: u64 = CodelParams::RFC.interval_ns;

/// The queue discipline of a link direction, as the scenario sets it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AqmConfig {
    /// DropTail (`queue`'s limits).
    #[default]
    None,
    Codel {
        #[serde(default = "default_target")]
        target_ns: u64,
        #[serde(default = "default_interval")]
        interval_ns: u64,
        /// Mark ECN-capable packets CE instead of dropping them (sch_codel: off).
        #[serde(default)]
        ecn: bool,
    },
    FqCodel {
        #[serde(default = "default_target")]
        target_ns: u64,
        #[serde(default = "default_interval")]
        interval_ns: u64,
        #[serde(default = "default_flows")]
        flows: u32,
        #[serde(default = "default_quantum")]
        quantum: u32,
        /// sch_fq_codel: on.
        #[serde(default = "default_fq_codel_ecn")]
        ecn: bool,
    },
    Pie {
        #[serde(default = "default_pie_target")]
        target_ns: u64,
        #[serde(default = "default_tupdate")]
        tupdate_ns: u64,
        #[serde(default = "default_alpha")]
        alpha: u32,
        #[serde(default = "default_beta")]
        beta: u32,
        /// Mark instead of dropping while the probability is at most 10 % (sch_pie: off).
        #[serde(default)]
        ecn: bool,
    },
    /// RED (and Adaptive RED) as sch_red with tc's defaults (`airtcp_proto::aqm::red`):
    /// thresholds in bytes of average backlog (`max` a quarter of the limit, `min` a third
    /// of `max`), `burst` packets (tc's (2·min + max)/(3·avpkt)).
    Red {
        #[serde(default)]
        min: Option<u32>,
        #[serde(default)]
        max: Option<u32>,
        #[serde(default = "default_red_probability")]
        probability: f64,
        #[serde(default)]
        burst: Option<u32>,
        #[serde(default = "default_avpkt")]
        avpkt: u32,
        #[serde(default)]
        adaptive: bool,
        /// Mark ECN-capable packets CE instead of dropping them (sch_red: off).
        #[serde(default)]
        ecn: bool,
    },
}

fn default_target() -> u64 {
    TARGET_NS
}
fn default_interval() -> u64 {
    INTERVAL_NS
}
fn default_flows() -> u32 {
    FqParams::SCH_FQ_CODEL.flows
}
fn default_quantum() -> u32 {
    FqParams::SCH_FQ_CODEL.quantum
}
fn default_red_probability() -> f64 {
    0.02
}
fn default_avpkt() -> u32 {
    1000
}
fn default_fq_codel_ecn() -> bool {
    true
}
fn default_pie_target() -> u64 {
    PieParams::LINUX.target_ns
}
fn default_tupdate() -> u64 {
    PieParams::LINUX.tupdate_ns
}
fn default_alpha() -> u32 {
    PieParams::LINUX.alpha
}
fn default_beta() -> u32 {
    PieParams::LINUX.beta
}

impl AqmConfig {
    /// The names of the kinds, as the scenario writes them.
    pub const KINDS: [&'static str; 5] = ["none", "codel", "fq_codel", "pie", "red"];

    /// RED's parameters for a queue of `limit` on a link of `rate_bps` (a limit in packets
    /// counts 1500 bytes each: sch_red's limit is in bytes); `None` for the other kinds.
    pub fn red_params(
        &self,
        limit: &QueueLimit,
        rate_bps: Option<u64>,
    ) -> Option<Result<RedParams, String>> {
        let AqmConfig::Red {
            min,
            max,
            probability,
            burst,
            avpkt,
            adaptive,
            ..
        } = *self
        else {
            return None;
        };
        let limit_bytes = match (limit.bytes, limit.packets) {
            (Some(bytes), _) => bytes,
            (None, Some(packets)) => u64::from(packets) * 1500,
            (None, None) => u64::from(u32::MAX),
        };
        let Some(rate) = rate_bps else {
            return Some(Err(
                "red needs the link's rate (its idle decay); a delivery trace has none".into(),
            ));
        };
        let limit_bytes = u32::try_from(limit_bytes).unwrap_or(u32::MAX);
        Some(RedParams::tc(
            limit_bytes,
            min,
            max,
            probability,
            burst,
            avpkt,
            rate,
            adaptive,
        ))
    }

    /// The settings a queue of `limit` on a link of `rate_bps` runs with, defaults applied
    /// (RED's thresholds as tc derives them), for the effective settings; `None` for DropTail.
    pub fn effective(&self, limit: &QueueLimit, rate_bps: Option<u64>) -> Option<Value> {
        let settings = match *self {
            AqmConfig::None => return None,
            AqmConfig::Codel {
                target_ns,
                interval_ns,
                ecn,
            } => json!({"kind": "codel", "target_ns": target_ns, "interval_ns": interval_ns,
                        "ecn": ecn}),
            AqmConfig::FqCodel {
                target_ns,
                interval_ns,
                flows,
                quantum,
                ecn,
            } => json!({"kind": "fq_codel", "target_ns": target_ns, "interval_ns": interval_ns,
                        "flows": flows, "quantum": quantum, "ecn": ecn}),
            AqmConfig::Pie {
                target_ns,
                tupdate_ns,
                alpha,
                beta,
                ecn,
            } => json!({"kind": "pie", "target_ns": target_ns, "tupdate_ns": tupdate_ns,
                        "alpha": alpha, "beta": beta, "ecn": ecn}),
            AqmConfig::Red {
                probability,
                avpkt,
                adaptive,
                ecn,
                ..
            } => {
                let red = self.red_params(limit, rate_bps)?.ok()?;
                json!({"kind": "red", "min_bytes": red.min_bytes, "max_bytes": red.max_bytes,
                       "wlog": red.wlog, "probability": probability, "avpkt": avpkt,
                       "adaptive": adaptive, "ecn": ecn})
            }
        };
        Some(settings)
    }

    pub(super) fn codel(target_ns: u64, interval_ns: u64, ecn: bool) -> CodelParams {
        CodelParams {
            target_ns,
            interval_ns,
            ecn,
            ..CodelParams::RFC
        }
    }
}
