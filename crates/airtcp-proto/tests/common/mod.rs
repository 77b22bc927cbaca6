//! Two TCP sockets joined by a virtual wire with delay, a rate limit and a loss hook, driven
//! in virtual time: the harness of the whole-connection tests.

#![allow(dead_code)] // each test binary uses part of it

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

use airtcp_proto::tcp::{cc, TcpConfig, TcpSocket, TcpState};
use airtcp_proto::wire::{Ipv4Repr, TcpRepr};
use airtcp_proto::{Instant, SeqNumber};

/// Direction of a segment on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    ClientToServer,
    ServerToClient,
}

pub type DropRule = Box<dyn FnMut(Instant, Dir, &TcpRepr) -> bool>;
/// Whether an ECN-capable segment is marked CE on its way (a congested router's AQM).
pub type MarkRule = Box<dyn FnMut(Instant, Dir, &TcpRepr) -> bool>;

pub struct Pair {
    pub client: TcpSocket,
    pub server: TcpSocket,
    pub now: Instant,
    pub delay: Duration,
    pub rate_bps: u64,
    pub link_free: [Instant; 2],
    pub wire: BinaryHeap<Reverse<(Instant, u64, bool, SegKey)>>,
    /// Segments on the wire, with the ECN codepoint of their IP header.
    pub segments: Vec<(TcpRepr, u8)>,
    pub sequence: u64,
    pub drop: DropRule,
    pub mark: MarkRule,
    /// Every segment sent, with its time and direction.
    pub log: Vec<(Instant, Dir, TcpRepr)>,
    /// The ECN codepoint each logged segment was sent with.
    pub log_ecn: Vec<u8>,
    pub client_to_send: u64,
    pub client_closes: bool,
    pub server_reads: bool,
}

pub type SegKey = usize;

impl Pair {
    /// Both ends with `config`, 100 Mbit/s each way.
    pub fn both(config: TcpConfig, delay: Duration) -> Pair {
        Pair::new(config.clone(), config, delay, 100_000_000)
    }

    pub fn new(
        client_config: TcpConfig,
        server_config: TcpConfig,
        delay: Duration,
        rate_bps: u64,
    ) -> Pair {
        // The client's sequence numbers wrap within the first 5000 bytes.
        Pair::with_isns(
            client_config,
            server_config,
            delay,
            rate_bps,
            SeqNumber(u32::MAX - 5000),
            SeqNumber(7),
        )
    }

    /// The same pair with the client (the sender) running congestion controller `name`.
    pub fn with_client_cc(mut self, name: &str) -> Pair {
        let config = self.client.config().clone();
        let cc = cc::by_name(name, &config).unwrap();
        self.client = TcpSocket::new(config, cc, 40000, 80);
        self.client.connect(SeqNumber(u32::MAX - 5000));
        self
    }

    pub fn with_isns(
        client_config: TcpConfig,
        server_config: TcpConfig,
        delay: Duration,
        rate_bps: u64,
        client_isn: SeqNumber,
        server_isn: SeqNumber,
    ) -> Pair {
        let client_cc = cc::by_name("newreno", &client_config).unwrap();
        let server_cc = cc::by_name("newreno", &server_config).unwrap();
        let mut client = TcpSocket::new(client_config, client_cc, 40000, 80);
        let mut server = TcpSocket::new(server_config, server_cc, 80, 40000);
        client.connect(client_isn);
        server.listen(server_isn);
        Pair {
            client,
            server,
            now: Instant::ZERO,
            delay,
            rate_bps,
            link_free: [Instant::ZERO; 2],
            wire: BinaryHeap::new(),
            segments: Vec::new(),
            sequence: 0,
            drop: Box::new(|_, _, _| false),
            mark: Box::new(|_, _, _| false),
            log: Vec::new(),
            log_ecn: Vec::new(),
            client_to_send: 0,
            client_closes: true,
            server_reads: true,
        }
    }

    pub fn flush(&mut self) {
        loop {
            let mut sent = false;
            for dir in [Dir::ClientToServer, Dir::ServerToClient] {
                let socket = match dir {
                    Dir::ClientToServer => &mut self.client,
                    Dir::ServerToClient => &mut self.server,
                };
                if let Some((seg, mut ecn)) = socket.poll_transmit_ecn(self.now) {
                    sent = true;
                    self.log.push((self.now, dir, seg));
                    self.log_ecn.push(ecn);
                    if (self.drop)(self.now, dir, &seg) {
                        continue;
                    }
                    if ecn != Ipv4Repr::NOT_ECT && (self.mark)(self.now, dir, &seg) {
                        ecn = Ipv4Repr::CE;
                    }
                    let lane = dir as usize;
                    let bits = 8 * u64::from(40 + seg.payload_len);
                    let start = self.link_free[lane].max(self.now);
                    let done = start + Duration::from_nanos(bits * 1_000_000_000 / self.rate_bps);
                    self.link_free[lane] = done;
                    self.segments.push((seg, ecn));
                    self.sequence += 1;
                    let to_server = dir == Dir::ClientToServer;
                    self.wire.push(Reverse((
                        done + self.delay,
                        self.sequence,
                        to_server,
                        self.segments.len() - 1,
                    )));
                }
            }
            if !sent {
                break;
            }
        }
    }

    pub fn feed_apps(&mut self) {
        if self.client_to_send > 0 {
            let taken = self.client.send(self.client_to_send);
            self.client_to_send -= taken;
            if self.client_to_send == 0 && self.client_closes {
                self.client.close();
            }
        }
        if self.server_reads {
            self.server.recv(self.now, u64::MAX);
            if self.server.peer_closed() && self.server.state() == TcpState::CloseWait {
                self.server.close();
            }
        }
    }

    /// Runs until `deadline` or until nothing is left to happen.
    pub fn run_until(&mut self, deadline: Instant) {
        loop {
            self.feed_apps();
            self.flush();
            let next_arrival = self.wire.peek().map(|Reverse((t, ..))| *t);
            let next = [
                next_arrival,
                self.client.poll_timeout(),
                self.server.poll_timeout(),
            ]
            .into_iter()
            .flatten()
            .min();
            let Some(next) = next else { return };
            if next > deadline {
                self.now = deadline;
                return;
            }
            self.now = next;
            while let Some(Reverse((t, _, to_server, key))) = self.wire.peek().copied() {
                if t > self.now {
                    break;
                }
                self.wire.pop();
                let (seg, ecn) = self.segments[key];
                if to_server {
                    self.server.handle_segment_ecn(self.now, &seg, ecn);
                } else {
                    self.client.handle_segment_ecn(self.now, &seg, ecn);
                }
            }
            for socket in [&mut self.client, &mut self.server] {
                if socket.poll_timeout().is_some_and(|t| t <= self.now) {
                    socket.handle_timeout(self.now);
                }
            }
        }
    }

    pub fn data_segments(&self, dir: Dir) -> impl Iterator<Item = &(Instant, Dir, TcpRepr)> {
        self.log
            .iter()
            .filter(move |(_, d, s)| *d == dir && s.payload_len > 0)
    }
}

pub fn config(mss: u32) -> TcpConfig {
    TcpConfig {
        mss,
        time_wait: Duration::from_secs(1),
        ..TcpConfig::default()
    }
}

pub fn at(secs: f64) -> Instant {
    Instant::from_nanos((secs * 1e9) as u64)
}
