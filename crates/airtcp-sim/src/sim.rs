//! A simulation run: builds nodes, links, BSSs and flows from a [`Scenario`], routes packets
//! hop by hop, drives the sans-IO TCP sockets from events, and collects the summary.
//!
//! Nodes are IPv4 hosts or forwarders with static shortest-path routes (`routing`). An AP
//! bridges its BSS and wired links.

use std::path::PathBuf;
use std::time::Duration;

use airtcp_proto::agent::{self, AgentSettings, ApAgent, DSSS_AC_VO_TXOP_NS, OFDM_AC_VO_TXOP_NS};
use airtcp_proto::tcp::{cc, TcpSocket, TcpState};
use airtcp_proto::time::seconds;
use airtcp_proto::wifi::bianchi::{self, CollisionTiming, Params};
use airtcp_proto::wifi::{Modulation, Phy};
use airtcp_proto::wire::{Ipv4Repr, PacketRepr, TcpRepr, TransportRepr, UdpRepr};
use airtcp_proto::{Instant, SeqNumber};
use rand::Rng;

use crate::config::{AppConfig, ConfigError, FlowConfig, Scenario};
use crate::engine::{Clock, EventQueue, VirtualClock};
use crate::link::{Channel, ChannelActions};
use crate::packet::{address_node, node_address, Packet};
use crate::pcap::PcapSet;
use crate::ports::{client_port, flow_of_port, SERVER_PORT, UDP_SINK_PORT};
use crate::rng::{stream, StreamId};
use crate::routing::{Hop, Routes};
use crate::summary::{
    jain_index, FlowSummary, LinkSummary, Sample, Summary, TimeSeries, WlanSummary,
};
use crate::wlan::{Actions, Bss, MacParams};

const TTL: u8 = 64;

#[derive(Clone, Copy, Debug)]
enum Event {
    ChannelTxDone { channel: u32 },
    Arrive { node: u32, packet: Packet },
    WlanAccess { bss: u32, generation: u64 },
    WlanBusyEnd { bss: u32 },
    TcpTimer { flow: u32, side: Side },
    FlowStart { flow: u32 },
    FlowStop { flow: u32 },
    CbrSend { flow: u32 },
    MeasureStart,
    Sample,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Sender = 0,
    Receiver = 1,
}

struct TcpFlow {
    sockets: [TcpSocket; 2],
    timers: [Option<Instant>; 2],
    /// Bytes the application still has to write; `None` is unlimited.
    remaining: Option<u64>,
    finite: bool,
}

struct UdpFlow {
    interval: Duration,
    payload_bytes: u32,
    active: bool,
}

enum FlowApp {
    Tcp(Box<TcpFlow>),
    Udp(UdpFlow),
}

struct Flow {
    config: FlowConfig,
    app: FlowApp,
    /// When the receiver of a finite TCP transfer had every byte and the FIN.
    completed_at: Option<Instant>,
    delivered: u64,
    delivered_at_measure: u64,
    delivered_at_sample: u64,
    packets_sent: u64,
}

/// Options of a run that are not part of the scenario.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Write a pcap trace per node into this directory.
    pub pcap_dir: Option<PathBuf>,
    /// Bytes of each packet the traces keep; `None` keeps the headers only (payloads are
    /// virtual zeros anyway).
    pub pcap_snaplen: Option<u32>,
    /// Keep the per-flow time series (`simulation.sample_interval`).
    pub time_series: bool,
    /// Give up once the run has taken this much wall-clock time (sweeps' per-run timeout).
    pub wall_limit: Option<Duration>,
    /// Told the progress now and then; a true answer (Ctrl-C) ends the run with an error of
    /// kind `Interrupted`.
    pub monitor: Option<Monitor>,
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
    bsses: Vec<Bss>,
    flows: Vec<Flow>,
    pcap: Option<PcapSet>,
    next_uid: u64,
    wlan_actions: Actions,
    outgoing: Vec<TcpRepr>,
    series: TimeSeries,
}

