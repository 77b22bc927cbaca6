//! Several agents on one interface, in order: each packet passes them one after the other
//! until one drops or delays it; signals and timers reach all of them; what they inject is
//! sent as each injects it. Paper 001's `snoop_freeze` is Snoop then freeze: an ACK Snoop
//! suppresses never becomes the ACK freeze would send again.

use super::{Agent, Direction, InterfaceQueue, Signal, Verdict};
use crate::time::Instant;
use crate::wire::PacketRepr;

#[derive(Debug)]
pub struct Chain {
    name: &'static str,
    agents: Vec<Box<dyn Agent>>,
}

impl Chain {
    pub fn new(name: &'static str, agents: Vec<Box<dyn Agent>>) -> Self {
        Chain { name, agents }
    }
}

impl Agent for Chain {
    fn name(&self) -> &'static str {
        self.name
    }

    fn handle_packet(
        &mut self,
        now: Instant,
        direction: Direction,
        packet: &mut PacketRepr,
        queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        for agent in &mut self.agents {
            let verdict = agent.handle_packet(now, direction, packet, queue);
            if verdict != Verdict::Pass {
                return verdict;
            }
        }
        Verdict::Pass
    }

    fn poll_transmit(&mut self, now: Instant) -> Option<(Direction, PacketRepr)> {
        self.agents.iter_mut().find_map(|a| a.poll_transmit(now))
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.agents.iter().filter_map(|a| a.poll_timeout()).min()
    }

    fn handle_timeout(&mut self, now: Instant, queue: &mut dyn InterfaceQueue) {
        for agent in &mut self.agents {
            if agent.poll_timeout().is_some_and(|t| t <= now) {
                agent.handle_timeout(now, queue);
            }
        }
    }

    fn handle_signal(&mut self, now: Instant, signal: Signal<'_>, queue: &mut dyn InterfaceQueue) {
        for agent in &mut self.agents {
            agent.handle_signal(now, signal, queue);
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        self.agents.iter().flat_map(|a| a.counters()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::connection::tests::{ack, data};
    use crate::agent::{Freeze, NoQueue, Snoop};
    use crate::seq::SeqNumber;
    use core::time::Duration;

    #[test]
    fn an_ack_snoop_drops_is_not_the_one_freeze_sends_again() {
        let snoop = Snoop::new(Duration::from_millis(20));
        let mut chain = Chain::new(
            "snoop_freeze",
            vec![Box::new(snoop), Box::new(Freeze::default())],
        );
        let t = Instant::ZERO;
        for seq in [1, 513, 1025] {
            chain.handle_packet(t, Direction::Outbound, &mut data(seq, 512), &mut NoQueue);
        }
        assert_eq!(
            chain.handle_packet(t, Direction::Inbound, &mut ack(513, 9000), &mut NoQueue),
            Verdict::Pass
        );
        // A duplicate with a smaller window would be a window update; this one is dropped.
        assert_eq!(
            chain.handle_packet(t, Direction::Inbound, &mut ack(513, 9000), &mut NoQueue),
            Verdict::Drop
        );
        let resent = chain.poll_transmit(t).unwrap();
        assert_eq!(
            (resent.0, resent.1.tcp().unwrap().seq),
            (Direction::Outbound, SeqNumber(513))
        );
        chain.handle_signal(t, Signal::named("inform"), &mut NoQueue);
        let (direction, frozen) = chain.poll_transmit(t).unwrap();
        assert_eq!(direction, Direction::Inbound);
        assert_eq!(
            (frozen.tcp().unwrap().ack, frozen.tcp().unwrap().window),
            (SeqNumber(513), 0)
        );
        assert!(
            chain.poll_timeout().is_some(),
            "Snoop's timer shows through"
        );
    }
}
