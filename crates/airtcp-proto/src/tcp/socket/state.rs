//! The connection states (RFC 9293 §3.3.2) and the way out of them: the peer's FIN taken
//! in order, the closing states it and the ACK of our FIN lead through (FIN-WAIT-1/2,
//! CLOSING, CLOSE-WAIT, LAST-ACK; RFC 9293 §3.10.7.4's eighth step), TIME-WAIT's 2·MSL
//! timer (`TcpConfig::time_wait`), and CLOSED, where every timer stops.

use super::TcpSocket;
use crate::time::Instant;

/// Connection states of RFC 9293 §3.3.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpState {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

impl TcpState {
    pub(super) fn is_synchronized(self) -> bool {
        !matches!(
            self,
            TcpState::Closed | TcpState::Listen | TcpState::SynSent
        )
    }

    /// States in which data we wrote may still be unsent or unacknowledged (the FIN waits
    /// behind it), so a closed window must be probed (RFC 9293 §3.8.6.1).
    pub(super) fn may_have_data_unacked(self) -> bool {
        matches!(
            self,
            TcpState::Established
                | TcpState::CloseWait
                | TcpState::FinWait1
                | TcpState::Closing
                | TcpState::LastAck
        )
    }

    pub(super) fn accepts_data(self) -> bool {
        matches!(
            self,
            TcpState::Established | TcpState::FinWait1 | TcpState::FinWait2
        )
    }
}

impl TcpSocket {
    pub(super) fn consume_fin(&mut self) {
        if !self.fin_received && self.peer_fin_offset == Some(self.received) {
            self.fin_received = true;
            self.rcv_nxt = self.rcv_nxt + 1;
            self.rcv_adv = self.rcv_adv.max(self.rcv_nxt);
            self.ack_now = true;
        }
    }

    pub(super) fn advance_close_states(&mut self, now: Instant) {
        let fin_acked = self.all_acknowledged();
        self.state = match self.state {
            TcpState::Established if self.fin_received => TcpState::CloseWait,
            TcpState::FinWait1 if fin_acked && self.fin_received => TcpState::TimeWait,
            TcpState::FinWait1 if fin_acked => TcpState::FinWait2,
            TcpState::FinWait1 if self.fin_received => TcpState::Closing,
            TcpState::FinWait2 | TcpState::Closing if self.fin_received && fin_acked => {
                TcpState::TimeWait
            }
            TcpState::LastAck if fin_acked => {
                self.enter_closed();
                return;
            }
            state => state,
        };
        if self.state == TcpState::TimeWait && self.time_wait_deadline.is_none() {
            self.time_wait_deadline = Some(now + self.config.time_wait);
            self.rtx_deadline = None;
            self.reorder_deadline = None;
            self.probe_deadline = None;
            self.persist = None;
        }
    }

    pub(super) fn enter_closed(&mut self) {
        self.state = TcpState::Closed;
        self.rtx_deadline = None;
        self.reorder_deadline = None;
        self.probe_deadline = None;
        self.persist = None;
        self.delack_deadline = None;
        self.time_wait_deadline = None;
        self.handshake_pending = false;
        self.ack_now = false;
    }
}
