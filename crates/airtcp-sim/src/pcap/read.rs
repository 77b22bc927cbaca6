//! Reading TCP headers back from a node's trace (Ethernet/IPv4 pcap, micro- or nanosecond
//! timestamps, records cut after the headers as `pcap::NodeTraces` writes them, or whole):
//! what the analysis of an emulation needs from a kernel's packets, such as when a receiver
//! acknowledged which bytes. A trace is outside input: a malformed file is an error naming
//! it, and records that are not IPv4/TCP, or too short for the TCP header, are skipped.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use etherparse::{LaxNetSlice, LaxSlicedPacket, TransportSlice};
use pcap_file::pcap::PcapReader;
use pcap_file::{DataLink, TsResolution};

/// One TCP segment of a trace; addresses as IPv4 integers, `payload_bytes` from the IP total
/// length (so a record cut after its headers still counts its payload).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpRecord {
    pub time_ns: u64,
    pub src: u32,
    pub dst: u32,
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: Option<u32>,
    pub payload_bytes: u32,
    pub syn: bool,
    pub fin: bool,
}

/// The TCP segments of the Ethernet trace at `path`, in file order.
pub fn tcp_records(path: &Path) -> Result<Vec<TcpRecord>, String> {
    let name = path.display();
    let file = File::open(path).map_err(|e| format!("{name}: {e}"))?;
    let mut reader =
        PcapReader::new(BufReader::new(file)).map_err(|e| format!("{name}: not a pcap: {e}"))?;
    let header = reader.header();
    if header.datalink != DataLink::ETHERNET {
        return Err(format!(
            "{name}: link type {:?}, expected Ethernet (a node's trace)",
            header.datalink
        ));
    }
    let frac_ns = match header.ts_resolution {
        TsResolution::MicroSecond => 1_000,
        TsResolution::NanoSecond => 1,
    };
    let mut records = Vec::new();
    let mut index = 0;
    // Raw records: pcap-file's checked ones refuse a record whose original length exceeds the
    // snap length, which is what a capture cut after the headers is.
    while let Some(packet) = reader.next_raw_packet() {
        let packet = packet.map_err(|e| format!("{name}: record {index}: {e}"))?;
        index += 1;
        let time_ns =
            u64::from(packet.ts_sec) * 1_000_000_000 + u64::from(packet.ts_frac) * frac_ns;
        if let Some(record) = tcp_record(time_ns, &packet.data) {
            records.push(record);
        }
    }
    Ok(records)
}

/// The TCP header of one Ethernet frame, if it holds IPv4 and a whole TCP header.
fn tcp_record(time_ns: u64, frame: &[u8]) -> Option<TcpRecord> {
    let sliced = LaxSlicedPacket::from_ethernet(frame).ok()?;
    let Some(LaxNetSlice::Ipv4(ip)) = &sliced.net else {
        return None;
    };
    let Some(TransportSlice::Tcp(tcp)) = &sliced.transport else {
        return None;
    };
    let header = ip.header();
    let headers = u32::from(header.ihl()) * 4 + u32::from(tcp.data_offset()) * 4;
    Some(TcpRecord {
        time_ns,
        src: u32::from(header.source_addr()),
        dst: u32::from(header.destination_addr()),
        src_port: tcp.source_port(),
        dst_port: tcp.destination_port(),
        seq: tcp.sequence_number(),
        ack: tcp.ack().then(|| tcp.acknowledgment_number()),
        payload_bytes: u32::from(header.total_len()).saturating_sub(headers),
        syn: tcp.syn(),
        fin: tcp.fin(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any bytes as a frame: a record or none, never a panic.
        #[test]
        fn any_frame_parses_or_is_skipped(frame in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = tcp_record(0, &frame);
        }

        /// Any bytes as a file, bare or after a valid pcap header: records or an error
        /// naming the file, never a panic.
        #[test]
        fn any_file_reads_or_fails_with_its_name(
            bytes in proptest::collection::vec(any::<u8>(), 0..400),
            with_header: bool,
        ) {
            let mut file = Vec::new();
            if with_header {
                let header = pcap_file::pcap::PcapHeader {
                    datalink: DataLink::ETHERNET,
                    ..Default::default()
                };
                pcap_file::pcap::PcapWriter::with_header(&mut file, header).unwrap();
            }
            file.extend_from_slice(&bytes);
            let path = std::env::temp_dir()
                .join(format!("airtcp-pcap-read-{}.pcap", std::process::id()));
            std::fs::write(&path, &file).unwrap();
            let read = tcp_records(&path);
            std::fs::remove_file(&path).unwrap();
            if let Err(message) = read {
                prop_assert!(message.starts_with(&path.display().to_string()));
            }
        }
    }
}
