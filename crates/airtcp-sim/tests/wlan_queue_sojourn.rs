//! The MACs' queues in the queue series with `simulation.queue_sojourn` (`wlan::dcf::queue_meter`):
//! a frame that finds its MAC idle waits less than a slot; a station whose queue stays full
//! holds each frame as Little's law says; the AP's FIFO is where Wi-Fi's bufferbloat lives and
//! a qdisc's CoDel keeps it short, on the central DCF and on a channel with geometry; EDCA's
//! ACs each have their queue; and measuring changes nothing the run does.

mod common;

use airtcp_sim::RunResult;
use common::{extend_wlan, run, MS, S};
use serde_json::{json, Value};

/// A station 2 ms from a server behind an 802.11g AP (54 Mbit/s) sends it 1028-byte
/// datagrams at `rate_bps` from 0 to 10 s, measured from 2 s, sampled every 100 ms, with
/// `queue_sojourn`; `wlan` adds to the WLAN's settings.
fn upload(rate_bps: u64, wlan: Value) -> Value {
    let wired = json!({"rate_bps": 1_000_000_000u64, "delay_ns": 2 * MS});
    let settings = json!({"ap": 0, "stations": [1], "queue_packets": 100,
        "phy": {"standard": "802.11g", "rate_bps": 54_000_000, "basic_rate_bps": 6_000_000}});
    let mut scenario = json!({
        "name": "wlan-sojourn", "seed": 1, "duration_ns": 10 * S, "measure_from_ns": 2 * S,
        "sample_interval_ns": 100 * MS, "queue_sojourn": true,
        "nodes": ["ap", "sta", "server"],
        "links": [{"a": 2, "b": 0, "a_to_b": wired, "b_to_a": wired}],
        "wlans": [settings],
        "flows": [{"name": "cbr", "src": 1, "dst": 2,
                   "app": {"kind": "udp_cbr", "rate_bps": rate_bps, "payload_bytes": 1000}}],
    });
    extend_wlan(&mut scenario, &wlan);
    scenario
}

/// The series' rows of the queue named `name`: (packets, bytes, drops, dequeued, mean ms).
fn rows(result: &RunResult, name: &str) -> Vec<(u32, u64, u64, u64, f64)> {
    let queues = &result.series.queues;
    let direction = (queues.directions.iter().position(|d| d == name))
        .unwrap_or_else(|| panic!("{name} not in {:?}", queues.directions));
    (0..queues.len())
        .filter(|&i| queues.direction[i] as usize == direction)
        .map(|i| {
            let (packets, bytes, drops) = (queues.packets[i], queues.bytes[i], queues.drops[i]);
            (
                packets,
                bytes,
                drops,
                queues.dequeued[i],
                queues.sojourn_mean_ms[i],
            )
        })
        .collect()
}

#[test]
fn the_series_names_every_mac_queue_after_the_wired_ones() {
    let result = run(&upload(1_000_000, json!({})));
    let names = &result.series.queues.directions;
    assert_eq!(
        names,
        &[
            "server→ap",
            "ap→server",
            "ap→stations (WLAN)",
            "sta→ap (WLAN)"
        ]
    );
    // A row per queue per instant: 100 instants.
    assert_eq!(result.series.queues.len(), 4 * 100);
    let summary = &result.summary.wlans[0].queues;
    let named: Vec<(&str, &str)> = (summary.iter())
        .map(|q| (q.queue.as_str(), q.node.as_str()))
        .collect();
    assert_eq!(
        named,
        [("ap→stations (WLAN)", "ap"), ("sta→ap (WLAN)", "sta")]
    );
    assert!(summary.iter().all(|q| q.ac.is_none()));
}

#[test]
fn a_frame_that_finds_its_mac_idle_waits_under_a_slot() {
    // 1 Mbit/s on 54: each datagram finds the medium idle for far longer than DIFS and no
    // backoff pending, so it goes at the next slot boundary (IEEE 802.11-2020 §10.3.4.2):
    // its sojourn is under one 9 µs slot. One at each k · 8.224 ms (the rate counts IP
    // bytes): those of the window, 2 to 10 s, are k = 244 to 1215, all sent.
    let result = run(&upload(1_000_000, json!({})));
    let station = &result.summary.wlans[0].queues[1].sojourn;
    assert_eq!(station.dequeued, 1215 - 244 + 1);
    assert!(station.max_ms < 0.009, "{station:?}");
    let ap = &result.summary.wlans[0].queues[0].sojourn;
    assert_eq!(ap.dequeued, 0, "nothing goes down");
    assert!(ap.mean_ms.is_nan());
    // Every interval's 12 or 13 datagrams, and an empty queue at each instant but rarely.
    let station_rows = rows(&result, "sta→ap (WLAN)");
    let counted: Vec<u64> = station_rows.iter().skip(21).map(|r| r.3).collect();
    assert!(counted.iter().all(|&n| n == 12 || n == 13), "{counted:?}");
    assert!(station_rows.iter().all(|r| r.2 == 0), "no drop");
}

