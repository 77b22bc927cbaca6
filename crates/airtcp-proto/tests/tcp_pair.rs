//! Two TCP sockets joined by a virtual wire with delay, a rate limit and a loss hook, driven
//! in virtual time: the whole-connection behaviours the unit tests cannot reach.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

use airtcp_proto::tcp::{cc, TcpConfig, TcpSocket, TcpState};
use airtcp_proto::wire::TcpRepr;
use airtcp_proto::{Instant, SeqNumber};

/// Direction of a segment on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    ClientToServer,
    ServerToClient,
}

type DropRule = Box<dyn FnMut(Instant, Dir, &TcpRepr) -> bool>;

struct Pair {
    client: TcpSocket,
    server: TcpSocket,
    now: Instant,
    delay: Duration,
    rate_bps: u64,
    link_free: [Instant; 2],
    wire: BinaryHeap<Reverse<(Instant, u64, bool, SegKey)>>,
    segments: Vec<TcpRepr>,
    sequence: u64,
    drop: DropRule,
    /// Every segment sent, with its time and direction.
    log: Vec<(Instant, Dir, TcpRepr)>,
    client_to_send: u64,
    client_closes: bool,
    server_reads: bool,
}

type SegKey = usize;

impl Pair {
    fn new(
        client_config: TcpConfig,
        server_config: TcpConfig,
        delay: Duration,
        rate_bps: u64,
    ) -> Pair {
        let client_cc =
            cc::by_name("newreno", client_config.initial_cwnd(), client_config.mss).unwrap();
        let server_cc =
            cc::by_name("newreno", server_config.initial_cwnd(), server_config.mss).unwrap();
        let mut client = TcpSocket::new(client_config, client_cc, 40000, 80);
        let mut server = TcpSocket::new(server_config, server_cc, 80, 40000);
        client.connect(SeqNumber(u32::MAX - 5000)); // exercise wrap-around
        server.listen(SeqNumber(7));
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
            log: Vec::new(),
            client_to_send: 0,
            client_closes: true,
            server_reads: true,
        }
    }

    fn flush(&mut self) {
        loop {
            let mut sent = false;
            for dir in [Dir::ClientToServer, Dir::ServerToClient] {
                let socket = match dir {
                    Dir::ClientToServer => &mut self.client,
                    Dir::ServerToClient => &mut self.server,
                };
                if let Some(seg) = socket.poll_transmit(self.now) {
                    sent = true;
                    self.log.push((self.now, dir, seg));
                    if (self.drop)(self.now, dir, &seg) {
                        continue;
                    }
                    let lane = dir as usize;
                    let bits = 8 * u64::from(40 + seg.payload_len);
                    let start = self.link_free[lane].max(self.now);
                    let done = start + Duration::from_nanos(bits * 1_000_000_000 / self.rate_bps);
                    self.link_free[lane] = done;
                    self.segments.push(seg);
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

    fn feed_apps(&mut self) {
        if self.client_to_send > 0 {
            let taken = self.client.send(self.client_to_send);
            self.client_to_send -= taken;
            if self.client_to_send == 0 && self.client_closes {
                self.client.close();
            }
        }
        if self.server_reads {
            self.server.recv(u64::MAX);
            if self.server.peer_closed() && self.server.state() == TcpState::CloseWait {
                self.server.close();
            }
        }
    }

    /// Runs until `deadline` or until nothing is left to happen.
    fn run_until(&mut self, deadline: Instant) {
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
                let seg = self.segments[key];
                if to_server {
                    self.server.handle_segment(self.now, &seg);
                } else {
                    self.client.handle_segment(self.now, &seg);
                }
            }
            for socket in [&mut self.client, &mut self.server] {
                if socket.poll_timeout().is_some_and(|t| t <= self.now) {
                    socket.handle_timeout(self.now);
                }
            }
        }
    }

    fn data_segments(&self, dir: Dir) -> impl Iterator<Item = &(Instant, Dir, TcpRepr)> {
        self.log
            .iter()
            .filter(move |(_, d, s)| *d == dir && s.payload_len > 0)
    }
}

fn config(mss: u32) -> TcpConfig {
    TcpConfig {
        mss,
        time_wait: Duration::from_secs(1),
        ..TcpConfig::default()
    }
}

fn at(secs: f64) -> Instant {
    Instant::from_nanos((secs * 1e9) as u64)
}

#[test]
fn transfer_completes_and_both_sides_close() {
    let mut pair = Pair::new(
        config(1000),
        config(1000),
        Duration::from_millis(10),
        10_000_000,
    );
    pair.client_to_send = 1_000_000;
    pair.run_until(at(60.0));
    assert_eq!(pair.server.stats().bytes_received, 1_000_000);
    assert_eq!(pair.client.stats().bytes_acked, 1_000_000);
    assert_eq!(
        pair.client.state(),
        TcpState::Closed,
        "client went through TIME-WAIT"
    );
    assert_eq!(pair.server.state(), TcpState::Closed);
    assert_eq!(pair.client.stats().retransmissions, 0);
}

#[test]
fn delayed_ack_acknowledges_every_second_segment() {
    let mut pair = Pair::new(
        config(1000),
        config(1000),
        Duration::from_millis(10),
        10_000_000,
    );
    pair.client_to_send = 200_000;
    pair.run_until(at(30.0));
    let data = pair.data_segments(Dir::ClientToServer).count();
    let acks = pair
        .log
        .iter()
        .filter(|(_, d, s)| *d == Dir::ServerToClient && s.is_pure_ack())
        .count();
    assert_eq!(data, 200);
    assert!(
        (95..=110).contains(&acks),
        "{acks} pure ACKs for {data} segments"
    );
}

#[test]
fn lone_segment_is_acked_after_the_delayed_ack_timer() {
    let mut pair = Pair::new(
        config(1000),
        config(1000),
        Duration::from_millis(10),
        10_000_000,
    );
    pair.client_to_send = 500;
    pair.client_closes = false; // a FIN would be acknowledged at once
    pair.run_until(at(5.0));
    let (sent_at, ..) = *pair.data_segments(Dir::ClientToServer).next().unwrap();
    let (acked_at, ..) = *pair
        .log
        .iter()
        .find(|(t, d, s)| *d == Dir::ServerToClient && *t > sent_at && s.flags.ack && !s.flags.fin)
        .unwrap();
    let waited = acked_at - sent_at;
    assert!(
        waited >= Duration::from_millis(210) && waited < Duration::from_millis(212),
        "{waited:?}"
    );
}

#[test]
fn single_loss_triggers_fast_retransmit_and_halves_cwnd() {
    let mut pair = Pair::new(
        config(1000),
        config(1000),
        Duration::from_millis(20),
        10_000_000,
    );
    pair.client_to_send = 2_000_000;
    let mut count = 0;
    pair.drop = Box::new(move |_, dir, seg| {
        if dir == Dir::ClientToServer && seg.payload_len > 0 {
            count += 1;
            return count == 60;
        }
        false
    });
    pair.run_until(at(1.0));
    let stats = *pair.client.stats();
    assert_eq!(stats.fast_retransmits, 1);
    assert_eq!(stats.timeouts, 0);
    assert_eq!(stats.retransmissions, 1);
    pair.run_until(at(60.0));
    assert_eq!(pair.server.stats().bytes_received, 2_000_000);
}

#[test]
fn cwnd_is_halved_at_fast_retransmit() {
    let mut pair = Pair::new(
        config(1000),
        config(1000),
        Duration::from_millis(20),
        10_000_000,
    );
    pair.client_to_send = 2_000_000;
    pair.drop = Box::new(|_, dir, seg| {
        dir == Dir::ClientToServer
            && seg.payload_len > 0
            && seg.seq.0 == 50_000u32.wrapping_add(u32::MAX - 5000 + 1)
    });
    // Step until the fast retransmit happens, recording cwnd just before it.
    let mut before = 0;
    let mut t = 0.0;
    while pair.client.stats().fast_retransmits == 0 && t < 5.0 {
        before = pair.client.cwnd();
        t += 0.001;
        pair.run_until(at(t));
    }
    assert_eq!(pair.client.stats().fast_retransmits, 1);
    let ssthresh = pair.client.ssthresh();
    assert!(
        ssthresh <= before / 2 + 3000 && ssthresh + 3000 >= before / 2,
        "ssthresh {ssthresh} vs cwnd {before}"
    );
}

#[test]
fn lost_syn_is_retransmitted_after_the_initial_rto() {
    let mut pair = Pair::new(
        config(1000),
        config(1000),
        Duration::from_millis(10),
        10_000_000,
    );
    let mut syns = 0;
    pair.drop = Box::new(move |_, dir, seg| {
        if dir == Dir::ClientToServer && seg.flags.syn {
            syns += 1;
            return syns == 1;
        }
        false
    });
    pair.run_until(at(0.9));
    assert_eq!(pair.client.state(), TcpState::SynSent);
    pair.run_until(at(1.1));
    assert_eq!(pair.client.state(), TcpState::Established);
    assert_eq!(pair.client.stats().timeouts, 1);
}

#[test]
fn timeout_collapses_cwnd_and_recovery_completes() {
    let mut pair = Pair::new(
        config(1000),
        config(1000),
        Duration::from_millis(20),
        10_000_000,
    );
    pair.client_to_send = 1_000_000;
    // A 300 ms outage in both directions loses a whole window.
    pair.drop = Box::new(|now, _, _| now >= at(0.5) && now < at(0.8));
    pair.run_until(at(0.8));
    pair.run_until(at(3.0));
    assert!(pair.client.stats().timeouts >= 1);
    pair.run_until(at(60.0));
    assert_eq!(pair.server.stats().bytes_received, 1_000_000);
    assert_eq!(pair.client.state(), TcpState::Closed);
}

#[test]
fn zero_window_probes_back_off_and_transfer_resumes() {
    let receiver = TcpConfig {
        receive_buffer: 16 << 10,
        ..config(1000)
    };
    let mut pair = Pair::new(
        config(1000),
        receiver,
        Duration::from_millis(10),
        10_000_000,
    );
    pair.client_to_send = 100_000;
    pair.server_reads = false;
    pair.run_until(at(40.0));
    assert_eq!(
        pair.server.stats().bytes_received,
        16 << 10,
        "the buffer filled, nothing more"
    );
    assert_eq!(pair.client.send_window(), 0);
    let probes: Vec<Instant> = pair
        .log
        .iter()
        .filter(|(t, d, s)| *d == Dir::ClientToServer && s.payload_len == 1 && *t > at(0.1))
        .map(|(t, ..)| *t)
        .collect();
    assert!(probes.len() >= 4, "{} probes", probes.len());
    assert_eq!(
        pair.client.stats().zero_window_probes as usize,
        probes.len()
    );
    let gaps: Vec<f64> = probes
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64())
        .collect();
    for pair_of_gaps in gaps.windows(2) {
        let ratio = pair_of_gaps[1] / pair_of_gaps[0];
        assert!(
            (1.9..=2.1).contains(&ratio),
            "persist intervals {gaps:?} do not double"
        );
    }
    pair.server_reads = true;
    pair.run_until(at(200.0));
    assert_eq!(
        pair.server.stats().bytes_received,
        100_000,
        "transfer resumed once the window opened"
    );
}

