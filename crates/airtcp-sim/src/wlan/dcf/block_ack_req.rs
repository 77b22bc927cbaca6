//! BlockAckReq frames in the central DCF (IEEE 802.11-2020 §10.25.6.3: an originator that
//! gives up MPDUs it sent, at their retry limit or their lifetime, sends a BlockAckReq so
//! that the recipient's window moves past them; §9.3.1.7: the compressed BlockAckReq, 24
//! bytes with its FCS; the recipient answers with a BlockAck, §10.25.6.5).
//!
//! - **When**: an EDCAF that gives up a numbered MPDU owes its recipient a BlockAckReq (one a
//!   recipient, however many MPDUs). It goes at the EDCAF's next channel access, ahead of its
//!   data (ns-3 sends it first too; Linux's ath9k queues it after the frames its hardware
//!   queue already holds), at the link's basic rate, its starting sequence number the oldest
//!   MPDU the EDCAF still holds for the recipient (or the next it will number).
//! - **The recipient** moves its window there when the BlockAckReq arrives, handing up the
//!   MPDUs it held behind the gap, and answers after SIFS with a compressed BlockAck. Until
//!   then the MPDUs after the gap wait in its buffer.
//! - **Failure**: a BlockAckReq that collides counts against the short retry limit and
//!   doubles CW; at the limit it is given up and the window moves anyway (the recipient's
//!   reorder timeout, which the standard leaves to the implementation, would flush it).
//!   Control frames are not lost to channel errors in this DCF's one collision domain.
//!
//! Not modelled: the BlockAckReq's own NAV protection (RTS/CTS) and BlockAckReq after a
//! missed BlockAck (this DCF has no lost BlockAcks).

use std::time::Duration;

use airtcp_proto::Instant;

use super::{Actions, AirBody, AirFrame, Bss, FailedFrame, Outcome};
use crate::wlan::block_ack::BLOCK_ACK_REQ_BYTES;

/// A BlockAckReq an EDCAF owes a recipient.
#[derive(Clone, Copy, Debug)]
pub(super) struct BlockAckReq {
    edcaf: u32,
    to: u32,
    /// Its starting sequence number, while it is on the air.
    on_air: Option<u16>,
    short_retries: u32,
}

impl Bss {
    /// `edcaf` gave up a numbered MPDU for `to`: it owes `to` a BlockAckReq (module doc).
    pub(super) fn request_block_ack_req(&mut self, edcaf: u32, to: u32) {
        let was_holding = !self.holds_nothing(edcaf);
        let ampdu = self.ampdu.as_mut().expect("an aggregating BSS");
        if ampdu
            .block_ack_reqs
            .iter()
            .any(|r| r.edcaf == edcaf && r.to == to)
        {
            return;
        }
        ampdu.block_ack_reqs.push(BlockAckReq {
            edcaf,
            to,
            on_air: None,
            short_retries: 0,
        });
        if !was_holding {
            // nothing else to send: the BlockAckReq keeps the EDCAF contending
            self.holding += 1;
        }
    }

    /// Whether `edcaf` owes a BlockAckReq (it goes at its next access).
    pub(super) fn owes_block_ack_req(&self, edcaf: u32) -> bool {
        self.ampdu
            .as_ref()
            .is_some_and(|ampdu| ampdu.block_ack_reqs.iter().any(|r| r.edcaf == edcaf))
    }

    fn block_ack_req_of(&mut self, edcaf: u32) -> Option<&mut BlockAckReq> {
        let ampdu = self.ampdu.as_mut()?;
        ampdu.block_ack_reqs.iter_mut().find(|r| r.edcaf == edcaf)
    }

    /// The airtimes of `edcaf`'s BlockAckReq to `to` and of the BlockAck answering it.
    fn block_ack_req_airtimes(&self, edcaf: u32, to: u32) -> (u64, u64) {
        let mac = self.edcafs[edcaf as usize].mac;
        let phy = super::link_phy(&self.phy, &self.link_phys, mac, to);
        let ampdu = self.ampdu.as_ref().expect("an aggregating BSS");
        (
            phy.airtime_ns(BLOCK_ACK_REQ_BYTES, phy.basic_rate_bps),
            phy.airtime_ns(ampdu.block_ack_bytes(), phy.basic_rate_bps),
        )
    }

    /// Puts `edcaf`'s BlockAckReq on the air at `now`; its recipient and starting sequence
    /// number, and the airtimes of it and of the BlockAck answering it.
    fn start_block_ack_req(&mut self, edcaf: u32) -> (u32, u16, (u64, u64)) {
        let request = *self.block_ack_req_of(edcaf).expect("a BlockAckReq owed");
        let start = self.window_start(edcaf, request.to);
        self.block_ack_req_of(edcaf).expect("owed").on_air = Some(start);
        (
            request.to,
            start,
            self.block_ack_req_airtimes(edcaf, request.to),
        )
    }

    /// `edcaf`, alone on the medium, sends its BlockAckReq: the busy period (the BlockAck
    /// after SIFS), the others' IFS and the outcome.
    pub(super) fn send_block_ack_req(
        &mut self,
        now: Instant,
        edcaf: u32,
        actions: &mut Actions,
    ) -> (u64, u64, Outcome) {
        let (to, start, (airtime, response)) = self.start_block_ack_req(edcaf);
        if self.capture {
            self.capture_block_ack_req(actions, now, edcaf, (to, start), false);
        }
        let mac = self.edcafs[edcaf as usize].mac;
        let phy = super::link_phy(&self.phy, &self.link_phys, mac, to);
        let (delta, sifs) = (phy.propagation_ns, phy.sifs_ns);
        let busy = airtime + delta + sifs + response + delta;
        (busy, phy.difs_ns(), Outcome::BlockAckReq { edcaf })
    }

