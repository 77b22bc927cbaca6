//! BlockAckReq frames on a channel with geometry (IEEE 802.11-2020 §10.25.6.3: an originator
//! that gives up MPDUs it sent sends a BlockAckReq so that the recipient's window moves past
//! them; §9.3.1.7: the compressed BlockAckReq, 24 bytes with its FCS; §10.25.6.5: the
//! recipient answers with a BlockAck), the central DCF's rules (`wlan::dcf::block_ack_req`)
//! with what only a channel with geometry has: the BlockAckReq and its BlockAck meet their
//! SINR and can be lost.
//!
//! - **When**: an interface that gives up a numbered MPDU (its retry limit, or an internal
//!   collision at the limit) owes its recipient a BlockAckReq (one a recipient, however many
//!   MPDUs). The interface contends for it even with nothing else queued, and it goes at the
//!   next access, ahead of data (as ns-3 sends it), at the control rate of its link (the
//!   highest basic rate not above the link's data rate, as the central DCF and ns-3 choose
//!   it), its starting sequence number the oldest MPDU the
//!   interface still holds for the recipient (or the next it will number), its Duration
//!   covering SIFS and the BlockAck.
//! - **The recipient** that decodes it moves its window there, handing up the MPDUs it held
//!   behind the gap (also before anything of the agreement has arrived), and answers SIFS
//!   later with a compressed BlockAck, whose bitmap is what it holds from the new start.
//! - **The originator**: the BlockAck ends the request (CW back to CWmin). Without it by the
//!   timeout the request counts a failure against the short retry limit and CW doubles; at
//!   the limit it is given up and the window moves anyway, standing in for the recipient's
//!   reorder timeout (Linux's `HT_RX_REORDER_BUF_TIMEOUT`, 100 ms), which the standard leaves
//!   to the implementation. An internal collision lost with a request owed counts against
//!   the request, as on the central DCF.
//!
//! Chosen differently from ns-3 (whose `BlockAckManager` sends a BlockAckReq after a missed
//! BlockAck, `UseExplicitBarAfterMissedBlockAck`, on by default): without its BlockAck an
//! A-MPDU's MPDUs all count a failure and go again, as Linux's ath9k does
//! (`ath_tx_complete_aggr` fails every subframe of an aggregate without a BlockAck). Also
//! unlike ns-3: a BlockAckReq has a retry limit (the short one; ns-3 retries it without
//! one), an internal collision lost with one owed counts against it (ns-3 charges the data
//! MPDU), and one ends an access even with a TXOP limit left. Not modelled: RTS/CTS ahead
//! of a BlockAckReq.

use super::*;
use crate::wlan::block_ack::{self, BLOCK_ACK_REQ_BYTES};

/// A BlockAckReq an interface owes a recipient MAC, and its failed attempts.
#[derive(Clone, Copy, Debug)]
pub(super) struct BlockAckReq {
    interface: u32,
    to: u32,
    short_retries: u32,
}

impl SharedChannel {
    /// Interface `i` gave up a numbered MPDU for MAC `to`: it owes `to` a BlockAckReq.
    pub(super) fn owe_block_ack_req(&mut self, i: u32, to: u32) {
        let requests = &mut self.block_acks.requests;
        if !requests.iter().any(|r| (r.interface, r.to) == (i, to)) {
            requests.push(BlockAckReq {
                interface: i,
                to,
                short_retries: 0,
            });
        }
    }

    /// Whether interface `i` owes a BlockAckReq (it goes at its next access).
    #[inline]
    pub(super) fn owes_block_ack_req(&self, i: u32) -> bool {
        let requests = &self.block_acks.requests;
        !requests.is_empty() && requests.iter().any(|r| r.interface == i)
    }

    /// The first BlockAckReq interface `i` owes.
    fn request_of(&mut self, i: u32) -> &mut BlockAckReq {
        let requests = &mut self.block_acks.requests;
        let found = requests.iter_mut().find(|r| r.interface == i);
        found.expect("a BlockAckReq owed")
    }

    /// Radio `r`'s access serves interface `i`'s BlockAckReq: it goes on the air.
    pub(super) fn send_block_ack_req(
        &mut self,
        r: u32,
        i: u32,
        now: Instant,
        out: &mut RadioActions,
    ) {
        let request = *self.request_of(i);
        let to = request.to;
        let start = self.window_start(i, to);
        let retry = request.short_retries > 0;
        let interface = &self.interfaces[i as usize];
        let (w, tid) = (interface.wlan, interface.edcaf);
        let part = &mut self.wlans[w as usize];
        part.counters.attempts += 1;
        let phy = &part.phy;
        let to_radio = self.interfaces[(part.first_interface + to) as usize].radio;
        // the link's station: the recipient, or the sender if the AP receives
        let station = if interface.mac == 0 {
            to
        } else {
            interface.mac
        };
        let rate_bps = phy.control_rate_bps(part.mac_rates[station as usize]);
        let control = phy.control_rate_bps(rate_bps);
        let block_ack_ns = phy.airtime_ns(aggregation::response_bytes(part, 2), control);
        self.radios[r as usize].exchange = Some(Exchange {
            interface: i,
            queue: ApQueue::Data as usize,
            msdus: 0,
            to: to_radio,
            rate_bps,
            rate_index: None,
            mpdus: 0,
            rts: false,
            long: false,
            txop: None,
            continues_txop: false,
            cts_received: false,
            collided: false,
            block_ack_req: Some((to, start)),
        });
        let header = DataHeader {
            sequence: start,
            retry,
            mpdus: 0,
            tid,
        };
        let duration = phy.sifs_ns + block_ack_ns;
        let frame = (BLOCK_ACK_REQ_BYTES, rate_bps);
        self.transmit(
            r,
            Kind::BlockAckReq,
            to_radio,
            w,
            frame,
            duration,
            Some(header),
            now,
            out,
        );
    }

