//! Whole connections on a virtual wire (tests/common): the behaviours the unit tests cannot
//! reach.

mod common;

use std::time::Duration;

use common::{at, config, Dir, Pair};

use airtcp_proto::tcp::{
    cc, SlowStart, SynLossWindow, TcpConfig, TcpProfile, TcpSocket, TcpState, ZeroWindow,
};
use airtcp_proto::wire::{SackBlocks, TcpFlags, TcpRepr};
use airtcp_proto::{Instant, SeqNumber};

/// Client and server with 1000-byte segments over 10 Mbit/s and 10 ms.
fn lan_pair() -> Pair {
    Pair::new(
        config(1000),
        config(1000),
        Duration::from_millis(10),
        10_000_000,
    )
}

/// As `lan_pair`, with a receive buffer of 16 KiB.
fn small_receiver_pair() -> Pair {
    let receiver = TcpConfig {
        receive_buffer: 16 << 10,
        ..config(1000)
    };
    Pair::new(
        config(1000),
        receiver,
        Duration::from_millis(10),
        10_000_000,
    )
}

/// A pair whose first handshake segment in `dir` (the SYN, or the SYN-ACK) is lost.
fn first_syn_lost(dir: Dir) -> Pair {
    let mut pair = lan_pair();
    let mut syns = 0;
    pair.drop = Box::new(move |_, d, seg| {
        if d == dir && seg.flags.syn {
            syns += 1;
            return syns == 1;
        }
        false
    });
    pair
}

/// SACK on, 1000-byte segments, an initial window of `segments`.
fn sack_with_window(segments: u32) -> TcpConfig {
    TcpConfig {
        sack: true,
        initial_window: Some(segments),
        ..config(1000)
    }
}

