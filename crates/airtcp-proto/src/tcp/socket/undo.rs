//! The sender's undo of spurious reductions under RACK-TLP (`tcp::undo`), where Linux's
//! `tcp_fastretrans_alert` tries them:
//!
//! - a recovery or timeout episode that ends with every retransmission D-SACKed, or with an
//!   ACK echoing a timestamp older than the first retransmission, is undone
//!   (`tcp_try_undo_recovery`);
//! - during a recovery, or after one, once every retransmission came back D-SACKed
//!   (`tcp_try_undo_dsack`), the recovery ends and the window returns;
//! - a partial ACK answering an original sent before the first retransmission, with no
//!   retransmission left in flight, undoes the recovery and its loss marks
//!   (`tcp_try_undo_partial`);
//! - after a timeout, an ACK of new data answering an original (Eifel detection, RFC 3522;
//!   `tcp_try_undo_loss`) undoes the timeout and its loss marks: what was deemed lost is not
//!   sent again.
//!
//! Undo sets cwnd to the controller's `undo_cwnd` (Reno's: the larger of cwnd and the window
//! before the reduction) and ssthresh back up to its old value, unless an ECN-Echo proved
//! the congestion. Not modelled: F-RTO (RFC 5682; Linux's `tcp_frto`), which detects
//! spurious timeouts without timestamps.

use super::TcpSocket;
use crate::time::Instant;
use crate::wire::Timestamps;

impl TcpSocket {
    /// `tcp_current_ssthresh`: ssthresh, or in the open state at least 3/4 of cwnd.
    fn current_ssthresh(&self) -> u32 {
        let window = self.cc.window();
        if self.in_recovery || self.cwr_until.is_some() {
            window.ssthresh
        } else {
            window.ssthresh.max(window.cwnd / 2 + window.cwnd / 4)
        }
    }

    /// A fast recovery begins, before the controller reduces (`tcp_enter_recovery`): with
    /// an ECN reduction under way or an ECN-Echo on this ACK, nothing will be restored.
    pub(super) fn undo_on_enter_recovery(&mut self, ece: bool) {
        let prior_ssthresh = if ece || self.cwr_until.is_some() {
            0
        } else {
            self.current_ssthresh()
        };
        let (una, retrans, cwnd) = (
            self.una_offset,
            self.segments(self.rack.retrans_bytes()) as u32,
            self.cc.window().cwnd,
        );
        self.undo.start(una, retrans, cwnd, prior_ssthresh);
    }

    /// A timeout opens a loss episode (`tcp_enter_loss`), before the controller reduces.
    pub(super) fn undo_on_timeout(&mut self) {
        let (una, cwnd) = (self.una_offset, self.cc.window().cwnd);
        self.undo.start(una, 0, cwnd, self.current_ssthresh());
    }

    /// An ECN reduction begins (`tcp_enter_cwr`).
    pub(super) fn undo_on_ecn(&mut self) {
        self.undo.cancel();
    }

    pub(super) fn undo_on_retransmit(&mut self, now: Instant) {
        self.undo.on_retransmit(now, 1);
    }

    /// The ACK's D-SACK block, `[start, end)` as stream offsets.
    pub(super) fn undo_on_dsack(&mut self, start: u64, end: u64) {
        let segments = self.segments(end.saturating_sub(start)) as u32;
        self.undo.on_dsack(end, segments);
    }

    /// Restores the window if the episode was spurious (`tcp_undo_cwnd_reduction`);
    /// `unmark_loss` also forgets what was deemed lost.
    fn undo_reduction(&mut self, now: Instant, unmark_loss: bool) {
        if unmark_loss {
            self.rack.unmark_lost();
        }
        if let Some((prior_cwnd, prior_ssthresh)) = self.undo.take() {
            let cwnd = self.cc.undo_cwnd(now, prior_cwnd);
            let window = self.cc.window_mut();
            window.cwnd = cwnd;
            window.ssthresh = window.ssthresh.max(prior_ssthresh);
        }
        self.stats.undos += 1;
    }

    /// The episode ends with the ACK of `recover` (`tcp_try_undo_recovery`); true if it
    /// was undone.
    pub(super) fn try_undo_recovery(&mut self, now: Instant, echo: Option<Timestamps>) -> bool {
        if !self.undo.may_undo(echo.map(|e| e.echo_reply)) {
            return false;
        }
        self.undo_reduction(now, false);
        true
    }

    /// During or after a recovery: every retransmission D-SACKed (`tcp_try_undo_dsack`);
    /// a recovery under way ends (`tcp_try_keep_open`).
    pub(super) fn try_undo_dsack(&mut self, now: Instant) {
        if !self.undo.all_dsacked() {
            return;
        }
        self.rack.on_dsack_undo();
        self.undo_reduction(now, false);
        self.leave_recovery();
    }

    /// A partial ACK in a recovery answering an original sent before the first
    /// retransmission, with none in flight (`tcp_try_undo_partial`).
    pub(super) fn try_undo_partial(&mut self, now: Instant, echo: Option<Timestamps>) {
        let delayed = self.undo.packet_delayed(echo.map(|e| e.echo_reply));
        if !self.undo.pending() || !delayed || self.rack.retrans_bytes() > 0 {
            return;
        }
        self.undo_reduction(now, true);
        self.leave_recovery();
    }

    /// After a timeout, an ACK of new data that proves it spurious (`tcp_try_undo_loss`);
    /// true if undone.
    pub(super) fn try_undo_loss(&mut self, now: Instant, echo: Option<Timestamps>) -> bool {
        if !self.undo.may_undo(echo.map(|e| e.echo_reply)) {
            return false;
        }
        self.undo_reduction(now, true);
        self.consecutive_timeouts = 0;
        self.leave_recovery();
        true
    }

    /// Back to the open state (an undone episode does not count towards the reordering
    /// window's persistence, as in `tcp_try_undo_recovery`).
    fn leave_recovery(&mut self) {
        self.in_recovery = false;
        self.recover = None;
    }

    /// An ACK in the open state: the next retransmission starts a new stamp
    /// (`tcp_fastretrans_alert` step D).
    pub(super) fn undo_on_open_ack(&mut self) {
        if !self.in_recovery && self.recover.is_none() && self.cwr_until.is_none() {
            self.undo.clear_retrans_stamp();
        }
    }
}
