//! What the base-station agents (Snoop, freeze, M-TCP) keep per TCP connection: which
//! connection a segment belongs to, the data segments sent towards the mobile and not yet
//! acknowledged by it, and the last ACK it sent. Sequence numbers are compared within a
//! window (RFC 9293 §3.4), so connections may wrap the sequence space.

use std::collections::VecDeque;

use super::Signal;
use crate::seq::SeqNumber;
use crate::time::Instant;
use crate::wire::{PacketRepr, TcpRepr};

/// A connection, named by its data direction: (sender address, port, receiver address, port).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConnectionKey {
    pub sender: ([u8; 4], u16),
    pub receiver: ([u8; 4], u16),
}

impl ConnectionKey {
    /// The connection of a data segment.
    pub fn of_data(packet: &PacketRepr, tcp: &TcpRepr) -> Self {
        ConnectionKey {
            sender: (packet.ip.src, tcp.src_port),
            receiver: (packet.ip.dst, tcp.dst_port),
        }
    }

    /// The connection an ACK (from the receiver) belongs to.
    pub fn of_ack(packet: &PacketRepr, tcp: &TcpRepr) -> Self {
        ConnectionKey {
            sender: (packet.ip.dst, tcp.dst_port),
            receiver: (packet.ip.src, tcp.src_port),
        }
    }
}

/// An agent's state per connection, in the order the connections were first seen (so what
/// an agent does for all of them happens in a fixed order).
#[derive(Clone, Debug)]
pub struct Connections<T> {
    entries: Vec<(ConnectionKey, T)>,
}

impl<T> Default for Connections<T> {
    fn default() -> Self {
        Connections {
            entries: Vec::new(),
        }
    }
}

impl<T: Default> Connections<T> {
    /// The state of `key`, new if it was not seen before.
    pub fn entry(&mut self, key: ConnectionKey) -> &mut T {
        let index = match self.entries.iter().position(|(k, _)| *k == key) {
            Some(index) => index,
            None => {
                self.entries.push((key, T::default()));
                self.entries.len() - 1
            }
        };
        &mut self.entries[index].1
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.entries.iter().map(|(_, state)| state)
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.entries.iter_mut().map(|(_, state)| state)
    }

    /// The states of the connections whose receiver (the mobile) `signal` concerns.
    pub fn concerned_by<'s>(&'s mut self, signal: Signal<'s>) -> impl Iterator<Item = &'s mut T> {
        self.entries
            .iter_mut()
            .filter(move |(key, _)| signal.concerns(key.receiver.0))
            .map(|(_, state)| state)
    }
}

/// A data segment kept for the mobile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cached {
    pub packet: PacketRepr,
    /// When it last went towards the mobile (by the sender or by the agent).
    pub sent_at: Instant,
    /// The fixed host sent it again itself (a timeout or a fast retransmit), so the loss it
    /// repairs is the sender's business, not the agent's.
    pub sender_retransmitted: bool,
    /// Times the agent retransmitted it locally.
    pub local_retransmissions: u32,
}

impl Cached {
    pub fn seq(&self) -> SeqNumber {
        self.tcp().seq
    }

    /// Sequence number just past its data.
    pub fn end(&self) -> SeqNumber {
        let tcp = self.tcp();
        tcp.seq + tcp.payload_len
    }

    fn tcp(&self) -> &TcpRepr {
        self.packet.tcp().expect("only TCP segments are cached")
    }
}

/// The data segments of one connection not yet acknowledged by the mobile, in sequence order.
#[derive(Clone, Debug, Default)]
pub struct SegmentCache {
    segments: VecDeque<Cached>,
}

/// What storing a segment found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// Beyond everything cached: the normal case.
    New,
    /// A segment cached before, sent again by the fixed host.
    Again,
    /// Below what is cached and not in it: it fills a gap a loss on the wired side left.
    Gap,
}

impl SegmentCache {
    pub fn len(&self) -> usize {
        self.segments.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Cached> {
        self.segments.iter()
    }

    /// Keeps a data segment going towards the mobile at `now`, unless `acked` covers it.
    pub fn store(&mut self, now: Instant, packet: PacketRepr, acked: Option<SeqNumber>) -> Stored {
        let tcp = packet.tcp().expect("a TCP segment");
        let (seq, end) = (tcp.seq, tcp.seq + tcp.payload_len);
        let cached = Cached {
            packet,
            sent_at: now,
            sender_retransmitted: false,
            local_retransmissions: 0,
        };
        if acked.is_some_and(|ack| end <= ack) {
            return Stored::Again;
        }
        if self.segments.back().is_none_or(|last| seq >= last.end()) {
            self.segments.push_back(cached);
            return Stored::New;
        }
        match self.segments.iter_mut().find(|c| c.seq() == seq) {
            Some(existing) => {
                existing.sent_at = now;
                existing.sender_retransmitted = true;
                Stored::Again
            }
            None => {
                let at = self
                    .segments
                    .iter()
                    .position(|c| c.seq() > seq)
                    .unwrap_or(self.segments.len());
                self.segments.insert(
                    at,
                    Cached {
                        sender_retransmitted: true,
                        ..cached
                    },
                );
                Stored::Gap
            }
        }
    }

    /// Forgets what `ack` acknowledges; returns the segments removed.
    pub fn acknowledge(&mut self, ack: SeqNumber) -> Vec<Cached> {
        let mut removed = Vec::new();
        while self.segments.front().is_some_and(|c| c.end() <= ack) {
            removed.extend(self.segments.pop_front());
        }
        removed
    }

    /// The cached segment starting at `seq`.
    pub fn at(&mut self, seq: SeqNumber) -> Option<&mut Cached> {
        self.segments.iter_mut().find(|c| c.seq() == seq)
    }

    pub fn first_mut(&mut self) -> Option<&mut Cached> {
        self.segments.front_mut()
    }

    /// Takes every segment out, in sequence order.
    pub fn drain(&mut self) -> impl Iterator<Item = Cached> + '_ {
        self.segments.drain(..)
    }
}

