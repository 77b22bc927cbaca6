//! A mobile host moving between two base stations (paper 001's setup): the handoff steps as
//! the summary reports them, what standard TCP suffers, what freeze and Snoop change, packets
//! held and forwarded, and the exact byte stream under any agent and handoff pattern.

mod common;

use common::park::{
    changed_windows, park as park_on, two_handoffs, window_over_time, with_agent, Cells,
};
use common::{run, MS, S};
use proptest::prelude::*;
use serde_json::{json, Value};

#[test]
fn the_summary_lists_each_handoffs_steps() {
    let summary = serde_json::to_value(run(&park(two_handoffs(), "lose", 0, 10)).summary).unwrap();
    let handoffs = &summary["mobiles"][0]["handoffs"];
    assert_eq!(summary["mobiles"][0]["node"], "mh");
    assert_eq!(handoffs.as_array().unwrap().len(), 2);
    let first = &handoffs[0];
    assert_eq!(
        (first["from"].as_str(), first["to"].as_str()),
        (Some("bs1"), Some("bs2"))
    );
    assert_eq!(first["detach_s"], 2.5);
    assert_eq!(first["attach_s"], 3.5);
    // The next beacon (every 102.4 ms) after 2.5 s, then 1 ms greeting and 2 ms inform.
    let beacon = (2.5f64 / 0.1024).ceil() * 0.1024;
    assert!((first["beacon_s"].as_f64().unwrap() - beacon).abs() < 1e-9);
    assert!((first["inform_s"].as_f64().unwrap() - (beacon + 0.003)).abs() < 1e-9);
    assert_eq!(handoffs[1]["from"], "bs2");
    assert_eq!(handoffs[1]["completed"], true);
}

/// Each handoff's detach and attach, in seconds, with the seed.
fn detach_attach(scenario: &Value, seed: u64) -> Vec<(f64, f64)> {
    let mut scenario = scenario.clone();
    scenario["seed"] = json!(seed);
    run(&scenario).summary.mobiles[0]
        .handoffs
        .iter()
        .map(|h| (h.detach_s, h.attach_s))
        .collect()
}

#[test]
fn jitter_moves_each_handoff_by_the_seed_and_the_mobiles_duration_applies() {
    let mut scenario = park(
        json!([{"at_ns": 2_500 * MS, "to": 3}, {"at_ns": 7 * S, "to": 2, "duration_ns": S / 2}]),
        "buffer",
        0,
        10,
    );
    scenario["mobiles"][0]["handoff_jitter_ns"] = json!(300 * MS);
    scenario["mobiles"][0]["handoff_duration_ns"] = json!(2 * S);
    let runs: Vec<Vec<(f64, f64)>> = (1..=8).map(|seed| detach_attach(&scenario, seed)).collect();
    assert_eq!(runs[0], detach_attach(&scenario, 1), "the seed decides");
    for timeline in &runs {
        let [(detach0, attach0), (detach1, attach1)] = timeline[..] else {
            panic!("two handoffs")
        };
        assert!((2.5..=2.8).contains(&detach0) && (7.0..=7.3).contains(&detach1));
        assert!(
            (attach0 - detach0 - 2.0).abs() < 1e-9,
            "the mobile's duration"
        );
        assert!(
            (attach1 - detach1 - 0.5).abs() < 1e-9,
            "the handoff's own duration wins"
        );
    }
    let starts: std::collections::BTreeSet<u64> =
        runs.iter().map(|t| (t[0].0 * 1e9) as u64).collect();
    assert!(
        starts.len() >= 6,
        "the starts differ between seeds: {starts:?}"
    );
    scenario["mobiles"][0]["handoff_jitter_ns"] = json!(0);
    assert_eq!(detach_attach(&scenario, 3)[0].0, 2.5, "no jitter, no delay");
}

#[test]
fn the_time_series_marks_the_samples_in_a_handoff() {
    let mut scenario = park(two_handoffs(), "buffer", 0, 10);
    scenario["sample_interval_ns"] = json!(10 * MS);
    let result = run(&scenario);
    let handoffs = &result.summary.mobiles[0].handoffs;
    let s = &result.series;
    assert_eq!(s.in_handoff.len(), s.len());
    for i in 0..s.len() {
        let t = s.time_s[i];
        let inside = handoffs
            .iter()
            .any(|h| t >= h.detach_s && t < h.detach_s + h.duration_s);
        assert_eq!(s.in_handoff[i], inside, "at {t} s");
    }
    assert_eq!(
        s.in_handoff.iter().filter(|&&b| b).count(),
        200,
        "2 x 1 s at 10 ms"
    );
}

