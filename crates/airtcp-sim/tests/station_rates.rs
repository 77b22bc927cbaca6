//! Stations at rates of their own in a WLAN without geometry (`Bss::use_station_phys`):
//! a slow station's frames take its own airtime, computed by hand; the 802.11 performance
//! anomaly (a slow station takes most of the airtime under a FIFO) and its removal by
//! mac80211's airtime fairness (Høiland-Jørgensen et al., USENIX ATC 2017).

mod common;

use airtcp_proto::wifi::mcs::{Band, Format, McsPhy};
use airtcp_proto::wifi::Phy;
use common::{run, MS, S};
use serde_json::{json, Value};

/// 802.11n at 20 MHz, MCS 15 (two streams, 130 Mbit/s), three stations, `slow` of them at
/// MCS 0 (one stream, 6.5 Mbit/s); UDP from a server behind the AP to each station at
/// `rate_bps`, 1472-byte payloads; `wlan` adds to the WLAN.
fn anomaly(slow: &[usize], rate_bps: u64, wlan: Value) -> Value {
    let wired = json!({"rate_bps": 1_000_000_000u64, "delay_ns": MS, "queue": {"packets": 1000}});
    let mut scenario = json!({
        "name": "anomaly", "seed": 1, "duration_ns": 6 * S, "measure_from_ns": 2 * S,
        "nodes": ["ap", "server", "sta1", "sta2", "sta3"],
        "links": [{"a": 0, "b": 1, "a_to_b": wired, "b_to_a": wired}],
        "wlans": [{"ap": 0, "stations": [2, 3, 4], "queue_packets": 1000,
                   "phy": {"standard": "802.11n", "mcs": 15},
                   "station_mcs": slow.iter().map(|&s| json!({"station": s, "mcs": 0}))
                       .collect::<Vec<_>>()}],
        "flows": (2..5).map(|s| json!({"name": format!("down{}", s - 1), "src": 1, "dst": s,
            "app": {"kind": "udp_cbr", "rate_bps": rate_bps, "payload_bytes": 1472}}))
            .collect::<Vec<_>>(),
    });
    common::extend_wlan(&mut scenario, &wlan);
    scenario
}

/// Each station's share of the airtime of the AP's data PPDUs.
fn downlink_shares(summary: &airtcp_sim::summary::Summary) -> Vec<f64> {
    let airtime = &summary.wlans[0].counters.station_downlink_airtime_ns;
    let total: u64 = airtime.iter().sum();
    airtime.iter().map(|&a| a as f64 / total as f64).collect()
}

#[test]
fn a_slow_stations_frames_take_its_own_airtime() {
    // The only station at MCS 0 (one stream, 6.5 Mbit/s) of a WLAN whose PHY is at MCS 15,
    // single MPDUs: an exchange is its data frame at MCS 0, SIFS, an ACK at 6 Mbit/s (MCS
    // 0's non-HT reference rate), AC_BE's AIFS (43 µs), the mean backoff (7.5 slots of 9 µs)
    // and two 1 µs propagation delays.
    let mut scenario = anomaly(&[2], 20_000_000, json!({"ampdu": false}));
    scenario["wlans"][0]["stations"] = json!([2]);
    scenario["flows"] = json!([scenario["flows"][0]]);
    let summary = run(&scenario).summary;
    let slow = Phy::mcs(
        McsPhy::new(Format::Ht, 20, 1, 800, Band::Ghz5).unwrap(),
        0,
        None,
    )
    .unwrap();
    assert_eq!(slow.basic_rate_bps, 6_000_000);
    let msdu = 8 + 20 + 8 + 1472;
    let exchange_ns =
        slow.data_airtime_ns(msdu) + 16_000 + slow.ack_airtime_ns() + 43_000 + 67_500 + 2_000;
    let expected = 1472.0 * 8.0 / (exchange_ns as f64 * 1e-9);
    let goodput = summary.aggregate_goodput_bps;
    assert!(
        (goodput / expected - 1.0).abs() < 0.005,
        "{goodput} vs {expected}"
    );
}

#[test]
fn a_slow_station_takes_the_airtime_of_a_fifo_and_airtime_fairness_returns_it() {
    // The performance anomaly: with one DropTail queue the AP serves the three stations'
    // frames in arrival order, so the slow one (20 times slower) takes most of the airtime
    // and every station gets little. mac80211's airtime-fair queues give each a third of the
    // airtime, and the fast stations most of the throughput.
    let fifo = run(&anomaly(&[2], 100_000_000, json!({}))).summary;
    let fair = run(&anomaly(
        &[2],
        100_000_000,
        json!({"queueing": "fq_codel_airtime"}),
    ))
    .summary;
    let (fifo_shares, fair_shares) = (downlink_shares(&fifo), downlink_shares(&fair));
    assert!(fifo_shares[0] > 0.8, "{fifo_shares:?}");
    for share in &fair_shares {
        assert!((share - 1.0 / 3.0).abs() < 0.02, "{fair_shares:?}");
    }
    let goodput = |summary: &airtcp_sim::summary::Summary, i: usize| summary.flows[i].goodput_bps;
    for fast in [1, 2] {
        assert!(goodput(&fair, fast) > 5.0 * goodput(&fifo, fast), "{fast}");
        assert!(goodput(&fair, fast) > 10.0 * goodput(&fair, 0), "{fast}");
    }
}
