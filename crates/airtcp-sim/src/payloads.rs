//! Real payloads beside the simulator's header-only packets, for the emulator: the bytes a
//! host's kernel sent wait here until the packet leaves the emulated network. A TCP
//! segment's bytes are kept by connection and sequence number, so that a segment an agent
//! sends again (Snoop's local retransmission) finds them; other payloads by packet uid.
//! The oldest are forgotten beyond a byte budget: a packet still queued after the budget's
//! worth of newer traffic is sent without its payload being found, and counted.

use std::collections::{HashMap, VecDeque};

use airtcp_proto::wire::{PacketRepr, TransportRepr};

/// Where a payload is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Segment {
        src: [u8; 4],
        dst: [u8; 4],
        ports: (u16, u16),
        seq: u32,
    },
    Uid(u64),
}

impl Key {
    fn of(uid: u64, repr: &PacketRepr) -> Key {
        match &repr.transport {
            TransportRepr::Tcp(tcp) => Key::Segment {
                src: repr.ip.src,
                dst: repr.ip.dst,
                ports: (tcp.src_port, tcp.dst_port),
                seq: tcp.seq.0,
            },
            _ => Key::Uid(uid),
        }
    }
}

/// Payloads by key, forgotten oldest first beyond `budget_bytes`.
#[derive(Debug)]
pub struct PayloadStore {
    entries: HashMap<Key, (u64, Box<[u8]>)>,
    /// Keys in insertion order with the generation they were stored under: an entry stored
    /// again (a kernel retransmission) is forgotten by its newest generation only.
    order: VecDeque<(Key, u64)>,
    generation: u64,
    bytes: usize,
    budget_bytes: usize,
}

/// 256 MiB: two seconds of a gigabit per second, far beyond any queue's delay here.
pub const DEFAULT_PAYLOAD_BUDGET: usize = 256 << 20;

impl PayloadStore {
    pub fn new(budget_bytes: usize) -> Self {
        PayloadStore {
            entries: HashMap::new(),
            order: VecDeque::new(),
            generation: 0,
            bytes: 0,
            budget_bytes,
        }
    }

    /// Keeps the payload of the packet `uid` with headers `repr` (nothing for an empty one).
    pub fn insert(&mut self, uid: u64, repr: &PacketRepr, payload: &[u8]) {
        if payload.is_empty() {
            return;
        }
        let key = Key::of(uid, repr);
        self.generation += 1;
        self.bytes += payload.len();
        if let Some((_, old)) = self.entries.insert(key, (self.generation, payload.into())) {
            self.bytes -= old.len();
        }
        self.order.push_back((key, self.generation));
        while self.bytes > self.budget_bytes {
            let Some((key, generation)) = self.order.pop_front() else {
                break;
            };
            if self
                .entries
                .get(&key)
                .is_some_and(|(g, _)| *g == generation)
            {
                let (_, old) = self.entries.remove(&key).expect("just looked up");
                self.bytes -= old.len();
            }
        }
    }

    /// The payload of the packet `uid` with headers `repr`: `payload_len()` bytes, or `None`
    /// when it was never seen or has been forgotten. A TCP segment stored longer (the
    /// kernel sent more at that sequence number before) gives its first bytes.
    pub fn get(&self, uid: u64, repr: &PacketRepr) -> Option<&[u8]> {
        let len = repr.payload_len() as usize;
        if len == 0 {
            return Some(&[]);
        }
        let (_, bytes) = self.entries.get(&Key::of(uid, repr))?;
        bytes.get(..len)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::tests::udp_packet;
    use airtcp_proto::wire::TcpRepr;
    use airtcp_proto::SeqNumber;

    fn segment(seq: u32, len: u32) -> PacketRepr {
        let mut repr = udp_packet(0).repr;
        repr.transport = TransportRepr::Tcp(TcpRepr {
            seq: SeqNumber(seq),
            payload_len: len,
            ..TcpRepr::default()
        });
        repr
    }

    #[test]
    fn segments_are_found_by_sequence_number_under_any_uid() {
        let mut store = PayloadStore::new(1 << 20);
        store.insert(1, &segment(1000, 4), &[1, 2, 3, 4]);
        // An agent's retransmission is a new packet (another uid) with the same headers.
        assert_eq!(store.get(99, &segment(1000, 4)), Some(&[1, 2, 3, 4][..]));
        assert_eq!(store.get(99, &segment(1000, 2)), Some(&[1, 2][..]));
        assert_eq!(store.get(1, &segment(1000, 5)), None);
        assert_eq!(store.get(1, &segment(1004, 4)), None);
        assert_eq!(store.get(1, &segment(1004, 0)), Some(&[][..]));
        let datagram = udp_packet(3).repr;
        store.insert(7, &datagram, &[9, 9, 9]);
        assert_eq!(store.get(7, &datagram), Some(&[9, 9, 9][..]));
        assert_eq!(store.get(8, &datagram), None);
    }

    #[test]
    fn the_oldest_are_forgotten_beyond_the_budget_and_a_stored_again_entry_is_kept() {
        let mut store = PayloadStore::new(10);
        store.insert(1, &segment(0, 4), &[0; 4]);
        store.insert(2, &segment(4, 4), &[1; 4]);
        // Stored again: its first place in line must not forget it.
        store.insert(3, &segment(0, 4), &[0; 4]);
        store.insert(4, &segment(8, 4), &[2; 4]);
        assert_eq!(store.bytes(), 8);
        assert!(store.get(0, &segment(0, 4)).is_some());
        assert!(store.get(0, &segment(4, 4)).is_none());
        assert!(store.get(0, &segment(8, 4)).is_some());
    }
}
