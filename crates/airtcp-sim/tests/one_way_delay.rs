//! Per-flow one-way delay (`simulation.one_way_delay`, `airtcp_sim::one_way_delay`): on an
//! idle path a datagram's delay is the link's propagation and serialisation, computed by
//! hand, with no jitter; through a bottleneck the TCP flows' mean delay is the base plus the
//! mean queue the link's series shows; off, nothing is measured.

mod common;

use common::{run, MS, S};
use serde_json::{json, Value};

/// `a` sends `flows` to `b` over one 10 Mbit/s link of 5 ms with a `queue`-packet buffer.
fn path(flows: Value, queue: u32, one_way_delay: bool) -> Value {
    let forward = json!({"rate_bps": 10_000_000u64, "delay_ns": 5 * MS,
                         "queue": {"packets": queue}});
    json!({
        "name": "one-way", "seed": 1, "duration_ns": 20 * S, "measure_from_ns": 5 * S,
        "sample_interval_ns": 100 * MS, "one_way_delay": one_way_delay,
        "nodes": ["a", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": forward, "b_to_a": forward}],
        "flows": flows,
    })
}

#[test]
fn an_idle_path_delays_each_datagram_by_its_propagation_and_serialisation() {
    let udp = json!([{"name": "cbr", "src": 0, "dst": 1,
                      "app": {"kind": "udp_cbr", "rate_bps": 2_000_000, "payload_bytes": 1000}}]);
    let result = run(&path(udp, 100, true));
    let delay = result.summary.flows[0]
        .one_way_delay
        .clone()
        .expect("timed");
    // 5 ms, and 1028 bytes (UDP and IP headers) at 10 Mbit/s: 822.4 µs
    let expected_ms = 5.0 + 1028.0 * 8.0 / 10e6 * 1e3;
    assert!((delay.min_ms - expected_ms).abs() < 1e-9, "{delay:?}");
    assert!((delay.max_ms - expected_ms).abs() < 1e-9, "{delay:?}");
    assert!(delay.jitter_ms.abs() < 1e-12 && delay.reordered == 0);
    // every datagram delivered in the 15 s measured, at 2 Mbit/s of IP: 1028 bytes each
    let interval_ns = (8 * 1028 * 1_000_000_000u64).div_ceil(2_000_000);
    let expected = (15 * S) / interval_ns;
    assert!(
        delay.packets.abs_diff(expected) <= 1,
        "{} vs {expected}",
        delay.packets
    );
    // the series: one row per sample, each interval's datagrams at that delay
    let delays = &result.series.delays;
    assert_eq!(delays.len(), 200, "every 100 ms up to the end");
    assert!(delays.mean_ms[10..]
        .iter()
        .all(|m| (m - expected_ms).abs() < 1e-9));
}

#[test]
fn through_a_bottleneck_the_mean_delay_is_the_base_plus_the_mean_queue() {
    let tcp = |name: &str| {
        json!({"name": name, "src": 0, "dst": 1, "app": {"kind": "tcp_bulk",
               "tcp": {"send_buffer": 1_000_000, "receive_buffer": 1_000_000}}})
    };
    let result = run(&path(json!([tcp("bulk1"), tcp("bulk2")]), 200, true));
    let summary = &result.summary;
    // The queue the link's series shows in the measurement, as waiting time at 10 Mbit/s.
    let queues = &result.series.queues;
    let measured: Vec<f64> = (0..queues.len())
        .filter(|&i| queues.direction[i] == 0 && queues.time_s[i] >= 5.0)
        .map(|i| queues.bytes[i] as f64 * 8.0 / 10e6 * 1e3)
        .collect();
    let mean_queue_ms = measured.iter().sum::<f64>() / measured.len() as f64;
    for flow in &summary.flows {
        let delay = flow.one_way_delay.as_ref().expect("timed");
        // the base: 5 ms and a 1500-byte segment's 1.2 ms
        let base_ms = 5.0 + 1.2;
        assert!((delay.min_ms - base_ms).abs() < 0.1 || delay.min_ms > base_ms);
        let queued_ms = delay.mean_ms - base_ms;
        eprintln!(
            "{}: mean {:.2} ms, max {:.2}, jitter {:.3}; queue {mean_queue_ms:.2} ms",
            flow.name, delay.mean_ms, delay.max_ms, delay.jitter_ms
        );
        assert!(
            (queued_ms / mean_queue_ms - 1.0).abs() < 0.1,
            "{queued_ms} vs {mean_queue_ms}"
        );
        assert!(
            delay.max_ms <= base_ms + 200.0 * 1.2 + 1.0,
            "at most a full buffer"
        );
        // one path, in order: every segment delivered is timed, none taken for overtaken
        assert_eq!(delay.reordered, 0);
        assert!(delay.packets > 5_000, "{}", delay.packets);
    }
}

#[test]
fn off_nothing_is_timed() {
    let udp = json!([{"name": "cbr", "src": 0, "dst": 1,
                      "app": {"kind": "udp_cbr", "rate_bps": 2_000_000, "payload_bytes": 1000}}]);
    let result = run(&path(udp, 100, false));
    assert!(result.summary.flows[0].one_way_delay.is_none());
    assert!(result.series.delays.is_empty());
}
