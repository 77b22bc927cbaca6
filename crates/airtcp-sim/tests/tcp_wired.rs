//! TCP over a wired link: utilisation, reaction to loss, exact delivery under random loss,
//! and reproducibility.

mod common;

use common::{run, wired_tcp};
use proptest::prelude::*;

#[test]
fn newreno_fills_a_link_with_a_bdp_sized_buffer() {
    // 10 Mbit/s, 20 ms each way: BDP = 10e6 · 0.04 / 8 = 50 kB ≈ 33 packets of 1500 B.
    let result = run(&wired_tcp(10_000_000, 20, 33, 0.0, None, 1, 60));
    let limit = 10e6 * 1460.0 / 1500.0;
    let goodput = result.summary.flows[0].goodput_bps;
    assert!(
        goodput >= 0.95 * limit,
        "goodput {:.3} Mbit/s, limit {:.3}",
        goodput / 1e6,
        limit / 1e6
    );
}

#[test]
fn cwnd_halves_at_fast_retransmit_under_random_loss() {
    let result = run(&wired_tcp(10_000_000, 20, 200, 0.002, None, 3, 60));
    let flow = &result.summary.flows[0];
    assert!(flow.fast_retransmits >= 3, "{flow:?}");
    // At each recovery, ssthresh = flight/2: find samples where ssthresh drops and compare it
    // with the cwnd sampled just before.
    let s = &result.series;
    let mut halvings = 0;
    for i in 1..s.time_s.len() {
        let (before, after) = (s.ssthresh_bytes[i - 1], s.ssthresh_bytes[i]);
        // Timeouts (cwnd back to one segment) take ssthresh from the flight size, which after
        // partial ACKs can exceed cwnd (RFC 5681 eq. 4): only fast retransmits are compared.
        let timeout = s.cwnd_bytes[i] <= 1460;
        if !timeout && (after < before || (before.is_nan() && !after.is_nan())) {
            let ratio = after / s.cwnd_bytes[i - 1] as f64;
            assert!(
                (0.4..=0.6).contains(&ratio),
                "ssthresh {after} after cwnd {}",
                s.cwnd_bytes[i - 1]
            );
            halvings += 1;
        }
    }
    assert!(halvings >= 3, "{halvings} halvings seen");
}

#[test]
fn same_seed_is_bit_identical_and_another_seed_differs() {
    let summary = |seed| {
        let mut s = run(&wired_tcp(10_000_000, 20, 50, 0.01, None, seed, 20)).summary;
        s.wall_time_s = 0.0;
        serde_json::to_string(&s).unwrap()
    };
    assert_eq!(summary(7), summary(7));
    assert_ne!(summary(7), summary(8));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    // Every byte is delivered exactly once, in order, and both ends close, whatever the loss.
    #[test]
    fn finite_transfers_complete_exactly(seed in 0u64..1000, loss in 0.0f64..0.08, kib in 1u64..400) {
        let bytes = kib * 1024 + seed % 1000;
        let result = run(&wired_tcp(5_000_000, 10, 30, loss, Some(bytes), seed, 600));
        let flow = &result.summary.flows[0];
        prop_assert_eq!(flow.bytes_delivered, bytes);
        prop_assert_eq!(flow.completed, Some(true));
        prop_assert_eq!(flow.sender_state.as_deref(), Some("Closed"));
        prop_assert_eq!(flow.receiver_state.as_deref(), Some("Closed"));
    }
}

#[test]
fn wall_clock_limit_stops_a_run() {
    use airtcp_sim::{run_json, RunError, RunOptions};
    let scenario = wired_tcp(100_000_000, 1, 1000, 0.0, None, 1, 100_000).to_string();
    let options = RunOptions {
        wall_limit: Some(std::time::Duration::from_millis(50)),
        ..RunOptions::default()
    };
    match run_json(&scenario, &options) {
        Err(RunError::Io(e)) => assert_eq!(e.kind(), std::io::ErrorKind::TimedOut, "{e}"),
        other => panic!(
            "expected a timeout, got {:?}",
            other.map(|r| r.summary.events)
        ),
    }
}