#[test]
fn transfer_completes_and_both_sides_close() {
    let mut pair = lan_pair();
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
    let mut pair = lan_pair();
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
    let mut pair = lan_pair();
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
fn lost_syn_is_retransmitted_after_the_initial_rto_and_the_connection_starts_cautiously() {
    let mut pair = first_syn_lost(Dir::ClientToServer);
    pair.run_until(at(0.9));
    assert_eq!(pair.client.state(), TcpState::SynSent);
    pair.run_until(at(1.1));
    assert_eq!(pair.client.state(), TcpState::Established);
    assert_eq!(pair.client.stats().timeouts, 1);
    // RFC 6298 §5.7: with no RTT sample (Karn's rule excludes the retransmitted SYN), the
    // connection starts from a 3 s RTO, not the backed-off 2 s or the initial 1 s; RFC 5681
    // §3.1: and from a one-segment window.
    assert_eq!(pair.client.rto(), Duration::from_secs(3));
    assert_eq!(pair.client.cwnd(), 1000);
    // The server's SYN-ACK went through at once: it keeps its sample-based RTO and window.
    assert!(pair.server.rto() < Duration::from_secs(3));
    assert_eq!(pair.server.cwnd(), config(1000).initial_cwnd());
}

#[test]
fn lost_syn_ack_gives_the_server_the_same_cautious_start() {
    let mut pair = first_syn_lost(Dir::ServerToClient);
    pair.run_until(at(1.5));
    assert_eq!(pair.server.state(), TcpState::Established);
    assert_eq!(pair.server.stats().timeouts, 1);
    assert_eq!(pair.server.rto(), Duration::from_secs(3));
    assert_eq!(pair.server.cwnd(), 1000);
}

/// Linux's rule for the window after a lost SYN, with timestamps on both ends; `drop`
/// decides each segment by its direction and time.
fn linux_syn_pair(drop: impl FnMut(Instant, Dir, &TcpRepr) -> bool + 'static) -> Pair {
    let linux = TcpConfig {
        syn_loss_window: SynLossWindow::Linux,
        timestamps: true,
        ..config(1000)
    };
    let mut pair = Pair::new(linux.clone(), linux, Duration::from_millis(10), 10_000_000);
    pair.drop = Box::new(drop);
    pair
}

/// Drops the first `n` SYNs the client sends.
fn client_syns_lost(n: u32) -> impl FnMut(Instant, Dir, &TcpRepr) -> bool {
    let mut syns = 0;
    move |_, dir, seg| {
        if dir == Dir::ClientToServer && seg.flags.syn {
            syns += 1;
            return syns <= n;
        }
        false
    }
}

#[test]
fn linux_keeps_the_initial_window_after_one_lost_syn_not_after_two() {
    let initial = config(1000).initial_cwnd() - 12 * 4;
    let mut one = linux_syn_pair(client_syns_lost(1));
    one.run_until(at(1.5));
    assert_eq!(one.client.state(), TcpState::Established);
    assert_eq!(one.client.stats().retransmissions, 1);
    // tcp_init_transfer: `total_retrans > 1` is false; the initial window of 1000-byte
    // segments less the timestamps option (988 bytes each).
    assert_eq!(one.client.cwnd(), initial);
    let mut two = linux_syn_pair(client_syns_lost(2));
    two.run_until(at(3.5));
    assert_eq!(two.client.state(), TcpState::Established);
    assert_eq!(two.client.stats().retransmissions, 2);
    assert_eq!(two.client.cwnd(), 988);
    // Either way the RTO comes from the handshake's timestamp sample, not RFC 6298's 3 s.
    assert!(two.client.rto() < Duration::from_secs(3));
}

#[test]
fn linux_counts_a_syn_ack_answering_a_repeated_syn_as_a_retransmission() {
    // The first two SYN-ACKs are lost: the server's own (at 10 ms) and its timer's copy (at
    // 1.01 s, Linux's num_timeout); the client's timer, 1.5 s here so that the two do not
    // coincide, repeats its SYN, and the server answers it (inet_rtx_syn_ack counts that in
    // num_retrans too). Two retransmissions, one by the timer, the echo not the first
    // SYN-ACK's: one segment, as tcp_init_transfer; counting the timer's alone would keep
    // the initial window.
    let linux = TcpConfig {
        syn_loss_window: SynLossWindow::Linux,
        timestamps: true,
        ..config(1000)
    };
    let client = TcpConfig {
        initial_rto: Duration::from_millis(1500),
        ..linux.clone()
    };
    let mut pair = Pair::new(client, linux, Duration::from_millis(10), 10_000_000);
    let mut syn_acks = 0;
    pair.drop = Box::new(move |_, dir, seg| {
        if dir == Dir::ServerToClient && seg.flags.syn {
            syn_acks += 1;
            return syn_acks <= 2;
        }
        false
    });
    pair.run_until(at(2.0));
    assert_eq!(pair.server.state(), TcpState::Established);
    let stats = pair.server.stats();
    assert_eq!((stats.timeouts, stats.retransmissions), (1, 2), "{stats:?}");
    assert_eq!(pair.server.cwnd(), 988);
}

#[test]
fn linux_undoes_a_spurious_syn_ack_timeout_by_its_echoed_timestamp() {
    // The SYN-ACK arrives; the client's ACKs do not until 2 s: the server sends its SYN-ACK
    // again at 1 s and 3 s, and the ACK that completes the handshake echoes the first
    // SYN-ACK's timestamp (the client took TS.Recent from it and not from the copies, which
    // are old segments): the timeouts were spurious, the initial window stays.
    let lost_acks = |t: Instant, dir: Dir, seg: &TcpRepr| {
        dir == Dir::ClientToServer && !seg.flags.syn && t < at(2.0)
    };
    let mut pair = linux_syn_pair(lost_acks);
    pair.run_until(at(3.5));
    assert_eq!(pair.server.state(), TcpState::Established);
    assert_eq!(pair.server.stats().timeouts, 2);
    assert_eq!(pair.server.stats().retransmissions, 2);
    assert_eq!(pair.server.cwnd(), config(1000).initial_cwnd() - 12 * 4);
    // RFC 5681's rule starts that server from one segment.
    let mut rfc = Pair::new(
        config(1000),
        config(1000),
        Duration::from_millis(10),
        10_000_000,
    );
    rfc.drop = Box::new(lost_acks);
    rfc.run_until(at(3.5));
    assert_eq!(rfc.server.state(), TcpState::Established);
    assert_eq!(rfc.server.cwnd(), 1000);
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
    // Step until the first timeout, remembering the flight just before it.
    let mut flight = 0;
    let mut t = 0.0;
    while pair.client.stats().timeouts == 0 {
        flight = pair.client.bytes_in_flight();
        t += 0.001;
        assert!(t < 5.0, "no timeout");
        pair.run_until(at(t));
    }
    // RFC 5681 §3.1: ssthresh = max(FlightSize / 2, 2 SMSS), cwnd = one segment.
    assert!(flight > 8000, "a window was in flight: {flight}");
    assert_eq!(pair.client.ssthresh(), (flight / 2).max(2000));
    assert_eq!(pair.client.cwnd(), 1000);
    pair.run_until(at(3.0));
    assert!(
        pair.client.cwnd() > 2000,
        "slow start resumes once ACKs return"
    );
    pair.run_until(at(60.0));
    assert_eq!(pair.server.stats().bytes_received, 1_000_000);
    assert_eq!(pair.client.state(), TcpState::Closed);
}

#[test]
fn zero_window_probes_back_off_and_transfer_resumes() {
    let mut pair = small_receiver_pair();
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
    let controller = cc::by_name("newreno", &config).unwrap();
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
        sack_permitted: false,
        sack: Default::default(),
        timestamps: None,
        compaction: None,
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

/// Two losses four segments apart: NewReno repairs both in one recovery (the partial ACK
/// resends the second hole); Reno's recovery ends at that partial ACK, and the second hole
/// costs it another fast retransmit and halving, or a timeout.
fn two_losses_in_a_window(cc_name: &str) -> Pair {
    let mut pair = Pair::new(
        config(1000),
        config(1000),
        Duration::from_millis(20),
        10_000_000,
    )
    .with_client_cc(cc_name);
    pair.client_to_send = 2_000_000;
    let mut count = 0;
    pair.drop = Box::new(move |_, dir, seg| {
        if dir == Dir::ClientToServer && seg.payload_len > 0 {
            count += 1;
            return count == 60 || count == 64;
        }
        false
    });
    pair.run_until(at(60.0));
    assert_eq!(pair.server.stats().bytes_received, 2_000_000, "{cc_name}");
    pair
}

#[test]
fn newreno_repairs_two_losses_in_one_recovery_and_reno_does_not() {
    let newreno = *two_losses_in_a_window("newreno").client.stats();
    assert_eq!((newreno.fast_retransmits, newreno.timeouts), (1, 0));
    assert_eq!(newreno.retransmissions, 2);
    let reno = *two_losses_in_a_window("reno").client.stats();
    assert!(
        reno.fast_retransmits + reno.timeouts >= 2,
        "the second hole needs its own recovery: {reno:?}"
    );
}

#[test]
fn mass_loss_recovery_ends_in_a_timeout_not_one_rtt_per_hole() {
    let big = TcpConfig {
        send_buffer: 4 << 20,
        receive_buffer: 4 << 20,
        ..config(1000)
    };
    let mut pair = two_hundred_holes(big);
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

#[test]
fn retransmission_timeouts_back_off_exponentially_up_to_the_maximum() {
    let mut pair = lan_pair();
    pair.client_to_send = 1_000_000;
    pair.client_closes = false;
    // The path dies for good after half a second.
    pair.drop = Box::new(|now, _, _| now >= at(0.5));
    pair.run_until(at(400.0));
    // The first unacknowledged segment is the one sent again at every timeout.
    let mut sent = std::collections::HashMap::new();
    for (_, _, s) in pair
        .data_segments(Dir::ClientToServer)
        .filter(|(t, ..)| *t >= at(0.5))
    {
        *sent.entry(s.seq.0).or_insert(0) += 1;
    }
    let head = SeqNumber(*sent.iter().max_by_key(|(_, n)| **n).unwrap().0);
    let times: Vec<f64> = pair
        .data_segments(Dir::ClientToServer)
        .filter(|(t, _, s)| *t >= at(0.5) && s.seq == head)
        .map(|(t, ..)| t.as_secs_f64())
        .collect();
    let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.len() >= 7, "retransmissions at {times:?}");
    // 1 s (the minimum RTO), then 2, 4, 8, 16, 32 s, then capped at 60 s (RFC 6298 §5.5).
    for pair_of_gaps in gaps[..5].windows(2) {
        let ratio = pair_of_gaps[1] / pair_of_gaps[0];
        assert!(
            (1.99..=2.01).contains(&ratio),
            "gaps {gaps:?} do not double"
        );
    }
    assert!(gaps.iter().all(|g| *g <= 60.0 + 1e-9), "gaps {gaps:?}");
    assert!((gaps[gaps.len() - 1] - 60.0).abs() < 1e-9, "gaps {gaps:?}");
}

#[test]
fn data_written_after_a_zero_window_is_probed_for_even_if_the_window_update_is_lost() {
    // RFC 1122 §4.2.2.17: the sender must probe a zero window whenever it has data to send.
    // Here everything sent has been acknowledged with a zero window when the application
    // writes again, and the receiver's window update is lost: only a probe can go on.
    let mut pair = small_receiver_pair();
    pair.client_to_send = 16 << 10;
    pair.client_closes = false;
    pair.server_reads = false;
    pair.run_until(at(5.0));
    assert_eq!(pair.client.send_window(), 0);
    assert_eq!(
        pair.client.stats().bytes_acked,
        16 << 10,
        "all acknowledged"
    );
    pair.client_to_send = 10_000;
    pair.run_until(at(6.0));
    pair.server_reads = true;
    pair.drop =
        Box::new(|now, dir, seg| dir == Dir::ServerToClient && seg.window > 0 && now < at(6.5));
    pair.run_until(at(90.0));
    assert!(pair.client.stats().zero_window_probes >= 1);
    assert_eq!(pair.server.stats().bytes_received, (16 << 10) + 10_000);
}

/// A bulk transfer over a 1.5 Mbit/s, 10 ms path whose receiver vanishes from `at(2.0)` for
/// `blackout` seconds (every segment lost both ways); 10 ms into the blackout the sender gets
/// the receiver's last ACK again with a zero window (paper 001's freeze).
fn frozen_by_a_zero_window(zero_window: ZeroWindow, blackout: f64) -> Frozen {
    let sender = TcpConfig {
        zero_window,
        ..config(512)
    };
    let mut pair = Pair::new(sender, config(512), Duration::from_millis(10), 1_500_000);
    pair.client_to_send = 2_000_000;
    pair.run_until(at(2.0));
    let before = (pair.client.cwnd(), pair.client.ssthresh());
    assert!(pair.client.bytes_in_flight() > 0);
    let (start, end) = (at(2.0), at(2.0 + blackout));
    pair.drop = Box::new(move |now, _, _| now >= start && now < end);
    pair.run_until(at(2.01));
    let mut last_ack = pair
        .log
        .iter()
        .rev()
        .find(|(t, d, s)| *d == Dir::ServerToClient && s.flags.ack && *t < start)
        .map(|(_, _, s)| *s)
        .expect("the receiver has acknowledged");
    last_ack.window = 0;
    let now = pair.now;
    pair.client.handle_segment(now, &last_ack);
    let mut samples = Vec::new();
    let mut t = 2.01;
    while t < 3.0 + blackout {
        t += 0.01;
        pair.run_until(at(t));
        let c = &pair.client;
        samples.push((c.cwnd(), c.ssthresh(), c.stats().timeouts));
    }
    Frozen {
        pair,
        samples,
        before,
    }
}

struct Frozen {
    pair: Pair,
    /// Every 10 ms over the blackout and one second after: the sender's cwnd, ssthresh and
    /// timeouts so far.
    samples: Vec<(u32, u32, u64)>,
    /// Its cwnd and ssthresh just before the blackout.
    before: (u32, u32),
}

#[test]
fn a_zero_window_ack_freezes_a_bsd_sender_with_data_in_flight() {
    for blackout in [0.5, 1.0, 3.0] {
        let Frozen {
            mut pair,
            samples,
            before: (cwnd, ssthresh),
        } = frozen_by_a_zero_window(ZeroWindow::Persist, blackout);
        assert!(cwnd > 8 * 512, "the window had grown: {cwnd}");
        assert!(
            samples
                .iter()
                .all(|s| s.0 >= cwnd && s.1 == ssthresh && s.2 == 0),
            "{blackout} s: cwnd {cwnd}, ssthresh {ssthresh}, then {samples:?}"
        );
        assert!(pair.client.stats().zero_window_probes >= 1);
        pair.run_until(at(60.0));
        assert_exact_and_closed(&pair, 2_000_000);
    }
}

#[test]
fn a_zero_window_ack_does_not_stop_a_linux_senders_retransmission_timer() {
    let Frozen {
        mut pair, samples, ..
    } = frozen_by_a_zero_window(ZeroWindow::Retransmit, 1.0);
    assert!(samples.iter().any(|s| s.2 > 0), "a timeout fires");
    assert!(
        samples.iter().any(|s| s.0 == 512),
        "cwnd restarts from one segment"
    );
    pair.run_until(at(60.0));
    assert_exact_and_closed(&pair, 2_000_000);
}

#[test]
fn a_window_closed_after_the_fin_was_sent_is_still_probed() {
    // All the data and the FIN leave at once; the receiver's answers are lost until 3 s, and
    // a zero-window ACK reaches the sender first. In FIN-WAIT-1 the sender must still probe
    // (RFC 9293 §3.8.6.1), or nothing would ever move again.
    let sender = TcpConfig {
        initial_window: Some(10),
        ..config(1000)
    };
    let mut pair = Pair::new(sender, config(1000), Duration::from_millis(10), 10_000_000);
    pair.client_to_send = 6000;
    pair.client_closes = false;
    pair.run_until(at(0.021));
    assert_eq!(pair.client.state(), TcpState::Established);
    pair.client.close();
    pair.run_until(at(0.0215));
    assert_eq!(pair.client.state(), TcpState::FinWait1);
    assert!(pair.client.bytes_in_flight() > 0);
    pair.drop = Box::new(|now, dir, _| dir == Dir::ServerToClient && now < at(3.0));
    let mut closing = pair
        .log
        .iter()
        .rev()
        .find(|(_, d, s)| *d == Dir::ServerToClient && s.flags.ack)
        .map(|(_, _, s)| *s)
        .unwrap();
    closing.flags.syn = false;
    closing.seq = closing.seq + 1;
    closing.window = 0;
    let now = pair.now;
    pair.client.handle_segment(now, &closing);
    assert_eq!(pair.client.send_window(), 0);
    pair.run_until(at(60.0));
    assert!(pair.client.stats().zero_window_probes >= 1);
    assert_exact_and_closed(&pair, 6000);
}

#[test]
fn a_segment_acknowledging_unsent_data_is_dropped_with_an_ack_in_reply() {
    let mut pair = lan_pair();
    pair.client_to_send = 5000;
    pair.client_closes = false;
    pair.run_until(at(2.0));
    assert_eq!(pair.server.stats().bytes_received, 5000);
    let (_, _, last) = *pair
        .log
        .iter()
        .rev()
        .find(|(_, d, _)| *d == Dir::ClientToServer)
        .unwrap();
    let (_, _, last_reply) = *pair
        .log
        .iter()
        .rev()
        .find(|(_, d, _)| *d == Dir::ServerToClient)
        .unwrap();
    // In-window data, but it acknowledges 1000 bytes the server never sent.
    let bogus = TcpRepr {
        seq: last_reply.ack,
        ack: last.ack + 1000,
        payload_len: 500,
        ..last
    };
    pair.server.handle_segment(pair.now, &bogus);
    assert_eq!(
        pair.server.stats().bytes_received,
        5000,
        "the data is not taken"
    );
    let reply = pair
        .server
        .poll_transmit(pair.now)
        .expect("an ACK in reply");
    assert!(reply.flags.ack && reply.payload_len == 0);
    assert_eq!(reply.ack, last_reply.ack, "still expecting the same byte");
}

/// A sender and receiver whose initial sequence numbers are `client_isn` and `server_isn`,
/// 4 MiB buffers and 60000-byte segments (so that gigabytes are few segments), over 10
/// Gbit/s with 1 ms delay; every `drop_every`-th data segment is lost (0: none).
fn long_transfer(client_isn: u32, server_isn: u32, bytes: u64, drop_every: u32) -> Pair {
    let big = TcpConfig {
        send_buffer: 4 << 20,
        receive_buffer: 4 << 20,
        ..config(60_000)
    };
    let mut pair = Pair::with_isns(
        big.clone(),
        big,
        Duration::from_millis(1),
        10_000_000_000,
        SeqNumber(client_isn),
        SeqNumber(server_isn),
    );
    pair.client_to_send = bytes;
    let mut count = 0u32;
    pair.drop = Box::new(move |_, dir, seg| {
        if drop_every == 0 || dir != Dir::ClientToServer || seg.payload_len == 0 {
            return false;
        }
        count += 1;
        count % drop_every == 0
    });
    let seconds = bytes as f64 * 8.0 / 1e10 * 3.0 + 30.0;
    pair.run_until(at(seconds));
    pair
}

fn assert_exact_and_closed(pair: &Pair, bytes: u64) {
    assert_eq!(pair.server.stats().bytes_received, bytes);
    assert_eq!(pair.client.stats().bytes_acked, bytes);
    assert_eq!(pair.client.state(), TcpState::Closed);
    assert_eq!(pair.server.state(), TcpState::Closed);
}

#[test]
fn five_gigabytes_arrive_exactly_from_isns_at_the_wrap_and_half_way_round() {
    // More than 2^32 bytes: the sequence space wraps at least once, and every number is
    // at some point more than 2^31 from the ISN. Comparing with the ISN froze transfers at
    // 2^31 bytes.
    let bytes = 5_000_000_000;
    for (client_isn, server_isn) in [
        (u32::MAX - 3, 1 << 31),
        ((1 << 31) - 3, u32::MAX),
        ((1 << 31) + 3, 0),
    ] {
        let pair = long_transfer(client_isn, server_isn, bytes, 997);
        // Isolated losses are all repaired by fast retransmit, also after 2^31 bytes (where
        // comparing with a stale recovery point used to disable it).
        let stats = pair.client.stats();
        assert!(stats.fast_retransmits > 50, "{stats:?}");
        assert_eq!(stats.timeouts, 0, "{stats:?}");
        assert_exact_and_closed(&pair, bytes);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 8, ..Default::default() })]

    // Any pair of ISNs, any length from 2^31 to 5 GB, with losses: exact delivery.
    #[test]
    fn transfers_longer_than_half_the_sequence_space_complete_exactly(
        client_isn in proptest::prelude::any::<u32>(),
        server_isn in proptest::prelude::any::<u32>(),
        bytes in (1u64 << 31)..5_000_000_000,
        drop_every in 300u32..3000,
    ) {
        let pair = long_transfer(client_isn, server_isn, bytes, drop_every);
        assert_exact_and_closed(&pair, bytes);
    }
}

