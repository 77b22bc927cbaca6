//! Pacing (`tcp/socket/rate_control.rs`): with `pacing` (Linux's fq) a sender spreads each
//! window over the round trip at `tcp_update_pacing_rate`'s rate; without it the window
//! leaves at the wire's rate; BBR paces whatever `pacing` says. The pair's wire is 100
//! Mbit/s each way with 50 ms of delay, far faster than the paced rates.

mod common;

use std::time::Duration;

use airtcp_proto::tcp::{TcpConfig, TcpProfile};
use common::{at, Dir, Pair};

fn linux(pacing: bool) -> TcpConfig {
    TcpConfig {
        pacing,
        ..TcpConfig::profile(TcpProfile::Linux)
    }
}

/// The gaps between the client's data segments sent in `[from, to)` seconds.
fn gaps(pair: &Pair, from: f64, to: f64) -> Vec<Duration> {
    let times: Vec<_> = pair
        .data_segments(Dir::ClientToServer)
        .map(|(t, _, _)| *t)
        .filter(|t| (at(from)..at(to)).contains(t))
        .collect();
    times.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn without_pacing_the_initial_window_leaves_as_a_burst() {
    let mut pair = Pair::both(linux(false), Duration::from_millis(50));
    pair.client_to_send = 1 << 20;
    pair.client_closes = false;
    pair.run_until(at(0.5));
    // The first flight (10 segments after the handshake's 100 ms) goes back to back at
    // 100 Mbit/s: 1500-byte packets 120 µs apart.
    let first = gaps(&pair, 0.0, 0.15);
    assert_eq!(first.len(), 9);
    assert!(
        first.iter().all(|g| *g <= Duration::from_micros(121)),
        "{first:?}"
    );
}

#[test]
fn with_pacing_slow_start_spreads_each_flight_at_twice_cwnd_per_srtt() {
    let mut pair = Pair::both(linux(true), Duration::from_millis(50));
    pair.client_to_send = 1 << 20;
    pair.client_closes = false;
    pair.run_until(at(0.29));
    // The first ten segments are exempt (sch_fq's rule). The second flight, from 200 ms (the
    // first flight's ACKs), is paced at 200 % of cwnd per SRTT (cwnd below half ssthresh):
    // one segment every MSS · SRTT / (2 · cwnd), the first gap shorter (Linux's credit for a
    // sender that was behind).
    let (cwnd, srtt) = (pair.client.cwnd(), pair.client.srtt().unwrap());
    let expected = srtt.mul_f64(1448.0 / (2.0 * f64::from(cwnd)));
    let second = gaps(&pair, 0.19, 0.29);
    assert!(second.len() >= 10, "{second:?}");
    for gap in &second[1..] {
        let error = gap.as_secs_f64() / expected.as_secs_f64() - 1.0;
        assert!(
            error.abs() < 0.001,
            "{gap:?} against {expected:?} (cwnd {cwnd}, srtt {srtt:?})"
        );
    }
    // Slow start grew cwnd from 10 segments while the ACKs found the sender cwnd-limited.
    assert!(cwnd > 10 * 1448, "{cwnd}");
}

#[test]
fn bbr_paces_without_being_asked() {
    let mut pair = Pair::both(linux(false), Duration::from_millis(50)).with_client_cc("bbr");
    pair.client_to_send = 1 << 20;
    pair.client_closes = false;
    pair.run_until(at(0.5));
    // BBR's initial rate: 2.885 · 10 segments per 100 ms (less 1 %), 413 638 B/s: a segment
    // every 3.5 ms once the first ten are out; the second flight is paced.
    let second = gaps(&pair, 0.19, 0.3);
    assert!(second.len() >= 5, "{second:?}");
    assert!(
        second
            .iter()
            .filter(|g| **g >= Duration::from_millis(1))
            .count()
            >= second.len() / 2,
        "{second:?}"
    );
}
