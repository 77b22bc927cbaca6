//! A simulation run: the event loop and the packet path through a node. Building the
//! network from a [`Scenario`] is in `build`, the flows' endpoints (TCP sockets, UDP
//! sources) in `endpoints`, agents on interfaces in `agents`, samples and the summary in
//! `report`; routes come from `crate::routing`.
//!
//! A packet leaves a node by `forward` (its first hop from `routing`), passes the agent on
//! that interface if there is one (`agents::send`), and joins the link's or the MAC's
//! queue. It arrives on an interface, passes the agent there (`agents::receive`), and the
//! node either delivers it to an endpoint or forwards it.

mod agents;
mod build;
mod endpoints;
mod external;
mod mobility;
mod received;
mod report;
mod wlans;
mod workloads;

use std::path::PathBuf;
use std::time::Duration;

use airtcp_proto::time::seconds;
use airtcp_proto::wire::{PacketRepr, TcpRepr};
use airtcp_proto::Instant;

use crate::config::Scenario;
use crate::engine::{Clock, EventQueue, VirtualClock};
use crate::interface::Interface;
use crate::link::{Channel, ChannelActions};
use crate::packet::{address_node, Packet};
use crate::pcap::{NodeTraces, WlanTraces};
use crate::radio::{RadioActions, RadioEvent, SharedChannel};
use crate::routing::{Hop, Routes};
use crate::slab::Slab;
use crate::summary::{Summary, TimeSeries};
use crate::wlan::Actions;

use endpoints::{Conn, Flow};
use external::External;
use mobility::{HandoffStep, Mobile};
pub use received::{Received, RECEIVED_BIN_NS};
use wlans::Wlan;

#[derive(Clone, Copy, Debug)]
enum Event {
    ChannelTxDone {
        channel: u32,
    },
    /// A packet (parked in `in_flight`) reaches the far end of a wired channel.
    ArriveWired {
        channel: u32,
        packet: u32,
    },
    /// A packet (parked in `in_flight`) reaches a MAC of a BSS (u16s: at most 32768 BSSs and
    /// 10000 stations each).
    ArriveWlan {
        bss: u16,
        mac: u16,
        packet: u32,
    },
    /// The MPDUs of an A-MPDU that reach one MAC together, in order (`arrivals`).
    ArriveWlanBatch {
        bss: u16,
        mac: u16,
        batch: u32,
    },
    WlanAccess {
        bss: u32,
        generation: u64,
    },
    WlanBusyEnd {
        bss: u32,
    },
    TcpTimer {
        flow: u32,
        /// `endpoints::Conn::code`: the flow's own connection, or a workload's slot.
        conn: u32,
        side: Side,
    },
    /// A workload's next flow arrives.
    WorkloadArrival {
        flow: u32,
    },
    FlowStart {
        flow: u32,
    },
    FlowStop {
        flow: u32,
    },
    /// A UDP source's next datagram, or a ping flow's next probe or train.
    DatagramSend {
        flow: u32,
    },
    AgentTimer {
        interface: Interface,
    },
    /// A packet an agent delayed, parked in `held`.
    AgentRelease {
        held: u32,
    },
    AgentSignal {
        interface: Interface,
        signal: u32,
    },
    /// A step of a mobile's handoff (indices into `mobiles` and its timeline).
    Handoff {
        mobile: u32,
        handoff: u32,
        step: HandoffStep,
    },
    /// A scheduled outage of wired link `link` begins (`up` false) or ends.
    LinkOutage {
        link: u32,
        up: bool,
    },
    /// A timer of shared channel `channel` (`crate::radio`).
    Radio {
        channel: u16,
        event: RadioEvent,
    },
    MeasureStart,
    Sample,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Sender = 0,
    Receiver = 1,
}

/// Options of a run that are not part of the scenario.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Write a pcap trace per node into this directory.
    pub pcap_dir: Option<PathBuf>,
    /// Write each BSS's channel as a radiotap 802.11 capture into this directory.
    pub wlan_pcap_dir: Option<PathBuf>,
    /// Bytes of each packet or frame the traces keep; `None` keeps the headers only
    /// (payloads are virtual zeros anyway).
    pub pcap_snaplen: Option<u32>,
    /// Keep the per-flow time series (`simulation.sample_interval`).
    pub time_series: bool,
    /// Give up once the run has taken this much wall-clock time (sweeps' per-run timeout).
    pub wall_limit: Option<Duration>,
    /// Told the progress now and then; a true answer (Ctrl-C) ends the run with an error of
    /// kind `Interrupted`.
    pub monitor: Option<Monitor>,
    /// The flows' end hosts are outside the simulator (the emulator's namespaces): their
    /// packets come in by `Simulation::inject` and leave by `drain_outgoing`, and the
    /// flows themselves are not simulated.
    pub external_hosts: bool,
}

