//! Paper 000's access-planning agents beside Linux mac80211's intermediate queues
//! (`queueing = "fq_codel"` or `"fq_codel_airtime"`), on the central DCF and on a channel with
//! geometry: the TCP ACKs the agent classifies wait in its ACK queue below mac80211's queues
//! (in the driver) and go first, with backoff 0, while the AP's data still passes the
//! FQ-CoDel tins and the station scheduler.

mod common;

use airtcp_sim::summary::WlanSummary;
use common::{run, S};
use serde_json::{json, Value};

/// An 802.11b AP (11 Mbit/s) with four stations: `sta1` and `sta2` upload TCP to a server
/// behind the AP (1 Gbit/s, 2 ms), and the server sends 6 Mbit/s of UDP to each of `sta3`
/// (11 Mbit/s) and `sta4` (1 Mbit/s, `station_rates`), more than the WLAN can carry; `agent`
/// at the AP and `queueing` at every MAC. With `geometry` the AP at the origin and every
/// station 3 m away.
fn mixed(agent: &str, queueing: &str, geometry: bool) -> Value {
    let wired = json!({"rate_bps": 1_000_000_000u64, "delay_ns": 2_000_000u64});
    let udp = |dst: usize| {
        json!({"name": format!("down{dst}"), "src": 1, "dst": dst,
               "app": {"kind": "udp_cbr", "rate_bps": 6_000_000u64, "payload_bytes": 1472}})
    };
    let tcp = |src: usize| {
        json!({"name": format!("up{src}"), "src": src, "dst": 1,
               "app": {"kind": "tcp_bulk", "tcp": {"mss": 1448}}})
    };
    let mut scenario = json!({
        "name": "planner-beside-txqs", "seed": 1, "duration_ns": 12 * S, "measure_from_ns": 2 * S,
        "nodes": ["ap", "server", "sta1", "sta2", "sta3", "sta4"],
        "links": [{"a": 0, "b": 1, "a_to_b": wired, "b_to_a": wired}],
        "wlans": [{"ap": 0, "stations": [2, 3, 4, 5], "queueing": queueing,
                   "agent": {"kind": agent},
                   "phy": {"standard": "802.11b", "rate_bps": 11_000_000u64},
                   "station_rates": [{"station": 5, "rate_bps": 1_000_000u64}]}],
        "flows": [tcp(2), tcp(3), udp(4), udp(5)],
    });
    if geometry {
        let mut positions = vec![json!({"node": 0, "x": 0.0, "y": 0.0})];
        positions.extend((2..6).map(|n| json!({"node": n, "x": 3.0, "y": 0.0})));
        scenario["positions"] = json!(positions);
    }
    scenario
}

/// `sta4`'s share of the downlink airtime the AP spent on `sta3` and `sta4`.
fn slow_share(wlan: &WlanSummary) -> f64 {
    let airtime = &wlan.counters.station_downlink_airtime_ns;
    airtime[3] as f64 / (airtime[2] + airtime[3]) as f64
}

#[test]
fn acks_go_first_with_backoff_0_while_data_keeps_the_airtime_scheduler() {
    for geometry in [false, true] {
        let fair = run(&mixed("ack_priority", "fq_codel_airtime", geometry)).summary;
        let round_robin = run(&mixed("ack_priority", "fq_codel", geometry)).summary;
        let plain = run(&mixed("dcf", "fq_codel_airtime", geometry)).summary;
        let uploads = |s: &airtcp_sim::Summary| s.flows[0].goodput_bps + s.flows[1].goodput_bps;
        let (w, r) = (&fair.wlans[0], &round_robin.wlans[0]);
        eprintln!(
            "geometry {geometry}: slow station's share {:.3} (fq_codel_airtime), {:.3} \
             (fq_codel); ACK-headed accesses {} of {}; uploads {:.0} bit/s, {:.0} without \
             the agent",
            slow_share(w),
            slow_share(r),
            w.counters.ap_ack_headed_accesses,
            w.counters.ap_accesses,
            uploads(&fair),
            uploads(&plain),
        );
        // The ACKs have their queue: every ACK-headed access goes with backoff 0.
        let c = &w.counters;
        assert!(c.ap_ack_headed_accesses > 1000, "{geometry}: {c:?}");
        assert_eq!(c.ap_zero_backoff_accesses, c.ap_ack_headed_accesses);
        assert!(
            c.ap_accesses > c.ap_ack_headed_accesses,
            "data accesses too"
        );
        // The data passes the station scheduler: by airtime the 1 Mbit/s station gets half
        // of the downloads' airtime, round robin most of it (each frame 11 times as long).
        assert!(
            (slow_share(w) - 0.5).abs() < 0.05,
            "{geometry}: {}",
            slow_share(w)
        );
        assert!(slow_share(r) > 0.85, "{geometry}: {}", slow_share(r));
        // The ACKs' priority helps the uploads against the same queues without it.
        assert!(uploads(&fair) > 1.1 * uploads(&plain), "{geometry}");
        assert_eq!(plain.wlans[0].counters.ap_zero_backoff_accesses, 0);
    }
}
