//! The send path: `poll_transmit` picks the next segment (a reset, the handshake's, a
//! persist probe, the head again after a fast retransmit, a tail loss probe, recovery's
//! choice, new data, or a pure ACK), within the windows and sender silly-window avoidance
//! with Nagle's algorithm (RFC 1122 §4.2.3.4, RFC 896), and builds it: a FIN on the
//! segment that ends the data, RTT timing (Karn's rule), the retransmission timer armed
//! (RFC 6298 §5.1), the options every segment carries (timestamps, SACK and D-SACK blocks,
//! ECE).

use super::{TcpSocket, TcpState};
use crate::seq::SeqNumber;
use crate::time::Instant;
use crate::wire::{SackBlocks, TcpFlags, TcpRepr};

impl TcpSocket {
    /// Payload bytes the windows and sender silly-window avoidance allow at `snd_nxt`.
    pub(super) fn sendable_len(&self) -> u32 {
        let unsent = self.unsent();
        if unsent == 0 {
            return 0;
        }
        let in_flight = self.snd_nxt - self.snd_una;
        // cwnd limits what the network holds: in a SACK recovery RFC 6675's pipe, else the
        // flight; the peer's window limits the sequence space.
        let pipe = if self.rack_on() {
            self.rack.pipe().min(u64::from(u32::MAX)) as u32
        } else if self.in_recovery && self.sack_ok {
            let max = self.send_offset(self.snd_max);
            let (mss, threshold) = (u64::from(self.mss), u64::from(self.config.dupack_threshold));
            self.scoreboard
                .pipe(self.una_offset, max, mss, threshold)
                .min(u64::from(u32::MAX)) as u32
        } else if self.sack_ok && self.recover.is_some() {
            // After a timeout (until an ACK covers what was sent before it) the holes are
            // resent between SACKed data, which is not in the network (as Linux's
            // tcp_packets_in_flight): only the resent holes count.
            let sacked = self
                .scoreboard
                .sacked_between(self.una_offset, self.send_offset(self.snd_nxt));
            in_flight - sacked.min(u64::from(in_flight)) as u32
        } else {
            in_flight
        };
        let usable = (self.cc.window().cwnd.saturating_sub(pipe))
            .min(self.snd_wnd.saturating_sub(in_flight));
        // Resending after a timeout stops at data the peer SACKed.
        let run = self.unsacked_run(self.snd_nxt);
        let len = self.mss.min(unsent).min(usable).min(run);
        // RFC 1122 §4.2.3.4: a short segment only if it is the rest of the data (held back
        // while data is in flight, by Nagle's rule, RFC 896, until the application closes),
        // fills a hole up to SACKed data, or is at least half the largest window the peer
        // has offered.
        let nagle_allows = !self.config.nagle || in_flight == 0 || self.close_requested;
        let full = len == self.mss || (len == unsent && nagle_allows) || len == run;
        let half_window = in_flight == 0 && len > 0 && len >= self.max_snd_wnd / 2;
        if full || half_window {
            len
        } else {
            0
        }
    }

    /// `poll_transmit` with the ECN codepoint the segment's IP header carries
    /// (`Ipv4Repr::ECT0` for new data once ECN is agreed).
    pub fn poll_transmit_ecn(&mut self, now: Instant) -> Option<(TcpRepr, u8)> {
        let seg = self.poll_transmit(now)?;
        Some((seg, self.take_sent_codepoint()))
    }

    pub fn poll_transmit(&mut self, now: Instant) -> Option<TcpRepr> {
        self.sent_ect = false;
        if let Some((seq, ack, with_ack)) = self.reset.take() {
            let flags = TcpFlags {
                rst: true,
                ack: with_ack,
                ..TcpFlags::default()
            };
            let mut seg = self.segment(now, seq, 0, flags);
            seg.ack = ack;
            seg.window = 0;
            self.stats.segments_sent += 1;
            return Some(seg);
        }
        let Some(seg) = self.next_segment(now) else {
            // Nothing to send: data the application wrote since the last segment arrived may
            // be blocked by a zero window, which only the persist timer can reopen.
            self.update_persist(now);
            return None;
        };
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += u64::from(seg.payload_len);
        if seg.flags.ack {
            self.ack_now = false;
            self.unacked_segments = 0;
            self.delack_deadline = None;
        }
        Some(seg)
    }

