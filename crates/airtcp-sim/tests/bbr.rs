//! BBR (`airtcp_proto::tcp::cc::Bbr`) through the simulator: on a 10 Mbit/s, 40 ms path with
//! Linux's 1000-packet buffer it fills the link with a queue of about a BDP where CUBIC fills
//! the buffer; under 1 % random loss it keeps most of the link where CUBIC collapses; its
//! pacing spreads a window over the round trip.

mod common;

use common::{run, MS, S};
use serde_json::{json, Value};

const RATE_BPS: u64 = 10_000_000;

/// One bulk flow from `a` to `b` with `congestion_control` (the linux profile) through a
/// 10 Mbit/s, 20 ms bottleneck losing `loss` of its packets, and a ping every 100 ms.
fn path(congestion_control: &str, loss: f64) -> Value {
    let forward = json!({"rate_bps": RATE_BPS, "delay_ns": 20 * MS,
                         "queue": {"packets": 1000}, "errors": {"loss": loss}});
    let back = json!({"rate_bps": RATE_BPS, "delay_ns": 20 * MS});
    json!({
        "name": "bbr", "seed": 1, "duration_ns": 30 * S, "measure_from_ns": 10 * S,
        "sample_interval_ns": 100 * MS,
        "nodes": ["a", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": forward, "b_to_a": back}],
        "flows": [{"name": "bulk", "src": 0, "dst": 1,
                   "app": {"kind": "tcp_bulk", "congestion_control": congestion_control,
                           "tcp": {"profile": "linux"}}},
                  {"name": "ping", "src": 0, "dst": 1, "start_ns": 10 * S,
                   "app": {"kind": "ping", "count": 200, "interval_ns": 100 * MS,
                           "payload_bytes": 56, "train": 1}}],
    })
}

struct Measured {
    goodput_bps: f64,
    ping_median_ms: f64,
    drops: u64,
    /// The largest bottleneck queue sampled after 10 s, packets.
    max_queue: u32,
    retransmissions: u64,
}

fn measure(scenario: &Value) -> Measured {
    let result = run(scenario);
    let summary = &result.summary;
    let mut rtts = common::ping_rtts_ms(summary, 1);
    rtts.sort_by(f64::total_cmp);
    let queues = &result.series.queues;
    let max_queue = (0..queues.time_s.len())
        .filter(|&i| queues.direction[i] == 0 && queues.time_s[i] >= 10.0)
        .map(|i| queues.packets[i])
        .max()
        .expect("queue samples");
    Measured {
        goodput_bps: summary.flows[0].goodput_bps,
        ping_median_ms: rtts[rtts.len() / 2],
        drops: summary.links[0].queue_drops,
        max_queue,
        retransmissions: summary.flows[0].retransmissions,
    }
}

#[test]
fn bbr_fills_the_link_with_a_short_queue_where_cubic_fills_the_buffer() {
    let bbr = measure(&path("bbr", 0.0));
    let cubic = measure(&path("cubic", 0.0));
    // The link carries 10 Mbit/s of IP packets: about 9.5 of TCP payload.
    assert!(
        bbr.goodput_bps > 9.0e6,
        "bbr {:.2} Mbit/s",
        bbr.goodput_bps / 1e6
    );
    assert!(cubic.goodput_bps > 9.0e6);
    // A BDP is 10 Mbit/s · 40 ms = 34 packets of 1500 bytes; BBR paces at its bandwidth
    // estimate (1.25 of it one phase in eight) under a cwnd of two BDPs: the queue stays
    // below a BDP (measured: 15 packets at most, ping 47.5 ms against 40); CUBIC fills the
    // buffer's 1000 packets (1.07 s).
    assert!(bbr.max_queue < 34, "bbr queue {}", bbr.max_queue);
    assert!(
        bbr.ping_median_ms < 60.0,
        "bbr ping {} ms",
        bbr.ping_median_ms
    );
    assert_eq!(bbr.drops, 0);
    assert!(cubic.max_queue > 500, "cubic queue {}", cubic.max_queue);
    assert!(cubic.ping_median_ms > 500.0);
}

#[test]
fn bbr_keeps_most_of_the_link_under_random_loss() {
    let bbr = measure(&path("bbr", 0.01));
    let cubic = measure(&path("cubic", 0.01));
    // 1 % loss: CUBIC's window, cut by 0.7 at every loss, stays small (measured 4.0
    // Mbit/s); BBR's model ignores random loss (its policer test wants 20 % loss at a
    // consistent rate): measured 9.3.
    assert!(
        bbr.goodput_bps > 8.0e6,
        "bbr {:.2} Mbit/s",
        bbr.goodput_bps / 1e6
    );
    assert!(bbr.retransmissions > 100, "the losses are repaired");
    assert!(
        bbr.goodput_bps > 2.0 * cubic.goodput_bps,
        "bbr {:.2}, cubic {:.2} Mbit/s",
        bbr.goodput_bps / 1e6,
        cubic.goodput_bps / 1e6
    );
}

#[test]
fn bbr_needs_rack_tlp_and_sack() {
    let mut scenario = path("bbr", 0.0);
    scenario["flows"][0]["app"]["tcp"]["loss_recovery"] = json!("rfc6675");
    let error = airtcp_sim::run_json(&scenario.to_string(), &Default::default())
        .err()
        .expect("refused");
    assert!(error.to_string().contains("rack_tlp"), "{error}");
}
