//! The flows' endpoints: a sans-IO TCP socket pair per TCP flow (RFC 9293 connection set-up,
//! data and close, driven by events and timers) with a bulk application writing into it,
//! a constant-rate UDP source per UDP flow, and ICMP echo probes (ping: RFC 792 requests
//! that every node answers, the flow's index as their identifier). Packets addressed to a
//! node end here.

use std::time::Duration;

use airtcp_proto::tcp::{cc, TcpSocket, TcpState};
use airtcp_proto::wire::{EchoRepr, Ipv4Repr, PacketRepr, TransportRepr, UdpRepr};
use airtcp_proto::{Instant, SeqNumber};
use rand::Rng;

use super::{Event, Side, Simulation};
use crate::config::{AppConfig, FlowConfig};
use crate::one_way_delay::OneWayDelay;
use crate::packet::{node_address, Packet};
use crate::ports::{client_port, flow_of_port, SERVER_PORT, UDP_SINK_PORT};
use crate::rng::{stream, StreamId};
use crate::workload::SizeDistribution;

use super::workloads::WorkloadFlow;
use crate::summary::Probes;

const TTL: u8 = 64;

pub(super) struct TcpFlow {
    pub(super) sockets: [TcpSocket; 2],
    pub(super) timers: [Option<Instant>; 2],
    /// Bytes the application still has to write; `None` is unlimited.
    pub(super) remaining: Option<u64>,
    pub(super) finite: bool,
}

pub(super) struct UdpFlow {
    pub(super) interval: Duration,
    pub(super) payload_bytes: u32,
    pub(super) active: bool,
}

pub(super) struct PingFlow {
    pub(super) interval: Duration,
    pub(super) payload_bytes: u32,
    pub(super) one_way: bool,
    /// Trains still to send.
    pub(super) remaining: u32,
    pub(super) probes: Probes,
}

pub(super) enum FlowApp {
    Tcp(Box<TcpFlow>),
    Workload(Box<WorkloadFlow>),
    Udp(UdpFlow),
    Ping(Box<PingFlow>),
}

/// Which TCP connection of a flow: a bulk flow's own, or one of a workload's by slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Conn {
    Own,
    Slot(u32),
}

impl Conn {
    /// As an event carries it.
    pub(super) fn code(self) -> u32 {
        match self {
            Conn::Own => u32::MAX,
            Conn::Slot(slot) => slot,
        }
    }

    pub(super) fn from_code(code: u32) -> Conn {
        if code == u32::MAX {
            Conn::Own
        } else {
            Conn::Slot(code)
        }
    }
}

pub(super) struct Flow {
    pub(super) config: FlowConfig,
    pub(super) app: FlowApp,
    /// When the receiver of a finite TCP transfer had every byte and the FIN.
    pub(super) completed_at: Option<Instant>,
    pub(super) delivered: u64,
    pub(super) delivered_at_measure: u64,
    pub(super) delivered_at_sample: u64,
    pub(super) packets_sent: u64,
    /// With `one_way_delay`, a TCP bulk or UDP flow's data packets in flight and their
    /// delays (`crate::one_way_delay`).
    pub(super) delay: Option<Box<OneWayDelay>>,
}

