//! Packet traces in pcap format with nanosecond timestamps: per node, the IP packets it sends
//! and receives (`node`); per BSS, the 802.11 frames on its channel with radiotap headers
//! (`wlan`); a node's TCP headers read back (`read`). Payloads are virtual (zeros), so by default records keep the headers only, as
//! `tcpdump -s` with a short snap length would: a record's original length is the whole
//! frame, so Wireshark still sees every byte of sequence space. File names are built from node
//! names, which validation keeps to safe characters (`crate::limits::is_safe_name`), so a
//! trace cannot land outside its directory.

mod node;
mod read;
mod wlan;

pub use node::NodeTraces;
pub use read::{tcp_records, TcpRecord};
pub use wlan::WlanTraces;

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Duration;

use airtcp_proto::wire::ieee80211::MacAddress;
use airtcp_proto::Instant;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};

/// Locally administered MAC address of a node.
fn mac_of(node: usize) -> MacAddress {
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

/// A set of pcap files being written; a run that does not finish removes them.
struct TraceFiles {
    writers: Vec<PcapWriter<BufWriter<File>>>,
    paths: Vec<PathBuf>,
}

impl TraceFiles {
    /// Creates `<dir>/<name>.pcap` for each name.
    fn create(
        dir: &Path,
        names: impl Iterator<Item = String>,
        datalink: DataLink,
        snaplen: u32,
    ) -> std::io::Result<TraceFiles> {
        std::fs::create_dir_all(dir)?;
        let header = PcapHeader {
            datalink,
            ts_resolution: TsResolution::NanoSecond,
            snaplen,
            ..PcapHeader::default()
        };
        let paths: Vec<PathBuf> = names.map(|name| dir.join(format!("{name}.pcap"))).collect();
        let writers = paths
            .iter()
            .map(|path| {
                let file = BufWriter::new(File::create(path)?);
                PcapWriter::with_header(file, header).map_err(std::io::Error::other)
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(TraceFiles { writers, paths })
    }

    /// Writes a record of a frame of `original_len` bytes of which `kept` are kept.
    fn write(
        &mut self,
        file: usize,
        at: Instant,
        original_len: usize,
        kept: &[u8],
    ) -> std::io::Result<()> {
        let record = PcapPacket::new(
            Duration::from_nanos(at.as_nanos()),
            original_len as u32,
            kept,
        );
        self.writers[file]
            .write_packet(&record)
            .map_err(std::io::Error::other)?;
        Ok(())
    }

    fn discard(self) {
        drop(self.writers);
        for path in &self.paths {
            let _ = std::fs::remove_file(path);
        }
    }

    fn finish(self) -> std::io::Result<()> {
        for writer in self.writers {
            use std::io::Write;
            writer.into_writer().flush()?;
        }
        Ok(())
    }
}