#[test]
fn a_full_station_queue_holds_each_frame_as_littles_law_says() {
    // 60 Mbit/s offered to a 54 Mbit/s PHY: the station's 100-frame FIFO stays full, drops
    // at its tail, and each frame waits for the 99 ahead of it to be served, then its own
    // access: between 99 and 100 mean service times (the departures' mean spacing), a frame's
    // own exchange after its first attempt being the rest of one.
    let result = run(&upload(60_000_000, json!({})));
    let sojourn = result.summary.wlans[0].queues[1].sojourn;
    let spacing_ms = 8000.0 / sojourn.dequeued as f64;
    let mean = sojourn.mean_ms;
    assert!(
        mean > 99.0 * spacing_ms && mean < 100.0 * spacing_ms,
        "{sojourn:?}, spacing {spacing_ms} ms"
    );
    let station_rows = rows(&result, "sta→ap (WLAN)");
    let measured = &station_rows[20..];
    assert!(measured.iter().all(|r| r.0 >= 99 && r.0 <= 100), "full");
    // 1028 IP bytes a frame; the tail drops count up.
    assert!(measured.iter().all(|r| r.1 == 1028 * u64::from(r.0)));
    assert!(measured.last().unwrap().2 > measured[0].2);
    let counters = &result.summary.wlans[0].counters;
    assert_eq!(measured.last().unwrap().2, counters.queue_drops);
}

/// Two bulk TCP downloads from the server through the AP (the module doc of
/// tests/wlan_qdisc.rs), with a 1000-frame queue and `queue_sojourn`.
fn downloads(wlan: Value) -> Value {
    let mut scenario = upload(1_000_000, json!({"queue_packets": 1000}));
    extend_wlan(&mut scenario, &wlan);
    scenario["duration_ns"] = json!(20 * S);
    scenario["measure_from_ns"] = json!(8 * S);
    let tcp = |name: &str| {
        json!({"name": name, "src": 2, "dst": 1, "app": {"kind": "tcp_bulk",
               "tcp": {"send_buffer": 4_000_000, "receive_buffer": 4_000_000}}})
    };
    scenario["flows"] = json!([tcp("bulk1"), tcp("bulk2")]);
    scenario
}

/// The AP's mean sojourn over the window, in ms, and by Little's law the mean occupancy it
/// implies against the series' (frames waiting, and the one in its exchange).
fn ap_sojourn(scenario: &Value) -> (f64, f64, f64) {
    let result = run(scenario);
    let sojourn = result.summary.wlans[0].queues[0].sojourn;
    assert!(sojourn.dequeued > 10_000, "{sojourn:?}");
    let rate_per_ms = sojourn.dequeued as f64 / 12_000.0;
    let ap = rows(&result, "ap→stations (WLAN)");
    // the AP's queues dropped all the WLAN's queue drops (the station's ACKs never fill
    // its queue): over the limit, CoDel's in mac80211's tins, the qdisc's
    let c = &result.summary.wlans[0].counters;
    let drops = ap.last().unwrap().2;
    assert_eq!(drops, c.queue_drops + c.codel_drops + c.aqm_drops);
    assert!(drops > 0, "{c:?}");
    let window = &ap[80..];
    let occupancy = window.iter().map(|r| f64::from(r.0)).sum::<f64>() / window.len() as f64;
    (sojourn.mean_ms, rate_per_ms * sojourn.mean_ms, occupancy)
}

