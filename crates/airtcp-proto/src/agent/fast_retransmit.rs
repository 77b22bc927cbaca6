//! Cáceres and Iftode (1995), a baseline of paper 001: right after a handoff completes the
//! mobile sends its last ACK three more times, so that the fixed sender fast-retransmits at
//! once instead of waiting for its retransmission timer. The agent sits on the mobile's cell
//! interface, moves with the mobile from cell to cell, and acts on `attach`. It changes the
//! mobile's TCP behaviour, which paper 001 counts against it.

use std::collections::VecDeque;

use super::connection::ConnectionKey;
use super::{Agent, Direction, InterfaceQueue, Signal, Verdict};
use crate::time::Instant;
use crate::wire::PacketRepr;

#[derive(Debug)]
pub struct FastRetransmit {
    /// Duplicates sent after each handoff (the sender's duplicate-ACK threshold).
    copies: u32,
    last_acks: Vec<(ConnectionKey, PacketRepr)>,
    outbox: VecDeque<(Direction, PacketRepr)>,
}

impl FastRetransmit {
    pub fn new(copies: u32) -> Self {
        FastRetransmit {
            copies,
            last_acks: Vec::new(),
            outbox: VecDeque::new(),
        }
    }
}

impl Agent for FastRetransmit {
    fn name(&self) -> &'static str {
        "fast_retransmit"
    }

    fn handle_packet(
        &mut self,
        _now: Instant,
        direction: Direction,
        packet: &mut PacketRepr,
        _queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        let Some(tcp) = packet.tcp().copied() else {
            return Verdict::Pass;
        };
        if direction != Direction::Outbound || !tcp.flags.ack || tcp.payload_len > 0 {
            return Verdict::Pass;
        }
        let key = ConnectionKey::of_ack(packet, &tcp);
        match self.last_acks.iter_mut().find(|(k, _)| *k == key) {
            Some((_, last)) => {
                if last.tcp().is_some_and(|l| l.ack <= tcp.ack) {
                    *last = *packet;
                }
            }
            None => self.last_acks.push((key, *packet)),
        }
        Verdict::Pass
    }

    fn poll_transmit(&mut self, _now: Instant) -> Option<(Direction, PacketRepr)> {
        self.outbox.pop_front()
    }

    fn handle_signal(
        &mut self,
        _now: Instant,
        signal: Signal<'_>,
        _queue: &mut dyn InterfaceQueue,
    ) {
        if signal.name != "attach" {
            return;
        }
        // The ACKs of the connections the signal's mobile receives on.
        let own = self
            .last_acks
            .iter()
            .filter(|(key, _)| signal.concerns(key.receiver.0));
        for (_, ack) in own {
            for _ in 0..self.copies {
                self.outbox.push_back((Direction::Outbound, *ack));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::connection::tests::{ack, data, MOBILE};
    use crate::agent::NoQueue;
    use crate::seq::SeqNumber;

    #[test]
    fn attach_sends_the_last_ack_three_times() {
        let mut agent = FastRetransmit::new(3);
        for packet in [ack(513, 9000), ack(1025, 9000), data(1, 512)] {
            let mut packet = packet;
            agent.handle_packet(
                Instant::ZERO,
                Direction::Outbound,
                &mut packet,
                &mut NoQueue,
            );
        }
        agent.handle_signal(Instant::ZERO, Signal::about("inform", MOBILE), &mut NoQueue);
        assert!(agent.poll_transmit(Instant::ZERO).is_none());
        agent.handle_signal(Instant::ZERO, Signal::about("attach", MOBILE), &mut NoQueue);
        let sent: Vec<_> = std::iter::from_fn(|| agent.poll_transmit(Instant::ZERO)).collect();
        assert_eq!(sent.len(), 3);
        for (direction, packet) in sent {
            assert_eq!(direction, Direction::Outbound);
            assert_eq!(packet.tcp().unwrap().ack, SeqNumber(1025));
        }
    }
}
