//! Undo of spurious reductions under RACK-TLP (`tcp/socket/undo.rs`, Linux's
//! `tcp_try_undo_*`): a segment held back past RACK's reordering window is resent, its
//! original arrives first, the peer D-SACKs the copy and the recovery is undone; ACKs held
//! back past the RTO fire a spurious timeout, and the first late ACK, echoing a timestamp
//! older than the retransmission, undoes it (Eifel detection). Segments are held by taking
//! them off the virtual wire and putting them back later.

mod common;

use std::cell::RefCell;
use std::cmp::Reverse;
use std::rc::Rc;
use std::time::Duration;

use airtcp_proto::tcp::{TcpConfig, TcpProfile};
use airtcp_proto::wire::{Ipv4Repr, TcpRepr};
use airtcp_proto::Instant;
use common::{at, Dir, Pair};

type Held = Rc<RefCell<Vec<(Dir, TcpRepr)>>>;

/// The linux profile both ends (`timestamps` as given), 10 Mbit/s and 10 ms each way, the
/// connection up.
fn linux_pair(timestamps: bool) -> Pair {
    let config = TcpConfig {
        timestamps,
        ..TcpConfig::profile(TcpProfile::Linux)
    };
    let mut pair = Pair::new(
        config.clone(),
        config,
        Duration::from_millis(10),
        10_000_000,
    );
    pair.run_until(at(0.05));
    pair
}

/// Puts `held` back on the wire, to arrive from `arrive` on, 10 µs apart, in the order
/// they were sent.
fn release(pair: &mut Pair, held: &Held, mut arrive: Instant) {
    for (dir, seg) in held.borrow_mut().drain(..) {
        pair.segments.push((seg, Ipv4Repr::NOT_ECT));
        pair.sequence += 1;
        let key = pair.segments.len() - 1;
        let to_server = dir == Dir::ClientToServer;
        pair.wire
            .push(Reverse((arrive, pair.sequence, to_server, key)));
        arrive += Duration::from_micros(10);
    }
}

#[test]
fn a_resent_segment_whose_original_was_only_late_is_d_sacked_and_the_recovery_undone() {
    // Without timestamps only the D-SACK can tell the retransmission was not needed.
    let mut pair = linux_pair(false);
    pair.client_to_send = 2_000_000;
    pair.client_closes = false;
    // The 40th data segment is held 25 ms: RACK deems it lost (segments sent after it are
    // delivered and more than an RTT has passed), resends it, and the original then
    // arrives before the copy.
    let held: Held = Rc::default();
    let stash = held.clone();
    let mut count = 0;
    pair.drop = Box::new(move |_, dir, seg| {
        if dir != Dir::ClientToServer || seg.payload_len == 0 {
            return false;
        }
        count += 1;
        if count == 40 {
            stash.borrow_mut().push((dir, *seg));
            return true;
        }
        false
    });
    while held.borrow().is_empty() {
        let step = pair.now + Duration::from_micros(100);
        pair.run_until(step);
    }
    let release_at = pair.now + Duration::from_millis(25);
    pair.run_until(release_at);
    release(&mut pair, &held, release_at);
    pair.run_until(at(2.0));
    let stats = pair.client.stats();
    assert_eq!(stats.fast_retransmits, 1, "{stats:?}");
    assert_eq!(stats.retransmissions, 1, "{stats:?}");
    assert_eq!(stats.undos, 1, "{stats:?}");
    // Still in slow start's infinite ssthresh: the reduction left no trace.
    assert_eq!(pair.client.ssthresh(), u32::MAX);
}

#[test]
fn a_timeout_from_acks_held_past_the_rto_is_undone_by_their_timestamps() {
    let mut pair = linux_pair(true);
    pair.client_to_send = 20_000_000;
    pair.client_closes = false;
    pair.run_until(at(1.0));
    let before = pair.client.cwnd();
    // From 1 s every ACK is held back (the peer's uplink stalls, as in a handoff) and they
    // arrive from 1.6 s, after the retransmission timer (some 220 ms) has fired.
    let held: Held = Rc::default();
    let stash = held.clone();
    pair.drop = Box::new(move |now, dir, seg| {
        if dir == Dir::ServerToClient && now < at(1.6) {
            stash.borrow_mut().push((dir, *seg));
            return true;
        }
        false
    });
    pair.run_until(at(1.6));
    assert!(pair.client.stats().timeouts >= 1);
    assert!(pair.client.cwnd() < before);
    pair.drop = Box::new(|_, _, _| false);
    release(&mut pair, &held, at(1.6));
    pair.run_until(at(1.8));
    let stats = pair.client.stats();
    assert_eq!(stats.undos, 1, "{stats:?}");
    // The window is back (it has grown since), and what the timeout deemed lost was not
    // all sent again: only the timer's retransmissions of the head.
    assert!(
        pair.client.cwnd() >= before,
        "{} < {before}",
        pair.client.cwnd()
    );
    assert!(stats.retransmissions <= stats.timeouts + 1, "{stats:?}");
    assert_eq!(pair.client.ssthresh(), u32::MAX);
}
