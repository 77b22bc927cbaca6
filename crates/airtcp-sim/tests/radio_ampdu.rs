//! A-MPDU with Block Ack on a channel with geometry (`airtcp_sim::radio`, its `aggregation`):
//! a station near its AP gets what the central DCF gives it; each MPDU meets its own part of
//! the PPDU's SINR, so that far from the AP a long A-MPDU loses some of its MPDUs, which go
//! again and reach the recipient in order; no datagram is lost or duplicated by a lost
//! BlockAck; hidden stations' A-MPDUs collide.

mod common;

use airtcp_sim::wlan::MacCounters;
use common::S;
use serde_json::{json, Value};

/// One station `x` metres from its AP sending UDP at `rate_bps` to it (1472-byte payloads:
/// 1538-byte QoS data MPDUs) for `seconds` (measured from 2 s), 802.11ac 80 MHz at `mcs`;
/// `wlan` adds to the WLAN. EDCA off: the radios run the DCF.
fn station_at(x: f64, mcs: u32, rate_bps: u64, wlan: Value, seconds: u64) -> Value {
    let mut scenario = json!({
        "name": "radio-ampdu", "seed": 1, "duration_ns": seconds * S, "measure_from_ns": 2 * S,
        "nodes": ["ap", "sta"],
        "wlans": [{"ap": 0, "stations": [1], "queue_packets": 300, "edca": false,
                   "phy": {"standard": "802.11ac", "mcs": mcs, "channel_width_mhz": 80}}],
        "positions": [{"node": 0, "x": 0.0, "y": 0.0}, {"node": 1, "x": x, "y": 0.0}],
        "flows": [{"name": "up", "src": 1, "dst": 0,
                   "app": {"kind": "udp_cbr", "rate_bps": rate_bps, "payload_bytes": 1472}}],
    });
    common::extend_wlan(&mut scenario, &wlan);
    scenario
}

/// MPDUs per A-MPDU and the fraction of MPDUs not acknowledged.
fn per_ampdu_and_lost(c: &MacCounters) -> (f64, f64) {
    (
        c.ampdu_mpdus as f64 / c.ampdus as f64,
        c.ampdu_failed_mpdus as f64 / c.ampdu_mpdus as f64,
    )
}

#[test]
fn a_station_near_its_ap_gets_the_exchange_computed_by_hand() {
    // 5 m from the AP (52 dB SNR at 80 MHz): nothing fails. 64 subframes of 4 + 1540 bytes,
    // 2068 µs at MCS 9 (tests/ampdu.rs), after DIFS (34 µs) and the mean backoff (7.5 slots
    // of 9 µs), then SIFS and the 32 µs BlockAck (the two 17 ns propagation delays do not
    // show): 2217.5 µs for 64·1472 bytes of UDP payload, 339.9 Mbit/s. The central DCF's
    // test gets the same exchange with EDCA's AIFS and 1 µs delays.
    let near = common::run(&station_at(5.0, 9, 780_000_000, json!({}), 6)).summary;
    let c = &near.wlans[0].counters;
    let (per_ampdu, lost) = per_ampdu_and_lost(c);
    assert!(per_ampdu > 63.9, "{per_ampdu}");
    assert_eq!((lost, c.failed_attempts), (0.0, 0));
    let expected = 64.0 * 1472.0 * 8.0 / 2217.5e-6;
    let goodput = near.aggregate_goodput_bps;
    assert!(
        (goodput / expected - 1.0).abs() < 0.003,
        "{goodput} vs {expected}"
    );
    // With EDCA (an MCS PHY's default) the traffic is best effort: AC_BE's AIFS, 43 µs, for
    // DIFS: 2226.5 µs, 338.5 Mbit/s.
    let edca = common::run(&station_at(5.0, 9, 780_000_000, json!({"edca": true}), 6)).summary;
    let expected = 64.0 * 1472.0 * 8.0 / 2226.5e-6;
    let goodput = edca.aggregate_goodput_bps;
    assert!(
        (goodput / expected - 1.0).abs() < 0.003,
        "{goodput} vs {expected}"
    );
    // The central DCF (no positions) gives the same, with and without aggregation, but for
    // its 1 µs propagation delays against 17 ns here: 2 µs of an exchange, 0.1 % of an
    // A-MPDU's (2.2 ms), 0.9 % of a lone MPDU's (0.22 ms).
    for (wlan, off) in [(json!({}), 0.001), (json!({"ampdu": false}), 0.009)] {
        let mut central = station_at(5.0, 9, 780_000_000, wlan.clone(), 6);
        central.as_object_mut().unwrap().remove("positions");
        let central = common::run(&central).summary.aggregate_goodput_bps;
        let placed = common::run(&station_at(5.0, 9, 780_000_000, wlan, 6)).summary;
        let placed = placed.aggregate_goodput_bps;
        eprintln!("{placed} bit/s with geometry, {central} without");
        let error = placed / central - 1.0 - off;
        assert!(error.abs() < 0.001, "{placed} vs {central}");
    }
}

