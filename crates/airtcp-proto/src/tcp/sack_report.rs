//! The SACK blocks a receiver reports (RFC 2018 section 4): the first is the block holding
//! the segment that arrived last out of order; the rest repeat the most recently reported
//! first blocks, none a subset of one already included; at most four (the socket sends
//! those that fit: three beside timestamps, as Linux).
//!
//! With D-SACK (RFC 2883 section 4), a segment that arrives wholly or partly duplicate
//! makes the first block of the next ACK report the duplicate range, even below the
//! cumulative ACK (that is how the sender tells a D-SACK); if the duplicate lies in data
//! held out of order, the second block is the block holding it; the normal blocks follow.
//! Each duplicate is reported once. Linux's receiver (`tcp_dsack_set`, `tcp_dsack_extend`
//! in `net/ipv4/tcp_input.c`, v6.10-rc1) does the same.

use std::collections::VecDeque;

use super::reassembly::Reassembly;
use crate::wire::SackBlocks;

/// Offsets of the latest out-of-order arrivals, newest first; each stands for the block that
/// holds it now (blocks merge as data arrives). And the duplicate range not yet reported.
#[derive(Clone, Debug, Default)]
pub struct SackReport {
    recent: VecDeque<u64>,
    /// The D-SACK block for the next ACK (Linux's `duplicate_sack[0]` while `rx_opt.dsack`).
    dsack: Option<(u64, u64)>,
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

    /// A new data segment is being processed: a D-SACK not yet sent for an earlier one is
    /// dropped, since a D-SACK reports a duplicate in the most recent packet (RFC 2883
    /// section 4, rule 1; Linux clears `rx_opt.dsack` as `tcp_data_queue` begins).
    pub fn on_segment(&mut self) {
        self.dsack = None;
    }

    /// Bytes `[start, end)` of the segment being processed had arrived before: below the
    /// cumulative point, or inside data held out of order. The first such range of a segment
    /// is its D-SACK (`tcp_dsack_set`); a later one of the same segment extends it if they
    /// overlap or touch (`tcp_dsack_extend`), else is not reported (RFC 2883 section 4.2.2:
    /// of two non-contiguous duplicates, the first).
    pub fn on_duplicate(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        match &mut self.dsack {
            None => self.dsack = Some((start, end)),
            Some((s, e)) if start <= *e && *s <= end => {
                *s = (*s).min(start);
                *e = (*e).max(end);
            }
            Some(_) => {}
        }
    }

    /// Whether the next ACK carries a D-SACK (it needs the SACK option even when nothing is
    /// held out of order).
    pub fn has_dsack(&self) -> bool {
        self.dsack.is_some()
    }

