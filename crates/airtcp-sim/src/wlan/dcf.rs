//! IEEE 802.11 DCF for one infrastructure BSS in a single collision domain (IEEE
//! 802.11-2020 §10.3), resolved centrally so that the cost per frame does not grow with the
//! number of stations.
//!
//! Every station hears every other, so all agree on when the medium is idle. The medium
//! keeps a global count of idle backoff slots; a station's backoff is stored as the absolute
//! slot number at which it expires, in one heap. Counting down "only in idle slots, frozen
//! while busy" is then implicit: the count does not advance while the medium is busy. The
//! earliest expiry wins; equal expiries collide. After each busy period the count advances
//! by one slot, the decrement the standard allows at the DIFS/AIFS slot boundary
//! (§10.23.2.4), which is also the virtual-slot semantics of Bianchi's model.
//!
//! Modelled: DIFS/EIFS deferral, backoff in [0, CW], binary exponential CW growth, reset on
//! success or drop, short/long retry limits, RTS/CTS above a threshold, post-backoff,
//! immediate access when a frame arrives to an idle medium with no backoff pending, MAC
//! ACKs (assumed error-free), per-frame errors. NAV is implicit: with one collision domain
//! the reservation an RTS or data frame announces coincides with the medium being busy.
//! Hidden terminals and capture are not modelled.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use airtcp_proto::wifi::Phy;
use airtcp_proto::Instant;
use rand::Rng;
use serde::Serialize;

use crate::error_model::ErrorModel;
use crate::packet::Packet;
use crate::rng::Stream;

/// LLC/SNAP header carried in every MSDU before the IP packet.
pub const LLC_SNAP_BYTES: u32 = 8;

/// A queued MSDU and the index of the MAC it is addressed to.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub packet: Packet,
    pub to: u32,
}

impl Frame {
    pub fn msdu_bytes(&self) -> u32 {
        LLC_SNAP_BYTES + self.packet.len()
    }
}

/// Counters of one BSS, reported per run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MacCounters {
    /// Transmission attempts of data (or RTS) frames.
    pub attempts: u64,
    pub successes: u64,
    /// Channel accesses in which two or more stations transmitted.
    pub collisions: u64,
    /// Attempts that failed (collided or corrupted).
    pub failed_attempts: u64,
    /// Attempts beyond the first for a frame.
    pub retries: u64,
    /// Frames dropped at the retry limit.
    pub retry_drops: u64,
    /// Frames dropped because a MAC queue was full.
    pub queue_drops: u64,
    /// Frames corrupted by the channel's error model.
    pub channel_errors: u64,
    /// `contenders[k]`: channel accesses at which k MACs (AP included) held a frame.
    pub contenders: Vec<u64>,
    /// Payload (MSDU) bytes delivered.
    pub delivered_msdu_bytes: u64,
}

#[derive(Debug)]
pub struct MacParams {
    pub rts_threshold: Option<u32>,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    pub queue_packets: u32,
}

#[derive(Debug)]
struct Mac {
    node: usize,
    queue: VecDeque<Frame>,
    cw: u32,
    /// Attempts already made for the frame at the head of the queue.
    attempts: u32,
    /// Absolute idle-slot count at which the backoff expires.
    expiry: Option<u64>,
    generation: u64,
    rng: Stream,
}

#[derive(Debug)]
enum Outcome {
    Success(u32),
    Failure(Vec<u32>),
}

#[derive(Debug)]
enum Medium {
    /// Idle slots count from `origin`, where the count is `base`.
    Idle { origin: Instant, base: u64 },
    Busy {
        ifs_ns: u64,
        next_base: u64,
        outcome: Outcome,
    },
}

/// What the caller must schedule after a call into the BSS.
#[derive(Debug, Default)]
pub struct Actions {
    /// A channel-access check at this time, with the generation to pass back.
    pub access: Option<(Instant, u64)>,
    /// The end of the busy period just started.
    pub busy_end: Option<Instant>,
    /// A packet received at a node at a time.
    pub deliveries: Vec<(Instant, usize, Packet)>,
}

#[derive(Debug)]
pub struct Bss {
    phy: Phy,
    params: MacParams,
    errors: ErrorModel,
    channel_rng: Stream,
    macs: Vec<Mac>,
    medium: Medium,
    expiries: BinaryHeap<Reverse<(u64, u32, u64)>>,
    access_generation: u64,
    scheduled_access: Option<Instant>,
    holding: usize,
    pub counters: MacCounters,
}