#[test]
fn the_aps_fifo_holds_frames_a_hundred_ms_and_codel_above_the_driver_keeps_them_short() {
    // 1000 frames at about 24 Mbit/s of TCP: the downloads' sawtooth in the FIFO.
    let (fifo, little, occupancy) = ap_sojourn(&downloads(json!({})));
    // CoDel's 5 ms target in the qdisc, plus ath9k's eight frames in the driver and the
    // head's access (about 2.5 ms at this rate).
    let (codel, ..) = ap_sojourn(&downloads(json!({"aqm": {"kind": "codel"}})));
    // mac80211's FQ-CoDel: its 20 ms target.
    let (mac80211, ..) = ap_sojourn(&downloads(json!({"queueing": "fq_codel"})));
    eprintln!(
        "AP sojourn: fifo {fifo:.1} ms (Little {little:.1} frames, series {occupancy:.1}), \
         codel {codel:.1} ms, mac80211 {mac80211:.1} ms"
    );
    assert!(fifo > 80.0 && fifo > 5.0 * codel, "{fifo}");
    // Little's law ties the sojourns to the series: the frames waiting (the departure rate
    // times their mean wait) are the series' occupancy, less at most the one in its
    // exchange (less sampling error: 120 instants of a sawtooth).
    assert!(
        little > 0.95 * occupancy - 1.0 && little < 1.05 * occupancy,
        "{little} vs {occupancy}"
    );
    assert!(codel > 5.0 && codel < 20.0, "{codel}");
    assert!(mac80211 > 15.0 && mac80211 < 40.0, "{mac80211}");
}

#[test]
fn on_a_channel_with_geometry_the_aps_queue_is_metered_as_on_the_central_dcf() {
    let codel = json!({"aqm": {"kind": "codel"}});
    let mut placed = downloads(codel.clone());
    placed["positions"] = json!([{"node": 0, "x": 0.0, "y": 0.0},
                                 {"node": 1, "x": 5.0, "y": 0.0}]);
    let geometry = run(&placed);
    let names = &geometry.series.queues.directions;
    assert_eq!(&names[2..], ["ap→stations (WLAN)", "sta→ap (WLAN)"]);
    let (central, ..) = ap_sojourn(&downloads(codel));
    let sojourn = geometry.summary.wlans[0].queues[0].sojourn;
    eprintln!(
        "codel: {:.2} ms with geometry, {central:.2} ms without",
        sojourn.mean_ms
    );
    assert!((sojourn.mean_ms - central).abs() < 3.0, "{sojourn:?}");
    // the TCP ACKs the station sends wait under a slot or a backoff behind the AP's frames
    let station = geometry.summary.wlans[0].queues[1].sojourn;
    assert!(
        station.dequeued > 1000 && station.mean_ms < 2.0,
        "{station:?}"
    );
}

#[test]
fn with_edca_each_ac_of_each_mac_has_its_queue() {
    // A video-marked CBR beside a best-effort one: each in its AC's queue, on the central
    // DCF and on a channel with geometry (an interface per AC there).
    let mut scenario = upload(1_000_000, json!({"edca": true, "ampdu": false}));
    scenario["wlans"][0]["phy"] = json!({"standard": "802.11n", "mcs": 7});
    let mut video = scenario["flows"][0].clone();
    video["name"] = json!("video");
    video["dscp"] = json!(34); // AF41: AC_VI
    scenario["flows"].as_array_mut().unwrap().push(video);
    let mut placed = scenario.clone();
    placed["positions"] = json!([{"node": 0, "x": 0.0, "y": 0.0},
                                 {"node": 1, "x": 5.0, "y": 0.0}]);
    for scenario in [scenario, placed] {
        let result = run(&scenario);
        let names = &result.series.queues.directions;
        assert_eq!(names.len(), 2 + 8);
        assert!(names.contains(&"ap→stations (WLAN, AC_BK)".to_string()));
        assert!(names.contains(&"sta→ap (WLAN, AC_VO)".to_string()));
        let queues = &result.summary.wlans[0].queues;
        let mut sent: Vec<(&str, Option<&str>, u64)> = (queues.iter())
            .filter(|q| q.sojourn.dequeued > 0)
            .map(|q| (q.node.as_str(), q.ac, q.sojourn.dequeued))
            .collect();
        sent.sort();
        assert_eq!(sent, [("sta", Some("be"), 972), ("sta", Some("vi"), 972)]);
        let video = rows(&result, "sta→ap (WLAN, AC_VI)");
        // k = 0 to 1215 over the run
        assert_eq!(
            video.iter().map(|r| r.3).sum::<u64>(),
            1216,
            "every datagram"
        );
    }
}