    /// The blocks to report as stream offsets, given what is held out of order: the pending
    /// D-SACK first (its start may lie below the cumulative point), which is then cleared;
    /// those now delivered in order are forgotten.
    pub fn blocks(&mut self, held: &Reassembly) -> Vec<(u64, u64)> {
        let dsack = self.dsack.take();
        if let Some((start, _)) = dsack.filter(|&(start, _)| held.containing(start).is_some()) {
            // RFC 2883 section 4: the block holding the duplicate comes second. It is the
            // latest arrival, as Linux's tcp_data_queue_ofo makes it (tcp_sack_new_ofo_skb).
            self.on_out_of_order(start);
        }
        self.recent
            .retain(|&offset| held.containing(offset).is_some());
        let mut blocks: Vec<(u64, u64)> = Vec::with_capacity(SackBlocks::MAX);
        blocks.extend(dsack);
        let normal = blocks.len();
        for &offset in &self.recent {
            let block = held.containing(offset).expect("kept above");
            if !blocks[normal..].contains(&block) {
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

    // RFC 2883 section 4.1's examples, with stream offsets standing for its sequence numbers.

    #[test]
    fn rfc2883_4_1_1_a_duplicate_below_the_cumulative_ack() {
        // 3000-3499 and 3500-3999 arrived in order (their ACKs lost); 3000-3499 again:
        // "4000, SACK=3000-3500", the D-SACK below the cumulative ACK, alone.
        let held = Reassembly::default();
        let mut report = SackReport::default();
        report.on_segment();
        report.on_duplicate(3000, 3500);
        assert!(report.has_dsack());
        assert_eq!(report.blocks(&held), [(3000, 3500)]);
        // Reported once.
        assert!(!report.has_dsack());
        assert_eq!(report.blocks(&held), []);
    }

    #[test]
    fn rfc2883_4_1_2_an_out_of_order_segment_and_a_duplicate() {
        // 3000-3999 in order, 4000-4499 lost, 4500-4999 out of order: "4000, SACK=4500-5000".
        let mut held = Reassembly::default();
        let mut report = SackReport::default();
        report.on_segment();
        held.insert(4500, 5000);
        report.on_out_of_order(4500);
        assert_eq!(report.blocks(&held), [(4500, 5000)]);
        // 3000-3499 again: "4000, SACK=3000-3500, 4500-5000".
        report.on_segment();
        report.on_duplicate(3000, 3500);
        assert_eq!(report.blocks(&held), [(3000, 3500), (4500, 5000)]);
        assert_eq!(report.blocks(&held), [(4500, 5000)]);
    }

    #[test]
    fn rfc2883_4_1_3_a_duplicate_of_an_out_of_order_segment() {
        // 4000-4499 lost; 4500-4999 and 5000-5499 out of order: "4000, SACK=4500-5500".
        let mut held = Reassembly::default();
        let mut report = SackReport::default();
        for (start, end) in [(4500, 5000), (5000, 5500)] {
            report.on_segment();
            held.insert(start, end);
            report.on_out_of_order(start);
        }
        assert_eq!(report.blocks(&held), [(4500, 5500)]);
        // 5000-5499 duplicated: "4000, SACK=5000-5500, 4500-5500", the D-SACK inside the
        // larger block that follows it.
        report.on_segment();
        report.on_duplicate(5000, 5500);
        assert_eq!(report.blocks(&held), [(5000, 5500), (4500, 5500)]);
        assert_eq!(report.blocks(&held), [(4500, 5500)]);
    }

    #[test]
    fn the_block_holding_the_duplicate_comes_second_even_when_older() {
        // As 4.1.3, but 6000-6499 arrived out of order after 5000-5499: the duplicate's block
        // (RFC 2883 section 4) comes before the latest one, and stays first after.
        let mut held = Reassembly::default();
        let mut report = SackReport::default();
        for (start, end) in [(4500, 5000), (5000, 5500), (6000, 6500)] {
            held.insert(start, end);
            report.on_out_of_order(start);
        }
        report.on_segment();
        report.on_duplicate(5000, 5500);
        assert_eq!(
            report.blocks(&held),
            [(5000, 5500), (4500, 5500), (6000, 6500)]
        );
        assert_eq!(report.blocks(&held), [(4500, 5500), (6000, 6500)]);
    }

    #[test]
    fn rfc2883_4_2_2_of_two_non_contiguous_duplicates_the_first() {
        // Example 5: 500-999 in order, 1000-1499 delayed, 1500-1999 lost, 2000-2499 delayed,
        // 2500-2999 lost, 3000-3499 received; 1000-1499 then 2000-2499 arrive. A segment
        // 1000-2499 then holds two duplicates: "2500, SACK=1000-1500, 3000-3500".
        let mut held = Reassembly::default();
        let mut report = SackReport::default();
        for (start, end) in [(3000, 3500), (2000, 2500)] {
            held.insert(start, end);
            report.on_out_of_order(start);
        }
        held.insert(1500, 2000); // the new part of 1000-2499
        assert_eq!(held.take_contiguous(1500), 2500);
        report.on_segment();
        report.on_duplicate(1000, 1500);
        report.on_duplicate(2000, 2500);
        assert_eq!(report.blocks(&held), [(1000, 1500), (3000, 3500)]);
    }

    #[test]
    fn duplicates_that_touch_extend_the_d_sack_and_a_new_segment_drops_an_unsent_one() {
        // tcp_dsack_extend: contiguous duplicate ranges of one segment make one block.
        let held = Reassembly::default();
        let mut report = SackReport::default();
        report.on_segment();
        report.on_duplicate(5000, 5500);
        report.on_duplicate(4000, 5000);
        report.on_duplicate(5200, 6000);
        assert_eq!(report.blocks(&held), [(4000, 6000)]);
        // A D-SACK not sent before the next segment is processed is not reported.
        report.on_duplicate(3000, 3500);
        report.on_segment();
        assert!(!report.has_dsack());
        assert_eq!(report.blocks(&held), []);
        // An empty range is no duplicate.
        report.on_duplicate(7000, 7000);
        assert!(!report.has_dsack());
    }

    #[test]
    fn a_d_sack_takes_one_of_the_four_blocks() {
        let mut held = Reassembly::default();
        let mut report = SackReport::default();
        for start in [2000, 5000, 8000, 11000, 14000] {
            held.insert(start, start + 1000);
            report.on_out_of_order(start);
        }
        report.on_duplicate(0, 1000);
        assert_eq!(
            report.blocks(&held),
            [(0, 1000), (14000, 15000), (11000, 12000), (8000, 9000)]
        );
        // A D-SACK equal to a held block is still followed by that block (RFC 2883 4.1.3's
        // rule: the block holding the duplicate comes second).
        report.on_duplicate(5000, 6000);
        assert_eq!(
            report.blocks(&held),
            [(5000, 6000), (5000, 6000), (14000, 15000), (11000, 12000)]
        );
    }
}
