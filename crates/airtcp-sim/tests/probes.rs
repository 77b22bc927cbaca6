//! Ping flows (ICMP echo): every request answered, round trips and train dispersion as the
//! links make them, and what a mesh chain of WLANs does to them.

mod common;

use common::{run, MS, S};
use serde_json::{json, Value};

/// a -- 100 Mbit/s, 1 ms -- r -- 10 Mbit/s, 20 ms -- b, and a ping flow a -> b.
fn two_links(count: u32, train: u32, payload_bytes: u32) -> Value {
    let fast = json!({"rate_bps": 100_000_000u64, "delay_ns": MS});
    let slow = json!({"rate_bps": 10_000_000u64, "delay_ns": 20 * MS, "queue": {"packets": 100}});
    json!({
        "name": "probes", "seed": 1, "duration_ns": 10 * S, "measure_from_ns": 0,
        "nodes": ["a", "r", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": fast, "b_to_a": fast},
                  {"a": 1, "b": 2, "a_to_b": slow, "b_to_a": slow}],
        "flows": [{"name": "ping", "src": 0, "dst": 2,
                   "app": {"kind": "ping", "count": count, "interval_ns": 100 * MS,
                           "payload_bytes": payload_bytes, "train": train}}],
    })
}

fn probes(scenario: &Value) -> Value {
    let summary = serde_json::to_value(run(scenario).summary).unwrap();
    summary["flows"][0]["probes"].clone()
}

#[test]
fn every_echo_request_is_answered_after_the_path_round_trip() {
    let probes = probes(&two_links(20, 1, 56));
    let (sent, returned) = (
        probes["sent_ns"].as_array().unwrap(),
        probes["returned_ns"].as_array().unwrap(),
    );
    assert_eq!(sent.len(), 20);
    // 84-byte packets: 2 x (1 ms + 20 ms) of propagation, and each way 6.72 us at 100 Mbit/s
    // and 67.2 us at 10 Mbit/s.
    let expected = 42 * MS + 2 * (6_720 + 67_200);
    for (s, r) in sent.iter().zip(returned) {
        let rtt = r.as_u64().expect("answered") - s.as_u64().unwrap();
        assert_eq!(rtt, expected);
    }
    assert_eq!(probes["ip_bytes"], 84);
}

#[test]
fn a_train_leaves_the_narrow_link_spaced_by_its_serialisation_time() {
    let probes = probes(&two_links(5, 8, 1472));
    let arrived: Vec<u64> = probes["arrived_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_u64().unwrap())
        .collect();
    // 1500-byte packets at 10 Mbit/s: 1.2 ms apart; at 100 Mbit/s they would be 0.12 ms.
    for train in arrived.chunks(8) {
        for pair in train.windows(2) {
            assert_eq!(pair[1] - pair[0], 1_200_000);
        }
    }
}

#[test]
fn one_way_probes_are_timed_at_the_destination_and_never_answered() {
    let mut scenario = two_links(5, 8, 1472);
    scenario["flows"][0]["app"]["one_way"] = json!(true);
    let summary = run(&scenario).summary;
    let probes = serde_json::to_value(&summary.flows[0]).unwrap()["probes"].clone();
    assert!(probes["arrived_ns"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t.is_u64()));
    assert!(probes["returned_ns"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t.is_null()));
    // Nothing came back along the slow link's reverse direction.
    assert_eq!(summary.links[3].delivered, 0, "{:?}", summary.links);
}

#[test]
fn ping_flows_are_checked() {
    use airtcp_sim::{run_json, RunError, RunOptions};
    let mut scenario = two_links(70_000, 1, 56);
    let error = match run_json(&scenario.to_string(), &RunOptions::default()) {
        Err(RunError::Config(e)) => e,
        other => panic!("{:?}", other.map(|r| r.summary.events)),
    };
    assert_eq!(error.key, "flows[0].app.count");
    assert!(error.message.contains("at most 65536 probes"), "{error}");
    scenario["flows"][0]["app"]["count"] = json!(2);
    scenario["flows"][0]["app"]["interval_ns"] = json!(0);
    let Err(RunError::Config(error)) = run_json(&scenario.to_string(), &RunOptions::default())
    else {
        panic!("accepted a zero interval")
    };
    assert_eq!(error.key, "flows[0].app.interval_ns");
}

#[test]
fn ping_flows_are_left_out_of_the_aggregate_goodput_and_fairness() {
    let mut scenario = two_links(20, 1, 56);
    let tcp = json!({"name": "bulk", "src": 0, "dst": 2, "app": {"kind": "tcp_bulk"}});
    scenario["flows"].as_array_mut().unwrap().push(tcp);
    let summary = run(&scenario).summary;
    let bulk = &summary.flows[1];
    assert!(bulk.goodput_bps > 5e6, "{bulk:?}");
    assert_eq!(summary.aggregate_goodput_bps, bulk.goodput_bps);
    assert_eq!(summary.jain_fairness, 1.0);
}

/// A mesh chain: m0 -> m1 -> ... -> m{hops}, each hop an 802.11g BSS on its own channel
/// (the next node its AP), with static shortest-path routing.
fn mesh_chain(hops: usize, app: Value) -> Value {
    let nodes: Vec<String> = (0..=hops).map(|i| format!("m{i}")).collect();
    let phy =
        json!({"standard": "802.11g", "rate_bps": 54_000_000u64, "basic_rate_bps": 6_000_000u64});
    let wlans: Vec<Value> = (0..hops)
        .map(|i| json!({"ap": i + 1, "stations": [i], "phy": phy}))
        .collect();
    json!({
        "name": "mesh", "seed": 3, "duration_ns": 20 * S, "measure_from_ns": 2 * S,
        "nodes": nodes, "wlans": wlans,
        "flows": [{"name": "f", "src": 0, "dst": hops, "app": app}],
    })
}

#[test]
fn a_mesh_chain_carries_pings_and_tcp_hop_by_hop() {
    let ping = json!({"kind": "ping", "count": 10, "interval_ns": 100 * MS, "payload_bytes": 56,
                      "train": 1});
    let rtt = |hops| {
        let p = probes(&mesh_chain(hops, ping.clone()));
        let (sent, back) = (
            p["sent_ns"].as_array().unwrap(),
            p["returned_ns"].as_array().unwrap(),
        );
        let rtts: Vec<u64> = sent
            .iter()
            .zip(back)
            .map(|(s, r)| r.as_u64().expect("answered") - s.as_u64().unwrap())
            .collect();
        *rtts.iter().min().unwrap()
    };
    // Each hop adds a frame exchange each way (DIFS, backoff, data, SIFS, ACK: ~0.1-0.2 ms).
    let (one, three) = (rtt(1), rtt(3));
    assert!((50_000..1_000_000).contains(&one), "{one} ns");
    assert!(
        three > 2 * one && three < 4 * one,
        "one hop {one} ns, three {three} ns"
    );

    let tcp = json!({"kind": "tcp_bulk", "bytes": 2_000_000,
                     "tcp": {"send_buffer": 1 << 20, "receive_buffer": 1 << 20}});
    let summary = run(&mesh_chain(4, tcp)).summary;
    let flow = &summary.flows[0];
    assert_eq!(
        (flow.bytes_delivered, flow.completed),
        (2_000_000, Some(true))
    );
    // Every hop's BSS carried the data.
    assert!(
        summary.wlans.iter().all(|w| w.counters.successes > 1000),
        "{:?}",
        summary.wlans
    );
}