/// A 20 MB transfer over 100 Mbit/s and 20 ms in which every other data segment of a
/// 400-segment stretch is lost: 200 holes in about one window.
fn two_hundred_holes(config: TcpConfig) -> Pair {
    let mut pair = Pair::both(config, Duration::from_millis(20));
    pair.client_to_send = 20_000_000;
    let mut count = 0u32;
    pair.drop = Box::new(move |_, dir, seg| {
        if dir == Dir::ClientToServer && seg.payload_len > 0 {
            count += 1;
            return (1000..1400).contains(&count) && count % 2 == 0;
        }
        false
    });
    pair
}

/// `config(1000)` with SACK and timestamps on, buffers for a fat path.
fn sack_config() -> TcpConfig {
    TcpConfig {
        sack: true,
        timestamps: true,
        send_buffer: 4 << 20,
        receive_buffer: 4 << 20,
        ..config(1000)
    }
}

#[test]
fn sack_repairs_two_hundred_holes_in_one_recovery_without_a_timeout() {
    // The mass-loss case NewReno ends in a timeout (above).
    let mut pair = two_hundred_holes(sack_config());
    pair.run_until(at(60.0));
    let stats = *pair.client.stats();
    assert_eq!(pair.server.stats().bytes_received, 20_000_000);
    assert_eq!(
        (stats.fast_retransmits, stats.timeouts),
        (1, 0),
        "{stats:?}"
    );
    assert_eq!(
        stats.retransmissions, 200,
        "exactly the lost segments: {stats:?}"
    );
    // SYN and SYN-ACK offered both options; every later segment carries timestamps, and the
    // receiver's duplicate ACKs carry SACK blocks.
    assert!(pair.log.iter().all(|(_, _, s)| s.timestamps.is_some()));
    let syn = pair.log.iter().find(|(_, _, s)| s.flags.syn).unwrap();
    assert!(syn.2.sack_permitted);
    assert!(pair
        .log
        .iter()
        .any(|(_, d, s)| *d == Dir::ServerToClient && s.sack.as_slice().len() == 3));
}

