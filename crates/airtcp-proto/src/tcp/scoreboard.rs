//! The SACK sender's scoreboard and loss recovery rules of RFC 6675: which bytes the receiver
//! holds (SACKed), which are deemed lost (`IsLost`: DupThresh discontiguous SACKed ranges, or
//! more than (DupThresh − 1) · SMSS bytes, SACKed above them), how much is in the network
//! (`SetPipe`), and what to send next
//! (`NextSeg`, rules 1 to 3; rule 4, resending data deemed not lost beyond the window, is
//! not used). Offsets count sequence space from the connection's start (u64, never wrap).

use super::reassembly::Reassembly;

/// What `NextSeg` says to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSegment {
    /// Send again `len` bytes from this offset.
    Retransmit { offset: u64, len: u64 },
    /// Send new data.
    NewData,
    /// Nothing.
    Nothing,
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    sacked: Reassembly,
    /// Highest offset retransmitted in this recovery, plus one (RFC 6675's HighRxt).
    high_rxt: u64,
}

impl Scoreboard {
    /// Records SACK blocks (offsets); blocks outside `[una, max)` are ignored (D-SACKs and
    /// the like). Returns the bytes newly SACKed.
    pub fn on_sack(&mut self, blocks: &[(u64, u64)], una: u64, max: u64) -> u64 {
        let before = self.sacked.held_bytes();
        for &(start, end) in blocks {
            let (start, end) = (start.max(una), end.min(max));
            if start < end {
                self.sacked.insert(start, end);
            }
        }
        self.sacked.held_bytes() - before
    }

    /// The cumulative ACK moved to `una`.
    pub fn on_cumulative_ack(&mut self, una: u64) {
        self.sacked.forget_below(una);
        self.high_rxt = self.high_rxt.max(una);
    }

    /// A recovery begins (or ends): nothing retransmitted in it yet.
    pub fn start_recovery(&mut self, una: u64) {
        self.high_rxt = una;
    }

    pub fn on_retransmitted(&mut self, end: u64) {
        self.high_rxt = self.high_rxt.max(end);
    }

    pub fn is_sacked(&self, offset: u64) -> bool {
        self.sacked.containing(offset).is_some()
    }

    /// The SACKed range holding `offset`, if any.
    pub fn sacked_range(&self, offset: u64) -> Option<(u64, u64)> {
        self.sacked.containing(offset)
    }

    /// The first SACKed offset at or above `offset`.
    pub fn next_sacked(&self, offset: u64) -> Option<u64> {
        self.sacked
            .ranges()
            .iter()
            .find(|&&(_, end)| end > offset)
            .map(|&(start, _)| start.max(offset))
    }

    /// Every unSACKed byte below this offset is lost (IsLost): above it lie DupThresh
    /// discontiguous SACKed ranges, or more than (DupThresh − 1) · SMSS SACKed bytes.
    pub fn lost_below(&self, mss: u64, dup_threshold: u64) -> u64 {
        let threshold = (dup_threshold.saturating_sub(1)) * mss;
        let mut above = 0;
        for (count, &(start, end)) in self.sacked.ranges().iter().rev().enumerate() {
            above += end - start;
            if above > threshold || count as u64 + 1 >= dup_threshold {
                return start;
            }
        }
        0
    }

    /// SACKed bytes in `[from, to)`.
    pub fn sacked_between(&self, from: u64, to: u64) -> u64 {
        to.saturating_sub(from) - self.unsacked(from, to)
    }

    pub fn is_lost(&self, offset: u64, mss: u64, dup_threshold: u64) -> bool {
        offset < self.lost_below(mss, dup_threshold) && !self.is_sacked(offset)
    }

    /// UnSACKed bytes in `[from, to)`.
    fn unsacked(&self, from: u64, to: u64) -> u64 {
        if from >= to {
            return 0;
        }
        let sacked: u64 = self
            .sacked
            .ranges()
            .iter()
            .map(|&(start, end)| end.min(to).saturating_sub(start.max(from)))
            .sum();
        (to - from) - sacked
    }

    /// RFC 6675 `SetPipe`: the bytes in flight between `una` and `max`: every unSACKed byte
    /// not deemed lost, and once more every one retransmitted.
    pub fn pipe(&self, una: u64, max: u64, mss: u64, dup_threshold: u64) -> u64 {
        let lost_below = self.lost_below(mss, dup_threshold).max(una);
        self.unsacked(lost_below, max) + self.unsacked(una, self.high_rxt.min(max))
    }

    /// The first hole (unSACKed bytes) at or above `from` and below `limit`, at most `mss`.
    fn hole(&self, from: u64, limit: u64, mss: u64) -> Option<(u64, u64)> {
        let mut at = from;
        while at < limit {
            match self.sacked_range(at) {
                Some((_, end)) => at = end,
                None => {
                    let end = self.next_sacked(at).unwrap_or(limit).min(limit);
                    return Some((at, (end - at).min(mss)));
                }
            }
        }
        None
    }

