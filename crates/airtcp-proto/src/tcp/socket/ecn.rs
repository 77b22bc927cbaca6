//! Explicit Congestion Notification (RFC 3168 §6.1) in a connection, as Linux's
//! `tcp_ecn_*` helpers and `tcp_enter_cwr` run it.
//!
//! Negotiation: a SYN asking for ECN carries ECE and CWR, the SYN-ACK accepting it ECE alone
//! (`TcpConfig::ecn`: `on` asks and accepts, `accept` only accepts, Linux's default).
//! Then new data goes out ECT(0); retransmissions, window probes and pure ACKs are not ECT
//! (§6.1.5, §6.1.6, Linux's `tcp_ecn_send`). The receiver of a CE-marked data segment sets
//! ECE on every ACK until a data segment carrying CWR arrives (§6.1.3), and acknowledges the
//! first mark and the CWR segment at once (Linux quick-ACKs the next two segments after a
//! first mark, `tcp_enter_quickack_mode(sk, 2)`: here the marked one only). The sender
//! answers an ECE as a loss, without retransmitting, once a window (§6.1.2): ssthresh as for
//! a loss; with `LossRecovery::RackTlp` cwnd then falls by PRR (Linux's CWR state, ended by
//! an ACK above the data sent when it began), else at once to ssthresh; the next new data
//! segment carries CWR. An ECE during a recovery or after a timeout is part of it.

use super::TcpSocket;
use crate::seq::SeqNumber;
use crate::tcp::config::Ecn;
use crate::tcp::prr::Prr;
use crate::time::Instant;
use crate::wire::{Ipv4Repr, TcpRepr};

impl TcpSocket {
    /// ECE and CWR for our SYN or SYN-ACK.
    pub(super) fn ecn_syn_flags(&self, syn_ack: bool) -> (bool, bool) {
        if syn_ack {
            (self.ecn_ok, false)
        } else {
            let ask = self.config.ecn == Ecn::On;
            (ask, ask)
        }
    }

    /// The peer's SYN (asking: ECE and CWR) or SYN-ACK (accepting: ECE alone).
    pub(super) fn ecn_on_syn(&mut self, seg: &TcpRepr) {
        self.ecn_ok = if seg.flags.ack {
            self.config.ecn == Ecn::On && seg.flags.ece && !seg.flags.cwr
        } else {
            self.config.ecn != Ecn::Off && seg.flags.ece && seg.flags.cwr
        };
    }

    /// A data segment within the window arrived: its CWR ends the echo, its CE mark starts
    /// one (Linux's `tcp_ecn_accept_cwr`, then `tcp_ecn_check_ce`).
    pub(super) fn ecn_on_data(&mut self, seg: &TcpRepr) {
        if !self.ecn_ok {
            return;
        }
        if seg.flags.cwr {
            // Linux acknowledges a CWR carrying data at once (its sender's window may be
            // small: `tcp_ecn_accept_cwr` since 5.1).
            self.ece_pending = false;
            self.ack_now = true;
        }
        if self.arriving_ce {
            if !self.ece_pending {
                self.ack_now = true;
            }
            self.ece_pending = true;
            self.stats.ce_received += 1;
        }
    }

    /// Whether a segment sent now is marked ECT(0), and sets CWR on it when due: new data
    /// only.
    pub(super) fn ecn_on_send(&mut self, seg: &mut TcpRepr, retransmission: bool) {
        if !self.ecn_ok || retransmission || seg.payload_len == 0 {
            return;
        }
        self.sent_ect = true;
        if self.cwr_pending {
            self.cwr_pending = false;
            seg.flags.cwr = true;
        }
    }

    /// The IP ECN codepoint of the segment `poll_transmit` returned last.
    pub(super) fn take_sent_codepoint(&mut self) -> u8 {
        if std::mem::take(&mut self.sent_ect) {
            Ipv4Repr::ECT0
        } else {
            Ipv4Repr::NOT_ECT
        }
    }

    /// An ACK carrying ECE (not the SYN-ACK's, which agrees ECN): reduce once a window,
    /// unless a recovery or a timeout's recovery already does.
    pub(super) fn ecn_on_echo(&mut self, now: Instant, seg: &TcpRepr) {
        let echo = self.ecn_ok && seg.flags.ece && !seg.flags.syn;
        if !echo || self.in_recovery || self.recover.is_some() || self.cwr_until.is_some() {
            return;
        }
        let prior_cwnd = self.cc.window().cwnd;
        let rack = self.rack_on();
        // As for a loss: from cwnd with Linux's recovery (`tcp_init_cwnd_reduction`), else
        // from the flight (RFC 5681 eq. 4).
        let basis = if rack {
            prior_cwnd
        } else {
            self.snd_max - self.snd_una
        };
        self.cc.on_enter_recovery(now, basis);
        let window = self.cc.window_mut();
        if rack {
            window.cwnd = prior_cwnd;
            self.prr = Prr::start(prior_cwnd, window.ssthresh);
            self.tlp.clear();
            self.undo_on_ecn();
        } else {
            window.cwnd = window.ssthresh;
        }
        self.cwr_until = Some(self.snd_nxt);
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }

    /// The ACK reached `ack`: a reduction for ECN ends once the ACK is above where it began
    /// (Linux holds CWR until then, so the CWR flag reached the peer). Returns whether one
    /// ended.
    pub(super) fn ecn_on_ack(&mut self, ack: SeqNumber) -> bool {
        if self.cwr_until.is_some_and(|until| ack > until) {
            self.cwr_until = None;
            return true;
        }
        false
    }
}