#[test]
fn sack_is_used_only_if_both_ends_offer_it() {
    let offers = TcpConfig {
        sack: true,
        timestamps: true,
        ..config(1000)
    };
    let mut pair = Pair::new(offers, config(1000), Duration::from_millis(20), 10_000_000);
    pair.client_to_send = 200_000;
    pair.run_until(at(30.0));
    let synack = pair
        .log
        .iter()
        .find(|(_, d, s)| *d == Dir::ServerToClient && s.flags.syn)
        .unwrap();
    assert!(!synack.2.sack_permitted && synack.2.timestamps.is_none());
    assert!(pair
        .log
        .iter()
        .skip(2)
        .all(|(_, _, s)| s.timestamps.is_none()));
    assert_eq!(pair.server.stats().bytes_received, 200_000);
}

#[test]
fn paws_rejects_an_old_duplicate_that_a_stack_without_timestamps_takes() {
    let run = |config: TcpConfig| {
        let mut pair = Pair::new(
            config.clone(),
            config,
            Duration::from_millis(20),
            10_000_000,
        );
        pair.client_to_send = 100_000;
        pair.client_closes = false;
        pair.run_until(at(3.0));
        // An early segment comes back, as if from a previous incarnation of the sequence
        // space: its sequence number is the next expected, its timestamp is old.
        let mut data = pair.data_segments(Dir::ClientToServer).map(|(_, _, s)| *s);
        let first = data.next().unwrap();
        let last = data.last().unwrap();
        let old = TcpRepr {
            seq: last.seq + last.payload_len,
            ..first
        };
        let received = pair.server.stats().bytes_received;
        pair.server.handle_segment(at(3.0), &old);
        (
            pair.server.stats().bytes_received - received,
            *pair.server.stats(),
        )
    };
    let (taken, stats) = run(sack_config());
    assert_eq!((taken, stats.paws_rejected), (0, 1), "{stats:?}");
    let (taken, stats) = run(config(1000));
    assert_eq!((taken, stats.paws_rejected), (1000, 0));
}

