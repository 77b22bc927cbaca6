//! The TCP header as protocol code sees it (RFC 9293 section 3.1), with the options this
//! stack negotiates: MSS, window scale and timestamps (RFC 7323 sections 2 and 3), SACK
//! (RFC 2018); the ECN flags (RFC 3168 section 6.1), which middleboxes must keep; and the
//! record an ACK compactor leaves in the ACK it keeps (RFC 3449 section 5.2.2), in an
//! experimental option (RFC 6994).
//!
//! Options are laid out as Linux lays them out (SACK-permitted and timestamps together,
//! NOP-padded otherwise), and `header_len` is what `emit` writes. Of a SACK option's blocks
//! the first three are kept: what fits beside timestamps, and what Linux sends with them.

use core::num::NonZeroU8;

use crate::seq::SeqNumber;

/// TCP control flags this stack uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags {
    pub syn: bool,
    pub ack: bool,
    pub fin: bool,
    pub rst: bool,
    pub psh: bool,
    /// ECN-Echo: the receiver saw a congestion mark (RFC 3168).
    pub ece: bool,
    /// Congestion Window Reduced: the sender answered an ECN-Echo (RFC 3168).
    pub cwr: bool,
}

/// What an ACK compactor (RFC 3449 section 5.2.2) records in the ACK it keeps: how many ACKs
/// it stands for, itself included, so that the expander on the far side of the slow link
/// can recreate them. One byte, so that a segment's representation does not grow (the
/// simulator's events are 64 bytes); 255 at most, the compactor saturates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compaction {
    pub acks: NonZeroU8,
}

impl Compaction {
    /// RFC 6994: experimental option kind 254 with a 16-bit experiment identifier. airtcp's
    /// identifier is not registered with IANA; receivers ignore options they do not know.
    pub const KIND: u8 = 254;
    pub const EXPERIMENT_ID: u16 = 0xA1AC;
    /// Kind, length, experiment identifier, ACK count.
    pub const LEN: u8 = 5;

    /// A record of `acks` ACKs (saturating at 255), none for fewer than two.
    pub fn of(acks: u32) -> Option<Self> {
        let acks = u8::try_from(acks).unwrap_or(u8::MAX);
        NonZeroU8::new(acks)
            .filter(|n| n.get() > 1)
            .map(|acks| Compaction { acks })
    }

    /// The option's bytes, padded with NOPs to a 32-bit boundary.
    pub fn to_option_bytes(self) -> [u8; 8] {
        let mut bytes = [1u8; 8];
        bytes[3] = Self::KIND;
        bytes[4] = Self::LEN;
        bytes[5..7].copy_from_slice(&Self::EXPERIMENT_ID.to_be_bytes());
        bytes[7] = self.acks.get();
        bytes
    }

    /// Reads the record from an experimental option's data (after kind and length); `None`
    /// for another experiment's option, a length that is not ours, or a count of zero.
    pub fn from_option_data(data: &[u8]) -> Option<Self> {
        let [high, low, acks]: [u8; 3] = data.try_into().ok()?;
        if u16::from_be_bytes([high, low]) != Self::EXPERIMENT_ID {
            return None;
        }
        Some(Compaction {
            acks: NonZeroU8::new(acks)?,
        })
    }
}

/// SACK blocks (RFC 2018 section 3): left edge and right edge (one past the last byte) of
/// each block of data received out of order, the most recent first; at most four, what fits
/// in the option space without timestamps (three beside them: `TcpRepr::sack_on_wire`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(SeqNumber, SeqNumber); SackBlocks::MAX],
    len: u8,
}

impl SackBlocks {
    pub const MAX: usize = 4;

    /// The first [`SackBlocks::MAX`] of `blocks`.
    pub fn new(blocks: impl IntoIterator<Item = (SeqNumber, SeqNumber)>) -> Self {
        let mut out = SackBlocks::default();
        for block in blocks.into_iter().take(Self::MAX) {
            out.blocks[usize::from(out.len)] = block;
            out.len += 1;
        }
        out
    }

    pub fn as_slice(&self) -> &[(SeqNumber, SeqNumber)] {
        &self.blocks[..usize::from(self.len)]
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The timestamps option (RFC 7323 section 3): the sender's clock and the echo of the
/// peer's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timestamps {
    pub value: u32,
    pub echo_reply: u32,
}

/// A TCP segment without its payload bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: SeqNumber,
    pub ack: SeqNumber,
    pub flags: TcpFlags,
    /// The raw 16-bit window field; scaling is the connection's business.
    pub window: u16,
    pub mss: Option<u16>,
    pub window_scale: Option<u8>,
    /// SACK-permitted (RFC 2018 section 2), on a SYN.
    pub sack_permitted: bool,
    pub sack: SackBlocks,
    pub timestamps: Option<Timestamps>,
    /// An ACK compactor's record (RFC 3449 section 5.2.2), only between compactor and expander.
    pub compaction: Option<Compaction>,
    pub payload_len: u32,
}

