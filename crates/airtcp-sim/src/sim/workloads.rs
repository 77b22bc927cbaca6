//! A workload flow (`AppConfig::TcpWorkload`, `crate::workload`): finite TCP transfers
//! arriving as a Poisson process, each its own connection, and their completion times.
//!
//! Workload `k` listens on `ports::WORKLOAD_SERVER_PORT + k`; a connection in slot `s` uses client
//! port 1024 + s, so a segment finds its connection from its ports without a table. A slot
//! is freed when the receiver has closed and the sender reached TIME-WAIT (its 2·MSL is not
//! kept: the port goes to the back of the free slots, reused after all others), so that a
//! run may carry any number of flows with at most `MAX_CONNECTIONS` open at once; an arrival
//! finding none free is counted as refused. A flow's completion time runs from its arrival
//! to the receiver having every byte and the FIN, as the bulk flows' `completion_time_s`.

use std::collections::VecDeque;

use airtcp_proto::tcp::{cc, TcpConfig, TcpSocket, TcpState, TcpStats};
use airtcp_proto::wire::TcpRepr;
use airtcp_proto::{Instant, SeqNumber};
use rand::Rng;

use super::endpoints::{Conn, FlowApp, TcpFlow};
use super::{Event, Side, Simulation};
use crate::ports::{FIRST_CLIENT_PORT, MAX_CONNECTIONS, WORKLOAD_SERVER_PORT};
use crate::rng::{stream, Stream, StreamId};
use crate::workload::{exponential_gap_ns, SizeDistribution};

/// A workload's flows in the order they arrived.
#[derive(Debug, Default)]
pub(super) struct Records {
    pub(super) size_bytes: Vec<u64>,
    pub(super) arrived_at: Vec<Instant>,
    /// When the receiver had every byte and the FIN.
    pub(super) completed_at: Vec<Option<Instant>>,
    /// Arrivals that found no connection free.
    pub(super) refused: u64,
}

impl Records {
    fn push(&mut self, size: u64, now: Instant) -> usize {
        self.size_bytes.push(size);
        self.arrived_at.push(now);
        self.completed_at.push(None);
        self.size_bytes.len() - 1
    }

    fn len(&self) -> usize {
        self.size_bytes.len()
    }
}

pub(super) struct WorkloadFlow {
    /// Its place among the scenario's workloads (its server port's offset).
    index: u16,
    sizes: SizeDistribution,
    /// Mean arrivals a second.
    rate_per_s: f64,
    max_flows: u64,
    tcp_config: TcpConfig,
    congestion_control: String,
    rng: Stream,
    /// Open connections by slot, with the index of their record.
    slots: Vec<Option<(Box<TcpFlow>, usize)>>,
    free: VecDeque<u32>,
    pub(super) stopped: bool,
    /// Every flow that arrived: size, arrival, completion.
    pub(super) records: Records,
    /// Counters of the connections already closed.
    pub(super) closed_stats: TcpStats,
    pub(super) acks_sent: u64,
}

impl WorkloadFlow {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        index: u16,
        sizes: SizeDistribution,
        offered_bps: u64,
        max_flows: Option<u64>,
        tcp_config: TcpConfig,
        congestion_control: String,
        seed: u64,
        flow: u32,
    ) -> Self {
        let rate_per_s = offered_bps as f64 / (8.0 * sizes.mean());
        WorkloadFlow {
            index,
            sizes,
            rate_per_s,
            max_flows: max_flows.unwrap_or(u64::MAX),
            tcp_config,
            congestion_control,
            rng: stream(seed, StreamId::Workload { flow }),
            slots: Vec::new(),
            free: VecDeque::new(),
            stopped: false,
            records: Records::default(),
            closed_stats: TcpStats::default(),
            acks_sent: 0,
        }
    }

    pub(super) fn connection(&mut self, slot: u32) -> Option<&mut TcpFlow> {
        self.slots
            .get_mut(slot as usize)?
            .as_mut()
            .map(|(tcp, _)| &mut **tcp)
    }

    /// A connection and where its completion time goes.
    pub(super) fn connection_and_completion(
        &mut self,
        slot: u32,
    ) -> Option<(&mut TcpFlow, &mut Option<Instant>)> {
        let (tcp, record) = self.slots.get_mut(slot as usize)?.as_mut()?;
        Some((&mut **tcp, &mut self.records.completed_at[*record]))
    }

    /// The open connections.
    pub(super) fn open(&self) -> impl Iterator<Item = &TcpFlow> {
        self.slots.iter().flatten().map(|(tcp, _)| &**tcp)
    }

    /// Opens a connection for a flow of `size` bytes arriving `now`; `None` if no slot is
    /// free.
    fn open_connection(&mut self, now: Instant) -> Option<u32> {
        let slot = match self.free.pop_front() {
            Some(slot) => slot,
            None if (self.slots.len() as u32) < MAX_CONNECTIONS => {
                self.slots.push(None);
                self.slots.len() as u32 - 1
            }
            None => return None,
        };
        let size = self.sizes.sample(&mut self.rng);
        let client = FIRST_CLIENT_PORT + slot as u16;
        let server = WORKLOAD_SERVER_PORT + self.index;
        let make = |local, remote| {
            let controller = cc::by_name(&self.congestion_control, &self.tcp_config)
                .expect("validated congestion control name");
            TcpSocket::new(self.tcp_config.clone(), controller, local, remote)
        };
        let mut tcp = Box::new(TcpFlow {
            sockets: [make(client, server), make(server, client)],
            timers: [None, None],
            remaining: Some(size),
            finite: true,
        });
        tcp.sockets[Side::Receiver as usize].listen(SeqNumber(self.rng.random()));
        tcp.sockets[Side::Sender as usize].connect(SeqNumber(self.rng.random()));
        let record = self.records.push(size, now);
        self.slots[slot as usize] = Some((tcp, record));
        Some(slot)
    }

    /// Frees `slot` once its receiver closed and its sender is in TIME-WAIT or closed.
    fn release_if_done(&mut self, slot: u32) {
        let Some((tcp, _)) = self.slots[slot as usize].as_ref() else {
            return;
        };
        let [sender, receiver] = &tcp.sockets;
        let done = receiver.state() == TcpState::Closed
            && matches!(sender.state(), TcpState::TimeWait | TcpState::Closed);
        if done {
            let (tcp, _) = self.slots[slot as usize].take().expect("checked");
            add_stats(&mut self.closed_stats, tcp.sockets[0].stats());
            self.acks_sent += tcp.sockets[1].stats().segments_sent;
            self.free.push_back(slot);
        }
    }
}

