//! IEEE 802.11 MAC frames as a monitor captures them (IEEE 802.11-2020 §9.2, §9.3): the MAC
//! headers of data, QoS data carrying an A-MSDU, RTS, CTS and ACK frames; the A-MSDU subframe
//! header (§9.3.2.2.2); the LLC/SNAP header that carries an IPv4 packet in an MSDU (IEEE
//! 802.2 with the RFC 1042 SNAP encapsulation). Multi-byte MAC header fields are
//! little-endian; the subframe length is big-endian (it follows the Ethernet layout). The FCS
//! is the CRC-32 of Ethernet (§9.2.4.8), appended little-endian.

/// A 48-bit MAC address.
pub type MacAddress = [u8; 6];

/// LLC/SNAP header of an IPv4 MSDU: DSAP/SSAP 0xAA, UI, OUI 0, EtherType 0x0800.
pub const LLC_SNAP_IPV4: [u8; 8] = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00];

/// A-MSDU subframe header: destination, source, and the length of the MSDU that follows.
pub const AMSDU_SUBFRAME_HEADER_LEN: usize = 14;

// Frame Control, first octet: protocol version 0, type (bits 2-3), subtype (bits 4-7).
const DATA: u8 = 0x08;
const QOS_DATA: u8 = 0x88;
const RTS: u8 = 0xb4;
const CTS: u8 = 0xc4;
const ACK: u8 = 0xd4;
const BLOCK_ACK_REQ: u8 = 0x84;
const BLOCK_ACK: u8 = 0x94;
/// BA Control (and BAR Control): the compressed bitmap variant (TID 0, immediate).
const BA_COMPRESSED: u16 = 0x0004;
// Frame Control, second octet.
const TO_DS: u8 = 0x01;
const FROM_DS: u8 = 0x02;
const RETRY: u8 = 0x08;
/// QoS Control, first octet: TID 0, normal ACK policy, A-MSDU present (bit 7).
const QOS_AMSDU_PRESENT: u8 = 0x80;

/// Which way a data frame crosses the distribution system of an infrastructure BSS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DsDirection {
    /// A station's frame to its AP (To DS).
    ToAp,
    /// The AP's frame to a station (From DS).
    FromAp,
}

/// The MAC header of one frame. `duration_us` is the Duration/ID field (the NAV it sets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameRepr {
    /// A data frame; `qos` makes it a QoS data frame (TID 0), `amsdu` one whose body is an
    /// A-MSDU. Address 1 is
    /// the receiver, 2 the transmitter, 3 the far end (source or destination) or, with an
    /// A-MSDU, the BSSID (Table 9-30).
    Data {
        direction: DsDirection,
        retry: bool,
        duration_us: u16,
        receiver: MacAddress,
        transmitter: MacAddress,
        address3: MacAddress,
        /// Sequence number, modulo 4096.
        sequence: u16,
        qos: bool,
        amsdu: bool,
    },
    Rts {
        duration_us: u16,
        receiver: MacAddress,
        transmitter: MacAddress,
    },
    Cts {
        duration_us: u16,
        receiver: MacAddress,
    },
    Ack {
        duration_us: u16,
        receiver: MacAddress,
    },
    /// A compressed BlockAckReq (TID 0, §9.3.1.7) from `transmitter`, an originator: the
    /// recipient's window is to start at `start_sequence`.
    BlockAckReq {
        duration_us: u16,
        receiver: MacAddress,
        transmitter: MacAddress,
        start_sequence: u16,
    },
    /// A compressed BlockAck (TID 0) from `transmitter`, the recipient of an A-MPDU: bit i
    /// of `bitmap` (its first `bitmap_bytes`, 8 or 32) acknowledges the MPDU with sequence
    /// number `start_sequence + i` (§9.3.1.8.2; a 32-byte bitmap, 802.11ax's, is marked by
    /// the Fragment Number subfield's bits 1-2 set to 2).
    BlockAck {
        duration_us: u16,
        receiver: MacAddress,
        transmitter: MacAddress,
        start_sequence: u16,
        bitmap: [u8; 32],
        bitmap_bytes: u8,
    },
}

impl FrameRepr {
    /// Bytes of the MAC header (without the FCS).
    pub fn header_len(&self) -> usize {
        match self {
            FrameRepr::Data {
                qos: false,
                amsdu: false,
                ..
            } => 24,
            FrameRepr::Data { .. } => 26,
            FrameRepr::Rts { .. } => 16,
            FrameRepr::Cts { .. } | FrameRepr::Ack { .. } => 10,
            FrameRepr::BlockAckReq { .. } => 20,
            FrameRepr::BlockAck { bitmap_bytes, .. } => 20 + usize::from(*bitmap_bytes),
        }
    }

