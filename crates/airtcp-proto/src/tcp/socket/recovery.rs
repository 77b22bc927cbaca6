//! Loss recovery without RACK-TLP: NewReno (RFC 5681 §3.2, RFC 6582, the Impatient
//! variant: only the first partial ACK restarts the timer), Reno (RFC 5681 §3.2 alone)
//! where the controller asks for it, and with SACK the conservative recovery of RFC 6675
//! (DupThresh or a lost head starts it; cwnd = ssthresh; `NextSeg` picks what goes while
//! the pipe leaves room).

use super::TcpSocket;
use crate::seq::SeqNumber;
use crate::tcp::cc::Recovery;
use crate::tcp::scoreboard::NextSegment;
use crate::time::Instant;
use crate::wire::{TcpRepr, Timestamps};

impl TcpSocket {
    /// An ACK's acknowledgement fields with RFC 6675's or NewReno's loss recovery.
    pub(super) fn reno_ack(
        &mut self,
        now: Instant,
        seg: &TcpRepr,
        echo: Option<Timestamps>,
        newly_sacked: u64,
        old_window: u32,
        seg_window: u32,
    ) {
        let ack = seg.ack;
        if ack > self.snd_una {
            self.on_new_ack(now, ack, echo);
            if newly_sacked > 0 && self.snd_una != self.snd_max && !self.in_recovery {
                // RFC 6675 section 5: an ACK that SACKs new data is a duplicate "regardless
                // of its status as a cumulative acknowledgment".
                self.count_duplicate_ack(now);
            }
        } else if ack == self.snd_una
            && self.snd_una != self.snd_max
            && seg.payload_len == 0
            && !seg.flags.fin
            && seg_window == old_window
            && seg_window > 0
            && (!self.sack_ok || newly_sacked > 0)
        {
            // A zero-window ACK answers a window probe; it says nothing about loss. With
            // SACK a duplicate ACK counts only if it SACKs new data (RFC 6675 section 2),
            // so duplicates of what was already received do not.
            self.on_duplicate_ack(now);
        }
    }

    pub(super) fn on_new_ack(&mut self, now: Instant, ack: SeqNumber, echo: Option<Timestamps>) {
        let (acked, flight_before, rtt) = self.advance_una(now, ack, echo);
        let recovered = self.recover.is_some_and(|recover| ack >= recover);
        if recovered {
            self.recover = None;
        }
        let reno = self.cc.recovery() == Recovery::Reno;
        if self.in_recovery {
            if recovered || (reno && !self.sack_ok) {
                self.in_recovery = false;
                self.dupacks = 0;
                self.scoreboard.start_recovery(self.una_offset);
                self.cc.on_exit_recovery(now, self.snd_max - self.snd_una);
            } else if self.sack_ok {
                // RFC 6675: the scoreboard, not the partial ACK, says what to resend.
                self.partial_acks += 1;
            } else {
                self.cc.on_partial_ack(now, acked);
                self.retransmit_head = true;
                self.timed = None;
                self.partial_acks += 1;
            }
        } else {
            self.dupacks = 0;
            self.grow_window(now, acked, flight_before, rtt);
        }
        // RFC 6298 §5.2 and §5.3; in a NewReno recovery only the first partial ACK restarts
        // the timer (RFC 6582's Impatient variant), in a SACK recovery every one does.
        let keep_timer = self.in_recovery
            && !self.sack_ok
            && self.partial_acks > 1
            && self.rtx_deadline.is_some();
        self.restart_retransmission_timer(now, keep_timer);
    }

    pub(super) fn on_duplicate_ack(&mut self, now: Instant) {
        self.cc.on_any_ack(now, 0);
        self.count_duplicate_ack(now);
    }

    /// DupAcks rises by one; loss recovery starts at DupThresh (or, with SACK, when the
    /// first unacknowledged segment is deemed lost).
    pub(super) fn count_duplicate_ack(&mut self, now: Instant) {
        self.dupacks += 1;
        self.stats.duplicate_acks += 1;
        let threshold = self.config.dupack_threshold;
        // RFC 6675 section 5: with SACK, also when the first unacknowledged segment is
        // deemed lost (enough SACKed above it), whatever the count.
        let lost = self.sack_ok
            && (self.dupacks >= threshold
                || self.scoreboard.is_lost(
                    self.una_offset,
                    u64::from(self.mss),
                    u64::from(threshold),
                ));
        if self.in_recovery {
            if !self.sack_ok {
                self.cc.on_dupack_in_recovery(now);
            }
        } else if (lost || (!self.sack_ok && self.dupacks == threshold))
            && (self.recover.is_none() || (!self.sack_ok && self.cc.recovery() == Recovery::Reno))
        {
            // RFC 6582 §3.2 step 2: only once an ACK has covered the last recovery point, so
            // that dupacks for data sent before a timeout do not trigger a second reduction.
            // Reno (RFC 5681) has no such point.
            self.in_recovery = true;
            self.partial_acks = 0;
            self.recover = Some(self.snd_max);
            self.cwr_pending = self.ecn_ok;
            if self.cwr_until.take().is_some() {
                // A reduction for ECN in this window already set ssthresh: not again
                // (RFC 3168 §6.1.2); NewReno's inflation only.
                let window = self.cc.window_mut();
                window.cwnd = window.ssthresh + 3 * window.mss;
            } else {
                self.cc.on_enter_recovery(now, self.snd_max - self.snd_una);
            }
            if self.sack_ok {
                // RFC 6675 section 5 step 4: cwnd = ssthresh, no inflation: the pipe
                // estimate paces the recovery.
                let window = self.cc.window_mut();
                window.cwnd = window.ssthresh;
                self.scoreboard.start_recovery(self.una_offset);
            }
            self.retransmit_head = true;
            self.timed = None;
            self.stats.fast_retransmits += 1;
        }
    }

    /// RFC 6675 section 5 step (C): while the pipe leaves a segment's room in cwnd, what
    /// `NextSeg` says: a lost hole, new data, or another hole.
    pub(super) fn sack_recovery_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        let mss = u64::from(self.mss);
        let threshold = u64::from(self.config.dupack_threshold);
        let max = self.send_offset(self.snd_max);
        let pipe = self.scoreboard.pipe(self.una_offset, max, mss, threshold);
        if pipe + mss > u64::from(self.cc.window().cwnd) {
            return None;
        }
        let len = self.sendable_len();
        let fin_due = self.close_requested && self.snd_nxt + len == self.data_end();
        // Rule 4 counts data: a sent FIN rides again on the last data segment.
        let data_sent = self.send_offset(self.snd_max.min(self.data_end()));
        let next = self.scoreboard.next_segment(
            self.una_offset,
            data_sent,
            mss,
            threshold,
            len > 0 || fin_due,
        );
        match next {
            NextSegment::Retransmit { offset, len } => {
                let seq = self.snd_una + (offset - self.una_offset) as u32;
                Some(self.resend(now, seq, len as u32))
            }
            NextSegment::Rescue { offset, len } => {
                self.scoreboard.on_rescued();
                self.stats.rescue_retransmissions += 1;
                let seq = self.snd_una + (offset - self.una_offset) as u32;
                Some(self.resend_unmarked(now, seq, len as u32))
            }
            NextSegment::NewData => self.new_data_segment(now),
            NextSegment::Nothing => None,
        }
    }
}