impl Bss {
    /// MAC 0 is the AP; `nodes[i]` is the node of MAC i; `rngs[i]` its backoff stream.
    pub fn new(
        phy: Phy,
        params: MacParams,
        errors: ErrorModel,
        channel_rng: Stream,
        nodes: Vec<(usize, Stream)>,
    ) -> Self {
        let macs = nodes
            .into_iter()
            .map(|(node, rng)| Mac {
                node,
                queue: VecDeque::new(),
                cw: phy.cw_min,
                attempts: 0,
                expiry: None,
                generation: 0,
                rng,
            })
            .collect::<Vec<_>>();
        let counters = MacCounters {
            contenders: vec![0; macs.len() + 1],
            ..MacCounters::default()
        };
        Bss {
            phy,
            params,
            errors,
            channel_rng,
            macs,
            medium: Medium::Idle {
                origin: Instant::ZERO,
                base: 0,
            },
            expiries: BinaryHeap::new(),
            access_generation: 0,
            scheduled_access: None,
            holding: 0,
            counters,
        }
    }

    pub fn phy(&self) -> &Phy {
        &self.phy
    }

    pub fn queue_len(&self, mac: u32) -> usize {
        self.macs[mac as usize].queue.len()
    }

    /// Queues a frame at `mac`; starts its channel access if it was idle.
    pub fn enqueue(&mut self, now: Instant, mac: u32, frame: Frame, actions: &mut Actions) {
        let slot = self.phy.slot_ns;
        let station = &mut self.macs[mac as usize];
        if station.queue.len() >= self.params.queue_packets as usize {
            self.counters.queue_drops += 1;
            return;
        }
        station.queue.push_back(frame);
        if station.queue.len() > 1 {
            return;
        }
        self.holding += 1;
        if station.expiry.is_some() {
            return; // a post-backoff is still counting down
        }
        let expiry = match &self.medium {
            // Idle long enough: access at once, at the next slot boundary (backoff 0).
            Medium::Idle { origin, base } => {
                if now <= *origin {
                    *base
                } else {
                    base + (now - *origin).as_nanos().div_ceil(u128::from(slot)) as u64
                }
            }
            // Busy: defer, then back off.
            Medium::Busy { next_base, .. } => {
                next_base + u64::from(station.rng.random_range(0..=station.cw))
            }
        };
        self.set_expiry(mac, expiry);
        self.schedule_access(actions);
    }

    fn set_expiry(&mut self, mac: u32, expiry: u64) {
        let station = &mut self.macs[mac as usize];
        station.generation += 1;
        station.expiry = Some(expiry);
        self.expiries
            .push(Reverse((expiry, mac, station.generation)));
    }

    /// Draws a fresh backoff in [0, CW] counted from `base`.
    fn draw_backoff(&mut self, mac: u32, base: u64) {
        let station = &mut self.macs[mac as usize];
        let slots = u64::from(station.rng.random_range(0..=station.cw));
        self.set_expiry(mac, base + slots);
    }

    fn is_current(&self, expiry: u64, mac: u32, generation: u64) -> bool {
        let station = &self.macs[mac as usize];
        station.generation == generation && station.expiry == Some(expiry)
    }

    /// Drops stale heap entries and returns the earliest live expiry.
    fn earliest_expiry(&mut self) -> Option<u64> {
        while let Some(&Reverse((expiry, mac, generation))) = self.expiries.peek() {
            if self.is_current(expiry, mac, generation) {
                return Some(expiry);
            }
            self.expiries.pop();
        }
        None
    }

    fn schedule_access(&mut self, actions: &mut Actions) {
        let Medium::Idle { origin, base } = self.medium else {
            return;
        };
        let Some(expiry) = self.earliest_expiry() else {
            return;
        };
        let at = origin
            + core::time::Duration::from_nanos((expiry.saturating_sub(base)) * self.phy.slot_ns);
        if self
            .scheduled_access
            .is_some_and(|scheduled| scheduled <= at)
        {
            return;
        }
        self.access_generation += 1;
        self.scheduled_access = Some(at);
        actions.access = Some((at, self.access_generation));
    }

    /// A scheduled access check: whoever's backoff expires now transmits.
    pub fn on_access(&mut self, now: Instant, generation: u64, actions: &mut Actions) {
        if generation != self.access_generation {
            return;
        }
        self.scheduled_access = None;
        let Medium::Idle { origin, base } = self.medium else {
            return;
        };
        let current = base + (now - origin).as_nanos() as u64 / self.phy.slot_ns;
        let mut transmitters = Vec::new();
        while let Some(expiry) = self.earliest_expiry() {
            if expiry > current {
                break;
            }
            let Reverse((_, mac, _)) = self.expiries.pop().expect("peeked");
            let station = &mut self.macs[mac as usize];
            station.expiry = None;
            if !station.queue.is_empty() {
                transmitters.push(mac);
            }
        }
        if transmitters.is_empty() {
            // Only post-backoffs without frames completed.
            self.schedule_access(actions);
            return;
        }
        self.start_transmission(now, current, transmitters, actions);
    }