    /// RFC 6675 `NextSeg`: rule 1, the first lost hole not yet retransmitted; rule 2, new
    /// data if `new_data` (the window allows it); rule 3, the first hole not yet
    /// retransmitted below the highest SACKed byte.
    pub fn next_segment(
        &self,
        una: u64,
        mss: u64,
        dup_threshold: u64,
        new_data: bool,
    ) -> NextSegment {
        let from = self.high_rxt.max(una);
        let lost_below = self.lost_below(mss, dup_threshold);
        if let Some((offset, len)) = self.hole(from, lost_below, mss) {
            return NextSegment::Retransmit { offset, len };
        }
        if new_data {
            return NextSegment::NewData;
        }
        let highest = self.sacked.ranges().last().map_or(0, |&(_, end)| end);
        match self.hole(from, highest, mss) {
            Some((offset, len)) => NextSegment::Retransmit { offset, len },
            None => NextSegment::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Ten segments sent from 0; segments 2 and 5 lost, the other eight SACKed in turn.
    fn two_holes() -> Scoreboard {
        let mut board = Scoreboard::default();
        let blocks = [(1000, 2000), (3000, 5000), (6000, 10000)];
        assert_eq!(board.on_sack(&blocks, 1000, 10000), 7000);
        board.on_cumulative_ack(1000);
        board.start_recovery(1000);
        board
    }

    #[test]
    fn is_lost_needs_more_than_two_segments_sacked_above() {
        let board = two_holes();
        // Above the hole at 5000: 4000 SACKed bytes; above 2000: 6000.
        assert_eq!(board.lost_below(MSS, 3), 6000);
        assert!(board.is_lost(2000, MSS, 3) && board.is_lost(5000, MSS, 3));
        assert!(!board.is_lost(3000, MSS, 3), "SACKed");
        let mut one_block = Scoreboard::default();
        one_block.on_sack(&[(3000, 5000)], 0, 10000);
        assert!(
            !one_block.is_lost(2000, MSS, 3),
            "2000 bytes above: not > 2 segments"
        );
        one_block.on_sack(&[(5000, 5001)], 0, 10000);
        assert!(one_block.is_lost(2000, MSS, 3));
    }

    #[test]
    fn dup_threshold_discontiguous_sacked_ranges_make_a_hole_lost() {
        // Three 100-byte blocks above 1000: only 300 bytes SACKed (not > 2 · SMSS), but
        // DupThresh discontiguous SACKed sequences (RFC 6675 IsLost, first clause).
        let mut board = Scoreboard::default();
        board.on_sack(&[(2000, 2100), (3000, 3100)], 0, 10000);
        assert!(!board.is_lost(1000, MSS, 3), "two ranges");
        board.on_sack(&[(4000, 4100)], 0, 10000);
        assert!(board.is_lost(1000, MSS, 3), "three ranges");
        assert!(!board.is_lost(2500, MSS, 3), "two ranges above");
        assert_eq!(board.sacked_between(0, 3050), 150);
    }

    #[test]
    fn pipe_counts_unsacked_not_lost_and_retransmitted_bytes() {
        let mut board = two_holes();
        // Both holes are lost, everything else SACKed: nothing in flight.
        assert_eq!(board.pipe(1000, 10000, MSS, 3), 0);
        // With 2000 more sent beyond: those are in flight.
        assert_eq!(board.pipe(1000, 12000, MSS, 3), 2000);
        board.on_retransmitted(3000);
        assert_eq!(
            board.pipe(1000, 12000, MSS, 3),
            3000,
            "the retransmitted hole"
        );
    }

    #[test]
    fn next_segment_resends_lost_holes_then_new_data_then_the_rest() {
        let mut board = two_holes();
        let next = |b: &Scoreboard, new| b.next_segment(1000, MSS, 3, new);
        assert_eq!(
            next(&board, true),
            NextSegment::Retransmit {
                offset: 2000,
                len: 1000
            }
        );
        board.on_retransmitted(3000);
        assert_eq!(
            next(&board, true),
            NextSegment::Retransmit {
                offset: 5000,
                len: 1000
            }
        );
        board.on_retransmitted(6000);
        assert_eq!(next(&board, true), NextSegment::NewData);
        assert_eq!(next(&board, false), NextSegment::Nothing);
        // Rule 3: a hole not yet deemed lost is resent only when there is no new data.
        let mut board = Scoreboard::default();
        board.on_sack(&[(3000, 4000)], 0, 5000);
        board.start_recovery(0);
        assert_eq!(next(&board, true), NextSegment::NewData);
        assert_eq!(
            board.next_segment(0, MSS, 3, false),
            NextSegment::Retransmit {
                offset: 0,
                len: 1000
            }
        );
    }

    #[test]
    fn cumulative_acks_and_blocks_outside_the_window() {
        let mut board = two_holes();
        assert_eq!(board.on_sack(&[(0, 500), (20000, 21000)], 1000, 10000), 0);
        board.on_cumulative_ack(5000);
        assert!(!board.is_sacked(3000));
        assert!(board.is_sacked(7000));
        assert_eq!(board.lost_below(MSS, 3), 6000);
    }
}