/// A copy of an ACK carrying no data, with its window set (unscaled field) to `window`.
pub fn ack_with_window(ack: &PacketRepr, window: u16) -> PacketRepr {
    let mut copy = *ack;
    if let Some(tcp) = copy.tcp_mut() {
        tcp.window = window;
        tcp.payload_len = 0;
        tcp.flags.fin = false;
        tcp.flags.syn = false;
        tcp.flags.psh = false;
    }
    copy
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::wire::{Ipv4Repr, TcpFlags, TransportRepr};

    pub(crate) const FIXED: [u8; 4] = [10, 0, 0, 1];
    pub(crate) const MOBILE: [u8; 4] = [10, 0, 0, 5];

    /// A data segment from the fixed host to the mobile.
    pub(crate) fn data(seq: u32, len: u32) -> PacketRepr {
        segment(FIXED, MOBILE, 5001, 80, seq, 1, len)
    }

    /// The mobile's pure ACK.
    pub(crate) fn ack(ack: u32, window: u16) -> PacketRepr {
        let mut packet = segment(MOBILE, FIXED, 80, 5001, 1, ack, 0);
        if let Some(tcp) = packet.tcp_mut() {
            tcp.window = window;
        }
        packet
    }

    fn segment(
        src: [u8; 4],
        dst: [u8; 4],
        src_port: u16,
        dst_port: u16,
        seq: u32,
        ack: u32,
        payload_len: u32,
    ) -> PacketRepr {
        PacketRepr {
            ip: Ipv4Repr {
                src,
                dst,
                ttl: 64,
                dscp: 0,
                ecn: 0,
            },
            transport: TransportRepr::Tcp(TcpRepr {
                src_port,
                dst_port,
                seq: SeqNumber(seq),
                ack: SeqNumber(ack),
                flags: TcpFlags {
                    ack: true,
                    ..TcpFlags::default()
                },
                window: 1000,
                mss: None,
                window_scale: None,
                sack_permitted: false,
                sack: Default::default(),
                timestamps: None,
                compaction: None,
                payload_len,
            }),
        }
    }

    #[test]
    fn data_and_its_ack_name_the_same_connection() {
        let d = data(1, 10);
        let a = ack(11, 100);
        assert_eq!(
            ConnectionKey::of_data(&d, d.tcp().unwrap()),
            ConnectionKey::of_ack(&a, a.tcp().unwrap())
        );
    }

    #[test]
    fn the_cache_keeps_order_marks_resends_and_fills_gaps_across_the_wrap() {
        let mut cache = SegmentCache::default();
        let base = u32::MAX - 1500;
        let t = Instant::ZERO;
        assert_eq!(cache.store(t, data(base, 1000), None), Stored::New);
        assert_eq!(
            cache.store(t, data(base.wrapping_add(2000), 1000), None),
            Stored::New
        );
        assert_eq!(
            cache.store(t, data(base.wrapping_add(1000), 1000), None),
            Stored::Gap
        );
        assert_eq!(cache.store(t, data(base, 1000), None), Stored::Again);
        let seqs: Vec<u32> = cache.iter().map(|c| c.seq().0).collect();
        assert_eq!(
            seqs,
            [base, base.wrapping_add(1000), base.wrapping_add(2000)]
        );
        assert!(cache.iter().next().unwrap().sender_retransmitted);
        let removed = cache.acknowledge(SeqNumber(base.wrapping_add(2000)));
        assert_eq!(removed.len(), 2);
        assert_eq!(cache.len(), 1);
        // Acknowledged already: not kept.
        let acked = Some(SeqNumber(base.wrapping_add(2000)));
        assert_eq!(cache.store(t, data(base, 1000), acked), Stored::Again);
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn a_frozen_ack_carries_no_data_and_the_window_given() {
        let frozen = ack_with_window(&data(7, 100), 0);
        let tcp = frozen.tcp().unwrap();
        assert_eq!((tcp.window, tcp.payload_len, tcp.ack), (0, 0, SeqNumber(1)));
    }
}
