//! AQM on a wired link (`airtcp_sim::aqm`): a 10 Mbit/s, 20 ms bottleneck with a 1000-packet
//! buffer, two bulk TCP flows and a ping through it. DropTail fills the buffer (bufferbloat);
//! CoDel keeps the standing queue near its 5 ms target, PIE near its 15 ms; FQ-CoDel also
//! isolates the ping from the bulk flows; all keep the link busy.

mod common;

use common::{run, MS, S};
use serde_json::{json, Value};

/// `a` sends two bulk TCP flows to `b` over the bottleneck and pings it every 100 ms;
/// `aqm` on the bottleneck's a-to-b queue (the ACKs' way back is uncongested).
fn bufferbloat(aqm: Value) -> Value {
    with_ecn(aqm, "off")
}

/// `bufferbloat` with both ends' TCP ECN setting `ecn` (RFC 3168; `on` asks and accepts).
fn with_ecn(aqm: Value, ecn: &str) -> Value {
    let forward = json!({"rate_bps": 10_000_000u64, "delay_ns": 20 * MS,
                         "queue": {"packets": 1000}, "aqm": aqm});
    let back = json!({"rate_bps": 10_000_000u64, "delay_ns": 20 * MS});
    let tcp = |name: &str| {
        json!({"name": name, "src": 0, "dst": 1, "app": {"kind": "tcp_bulk",
               "tcp": {"send_buffer": 4_000_000, "receive_buffer": 4_000_000,
                       "ecn": ecn}}})
    };
    json!({
        "name": "bufferbloat", "seed": 1, "duration_ns": 30 * S, "measure_from_ns": 10 * S,
        "nodes": ["a", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": forward, "b_to_a": back}],
        "flows": [tcp("bulk1"), tcp("bulk2"),
                  {"name": "ping", "src": 0, "dst": 1, "start_ns": 10 * S,
                   "app": {"kind": "ping", "count": 200, "interval_ns": 100 * MS,
                           "payload_bytes": 56, "train": 1}}],
    })
}

/// The ping's round-trip times in ms, and the bulk flows' goodput in bit/s.
fn measured(aqm: Value) -> (Vec<f64>, f64, airtcp_sim::summary::LinkSummary) {
    measured_scenario(&bufferbloat(aqm))
}

fn measured_scenario(scenario: &Value) -> (Vec<f64>, f64, airtcp_sim::summary::LinkSummary) {
    let summary = run(scenario).summary;
    let rtts = common::ping_rtts_ms(&summary, 2);
    let goodput = summary.flows[0].goodput_bps + summary.flows[1].goodput_bps;
    (rtts, goodput, summary.links[0].clone())
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

#[test]
fn codel_and_pie_keep_the_standing_queue_near_target_and_fq_codel_isolates_the_ping() {
    // The base RTT is 40 ms plus the 84-byte request's and reply's serialisation.
    let (fifo, fifo_goodput, fifo_link) = measured(json!({"kind": "none"}));
    let (codel, codel_goodput, codel_link) = measured(json!({"kind": "codel"}));
    let (fq, fq_goodput, fq_link) = measured(json!({"kind": "fq_codel"}));
    let (pie, pie_goodput, pie_link) = measured(json!({"kind": "pie"}));
    eprintln!(
        "median ping RTT: droptail {:.1} ms, codel {:.1} ms, fq_codel {:.1} ms, pie {:.1} ms; \
         goodput {:.2} / {:.2} / {:.2} / {:.2} Mbit/s; drops (tail, aqm): {:?} {:?} {:?} {:?}",
        median(&fifo),
        median(&codel),
        median(&fq),
        median(&pie),
        fifo_goodput / 1e6,
        codel_goodput / 1e6,
        fq_goodput / 1e6,
        pie_goodput / 1e6,
        (fifo_link.queue_drops, fifo_link.aqm_drops),
        (codel_link.queue_drops, codel_link.aqm_drops),
        (fq_link.queue_drops, fq_link.aqm_drops),
        (pie_link.queue_drops, pie_link.aqm_drops),
    );
    assert!(fifo.len() > 150 && codel.len() > 190 && fq.len() == 200 && pie.len() > 190);
    // DropTail: the windows fill much of the 1000-packet buffer (1.2 ms a packet), and
    // its tail drops take some pings
    assert!(median(&fifo) > 300.0, "{}", median(&fifo));
    assert_eq!(fifo_link.aqm_drops, 0);
    // CoDel: a standing queue of about its 5 ms target, above the 40 ms base
    assert!(
        median(&codel) > 41.0 && median(&codel) < 60.0,
        "{}",
        median(&codel)
    );
    assert!(codel_link.aqm_drops > 0 && codel_link.queue_drops == 0);
    // FQ-CoDel: the ping is a sparse flow and goes first, at the base RTT
    assert!(median(&fq) < 43.0, "{}", median(&fq));
    assert!(fq_link.aqm_drops > 0 && fq_link.queue_drops == 0);
    // PIE: a standing queue of about its 15 ms target (early drops on arrival)
    assert!(
        median(&pie) > 45.0 && median(&pie) < 75.0,
        "{}",
        median(&pie)
    );
    assert!(pie_link.aqm_drops > 0 && pie_link.queue_drops == 0);
    // and each keeps the link mostly busy (FQ-CoDel least: its two NewReno flows, alike
    // and each held near target on its own, halve together and leave it idle at times)
    for goodput in [fifo_goodput, codel_goodput, fq_goodput, pie_goodput] {
        assert!(goodput > 8.0e6, "{goodput}");
    }
}

#[test]
fn with_ecn_codel_and_fq_codel_mark_instead_of_dropping_and_no_segment_is_resent() {
    for aqm in [
        json!({"kind": "codel", "ecn": true}),
        json!({"kind": "fq_codel"}),
    ] {
        let scenario = with_ecn(aqm.clone(), "on");
        let summary = run(&scenario).summary;
        let link = &summary.links[0];
        let bulk = &summary.flows[..2];
        eprintln!(
            "{aqm}: {link:?}; retransmissions {} {}",
            bulk[0].retransmissions, bulk[1].retransmissions
        );
        // The bulk flows' segments are marked, never dropped: nothing is sent again; the
        // ping (not ECN-capable) may still be dropped.
        assert!(link.ecn_marks > 20, "{link:?}");
        assert_eq!(link.queue_drops, 0);
        assert!(link.aqm_drops <= 5, "{link:?}");
        assert_eq!(bulk[0].retransmissions + bulk[1].retransmissions, 0);
        let (rtts, goodput, _) = measured_scenario(&scenario);
        assert!(median(&rtts) < 50.0, "{}", median(&rtts));
        // (Two identical NewReno flows reduce together under FQ-CoDel: 8.4 Mbit/s.)
        assert!(goodput > 8.0e6, "{goodput}");
    }
    // Without ECN agreed (`accept` does not ask), fq_codel's marking has nothing to mark.
    let (_, _, link) = measured_scenario(&with_ecn(json!({"kind": "fq_codel"}), "accept"));
    assert_eq!(link.ecn_marks, 0);
    assert!(link.aqm_drops > 20, "{link:?}");
}

#[test]
fn the_queue_series_shows_droptail_s_standing_queue_and_codel_s_short_one() {
    // Sampled every 100 ms: the bottleneck's backlog over the last 20 s, DropTail's the
    // hundreds of packets behind its 374 ms median ping (1.2 ms a packet), CoDel's a few
    // (5 ms at 10 Mbit/s is about 4 packets of 1500 bytes); the way back holds no queue.
    let mean_backlog = |aqm: Value| {
        let mut scenario = bufferbloat(aqm);
        scenario["sample_interval_ns"] = json!(100 * MS);
        let result = run(&scenario);
        let queues = &result.series.queues;
        assert_eq!(queues.directions, ["a→b", "b→a"]);
        let late: Vec<u32> = (0..queues.len())
            .filter(|&i| queues.direction[i] == 0 && queues.time_s[i] > 10.0)
            .map(|i| queues.packets[i])
            .collect();
        let back = (0..queues.len())
            .filter(|&i| queues.direction[i] == 1)
            .map(|i| queues.packets[i])
            .max();
        assert_eq!(back, Some(0));
        // The drops so far never decrease and end at the summary's.
        let drops: Vec<u64> = (0..queues.len())
            .filter(|&i| queues.direction[i] == 0)
            .map(|i| queues.drops[i])
            .collect();
        assert!(drops.windows(2).all(|w| w[0] <= w[1]));
        let link = &result.summary.links[0];
        assert!(*drops.last().unwrap() <= link.queue_drops + link.aqm_drops);
        late.iter().map(|&p| f64::from(p)).sum::<f64>() / late.len() as f64
    };
    let droptail = mean_backlog(json!({"kind": "none"}));
    let codel = mean_backlog(json!({"kind": "codel"}));
    assert!(droptail > 200.0, "{droptail}");
    assert!(codel < 30.0, "{codel}");
}
