//! Real payloads beside the simulator's header-only packets, for the emulator: the bytes a
//! host's kernel sent wait here until the packet leaves the emulated network.
//!
//! Each payload is parked in a slab of buffers that are reused (no allocation per packet
//! once warm) and found by its packet's uid, in a ring indexed by uid (uids only grow).
//! Without agents a payload is released when its packet reaches its host, so what is held
//! is what is in flight. With agents that send a segment again (Snoop's local
//! retransmission, a new packet with the same headers), TCP segments are also found by
//! connection and sequence number and are kept after delivery. Either way the oldest are
//! forgotten beyond a byte budget (packets the network dropped are never released): a
//! packet still queued after the budget's worth of newer traffic is sent without its
//! payload being found, and counted.

use std::collections::{HashMap, VecDeque};

use airtcp_proto::wire::{PacketRepr, TransportRepr};

use crate::slab::Slab;

/// Where a TCP segment's payload is found under any uid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct SegmentKey {
    src: [u8; 4],
    dst: [u8; 4],
    ports: (u16, u16),
    seq: u32,
}

impl SegmentKey {
    fn of(repr: &PacketRepr) -> Option<SegmentKey> {
        match &repr.transport {
            TransportRepr::Tcp(tcp) => Some(SegmentKey {
                src: repr.ip.src,
                dst: repr.ip.dst,
                ports: (tcp.src_port, tcp.dst_port),
                seq: tcp.seq.0,
            }),
            _ => None,
        }
    }
}

/// A parked payload and the segment key it is also found by (with resends).
#[derive(Debug)]
struct Parked {
    bytes: Vec<u8>,
    key: Option<SegmentKey>,
}

/// Payloads by packet uid (and segment, with resends), forgotten oldest first beyond
/// `budget_bytes`.
#[derive(Debug)]
pub struct PayloadStore {
    parked: Slab<Parked>,
    /// Buffers of released payloads, for the next ones.
    spare: Vec<Vec<u8>>,
    /// The slot of each uid from `first_uid` on (None: none, or released).
    by_uid: VecDeque<Option<u32>>,
    first_uid: u64,
    /// With resends: the newest slot of each TCP segment.
    by_segment: Option<HashMap<SegmentKey, u32>>,
    bytes: usize,
    budget_bytes: usize,
}

/// 256 MiB: two seconds of a gigabit per second, far beyond any queue's delay here.
pub const DEFAULT_PAYLOAD_BUDGET: usize = 256 << 20;

impl PayloadStore {
    /// A store that finds TCP segments by sequence number as well if `resends` (agents
    /// may send a segment again).
    pub fn new(budget_bytes: usize, resends: bool) -> Self {
        PayloadStore {
            parked: Slab::default(),
            spare: Vec::new(),
            by_uid: VecDeque::new(),
            first_uid: 0,
            by_segment: resends.then(HashMap::new),
            bytes: 0,
            budget_bytes,
        }
    }

    /// Keeps the payload of the packet `uid` with headers `repr` (nothing for an empty one).
    /// Uids must not decrease.
    pub fn insert(&mut self, uid: u64, repr: &PacketRepr, payload: &[u8]) {
        if payload.is_empty() {
            return;
        }
        if self.by_uid.is_empty() {
            self.first_uid = uid;
        }
        let index = usize::try_from(uid - self.first_uid).expect("uids only grow");
        if index >= self.by_uid.len() {
            self.by_uid.resize(index + 1, None);
        }
        let mut bytes = self.spare.pop().unwrap_or_default();
        bytes.clear();
        bytes.extend_from_slice(payload);
        let key = self.by_segment.as_ref().and(SegmentKey::of(repr));
        let slot = self.parked.insert(Parked { bytes, key });
        self.by_uid[index] = Some(slot);
        if let (Some(by_segment), Some(key)) = (self.by_segment.as_mut(), key) {
            // A kernel retransmission stores a segment again: the newest is found.
            by_segment.insert(key, slot);
        }
        self.bytes += payload.len();
        while self.bytes > self.budget_bytes {
            let Some(oldest) = self.by_uid.pop_front() else {
                break;
            };
            self.first_uid += 1;
            if let Some(slot) = oldest {
                self.free(slot);
            }
        }
    }

