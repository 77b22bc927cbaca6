//! Westwood+'s end-to-end bandwidth estimate (Mascolo et al. 2001; Grieco and Mascolo 2004;
//! Linux `tcp_westwood.c`), shared by `westwood` and `westwood_cubic`.
//!
//! - Every ACK counts the data it reports delivered: the bytes it acknowledges, a segment for
//!   a duplicate ACK, and a cumulative ACK after duplicates counts only what they did not
//!   (Linux's `westwood_acked_count`).
//! - Once per round trip (at least 50 ms), the bytes counted over the time since the window
//!   began are a sample; two low-pass filters with gain 7/8 smooth it (Westwood+'s per-RTT
//!   sampling, which is robust to ACK compression): `bw_ns = 7/8 bw_ns + 1/8 sample`,
//!   `bwe = 7/8 bwe + 1/8 bw_ns`; the first sample sets both.
//! - RTTmin is the smallest RTT sample (measured afresh after a timeout); the round trip is
//!   the last sample.

use core::time::Duration;

use crate::time::Instant;

/// The shortest bandwidth-sampling window (Linux's `TCP_WESTWOOD_RTT_MIN`, HZ/20).
pub const MIN_WINDOW: Duration = Duration::from_millis(50);

#[derive(Clone, Debug, Default)]
pub struct BandwidthEstimate {
    /// The estimate and its first filter's output, in bytes per second.
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

impl BandwidthEstimate {
    /// Every ACK: `bytes_acked` new bytes, 0 for a duplicate ACK.
    pub fn on_ack(&mut self, now: Instant, bytes_acked: u32, mss: u32) {
        self.update_window(now);
        let delivered = self.delivered(bytes_acked, mss);
        self.counted += u64::from(delivered);
    }

    pub fn on_rtt_sample(&mut self, rtt: Duration) {
        self.rtt = Some(rtt);
        self.rtt_min = match self.rtt_min {
            Some(min) if !self.reset_rtt_min => Some(min.min(rtt)),
            _ => Some(rtt),
        };
        self.reset_rtt_min = false;
    }

    /// After a timeout RTTmin is measured afresh (Linux's `CA_EVENT_LOSS`).
    pub fn forget_rtt_min(&mut self) {
        self.reset_rtt_min = true;
    }

    /// BWE · RTTmin in bytes, whole segments, at least two.
    pub fn bw_rtt_min(&self, mss: u32) -> u32 {
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
    fn delivered(&mut self, bytes_acked: u32, mss: u32) -> u32 {
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// An estimate of `bwe` bytes per second with an RTTmin of `rtt_min`.
    pub fn estimate(bwe: f64, rtt_min: Duration) -> BandwidthEstimate {
        let mut estimate = BandwidthEstimate {
            bwe,
            ..BandwidthEstimate::default()
        };
        estimate.on_rtt_sample(rtt_min);
        estimate
    }

    #[test]
    fn the_two_filters_by_hand() {
        let mut e = BandwidthEstimate::default();
        let t0 = Instant::ZERO;
        e.on_rtt_sample(ms(100));
        e.on_ack(t0, MSS, MSS); // opens the window at t0, counts 1000
        e.on_ack(t0 + ms(50), 9 * MSS, MSS);
        // 10 000 bytes in the first 200 ms window: 50 000 B/s, which sets both filters.
        e.on_ack(t0 + ms(200), 2 * MSS, MSS);
        assert_eq!((e.bw_ns, e.bwe), (50_000.0, 50_000.0));
        // 2000 + 18 000 bytes over the next 200 ms: 100 000 B/s.
        e.on_ack(t0 + ms(300), 18 * MSS, MSS);
        e.on_ack(t0 + ms(400), MSS, MSS);
        let bw_ns = (7.0 * 50_000.0 + 100_000.0) / 8.0;
        assert_eq!(e.bw_ns, bw_ns);
        assert_eq!(e.bwe, (7.0 * 50_000.0 + bw_ns) / 8.0);
        // No window shorter than a round trip (here 100 ms) or than 50 ms.
        e.on_ack(t0 + ms(450), MSS, MSS);
        assert_eq!(e.bw_ns, bw_ns);
    }

    #[test]
    fn bandwidth_times_rtt_min_in_whole_segments_and_rtt_min_afresh_after_a_timeout() {
        let mut e = estimate(125_000.0, ms(120)); // 1 Mbit/s
        e.on_rtt_sample(ms(80));
        e.on_rtt_sample(ms(200));
        assert_eq!(e.rtt_min, Some(ms(80)));
        // 125 000 B/s x 80 ms = 10 000 bytes: 10 segments.
        assert_eq!(e.bw_rtt_min(MSS), 10 * MSS);
        assert_eq!(e.bw_rtt_min(3000), 9000, "3.3 segments: 3");
        e.forget_rtt_min();
        e.on_rtt_sample(ms(300));
        assert_eq!(e.rtt_min, Some(ms(300)));
        assert_eq!(
            estimate(0.0, ms(80)).bw_rtt_min(MSS),
            2 * MSS,
            "at least two"
        );
    }

    #[test]
    fn duplicate_acks_count_a_segment_each_and_the_cumulative_ack_the_rest() {
        let mut e = BandwidthEstimate::default();
        assert_eq!(e.delivered(0, MSS), MSS);
        assert_eq!(e.delivered(0, MSS), MSS);
        assert_eq!(e.delivered(0, MSS), MSS);
        // The ACK after three duplicates acknowledges 5 segments: 2 not yet counted.
        assert_eq!(e.delivered(5 * MSS, MSS), 2 * MSS);
        assert_eq!(e.delivered(3 * MSS, MSS), 3 * MSS);
        assert_eq!(e.delivered(0, MSS), MSS);
        assert_eq!(
            e.delivered(2 * MSS, MSS),
            MSS,
            "fully counted before: one segment"
        );
    }
}
