//! IPv4 packets carrying TCP, UDP or ICMP echo (ping), and their conversion to and from bytes
//! via etherparse.

use core::fmt;

use etherparse::{
    IcmpEchoHeader, Icmpv4Header, Icmpv4Type, IpDscp, IpEcn, IpNumber, Ipv4Header, NetSlice,
    SlicedPacket, TcpHeader, TcpOptionElement, TcpOptionReadError, TcpOptionsIterator,
    TransportSlice, UdpHeader,
};

use super::tcp::{Compaction, SackBlocks, TcpFlags, TcpRepr, Timestamps};
use crate::seq::SeqNumber;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Repr {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub ttl: u8,
    /// The differentiated services code point (RFC 2474), 0-63: what a WLAN with EDCA
    /// maps to an access category (`wifi::edca`).
    pub dscp: u8,
    /// The ECN field (RFC 3168), 0-3 (`Ipv4Repr::NOT_ECT` ... `Ipv4Repr::CE`).
    pub ecn: u8,
}

impl Ipv4Repr {
    /// The ECN codepoints (RFC 3168 §5).
    pub const NOT_ECT: u8 = 0b00;
    pub const ECT1: u8 = 0b01;
    pub const ECT0: u8 = 0b10;
    pub const CE: u8 = 0b11;

    /// The packet's transport is ECN-capable (ECT(0) or ECT(1)).
    pub fn is_ect(&self) -> bool {
        self.ecn == Self::ECT0 || self.ecn == Self::ECT1
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload_len: u32,
}

/// An ICMP echo request or reply (RFC 792): what ping sends and the peer answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EchoRepr {
    pub reply: bool,
    pub id: u16,
    pub seq: u16,
    pub payload_len: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportRepr {
    Tcp(TcpRepr),
    Udp(UdpRepr),
    Echo(EchoRepr),
}

/// An IPv4 packet: header fields and transport header, payload as a length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketRepr {
    pub ip: Ipv4Repr,
    pub transport: TransportRepr,
}

/// Why bytes could not be read as a packet this stack understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    Malformed(String),
    NotIpv4,
    UnsupportedTransport,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Malformed(why) => write!(f, "malformed packet: {why}"),
            ParseError::NotIpv4 => f.write_str("not an IPv4 packet"),
            ParseError::UnsupportedTransport => {
                f.write_str("neither TCP, UDP nor an ICMP echo request or reply")
            }
        }
    }
}

impl std::error::Error for ParseError {}

const IPV4_HEADER_LEN: u32 = 20;
const UDP_HEADER_LEN: u32 = 8;
const ICMP_ECHO_HEADER_LEN: u32 = 8;

impl PacketRepr {
    /// Total IPv4 length in bytes: what a link serialises and a queue counts.
    pub fn ip_len(&self) -> u32 {
        IPV4_HEADER_LEN
            + match &self.transport {
                TransportRepr::Tcp(tcp) => tcp.header_len() + tcp.payload_len,
                TransportRepr::Udp(udp) => UDP_HEADER_LEN + udp.payload_len,
                TransportRepr::Echo(echo) => ICMP_ECHO_HEADER_LEN + echo.payload_len,
            }
    }

    pub fn tcp(&self) -> Option<&TcpRepr> {
        match &self.transport {
            TransportRepr::Tcp(tcp) => Some(tcp),
            _ => None,
        }
    }

    /// The TCP header, to rewrite in place (an agent's edit before emit recomputes checksums).
    pub fn tcp_mut(&mut self) -> Option<&mut TcpRepr> {
        match &mut self.transport {
            TransportRepr::Tcp(tcp) => Some(tcp),
            _ => None,
        }
    }

    /// Length of the IPv4 and transport headers: the packet without its payload.
    pub fn header_len(&self) -> u32 {
        self.ip_len() - self.payload_len()
    }

