//! What the ACK regenerators (RFC 3449 section 5.2: reconstruction `ar`, expansion in `acc`,
//! and paper 003's `dar`) share: for each connection, a train of ACKs to hand on towards the
//! sender at set times, the received ACK last. Order is the train's: an ACK that arrives
//! while a train is still leaving first sends what is left of it at once (those count as
//! late: an implementation that let the new ACK overtake them would reorder the ACK stream,
//! paper 003's Fig 2), so the sender never sees an ACK older than one it has seen.
//!
//! Regenerated ACKs are copies of the received one with another acknowledgment number: real
//! segments with the connection's addresses, ports, sequence number and window, whose
//! checksums are computed when they are emitted ([`crate::wire::PacketRepr::emit`]).
//!
//! The regenerating agents (`ar`, `acc`, `dar`) implement [`AckRegenerator`]; their
//! [`Agent`] implementation is this module's, the same for all three.

use core::fmt;
use core::time::Duration;
use std::collections::VecDeque;

use super::ack_filter::triggers;
use super::connection::{ConnectionKey, Connections};
use super::{Agent, Direction, InterfaceQueue, Verdict};
use crate::seq::SeqNumber;
use crate::time::Instant;
use crate::wire::{PacketRepr, TcpRepr};

/// An agent on the far side of a slow link, on its interface to the link: it sees the data
/// going towards the receiver and the ACKs coming out of the link, and sends ACKs on
/// through its [`Regenerator`].
pub trait AckRegenerator: fmt::Debug + Send {
    /// The kind, as scenarios name it.
    const KIND: &'static str;

    fn regenerator(&self) -> &Regenerator;

    fn regenerator_mut(&mut self) -> &mut Regenerator;

    /// A data segment going towards the receiver.
    fn on_data(&mut self, packet: &PacketRepr, tcp: &TcpRepr);

    /// A pure ACK coming out of the slow link.
    fn on_ack(&mut self, now: Instant, packet: &mut PacketRepr) -> Verdict;

    /// An ACK going into the slow link (what a compactor acts on); nothing by default.
    fn on_outbound_ack(&mut self, _packet: &mut PacketRepr, _queue: &mut dyn InterfaceQueue) {}

    /// Counters besides the regenerator's.
    fn own_counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

impl<T: AckRegenerator> Agent for T {
    fn name(&self) -> &'static str {
        T::KIND
    }

    fn handle_packet(
        &mut self,
        now: Instant,
        direction: Direction,
        packet: &mut PacketRepr,
        queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        let Some(tcp) = packet.tcp().copied() else {
            return Verdict::Pass;
        };
        match direction {
            Direction::Outbound if tcp.payload_len > 0 => self.on_data(packet, &tcp),
            Direction::Outbound if triggers(packet) => self.on_outbound_ack(packet, queue),
            Direction::Inbound if tcp.is_pure_ack() => return self.on_ack(now, packet),
            _ => {}
        }
        Verdict::Pass
    }

    fn poll_transmit(&mut self, now: Instant) -> Option<(Direction, PacketRepr)> {
        self.regenerator_mut().poll_transmit(now)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.regenerator().poll_timeout()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let stats = self.regenerator().stats;
        let mut counters = self.own_counters();
        counters.extend([
            ("regenerated_acks", stats.regenerated),
            ("late_acks", stats.late),
            ("most_pending_acks", stats.most_pending),
        ]);
        counters
    }
}

/// A copy of the ACK `received` acknowledging `ack` instead, without a compaction record.
pub fn regenerated(received: &PacketRepr, ack: SeqNumber) -> PacketRepr {
    let mut copy = *received;
    if let Some(tcp) = copy.tcp_mut() {
        tcp.ack = ack;
        tcp.compaction = None;
    }
    copy
}

/// What the reconstructor and the expander keep per connection: the segment size (the
/// largest payload seen going towards the receiver) and the highest ACK received, with its
/// arrival.
#[derive(Clone, Copy, Debug, Default)]
pub struct Received {
    pub mss: u32,
    last_ack: Option<(SeqNumber, Instant)>,
}

impl Received {
    pub fn note_data(&mut self, payload_len: u32) {
        self.mss = self.mss.max(payload_len);
    }

    /// Records an ACK received at `now`; if it is newer than the highest so far, returns
    /// that one and its arrival.
    pub fn advance(&mut self, ack: SeqNumber, now: Instant) -> Option<(SeqNumber, Instant)> {
        let previous = self.last_ack.filter(|(last, _)| ack > *last);
        if self.last_ack.is_none() || previous.is_some() {
            self.last_ack = Some((ack, now));
        }
        previous
    }
}

/// What a regenerator has done, for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegeneratorStats {
    /// ACKs made here, not received.
    pub regenerated: u64,
    /// ACKs of a train sent early because a newer ACK arrived before their time.
    pub late: u64,
    /// The most ACKs waiting in trains at once.
    pub most_pending: u64,
}