impl TcpRepr {
    pub const BASE_HEADER_LEN: u32 = 20;

    /// The most option bytes a header holds (RFC 9293 section 3.1).
    pub const MAX_OPTIONS_LEN: u32 = 40;
    /// The timestamps option with its two NOPs: what every segment of a connection that
    /// uses timestamps carries, and so what its payload must leave room for (RFC 6691 §2).
    pub const TIMESTAMPS_OPTION_LEN: u32 = 12;

    /// Header length on the wire: options are padded to 32-bit words.
    pub fn header_len(&self) -> u32 {
        let others = self.options_len_without_sack();
        let sack = self.sack_on_wire().len() as u32;
        let sack_len = if sack == 0 { 0 } else { 4 + 8 * sack };
        Self::BASE_HEADER_LEN + others + sack_len
    }

    /// The SACK blocks the header has room for beside the other options (NOP, NOP, kind,
    /// length, then 8 bytes a block), the first ones first.
    pub fn sack_on_wire(&self) -> &[(SeqNumber, SeqNumber)] {
        let room = Self::MAX_OPTIONS_LEN.saturating_sub(self.options_len_without_sack() + 4) / 8;
        let blocks = self.sack.as_slice();
        &blocks[..blocks.len().min(room as usize)]
    }

    fn options_len_without_sack(&self) -> u32 {
        let mut options = 0;
        if self.mss.is_some() {
            options += 4;
        }
        if self.window_scale.is_some() {
            options += 4; // kind, length, shift, and one NOP to align
        }
        // SACK-permitted and timestamps share one 12-byte run; alone, each is NOP-padded.
        options += match (self.sack_permitted, self.timestamps.is_some()) {
            (true, true) | (false, true) => 12,
            (true, false) => 4,
            (false, false) => 0,
        };
        if self.compaction.is_some() {
            options += 8;
        }
        options
    }

    /// Sequence space the segment occupies: payload plus one each for SYN and FIN.
    pub fn seq_len(&self) -> u32 {
        self.payload_len + u32::from(self.flags.syn) + u32::from(self.flags.fin)
    }

    /// A pure ACK: the ACK flag, no payload, no SYN/FIN/RST. This is what the AP agents of
    /// paper 000 single out; it is read from the header, never from simulator metadata.
    pub fn is_pure_ack(&self) -> bool {
        self.flags.ack
            && self.payload_len == 0
            && !self.flags.syn
            && !self.flags.fin
            && !self.flags.rst
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(flags: TcpFlags, payload_len: u32) -> TcpRepr {
        TcpRepr {
            src_port: 1,
            dst_port: 2,
            seq: SeqNumber(0),
            ack: SeqNumber(0),
            flags,
            window: 0,
            mss: None,
            window_scale: None,
            sack_permitted: false,
            sack: Default::default(),
            timestamps: None,
            compaction: None,
            payload_len,
        }
    }

    #[test]
    fn pure_ack_classifier_tells_ack_from_data_syn_and_fin() {
        let ack = TcpFlags {
            ack: true,
            ..Default::default()
        };
        assert!(segment(ack, 0).is_pure_ack());
        assert!(!segment(ack, 1).is_pure_ack(), "data is not a pure ACK");
        assert!(
            !segment(TcpFlags { syn: true, ..ack }, 0).is_pure_ack(),
            "SYN-ACK"
        );
        assert!(
            !segment(TcpFlags { fin: true, ..ack }, 0).is_pure_ack(),
            "FIN-ACK"
        );
        assert!(
            !segment(TcpFlags { rst: true, ..ack }, 0).is_pure_ack(),
            "RST-ACK"
        );
        assert!(
            !segment(TcpFlags::default(), 0).is_pure_ack(),
            "no ACK flag"
        );
    }

    #[test]
    fn syn_and_fin_take_one_sequence_number_each() {
        let syn = TcpFlags {
            syn: true,
            ..Default::default()
        };
        let fin = TcpFlags {
            fin: true,
            ack: true,
            ..Default::default()
        };
        assert_eq!(segment(syn, 0).seq_len(), 1);
        assert_eq!(segment(fin, 100).seq_len(), 101);
    }
}

#[cfg(test)]
mod compaction_tests {
    use super::*;

    #[test]
    fn the_compaction_record_round_trips_and_ignores_other_experiments() {
        let record = Compaction::of(7).unwrap();
        let bytes = record.to_option_bytes();
        assert_eq!(&bytes[..5], &[1, 1, 1, 254, 5]);
        assert_eq!(Compaction::from_option_data(&bytes[5..]), Some(record));
        let mut other = bytes;
        other[5] = 0x00;
        assert_eq!(Compaction::from_option_data(&other[5..]), None);
        assert_eq!(Compaction::from_option_data(&bytes[5..7]), None);
        assert_eq!(Compaction::of(1), None);
        assert_eq!(Compaction::of(1000).unwrap().acks.get(), 255);
    }
}
