//! Paper 001 §IV: the base station freezes the fixed sender during a handoff. On its cell
//! interface it keeps each connection's data segments until the mobile acknowledges them,
//! and the last ACK the mobile sent. When the new base station informs it of the handoff
//! (`inform`), it sends that ACK again with an advertised window of 0: the sender stops and
//! probes (persist), keeping cwnd, ssthresh and its RTO. When the handoff is adjusted
//! (`adjust`: the routes now lead to the new cell) it sends the segments it keeps on towards
//! the mobile (but not those its interface's queue still holds: they are sent on anyway),
//! whose ACK of them, with its real window, reopens the sender.
//!
//! The base station's idea of what the mobile has is one round trip old: the ACKs on their
//! way when the mobile left are lost. The mobile answers the segments it already had with
//! duplicate ACKs, which can make the sender fast-retransmit after the handoff; Snoop in
//! front (`snoop_freeze`) suppresses them.
//!
//! Whether the sender really keeps its state depends on its stack (`TcpConfig::zero_window`):
//! a BSD stack stops its retransmission timer under a zero window, Linux does not. The
//! sender takes the window only if the ACK is not older than the last it used (RFC 9293
//! SND.WL1/WL2), so an inform that comes after the mobile's ACKs through the new cell have
//! reached the sender changes nothing.

use std::collections::VecDeque;

use super::connection::{ack_with_window, ConnectionKey, Connections, SegmentCache};
use super::{Agent, Direction, InterfaceQueue, Signal, Verdict};
use crate::time::Instant;
use crate::wire::PacketRepr;

#[derive(Debug, Default)]
struct Connection {
    last_ack: Option<PacketRepr>,
    cache: SegmentCache,
}

#[derive(Debug, Default)]
pub struct Freeze {
    connections: Connections<Connection>,
    outbox: VecDeque<(Direction, PacketRepr)>,
}

impl Agent for Freeze {
    fn name(&self) -> &'static str {
        "freeze"
    }

    fn handle_packet(
        &mut self,
        now: Instant,
        direction: Direction,
        packet: &mut PacketRepr,
        _queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        let Some(tcp) = packet.tcp().copied() else {
            return Verdict::Pass;
        };
        match direction {
            Direction::Outbound if tcp.payload_len > 0 => {
                let connection = self.connections.entry(ConnectionKey::of_data(packet, &tcp));
                let acked = connection.last_ack.and_then(|a| a.tcp().map(|t| t.ack));
                connection.cache.store(now, *packet, acked);
            }
            Direction::Inbound if tcp.flags.ack => {
                let connection = self.connections.entry(ConnectionKey::of_ack(packet, &tcp));
                let last = connection.last_ack.and_then(|a| a.tcp().map(|t| t.ack));
                if last.is_none_or(|last| last <= tcp.ack) {
                    connection.last_ack = Some(*packet);
                    connection.cache.acknowledge(tcp.ack);
                }
            }
            _ => {}
        }
        Verdict::Pass
    }

    fn poll_transmit(&mut self, _now: Instant) -> Option<(Direction, PacketRepr)> {
        self.outbox.pop_front()
    }

    fn handle_signal(&mut self, _now: Instant, signal: Signal<'_>, queue: &mut dyn InterfaceQueue) {
        match signal.name {
            // The ACK goes to the sender as if the mobile had sent it.
            "inform" => {
                for connection in self.connections.concerned_by(signal) {
                    if let Some(ack) = &connection.last_ack {
                        self.outbox
                            .push_back((Direction::Inbound, ack_with_window(ack, 0)));
                    }
                }
            }
            // Handed to the node as if received, the segments follow the routes to the
            // mobile's new cell.
            "adjust" => {
                let queued: Vec<PacketRepr> = (0..queue.len())
                    .filter_map(|i| queue.get(i).copied())
                    .collect();
                for connection in self.connections.concerned_by(signal) {
                    for cached in connection.cache.drain() {
                        if !queued.contains(&cached.packet) {
                            self.outbox.push_back((Direction::Inbound, cached.packet));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::connection::tests::{ack, data, MOBILE};
    use crate::agent::NoQueue;
    use crate::seq::SeqNumber;

    const OTHER: [u8; 4] = [10, 0, 0, 6];

    fn see(agent: &mut Freeze, direction: Direction, mut packet: PacketRepr) -> Verdict {
        agent.handle_packet(Instant::ZERO, direction, &mut packet, &mut NoQueue)
    }

    fn drain(agent: &mut Freeze) -> Vec<(Direction, PacketRepr)> {
        std::iter::from_fn(|| agent.poll_transmit(Instant::ZERO)).collect()
    }

    #[test]
    fn inform_sends_the_last_ack_with_a_zero_window_and_adjust_the_unacked_segments() {
        let mut agent = Freeze::default();
        for seq in [1, 513, 1025, 1537] {
            assert_eq!(
                see(&mut agent, Direction::Outbound, data(seq, 512)),
                Verdict::Pass
            );
        }
        see(&mut agent, Direction::Inbound, ack(1025, 8000));
        // An older ACK arriving late does not replace it.
        see(&mut agent, Direction::Inbound, ack(513, 8000));
        assert!(drain(&mut agent).is_empty(), "nothing before a signal");
        agent.handle_signal(Instant::ZERO, Signal::about("inform", OTHER), &mut NoQueue);
        assert!(drain(&mut agent).is_empty(), "another host's handoff");
        agent.handle_signal(Instant::ZERO, Signal::about("inform", MOBILE), &mut NoQueue);
        let frozen = drain(&mut agent);
        assert_eq!(frozen.len(), 1);
        let (direction, packet) = frozen[0];
        let tcp = packet.tcp().unwrap();
        assert_eq!(direction, Direction::Inbound);
        assert_eq!((tcp.ack, tcp.window), (SeqNumber(1025), 0));
        agent.handle_signal(Instant::ZERO, Signal::about("adjust", OTHER), &mut NoQueue);
        assert!(drain(&mut agent).is_empty(), "another host's handoff");
        agent.handle_signal(Instant::ZERO, Signal::about("adjust", MOBILE), &mut NoQueue);
        let forwarded: Vec<u32> = drain(&mut agent)
            .iter()
            .map(|(d, p)| {
                assert_eq!(*d, Direction::Inbound);
                p.tcp().unwrap().seq.0
            })
            .collect();
        assert_eq!(forwarded, [1025, 1537], "the unacknowledged ones, in order");
        agent.handle_signal(Instant::ZERO, Signal::named("adjust"), &mut NoQueue);
        assert!(drain(&mut agent).is_empty(), "forwarded once");
    }

    #[test]
    fn without_an_ack_there_is_nothing_to_freeze_with() {
        let mut agent = Freeze::default();
        see(&mut agent, Direction::Outbound, data(1, 512));
        agent.handle_signal(Instant::ZERO, Signal::named("inform"), &mut NoQueue);
        assert!(drain(&mut agent).is_empty());
    }
}
