//! A SACK sender's loss recovery as Linux runs it (`LossRecovery::RackTlp`): RACK-TLP
//! (RFC 8985) finds the losses, PRR (RFC 6937) paces the fast recovery, and what is deemed
//! lost goes again before new data (`tcp_xmit_retransmit_queue`).
//!
//! Per ACK, in `tcp_ack`'s order: the deliveries (SACKed and cumulatively acknowledged
//! segments) advance RACK; a D-SACK widens its reordering window; the ACK of a tail loss
//! probe is judged (`tcp_process_tlp_ack`); RACK marks losses (`tcp_rack_mark_lost`); a
//! recovery ends when the ACK covers what was sent when it began, and one begins when a
//! segment is deemed lost (`tcp_time_to_recover`: in the open state, or after a timeout when
//! a retransmission was lost); then PRR sets cwnd in recovery, or the controller grows it.
//! The reordering timer marks losses that no ACK will reveal; the probe timer sends a tail
//! loss probe. After a timeout every segment not SACKed is deemed lost (`tcp_enter_loss`) and
//! the window grows from one segment, RACK still finding lost retransmissions.
//!
//! A reduction that D-SACKs or timestamps show was spurious is undone where
//! `tcp_fastretrans_alert` tries (`undo.rs`). Not modelled: F-RTO, and Linux's marking after
//! a timeout that spares segments sent within the last RTT (`tcp_timeout_mark_lost`).

use core::time::Duration;

use super::TcpSocket;
use crate::seq::SeqNumber;
use crate::tcp::config::{LossRecovery, ZeroWindow};
use crate::tcp::prr::{Prr, PrrAck};
use crate::tcp::tlp::{self, ProbeOutcome};
use crate::time::Instant;
use crate::wire::{SackBlocks, TcpRepr, Timestamps};

impl TcpSocket {
    /// RACK-TLP applies: asked for, SACK agreed, and Linux's answer to a closed window (BSD's
    /// and paper 001's rewind their sending, which RACK's marks do not follow: those senders
    /// recover as RFC 6675 says).
    pub(super) fn rack_on(&self) -> bool {
        self.sack_ok
            && self.config.loss_recovery == LossRecovery::RackTlp
            && self.config.zero_window == ZeroWindow::Retransmit
    }

    /// A segment `[seq, end)` went out (new, or again).
    pub(super) fn rack_on_transmit(
        &mut self,
        now: Instant,
        seq: SeqNumber,
        end: SeqNumber,
        retransmission: bool,
    ) {
        let (start, end) = (self.send_offset(seq), self.send_offset(end));
        self.rack.on_transmit(now, start, end);
        if self.in_recovery || self.cwr_until.is_some() {
            self.prr.on_sent(end - start);
        }
        if !retransmission {
            self.schedule_probe(now);
        }
    }

    /// The retransmission timer fired: everything not SACKed is lost; no probe, no
    /// reordering timer.
    pub(super) fn rack_on_timeout(&mut self) {
        self.rack.on_timeout();
        self.tlp.clear();
        self.probe_deadline = None;
        self.reorder_deadline = None;
        self.probe_due = false;
    }

    /// The reordering window RACK allows now.
    fn reo_wnd(&self) -> Duration {
        let recovering = self.in_recovery || self.recover.is_some();
        let srtt = self.rto.srtt().unwrap_or(Duration::MAX);
        self.rack
            .reo_wnd(srtt, recovering, self.config.dupack_threshold)
    }

