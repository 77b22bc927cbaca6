//! Scheduled link outages: nothing crosses a link while it is down, both ways, and what
//! was sent meanwhile is lost; overlapping outages are refused.

mod common;

use airtcp_sim::Scenario;
use common::{run, MS, S};
use serde_json::json;

fn udp_over_a_link(outages: serde_json::Value) -> serde_json::Value {
    // 1000 datagrams a second of 1000 bytes for 3 s.
    let direction = json!({"rate_bps": 10_000_000u64, "delay_ns": 5 * MS});
    json!({
        "name": "outage", "seed": 1, "duration_ns": 3 * S,
        "nodes": ["a", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": direction, "b_to_a": direction,
                   "outages": outages}],
        "flows": [{"name": "udp", "src": 0, "dst": 1,
                   "app": {"kind": "udp_cbr", "rate_bps": 8_000_000u64, "payload_bytes": 1000}}],
    })
}

#[test]
fn a_link_carries_nothing_while_down() {
    let up = run(&udp_over_a_link(json!([])));
    let down = run(&udp_over_a_link(
        json!([{"at_ns": S, "duration_ns": S / 2}, {"at_ns": 2 * S, "duration_ns": S / 4}]),
    ));
    let (up_link, down_link) = (&up.summary.links[0], &down.summary.links[0]);
    assert_eq!(up_link.lost, 0);
    // 1028-byte datagrams at 8 Mbit/s: 972.8 a second, 729.6 in the 750 ms down; and at
    // each outage's start the ~4.9 under way (5 ms) and the one on the wire.
    assert!((737..=745).contains(&down_link.lost), "{down_link:?}");
    assert_eq!(down_link.delivered + down_link.lost, up_link.delivered);
    let ratio =
        down.summary.flows[0].bytes_delivered as f64 / up.summary.flows[0].bytes_delivered as f64;
    assert!((ratio - 0.746).abs() < 0.005, "{ratio}");
}

#[test]
fn overlapping_outages_are_refused() {
    let scenario = udp_over_a_link(
        json!([{"at_ns": S, "duration_ns": S}, {"at_ns": S + S / 2, "duration_ns": S}]),
    );
    let error = Scenario::from_json(&scenario.to_string()).err().unwrap();
    assert_eq!(error.key, "links[0].outages[1].at_ns");
    let zero = udp_over_a_link(json!([{"at_ns": S, "duration_ns": 0}]));
    let error = Scenario::from_json(&zero.to_string()).err().unwrap();
    assert_eq!(error.key, "links[0].outages[0].duration_ns");
}
