//! The SACK sender's scoreboard and loss recovery rules of RFC 6675: which bytes the receiver
//! holds (SACKed), which are deemed lost (`IsLost`: DupThresh discontiguous SACKed ranges, or
//! more than (DupThresh − 1) · SMSS bytes, SACKed above them), how much is in the network
//! (`SetPipe`), and what to send next
//! (`NextSeg`, rules 1 to 4: rule 4 is the one "rescue" retransmission per recovery of the
//! highest outstanding unSACKed segment, after a partial ACK, so a lost tail with nothing
//! SACKed above it does not wait for the timer; a FIN counts with the data segment it rides
//! on, and one whose data is all SACKed is not rescued alone). Offsets count sequence space
//! from the connection's start (u64, never wrap).

use super::reassembly::Reassembly;

/// What `NextSeg` says to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSegment {
    /// Send again `len` bytes from this offset.
    Retransmit { offset: u64, len: u64 },
    /// Send again `len` bytes from this offset as rule 4's rescue retransmission: HighRxt
    /// stays where it is (the bytes are not counted in the pipe again); tell the scoreboard
    /// with `on_rescued`.
    Rescue { offset: u64, len: u64 },
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
    /// RFC 6675's RescueRxt as the end of a range (its highest byte plus one), or undefined:
    /// the recovery's first retransmission sets it to that segment's end (§5 step 4.3), so
    /// that no rescue goes before a partial ACK passes it; the rescue sets it beyond the
    /// recovery (RecoveryPoint, which only the ACK ending the recovery passes).
    rescue_rxt: Option<u64>,
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
        self.rescue_rxt = None;
    }

    /// Rule 4's rescue retransmission went out: no other in this recovery.
    pub fn on_rescued(&mut self) {
        self.rescue_rxt = Some(u64::MAX);
    }

    pub fn on_retransmitted(&mut self, end: u64) {
        self.high_rxt = self.high_rxt.max(end);
        self.rescue_rxt.get_or_insert(end);
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

    /// RFC 6675 `NextSeg` for the bytes sent up to `max` (HighData plus one): rule 1, the
    /// first lost hole not yet retransmitted; rule 2, new data if `new_data` (the window
    /// allows it); rule 3, the first hole not yet retransmitted below the highest SACKed
    /// byte; rule 4, once per recovery and only once the cumulative ACK (`una`) has passed
    /// the recovery's first retransmission (HighACK > RescueRxt), the segment that ends with
    /// the highest unSACKed byte below `max`.
    pub fn next_segment(
        &self,
        una: u64,
        max: u64,
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
        if let Some((offset, len)) = self.hole(from, highest, mss) {
            return NextSegment::Retransmit { offset, len };
        }
        if self.rescue_rxt.is_some_and(|rescue_rxt| una <= rescue_rxt) {
            return NextSegment::Nothing;
        }
        match self.last_hole(una, max, mss) {
            Some((offset, len)) => NextSegment::Rescue { offset, len },
            None => NextSegment::Nothing,
        }
    }

    /// The last unSACKed bytes in `[una, max)`, at most `mss`, ending with the highest.
    fn last_hole(&self, una: u64, max: u64, mss: u64) -> Option<(u64, u64)> {
        let mut end = max;
        for &(start, sacked_end) in self.sacked.ranges().iter().rev() {
            if sacked_end < end {
                break;
            }
            end = end.min(start);
        }
        if end <= una {
            return None;
        }
        let below = self
            .sacked
            .ranges()
            .iter()
            .rev()
            .find(|&&(_, sacked_end)| sacked_end <= end)
            .map_or(una, |&(_, sacked_end)| sacked_end.max(una));
        let start = below.max(end.saturating_sub(mss));
        Some((start, end - start))
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
        let next = |b: &Scoreboard, new| b.next_segment(1000, 10000, MSS, 3, new);
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
        // Rule 4 waits for the cumulative ACK to pass the first retransmission (RescueRxt
        // 3000, §5 step 4.3): nothing yet.
        assert_eq!(next(&board, false), NextSegment::Nothing);
        // A partial ACK to 5000: the highest unSACKed byte is 5999 (retransmitted,
        // everything above SACKed): one rescue of it, and only one.
        board.on_cumulative_ack(5000);
        let next = |b: &Scoreboard, new| b.next_segment(5000, 10000, MSS, 3, new);
        assert_eq!(
            next(&board, false),
            NextSegment::Rescue {
                offset: 5000,
                len: 1000
            }
        );
        board.on_rescued();
        assert_eq!(next(&board, false), NextSegment::Nothing);
        // Rule 3: a hole not yet deemed lost is resent only when there is no new data.
        let mut board = Scoreboard::default();
        board.on_sack(&[(3000, 4000)], 0, 5000);
        board.start_recovery(0);
        assert_eq!(next(&board, true), NextSegment::NewData);
        assert_eq!(
            board.next_segment(0, 5000, MSS, 3, false),
            NextSegment::Retransmit {
                offset: 0,
                len: 1000
            }
        );
    }

    #[test]
    fn rule_4_rescues_a_lost_tail_once_a_recovery_after_a_partial_ack() {
        // Segments 2 to 9 sent, 2 lost and found lost by the SACKs of 3 to 7, the last two
        // (8000 to 10000) lost with nothing above them to SACK: no rule but 4 resends them.
        let mut board = Scoreboard::default();
        board.on_sack(&[(3000, 8000)], 2000, 10000);
        board.on_cumulative_ack(2000);
        board.start_recovery(2000);
        let next = |b: &Scoreboard, una| b.next_segment(una, 10000, MSS, 3, false);
        assert_eq!(
            next(&board, 2000),
            NextSegment::Retransmit {
                offset: 2000,
                len: 1000
            }
        );
        board.on_retransmitted(3000);
        // No hole is left below the highest SACKed byte for rule 3; rule 4 waits until the
        // cumulative ACK passes the retransmission's end (HighACK > RescueRxt: 3000 is not
        // enough), then sends the segment ending with the highest unSACKed byte.
        assert_eq!(next(&board, 2000), NextSegment::Nothing);
        board.on_cumulative_ack(3000);
        assert_eq!(next(&board, 3000), NextSegment::Nothing);
        board.on_cumulative_ack(8000);
        assert_eq!(
            next(&board, 8000),
            NextSegment::Rescue {
                offset: 9000,
                len: 1000
            }
        );
        board.on_rescued();
        assert_eq!(next(&board, 8000), NextSegment::Nothing);
        // A new recovery may rescue again, once its first retransmission is passed; a short
        // tail is rescued whole, from the SACKed range below it.
        board.on_cumulative_ack(9500);
        board.start_recovery(9500);
        assert_eq!(
            next(&board, 9500),
            NextSegment::Rescue {
                offset: 9500,
                len: 500
            },
            "nothing retransmitted yet: RescueRxt undefined"
        );
        let mut board = Scoreboard::default();
        board.on_sack(&[(1000, 5000), (6000, 9600)], 0, 10000);
        board.start_recovery(0);
        board.on_retransmitted(1000);
        board.on_retransmitted(6000);
        board.on_cumulative_ack(5000);
        assert_eq!(
            board.next_segment(5000, 10000, MSS, 3, false),
            NextSegment::Rescue {
                offset: 9600,
                len: 400
            },
            "RescueRxt is the first retransmission's end, not HighRxt"
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
