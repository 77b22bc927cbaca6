//! DropTail FIFO limited in packets, in bytes, or both: a wired link direction's queue
//! without AQM (`aqm`); generic over what it holds (a packet, or what carries one).

use std::collections::VecDeque;

use airtcp_proto::agent::InterfaceQueue;
use airtcp_proto::wire::PacketRepr;
use serde::Deserialize;

use crate::packet::{Carries, Packet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueLimit {
    pub packets: Option<u32>,
    pub bytes: Option<u64>,
}

impl QueueLimit {
    /// A limit of `packets` packets alone.
    pub const fn packets(packets: u32) -> QueueLimit {
        QueueLimit {
            packets: Some(packets),
            bytes: None,
        }
    }

    /// Whether a queue of `packets` packets and `bytes` bytes has no room for `size` more
    /// bytes.
    pub fn full(&self, packets: usize, bytes: u64, size: u64) -> bool {
        self.packets
            .is_some_and(|max| packets as u64 >= u64::from(max))
            || self.bytes.is_some_and(|max| bytes + size > max)
    }
}

impl Default for QueueLimit {
    fn default() -> Self {
        QueueLimit {
            packets: Some(100),
            bytes: None,
        }
    }
}

#[derive(Debug)]
pub struct DropTailQueue<P = Packet> {
    limit: QueueLimit,
    packets: VecDeque<P>,
    bytes: u64,
}

impl<P: Carries> DropTailQueue<P> {
    pub fn new(limit: QueueLimit) -> Self {
        DropTailQueue {
            limit,
            packets: VecDeque::new(),
            bytes: 0,
        }
    }

    /// Appends `packet`, or drops it (returning false) when a limit would be exceeded.
    pub fn push(&mut self, packet: P) -> bool {
        let size = u64::from(packet.packet().len());
        if self.limit.full(self.packets.len(), self.bytes, size) {
            return false;
        }
        self.bytes += size;
        self.packets.push_back(packet);
        true
    }

    pub fn pop(&mut self) -> Option<P> {
        let packet = self.packets.pop_front()?;
        self.bytes -= u64::from(packet.packet().len());
        Some(packet)
    }

    pub fn front(&self) -> Option<&P> {
        self.packets.front()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.packets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
}

/// What an agent on the link's sending side sees: the packets waiting, head first (the one
/// being serialised has left the queue).
impl<P: Carries> InterfaceQueue for DropTailQueue<P> {
    fn len(&self) -> usize {
        self.packets.len()
    }

    fn get(&self, index: usize) -> Option<&PacketRepr> {
        self.packets.get(index).map(|packet| &packet.packet().repr)
    }

    fn remove(&mut self, index: usize) -> Option<PacketRepr> {
        let packet = self.packets.remove(index)?;
        self.bytes -= u64::from(packet.packet().len());
        Some(packet.packet().repr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::tests::udp_packet;

    #[test]
    fn drops_at_packet_limit() {
        let mut q = DropTailQueue::new(QueueLimit {
            packets: Some(2),
            bytes: None,
        });
        assert!(q.push(udp_packet(100)));
        assert!(q.push(udp_packet(100)));
        assert!(!q.push(udp_packet(100)));
        assert_eq!(q.len(), 2);
        q.pop();
        assert!(q.push(udp_packet(100)));
    }

    #[test]
    fn an_agent_removes_a_waiting_packet_and_frees_its_bytes() {
        let mut q = DropTailQueue::new(QueueLimit {
            packets: None,
            bytes: Some(300),
        });
        assert!(q.push(udp_packet(100 - 28)));
        assert!(q.push(udp_packet(200 - 28)));
        let agent_view: &mut dyn InterfaceQueue = &mut q;
        assert_eq!(agent_view.len(), 2);
        assert_eq!(agent_view.get(1).unwrap().ip_len(), 200);
        assert_eq!(agent_view.remove(0).unwrap().ip_len(), 100);
        assert!(agent_view.remove(1).is_none());
        assert!(
            q.push(udp_packet(100 - 28)),
            "the removed packet's 100 bytes are free"
        );
        assert!(!q.push(udp_packet(1)));
    }

    #[test]
    fn drops_at_byte_limit() {
        let mut q = DropTailQueue::new(QueueLimit {
            packets: None,
            bytes: Some(300),
        });
        assert!(q.push(udp_packet(100 - 28)));
        assert!(q.push(udp_packet(200 - 28)));
        assert!(!q.push(udp_packet(1)), "301 bytes would exceed 300");
        assert_eq!(q.pop().unwrap().len(), 100);
        assert!(q.push(udp_packet(100 - 28)));
    }
}
