//! Delivery-rate control and pacing: the sender under a controller that sets the window and
//! a pacing rate from delivery-rate samples (Linux's `cong_control` hook, BBR), beside
//! RACK-TLP's loss recovery, and the pacing any controller gets with `pacing` (Linux's fq).
//!
//! - Each ACK, after its loss detection, completes a rate sample (`tcp_rate_gen`) and hands
//!   it to the controller in place of PRR and window growth (`tcp_cong_control`).
//! - Pacing as Linux's (`tcp_update_skb_after_send`, `tcp_pacing_check`; sch_fq's spacing
//!   is the same): each data segment moves the next departure time on by its payload at
//!   the pacing rate (the first ten segments of the connection unpaced; a sender that fell
//!   behind is credited up to half a segment's time); a segment, new or resent, waits for
//!   that time. Pure ACKs, RTO retransmissions and probes are not paced. The rate is the
//!   controller's (BBR), else `tcp_update_pacing_rate`'s after every ACK: cwnd (or the
//!   flight, if larger) per SRTT, times 2 while cwnd is below half ssthresh, 1.2 after.
//! - CA_EVENT_TX_START when data goes out with nothing in flight; the application's writes
//!   mark the flight app-limited when the sender was short of data
//!   (`tcp_rate_check_app_limited`).
//!
//! A peer that refuses SACK leaves RACK off, and so the samples: a rate-based controller then
//! keeps its initial window (validation asks for `sack` and `rack_tlp`).

use core::time::Duration;

use super::TcpSocket;
use crate::tcp::cc::{CaState, RateContext};
use crate::time::Instant;

/// Segments the connection sends before pacing starts (sch_fq's and Linux's exemption).
const UNPACED_SEGMENTS: u64 = 10;
/// `tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio`, percent.
const PACING_SS_RATIO: u128 = 200;
const PACING_CA_RATIO: u128 = 120;

/// Linux's pacing state.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Pacing {
    /// Bytes of payload a second (`sk_pacing_rate`); 0 paces nothing.
    rate: u64,
    /// When the next data segment may leave (`tcp_wstamp_ns`).
    release: Instant,
    /// Segments with data sent (`data_segs_out`; a bare FIN is paced but not counted).
    segments_out: u64,
    /// A segment waits for `release` (the pacing timer is armed).
    pub(super) deadline: Option<Instant>,
}

impl TcpSocket {
    /// The controller sets the window from rate samples, which RACK supplies.
    pub(super) fn rate_based(&self) -> bool {
        self.rack.delivery_rate().is_some()
    }
    /// Segments in flight as Linux counts them.
    fn pipe_segments(&self) -> u64 {
        self.segments(self.rack.pipe())
    }

    fn ca_state(&self) -> CaState {
        if self.in_recovery {
            CaState::Recovery
        } else if self.in_loss_state() {
            CaState::Loss
        } else if self.cwr_until.is_some() {
            CaState::Cwr
        } else if self.rack.sacked_bytes() > 0 || self.rack.lost_bytes() > 0 {
            CaState::Disorder
        } else {
            CaState::Open
        }
    }

    fn rate_context(&self, now: Instant) -> RateContext {
        let rate = self.rack.delivery_rate();
        RateContext {
            now,
            delivered: rate.map_or(0, |r| r.delivered()),
            delivered_time: rate.map_or(now, |r| r.delivered_time()),
            lost: rate.map_or(0, |r| r.lost()),
            in_flight: self.pipe_segments(),
            state: self.ca_state(),
            srtt: self.rto.srtt(),
            pacing_release: self.pacing.map_or(now, |p| p.release),
        }
    }

    /// The handshake is done: a rate-based controller with RACK on starts sampling and
    /// initializes from the handshake's RTT (its `init` hook); it, or `pacing`, paces.
    pub(super) fn rate_on_established(&mut self, now: Instant) {
        let rate_based = self.cc.sets_window_from_rate() && self.rack_on();
        if rate_based {
            self.rack.sample_delivery_rate();
        }
        if rate_based || self.config.pacing {
            self.pacing = Some(Pacing {
                release: now,
                ..Pacing::default()
            });
        }
        if rate_based {
            let cx = self.rate_context(now);
            self.cc.on_established(&cx);
        }
        self.update_pacing_rate();
    }

