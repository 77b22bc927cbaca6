//! How late the emulator hands packets to the hosts: for every packet written to a host's
//! device, the time from the instant it reached that host in the emulated network (its due
//! time) to the write (its release), in a histogram of 10 µs buckets up to one second
//! (later ones in the last bucket). One sample per packet, so a stall counts once for every
//! packet it held back, not once per wake-up.

use serde::Serialize;

const BUCKET_NS: u64 = 10_000;
const BUCKETS: usize = 100_001;

/// The lag's 99th percentile above which a run is reported as not keeping real time: a
/// millisecond is a tenth of the smallest delay scenarios use and the target.
pub const P99_BOUND_NS: u64 = 1_000_000;

#[derive(Clone, Debug)]
pub struct LagHistogram {
    counts: Vec<u64>,
    packets: u64,
    max_ns: u64,
}

/// Percentiles of the per-packet lag, in microseconds (bucket upper bounds), and whether
/// the 99th percentile is within [`P99_BOUND_NS`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LagSummary {
    pub packets: u64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
    pub p99_bound_us: f64,
    pub within_bound: bool,
}

impl Default for LagSummary {
    fn default() -> Self {
        LagSummary {
            packets: 0,
            p50_us: 0.0,
            p99_us: 0.0,
            p999_us: 0.0,
            max_us: 0.0,
            p99_bound_us: P99_BOUND_NS as f64 / 1e3,
            within_bound: true,
        }
    }
}

impl Default for LagHistogram {
    fn default() -> Self {
        LagHistogram {
            counts: vec![0; BUCKETS],
            packets: 0,
            max_ns: 0,
        }
    }
}

impl LagHistogram {
    /// One packet released `lag_ns` after it was due.
    pub fn record(&mut self, lag_ns: u64) {
        let bucket = ((lag_ns / BUCKET_NS) as usize).min(BUCKETS - 1);
        self.counts[bucket] += 1;
        self.packets += 1;
        self.max_ns = self.max_ns.max(lag_ns);
    }

    /// The upper bound of the bucket holding the `q` quantile, in µs.
    fn quantile_us(&self, q: f64) -> f64 {
        let rank = (q * self.packets as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (bucket, count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                return ((bucket as u64 + 1) * BUCKET_NS) as f64 / 1e3;
            }
        }
        0.0
    }

    pub fn summary(&self) -> LagSummary {
        if self.packets == 0 {
            return LagSummary::default();
        }
        let p99_us = self.quantile_us(0.99);
        LagSummary {
            packets: self.packets,
            p50_us: self.quantile_us(0.5),
            p99_us,
            p999_us: self.quantile_us(0.999),
            max_us: self.max_ns as f64 / 1e3,
            within_bound: p99_us * 1e3 <= P99_BOUND_NS as f64,
            ..LagSummary::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_bucket_upper_bounds() {
        let mut lag = LagHistogram::default();
        for ns in (0..100).map(|i| i * 1_000) {
            lag.record(ns); // 0 to 99 µs
        }
        lag.record(5_000_000_000); // 5 s: the last bucket
        let summary = lag.summary();
        assert_eq!(summary.packets, 101);
        assert_eq!(summary.p50_us, 60.0); // the 51st sample, 50 µs, is in [50, 60)
        assert_eq!(summary.p99_us, 100.0);
        assert_eq!(summary.max_us, 5e6);
        assert!(summary.within_bound);
        assert_eq!(LagHistogram::default().summary(), LagSummary::default());
    }

    #[test]
    fn a_stall_counts_once_per_packet_it_held_back() {
        let mut lag = LagHistogram::default();
        for _ in 0..97 {
            lag.record(5_000);
        }
        // One 20 ms stall that held three packets back: 3 % of the packets.
        for held in [20_000_000, 19_000_000, 18_000_000] {
            lag.record(held);
        }
        let summary = lag.summary();
        assert_eq!(summary.p50_us, 10.0);
        assert_eq!(summary.p99_us, 19_010.0);
        assert!(!summary.within_bound);
    }
}
