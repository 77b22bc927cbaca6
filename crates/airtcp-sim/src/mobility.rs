//! Mobile hosts that move between base stations: when each handoff happens and how its steps
//! follow one another (paper 001, Fig 1; the procedure of Cáceres and Iftode).
//!
//! A mobile's cells are its links, one to each base station; it is attached to one at a
//! time. A handoff starts when the mobile loses its cell (`detach`): both directions of that
//! link go down. The mobile hears the new base station's next beacon (beacons every
//! `beacon_interval`, from time 0), greets it (`greeting` later the new base station knows),
//! and the new base station informs the old one (`inform` later: the old base station learns
//! of the handoff only now). The old base station answers with the routing state and sends
//! on what it holds for the mobile (`adjust` later): from then on the network routes the
//! mobile's traffic through the new cell, whose base station (greeted by the mobile) holds it
//! until the mobile's link there is up (`attach`). Without a set duration the attach is the adjust; with one,
//! the attach comes that long after the detach and the messages keep their latencies, so the
//! inform and adjust may come after it (the mobile is then reachable only once they do).
//!
//! While detached, packets sent over the lost cell are lost, or held at their sender
//! (`Detached::Buffer`, as paper 001's experiment does) and sent on at the adjust.
//!
//! A mobile's `handoff_jitter` delays each handoff's start by a time drawn uniformly from
//! [0, jitter] with the run's seed: where a handoff falls in the sender's window and timer
//! cycles decides much of what it costs (paper 001, §V on Fig 5), so replications should
//! not all put it at the same nanosecond.

use airtcp_proto::time::seconds;
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, Scenario};
use crate::rng::Stream;

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

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
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
}

/// The times of one handoff's steps, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handoff {
    /// The base stations left and joined.
    pub from: usize,
    pub to: usize,
    pub detach_ns: u64,
    pub beacon_ns: u64,
    /// The new base station knows of the mobile.
    pub greeting_ns: u64,
    /// The old base station knows the mobile has left.
    pub inform_ns: u64,
    /// The routes lead to the new cell; what the old cell held is sent on.
    pub adjust_ns: u64,
    /// The mobile's link in the new cell is up.
    pub attach_ns: u64,
}

impl Handoff {
    /// From the detach until the mobile is reachable again (attached, routes adjusted).
    pub fn duration_ns(&self) -> u64 {
        self.end_ns() - self.detach_ns
    }

    /// When the last of its steps happens.
    pub fn end_ns(&self) -> u64 {
        self.attach_ns.max(self.adjust_ns)
    }
}

/// The first beacon at or after `at` of beacons every `interval` from time 0.
fn next_beacon(at: u64, interval: u64) -> u64 {
    at.div_ceil(interval) * interval
}

impl MobileConfig {
    /// Each handoff's delay after its `at_ns`, drawn from `rng` within the jitter.
    pub fn draw_delays(&self, rng: &mut Stream) -> Vec<u64> {
        let jitter = self.handoff_jitter_ns;
        self.handoffs
            .iter()
            .map(|_| {
                if jitter == 0 {
                    0
                } else {
                    rng.random_range(0..=jitter)
                }
            })
            .collect()
    }

    /// The timeline of every handoff, in order, each started `delays[i]` after its `at_ns`.
    pub fn timeline(&self, delays: &[u64]) -> Vec<Handoff> {
        let p = &self.procedure;
        let mut cell = self.attached;
        self.handoffs
            .iter()
            .zip(delays)
            .map(|(h, delay)| {
                let detach_ns = h.at_ns + delay;
                let beacon_ns = next_beacon(detach_ns, p.beacon_interval_ns);
                let greeting_ns = beacon_ns + p.greeting_ns;
                let inform_ns = greeting_ns + p.inform_ns;
                let adjust_ns = inform_ns + p.adjust_ns;
                let attach_ns = match h.duration_ns.or(self.handoff_duration_ns) {
                    Some(duration) => detach_ns + duration,
                    None => adjust_ns,
                };
                let handoff = Handoff {
                    from: cell,
                    to: h.to,
                    detach_ns,
                    beacon_ns,
                    greeting_ns,
                    inform_ns,
                    adjust_ns,
                    attach_ns,
                };
                cell = h.to;
                handoff
            })
            .collect()
    }
}

impl MobileConfig {
    /// The mobile's cells: for each of its links, the base station at the other end and the
    /// channel from it to the mobile (link i is channel 2i from `a`, 2i + 1 from `b`).
    pub fn cells(&self, scenario: &Scenario) -> Vec<(usize, u32)> {
        scenario
            .links
            .iter()
            .enumerate()
            .filter_map(|(i, link)| {
                let a_to_b = 2 * i as u32;
                match (link.a == self.node, link.b == self.node) {
                    (true, _) => Some((link.b, a_to_b + 1)),
                    (_, true) => Some((link.a, a_to_b)),
                    _ => None,
                }
            })
            .collect()
    }

