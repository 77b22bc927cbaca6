//! A qdisc above each MAC's driver (`aqm` in a WLAN, `wlan::dcf::txq::qdisc`): bulk TCP
//! downloads through an 802.11g AP with a 1000-frame buffer and a ping beside them. The FIFO
//! fills the buffer; CoDel above ath9k's shallow queue keeps the ping's RTT near its 5 ms
//! target, FQ-CoDel isolates it; above a deep firmware queue CoDel sees short queues and does
//! little (why mac80211 got AQL). The same on a channel with geometry, and every datagram
//! accounted for under each AQM.

mod common;

use common::{datagram_accounts, run, two_way_udp, MS, S};
use serde_json::{json, Value};

/// A server 2 ms behind an 802.11g AP (54 Mbit/s) sends two bulk TCP flows to its station
/// and pings it every 100 ms; the WLAN's queue (the qdisc's limit, or the FIFO's) is 1000
/// frames; `wlan` adds to the WLAN's settings.
fn downloads(wlan: Value) -> Value {
    let wired = json!({"rate_bps": 1_000_000_000u64, "delay_ns": 2 * MS});
    let tcp = |name: &str| {
        json!({"name": name, "src": 2, "dst": 1, "app": {"kind": "tcp_bulk",
               "tcp": {"send_buffer": 4_000_000, "receive_buffer": 4_000_000, "ecn": "on"}}})
    };
    let mut settings = json!({"ap": 0, "stations": [1], "queue_packets": 1000,
        "phy": {"standard": "802.11g", "rate_bps": 54_000_000, "basic_rate_bps": 6_000_000}});
    for (key, value) in wlan.as_object().expect("settings") {
        settings[key] = value.clone();
    }
    json!({
        "name": "wlan-qdisc", "seed": 1, "duration_ns": 20 * S, "measure_from_ns": 8 * S,
        "nodes": ["ap", "sta", "server"],
        "links": [{"a": 2, "b": 0, "a_to_b": wired, "b_to_a": wired}],
        "wlans": [settings],
        "flows": [tcp("bulk1"), tcp("bulk2"),
                  {"name": "ping", "src": 2, "dst": 1, "start_ns": 8 * S,
                   "app": {"kind": "ping", "count": 110, "interval_ns": 100 * MS,
                           "payload_bytes": 56, "train": 1}}],
    })
}

/// The ping's median RTT (ms), the downloads' goodput (Mbit/s), and the WLAN's counters.
fn measured(scenario: &Value) -> (f64, f64, airtcp_sim::wlan::MacCounters) {
    let summary = run(scenario).summary;
    let mut rtts = common::ping_rtts_ms(&summary, 2);
    assert!(rtts.len() > 90, "most pings came back: {}", rtts.len());
    rtts.sort_by(f64::total_cmp);
    let goodput = (summary.flows[0].goodput_bps + summary.flows[1].goodput_bps) / 1e6;
    (
        rtts[rtts.len() / 2],
        goodput,
        summary.wlans[0].counters.clone(),
    )
}

#[test]
fn codel_above_the_driver_keeps_the_ping_near_target_and_fq_codel_isolates_it() {
    let (fifo, fifo_goodput, fifo_counters) = measured(&downloads(json!({})));
    let (codel, codel_goodput, codel_counters) =
        measured(&downloads(json!({"aqm": {"kind": "codel"}})));
    let (fq, fq_goodput, _) = measured(&downloads(json!({"aqm": {"kind": "fq_codel"}})));
    let (pie, pie_goodput, pie_counters) = measured(&downloads(json!({"aqm": {"kind": "pie"}})));
    eprintln!(
        "median ping RTT: fifo {fifo:.1} ms, codel {codel:.1}, fq_codel {fq:.1}, pie {pie:.1}; \
         goodput {fifo_goodput:.2} / {codel_goodput:.2} / {fq_goodput:.2} / {pie_goodput:.2} \
         Mbit/s; codel drops {} marks {}; pie drops {}",
        codel_counters.aqm_drops, codel_counters.ecn_marks, pie_counters.aqm_drops
    );
    // The FIFO holds what two windows put in it: many times the qdiscs' queues.
    assert!(
        fifo > 4.0 * codel && fifo > 80.0,
        "fifo {fifo}, codel {codel}"
    );
    assert_eq!((fifo_counters.aqm_drops, fifo_counters.ecn_marks), (0, 0));
    // CoDel keeps the sojourn near 5 ms; the RTT adds the base (~5 ms), ath9k's two
    // frames' worth and the ping's own wait behind them.
    assert!(codel < 40.0, "codel {codel}");
    // ECN-capable flows: CoDel marks (sch_codel's ecn is off by default: it drops)
    assert!(codel_counters.aqm_drops > 0, "{codel_counters:?}");
    // fq_codel (ecn on by default) marks rather than drops, and the ping's flow is sparse
    assert!(fq < codel, "fq_codel {fq} vs codel {codel}");
    assert!(pie < 60.0, "pie {pie}");
    // all keep the medium busy
    for goodput in [codel_goodput, fq_goodput, pie_goodput] {
        assert!(goodput > 0.9 * fifo_goodput, "{goodput} vs {fifo_goodput}");
    }
}

