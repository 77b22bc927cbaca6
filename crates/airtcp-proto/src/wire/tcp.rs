//! The TCP header as protocol code sees it (RFC 9293 section 3.1), with the two options this
//! stack negotiates: MSS and window scale (RFC 7323 section 2).

use crate::seq::SeqNumber;

/// TCP control flags this stack uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags {
    pub syn: bool,
    pub ack: bool,
    pub fin: bool,
    pub rst: bool,
    pub psh: bool,
}

/// A TCP segment without its payload bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    pub payload_len: u32,
}

impl TcpRepr {
    pub const BASE_HEADER_LEN: u32 = 20;

    /// Header length on the wire: options are padded to 32-bit words.
    pub fn header_len(&self) -> u32 {
        let mut options = 0;
        if self.mss.is_some() {
            options += 4;
        }
        if self.window_scale.is_some() {
            options += 4; // kind, length, shift, and one NOP to align
        }
        Self::BASE_HEADER_LEN + options
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
