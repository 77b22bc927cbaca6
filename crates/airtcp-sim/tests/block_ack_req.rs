//! BlockAckReq frames in a BSS without geometry (`wlan::dcf::block_ack_req`): an originator
//! that gives MPDUs up owes their recipient a BlockAckReq, sent at its next access ahead of
//! its data; the recipient's window moves when it arrives, so every MSDU is delivered once
//! or counted dropped, and TCP sees segments in order.

mod common;

use common::{run, S};
use serde_json::json;

/// One 802.11ac station (80 MHz, MCS 9) sending 780 Mbit/s of UDP to its AP over a channel
/// that loses `loss` of MPDUs, each MPDU given `retries` attempts; `extra` WLAN settings.
fn lossy(loss: f64, retries: u32, extra: serde_json::Value) -> serde_json::Value {
    let mut scenario = json!({
        "name": "bar", "seed": 1, "duration_ns": 4 * S, "measure_from_ns": S,
        "nodes": ["ap", "sta"],
        "wlans": [{"ap": 0, "stations": [1], "queue_packets": 300,
                   "phy": {"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80},
                   "errors": {"loss": loss}, "short_retry_limit": retries}],
        "flows": [{"name": "up", "src": 1, "dst": 0,
                   "app": {"kind": "udp_cbr", "rate_bps": 780_000_000u64, "payload_bytes": 1472}}],
    });
    common::extend_wlan(&mut scenario, &extra);
    scenario
}

#[test]
fn an_a_mpdu_that_gives_mpdus_up_is_followed_by_a_block_ack_req() {
    // one attempt an MPDU and half of them lost: nearly every A-MPDU gives some up, and
    // its sender's next access carries a BlockAckReq before the next A-MPDU
    let summary = run(&lossy(0.5, 1, json!({}))).summary;
    let wlan = &summary.wlans[0].counters;
    assert!(wlan.ampdus > 1000, "{}", wlan.ampdus);
    // (within the few A-MPDUs that lost nothing, and the last one on the air)
    assert!(
        wlan.block_ack_reqs.abs_diff(wlan.ampdus) <= 3,
        "{} BlockAckReqs for {} A-MPDUs",
        wlan.block_ack_reqs,
        wlan.ampdus
    );
    assert_eq!(wlan.block_ack_reqs_given_up, 0, "alone on the channel");
    // every exchange answered: the A-MPDUs' BlockAcks and the BlockAckReqs'
    assert!(wlan.successes.abs_diff(wlan.ampdus + wlan.block_ack_reqs) <= 3);
    // half the MSDUs dropped, half delivered, none twice
    let (dropped, delivered) = (wlan.retry_drops as f64, wlan.delivered_msdus as f64);
    assert!((dropped / (dropped + delivered) - 0.5).abs() < 0.02);
    let flow = &summary.flows[0];
    assert!(flow.goodput_bps > 100e6, "{}", flow.goodput_bps);
}

#[test]
fn no_block_ack_req_when_nothing_is_given_up() {
    let summary = run(&lossy(0.1, 30, json!({}))).summary;
    let wlan = &summary.wlans[0].counters;
    assert_eq!((wlan.retry_drops, wlan.block_ack_reqs), (0, 0));
}

#[test]
fn a_block_ack_req_exchange_takes_its_airtime() {
    // Every MPDU lost is given up at once, so each A-MPDU carries 64 fresh MPDUs (2228.5
    // µs of exchange, tests/ampdu.rs) and is followed by a BlockAckReq exchange: AC_BE's
    // AIFS (43 µs), the mean backoff (67.5 µs), the BlockAckReq (24 bytes at 24 Mbit/s:
    // 20 µs of preamble and 3 symbols, 32 µs), SIFS, the BlockAck (32 µs) and two 1 µs
    // propagation delays: 192.5 µs. Half of 64 MPDUs of 1472 bytes in 2421 µs: 155.6 Mbit/s.
    let summary = run(&lossy(0.5, 1, json!({}))).summary;
    let wlan = &summary.wlans[0].counters;
    let per_ampdu = wlan.ampdu_mpdus as f64 / wlan.ampdus as f64;
    assert!(per_ampdu > 63.9, "{per_ampdu}");
    let expected = 32.0 * 1472.0 * 8.0 / 2421.0e-6;
    let goodput = summary.flows[0].goodput_bps;
    assert!(
        (goodput / expected - 1.0).abs() < 0.01,
        "{goodput} vs {expected}"
    );
}

#[test]
fn a_recipient_that_has_received_nothing_yet_starts_its_window_at_the_block_ack_req() {
    // Three 802.11n stations and the AP exchange UDP in AC_VI and AC_VO; the first, at MCS 0,
    // gives its first two MPDUs up (collisions) before any reached the AP: the AP's window
    // must start where the BlockAckReqs say, or it would hold everything after them (found
    // by tests/edca_conservation.rs, seed 247)
    let scenario = common::two_way_udp(3, &[46, 34, 34], true, "fifo", None, 0.0, true, 247);
    let summary = run(&scenario).summary;
    let wlan = &summary.wlans[0].counters;
    assert!(wlan.block_ack_reqs > 0);
    let sent: u64 = summary.flows.iter().map(|f| f.packets_sent).sum();
    let delivered: u64 = summary.flows.iter().map(|f| f.bytes_delivered / 1000).sum();
    assert_eq!(sent, delivered + wlan.queue_drops + wlan.retry_drops);
    assert!(
        summary.flows[0].bytes_delivered > 0,
        "the slow station's upload"
    );
}
