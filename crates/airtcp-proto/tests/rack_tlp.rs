//! Linux's loss recovery (`LossRecovery::RackTlp`) against RFC 6675's on scripted losses
//! (tests/common's virtual wire): a lost retransmission found without the timer (RACK,
//! RFC 8985 §6), a tail loss repaired by a probe (TLP, §7), sending during recovery in step
//! with deliveries (PRR, RFC 6937); RFC 6675's own answer to a lost tail, its one rescue
//! retransmission a recovery (NextSeg rule 4).

mod common;

use std::time::Duration;

use airtcp_proto::tcp::{LossRecovery, RtoFloor, TcpConfig, TcpStats, ZeroWindow};
use airtcp_proto::wire::TcpRepr;
use airtcp_proto::{Instant, SeqNumber};
use common::{at, config, Dir, Pair};

/// SACK and timestamps, 1000-byte segments, buffers for a fat path.
fn sack_sender(loss_recovery: LossRecovery) -> TcpConfig {
    TcpConfig {
        sack: true,
        timestamps: true,
        send_buffer: 4 << 20,
        receive_buffer: 4 << 20,
        loss_recovery,
        // Linux's answer to a closed window, which RACK-TLP goes with.
        zero_window: ZeroWindow::Retransmit,
        ..config(1000)
    }
}

/// 100 Mbit/s, 20 ms each way; the client sends `bytes`; `drop` decides the client's data
/// segments by their order of sending (1 for the first).
fn transfer(
    loss_recovery: LossRecovery,
    bytes: u64,
    drop: impl FnMut(u32, &TcpRepr) -> bool + 'static,
) -> Pair {
    transfer_with(sack_sender(loss_recovery), bytes, drop)
}

fn transfer_with(
    config: TcpConfig,
    bytes: u64,
    mut drop: impl FnMut(u32, &TcpRepr) -> bool + 'static,
) -> Pair {
    let mut pair = Pair::both(config, Duration::from_millis(20));
    // Written once the connection is up: a close before would abort the handshake.
    pair.run_until(at(0.1));
    pair.client_to_send = bytes;
    let mut count = 0;
    pair.drop = Box::new(move |_, dir, seg| {
        if dir != Dir::ClientToServer || seg.payload_len == 0 {
            return false;
        }
        count += 1;
        drop(count, seg)
    });
    pair.run_until(at(60.0));
    assert_eq!(pair.server.stats().bytes_received, bytes);
    pair
}

/// Drops the `n`th data segment and the first retransmission of it.
fn segment_and_its_retransmission(n: u32) -> impl FnMut(u32, &TcpRepr) -> bool {
    let mut lost: Option<SeqNumber> = None;
    let mut drops = 0;
    move |count, seg| {
        if count == n {
            lost = Some(seg.seq);
        }
        let hit = lost == Some(seg.seq) && drops < 2;
        drops += u32::from(hit);
        hit
    }
}

fn client_stats(pair: &Pair) -> TcpStats {
    *pair.client.stats()
}

#[test]
fn rack_resends_a_lost_retransmission_without_waiting_for_the_timer() {
    let rfc = transfer(
        LossRecovery::Rfc6675,
        2_000_000,
        segment_and_its_retransmission(300),
    );
    let stats = client_stats(&rfc);
    assert_eq!(
        (stats.fast_retransmits, stats.timeouts),
        (1, 1),
        "{stats:?}"
    );
    let rack = transfer(
        LossRecovery::RackTlp,
        2_000_000,
        segment_and_its_retransmission(300),
    );
    let stats = client_stats(&rack);
    assert_eq!(
        (
            stats.fast_retransmits,
            stats.timeouts,
            stats.retransmissions
        ),
        (1, 0, 2),
        "{stats:?}"
    );
}

/// When the last data segment (with the FIN) was acknowledged.
fn finished_at(pair: &Pair) -> Instant {
    pair.log
        .iter()
        .rev()
        .find(|(_, dir, seg)| *dir == Dir::ServerToClient && seg.flags.fin)
        .map(|(t, ..)| *t)
        .expect("the server closed")
}