    /// The pacing rate after an ACK (or the events that change BBR's).
    pub(super) fn update_pacing_rate(&mut self) {
        let Some(pacing) = self.pacing else {
            return;
        };
        let rate = if self.rate_based() {
            self.cc.pacing_rate().unwrap_or(0)
        } else {
            self.fq_pacing_rate()
        };
        self.pacing = Some(Pacing { rate, ..pacing });
    }

    /// `tcp_update_pacing_rate`: 200 % or 120 % of the larger of cwnd and the flight per
    /// SRTT; without an RTT sample, no limit.
    fn fq_pacing_rate(&self) -> u64 {
        let Some(srtt) = self.rto.srtt().filter(|s| !s.is_zero()) else {
            return u64::MAX;
        };
        let window = self.cc.window();
        let ratio = if window.cwnd < window.ssthresh / 2 {
            PACING_SS_RATIO
        } else {
            PACING_CA_RATIO
        };
        let flight = self.snd_max - self.snd_una;
        let bytes = u128::from(window.cwnd.max(flight));
        let rate = bytes * ratio * 1_000_000_000 / (100 * srtt.as_nanos());
        rate.min(u128::from(u64::MAX)) as u64
    }

    /// The ACK's sample to the controller (`tcp_rate_gen`, `cong_control`). `lost_before`
    /// and `prior_pipe` (bytes) are as the ACK found them.
    pub(super) fn rate_ack(&mut self, now: Instant, lost_before: u64, prior_pipe: u64) {
        let lost = self.rack.delivery_rate().map_or(0, |r| r.lost());
        let prior_in_flight = self.segments(prior_pipe);
        let Some(sample) = self
            .rack
            .take_rate_sample(now, lost - lost_before, prior_in_flight)
        else {
            return;
        };
        let cx = self.rate_context(now);
        if self.cc.on_rate_sample(&sample, &cx) {
            self.rack.mark_app_limited(cx.in_flight);
        }
    }

    /// The timeout's marking is done (the Loss state begins).
    pub(super) fn rate_on_timeout(&mut self, now: Instant) {
        if self.rate_based() {
            let cx = self.rate_context(now);
            self.cc.on_enter_loss(&cx);
        }
    }

    /// The application wrote: was the sender short of data?
    pub(super) fn rate_on_write(&mut self) {
        if !self.rate_based() {
            return;
        }
        let pipe = self.pipe_segments();
        let cwnd = u64::from(self.cc.window().cwnd / self.mss.max(1));
        self.rack
            .check_app_limited(self.unsent() < self.mss, pipe >= cwnd, pipe);
    }

    /// Pacing holds data back until its release time; arms the pacing timer if so.
    pub(super) fn paced_out(&mut self, now: Instant) -> bool {
        match &mut self.pacing {
            Some(pacing) if pacing.release > now => {
                pacing.deadline = Some(pacing.release);
                true
            }
            _ => false,
        }
    }

    /// A data segment of `len` payload bytes is about to go at `now`.
    pub(super) fn rate_on_data_sent(&mut self, now: Instant, len: u32) {
        if self.rate_based() && self.rack.pipe() == 0 {
            let app_limited = self.rack.delivery_rate().is_some_and(|r| r.app_limited());
            let cx = self.rate_context(now);
            self.cc.on_transmit_start(&cx, app_limited);
            self.update_pacing_rate();
        }
        let Some(pacing) = &mut self.pacing else {
            return;
        };
        let rate = pacing.rate;
        let prior = pacing.release;
        pacing.release = pacing.release.max(now);
        pacing.segments_out += u64::from(len > 0);
        if rate > 0 && pacing.segments_out >= UNPACED_SEGMENTS {
            let len_ns = u64::from(len) * 1_000_000_000 / rate;
            // A sender that fell behind (idle, or woken late) is credited up to half.
            let credit = (pacing.release - prior).as_nanos() as u64;
            let len_ns = len_ns - (len_ns / 2).min(credit);
            pacing.release += Duration::from_nanos(len_ns);
        }
    }
}
