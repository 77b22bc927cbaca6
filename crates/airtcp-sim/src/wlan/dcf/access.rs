//! Channel access (IEEE 802.11-2020 §10.3.4.3, and §10.23.2 for EDCA): the channel access
//! functions (`Edcaf`), the medium's state and its count of idle slots (`Medium`,
//! `SlotCount`), and the backoff procedure run centrally on that count: contending when
//! frames arrive (at once on an idle medium), drawing a backoff in [0, CW],
//! scheduling the next access at the earliest expiry, and at that access taking every
//! EDCAF whose backoff expires as a transmitter (equal expiries collide). The AP's
//! access-planning agent is asked for its plan here (`replan`).

use std::collections::VecDeque;
use std::time::Duration;

use airtcp_proto::agent::{AccessPlan, ChannelEvent};
use airtcp_proto::wifi::edca::AccessCategory;
use airtcp_proto::wifi::Phy;
use airtcp_proto::Instant;
use rand::Rng;

use super::{Actions, Bss, Frame, Outcome};
use crate::wlan::ap_plan::{plan_access, serve_nonempty};

/// Whether heap entry (`expiry`, `edcaf`, `generation`) is an EDCAF's current backoff.
pub(super) fn live(edcafs: &[Edcaf]) -> impl Fn(SlotCount, u32, u64) -> bool + '_ {
    move |expiry, edcaf, generation| {
        let station = &edcafs[edcaf as usize];
        station.generation == generation && station.expiry == Some(expiry)
    }
}

/// A channel access function (IEEE 802.11-2020 §10.23.2): the DCF of a MAC without QoS, or
/// one of a QoS MAC's four EDCAFs, each with its own queue, contention window, retry counts
/// and backoff (`edca`). `Bss::edcafs[f]`: MAC f's DCF, or with EDCA MAC m's EDCAF of AC a
/// at 4m + a.
#[derive(Debug)]
pub(super) struct Edcaf {
    pub(super) mac: u32,
    pub(super) ac: AccessCategory,
    /// Its AIFSN's class of backoff counts (`edca::Classes`).
    pub(super) class: usize,
    pub(super) cw_min: u32,
    pub(super) cw_max: u32,
    /// Further frames SIFS apart after the first, within this time from the access's start
    /// (a TXOP limit above 0).
    pub(super) txop_ns: Option<u64>,
    /// Indexed by `ApQueue`: only the EDCAF of an AP's access-planning agent uses both.
    pub(super) queues: [VecDeque<Frame>; 2],
    /// The current backoff was set to 0 by the agent's plan.
    pub(super) zero_backoff: bool,
    pub(super) cw: u32,
    /// Failed attempts of the head frame, by retry counter.
    pub(super) short_retries: u32,
    pub(super) long_retries: u32,
    /// Absolute count of its class's idle slots at which the backoff expires.
    pub(super) expiry: Option<SlotCount>,
    pub(super) generation: u64,
}

impl Edcaf {
    /// MAC `mac`'s DCF: AIFSN 2 (DIFS) and the PHY's contention window.
    pub(super) fn dcf(mac: u32, phy: &Phy) -> Edcaf {
        Edcaf {
            mac,
            ac: AccessCategory::Be,
            class: 0,
            cw_min: phy.cw_min,
            cw_max: phy.cw_max,
            txop_ns: None,
            queues: [VecDeque::new(), VecDeque::new()],
            zero_backoff: false,
            cw: phy.cw_min,
            short_retries: 0,
            long_retries: 0,
            expiry: None,
            generation: 0,
        }
    }

    /// CW after a failed attempt: back to CWmin if the attempt reached a retry limit
    /// (§10.23.2.2: "CW shall be reset to CWmin after every unsuccessful attempt to transmit
    /// an MPDU that causes the retry counter to reach its limit"), doubled otherwise.
    pub(super) fn after_failure(&mut self, at_limit: bool) {
        self.cw = if at_limit {
            self.cw_min
        } else {
            (2 * self.cw + 1).min(self.cw_max)
        };
    }
}

/// An absolute count of idle slots. Signed: after a failure the stations that did not send
/// may resume later than the senders, and the count then starts a few slots before theirs
/// (`on_busy_end`).
pub(super) type SlotCount = i64;