#[test]
fn fq_codel_above_the_driver_marks_ecn_capable_flows() {
    let (_, _, counters) = measured(&downloads(json!({"aqm": {"kind": "fq_codel"}})));
    assert!(counters.ecn_marks > 0, "{counters:?}");
    assert_eq!(
        counters.aqm_drops, 0,
        "ECN-capable TCP is marked, not dropped"
    );
}

#[test]
fn a_deep_firmware_queue_below_the_qdisc_takes_the_standing_queue() {
    let (ath9k, _, shallow) = measured(&downloads(json!({"aqm": {"kind": "codel"}})));
    let (firmware, _, deep) = measured(&downloads(json!({"aqm": {"kind": "codel"},
        "driver_queue": "firmware", "firmware_queue_frames": 500})));
    eprintln!(
        "codel above ath9k {ath9k:.1} ms ({} drops), above 500 frames of firmware {firmware:.1} \
         ms ({} drops)",
        shallow.aqm_drops, deep.aqm_drops
    );
    assert!(firmware > 3.0 * ath9k, "{firmware} vs {ath9k}");
    // CoDel sees a standing queue only while the firmware's is full
    assert!(
        5 * deep.aqm_drops < shallow.aqm_drops,
        "{} vs {}",
        deep.aqm_drops,
        shallow.aqm_drops
    );
}

#[test]
fn on_a_channel_with_geometry_the_qdisc_does_as_on_the_central_dcf() {
    let mut placed = downloads(json!({"aqm": {"kind": "codel"}}));
    placed["positions"] = json!([{"node": 0, "x": 0.0, "y": 0.0},
                                 {"node": 1, "x": 5.0, "y": 0.0}]);
    let (geometry, goodput, counters) = measured(&placed);
    let (central, central_goodput, _) = measured(&downloads(json!({"aqm": {"kind": "codel"}})));
    eprintln!("codel: {geometry:.1} ms with geometry, {central:.1} ms without");
    assert!(counters.aqm_drops > 0, "{counters:?}");
    assert!((geometry - central).abs() < 5.0, "{geometry} vs {central}");
    assert!((goodput / central_goodput - 1.0).abs() < 0.05);
}

#[test]
fn every_datagram_is_delivered_or_counted_dropped_under_each_qdisc() {
    for aqm in ["codel", "fq_codel", "pie", "red"] {
        for ampdu in [false, true] {
            let mut scenario = two_way_udp(3, &[0, 46], ampdu, "fifo", None, 0.1, true, 3);
            scenario["wlans"][0]["aqm"] = json!({"kind": aqm});
            // four times the 802.11n MCS 7 channel's worth: the qdiscs must drop
            for flow in scenario["flows"].as_array_mut().unwrap() {
                flow["app"]["rate_bps"] = json!(40_000_000);
            }
            let summary = run(&scenario).summary;
            let (sent, delivered, dropped, msdus) = datagram_accounts(&summary);
            let c = &summary.wlans[0].counters;
            assert!(c.aqm_drops + c.queue_drops > 0, "{aqm}: {c:?}");
            assert_eq!(sent, delivered + dropped, "{aqm}, ampdu {ampdu}: {c:?}");
            assert_eq!(delivered, msdus, "{aqm}, ampdu {ampdu}");
        }
    }
}