    /// Processes an ACK's acknowledgement fields. `window_unchanged`: it did not update the
    /// peer's window (a duplicate ACK if nothing else moved).
    pub(super) fn rack_ack(
        &mut self,
        now: Instant,
        seg: &TcpRepr,
        echo: Option<Timestamps>,
        window_unchanged: bool,
    ) {
        let una_advanced = seg.ack > self.snd_una;
        let ece = self.ecn_ok && seg.flags.ece;
        self.undo_on_open_ack();
        self.rack.set_ack_echo(echo.map(|e| e.echo_reply));
        let prior_pipe = self.rack.pipe();
        let lost_before = self.rack.delivery_rate().map_or(0, |r| r.lost());
        let advance = una_advanced.then(|| self.advance_una(now, seg.ack, echo));
        let acked = self.rack.on_cumulative_ack(now, self.una_offset);
        let (sacked, dsack_block) = self.rack_take_sack(now, seg);
        let dsack_end = dsack_block.map(|(_, end)| end);
        let delivered = acked + sacked;
        if let Some((start, end)) = dsack_block {
            let snd_nxt = self.send_offset(self.snd_nxt);
            self.rack.on_dsack(self.una_offset, snd_nxt);
            self.undo_on_dsack(start, end);
        }
        if ece {
            self.undo.forbid_restore(); // congestion is proven (step A)
        }
        let pure_dupack = !una_advanced && seg.payload_len == 0 && window_unchanged && sacked == 0;
        if self.tlp.on_ack(self.una_offset, dsack_end, pure_dupack) == ProbeOutcome::Repaired {
            // RFC 8985 §7.4.2: the probe repaired a loss; reduce once (Linux's CWR), from
            // cwnd as Linux's ssthresh hooks do.
            let cwnd = self.cc.window().cwnd;
            self.cc.on_enter_recovery(now, cwnd);
            self.cc.on_end_cwnd_reduction(now);
        }
        // The states end before losses are looked for (`tcp_fastretrans_alert`'s step D
        // before E): an ACK that ends a recovery is scanned with the open state's window.
        // An episode that ends, or a timeout's ACK of new data, may prove spurious.
        let loss_state = self.in_loss_state();
        if self.recover.is_some_and(|recover| seg.ack >= recover) {
            let undone = self.try_undo_recovery(now, echo);
            self.recover = None;
            if !undone {
                self.rack.on_recovery_end();
            }
            if self.in_recovery {
                self.in_recovery = false;
                if !undone {
                    self.cc.on_end_cwnd_reduction(now);
                }
            }
        } else if loss_state && una_advanced {
            self.try_undo_loss(now, echo);
        } else if self.in_recovery && una_advanced {
            self.try_undo_partial(now, echo);
        }
        // Not in the timeout's loss state (`tcp_try_undo_dsack` in Recovery, Open, Disorder).
        if !self.in_loss_state() {
            self.try_undo_dsack(now);
        }
        if self.ecn_on_ack(seg.ack) && !self.in_recovery {
            self.cc.on_end_cwnd_reduction(now);
        }
        let scan = self.rack.detect_loss(now, self.reo_wnd(), false);
        if let Some(scan) = scan {
            self.reorder_deadline = scan.reorder_deadline;
        }
        let (newly_lost, lost_retransmission) =
            scan.map_or((0, false), |s| (s.newly_lost, s.lost_retransmission));
        let may_recover = !self.in_recovery && (self.recover.is_none() || lost_retransmission);
        if may_recover && self.rack.lost_bytes() > 0 {
            self.rack_enter_recovery(now, ece);
        }
        self.ecn_on_echo(now, seg);
        if self.rate_based() {
            self.rate_ack(now, lost_before, prior_pipe);
        } else if self.in_recovery || self.cwr_until.is_some() {
            self.prr_ack(PrrAck {
                delivered,
                pipe: self.rack.pipe(),
                una_advanced,
                newly_lost,
            });
        } else if let Some((acked, flight_before, rtt)) = advance {
            self.grow_window(now, acked, flight_before, rtt);
        }
        let duplicate = !una_advanced
            && seg.payload_len == 0
            && !seg.flags.fin
            && window_unchanged
            && sacked > 0
            && self.snd_una != self.snd_max;
        if duplicate {
            self.cc.on_any_ack(now, 0);
            self.stats.duplicate_acks += 1;
        }
        if una_advanced {
            self.restart_retransmission_timer(now, false);
            self.schedule_probe(now);
        }
    }

    /// Enters the ACK's SACK blocks in RACK, in ascending order; the bytes newly SACKed and
    /// the D-SACK block as offsets (RFC 2883 §4: a first block below the cumulative ACK, or
    /// inside the second block).
    fn rack_take_sack(&mut self, now: Instant, seg: &TcpRepr) -> (u64, Option<(u64, u64)>) {
        let blocks = seg.sack.as_slice();
        let Some(&(left, right)) = blocks.first() else {
            return (0, None);
        };
        let dsack = left < seg.ack
            || blocks
                .get(1)
                .is_some_and(|&(l1, r1)| left >= l1 && right <= r1);
        let mut offsets = [(0, 0); SackBlocks::MAX];
        let mut count = 0;
        for &(l, r) in blocks.iter().skip(usize::from(dsack)) {
            offsets[count] = (self.send_offset(l), self.send_offset(r));
            count += 1;
        }
        let offsets = &mut offsets[..count];
        offsets.sort_unstable();
        let sacked = offsets
            .iter()
            .map(|&(start, end)| self.rack.on_sack(now, start, end))
            .sum();
        let dsack_block = dsack.then(|| (self.send_offset(left), self.send_offset(right)));
        (sacked, dsack_block)
    }

    /// A fast recovery begins (`tcp_enter_recovery`, `tcp_init_cwnd_reduction`); one for
    /// ECN under way goes on (no second ssthresh).
    fn rack_enter_recovery(&mut self, now: Instant, ece: bool) {
        self.undo_on_enter_recovery(ece);
        if self.cwr_until.take().is_none() {
            // ssthresh from cwnd, as Linux's `tcp_init_cwnd_reduction` asks the controller
            // (also after a timeout, where the flight is still the whole old window).
            let prior_cwnd = self.cc.window().cwnd;
            self.cc.on_enter_recovery(now, prior_cwnd);
            let ssthresh = self.cc.window().ssthresh;
            self.cc.window_mut().cwnd = prior_cwnd;
            self.prr = Prr::start(prior_cwnd, ssthresh);
            self.cwr_pending = self.ecn_ok;
        }
        self.in_recovery = true;
        self.partial_acks = 0;
        self.recover = Some(self.snd_max);
        self.tlp.clear();
        self.probe_deadline = None;
        self.probe_due = false;
        self.timed = None;
        self.stats.fast_retransmits += 1;
    }