impl Simulation {
    /// A packet addressed to `node`: to the TCP socket or UDP sink of its flow.
    pub(super) fn deliver_locally(&mut self, packet: Packet) -> std::io::Result<()> {
        let now = self.now();
        match packet.repr.transport {
            TransportRepr::Tcp(segment) => {
                if let Some((flow, conn, side)) = self.workload_connection(&segment) {
                    if let Some(tcp) = self.tcp_conn(flow, conn) {
                        tcp.sockets[side as usize].handle_segment_ecn(
                            now,
                            &segment,
                            packet.repr.ip.ecn,
                        );
                        self.drive_tcp(flow, conn, side)?;
                    }
                    return Ok(());
                }
                let (port, side) = if segment.dst_port == SERVER_PORT {
                    (segment.src_port, Side::Receiver)
                } else {
                    (segment.dst_port, Side::Sender)
                };
                let Some(flow) = flow_of_port(port) else {
                    return Ok(());
                };
                if side == Side::Receiver && segment.payload_len > 0 {
                    if let Some(delay) = self.flows.get_mut(flow).and_then(|f| f.delay.as_mut()) {
                        delay.delivered(packet.uid, now.as_nanos());
                    }
                }
                let Some(Flow {
                    app: FlowApp::Tcp(tcp),
                    ..
                }) = self.flows.get_mut(flow)
                else {
                    return Ok(());
                };
                tcp.sockets[side as usize].handle_segment_ecn(now, &segment, packet.repr.ip.ecn);
                self.drive_tcp(flow, Conn::Own, side)?;
            }
            TransportRepr::Udp(datagram) => {
                if let Some(flow) = flow_of_port(datagram.src_port) {
                    if let Some(flow) = self.flows.get_mut(flow) {
                        flow.delivered += u64::from(datagram.payload_len);
                        if let Some(delay) = &mut flow.delay {
                            delay.delivered(packet.uid, now.as_nanos());
                        }
                    }
                }
            }
            TransportRepr::Echo(echo) => {
                if let Some(node) = crate::packet::address_node(packet.repr.ip.dst) {
                    self.deliver_echo(node, packet.repr, echo)?;
                }
            }
        }
        Ok(())
    }

    /// A request is answered from where it arrived. A probe reaching its flow's destination
    /// (a request, or a one-way flow's reply) is timed there; a reply back at the source
    /// ends its round trip.
    fn deliver_echo(
        &mut self,
        node: usize,
        request: PacketRepr,
        echo: EchoRepr,
    ) -> std::io::Result<()> {
        let now = self.now().as_nanos();
        let index = usize::from(echo.seq);
        if let Some(Flow {
            app: FlowApp::Ping(ping),
            delivered,
            config,
            ..
        }) = self.flows.get_mut(usize::from(echo.id))
        {
            let times = if node == config.dst && echo.reply == ping.one_way {
                *delivered += u64::from(echo.payload_len);
                Some(&mut ping.probes.arrived_ns)
            } else if node == config.src && echo.reply && !ping.one_way {
                Some(&mut ping.probes.returned_ns)
            } else {
                None
            };
            if let Some(slot) = times
                .and_then(|times| times.get_mut(index))
                .filter(|slot| slot.is_none())
            {
                *slot = Some(now);
            }
        }
        if echo.reply {
            return Ok(());
        }
        let reply = PacketRepr {
            ip: Ipv4Repr {
                src: request.ip.dst,
                dst: request.ip.src,
                ttl: TTL,
                // Linux answers with the request's TOS (icmp_reply)
                dscp: request.ip.dscp,
                ecn: 0,
            },
            transport: TransportRepr::Echo(EchoRepr {
                reply: true,
                ..echo
            }),
        };
        self.originate(node, reply)
    }

    fn flow_endpoints(&self, flow: usize) -> (usize, usize) {
        let config = &self.flows[flow].config;
        (config.src, config.dst)
    }

    pub(super) fn start_flow(&mut self, flow: usize) -> std::io::Result<()> {
        match &mut self.flows[flow].app {
            FlowApp::Tcp(tcp) => {
                // The receiver listens from the start of the run; the sender connects now.
                let mut rng = stream(self.scenario.seed, StreamId::Flow { flow: flow as u32 });
                tcp.sockets[Side::Receiver as usize].listen(SeqNumber(rng.random()));
                tcp.sockets[Side::Sender as usize].connect(SeqNumber(rng.random()));
                self.drive_tcp(flow, Conn::Own, Side::Sender)?;
            }
            FlowApp::Workload(_) => self.workload_start(flow),
            FlowApp::Udp(udp) => {
                udp.active = true;
                self.datagram_send(flow)?;
            }
            FlowApp::Ping(_) => self.datagram_send(flow)?,
        }
        Ok(())
    }

    pub(super) fn stop_flow(&mut self, flow: usize) -> std::io::Result<()> {
        match &mut self.flows[flow].app {
            FlowApp::Tcp(tcp) => {
                tcp.remaining = Some(0);
                self.drive_tcp(flow, Conn::Own, Side::Sender)?;
            }
            // No more arrivals; the flows under way finish.
            FlowApp::Workload(workload) => workload.stopped = true,
            FlowApp::Udp(udp) => udp.active = false,
            FlowApp::Ping(ping) => ping.remaining = 0,
        }
        Ok(())
    }