/// Adds a closed connection's sender counters to a workload's.
pub(super) fn add_stats(total: &mut TcpStats, stats: &TcpStats) {
    total.retransmissions += stats.retransmissions;
    total.fast_retransmits += stats.fast_retransmits;
    total.duplicate_acks += stats.duplicate_acks;
    total.timeouts += stats.timeouts;
    total.rescue_retransmissions += stats.rescue_retransmissions;
    total.loss_probes += stats.loss_probes;
    total.undos += stats.undos;
    total.ecn_reductions += stats.ecn_reductions;
    total.segments_received += stats.segments_received;
}

impl Simulation {
    /// The workload connection a segment belongs to, from its ports, and which end.
    pub(super) fn workload_connection(&self, segment: &TcpRepr) -> Option<(usize, Conn, Side)> {
        let is_server = |port: u16| {
            port.checked_sub(WORKLOAD_SERVER_PORT)
                .and_then(|k| self.workload_flows.get(usize::from(k)))
                .copied()
        };
        let (flow, client, side) = if let Some(flow) = is_server(segment.dst_port) {
            (flow, segment.src_port, Side::Receiver)
        } else {
            let flow = is_server(segment.src_port)?;
            (flow, segment.dst_port, Side::Sender)
        };
        let slot = client.checked_sub(FIRST_CLIENT_PORT)?;
        Some((flow, Conn::Slot(u32::from(slot)), side))
    }

    /// The workload starts: its first flow arrives after an exponential gap.
    pub(super) fn workload_start(&mut self, flow: usize) {
        if let FlowApp::Workload(workload) = &mut self.flows[flow].app {
            let gap = exponential_gap_ns(workload.rate_per_s, &mut workload.rng);
            let at = self.now() + std::time::Duration::from_nanos(gap);
            self.events
                .schedule(at, Event::WorkloadArrival { flow: flow as u32 });
        }
    }

    /// A flow of the workload arrives: its connection opens and the next arrival is
    /// scheduled.
    pub(super) fn workload_arrival(&mut self, flow: usize) -> std::io::Result<()> {
        let now = self.now();
        let FlowApp::Workload(workload) = &mut self.flows[flow].app else {
            return Ok(());
        };
        if workload.stopped || workload.records.len() as u64 >= workload.max_flows {
            return Ok(());
        }
        let opened = workload.open_connection(now);
        if opened.is_none() {
            workload.records.refused += 1;
        }
        let gap = exponential_gap_ns(workload.rate_per_s, &mut workload.rng);
        self.events.schedule(
            now + std::time::Duration::from_nanos(gap),
            Event::WorkloadArrival { flow: flow as u32 },
        );
        if let Some(slot) = opened {
            self.drive_tcp(flow, Conn::Slot(slot), Side::Sender)?;
        }
        Ok(())
    }

    pub(super) fn workload_release_if_done(&mut self, flow: usize, slot: u32) {
        if let FlowApp::Workload(workload) = &mut self.flows[flow].app {
            workload.release_if_done(slot);
        }
    }
}