#[test]
fn standard_tcp_times_out_at_each_handoff_and_restarts_from_one_segment() {
    let mut scenario = park(two_handoffs(), "lose", 0, 10);
    scenario["sample_interval_ns"] = json!(10 * MS);
    let result = run(&scenario);
    let flow = &result.summary.flows[0];
    assert!(flow.timeouts >= 2, "{flow:?}");
    let series = &result.series;
    let cwnd_in = |from: f64, to: f64| {
        (0..series.len())
            .filter(|&i| (from..to).contains(&series.time_s[i]))
            .map(|i| series.cwnd_bytes[i])
            .collect::<Vec<_>>()
    };
    for (before, after) in [((2.0, 2.5), (2.5, 5.0)), ((6.5, 7.0), (7.0, 9.5))] {
        assert!(cwnd_in(before.0, before.1).iter().all(|&c| c > 8 * 512));
        assert!(
            cwnd_in(after.0, after.1).contains(&512),
            "cwnd restarts after {after:?}"
        );
    }
    let quiet = run(&park(json!([]), "lose", 0, 10)).summary.flows[0].clone();
    assert_eq!(quiet.timeouts, 0);
    assert!(
        flow.goodput_bps < 0.85 * quiet.goodput_bps,
        "{flow:?} vs {quiet:?}"
    );
}

#[test]
fn held_packets_are_forwarded_through_the_new_cell() {
    let summary = run(&park(two_handoffs(), "buffer", 0, 10)).summary;
    let mobile = &summary.mobiles[0];
    assert!(mobile.forwarded_packets > 0, "{mobile:?}");
    let lost = run(&park(two_handoffs(), "lose", 0, 10)).summary;
    assert_eq!(lost.mobiles[0].forwarded_packets, 0);
    let cell_losses = |s: &airtcp_sim::Summary| s.links.iter().map(|l| l.lost).sum::<u64>();
    assert!(cell_losses(&lost) > cell_losses(&summary));
}

/// Paper 001's scenario with `kind` and the sender's zero-window rule.
fn frozen(kind: &str, mode: &str, zero_window: &str) -> Value {
    let mut scenario = with_agent(park(two_handoffs(), mode, 0, 10), kind);
    scenario["flows"][0]["app"]["tcp"]["zero_window"] = json!(zero_window);
    scenario
}

#[test]
fn freeze_keeps_the_window_and_timer_of_the_sender_the_paper_assumes() {
    for mode in ["lose", "buffer"] {
        // Through each handoff, until the window reopens.
        let (flow, samples) = window_over_time(&frozen("freeze", mode, "hold"));
        assert_eq!(flow.timeouts, 0, "{mode}: {flow:?}");
        assert_eq!(changed_windows(&samples, 0.0), [], "{mode}");
        // With Snoop in front, also after it: the mobile's duplicate ACKs for forwarded
        // segments it already had never reach the sender.
        let (flow, samples) = window_over_time(&frozen("snoop_freeze", mode, "hold"));
        assert_eq!(
            (flow.timeouts, flow.duplicate_acks),
            (0, 0),
            "{mode}: {flow:?}"
        );
        assert_eq!(changed_windows(&samples, 1.0), [], "{mode}");
        let standard = run(&park(two_handoffs(), mode, 0, 10)).summary.flows[0].clone();
        assert!(standard.timeouts >= 2, "{mode}: {standard:?}");
    }
}

#[test]
fn freeze_spares_a_bsd_sender_its_timeouts_but_not_a_linux_one() {
    // BSD rewinds to the first unacknowledged byte when the window closes; Linux's timer
    // keeps running through the freeze.
    let bsd = run(&frozen("freeze", "lose", "persist")).summary.flows[0].clone();
    assert_eq!(bsd.timeouts, 0, "{bsd:?}");
    let linux = run(&frozen("freeze", "lose", "retransmit")).summary.flows[0].clone();
    assert!(linux.timeouts >= 2, "{linux:?}");
}