#[test]
fn each_mpdu_fails_as_a_lone_frame_would_at_its_snr() {
    // 8.5 m from the AP (about 33 dB SNR) a lone 1538-byte MPDU at MCS 9 fails one time in
    // four or five. In an A-MPDU each MPDU is decoded over its own bytes: about as many of
    // them fail, while the PPDU, whose header is sent at 6 Mbit/s, nearly always gets its
    // BlockAck (the whole A-MPDU of 28 MPDUs would get through one time in a thousand).
    let aggregated = common::run(&station_at(8.5, 9, 780_000_000, json!({}), 6)).summary;
    let c = &aggregated.wlans[0].counters;
    let (per_ampdu, lost) = per_ampdu_and_lost(c);
    let single = common::run(&station_at(8.5, 9, 780_000_000, json!({"ampdu": false}), 6));
    let s = &single.summary.wlans[0].counters;
    let lone = s.channel_errors as f64 / s.attempts as f64;
    eprintln!("{lost:.4} of MPDUs lost in A-MPDUs of {per_ampdu:.1}, {lone:.4} of lone ones");
    assert!(lone > 0.1 && lone < 0.4, "{lone}");
    assert!((lost - lone).abs() < 0.015, "{lost} vs {lone}");
    assert!((c.failed_attempts as f64) < 0.02 * c.ampdus as f64, "{c:?}");
    // the lost ones went again and filled the recipient's gaps
    assert!(c.reordered_mpdus > c.ampdus, "{c:?}");
    assert!(
        per_ampdu > 10.0 && per_ampdu < 60.0,
        "{per_ampdu}: the window holds them back"
    );
}

#[test]
fn tcp_sees_neither_loss_nor_reordering_when_mpdus_and_block_acks_are_lost() {
    // With fading some A-MPDUs lose MPDUs (they go again; the AP holds what follows a gap)
    // and some BlockAcks are lost (the station sends MPDUs the AP had, which it discards):
    // the server gets every segment once, in order, so TCP sees no duplicate ACK.
    let summary = common::run(&common::tcp_upload_with_fading(5.0, 4)).summary;
    common::assert_tcp_intact_over_lossy_ampdus(&summary, 1000, 50);
}

#[test]
fn every_datagram_is_delivered_once_or_counted_dropped() {
    // Both ends send A-MPDUs of UDP at once (their A-MPDUs collide at times), with fading
    // losing MPDUs and BlockAcks, the queues overflowing: what is sent is delivered once or
    // dropped from a queue (retries enough that no MPDU reaches its limit).
    for seed in 1..4 {
        let scenario = station_at(
            5.0,
            9,
            400_000_000,
            json!({
            "short_retry_limit": 255, "long_retry_limit": 255, "queue_packets": 100}),
            3,
        );
        let (summary, sent, delivered) = common::run_both_ways_with_fading(scenario, seed);
        let wlan = &summary.wlans[0];
        let (c, radio) = (&wlan.counters, wlan.radio.as_ref().expect("geometry"));
        assert!(c.collisions > 0 && radio.duplicates > 0 && c.queue_drops > 0);
        assert_eq!(c.retry_drops, 0);
        assert_eq!(sent, delivered + c.queue_drops, "seed {seed}");
        assert_eq!(c.delivered_msdus, delivered);
    }
}