/// The ACKs waiting to go towards the sender, per connection, each with its time.
#[derive(Debug, Default)]
pub struct Regenerator {
    trains: Connections<VecDeque<(Instant, PacketRepr)>>,
    pending: u64,
    pub stats: RegeneratorStats,
}

impl Regenerator {
    /// Sends `acks` (regenerated, ascending, each below `received`'s) then `received`,
    /// `spacing` apart from `now`; what was still waiting for the connection goes first.
    /// The received ACK is now the regenerator's to send: the caller drops it.
    pub fn send_train(
        &mut self,
        now: Instant,
        key: ConnectionKey,
        acks: impl IntoIterator<Item = SeqNumber>,
        received: &PacketRepr,
        spacing: Duration,
    ) -> Verdict {
        self.flush(now, key);
        let train = self.trains.entry(key);
        let mut at = now;
        for ack in acks {
            train.push_back((at, regenerated(received, ack)));
            self.stats.regenerated += 1;
            self.pending += 1;
            at += spacing;
        }
        train.push_back((at, regenerated(received, received_ack(received))));
        self.pending += 1;
        self.stats.most_pending = self.stats.most_pending.max(self.pending);
        Verdict::Drop
    }

    /// An ACK to hand on unchanged: it passes, unless ACKs of its connection still wait, which
    /// then go at once and it after them.
    pub fn pass_in_order(
        &mut self,
        now: Instant,
        key: ConnectionKey,
        received: &PacketRepr,
    ) -> Verdict {
        if self.trains.entry(key).is_empty() {
            return Verdict::Pass;
        }
        self.send_train(now, key, [], received, Duration::ZERO)
    }

    /// What waits for `key` is due now.
    fn flush(&mut self, now: Instant, key: ConnectionKey) {
        let train = self.trains.entry(key);
        for (at, _) in train.iter_mut() {
            if *at > now {
                *at = now;
                self.stats.late += 1;
            }
        }
    }

    /// The next ACK due at `now`, to inject inbound (towards the node, which routes it on).
    pub fn poll_transmit(&mut self, now: Instant) -> Option<(Direction, PacketRepr)> {
        for train in self.trains.iter_mut() {
            if train.front().is_some_and(|(at, _)| *at <= now) {
                self.pending -= 1;
                return train.pop_front().map(|(_, ack)| (Direction::Inbound, ack));
            }
        }
        None
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        self.trains
            .iter()
            .filter_map(|train| train.front().map(|(at, _)| *at))
            .min()
    }
}

fn received_ack(received: &PacketRepr) -> SeqNumber {
    received.tcp().expect("regenerators handle TCP ACKs").ack
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::connection::tests::ack;

    fn key_of(packet: &PacketRepr) -> ConnectionKey {
        ConnectionKey::of_ack(packet, packet.tcp().unwrap())
    }

    fn drain(regenerator: &mut Regenerator, now: Instant) -> Vec<u32> {
        let mut acks = Vec::new();
        while let Some((direction, packet)) = regenerator.poll_transmit(now) {
            assert_eq!(direction, Direction::Inbound);
            acks.push(packet.tcp().unwrap().ack.0);
        }
        acks
    }

    #[test]
    fn a_train_leaves_spaced_and_a_newer_ack_sends_the_rest_first() {
        let mut r = Regenerator::default();
        let t0 = Instant::ZERO;
        let ms = Duration::from_millis(1);
        let received = ack(4001, 100);
        let key = key_of(&received);
        let acks = [1001, 2001, 3001].map(SeqNumber);
        assert_eq!(r.send_train(t0, key, acks, &received, ms), Verdict::Drop);
        assert_eq!(drain(&mut r, t0), [1001]);
        assert_eq!(r.poll_timeout(), Some(t0 + ms));
        assert_eq!(drain(&mut r, t0 + ms), [2001]);
        // A newer ACK before the train is done: the rest go first, then it.
        let newer = ack(5001, 100);
        assert_eq!(r.pass_in_order(t0 + ms, key, &newer), Verdict::Drop);
        assert_eq!(drain(&mut r, t0 + ms), [3001, 4001, 5001]);
        assert_eq!(r.stats.late, 2);
        assert_eq!(r.stats.regenerated, 3);
        assert_eq!(r.pending, 0);
        // Nothing waits: an ACK passes.
        assert_eq!(
            r.pass_in_order(t0 + ms, key, &ack(6001, 100)),
            Verdict::Pass
        );
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn regenerated_acks_are_valid_segments_of_the_connection() {
        let received = ack(9001, 321);
        let copy = regenerated(&received, SeqNumber(8001));
        let parsed = PacketRepr::parse(&copy.emit()).unwrap();
        assert_eq!(parsed, copy);
        let (a, b) = (parsed.tcp().unwrap(), received.tcp().unwrap());
        assert_eq!((a.ack, a.seq, a.window), (SeqNumber(8001), b.seq, b.window));
        assert_eq!(
            (parsed.ip, a.src_port, a.dst_port),
            (received.ip, b.src_port, b.dst_port)
        );
    }
}