/// The client's cwnd, in segments of `mss`, 50 ms into each of the first `rounds` round
/// trips of data on a 1 Gbit/s path with a 100 ms RTT (data starts at 0.1 s, after the
/// handshake; each round's ACKs arrive 0.1 s later).
fn cwnd_per_round(config: TcpConfig, rounds: usize) -> Vec<u32> {
    let mut pair = Pair::new(
        config.clone(),
        config,
        Duration::from_millis(50),
        1_000_000_000,
    );
    pair.client_to_send = 100_000_000;
    (0..rounds)
        .map(|k| {
            pair.run_until(at(0.15 + 0.1 * k as f64));
            pair.client.cwnd() / 1448
        })
        .collect()
}

#[test]
fn the_linux_profile_doubles_its_window_each_round_trip_with_delayed_acks() {
    // Linux's tcp_slow_start adds every segment an ACK covers: ten segments bring five
    // ACKs of two and ten more, 10, 20, 40, 80, 160. RFC 5681's one SMSS per ACK (the rfc
    // profile's rule, here on the linux profile) grows 1.5 times: 10, 15, 23, 34, 51 (a
    // round's odd segment waits for the 40 ms delayed-ACK timer; from the third round its
    // ACK comes after the sample).
    // A fixed 6 MiB window, so that slow start alone decides (the autotuned one trails
    // the fifth round by a segment).
    let linux = TcpConfig {
        receive_autotuning: false,
        ..TcpConfig::profile(TcpProfile::Linux)
    };
    assert_eq!(cwnd_per_round(linux.clone(), 5), [10, 20, 40, 80, 160]);
    let per_ack = TcpConfig {
        slow_start: SlowStart::PerAck,
        ..linux
    };
    assert_eq!(cwnd_per_round(per_ack, 5), [10, 15, 23, 34, 51]);
}

