//! Sojourn times through a wired link's queue (`simulation.queue_sojourn`,
//! `airtcp_sim::sojourn`): by hand on a link that never queues and on one that stays full,
//! CoDel's standing queue near its target, and a metered DropTail that behaves exactly as
//! the plain one (the fast path) but for the measuring.

mod common;

use common::{run, wired_tcp, MS, S};
use serde_json::{json, Value};

/// 1028-byte datagrams (1000 of payload) at `rate_bps` over a 10 Mbit/s, 5 ms link with a
/// 100-packet DropTail queue, from 0 to 10 s, measured from 2 s, sampled every 100 ms.
fn cbr(rate_bps: u64) -> Value {
    let direction = json!({"rate_bps": 10_000_000u64, "delay_ns": 5 * MS,
                           "queue": {"packets": 100}});
    json!({
        "name": "cbr", "seed": 1, "duration_ns": 10 * S, "measure_from_ns": 2 * S,
        "sample_interval_ns": 100 * MS, "queue_sojourn": true,
        "nodes": ["a", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": direction, "b_to_a": direction}],
        "flows": [{"name": "cbr", "src": 0, "dst": 1,
                   "app": {"kind": "udp_cbr", "rate_bps": rate_bps, "payload_bytes": 1000}}],
    })
}

/// One 1028-byte packet's serialisation at 10 Mbit/s, in ms.
const SERVICE_MS: f64 = 1028.0 * 8.0 / 10e6 * 1e3;

#[test]
fn a_packet_that_finds_the_queue_empty_stays_no_time() {
    // 1 Mbit/s of 10: each datagram leaves before the next arrives.
    let result = run(&cbr(1_000_000));
    let sojourn = result.summary.links[0].sojourn.expect("metered");
    // One 1028-byte datagram every 8.224 ms (the rate counts IP bytes), sent from 0: those
    // of 2 to 10 s are the 244th to the 1215th, all dequeued on arrival.
    assert_eq!(sojourn.dequeued, 1215 - 244 + 1);
    assert_eq!((sojourn.mean_ms, sojourn.max_ms), (0.0, 0.0));
    let queues = &result.series.queues;
    assert_eq!(queues.dequeued.len(), queues.len(), "a column per sample");
    // Every interval of the forward direction: 100 ms / 8.224 ms, 12 or 13 datagrams.
    let forward: Vec<u64> = (0..queues.len())
        .filter(|&i| queues.direction[i] == 0)
        .map(|i| queues.dequeued[i])
        .collect();
    assert_eq!(forward.len(), 100);
    assert!(forward.iter().all(|&n| n == 12 || n == 13), "{forward:?}");
    // The reverse direction carries nothing: NaN times.
    let reverse = (0..queues.len())
        .find(|&i| queues.direction[i] == 1)
        .unwrap();
    assert_eq!(queues.dequeued[reverse], 0);
    assert!(queues.sojourn_mean_ms[reverse].is_nan());
    assert!(result.summary.links[1].sojourn.unwrap().mean_ms.is_nan());
}

#[test]
fn a_full_queue_holds_each_packet_a_hundred_services() {
    // Twice the link's rate: the 100-packet queue stays full; a packet that takes the place
    // a departure freed leaves after the 100 packets ahead of it, less the time since that
    // departure (arrivals come twice per service: under half a service).
    let result = run(&cbr(20_000_000));
    let sojourn = result.summary.links[0].sojourn.expect("metered");
    let full = 100.0 * SERVICE_MS;
    assert!(
        sojourn.mean_ms <= full && sojourn.mean_ms > full - SERVICE_MS / 2.0,
        "{sojourn:?} against {full} ms"
    );
    assert!(sojourn.max_ms <= full + 1e-9);
    // The link never idles: one departure per service over the 8 s window.
    let services = (8000.0 / SERVICE_MS) as u64;
    assert!(sojourn.dequeued.abs_diff(services) <= 1, "{sojourn:?}");
    assert!(result.summary.links[0].queue_drops > 0);
}

#[test]
fn codel_holds_the_standing_sojourn_near_its_target() {
    // Two bulk flows into a 1000-packet buffer at 10 Mbit/s, 20 ms: DropTail's sojourns run
    // to hundreds of ms; CoDel's stay near its 5 ms target (RFC 8289 §2: what it controls).
    let mut scenario = wired_tcp(10_000_000, 20, 1000, 0.0, None, 1, 30);
    scenario["queue_sojourn"] = json!(true);
    scenario["measure_from_ns"] = json!(10 * S);
    let flow = scenario["flows"][0].clone();
    scenario["flows"] = json!([flow, flow]);
    let droptail = run(&scenario).summary.links[0].sojourn.unwrap();
    let mut with = |aqm: &str| {
        scenario["links"][0]["a_to_b"]["aqm"] = json!({"kind": aqm});
        run(&scenario).summary.links[0].sojourn.unwrap()
    };
    let (codel, fq_codel, pie) = (with("codel"), with("fq_codel"), with("pie"));
    eprintln!("droptail {droptail:?}, codel {codel:?}, fq_codel {fq_codel:?}, pie {pie:?}");
    assert!(droptail.mean_ms > 100.0, "{droptail:?}");
    assert!(codel.mean_ms > 2.5 && codel.mean_ms < 10.0, "{codel:?}");
    // FQ-CoDel's packets carry their arrival in the flows' queues; PIE's target is 15 ms.
    assert!(
        fq_codel.mean_ms > 2.5 && fq_codel.mean_ms < 10.0,
        "{fq_codel:?}"
    );
    assert!(pie.mean_ms > 7.5 && pie.mean_ms < 30.0, "{pie:?}");
    let dequeued = [droptail, codel, fq_codel, pie].map(|s| s.dequeued);
    // Most of the 16 666 1500-byte packets 20 s of the link can send.
    assert!(dequeued.iter().all(|&n| n > 14_000), "{dequeued:?}");
}

#[test]
fn a_metered_droptail_behaves_as_the_plain_one() {
    // The metered queue keeps arrival times and no longer lets packets skip an idle link's
    // empty queue: neither may change what happens.
    let mut scenario = wired_tcp(10_000_000, 20, 50, 0.01, None, 3, 20);
    let plain = run(&scenario);
    scenario["queue_sojourn"] = json!(true);
    let metered = run(&scenario);
    let (a, b) = (&plain.summary, &metered.summary);
    assert_eq!(a.events, b.events);
    assert_eq!(a.flows[0].bytes_delivered, b.flows[0].bytes_delivered);
    assert_eq!(a.flows[0].retransmissions, b.flows[0].retransmissions);
    for (x, y) in a.links.iter().zip(&b.links) {
        assert_eq!(
            (x.delivered, x.queue_drops, x.lost),
            (y.delivered, y.queue_drops, y.lost)
        );
        assert!(x.sojourn.is_none() && y.sojourn.is_some());
    }
    assert_eq!(plain.series.queues.packets, metered.series.queues.packets);
    assert!(plain.series.queues.dequeued.is_empty());
}
