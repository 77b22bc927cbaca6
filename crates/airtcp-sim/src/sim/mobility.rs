//! Driving handoffs (`crate::mobility`): each step of a handoff is an event. At the detach
//! the old cell's link goes down; the base stations' agents on their cell interfaces hear
//! `greeting` (the new one) and `inform` (the old one) when those messages arrive. At the
//! adjust the routes switch to the new cell, whose link (if not yet up) holds what comes,
//! the packets held on the old link are sent on by their senders, the old base station's
//! agent hands over what it keeps for the mobile to the new one's (I-TCP's connections) and
//! hears `adjust` (send on what you keep), and the mobile's own agent moves with it to the
//! new cell's interface. At the attach the new link comes up and the new base station's
//! agent and the mobile's hear `attach`.

use airtcp_proto::agent::Signal;
use airtcp_proto::Instant;

use super::{Event, Simulation};
use crate::config::Detached;
use crate::interface::opposite;
use crate::mobility::{Cell, CellPath, Handoff};
use crate::packet::node_address;
use crate::rng::{stream, StreamId};
use crate::summary::{HandoffSummary, MobileSummary};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum HandoffStep {
    Detach,
    Greeting,
    Inform,
    Adjust,
    Attach,
}

/// A mobile host as the run drives it.
pub(super) struct Mobile {
    pub(super) node: usize,
    /// From a detach until the mobile is reachable again (`Handoff::end_ns`).
    pub(super) in_handoff: bool,
    hold: bool,
    cells: Vec<Cell>,
    timeline: Vec<Handoff>,
    /// Packets held in a left cell and sent on through the new one.
    forwarded: u64,
}

impl Mobile {
    fn cell(&self, base_station: usize) -> Cell {
        *self
            .cells
            .iter()
            .find(|cell| cell.base_station == base_station)
            .expect("validated: handoffs name cells")
    }
}

impl Simulation {
    /// Sets each mobile in its first cell (out of the others, which are out of the routes)
    /// and schedules its handoffs' steps.
    pub(super) fn place_mobiles(&mut self) {
        for (m, config) in self.scenario.mobiles.clone().iter().enumerate() {
            let cells = config.cells(&self.scenario);
            let hold = config.while_detached == Detached::Buffer;
            for cell in &cells {
                if cell.base_station != config.attached {
                    self.routes.set_pair(cell.base_station, config.node, false);
                    // the BSSs hold nothing yet: leaving delivers and records nothing
                    let left = self.leave_cell(*cell, hold);
                    left.expect("nothing to record before the run");
                }
            }
            let mut rng = stream(self.scenario.seed, StreamId::Mobile { mobile: m as u32 });
            let delays = config.draw_delays(&mut rng);
            let timeline = config.timeline(&delays, self.scenario.duration_ns);
            for (h, handoff) in timeline.iter().enumerate() {
                for (at, step) in [
                    (handoff.detach_ns, HandoffStep::Detach),
                    (handoff.greeting_ns, HandoffStep::Greeting),
                    (handoff.inform_ns, HandoffStep::Inform),
                    (handoff.adjust_ns, HandoffStep::Adjust),
                    (handoff.attach_ns, HandoffStep::Attach),
                ] {
                    let event = Event::Handoff {
                        mobile: m as u32,
                        handoff: h as u32,
                        step,
                    };
                    self.events.schedule(Instant::from_nanos(at), event);
                }
            }
            self.mobiles.push(Mobile {
                node: config.node,
                in_handoff: false,
                hold,
                cells,
                timeline,
                forwarded: 0,
            });
        }
    }

    /// The mobile is out of `cell`: its link down both ways, or out of the BSS (what the
    /// AP's or the mobile's Block Ack buffers held then goes up: `Bss::leave`).
    fn leave_cell(&mut self, cell: Cell, hold: bool) -> std::io::Result<()> {
        match cell.path {
            CellPath::Link { down } => {
                let now = self.now();
                self.channels[down as usize].go_down(now, hold);
                self.channels[opposite(down) as usize].go_down(now, hold);
                Ok(())
            }
            CellPath::Wlan { bss, mac } => {
                let (now, mut actions) = (self.now(), std::mem::take(&mut self.wlan_actions));
                self.bss(bss).leave(now, mac, hold, &mut actions);
                self.apply_wlan(bss, actions)
            }
        }
    }

    fn is_in(&self, cell: Cell) -> bool {
        match cell.path {
            CellPath::Link { down } => self.channels[down as usize].is_up(),
            CellPath::Wlan { bss, mac } => !self.bss_ref(bss).is_absent(mac),
        }
    }

