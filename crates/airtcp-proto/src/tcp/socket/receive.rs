//! Segment arrival and the receive path: a reset, then dispatch by state (a closed
//! connection answers with a reset, RFC 9293 §3.10.7.1); PAWS (RFC 7323 §5) and the
//! acceptability test (RFC 9293 §3.10.7.4); in-order data delivered and out-of-order data
//! held with an immediate duplicate ACK, delayed ACKs otherwise (RFC 5681 §4.2); D-SACK
//! reports of duplicates (RFC 2883); and the window advertised with receiver silly-window
//! avoidance (RFC 1122 §4.2.3.3).

use super::{TcpSocket, TcpState};
use crate::seq::SeqNumber;
use crate::time::Instant;
use crate::wire::{Ipv4Repr, TcpRepr};

impl TcpSocket {
    /// `handle_segment` for a segment whose IP header carried ECN codepoint `ecn`
    /// (`Ipv4Repr::CE` for a congestion mark).
    pub fn handle_segment_ecn(&mut self, now: Instant, seg: &TcpRepr, ecn: u8) {
        self.arriving_ce = ecn == Ipv4Repr::CE;
        self.handle_segment(now, seg);
        self.arriving_ce = false;
    }

    pub fn handle_segment(&mut self, now: Instant, seg: &TcpRepr) {
        self.stats.segments_received += 1;
        if seg.flags.rst {
            if self.state.is_synchronized() || self.state == TcpState::SynSent {
                self.enter_closed();
            }
            return;
        }
        match self.state {
            // RFC 9293 §3.10.7.1: answer anything but a reset with a reset, so that a peer
            // still retransmitting (its last ACK was lost) does not wait forever.
            TcpState::Closed => {
                self.reset = Some(if seg.flags.ack {
                    (seg.ack, SeqNumber(0), false)
                } else {
                    (SeqNumber(0), seg.seq + seg.seq_len(), true)
                });
            }
            TcpState::Listen => {
                if seg.flags.syn && !seg.flags.ack {
                    self.accept_syn(now, seg);
                    self.state = TcpState::SynReceived;
                    self.handshake_pending = true;
                }
            }
            TcpState::SynSent => {
                if seg.flags.syn && seg.flags.ack && seg.ack == self.iss + 1 {
                    self.accept_syn(now, seg);
                    self.process_ack(now, seg);
                    self.enter_established(now, seg);
                    self.ack_now = true;
                }
            }
            _ => self.handle_synchronized(now, seg),
        }
        self.update_persist(now);
    }

    pub(super) fn handle_synchronized(&mut self, now: Instant, seg: &TcpRepr) {
        if seg.flags.syn {
            // A retransmitted SYN (our SYN-ACK was lost) or SYN-ACK (our ACK was lost).
            if self.state == TcpState::SynReceived {
                self.handshake_pending = true;
            } else {
                self.ack_now = true;
            }
            return;
        }
        let seen = seg.timestamps.filter(|_| self.timestamps_ok);
        if let Some(seen) = seen {
            if self.timestamps.rejects(seen, seg.flags.rst) {
                self.stats.paws_rejected += 1;
                self.ack_now = true;
                return;
            }
        }
        if !self.acceptable(seg) {
            // Linux's `tcp_send_dupack`: data that had all arrived before is D-SACKed.
            if self.sack_ok && seg.payload_len > 0 {
                let start = self.offset_of(seg.seq).max(0) as u64;
                self.report_duplicates(start, start + u64::from(seg.payload_len));
            }
            self.ack_now = true;
            return;
        }
        if let Some(seen) = seen {
            self.timestamps
                .on_segment(seen, seg.seq, self.last_ack_sent);
            if let Some(autotune) = &mut self.autotune {
                autotune.on_timestamps(now, seen.echo_reply, seg.payload_len);
            }
        }
        if seg.flags.ack {
            if self.state == TcpState::SynReceived {
                if seg.ack.diff(self.snd_una) > 0 && seg.ack.diff(self.snd_max) <= 0 {
                    self.enter_established(now, seg);
                } else {
                    return;
                }
            }
            if !self.process_ack(now, seg) {
                return;
            }
        }
        if self.state.accepts_data() && seg.payload_len > 0 {
            self.process_data(now, seg);
        }
        if seg.flags.fin {
            let offset = self.offset_of(seg.seq) + i64::from(seg.payload_len);
            if offset >= 0 && self.peer_fin_offset.is_none() {
                self.peer_fin_offset = Some(offset as u64);
            }
            self.ack_now = true;
        }
        self.consume_fin();
        self.advance_close_states(now);
    }

