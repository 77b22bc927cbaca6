//! Westwood+ (Mascolo, Casetti, Gerla, Sanadidi, Wang 2001; Grieco and Mascolo 2004; Linux
//! `tcp_westwood.c`): NewReno's growth, but after a loss the window is set from an estimate
//! of the bandwidth the connection was getting, not halved, so random (wireless) losses do
//! not shrink it below what the path carries.
//!
//! - Every ACK counts the data it reports delivered: the bytes it acknowledges, a segment for
//!   a duplicate ACK, and a cumulative ACK after duplicates counts only what they did not
//!   (Linux's `westwood_acked_count`).
//! - Once per round trip (at least 50 ms), the bytes counted over the time since the window
//!   began are a sample; two low-pass filters with gain 7/8 smooth it (Westwood+'s per-RTT
//!   sampling, which is robust to ACK compression): `bw_ns = 7/8 bw_ns + 1/8 sample`,
//!   `bwe = 7/8 bwe + 1/8 bw_ns`; the first sample sets both.
//! - At the end of a fast recovery, `cwnd = ssthresh = max(BWE · RTTmin, 2 segments)`; at a
//!   timeout `ssthresh = max(BWE · RTTmin, 2 segments)` and cwnd one segment, and RTTmin is
//!   measured afresh. RTTmin is the smallest RTT sample; the round trip is the last one.
//!   Entering a fast recovery halves as NewReno does (Linux's `tcp_reno_ssthresh`).

use core::time::Duration;

use super::{CongestionControl, Window};
use crate::time::Instant;

/// The shortest bandwidth-sampling window (Linux's `TCP_WESTWOOD_RTT_MIN`, HZ/20).
pub const MIN_WINDOW: Duration = Duration::from_millis(50);

#[derive(Clone, Debug)]
pub struct Westwood {
    window: Window,
    /// The bandwidth estimate and its first filter's output, in bytes per second.
    bwe: f64,
    bw_ns: f64,
    /// Bytes counted delivered since the sampling window began, and when it began.
    counted: u64,
    window_start: Option<Instant>,
    /// Segments credited for duplicate ACKs, not yet covered by a cumulative ACK.
    accounted: u32,
    rtt: Option<Duration>,
    rtt_min: Option<Duration>,
    reset_rtt_min: bool,
}

impl Westwood {
    pub fn new(initial_cwnd: u32, mss: u32) -> Self {
        Westwood {
            window: Window::new(initial_cwnd, mss),
            bwe: 0.0,
            bw_ns: 0.0,
            counted: 0,
            window_start: None,
            accounted: 0,
            rtt: None,
            rtt_min: None,
            reset_rtt_min: false,
        }
    }

    /// BWE · RTTmin in bytes, whole segments, at least two.
    fn bw_rtt_min(&self) -> u32 {
        let mss = self.window.mss;
        let rtt_min = self.rtt_min.map_or(0.0, |d| d.as_secs_f64());
        let segments = (self.bwe * rtt_min / f64::from(mss)).floor();
        (segments.min(f64::from(u32::MAX / mss)) as u32).max(2) * mss
    }

    /// Closes the sampling window if a round trip (at least [`MIN_WINDOW`]) has passed.
    fn update_window(&mut self, now: Instant) {
        let Some(start) = self.window_start else {
            self.window_start = Some(now);
            return;
        };
        let elapsed = now - start;
        let Some(rtt) = self.rtt else {
            return;
        };
        if elapsed <= rtt.max(MIN_WINDOW) {
            return;
        }
        let sample = self.counted as f64 / elapsed.as_secs_f64();
        if self.bw_ns == 0.0 && self.bwe == 0.0 {
            self.bw_ns = sample;
            self.bwe = sample;
        } else {
            self.bw_ns = (7.0 * self.bw_ns + sample) / 8.0;
            self.bwe = (7.0 * self.bwe + self.bw_ns) / 8.0;
        }
        self.counted = 0;
        self.window_start = Some(now);
    }

    /// What an ACK reports delivered (Linux's `westwood_acked_count`): a duplicate ACK a
    /// segment; a cumulative ACK after duplicates only what they did not already count.
    fn delivered(&mut self, bytes_acked: u32) -> u32 {
        let mss = self.window.mss;
        if bytes_acked == 0 {
            self.accounted = self.accounted.saturating_add(mss);
            return mss;
        }
        if bytes_acked <= mss {
            return bytes_acked;
        }
        if self.accounted >= bytes_acked {
            self.accounted -= bytes_acked;
            mss
        } else {
            let delivered = bytes_acked - self.accounted;
            self.accounted = 0;
            delivered
        }
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }

    fn on_any_ack(&mut self, now: Instant, bytes_acked: u32) {
        self.update_window(now);
        let delivered = self.delivered(bytes_acked);
        self.counted += u64::from(delivered);
    }

    fn on_rtt_sample(&mut self, _now: Instant, rtt: Duration) {
        self.rtt = Some(rtt);
        self.rtt_min = match self.rtt_min {
            Some(min) if !self.reset_rtt_min => Some(min.min(rtt)),
            _ => Some(rtt),
        };
        self.reset_rtt_min = false;
    }

    fn on_exit_recovery(&mut self, _now: Instant, _flight_size: u32) {
        let target = self.bw_rtt_min();
        let w = self.window_mut();
        w.ssthresh = target;
        w.cwnd = target;
    }

    fn on_rto(&mut self, _now: Instant, _flight_size: u32, _episode_open: bool) {
        let target = self.bw_rtt_min();
        self.reset_rtt_min = true;
        let w = self.window_mut();
        w.bytes_acked = 0;
        w.ssthresh = target;
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

    #[test]
    fn the_two_filters_by_hand() {
        let mut w = Westwood::new(10 * MSS, MSS);
        let t0 = Instant::ZERO;
        w.on_rtt_sample(t0, ms(100));
        w.on_any_ack(t0, MSS); // opens the window at t0, counts 1000
        w.on_any_ack(t0 + ms(50), 9 * MSS);
        // 10 000 bytes in the first 200 ms window: 50 000 B/s, which sets both filters.
        w.on_any_ack(t0 + ms(200), 2 * MSS);
        assert_eq!((w.bw_ns, w.bwe), (50_000.0, 50_000.0));
        // 2000 + 18 000 bytes over the next 200 ms: 100 000 B/s.
        w.on_any_ack(t0 + ms(300), 18 * MSS);
        w.on_any_ack(t0 + ms(400), MSS);
        let bw_ns = (7.0 * 50_000.0 + 100_000.0) / 8.0;
        assert_eq!(w.bw_ns, bw_ns);
        assert_eq!(w.bwe, (7.0 * 50_000.0 + bw_ns) / 8.0);
        // No window shorter than a round trip (here 100 ms) or than 50 ms.
        w.on_any_ack(t0 + ms(450), MSS);
        assert_eq!(w.bw_ns, bw_ns);
    }

    #[test]
    fn after_a_loss_the_window_is_bandwidth_times_rtt_min() {
        let mut w = Westwood::new(10 * MSS, MSS);
        w.bwe = 125_000.0; // 1 Mbit/s
        w.on_rtt_sample(Instant::ZERO, ms(120));
        w.on_rtt_sample(Instant::ZERO, ms(80));
        w.on_rtt_sample(Instant::ZERO, ms(200));
        assert_eq!(w.rtt_min, Some(ms(80)));
        w.window_mut().cwnd = 40 * MSS;
        w.on_enter_recovery(Instant::ZERO, 40 * MSS);
        assert_eq!(
            w.window().ssthresh,
            20 * MSS,
            "entering halves, as Linux's Reno ssthresh"
        );
        w.on_exit_recovery(Instant::ZERO, 5 * MSS);
        // 125 000 B/s x 80 ms = 10 000 bytes: 10 segments.
        assert_eq!((w.window().cwnd, w.window().ssthresh), (10 * MSS, 10 * MSS));
        w.on_rto(Instant::ZERO, 10 * MSS, false);
        assert_eq!((w.window().cwnd, w.window().ssthresh), (MSS, 10 * MSS));
        // RTTmin is measured afresh after a timeout.
        w.on_rtt_sample(Instant::ZERO, ms(300));
        assert_eq!(w.rtt_min, Some(ms(300)));
        // Never below two segments.
        w.bwe = 0.0;
        w.on_exit_recovery(Instant::ZERO, 0);
        assert_eq!(w.window().cwnd, 2 * MSS);
    }

    #[test]
    fn duplicate_acks_count_a_segment_each_and_the_cumulative_ack_the_rest() {
        let mut w = Westwood::new(10 * MSS, MSS);
        assert_eq!(w.delivered(0), MSS);
        assert_eq!(w.delivered(0), MSS);
        assert_eq!(w.delivered(0), MSS);
        // The ACK after three duplicates acknowledges 5 segments: 2 not yet counted.
        assert_eq!(w.delivered(5 * MSS), 2 * MSS);
        assert_eq!(w.delivered(3 * MSS), 3 * MSS);
        assert_eq!(w.delivered(0), MSS);
        assert_eq!(
            w.delivered(2 * MSS),
            MSS,
            "fully counted before: one segment"
        );
    }
}