#[test]
fn a_tail_loss_probe_repairs_the_last_segments_without_a_timeout() {
    // 31 full segments of 988 bytes (1000 less the timestamps); the last two (the FIN rides
    // on the second) lost once. (A short last segment would be delivered sooner after the
    // probe than min_RTT, which RACK takes for the original's delivery, RFC 8985 step 1.)
    let tail = |count: u32, _: &TcpRepr| count == 30 || count == 31;
    let rfc = transfer(LossRecovery::Rfc6675, 31 * 988, tail);
    let stats = client_stats(&rfc);
    assert_eq!((stats.timeouts, stats.loss_probes), (1, 0), "{stats:?}");
    let rack = transfer(LossRecovery::RackTlp, 31 * 988, tail);
    let stats = client_stats(&rack);
    assert_eq!(
        (stats.timeouts, stats.loss_probes, stats.fast_retransmits),
        (0, 1, 1),
        "the probe resends the last segment; its SACK shows the other lost: {stats:?}"
    );
    assert_eq!(stats.retransmissions, 2);
    // The probe goes two round trips (about 2 · 41 ms) after the last ACK, not after the
    // 1 s minimum RTO.
    assert!(finished_at(&rack) + Duration::from_millis(700) < finished_at(&rfc));
}

#[test]
fn rfc6675_rescues_a_lost_last_segment_within_the_recovery() {
    // 31 segments; the 20th is lost (the SACKs of 21 to 30 show it) and so is the last,
    // which nothing is sent above to SACK: rules 1 to 3 never pick it, rule 4 resends it
    // once the partial ACK for the 20th's retransmission has come (RescueRxt), in the same
    // recovery.
    let holes = |count: u32, _: &TcpRepr| count == 20 || count == 31;
    let pair = transfer(LossRecovery::Rfc6675, 31 * 988, holes);
    let stats = client_stats(&pair);
    assert_eq!(
        (
            stats.fast_retransmits,
            stats.rescue_retransmissions,
            stats.timeouts,
            stats.retransmissions
        ),
        (1, 1, 0, 2),
        "{stats:?}"
    );
    // The rescue goes a round trip (40 ms and the serialisations) after the fast
    // retransmit, with the partial ACK, not with it; the transfer ends a round trip later,
    // not after the 1 s RTO.
    let mut highest: Option<SeqNumber> = None;
    let mut resent = Vec::new();
    for (t, _, seg) in pair.data_segments(Dir::ClientToServer) {
        if highest.is_some_and(|highest| seg.seq < highest) {
            resent.push(*t);
        }
        let end = seg.seq + seg.payload_len;
        highest = Some(highest.map_or(end, |highest| highest.max(end)));
    }
    assert_eq!(resent.len(), 2);
    let gap = resent[1] - resent[0];
    assert!(
        gap > Duration::from_millis(40) && gap < Duration::from_millis(45),
        "{resent:?}"
    );
    assert!(finished_at(&pair) < resent[1] + Duration::from_millis(45));
}

/// New data segments the client sent in `[from, to)`.
fn new_data_sent(pair: &Pair, from: Instant, to: Instant) -> usize {
    let mut highest = SeqNumber(0);
    let mut count = 0;
    for (t, _, seg) in pair.data_segments(Dir::ClientToServer) {
        let end = seg.seq + seg.payload_len;
        let new = highest == SeqNumber(0) || end > highest;
        if new {
            highest = end;
            if (from..to).contains(t) {
                count += 1;
            }
        }
    }
    count
}

/// When the client first sent data again.
fn first_retransmission(pair: &Pair) -> Instant {
    let mut highest = SeqNumber(0);
    for (t, _, seg) in pair.data_segments(Dir::ClientToServer) {
        let end = seg.seq + seg.payload_len;
        if highest != SeqNumber(0) && end <= highest {
            return *t;
        }
        highest = highest.max(end);
    }
    panic!("no retransmission");
}

