//! Packet representations (the smoltcp `Repr` idea): the header fields protocol code reads and
//! writes, independent of any buffer. `emit` turns a representation into IPv4 bytes with valid
//! checksums (for pcap and the emulator), `parse` reads real bytes back (fuzzed: it is fed
//! packets from outside).
//!
//! Payloads are not carried: the simulator moves byte counts, not bytes. `emit` writes the
//! payload as zero bytes, which is what a trace of a bulk transfer shows anyway.
//!
//! `ieee80211` and `radiotap` write what an 802.11 monitor captures around those packets.

pub mod ieee80211;
mod packet;
pub mod radiotap;
mod tcp;

pub use packet::{EchoRepr, Ipv4Repr, PacketRepr, ParseError, TransportRepr, UdpRepr};
pub use tcp::{Compaction, SackBlocks, TcpFlags, TcpRepr, Timestamps};