#[test]
fn snoop_repairs_a_wireless_loss_without_the_sender_seeing_a_duplicate_ack() {
    use airtcp_proto::agent::{Agent, Direction, InterfaceQueue, Verdict};
    use airtcp_proto::wire::PacketRepr;
    use airtcp_proto::Instant;

    /// On the mobile: loses the 100th data segment arriving over the air.
    #[derive(Debug, Default)]
    struct LoseOne(u32);
    impl Agent for LoseOne {
        fn name(&self) -> &'static str {
            "lose_one"
        }
        fn handle_packet(
            &mut self,
            _: Instant,
            d: Direction,
            p: &mut PacketRepr,
            _: &mut dyn InterfaceQueue,
        ) -> Verdict {
            if d == Direction::Inbound && p.tcp().is_some_and(|t| t.payload_len > 0) {
                self.0 += 1;
                if self.0 == 100 {
                    return Verdict::Drop;
                }
            }
            Verdict::Pass
        }
    }
    for kind in ["none", "snoop"] {
        let scenario = with_agent(park(json!([]), "lose", 2_000_000, 30), kind);
        let scenario = airtcp_sim::Scenario::from_json(&scenario.to_string()).unwrap();
        let mut sim =
            airtcp_sim::Simulation::new(scenario, &airtcp_sim::RunOptions::default()).unwrap();
        sim.place_agent("mh", Some("bs1"), Box::new(LoseOne::default()))
            .unwrap();
        let flow = sim.run().unwrap().summary.flows[0].clone();
        assert_eq!(
            (flow.completed, flow.bytes_delivered),
            (Some(true), 2_000_000)
        );
        if kind == "snoop" {
            assert_eq!(
                (flow.retransmissions, flow.duplicate_acks, flow.timeouts),
                (0, 0, 0),
                "{flow:?}"
            );
        } else {
            assert!(
                flow.retransmissions >= 1 && flow.duplicate_acks >= 3,
                "{flow:?}"
            );
        }
    }
}

/// Paper 001's network with links for cells.
fn park(handoffs: Value, while_detached: &str, bytes: u64, duration_s: u64) -> Value {
    park_on(Cells::Links, handoffs, while_detached, bytes, duration_s)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Any handoffs (start, duration, set or from the procedure), held or lost, any agent,
    /// links or 802.11 BSSs for cells, with or without wireless losses: the mobile receives
    /// the exact byte stream.
    #[test]
    fn the_byte_stream_arrives_exactly_through_any_handoffs(
        gaps in proptest::collection::vec((100u64..3_000, proptest::option::of(1u64..3_000)), 1..4),
        buffer in any::<bool>(),
        kind in proptest::sample::select(
            &["none", "snoop", "freeze", "snoop_freeze", "itcp", "mtcp", "fast_retransmit"][..]),
        loss in proptest::sample::select(&[0.0, 0.02][..]),
        wlan in any::<bool>(),
    ) {
        let mut at = 0;
        let mut cell = 2;
        let handoffs: Vec<Value> = gaps
            .iter()
            .map(|&(gap_ms, duration_ms)| {
                at += gap_ms * MS;
                cell = 5 - cell;
                let h = json!({"at_ns": at, "to": cell,
                               "duration_ns": duration_ms.map(|d| d * MS)});
                at += duration_ms.unwrap_or(200) * MS + 200 * MS;
                h
            })
            .collect();
        let bytes = 1_000_000;
        let cells = if wlan { Cells::Wlans } else { Cells::Links };
        let mode = if buffer { "buffer" } else { "lose" };
        let mut scenario = park_on(cells, json!(handoffs), mode, bytes, 120);
        let errors = json!({"loss": loss, "ber": 0.0});
        if wlan {
            for bss in 0..2 {
                scenario["wlans"][bss]["errors"] = errors.clone();
            }
        } else {
            for cell in [3, 4] {
                scenario["links"][cell]["a_to_b"]["errors"] = errors.clone();
            }
        }
        let scenario = with_agent(scenario, kind);
        let flow = run(&scenario).summary.flows[0].clone();
        prop_assert_eq!(flow.completed, Some(true), "{:?}", flow);
        prop_assert_eq!(flow.bytes_delivered, bytes);
    }
}
