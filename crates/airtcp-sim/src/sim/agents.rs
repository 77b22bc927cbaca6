//! Driving the agents on nodes' interfaces (`airtcp_proto::agent`): a packet leaving by an
//! interface or arriving on it is shown to the agent there, which passes, drops, delays or
//! rewrites it; after every call the agent's injected packets are sent and its timer is
//! re-armed. Nothing here knows any agent's kind: a new agent needs no change to this file.

use airtcp_proto::agent::{Agent, Direction, InterfaceQueue, Signal, Verdict};
use airtcp_proto::Instant;

use super::{Event, Simulation};
use crate::interface::{AgentSlot, Interface};
use crate::packet::{address_node, Packet};
use crate::routing::Hop;

/// A packet an agent delayed: the interface it was at, the hop it leaves by (`None` if it
/// was arriving), and the packet.
#[derive(Debug)]
pub(super) struct Held {
    interface: Interface,
    hop: Option<Hop>,
    packet: Packet,
}

impl Simulation {
    /// Calls `f` with the agent on `interface` and the interface's queue, if it has an agent.
    fn with_agent<R>(
        &mut self,
        interface: Interface,
        f: impl FnOnce(&mut AgentSlot, &mut dyn InterfaceQueue) -> R,
    ) -> Option<R> {
        match interface {
            Interface::Channel(channel) => {
                let now = self.now();
                let channel = &mut self.channels[channel as usize];
                let slot = channel.agent.as_mut()?;
                // (the agent may take packets out: what the AQM had due runs first)
                channel.queue.advance(now);
                Some(f(slot, &mut channel.queue))
            }
            Interface::Wlan { bss, mac } => {
                let (slot, mut queue) = self.wlan_agent_and_queue(bss, mac)?;
                Some(f(slot, &mut queue))
            }
        }
    }

    pub(super) fn has_agent(&self, interface: Interface) -> bool {
        match interface {
            Interface::Channel(channel) => self.channels[channel as usize].agent.is_some(),
            Interface::Wlan { bss, mac } => self.wlan_has_agent(bss, mac),
        }
    }

    /// Takes the agent off an interface, its timer forgotten (re-armed where it goes).
    pub(super) fn take_agent(&mut self, interface: Interface) -> Option<Box<dyn Agent>> {
        match interface {
            Interface::Channel(channel) => {
                Some(self.channels[channel as usize].agent.take()?.agent)
            }
            Interface::Wlan { bss, mac } => self.wlan_take_agent(bss, mac),
        }
    }

    fn node_of(&self, interface: Interface) -> usize {
        match interface {
            Interface::Channel(channel) => self.channel_ends[channel as usize].0,
            Interface::Wlan { bss, mac } => self.wlan_node(bss, mac),
        }
    }

    /// Sends a packet out by `hop`, past the agent on that interface.
    pub(super) fn send(&mut self, hop: Hop, packet: Packet) -> std::io::Result<()> {
        let Some(interface) = Interface::of_hop(hop) else {
            return Ok(());
        };
        self.past_agent(
            interface,
            Direction::Outbound,
            Some(hop),
            packet,
            |sim, packet| sim.transmit(hop, packet),
        )
    }

    /// A packet arriving at `node` on `via`, past the agent there, then handled by the node.
    pub(super) fn receive(
        &mut self,
        node: usize,
        via: Interface,
        packet: Packet,
    ) -> std::io::Result<()> {
        self.past_agent(via, Direction::Inbound, None, packet, |sim, packet| {
            sim.arrive(node, packet)
        })
    }

    /// Shows `packet` to the agent on `interface` (if any) and carries out its verdict: a
    /// passed packet goes `onward`, a delayed one is held (with the `hop` it leaves by); then
    /// the agent's injected packets go out and its timer is re-armed.
    fn past_agent(
        &mut self,
        interface: Interface,
        direction: Direction,
        hop: Option<Hop>,
        mut packet: Packet,
        onward: impl FnOnce(&mut Self, Packet) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let now = self.now();
        let verdict = self.with_agent(interface, |slot, queue| {
            (slot.agent).handle_packet(now, direction, &mut packet.repr, queue)
        });
        match verdict {
            None | Some(Verdict::Pass) => onward(self, packet)?,
            Some(Verdict::Drop) => {}
            Some(Verdict::Delay(until)) => self.hold(interface, hop, until, packet),
        }
        if verdict.is_some() {
            self.after_agent(interface)?;
        }
        Ok(())
    }