    /// Application payload length.
    pub fn payload_len(&self) -> u32 {
        match &self.transport {
            TransportRepr::Tcp(tcp) => tcp.payload_len,
            TransportRepr::Udp(udp) => udp.payload_len,
            TransportRepr::Echo(echo) => echo.payload_len,
        }
    }

    /// IPv4 bytes with valid IP and transport checksums; the payload is zero-filled.
    pub fn emit(&self) -> Vec<u8> {
        self.emit_with_payload(&vec![0u8; self.payload_len() as usize])
    }

    /// IPv4 bytes with valid IP and transport checksums around `payload`, which must be
    /// `payload_len()` bytes long (the emulator's real payloads after an agent's rewrite).
    pub fn emit_with_payload(&self, payload: &[u8]) -> Vec<u8> {
        assert_eq!(
            payload.len(),
            self.payload_len() as usize,
            "the payload has the length the headers declare"
        );
        let transport_len = self.ip_len() - IPV4_HEADER_LEN;
        let protocol = match self.transport {
            TransportRepr::Tcp(_) => IpNumber::TCP,
            TransportRepr::Udp(_) => IpNumber::UDP,
            TransportRepr::Echo(_) => IpNumber::ICMP,
        };
        // Lengths are bounded by u16 because ip_len() sums header sizes and MSS-bounded payloads.
        let mut ip = Ipv4Header::new(
            transport_len as u16,
            self.ip.ttl,
            protocol,
            self.ip.src,
            self.ip.dst,
        )
        .expect("IPv4 payload fits in 16 bits");
        ip.dscp = IpDscp::try_new(self.ip.dscp & 0x3f).expect("six bits");
        ip.ecn = IpEcn::try_new(self.ip.ecn & 0x3).expect("two bits");
        ip.header_checksum = ip.calc_header_checksum();
        let mut out = Vec::with_capacity(self.ip_len() as usize);
        ip.write(&mut out).expect("writing to a Vec cannot fail");
        match &self.transport {
            TransportRepr::Tcp(tcp) => {
                let header = tcp_header(tcp);
                let mut header = header;
                header.checksum = header
                    .calc_checksum_ipv4(&ip, payload)
                    .expect("TCP length fits");
                header
                    .write(&mut out)
                    .expect("writing to a Vec cannot fail");
            }
            TransportRepr::Udp(udp) => {
                let header =
                    UdpHeader::with_ipv4_checksum(udp.src_port, udp.dst_port, &ip, payload)
                        .expect("UDP length fits");
                header
                    .write(&mut out)
                    .expect("writing to a Vec cannot fail");
            }
            TransportRepr::Echo(echo) => {
                let fields = IcmpEchoHeader {
                    id: echo.id,
                    seq: echo.seq,
                };
                let kind = if echo.reply {
                    Icmpv4Type::EchoReply(fields)
                } else {
                    Icmpv4Type::EchoRequest(fields)
                };
                Icmpv4Header::with_checksum(kind, payload)
                    .write(&mut out)
                    .expect("writing to a Vec cannot fail");
            }
        }
        out.extend_from_slice(payload);
        out
    }

    /// Reads an IPv4 packet carrying TCP, UDP or ICMP echo.
    pub fn parse(bytes: &[u8]) -> Result<PacketRepr, ParseError> {
        Self::parse_with_payload(bytes).map(|(repr, _)| repr)
    }

