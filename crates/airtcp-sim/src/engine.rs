//! The event engine: a priority queue totally ordered by (time, insertion sequence), and the
//! clock that decides how time passes between events.
//!
//! Ties in time are broken by insertion order, never by event contents or memory addresses,
//! so a run is a pure function of the scenario and the seed.

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

#[derive(Clone, Copy)]
struct Scheduled<E> {
    at: Instant,
    seq: u64,
    event: E,
}

impl<E> Scheduled<E> {
    /// Whether this event comes before `other`: earlier, or as early and scheduled first.
    #[inline(always)]
    fn before(&self, other: &Self) -> bool {
        (self.at, self.seq) < (other.at, other.seq)
    }
}

/// Children per node of the event heap: binary measured faster than 4-ary, from a few
/// pending events to tens of thousands (10000 stations).
const ARITY: usize = 2;

/// Pending events and the current time.
///
/// The events are in an implicit min-heap by (time, sequence). A push or pop moves each
/// displaced event once and writes the moving one once, at its final place, never reading
/// back a slot it has just written: `std`'s `BinaryHeap` swaps the last event into the root
/// and reads it straight back, and a read of a slot still in the store buffer, wider than the
/// stores that wrote it, waits for them (a store-forwarding stall of some 15 cycles on every
/// event of the run).
pub struct EventQueue<E> {
    heap: Vec<Scheduled<E>>,
    now: Instant,
    next_seq: u64,
    processed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: Vec::new(),
            now: Instant::ZERO,
            next_seq: 0,
            processed: 0,
        }
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn now(&self) -> Instant {
        self.now
    }

    /// Number of events taken out so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// When the earliest pending event is due.
    pub fn next_at(&self) -> Option<Instant> {
        self.heap.first().map(|next| next.at)
    }

    /// Schedules `event` at `at`; an instant in the past is clamped to now, so causality holds.
    /// Inlined: a caller that builds the event in registers then stores it once, where a call
    /// would read it back from the caller's stack right after the caller wrote it there field
    /// by field (a store-forwarding stall).
    #[inline(always)]
    pub fn schedule(&mut self, at: Instant, event: E) {
        let item = Scheduled {
            at: at.max(self.now),
            seq: self.next_seq,
            event,
        };
        self.next_seq += 1;
        // Parents later than the new event move down a level, into the slot it opens.
        let mut hole = self.heap.len();
        self.heap.push(item);
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            if !item.before(&self.heap[parent]) {
                break;
            }
            self.heap[hole] = self.heap[parent];
            hole = parent;
        }
        self.heap[hole] = item;
    }

    /// The next event if it is due no later than `until`, advancing time to it. Inlined,
    /// with the heap's pop, into the run loop: the one call every event makes.
    #[inline(always)]
    pub fn pop_until(&mut self, until: Instant, clock: &mut impl Clock) -> Option<E> {
        let next = *self.heap.first()?;
        if next.at > until {
            return None;
        }
        let last = self.heap.pop().expect("not empty");
        let len = self.heap.len();
        if len > 0 {
            // The last event goes where the root was, then down: at each level the earliest
            // child earlier than it moves up into the slot it leaves.
            let mut hole = 0;
            loop {
                let first_child = ARITY * hole + 1;
                if first_child >= len {
                    break;
                }
                let mut earliest = first_child;
                for child in first_child + 1..(first_child + ARITY).min(len) {
                    if self.heap[child].before(&self.heap[earliest]) {
                        earliest = child;
                    }
                }
                if !self.heap[earliest].before(&last) {
                    break;
                }
                self.heap[hole] = self.heap[earliest];
                hole = earliest;
            }
            self.heap[hole] = last;
        }
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
    fn pops_in_time_then_insertion_order_whatever_the_interleaving() {
        // A reference: every pending (time, sequence), sorted.
        let mut q = EventQueue::default();
        let mut pending = std::collections::BTreeSet::new();
        let mut clock = VirtualClock;
        let mut seq = 0u64;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            if next() % 3 > 0 {
                // Few distinct times: many ties, broken by insertion order.
                let at = q.now().as_nanos() + next() % 8;
                q.schedule(Instant::from_nanos(at), seq);
                pending.insert((at, seq));
                seq += 1;
            } else if let Some(event) = q.pop_until(Instant::MAX, &mut clock) {
                let first = pending.pop_first().expect("pending");
                assert_eq!((q.now().as_nanos(), event), first);
            }
        }
        while let Some(event) = q.pop_until(Instant::MAX, &mut clock) {
            assert_eq!(Some((q.now().as_nanos(), event)), pending.pop_first());
        }
        assert!(pending.is_empty());
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
