//! M-TCP's freeze (Brown and Singh, 1997), a baseline of paper 001: the base station needs no
//! handoff notice. When the mobile has sent no ACK for `silence` while data it has not
//! acknowledged is on its way, the base station assumes it is out of reach and sends its
//! last ACK again with an advertised window of 0, freezing the sender; the mobile's next ACK
//! reopens it. (M-TCP splits the connection and acknowledges all but the last byte; without
//! a split the last ACK is what a base station has.) Paper 001 notes the weakness: a timer
//! reacts late to a handoff, and fires when the mobile is merely slow.

use core::time::Duration;
use std::collections::VecDeque;

use super::connection::{ack_with_window, ConnectionKey, Connections};
use super::{Agent, Direction, InterfaceQueue, Verdict};
use crate::seq::SeqNumber;
use crate::time::Instant;
use crate::wire::PacketRepr;

#[derive(Debug, Default)]
struct Connection {
    last_ack: Option<PacketRepr>,
    /// Just past the highest data sent towards the mobile.
    sent_end: Option<SeqNumber>,
    /// Since when the mobile has been silent with data outstanding.
    silent_since: Option<Instant>,
    frozen: bool,
}

impl Connection {
    fn acked(&self) -> Option<SeqNumber> {
        self.last_ack.and_then(|a| a.tcp().map(|t| t.ack))
    }

    fn outstanding(&self) -> bool {
        match (self.sent_end, self.acked()) {
            (Some(end), Some(ack)) => end > ack,
            _ => false,
        }
    }
}

#[derive(Debug)]
pub struct Mtcp {
    silence: Duration,
    connections: Connections<Connection>,
    outbox: VecDeque<(Direction, PacketRepr)>,
    /// Zero-window ACKs sent.
    pub freezes: u64,
}

impl Mtcp {
    pub fn new(silence: Duration) -> Self {
        Mtcp {
            silence,
            connections: Connections::default(),
            outbox: VecDeque::new(),
            freezes: 0,
        }
    }
}

impl Agent for Mtcp {
    fn name(&self) -> &'static str {
        "mtcp"
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
                let c = self.connections.entry(ConnectionKey::of_data(packet, &tcp));
                let end = tcp.seq + tcp.payload_len;
                if c.sent_end.is_none_or(|e| end > e) {
                    c.sent_end = Some(end);
                }
                if c.outstanding() && c.silent_since.is_none() {
                    c.silent_since = Some(now);
                }
            }
            Direction::Inbound if tcp.flags.ack => {
                let c = self.connections.entry(ConnectionKey::of_ack(packet, &tcp));
                if c.acked().is_none_or(|last| last <= tcp.ack) {
                    c.last_ack = Some(*packet);
                }
                c.frozen = false;
                c.silent_since = c.outstanding().then_some(now);
            }
            _ => {}
        }
        Verdict::Pass
    }

    fn poll_transmit(&mut self, _now: Instant) -> Option<(Direction, PacketRepr)> {
        self.outbox.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.connections
            .iter()
            .filter(|c| !c.frozen)
            .filter_map(|c| c.silent_since)
            .map(|since| since + self.silence)
            .min()
    }

    fn handle_timeout(&mut self, now: Instant, _queue: &mut dyn InterfaceQueue) {
        for c in self.connections.iter_mut() {
            let due = c.silent_since.is_some_and(|s| s + self.silence <= now);
            if c.frozen || !due {
                continue;
            }
            if let Some(ack) = &c.last_ack {
                self.outbox
                    .push_back((Direction::Inbound, ack_with_window(ack, 0)));
                self.freezes += 1;
            }
            c.frozen = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::connection::tests::{ack, data};
    use crate::agent::NoQueue;

    fn at(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    #[test]
    fn silence_with_data_outstanding_freezes_once_until_the_mobile_speaks() {
        let mut agent = Mtcp::new(Duration::from_millis(300));
        let see = |agent: &mut Mtcp, t, d, mut p: PacketRepr| {
            agent.handle_packet(at(t), d, &mut p, &mut NoQueue);
        };
        see(&mut agent, 0, Direction::Outbound, data(1, 512));
        see(&mut agent, 20, Direction::Inbound, ack(513, 9000));
        assert_eq!(agent.poll_timeout(), None, "nothing outstanding");
        see(&mut agent, 30, Direction::Outbound, data(513, 512));
        assert_eq!(agent.poll_timeout(), Some(at(330)));
        agent.handle_timeout(at(330), &mut NoQueue);
        let (direction, frozen) = agent.poll_transmit(at(330)).unwrap();
        assert_eq!(direction, Direction::Inbound);
        assert_eq!(frozen.tcp().unwrap().window, 0);
        assert_eq!(frozen.tcp().unwrap().ack, SeqNumber(513));
        assert_eq!(agent.poll_timeout(), None, "frozen once");
        see(&mut agent, 900, Direction::Inbound, ack(1025, 9000));
        assert_eq!(agent.freezes, 1);
        assert_eq!(agent.poll_timeout(), None, "all acknowledged");
    }
}