    /// `edcaf`'s BlockAckReq goes out with others' frames (a collision): its airtime and
    /// rate.
    pub(super) fn unanswered_block_ack_req(
        &mut self,
        now: Instant,
        edcaf: u32,
        actions: &mut Actions,
    ) -> (u64, u64) {
        let (to, start, (airtime, _)) = self.start_block_ack_req(edcaf);
        if self.capture {
            self.capture_block_ack_req(actions, now, edcaf, (to, start), true);
        }
        let mac = self.edcafs[edcaf as usize].mac;
        let phy = super::link_phy(&self.phy, &self.link_phys, mac, to);
        (airtime, phy.basic_rate_bps)
    }

    /// Whether `edcaf`'s transmission that just ended was its BlockAckReq.
    pub(super) fn sent_block_ack_req(&self, edcaf: u32) -> bool {
        self.ampdu.as_ref().is_some_and(|ampdu| {
            ampdu
                .block_ack_reqs
                .iter()
                .any(|r| r.edcaf == edcaf && r.on_air.is_some())
        })
    }

    /// `edcaf`'s BlockAckReq got its BlockAck: the recipient's window moves (module doc).
    pub(super) fn settle_block_ack_req(&mut self, now: Instant, edcaf: u32, actions: &mut Actions) {
        self.counters.block_ack_reqs += 1;
        self.complete_block_ack_req(now, edcaf, actions);
        let station = &mut self.edcafs[edcaf as usize];
        station.cw = station.cw_min;
    }

    /// `edcaf`'s BlockAckReq got no BlockAck: a retry, or at the short retry limit given up
    /// (the window moves anyway).
    pub(super) fn settle_unanswered_block_ack_req(
        &mut self,
        now: Instant,
        failed: FailedFrame,
        actions: &mut Actions,
    ) {
        self.counters.failed_attempts += 1;
        let given_up = self.count_block_ack_req_failure(now, failed.edcaf, actions);
        self.edcafs[failed.edcaf as usize].after_failure(given_up);
    }

    /// A failed attempt of `edcaf`'s BlockAckReq (unanswered, or lost in an internal
    /// collision, `edca`) against the short retry limit; whether it reached it, and was given
    /// up.
    pub(super) fn count_block_ack_req_failure(
        &mut self,
        now: Instant,
        edcaf: u32,
        actions: &mut Actions,
    ) -> bool {
        let limit = self.params.short_retry_limit;
        let request = self.block_ack_req_of(edcaf).expect("owed");
        request.on_air = None;
        request.short_retries += 1;
        if request.short_retries < limit {
            return false;
        }
        self.counters.block_ack_reqs_given_up += 1;
        self.complete_block_ack_req(now, edcaf, actions);
        true
    }

    /// The recipient of `edcaf`'s BlockAckReq moves its window to the starting sequence
    /// number it carried; the request is done.
    fn complete_block_ack_req(&mut self, now: Instant, edcaf: u32, actions: &mut Actions) {
        let ampdu = self.ampdu.as_mut().expect("an aggregating BSS");
        let position = ampdu
            .block_ack_reqs
            .iter()
            .position(|r| r.edcaf == edcaf)
            .expect("owed");
        let request = ampdu.block_ack_reqs.remove(position);
        let to = request.to;
        let start = request
            .on_air
            .unwrap_or_else(|| self.window_start(edcaf, to));
        self.move_recipient_window(now, edcaf, (to, start), actions);
        if self.holds_nothing(edcaf) {
            self.holding -= 1;
        }
    }

    /// What a capture shows of `edcaf`'s BlockAckReq to `to` starting at `start`, begun at
    /// `at`: the BlockAckReq, bad if it `collided`, else the BlockAck after SIFS.
    #[cold]
    fn capture_block_ack_req(
        &mut self,
        actions: &mut Actions,
        at: Instant,
        edcaf: u32,
        (to, start): (u32, u16),
        collided: bool,
    ) {
        let (airtime, response) = self.block_ack_req_airtimes(edcaf, to);
        let mac = self.edcafs[edcaf as usize].mac;
        let phy = super::link_phy(&self.phy, &self.link_phys, mac, to);
        let (delta, sifs) = (phy.propagation_ns, phy.sifs_ns);
        let ampdu = self.ampdu.as_ref().expect("an aggregating BSS");
        let bitmap_bytes = (ampdu.block_ack_bytes() - 24) as u8;
        actions.air.push(AirFrame {
            at,
            airtime_ns: airtime,
            rate_bps: phy.basic_rate_bps,
            nav_ns: sifs + response + delta,
            bad_fcs: collided,
            receiver: self.node(to),
            body: AirBody::BlockAckReq {
                transmitter: self.node(mac),
                start_sequence: start,
            },
            signal_dbm: None,
        });
        if collided {
            return;
        }
        // the recipient's scoreboard from the new window start: what its buffer holds
        let bitmap = (ampdu.buffers.get(&(edcaf, to))).map_or([0; 32], |buffer| {
            buffer.scoreboard(start, usize::from(bitmap_bytes) * 8)
        });
        actions.air.push(AirFrame {
            at: at + Duration::from_nanos(airtime + delta + sifs),
            airtime_ns: response,
            rate_bps: phy.basic_rate_bps,
            nav_ns: 0,
            bad_fcs: false,
            receiver: self.node(mac),
            body: AirBody::BlockAck {
                transmitter: self.node(to),
                start_sequence: start,
                bitmap,
                bitmap_bytes,
            },
            signal_dbm: None,
        });
    }
}
