//! Paper 003's sequence-number list (section 3.1, Fig 1): the data segments a connection's
//! sender has sent and the receiver not yet acknowledged, kept as blocks of consecutive
//! segments of one size (start, end, size), so that a window of equal segments costs one
//! entry. From it DAR knows the exact end of every segment an ACK covers (one regenerated
//! ACK each), and the amount of data outstanding (its slow-start test, section 3.3).

use std::collections::VecDeque;

use crate::seq::SeqNumber;

/// Segments `start, start + size, ...` up to `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub start: SeqNumber,
    pub end: SeqNumber,
    pub size: u32,
}

/// What adding a segment found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Added {
    /// Beyond everything listed: new data.
    New,
    /// At or below data listed or acknowledged before: a retransmission.
    Again,
}

#[derive(Clone, Debug, Default)]
pub struct SequenceList {
    blocks: VecDeque<Block>,
    /// The end of the highest data seen, listed or acknowledged.
    highest: Option<SeqNumber>,
    /// Bytes listed.
    bytes: u64,
}

impl SequenceList {
    /// Lists a data segment `[seq, seq + len)` sent towards the receiver.
    pub fn add(&mut self, seq: SeqNumber, len: u32) -> Added {
        let end = seq + len;
        if self.highest.is_some_and(|highest| end <= highest) {
            return Added::Again;
        }
        // A segment reaching past the highest from below it (a resend of other sizes) is
        // listed from the highest on only.
        let start = self.highest.map_or(seq, |highest| highest.max(seq));
        let len = end - start;
        self.highest = Some(end);
        self.bytes += u64::from(len);
        match self.blocks.back_mut() {
            Some(last) if last.end == start && last.size == len => last.end = end,
            _ => self.blocks.push_back(Block {
                start,
                end,
                size: len,
            }),
        }
        Added::New
    }

    /// Forgets what `ack` acknowledges and returns the end of each listed segment it
    /// covers whole, ascending; a segment it covers in part stays listed from `ack` on, as a
    /// block of its own.
    pub fn acknowledge(&mut self, ack: SeqNumber) -> Vec<SeqNumber> {
        let mut ends = Vec::new();
        while let Some(block) = self.blocks.front_mut() {
            if block.start >= ack {
                break;
            }
            if ack >= block.end {
                let mut end = block.start;
                while end < block.end {
                    end = end + block.size;
                    ends.push(end);
                }
                self.bytes -= u64::from(block.end - block.start);
                self.blocks.pop_front();
                continue;
            }
            let whole = (ack - block.start) / block.size;
            ends.extend((1..=whole).map(|k| block.start + k * block.size));
            self.bytes -= u64::from(ack - block.start);
            let segment = block.start + whole * block.size;
            if segment == ack {
                block.start = ack;
                break;
            }
            let partial = Block {
                start: ack,
                end: segment + block.size,
                size: segment + block.size - ack,
            };
            block.start = partial.end;
            if block.start == block.end {
                self.blocks.pop_front();
            }
            self.blocks.push_front(partial);
            break;
        }
        ends
    }

    /// The end of the highest data seen.
    pub fn highest(&self) -> Option<SeqNumber> {
        self.highest
    }

    /// Bytes sent and not yet acknowledged.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Entries (blocks) the list keeps.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Block> {
        self.blocks.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(n: u32) -> SeqNumber {
        SeqNumber(n)
    }

    #[test]
    fn equal_consecutive_segments_share_a_block() {
        let mut list = SequenceList::default();
        for k in 0..10 {
            assert_eq!(list.add(seq(1 + k * 1000), 1000), Added::New);
        }
        list.add(seq(10_001), 500);
        assert_eq!(list.blocks(), 2);
        assert_eq!(list.bytes(), 10_500);
        assert_eq!(list.add(seq(3001), 1000), Added::Again);
        assert_eq!(list.bytes(), 10_500);
    }

    #[test]
    fn an_ack_yields_the_end_of_every_segment_it_covers() {
        let mut list = SequenceList::default();
        for k in 0..6 {
            list.add(seq(1 + k * 1000), 1000);
        }
        assert_eq!(
            list.acknowledge(seq(3001)),
            [seq(1001), seq(2001), seq(3001)]
        );
        assert_eq!(list.bytes(), 3000);
        // Part of a segment: the covered ends only; the rest stays as its own block.
        assert_eq!(list.acknowledge(seq(4501)), [seq(4001)]);
        assert_eq!(list.bytes(), 1500);
        let blocks: Vec<_> = list.iter().copied().collect();
        assert_eq!(
            blocks[0],
            Block {
                start: seq(4501),
                end: seq(5001),
                size: 500
            }
        );
        assert_eq!(list.acknowledge(seq(6001)), [seq(5001), seq(6001)]);
        assert_eq!((list.bytes(), list.blocks()), (0, 0));
        assert!(list.acknowledge(seq(6001)).is_empty());
    }

    #[test]
    fn the_list_works_across_the_sequence_wrap() {
        let mut list = SequenceList::default();
        let base = u32::MAX - 1499;
        for k in 0..4 {
            list.add(seq(base.wrapping_add(k * 1000)), 1000);
        }
        let ends = list.acknowledge(seq(base.wrapping_add(3000)));
        assert_eq!(ends.len(), 3);
        assert_eq!(ends[2], seq(base.wrapping_add(3000)));
        assert_eq!(list.bytes(), 1000);
    }
}
