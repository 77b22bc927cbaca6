//! A node's trace (Ethernet/IPv4/TCP or UDP, valid checksums): what it sends from its own
//! stack and everything it receives, like `tcpdump -i any` would. Payloads are zeros, or
//! in emulation the hosts' real bytes.

use std::path::Path;

use airtcp_proto::Instant;
use pcap_file::DataLink;

use super::{mac_of, TraceFiles};
use crate::packet::{address_node, Packet};

const ETHERNET_HEADER_BYTES: usize = 14;
/// The pcap header's snap length when records are cut at the end of the headers: Ethernet,
/// IPv4 and the largest TCP header.
const HEADERS_SNAPLEN: u32 = 14 + 20 + 60;

pub struct NodeTraces {
    files: TraceFiles,
    buffer: Vec<u8>,
    snaplen: Option<u32>,
}

impl NodeTraces {
    /// Creates `<dir>/<node>.pcap` for every node; records keep `snaplen` bytes of each
    /// packet, or its headers only.
    pub fn create(
        dir: &Path,
        node_names: &[String],
        snaplen: Option<u32>,
    ) -> std::io::Result<NodeTraces> {
        let files = TraceFiles::create(
            dir,
            node_names.iter().cloned(),
            DataLink::ETHERNET,
            snaplen.unwrap_or(HEADERS_SNAPLEN),
        )?;
        Ok(NodeTraces {
            files,
            buffer: Vec::with_capacity(2048),
            snaplen,
        })
    }

    /// Records `packet` at `node`, with `payload` (the real bytes of an emulated host's
    /// packet) or zeros.
    pub fn record(
        &mut self,
        node: usize,
        at: Instant,
        packet: &Packet,
        payload: Option<&[u8]>,
    ) -> std::io::Result<()> {
        let src = address_node(packet.repr.ip.src).unwrap_or(0);
        let dst = address_node(packet.repr.ip.dst).unwrap_or(0);
        self.buffer.clear();
        self.buffer.extend_from_slice(&mac_of(dst));
        self.buffer.extend_from_slice(&mac_of(src));
        self.buffer.extend_from_slice(&[0x08, 0x00]);
        self.buffer.extend_from_slice(&match payload {
            Some(payload) => packet.repr.emit_with_payload(payload),
            None => packet.repr.emit(),
        });
        let original = self.buffer.len();
        let kept = match self.snaplen {
            Some(snaplen) => original.min(snaplen as usize),
            None => ETHERNET_HEADER_BYTES + packet.repr.header_len() as usize,
        };
        self.files.write(node, at, original, &self.buffer[..kept])
    }

    /// A run that did not finish leaves no partial traces behind.
    pub fn discard(self) {
        self.files.discard();
    }

    pub fn finish(self) -> std::io::Result<()> {
        self.files.finish()
    }
}
