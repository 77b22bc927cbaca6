//! Workloads (`AppConfig::TcpWorkload`, `airtcp_sim::workload`): many finite TCP flows over
//! one link, each its own connection; every byte arrives, every flow completes no sooner
//! than its ideal time, arrivals follow the offered load, and the run is deterministic.

mod common;

use common::{run, MS, S};
use serde_json::{json, Value};

/// A 100 Mbit/s, 5 ms link carrying a workload of `count` flows of `sizes` offered at
/// `rate_bps`, over `duration_s`.
fn workload(sizes: Value, rate_bps: u64, count: u64, duration_s: u64) -> Value {
    let direction = json!({"rate_bps": 100_000_000u64, "delay_ns": 5 * MS,
                           "queue": {"packets": 1000}});
    json!({
        "name": "workload", "seed": 1, "duration_ns": duration_s * S,
        "nodes": ["a", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": direction, "b_to_a": direction}],
        "flows": [{"name": "w", "src": 0, "dst": 1,
                   "app": {"kind": "tcp_workload", "sizes": sizes, "rate_bps": rate_bps,
                           "count": count, "tcp": {"profile": "linux"},
                           "congestion_control": "cubic"}}],
    })
}

#[test]
fn every_flow_of_a_workload_completes_with_every_byte_and_no_sooner_than_ideal() {
    // 300 flows of exactly 20 kB at 8 Mbit/s offered: 50 a second on average.
    let fixed = json!([[20_000.0, 0.0], [20_000.0, 1.0]]);
    let summary = run(&workload(fixed, 8_000_000, 300, 20)).summary;
    let flow = &summary.flows[0];
    let flows = flow.workload.as_ref().expect("the workload's flows");
    assert_eq!(flow.kind, "tcp_workload");
    assert_eq!(flows.size_bytes.len(), 300, "the count caps the arrivals");
    assert!(flows.size_bytes.iter().all(|&s| s == 20_000));
    assert_eq!(flows.refused, 0);
    assert_eq!(flow.bytes_delivered, 300 * 20_000, "every byte, once");
    // Poisson arrivals at 50 a second: the 300th near 6 s (two standard deviations:
    // sqrt(300)/50 = 0.35 s).
    let last = *flows.arrived_ns.last().unwrap() as f64 / 1e9;
    assert!((last - 6.0).abs() < 0.7, "{last} s");
    // Ideal: the handshake's round trip, then 20 kB in 14 segments of 1448 bytes: the
    // linux profile's 10-segment initial window and a second round trip, plus the
    // serialisation; no flow can do better than 2 RTTs = 20 ms.
    for (arrived, completed) in flows.arrived_ns.iter().zip(&flows.completed_ns) {
        let fct = completed.expect("completed") - arrived;
        assert!(fct >= 20 * MS, "{fct} ns");
    }
    let median = {
        let mut fcts: Vec<u64> = flows
            .arrived_ns
            .iter()
            .zip(&flows.completed_ns)
            .map(|(a, c)| c.unwrap() - a)
            .collect();
        fcts.sort_unstable();
        fcts[fcts.len() / 2]
    };
    // At 16 % load most flows find the link idle: 3 round trips (handshake, two windows)
    // and a little serialisation.
    assert!(median < 35 * MS, "{median} ns");
}

#[test]
fn a_workload_runs_the_same_twice_and_differs_with_the_seed() {
    let scenario = workload(json!("web_search"), 30_000_000, 40, 10);
    let first = run(&scenario).summary;
    let again = run(&scenario).summary;
    let times = |s: &airtcp_sim::summary::Summary| s.flows[0].workload.clone().unwrap();
    assert_eq!(times(&first).completed_ns, times(&again).completed_ns);
    assert_eq!(first.events, again.events);
    let mut other = scenario.clone();
    other["seed"] = json!(2);
    assert_ne!(
        times(&run(&other).summary).size_bytes,
        times(&first).size_bytes
    );
}