    fn hold(&mut self, interface: Interface, hop: Option<Hop>, until: Instant, packet: Packet) {
        let slot = self.held.insert(Held {
            interface,
            hop,
            packet,
        });
        let at = until.max(self.now());
        self.events.schedule(at, Event::AgentRelease { held: slot });
    }

    /// Joins the link's or the MAC's queue.
    fn transmit(&mut self, hop: Hop, packet: Packet) -> std::io::Result<()> {
        let now = self.now();
        match hop {
            Hop::Unreachable => Ok(()),
            Hop::Channel(channel) => {
                let actions = self.channels[channel as usize].enqueue(now, packet);
                self.apply_channel(channel, actions);
                Ok(())
            }
            Hop::Wlan { bss, mac, to } => self.wlan_enqueue(bss, mac, packet, to),
        }
    }

    /// A delayed packet goes on its way, not shown to its agent again.
    pub(super) fn agent_release(&mut self, held: u32) -> std::io::Result<()> {
        let Held {
            interface,
            hop,
            packet,
        } = self.held.take(held);
        match hop {
            Some(hop) => self.transmit(hop, packet),
            None => self.arrive(self.node_of(interface), packet),
        }
    }

    pub(super) fn agent_timer(&mut self, interface: Interface) -> std::io::Result<()> {
        let now = self.now();
        let due = self.with_agent(interface, |slot, queue| {
            if slot.timer != Some(now) {
                return false; // superseded by an earlier deadline
            }
            slot.timer = None;
            if slot.agent.poll_timeout().is_some_and(|at| at <= now) {
                slot.agent.handle_timeout(now, queue);
            }
            true
        });
        if due == Some(true) {
            self.after_agent(interface)?;
        }
        Ok(())
    }

    pub(super) fn agent_signal(
        &mut self,
        interface: Interface,
        signal: u32,
    ) -> std::io::Result<()> {
        let name = std::mem::take(&mut self.signal_names[signal as usize]);
        let result = self.signal(interface, Signal::named(&name));
        self.signal_names[signal as usize] = name;
        result
    }

    /// Tells the agent on `interface`, if there is one, of an event.
    pub(super) fn signal(&mut self, interface: Interface, signal: Signal) -> std::io::Result<()> {
        let now = self.now();
        let delivered = self.with_agent(interface, |slot, queue| {
            slot.agent.handle_signal(now, signal, queue);
        });
        if delivered.is_some() {
            self.after_agent(interface)?;
        }
        Ok(())
    }

    /// At a handoff: what the agent on `from` hands over for the host at `address` goes to
    /// the agent on `to` (I-TCP's connections); both are driven after. With no agent on `to`
    /// it is lost.
    pub(super) fn hand_over(
        &mut self,
        from: Interface,
        to: Interface,
        address: [u8; 4],
    ) -> std::io::Result<()> {
        let now = self.now();
        let state = self
            .with_agent(from, |slot, _| slot.agent.hand_over(now, address))
            .flatten();
        let Some(state) = state else {
            return Ok(());
        };
        self.after_agent(from)?;
        if self
            .with_agent(to, |slot, _| slot.agent.take_over(now, address, state))
            .is_some()
        {
            self.after_agent(to)?;
        }
        Ok(())
    }

    /// Sends what the agent injected and re-arms its timer. An injected packet leaves by the
    /// node's route to its destination (past another interface's agent, not its own), or,
    /// injected inbound, is handled by the node as if it had arrived.
    fn after_agent(&mut self, interface: Interface) -> std::io::Result<()> {
        let now = self.now();
        let node = self.node_of(interface);
        while let Some((direction, repr)) = self
            .with_agent(interface, |slot, _| slot.agent.poll_transmit(now))
            .flatten()
        {
            let packet = self.new_packet(repr);
            match direction {
                Direction::Inbound => self.arrive(node, packet)?,
                Direction::Outbound => {
                    self.trace(node, &packet)?;
                    let Some(dst) = address_node(packet.repr.ip.dst) else {
                        continue;
                    };
                    let hop = self.routes.first_hop(node, dst);
                    if Interface::of_hop(hop) == Some(interface) {
                        self.transmit(hop, packet)?;
                    } else {
                        self.send(hop, packet)?;
                    }
                }
            }
        }
        let armed = self.with_agent(interface, |slot, _| {
            let deadline = slot.agent.poll_timeout()?.max(now);
            if slot.timer.is_some_and(|armed| armed <= deadline) {
                return None;
            }
            slot.timer = Some(deadline);
            Some(deadline)
        });
        if let Some(deadline) = armed.flatten() {
            self.events
                .schedule(deadline, Event::AgentTimer { interface });
        }
        Ok(())
    }
}