/// A finished run.
pub struct RunResult {
    pub summary: Summary,
    pub series: TimeSeries,
}

impl Simulation {
    pub fn new(scenario: Scenario, options: &RunOptions) -> Result<Simulation, ConfigError> {
        scenario.validate()?;
        let seed = scenario.seed;
        let node_count = scenario.nodes.len();
        let mut adjacency: Vec<Vec<(usize, Hop)>> = vec![Vec::new(); node_count];
        let mut channels = Vec::new();
        let mut channel_ends = Vec::new();
        for (i, link) in scenario.links.iter().enumerate() {
            for (direction, (from, to, config)) in [
                (link.a, link.b, &link.a_to_b),
                (link.b, link.a, &link.b_to_a),
            ]
            .into_iter()
            .enumerate()
            {
                let id = channels.len() as u32;
                let rng = stream(
                    seed,
                    StreamId::Link {
                        link: i as u32,
                        direction: direction as u8,
                    },
                );
                channels.push(Channel::new(config, to, rng));
                channel_ends.push((from, to));
                adjacency[from].push((to, Hop::Channel(id)));
            }
        }
        let mut bsses = Vec::new();
        for (b, wlan) in scenario.wlans.iter().enumerate() {
            let phy = wlan.build_phy(&format!("wlans[{b}]"))?;
            let macs = std::iter::once(wlan.ap)
                .chain(wlan.stations.iter().copied())
                .enumerate()
                .map(|(m, node)| {
                    (
                        node,
                        stream(
                            seed,
                            StreamId::Mac {
                                bss: b as u32,
                                mac: m as u32,
                            },
                        ),
                    )
                })
                .collect::<Vec<_>>();
            for (m, &station) in wlan.stations.iter().enumerate() {
                let mac = m as u32 + 1;
                adjacency[wlan.ap].push((
                    station,
                    Hop::Wlan {
                        bss: b as u32,
                        mac: 0,
                        to: mac,
                    },
                ));
                adjacency[station].push((
                    wlan.ap,
                    Hop::Wlan {
                        bss: b as u32,
                        mac,
                        to: 0,
                    },
                ));
            }
            let params = MacParams {
                rts_threshold: wlan.rts_threshold,
                short_retry_limit: wlan.short_retry_limit,
                long_retry_limit: wlan.long_retry_limit,
                queue_packets: wlan.queue_packets,
                ack_queue_packets: wlan.agent.as_ref().and_then(|a| a.ack_queue_packets),
                msdu_lifetime_ns: wlan.msdu_lifetime_ns,
            };
            let channel_rng = stream(seed, StreamId::WlanChannel { bss: b as u32 });
            let agent = build_agent(&scenario, b, &phy);
            bsses.push(Bss::new(phy, params, wlan.errors, channel_rng, macs, agent));
        }
        // Validation made sure that every flow has a path.
        let routes = Routes::new(adjacency);
        let flows = scenario
            .flows
            .iter()
            .enumerate()
            .map(|(i, config)| build_flow(i, config))
            .collect();
        let pcap = match &options.pcap_dir {
            Some(dir) => Some(
                PcapSet::create(dir, &scenario.nodes, options.pcap_snaplen).map_err(|e| {
                    ConfigError {
                        key: "pcap".into(),
                        message: format!("cannot write traces in {}: {e}", dir.display()),
                    }
                })?,
            ),
            None => None,
        };
        let mut simulation = Simulation {
            events: EventQueue::default(),
            routes,
            channels,
            channel_ends,
            bsses,
            flows,
            pcap,
            next_uid: 0,
            wlan_actions: Actions::default(),
            outgoing: Vec::new(),
            series: TimeSeries::default(),
            wall_limit: options.wall_limit,
            monitor: options.monitor.clone(),
            time_series: options.time_series,
            scenario,
        };
        simulation.schedule_initial_events();
        Ok(simulation)
    }

