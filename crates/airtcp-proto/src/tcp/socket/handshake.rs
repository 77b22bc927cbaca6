//! The three-way handshake (RFC 9293 §3.5): the SYN and SYN-ACK with the options they
//! offer (MSS, RFC 6691; window scaling and timestamps, RFC 7323; SACK-permitted, RFC
//! 2018; ECN, RFC 3168 §6.1.1), the peer's options taken from its SYN, and establishment,
//! which after a lost SYN or SYN-ACK restarts from a 3 s RTO (RFC 6298 §5.7) and a window
//! of one segment as `syn_loss_window` says (RFC 5681 §3.1, or Linux's rule).

use core::time::Duration;

use super::{TcpSocket, TcpState};
use crate::seq::SeqNumber;
use crate::tcp::config::{SynLossWindow, TcpConfig};
use crate::tcp::receive_autotune::{AutotuneConfig, ReceiveAutotune};
use crate::tcp::timestamps;
use crate::time::Instant;
use crate::wire::{TcpFlags, TcpRepr};

/// The RTO a connection starts with after its SYN or SYN-ACK was lost (RFC 6298 §5.7).
const SYN_LOSS_RTO: Duration = Duration::from_secs(3);

impl TcpSocket {
    /// Takes the peer's initial sequence number and options (RFC 7323 §2.2: scaling applies
    /// only if both sides offer it; the SYN's own window is never scaled).
    pub(super) fn accept_syn(&mut self, now: Instant, seg: &TcpRepr) {
        self.irs = seg.seq;
        self.rcv_nxt = seg.seq + 1;
        self.rcv_adv = self.rcv_nxt;
        match seg.window_scale {
            Some(shift) if self.config.window_scaling => {
                self.snd_shift = shift.min(14);
                self.peer_offered_scaling = true;
            }
            _ => {
                self.snd_shift = 0;
                self.rcv_shift = 0;
            }
        }
        self.sack_ok = self.config.sack && seg.sack_permitted;
        self.ecn_on_syn(seg);
        self.timestamps_ok = self.config.timestamps && seg.timestamps.is_some();
        if let Some(seen) = seg.timestamps.filter(|_| self.timestamps_ok) {
            self.timestamps.on_syn(seen);
        }
        // The MSS options count the fixed headers only; the options every segment carries
        // come out of the payload (RFC 6691 §2, RFC 1122 §4.2.2.6): 1448 bytes with
        // timestamps on a 1500-byte MTU, as Linux's tcp_current_mss.
        let options = if self.timestamps_ok {
            TcpRepr::TIMESTAMPS_OPTION_LEN
        } else {
            0
        };
        self.mss = self.config.mss.min(u32::from(seg.mss.unwrap_or(536))) - options;
        self.snd_wnd = u32::from(seg.window);
        self.max_snd_wnd = self.snd_wnd;
        self.snd_wl1 = seg.seq;
        self.snd_wl2 = seg.ack;
        let initial_cwnd = TcpConfig {
            mss: self.mss,
            ..self.config.clone()
        }
        .initial_cwnd();
        let window = self.cc.window_mut();
        window.mss = self.mss;
        window.cwnd = initial_cwnd;
        if self.config.receive_autotuning {
            // From the handshake on: the SYN-ACK and first ACKs offer the initial window
            // (Linux's `tcp_select_initial_window` within `tcp_rmem[1]`).
            let most = self.config.receive_buffer;
            let config = AutotuneConfig {
                rmem: [4096.min(most), 131_072.min(most), most],
                ..AutotuneConfig::default()
            };
            self.autotune = Some(ReceiveAutotune::new(config, self.mss, now));
        }
    }

    /// The handshake completed with `seg`. If our SYN or SYN-ACK had to be sent again, the
    /// path is unknown: RFC 6298 §5.7 restarts from a 3 s RTO (unless an RTT sample already
    /// came), and the window from one segment as `syn_loss_window` says.
    pub(super) fn enter_established(&mut self, now: Instant, seg: &TcpRepr) {
        self.state = TcpState::Established;

        if self.handshake_timed_out {
            if self.rto.srtt().is_none() {
                self.rto.fall_back(SYN_LOSS_RTO);
            }
            if self.one_segment_after_handshake(seg) {
                let window = self.cc.window_mut();
                window.cwnd = window.mss;
            }
        }
        self.rate_on_established(now);
    }

    /// After a handshake timeout: whether the window starts from one segment.
    pub(super) fn one_segment_after_handshake(&self, seg: &TcpRepr) -> bool {
        match self.config.syn_loss_window {
            SynLossWindow::Rfc5681 => true,
            SynLossWindow::Linux => {
                let spurious = self.timestamps_ok
                    && seg
                        .timestamps
                        .zip(self.handshake_first_sent)
                        .is_some_and(|(seen, first)| seen.echo_reply == timestamps::clock(first));
                self.handshake_retransmissions > 1 && !spurious
            }
        }
    }

    pub(super) fn handshake_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        if !self.handshake_pending {
            return None;
        }
        self.handshake_pending = false;
        let retransmission = self.snd_max != self.iss;
        if retransmission {
            self.stats.retransmissions += 1;
            self.handshake_retransmissions += 1;
        } else {
            self.timed = Some((self.iss + 1, now));
            self.handshake_first_sent = Some(now);
        }
        self.snd_nxt = self.iss + 1;
        self.snd_max = self.iss + 1;
        self.rtx_deadline.get_or_insert(now + self.rto.rto());
        let syn_ack = self.state == TcpState::SynReceived;
        let mut seg = self.segment(
            now,
            self.iss,
            0,
            TcpFlags {
                syn: true,
                ack: syn_ack,
                ..TcpFlags::default()
            },
        );
        seg.mss = Some(self.config.mss.min(u32::from(u16::MAX)) as u16);
        // A SYN-ACK offers scaling only if the SYN did (RFC 7323 §1.3), and so with SACK
        // (RFC 2018 section 2) and timestamps (RFC 7323 section 3.2).
        if self.config.window_scaling && (!syn_ack || self.peer_offered_scaling) {
            seg.window_scale = Some(self.config.receive_window_shift());
        }
        seg.sack_permitted = self.config.sack && (!syn_ack || self.sack_ok);
        (seg.flags.ece, seg.flags.cwr) = self.ecn_syn_flags(syn_ack);
        if self.config.timestamps && (!syn_ack || self.timestamps_ok) {
            seg.timestamps = Some(self.timestamps.option(now));
        }
        seg.window = self.free_receive_space().min(u32::from(u16::MAX)) as u16;
        if !syn_ack {
            seg.ack = SeqNumber(0);
        }
        Some(seg)
    }
}
