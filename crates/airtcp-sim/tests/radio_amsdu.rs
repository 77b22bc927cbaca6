//! A-MSDUs inside A-MPDUs on a channel with geometry (`max_amsdu_bytes`;
//! `airtcp_sim::radio`'s `aggregation`): a station near its AP gets the exchange the central
//! DCF gives it (tests/amsdu.rs, computed by hand); far from it each A-MSDU is decoded over
//! its own bytes and lost whole; lost MPDUs and BlockAcks leave TCP's segments in order and
//! whole; every datagram is acknowledged or counted dropped, and delivered at most once.

mod common;

use airtcp_sim::wlan::MacCounters;

use serde_json::{json, Value};

/// One station `x` metres from its AP sending 1472-byte UDP payloads at `rate_bps` to it for
/// `seconds` (measured from 2 s), 802.11ac 80 MHz MCS 9, A-MSDUs of up to 7935 bytes; `wlan`
/// adds to the WLAN.
fn station_at(x: f64, rate_bps: u64, wlan: Value, seconds: u64) -> Value {
    let phy = json!({"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80});
    let mut scenario = common::one_station_upload(phy, (rate_bps / 2, 600), wlan, seconds);
    scenario["wlans"][0]["max_amsdu_bytes"] = json!(7935);
    scenario["positions"] = json!([{"node": 0, "x": 0.0, "y": 0.0},
                                   {"node": 1, "x": x, "y": 0.0}]);
    scenario
}

/// MSDUs per MPDU and MPDUs per A-MPDU.
fn shape(c: &MacCounters) -> (f64, f64) {
    (
        c.delivered_msdus as f64 / (c.ampdu_mpdus - c.ampdu_failed_mpdus) as f64,
        c.ampdu_mpdus as f64 / c.ampdus as f64,
    )
}

#[test]
fn a_station_near_its_ap_fills_its_ppdu_with_a_msdus_as_computed_by_hand() {
    // 5 m from the AP nothing fails. As tests/amsdu.rs computes: MPDUs of 5 MSDUs (7648
    // bytes), A-MPDUs of 35 MPDUs ended by aPPDUMaxTime, 173 MSDUs in 5472 µs; with AC_BE's
    // AIFS (43 µs), the mean backoff (67.5 µs), SIFS, the 32 µs BlockAck and two 17 ns
    // propagation delays (the central DCF's are 1 µs) an exchange takes 5630.53 µs.
    // (12 s: each A-MPDU hands 173 MSDUs up at once, 0.06 % of the 10 s measured)
    let summary = common::run(&station_at(5.0, 780_000_000, json!({}), 12)).summary;
    let c = &summary.wlans[0].counters;
    let (per_mpdu, per_ampdu) = shape(c);
    eprintln!("{c:?}");
    assert_eq!((c.ampdu_failed_mpdus, c.failed_attempts), (0, 0));
    assert!((per_mpdu - 173.0 / 35.0).abs() < 0.01, "{per_mpdu}");
    assert!((per_ampdu - 35.0).abs() < 0.2, "{per_ampdu}");
    let expected = 173.0 * 1472.0 * 8.0 / 5630.534e-6;
    let goodput = summary.aggregate_goodput_bps;
    assert!(
        (goodput / expected - 1.0).abs() < 0.002,
        "{goodput} vs {expected}"
    );
    // the central DCF gives the same but for its longer propagation delays (1.97 µs of an
    // exchange: 0.035 %)
    let mut central = station_at(5.0, 780_000_000, json!({}), 12);
    central.as_object_mut().unwrap().remove("positions");
    let central = common::run(&central).summary.aggregate_goodput_bps;
    let error = goodput / central - 1.0 - 1.966 / 5632.5;
    assert!(error.abs() < 0.001, "{goodput} vs {central}");
}

#[test]
fn far_from_its_ap_an_a_msdu_fails_over_its_whole_length() {
    // 8.5 m from the AP (about 33 dB SNR) a lone 1538-byte MPDU at MCS 9 fails one time in
    // four or five (tests/radio_ampdu.rs); an MPDU of five MSDUs is five times as long and
    // fails far more often: its error draw covers its whole A-MSDU.
    let amsdu = common::run(&station_at(8.5, 780_000_000, json!({}), 6)).summary;
    let c = &amsdu.wlans[0].counters;
    let lost_amsdus = c.ampdu_failed_mpdus as f64 / c.ampdu_mpdus as f64;
    let mut plain = station_at(8.5, 780_000_000, json!({}), 6);
    plain["wlans"][0]
        .as_object_mut()
        .unwrap()
        .remove("max_amsdu_bytes");
    let p = common::run(&plain).summary;
    let p = &p.wlans[0].counters;
    let lost_mpdus = p.ampdu_failed_mpdus as f64 / p.ampdu_mpdus as f64;
    eprintln!("{lost_amsdus:.3} of A-MSDUs lost, {lost_mpdus:.3} of lone MPDUs");
    assert!(lost_mpdus > 0.1 && lost_mpdus < 0.4, "{lost_mpdus}");
    // 1 − (1 − p)^5 for independent segments would be 0.67-0.92; one long MPDU's chunks are
    // not independent, so ask only that it clearly fails more
    assert!(
        lost_amsdus > 1.5 * lost_mpdus,
        "{lost_amsdus} vs {lost_mpdus}"
    );
    let (per_mpdu, _) = shape(c);
    assert!(per_mpdu > 2.0, "{per_mpdu}: still A-MSDUs");
}

#[test]
fn tcp_sees_neither_loss_nor_reordering_when_a_msdus_and_block_acks_are_lost() {
    // A TCP upload 5 m from its AP with Rayleigh fading: MPDUs are lost (each with every
    // MSDU of its A-MSDU) and go again; BlockAcks are lost, so the AP gets A-MSDUs it had,
    // which it discards. The server gets every segment once, in order.
    let mut scenario = common::tcp_upload_with_fading(5.0, 4);
    scenario["wlans"][0]["max_amsdu_bytes"] = json!(7935);
    for way in ["a_to_b", "b_to_a"] {
        // (an A-MPDU hands up to 200 segments to the wired link at once)
        scenario["links"][0][way]["queue"] = json!({"packets": 1000});
    }
    let summary = common::run(&scenario).summary;
    let (per_mpdu, _) = shape(&summary.wlans[0].counters);
    assert!(per_mpdu > 2.0, "{per_mpdu}: the segments went as A-MSDUs");
    common::assert_tcp_intact_over_lossy_ampdus(&summary, 300, 10);
}

#[test]
fn every_datagram_is_delivered_once_or_counted_dropped_with_a_msdus() {
    // Both ends send A-MPDUs of A-MSDUs at once (they collide at times), fading loses MPDUs
    // and BlockAcks, the queues overflow, and a retry limit of 2 drops MPDUs: each datagram
    // is acknowledged or counted dropped (an A-MSDU's MSDUs each), and none is delivered
    // twice, whatever its MPDU's fate; the recipient's window moves past the A-MSDUs given up
    // (or the later ones would never be handed up).
    for seed in 1..4 {
        let wlan = json!({"short_retry_limit": 2, "long_retry_limit": 2,
                          "queue_packets": 100, "edca": false});
        let scenario = station_at(7.0, 400_000_000, wlan, 3);
        let (summary, sent, delivered) = common::run_both_ways_with_fading(scenario, seed);
        let wlan = &summary.wlans[0];
        let c = &wlan.counters;
        assert!(c.collisions > 0 && c.queue_drops > 0);
        assert!(c.retry_drops > 0, "{c:?}");
        let (per_mpdu, _) = shape(c);
        assert!(per_mpdu > 2.0, "{per_mpdu}");
        // the originator's count is exact: each MSDU acknowledged or dropped
        let acked = c.delivered_msdus;
        assert_eq!(sent, acked + c.queue_drops + c.retry_drops, "seed {seed}");
        // the recipient got each at most once, those acknowledged and some whose BlockAck
        // was lost before their MPDU reached its limit
        assert!(
            acked <= delivered && delivered <= acked + c.retry_drops,
            "seed {seed}"
        );
    }
}
