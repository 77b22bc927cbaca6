//! Adaptive ACK priority (the future work of paper 000 §4): release ACKs with backoff 0 only
//! as often as keeps the number of contending stations near Bianchi's optimum.
//!
//! The AP hears every virtual slot other than its own transmissions. In Bianchi's model the
//! fraction of those slots that are busy is b = 1 − (1 − τ)^n for n contending stations, and
//! τ = τ(p) with p ≈ b (his eq. 7), so n ≈ ln(1 − b) / ln(1 − τ(b)) (the estimator of Bianchi
//! and Tinnirello, INFOCOM 2003). b is an exponentially weighted average over slots.
//!
//! The estimate is capped by the number of stations the AP forwarded an ACK to in the last
//! second: no more stations can be uploading, so with few flows priority stays fully on.
//!
//! Control: a fraction q of ACK-headed accesses get backoff 0 (released by a deterministic
//! credit counter, not a random draw). Too few contenders: raise q, so ACKs reach stations
//! sooner and open more windows. Too many: lower q, down to plain DCF. q moves by an
//! integral step proportional to the error, once per AP access.

use std::collections::BTreeMap;
use std::time::Duration;

use super::{
    AccessPlan, AccessPlanner, Agent, ApQueue, ApView, ChannelEvent, Direction, InterfaceQueue,
    Verdict,
};
use crate::time::Instant;
use crate::wire::PacketRepr;

/// How long a station counts as uploading after the AP last forwarded it an ACK.
const ACTIVE_FOR: Duration = Duration::from_secs(1);

/// Weight of one slot in the busy-fraction average (a memory of ~1000 slots).
const SLOT_WEIGHT: f64 = 1e-3;
/// Change of q per AP access per station of error.
const GAIN: f64 = 0.002;

#[derive(Clone, Debug)]
pub struct AdaptivePriority {
    target: f64,
    window: f64,
    stages: u32,
    busy_fraction: f64,
    share: f64,
    credit: f64,
    /// When the AP last queued an ACK for each station address.
    last_ack: BTreeMap<[u8; 4], Instant>,
}

impl AdaptivePriority {
    pub fn new(target_stations: f64, cw_min: u32, stages: u32) -> Self {
        AdaptivePriority {
            target: target_stations.max(1.0),
            window: f64::from(cw_min + 1),
            stages,
            busy_fraction: 0.0,
            share: 1.0,
            credit: 0.0,
            last_ack: BTreeMap::new(),
        }
    }

    /// τ for a conditional collision probability p (Bianchi eq. 7).
    fn tau(&self, p: f64) -> f64 {
        let (w, m) = (self.window, self.stages as i32);
        let p = p.clamp(1e-9, 0.999);
        if (1.0 - 2.0 * p).abs() < 1e-9 {
            return 2.0 / (w + 1.0 + p * w * f64::from(m));
        }
        2.0 * (1.0 - 2.0 * p) / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m)))
    }

    /// Estimated number of contending stations (AP excluded).
    pub fn estimated_stations(&self) -> f64 {
        let b = self.busy_fraction.clamp(0.0, 0.99);
        if b <= 0.0 {
            return 0.0;
        }
        (1.0 - b).ln() / (1.0 - self.tau(b)).ln()
    }

    /// Fraction of ACK-headed accesses currently given backoff 0.
    pub fn priority_share(&self) -> f64 {
        self.share
    }

    fn observe(&mut self, slots: u64, busy: bool) {
        let keep = (1.0 - SLOT_WEIGHT).powf(slots as f64);
        let value = if busy { 1.0 } else { 0.0 };
        self.busy_fraction = keep * self.busy_fraction + (1.0 - keep) * value;
    }
}

impl Agent for AdaptivePriority {
    fn name(&self) -> &'static str {
        "adaptive"
    }

    /// Remembers the stations the AP forwards ACKs to (the cap on the estimate).
    fn handle_packet(
        &mut self,
        now: Instant,
        direction: Direction,
        packet: &mut PacketRepr,
        _queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        if direction == Direction::Outbound && self.classify(packet) == ApQueue::Ack {
            self.last_ack.insert(packet.ip.dst, now);
        }
        Verdict::Pass
    }

    fn access_planner(&mut self) -> Option<&mut dyn AccessPlanner> {
        Some(self)
    }
}

impl AccessPlanner for AdaptivePriority {
    fn plan(&mut self, now: Instant, view: &ApView) -> AccessPlan {
        let queue = view.ack_first();
        if queue != ApQueue::Ack {
            return AccessPlan::plain(queue);
        }
        self.last_ack.retain(|_, seen| now - *seen <= ACTIVE_FOR);
        let uploading = self.last_ack.len() as f64;
        let error = self.target - self.estimated_stations().min(uploading);
        self.share = (self.share + GAIN * error).clamp(0.0, 1.0);
        self.credit += self.share;
        let zero_backoff = self.credit >= 1.0;
        if zero_backoff {
            self.credit -= 1.0;
        }
        AccessPlan {
            zero_backoff,
            ..AccessPlan::plain(queue)
        }
    }

