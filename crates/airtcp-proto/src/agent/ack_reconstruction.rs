//! ACK reconstruction (`ar`, RFC 3449 section 5.2.1; the AR paper 003 compares with), on the
//! far side of the slow link (the router on the sender's side, on its interface to the
//! slow link). When an ACK arrives that acknowledges more than `ack_threshold` segments
//! beyond the previous one (because filtering or losses thinned the ACKs), it fills the gap
//! with regenerated ACKs, each acknowledging `ack_threshold` segments more (2: what a
//! receiver with delayed ACKs would have sent), and spaces them, the received one last, over
//! the time since the previous ACK arrived (`Δt / n` for `n` ACKs). That raw interval is what
//! paper 003 faults: after a lost ACK or an idle sender it is too long, so the next ACK
//! arrives before the train has left ([`super::regenerator`] then sends the rest at once and
//! counts them late).
//!
//! The segment size is the largest payload seen going towards the receiver.

use core::time::Duration;

use super::connection::{ConnectionKey, Connections};
use super::regenerator::{AckRegenerator, Received, Regenerator};
use super::Verdict;
use crate::time::Instant;
use crate::wire::{PacketRepr, TcpRepr};

/// Segments a regular ACK acknowledges (RFC 3449's `ack_thresh`: delayed ACKs).
pub const ACK_THRESHOLD: u32 = 2;

#[derive(Debug, Default)]
pub struct AckReconstruction {
    connections: Connections<Received>,
    regenerator: Regenerator,
}

impl AckReconstruction {
    fn reconstruct(&mut self, now: Instant, packet: &PacketRepr) -> Verdict {
        let tcp = packet.tcp().expect("an ACK");
        let key = ConnectionKey::of_ack(packet, tcp);
        let c = self.connections.entry(key);
        let Some((last, at)) = c.advance(tcp.ack, now) else {
            return self.regenerator.pass_in_order(now, key, packet);
        };
        let step = ACK_THRESHOLD * c.mss;
        let gap = tcp.ack - last;
        if step == 0 || gap <= step {
            return self.regenerator.pass_in_order(now, key, packet);
        }
        let count = gap.div_ceil(step);
        let acks = (1..count).map(|k| last + k * step);
        let spacing = Duration::from_nanos((now - at).as_nanos() as u64 / u64::from(count));
        self.regenerator.send_train(now, key, acks, packet, spacing)
    }
}

impl AckRegenerator for AckReconstruction {
    const KIND: &'static str = "ar";

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
        self.reconstruct(now, packet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::connection::tests::{ack, data};
    use crate::agent::{Agent, Direction, NoQueue};

    fn deliver(agent: &mut AckReconstruction, now: Instant, mut packet: PacketRepr) -> Vec<u32> {
        let direction = if packet.payload_len() > 0 {
            Direction::Outbound
        } else {
            Direction::Inbound
        };
        let verdict = agent.handle_packet(now, direction, &mut packet, &mut NoQueue);
        let mut out = Vec::new();
        if verdict == Verdict::Pass && direction == Direction::Inbound {
            out.push(packet.tcp().unwrap().ack.0);
        }
        while let Some((_, p)) = agent.poll_transmit(now) {
            out.push(p.tcp().unwrap().ack.0);
        }
        out
    }

    #[test]
    fn a_gap_is_filled_every_two_segments_spread_over_the_last_interval() {
        let mut ar = AckReconstruction::default();
        let t0 = Instant::ZERO;
        assert!(deliver(&mut ar, t0, data(1, 1000)).is_empty());
        assert_eq!(deliver(&mut ar, t0, ack(2001, 100)), [2001]);
        // Eight segments later, 80 ms on: four ACKs (three made), 20 ms apart.
        let t1 = t0 + Duration::from_millis(80);
        assert_eq!(deliver(&mut ar, t1, ack(10001, 100)), [4001]);
        assert_eq!(ar.poll_timeout(), Some(t1 + Duration::from_millis(20)));
        let mut all = Vec::new();
        for ms in [20, 40, 60] {
            all.extend(deliver_nothing(&mut ar, t1 + Duration::from_millis(ms)));
        }
        assert_eq!(all, [6001, 8001, 10001]);
        assert_eq!(ar.counters()[0], ("regenerated_acks", 3));
    }

    fn deliver_nothing(agent: &mut AckReconstruction, now: Instant) -> Vec<u32> {
        let mut out = Vec::new();
        while let Some((_, p)) = agent.poll_transmit(now) {
            out.push(p.tcp().unwrap().ack.0);
        }
        out
    }

    #[test]
    fn small_steps_duplicates_and_old_acks_pass_untouched() {
        let mut ar = AckReconstruction::default();
        let t0 = Instant::ZERO;
        deliver(&mut ar, t0, data(1, 1000));
        assert_eq!(deliver(&mut ar, t0, ack(1001, 100)), [1001]);
        assert_eq!(deliver(&mut ar, t0, ack(3001, 100)), [3001]);
        assert_eq!(deliver(&mut ar, t0, ack(3001, 100)), [3001]);
        assert_eq!(deliver(&mut ar, t0, ack(2001, 100)), [2001]);
        assert_eq!(ar.counters()[0].1, 0);
    }
}
