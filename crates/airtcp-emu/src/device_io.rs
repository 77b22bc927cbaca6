//! Packets through the hosts' TUN devices with the kernel's offloads (`IFF_VNET_HDR`, TSO),
//! as a NIC with TSO and GRO does it.
//!
//! Reads: a host's kernel may hand over a 64 KB TSO super-packet, which tun-rs splits here
//! (as wireguard-go does) into the MSS-sized segments it stands for, checksums completed, so
//! that the emulated network carries real packets: one read and one pass of the sender's
//! stack per 64 KB instead of per segment.
//!
//! Writes: consecutive segments of one TCP connection that one pass of the engine releases
//! to a host (same addresses, ports, ACK, window, options; each following the last, none
//! but the last shorter) are written as one GRO super-packet (offload header: GSO TCPv4,
//! the MSS, the checksum left to the stack as `CHECKSUM_PARTIAL`), as a NIC's GRO hands
//! them to the stack: the host's stack (which runs in the engine's write, 40 % of the
//! engine's time at its limit) and its reader's wake-up run once for them. Segments
//! released apart - any link below about a gigabit per second, where the engine releases
//! each segment in a pass of its own - are written one each with their own checksums, so
//! that at the papers' rates each segment reaches its host, and is acknowledged, on its
//! own, as in the simulator. tun-rs's own coalescing (`send_multiple`) was measured slower
//! (1.08-1.12 Gbit/s against 1.20-1.25 without): its matching copied every packet.

use std::io;

use serde::Serialize;
use tun_rs::{SyncDevice, IDEAL_BATCH_SIZE, VIRTIO_NET_HDR_LEN};

/// A segment's buffer: the device's MTU and then some.
const SEGMENT_BUFFER: usize = 2048;

/// What one read brought: segments of one packet (or of one TSO super-packet).
pub struct DeviceReader {
    original: Vec<u8>,
    segments: Vec<Vec<u8>>,
    sizes: Vec<usize>,
    /// Reads the kernel delivered but that could not be split into packets (a malformed
    /// offload header): dropped.
    pub malformed: u64,
}

impl Default for DeviceReader {
    fn default() -> Self {
        DeviceReader {
            original: vec![0; VIRTIO_NET_HDR_LEN + 65_535],
            segments: vec![vec![0; SEGMENT_BUFFER]; IDEAL_BATCH_SIZE],
            sizes: vec![0; IDEAL_BATCH_SIZE],
            malformed: 0,
        }
    }
}

impl DeviceReader {
    /// Reads one packet from `device` (non-blocking) into segments: how many, 0 if none
    /// was waiting.
    pub fn read(&mut self, device: &SyncDevice) -> io::Result<usize> {
        match device.recv_multiple(&mut self.original, &mut self.segments, &mut self.sizes, 0) {
            Ok(n) => Ok(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(0),
            // The device's own error is fatal; one tun-rs could not parse drops the packet.
            Err(e) if e.raw_os_error().is_some() => Err(e),
            Err(_) => {
                self.malformed += 1;
                Ok(0)
            }
        }
    }

    /// Segment `i` of the last read.
    pub fn segment(&self, i: usize) -> &[u8] {
        &self.segments[i][..self.sizes[i]]
    }
}

/// Offload header fields (virtio_net_hdr, native endian).
const NEEDS_CSUM: u8 = 1;
const GSO_TCPV4: u8 = 1;
/// Where the TCP checksum sits in its header.
const TCP_CHECKSUM_OFFSET: usize = 16;
/// The most segments in one super-packet (the kernel's GRO stops at 64 KB anyway).
const MAX_SEGMENTS: u16 = 44;

/// The segments of one connection being joined into a super-packet in `buffer`.
#[derive(Clone, Copy, Debug)]
struct Train {
    ip_header: usize,
    tcp_header: usize,
    /// Addresses and ports.
    flow: [u8; 12],
    next_seq: u32,
    ack: u32,
    window: u16,
    gso_size: u16,
    segments: u16,
    /// A short segment or a PSH ended it.
    closed: bool,
}

/// A TCP/IPv4 segment's fields that decide whether it joins a train.
struct Segment {
    ip_header: usize,
    tcp_header: usize,
    flow: [u8; 12],
    seq: u32,
    ack: u32,
    window: u16,
    payload: usize,
    psh: bool,
}

impl Segment {
    /// A segment that may be coalesced: IPv4 without options, not a fragment, TCP with ACK
    /// (and PSH) only, carrying data.
    fn parse(packet: &[u8]) -> Option<Segment> {
        if packet.len() < 40 || packet[0] != 0x45 || packet[9] != 6 {
            return None;
        }
        let total = usize::from(u16::from_be_bytes([packet[2], packet[3]]));
        let fragment = u16::from_be_bytes([packet[6], packet[7]]) & 0x3fff;
        if total != packet.len() || fragment != 0 {
            return None;
        }
        let tcp = &packet[20..];
        let tcp_header = usize::from(tcp[12] >> 4) * 4;
        let flags = tcp[13];
        if !(20..=60).contains(&tcp_header) || tcp.len() <= tcp_header {
            return None;
        }
        if flags != 0x10 && flags != 0x18 {
            return None;
        }
        let mut flow = [0; 12];
        flow[..8].copy_from_slice(&packet[12..20]);
        flow[8..].copy_from_slice(&tcp[..4]);
        let word = |at: usize| u32::from_be_bytes([tcp[at], tcp[at + 1], tcp[at + 2], tcp[at + 3]]);
        Some(Segment {
            ip_header: 20,
            tcp_header,
            flow,
            seq: word(4),
            ack: word(8),
            window: u16::from_be_bytes([tcp[14], tcp[15]]),
            payload: tcp.len() - tcp_header,
            psh: flags & 0x08 != 0,
        })
    }
}

/// Writes to the hosts' devices: how many, and how many of them super-packets of how many
/// segments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WriteCounts {
    pub writes: u64,
    pub coalesced_writes: u64,
    pub coalesced_segments: u64,
}