/// Paper 000's upload on 802.11ac with geometry: `n` stations on a 5 m circle around the AP
/// upload over TCP to servers behind it; `agent` at the AP's `wlan`.
fn uploads_around_ap(n: usize, agent: Option<&str>, seconds: u64) -> Value {
    let mut scenario = common::upload(n, None, 1, seconds);
    let wlan = &mut scenario["wlans"][0];
    wlan["phy"] = json!({"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80});
    wlan["edca"] = json!(false);
    wlan["queue_packets"] = json!(400);
    let mut positions = vec![json!({"node": 0, "x": 0.0, "y": 0.0})];
    positions.extend((0..n).map(|i| {
        let angle = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
        json!({"node": 2 + i, "x": 5.0 * angle.cos(), "y": 5.0 * angle.sin()})
    }));
    scenario["positions"] = json!(positions);
    scenario["measure_from_ns"] = json!(S);
    for link in scenario["links"].as_array_mut().unwrap() {
        for way in ["a_to_b", "b_to_a"] {
            link[way]["rate_bps"] = json!(1_000_000_000u64);
            link[way]["queue"] = json!({"packets": 1000});
        }
    }
    for flow in scenario["flows"].as_array_mut().unwrap() {
        flow["app"]["tcp"] = json!({"mss": 1024, "window_scaling": true,
            "send_buffer": 4_000_000, "receive_buffer": 4_000_000});
    }
    if let Some(kind) = agent {
        scenario["agents"] = json!([{"node": 0, "interface": "wlan", "agent": {"kind": kind}}]);
    }
    scenario
}

#[test]
fn an_agent_removing_frames_beside_an_ampdu_on_the_air_leaves_its_mpdus_alone() {
    // The AP's queue holds TCP ACKs for four stations; its A-MPDU to one carries some of
    // them while the ACK filter removes older ACKs for the others from around them. The MPDUs
    // on the air are the ones settled: none is sent twice to a recipient that had it.
    let summary = common::run(&uploads_around_ap(4, Some("af"), 6)).summary;
    let wlan = &summary.wlans[0];
    let radio = wlan.radio.as_ref().expect("geometry");
    eprintln!("{:?} {radio:?}", wlan.counters);
    assert!(
        summary
            .agents
            .iter()
            .any(|a| a.counters.values().any(|&v| v > 100)),
        "{:?}",
        summary.agents
    );
    assert_eq!(radio.duplicates, 0);
}

#[test]
fn mpdus_given_up_before_the_first_arrives_do_not_hold_the_later_ones() {
    // The station starts 12 m from the AP, where the AP's MPDUs (a datagram every 50 ms)
    // all fail, and with a retry limit of 1 are dropped; at 0.3 s it moves to 5 m, where none
    // fails. Its buffer must start past the MPDUs given up before any arrived: otherwise it
    // holds every later one behind them, with no later drop to move it on.
    let mut scenario = station_at(12.0, 9, 240_000, json!({"short_retry_limit": 1}), 3);
    let path = json!({"model": "path", "points": [{"at_ns": 300_000_000u64, "x": 12.0, "y": 0.0},
                                                 {"at_ns": 301_000_000u64, "x": 5.0, "y": 0.0}]});
    scenario["positions"][1]["motion"] = path;
    let flow = &mut scenario["flows"][0];
    (flow["src"], flow["dst"], flow["stop_ns"]) = (json!(0), json!(1), json!(2 * S));
    scenario["measure_from_ns"] = json!(0);
    let summary = common::run(&scenario).summary;
    let (c, flow) = (&summary.wlans[0].counters, &summary.flows[0]);
    let delivered = flow.bytes_delivered / 1472;
    eprintln!(
        "sent {}, delivered {delivered}, dropped {}",
        flow.packets_sent, c.retry_drops
    );
    assert!(c.retry_drops >= 5, "{c:?}");
    assert_eq!(delivered + c.retry_drops, flow.packets_sent);
}
