//! Mobile hosts as a scenario gives them (`mobiles[]`): the cell each starts in, what
//! becomes of packets while it is detached, the handoff procedure's latencies, and its
//! handoffs: scheduled, or following from its movement through the cells' coverage. How
//! handoffs unfold from these is `mobility`'s.

use serde::{Deserialize, Serialize};

/// What becomes of packets sent over a cell the mobile has left.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Detached {
    /// Lost, as a radio link without its peer loses them.
    #[default]
    Lose,
    /// Held by the sender (the base station, or the mobile) and sent on through the new cell
    /// once it is attached.
    Buffer,
}

/// The latencies of the handoff messages (paper 001, Fig 1); a missing one takes its default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Procedure {
    pub beacon_interval_ns: u64,
    pub greeting_ns: u64,
    pub inform_ns: u64,
    pub adjust_ns: u64,
}

impl Default for Procedure {
    /// A beacon every 100 TU (the usual 802.11 beacon interval, 102.4 ms), 1 ms for the
    /// greeting over the air, 2 ms each for inform and adjust across the wired network.
    fn default() -> Self {
        Procedure {
            beacon_interval_ns: 100 * 1_024_000,
            greeting_ns: 1_000_000,
            inform_ns: 2_000_000,
            adjust_ns: 2_000_000,
        }
    }
}

/// One scheduled handoff: at `at_ns` the mobile leaves its cell for the cell of base station
/// `to`; `duration_ns` sets the time to the attach instead of the procedure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandoffConfig {
    pub at_ns: u64,
    pub to: usize,
    #[serde(default)]
    pub duration_ns: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MobileConfig {
    pub node: usize,
    /// The base station whose cell the mobile starts in.
    pub attached: usize,
    #[serde(default)]
    pub while_detached: Detached,
    #[serde(default)]
    pub procedure: Procedure,
    /// The duration of every handoff that does not set its own.
    #[serde(default)]
    pub handoff_duration_ns: Option<u64>,
    /// Each handoff starts up to this much after its `at_ns` (drawn per run).
    #[serde(default)]
    pub handoff_jitter_ns: u64,
    #[serde(default)]
    pub handoffs: Vec<HandoffConfig>,
    /// The mobile's path and the cells' coverage, from which the handoffs follow (instead
    /// of `handoffs`).
    #[serde(default)]
    pub movement: Option<Movement>,
}

/// Where the mobile is at `at_ns`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Waypoint {
    pub at_ns: u64,
    pub x_m: f64,
    pub y_m: f64,
}

/// A base station's cell: the disc of `range_m` around its antenna.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    pub base_station: usize,
    pub x_m: f64,
    pub y_m: f64,
    pub range_m: f64,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Movement {
    pub path: Vec<Waypoint>,
    pub cells: Vec<Coverage>,
}