impl WriteCounts {
    pub fn of(writers: &[DeviceWriter]) -> WriteCounts {
        writers
            .iter()
            .fold(WriteCounts::default(), |sum, writer| WriteCounts {
                writes: sum.writes + writer.counts.writes,
                coalesced_writes: sum.coalesced_writes + writer.counts.coalesced_writes,
                coalesced_segments: sum.coalesced_segments + writer.counts.coalesced_segments,
            })
    }
}

/// Writes what one pass releases to a device, joining a connection's consecutive segments.
pub struct DeviceWriter {
    /// The offload header's room, then the packet (or the train) being built.
    buffer: Vec<u8>,
    train: Option<Train>,
    counts: WriteCounts,
}

impl Default for DeviceWriter {
    fn default() -> Self {
        DeviceWriter {
            buffer: vec![0; VIRTIO_NET_HDR_LEN],
            train: None,
            counts: WriteCounts::default(),
        }
    }
}

impl DeviceWriter {
    /// Releases `packet` to `device`: joined to the train being built if it follows it,
    /// else written after it. An error means packets were lost (the host's stack refused
    /// them).
    pub fn push(&mut self, device: &SyncDevice, packet: &[u8]) -> io::Result<()> {
        self.push_to(packet, &mut |bytes| device.send(bytes).map(drop))
    }

    /// Writes the train being built, if any (at the end of each pass).
    pub fn flush(&mut self, device: &SyncDevice) -> io::Result<()> {
        self.flush_to(&mut |bytes| device.send(bytes).map(drop))
    }