    /// Appends the MAC header to `out`.
    pub fn emit(&self, out: &mut Vec<u8>) {
        match *self {
            FrameRepr::Data {
                direction,
                retry,
                duration_us,
                receiver,
                transmitter,
                address3,
                sequence,
                qos,
                amsdu,
            } => {
                let qos = qos || amsdu;
                let ds = match direction {
                    DsDirection::ToAp => TO_DS,
                    DsDirection::FromAp => FROM_DS,
                };
                let retry = if retry { RETRY } else { 0 };
                out.push(if qos { QOS_DATA } else { DATA });
                out.push(ds | retry);
                out.extend_from_slice(&duration_us.to_le_bytes());
                out.extend_from_slice(&receiver);
                out.extend_from_slice(&transmitter);
                out.extend_from_slice(&address3);
                // Sequence Control: fragment number 0 in bits 0-3.
                out.extend_from_slice(&((sequence % 4096) << 4).to_le_bytes());
                if qos {
                    let amsdu = if amsdu { QOS_AMSDU_PRESENT } else { 0 };
                    out.extend_from_slice(&[amsdu, 0]);
                }
            }
            FrameRepr::Rts {
                duration_us,
                receiver,
                transmitter,
            } => {
                out.extend_from_slice(&[RTS, 0]);
                out.extend_from_slice(&duration_us.to_le_bytes());
                out.extend_from_slice(&receiver);
                out.extend_from_slice(&transmitter);
            }
            FrameRepr::Cts {
                duration_us,
                receiver,
            } => Self::emit_control(out, CTS, duration_us, receiver),
            FrameRepr::Ack {
                duration_us,
                receiver,
            } => Self::emit_control(out, ACK, duration_us, receiver),
            FrameRepr::BlockAckReq {
                duration_us,
                receiver,
                transmitter,
                start_sequence,
            } => {
                Self::emit_control(out, BLOCK_ACK_REQ, duration_us, receiver);
                out.extend_from_slice(&transmitter);
                out.extend_from_slice(&BA_COMPRESSED.to_le_bytes());
                out.extend_from_slice(&((start_sequence % 4096) << 4).to_le_bytes());
            }
            FrameRepr::BlockAck {
                duration_us,
                receiver,
                transmitter,
                start_sequence,
                bitmap,
                bitmap_bytes,
            } => {
                Self::emit_control(out, BLOCK_ACK, duration_us, receiver);
                out.extend_from_slice(&transmitter);
                out.extend_from_slice(&BA_COMPRESSED.to_le_bytes());
                let fragment = if bitmap_bytes == 32 { 2 << 1 } else { 0 };
                let control = ((start_sequence % 4096) << 4) | fragment;
                out.extend_from_slice(&control.to_le_bytes());
                out.extend_from_slice(&bitmap[..usize::from(bitmap_bytes)]);
            }
        }
    }

    fn emit_control(out: &mut Vec<u8>, kind: u8, duration_us: u16, receiver: MacAddress) {
        out.extend_from_slice(&[kind, 0]);
        out.extend_from_slice(&duration_us.to_le_bytes());
        out.extend_from_slice(&receiver);
    }
}

/// Appends the FCS of the MAC frame in `out[frame_start..]`; `valid: false` writes its
/// complement, as a frame garbled on the air would fail the check.
pub fn emit_fcs(out: &mut Vec<u8>, frame_start: usize, valid: bool) {
    let crc = crc32fast::hash(&out[frame_start..]);
    let fcs = if valid { crc } else { !crc };
    out.extend_from_slice(&fcs.to_le_bytes());
}

