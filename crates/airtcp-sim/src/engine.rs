//! The event engine: a priority queue totally ordered by (time, insertion sequence), and the
//! clock that decides how time passes between events.
//!
//! Ties in time are broken by insertion order, never by event contents or memory addresses,
//! so a run is a pure function of the scenario and the seed.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use airtcp_proto::Instant;

/// How the engine moves to the next event's time. Virtual time jumps; the emulator's
/// wall clock will sleep until the instant arrives.
pub trait Clock {
    fn advance_to(&mut self, at: Instant);
}

/// Simulated time: advancing is free.
#[derive(Debug, Default)]
pub struct VirtualClock;

impl Clock for VirtualClock {
    fn advance_to(&mut self, _at: Instant) {}
}

struct Scheduled<E> {
    at: Instant,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Scheduled<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl<E> Eq for Scheduled<E> {}

impl<E> PartialOrd for Scheduled<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Scheduled<E> {
    // Reversed: BinaryHeap is a max-heap and the earliest event must come out first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// Pending events and the current time.
pub struct EventQueue<E> {
    heap: BinaryHeap<Scheduled<E>>,
    now: Instant,
    next_seq: u64,
    processed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            now: Instant::ZERO,
            next_seq: 0,
            processed: 0,
        }
    }
}

impl<E> EventQueue<E> {
    pub fn now(&self) -> Instant {
        self.now
    }

    /// Number of events taken out so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// When the earliest pending event is due.
    pub fn next_at(&self) -> Option<Instant> {
        self.heap.peek().map(|next| next.at)
    }

    /// Schedules `event` at `at`; an instant in the past is clamped to now, so causality holds.
    pub fn schedule(&mut self, at: Instant, event: E) {
        let at = at.max(self.now);
        self.heap.push(Scheduled {
            at,
            seq: self.next_seq,
            event,
        });
        self.next_seq += 1;
    }

    /// The next event if it is due no later than `until`, advancing time to it. Inlined,
    /// with the heap's pop, into the run loop: the one call every event makes.
    #[inline(always)]
    pub fn pop_until(&mut self, until: Instant, clock: &mut impl Clock) -> Option<E> {
        if self.heap.peek()?.at > until {
            return None;
        }
        let next = self.heap.pop()?;
        clock.advance_to(next.at);
        self.now = next.at;
        self.processed += 1;
        Some(next.event)
    }

    /// Moves time forward to `at` with no event (end of a run).
    pub fn advance_to(&mut self, at: Instant) {
        self.now = self.now.max(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::default();
        let t = |ns| Instant::from_nanos(ns);
        q.schedule(t(20), "c");
        q.schedule(t(10), "a");
        q.schedule(t(20), "d");
        q.schedule(t(10), "b");
        let mut clock = VirtualClock;
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(Instant::MAX, &mut clock)).collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
        assert_eq!(q.now(), t(20));
        assert_eq!(q.processed(), 4);
    }

    #[test]
    fn past_events_are_clamped_to_now_and_until_is_respected() {
        let mut q = EventQueue::default();
        let mut clock = VirtualClock;
        q.schedule(Instant::from_nanos(100), 1);
        assert_eq!(q.pop_until(Instant::from_nanos(50), &mut clock), None);
        assert_eq!(q.pop_until(Instant::from_nanos(100), &mut clock), Some(1));
        q.schedule(Instant::from_nanos(5), 2);
        q.schedule(Instant::from_nanos(100), 3);
        assert_eq!(
            q.pop_until(Instant::MAX, &mut clock),
            Some(2),
            "clamped, then inserted first"
        );
        assert_eq!(q.now(), Instant::from_nanos(100));
    }
}