    fn schedule_initial_events(&mut self) {
        for (i, flow) in self.scenario.flows.iter().enumerate() {
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
        self.events.schedule(
            Instant::from_nanos(self.scenario.measure_from_ns),
            Event::MeasureStart,
        );
        if self.time_series && self.scenario.sample_interval_ns > 0 {
            self.events.schedule(
                Instant::from_nanos(self.scenario.sample_interval_ns),
                Event::Sample,
            );
        }
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
            if let Some(pcap) = self.pcap.take() {
                pcap.discard();
            }
            return Err(error);
        }
        self.events
            .advance_to(Instant::from_nanos(self.scenario.duration_ns));
        let wall_time_s = started.elapsed().as_secs_f64();
        if let Some(pcap) = self.pcap.take() {
            pcap.finish()?;
        }
        let summary = self.summarise(wall_time_s);
        Ok(RunResult {
            summary,
            series: std::mem::take(&mut self.series),
        })
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

    fn handle(&mut self, event: Event) -> std::io::Result<()> {
        match event {
            Event::ChannelTxDone { channel } => {
                let now = self.now();
                let actions = self.channels[channel as usize].on_tx_done(now);
                self.apply_channel(channel, actions);
            }
            Event::Arrive { node, packet } => self.arrive(node as usize, packet)?,
            Event::WlanAccess { bss, generation } => {
                let now = self.now();
                let mut actions = std::mem::take(&mut self.wlan_actions);
                self.bsses[bss as usize].on_access(now, generation, &mut actions);
                self.apply_wlan(bss, actions);
            }
            Event::WlanBusyEnd { bss } => {
                let now = self.now();
                let mut actions = std::mem::take(&mut self.wlan_actions);
                self.bsses[bss as usize].on_busy_end(now, &mut actions);
                self.apply_wlan(bss, actions);
            }
            Event::TcpTimer { flow, side } => self.tcp_timer(flow as usize, side)?,
            Event::FlowStart { flow } => self.start_flow(flow as usize)?,
            Event::FlowStop { flow } => self.stop_flow(flow as usize)?,
            Event::CbrSend { flow } => self.cbr_send(flow as usize)?,
            Event::MeasureStart => {
                for flow in &mut self.flows {
                    flow.delivered_at_measure = flow.delivered;
                }
            }
            Event::Sample => self.sample(),
        }
        Ok(())
    }

    fn apply_channel(&mut self, channel: u32, actions: ChannelActions) {
        if let Some(at) = actions.tx_done {
            self.events.schedule(at, Event::ChannelTxDone { channel });
        }
        if let Some((at, packet)) = actions.arrival {
            let node = self.channels[channel as usize].to_node as u32;
            self.events.schedule(at, Event::Arrive { node, packet });
        }
    }

    fn apply_wlan(&mut self, bss: u32, mut actions: Actions) {
        if let Some((at, generation)) = actions.access.take() {
            self.events
                .schedule(at, Event::WlanAccess { bss, generation });
        }
        if let Some(at) = actions.busy_end.take() {
            self.events.schedule(at, Event::WlanBusyEnd { bss });
        }
        for (at, node, packet) in actions.deliveries.drain(..) {
            self.events.schedule(
                at,
                Event::Arrive {
                    node: node as u32,
                    packet,
                },
            );
        }
        self.wlan_actions = actions;
    }

    /// Sends a packet from `node` towards its destination's first hop.
    fn forward(&mut self, node: usize, packet: Packet) {
        let Some(dst) = address_node(packet.repr.ip.dst) else {
            return;
        };
        let now = self.now();
        match self.routes.first_hop(node, dst) {
            Hop::Unreachable => {}
            Hop::Channel(channel) => {
                let actions = self.channels[channel as usize].enqueue(now, packet);
                self.apply_channel(channel, actions);
            }
            Hop::Wlan { bss, mac, to } => {
                let mut actions = std::mem::take(&mut self.wlan_actions);
                self.bsses[bss as usize].enqueue(now, mac, packet, to, &mut actions);
                self.apply_wlan(bss, actions);
            }
        }
    }

    /// A packet originated by `node`'s own stack.
    fn originate(&mut self, node: usize, repr: PacketRepr) -> std::io::Result<()> {
        let packet = Packet {
            uid: self.next_uid,
            repr,
        };
        self.next_uid += 1;
        let now = self.now();
        if let Some(pcap) = &mut self.pcap {
            pcap.record(node, now, &packet)?;
        }
        self.forward(node, packet);
        Ok(())
    }

    fn arrive(&mut self, node: usize, mut packet: Packet) -> std::io::Result<()> {
        let now = self.now();
        if let Some(pcap) = &mut self.pcap {
            pcap.record(node, now, &packet)?;
        }
        if address_node(packet.repr.ip.dst) != Some(node) {
            if packet.repr.ip.ttl <= 1 {
                return Ok(());
            }
            packet.repr.ip.ttl -= 1;
            self.forward(node, packet);
            return Ok(());
        }
        match packet.repr.transport {
            TransportRepr::Tcp(segment) => {
                let (port, side) = if segment.dst_port == SERVER_PORT {
                    (segment.src_port, Side::Receiver)
                } else {
                    (segment.dst_port, Side::Sender)
                };
                let Some(flow) = flow_of_port(port) else {
                    return Ok(());
                };
                let Some(Flow {
                    app: FlowApp::Tcp(tcp),
                    ..
                }) = self.flows.get_mut(flow)
                else {
                    return Ok(());
                };
                tcp.sockets[side as usize].handle_segment(now, &segment);
                self.drive_tcp(flow, side)?;
            }
            TransportRepr::Udp(datagram) => {
                if let Some(flow) = flow_of_port(datagram.src_port) {
                    if let Some(flow) = self.flows.get_mut(flow) {
                        flow.delivered += u64::from(datagram.payload_len);
                    }
                }
            }
        }
        Ok(())
    }

    fn flow_endpoints(&self, flow: usize) -> (usize, usize) {
        let config = &self.flows[flow].config;
        (config.src, config.dst)
    }

    fn start_flow(&mut self, flow: usize) -> std::io::Result<()> {
        match &mut self.flows[flow].app {
            FlowApp::Tcp(tcp) => {
                // The receiver listens from the start of the run; the sender connects now.
                let mut rng = stream(self.scenario.seed, StreamId::Flow { flow: flow as u32 });
                tcp.sockets[Side::Receiver as usize].listen(SeqNumber(rng.random()));
                tcp.sockets[Side::Sender as usize].connect(SeqNumber(rng.random()));
                self.drive_tcp(flow, Side::Sender)?;
            }
            FlowApp::Udp(udp) => {
                udp.active = true;
                self.cbr_send(flow)?;
            }
        }
        Ok(())
    }

    fn stop_flow(&mut self, flow: usize) -> std::io::Result<()> {
        match &mut self.flows[flow].app {
            FlowApp::Tcp(tcp) => {
                tcp.remaining = Some(0);
                self.drive_tcp(flow, Side::Sender)?;
            }
            FlowApp::Udp(udp) => udp.active = false,
        }
        Ok(())
    }

    fn cbr_send(&mut self, flow: usize) -> std::io::Result<()> {
        let (src, dst) = self.flow_endpoints(flow);
        let state = &mut self.flows[flow];
        let FlowApp::Udp(udp) = &state.app else {
            return Ok(());
        };
        if !udp.active {
            return Ok(());
        }
        let (interval, payload_len) = (udp.interval, udp.payload_bytes);
        state.packets_sent += 1;
        let repr = PacketRepr {
            ip: Ipv4Repr {
                src: node_address(src),
                dst: node_address(dst),
                ttl: TTL,
            },
            transport: TransportRepr::Udp(UdpRepr {
                src_port: client_port(flow).expect("validated flow count"),
                dst_port: UDP_SINK_PORT,
                payload_len,
            }),
        };
        self.originate(src, repr)?;
        let next = self.now() + interval;
        self.events
            .schedule(next, Event::CbrSend { flow: flow as u32 });
        Ok(())
    }

    fn tcp_timer(&mut self, flow: usize, side: Side) -> std::io::Result<()> {
        let now = self.now();
        let FlowApp::Tcp(tcp) = &mut self.flows[flow].app else {
            return Ok(());
        };
        if tcp.timers[side as usize] != Some(now) {
            return Ok(()); // superseded by an earlier deadline
        }
        tcp.timers[side as usize] = None;
        let socket = &mut tcp.sockets[side as usize];
        if socket
            .poll_timeout()
            .is_some_and(|deadline| deadline <= now)
        {
            socket.handle_timeout(now);
        }
        self.drive_tcp(flow, side)
    }

    /// Lets the application act on a socket, sends what it has, and re-arms its timer.
    fn drive_tcp(&mut self, flow: usize, side: Side) -> std::io::Result<()> {
        let now = self.now();
        let (src, dst) = self.flow_endpoints(flow);
        let state = &mut self.flows[flow];
        let FlowApp::Tcp(tcp) = &mut state.app else {
            return Ok(());
        };
        let socket = &mut tcp.sockets[side as usize];
        match side {
            Side::Sender => {
                if socket.state() == TcpState::Established || socket.state() == TcpState::CloseWait
                {
                    match &mut tcp.remaining {
                        None => {
                            socket.send(u64::MAX);
                        }
                        Some(remaining) => {
                            *remaining -= socket.send(*remaining);
                            if *remaining == 0 {
                                socket.close();
                            }
                        }
                    }
                }
            }
            Side::Receiver => {
                state.delivered += socket.recv(u64::MAX);
                if socket.peer_closed() {
                    state.completed_at.get_or_insert(now);
                    if socket.state() == TcpState::CloseWait {
                        socket.close();
                    }
                }
            }
        }
        let mut outgoing = std::mem::take(&mut self.outgoing);
        while let Some(segment) = socket.poll_transmit(now) {
            outgoing.push(segment);
        }
        if let Some(deadline) = socket.poll_timeout() {
            if tcp.timers[side as usize].is_none_or(|armed| deadline < armed) {
                tcp.timers[side as usize] = Some(deadline);
                self.events.schedule(
                    deadline,
                    Event::TcpTimer {
                        flow: flow as u32,
                        side,
                    },
                );
            }
        }
        let (from, to) = match side {
            Side::Sender => (src, dst),
            Side::Receiver => (dst, src),
        };
        for segment in outgoing.drain(..) {
            let repr = PacketRepr {
                ip: Ipv4Repr {
                    src: node_address(from),
                    dst: node_address(to),
                    ttl: TTL,
                },
                transport: TransportRepr::Tcp(segment),
            };
            self.flows[flow].packets_sent += 1;
            self.originate(from, repr)?;
        }
        self.outgoing = outgoing;
        Ok(())
    }

    fn sample(&mut self) {
        let now = self.now();
        let interval = seconds(self.scenario.sample_interval_ns);
        if self.series.flow_names.is_empty() {
            self.series.flow_names = self.flows.iter().map(|f| f.config.name.clone()).collect();
        }
        for (index, flow) in self.flows.iter_mut().enumerate() {
            let goodput = (flow.delivered - flow.delivered_at_sample) as f64 * 8.0 / interval;
            flow.delivered_at_sample = flow.delivered;
            let FlowApp::Tcp(tcp) = &flow.app else {
                continue;
            };
            let sender = &tcp.sockets[Side::Sender as usize];
            let ssthresh = sender.ssthresh();
            self.series.push(Sample {
                flow: index as u32,
                time_s: now.as_secs_f64(),
                cwnd_bytes: sender.cwnd(),
                ssthresh_bytes: if ssthresh == u32::MAX {
                    f64::NAN
                } else {
                    f64::from(ssthresh)
                },
                srtt_ms: sender
                    .srtt()
                    .map_or(f64::NAN, |d| d.as_nanos() as f64 / 1e6),
                bytes_acked: sender.stats().bytes_acked,
                goodput_bps: goodput,
            });
        }
        let next = now + Duration::from_nanos(self.scenario.sample_interval_ns);
        self.events.schedule(next, Event::Sample);
    }

    fn summarise(&self, wall_time_s: f64) -> Summary {
        let names = &self.scenario.nodes;
        let window = seconds(self.scenario.duration_ns - self.scenario.measure_from_ns);
        let flows: Vec<FlowSummary> = self
            .flows
            .iter()
            .map(|flow| {
                let goodput_bps =
                    (flow.delivered - flow.delivered_at_measure) as f64 * 8.0 / window;
                let base = FlowSummary {
                    name: flow.config.name.clone(),
                    kind: "udp_cbr",
                    src: names[flow.config.src].clone(),
                    dst: names[flow.config.dst].clone(),
                    goodput_bps,
                    bytes_delivered: flow.delivered,
                    retransmissions: 0,
                    fast_retransmits: 0,
                    timeouts: 0,
                    packets_sent: flow.packets_sent,
                    sender_state: None,
                    receiver_state: None,
                    completed: None,
                    completion_time_s: None,
                    transfer_goodput_bps: None,
                };
                match &flow.app {
                    FlowApp::Udp(_) => base,
                    FlowApp::Tcp(tcp) => {
                        let [sender, receiver] = &tcp.sockets;
                        let stats = sender.stats();
                        let completion_time_s = flow
                            .completed_at
                            .filter(|_| tcp.finite)
                            .map(|at| seconds(at.as_nanos() - flow.config.start_ns));
                        FlowSummary {
                            kind: "tcp_bulk",
                            retransmissions: stats.retransmissions,
                            fast_retransmits: stats.fast_retransmits,
                            timeouts: stats.timeouts,
                            sender_state: Some(format!("{:?}", sender.state())),
                            receiver_state: Some(format!("{:?}", receiver.state())),
                            completed: tcp
                                .finite
                                .then(|| sender.all_acknowledged() && receiver.peer_closed()),
                            completion_time_s,
                            transfer_goodput_bps: completion_time_s
                                .map(|t| flow.delivered as f64 * 8.0 / t),
                            ..base
                        }
                    }
                }
            })
            .collect();
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        let wlans = self
            .bsses
            .iter()
            .zip(&self.scenario.wlans)
            .map(|(bss, config)| {
                let c = &bss.counters;
                let accesses: u64 = c.contenders.iter().sum();
                let weighted: u64 = c
                    .contenders
                    .iter()
                    .enumerate()
                    .map(|(k, n)| k as u64 * n)
                    .sum();
                WlanSummary {
                    ap: names[config.ap].clone(),
                    stations: config.stations.len(),
                    counters: c.clone(),
                    collision_probability: ratio(c.failed_attempts, c.attempts),
                    mean_contenders: ratio(weighted, accesses),
                }
            })
            .collect();
        let links = self
            .channels
            .iter()
            .zip(&self.channel_ends)
            .map(|(channel, &(from, to))| LinkSummary {
                from: names[from].clone(),
                to: names[to].clone(),
                delivered: channel.delivered,
                queue_drops: channel.queue.drops,
                lost: channel.lost,
            })
            .collect();
        Summary {
            scenario: self.scenario.name.clone(),
            seed: self.scenario.seed,
            duration_s: seconds(self.scenario.duration_ns),
            measure_from_s: seconds(self.scenario.measure_from_ns),
            aggregate_goodput_bps: goodputs.iter().sum(),
            jain_fairness: jain_index(&goodputs),
            flows,
            wlans,
            links,
            events: self.events.processed(),
            wall_time_s,
        }
    }
}

fn ratio(numerator: u64, denominator: u64) -> f64 {
    if denominator == 0 {
        0.0
    } else {
        numerator as f64 / denominator as f64
    }
}

fn build_flow(index: usize, config: &FlowConfig) -> Flow {
    let app = match &config.app {
        AppConfig::TcpBulk {
            bytes,
            congestion_control,
            tcp,
        } => {
            let tcp_config = tcp.build();
            let port = client_port(index).expect("validated flow count");
            let make = |local, remote| {
                let controller = cc::by_name(
                    congestion_control,
                    tcp_config.initial_cwnd(),
                    tcp_config.mss,
                )
                .expect("validated congestion control name");
                TcpSocket::new(tcp_config.clone(), controller, local, remote)
            };
            FlowApp::Tcp(Box::new(TcpFlow {
                sockets: [make(port, SERVER_PORT), make(SERVER_PORT, port)],
                timers: [None, None],
                remaining: *bytes,
                finite: bytes.is_some(),
            }))
        }
        AppConfig::UdpCbr {
            rate_bps,
            payload_bytes,
        } => {
            // Interval between datagrams so that the IP-level rate is `rate_bps`.
            let ip_bits = 8 * u64::from(payload_bytes + 28);
            FlowApp::Udp(UdpFlow {
                interval: Duration::from_nanos((ip_bits * 1_000_000_000).div_ceil(*rate_bps)),
                payload_bytes: *payload_bytes,
                active: false,
            })
        }
    };
    Flow {
        config: config.clone(),
        app,
        completed_at: None,
        delivered: 0,
        delivered_at_measure: 0,
        delivered_at_sample: 0,
        packets_sent: 0,
    }
}

/// The AP agent of WLAN `index`, with defaults: the PHY's AC_VO TXOP limit, 16 frames per
/// aggregate, and as target the optimal number of contenders of Bianchi's model for the
/// stations' TCP data frames. The AP is not subtracted: with backoff 0 its short ACK frames
/// rarely collide (paper 000's premise), so it is not a random-access contender.
fn build_agent(scenario: &Scenario, index: usize, phy: &Phy) -> Option<Box<dyn ApAgent>> {
    let wlan = &scenario.wlans[index];
    let config = wlan.agent.as_ref()?;
    let mss = scenario
        .flows
        .iter()
        .find_map(|flow| match &flow.app {
            AppConfig::TcpBulk { tcp, .. } if wlan.stations.contains(&flow.src) => {
                Some(tcp.build().mss)
            }
            _ => None,
        })
        .unwrap_or(1460);
    let msdu = crate::wlan::dcf::LLC_SNAP_BYTES + 40 + mss;
    let rts = wlan
        .rts_threshold
        .is_some_and(|t| phy.mac_overhead_bytes + msdu > t);
    let params = Params::from_phy(
        phy,
        msdu,
        rts,
        CollisionTiming::Eifs,
        Some(wlan.short_retry_limit - 1),
    );
    let optimum = bianchi::optimal_stations(&params, 1..=100).stations;
    let ofdm = matches!(phy.modulation, Modulation::ErpOfdm);
    let settings = AgentSettings {
        txop_ns: config.txop_limit_ns.unwrap_or(if ofdm {
            OFDM_AC_VO_TXOP_NS
        } else {
            DSSS_AC_VO_TXOP_NS
        }),
        max_aggregate: config.max_aggregate.unwrap_or(16) as usize,
        target_stations: config.target_stations.unwrap_or(f64::from(optimum)),
        cw_min: phy.cw_min,
        stages: phy.backoff_stages(),
    };
    agent::by_name(&config.kind, settings)
}