    fn on_channel(&mut self, _now: Instant, event: ChannelEvent) {
        match event {
            ChannelEvent::IdleSlots(slots) => self.observe(slots, false),
            ChannelEvent::Busy { .. } => self.observe(1, true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds the agent the slot pattern n saturated stations produce in Bianchi's model.
    fn feed(agent: &mut AdaptivePriority, stations: f64, slots: u64) {
        let tau = crate::wifi::bianchi::solve(
            &crate::wifi::bianchi::Params {
                payload_bits: 8192.0,
                slot: 20e-6,
                success_time: 1e-3,
                collision_time: 1e-3,
                chain: crate::wifi::bianchi::Chain::Bianchi,
                window: 32,
                stages: 5,
                retry_limit: None,
                bit_rate: 11e6,
            },
            stations as u32 + 1,
        )
        .tau;
        let busy = 1.0 - (1.0 - tau).powf(stations);
        // Deterministic interleaving with the right busy fraction.
        let mut acc = 0.0;
        for _ in 0..slots {
            acc += busy;
            if acc >= 1.0 {
                acc -= 1.0;
                agent.on_channel(Instant::ZERO, ChannelEvent::Busy { collision: false });
            } else {
                agent.on_channel(Instant::ZERO, ChannelEvent::IdleSlots(1));
            }
        }
    }

    #[test]
    fn estimator_recovers_the_number_of_stations() {
        for n in [2.0, 5.0, 10.0, 20.0] {
            let mut agent = AdaptivePriority::new(3.0, 31, 5);
            feed(&mut agent, n, 20_000);
            let estimate = agent.estimated_stations();
            assert!(
                (estimate - n).abs() / n < 0.15,
                "n={n}: estimated {estimate:.2}"
            );
        }
    }

    /// Makes the AP forward an ACK to each of `stations` stations at time zero.
    fn uploaders(agent: &mut AdaptivePriority, stations: u8) {
        uploaders_at(agent, stations, Instant::ZERO);
    }

    fn uploaders_at(agent: &mut AdaptivePriority, stations: u8, now: Instant) {
        for station in 0..stations {
            let mut ack = super::super::tests::pure_ack_to([10, 0, 1, station]);
            let verdict = agent.handle_packet(
                now,
                Direction::Outbound,
                &mut ack,
                &mut super::super::NoQueue,
            );
            assert_eq!(verdict, Verdict::Pass);
        }
    }

    #[test]
    fn priority_share_falls_with_too_many_contenders_and_rises_with_too_few() {
        let view = ApView {
            data_frames: 0,
            ack_frames: 3,
        };
        let mut crowded = AdaptivePriority::new(3.0, 31, 5);
        uploaders(&mut crowded, 15);
        feed(&mut crowded, 15.0, 20_000);
        let zero = (0..2000)
            .filter(|_| crowded.plan(Instant::ZERO, &view).zero_backoff)
            .count();
        assert!(
            crowded.priority_share() < 0.05,
            "share {}",
            crowded.priority_share()
        );
        assert!(zero < 1000, "{zero} of 2000 accesses still prioritised");
        let mut sparse = AdaptivePriority::new(3.0, 31, 5);
        sparse.share = 0.0;
        uploaders(&mut sparse, 15);
        feed(&mut sparse, 1.0, 20_000);
        for _ in 0..2000 {
            sparse.plan(Instant::ZERO, &view);
        }
        assert!(
            sparse.priority_share() > 0.95,
            "share {}",
            sparse.priority_share()
        );
    }

    #[test]
    fn few_uploading_stations_keep_priority_on_whatever_the_estimate() {
        let view = ApView {
            data_frames: 0,
            ack_frames: 3,
        };
        let mut agent = AdaptivePriority::new(3.0, 31, 5);
        uploaders(&mut agent, 2);
        feed(&mut agent, 15.0, 20_000);
        assert!(agent.estimated_stations() > 10.0);
        for _ in 0..2000 {
            agent.plan(Instant::ZERO, &view);
        }
        assert_eq!(agent.priority_share(), 1.0);
    }

    #[test]
    fn stations_without_an_ack_for_a_second_stop_counting_as_uploaders() {
        let view = ApView {
            data_frames: 0,
            ack_frames: 3,
        };
        // 15 uploaders and a crowded channel: priority falls away.
        let mut agent = AdaptivePriority::new(3.0, 31, 5);
        uploaders(&mut agent, 15);
        feed(&mut agent, 15.0, 20_000);
        for _ in 0..2000 {
            agent.plan(Instant::ZERO, &view);
        }
        assert!(agent.priority_share() < 0.05);
        // Two seconds later only two of them still get ACKs, so the estimate is capped at 2,
        // below the target: priority must come back. Counting the 13 stale stations would
        // keep the cap at 15 and priority off.
        let later = Instant::ZERO + Duration::from_secs(2);
        uploaders_at(&mut agent, 2, later);
        for _ in 0..2000 {
            agent.plan(later, &view);
        }
        assert!(
            agent.priority_share() > 0.9,
            "share {}",
            agent.priority_share()
        );
    }
}