    /// Radio `q` decoded BlockAckReq `t` addressed to it at `at`: its window for the sender's
    /// interface moves to the starting sequence number; the BlockAck it owes.
    pub(super) fn take_block_ack_req(&mut self, q: u32, t: &Transmission, at: Instant) -> Owed {
        let exchange = self.radios[t.sender as usize]
            .exchange
            .expect("a BlockAckReq's sender has its exchange under way");
        let (to, start) = exchange.block_ack_req.expect("a BlockAckReq exchange");
        self.move_recipient_window(exchange.interface, to, start, at);
        if self.capture {
            self.note_block_ack_req_bitmap(q, exchange.interface, (to, start));
        }
        let part = &self.wlans[t.wlan as usize];
        Owed {
            kind: Kind::BlockAck,
            to: t.sender,
            wlan: t.wlan,
            rate_bps: part.phy.control_rate_bps(t.rate_bps),
            duration_ns: 0,
        }
    }

    /// Radio `r`'s BlockAckReq for interface `i` ended, `answered` by its BlockAck or not at
    /// `at`, or it lost an internal collision (not `sent`): the request done, or a failure
    /// counted (given up at the limit); the EDCAF's CW.
    pub(super) fn settle_block_ack_req(
        &mut self,
        r: u32,
        i: u32,
        (sent, answered): (bool, bool),
        at: Instant,
    ) {
        let interface = &self.interfaces[i as usize];
        let (w, k) = (interface.wlan as usize, usize::from(interface.edcaf));
        let limit = self.wlans[w].params.short_retry_limit;
        let request = self.request_of(i);
        let given_up = if answered {
            false
        } else {
            request.short_retries += 1;
            request.short_retries >= limit
        };
        let counters = &mut self.wlans[w].counters;
        if answered {
            counters.block_ack_reqs += 1;
            counters.successes += 1;
        } else if sent {
            counters.failed_attempts += 1;
        }
        if answered || given_up {
            let requests = &mut self.block_acks.requests;
            let position = requests.iter().position(|r| r.interface == i);
            let request = requests.remove(position.expect("owed"));
            if given_up {
                counters.block_ack_reqs_given_up += 1;
                // the recipient's reorder timeout would release what it holds
                let start = self.window_start(i, request.to);
                self.move_recipient_window(i, request.to, start, at);
            }
        }
        let edcaf = &mut self.radios[r as usize].access.edcafs[k];
        (edcaf.short_retries, edcaf.long_retries) = (0, 0);
        if answered {
            edcaf.cw = edcaf.cw_min;
            edcaf.station_retries = 0; // ns-3's ResetCw
        } else if self.dcf_ns3 {
            exchange::ns3_failed_cw(edcaf, limit);
        } else {
            edcaf.after_failure(given_up);
        }
        self.refill(i, at); // the transmission completed (`queueing`)
    }

    /// Where the recipient `to` of interface `i`'s MPDUs is told to move its window: the
    /// oldest MPDU `i` still holds for it, or the next it will number.
    fn window_start(&self, i: u32, to: u32) -> u16 {
        let frames = &self.interfaces[i as usize].queues[ApQueue::Data as usize];
        let next = self.block_acks.next_sequence.get(&(i, to));
        block_ack::window_start(frames, to, next.copied().unwrap_or(0))
    }

    /// The recipient `to` of interface `i`'s MPDUs moves its window to `start`, handing up
    /// what it held before it; a recipient that has received nothing yet gets its buffer
    /// here, so that its window starts past what was given up.
    fn move_recipient_window(&mut self, i: u32, to: u32, start: u16, at: Instant) {
        let part = &self.wlans[self.interfaces[i as usize].wlan as usize];
        let window = part.block_ack_window();
        self.block_acks
            .move_window((i, to), window, start, (at, part.bss));
    }

    /// While capturing: the bitmap of the BlockAck radio `q` owes for the BlockAckReq of
    /// interface `i` starting at `start`: what its buffer holds from there.
    #[cold]
    fn note_block_ack_req_bitmap(&mut self, q: u32, i: u32, (to, start): (u32, u16)) {
        let part = &self.wlans[self.interfaces[i as usize].wlan as usize];
        let bits = usize::from(part.block_ack_window());
        let bitmap = (self.block_acks.buffers.get(&(i, to)))
            .map_or([0; 32], |buffer| buffer.scoreboard(start, bits));
        self.block_acks.bitmaps.insert(q, (start, bitmap));
    }
}
