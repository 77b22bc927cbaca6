//! Out-of-order data held by a TCP receiver, as merged byte ranges of stream offsets; the
//! sender's SACK scoreboard keeps what the receiver holds in the same form. Offsets are u64
//! so that long transfers never wrap here (sequence numbers do, offsets don't).

/// Disjoint, sorted, non-adjacent `[start, end)` ranges.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    ranges: Vec<(u64, u64)>,
}

impl Reassembly {
    /// Records `[start, end)`, merging with what it overlaps or touches.
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let first = self.ranges.partition_point(|&(_, e)| e < start);
        let mut merged = (start, end);
        let mut last = first;
        while last < self.ranges.len() && self.ranges[last].0 <= end {
            merged.0 = merged.0.min(self.ranges[last].0);
            merged.1 = merged.1.max(self.ranges[last].1);
            last += 1;
        }
        self.ranges.splice(first..last, [merged]);
    }

    /// If data at `next` is held, removes the contiguous run starting at or before `next` and
    /// returns its end: the new in-order point.
    pub fn take_contiguous(&mut self, next: u64) -> u64 {
        // Ranges wholly below `next` are stale duplicates.
        let stale = self.ranges.partition_point(|&(_, e)| e <= next);
        self.ranges.drain(..stale);
        match self.ranges.first() {
            Some(&(start, end)) if start <= next => {
                self.ranges.remove(0);
                end
            }
            _ => next,
        }
    }

    /// Forgets what lies below `offset` (a range across it is cut).
    pub fn forget_below(&mut self, offset: u64) {
        let stale = self.ranges.partition_point(|&(_, e)| e <= offset);
        self.ranges.drain(..stale);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(offset);
        }
    }

    /// The range that holds `offset`.
    pub fn containing(&self, offset: u64) -> Option<(u64, u64)> {
        let index = self.ranges.partition_point(|&(_, e)| e <= offset);
        self.ranges
            .get(index)
            .copied()
            .filter(|&(start, _)| start <= offset)
    }

    /// The ranges, in order.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Bytes held, which occupy receive buffer space.
    pub fn held_bytes(&self) -> u64 {
        self.ranges.iter().map(|(s, e)| e - s).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn merges_overlapping_and_touching_ranges() {
        let mut r = Reassembly::default();
        r.insert(10, 20);
        r.insert(30, 40);
        r.insert(20, 30);
        assert_eq!(r.ranges, vec![(10, 40)]);
        r.insert(5, 12);
        r.insert(50, 60);
        assert_eq!(r.ranges, vec![(5, 40), (50, 60)]);
        assert_eq!(r.held_bytes(), 45);
        assert_eq!(r.take_contiguous(0), 0);
        assert_eq!(r.take_contiguous(5), 40);
        assert_eq!(r.ranges, vec![(50, 60)]);
    }

    proptest! {
        // Any arrival order, with duplicates and overlaps, delivers the stream exactly once.
        #[test]
        fn delivers_every_byte_once_in_order(
            cuts in proptest::collection::vec(1u64..5000, 1..40),
            order in proptest::collection::vec(any::<u16>(), 1..120),
        ) {
            let mut bounds: Vec<u64> = cuts.clone();
            bounds.push(0);
            bounds.sort_unstable();
            bounds.dedup();
            let total = *bounds.last().unwrap();
            let segments: Vec<(u64, u64)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
            let mut reassembly = Reassembly::default();
            let mut next = 0u64;
            let mut delivered = Vec::new();
            let mut arrivals: Vec<(u64, u64)> =
                order.iter().map(|&i| segments[i as usize % segments.len()]).collect();
            arrivals.extend(segments.iter().copied()); // everything arrives at least once
            for (start, end) in arrivals {
                if end <= next {
                    continue;
                }
                reassembly.insert(start.max(next), end);
                let new_next = reassembly.take_contiguous(next);
                if new_next > next {
                    delivered.push((next, new_next));
                    next = new_next;
                }
            }
            prop_assert_eq!(next, total);
            prop_assert!(reassembly.is_empty());
            let mut expect = 0;
            for (s, e) in delivered {
                prop_assert_eq!(s, expect);
                prop_assert!(e > s);
                expect = e;
            }
        }
    }
}
