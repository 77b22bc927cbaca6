//! Undo of a spurious window reduction, as Linux keeps it (`tcp_init_undo`,
//! `tcp_may_undo`, `tcp_packet_delayed`, `tcp_undo_cwnd_reduction` in `tcp_input.c`).
//!
//! A fast recovery or a timeout remembers the window it cut (`prior_cwnd`, and ssthresh as
//! `tcp_current_ssthresh` gave it) and where it began (`undo_marker`), and counts the
//! retransmissions sent since that the peer has not reported as duplicates (`undo_retrans`,
//! RFC 2883's D-SACK: every retransmission D-SACKed means both copies arrived, so none was
//! needed). The reduction was spurious if every retransmission came back D-SACKed, or if an
//! ACK echoes a timestamp older than the first retransmission (RFC 7323: the ACK answers an
//! original, as the Eifel detection of RFC 3522): then the window and ssthresh return.

use crate::tcp::timestamps;
use crate::time::Instant;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Undo {
    /// Stream offset of snd_una when the reduction began (`undo_marker`); `None`: nothing
    /// to undo.
    marker: Option<u64>,
    /// Retransmissions not D-SACKed (`undo_retrans`); `None` is Linux's -1: none sent yet.
    retrans: Option<u32>,
    prior_cwnd: u32,
    /// `prior_ssthresh`; 0: the window is not restored (an ECN-Echo proved congestion).
    prior_ssthresh: u32,
    /// The timestamp clock at the first retransmission since the connection was last clean
    /// (`retrans_stamp`).
    retrans_stamp: Option<u32>,
}

impl Undo {
    /// A reduction begins at stream offset `una` (`tcp_init_undo`), `retrans_in_flight`
    /// segments already resent; the window before it and the ssthresh to restore
    /// (`tcp_current_ssthresh`, 0 for none).
    pub fn start(
        &mut self,
        una: u64,
        retrans_in_flight: u32,
        prior_cwnd: u32,
        prior_ssthresh: u32,
    ) {
        self.marker = Some(una);
        self.retrans = (retrans_in_flight > 0).then_some(retrans_in_flight);
        self.prior_cwnd = prior_cwnd;
        self.prior_ssthresh = prior_ssthresh;
    }

    /// An ECN-Echo: congestion is proven, the window stays reduced (`prior_ssthresh = 0`).
    pub fn forbid_restore(&mut self) {
        self.prior_ssthresh = 0;
    }

    /// A reduction for ECN begins (`tcp_enter_cwr`): nothing of it is to be undone.
    pub fn cancel(&mut self) {
        self.marker = None;
        self.prior_ssthresh = 0;
    }

    /// `segments` went out again at `now` (`__tcp_retransmit_skb`).
    pub fn on_retransmit(&mut self, now: Instant, segments: u32) {
        self.retrans_stamp.get_or_insert(timestamps::clock(now));
        self.retrans = Some(self.retrans.unwrap_or(0) + segments);
    }

    /// No retransmission is outstanding any more (`tcp_any_retrans_done` false): the next
    /// one starts a new stamp.
    pub fn clear_retrans_stamp(&mut self) {
        self.retrans_stamp = None;
    }

    /// A D-SACK reported `segments` duplicates ending at stream offset `end`: those above the
    /// marker were retransmissions that were not needed.
    pub fn on_dsack(&mut self, end: u64, segments: u32) {
        if self.marker.is_some_and(|marker| end > marker) {
            if let Some(retrans) = self.retrans.as_mut().filter(|r| **r > 0) {
                *retrans = retrans.saturating_sub(segments);
            }
        }
    }

    /// The ACK echoes a timestamp from before the first retransmission
    /// (`tcp_packet_delayed`).
    pub fn packet_delayed(&self, echo_reply: Option<u32>) -> bool {
        match (self.retrans_stamp, echo_reply) {
            (Some(stamp), Some(echo)) => echo != 0 && timestamps::older(echo, stamp),
            _ => false,
        }
    }

    /// Every retransmission came back D-SACKed (`tcp_try_undo_dsack`'s test).
    pub fn all_dsacked(&self) -> bool {
        self.marker.is_some() && self.retrans == Some(0)
    }

    /// `tcp_may_undo`: a reduction to undo, and proof it was spurious.
    pub fn may_undo(&self, echo_reply: Option<u32>) -> bool {
        self.marker.is_some() && (self.retrans == Some(0) || self.packet_delayed(echo_reply))
    }

    pub fn pending(&self) -> bool {
        self.marker.is_some()
    }

    /// Undoes (`tcp_undo_cwnd_reduction`): the window to restore (the controller's
    /// `undo_cwnd` takes it) and the ssthresh, or `None` when ECN forbade restoring; the
    /// marker is cleared either way.
    pub fn take(&mut self) -> Option<(u32, u32)> {
        self.marker = None;
        (self.prior_ssthresh != 0).then_some((self.prior_cwnd, self.prior_ssthresh))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    #[test]
    fn a_recovery_whose_retransmissions_all_come_back_d_sacked_is_undone() {
        let mut undo = Undo::default();
        undo.start(10_000, 0, 40_000, 30_000);
        assert!(!undo.may_undo(None), "nothing retransmitted yet: -1, not 0");
        undo.on_retransmit(ms(100), 1);
        undo.on_retransmit(ms(101), 1);
        undo.on_dsack(11_000, 1);
        assert!(!undo.may_undo(None));
        // A D-SACK below the marker is for an older episode.
        undo.on_dsack(9_000, 1);
        assert!(!undo.may_undo(None));
        undo.on_dsack(12_000, 1);
        assert!(undo.all_dsacked() && undo.may_undo(None));
        assert_eq!(undo.take(), Some((40_000, 30_000)));
        assert!(!undo.pending());
    }

    #[test]
    fn an_echo_older_than_the_first_retransmission_proves_the_original_arrived() {
        let mut undo = Undo::default();
        undo.start(0, 0, 40_000, 30_000);
        undo.on_retransmit(ms(1_000), 1);
        undo.on_retransmit(ms(1_500), 1);
        // The stamp is the first retransmission's, 1000 on the millisecond clock.
        assert!(undo.may_undo(Some(timestamps::clock(ms(999)))));
        assert!(!undo.may_undo(Some(timestamps::clock(ms(1_000)))));
        assert!(!undo.may_undo(None), "without timestamps only D-SACKs tell");
        undo.forbid_restore();
        assert_eq!(undo.take(), None, "ECN proved congestion");
    }
}
