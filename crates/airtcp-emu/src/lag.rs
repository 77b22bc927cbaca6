//! How late the emulator handles what is due: each time it wakes with an event due, the
//! delay between the event's instant and the wall clock, in a histogram of 10 µs buckets
//! up to one second (later ones in the last bucket).

use serde::Serialize;

const BUCKET_NS: u64 = 10_000;
const BUCKETS: usize = 100_001;

#[derive(Clone, Debug)]
pub struct LagHistogram {
    counts: Vec<u64>,
    samples: u64,
    max_ns: u64,
}

/// Percentiles of the lag, in microseconds (bucket upper bounds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LagSummary {
    pub samples: u64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
}

impl Default for LagHistogram {
    fn default() -> Self {
        LagHistogram {
            counts: vec![0; BUCKETS],
            samples: 0,
            max_ns: 0,
        }
    }
}

impl LagHistogram {
    pub fn record(&mut self, lag_ns: u64) {
        let bucket = ((lag_ns / BUCKET_NS) as usize).min(BUCKETS - 1);
        self.counts[bucket] += 1;
        self.samples += 1;
        self.max_ns = self.max_ns.max(lag_ns);
    }

    /// The upper bound of the bucket holding the `q` quantile, in µs.
    fn quantile_us(&self, q: f64) -> f64 {
        let rank = (q * self.samples as f64).ceil().max(1.0) as u64;
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
        if self.samples == 0 {
            return LagSummary::default();
        }
        LagSummary {
            samples: self.samples,
            p50_us: self.quantile_us(0.5),
            p99_us: self.quantile_us(0.99),
            p999_us: self.quantile_us(0.999),
            max_us: self.max_ns as f64 / 1e3,
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
        assert_eq!(summary.samples, 101);
        assert_eq!(summary.p50_us, 60.0); // the 51st sample, 50 µs, is in [50, 60)
        assert_eq!(summary.p99_us, 100.0);
        assert_eq!(summary.max_us, 5e6);
        assert_eq!(LagHistogram::default().summary(), LagSummary::default());
    }
}