    /// Reads an IPv4 packet carrying TCP, UDP or ICMP echo, and its transport payload.
    pub fn parse_with_payload(bytes: &[u8]) -> Result<(PacketRepr, &[u8]), ParseError> {
        let sliced =
            SlicedPacket::from_ip(bytes).map_err(|e| ParseError::Malformed(e.to_string()))?;
        let ip = match &sliced.net {
            Some(NetSlice::Ipv4(v4)) => {
                let header = v4.header();
                Ipv4Repr {
                    src: header.source(),
                    dst: header.destination(),
                    ttl: header.ttl(),
                    dscp: header.dcp().value(),
                    ecn: header.ecn().value(),
                }
            }
            _ => return Err(ParseError::NotIpv4),
        };
        let (transport, payload) = match &sliced.transport {
            Some(TransportSlice::Tcp(tcp)) => {
                let options = read_options(tcp.options())?;
                let tcp_repr = TcpRepr {
                    src_port: tcp.source_port(),
                    dst_port: tcp.destination_port(),
                    seq: SeqNumber(tcp.sequence_number()),
                    ack: SeqNumber(tcp.acknowledgment_number()),
                    flags: TcpFlags {
                        syn: tcp.syn(),
                        ack: tcp.ack(),
                        fin: tcp.fin(),
                        rst: tcp.rst(),
                        psh: tcp.psh(),
                        ece: tcp.ece(),
                        cwr: tcp.cwr(),
                    },
                    window: tcp.window_size(),
                    mss: options.mss,
                    window_scale: options.window_scale,
                    sack_permitted: options.sack_permitted,
                    sack: options.sack,
                    timestamps: options.timestamps,
                    compaction: options.compaction,
                    payload_len: tcp.payload().len() as u32,
                };
                (TransportRepr::Tcp(tcp_repr), tcp.payload())
            }
            Some(TransportSlice::Udp(udp)) => {
                let udp_repr = UdpRepr {
                    src_port: udp.source_port(),
                    dst_port: udp.destination_port(),
                    payload_len: udp.payload().len() as u32,
                };
                (TransportRepr::Udp(udp_repr), udp.payload())
            }
            Some(TransportSlice::Icmpv4(icmp)) => {
                let (reply, fields) = match icmp.icmp_type() {
                    Icmpv4Type::EchoRequest(fields) => (false, fields),
                    Icmpv4Type::EchoReply(fields) => (true, fields),
                    _ => return Err(ParseError::UnsupportedTransport),
                };
                let echo = EchoRepr {
                    reply,
                    id: fields.id,
                    seq: fields.seq,
                    payload_len: icmp.payload().len() as u32,
                };
                (TransportRepr::Echo(echo), icmp.payload())
            }
            _ => return Err(ParseError::UnsupportedTransport),
        };
        Ok((PacketRepr { ip, transport }, payload))
    }
}

fn tcp_header(tcp: &TcpRepr) -> TcpHeader {
    let mut header = TcpHeader::new(tcp.src_port, tcp.dst_port, tcp.seq.0, tcp.window);
    header.acknowledgment_number = tcp.ack.0;
    header.syn = tcp.flags.syn;
    header.ack = tcp.flags.ack;
    header.fin = tcp.flags.fin;
    header.rst = tcp.flags.rst;
    header.psh = tcp.flags.psh;
    header.ece = tcp.flags.ece;
    header.cwr = tcp.flags.cwr;
    use TcpOptionElement::{Noop, SelectiveAcknowledgement, SelectiveAcknowledgementPermitted};
    let mut options = Vec::with_capacity(8);
    if let Some(mss) = tcp.mss {
        options.push(TcpOptionElement::MaximumSegmentSize(mss));
    }
    // The layout `TcpRepr::header_len` counts, Linux's.
    match (tcp.sack_permitted, tcp.timestamps) {
        (true, Some(ts)) => options.extend([
            SelectiveAcknowledgementPermitted,
            TcpOptionElement::Timestamp(ts.value, ts.echo_reply),
        ]),
        (false, Some(ts)) => options.extend([
            Noop,
            Noop,
            TcpOptionElement::Timestamp(ts.value, ts.echo_reply),
        ]),
        (true, None) => options.extend([Noop, Noop, SelectiveAcknowledgementPermitted]),
        (false, None) => {}
    }
    if let Some(shift) = tcp.window_scale {
        options.push(Noop);
        options.push(TcpOptionElement::WindowScale(shift));
    }
    if let Some((&(left, right), rest)) = tcp.sack_on_wire().split_first() {
        let mut more = [None; 3];
        for (slot, &(l, r)) in more.iter_mut().zip(rest) {
            *slot = Some((l.0, r.0));
        }
        options.extend([
            Noop,
            Noop,
            SelectiveAcknowledgement((left.0, right.0), more),
        ]);
    }
    header
        .set_options(&options)
        .expect("a segment's options fit in the option space (TcpRepr::header_len)");
    if let Some(record) = tcp.compaction {
        // etherparse writes only the options it knows; the experimental one goes after them.
        let mut raw = header.options.as_slice().to_vec();
        raw.extend_from_slice(&record.to_option_bytes());
        header
            .set_options_raw(&raw)
            .expect("the options fit in the option space");
    }
    header
}

