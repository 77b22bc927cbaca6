//! The SACK blocks a receiver reports (RFC 2018 section 4): the first is the block holding
//! the segment that arrived last out of order; the rest repeat the most recently reported
//! first blocks, none a subset of one already included; at most four (the socket sends
//! those that fit: three beside timestamps, as Linux).

use std::collections::VecDeque;

use super::reassembly::Reassembly;
use crate::wire::SackBlocks;

/// Offsets of the latest out-of-order arrivals, newest first; each stands for the block that
/// holds it now (blocks merge as data arrives).
#[derive(Clone, Debug, Default)]
pub struct SackReport {
    recent: VecDeque<u64>,
}

/// More than blocks reported, so that merged ones leave enough others.
const REMEMBERED: usize = 2 * SackBlocks::MAX + 2;

impl SackReport {
    /// Data at `offset` arrived out of order.
    pub fn on_out_of_order(&mut self, offset: u64) {
        self.recent.retain(|&o| o != offset);
        self.recent.push_front(offset);
        self.recent.truncate(REMEMBERED);
    }

    /// The blocks to report as stream offsets, given what is held out of order; those now
    /// delivered in order are forgotten.
    pub fn blocks(&mut self, held: &Reassembly) -> Vec<(u64, u64)> {
        self.recent
            .retain(|&offset| held.containing(offset).is_some());
        let mut blocks: Vec<(u64, u64)> = Vec::with_capacity(SackBlocks::MAX);
        for &offset in &self.recent {
            let block = held.containing(offset).expect("kept above");
            if !blocks.contains(&block) {
                blocks.push(block);
                if blocks.len() == SackBlocks::MAX {
                    break;
                }
            }
        }
        blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_block_first_then_the_recent_ones() {
        let mut held = Reassembly::default();
        let mut report = SackReport::default();
        for (start, end) in [
            (2000, 3000),
            (5000, 6000),
            (8000, 9000),
            (11000, 12000),
            (14000, 15000),
        ] {
            held.insert(start, end);
            report.on_out_of_order(start);
        }
        assert_eq!(
            report.blocks(&held),
            [(14000, 15000), (11000, 12000), (8000, 9000), (5000, 6000)],
            "four, newest first"
        );
        // Data joining an older block brings it to the front, merged.
        held.insert(3000, 4000);
        report.on_out_of_order(3000);
        assert_eq!(
            report.blocks(&held),
            [(2000, 4000), (14000, 15000), (11000, 12000), (8000, 9000)]
        );
        // Once delivered in order, a block is no longer reported.
        held.take_contiguous(2000);
        assert_eq!(
            report.blocks(&held),
            [(14000, 15000), (11000, 12000), (8000, 9000), (5000, 6000)]
        );
    }
}