/// Appends an A-MSDU subframe header for an MSDU of `msdu_len` bytes (LLC/SNAP included).
pub fn emit_amsdu_subframe_header(
    out: &mut Vec<u8>,
    destination: MacAddress,
    source: MacAddress,
    msdu_len: u16,
) {
    out.extend_from_slice(&destination);
    out.extend_from_slice(&source);
    out.extend_from_slice(&msdu_len.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: MacAddress = [2, 0, 0, 0, 0, 1];
    const B: MacAddress = [2, 0, 0, 0, 0, 2];
    const C: MacAddress = [2, 0, 0, 0, 0, 3];

    fn emitted(frame: FrameRepr) -> Vec<u8> {
        let mut out = Vec::new();
        frame.emit(&mut out);
        assert_eq!(out.len(), frame.header_len());
        out
    }

    #[test]
    fn data_frame_to_the_ap_with_retry() {
        let bytes = emitted(FrameRepr::Data {
            direction: DsDirection::ToAp,
            retry: true,
            duration_us: 314,
            receiver: A,
            transmitter: B,
            address3: C,
            sequence: 4097,
            qos: false,
            amsdu: false,
        });
        assert_eq!(&bytes[..4], &[0x08, 0x09, 0x3a, 0x01]);
        assert_eq!(&bytes[4..10], &A);
        assert_eq!(&bytes[10..16], &B);
        assert_eq!(&bytes[16..22], &C);
        // Sequence 4097 wraps to 1, shifted past the fragment number.
        assert_eq!(&bytes[22..24], &[0x10, 0x00]);
    }

    #[test]
    fn amsdu_is_qos_data_with_the_present_bit() {
        let bytes = emitted(FrameRepr::Data {
            direction: DsDirection::FromAp,
            retry: false,
            duration_us: 0,
            receiver: A,
            transmitter: B,
            address3: B,
            sequence: 0x123,
            qos: false,
            amsdu: true,
        });
        assert_eq!(&bytes[..2], &[0x88, 0x02]);
        assert_eq!(&bytes[22..24], &[0x30, 0x12]);
        assert_eq!(&bytes[24..26], &[0x80, 0x00]);
    }

    #[test]
    fn qos_data_of_one_msdu_has_tid_0_and_no_amsdu_bit() {
        let bytes = emitted(FrameRepr::Data {
            direction: DsDirection::ToAp,
            retry: false,
            duration_us: 0,
            receiver: A,
            transmitter: B,
            address3: C,
            sequence: 1,
            qos: true,
            amsdu: false,
        });
        assert_eq!(&bytes[..2], &[0x88, 0x01]);
        assert_eq!(&bytes[24..26], &[0x00, 0x00]);
    }

    #[test]
    fn block_ack_carries_its_start_and_bitmap() {
        let mut bitmap = [0; 32];
        bitmap[0] = 0b1011;
        let bytes = emitted(FrameRepr::BlockAck {
            duration_us: 0,
            receiver: A,
            transmitter: B,
            start_sequence: 4100,
            bitmap,
            bitmap_bytes: 8,
        });
        assert_eq!(bytes.len(), 28);
        assert_eq!(&bytes[..2], &[0x94, 0x00]);
        assert_eq!(&bytes[4..10], &A);
        assert_eq!(&bytes[10..16], &B);
        // compressed bitmap; starting sequence 4100 mod 4096 = 4, shifted past the fragment
        assert_eq!(&bytes[16..20], &[0x04, 0x00, 0x40, 0x00]);
        assert_eq!(&bytes[20..28], &[0b1011, 0, 0, 0, 0, 0, 0, 0]);
        let wide = emitted(FrameRepr::BlockAck {
            duration_us: 0,
            receiver: A,
            transmitter: B,
            start_sequence: 0,
            bitmap,
            bitmap_bytes: 32,
        });
        assert_eq!(wide.len(), 52);
        assert_eq!(&wide[18..20], &[0x04, 0x00]);
    }

    #[test]
    fn block_ack_req_carries_its_start() {
        let bytes = emitted(FrameRepr::BlockAckReq {
            duration_us: 0x0050,
            receiver: A,
            transmitter: B,
            start_sequence: 4097,
        });
        // 20 bytes, 24 with the FCS (§9.3.1.7)
        assert_eq!(bytes.len(), 20);
        assert_eq!(&bytes[..4], &[0x84, 0x00, 0x50, 0x00]);
        assert_eq!(&bytes[4..10], &A);
        assert_eq!(&bytes[10..16], &B);
        // compressed, TID 0; starting sequence 1 shifted past the fragment number
        assert_eq!(&bytes[16..20], &[0x04, 0x00, 0x10, 0x00]);
    }

    #[test]
    fn control_frames() {
        let rts = emitted(FrameRepr::Rts {
            duration_us: 0x0102,
            receiver: A,
            transmitter: B,
        });
        assert_eq!(&rts[..4], &[0xb4, 0x00, 0x02, 0x01]);
        assert_eq!(&rts[10..16], &B);
        let cts = emitted(FrameRepr::Cts {
            duration_us: 5,
            receiver: B,
        });
        assert_eq!(cts, [&[0xc4, 0, 5, 0][..], &B].concat());
        let ack = emitted(FrameRepr::Ack {
            duration_us: 0,
            receiver: C,
        });
        assert_eq!(ack, [&[0xd4, 0, 0, 0][..], &C].concat());
    }

    #[test]
    fn fcs_is_the_ethernet_crc32_little_endian() {
        // The CRC-32 check value of "123456789" is 0xCBF43926.
        let mut out = b"xx123456789".to_vec();
        emit_fcs(&mut out, 2, true);
        assert_eq!(&out[11..], &[0x26, 0x39, 0xf4, 0xcb]);
        let mut bad = b"123456789".to_vec();
        emit_fcs(&mut bad, 0, false);
        assert_eq!(&bad[9..], &[0xd9, 0xc6, 0x0b, 0x34]);
    }

    #[test]
    fn subframe_header_length_is_big_endian() {
        let mut out = Vec::new();
        emit_amsdu_subframe_header(&mut out, A, B, 0x0148);
        assert_eq!(out.len(), AMSDU_SUBFRAME_HEADER_LEN);
        assert_eq!(&out[12..], &[0x01, 0x48]);
    }
}
