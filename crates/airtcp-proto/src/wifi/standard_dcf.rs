//! The saturation model of the standard's DCF as this simulator's MAC runs it: Bianchi's
//! renewal argument (`bianchi`) with backoff counters frozen while the medium is busy
//! (IEEE 802.11-2020 §10.3.4.3) and the IFS of a failed exchange (`Phy`).
//!
//! In Bianchi's chain every counter falls once per slot, busy or idle. Under the standard a
//! counter falls only in idle slots, so the first slot boundary after a busy period (DIFS
//! after it) can only be taken by a station that has just drawn 0; if none did, an idle
//! slot passes in which nobody transmits (Bianchi and Tinnirello, "Remarks on IEEE 802.11
//! DCF performance analysis", IEEE Commun. Lett. 9(8), 2005; ns-3's reference scripts for
//! its Bianchi validation, `src/wifi/examples/reference`, count the same slot). Taking a busy
//! period and the idle slot after it as one slot makes the standard's chain Bianchi's again,
//! except that a fresh draw r takes r such slots to transmit (not r + 1), and a draw of 0
//! sends back to back, inside the slot of the busy period it follows, where only the senders
//! of that busy period may send: after a success that frame cannot collide; after a
//! collision it collides only with another sender that also drew 0, which the model
//! neglects.
//!
//! After a collision the senders and the others resume at different times: a sender's draw
//! r counts from the others' count shifted by the lag L in slots (r + L slots; when the
//! others resume later, L < 0, and draws r ≤ −L go back to back before the others may send,
//! in place of idle time the slot would have had).
//!
//! One station's cycle over a frame's backoff stages gives τ, the probability that it opens
//! a slot with a transmission, as the transmissions opening a slot per slot it spends; its
//! back-to-back frames come on top of Bianchi's slots:
//!
//!   S = (Ptr·Ps + n·b)·E[P] / ((1 − Ptr)σ + Ptr·Ps·(Ts + σ) + Ptr·(1 − Ps)·(Tc + σ)
//!       + n·b·Ts − n·v·σ)
//!
//! with b a station's back-to-back frames per slot and v the idle slots they replace.

use super::bianchi::Params;

/// One station's expectations over a frame (from its first attempt to its delivery or drop).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct FrameCycle {
    /// Attempts that open a slot.
    opening: f64,
    /// Attempts sent back to back after a busy period.
    back_to_back: f64,
    /// Slots the station counts through.
    slots: f64,
    /// Idle slots that back-to-back attempts replace.
    replaced: f64,
}

impl FrameCycle {
    /// The cycle at conditional collision probability `p` (of an attempt that opens a slot).
    pub(super) fn new(params: &Params, sender_lag_slots: i64, p: f64) -> FrameCycle {
        // A frame's first attempt follows the last frame's success (no lag) or, when that
        // was dropped at the retry limit, its last failure (the lag).
        let (after_success, drop_s) = Self::from_offset(params, 0, sender_lag_slots, p);
        let (after_failure, drop_f) =
            Self::from_offset(params, sender_lag_slots, sender_lag_slots, p);
        let dropped = drop_s / (1.0 - drop_f + drop_s);
        after_success
            .scaled(1.0 - dropped)
            .plus(after_failure.scaled(dropped))
    }

    /// The cycle of a frame whose first draw is shifted by `first` slots and its retries by
    /// `lag`, and the probability that the frame is dropped at the retry limit.
    fn from_offset(params: &Params, first: i64, lag: i64, p: f64) -> (FrameCycle, f64) {
        let mut cycle = FrameCycle::default();
        let mut reach = 1.0;
        let last = params.retry_limit.unwrap_or(params.stages);
        for stage in 0..=last {
            let offset = if stage == 0 { first } else { lag };
            let (stage_cycle, fail) = Self::stage(params.stage_window(stage), offset, p);
            let weight = if params.retry_limit.is_none() && stage == params.stages {
                // Stages ≥ m share W_max and the lag: a geometric tail.
                reach / (1.0 - fail)
            } else {
                reach
            };
            cycle = cycle.plus(stage_cycle.scaled(weight));
            reach *= fail;
        }
        let dropped = if params.retry_limit.is_some() {
            reach
        } else {
            0.0
        };
        (cycle, dropped)
    }

    /// One attempt with a draw r uniform in [0, window) shifted by `offset` slots, and the
    /// probability that it fails.
    fn stage(window: f64, offset: i64, p: f64) -> (FrameCycle, f64) {
        let w = window as i64;
        // Draws r ≤ −offset go back to back; the others take r + offset slots.
        let back = (1 - offset).clamp(0, w);
        let triangle = |k: i64| (k * (k - 1) / 2) as f64;
        let slots = triangle(w) - triangle(back) + ((w - back) * offset) as f64;
        let replaced = -(triangle(back) + (back * offset) as f64);
        let back = back as f64;
        let cycle = FrameCycle {
            opening: (window - back) / window,
            back_to_back: back / window,
            slots: slots / window,
            replaced: replaced / window,
        };
        (cycle, cycle.opening * p)
    }

