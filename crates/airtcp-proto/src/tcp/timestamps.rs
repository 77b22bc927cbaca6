//! The timestamps option's state at one end (RFC 7323 sections 3 to 5): the clock it sends
//! (1 ms ticks, as Linux's), TS.Recent and the rule that updates it, and PAWS.

use core::time::Duration;

use crate::seq::SeqNumber;
use crate::time::Instant;
use crate::wire::Timestamps;

/// The timestamp clock: milliseconds since the simulation began, plus one, so that no
/// segment carries 0 (which an echo of "nothing yet" looks like).
pub fn clock(now: Instant) -> u32 {
    ((now - Instant::ZERO).as_millis() as u64 as u32).wrapping_add(1)
}

/// `a` is older than `b` in the circular timestamp space (RFC 7323 section 5.2).
pub fn older(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

#[derive(Clone, Copy, Debug, Default)]
pub struct TimestampState {
    /// TS.Recent: the peer's timestamp to echo.
    recent: Option<u32>,
}

impl TimestampState {
    /// The option for a segment sent at `now`.
    pub fn option(&self, now: Instant) -> Timestamps {
        Timestamps {
            value: clock(now),
            echo_reply: self.recent.unwrap_or(0),
        }
    }

    /// PAWS (section 5.3 R1): a segment whose value is older than TS.Recent is an old
    /// duplicate, to be dropped and answered with an ACK (not a reset).
    pub fn rejects(&self, seen: Timestamps, rst: bool) -> bool {
        !rst && self.recent.is_some_and(|recent| older(seen.value, recent))
    }

    /// Section 4.3: TS.Recent takes the value of a segment that is not older and that starts
    /// at or before the last acknowledgment sent (so that a delayed ACK echoes the earliest
    /// segment it covers, and reordering does not move it).
    pub fn on_segment(&mut self, seen: Timestamps, seq: SeqNumber, last_ack_sent: SeqNumber) {
        let newer = self.recent.is_none_or(|recent| !older(seen.value, recent));
        if newer && seq <= last_ack_sent {
            self.recent = Some(seen.value);
        }
    }

    /// Takes the peer's first timestamp (its SYN or SYN-ACK).
    pub fn on_syn(&mut self, seen: Timestamps) {
        self.recent = Some(seen.value);
    }
}

/// The RTT an echoed timestamp measures (RTTM, section 4.1), if it echoes one of ours.
pub fn rtt(now: Instant, seen: Timestamps) -> Option<Duration> {
    if seen.echo_reply == 0 {
        return None;
    }
    let ticks = clock(now).wrapping_sub(seen.echo_reply);
    (ticks as i32 >= 0).then(|| Duration::from_millis(u64::from(ticks)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::ZERO + Duration::from_millis(ms)
    }

    fn ts(value: u32) -> Timestamps {
        Timestamps {
            value,
            echo_reply: 0,
        }
    }

    #[test]
    fn paws_rejects_an_old_duplicate_and_not_a_reset() {
        let mut state = TimestampState::default();
        assert!(!state.rejects(ts(5), false), "nothing recent yet");
        state.on_syn(ts(100));
        state.on_segment(ts(200), SeqNumber(10), SeqNumber(10));
        assert!(state.rejects(ts(150), false));
        assert!(!state.rejects(ts(150), true), "a reset is never rejected");
        assert!(!state.rejects(ts(200), false) && !state.rejects(ts(201), false));
        // Across the wrap of the 32-bit clock.
        state.on_syn(ts(u32::MAX - 5));
        assert!(!state.rejects(ts(3), false));
        assert!(state.rejects(ts(u32::MAX - 10), false));
    }

    #[test]
    fn ts_recent_moves_only_for_segments_at_the_last_ack_sent() {
        let mut state = TimestampState::default();
        state.on_syn(ts(100));
        // Out of order (beyond the last ACK sent): not taken.
        state.on_segment(ts(120), SeqNumber(3000), SeqNumber(1000));
        assert_eq!(state.option(at(0)).echo_reply, 100);
        state.on_segment(ts(110), SeqNumber(1000), SeqNumber(1000));
        assert_eq!(state.option(at(0)).echo_reply, 110);
    }

    #[test]
    fn the_echo_measures_the_round_trip_in_milliseconds() {
        let sent = clock(at(1000));
        let echo = Timestamps {
            value: 1,
            echo_reply: sent,
        };
        assert_eq!(rtt(at(1042), echo), Some(Duration::from_millis(42)));
        assert_eq!(rtt(at(1042), ts(1)), None, "no echo");
    }
}