    pub(super) fn datagram_send(&mut self, flow: usize) -> std::io::Result<()> {
        match &self.flows[flow].app {
            FlowApp::Udp(_) => self.cbr_send(flow),
            FlowApp::Ping(_) => self.ping_send(flow),
            FlowApp::Tcp(_) | FlowApp::Workload(_) => Ok(()),
        }
    }

    /// The next train of echo requests, back to back.
    fn ping_send(&mut self, flow: usize) -> std::io::Result<()> {
        let (src, dst) = self.flow_endpoints(flow);
        let now = self.now();
        let state = &mut self.flows[flow];
        let FlowApp::Ping(ping) = &mut state.app else {
            return Ok(());
        };
        if ping.remaining == 0 {
            return Ok(());
        }
        ping.remaining -= 1;
        let (train, payload_len, interval) = (ping.probes.train, ping.payload_bytes, ping.interval);
        let one_way = ping.one_way;
        let first = ping.probes.sent_ns.len();
        for _ in 0..train {
            ping.probes.sent_ns.push(now.as_nanos());
            ping.probes.arrived_ns.push(None);
            ping.probes.returned_ns.push(None);
        }
        let more = ping.remaining > 0;
        state.packets_sent += u64::from(train);
        for seq in first..first + train as usize {
            let echo = TransportRepr::Echo(EchoRepr {
                reply: one_way,
                id: u16::try_from(flow).expect("validated: ping flows have 16-bit indices"),
                seq: u16::try_from(seq).expect("validated: at most 65536 probes"),
                payload_len,
            });
            let dscp = self.flows[flow].config.dscp;
            self.originate(src, between(src, dst, dscp, echo))?;
        }
        if more {
            self.events
                .schedule(now + interval, Event::DatagramSend { flow: flow as u32 });
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
        let datagram = TransportRepr::Udp(UdpRepr {
            src_port: client_port(flow).expect("validated flow count"),
            dst_port: UDP_SINK_PORT,
            payload_len,
        });
        let dscp = self.flows[flow].config.dscp;
        let (now, uid) = (self.now().as_nanos(), self.upcoming_uid());
        if let Some(delay) = &mut self.flows[flow].delay {
            delay.sent(uid, now);
        }
        self.originate(src, between(src, dst, dscp, datagram))?;
        let next = self.now() + interval;
        self.events
            .schedule(next, Event::DatagramSend { flow: flow as u32 });
        Ok(())
    }

    /// A connection's end: a bulk flow's, or a workload's connection in `slot` if any.
    pub(super) fn tcp_conn(&mut self, flow: usize, conn: Conn) -> Option<&mut TcpFlow> {
        match (&mut self.flows[flow].app, conn) {
            (FlowApp::Tcp(tcp), Conn::Own) => Some(tcp),
            (FlowApp::Workload(workload), Conn::Slot(slot)) => workload.connection(slot),
            _ => None,
        }
    }

    pub(super) fn tcp_timer(&mut self, flow: usize, conn: Conn, side: Side) -> std::io::Result<()> {
        let now = self.now();
        let Some(tcp) = self.tcp_conn(flow, conn) else {
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
        self.drive_tcp(flow, conn, side)
    }

    /// Lets the application act on a socket, sends what it has, and re-arms its timer.
    pub(super) fn drive_tcp(&mut self, flow: usize, conn: Conn, side: Side) -> std::io::Result<()> {
        let now = self.now();
        let (src, dst) = self.flow_endpoints(flow);
        let state = &mut self.flows[flow];
        let (tcp, completed_at) = match (&mut state.app, conn) {
            (FlowApp::Tcp(tcp), Conn::Own) => (&mut **tcp, &mut state.completed_at),
            (FlowApp::Workload(workload), Conn::Slot(slot)) => {
                match workload.connection_and_completion(slot) {
                    Some(found) => found,
                    None => return Ok(()),
                }
            }
            _ => return Ok(()),
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
                state.delivered += socket.recv(now, u64::MAX);
                if socket.peer_closed() {
                    completed_at.get_or_insert(now);
                    if socket.state() == TcpState::CloseWait {
                        socket.close();
                    }
                }
            }
        }
        let mut outgoing = std::mem::take(&mut self.outgoing);
        while let Some(segment) = socket.poll_transmit_ecn(now) {
            outgoing.push(segment);
        }
        if let Some(deadline) = socket.poll_timeout() {
            if tcp.timers[side as usize].is_none_or(|armed| deadline < armed) {
                tcp.timers[side as usize] = Some(deadline);
                self.events.schedule(
                    deadline,
                    Event::TcpTimer {
                        flow: flow as u32,
                        conn: conn.code(),
                        side,
                    },
                );
            }
        }
        let (from, to) = match side {
            Side::Sender => (src, dst),
            Side::Receiver => (dst, src),
        };
        // both ends mark the flow's packets, as an application that sets IP_TOS on both
        // sockets does
        let dscp = self.flows[flow].config.dscp;
        for (segment, ecn) in outgoing.drain(..) {
            // The sender's segments; the receiver's are its `acks_sent`.
            if side == Side::Sender {
                let uid = self.upcoming_uid();
                let state = &mut self.flows[flow];
                state.packets_sent += 1;
                if let (Some(delay), true) = (&mut state.delay, segment.payload_len > 0) {
                    delay.sent(uid, now.as_nanos());
                }
            }
            let mut packet = between(from, to, dscp, TransportRepr::Tcp(segment));
            packet.ip.ecn = ecn;
            self.originate(from, packet)?;
        }
        self.outgoing = outgoing;
        if let Conn::Slot(slot) = conn {
            self.workload_release_if_done(flow, slot);
        }
        Ok(())
    }
}

/// A packet from node `src` to node `dst` marked with `dscp`.
fn between(src: usize, dst: usize, dscp: u8, transport: TransportRepr) -> PacketRepr {
    PacketRepr {
        ip: Ipv4Repr {
            src: node_address(src),
            dst: node_address(dst),
            ttl: TTL,
            dscp,
            ecn: 0,
        },
        transport,
    }
}

/// Flow `index` as `config` sets it up; `workload`: its place among the workloads; `timed`:
/// a TCP bulk or UDP flow's data packets' one-way delays are measured.
pub(super) fn build_flow(
    index: usize,
    config: &FlowConfig,
    seed: u64,
    workload: Option<usize>,
    timed: bool,
) -> Flow {
    let app = match &config.app {
        AppConfig::TcpWorkload {
            sizes,
            rate_bps,
            count,
            congestion_control,
            tcp,
        } => FlowApp::Workload(Box::new(WorkloadFlow::new(
            workload.expect("a workload") as u16,
            SizeDistribution::from_spec(sizes).expect("validated distribution"),
            *rate_bps,
            *count,
            tcp.build(),
            congestion_control.clone(),
            seed,
            index as u32,
        ))),
        AppConfig::TcpBulk {
            bytes,
            congestion_control,
            tcp,
        } => {
            let tcp_config = tcp.build();
            let port = client_port(index).expect("validated flow count");
            let make = |local, remote| {
                let controller = cc::by_name(congestion_control, &tcp_config)
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
        AppConfig::Ping {
            count,
            interval_ns,
            payload_bytes,
            train,
            one_way,
        } => FlowApp::Ping(Box::new(PingFlow {
            interval: Duration::from_nanos(*interval_ns),
            payload_bytes: *payload_bytes,
            one_way: *one_way,
            remaining: *count,
            probes: Probes {
                train: *train,
                ip_bytes: payload_bytes + 28,
                ..Probes::default()
            },
        })),
    };
    let timed = timed && matches!(app, FlowApp::Tcp(_) | FlowApp::Udp(_));
    Flow {
        config: config.clone(),
        app,
        completed_at: None,
        delivered: 0,
        delivered_at_measure: 0,
        delivered_at_sample: 0,
        packets_sent: 0,
        delay: timed.then(Box::default),
    }
}
