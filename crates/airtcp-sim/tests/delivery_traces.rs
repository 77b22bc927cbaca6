//! A link direction driven by a mahimahi packet-delivery trace: it delivers one 1500-byte
//! packet per opportunity, nothing in the trace's gaps, and repeats the trace.

mod common;

use airtcp_sim::Scenario;
use common::{run, MS, S};
use serde_json::json;

/// UDP at 20 Mbit/s in 1500-byte packets from a to b over a traced direction for 5 s.
fn udp_over_a_trace(trace_ms: &[u64]) -> serde_json::Value {
    let traced = json!({"trace_ms": trace_ms, "delay_ns": 5 * MS});
    let back = json!({"rate_bps": 10_000_000u64, "delay_ns": 5 * MS});
    json!({
        "name": "trace", "seed": 1, "duration_ns": 5 * S,
        "nodes": ["a", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": traced, "b_to_a": back}],
        "flows": [{"name": "udp", "src": 0, "dst": 1,
                   "app": {"kind": "udp_cbr", "rate_bps": 20_000_000u64, "payload_bytes": 1472}}],
    })
}

#[test]
fn a_backlogged_link_uses_every_opportunity_and_none_in_the_gaps() {
    // One opportunity a millisecond (12 Mbit/s) for 1 s, then none until 2 s: the trace's
    // rounds start at 0, 2 and 4 s, each with 1000 opportunities and one at its end.
    let mut trace: Vec<u64> = (1..=1000).collect();
    trace.push(2000);
    let link = run(&udp_over_a_trace(&trace)).summary.links[0].clone();
    // 2 x 1001, and 1000 in the third round up to 5 s less the last 5 ms of propagation.
    assert!(
        (2 * 1001 + 994..=2 * 1001 + 1000).contains(&link.delivered),
        "{link:?}"
    );
    let steady = run(&udp_over_a_trace(&[1])).summary.links[0].clone();
    assert!((4993..=5000).contains(&steady.delivered), "{steady:?}");
}

#[test]
fn a_direction_takes_a_rate_or_a_trace() {
    let mut scenario = udp_over_a_trace(&[1]);
    scenario["links"][0]["a_to_b"]["rate_bps"] = json!(1_000_000);
    let error = Scenario::from_json(&scenario.to_string()).unwrap_err();
    assert_eq!(error.key, "links[0].a_to_b.trace_ms");
    let error = Scenario::from_json(&udp_over_a_trace(&[5, 3]).to_string()).unwrap_err();
    assert_eq!(error.key, "links[0].a_to_b.trace_ms");
    assert!(error.message.contains("must not decrease"), "{error}");
}