    /// The payload of the packet `uid` with headers `repr`: `payload_len()` bytes, or `None`
    /// when it was never seen, has been released or forgotten. With resends a TCP segment
    /// is found under any uid, and one stored longer (the kernel sent more at that
    /// sequence number before) gives its first bytes.
    pub fn get(&self, uid: u64, repr: &PacketRepr) -> Option<&[u8]> {
        let len = repr.payload_len() as usize;
        if len == 0 {
            return Some(&[]);
        }
        let slot = match (self.by_segment.as_ref(), SegmentKey::of(repr)) {
            (Some(by_segment), Some(key)) => *by_segment.get(&key)?,
            _ => self.slot_of(uid)?,
        };
        self.parked.get(slot)?.bytes.get(..len)
    }

    /// The packet `uid` has left the network: without resends its payload is no longer
    /// needed.
    pub fn release(&mut self, uid: u64) {
        if self.by_segment.is_some() {
            return;
        }
        let Some(index) = uid.checked_sub(self.first_uid) else {
            return;
        };
        let Some(slot) = self.by_uid.get_mut(index as usize).and_then(Option::take) else {
            return;
        };
        self.free(slot);
        while self.by_uid.front() == Some(&None) {
            self.by_uid.pop_front();
            self.first_uid += 1;
        }
    }

    fn slot_of(&self, uid: u64) -> Option<u32> {
        let index = uid.checked_sub(self.first_uid)?;
        *self.by_uid.get(usize::try_from(index).ok()?)?
    }

    fn free(&mut self, slot: u32) {
        let parked = self.parked.take(slot);
        self.bytes -= parked.bytes.len();
        if let (Some(by_segment), Some(key)) = (self.by_segment.as_mut(), parked.key) {
            if by_segment.get(&key) == Some(&slot) {
                by_segment.remove(&key);
            }
        }
        self.spare.push(parked.bytes);
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
        let mut store = PayloadStore::new(1 << 20, true);
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
        let mut store = PayloadStore::new(10, true);
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

    #[test]
    fn without_resends_a_payload_is_found_by_uid_and_released_on_delivery() {
        let mut store = PayloadStore::new(1 << 20, false);
        store.insert(5, &segment(1000, 4), &[1, 2, 3, 4]);
        store.insert(9, &segment(1004, 2), &[5, 6]);
        assert_eq!(store.get(5, &segment(1000, 4)), Some(&[1, 2, 3, 4][..]));
        // Not by sequence number: no agent sends a segment again.
        assert_eq!(store.get(6, &segment(1000, 4)), None);
        store.release(5);
        assert_eq!(store.get(5, &segment(1000, 4)), None);
        assert_eq!(store.bytes(), 2);
        assert_eq!(store.get(9, &segment(1004, 2)), Some(&[5, 6][..]));
        store.release(9);
        assert_eq!((store.bytes(), store.by_uid.len()), (0, 0));
        // Buffers are reused, not allocated again.
        store.insert(10, &segment(1006, 3), &[7, 8, 9]);
        assert_eq!(store.spare.len(), 1);
        assert_eq!(store.get(10, &segment(1006, 3)), Some(&[7, 8, 9][..]));
    }

    #[test]
    fn with_resends_a_delivered_segment_stays_for_an_agents_retransmission() {
        let mut store = PayloadStore::new(1 << 20, true);
        store.insert(1, &segment(0, 2), &[1, 2]);
        store.release(1);
        assert_eq!(store.get(77, &segment(0, 2)), Some(&[1, 2][..]));
    }

    #[test]
    fn without_resends_what_is_never_released_is_forgotten_beyond_the_budget() {
        let mut store = PayloadStore::new(10, false);
        store.insert(1, &segment(0, 4), &[0; 4]); // dropped in the network: never released
        store.insert(2, &segment(4, 4), &[1; 4]);
        store.release(2);
        store.insert(3, &segment(8, 4), &[2; 4]);
        store.insert(4, &segment(12, 4), &[3; 4]);
        assert_eq!(store.get(1, &segment(0, 4)), None);
        assert_eq!(store.bytes(), 8);
        assert!(store.get(3, &segment(8, 4)).is_some());
    }
}