#[test]
fn per_segment_slow_start_stops_at_ssthresh_and_counts_the_rest() {
    let mut window = cc::by_name(
        "newreno",
        &TcpConfig {
            slow_start: SlowStart::PerSegment,
            ..config(1000)
        },
    )
    .unwrap();
    let w = window.window_mut();
    w.cwnd = 10_000;
    w.ssthresh = 11_000;
    let left = w.grow_in_slow_start(w.slow_start_increase(3000));
    assert_eq!((w.cwnd, left), (11_000, 2000), "up to ssthresh, 2000 left");
}

#[test]
fn timestamps_take_their_twelve_bytes_from_the_payload() {
    // RFC 6691 section 2: the MSS option (1460) counts the fixed headers only; with
    // timestamps every segment carries 12 more bytes, so 1448 of payload fill a 1500-byte
    // IP packet (Linux's tcp_current_mss), and no packet is larger.
    for (timestamps, payload) in [(true, 1448), (false, 1460)] {
        let config = TcpConfig {
            sack: true,
            timestamps,
            ..TcpConfig::profile(TcpProfile::Linux)
        };
        let mut pair = Pair::both(config, Duration::from_millis(5));
        pair.client_to_send = 1_000_000;
        pair.client_closes = false;
        pair.run_until(at(10.0));
        assert_eq!(pair.server.stats().bytes_received, 1_000_000);
        let largest = pair
            .log
            .iter()
            .map(|(_, _, s)| s.payload_len)
            .max()
            .unwrap();
        assert_eq!(largest, payload, "timestamps {timestamps}");
        assert!(pair
            .log
            .iter()
            .all(|(_, _, s)| 20 + s.header_len() + s.payload_len <= 1500));
    }
}

