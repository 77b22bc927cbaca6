//! The emulator's wall clock: the scenario's time 0 is an instant of `CLOCK_MONOTONIC`,
//! and scenario instants convert to absolute `CLOCK_MONOTONIC` deadlines for the timer
//! (`wait`), so that a wait computed late still ends on time.

use airtcp_proto::Instant;
use nix::sys::time::TimeSpec;
use nix::time::{clock_gettime, ClockId};

const NS_PER_S: u64 = 1_000_000_000;

#[derive(Clone, Copy, Debug)]
pub struct WallClock {
    zero_ns: u64,
}

impl WallClock {
    /// Time 0 is now.
    pub fn starting_now() -> Self {
        WallClock {
            zero_ns: monotonic_ns(),
        }
    }

    /// The scenario's time now.
    pub fn now(&self) -> Instant {
        Instant::from_nanos(monotonic_ns().saturating_sub(self.zero_ns))
    }

    /// The `CLOCK_MONOTONIC` instant of scenario time `at`.
    pub fn deadline(&self, at: Instant) -> TimeSpec {
        let ns = self.zero_ns + at.as_nanos();
        TimeSpec::new((ns / NS_PER_S) as i64, (ns % NS_PER_S) as i64)
    }
}

fn monotonic_ns() -> u64 {
    let now = clock_gettime(ClockId::CLOCK_MONOTONIC).expect("CLOCK_MONOTONIC is always there");
    now.tv_sec() as u64 * NS_PER_S + now.tv_nsec() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_instant_is_an_absolute_deadline_after_time_zero() {
        let clock = WallClock::starting_now();
        let zero = clock.deadline(Instant::ZERO);
        let later = clock.deadline(Instant::from_nanos(2_500_000_001));
        let gap = later - zero;
        assert_eq!((gap.tv_sec(), gap.tv_nsec()), (2, 500_000_001));
        assert!(clock.now() >= Instant::ZERO);
    }
}
