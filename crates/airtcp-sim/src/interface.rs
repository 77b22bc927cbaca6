//! Where agents sit: a node's interface, either its side of a wired link (the channel it
//! sends on) or its MAC in a BSS. Each interface holds at most one agent, with the deadline
//! of the agent's timer event, next to the queue the agent may inspect and edit.

use airtcp_proto::agent::{self, Agent};
use airtcp_proto::Instant;

use crate::config::{AgentConfig, ConfigError, DirectionConfig, Scenario};
use crate::routing::Hop;

/// A node's interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interface {
    /// The sending side of a wired link's direction: the node is the channel's sender.
    Channel(u32),
    /// A MAC of a BSS (MAC 0 is the AP).
    Wlan { bss: u32, mac: u32 },
}

impl Interface {
    /// The interface a first hop leaves by.
    pub fn of_hop(hop: Hop) -> Option<Interface> {
        match hop {
            Hop::Unreachable => None,
            Hop::Channel(channel) => Some(Interface::Channel(channel)),
            Hop::Wlan { bss, mac, .. } => Some(Interface::Wlan { bss, mac }),
        }
    }

    /// An AP's interface to its BSS, the only place an agent may plan channel access.
    pub fn is_ap(self) -> bool {
        matches!(self, Interface::Wlan { mac: 0, .. })
    }

    /// The interface of the node at the far end of a wired channel.
    pub fn receiving_end(channel: u32) -> Interface {
        Interface::Channel(opposite(channel))
    }
}

/// The other direction of a wired channel's link: links are built as pairs of channels, 2i
/// one way and 2i + 1 the other.
pub fn opposite(channel: u32) -> u32 {
    channel ^ 1
}

/// Why an agent that plans channel access cannot sit where it was put.
pub fn planner_off_ap(kind: &str) -> String {
    format!("'{kind}' plans an 802.11 AP's channel access: put it on an AP's wlan interface")
}

/// An agent on an interface, and the deadline its timer event is armed for.
#[derive(Debug)]
pub struct AgentSlot {
    pub agent: Box<dyn Agent>,
    pub timer: Option<Instant>,
}

impl AgentSlot {
    pub fn new(agent: Box<dyn Agent>) -> Self {
        AgentSlot { agent, timer: None }
    }
}

impl Scenario {
    /// The settings of wired channel `channel` (link i's `a_to_b` is channel 2i, its
    /// `b_to_a` 2i + 1).
    pub fn channel_direction(&self, channel: u32) -> &DirectionConfig {
        let link = &self.links[channel as usize / 2];
        if channel % 2 == 0 {
            &link.a_to_b
        } else {
            &link.b_to_a
        }
    }

    /// A node's interfaces by name: the peer of each wired link it is on (link i is channel
    /// 2i from `a` and 2i + 1 from `b`), and `"wlan"` where it is an AP or a station; a
    /// station of several WLANs (a mobile with several cells) names each by its AP.
    pub fn interfaces(&self, node: usize) -> Vec<(&str, Interface)> {
        let names = &self.nodes;
        let wired = self.links.iter().enumerate().filter_map(move |(i, link)| {
            let channel = 2 * i as u32;
            if link.a == node {
                Some((names[link.b].as_str(), Interface::Channel(channel)))
            } else if link.b == node {
                Some((names[link.a].as_str(), Interface::Channel(channel + 1)))
            } else {
                None
            }
        });
        let memberships = self
            .wlans
            .iter()
            .filter(|w| w.ap == node || w.stations.contains(&node))
            .count();
        let wireless = self.wlans.iter().enumerate().filter_map(move |(b, wlan)| {
            let mac = if wlan.ap == node {
                0
            } else {
                wlan.stations.iter().position(|&s| s == node)? + 1
            };
            let name = if mac == 0 || memberships == 1 {
                "wlan"
            } else {
                names[wlan.ap].as_str()
            };
            let (bss, mac) = (b as u32, mac as u32);
            Some((name, Interface::Wlan { bss, mac }))
        });
        wired.chain(wireless).collect()
    }

    /// The interface `name` of a node (any, if it has just one), or why there is none.
    pub fn interface_of(&self, node: usize, name: Option<&str>) -> Result<Interface, String> {
        let interfaces = self.interfaces(node);
        let node_name = &self.nodes[node];
        let listed = || {
            let names: Vec<&str> = interfaces.iter().map(|(name, _)| *name).collect();
            names.join(", ")
        };
        match name {
            None if interfaces.len() == 1 => Ok(interfaces[0].1),
            None if interfaces.is_empty() => Err(format!("{node_name} has no interfaces")),
            None => Err(format!(
                "{node_name} has several interfaces ({}); name one with interface",
                listed()
            )),
            Some(wanted) => interfaces
                .iter()
                .find(|(name, _)| *name == wanted)
                .map(|(_, interface)| *interface)
                .ok_or_else(|| {
                    format!(
                        "{node_name} has no interface '{wanted}'; expected one of {}",
                        listed()
                    )
                }),
        }
    }

    /// Why `place` cannot take an agent, if it is a mobile's interface to a cell other than
    /// the one it starts in: an agent on a mobile moves with it from cell to cell.
    fn off_a_mobiles_first_cell(&self, place: Interface) -> Option<String> {
        let (mobile, cell) = self.mobiles.iter().find_map(|m| {
            let cells = m.cells(self);
            let cell = cells.iter().find(|cell| cell.mobile_side() == place)?;
            Some((m, cell.base_station))
        })?;
        (cell != mobile.attached).then(|| {
            format!(
                "an agent on mobile {} sits on the cell it starts in ({}) and moves with it",
                self.nodes[mobile.node], self.nodes[mobile.attached]
            )
        })
    }

    /// Where the scenario's agents go, with the key each came from: each WLAN's `agent` on
    /// its AP, then `[[agents]]` in order; an error names the key of a misplaced one.
    pub fn agent_places(&self) -> Result<Vec<(String, Interface, &AgentConfig)>, ConfigError> {
        let wlan_agents = self.wlans.iter().enumerate().filter_map(|(b, wlan)| {
            let key = format!("wlans[{b}].agent");
            let place = Interface::Wlan {
                bss: b as u32,
                mac: 0,
            };
            Some((key, Ok(place), wlan.agent.as_ref()?))
        });
        let placed = self.agents.iter().enumerate().map(|(i, placed)| {
            let place = self.interface_of(placed.node, placed.interface.as_deref());
            (format!("agents[{i}]"), place, &placed.agent)
        });
        let mut places: Vec<(String, Interface, &AgentConfig)> = Vec::new();
        for (key, place, config) in wlan_agents.chain(placed) {
            let fail = |message| ConfigError {
                key: format!("{key}.interface"),
                message,
            };
            let place = place.map_err(fail)?;
            if agent::plans_access(&config.kind) && !place.is_ap() {
                return Err(fail(planner_off_ap(&config.kind)));
            }
            if let Some(message) = self.off_a_mobiles_first_cell(place) {
                return Err(fail(message));
            }
            if let Some((other, _, _)) = places.iter().find(|(_, p, _)| *p == place) {
                return Err(fail(format!(
                    "the interface already has an agent ({other})"
                )));
            }
            places.push((key, place, config));
        }
        Ok(places)
    }
}