#[test]
fn window_scaling_lets_large_buffers_fill_a_long_fat_pipe() {
    let big = TcpConfig {
        send_buffer: 4 << 20,
        receive_buffer: 4 << 20,
        ..config(1460)
    };
    let small = TcpConfig {
        send_buffer: 64 << 10,
        receive_buffer: 64 << 10,
        window_scaling: false,
        ..config(1460)
    };
    let elapsed = |client: TcpConfig, server: TcpConfig| {
        // 100 Mbit/s, 100 ms RTT: BDP 1.25 MB, far beyond an unscaled 64 KiB window.
        let mut pair = Pair::new(client, server, Duration::from_millis(50), 100_000_000);
        pair.client_to_send = 20_000_000;
        let mut t = 0.0;
        while pair.server.stats().bytes_received < 20_000_000 {
            t += 0.1;
            pair.run_until(at(t));
            assert!(t < 100.0);
        }
        t
    };
    let scaled = elapsed(big.clone(), big);
    let unscaled = elapsed(small.clone(), small);
    // 64 KiB per 100 ms is 5.2 Mbit/s: ~30 s for 20 MB; with scaling a few seconds.
    assert!(unscaled > 25.0, "unscaled took {unscaled} s");
    assert!(
        scaled < unscaled / 4.0,
        "scaled {scaled} s vs unscaled {unscaled} s"
    );
}

