//! The access-point agents of paper 000 inside the simulated MAC.

mod common;

use airtcp_sim::summary::WlanSummary;
use common::{run, upload};
use serde_json::json;

fn wlan(agent: &str, n: usize, seed: u64, duration_s: u64) -> (f64, WlanSummary) {
    let agent = (agent != "none").then(|| json!({"kind": agent}));
    let summary = run(&upload(n, agent, seed, duration_s)).summary;
    (summary.aggregate_goodput_bps, summary.wlans[0].clone())
}

#[test]
fn zero_backoff_is_used_exactly_for_ack_headed_ap_accesses() {
    let (_, w) = wlan("ack_priority", 10, 1, 20);
    assert!(
        w.counters.ap_ack_headed_accesses > 1000,
        "{:?}",
        w.counters.ap_ack_headed_accesses
    );
    assert_eq!(
        w.counters.ap_zero_backoff_accesses,
        w.counters.ap_ack_headed_accesses
    );
    assert_eq!(
        w.counters.ap_zero_backoff_ack_headed_accesses,
        w.counters.ap_ack_headed_accesses
    );
    for plain in ["dcf", "txop_burst", "ack_aggregation", "none"] {
        let (_, w) = wlan(plain, 10, 1, 10);
        assert_eq!(w.counters.ap_zero_backoff_accesses, 0, "{plain}");
    }
}

#[test]
fn txop_bursts_never_exceed_the_limit() {
    let limit = 1_500_000u64;
    let agent = json!({"kind": "txop_burst", "txop_limit_ns": limit});
    let w = run(&upload(20, Some(agent), 2, 20)).summary.wlans[0].clone();
    assert!(
        w.counters.txop_bursts > 100,
        "{} bursts",
        w.counters.txop_bursts
    );
    assert!(w.counters.txop_frames >= 2 * w.counters.txop_bursts);
    assert!(
        w.counters.max_txop_ns <= limit,
        "{} ns > {limit} ns",
        w.counters.max_txop_ns
    );
    let (_, default_limit) = wlan("txop_burst", 20, 2, 20);
    assert!(default_limit.counters.max_txop_ns <= 3_264_000);
}

#[test]
fn aggregation_sends_one_mac_frame_for_k_acks() {
    let agent = json!({"kind": "ack_aggregation", "max_aggregate": 4});
    let w = run(&upload(20, Some(agent), 3, 20)).summary.wlans[0].clone();
    common::assert_aggregated(&w.counters, 4);
}

#[test]
fn with_one_flow_every_policy_gives_the_same_goodput() {
    let (base, _) = wlan("dcf", 1, 4, 30);
    for agent in [
        "ack_priority",
        "txop_burst",
        "ack_aggregation",
        "adaptive",
        "none",
    ] {
        let (goodput, _) = wlan(agent, 1, 4, 30);
        let difference = (goodput - base) / base;
        assert!(
            difference.abs() < 0.03,
            "{agent}: {goodput:.0} vs dcf {base:.0} ({difference:+.3})"
        );
    }
}

/// Mean and sample standard deviation over seeds.
fn replicate(agent: &str, n: usize, metric: impl Fn(f64, &WlanSummary) -> f64) -> (f64, f64) {
    let values: Vec<f64> = (1..=5)
        .map(|seed| {
            let (goodput, w) = wlan(agent, n, seed, 25);
            metric(goodput, &w)
        })
        .collect();
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (values.len() - 1) as f64;
    (mean, var.sqrt())
}

/// Paper 000's claims, as this simulator reproduces them (docs/reproductions/ryu-ack-priority.md):
/// priority raises the number of contenders; goodput gains near 3 flows; at 10 flows the
/// extra collisions already cost goodput here (the paper still shows a gain there).
#[test]
fn ack_priority_raises_contenders_and_gains_near_three_flows() {
    let contenders = |_: f64, w: &WlanSummary| w.mean_contenders;
    let goodput = |g: f64, _: &WlanSummary| g;
    let (dcf_c, dcf_c_sd) = replicate("dcf", 10, contenders);
    let (pri_c, pri_c_sd) = replicate("ack_priority", 10, contenders);
    assert!(
        pri_c - dcf_c > 3.0 * (dcf_c_sd + pri_c_sd) + 1.0,
        "contenders {pri_c:.2} vs dcf {dcf_c:.2}"
    );
    assert!(
        pri_c > 9.0,
        "with priority nearly every station contends ({pri_c:.2} of 11)"
    );
    let (dcf_g, dcf_g_sd) = replicate("dcf", 3, goodput);
    let (pri_g, pri_g_sd) = replicate("ack_priority", 3, goodput);
    assert!(
        pri_g - dcf_g > 3.0 * (dcf_g_sd + pri_g_sd),
        "3 flows: {pri_g:.0} vs dcf {dcf_g:.0}"
    );
    let (dcf_40, _) = replicate("dcf", 40, goodput);
    let (pri_40, _) = replicate("ack_priority", 40, goodput);
    let (ada_40, _) = replicate("adaptive", 40, goodput);
    assert!(
        pri_40 < 0.85 * dcf_40,
        "priority degrades with many flows: {pri_40:.0} vs {dcf_40:.0}"
    );
    assert!(
        ada_40 > 1.15 * pri_40,
        "adaptive beats priority beyond 10 flows: {ada_40:.0} vs {pri_40:.0}"
    );
}
