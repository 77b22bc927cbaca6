//! End hosts outside the simulator, for the emulator (crate `airtcp-emu`): each flow's end
//! hosts are real kernels in network namespaces, and everything between them (links,
//! queues, the 802.11 MAC, routers, agents) is this simulation driven on a wall clock.
//!
//! A host's packets come in as bytes (`inject`): the headers become the simulator's packet,
//! the payload waits in a [`PayloadStore`]. A packet reaching the host it is addressed to
//! leaves as bytes (`drain_outgoing`): the headers as the agents left them and the stored
//! payload, checksums computed afresh. The flows are not simulated then: the hosts' own
//! TCP, ping and iperf3 are the traffic. The emulator alternates `run_until(now)`,
//! `inject` and `drain_outgoing`, and ends with `finish`.

use airtcp_proto::wire::PacketRepr;
use airtcp_proto::Instant;

use super::received::{Received, ReceivedLog};
use super::{RunResult, Simulation};
use crate::config::{ConfigError, Scenario};
use crate::engine::VirtualClock;
use crate::packet::{node_address, Packet};
use crate::payloads::{PayloadStore, DEFAULT_PAYLOAD_BUDGET};
use crate::routing::Hop;
use crate::summary::{ExternalCounters, Summary};

pub(super) struct External {
    is_host: Vec<bool>,
    payloads: PayloadStore,
    /// (host, when it reached the host, bytes).
    outgoing: Vec<(usize, Instant, Vec<u8>)>,
    received: ReceivedLog,
    pub(super) counters: ExternalCounters,
}

impl External {
    /// The flows' end hosts of `scenario`, each of which must be a leaf of the network
    /// (`adjacency`, the build's: one neighbour, or a mobile's base stations one at a time):
    /// an emulated host has one interface and does not forward.
    pub(super) fn new(
        scenario: &Scenario,
        adjacency: &[Vec<(usize, Hop)>],
    ) -> Result<External, ConfigError> {
        let mut is_host = vec![false; scenario.nodes.len()];
        for flow in &scenario.flows {
            is_host[flow.src] = true;
            is_host[flow.dst] = true;
        }
        for (node, _) in is_host.iter().enumerate().filter(|(_, host)| **host) {
            let mobile = scenario.mobiles.iter().any(|m| m.node == node);
            let neighbours = adjacency[node].len();
            if neighbours > 1 && !mobile {
                return Err(ConfigError {
                    key: format!("nodes[{node}]"),
                    message: format!(
                        "'{}' is a flow's end host with {neighbours} neighbours; an emulated \
                         host has one interface (put a router between it and the rest)",
                        scenario.nodes[node]
                    ),
                });
            }
        }
        Ok(External {
            is_host,
            // Agents may send a segment again (`PayloadStore`).
            payloads: PayloadStore::new(DEFAULT_PAYLOAD_BUDGET, !scenario.agents.is_empty()),
            outgoing: Vec::new(),
            received: ReceivedLog::new(
                Instant::from_nanos(scenario.measure_from_ns),
                Instant::from_nanos(scenario.duration_ns),
            ),
            counters: ExternalCounters::default(),
        })
    }

    /// The payload a host sent with `packet`, if still kept.
    pub(super) fn payload(&self, packet: &Packet) -> Option<&[u8]> {
        self.payloads.get(packet.uid, &packet.repr)
    }
}

impl Simulation {
    /// The nodes that are hosts outside the simulator (none unless
    /// `RunOptions::external_hosts`).
    pub fn external_hosts(&self) -> Vec<usize> {
        self.external.as_ref().map_or_else(Vec::new, |external| {
            (0..external.is_host.len())
                .filter(|&node| external.is_host[node])
                .collect()
        })
    }

    pub(super) fn is_external_host(&self, node: usize) -> bool {
        self.external
            .as_ref()
            .is_some_and(|external| external.is_host[node])
    }

    /// When the next event is due, if any is pending.
    pub fn next_event_at(&self) -> Option<Instant> {
        self.events.next_at()
    }

    /// Handles every event due by `until` and moves time there (the emulator's wall clock).
    pub fn run_until(&mut self, until: Instant) -> std::io::Result<()> {
        while let Some(event) = self.events.pop_until(until, &mut VirtualClock) {
            self.handle(event)?;
        }
        self.events.advance_to(until);
        Ok(())
    }

    /// A packet the host `node` sent, now: carried from `node` into the network. Bytes that
    /// are not a packet the simulator carries, or not from the host's address, are counted
    /// and dropped.
    pub fn inject(&mut self, node: usize, bytes: &[u8]) -> std::io::Result<()> {
        let parsed = PacketRepr::parse_with_payload(bytes);
        let packet = match &parsed {
            Ok((repr, _)) if repr.ip.src == node_address(node) => Some(self.new_packet(*repr)),
            _ => None,
        };
        let Some(external) = self.external.as_mut() else {
            return Ok(());
        };
        let counters = &mut external.counters;
        match (parsed, packet) {
            (Err(_), _) => counters.unparsed += 1,
            (Ok(_), None) => counters.foreign_source += 1,
            (Ok((_, payload)), Some(packet)) => {
                counters.injected += 1;
                external.payloads.insert(packet.uid, &packet.repr, payload);
                return self.send_from(node, packet);
            }
        }
        Ok(())
    }

    /// A packet that reached the external host it is addressed to: queued as bytes for
    /// `drain_outgoing`.
    pub(super) fn deliver_external(&mut self, node: usize, packet: Packet) {
        let now = self.now();
        let Some(external) = self.external.as_mut() else {
            return;
        };
        let Some(payload) = external.payload(&packet) else {
            external.counters.payload_missing += 1;
            return;
        };
        let bytes = packet.repr.emit_with_payload(payload);
        external.payloads.release(packet.uid);
        external.counters.delivered += 1;
        external.received.record(now, &packet.repr);
        external.outgoing.push((node, now, bytes));
    }

    /// Hands each packet waiting for a host to `write(node, due, bytes)`, oldest first;
    /// `due` is the instant it reached the host (the emulator is late by what follows).
    pub fn drain_outgoing(&mut self, mut write: impl FnMut(usize, Instant, &[u8])) {
        if let Some(external) = self.external.as_mut() {
            for (node, due, bytes) in external.outgoing.drain(..) {
                write(node, due, &bytes);
            }
        }
    }

    /// What reached the hosts, per connection (`received`).
    pub fn received(&self) -> Vec<Received> {
        self.external
            .as_ref()
            .map_or_else(Vec::new, |external| external.received.received())
    }

    /// The summary of the network so far (its counters cover time 0 to now), without
    /// ending the run: the emulator's view at the scenario's end while the hosts' tools
    /// finish.
    pub fn summary_now(&self, wall_time_s: f64) -> Summary {
        self.summarise(wall_time_s)
    }

    /// Ends an emulated run at the current time (`run_until`'s last instant) with its
    /// summary; `wall_time_s` is how long it took.
    pub fn finish(mut self, wall_time_s: f64) -> std::io::Result<RunResult> {
        self.close_traces()?;
        let summary = self.summarise(wall_time_s);
        Ok(RunResult {
            summary,
            series: std::mem::take(&mut self.series),
        })
    }
}