/// How far a run has got, for progress displays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub simulated_s: f64,
    pub duration_s: f64,
    pub events: u64,
}

/// A callback the event loop calls every 65536 events with the progress; it answers
/// whether the user wants the run to stop.
#[derive(Clone)]
pub struct Monitor(pub std::sync::Arc<dyn Fn(&Progress) -> bool + Send + Sync>);

impl std::fmt::Debug for Monitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Monitor")
    }
}

pub struct Simulation {
    scenario: Scenario,
    wall_limit: Option<Duration>,
    monitor: Option<Monitor>,
    time_series: bool,
    events: EventQueue<Event>,
    routes: Routes,
    channels: Vec<Channel>,
    channel_ends: Vec<(usize, usize)>,
    wlans: Vec<Wlan>,
    /// Channels shared by WLANs with geometry.
    shared: Vec<SharedChannel>,
    radio_actions: RadioActions,
    flows: Vec<Flow>,
    /// The flow index of each workload, in order (`workloads::WORKLOAD_SERVER_PORT`).
    workload_flows: Vec<usize>,
    node_traces: Option<NodeTraces>,
    wlan_traces: Option<WlanTraces>,
    next_uid: u64,
    wlan_actions: Actions,
    /// A socket's segments waiting to be sent, with their ECN codepoints.
    outgoing: Vec<(TcpRepr, u8)>,
    series: TimeSeries,
    /// Names of the signals scheduled for agents (events carry an index).
    signal_names: Vec<String>,
    /// Packets agents delayed, by `AgentRelease` index (a slot is reused once released).
    held: Slab<agents::Held>,
    /// Packets on their way to the far end of a channel or to a MAC.
    in_flight: Slab<Packet>,
    /// Batches of packets an A-MPDU delivers to one MAC at one instant (`ArriveWlanBatch`),
    /// and emptied batches kept for reuse.
    arrivals: Slab<Vec<Packet>>,
    spare_batches: Vec<Vec<Packet>>,
    mobiles: Vec<Mobile>,
    /// Hosts outside the simulator (emulation), if any.
    external: Option<External>,
}

/// A finished run.
pub struct RunResult {
    pub summary: Summary,
    pub series: TimeSeries,
}

impl Simulation {
    fn schedule_initial_events(&mut self) {
        // External hosts run their flows themselves.
        let simulated_flows = if self.external.is_some() {
            &[][..]
        } else {
            &self.scenario.flows[..]
        };
        for (i, flow) in simulated_flows.iter().enumerate() {
            let flow_id = i as u32;
            self.events.schedule(
                Instant::from_nanos(flow.start_ns),
                Event::FlowStart { flow: flow_id },
            );
            if let Some(stop) = flow.stop_ns {
                self.events
                    .schedule(Instant::from_nanos(stop), Event::FlowStop { flow: flow_id });
            }
        }
        for (link, config) in self.scenario.links.iter().enumerate() {
            for outage in &config.outages {
                let link = link as u32;
                let (down, up) = (outage.at_ns, outage.at_ns + outage.duration_ns);
                self.events.schedule(
                    Instant::from_nanos(down),
                    Event::LinkOutage { link, up: false },
                );
                self.events.schedule(
                    Instant::from_nanos(up),
                    Event::LinkOutage { link, up: true },
                );
            }
        }
        self.events.schedule(
            Instant::from_nanos(self.scenario.measure_from_ns),
            Event::MeasureStart,
        );
        for (k, channel) in self.shared.iter().enumerate() {
            if let Some(at) = channel.first_move() {
                let channel = k as u16;
                let event = RadioEvent::Move;
                self.events.schedule(at, Event::Radio { channel, event });
            }
        }
        if self.time_series && self.scenario.sample_interval_ns > 0 {
            // every sample's rows, known now (bounded by validation)
            let instants = (self.scenario.duration_ns / self.scenario.sample_interval_ns) as usize;
            let tcp = self
                .flows
                .iter()
                .filter(|f| matches!(f.app, endpoints::FlowApp::Tcp(_)))
                .count();
            let timed = self.flows.iter().filter(|f| f.delay.is_some()).count();
            self.series.reserve(instants * tcp);
            let metered = self.scenario.queue_sojourn;
            let queues = self.channels.len() + self.mac_queue_count();
            self.series.queues.reserve(instants * queues, metered);
            self.series.delays.reserve(instants * timed);
            self.events.schedule(
                Instant::from_nanos(self.scenario.sample_interval_ns),
                Event::Sample,
            );
        }
    }