    /// RFC 9293 §3.10.7.4 segment acceptability test.
    pub(super) fn acceptable(&self, seg: &TcpRepr) -> bool {
        let window = self.rcv_adv.diff(self.rcv_nxt).max(0);
        let start = seg.seq.diff(self.rcv_nxt);
        let len = i64::from(seg.seq_len());
        match (len, window) {
            (0, 0) => start == 0,
            (0, _) => (0..window).contains(&start),
            (_, 0) => false,
            _ => start < window && start + len > 0,
        }
    }

    /// Stream offset of a sequence number on the receive side.
    pub(super) fn offset_of(&self, seq: SeqNumber) -> i64 {
        self.received as i64 + seq.diff(self.rcv_nxt)
    }

    pub(super) fn process_data(&mut self, now: Instant, seg: &TcpRepr) {
        let start = self.offset_of(seg.seq);
        let end = start + i64::from(seg.payload_len);
        let received = self.received as i64;
        let window_end = received + self.rcv_adv.diff(self.rcv_nxt).max(0);
        let (from, to) = (start.max(received), end.min(window_end));
        if self.sack_ok {
            self.report_duplicates(start.max(0) as u64, end.max(0) as u64);
        }
        if from >= to {
            self.ack_now = true; // a duplicate, or wholly beyond the window
            return;
        }
        self.ecn_on_data(seg);
        if from > received {
            // Out of order: hold it and send a duplicate ACK at once (RFC 5681 §4.2).
            self.reassembly.insert(from as u64, to as u64);
            self.sack_report.on_out_of_order(from as u64);
            self.ack_now = true;
            return;
        }
        let had_gap = !self.reassembly.is_empty();
        self.reassembly.insert(from as u64, to as u64);
        let next = self.reassembly.take_contiguous(self.received);
        let advanced = next - self.received;
        self.received = next;
        self.unread += advanced;
        self.rcv_nxt = self.rcv_nxt + advanced as u32;
        if let Some(autotune) = &mut self.autotune {
            autotune.on_data_received(now, self.received, self.rcv_wnd);
        }
        self.stats.bytes_received += advanced;
        self.unacked_segments += 1;
        if had_gap
            || start < received
            || end > window_end
            || !self.config.delayed_ack
            || self.unacked_segments >= self.config.ack_every
        {
            self.ack_now = true;
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.config.delayed_ack_timeout);
        }
    }

    /// The parts of the data segment `[start, end)` (stream offsets) that had arrived
    /// before, below the cumulative point or held out of order, go to the next ACK as a
    /// D-SACK (RFC 2883 §4, Linux's `tcp_dsack_set` in `tcp_data_queue` and
    /// `tcp_data_queue_ofo`).
    pub(super) fn report_duplicates(&mut self, start: u64, end: u64) {
        self.sack_report.on_segment();
        let received = self.received;
        if start < received {
            self.sack_report.on_duplicate(start, end.min(received));
        }
        let from = start.max(received);
        for &(held_start, held_end) in self.reassembly.ranges() {
            let (s, e) = (held_start.max(from), held_end.min(end));
            if s < e {
                self.sack_report.on_duplicate(s, e);
            }
        }
    }

    /// The window field, applying receiver silly-window avoidance (RFC 1122 §4.2.3.3): the
    /// right edge moves only by at least min(buffer/2, MSS), and never to the left.
    pub(super) fn advertise_window(&mut self) -> u16 {
        let edge = self.rcv_nxt + self.free_receive_space();
        let threshold = self.mss.min(self.receive_space_limit() / 2);
        if edge.diff(self.rcv_adv) >= i64::from(threshold) || self.rcv_adv < self.rcv_nxt {
            self.rcv_adv = edge.max(self.rcv_nxt);
        }
        let window = self.rcv_adv - self.rcv_nxt;
        self.rcv_wnd = window;
        (window >> self.rcv_shift).min(u32::from(u16::MAX)) as u16
    }
}