    pub(super) fn next_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        match self.state {
            TcpState::Closed | TcpState::Listen => return None,
            TcpState::SynSent | TcpState::SynReceived => return self.handshake_segment(now),
            _ => {}
        }
        if self.force_send {
            self.force_send = false;
            if let Some(seg) = self.forced_segment(now) {
                return Some(seg);
            }
        }
        if self.retransmit_head {
            self.retransmit_head = false;
            if self.snd_una != self.snd_max {
                let len = self.unsacked_run(self.snd_una).min(self.mss);
                return Some(self.resend(now, self.snd_una, len));
            }
        }
        if self.probe_due {
            self.probe_due = false;
            if let Some(seg) = self.probe_segment(now) {
                return Some(seg);
            }
        }
        let seg = if self.paced_out(now) {
            None
        } else if self.rack_on() && (self.in_recovery || self.recover.is_some()) {
            self.rack_recovery_segment(now)
        } else if self.in_recovery && self.sack_ok {
            self.sack_recovery_segment(now)
        } else {
            self.new_data_segment(now)
        };
        if seg.is_some() {
            return seg;
        }
        if self.ack_now {
            let seq = self.snd_nxt;
            return Some(self.segment(
                now,
                seq,
                0,
                TcpFlags {
                    ack: true,
                    ..TcpFlags::default()
                },
            ));
        }
        None
    }

    /// Sends again up to `len` bytes from `seq`, never beyond what was sent, and moves
    /// HighRxt past them.
    pub(super) fn resend(&mut self, now: Instant, seq: SeqNumber, len: u32) -> TcpRepr {
        let seg = self.resend_unmarked(now, seq, len);
        let start = self.send_offset(seq);
        let end = self.send_offset(seq + seg.seq_len()).max(start + 1);
        self.scoreboard.on_retransmitted(end);
        seg
    }

    /// `resend` without telling the scoreboard (RFC 6675's rescue leaves HighRxt alone).
    pub(super) fn resend_unmarked(&mut self, now: Instant, seq: SeqNumber, len: u32) -> TcpRepr {
        let sent_end = if self.snd_max > self.data_end() {
            self.data_end()
        } else {
            self.snd_max
        };
        let len = if sent_end > seq {
            (sent_end - seq).min(len)
        } else {
            0
        };
        self.data_segment(now, seq, len, true)
    }

    /// Bytes from `seq` up to the next SACKed byte (all the rest without SACK).
    pub(super) fn unsacked_run(&self, seq: SeqNumber) -> u32 {
        let offset = self.send_offset(seq);
        match self.scoreboard.next_sacked(offset) {
            Some(sacked) if self.sack_ok => (sacked - offset).min(u64::from(u32::MAX)) as u32,
            _ => u32::MAX,
        }
    }

    pub(super) fn new_data_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        if !matches!(
            self.state,
            TcpState::Established
                | TcpState::CloseWait
                | TcpState::FinWait1
                | TcpState::Closing
                | TcpState::LastAck
        ) {
            return None;
        }
        if self.sack_ok && self.snd_nxt < self.snd_max {
            // After a timeout, what the peer SACKed is not sent again.
            let offset = self.send_offset(self.snd_nxt);
            if let Some((_, end)) = self.scoreboard.sacked_range(offset) {
                self.snd_nxt = self.snd_nxt + (end - offset) as u32;
            }
        }
        let len = self.sendable_len();
        let fin_due = self.close_requested && self.snd_nxt + len == self.data_end();
        if len == 0 && !fin_due {
            return None;
        }
        let seq = self.snd_nxt;
        Some(self.data_segment(now, seq, len, seq < self.snd_max))
    }

    /// A data (and possibly FIN) segment starting at `seq`, sent for the first time or again.
    pub(super) fn data_segment(
        &mut self,
        now: Instant,
        seq: SeqNumber,
        len: u32,
        retransmission: bool,
    ) -> TcpRepr {
        self.rate_on_data_sent(now, len);
        let end = self.data_end();
        // A FIN rides on the segment that ends the data: when it is due, or when it was sent
        // before and this segment is sent again.
        let fin =
            self.close_requested && seq + len == end && (seq == self.snd_nxt || self.fin_sent());
        let mut seg = self.segment(
            now,
            seq,
            len,
            TcpFlags {
                ack: true,
                fin,
                psh: fin,
                ..TcpFlags::default()
            },
        );
        self.ecn_on_send(&mut seg, retransmission);
        let seg_end = seq + seg.seq_len();
        if retransmission {
            self.stats.retransmissions += 1;
            self.timed = None;
            self.rtt_samples.on_retransmission(seg_end);
        } else {
            self.timed.get_or_insert((seg_end, now));
            self.rtt_samples.on_first_transmission(seg_end, now);
        }
        if seq == self.snd_nxt {
            self.snd_nxt = seg_end;
        }
        self.snd_max = self.snd_max.max(seg_end);
        if self.rtx_deadline.is_none() {
            self.rtx_deadline = Some(now + self.rto.rto());
        }
        if self.rack_on() {
            self.rack_on_transmit(now, seq, seg_end, retransmission);
            if retransmission {
                self.undo_on_retransmit(now);
            }
        }
        if fin {
            self.state = match self.state {
                TcpState::Established => TcpState::FinWait1,
                TcpState::CloseWait => TcpState::LastAck,
                state => state,
            };
        }
        seg
    }

    pub(super) fn segment(
        &mut self,
        now: Instant,
        seq: SeqNumber,
        payload_len: u32,
        flags: TcpFlags,
    ) -> TcpRepr {
        let timestamps = (self.timestamps_ok && !flags.rst).then(|| self.timestamps.option(now));
        let reports = !self.reassembly.is_empty() || self.sack_report.has_dsack();
        let sack = if self.sack_ok && flags.ack && reports {
            // A D-SACK may lie below the cumulative ACK (RFC 2883 §4).
            let (rcv_nxt, received) = (self.rcv_nxt, self.received);
            let to_seq = |offset: u64| rcv_nxt + offset.wrapping_sub(received) as u32;
            let blocks = self.sack_report.blocks(&self.reassembly);
            SackBlocks::new(
                blocks
                    .into_iter()
                    .map(|(start, end)| (to_seq(start), to_seq(end))),
            )
        } else {
            SackBlocks::default()
        };
        if flags.ack {
            self.last_ack_sent = self.rcv_nxt;
        }
        let flags = TcpFlags {
            ece: flags.ece
                || (flags.ack && !flags.syn && !flags.rst && self.ecn_ok && self.ece_pending),
            ..flags
        };
        let mut seg = TcpRepr {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq,
            ack: self.rcv_nxt,
            flags,
            window: self.advertise_window(),
            mss: None,
            window_scale: None,
            sack_permitted: false,
            sack,
            timestamps,
            compaction: None,
            payload_len,
        };
        // The blocks the option space holds: four, or three beside timestamps (as Linux).
        seg.sack = SackBlocks::new(seg.sack_on_wire().iter().copied());
        seg
    }
}
