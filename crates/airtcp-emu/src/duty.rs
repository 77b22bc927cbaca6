//! The engine's duty cycle. Under `SCHED_FIFO` the kernel throttles a real-time thread that
//! ran 950 ms of a second (`kernel.sched_rt_runtime_us`) for the rest of it: a stall of 50 ms,
//! measured here as a lag p99 of 33-56 ms at 0.1-10 Gbit/s while the engine polled before
//! events that came every few tens of microseconds. So the engine keeps itself under 90 % of
//! every [`WINDOW_NS`]: past [`BUSY_NS`] of it awake, it sleeps out the window (a gap of
//! 2 ms at most instead of the kernel's 50). And it polls before an event (`early`) only
//! while it was awake less than half of the last window: polling serves an idle engine,
//! whose timer wake-ups are late; a busy one wakes promptly and needs the CPU for work.

use airtcp_proto::Instant;

pub const WINDOW_NS: u64 = 20_000_000;
pub const BUSY_NS: u64 = 18_000_000;

#[derive(Clone, Debug)]
pub struct DutyCycle {
    window_start: Instant,
    awake_ns: u64,
    /// The share of the last whole window spent awake.
    last_share: f64,
}

impl DutyCycle {
    pub fn new(now: Instant) -> Self {
        DutyCycle {
            window_start: now,
            awake_ns: 0,
            last_share: 0.0,
        }
    }

    /// The engine was awake from `from` to `to` (and asleep otherwise).
    pub fn awake(&mut self, from: Instant, to: Instant) {
        self.roll(to);
        let from = from.max(self.window_start);
        self.awake_ns += to.as_nanos().saturating_sub(from.as_nanos());
    }

    fn roll(&mut self, now: Instant) {
        let elapsed = now.as_nanos().saturating_sub(self.window_start.as_nanos());
        if elapsed >= WINDOW_NS {
            self.last_share = if elapsed >= 2 * WINDOW_NS {
                0.0 // a whole window asleep in between
            } else {
                self.awake_ns as f64 / WINDOW_NS as f64
            };
            let windows = elapsed / WINDOW_NS;
            self.window_start =
                Instant::from_nanos(self.window_start.as_nanos() + windows * WINDOW_NS);
            self.awake_ns = 0;
        }
    }

    /// Until when the engine must sleep to stay under its share, if it must.
    pub fn rest_until(&self) -> Option<Instant> {
        (self.awake_ns >= BUSY_NS)
            .then(|| Instant::from_nanos(self.window_start.as_nanos() + WINDOW_NS))
    }

    /// The share of the last whole window spent awake.
    pub fn last_share(&self) -> f64 {
        self.last_share
    }

    /// Whether polling before an event is worth the CPU now.
    pub fn may_poll(&self) -> bool {
        self.last_share < 0.5 && self.awake_ns < WINDOW_NS / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    #[test]
    fn an_engine_awake_most_of_a_window_rests_out_the_window() {
        let mut duty = DutyCycle::new(ms(0));
        assert!(duty.may_poll());
        duty.awake(ms(0), ms(12));
        assert_eq!(duty.rest_until(), None);
        assert!(
            !duty.may_poll(),
            "awake more than half of the window: no polling"
        );
        duty.awake(ms(12), ms(18));
        assert_eq!(duty.rest_until(), Some(ms(20)));
        // The next window starts afresh, remembering the last one was busy.
        duty.awake(ms(20), ms(21));
        assert_eq!(duty.rest_until(), None);
        assert!(!duty.may_poll());
        // A quiet window after it, and polling is worth it again.
        duty.awake(ms(41), ms(42));
        assert!(duty.may_poll());
        // Awake across a window's edge counts only from the edge.
        duty.awake(ms(59), ms(61));
        assert_eq!(duty.awake_ns, 1_000_000);
    }
}