#[derive(Debug)]
pub(super) enum Medium {
    /// Idle slots count from `origin`, where the count is `base`; a station that did not send
    /// in the last busy period may not access before slot `others_from` (its DIFS or EIFS).
    Idle {
        origin: Instant,
        base: SlotCount,
        others_from: SlotCount,
    },
    /// The stations that did not send resume `others_ifs_ns` after the busy period;
    /// `internal_losers`: EDCAFs that lost an internal collision as it began (`edca`).
    Busy {
        others_ifs_ns: u64,
        next_base: SlotCount,
        outcome: Outcome,
        internal_losers: Vec<u32>,
    },
}

impl Bss {
    /// Asks the AP's agent for its next access plan (plain DCF without an agent).
    pub(super) fn replan(&mut self, now: Instant) -> AccessPlan {
        let planner = match &mut self.agents[0] {
            Some(slot) if self.plans_access => slot.agent.access_planner(),
            _ => None,
        };
        let queues = &self.edcafs[self.planning as usize].queues;
        let backlog = self.txqs.as_ref().map_or(0, |t| t.backlog(self.planning));
        self.ap_plan = plan_access(planner, now, queues, backlog);
        self.ap_plan
    }

    /// The slot count (of `edcaf`'s class) at which `edcaf`, which did not send in the last
    /// busy period and may access at once, would transmit.
    pub(super) fn immediate_slot(&self, now: Instant, edcaf: u32) -> SlotCount {
        let class = self.edcafs[edcaf as usize].class;
        let extra = self.classes.extra(class);
        let common = match &self.medium {
            Medium::Idle {
                origin,
                base,
                others_from,
            } => {
                let elapsed_ns = now.as_nanos().saturating_sub(origin.as_nanos());
                let next = base + elapsed_ns.div_ceil(self.phy.slot_ns) as SlotCount;
                next.max(*others_from + extra)
            }
            Medium::Busy { next_base, .. } => *next_base + extra,
        };
        self.classes.to_class(class, common)
    }

    /// `edcaf` has frames again: it starts its channel access, unless it is contending
    /// already or a post-backoff is counting down.
    pub(super) fn contend(&mut self, now: Instant, edcaf: u32, actions: &mut Actions) {
        if self.edcafs[edcaf as usize].expiry.is_some() {
            return;
        }
        let expiry = self.fresh_expiry(now, edcaf);
        self.set_expiry(edcaf, expiry, false);
        self.schedule_access(actions);
    }

    /// Expiry (in its class's count) for a frame arriving at an EDCAF with no backoff
    /// pending: access at once if the medium is idle, otherwise defer and back off.
    pub(super) fn fresh_expiry(&mut self, now: Instant, edcaf: u32) -> SlotCount {
        match &self.medium {
            Medium::Idle { .. } => self.immediate_slot(now, edcaf),
            Medium::Busy { .. } => self.immediate_slot(now, edcaf) + self.random_slots(edcaf),
        }
    }

    /// A backoff drawn uniformly in [0, CW] (from its MAC's stream).
    pub(super) fn random_slots(&mut self, edcaf: u32) -> SlotCount {
        let Edcaf { mac, cw, .. } = self.edcafs[edcaf as usize];
        SlotCount::from(self.macs[mac as usize].rng.random_range(0..=cw))
    }

    /// Whether `edcaf` is one of the transmitters of the current busy period.
    pub(super) fn transmitting(&self, edcaf: u32) -> bool {
        match &self.medium {
            Medium::Busy {
                outcome:
                    Outcome::Success { edcaf: sender, .. }
                    | Outcome::Ampdu { edcaf: sender, .. }
                    | Outcome::BlockAckReq { edcaf: sender },
                ..
            } => *sender == edcaf,
            Medium::Busy {
                outcome: Outcome::Failure(failed),
                ..
            } => failed.iter().any(|f| f.edcaf == edcaf),
            Medium::Idle { .. } => false,
        }
    }

