//! No MSDU is lost or duplicated whatever the central DCF runs (EDCA, A-MPDU, mac80211's
//! queues, an AP agent, channel errors, stations at their own MCSs): every datagram the
//! stations' and the AP's flows send is delivered once, or counted dropped by the MAC.

mod common;

use common::{run, MS, S};
use proptest::prelude::*;
use serde_json::{json, Value};

/// 802.11n, the AP and `n` stations each sending UDP to the other side at 5 Mbit/s in the
/// DSCPs `dscps` (by flow, both ways), for 0.3 s, then 1.7 s for the queues to drain.
#[allow(clippy::too_many_arguments)]
fn scenario(
    n: usize,
    dscps: &[u8],
    ampdu: bool,
    queueing: &str,
    agent: Option<&str>,
    loss: f64,
    slow: bool,
    seed: u64,
) -> Value {
    let mut nodes = vec!["ap".to_string()];
    nodes.extend((1..=n).map(|i| format!("sta{i}")));
    let mut flows = Vec::new();
    for i in 1..=n {
        for (k, (src, dst)) in [(i, 0), (0, i)].into_iter().enumerate() {
            flows.push(json!({
                "name": format!("f{i}{k}"), "src": src, "dst": dst, "stop_ns": 300 * MS,
                "dscp": dscps[(2 * i + k) % dscps.len()],
                "app": {"kind": "udp_cbr", "rate_bps": 5_000_000, "payload_bytes": 1000}}));
        }
    }
    let mut wlan = json!({"ap": 0, "stations": (1..=n).collect::<Vec<_>>(),
        "phy": {"standard": "802.11n", "mcs": 7}, "ampdu": ampdu, "queueing": queueing,
        "queue_packets": 50, "errors": {"loss": loss}, "agent": agent.map(|kind| json!({"kind": kind, "ac": "vo"}))});
    if slow {
        wlan["station_mcs"] = json!([{"station": 1, "mcs": 0}]);
    }
    json!({"name": "conservation", "seed": seed, "duration_ns": 2 * S, "nodes": nodes,
           "wlans": [wlan], "flows": flows})
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_datagram_is_delivered_once_or_counted_dropped(
        n in 1usize..4,
        dscps in proptest::collection::vec(proptest::sample::select(&[0u8, 8, 34, 46][..]), 1..4),
        ampdu in any::<bool>(),
        queueing in proptest::sample::select(&["fifo", "fq_codel", "fq_codel_airtime"][..]),
        ack_priority in any::<bool>(),
        loss in proptest::sample::select(&[0.0, 0.1, 0.4][..]),
        slow in any::<bool>(),
        seed in 1u64..1000,
    ) {
        // mac80211's queues do not run beside an AP agent
        let agent = (ack_priority && queueing == "fifo").then_some("ack_priority");
        let summary = run(&scenario(n, &dscps, ampdu, queueing, agent, loss, slow, seed)).summary;
        let sent: u64 = summary.flows.iter().map(|f| f.packets_sent).sum();
        let delivered: u64 = summary.flows.iter().map(|f| f.bytes_delivered / 1000).sum();
        let c = &summary.wlans[0].counters;
        let dropped = c.queue_drops + c.retry_drops + c.codel_drops;
        prop_assert_eq!(sent, delivered + dropped, "sent {} delivered {} dropped {:?}",
            sent, delivered, (c.queue_drops, c.retry_drops, c.codel_drops));
        prop_assert_eq!(c.delivered_msdus, delivered);
    }
}
