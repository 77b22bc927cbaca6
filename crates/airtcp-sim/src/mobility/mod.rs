//! Mobile hosts that move between base stations: when each handoff happens and how its steps
//! follow one another (paper 001, Fig 1; the procedure of Cáceres and Iftode).
//!
//! A mobile has a cell at each of several base stations (`cells`: a link, or a BSS in
//! which it is a station); it is attached to one at a time. A handoff starts when the mobile
//! loses its cell (`detach`): both directions of that link go down, or it leaves the BSS.
//! Once in the new cell's range it hears the new base station's next beacon (beacons every
//! `beacon_interval`, from time 0), greets it (`greeting` later the new base station knows),
//! and the new base station informs the old one (`inform` later: the old base station learns
//! of the handoff only now). The old base station answers with the routing state and sends
//! on what it holds for the mobile (`adjust` later): from then on the network routes the
//! mobile's traffic through the new cell, whose base station (greeted by the mobile) holds it
//! until the mobile's link there is up (`attach`). Without a set duration the attach is the
//! adjust; with one, the attach comes that long after the detach and the messages keep their
//! latencies, so the inform and adjust may come after it (the mobile is then reachable only
//! once they do).
//!
//! Handoffs come from a schedule (`handoffs`: time, cell, duration) or from the mobile's
//! `movement` through the cells' ranges (`movement`).
//!
//! While detached, packets sent over the lost cell are lost, or held at their sender
//! (`Detached::Buffer`, as paper 001's experiment does) and sent on at the adjust.
//!
//! A mobile's `handoff_jitter` delays each handoff's start by a time drawn uniformly from
//! [0, jitter] with the run's seed: where a handoff falls in the sender's window and timer
//! cycles decides much of what it costs (paper 001, §V on Fig 5), so replications should
//! not all put it at the same nanosecond.
//!
//! A mobile's settings (`MobileConfig` and its parts) are the scenario's (`config`); this
//! module times the handoffs they give.

use rand::Rng;

use crate::rng::Stream;

mod cells;
mod movement;
mod validate;

pub use crate::config::{
    Coverage, Detached, HandoffConfig, MobileConfig, Movement, Procedure, Waypoint,
};
pub use cells::{Cell, CellPath};

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
    /// Each scheduled handoff's delay after its `at_ns`, drawn from `rng` within the jitter.
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

    /// The timeline of every handoff in a run that ends at `end_ns`, in order: the
    /// scheduled ones, each started `delays[i]` after its `at_ns`, or those the movement
    /// makes.
    pub fn timeline(&self, delays: &[u64], end_ns: u64) -> Vec<Handoff> {
        if let Some(movement) = &self.movement {
            return movement.handoffs(self, end_ns);
        }
        let mut cell = self.attached;
        self.handoffs
            .iter()
            .zip(delays)
            .map(|(h, delay)| {
                let detach_ns = h.at_ns + delay;
                let handoff = self.handoff(
                    cell,
                    Planned {
                        detach_ns,
                        to: h.to,
                        in_range_ns: detach_ns,
                        duration_ns: h.duration_ns.or(self.handoff_duration_ns),
                    },
                );
                cell = h.to;
                handoff
            })
            .collect()
    }

    /// The steps of a handoff from the cell of base station `from`: the mobile hears the
    /// first beacon once it is in the new cell's range, then the messages follow.
    fn handoff(&self, from: usize, planned: Planned) -> Handoff {
        let p = &self.procedure;
        let Planned {
            detach_ns,
            to,
            in_range_ns,
            duration_ns,
        } = planned;
        let beacon_ns = next_beacon(detach_ns.max(in_range_ns), p.beacon_interval_ns);
        let greeting_ns = beacon_ns + p.greeting_ns;
        let inform_ns = greeting_ns + p.inform_ns;
        let adjust_ns = inform_ns + p.adjust_ns;
        let attach_ns = match duration_ns {
            Some(duration) => detach_ns + duration,
            None => adjust_ns,
        };
        Handoff {
            from,
            to,
            detach_ns,
            beacon_ns,
            greeting_ns,
            inform_ns,
            adjust_ns,
            attach_ns,
        }
    }
}

/// A handoff before its steps are timed: when the mobile leaves its cell, for which base
/// station's, from when it is in that cell's range, and its set duration if any.
#[derive(Clone, Copy, Debug)]
struct Planned {
    detach_ns: u64,
    to: usize,
    in_range_ns: u64,
    duration_ns: Option<u64>,
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
            movement: None,
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
        .timeline(&[0, 0], u64::MAX);
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
        .timeline(&[0], u64::MAX)[0];
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
        .timeline(&[0], u64::MAX)[0];
        assert_eq!(long.duration_ns(), 1_000 * MS);
        assert!(long.inform_ns < long.adjust_ns && long.adjust_ns < long.attach_ns);
    }
}
