//! TCP sequence numbers: 32-bit values compared modulo 2^32 (RFC 9293 section 3.4).

use core::cmp::Ordering;
use core::ops::{Add, Sub};

/// A sequence number; ordering is circular, valid while compared values are less than 2^31
/// apart, which window sizes guarantee.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SeqNumber(pub u32);

impl SeqNumber {
    /// Signed distance `self - other` in the circular space.
    pub fn diff(self, other: SeqNumber) -> i64 {
        i64::from(self.0.wrapping_sub(other.0) as i32)
    }

    pub fn max(self, other: SeqNumber) -> SeqNumber {
        if self >= other {
            self
        } else {
            other
        }
    }
}

impl PartialOrd for SeqNumber {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SeqNumber {
    fn cmp(&self, other: &Self) -> Ordering {
        self.diff(*other).cmp(&0)
    }
}

impl Add<u32> for SeqNumber {
    type Output = SeqNumber;
    fn add(self, rhs: u32) -> SeqNumber {
        SeqNumber(self.0.wrapping_add(rhs))
    }
}

impl Sub for SeqNumber {
    type Output = u32;
    /// Forward distance from `rhs` to `self`; callers ensure `self >= rhs`.
    fn sub(self, rhs: SeqNumber) -> u32 {
        debug_assert!(self >= rhs, "sequence {self:?} is before {rhs:?}");
        self.0.wrapping_sub(rhs.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordering_wraps_around() {
        let near_end = SeqNumber(u32::MAX - 10);
        let wrapped = near_end + 20;
        assert!(wrapped > near_end);
        assert_eq!(wrapped - near_end, 20);
        assert_eq!(wrapped.0, 9);
        assert_eq!(near_end.max(wrapped), wrapped);
    }
}
