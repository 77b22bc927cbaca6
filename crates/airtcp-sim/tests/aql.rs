//! Airtime queue limits (`driver_queue = "firmware_aql"`): an AP whose driver hands frames
//! to a deep firmware queue keeps the latency of a ping beside a saturating download only
//! with AQL, as Linux's AQL was written to (module docs of `airtcp_proto::aqm::aql` and
//! `wlan::dcf::txq::firmware`); ath9k's shallow hardware queue needs none.

mod common;

use common::{MS, S};
use serde_json::{json, Value};

/// An 802.11ac AP (80 MHz, MCS 9, one stream) sending 600 Mbit/s of UDP to a station, more
/// than the link carries, and pinging it every 100 ms; mac80211's FQ-CoDel above
/// `driver_queue`, and `extra` WLAN settings.
fn saturated(driver_queue: &str, extra: Value) -> Value {
    let mut wlan = json!({"ap": 0, "stations": [1], "queue_packets": 1000,
                          "queueing": "fq_codel", "driver_queue": driver_queue,
                          "phy": {"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80}});
    for (key, value) in extra.as_object().unwrap() {
        wlan[key] = value.clone();
    }
    json!({
        "name": "aql", "seed": 1, "duration_ns": 6 * S, "measure_from_ns": S,
        "nodes": ["ap", "sta"],
        "wlans": [wlan],
        "flows": [
            {"name": "down", "src": 0, "dst": 1,
             "app": {"kind": "udp_cbr", "rate_bps": 600_000_000u64, "payload_bytes": 1472}},
            {"name": "ping", "src": 0, "dst": 1, "start_ns": S,
             "app": {"kind": "ping", "count": 45, "interval_ns": 100 * MS, "payload_bytes": 56, "train": 1}},
        ],
    })
}

/// The median round trip of the pings, in ms, and the download's goodput in Mbit/s.
fn median_rtt_ms_and_goodput(scenario: &Value) -> (f64, f64) {
    let summary = common::run(scenario).summary;
    let probes = summary.flows[1].probes.as_ref().expect("a ping flow");
    let mut rtts: Vec<f64> = probes
        .sent_ns
        .iter()
        .zip(&probes.returned_ns)
        .map(|(sent, back)| (back.expect("answered") - sent) as f64 / 1e6)
        .collect();
    rtts.sort_by(f64::total_cmp);
    (rtts[rtts.len() / 2], summary.flows[0].goodput_bps / 1e6)
}

#[test]
fn aql_bounds_the_latency_a_firmware_queue_adds() {
    let (ath9k, ath9k_goodput) = median_rtt_ms_and_goodput(&saturated("ath9k", json!({})));
    let (firmware, firmware_goodput) = median_rtt_ms_and_goodput(&saturated("firmware", json!({})));
    let (aql, aql_goodput) = median_rtt_ms_and_goodput(&saturated("firmware_aql", json!({})));
    eprintln!(
        "median RTT ms: ath9k {ath9k:.2}, firmware {firmware:.2}, firmware_aql {aql:.2}; \
         goodput {ath9k_goodput:.1} {firmware_goodput:.1} {aql_goodput:.1}"
    );
    // The ping goes first out of mac80211's queues (a sparse flow) and then waits behind
    // what the driver holds. ath9k: up to two A-MPDUs of 64 MPDUs, 2.2 ms each.
    assert!(ath9k < 6.0, "{ath9k}");
    // A firmware queue without AQL fills (1424 frames, 22 A-MPDUs: 49 ms)
    assert!((45.0..60.0).contains(&firmware), "{firmware}");
    // With AQL the station's frames there stay near 12 ms of estimated airtime (its high
    // limit: the interface is under 24 ms); the estimate leaves out the contention and the
    // Block Ack, 13 % of an A-MPDU's exchange here
    assert!((12.0..16.0).contains(&aql), "{aql}");
    // The link stays as busy
    for goodput in [firmware_goodput, aql_goodput] {
        assert!((goodput / ath9k_goodput - 1.0).abs() < 0.01, "{goodput}");
    }
}

#[test]
fn aql_limits_are_settings() {
    // half the limits: half the latency
    let halved = json!({"aql_limit_low_ns": 2_500_000, "aql_limit_high_ns": 6_000_000,
                        "aql_threshold_ns": 12_000_000});
    let (aql, _) = median_rtt_ms_and_goodput(&saturated("firmware_aql", halved));
    assert!((6.0..8.5).contains(&aql), "{aql}");
    // a shallow firmware bounds it too, by frames: 256, four A-MPDUs, beside the one on
    // the air when the ping reaches the firmware
    let (shallow, _) = median_rtt_ms_and_goodput(&saturated(
        "firmware",
        json!({"firmware_queue_frames": 256}),
    ));
    assert!((9.0..13.0).contains(&shallow), "{shallow}");
}

#[test]
fn aql_acts_alike_on_a_channel_with_geometry() {
    let mut central = saturated("firmware_aql", json!({}));
    let (on_central, _) = median_rtt_ms_and_goodput(&central);
    central["positions"] =
        json!([{"node": 0, "x": 0.0, "y": 0.0}, {"node": 1, "x": 5.0, "y": 0.0}]);
    let (on_geometry, _) = median_rtt_ms_and_goodput(&central);
    eprintln!("median RTT ms: central {on_central:.2}, geometry {on_geometry:.2}");
    assert!(
        (on_geometry / on_central - 1.0).abs() < 0.05,
        "{on_geometry} {on_central}"
    );
}
