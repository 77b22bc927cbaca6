//! ECN in whole connections (RFC 3168 §6.1, tests/common's virtual wire marking CE where a
//! congested AQM would): negotiation, ECT on new data only, the echo until CWR, and one
//! reduction a window without a retransmission.

mod common;

use std::time::Duration;

use airtcp_proto::tcp::{Ecn, LossRecovery, TcpConfig, ZeroWindow};
use airtcp_proto::wire::{Ipv4Repr, TcpRepr};
use common::{at, config, Dir, Pair};

fn with_ecn(ecn: Ecn, loss_recovery: LossRecovery) -> TcpConfig {
    TcpConfig {
        sack: true,
        timestamps: true,
        send_buffer: 1 << 20,
        receive_buffer: 1 << 20,
        ecn,
        loss_recovery,
        // Linux's answer to a closed window, which RACK-TLP goes with.
        zero_window: ZeroWindow::Retransmit,
        ..config(1000)
    }
}

/// A 500 kB transfer over 10 Mbit/s and 10 ms each way; the wire marks CE on the client's
/// `n`th data segment (counting the ECT ones the rule is asked about).
fn marked_transfer(client: Ecn, server: Ecn, loss_recovery: LossRecovery, n: u32) -> Pair {
    let mut pair = Pair::new(
        with_ecn(client, loss_recovery),
        with_ecn(server, loss_recovery),
        Duration::from_millis(10),
        10_000_000,
    );
    pair.run_until(at(0.1));
    pair.client_to_send = 500_000;
    let mut count = 0;
    pair.mark = Box::new(move |_, dir, seg: &TcpRepr| {
        if dir != Dir::ClientToServer || seg.payload_len == 0 {
            return false;
        }
        count += 1;
        count == n
    });
    pair.run_until(at(30.0));
    assert_eq!(pair.server.stats().bytes_received, 500_000);
    pair
}

/// The codepoints of the client's data segments, and of the ACKs (pure, from the server).
fn codepoints(pair: &Pair, dir: Dir, data: bool) -> Vec<u8> {
    pair.log
        .iter()
        .zip(&pair.log_ecn)
        .filter(|((_, d, seg), _)| *d == dir && (seg.payload_len > 0) == data && !seg.flags.syn)
        .map(|(_, &ecn)| ecn)
        .collect()
}

#[test]
fn ecn_is_used_only_when_the_syn_asks_and_the_syn_ack_accepts() {
    let pair = marked_transfer(Ecn::On, Ecn::Accept, LossRecovery::RackTlp, 0);
    let syn = &pair.log[0].2;
    assert!(syn.flags.syn && syn.flags.ece && syn.flags.cwr, "{syn:?}");
    let synack = &pair.log[1].2;
    assert!(synack.flags.ece && !synack.flags.cwr, "{synack:?}");
    let data = codepoints(&pair, Dir::ClientToServer, true);
    assert!(
        data.iter().all(|&c| c == Ipv4Repr::ECT0),
        "new data is ECT(0)"
    );
    assert!(codepoints(&pair, Dir::ServerToClient, false)
        .iter()
        .all(|&c| c == Ipv4Repr::NOT_ECT));
    // Linux's default (accept) on both ends: nobody asks.
    let pair = marked_transfer(Ecn::Accept, Ecn::Accept, LossRecovery::RackTlp, 0);
    assert!(!pair.log[0].2.flags.ece);
    assert!(codepoints(&pair, Dir::ClientToServer, true)
        .iter()
        .all(|&c| c == Ipv4Repr::NOT_ECT));
    // Asked, but the peer has ECN off.
    let pair = marked_transfer(Ecn::On, Ecn::Off, LossRecovery::RackTlp, 0);
    assert!(!pair.log[1].2.flags.ece);
    assert!(codepoints(&pair, Dir::ClientToServer, true)
        .iter()
        .all(|&c| c == Ipv4Repr::NOT_ECT));
}

#[test]
fn a_ce_mark_is_echoed_until_cwr_and_halves_the_window_once_without_retransmitting() {
    for loss_recovery in [LossRecovery::Rfc6675, LossRecovery::RackTlp] {
        let pair = marked_transfer(Ecn::On, Ecn::On, loss_recovery, 60);
        let client = *pair.client.stats();
        let server = *pair.server.stats();
        assert_eq!(server.ce_received, 1);
        assert_eq!(
            (
                client.ecn_reductions,
                client.retransmissions,
                client.timeouts
            ),
            (1, 0, 0),
            "{loss_recovery:?}: {client:?}"
        );
        // The server's ACKs carry ECE from the marked segment's until the client's CWR
        // arrives; the client's first new segment after the ECE carries CWR, only it.
        let first_ece = pair
            .log
            .iter()
            .position(|(_, d, s)| *d == Dir::ServerToClient && s.flags.ece && !s.flags.syn)
            .expect("echoed");
        let cwr: Vec<_> = pair
            .log
            .iter()
            .enumerate()
            .filter(|(_, (_, d, s))| *d == Dir::ClientToServer && s.flags.cwr && !s.flags.syn)
            .collect();
        assert_eq!(cwr.len(), 1, "{loss_recovery:?}");
        let (cwr_at, (_, _, cwr_segment)) = cwr[0];
        assert!(cwr_at > first_ece);
        let echoes: Vec<_> = pair
            .log
            .iter()
            .filter(|(_, d, s)| *d == Dir::ServerToClient && s.flags.ece && !s.flags.syn)
            .collect();
        assert!(echoes.len() > 1, "every ACK until the CWR");
        // None acknowledges the segment that carried CWR.
        assert!(echoes.iter().all(|(_, _, s)| s.ack <= cwr_segment.seq));
    }
}

#[test]
fn a_loss_in_the_window_of_an_ecn_reduction_does_not_reduce_again() {
    // RFC 3168 §6.1.2: the 60th segment marked, the 62nd lost; the fast retransmit it
    // brings keeps the ssthresh the echo set.
    for loss_recovery in [LossRecovery::Rfc6675, LossRecovery::RackTlp] {
        let mut pair = Pair::new(
            with_ecn(Ecn::On, loss_recovery),
            with_ecn(Ecn::On, loss_recovery),
            Duration::from_millis(10),
            10_000_000,
        );
        pair.run_until(at(0.1));
        pair.client_to_send = 500_000;
        let (mut marked, mut dropped) = (0, 0);
        pair.mark = Box::new(move |_, dir, seg: &TcpRepr| {
            marked += u32::from(dir == Dir::ClientToServer && seg.payload_len > 0);
            dir == Dir::ClientToServer && seg.payload_len > 0 && marked == 60
        });
        let mut ssthresh_after_echo = None;
        pair.drop = Box::new(move |_, dir, seg| {
            dropped += u32::from(dir == Dir::ClientToServer && seg.payload_len > 0);
            dir == Dir::ClientToServer && seg.payload_len > 0 && dropped == 62
        });
        while pair.client.stats().ecn_reductions == 0 {
            let next = pair.now + Duration::from_millis(1);
            pair.run_until(next);
        }
        ssthresh_after_echo.get_or_insert(pair.client.ssthresh());
        while pair.client.stats().fast_retransmits == 0 && pair.now < at(30.0) {
            let next = pair.now + Duration::from_millis(1);
            pair.run_until(next);
        }
        let stats = *pair.client.stats();
        assert_eq!(
            (stats.ecn_reductions, stats.fast_retransmits),
            (1, 1),
            "{stats:?}"
        );
        assert_eq!(
            Some(pair.client.ssthresh()),
            ssthresh_after_echo,
            "{loss_recovery:?}"
        );
    }
}