#[test]
fn closed_socket_answers_with_reset() {
    let config = config(1000);
    let controller = cc::by_name("newreno", config.initial_cwnd(), config.mss).unwrap();
    let mut closed = TcpSocket::new(config, controller, 80, 40000);
    let mut fin = TcpRepr {
        src_port: 40000,
        dst_port: 80,
        seq: SeqNumber(500),
        ack: SeqNumber(900),
        flags: airtcp_proto::wire::TcpFlags {
            fin: true,
            ack: true,
            ..Default::default()
        },
        window: 100,
        mss: None,
        window_scale: None,
        payload_len: 0,
    };
    closed.handle_segment(Instant::ZERO, &fin);
    let reset = closed.poll_transmit(Instant::ZERO).expect("a reset");
    assert!(reset.flags.rst && !reset.flags.ack);
    assert_eq!(
        reset.seq,
        SeqNumber(900),
        "RFC 9293: seq = the segment's ACK"
    );
    assert!(closed.poll_transmit(Instant::ZERO).is_none());
    fin.flags.rst = true;
    closed.handle_segment(Instant::ZERO, &fin);
    assert!(
        closed.poll_transmit(Instant::ZERO).is_none(),
        "never answer a reset"
    );
}

#[test]
fn receive_window_limited_flow_does_not_inflate_cwnd() {
    let small = TcpConfig {
        receive_buffer: 32 << 10,
        ..config(1000)
    };
    let mut pair = Pair::new(config(1000), small, Duration::from_millis(20), 100_000_000);
    pair.client_to_send = 50_000_000;
    pair.client_closes = false;
    pair.run_until(at(10.0));
    assert!(pair.server.stats().bytes_received > 5_000_000);
    let cwnd = pair.client.cwnd();
    assert!(
        cwnd <= 4 * (32 << 10),
        "cwnd {cwnd} grew while the receive window was the limit"
    );
}

#[test]
fn mass_loss_recovery_ends_in_a_timeout_not_one_rtt_per_hole() {
    let big = TcpConfig {
        send_buffer: 4 << 20,
        receive_buffer: 4 << 20,
        ..config(1000)
    };
    let mut pair = Pair::new(big.clone(), big, Duration::from_millis(20), 100_000_000);
    pair.client_to_send = 20_000_000;
    // Every other data segment of a 400-segment stretch is lost: 200 holes.
    let mut count = 0u32;
    pair.drop = Box::new(move |_, dir, seg| {
        if dir == Dir::ClientToServer && seg.payload_len > 0 {
            count += 1;
            return (1000..1400).contains(&count) && count % 2 == 0;
        }
        false
    });
    let mut t = 0.0;
    while pair.server.stats().bytes_received < 20_000_000 {
        t += 0.1;
        pair.run_until(at(t));
        assert!(
            t < 8.0,
            "200 holes still not repaired after {t} s (one per 40 ms RTT would take 8 s)"
        );
    }
    assert!(pair.client.stats().timeouts >= 1);
}
