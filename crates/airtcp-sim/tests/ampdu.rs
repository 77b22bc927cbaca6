//! A-MPDU aggregation with Block Ack in a BSS without geometry (`wlan::dcf::ampdu`): each
//! limit of an A-MPDU (the Block Ack window, the A-MPDU length, aPPDUMaxTime) sizes it as
//! computed by hand; a saturated station gets the throughput of its exchange computed by
//! hand; MPDUs lost on the channel go again in later A-MPDUs and the recipient hands them up
//! in order, so TCP over a lossy link sees neither loss nor reordering.

mod common;

use common::{run, MS};
use serde_json::{json, Value};

/// `common::one_station_upload` with a MAC queue of 300 frames.
fn one_station(phy: Value, rate_bps: u64, wlan: Value, seconds: u64) -> Value {
    common::one_station_upload(phy, (rate_bps, 300), wlan, seconds)
}

fn vht80() -> Value {
    json!({"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80})
}

/// MPDUs per A-MPDU, and goodput in bit/s.
fn mpdus_and_goodput(scenario: &Value) -> (f64, f64) {
    let summary = run(scenario).summary;
    let wlan = &summary.wlans[0].counters;
    assert_eq!(wlan.collisions, 0, "one station: no collisions");
    (
        wlan.ampdu_mpdus as f64 / wlan.ampdus as f64,
        summary.aggregate_goodput_bps,
    )
}

#[test]
fn a_saturated_station_fills_its_block_ack_window() {
    // 802.11ac, 80 MHz, MCS 9 (N_DBPS 1560): 64 subframes of 4 + 1540 bytes = 98 816 bytes,
    // ⌈(8·98 816 + 22)/1560⌉ = 507 symbols after 40 µs of preamble: 2068 µs. With AC_BE's
    // AIFS (SIFS + 3 slots: 43 µs), the mean backoff (7.5 slots of 9 µs), SIFS (16 µs), the
    // BlockAck at 24 Mbit/s (32 bytes: 20 + 3·4 = 32 µs) and two 1 µs propagation delays, an
    // exchange takes 2228.5 µs for 64·1472 bytes of UDP payload: 338.2 Mbit/s.
    let (per_ampdu, goodput) = mpdus_and_goodput(&one_station(vht80(), 390_000_000, json!({}), 6));
    assert!(per_ampdu > 63.9, "{per_ampdu}");
    let expected = 64.0 * 1472.0 * 8.0 / 2228.5e-6;
    assert!(
        (goodput / expected - 1.0).abs() < 0.002,
        "{goodput} vs {expected}"
    );
    // without aggregation: 228.5 µs for one MPDU (tests/test_phys.py, with DIFS 9 µs
    // shorter), 51.5 Mbit/s
    let (per_frame, single) = mpdus_and_goodput(&one_station(
        vht80(),
        390_000_000,
        json!({"ampdu": false}),
        4,
    ));
    assert!(per_frame.is_nan(), "no A-MPDUs counted");
    assert!(
        (single / (1472.0 * 8.0 / 228.5e-6) - 1.0).abs() < 0.002,
        "{single}"
    );
}

#[test]
fn each_limit_sizes_the_a_mpdu() {
    // A window of 8 MPDUs
    let (per_ampdu, _) = mpdus_and_goodput(&one_station(
        vht80(),
        390_000_000,
        json!({"ba_window": 8}),
        4,
    ));
    assert!((per_ampdu - 8.0).abs() < 0.01, "{per_ampdu}");
    // 10 000 bytes: 6 subframes of 1544 bytes (9264); a seventh would make 10 808
    let (per_ampdu, _) = mpdus_and_goodput(&one_station(
        vht80(),
        390_000_000,
        json!({"max_ampdu_bytes": 10_000}),
        4,
    ));
    assert!((per_ampdu - 6.0).abs() < 0.01, "{per_ampdu}");
    // aPPDUMaxTime at HT MCS 0 (6.5 Mbit/s, N_DBPS 26): two subframes (1544 + 1542, the
    // last unpadded in HT) take 36 + 4·⌈(8·3086 + 22)/26⌉ = 3840 µs; three, 5740 µs > 5484
    let ht0 = json!({"standard": "802.11n", "mcs": 0});
    let (per_ampdu, _) = mpdus_and_goodput(&one_station(ht0, 6_500_000, json!({}), 8));
    assert!((per_ampdu - 2.0).abs() < 0.01, "{per_ampdu}");
}

#[test]
fn lost_mpdus_go_again_and_arrive_in_order() {
    // TCP over an 802.11ac link that loses 10 % of MPDUs, behind a 10 ms wired hop: the MAC
    // retransmits each lost MPDU in a later A-MPDU and the AP's reordering buffer hands the
    // segments up in order, so the sender sees no duplicate ACK. The retry limit is 30 (as
    // ath9k's software retries of aggregated frames) and the window fits the MAC queue, so
    // that nothing is dropped (`common::lossy_tcp_upload`).
    let summary = run(&common::lossy_tcp_upload(json!({}), None)).summary;
    let wlan = &summary.wlans[0].counters;
    let flow = &summary.flows[0];
    // 10 % lost on the channel, more when the station's A-MPDU and the AP's (of TCP ACKs)
    // collide
    let lost = wlan.ampdu_failed_mpdus as f64 / wlan.ampdu_mpdus as f64;
    assert!(
        wlan.collisions > 0 && lost > 0.1,
        "{lost} of the MPDUs lost"
    );
    common::assert_nothing_lost_in_order(&summary);
    assert!(
        wlan.reordered_mpdus > 1000,
        "{} held for order",
        wlan.reordered_mpdus
    );
    assert!(flow.goodput_bps > 100e6, "{}", flow.goodput_bps);
}

#[test]
fn mpdus_past_their_retry_limit_are_dropped_and_the_window_moves_on() {
    // Half the MPDUs are lost and each may be sent twice: a quarter are dropped; the
    // recipient's window passes them, so the MPDUs after them still arrive (in order).
    let scenario = one_station(
        vht80(),
        390_000_000,
        json!({"errors": {"loss": 0.5}, "short_retry_limit": 2}),
        4,
    );
    let summary = run(&scenario).summary;
    let wlan = &summary.wlans[0].counters;
    let mpdus = wlan.ampdu_mpdus as f64;
    let dropped = wlan.retry_drops as f64;
    let delivered = wlan.delivered_msdus as f64;
    // each MSDU is sent once (and delivered half the time) or twice
    let msdus = dropped + delivered;
    assert!(
        (dropped / msdus - 0.25).abs() < 0.02,
        "{dropped} of {msdus}"
    );
    assert!(
        (mpdus / msdus - 1.5).abs() < 0.03,
        "{mpdus} MPDUs for {msdus} MSDUs"
    );
    assert!(summary.aggregate_goodput_bps > 100e6);
}

#[test]
fn mpdus_past_their_lifetime_are_discarded_and_the_window_moves_on() {
    // Half the MPDUs are lost, and an MSDU may live 1 ms from its first attempt, less than an
    // A-MPDU of 64 takes (2.07 ms): the lost ones are discarded at the next access, after
    // they were sent. Their recipient stops waiting for them (when they are discarded, or
    // at the latest at the next BlockAck), so the MPDUs after them are handed up (were it
    // to wait, the goodput would fall to nothing).
    let scenario = one_station(
        vht80(),
        390_000_000,
        json!({"errors": {"loss": 0.5}, "msdu_lifetime_ns": MS}),
        4,
    );
    let summary = run(&scenario).summary;
    let wlan = &summary.wlans[0].counters;
    assert!(wlan.lifetime_drops > 10_000, "{}", wlan.lifetime_drops);
    assert_eq!(wlan.retry_drops, 0);
    assert!(
        summary.aggregate_goodput_bps > 100e6,
        "{}",
        summary.aggregate_goodput_bps
    );
}

#[test]
fn a_sojourn_limit_discards_what_waited_too_long() {
    // ns-3's MaxDelay of 1 ms on a queue that holds about 2.4 A-MPDUs' worth (150 frames):
    // the frames behind the first A-MPDU wait longer and are discarded; the link still
    // carries A-MPDUs as fast as it can.
    let scenario = one_station(
        vht80(),
        390_000_000,
        json!({"queue_max_delay_ns": MS, "queue_packets": 150}),
        4,
    );
    let summary = run(&scenario).summary;
    let wlan = &summary.wlans[0].counters;
    assert!(
        wlan.queue_delay_drops > 10_000,
        "{}",
        wlan.queue_delay_drops
    );
    assert!(
        summary.aggregate_goodput_bps > 200e6,
        "{}",
        summary.aggregate_goodput_bps
    );
}

#[test]
fn rts_collisions_and_data_errors_count_against_their_own_limits() {
    // Four stations protect their A-MPDUs with RTS/CTS; half the MPDUs are lost. A failed
    // RTS counts against the short limit (7), a lost MPDU after a CTS against the long one
    // (2), each per MSDU, so an MSDU is dropped when two of its sendings lose it: a quarter
    // of them, whatever RTS collisions came before (one count for both would drop more).
    let mut scenario = one_station(
        vht80(),
        390_000_000,
        json!({"errors": {"loss": 0.5}, "rts_threshold": 0, "long_retry_limit": 2}),
        6,
    );
    scenario["nodes"] = json!(["ap", "s1", "s2", "s3", "s4"]);
    scenario["wlans"][0]["stations"] = json!([1, 2, 3, 4]);
    let flow = scenario["flows"][0].clone();
    scenario["flows"] = json!((1..=4)
        .map(|i| {
            let mut f = flow.clone();
            f["name"] = json!(format!("up{i}"));
            f["src"] = json!(i);
            f
        })
        .collect::<Vec<_>>());
    let summary = run(&scenario).summary;
    let wlan = &summary.wlans[0].counters;
    assert!(wlan.collisions > 100, "{} RTS collisions", wlan.collisions);
    let (dropped, delivered) = (wlan.retry_drops as f64, wlan.delivered_msdus as f64);
    let share = dropped / (dropped + delivered);
    assert!((share - 0.25).abs() < 0.01, "{share} of the MSDUs dropped");
}

/// Paper 000's uploads (`common::upload`) on 802.11ac at MCS 9 with A-MPDU and EDCA, the
/// AP's agent `agent`, the wired links 1 Gbit/s so that the WLAN is the bottleneck.
fn ac_upload(n: usize, agent: Option<Value>) -> Value {
    let mut scenario = common::upload(n, agent, 1, 8);
    scenario["wlans"][0]["phy"] = vht80();
    scenario["wlans"][0]["queue_packets"] = json!(400);
    let wired = json!({"rate_bps": 1_000_000_000u64, "delay_ns": 5 * MS,
                    "queue": {"packets": 1000}});
    for link in scenario["links"].as_array_mut().unwrap() {
        link["a_to_b"] = wired.clone();
        link["b_to_a"] = wired.clone();
    }
    // windows that fill the WLAN, not 64 KiB
    for flow in scenario["flows"].as_array_mut().unwrap() {
        flow["app"]["tcp"] = json!({"mss": 1024, "window_scaling": true,
                                    "send_buffer": 4_000_000, "receive_buffer": 4_000_000});
    }
    scenario
}

#[test]
fn ack_priority_sends_a_mpdus_of_acks_with_backoff_0() {
    // With ACK priority the AP's ACK queue (its own, in AC_BE) goes first with backoff 0;
    // an access carries the ACKs queued for the head ACK's station as one A-MPDU.
    let summary = run(&ac_upload(4, Some(json!({"kind": "ack_priority"})))).summary;
    let wlan = &summary.wlans[0].counters;
    assert!(
        wlan.ap_zero_backoff_ack_headed_accesses > 1000,
        "{}",
        wlan.ap_zero_backoff_ack_headed_accesses
    );
    let acks: u64 = summary.flows.iter().map(|f| f.acks_sent).sum();
    assert!(
        acks > 5 * wlan.ap_accesses,
        "{acks} ACKs in {} accesses: A-MPDUs of ACKs",
        wlan.ap_accesses
    );
    for flow in &summary.flows {
        assert!(
            flow.goodput_bps > 20e6,
            "{}: {}",
            flow.name,
            flow.goodput_bps
        );
    }
    assert!(
        summary.aggregate_goodput_bps > 200e6,
        "{}",
        summary.aggregate_goodput_bps
    );
}

#[test]
fn acks_in_the_voice_ac_go_with_priority_beside_a_mpdus() {
    // `ac = "vo"`: the agent's ACK queue is the AP's AC_VO EDCAF (AIFSN 1, CW 3..7), the
    // stations' segments stay in AC_BE
    let agent = json!({"kind": "ack_priority", "ac": "vo"});
    let summary = run(&ac_upload(4, Some(agent))).summary;
    let wlan = &summary.wlans[0].counters;
    assert!(
        wlan.ap_ack_headed_accesses > 1000,
        "{}",
        wlan.ap_ack_headed_accesses
    );
    assert!(
        summary.aggregate_goodput_bps > 200e6,
        "{}",
        summary.aggregate_goodput_bps
    );
}

#[test]
fn an_ack_filter_beside_a_mpdus_takes_only_what_is_not_in_flight() {
    // Paper 003's ACK filter on the AP's WLAN interface removes queued ACKs that a later one
    // covers, but never an MPDU with a sequence number: its recipient would wait for it,
    // and the flows would stall behind the gap.
    let mut scenario = ac_upload(4, None);
    scenario["agents"] = json!([{"node": 0, "interface": "wlan", "agent": {"kind": "af"}}]);
    let summary = run(&scenario).summary;
    let wlan = &summary.wlans[0].counters;
    for flow in &summary.flows {
        assert!(
            flow.goodput_bps > 20e6,
            "{}: {}",
            flow.name,
            flow.goodput_bps
        );
    }
    assert_eq!(wlan.retry_drops, 0);
    // the filtered ACKs never reached the air: the MAC delivered fewer MSDUs than were sent
    let sent: u64 = summary
        .flows
        .iter()
        .map(|f| f.packets_sent + f.acks_sent)
        .sum();
    assert!(
        wlan.delivered_msdus < sent - 1000,
        "{} of {sent}",
        wlan.delivered_msdus
    );
}

#[test]
fn the_reference_class_of_aifsn_moves_no_frame() {
    // EDCA counts slots from the least AIFSN of the BSS (the AP's AIFSN 1 for VO and VI by
    // default); EDCAFs of AIFSN 3 join that count two slots later. With no VO or VI frames,
    // counting from AIFSN 2 instead (the AP's VO and VI set to 2) gives the same run, event
    // for event, also where a sender after a collision goes before the others resume.
    let tcp = |wlan: Value| {
        let mut scenario = ac_upload(1, None);
        common::extend_wlan(&mut scenario, &wlan);
        let summary = run(&scenario).summary;
        (
            summary.events,
            summary.aggregate_goodput_bps,
            summary.wlans[0].counters.collisions,
        )
    };
    let from_1 = tcp(json!({}));
    let from_2 = tcp(json!({"ap_edca_params": {"vo": {"aifsn": 2}, "vi": {"aifsn": 2}}}));
    assert_eq!(from_1, from_2);
    assert_ne!(from_1, tcp(json!({"edca": false})), "AIFSN 3 is not DIFS");
}

#[test]
fn a_voice_a_mpdu_fits_its_txop_limit() {
    // A station's UDP marked EF goes in AC_VO (TXOP limit 1.504 ms, AIFSN 2, CW 3): its
    // A-MPDU with SIFS, the 32 µs BlockAck and two 1 µs delays must fit, so the PPDU lasts
    // at most 1454 µs: 40 µs of preamble and 353 symbols of 1560 bits, 68 832 bytes, 44
    // subframes of 1544 bytes (45 would need 357 symbols). An exchange: AIFS 34 µs, the mean
    // backoff 1.5 slots, the PPDU (⌈(8·67 936 + 22)/1560⌉ = 349 symbols: 1436 µs), SIFS, the
    // BlockAck and the delays: 1533.5 µs for 44·1472 bytes, 337.9 Mbit/s.
    let mut scenario = one_station(vht80(), 390_000_000, json!({}), 6);
    scenario["flows"][0]["dscp"] = json!(46);
    let (per_ampdu, goodput) = mpdus_and_goodput(&scenario);
    assert!((per_ampdu - 44.0).abs() < 0.05, "{per_ampdu}");
    let expected = 44.0 * 1472.0 * 8.0 / 1533.5e-6;
    assert!(
        (goodput / expected - 1.0).abs() < 0.002,
        "{goodput} vs {expected}"
    );
}