    fn uses_rts(&self, frame: &Frame) -> bool {
        self.params
            .rts_threshold
            .is_some_and(|threshold| self.phy.mac_overhead_bytes + frame.msdu_bytes() > threshold)
    }

    fn start_transmission(
        &mut self,
        now: Instant,
        slot: u64,
        transmitters: Vec<u32>,
        actions: &mut Actions,
    ) {
        self.counters.contenders[self.holding] += 1;
        self.counters.attempts += transmitters.len() as u64;
        let phy = &self.phy;
        let delta = phy.propagation_ns;
        let handshake = |rts: bool| {
            if rts {
                phy.rts_airtime_ns()
                    + delta
                    + phy.sifs_ns
                    + phy.cts_airtime_ns()
                    + delta
                    + phy.sifs_ns
            } else {
                0
            }
        };
        let (busy_ns, ifs_ns, outcome) = if let [mac] = transmitters[..] {
            let frame = *self.macs[mac as usize]
                .queue
                .front()
                .expect("transmitter holds a frame");
            let rts = self.uses_rts(&frame);
            let data_end = handshake(rts) + phy.data_airtime_ns(frame.msdu_bytes());
            let frame_bytes = phy.mac_overhead_bytes + frame.msdu_bytes();
            if self.errors.corrupts(frame_bytes, &mut self.channel_rng) {
                self.counters.channel_errors += 1;
                (data_end + delta, phy.eifs_ns(), Outcome::Failure(vec![mac]))
            } else {
                let receiver = self.macs[frame.to as usize].node;
                let delivered_at = now + core::time::Duration::from_nanos(data_end + delta);
                actions
                    .deliveries
                    .push((delivered_at, receiver, frame.packet));
                let busy = data_end + delta + phy.sifs_ns + phy.ack_airtime_ns() + delta;
                (busy, phy.difs_ns(), Outcome::Success(mac))
            }
        } else {
            self.counters.collisions += 1;
            let longest = transmitters
                .iter()
                .map(|&mac| {
                    let frame = self.macs[mac as usize]
                        .queue
                        .front()
                        .expect("transmitter holds a frame");
                    if self.uses_rts(frame) {
                        phy.rts_airtime_ns()
                    } else {
                        phy.data_airtime_ns(frame.msdu_bytes())
                    }
                })
                .max()
                .unwrap_or(0);
            (
                longest + delta,
                phy.eifs_ns(),
                Outcome::Failure(transmitters),
            )
        };
        self.medium = Medium::Busy {
            ifs_ns,
            next_base: slot + 1,
            outcome,
        };
        actions.busy_end = Some(now + core::time::Duration::from_nanos(busy_ns));
    }

    /// The busy period ended: settle the outcome, then resume counting after DIFS or EIFS.
    pub fn on_busy_end(&mut self, now: Instant, actions: &mut Actions) {
        let Medium::Busy {
            ifs_ns,
            next_base,
            outcome,
        } = std::mem::replace(
            &mut self.medium,
            Medium::Idle {
                origin: now,
                base: 0,
            },
        )
        else {
            return;
        };
        self.medium = Medium::Idle {
            origin: now + core::time::Duration::from_nanos(ifs_ns),
            base: next_base,
        };
        match outcome {
            Outcome::Success(mac) => {
                let frame = self.pop_head(mac);
                self.counters.successes += 1;
                self.counters.delivered_msdu_bytes += u64::from(frame.msdu_bytes());
                self.draw_backoff(mac, next_base);
            }
            Outcome::Failure(macs) => {
                for mac in macs {
                    self.counters.failed_attempts += 1;
                    let head = *self.macs[mac as usize]
                        .queue
                        .front()
                        .expect("failed frame is queued");
                    let limit = if self.uses_rts(&head) {
                        self.params.long_retry_limit
                    } else {
                        self.params.short_retry_limit
                    };
                    let station = &mut self.macs[mac as usize];
                    station.attempts += 1;
                    if station.attempts >= limit {
                        self.counters.retry_drops += 1;
                        self.pop_head(mac);
                    } else {
                        self.counters.retries += 1;
                        station.cw = (2 * station.cw + 1).min(self.phy.cw_max);
                    }
                    self.draw_backoff(mac, next_base);
                }
            }
        }
        self.schedule_access(actions);
    }

    /// Removes the head frame after success or drop; the contention window resets.
    fn pop_head(&mut self, mac: u32) -> Frame {
        let cw_min = self.phy.cw_min;
        let station = &mut self.macs[mac as usize];
        let frame = station.queue.pop_front().expect("head frame exists");
        station.attempts = 0;
        station.cw = cw_min;
        if station.queue.is_empty() {
            self.holding -= 1;
        }
        frame
    }
}
