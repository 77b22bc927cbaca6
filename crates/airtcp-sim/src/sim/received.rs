//! What reached each emulated host, per connection, measured where the simulator measures a
//! flow's goodput: at the receiver, on the scenario's clock. The emulator reports a flow's
//! goodput from here rather than from its traffic tool's own intervals, whose clock starts
//! when the tool's test starts (after its process launched and its connections were made),
//! not at a scenario instant.
//!
//! A TCP connection's new bytes are those past the highest sequence number delivered so far
//! (the first delivered segment, its SYN if seen, starts the count): a retransmission of
//! what already arrived adds nothing, one that fills a hole below it is already counted.
//! That is the receiver's in-order delivery but for bytes held out of order across an edge
//! of the window. UDP counts every datagram's payload.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use airtcp_proto::wire::{PacketRepr, TransportRepr};
use airtcp_proto::{Instant, SeqNumber};
use serde::Serialize;

/// The width of a connection's receive series.
pub const RECEIVED_BIN_NS: u64 = 100_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct ConnectionKey {
    protocol: u8,
    src: [u8; 4],
    dst: [u8; 4],
    src_port: u16,
    dst_port: u16,
}

#[derive(Clone, Debug, Default)]
struct Receipt {
    /// The sequence number after the highest byte delivered (TCP).
    high: Option<SeqNumber>,
    bytes: u64,
    bytes_in_window: u64,
    bins: Vec<u64>,
}

/// One connection's (or UDP port pair's) bytes that reached its destination host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Received {
    pub protocol: &'static str,
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub src_port: u16,
    pub dst_port: u16,
    /// New application bytes over the whole run.
    pub bytes: u64,
    /// New application bytes in the scenario's measurement window.
    pub bytes_in_window: u64,
    /// New application bytes per [`RECEIVED_BIN_NS`] from time 0.
    pub bins: Vec<u64>,
}

/// The receipts of every connection, counted in the window `[from, to)`.
#[derive(Clone, Debug)]
pub(super) struct ReceivedLog {
    window: (Instant, Instant),
    receipts: BTreeMap<ConnectionKey, Receipt>,
}

impl ReceivedLog {
    pub(super) fn new(from: Instant, to: Instant) -> Self {
        ReceivedLog {
            window: (from, to),
            receipts: BTreeMap::new(),
        }
    }

    /// `repr` reached its destination host at `now`.
    pub(super) fn record(&mut self, now: Instant, repr: &PacketRepr) {
        let (protocol, ports) = match &repr.transport {
            TransportRepr::Tcp(tcp) => (6, (tcp.src_port, tcp.dst_port)),
            TransportRepr::Udp(udp) => (17, (udp.src_port, udp.dst_port)),
            TransportRepr::Echo(_) => return,
        };
        let key = ConnectionKey {
            protocol,
            src: repr.ip.src,
            dst: repr.ip.dst,
            src_port: ports.0,
            dst_port: ports.1,
        };
        let receipt = self.receipts.entry(key).or_default();
        let new = match &repr.transport {
            TransportRepr::Tcp(tcp) => {
                // The SYN takes one sequence number before the data.
                let start = tcp.seq + u32::from(tcp.flags.syn);
                let end = start + tcp.payload_len;
                let high = *receipt.high.get_or_insert(start);
                receipt.high = Some(high.max(end));
                if end > high {
                    u64::from(end - high)
                } else {
                    0
                }
            }
            TransportRepr::Udp(udp) => u64::from(udp.payload_len),
            TransportRepr::Echo(_) => 0,
        };
        if new == 0 {
            return;
        }
        receipt.bytes += new;
        if self.window.0 <= now && now < self.window.1 {
            receipt.bytes_in_window += new;
        }
        let bin = (now.as_nanos() / RECEIVED_BIN_NS) as usize;
        if receipt.bins.len() <= bin {
            receipt.bins.resize(bin + 1, 0);
        }
        receipt.bins[bin] += new;
    }

    pub(super) fn received(&self) -> Vec<Received> {
        self.receipts
            .iter()
            .map(|(key, receipt)| Received {
                protocol: if key.protocol == 6 { "tcp" } else { "udp" },
                src: Ipv4Addr::from(key.src),
                dst: Ipv4Addr::from(key.dst),
                src_port: key.src_port,
                dst_port: key.dst_port,
                bytes: receipt.bytes,
                bytes_in_window: receipt.bytes_in_window,
                bins: receipt.bins.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::tests::udp_packet;
    use airtcp_proto::wire::{TcpFlags, TcpRepr};

    fn segment(seq: u32, len: u32, syn: bool) -> PacketRepr {
        let mut repr = udp_packet(0).repr;
        repr.transport = TransportRepr::Tcp(TcpRepr {
            src_port: 40000,
            dst_port: 5201,
            seq: SeqNumber(seq),
            payload_len: len,
            flags: TcpFlags {
                syn,
                ..TcpFlags::default()
            },
            ..TcpRepr::default()
        });
        repr
    }

    fn at_ms(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    #[test]
    fn new_tcp_bytes_are_counted_once_in_their_window_and_bin() {
        let mut log = ReceivedLog::new(at_ms(100), at_ms(300));
        // Sequence numbers wrap during the transfer.
        let isn = u32::MAX - 1_000;
        log.record(at_ms(10), &segment(isn, 0, true));
        log.record(at_ms(50), &segment(isn + 1, 1000, false));
        log.record(at_ms(150), &segment(isn.wrapping_add(2001), 1000, false)); // a hole
        log.record(at_ms(160), &segment(isn.wrapping_add(1001), 1000, false)); // filled
        log.record(at_ms(170), &segment(isn + 1, 1000, false)); // a duplicate
        log.record(at_ms(350), &segment(isn.wrapping_add(3001), 500, false));
        let [received] = &log.received()[..] else {
            panic!("one connection");
        };
        assert_eq!(received.protocol, "tcp");
        assert_eq!((received.src_port, received.dst_port), (40000, 5201));
        assert_eq!(received.bytes, 3500);
        // The hole's filling adds nothing: its bytes were counted with the segment past it.
        assert_eq!(received.bytes_in_window, 2000);
        assert_eq!(received.bins, vec![1000, 2000, 0, 500]);
    }

    #[test]
    fn udp_counts_every_datagram_and_echoes_nothing() {
        let mut log = ReceivedLog::new(at_ms(0), at_ms(1000));
        let datagram = udp_packet(100).repr;
        let length = u64::from(datagram.payload_len());
        assert!(length > 0);
        log.record(at_ms(1), &datagram);
        log.record(at_ms(2), &datagram);
        let received = log.received();
        assert_eq!(received.len(), 1);
        assert_eq!(received[0].protocol, "udp");
        assert_eq!(received[0].bytes_in_window, 2 * length);
        let mut echo = datagram;
        echo.transport = TransportRepr::Echo(airtcp_proto::wire::EchoRepr {
            reply: false,
            id: 1,
            seq: 1,
            payload_len: 56,
        });
        log.record(at_ms(3), &echo);
        assert_eq!(log.received().len(), 1);
    }
}
