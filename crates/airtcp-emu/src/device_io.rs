//! Packets through the hosts' TUN devices with the kernel's offloads (`IFF_VNET_HDR`, TSO),
//! as wireguard-go and tun-rs do it: a read may bring a host's 64 KB TSO super-packet (as a
//! real NIC with TSO gets), which is split here into the MSS-sized segments it stands for,
//! checksums completed, so that the emulated network carries real packets. One read and
//! one pass of the host's stack per 64 KB instead of per segment: 1.25 Gbit/s through a
//! 10 Gbit/s link against 0.74 without (bench/emu_link.py, docs/benchmarks.md).
//!
//! Writes go one packet each, with an empty offload header (no GSO, checksum to be checked
//! by the host's stack): every segment reaches its host, and is acknowledged, on its own,
//! as in the simulator. Coalescing what one pass releases to a host (GRO, tun-rs's
//! `send_multiple`) was measured slower here (1.08-1.12 Gbit/s), its per-packet matching
//! costing more than the host's stack saved.

use std::io;

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

/// Writes packets to a device behind an empty offload header.
pub struct DeviceWriter {
    buffer: Vec<u8>,
}

impl Default for DeviceWriter {
    fn default() -> Self {
        DeviceWriter {
            buffer: vec![0; VIRTIO_NET_HDR_LEN],
        }
    }
}

impl DeviceWriter {
    /// Writes `packet` to `device`; an error means it was lost (the host's stack refused
    /// it).
    pub fn write(&mut self, device: &SyncDevice, packet: &[u8]) -> io::Result<()> {
        self.buffer.truncate(VIRTIO_NET_HDR_LEN);
        self.buffer.extend_from_slice(packet);
        device.send(&self.buffer).map(drop)
    }
}
