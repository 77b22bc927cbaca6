//! TCP Veno (Fu and Liew, IEEE JSAC 21(2) 2003; Linux `tcp_veno.c`): Reno, with Vegas'
//! backlog estimate deciding whether a loss is random or congestive.
//!
//! - BaseRTT is the smallest RTT sample seen, RTT the smallest since the last ACK that
//!   grew the window. The backlog is `N = cwnd · (RTT − BaseRTT) / RTT` segments
//!   (Linux's `diff`, computed once three samples have come).
//! - Congestion avoidance: with `N < β` (3 segments) cwnd grows one segment per round trip,
//!   as Reno; at or above β, one segment every other round trip (the window stays near
//!   the point where the queue builds for longer).
//! - A loss (fast retransmit or timeout) with `N < β` is taken as random:
//!   `ssthresh = max(cwnd · 4/5, 2 segments)`; else congestive: `max(cwnd / 2, 2 segments)`.
//!   NewReno's recovery follows (cwnd = ssthresh + 3 segments, deflated at the end).
//!
//! Unlike Linux, an ACK that brings no RTT sample leaves N as it was; Linux computes it from
//! an "infinite" RTT, which reads as a large backlog.

use core::time::Duration;

use super::{AckEvent, CongestionControl, Window};
use crate::time::Instant;

/// RTT samples needed before the backlog is estimated (Linux: more than two).
const SAMPLES_NEEDED: u32 = 3;

#[derive(Clone, Debug)]
pub struct Veno {
    window: Window,
    /// β in segments.
    beta: u32,
    base_rtt: Option<Duration>,
    /// The smallest sample since the window last grew.
    min_rtt: Option<Duration>,
    samples: u32,
    /// Backlog N in bytes, as last estimated.
    backlog: u32,
    /// In the congestive state, whether the next round trip's worth of ACKs grows cwnd.
    grow_next: bool,
}

impl Veno {
    pub fn new(initial_cwnd: u32, mss: u32, beta: u32) -> Self {
        Veno {
            window: Window::new(initial_cwnd, mss),
            beta,
            base_rtt: None,
            min_rtt: None,
            samples: 0,
            backlog: 0,
            grow_next: true,
        }
    }

    fn congestive(&self) -> bool {
        u64::from(self.backlog) >= u64::from(self.beta) * u64::from(self.window.mss)
    }

    /// Veno's multiplicative decrease (Linux's `tcp_veno_ssthresh`).
    fn reduced(&self) -> u32 {
        let w = &self.window;
        let cut = if self.congestive() {
            w.cwnd / 2
        } else {
            (u64::from(w.cwnd) * 4 / 5) as u32
        };
        cut.max(2 * w.mss)
    }

    fn estimate_backlog(&mut self) {
        if self.samples < SAMPLES_NEEDED {
            return;
        }
        let (Some(base), Some(rtt)) = (self.base_rtt, self.min_rtt.take()) else {
            return;
        };
        let queued = rtt.saturating_sub(base).as_secs_f64() / rtt.as_secs_f64();
        self.backlog = (f64::from(self.window.cwnd) * queued) as u32;
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }

    fn on_rtt_sample(&mut self, _now: Instant, rtt: Duration) {
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |base| base.min(rtt)));
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |min| min.min(rtt)));
        self.samples = self.samples.saturating_add(1);
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        self.estimate_backlog();
        let congestive = self.congestive();
        let w = &mut self.window;
        let mut bytes = ack.bytes_acked;
        if w.in_slow_start() {
            bytes = w.grow_in_slow_start(w.slow_start_increase(bytes));
            if bytes == 0 {
                return;
            }
        }
        w.bytes_acked = w.bytes_acked.saturating_add(bytes);
        if w.bytes_acked < w.cwnd {
            return;
        }
        w.bytes_acked -= w.cwnd;
        if !congestive {
            w.cwnd = w.cwnd.saturating_add(w.mss);
        } else if self.grow_next {
            w.cwnd = w.cwnd.saturating_add(w.mss);
            self.grow_next = false;
        } else {
            self.grow_next = true;
        }
    }

    fn on_enter_recovery(&mut self, _now: Instant, _flight_size: u32) {
        let ssthresh = self.reduced();
        let w = &mut self.window;
        w.bytes_acked = 0;
        w.ssthresh = ssthresh;
        w.cwnd = ssthresh + 3 * w.mss;
    }

    fn on_rto(&mut self, _now: Instant, _flight_size: u32, episode_open: bool) {
        if !episode_open {
            self.window.ssthresh = self.reduced();
        }
        let w = &mut self.window;
        w.bytes_acked = 0;
        w.cwnd = w.mss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn ack(bytes_acked: u32) -> AckEvent {
        AckEvent {
            now: Instant::ZERO,
            bytes_acked,
            flight_size: 0,
            rtt: None,
        }
    }

    /// A Veno in congestion avoidance at 30 segments with BaseRTT 100 ms.
    fn avoiding() -> Veno {
        let mut veno = Veno::new(30 * MSS, MSS, 3);
        veno.window.ssthresh = 10 * MSS;
        for _ in 0..3 {
            veno.on_rtt_sample(Instant::ZERO, ms(100));
        }
        veno.on_ack(&ack(0)); // ends the round of samples: N = 0
        assert_eq!(veno.window.cwnd, 30 * MSS);
        veno
    }

    /// One round trip of ACKs (a segment each) after an RTT sample of `rtt`.
    fn round(veno: &mut Veno, rtt: Duration) {
        let acks = veno.window.cwnd / MSS;
        for _ in 0..acks {
            veno.on_rtt_sample(Instant::ZERO, rtt);
            veno.on_ack(&ack(MSS));
        }
    }

    #[test]
    fn the_backlog_estimate_by_hand() {
        let mut veno = avoiding();
        // 30 segments x (120 - 100) / 120 = 5 segments queued.
        veno.on_rtt_sample(Instant::ZERO, ms(120));
        veno.estimate_backlog();
        assert_eq!(veno.backlog, 5 * MSS);
        assert!(veno.congestive());
        // 30 x (105 - 100) / 105 = 1.43 segments: below beta = 3.
        veno.on_rtt_sample(Instant::ZERO, ms(105));
        veno.estimate_backlog();
        assert_eq!(veno.backlog, 1428);
        assert!(!veno.congestive());
    }

    #[test]
    fn below_beta_one_segment_a_round_trip_above_it_every_other() {
        let mut veno = avoiding();
        round(&mut veno, ms(100));
        assert_eq!(veno.window.cwnd, 31 * MSS, "N = 0: Reno's growth");
        round(&mut veno, ms(150)); // N = 31 x 50 / 150 > 3
        round(&mut veno, ms(150));
        round(&mut veno, ms(150));
        round(&mut veno, ms(150));
        // Four congestive round trips: grow, hold, grow, hold.
        assert_eq!(veno.window.cwnd, 33 * MSS);
    }

    #[test]
    fn a_random_loss_cuts_a_fifth_a_congestive_one_half() {
        let mut veno = avoiding();
        veno.on_rtt_sample(Instant::ZERO, ms(101));
        veno.on_ack(&ack(MSS)); // N = 0.3 segment
        veno.window.cwnd = 40 * MSS;
        veno.on_enter_recovery(Instant::ZERO, 40 * MSS);
        assert_eq!(veno.window.ssthresh, 32 * MSS, "4/5 of 40");
        assert_eq!(veno.window.cwnd, 35 * MSS);

        let mut veno = avoiding();
        veno.on_rtt_sample(Instant::ZERO, ms(200));
        veno.on_ack(&ack(MSS)); // N = 15 segments
        veno.window.cwnd = 40 * MSS;
        veno.on_enter_recovery(Instant::ZERO, 40 * MSS);
        assert_eq!(veno.window.ssthresh, 20 * MSS, "half of 40");
        // A timeout in the same episode keeps that ssthresh; a fresh one reduces again.
        veno.on_rto(Instant::ZERO, 40 * MSS, true);
        assert_eq!((veno.window.cwnd, veno.window.ssthresh), (MSS, 20 * MSS));
        veno.window.cwnd = 6 * MSS;
        veno.on_rto(Instant::ZERO, 6 * MSS, false);
        assert_eq!(veno.window.ssthresh, 3 * MSS);
        veno.window.cwnd = 3 * MSS;
        veno.on_rto(Instant::ZERO, 3 * MSS, false);
        assert_eq!(veno.window.ssthresh, 2 * MSS, "never below two segments");
    }

    #[test]
    fn before_three_samples_no_backlog_is_estimated() {
        let mut veno = Veno::new(30 * MSS, MSS, 3);
        veno.window.ssthresh = 10 * MSS;
        veno.on_rtt_sample(Instant::ZERO, ms(100));
        veno.on_rtt_sample(Instant::ZERO, ms(300));
        veno.on_ack(&ack(MSS));
        assert_eq!(veno.backlog, 0);
        veno.window.cwnd = 40 * MSS;
        veno.on_enter_recovery(Instant::ZERO, 40 * MSS);
        assert_eq!(veno.window.ssthresh, 32 * MSS);
    }
}