    /// PRR's window for this ACK.
    fn prr_ack(&mut self, ack: PrrAck) {
        if self.rate_based() {
            return; // the controller sets the window (`cong_control`)
        }
        if let Some(cwnd) = self.prr.on_ack(ack, self.mss) {
            self.cc.window_mut().cwnd = cwnd;
        }
    }

    /// The reordering timer fired (`tcp_rack_reo_timeout`): losses RACK now sees start a
    /// recovery, with one segment counted delivered.
    pub(super) fn on_reorder_timeout(&mut self, now: Instant) {
        self.reorder_deadline = None;
        if !self.rack_on() {
            return;
        }
        let Some(scan) = self.rack.detect_loss(now, self.reo_wnd(), true) else {
            return;
        };
        self.reorder_deadline = scan.reorder_deadline;
        if (scan.newly_lost > 0 || scan.lost_retransmission) && !self.in_recovery {
            self.rack_enter_recovery(now, false);
            self.prr_ack(PrrAck {
                delivered: u64::from(self.mss),
                pipe: self.rack.pipe(),
                una_advanced: false,
                newly_lost: 0,
            });
        }
    }

    /// A probe may go: data in flight, the open state (nothing SACKed, lost or
    /// retransmitted), no probe outstanding (`tcp_schedule_loss_probe`'s conditions).
    fn probe_allowed(&self) -> bool {
        self.rack_on()
            && !self.in_recovery
            && self.recover.is_none()
            && self.rack.sacked_bytes() == 0
            && self.rack.lost_bytes() == 0
            && self.rack.retrans_bytes() == 0
            && self.snd_una != self.snd_max
            && !self.tlp.outstanding()
    }

    /// Arms the probe timer where Linux's `tcp_schedule_loss_probe` does.
    fn schedule_probe(&mut self, now: Instant) {
        if !self.probe_allowed() {
            self.probe_deadline = None;
            return;
        }
        let one_segment = self.snd_max - self.snd_una <= self.mss;
        let rto_left = self
            .rtx_deadline
            .map_or(self.rto.rto(), |at| at.saturating_duration_since(now));
        let timeout =
            tlp::probe_timeout(self.rto.srtt(), one_segment, self.config.min_rto, rto_left);
        self.probe_deadline = Some(now + timeout);
    }

    /// The probe timer fired. Linux's probe takes the retransmission timer's place (one
    /// timer slot): a probe due when the RTO would fire goes, and the RTO restarts from now
    /// (`tcp_send_loss_probe`, `tcp_rearm_rto`).
    pub(super) fn on_probe_timeout(&mut self, now: Instant) {
        self.probe_deadline = None;
        if self.probe_allowed() {
            self.probe_due = true;
            self.rtx_deadline = Some(now + self.rto.rto());
        }
    }

    /// The tail loss probe (`tcp_send_loss_probe`): the next new segment if the peer's
    /// window takes it whole, else the highest segment again; then the retransmission
    /// timer restarts from now.
    pub(super) fn probe_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        if self.snd_una == self.snd_max {
            return None;
        }
        let in_flight = self.snd_nxt - self.snd_una;
        let next = self.mss.min(self.unsent());
        let seg = if next > 0 && next <= self.snd_wnd.saturating_sub(in_flight) {
            let seq = self.snd_nxt;
            let seg = self.data_segment(now, seq, next, false);
            self.tlp.on_probe(self.send_offset(self.snd_nxt), false);
            seg
        } else {
            let (start, last_end) = self.rack.last_segment()?;
            let seq = self.snd_una + (start - self.una_offset) as u32;
            if !self.may_resend_at(seq) {
                return None;
            }
            let len = (last_end - start).min(u64::from(self.mss)) as u32;
            let seg = self.resend(now, seq, len);
            self.tlp.on_probe(self.send_offset(self.snd_max), true);
            seg
        };
        self.stats.loss_probes += 1;
        self.probe_deadline = None;
        self.rtx_deadline = Some(now + self.rto.rto());
        Some(seg)
    }

    /// Linux's `__tcp_retransmit_skb`: a segment goes again only inside the peer's window,
    /// or if it is the first unacknowledged one.
    fn may_resend_at(&self, seq: SeqNumber) -> bool {
        seq == self.snd_una || seq < self.snd_una + self.snd_wnd
    }

    /// What to send in a fast recovery or after a timeout: what is deemed lost first, within
    /// cwnd (PRR sets it) and the peer's window (Linux resends beyond it only the first
    /// unacknowledged segment), then new data.
    pub(super) fn rack_recovery_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        let mss = u64::from(self.mss);
        if self.rack.pipe() + mss > u64::from(self.cc.window().cwnd) {
            return None;
        }
        if let Some((start, end)) = self.rack.next_lost() {
            let seq = self.snd_una + (start - self.una_offset) as u32;
            if !self.may_resend_at(seq) {
                return None;
            }
            return Some(self.resend(now, seq, (end - start).min(mss) as u32));
        }
        self.new_data_segment(now)
    }
}