    /// Sets `edcaf`'s backoff to expire at `expiry` of its class's count.
    pub(super) fn set_expiry(&mut self, edcaf: u32, expiry: SlotCount, zero_backoff: bool) {
        let station = &mut self.edcafs[edcaf as usize];
        station.generation += 1;
        station.expiry = Some(expiry);
        station.zero_backoff = zero_backoff;
        self.classes
            .push(station.class, expiry, edcaf, station.generation);
    }

    /// Draws a fresh backoff in [0, CW] counted from common slot `base` (its class's AIFS
    /// later), or 0 if the AP's plan says so; the EDCAFs that did not send count from
    /// `others_from` (`note_start`).
    pub(super) fn draw_backoff(
        &mut self,
        now: Instant,
        edcaf: u32,
        base: SlotCount,
        others_from: SlotCount,
    ) {
        let class = self.edcafs[edcaf as usize].class;
        let start = self
            .classes
            .to_class(class, base + self.classes.extra(class));
        if self.plans(edcaf) && self.edcaf_len(edcaf) > 0 && self.replan(now).zero_backoff {
            self.set_expiry(edcaf, start, true);
        } else {
            let slots = self.random_slots(edcaf);
            self.set_expiry(edcaf, start + slots, false);
        }
        self.note_start(edcaf, base, others_from);
    }

    /// Whether the AP's agent plans `edcaf`'s accesses.
    pub(super) fn plans(&self, edcaf: u32) -> bool {
        self.plans_access && edcaf == self.planning
    }

    /// Drops stale heap entries and returns the earliest live expiry in the common count.
    pub(super) fn earliest_expiry(&mut self) -> Option<SlotCount> {
        self.classes.earliest(live(&self.edcafs))
    }

    pub(super) fn schedule_access(&mut self, actions: &mut Actions) {
        let Medium::Idle { origin, base, .. } = self.medium else {
            return;
        };
        let Some(expiry) = self.earliest_expiry() else {
            return;
        };
        let idle_slots = (expiry - base).max(0) as u64;
        let at = origin + Duration::from_nanos(idle_slots * self.phy.slot_ns);
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
        let Medium::Idle { origin, base, .. } = self.medium else {
            return;
        };
        // u64, not Duration's u128: this runs once per channel access.
        let elapsed_ns = now.as_nanos().saturating_sub(origin.as_nanos());
        let current = base + (elapsed_ns / self.phy.slot_ns) as SlotCount;
        let mut transmitters = Vec::new();
        while let Some(edcaf) = self.classes.pop_due(current, live(&self.edcafs)) {
            self.edcafs[edcaf as usize].expiry = None;
            // Dequeue: an MSDU past its lifetime (or its queue's sojourn limit) is discarded
            // instead of sent, also before a retry.
            if self.discard_expired(now, edcaf) && self.plans(edcaf) && self.edcaf_len(edcaf) > 0 {
                self.replan(now);
            }
            if self.txqs.is_some() {
                self.refill(now, edcaf);
                if self.plans(edcaf) {
                    // CoDel may have emptied the planned queue
                    self.ap_plan =
                        serve_nonempty(self.ap_plan, &self.edcafs[edcaf as usize].queues);
                }
            }
            if self.edcaf_len(edcaf) > 0 || self.owes_block_ack_req(edcaf) {
                transmitters.push(edcaf);
            }
        }
        if transmitters.is_empty() {
            // Only post-backoffs without frames completed.
            self.schedule_access(actions);
            return;
        }
        let internal_losers = self.internal_losers(&mut transmitters);
        // the idle slots the planned EDCAF counted (with EDCA its AIFS after the count's
        // reference passes first), for a planning agent only: this runs at every access
        let idle_slots = self.plans_access.then(|| {
            let class = self.edcafs[self.planning as usize].class;
            (current - base - self.classes.extra(class)).max(0) as u64
        });
        let others_only = !transmitters.contains(&self.planning);
        if let (Some(idle_slots), Some(planner)) = (idle_slots, self.planner()) {
            planner.on_channel(now, ChannelEvent::IdleSlots(idle_slots));
            if others_only {
                planner.on_channel(
                    now,
                    ChannelEvent::Busy {
                        collision: transmitters.len() > 1,
                    },
                );
            }
        }
        self.start_transmission(now, current, transmitters, internal_losers, actions);
    }
}