#[test]
fn measuring_the_mac_queues_changes_nothing_the_run_does() {
    // With the MSDU lifetime off, a metered run notes first attempts that the plain one does
    // not: the frames, their fates and every counter stay the same.
    for wlan in [
        json!({}),
        json!({"aqm": {"kind": "fq_codel"}}),
        json!({"queueing": "fq_codel"}),
    ] {
        let metered = downloads(wlan);
        let mut plain = metered.clone();
        plain["queue_sojourn"] = json!(false);
        let (a, b) = (run(&metered), run(&plain));
        // only the wired queues are in the plain run's series
        assert_eq!(a.series.queues.directions.len(), 4);
        assert_eq!(b.series.queues.directions.len(), 2);
        let (a, b) = (a.summary, b.summary);
        let json = |s: &airtcp_sim::Summary| {
            let mut value = serde_json::to_value(s).unwrap();
            value.as_object_mut().unwrap().remove("wall_time_s");
            value["wlans"][0].as_object_mut().unwrap().remove("queues");
            for link in value["links"].as_array_mut().unwrap() {
                link.as_object_mut().unwrap().remove("sojourn");
            }
            value
        };
        assert_eq!(json(&a), json(&b));
        assert!(b.wlans[0].queues.is_empty(), "nothing measured when off");
    }
}

#[test]
fn the_series_bound_counts_the_mac_queues() {
    // 1000 s sampled every 10 µs: refused, the two wired directions and the eight queues of
    // two MACs with EDCA counted (and no TCP flow).
    let mut scenario = upload(1_000_000, json!({"edca": true, "ampdu": false}));
    scenario["wlans"][0]["phy"] = json!({"standard": "802.11n", "mcs": 7});
    scenario["duration_ns"] = json!(1000 * S);
    scenario["sample_interval_ns"] = json!(10_000);
    let options = airtcp_sim::RunOptions::default();
    let Err(error) = airtcp_sim::run_json(&scenario.to_string(), &options) else {
        panic!("a series too large runs");
    };
    let message = error.to_string();
    assert!(message.contains("0 TCP flows and 10 queues"), "{message}");
}

#[test]
fn a_frame_counts_when_it_goes_on_the_air_not_when_a_txop_leaves_it_waiting() {
    // A saturated AC_VO upload (TXOP bursts of a few frames; no A-MPDU) whose frames may
    // wait 5 ms at most: many are discarded at the head without going on the air. Only the
    // frames that went are counted, one each: without errors or collisions, every frame
    // that went was delivered (the run's window is the whole run).
    for geometry in [false, true] {
        let wlan = json!({"edca": true, "ampdu": false, "queue_max_delay_ns": 5 * MS});
        let mut scenario = upload(80_000_000, wlan);
        scenario["wlans"][0]["phy"] = json!({"standard": "802.11n", "mcs": 7});
        scenario["flows"][0]["dscp"] = json!(46); // EF: AC_VO
        scenario["measure_from_ns"] = json!(0);
        if geometry {
            scenario["positions"] = json!([{"node": 0, "x": 0.0, "y": 0.0},
                                           {"node": 1, "x": 5.0, "y": 0.0}]);
        }
        let result = run(&scenario);
        let wlan = &result.summary.wlans[0];
        // (on a channel with geometry whose flows use one AC, a MAC has that AC's queue only)
        let ac = if geometry { None } else { Some("vo") };
        let voice = (wlan.queues.iter())
            .find(|q| q.node == "sta" && q.ac == ac)
            .expect("the station's AC_VO queue");
        let c = &wlan.counters;
        assert!(c.queue_delay_drops > 1000, "{geometry}: {c:?}");
        assert!(c.txop_bursts > 1000 || geometry, "{c:?}");
        assert_eq!(c.failed_attempts, 0, "{geometry}");
        // the last TXOP's frames (under 1.5 ms of 0.2 ms frames) may be under way at the end
        let delivered = c.delivered_msdus;
        assert!(
            voice.sojourn.dequeued.abs_diff(delivered) <= 8,
            "{geometry}: {} counted, {delivered} delivered",
            voice.sojourn.dequeued
        );
    }
}

#[test]
fn an_ap_of_two_wlans_names_each_wlans_queues_apart() {
    // The AP's node serves two WLANs (a station each): its two queues take their WLAN's index.
    let mut scenario = upload(1_000_000, json!({}));
    scenario["nodes"] = json!(["ap", "sta", "server", "sta2"]);
    let second = json!({"ap": 0, "stations": [3], "queue_packets": 100,
        "phy": {"standard": "802.11g", "rate_bps": 54_000_000, "basic_rate_bps": 6_000_000}});
    scenario["wlans"].as_array_mut().unwrap().push(second);
    let result = run(&scenario);
    assert_eq!(
        &result.series.queues.directions[2..],
        [
            "ap→stations (WLAN 0)",
            "sta→ap (WLAN 0)",
            "ap→stations (WLAN 1)",
            "sta2→ap (WLAN 1)"
        ]
    );
    assert_eq!(result.summary.wlans[1].queues[1].queue, "sta2→ap (WLAN 1)");
}
