//! Simulation-agnostic time: an instant is an integer number of nanoseconds since an epoch the
//! caller chooses (simulation start, or the emulator's monotonic start).
//!
//! Integer nanoseconds keep the simulator deterministic: no floating-point drift decides the
//! order of two events.

use core::ops::{Add, AddAssign, Sub};
use core::time::Duration;

/// A point in time, nanoseconds since the caller's epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(u64);

impl Instant {
    pub const ZERO: Instant = Instant(0);
    pub const MAX: Instant = Instant(u64::MAX);

    pub const fn from_nanos(nanos: u64) -> Self {
        Instant(nanos)
    }

    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    pub fn as_secs_f64(self) -> f64 {
        seconds(self.0)
    }

    /// Time elapsed since `earlier`, zero if `earlier` is later.
    pub fn saturating_duration_since(self, earlier: Instant) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }
}

/// Nanoseconds as seconds, correctly rounded: 30 s is 30.0, where multiplying by the
/// inexact constant 1e-9 gives 30.000000000000004.
pub fn seconds(nanos: u64) -> f64 {
    nanos as f64 / 1e9
}

/// Duration to integer nanoseconds, saturating (a 584-year duration is "never").
pub fn duration_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, rhs: Duration) -> Instant {
        Instant(self.0.saturating_add(duration_nanos(rhs)))
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}

impl Sub for Instant {
    type Output = Duration;
    fn sub(self, rhs: Instant) -> Duration {
        self.saturating_duration_since(rhs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_exact_where_a_decimal_can_be() {
        assert_eq!(seconds(30_000_000_000), 30.0);
        assert_eq!(seconds(300_000_000), 0.3);
        assert_eq!(Instant::from_nanos(100_000_000).as_secs_f64(), 0.1);
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        let t = Instant::from_nanos(10);
        assert_eq!(t - Instant::from_nanos(20), Duration::ZERO);
        assert_eq!(Instant::MAX + Duration::from_secs(1), Instant::MAX);
        assert_eq!((t + Duration::from_micros(1)).as_nanos(), 1010);
    }
}