#[test]
fn a_receiver_sends_four_sack_blocks_without_timestamps_and_three_with_them() {
    for (timestamps, blocks) in [(false, 4), (true, 3)] {
        let config = TcpConfig {
            sack: true,
            timestamps,
            initial_window: Some(20),
            ..config(1000)
        };
        let mut pair = Pair::both(config, Duration::from_millis(5));
        pair.client_to_send = 40_000;
        pair.client_closes = false;
        let mut count = 0;
        pair.drop = Box::new(move |_, dir, seg| {
            if dir == Dir::ClientToServer && seg.payload_len > 0 {
                count += 1;
                return count <= 12 && count % 2 == 1;
            }
            false
        });
        pair.run_until(at(10.0));
        assert_eq!(pair.server.stats().bytes_received, 40_000);
        let most = pair
            .log
            .iter()
            .filter(|(_, d, _)| *d == Dir::ServerToClient)
            .map(|(_, _, s)| s.sack.as_slice().len())
            .max();
        assert_eq!(most, Some(blocks), "timestamps {timestamps}");
    }
}

#[test]
fn a_cumulative_ack_that_sacks_new_data_counts_toward_dup_thresh() {
    // RFC 6675 section 5: "If the incoming ACK is a duplicate acknowledgment per the
    // definition in Section 2 (regardless of its status as a cumulative acknowledgment)".
    let config = sack_with_window(10);
    let mut pair = Pair::both(config, Duration::from_millis(10));
    pair.client_to_send = 100_000;
    pair.client_closes = false;
    pair.drop = Box::new(|now, dir, _| dir == Dir::ServerToClient && now > at(0.02));
    pair.run_until(at(0.021));
    assert_eq!(pair.client.bytes_in_flight(), 10_000, "ten segments out");
    let syn_ack = pair
        .log
        .iter()
        .find(|(_, d, _)| *d == Dir::ServerToClient)
        .unwrap()
        .2;
    let first = pair
        .data_segments(Dir::ClientToServer)
        .next()
        .unwrap()
        .2
        .seq;
    let ack = |cumulative: u32, sacked: &[(u32, u32)]| TcpRepr {
        seq: syn_ack.seq + 1,
        ack: first + cumulative,
        flags: TcpFlags {
            ack: true,
            ..TcpFlags::default()
        },
        mss: None,
        window_scale: None,
        sack_permitted: false,
        sack: SackBlocks::new(sacked.iter().map(|&(a, b)| (first + a, first + b))),
        ..syn_ack
    };
    let now = at(0.03);
    pair.client.handle_segment(now, &ack(1000, &[(2000, 3000)]));
    assert_eq!(pair.client.stats().duplicate_acks, 1, "new data SACKed");
    pair.client.handle_segment(now, &ack(1000, &[(2000, 3000)]));
    assert_eq!(pair.client.stats().duplicate_acks, 1, "nothing new");
    pair.client
        .handle_segment(now, &ack(1000, &[(4000, 5000), (2000, 3000)]));
    pair.client
        .handle_segment(now, &ack(1000, &[(6000, 6500), (4000, 5000), (2000, 3000)]));
    assert_eq!(
        pair.client.stats().fast_retransmits,
        1,
        "the third one starts recovery"
    );
}

