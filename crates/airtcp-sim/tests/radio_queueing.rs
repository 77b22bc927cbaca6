//! mac80211's intermediate queues on a channel with geometry (`airtcp_sim::radio`, its
//! `queueing`): the AP's scheduler gives each station the same airtime with
//! `fq_codel_airtime` where a slow station takes most of it with a FIFO, and CoDel keeps the
//! queue of a saturating flow short.

mod common;

use common::S;
use serde_json::{json, Value};

/// An 802.11ac AP (80 MHz, MCS 9, EDCA's best effort) sending `rate_bps` of UDP to each of
/// three stations 5 m away, the third at MCS 1; `queueing` at every MAC.
fn downloads(queueing: &str, rate_bps: u64) -> Value {
    let stations = [1, 2, 3];
    let flows: Vec<Value> = stations
        .iter()
        .map(|&s| {
            json!({"name": format!("down{s}"), "src": 0, "dst": s,
                   "app": {"kind": "udp_cbr", "rate_bps": rate_bps, "payload_bytes": 1472}})
        })
        .collect();
    json!({
        "name": "radio-queueing", "seed": 1, "duration_ns": 6 * S, "measure_from_ns": 2 * S,
        "nodes": ["ap", "sta1", "sta2", "sta3"],
        "wlans": [{"ap": 0, "stations": stations, "queue_packets": 1000, "queueing": queueing,
                   "phy": {"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80},
                   "station_mcs": [{"station": 3, "mcs": 1}]}],
        "positions": [{"node": 0, "x": 0.0, "y": 0.0}, {"node": 1, "x": 5.0, "y": 0.0},
                      {"node": 2, "x": -5.0, "y": 0.0}, {"node": 3, "x": 0.0, "y": 5.0}],
        "flows": flows,
    })
}

/// The stations' shares of the AP's downlink airtime.
fn airtime_shares(summary: &airtcp_sim::Summary) -> Vec<f64> {
    let airtime = &summary.wlans[0].counters.station_downlink_airtime_ns;
    let total: u64 = airtime.iter().sum();
    airtime.iter().map(|&a| a as f64 / total as f64).collect()
}

#[test]
fn airtime_fairness_gives_the_slow_station_its_share_and_no_more() {
    let fifo = common::run(&downloads("fifo", 300_000_000)).summary;
    let fair = common::run(&downloads("fq_codel_airtime", 300_000_000)).summary;
    let rr = common::run(&downloads("fq_codel", 300_000_000)).summary;
    let (fifo_shares, fair_shares, rr_shares) = (
        airtime_shares(&fifo),
        airtime_shares(&fair),
        airtime_shares(&rr),
    );
    eprintln!("fifo {fifo_shares:?}\nairtime {fair_shares:?}\nround robin {rr_shares:?}");
    // a FIFO serves the stations' frames alike, round robin their A-MPDUs alike: the slow
    // one takes most of the airtime
    assert!(
        fifo_shares[2] > 0.7 && rr_shares[2] > 0.5,
        "{fifo_shares:?} {rr_shares:?}"
    );
    // the airtime scheduler gives each a third
    for share in &fair_shares {
        assert!((share - 1.0 / 3.0).abs() < 0.02, "{fair_shares:?}");
    }
    // and the fast stations get the throughput that frees
    let goodput = |s: &airtcp_sim::Summary, k: usize| s.flows[k].goodput_bps;
    assert!(
        goodput(&fair, 0) > 2.0 * goodput(&fifo, 0),
        "{} vs {}",
        goodput(&fair, 0),
        goodput(&fifo, 0)
    );
    assert!(fair.wlans[0].counters.codel_drops > 0);
}

#[test]
fn near_the_ap_the_queues_share_airtime_as_on_the_central_dcf() {
    // The same WLAN without positions is one collision domain on the central DCF, whose
    // queues are the same code: the shares agree.
    for queueing in ["fifo", "fq_codel", "fq_codel_airtime"] {
        let placed = airtime_shares(&common::run(&downloads(queueing, 300_000_000)).summary);
        let mut central = downloads(queueing, 300_000_000);
        central.as_object_mut().unwrap().remove("positions");
        let central = airtime_shares(&common::run(&central).summary);
        eprintln!("{queueing}: {placed:?} with geometry, {central:?} without");
        for (p, c) in placed.iter().zip(&central) {
            assert!(
                (p - c).abs() < 0.02,
                "{queueing}: {placed:?} vs {central:?}"
            );
        }
    }
}
