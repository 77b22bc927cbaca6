//! The MAC's unit of queueing: an MSDU as the DCF's queues hold it (IEEE 802.11-2020
//! §10.3), with what the MAC tracks of it: its receiver, sequence number, when it was
//! queued and first attempted (the MSDU lifetime, dot11MaxTransmitMSDULifetime, runs from
//! the first attempt), and its Block Ack state in a BSS that aggregates (`ampdu`).

use airtcp_proto::Instant;

use super::MpduState;
use crate::packet::Packet;

/// LLC/SNAP header carried in every MSDU before the IP packet.
pub const LLC_SNAP_BYTES: u32 = 8;

/// A queued MSDU, the index of the MAC it is addressed to, when it entered the queue (for
/// the queue's sojourn limit) and when its first transmission attempt began (for the MSDU
/// lifetime); its sequence number and whether it has been on the air (its next transmission
/// is then a retry), for captures.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub packet: Packet,
    pub to: u32,
    pub queued_at: Instant,
    /// `Instant::MAX` until the first attempt: queues move frames by value on the fast
    /// path, and an `Option` would make each 8 bytes larger (`attempted_at`).
    first_attempt: Instant,
    pub sequence: u16,
    pub transmitted: bool,
    /// In a BSS that aggregates: the MPDU's Block Ack state (`ampdu`).
    pub(crate) mpdu: MpduState,
}

// The fast path moves frames through the MAC queues by value: the Block Ack state must fit
// in what was padding before aggregation came (136 bytes).
const _: () = assert!(std::mem::size_of::<Frame>() <= 136);

impl Frame {
    /// A frame that has not been on the air.
    pub fn new(packet: Packet, to: u32, queued_at: Instant, sequence: u16) -> Frame {
        Frame {
            packet,
            to,
            queued_at,
            first_attempt: Instant::MAX,
            sequence,
            transmitted: false,
            mpdu: MpduState::default(),
        }
    }

    pub fn msdu_bytes(&self) -> u32 {
        LLC_SNAP_BYTES + self.packet.len()
    }

    /// When its first transmission attempt began, if one did.
    pub fn attempted_at(&self) -> Option<Instant> {
        (self.first_attempt != Instant::MAX).then_some(self.first_attempt)
    }

    /// An attempt began at `at`: the first one starts the MSDU lifetime (and ends the
    /// frame's sojourn in its queues: true then).
    pub fn note_attempt(&mut self, at: Instant) -> bool {
        let first = self.first_attempt == Instant::MAX;
        if first {
            self.first_attempt = at;
        }
        first
    }
}
