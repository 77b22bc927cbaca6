//! Durations gathered one at a time: how many, their mean, least and most, in ms with NaN
//! when there were none. One-way delays (`one_way_delay`) and queue sojourns (`sojourn`)
//! keep them per sampling interval and over the measurement window.

/// Durations in nanoseconds seen so far.
#[derive(Clone, Copy, Debug)]
pub struct Durations {
    count: u64,
    sum_ns: u128,
    min_ns: u64,
    max_ns: u64,
}

impl Default for Durations {
    fn default() -> Self {
        Durations {
            count: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }
}

impl Durations {
    #[inline]
    pub fn add(&mut self, ns: u64) {
        self.count += 1;
        self.sum_ns += u128::from(ns);
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean_ms(&self) -> f64 {
        self.if_any(self.sum_ns as f64 / self.count as f64 / 1e6)
    }

    pub fn min_ms(&self) -> f64 {
        self.if_any(self.min_ns as f64 / 1e6)
    }

    pub fn max_ms(&self) -> f64 {
        self.if_any(self.max_ns as f64 / 1e6)
    }

    fn if_any(&self, ms: f64) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            ms
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_mean_least_and_most_or_nan_without_any() {
        let mut durations = Durations::default();
        assert!(durations.mean_ms().is_nan() && durations.min_ms().is_nan());
        assert!(durations.max_ms().is_nan());
        for ns in [2_000_000, 0, 7_000_000] {
            durations.add(ns);
        }
        assert_eq!(durations.count(), 3);
        assert_eq!(
            (durations.mean_ms(), durations.min_ms(), durations.max_ms()),
            (3.0, 0.0, 7.0)
        );
    }
}