#[test]
fn a_linux_sender_keeps_probing_a_closed_window_while_the_peer_answers() {
    // tcp_retransmit_timer: with the window closed under data in flight the retransmissions
    // are probes; a peer that answers them keeps the connection, however many time out.
    // One that stays silent for 2·TCP_RTO_MAX loses it.
    let sender = TcpConfig {
        zero_window: ZeroWindow::Retransmit,
        max_rto: Duration::from_secs(120),
        ..config(512)
    };
    for answers in [true, false] {
        let mut pair = Pair::new(
            sender.clone(),
            config(512),
            Duration::from_millis(10),
            1_500_000,
        );
        pair.client_to_send = 2_000_000;
        pair.run_until(at(2.0));
        let mut zero = pair
            .log
            .iter()
            .rev()
            .find(|(_, d, s)| *d == Dir::ServerToClient && s.flags.ack)
            .map(|(_, _, s)| *s)
            .unwrap();
        zero.window = 0;
        let mut client = pair.client;
        let mut now = at(2.0);
        client.handle_segment(now, &zero);
        assert!(client.bytes_in_flight() > 0);
        let mut answer_at = None;
        while now < at(3000.0) && client.state() != TcpState::Closed {
            now = [client.poll_timeout(), answer_at]
                .into_iter()
                .flatten()
                .min()
                .unwrap();
            if answer_at.is_some_and(|t| t <= now) {
                answer_at = None;
                client.handle_segment(now, &zero);
            }
            if client.poll_timeout().is_some_and(|t| t <= now) {
                client.handle_timeout(now);
            }
            while client.poll_transmit(now).is_some() {
                if answers {
                    answer_at = Some(now + Duration::from_millis(20));
                }
            }
        }
        let stats = client.stats();
        if answers {
            assert!(stats.timeouts > 16 && !stats.aborted, "{stats:?}");
        } else {
            assert!(stats.aborted, "{stats:?}");
            assert!(now > at(2.0 + 240.0), "after 2·TCP_RTO_MAX: {now:?}");
        }
    }
}

#[test]
fn after_a_timeout_sacked_data_does_not_take_room_in_the_window() {
    // Ten holes among twenty segments, their first retransmissions lost too: a timeout. Then
    // the holes are resent between SACKed segments, and only the resent holes count as in
    // flight (the SACKed data has arrived): cwnd 1, 2, 4, 8 repairs the ten holes in four
    // round trips. Counting the SACKed segments as in flight took five.
    let config = sack_with_window(20);
    let mut pair = Pair::both(config, Duration::from_millis(25));
    pair.client_to_send = 20_000;
    pair.client_closes = false;
    let (mut count, mut sent) = (0, std::collections::HashSet::new());
    pair.drop = Box::new(move |now, dir, seg| {
        if dir != Dir::ClientToServer || seg.payload_len == 0 {
            return false;
        }
        count += 1;
        let again = !sent.insert(seg.seq);
        // Every retransmission before the timeout (at about 1.05 s) is lost too.
        (count <= 20 && count % 2 == 0) || (again && now < at(0.9))
    });
    pair.run_until(at(30.0));
    assert_eq!(pair.server.stats().bytes_received, 20_000);
    assert_eq!(pair.client.stats().timeouts, 1, "{:?}", pair.client.stats());
    let times: Vec<Instant> = pair
        .data_segments(Dir::ClientToServer)
        .map(|(t, _, _)| *t)
        .collect();
    let rto_at = times[times.len() - 10..][0];
    let last = *times.last().unwrap();
    let round_trips = (last - rto_at).as_secs_f64() / 0.05;
    assert!(
        round_trips < 3.5,
        "holes resent over {round_trips:.2} round trips: {times:?}"
    );
}
