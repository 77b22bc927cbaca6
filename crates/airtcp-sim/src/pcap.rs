//! Per-node packet traces in pcap format (Ethernet/IPv4/TCP or UDP, valid checksums,
//! nanosecond timestamps), readable by Wireshark's TCP analysis. A node's trace holds what
//! it sends from its own stack and everything it receives, like `tcpdump -i any` would.
//!
//! Payloads are virtual (zeros), so by default each record keeps the headers only, as
//! `tcpdump -s` with a short snap length would: the record's original length is the whole
//! packet, so Wireshark still sees every byte of sequence space. A snap length keeps more.
//! File names are node names, which validation keeps to safe characters
//! (`crate::limits::is_safe_name`), so a trace cannot land outside its directory.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Duration;

use airtcp_proto::Instant;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};

use crate::packet::{address_node, Packet};

pub struct PcapSet {
    writers: Vec<PcapWriter<BufWriter<File>>>,
    paths: Vec<PathBuf>,
    buffer: Vec<u8>,
    snaplen: Option<u32>,
}

const ETHERNET_HEADER_BYTES: usize = 14;
/// The pcap header's snap length when records are cut at the end of the headers: Ethernet,
/// IPv4 and the largest TCP header.
const HEADERS_SNAPLEN: u32 = 14 + 20 + 60;

/// Locally administered MAC address of a node.
fn mac_of(node: usize) -> [u8; 6] {
    let n = node as u32;
    [
        0x02,
        0x00,
        (n >> 24) as u8,
        (n >> 16) as u8,
        (n >> 8) as u8,
        n as u8,
    ]
}

impl PcapSet {
    /// Creates `<dir>/<node>.pcap` for every node; records keep `snaplen` bytes of each
    /// packet, or its headers only.
    pub fn create(
        dir: &Path,
        node_names: &[String],
        snaplen: Option<u32>,
    ) -> std::io::Result<PcapSet> {
        std::fs::create_dir_all(dir)?;
        let header = PcapHeader {
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            snaplen: snaplen.unwrap_or(HEADERS_SNAPLEN),
            ..PcapHeader::default()
        };
        let paths: Vec<PathBuf> = node_names
            .iter()
            .map(|name| dir.join(format!("{name}.pcap")))
            .collect();
        let writers = paths
            .iter()
            .map(|path| {
                let file = BufWriter::new(File::create(path)?);
                PcapWriter::with_header(file, header).map_err(std::io::Error::other)
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(PcapSet {
            writers,
            paths,
            buffer: Vec::with_capacity(2048),
            snaplen,
        })
    }

    pub fn record(&mut self, node: usize, at: Instant, packet: &Packet) -> std::io::Result<()> {
        let src = address_node(packet.repr.ip.src).unwrap_or(0);
        let dst = address_node(packet.repr.ip.dst).unwrap_or(0);
        self.buffer.clear();
        self.buffer.extend_from_slice(&mac_of(dst));
        self.buffer.extend_from_slice(&mac_of(src));
        self.buffer.extend_from_slice(&[0x08, 0x00]);
        self.buffer.extend_from_slice(&packet.repr.emit());
        let original = self.buffer.len();
        let kept = match self.snaplen {
            Some(snaplen) => original.min(snaplen as usize),
            None => ETHERNET_HEADER_BYTES + packet.repr.header_len() as usize,
        };
        let record = PcapPacket::new(
            Duration::from_nanos(at.as_nanos()),
            original as u32,
            &self.buffer[..kept],
        );
        self.writers[node]
            .write_packet(&record)
            .map_err(std::io::Error::other)?;
        Ok(())
    }

    /// A run that did not finish leaves no partial traces behind.
    pub fn discard(self) {
        drop(self.writers);
        for path in &self.paths {
            let _ = std::fs::remove_file(path);
        }
    }

    pub fn finish(self) -> std::io::Result<()> {
        for writer in self.writers {
            use std::io::Write;
            writer.into_writer().flush()?;
        }
        Ok(())
    }
}
