//! Driving handoffs (`crate::mobility`): each step of a handoff is an event. At the detach
//! the old cell's link goes down; the base stations' agents on their cell interfaces hear
//! `greeting` (the new one) and `inform` (the old one) when those messages arrive. At the
//! adjust the routes switch to the new cell, whose link (if not yet up) holds what comes,
//! the packets held on the old link are sent on by their senders, the old base station's
//! agent hears `adjust` (send on what you keep), and the mobile's own agent moves with it to
//! the new cell's interface. At the attach the new link comes up and the new base station's
//! agent and the mobile's hear `attach`.

use airtcp_proto::Instant;

use super::{Event, Simulation};
use crate::interface::{opposite, Interface};
use crate::mobility::{Detached, Handoff};
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
    /// Per cell: the base station and the link's channels towards the mobile and back.
    cells: Vec<(usize, u32, u32)>,
    timeline: Vec<Handoff>,
    /// Packets held on a left cell's link and sent on at the attach.
    forwarded: u64,
}

impl Mobile {
    fn cell(&self, base_station: usize) -> (u32, u32) {
        let &(_, down, up) = self
            .cells
            .iter()
            .find(|(bs, _, _)| *bs == base_station)
            .expect("validated: handoffs name cells");
        (down, up)
    }
}

impl Simulation {
    /// Sets each mobile in its first cell (the others' links down and out of the routes)
    /// and schedules its handoffs' steps.
    pub(super) fn place_mobiles(&mut self) {
        for (m, config) in self.scenario.mobiles.clone().iter().enumerate() {
            let cells = config
                .cells(&self.scenario)
                .into_iter()
                .map(|(bs, down)| (bs, down, opposite(down)))
                .collect::<Vec<_>>();
            let hold = config.while_detached == Detached::Buffer;
            for &(bs, down, up) in &cells {
                if bs != config.attached {
                    self.routes.set_pair(bs, config.node, false);
                    self.channels[down as usize].go_down(hold);
                    self.channels[up as usize].go_down(hold);
                }
            }
            let mut rng = stream(self.scenario.seed, StreamId::Mobile { mobile: m as u32 });
            let timeline = config.timeline(&config.draw_delays(&mut rng));
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
        let (old_down, old_up) = m.cell(from);
        let (new_down, new_up) = m.cell(to);
        match step {
            HandoffStep::Detach => {
                self.channels[old_down as usize].go_down(hold);
                self.channels[old_up as usize].go_down(hold);
            }
            HandoffStep::Greeting => self.signal(Interface::Channel(new_down), "greeting")?,
            HandoffStep::Inform => self.signal(Interface::Channel(old_down), "inform")?,
            HandoffStep::Adjust => {
                self.routes.set_pair(from, node, false);
                self.routes.set_pair(to, node, true);
                for channel in [new_down, new_up] {
                    let link = &mut self.channels[channel as usize];
                    if !link.is_up() {
                        // Greeted, the new base station holds what comes for the mobile until the attach,
                        // whatever became of what went to the old cell.
                        link.go_down(true);
                    }
                }
                if self.channels[new_up as usize].agent.is_none() {
                    if let Some(mut slot) = self.channels[old_up as usize].agent.take() {
                        slot.timer = None; // re-armed on the new interface
                        self.channels[new_up as usize].agent = Some(slot);
                    }
                }
                // The old base station's agent hears first, so that it can tell what it keeps
                // from what its link holds (and will be sent on anyway).
                self.signal(Interface::Channel(old_down), "adjust")?;
                self.signal(Interface::Channel(new_up), "adjust")?;
                for channel in [old_down, old_up] {
                    let sender = self.channel_ends[channel as usize].0;
                    let held = self.channels[channel as usize].take_held();
                    self.mobiles[mobile as usize].forwarded += held.len() as u64;
                    for packet in held {
                        self.forward(sender, packet)?;
                    }
                }
            }
            HandoffStep::Attach => {
                let now = self.now();
                for channel in [new_down, new_up] {
                    let actions = self.channels[channel as usize].go_up(now);
                    self.apply_channel(channel, actions);
                }
                self.signal(Interface::Channel(new_down), "attach")?;
                self.signal(Interface::Channel(new_up), "attach")?;
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