    /// The measurement window begins: goodput, delays and sojourns count from now. Once a
    /// run, so out of the event loop, whose code stays as small as the fast path needs.
    #[cold]
    #[inline(never)]
    fn start_measurement(&mut self) {
        for flow in &mut self.flows {
            flow.delivered_at_measure = flow.delivered;
            if let Some(delay) = &mut flow.delay {
                delay.reset();
            }
        }
        for channel in &mut self.channels {
            channel.queue.start_sojourn_window();
        }
        self.start_mac_sojourn_windows();
    }

    /// The summary a run of this scenario would have, with every count zero: its shape (how
    /// many flows, WLANs and links), for checking paths into it before running.
    pub fn summary_template(&self) -> Summary {
        self.summarise(0.0)
    }

    /// Runs to the scenario's end in virtual time.
    pub fn run(self) -> std::io::Result<RunResult> {
        self.run_with_clock(&mut VirtualClock)
    }

    /// Runs to the end; an error of kind `TimedOut` if the wall-clock limit is reached.
    pub fn run_with_clock(mut self, clock: &mut impl Clock) -> std::io::Result<RunResult> {
        let started = std::time::Instant::now();
        if let Err(error) = self.run_events(started, clock) {
            if let Some(traces) = self.node_traces.take() {
                traces.discard();
            }
            if let Some(traces) = self.wlan_traces.take() {
                traces.discard();
            }
            return Err(error);
        }
        self.events
            .advance_to(Instant::from_nanos(self.scenario.duration_ns));
        self.finish(started.elapsed().as_secs_f64())
    }

    fn close_traces(&mut self) -> std::io::Result<()> {
        if let Some(traces) = self.node_traces.take() {
            traces.finish()?;
        }
        if let Some(traces) = self.wlan_traces.take() {
            traces.finish()?;
        }
        Ok(())
    }

    fn now(&self) -> Instant {
        self.events.now()
    }

    fn run_events(
        &mut self,
        started: std::time::Instant,
        clock: &mut impl Clock,
    ) -> std::io::Result<()> {
        let end = Instant::from_nanos(self.scenario.duration_ns);
        while let Some(event) = self.events.pop_until(end, clock) {
            self.handle(event)?;
            // Reading the clock costs more than an event: look every 64k events.
            if self.events.processed() % 65_536 == 0 {
                self.check_limits(started)?;
            }
        }
        Ok(())
    }