    /// The mobile is in `cell` again: what was held there goes out.
    fn join_cell(&mut self, cell: Cell) -> std::io::Result<()> {
        let now = self.now();
        match cell.path {
            CellPath::Link { down } => {
                for channel in [down, opposite(down)] {
                    let actions = self.channels[channel as usize].go_up(now);
                    self.apply_channel(channel, actions);
                }
                Ok(())
            }
            CellPath::Wlan { bss, mac } => {
                let mut actions = std::mem::take(&mut self.wlan_actions);
                self.bss(bss).join(now, mac, &mut actions);
                self.apply_wlan(bss, actions)
            }
        }
    }

    /// What a left cell held for the mobile and from it, with the node that sends each on.
    fn take_held(&mut self, cell: Cell) -> Vec<(usize, crate::packet::Packet)> {
        let now = self.now();
        match cell.path {
            CellPath::Link { down } => [down, opposite(down)]
                .into_iter()
                .flat_map(|channel| {
                    let sender = self.channel_ends[channel as usize].0;
                    let held = self.channels[channel as usize].take_held(now);
                    held.into_iter().map(move |packet| (sender, packet))
                })
                .collect(),
            CellPath::Wlan { bss, mac } => self.bss(bss).take_held(mac),
        }
    }

    pub(super) fn handoff_step(
        &mut self,
        mobile: u32,
        handoff: u32,
        step: HandoffStep,
    ) -> std::io::Result<()> {
        let m = &mut self.mobiles[mobile as usize];
        let Handoff { from, to, .. } = m.timeline[handoff as usize];
        m.in_handoff = match step {
            HandoffStep::Detach => true,
            HandoffStep::Adjust | HandoffStep::Attach => {
                self.events.now().as_nanos() < m.timeline[handoff as usize].end_ns()
            }
            HandoffStep::Greeting | HandoffStep::Inform => m.in_handoff,
        };
        let (node, hold) = (m.node, m.hold);
        let (old, new) = (m.cell(from), m.cell(to));
        let about = |name| Signal::about(name, node_address(node));
        match step {
            HandoffStep::Detach => self.leave_cell(old, hold)?,
            HandoffStep::Greeting => self.signal(new.base_station_side(), about("greeting"))?,
            HandoffStep::Inform => {
                if let CellPath::Wlan { bss, mac } = old.path {
                    let (now, mut actions) = (self.now(), std::mem::take(&mut self.wlan_actions));
                    self.bss(bss).forget(now, mac, &mut actions);
                    self.apply_wlan(bss, actions)?;
                }
                self.signal(old.base_station_side(), about("inform"))?;
            }
            HandoffStep::Adjust => {
                self.routes.set_pair(from, node, false);
                self.routes.set_pair(to, node, true);
                if !self.is_in(new) {
                    // Greeted, the new base station holds what comes for the mobile until the
                    // attach, whatever became of what went to the old cell.
                    self.leave_cell(new, true)?;
                }
                let (old_side, new_side) = (old.mobile_side(), new.mobile_side());
                if old_side != new_side && !self.has_agent(new_side) {
                    if let Some(agent) = self.take_agent(old_side) {
                        self.put_agent(new_side, agent, super::build::AgentQueues::default())
                            .expect("a mobile's agent plans no channel access");
                    }
                }
                // I-TCP's connections move between the base stations' agents.
                let (old_station, new_station) = (old.base_station_side(), new.base_station_side());
                self.hand_over(old_station, new_station, node_address(node))?;
                // The old base station's agent hears first, so that it can tell what it keeps
                // from what its interface holds (and will be sent on anyway).
                self.signal(old_station, about("adjust"))?;
                self.signal(new_side, about("adjust"))?;
                let held = self.take_held(old);
                self.mobiles[mobile as usize].forwarded += held.len() as u64;
                for (sender, packet) in held {
                    self.forward(sender, packet)?;
                }
            }
            HandoffStep::Attach => {
                self.join_cell(new)?;
                self.signal(new.base_station_side(), about("attach"))?;
                self.signal(new.mobile_side(), about("attach"))?;
            }
        }
        Ok(())
    }

    pub(super) fn mobile_summaries(&self) -> Vec<MobileSummary> {
        let end_ns = self.scenario.duration_ns;
        let names = &self.scenario.nodes;
        let s = |ns: u64| ns as f64 / 1e9;
        self.mobiles
            .iter()
            .map(|m| MobileSummary {
                node: names[m.node].clone(),
                handoffs: m
                    .timeline
                    .iter()
                    .map(|h| HandoffSummary {
                        from: names[h.from].clone(),
                        to: names[h.to].clone(),
                        detach_s: s(h.detach_ns),
                        beacon_s: s(h.beacon_ns),
                        greeting_s: s(h.greeting_ns),
                        inform_s: s(h.inform_ns),
                        adjust_s: s(h.adjust_ns),
                        attach_s: s(h.attach_ns),
                        duration_s: s(h.duration_ns()),
                        completed: h.end_ns() <= end_ns,
                    })
                    .collect(),
                forwarded_packets: m.forwarded,
            })
            .collect()
    }
}