    /// The rules a mobile must follow; `key` is its place (`mobiles[0]`).
    pub fn validate(&self, scenario: &Scenario, key: &str) -> Result<(), ConfigError> {
        let fail = |at: String, message: String| Err(ConfigError { key: at, message });
        let names = &scenario.nodes;
        let known = |node: usize| node < names.len();
        if !known(self.node) || !known(self.attached) {
            return fail(key.into(), "must name existing nodes".into());
        }
        let mobile = &names[self.node];
        if scenario
            .mobiles
            .iter()
            .take_while(|m| !std::ptr::eq(*m, self))
            .any(|m| m.node == self.node)
        {
            return fail(
                format!("{key}.node"),
                format!("{mobile} is already a mobile"),
            );
        }
        let in_wlan = scenario
            .wlans
            .iter()
            .any(|w| w.ap == self.node || w.stations.contains(&self.node));
        if in_wlan {
            return fail(
                format!("{key}.node"),
                format!("{mobile} is in a WLAN; a mobile's cells are its links"),
            );
        }
        let cells = self.cells(scenario);
        let stations: Vec<usize> = cells.iter().map(|&(bs, _)| bs).collect();
        if let Some(twice) = stations
            .iter()
            .enumerate()
            .find_map(|(i, bs)| stations[..i].contains(bs).then_some(*bs))
        {
            return fail(
                format!("{key}.node"),
                format!(
                    "two links join {mobile} and {}; a cell is one link",
                    names[twice]
                ),
            );
        }
        let list = || {
            let cells: Vec<&str> = stations.iter().map(|&bs| names[bs].as_str()).collect();
            format!("{mobile}'s cells (its links) are: {}", cells.join(", "))
        };
        if !stations.contains(&self.attached) {
            return fail(
                format!("{key}.attached"),
                format!(
                    "{} is not a cell of {mobile}; {}",
                    names[self.attached],
                    list()
                ),
            );
        }
        if self.procedure.beacon_interval_ns == 0 {
            return fail(
                format!("{key}.procedure.beacon_interval_ns"),
                "must be positive".into(),
            );
        }
        if self.handoff_duration_ns == Some(0) {
            return fail(
                format!("{key}.handoff_duration_ns"),
                "must be positive".into(),
            );
        }
        // The latest each handoff can end is with its whole jitter; the next must start after.
        let jitter = self.handoff_jitter_ns;
        let latest = self.timeline(&vec![jitter; self.handoffs.len()]);
        let mut cell = self.attached;
        let mut free_from = 0;
        for (handoff, (j, h)) in latest.iter().zip(self.handoffs.iter().enumerate()) {
            let at = format!("{key}.handoffs[{j}]");
            if !known(h.to) || !stations.contains(&h.to) {
                return fail(
                    format!("{at}.to"),
                    format!("not a cell of {mobile}; {}", list()),
                );
            }
            if h.to == cell {
                return fail(
                    format!("{at}.to"),
                    format!("{mobile} is already in {}'s cell then", names[cell]),
                );
            }
            if h.duration_ns == Some(0) {
                return fail(format!("{at}.duration_ns"), "must be positive".into());
            }
            let with_jitter = |what: &str| {
                if jitter == 0 {
                    String::new()
                } else {
                    format!(" {what} {} s of handoff_jitter", seconds(jitter))
                }
            };
            if h.at_ns < free_from {
                return fail(
                    format!("{at}.at_ns"),
                    format!(
                        "{} s is before the previous handoff ends ({} s{})",
                        seconds(h.at_ns),
                        seconds(free_from),
                        with_jitter("with its")
                    ),
                );
            }
            if handoff.detach_ns >= scenario.duration_ns {
                return fail(
                    format!("{at}.at_ns"),
                    format!(
                        "{} s{} is not before the end of the run ({} s)",
                        seconds(h.at_ns),
                        with_jitter("plus"),
                        seconds(scenario.duration_ns)
                    ),
                );
            }
            free_from = handoff.end_ns();
            cell = h.to;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn mobile(handoffs: Vec<HandoffConfig>) -> MobileConfig {
        MobileConfig {
            node: 4,
            attached: 1,
            while_detached: Detached::Lose,
            procedure: Procedure {
                beacon_interval_ns: 100 * MS,
                greeting_ns: MS,
                inform_ns: 2 * MS,
                adjust_ns: 3 * MS,
            },
            handoff_duration_ns: None,
            handoff_jitter_ns: 0,
            handoffs,
        }
    }

    #[test]
    fn the_procedure_sets_the_duration_from_the_next_beacon() {
        let timeline = mobile(vec![
            HandoffConfig {
                at_ns: 2_500 * MS,
                to: 2,
                duration_ns: None,
            },
            HandoffConfig {
                at_ns: 7_010 * MS,
                to: 1,
                duration_ns: None,
            },
        ])
        .timeline(&[0, 0]);
        assert_eq!(
            timeline[0],
            Handoff {
                from: 1,
                to: 2,
                detach_ns: 2_500 * MS,
                beacon_ns: 2_500 * MS,
                greeting_ns: 2_501 * MS,
                inform_ns: 2_503 * MS,
                adjust_ns: 2_506 * MS,
                attach_ns: 2_506 * MS,
            }
        );
        // 7.01 s waits for the beacon at 7.1 s.
        assert_eq!((timeline[1].from, timeline[1].to), (2, 1));
        assert_eq!(timeline[1].beacon_ns, 7_100 * MS);
        assert_eq!(timeline[1].duration_ns(), 96 * MS);
    }

    #[test]
    fn a_set_duration_keeps_the_messages_latencies() {
        let short = mobile(vec![HandoffConfig {
            at_ns: 2_550 * MS,
            to: 2,
            duration_ns: Some(10 * MS),
        }])
        .timeline(&[0])[0];
        assert_eq!(short.attach_ns, 2_560 * MS);
        assert_eq!(
            short.inform_ns,
            2_603 * MS,
            "the inform comes after the attach"
        );
        assert_eq!(short.duration_ns(), 56 * MS, "reachable at the adjust");
        let long = mobile(vec![HandoffConfig {
            at_ns: 2_550 * MS,
            to: 2,
            duration_ns: Some(1_000 * MS),
        }])
        .timeline(&[0])[0];
        assert_eq!(long.duration_ns(), 1_000 * MS);
        assert!(long.inform_ns < long.adjust_ns && long.adjust_ns < long.attach_ns);
    }
}
