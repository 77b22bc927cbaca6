//! How long before an event the engine wakes up and then polls for it: as long as its timer
//! wake-ups have recently been late. A thread woken from a short sleep on a busy CPU is
//! 15-50 µs late; one woken from a long sleep on an idle (virtual) CPU 100-250 µs (measured
//! here: one-way error p50 142 µs with a fixed 25 µs margin on an idle 10 ms link). So the
//! margin follows the 90th percentile of the last [`WINDOW`] wake-ups' lateness, plus a
//! little, within [`MIN_NS`, `MAX_NS`]: on an idle link the engine spins up to a few
//! hundred microseconds per event, which an idle machine can spare, and on a busy one,
//! where events are close together and wake-ups prompt, it hardly spins at all.

/// The wake-ups the margin is taken over.
pub const WINDOW: usize = 32;
pub const MIN_NS: u64 = 20_000;
pub const MAX_NS: u64 = 400_000;
/// Added to the percentile: the next wake-up may be a little later than those before.
const HEADROOM_NS: u64 = 10_000;

#[derive(Clone, Debug)]
pub struct WakeMargin {
    lateness: [u64; WINDOW],
    next: usize,
    margin_ns: u64,
}

impl Default for WakeMargin {
    fn default() -> Self {
        WakeMargin {
            lateness: [MIN_NS; WINDOW],
            next: 0,
            margin_ns: MIN_NS,
        }
    }
}

impl WakeMargin {
    /// How long before an event to wake.
    pub fn ns(&self) -> u64 {
        self.margin_ns
    }

    /// A timer wake-up came `late_ns` after it was asked for.
    pub fn record(&mut self, late_ns: u64) {
        self.lateness[self.next] = late_ns;
        self.next = (self.next + 1) % WINDOW;
        let mut sorted = self.lateness;
        sorted.sort_unstable();
        let p90 = sorted[WINDOW * 9 / 10];
        self.margin_ns = (p90 + HEADROOM_NS).clamp(MIN_NS, MAX_NS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_margin_follows_recent_lateness_within_its_bounds() {
        let mut margin = WakeMargin::default();
        assert_eq!(margin.ns(), MIN_NS);
        for _ in 0..WINDOW {
            margin.record(150_000); // woken from deep idle
        }
        assert_eq!(margin.ns(), 160_000);
        // One stall does not make every later event spin for it.
        margin.record(20_000_000);
        assert_eq!(margin.ns(), 160_000);
        for _ in 0..WINDOW {
            margin.record(5_000); // a busy CPU wakes promptly
        }
        assert_eq!(margin.ns(), MIN_NS);
        for _ in 0..WINDOW {
            margin.record(3_000_000);
        }
        assert_eq!(margin.ns(), MAX_NS);
    }
}