#[test]
fn prr_sends_new_data_from_the_start_of_recovery() {
    // One loss in a window of about 100 segments, whose ACKs come back over about 8 ms.
    // RFC 6675 sets cwnd = ssthresh, half the pipe: nothing new goes until half the window
    // was delivered, 4 ms. PRR sends one segment for about every two delivered from the
    // first ACK on.
    let one_loss = |count: u32, _: &TcpRepr| count == 200;
    let first_ms = Duration::from_millis(2);
    let rfc = transfer(LossRecovery::Rfc6675, 2_000_000, one_loss);
    let start = first_retransmission(&rfc);
    assert_eq!(new_data_sent(&rfc, start, start + first_ms), 0);
    let rack = transfer(LossRecovery::RackTlp, 2_000_000, one_loss);
    let start = first_retransmission(&rack);
    let early = new_data_sent(&rack, start, start + first_ms);
    // About 24 ACKs arrive in those 2 ms: one new segment for two (cwnd left at its value
    // before the loss would send one for each).
    assert!(
        (10..=14).contains(&early),
        "{early} new segments in the first 2 ms"
    );
    let stats = client_stats(&rack);
    assert_eq!(
        (stats.fast_retransmits, stats.timeouts),
        (1, 0),
        "{stats:?}"
    );
}

#[test]
fn a_lone_lost_segment_is_probed_in_the_retransmission_timers_place() {
    // Linux's timers (min RTO 200 ms on the variance term): with one segment in flight the
    // probe's 2·SRTT + 200 ms is capped at the RTO, and the probe goes in its place (one
    // timer slot, `tcp_send_loss_probe`): no timeout, cwnd kept.
    let linux = TcpConfig {
        min_rto: Duration::from_millis(200),
        rto_floor: RtoFloor::Variance,
        delayed_ack_timeout: Duration::from_millis(40),
        ..sack_sender(LossRecovery::RackTlp)
    };
    // One segment, no FIN behind it (the application keeps the connection open).
    let mut pair = Pair::both(linux, Duration::from_millis(20));
    pair.client_closes = false;
    pair.run_until(at(0.1));
    pair.client_to_send = 988;
    let mut count = 0;
    pair.drop = Box::new(move |_, dir, seg| {
        count += u32::from(dir == Dir::ClientToServer && seg.payload_len > 0);
        dir == Dir::ClientToServer && seg.payload_len > 0 && count == 1
    });
    pair.run_until(at(5.0));
    assert_eq!(pair.server.stats().bytes_received, 988);
    let stats = client_stats(&pair);
    assert_eq!(
        (stats.timeouts, stats.loss_probes, stats.retransmissions),
        (0, 1, 1),
        "{stats:?}"
    );
}

#[test]
fn a_segment_received_twice_is_reported_by_a_dsack_below_the_cumulative_ack() {
    // The server's first four ACKs are lost: the client's timer sends the first segment
    // again, which the server already has; its ACK carries a D-SACK of it, below the
    // cumulative ACK (RFC 2883 §4.1.1, Linux's `tcp_send_dupack`).
    let mut acks = 0;
    let mut pair = Pair::both(
        sack_sender(LossRecovery::RackTlp),
        Duration::from_millis(20),
    );
    pair.run_until(at(0.1));
    pair.client_to_send = 10 * 988;
    pair.drop = Box::new(move |_, dir, seg| {
        if dir == Dir::ServerToClient && seg.payload_len == 0 && !seg.flags.syn {
            acks += 1;
            return acks <= 4;
        }
        false
    });
    pair.run_until(at(60.0));
    assert_eq!(pair.server.stats().bytes_received, 10 * 988);
    let dsacks: Vec<_> = pair
        .log
        .iter()
        .filter(|(_, d, _)| *d == Dir::ServerToClient)
        .filter(|(_, _, s)| {
            s.sack
                .as_slice()
                .first()
                .is_some_and(|&(left, _)| left < s.ack)
        })
        .collect();
    assert!(!dsacks.is_empty(), "a D-SACK below the cumulative ACK");
    let (_, _, first) = dsacks[0];
    let (left, right) = first.sack.as_slice()[0];
    assert_eq!(right - left, 988, "one segment's worth");
    assert!(client_stats(&pair).timeouts >= 1);
}
