//! ACK compaction and expansion (`acc`, RFC 3449 section 5.2.2, after Samaraweera's ACK
//! compaction/companding; paper 003's AC/C). One kind, placed at both ends of the slow link,
//! acting by the way a packet crosses its interface:
//!
//! - compactor (ACKs leaving into the slow link): filters like [`super::ack_filter`], and
//!   records in the ACK it keeps how many ACKs it now stands for ([`Compaction`], an RFC
//!   6994 experimental option on the wire);
//! - expander (ACKs arriving from the slow link): takes the record off and recreates the
//!   ACKs it stands for, their acknowledgment numbers spread evenly (at whole segments,
//!   the segment size being the largest payload seen going the other way) between the
//!   previous ACK and this one, this one last, spread over the time since the previous ACK
//!   arrived (the span the compacted ACKs would have taken; airtcp's choice: the record
//!   carries the count only, so that a segment's representation does not grow).
//!
//! As paper 003 notes, the record describes only the ACKs compacted into that one: when a
//! compacted ACK is lost, the next one's record does not know, and fewer ACKs are made.

use super::ack_filter::remove_covered;
use super::connection::{ConnectionKey, Connections};
use super::regenerator::{AckRegenerator, Received, Regenerator};
use super::{InterfaceQueue, Verdict};
use crate::seq::SeqNumber;
use crate::time::Instant;
use crate::wire::{Compaction, PacketRepr, TcpRepr};

#[derive(Debug, Default)]
pub struct AckCompaction {
    /// The expander's view of each connection.
    connections: Connections<Received>,
    regenerator: Regenerator,
    /// ACKs taken out of the queue by the compactor.
    pub compacted: u64,
}

impl AckCompaction {
    fn compact(&mut self, packet: &mut PacketRepr, queue: &mut dyn InterfaceQueue) {
        let mut stands_for = 1u32;
        remove_covered(queue, packet, true, |removed| {
            self.compacted += 1;
            let record = removed.tcp().and_then(|tcp| tcp.compaction);
            stands_for += record.map_or(1, |r| u32::from(r.acks.get()));
        });
        if stands_for > 1 {
            set_record(packet, Compaction::of(stands_for));
        }
    }

    fn expand(&mut self, now: Instant, packet: &mut PacketRepr) -> Verdict {
        let tcp = *packet.tcp().expect("an ACK");
        set_record(packet, None);
        let key = ConnectionKey::of_ack(packet, &tcp);
        let c = self.connections.entry(key);
        let previous = c.advance(tcp.ack, now);
        let (Some((last, at)), Some(record)) = (previous, tcp.compaction) else {
            return self.regenerator.pass_in_order(now, key, packet);
        };
        let count = u32::from(record.acks.get());
        let acks = spread(last, tcp.ack, count, c.mss);
        let spacing = (now - at) / count;
        self.regenerator.send_train(now, key, acks, packet, spacing)
    }
}

/// `count - 1` acknowledgment numbers evenly between `last` and `ack` (both excluded), at
/// whole segments of `mss` from `last` when it is known, without repeats.
fn spread(last: SeqNumber, ack: SeqNumber, count: u32, mss: u32) -> Vec<SeqNumber> {
    let gap = u64::from(ack - last);
    let mut acks: Vec<SeqNumber> = Vec::new();
    for k in 1..u64::from(count.max(1)) {
        let mut offset = (gap * k / u64::from(count)) as u32;
        if mss > 0 {
            offset -= offset % mss;
        }
        let value = last + offset;
        if value > last && value < ack && acks.last().is_none_or(|&prev| value > prev) {
            acks.push(value);
        }
    }
    acks
}

fn set_record(packet: &mut PacketRepr, record: Option<Compaction>) {
    if let Some(tcp) = packet.tcp_mut() {
        tcp.compaction = record;
    }
}

impl AckRegenerator for AckCompaction {
    const KIND: &'static str = "acc";

    fn regenerator(&self) -> &Regenerator {
        &self.regenerator
    }

    fn regenerator_mut(&mut self) -> &mut Regenerator {
        &mut self.regenerator
    }

    fn on_data(&mut self, packet: &PacketRepr, tcp: &TcpRepr) {
        let key = ConnectionKey::of_data(packet, tcp);
        self.connections.entry(key).note_data(tcp.payload_len);
    }

    fn on_ack(&mut self, now: Instant, packet: &mut PacketRepr) -> Verdict {
        self.expand(now, packet)
    }

    fn on_outbound_ack(&mut self, packet: &mut PacketRepr, queue: &mut dyn InterfaceQueue) {
        self.compact(packet, queue);
    }

    fn own_counters(&self) -> Vec<(&'static str, u64)> {
        vec![("compacted_acks", self.compacted)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::ack_filter::tests::VecQueue;
    use crate::agent::connection::tests::{ack, data};
    use crate::agent::{Agent, Direction, NoQueue};
    use core::time::Duration;

    #[test]
    fn compaction_records_what_it_removed_and_expansion_recreates_it() {
        let mut compactor = AckCompaction::default();
        let mut queue = VecQueue::default();
        let mut t = Instant::ZERO;
        for a in [1001, 3001, 5001, 7001] {
            let mut p = ack(a, 100);
            let v = compactor.handle_packet(t, Direction::Outbound, &mut p, &mut queue);
            assert_eq!(v, Verdict::Pass);
            queue.0.push(p);
            t += Duration::from_millis(10);
        }
        assert_eq!(queue.0.len(), 1);
        let kept = queue.0[0];
        let record = kept.tcp().unwrap().compaction.unwrap();
        assert_eq!(Some(record), Compaction::of(4));
        assert_eq!(compactor.compacted, 3);
        // It crosses the link as bytes.
        let mut arrived = PacketRepr::parse(&kept.emit()).unwrap();
        assert_eq!(arrived, kept);

        let mut expander = AckCompaction::default();
        let t0 = Instant::ZERO;
        let mut segment = data(1, 1000);
        expander.handle_packet(t0, Direction::Outbound, &mut segment, &mut NoQueue);
        let mut first = ack(1, 100);
        let v = expander.handle_packet(t0, Direction::Inbound, &mut first, &mut NoQueue);
        assert_eq!(v, Verdict::Pass);
        // It arrives 40 ms after the previous ACK: its four ACKs are 10 ms apart.
        let t1 = t0 + Duration::from_millis(40);
        let v = expander.handle_packet(t1, Direction::Inbound, &mut arrived, &mut NoQueue);
        assert_eq!(v, Verdict::Drop);
        let mut out = Vec::new();
        let mut now = t1;
        while let Some(at) = expander.poll_timeout() {
            now = at;
            while let Some((_, p)) = expander.poll_transmit(now) {
                assert_eq!(p.tcp().unwrap().compaction, None, "the record stays here");
                out.push(p.tcp().unwrap().ack.0);
            }
        }
        // Four ACKs for 7000 bytes of 1000-byte segments: 1750-byte steps, at whole segments.
        assert_eq!(out, [1001, 3001, 5001, 7001]);
        assert_eq!(now, t1 + Duration::from_millis(30));
    }

    #[test]
    fn the_spread_stays_strictly_between_and_ascending() {
        let (last, ack) = (SeqNumber(u32::MAX - 500), SeqNumber(2500));
        for count in 0..20 {
            for mss in [0, 1, 536, 1000, 5000] {
                let acks = spread(last, ack, count, mss);
                assert!(acks.windows(2).all(|w| w[0] < w[1]));
                assert!(acks.iter().all(|&a| a > last && a < ack));
                assert!(acks.len() < count.max(1) as usize);
            }
        }
    }
}