/// The options this stack reads from a TCP header.
#[derive(Default)]
struct Options {
    mss: Option<u16>,
    window_scale: Option<u8>,
    sack_permitted: bool,
    sack: SackBlocks,
    timestamps: Option<Timestamps>,
    compaction: Option<Compaction>,
}

/// Reads the options with etherparse; an option etherparse does not know (kind, length,
/// data, RFC 9293 section 3.1) is stepped over, or read if it is airtcp's compaction record,
/// and reading goes on after it.
fn read_options(mut raw: &[u8]) -> Result<Options, ParseError> {
    let malformed = |e: TcpOptionReadError| ParseError::Malformed(e.to_string());
    let mut options = Options::default();
    'options: loop {
        let mut iterator = TcpOptionsIterator::from_slice(raw);
        loop {
            let rest = iterator.rest();
            match iterator.next() {
                None => break 'options,
                Some(Ok(TcpOptionElement::MaximumSegmentSize(value))) => options.mss = Some(value),
                Some(Ok(TcpOptionElement::WindowScale(shift))) => {
                    options.window_scale = Some(shift)
                }
                Some(Ok(TcpOptionElement::SelectiveAcknowledgementPermitted)) => {
                    options.sack_permitted = true
                }
                Some(Ok(TcpOptionElement::SelectiveAcknowledgement(first, rest))) => {
                    let blocks = core::iter::once(first).chain(rest.into_iter().flatten());
                    options.sack =
                        SackBlocks::new(blocks.map(|(l, r)| (SeqNumber(l), SeqNumber(r))));
                }
                Some(Ok(TcpOptionElement::Timestamp(value, echo_reply))) => {
                    options.timestamps = Some(Timestamps { value, echo_reply })
                }
                Some(Ok(_)) => {}
                Some(Err(TcpOptionReadError::UnknownId(kind))) => {
                    let len = rest.get(1).map_or(0, |&len| usize::from(len));
                    if len < 2 || len > rest.len() {
                        return Err(ParseError::Malformed(format!(
                            "TCP option {kind} has length {len}"
                        )));
                    }
                    if kind == Compaction::KIND {
                        options.compaction =
                            Compaction::from_option_data(&rest[2..len]).or(options.compaction);
                    }
                    raw = &rest[len..];
                    continue 'options;
                }
                Some(Err(e)) => return Err(malformed(e)),
            }
        }
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample_tcp() -> PacketRepr {
        PacketRepr {
            ip: Ipv4Repr {
                src: [10, 0, 0, 1],
                dst: [10, 0, 1, 2],
                ttl: 64,
                dscp: 0,
                ecn: 0,
            },
            transport: TransportRepr::Tcp(TcpRepr {
                src_port: 5001,
                dst_port: 80,
                seq: SeqNumber(1000),
                ack: SeqNumber(77),
                flags: TcpFlags {
                    syn: true,
                    ack: true,
                    ..Default::default()
                },
                window: 65535,
                mss: Some(1460),
                window_scale: Some(7),
                sack_permitted: false,
                sack: Default::default(),
                timestamps: None,
                compaction: None,
                payload_len: 0,
            }),
        }
    }

    fn compacted_ack() -> PacketRepr {
        let mut packet = sample_tcp();
        if let Some(tcp) = packet.tcp_mut() {
            tcp.flags = TcpFlags {
                ack: true,
                ece: true,
                cwr: true,
                ..Default::default()
            };
            tcp.mss = None;
            tcp.window_scale = None;
            tcp.compaction = Compaction::of(5);
        }
        packet
    }

    #[test]
    fn ecn_flags_and_the_compaction_option_round_trip() {
        let packet = compacted_ack();
        let bytes = packet.emit();
        assert_eq!(bytes.len() as u32, packet.ip_len());
        assert_eq!(PacketRepr::parse(&bytes).unwrap(), packet);
        // With MSS and window scale before it, too.
        let mut both = sample_tcp();
        if let Some(tcp) = both.tcp_mut() {
            tcp.compaction = compacted_ack().tcp().unwrap().compaction;
        }
        assert_eq!(PacketRepr::parse(&both.emit()).unwrap(), both);
    }

    #[test]
    fn unknown_options_are_stepped_over_and_bad_lengths_refused() {
        let mut bytes = compacted_ack().emit();
        // Another experiment's identifier: still a packet, without the record.
        bytes[20 + 20 + 5] ^= 0xFF;
        let parsed = PacketRepr::parse(&bytes).unwrap();
        assert_eq!(parsed.tcp().unwrap().compaction, None);
        // A length running past the header.
        let mut bytes = compacted_ack().emit();
        bytes[20 + 20 + 4] = 40;
        assert!(PacketRepr::parse(&bytes).is_err());
    }

    #[test]
    fn tcp_round_trips_with_options_and_valid_checksums() {
        let packet = sample_tcp();
        let bytes = packet.emit();
        assert_eq!(bytes.len() as u32, packet.ip_len());
        assert_eq!(PacketRepr::parse(&bytes).unwrap(), packet);
        let sliced = SlicedPacket::from_ip(&bytes).unwrap();
        let Some(NetSlice::Ipv4(v4)) = sliced.net else {
            panic!("not ipv4")
        };
        let ip = v4.header().to_header();
        assert_eq!(ip.header_checksum, ip.calc_header_checksum());
        let Some(TransportSlice::Tcp(tcp)) = sliced.transport else {
            panic!("not tcp")
        };
        assert_eq!(
            tcp.checksum(),
            tcp.to_header()
                .calc_checksum_ipv4(&ip, tcp.payload())
                .unwrap()
        );
    }

    /// A SYN as Linux sends it (MSS, SACK-permitted, timestamps, window scale: 20 bytes of
    /// options), and an ACK with timestamps and three SACK blocks (40 bytes, the most there is).
    #[test]
    fn sack_and_timestamp_options_round_trip_in_linux_layout() {
        let mut syn = sample_tcp();
        let tcp = syn.tcp_mut().unwrap();
        tcp.sack_permitted = true;
        tcp.timestamps = Some(Timestamps {
            value: 0xDEAD_BEEF,
            echo_reply: 0,
        });
        assert_eq!(tcp.header_len(), 40);
        let bytes = syn.emit();
        assert_eq!(bytes.len() as u32, syn.ip_len());
        assert_eq!(
            &bytes[40..46],
            &[2, 4, 0x05, 0xB4, 4, 2],
            "MSS, then SACK-permitted"
        );
        assert_eq!(PacketRepr::parse(&bytes).unwrap(), syn);

        let mut ack = compacted_ack();
        let tcp = ack.tcp_mut().unwrap();
        tcp.compaction = None;
        tcp.timestamps = Some(Timestamps {
            value: 7,
            echo_reply: 9,
        });
        tcp.sack = SackBlocks::new([
            (SeqNumber(5000), SeqNumber(6000)),
            (SeqNumber(u32::MAX - 10), SeqNumber(20)),
            (SeqNumber(3000), SeqNumber(4000)),
            (SeqNumber(1), SeqNumber(2)),
            (SeqNumber(8), SeqNumber(9)), // a fifth block is never kept
        ]);
        assert_eq!(tcp.sack.as_slice().len(), 4);
        // Beside timestamps only three fit (as Linux); without them four.
        assert_eq!(tcp.sack_on_wire().len(), 3);
        assert_eq!(tcp.header_len(), 60);
        let bytes = ack.emit();
        assert_eq!(bytes.len() as u32, ack.ip_len());
        let parsed = PacketRepr::parse(&bytes).unwrap();
        assert_eq!(
            parsed.tcp().unwrap().sack.as_slice(),
            &ack.tcp().unwrap().sack.as_slice()[..3]
        );
        let tcp = ack.tcp_mut().unwrap();
        tcp.timestamps = None;
        assert_eq!(tcp.sack_on_wire().len(), 4);
        assert_eq!(tcp.header_len(), 20 + 4 + 4 * 8);
        let bytes = ack.emit();
        assert_eq!(PacketRepr::parse(&bytes).unwrap(), ack);
    }

    #[test]
    fn the_ds_field_round_trips_in_its_place() {
        let mut packet = sample_tcp();
        packet.ip.dscp = 46; // EF
        packet.ip.ecn = 2; // ECT(0)
        let bytes = packet.emit();
        // the second byte of the IPv4 header: DSCP in the high six bits, ECN in the low two
        assert_eq!(bytes[1], 46 << 2 | 2);
        assert_eq!(PacketRepr::parse(&bytes).unwrap(), packet);
    }

    #[test]
    fn udp_round_trips() {
        let packet = PacketRepr {
            transport: TransportRepr::Udp(UdpRepr {
                src_port: 9,
                dst_port: 9,
                payload_len: 988,
            }),
            ..sample_tcp()
        };
        let bytes = packet.emit();
        assert_eq!(bytes.len(), 1016);
        assert_eq!(PacketRepr::parse(&bytes).unwrap(), packet);
    }

    #[test]
    fn icmp_echo_round_trips_with_a_valid_checksum() {
        for reply in [false, true] {
            let packet = PacketRepr {
                transport: TransportRepr::Echo(EchoRepr {
                    reply,
                    id: 3,
                    seq: 65535,
                    payload_len: 56,
                }),
                ..sample_tcp()
            };
            let bytes = packet.emit();
            assert_eq!(bytes.len(), 84, "ping's default: 56 bytes of data");
            assert_eq!(PacketRepr::parse(&bytes).unwrap(), packet);
            let sliced = SlicedPacket::from_ip(&bytes).unwrap();
            let Some(TransportSlice::Icmpv4(icmp)) = sliced.transport else {
                panic!("not ICMP")
            };
            assert_eq!(
                icmp.checksum(),
                icmp.header().icmp_type.calc_checksum(icmp.payload())
            );
        }
    }

    /// The emulator's path: real bytes in, the payload kept aside, headers (possibly rewritten)
    /// and that payload out, with checksums etherparse verifies.
    #[test]
    fn payloads_round_trip_with_valid_checksums() {
        let mut echo = sample_tcp();
        echo.transport = TransportRepr::Echo(EchoRepr {
            reply: false,
            id: 7,
            seq: 3,
            payload_len: 56,
        });
        let mut udp = sample_tcp();
        udp.transport = TransportRepr::Udp(UdpRepr {
            src_port: 9,
            dst_port: 10,
            payload_len: 100,
        });
        let mut data = sample_tcp();
        let tcp = data.tcp_mut().unwrap();
        tcp.flags.syn = false;
        tcp.payload_len = 1448;
        for packet in [echo, udp, data] {
            let payload: Vec<u8> = (0..packet.payload_len())
                .map(|i| (i * 7 + 1) as u8)
                .collect();
            let bytes = packet.emit_with_payload(&payload);
            let (parsed, parsed_payload) = PacketRepr::parse_with_payload(&bytes).unwrap();
            assert_eq!((parsed, parsed_payload), (packet, &payload[..]));
            let mut rewritten = parsed;
            rewritten.ip.ttl -= 1;
            if let Some(tcp) = rewritten.tcp_mut() {
                tcp.window = 0;
            }
            let bytes = rewritten.emit_with_payload(parsed_payload);
            let sliced = SlicedPacket::from_ip(&bytes).unwrap();
            let Some(NetSlice::Ipv4(v4)) = &sliced.net else {
                panic!("IPv4")
            };
            let header = v4.header().to_header();
            assert_eq!(header.header_checksum, header.calc_header_checksum());
            match &sliced.transport {
                Some(TransportSlice::Tcp(tcp)) => assert_eq!(
                    tcp.checksum(),
                    tcp.to_header()
                        .calc_checksum_ipv4(&header, tcp.payload())
                        .unwrap()
                ),
                Some(TransportSlice::Udp(udp)) => assert_eq!(
                    udp.checksum(),
                    udp.to_header()
                        .calc_checksum_ipv4(&header, udp.payload())
                        .unwrap()
                ),
                Some(TransportSlice::Icmpv4(icmp)) => assert_eq!(
                    icmp.checksum(),
                    icmp.header().icmp_type.calc_checksum(icmp.payload())
                ),
                _ => panic!("a transport"),
            }
        }
    }

    #[test]
    fn rejects_non_ipv4() {
        assert!(PacketRepr::parse(&[0x60, 0, 0]).is_err());
        assert!(PacketRepr::parse(&[]).is_err());
    }

    proptest! {
        // The parser takes packets from outside (the emulator's TUN device): any bytes must give
        // a packet or an error, never a panic.
        #[test]
        fn parse_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = PacketRepr::parse(&bytes);
        }

        /// Whatever options a segment carries, `header_len` is what `emit` writes and the
        /// parse gives the segment back.
        #[test]
        fn every_option_combination_round_trips(
            syn in any::<bool>(),
            sack_permitted in any::<bool>(),
            timestamps in proptest::option::of((any::<u32>(), any::<u32>())),
            blocks in proptest::collection::vec((any::<u32>(), any::<u32>()), 0..4),
            compaction in proptest::option::of(2u32..300),
        ) {
            let mut packet = sample_tcp();
            let tcp = packet.tcp_mut().unwrap();
            if !syn {
                tcp.flags.syn = false;
                tcp.mss = None;
                tcp.window_scale = None;
            }
            tcp.sack_permitted = sack_permitted;
            tcp.timestamps = timestamps.map(|(value, echo_reply)| Timestamps { value, echo_reply });
            if !syn {
                tcp.compaction = compaction.and_then(Compaction::of);
            }
            tcp.sack = SackBlocks::new(blocks.into_iter().map(|(l, r)| (SeqNumber(l), SeqNumber(r))));
            prop_assert!(tcp.header_len() <= 60);
            let bytes = packet.emit();
            prop_assert_eq!(bytes.len() as u32, packet.ip_len());
            // SACK blocks that do not fit beside the other options are left off, the last first.
            let tcp = packet.tcp_mut().unwrap();
            tcp.sack = SackBlocks::new(tcp.sack_on_wire().iter().copied());
            prop_assert_eq!(PacketRepr::parse(&bytes).unwrap(), packet);
        }

        #[test]
        fn parse_never_panics_on_mutated_valid_packets(index in 0usize..48, value in any::<u8>()) {
            let mut bytes = sample_tcp().emit();
            let i = index % bytes.len();
            bytes[i] = value;
            let _ = PacketRepr::parse(&bytes);
        }

        // The experimental option is read by airtcp itself (etherparse steps past it): any
        // change to its bytes, or a cut anywhere, gives a packet or an error.
        #[test]
        fn options_with_the_compaction_record_never_panic(
            edits in proptest::collection::vec((40usize..56, any::<u8>()), 1..4),
            cut in 0usize..64,
        ) {
            let mut both = sample_tcp();
            if let Some(tcp) = both.tcp_mut() {
                tcp.compaction = Compaction::of(9);
            }
            let mut bytes = both.emit();
            for (index, value) in edits {
                let i = index % bytes.len();
                bytes[i] = value;
            }
            bytes.truncate(cut.max(1));
            let _ = PacketRepr::parse(&bytes);
        }
    }
}
