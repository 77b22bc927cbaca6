//! Paper 001's handoffs with 802.11 cells: the mobile is a station of two BSSs (one per base
//! station, each on its own channel) and moves from one to the other. What a departed
//! station costs its old AP, frames held and sent on, freeze and Snoop on an AP serving other
//! stations too, and handoffs that follow from movement through the cells' ranges.

mod common;

use common::park::{
    bss, changed_windows, park, two_handoffs, window_over_time, with_agent, Cells, BS1, MH,
};
use common::{run, S};
use serde_json::{json, Value};

#[test]
fn the_mobile_moves_from_one_bss_to_the_other_and_back() {
    let summary = run(&park(Cells::Wlans, two_handoffs(), "buffer", 0, 10)).summary;
    let mobile = &summary.mobiles[0];
    assert_eq!(mobile.handoffs.len(), 2);
    assert!(mobile.handoffs.iter().all(|h| h.completed));
    assert!(mobile.forwarded_packets > 0, "{mobile:?}");
    let flow = &summary.flows[0];
    assert!(flow.goodput_bps > 0.5e6, "{flow:?}");
    // Both BSSs carried the flow: before 2.5 s and after 8 s through bs1, between through bs2.
    for wlan in &summary.wlans {
        assert!(wlan.counters.delivered_msdus > 500, "{wlan:?}");
        assert_eq!(wlan.counters.absent_receiver_failures, 0, "held, not sent");
    }
}

#[test]
fn the_old_ap_keeps_sending_to_a_departed_station_until_its_retry_limit() {
    let summary = run(&park(Cells::Wlans, two_handoffs(), "lose", 0, 10)).summary;
    let old = &summary.wlans[0].counters;
    assert!(old.absent_receiver_failures >= 7, "{old:?}");
    assert!(old.retry_drops >= 1, "{old:?}");
    assert_eq!(summary.mobiles[0].forwarded_packets, 0);
    assert!(summary.flows[0].timeouts >= 2, "{:?}", summary.flows[0]);
}

#[test]
fn freeze_keeps_the_senders_timer_from_firing_through_wlan_handoffs() {
    // Without the freeze the sender times out in each 1 s handoff; with it, never. Its
    // window is kept too unless segments whose ACKs the mobile sent just before it left are
    // delivered again from the moved cache: the mobile answers each with a duplicate ACK,
    // which can make the sender fast-retransmit, as the timing of the detach has it.
    let mut kept = 0;
    for mode in ["lose", "buffer"] {
        for seed in [1, 2, 3] {
            let mut scenario = with_agent(
                park(Cells::Wlans, two_handoffs(), mode, 0, 10),
                "snoop_freeze",
            );
            scenario["seed"] = json!(seed);
            scenario["flows"][0]["app"]["tcp"]["zero_window"] = json!("hold");
            let (flow, samples) = window_over_time(&scenario);
            assert_eq!(flow.timeouts, 0, "{mode} seed {seed}: {flow:?}");
            if flow.fast_retransmits == 0 {
                assert_eq!(changed_windows(&samples, 1.0), [], "{mode} seed {seed}");
                kept += 1;
            }
        }
        let standard = run(&park(Cells::Wlans, two_handoffs(), mode, 0, 10)).summary;
        assert!(
            standard.flows[0].timeouts >= 2,
            "{mode}: {:?}",
            standard.flows[0]
        );
    }
    assert!(
        kept >= 2,
        "runs without a fast retransmit keep the window: {kept} of 6"
    );
}

#[test]
fn freeze_acts_for_the_mobile_only_on_an_ap_with_other_stations() {
    // A second station in bs1's BSS downloads too; bs1's agent must neither freeze its
    // sender nor send its cached segments on when the mobile hands off.
    let stay = 5;
    let mut scenario = park(Cells::Wlans, two_handoffs(), "buffer", 0, 10);
    scenario["nodes"].as_array_mut().unwrap().push(json!("sta"));
    scenario["wlans"][0] = bss(BS1, &[MH, stay]);
    let mut other = scenario["flows"][0].clone();
    other["name"] = json!("stay");
    other["dst"] = json!(stay);
    scenario["flows"].as_array_mut().unwrap().push(other);
    let stays = |kind: &str| run(&with_agent(scenario.clone(), kind)).summary.flows[1].clone();
    let (frozen, standard) = (stays("freeze"), stays("none"));
    assert_eq!(frozen.duplicate_acks, 0, "{frozen:?}");
    assert_eq!(
        frozen.retransmissions, standard.retransmissions,
        "{frozen:?}"
    );
}

/// mh drives along the x axis at 30 m/s past bs1 (at 0 m) and bs2 (at 250 m), each reaching
/// `range` metres.
fn drive(range: f64, duration_s: u64) -> Value {
    let mut scenario = park(Cells::Wlans, json!([]), "buffer", 0, duration_s);
    scenario["mobiles"][0]["movement"] = json!({
        "path": [{"at_ns": 0, "x_m": 0.0, "y_m": 0.0}, {"at_ns": 10 * S, "x_m": 300.0, "y_m": 0.0}],
        "cells": [{"base_station": BS1, "x_m": 0.0, "y_m": 0.0, "range_m": range},
                  {"base_station": 3, "x_m": 250.0, "y_m": 0.0, "range_m": range}],
    });
    scenario
}

