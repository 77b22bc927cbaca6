//! A-MSDUs inside A-MPDUs in a BSS without geometry (`max_amsdu_bytes`;
//! `wlan::block_ack::select_mpdus`): each MPDU carries as many MSDUs as its A-MSDU limit
//! allows, an A-MPDU as many MPDUs as its limits allow, sized as computed by hand; a lost
//! MPDU loses its whole A-MSDU, which goes again whole, and TCP sees neither loss nor
//! reordering; an MSDU goes up once, whatever happened to its MPDU.

mod common;

use common::run;
use serde_json::{json, Value};

/// `common::one_station_upload` with a MAC queue of 600 frames.
fn one_station(phy: Value, rate_bps: u64, wlan: Value, seconds: u64) -> Value {
    common::one_station_upload(phy, (rate_bps, 600), wlan, seconds)
}

fn vht80() -> Value {
    json!({"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80})
}

#[test]
fn a_saturated_station_fills_its_ppdu_with_a_msdus() {
    // 802.11ac, 80 MHz, MCS 9 (N_DBPS 1560), A-MSDUs of up to 7935 bytes: an A-MSDU
    // subframe is 14 + 1508 bytes, padded to 1524 but the last, so 5 MSDUs make 7618 bytes
    // (6 would make 9142), an MPDU of 7648 and an A-MPDU subframe of 7652. aPPDUMaxTime
    // leaves ⌊(5484 − 40)/4⌋ = 1361 symbols, 265 392 bytes: 34 such MPDUs (260 168) and a
    // 35th of 3 MSDUs (4570 + 30 + 4 = 4604; a 4th would make 266 296), 173 MSDUs in
    // 264 772 bytes, ⌈(8·264 772 + 22)/1560⌉ = 1358 symbols: 5472 µs. With AC_BE's AIFS
    // (43 µs), the mean backoff (67.5 µs), SIFS, the BlockAck (32 µs) and two 1 µs
    // propagation delays an exchange takes 5632.5 µs: 361.7 Mbit/s of UDP payload, against
    // 338.2 without A-MSDUs (tests/ampdu.rs).
    let scenario = one_station(vht80(), 390_000_000, json!({"max_amsdu_bytes": 7935}), 6);
    let summary = run(&scenario).summary;
    let wlan = &summary.wlans[0].counters;
    assert_eq!(wlan.collisions, 0);
    let mpdus_per_ampdu = wlan.ampdu_mpdus as f64 / wlan.ampdus as f64;
    // (the first A-MPDUs, before the queue filled, were shorter)
    assert!((mpdus_per_ampdu - 35.0).abs() < 0.2, "{mpdus_per_ampdu}");
    let expected = 173.0 * 1472.0 * 8.0 / 5632.5e-6;
    let goodput = summary.aggregate_goodput_bps;
    assert!(
        (goodput / expected - 1.0).abs() < 0.002,
        "{goodput} vs {expected}"
    );
}

#[test]
fn the_a_msdu_limit_sizes_each_mpdu() {
    // HT's short A-MSDU limit, 3839 bytes: 2 MSDUs an MPDU (3046; 3 would make 4570), and
    // HT's longest A-MPDU, 65 535 bytes, then ends each A-MPDU: 21 subframes of 4 + 30 +
    // 3046 (64 680 bytes); a 22nd MPDU of even one MSDU (1542 bytes) would pass it
    let ht = json!({"standard": "802.11n", "mcs": 7, "channel_width_mhz": 40});
    let scenario = one_station(ht, 150_000_000, json!({"max_amsdu_bytes": 3839}), 4);
    let summary = run(&scenario).summary;
    let wlan = &summary.wlans[0].counters;
    let msdus_per_mpdu = wlan.delivered_msdus as f64 / wlan.ampdu_mpdus as f64;
    assert!((msdus_per_mpdu - 2.0).abs() < 0.01, "{msdus_per_mpdu}");
    let mpdus_per_ampdu = wlan.ampdu_mpdus as f64 / wlan.ampdus as f64;
    assert!((mpdus_per_ampdu - 21.0).abs() < 0.1, "{mpdus_per_ampdu}");
}

#[test]
fn lost_a_msdus_go_again_whole_and_tcp_sees_them_in_order() {
    // As tests/ampdu.rs's lost-MPDU case, with A-MSDUs: 10 % of MPDUs lost on the channel,
    // each losing every MSDU it carries; they go again in later A-MPDUs and the AP's
    // reordering buffer hands the segments up in order.
    // (an A-MPDU hands up to 200 segments to the wired link at once: its queue holds them)
    let scenario = common::lossy_tcp_upload(json!({"max_amsdu_bytes": 7935}), Some(1000));
    let summary = run(&scenario).summary;
    let wlan = &summary.wlans[0].counters;
    assert!(wlan.ampdu_failed_mpdus > 100, "{}", wlan.ampdu_failed_mpdus);
    // the MPDUs carried several MSDUs each
    assert!(wlan.delivered_msdus > 3 * wlan.ampdu_mpdus / 2);
    common::assert_nothing_lost_in_order(&summary);
    assert!(wlan.reordered_mpdus > 100, "{}", wlan.reordered_mpdus);
}

#[test]
fn dropped_a_msdus_move_the_window_and_every_msdu_counts_once() {
    // Half the MPDUs lost, two attempts each: an MPDU's MSDUs are delivered or dropped
    // together, and UDP datagrams arrive or are counted dropped, never twice
    let scenario = one_station(
        vht80(),
        390_000_000,
        json!({"errors": {"loss": 0.5}, "short_retry_limit": 2, "max_amsdu_bytes": 7935}),
        4,
    );
    let summary = run(&scenario).summary;
    let wlan = &summary.wlans[0].counters;
    let (dropped, delivered) = (wlan.retry_drops as f64, wlan.delivered_msdus as f64);
    assert!(
        (dropped / (dropped + delivered) - 0.25).abs() < 0.03,
        "{dropped} {delivered}"
    );
    let flow = &summary.flows[0];
    assert!(flow.goodput_bps > 100e6, "{}", flow.goodput_bps);
}
