//! The connection's timers and what they fire: `poll_timeout`, and `handle_timeout` for the
//! delayed ACK (RFC 5681 §4.2), pacing, the persist timer (RFC 1122 §4.2.2.17, with its
//! one-byte zero-window probe or short segment), RACK's reordering and probe timers
//! (`rack_recovery`), the retransmission timer (RFC 6298: its restart after new data,
//! §5.2, §5.3; on expiry RFC 5681 §3.1 and RFC 6582 §3.2 step 1, backoff, and the give-up
//! of RFC 1122 §4.2.3.5 or Linux's for a closed window) and TIME-WAIT's. A window that
//! closes under data in flight is handled here too, as `TcpConfig::zero_window` says.

use core::time::Duration;

use super::{TcpSocket, TcpState};
use crate::tcp::config::ZeroWindow;
use crate::time::Instant;
use crate::wire::{TcpFlags, TcpRepr};

#[derive(Clone, Copy, Debug)]
pub(super) struct Persist {
    pub(super) deadline: Instant,
    pub(super) interval: Duration,
}

impl TcpSocket {
    /// When `handle_timeout` must be called next.
    pub fn poll_timeout(&self) -> Option<Instant> {
        // This runs after every segment handled or sent: folded by hand over the timers, as
        // an iterator over an array of options did not compile to as little.
        fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, None) => a,
                (None, b) => b,
            }
        }
        let mut deadline = earliest(self.rtx_deadline, self.delack_deadline);
        deadline = earliest(deadline, self.reorder_deadline);
        deadline = earliest(deadline, self.probe_deadline);
        deadline = earliest(deadline, self.persist.map(|p| p.deadline));
        deadline = earliest(deadline, self.time_wait_deadline);
        earliest(deadline, self.pacing.and_then(|p| p.deadline))
    }

    pub fn handle_timeout(&mut self, now: Instant) {
        if self.time_wait_deadline.is_some_and(|t| t <= now) {
            self.enter_closed();
            return;
        }
        if self.delack_deadline.is_some_and(|t| t <= now) {
            self.delack_deadline = None;
            self.ack_now = true;
        }
        if let Some(pacing) = self
            .pacing
            .as_mut()
            .filter(|p| p.deadline.is_some_and(|t| t <= now))
        {
            pacing.deadline = None;
        }
        if let Some(persist) = self.persist.filter(|p| p.deadline <= now) {
            self.force_send = true;
            if self.snd_wnd == 0 {
                self.stats.zero_window_probes += 1;
            }
            let interval = (persist.interval * 2).min(self.config.max_persist);
            self.persist = Some(Persist {
                deadline: now + interval,
                interval,
            });
        }
        if self.reorder_deadline.is_some_and(|t| t <= now) {
            self.on_reorder_timeout(now);
        }
        if self.probe_deadline.is_some_and(|t| t <= now) {
            self.on_probe_timeout(now);
        }
        if self.rtx_deadline.is_some_and(|t| t <= now) {
            self.on_retransmission_timeout(now);
        }
    }

    pub(super) fn on_retransmission_timeout(&mut self, now: Instant) {
        self.rtx_deadline = None;
        match self.state {
            TcpState::SynSent | TcpState::SynReceived => {
                self.handshake_pending = true;
                self.handshake_timed_out = true;
            }
            _ if self.snd_una != self.snd_max => {
                // RFC 5681 §3.1 and RFC 6582 §3.2 step 1: collapse the window, forget the
                // recovery episode, and go back to the first unacknowledged byte.
                let flight = self.snd_max - self.snd_una;
                if self.rack_on() && self.recover.is_none() {
                    self.undo_on_timeout();
                }
                self.cc.on_rto(now, flight, self.recover.is_some());
                self.rtt_samples.on_timeout(self.snd_max);
                self.scoreboard.start_recovery(self.una_offset);
                self.recover = Some(self.snd_max);
                self.in_recovery = false;
                self.dupacks = 0;
                self.cwr_until = None;
                self.cwr_pending = self.ecn_ok;
                if self.rack_on() {
                    // Linux (`tcp_enter_loss`): every segment not SACKed is lost and goes
                    // again before new data; the head at once, whatever the windows.
                    self.rack_on_timeout();
                    self.rate_on_timeout(now);
                    self.retransmit_head = true;
                } else {
                    self.snd_nxt = self.snd_una;
                    self.retransmit_head = false;
                }
            }
            _ => return,
        }
        self.stats.timeouts += 1;
        let since = *self.first_timeout_at.get_or_insert(now);
        if self.probing_a_closed_window() {
            // Linux (`tcp_retransmit_timer`, `tcp_rtx_probe0_timed_out`): into a zero window
            // the retransmissions are probes, and a peer that answers them is alive; the
            // connection times out only after 2·TCP_RTO_MAX without an ACK and of
            // retransmitting, whatever the count.
            let limit = 2 * self.config.max_rto;
            if now - self.last_ack_at > limit && now - since > limit {
                self.stats.aborted = true;
                self.enter_closed();
                return;
            }
        } else {
            self.consecutive_timeouts += 1;
            if self.consecutive_timeouts > self.config.max_retransmissions {
                self.stats.aborted = true;
                self.enter_closed();
                return;
            }
        }
        self.timed = None;
        self.rto.back_off();
        self.rtx_deadline = Some(now + self.rto.rto());
    }

    /// A Linux sender's retransmissions into a window the peer closed with data in flight.
    pub(super) fn probing_a_closed_window(&self) -> bool {
        self.config.zero_window == ZeroWindow::Retransmit
            && self.snd_wnd == 0
            && self.state.may_have_data_unacked()
    }

    /// The peer closed its window with data in flight. BSD stops the retransmission timer
    /// and falls back to probing: what was in flight is sent again once the window opens (so
    /// no RTT is timed across the pause, Karn's rule). `Hold` stops the timer and rewinds
    /// nothing. Linux keeps the timer running.
    pub(super) fn on_window_closed_in_flight(&mut self) {
        if self.config.zero_window == ZeroWindow::Retransmit || !self.state.may_have_data_unacked()
        {
            return;
        }
        self.rtx_deadline = None;
        self.rto.clear_backoff();
        self.timed = None;
        if self.config.zero_window == ZeroWindow::Hold {
            self.held = true;
            return;
        }
        self.snd_nxt = self.snd_una;
        self.retransmit_head = false;
    }

    /// After an ACK of new data (RFC 6298 §5.2, §5.3): stopped when nothing is outstanding,
    /// else restarted unless `keep`.
    pub(super) fn restart_retransmission_timer(&mut self, now: Instant, keep: bool) {
        if self.snd_una == self.snd_max {
            self.rtx_deadline = None;
        } else if !keep {
            self.rtx_deadline = Some(now + self.rto.rto());
        }
    }

    /// Arms the persist timer when data waits, nothing is in flight and the window forbids
    /// sending (a zero window, or one too small to avoid silly windows).
    pub(super) fn update_persist(&mut self, now: Instant) {
        let waiting = self.snd_nxt < self.data_end()
            && self.snd_nxt == self.snd_una
            && self.sendable_len() == 0;
        let held = self.held && self.snd_wnd == 0 && self.snd_una != self.snd_max;
        let blocked = self.state.may_have_data_unacked() && (waiting || held);
        if !blocked {
            if self.snd_wnd > 0 {
                self.persist = None;
            }
            return;
        }
        if self.persist.is_none() {
            let interval = self.rto.rto().min(self.config.max_persist);
            self.persist = Some(Persist {
                deadline: now + interval,
                interval,
            });
            if self.snd_una == self.snd_max {
                self.rtx_deadline = None;
            }
        }
    }

    /// A persist-timer transmission: one byte into a zero window, or a short segment into a
    /// window too small for the silly-window rules.
    pub(super) fn forced_segment(&mut self, now: Instant) -> Option<TcpRepr> {
        let end = self.data_end();
        let seq = if self.held && self.snd_wnd == 0 {
            // Held: new data if there is any, else the first byte still unacknowledged.
            if self.snd_nxt < end {
                self.snd_nxt
            } else {
                self.snd_una
            }
        } else if self.snd_nxt == self.snd_una {
            self.snd_nxt
        } else {
            return None;
        };
        if seq >= end {
            return None;
        }
        let len = (end - seq).min(self.mss).min(self.snd_wnd.max(1));
        let seg = self.segment(
            now,
            seq,
            len,
            TcpFlags {
                ack: true,
                ..TcpFlags::default()
            },
        );
        if self.snd_wnd == 0 {
            // The probe byte may be dropped: it does not advance snd_nxt, so it is sent again
            // as ordinary data once the window opens.
            self.snd_max = self.snd_max.max(seq + len);
        } else {
            let again = seq < self.snd_max;
            self.snd_nxt = seq + len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            self.rtx_deadline.get_or_insert(now + self.rto.rto());
            if self.rack_on() {
                self.rack_on_transmit(now, seq, seq + len, again);
            }
        }
        Some(seg)
    }
}
