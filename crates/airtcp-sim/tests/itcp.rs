//! I-TCP at the base stations (paper 001's baseline; Bakre and Badrinath 1995): each
//! connection to the mobile split in two, wireless losses repaired on the wireless hop, the
//! connections handed from base station to base station with the mobile, and the fixed
//! sender's data acknowledged before the mobile has it.

mod common;

use common::park::{park, two_handoffs, with_agent, Cells};
use common::{run, MS, S};
use serde_json::{json, Value};

/// Paper 001's network on links, no handoff, `loss` on the wireless hop towards the mobile.
fn lossy(loss: f64, bytes: u64) -> Value {
    let mut scenario = park(Cells::Links, json!([]), "lose", bytes, 60);
    scenario["links"][3]["a_to_b"]["errors"] = json!({"loss": loss, "ber": 0.0});
    scenario
}

fn counters(summary: &airtcp_sim::summary::Summary, node: &str) -> Vec<(String, u64)> {
    let agent = summary
        .agents
        .iter()
        .find(|a| a.node == node)
        .expect("placed");
    agent
        .counters
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect()
}

#[test]
fn wireless_losses_are_repaired_on_the_wireless_hop_unseen_by_the_sender() {
    let bytes = 2_000_000;
    let plain = run(&lossy(0.02, bytes)).summary;
    assert!(plain.flows[0].retransmissions > 10, "{:?}", plain.flows[0]);
    let split = run(&with_agent(lossy(0.02, bytes), "itcp")).summary;
    let flow = &split.flows[0];
    assert_eq!(flow.bytes_delivered, bytes);
    assert_eq!(flow.completed, Some(true), "{flow:?}");
    // No wireless loss reaches the sender's loss detection. (Its SYN may go twice: the base
    // station answers once the mobile has, and a lost wireless SYN waits a 1 s RTO.)
    let loss_signals = (flow.duplicate_acks, flow.fast_retransmits, flow.timeouts);
    assert_eq!(loss_signals, (0, 0, 0), "{flow:?}");
    assert!(flow.retransmissions <= 1, "{flow:?}");
    let bs1 = counters(&split, "bs1");
    assert!(bs1.contains(&("split_connections".into(), 1)), "{bs1:?}");
    assert!(bs1.contains(&("relayed_bytes".into(), bytes)), "{bs1:?}");
}

#[test]
fn the_split_connections_move_with_the_mobile() {
    for cells in [Cells::Links, Cells::Wlans] {
        let bytes = 600_000;
        let scenario = with_agent(park(cells, two_handoffs(), "lose", bytes, 60), "itcp");
        let summary = run(&scenario).summary;
        let flow = &summary.flows[0];
        assert_eq!(flow.bytes_delivered, bytes, "{cells:?}");
        assert_eq!(flow.completed, Some(true), "{cells:?}: {flow:?}");
        let (bs1, bs2) = (counters(&summary, "bs1"), counters(&summary, "bs2"));
        for (name, expect) in [("handed_over", 1), ("taken_over", 1)] {
            assert!(bs1.contains(&(name.into(), expect)), "{cells:?}: {bs1:?}");
            assert!(bs2.contains(&(name.into(), expect)), "{cells:?}: {bs2:?}");
        }
    }
}

#[test]
fn the_sender_has_its_data_acknowledged_before_the_mobile_has_it() {
    // The mobile leaves at 0.5 s for longer than the run: the fixed host's transfer of
    // 100 kB completes against the base station, the mobile never gets all of it.
    let bytes = 100_000;
    let away = json!([{"at_ns": 500 * MS, "to": 3, "duration_ns": 100 * S}]);
    let mut scenario = with_agent(park(Cells::Links, away, "lose", bytes, 10), "itcp");
    scenario["sample_interval_ns"] = json!(10 * MS);
    let result = run(&scenario);
    let acked = *result.series.bytes_acked.last().unwrap();
    assert_eq!(acked, bytes, "the sender's view");
    assert!(result.summary.flows[0].bytes_delivered < bytes);
}