#[test]
fn a_gap_between_cells_lengthens_the_handoff() {
    // Out of bs1's range at 120 m (4 s), in bs2's from 130 m (4.333 s): the mobile hears
    // bs2's first beacon after that, then greets it and the routes follow.
    let summary = run(&drive(120.0, 10)).summary;
    let handoffs = &summary.mobiles[0].handoffs;
    assert_eq!(handoffs.len(), 1, "{handoffs:?}");
    let h = &handoffs[0];
    assert_eq!((h.from.as_str(), h.to.as_str()), ("bs1", "bs2"));
    assert!((h.detach_s - 4.0).abs() < 1e-6, "{h:?}");
    let beacon = (4.0 + 1.0 / 3.0f64) / 0.1024;
    assert!((h.beacon_s - beacon.ceil() * 0.1024).abs() < 1e-6, "{h:?}");
    assert!((h.attach_s - (h.beacon_s + 0.005)).abs() < 1e-6, "{h:?}");
    // Overlapping cells: the handoff at the edge of bs1 goes straight to bs2.
    let overlap = run(&drive(140.0, 10)).summary;
    let h = &overlap.mobiles[0].handoffs[0];
    assert!((h.detach_s - 140.0 / 30.0).abs() < 1e-6, "{h:?}");
    assert!(h.beacon_s - h.detach_s <= 0.1024, "{h:?}");
}

#[test]
fn a_mobile_that_leaves_all_coverage_never_reattaches() {
    let mut scenario = drive(100.0, 10);
    scenario["mobiles"][0]["movement"]["cells"][1]["x_m"] = json!(1_000.0);
    let summary = run(&scenario).summary;
    let h = &summary.mobiles[0].handoffs[0];
    assert!((h.detach_s - 100.0 / 30.0).abs() < 1e-6, "{h:?}");
    assert!(!h.completed, "{h:?}");
    let flow = &summary.flows[0];
    assert!(
        flow.bytes_delivered > 0 && flow.bytes_delivered < 10 * 1_500_000 / 8,
        "{flow:?}"
    );
}

#[test]
fn the_byte_stream_is_exact_through_movement_with_every_agent() {
    byte_stream_through_movement(json!({"edca": false}));
}

#[test]
fn the_byte_stream_is_exact_through_movement_beside_edca() {
    // The BSSs with EDCA (the flow best effort: AC_BE's AIFS and CWs): the mobile's EDCAFs
    // leave, are evicted and join as the DCF's do.
    byte_stream_through_movement(json!({"edca": true}));
}

#[test]
fn the_byte_stream_is_exact_through_movement_beside_a_mpdu() {
    // 802.11n BSSs (MCS 0, 6.5 Mbit/s) with A-MPDU behind 50 Mbit/s wired links and a
    // 256 KB window, so that the AP's queue holds A-MPDUs' worth when the mobile leaves:
    // numbered MPDUs are evicted with it (lost or held), and each Block Ack agreement's
    // windows must move on past them for the 8 MB transfer to complete exactly.
    // (a fifth of the MPDUs lost, retried up to 30 times: numbered MPDUs are always queued)
    let wlan = json!({"ampdu": true, "phy": {"standard": "802.11n", "mcs": 0},
                      "errors": {"loss": 0.2}, "short_retry_limit": 30});
    for kind in ["none", "snoop", "fast_retransmit"] {
        for mode in ["lose", "buffer"] {
            let mut scenario = out_and_back(kind, mode, 14_000_000);
            common::extend_wlans(&mut scenario, &wlan);
            for link in scenario["links"].as_array_mut().unwrap() {
                for way in ["a_to_b", "b_to_a"] {
                    link[way]["rate_bps"] = json!(50_000_000);
                }
            }
            scenario["flows"][0]["app"]["tcp"] =
                json!({"mss": 1460, "receive_buffer": 32_768, "window_scaling": true});
            let summary = run(&scenario).summary;
            let old = &summary.wlans[0].counters;
            eprintln!("{kind} {mode}: {old:?}");
            assert!(
                old.reordered_mpdus > 100,
                "{kind} {mode}: MPDUs waited for others"
            );
            assert!(
                2 * old.ampdu_mpdus > 3 * old.ampdus,
                "{kind} {mode}: aggregated"
            );
            let flow = &summary.flows[0];
            assert_eq!(
                (flow.completed, flow.bytes_delivered),
                (Some(true), 14_000_000),
                "{kind} {mode}: {flow:?}"
            );
        }
    }
}

/// Paper 001's mobile with `kind` driven out and back through both cells (bs1, a gap, bs2,
/// and bs1 again), frames lost or held (`mode`) while detached, sending `bytes`.
fn out_and_back(kind: &str, mode: &str, bytes: u64) -> Value {
    let mut scenario = with_agent(drive(120.0, 60), kind);
    scenario["mobiles"][0]["while_detached"] = json!(mode);
    scenario["mobiles"][0]["movement"]["path"] = json!([
        {"at_ns": 0, "x_m": 0.0, "y_m": 0.0},
        {"at_ns": 10 * S, "x_m": 300.0, "y_m": 0.0},
        {"at_ns": 20 * S, "x_m": 0.0, "y_m": 0.0},
    ]);
    scenario["flows"][0]["app"]["bytes"] = json!(bytes);
    scenario
}

/// Paper 001's mobile driven out and back through both cells, each agent, frames lost or
/// held while detached: the 2 MB transfer completes exactly; `wlan` set on both BSSs.
fn byte_stream_through_movement(wlan: Value) {
    for kind in [
        "none",
        "snoop",
        "freeze",
        "snoop_freeze",
        "mtcp",
        "fast_retransmit",
    ] {
        for mode in ["lose", "buffer"] {
            let mut scenario = out_and_back(kind, mode, 2_000_000);
            common::extend_wlans(&mut scenario, &wlan);
            let summary = run(&scenario).summary;
            assert_eq!(summary.mobiles[0].handoffs.len(), 2, "{kind} {mode}");
            let flow = &summary.flows[0];
            assert_eq!(
                (flow.completed, flow.bytes_delivered),
                (Some(true), 2_000_000),
                "{kind} {mode}: {flow:?}"
            );
        }
    }
}