    /// `push` with the device's write as `write` (offload header and packet).
    fn push_to(
        &mut self,
        packet: &[u8],
        write: &mut impl FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let segment = Segment::parse(packet);
        if let (Some(train), Some(segment)) = (self.train.as_mut(), segment.as_ref()) {
            let header = train.ip_header + train.tcp_header;
            let options_equal = segment.tcp_header == train.tcp_header
                && packet[20 + 20..header] == self.buffer[VIRTIO_NET_HDR_LEN + 40..][..header - 40];
            let fits = self.buffer.len() - VIRTIO_NET_HDR_LEN + segment.payload <= 65_535;
            if !train.closed
                && segment.flow == train.flow
                && segment.seq == train.next_seq
                && segment.ack == train.ack
                && segment.window == train.window
                && segment.payload <= usize::from(train.gso_size)
                && options_equal
                && packet[1] == self.buffer[VIRTIO_NET_HDR_LEN + 1]
                && packet[6] == self.buffer[VIRTIO_NET_HDR_LEN + 6]
                && packet[8] == self.buffer[VIRTIO_NET_HDR_LEN + 8]
                && fits
                && train.segments < MAX_SEGMENTS
            {
                self.buffer.extend_from_slice(&packet[header..]);
                train.next_seq = train.next_seq.wrapping_add(segment.payload as u32);
                train.segments += 1;
                train.closed = segment.psh || segment.payload < usize::from(train.gso_size);
                if segment.psh {
                    self.buffer[VIRTIO_NET_HDR_LEN + 20 + 13] |= 0x08;
                }
                return Ok(());
            }
        }
        self.flush_to(write)?;
        self.buffer.truncate(VIRTIO_NET_HDR_LEN);
        self.buffer.extend_from_slice(packet);
        match segment {
            Some(segment) => {
                self.train = Some(Train {
                    ip_header: segment.ip_header,
                    tcp_header: segment.tcp_header,
                    flow: segment.flow,
                    next_seq: segment.seq.wrapping_add(segment.payload as u32),
                    ack: segment.ack,
                    window: segment.window,
                    gso_size: segment.payload as u16,
                    segments: 1,
                    closed: segment.psh,
                });
                Ok(())
            }
            None => self.write(write),
        }
    }

    fn flush_to(&mut self, write: &mut impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        let Some(train) = self.train.take() else {
            return Ok(());
        };
        if train.segments > 1 {
            self.make_super_packet(&train);
            self.counts.coalesced_writes += 1;
            self.counts.coalesced_segments += u64::from(train.segments);
        }
        self.write(write)
    }

    fn write(&mut self, write: &mut impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        self.counts.writes += 1;
        let result = write(&self.buffer);
        self.buffer[..VIRTIO_NET_HDR_LEN].fill(0);
        result
    }

    /// The train's headers made those of one packet carrying all its payload, with the
    /// offload header that tells the host's stack what it stands for.
    fn make_super_packet(&mut self, train: &Train) {
        let (header, packet) = self.buffer.split_at_mut(VIRTIO_NET_HDR_LEN);
        let total = packet.len() as u16;
        packet[2..4].copy_from_slice(&total.to_be_bytes());
        packet[10..12].fill(0);
        let ip_checksum = !fold(sum_words(&packet[..train.ip_header]));
        packet[10..12].copy_from_slice(&ip_checksum.to_be_bytes());
        // CHECKSUM_PARTIAL: the field holds the pseudo-header's sum; the stack adds the rest.
        let tcp_length = (packet.len() - train.ip_header) as u32;
        let pseudo = sum_words(&packet[12..20]) + 6 + tcp_length;
        let at = train.ip_header + TCP_CHECKSUM_OFFSET;
        packet[at..at + 2].copy_from_slice(&fold(pseudo).to_be_bytes());
        header[0] = NEEDS_CSUM;
        header[1] = GSO_TCPV4;
        let fields = [
            (train.ip_header + train.tcp_header) as u16,
            train.gso_size,
            train.ip_header as u16,
            TCP_CHECKSUM_OFFSET as u16,
        ];
        for (i, field) in fields.iter().enumerate() {
            header[2 + 2 * i..4 + 2 * i].copy_from_slice(&field.to_ne_bytes());
        }
    }
}

/// The one's-complement sum of `bytes` as 16-bit big-endian words, unfolded.
fn sum_words(bytes: &[u8]) -> u32 {
    bytes
        .chunks(2)
        .map(|pair| u32::from(u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)])))
        .sum()
}

fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use airtcp_proto::wire::{Ipv4Repr, PacketRepr, TcpFlags, TcpRepr, TransportRepr};
    use airtcp_proto::SeqNumber;

    const MSS: u32 = 1000;

    fn segment(src_port: u16, seq: u32, len: u32, psh: bool) -> Vec<u8> {
        let repr = PacketRepr {
            ip: Ipv4Repr {
                src: [10, 0, 0, 1],
                dst: [10, 0, 0, 2],
                ttl: 64,
                dscp: 0,
                ecn: 0,
            },
            transport: TransportRepr::Tcp(TcpRepr {
                src_port,
                dst_port: 5201,
                seq: SeqNumber(seq),
                ack: SeqNumber(7),
                flags: TcpFlags {
                    ack: true,
                    psh,
                    ..TcpFlags::default()
                },
                window: 500,
                payload_len: len,
                ..TcpRepr::default()
            }),
        };
        let payload: Vec<u8> = (0..len)
            .map(|i| (seq.wrapping_add(i) % 251) as u8)
            .collect();
        repr.emit_with_payload(&payload)
    }

    /// What `packets`, pushed in one pass, are written as.
    fn written(packets: &[Vec<u8>]) -> (Vec<Vec<u8>>, WriteCounts) {
        let mut writer = DeviceWriter::default();
        let mut out = Vec::new();
        let mut sink = |bytes: &[u8]| {
            out.push(bytes.to_vec());
            Ok(())
        };
        for packet in packets {
            writer.push_to(packet, &mut sink).unwrap();
        }
        writer.flush_to(&mut sink).unwrap();
        (out, writer.counts)
    }

    #[test]
    fn consecutive_segments_of_a_connection_become_one_gro_super_packet() {
        let segments: Vec<Vec<u8>> = (0..3)
            .map(|i| segment(40000, 1 + i * MSS, MSS, false))
            .collect();
        let (out, counts) = written(&segments);
        assert_eq!(out.len(), 1);
        assert_eq!(
            counts,
            WriteCounts {
                writes: 1,
                coalesced_writes: 1,
                coalesced_segments: 3
            }
        );
        let (header, packet) = out[0].split_at(VIRTIO_NET_HDR_LEN);
        let field = |i: usize| u16::from_ne_bytes([header[2 + 2 * i], header[3 + 2 * i]]);
        assert_eq!((header[0], header[1]), (NEEDS_CSUM, GSO_TCPV4));
        assert_eq!(
            (field(0), field(1), field(2), field(3)),
            (40, MSS as u16, 20, 16)
        );
        assert_eq!(
            usize::from(u16::from_be_bytes([packet[2], packet[3]])),
            packet.len()
        );
        assert_eq!(
            fold(sum_words(&packet[..20])),
            0xffff,
            "a valid IPv4 header checksum"
        );
        // The payloads follow each other, in order.
        let payload: Vec<u8> = segments.iter().flat_map(|s| s[40..].to_vec()).collect();
        assert_eq!(&packet[40..], &payload[..]);
        // The TCP checksum field holds the pseudo-header's sum, for the stack to complete.
        let pseudo = sum_words(&packet[12..20]) + 6 + (packet.len() - 20) as u32;
        assert_eq!(u16::from_be_bytes([packet[36], packet[37]]), fold(pseudo));
    }

    #[test]
    fn a_gap_another_connection_or_a_short_segment_ends_a_train() {
        let gap = [
            segment(40000, 1, MSS, false),
            segment(40000, 1 + 2 * MSS, MSS, false),
        ];
        assert_eq!(written(&gap).1.coalesced_writes, 0);
        let other = [
            segment(40000, 1, MSS, false),
            segment(40001, 1 + MSS, MSS, false),
        ];
        assert_eq!(written(&other).0.len(), 2);
        let short = [
            segment(40000, 1, MSS, false),
            segment(40000, 1 + MSS, 500, false),
            segment(40000, 1 + MSS + 500, MSS, false),
        ];
        let (out, counts) = written(&short);
        assert_eq!(out.len(), 2);
        assert_eq!(counts.coalesced_segments, 2);
        // A PSH segment joins, and ends it, with PSH set on the whole.
        let psh = [
            segment(40000, 1, MSS, false),
            segment(40000, 1 + MSS, MSS, true),
            segment(40000, 1 + 2 * MSS, MSS, false),
        ];
        let (out, _) = written(&psh);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0][VIRTIO_NET_HDR_LEN + 33] & 0x08, 0x08);
    }

    #[test]
    fn a_lone_segment_or_another_packet_is_written_as_it_is() {
        let lone = segment(40000, 1, MSS, false);
        let (out, counts) = written(std::slice::from_ref(&lone));
        assert_eq!(
            out,
            vec![[&[0; VIRTIO_NET_HDR_LEN][..], &lone[..]].concat()]
        );
        assert_eq!(counts.coalesced_writes, 0);
        let ack = segment(40000, 1, 0, false); // no payload: never joined
        let (out, _) = written(&[ack.clone(), ack.clone()]);
        assert_eq!(out.len(), 2);
        assert_eq!(&out[1][VIRTIO_NET_HDR_LEN..], &ack[..]);
    }
}