    fn check_limits(&self, started: std::time::Instant) -> std::io::Result<()> {
        if let Some(limit) = self.wall_limit.filter(|limit| started.elapsed() > *limit) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "wall-clock limit of {:.1} s reached at simulated {:.3} s",
                    limit.as_secs_f64(),
                    self.now().as_secs_f64()
                ),
            ));
        }
        let progress = Progress {
            simulated_s: self.now().as_secs_f64(),
            duration_s: seconds(self.scenario.duration_ns),
            events: self.events.processed(),
        };
        if self
            .monitor
            .as_ref()
            .is_some_and(|monitor| (monitor.0)(&progress))
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                format!("interrupted at simulated {:.3} s", self.now().as_secs_f64()),
            ));
        }
        Ok(())
    }

    #[inline(always)]
    fn handle(&mut self, event: Event) -> std::io::Result<()> {
        match event {
            Event::ChannelTxDone { channel } => {
                let now = self.now();
                let actions = self.channels[channel as usize].on_tx_done(now);
                self.apply_channel(channel, actions);
            }
            Event::ArriveWired { channel, packet } => {
                let packet = self.in_flight.take(packet);
                let link = &mut self.channels[channel as usize];
                if link.accept_arrival() {
                    let node = link.to_node;
                    self.receive(node, Interface::receiving_end(channel), packet)?;
                }
            }
            Event::ArriveWlan { bss, mac, packet } => {
                let packet = self.in_flight.take(packet);
                let (bss, mac) = (u32::from(bss), u32::from(mac));
                let node = self.wlan_node(bss, mac);
                self.receive(node, Interface::Wlan { bss, mac }, packet)?;
            }
            Event::ArriveWlanBatch { bss, mac, batch } => self.arrive_batch(bss, mac, batch)?,
            Event::WlanAccess { bss, generation } => {
                let now = self.now();
                let mut actions = std::mem::take(&mut self.wlan_actions);
                self.bss(bss).on_access(now, generation, &mut actions);
                self.apply_wlan(bss, actions)?;
            }
            Event::WlanBusyEnd { bss } => {
                let now = self.now();
                let mut actions = std::mem::take(&mut self.wlan_actions);
                self.bss(bss).on_busy_end(now, &mut actions);
                self.apply_wlan(bss, actions)?;
            }
            Event::TcpTimer { flow, conn, side } => {
                self.tcp_timer(flow as usize, Conn::from_code(conn), side)?
            }
            Event::WorkloadArrival { flow } => self.workload_arrival(flow as usize)?,
            Event::FlowStart { flow } => self.start_flow(flow as usize)?,
            Event::FlowStop { flow } => self.stop_flow(flow as usize)?,
            Event::DatagramSend { flow } => self.datagram_send(flow as usize)?,
            Event::AgentTimer { interface } => self.agent_timer(interface)?,
            Event::AgentRelease { held } => self.agent_release(held)?,
            Event::AgentSignal { interface, signal } => self.agent_signal(interface, signal)?,
            Event::Handoff {
                mobile,
                handoff,
                step,
            } => self.handoff_step(mobile, handoff, step)?,
            Event::LinkOutage { link, up } => {
                // A link's two directions are channels 2 link and 2 link + 1 (`build`).
                for channel in [2 * link, 2 * link + 1] {
                    if up {
                        let now = self.now();
                        let actions = self.channels[channel as usize].go_up(now);
                        self.apply_channel(channel, actions);
                    } else {
                        let now = self.now();
                        self.channels[channel as usize].go_down(now, false);
                    }
                }
            }
            Event::Radio { channel, event } => self.radio_event(u32::from(channel), event)?,
            Event::MeasureStart => self.start_measurement(),
            Event::Sample => self.sample(),
        }
        Ok(())
    }

    fn apply_channel(&mut self, channel: u32, actions: ChannelActions) {
        if let Some(at) = actions.tx_done {
            self.events.schedule(at, Event::ChannelTxDone { channel });
        }
        if let Some((at, packet)) = actions.arrival {
            let packet = self.in_flight.insert(packet);
            self.events
                .schedule(at, Event::ArriveWired { channel, packet });
        }
    }

    fn apply_wlan(&mut self, bss: u32, mut actions: Actions) -> std::io::Result<()> {
        if let Some((at, generation)) = actions.access.take() {
            self.events
                .schedule(at, Event::WlanAccess { bss, generation });
        }
        if let Some(at) = actions.busy_end.take() {
            self.events.schedule(at, Event::WlanBusyEnd { bss });
        }
        if actions.deliveries.len() > 1 && self.bss_ref(bss).aggregates() {
            self.wlan_batches(bss, &mut actions);
        }
        for (at, mac, packet) in actions.deliveries.drain(..) {
            self.wlan_arrival(at, bss, mac, packet);
        }
        for frame in actions.air.drain(..) {
            self.record_air(bss, &frame)?;
        }
        self.wlan_actions = actions;
        Ok(())
    }

    /// A packet reaches MAC `mac` of WLAN `bss` at `at`.
    fn wlan_arrival(&mut self, at: Instant, bss: u32, mac: u32, packet: Packet) {
        let (bss, mac) = (bss as u16, mac as u16);
        let packet = self.in_flight.insert(packet);
        self.events
            .schedule(at, Event::ArriveWlan { bss, mac, packet });
    }

    /// An aggregating BSS's deliveries, one event per run of packets to the same MAC at the
    /// same instant (an A-MPDU's MPDUs, handed up in order) instead of one per packet: the
    /// packets are handled in the same order as one event each would be (events of one
    /// instant run in the order they were scheduled, and these were scheduled together).
    fn wlan_batches(&mut self, bss: u32, actions: &mut Actions) {
        let mut rest = actions.deliveries.drain(..).peekable();
        while let Some((at, mac, packet)) = rest.next() {
            let mut batch = self.spare_batches.pop().unwrap_or_default();
            batch.push(packet);
            while let Some((_, _, next)) = rest.next_if(|&(a, m, _)| (a, m) == (at, mac)) {
                batch.push(next);
            }
            let (bss, mac) = (bss as u16, mac as u16);
            let batch = self.arrivals.insert(batch);
            self.events
                .schedule(at, Event::ArriveWlanBatch { bss, mac, batch });
        }
    }

    /// A batch of packets reaches MAC `mac` of WLAN `bss`, handled one after the other.
    fn arrive_batch(&mut self, bss: u16, mac: u16, batch: u32) -> std::io::Result<()> {
        let mut packets = self.arrivals.take(batch);
        let (bss, mac) = (u32::from(bss), u32::from(mac));
        let node = self.wlan_node(bss, mac);
        for packet in packets.drain(..) {
            self.receive(node, Interface::Wlan { bss, mac }, packet)?;
        }
        self.spare_batches.push(packets);
        Ok(())
    }

    /// Writes a frame of WLAN `bss` into its 802.11 capture, if one is being written.
    fn record_air(&mut self, bss: u32, frame: &crate::wlan::AirFrame) -> std::io::Result<()> {
        let Some(traces) = &mut self.wlan_traces else {
            return Ok(());
        };
        let external = self.external.as_ref();
        traces.record(bss as usize, frame, |packet| {
            external.and_then(|external| external.payload(packet))
        })
    }

    /// Sends a packet from `node` towards its destination's first hop.
    fn forward(&mut self, node: usize, packet: Packet) -> std::io::Result<()> {
        let Some(dst) = address_node(packet.repr.ip.dst) else {
            return Ok(());
        };
        match self.routes.first_hop(node, dst) {
            Hop::Unreachable => Ok(()),
            hop => self.send(hop, packet),
        }
    }

    /// A new packet (a uid of its own) with these headers.
    fn new_packet(&mut self, repr: PacketRepr) -> Packet {
        self.next_uid += 1;
        Packet {
            uid: self.next_uid - 1,
            repr,
        }
    }

    /// The uid `originate` (or any new packet) gets next: a flow timing its packets
    /// (`one_way_delay`) notes it before handing the packet over.
    fn upcoming_uid(&self) -> u64 {
        self.next_uid
    }

    /// A packet originated by `node`'s own stack.
    fn originate(&mut self, node: usize, repr: PacketRepr) -> std::io::Result<()> {
        let packet = self.new_packet(repr);
        self.send_from(node, packet)
    }

    /// A new packet leaving `node`, traced there.
    fn send_from(&mut self, node: usize, packet: Packet) -> std::io::Result<()> {
        self.trace(node, &packet)?;
        self.forward(node, packet)
    }

    /// Records `packet` in `node`'s trace, if traced, with its real payload when it came
    /// from a host outside.
    pub(super) fn trace(&mut self, node: usize, packet: &Packet) -> std::io::Result<()> {
        let now = self.now();
        let Some(traces) = &mut self.node_traces else {
            return Ok(());
        };
        let payload = self
            .external
            .as_ref()
            .and_then(|external| external.payload(packet));
        traces.record(node, now, packet, payload)
    }

    /// A packet the node handles: its own, or one to forward.
    pub(super) fn arrive(&mut self, node: usize, mut packet: Packet) -> std::io::Result<()> {
        self.trace(node, &packet)?;
        if address_node(packet.repr.ip.dst) != Some(node) {
            if packet.repr.ip.ttl <= 1 {
                return Ok(());
            }
            packet.repr.ip.ttl -= 1;
            return self.forward(node, packet);
        }
        if self.is_external_host(node) {
            self.deliver_external(node, packet);
            return Ok(());
        }
        self.deliver_locally(packet)
    }
}

// The event queue moves events by value: keep them small (packets, which carry TCP options,
// SACK blocks and timestamps included, wait in slabs).
const _: () = assert!(std::mem::size_of::<Event>() <= 24);