    fn scaled(self, k: f64) -> FrameCycle {
        FrameCycle {
            opening: self.opening * k,
            back_to_back: self.back_to_back * k,
            slots: self.slots * k,
            replaced: self.replaced * k,
        }
    }

    fn plus(self, other: FrameCycle) -> FrameCycle {
        FrameCycle {
            opening: self.opening + other.opening,
            back_to_back: self.back_to_back + other.back_to_back,
            slots: self.slots + other.slots,
            replaced: self.replaced + other.replaced,
        }
    }

    /// τ: attempts opening a slot per slot.
    pub(super) fn tau(&self) -> f64 {
        if self.slots > 0.0 {
            self.opening / self.slots
        } else {
            1.0
        }
    }

    /// Payload bits per second with `n` stations, given Ptr and Ps of a slot.
    pub(super) fn payload_rate(&self, params: &Params, n: f64, p_tr: f64, p_s: f64) -> f64 {
        let back_to_back = n * self.back_to_back / self.slots;
        let replaced = n * self.replaced / self.slots;
        let sigma = params.slot;
        let time = (1.0 - p_tr) * sigma
            + p_tr * p_s * (params.success_time + sigma)
            + p_tr * (1.0 - p_s) * (params.collision_time + sigma)
            + back_to_back * params.success_time
            - replaced * sigma;
        (p_tr * p_s + back_to_back) * params.payload_bits / time
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::bianchi::{self, Chain, CollisionTiming};
    use crate::wifi::{Phy, Preamble};

    fn params(lag: i64) -> Params {
        let phy = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
        let mut params = Params::from_phy(&phy, 1024, false, CollisionTiming::Bianchi, Some(6));
        params.chain = Chain::Standard {
            sender_lag_slots: lag,
        };
        params
    }

    #[test]
    fn a_stage_counts_draws_by_hand() {
        // W = 4, no lag: r = 0 back to back, r = 1, 2, 3 take 1, 2, 3 slots.
        let (cycle, fail) = FrameCycle::stage(4.0, 0, 0.5);
        assert_eq!(cycle.back_to_back, 0.25);
        assert_eq!(cycle.slots, 6.0 / 4.0);
        assert_eq!(cycle.replaced, 0.0);
        assert_eq!(fail, 0.75 * 0.5);
        // Lag −2: r = 0, 1, 2 back to back, replacing 2, 1, 0 idle slots; r = 3 takes 1.
        let (cycle, _) = FrameCycle::stage(4.0, -2, 0.5);
        assert_eq!(cycle.back_to_back, 0.75);
        assert_eq!(cycle.slots, 1.0 / 4.0);
        assert_eq!(cycle.replaced, 3.0 / 4.0);
        // Lag 3: no back to back; r + 3 slots.
        let (cycle, _) = FrameCycle::stage(4.0, 3, 0.5);
        assert_eq!(cycle.back_to_back, 0.0);
        assert_eq!(cycle.slots, (3.0 + 4.0 + 5.0 + 6.0) / 4.0);
    }

    #[test]
    fn one_station_waits_its_mean_draw_per_frame() {
        // Alone, a station never collides: each frame waits (W − 1)/2 slots on average, and
        // a draw of 0 (1/W) sends at DIFS after the last frame.
        let params = params(0);
        let point = bianchi::solve(&params, 1);
        let w = f64::from(params.window);
        let ts = params.success_time;
        let sigma = params.slot;
        // Per frame: Ts plus, unless it went back to back, one idle slot per counted slot
        // and the idle slot after the busy period.
        let per_frame = ts + (w - 1.0) / 2.0 * sigma;
        let expected = params.payload_bits / per_frame;
        assert!((point.throughput_bps - expected).abs() / expected < 1e-9);
    }

    #[test]
    fn a_frame_after_a_drop_starts_with_the_lag() {
        // One attempt per frame (retry limit 0), W = 4, lag −2: after a success a frame
        // fails with 3/4·p (r = 0 goes back to back), after a drop with 1/4·p (r ≤ 2 do).
        let mut params = params(-2);
        params.window = 4;
        params.retry_limit = Some(0);
        let p = 0.4;
        let (drop_s, drop_f) = (0.75 * p, 0.25 * p);
        let dropped = drop_s / (1.0 - drop_f + drop_s);
        let cycle = FrameCycle::new(&params, -2, p);
        let expected = (1.0 - dropped) * 0.75 + dropped * 0.25;
        assert!((cycle.opening - expected).abs() < 1e-12, "{cycle:?}");
    }
}
