//! Scenario builders shared by the integration tests.
#![allow(dead_code)]

pub mod park;

use airtcp_sim::wlan::MacCounters;
use airtcp_sim::{run_json, RunOptions, RunResult};
use serde_json::{json, Value};

pub const MS: u64 = 1_000_000;
pub const S: u64 = 1_000_000_000;

/// Sets flow `flow`'s congestion controller; BBR with the RACK-TLP and SACK it needs (and the
/// zero-window rule RACK-TLP goes with: the linux profile's), the rest of TCP as it was.
pub fn set_controller(scenario: &mut Value, flow: usize, controller: &str) {
    let app = &mut scenario["flows"][flow]["app"];
    app["congestion_control"] = json!(controller);
    if controller == "bbr" {
        app["tcp"]["loss_recovery"] = json!("rack_tlp");
        app["tcp"]["sack"] = json!(true);
        app["tcp"]["zero_window"] = json!("retransmit");
    }
}

/// Runs a scenario, keeping its time series.
pub fn run(scenario: &Value) -> RunResult {
    let options = RunOptions {
        time_series: true,
        ..RunOptions::default()
    };
    run_json(&scenario.to_string(), &options).expect("scenario runs")
}

/// `n` stations saturating an 802.11b BSS with UDP towards the AP.
pub fn saturation(n: usize, msdu: u32, rts: bool, seed: u64, duration_s: u64) -> Value {
    let phy = json!({"standard": "802.11b", "rate_bps": 11_000_000, "basic_rate_bps": 1_000_000});
    saturation_on(phy, 11_000_000, n, msdu, rts, seed, duration_s)
}

/// `n` stations saturating a BSS with the given PHY (`rate_bps` is its data rate).
pub fn saturation_on(
    phy: Value,
    rate_bps: u64,
    n: usize,
    msdu: u32,
    rts: bool,
    seed: u64,
    duration_s: u64,
) -> Value {
    let mut nodes = vec!["ap".to_string()];
    nodes.extend((1..=n).map(|i| format!("sta{i}")));
    let payload = msdu - 8 - 20 - 8; // LLC/SNAP, IPv4, UDP
                                     // Offer twice the channel's capacity so that every queue stays backlogged.
    let rate = 2 * rate_bps / n as u64 + 1_000_000;
    let flows: Vec<Value> = (1..=n)
        .map(|i| {
            json!({"name": format!("udp{i}"), "src": i, "dst": 0,
            "app": {"kind": "udp_cbr", "rate_bps": rate, "payload_bytes": payload}})
        })
        .collect();
    json!({
        "name": "saturation", "seed": seed, "duration_ns": duration_s * S, "measure_from_ns": 2 * S,
        "nodes": nodes,
        "wlans": [{"ap": 0, "stations": (1..=n).collect::<Vec<_>>(),
                   "phy": phy,
                   "rts_threshold": if rts { Some(0) } else { None }, "queue_packets": 50,
                   // Bianchi's saturated stations keep every frame until sent or dropped.
                   "msdu_lifetime_ns": null}],
        "flows": flows,
    })
}

/// One TCP flow from `a` to `b` over a single wired link.
pub fn wired_tcp(
    rate_bps: u64,
    delay_ms: u64,
    queue_packets: u32,
    loss: f64,
    bytes: Option<u64>,
    seed: u64,
    duration_s: u64,
) -> Value {
    let direction = json!({"rate_bps": rate_bps, "delay_ns": delay_ms * MS,
                           "queue": {"packets": queue_packets}, "errors": {"loss": loss}});
    let reverse = json!({"rate_bps": rate_bps, "delay_ns": delay_ms * MS, "queue": {"packets": queue_packets}});
    json!({
        "name": "wired", "seed": seed, "duration_ns": duration_s * S, "measure_from_ns": 5 * S,
        "sample_interval_ns": 10 * MS,
        "nodes": ["a", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": direction, "b_to_a": reverse}],
        "flows": [{"name": "tcp", "src": 0, "dst": 1, "app": {"kind": "tcp_bulk", "bytes": bytes,
                   "tcp": {"send_buffer": 1 << 20, "receive_buffer": 1 << 20, "time_wait_ns": S}}}],
    })
}

/// Paper 000's upload setup: `n` 802.11b stations, each uploading over TCP (1024-byte
/// segments) to its own server behind a router; wired links 100 Mbit/s, 5 ms.
pub fn upload(n: usize, agent: Option<Value>, seed: u64, duration_s: u64) -> Value {
    let mut nodes = vec!["ap".to_string(), "router".to_string()];
    nodes.extend((1..=n).map(|i| format!("sta{i}")));
    nodes.extend((1..=n).map(|i| format!("srv{i}")));
    let wired = json!({"rate_bps": 100_000_000u64, "delay_ns": 5 * MS});
    let mut links = vec![json!({"a": 0, "b": 1, "a_to_b": wired, "b_to_a": wired})];
    links
        .extend((1..=n).map(|i| json!({"a": 1, "b": 1 + n + i, "a_to_b": wired, "b_to_a": wired})));
    let flows: Vec<Value> = (1..=n)
        .map(|i| {
            json!({"name": format!("up{i}"), "src": 1 + i, "dst": 1 + n + i,
            "app": {"kind": "tcp_bulk", "tcp": {"mss": 1024}}})
        })
        .collect();
    json!({
        "name": "upload", "seed": seed, "duration_ns": duration_s * S, "measure_from_ns": 5 * S,
        "nodes": nodes,
        "links": links,
        "wlans": [{"ap": 0, "stations": (2..2 + n).collect::<Vec<_>>(),
                   "phy": {"standard": "802.11b", "rate_bps": 11_000_000, "basic_rate_bps": 1_000_000},
                   "agent": agent}],
        "flows": flows,
    })
}

/// A WLAN whose AP aggregated up to `most` ACKs a frame: over 100 aggregates of two or more,
/// each one acknowledged MAC frame carrying several MSDUs.
pub fn assert_aggregated(c: &MacCounters, most: u64) {
    assert!(c.aggregates > 100, "{} aggregates", c.aggregates);
    assert!(c.aggregated_msdus <= most * c.aggregates && c.aggregated_msdus >= 2 * c.aggregates);
    assert_eq!(
        c.delivered_msdus - c.successes,
        c.aggregated_msdus - c.aggregates
    );
}

/// Adds the settings of `wlan` (a JSON object) to the scenario's first WLAN.
pub fn extend_wlan(scenario: &mut Value, wlan: &Value) {
    if let (Some(own), Some(more)) = (scenario["wlans"][0].as_object_mut(), wlan.as_object()) {
        own.extend(more.clone());
    }
}

/// Adds `wlan`'s settings to every WLAN of `scenario`.
pub fn extend_wlans(scenario: &mut Value, wlan: &Value) {
    for own in scenario["wlans"].as_array_mut().into_iter().flatten() {
        if let (Some(own), Some(more)) = (own.as_object_mut(), wlan.as_object()) {
            own.extend(more.clone());
        }
    }
}

/// One station sending UDP to its AP at twice `rate_bps` (1472-byte payloads) over `phy`,
/// its MAC queue `queue_packets` deep, for `seconds` (measured from 2 s); `wlan` adds to
/// the WLAN.
pub fn one_station_upload(
    phy: Value,
    (rate_bps, queue_packets): (u64, u32),
    wlan: Value,
    seconds: u64,
) -> Value {
    let mut scenario = json!({
        "name": "one-station", "seed": 1, "duration_ns": seconds * S, "measure_from_ns": 2 * S,
        "nodes": ["ap", "sta"],
        "wlans": [{"ap": 0, "stations": [1], "phy": phy, "queue_packets": queue_packets}],
        "flows": [{"name": "up", "src": 1, "dst": 0,
                   "app": {"kind": "udp_cbr", "rate_bps": 2 * rate_bps, "payload_bytes": 1472}}],
    });
    extend_wlan(&mut scenario, &wlan);
    scenario
}

/// TCP up from a station over an 802.11ac link (80 MHz, MCS 9) that loses 10 % of MPDUs,
/// behind a 1 Gbit/s, 10 ms wired hop of `wired_queue` packets (`None`: the default): a
/// retry limit of 30 (as ath9k's software retries of aggregated frames) and a window that
/// fits the MAC queue, so that nothing is dropped; `wlan` adds to the WLAN.
pub fn lossy_tcp_upload(wlan: Value, wired_queue: Option<u32>) -> Value {
    let mut wired = json!({"rate_bps": 1_000_000_000u64, "delay_ns": 10 * MS});
    if let Some(packets) = wired_queue {
        wired["queue"] = json!({"packets": packets});
    }
    let phy = json!({"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80});
    let mut scenario = json!({
        "name": "lossy-tcp", "seed": 3, "duration_ns": 10 * S, "measure_from_ns": 2 * S,
        "nodes": ["ap", "server", "sta"],
        "links": [{"a": 0, "b": 1, "a_to_b": wired, "b_to_a": wired}],
        "wlans": [{"ap": 0, "stations": [2], "phy": phy, "errors": {"loss": 0.1},
                   "queue_packets": 1000, "short_retry_limit": 30}],
        "flows": [{"name": "up", "src": 2, "dst": 1,
                   "app": {"kind": "tcp_bulk", "tcp": {"window_scaling": true,
                           "send_buffer": 1_000_000, "receive_buffer": 1_000_000}}}],
    });
    extend_wlan(&mut scenario, &wlan);
    scenario
}

/// Nothing was dropped in the run's first WLAN and its first flow (TCP) saw every segment
/// once and in order.
pub fn assert_nothing_lost_in_order(summary: &airtcp_sim::Summary) {
    let wlan = &summary.wlans[0].counters;
    let flow = &summary.flows[0];
    assert_eq!(
        (wlan.retry_drops, wlan.queue_drops),
        (0, 0),
        "nothing dropped"
    );
    assert_eq!(
        (flow.duplicate_acks, flow.retransmissions),
        (0, 0),
        "every segment arrived, in order"
    );
}

/// 802.11n, the AP and `n` stations each sending UDP to the other side at 5 Mbit/s in the
/// DSCPs `dscps` (by flow, both ways), for 0.3 s, then 1.7 s for the queues to drain.
#[allow(clippy::too_many_arguments)]
pub fn two_way_udp(
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

/// What a run did with the datagrams of `two_way_udp`'s flows (1000-byte payloads): sent,
/// delivered, counted dropped by the MAC (queue, retries, CoDel, a qdisc's AQM, lifetime,
/// sojourn limit), and the MSDUs its first WLAN counts delivered.
pub fn datagram_accounts(summary: &airtcp_sim::Summary) -> (u64, u64, u64, u64) {
    let sent = summary.flows.iter().map(|f| f.packets_sent).sum();
    let delivered = summary.flows.iter().map(|f| f.bytes_delivered / 1000).sum();
    let c = &summary.wlans[0].counters;
    let dropped = c.queue_drops
        + c.retry_drops
        + c.codel_drops
        + c.aqm_drops
        + c.lifetime_drops
        + c.queue_delay_drops;
    (sent, delivered, dropped, c.delivered_msdus)
}

/// `two_way_udp`'s DSCPs for a property test: one to three of the four ACs' (BE, BK, VI, VO).
pub fn dscp_sets() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    proptest::collection::vec(proptest::sample::select(&[0u8, 8, 34, 46][..]), 1..4)
}

/// `two_way_udp`'s queueing settings for a property test.
pub fn queueings() -> impl proptest::strategy::Strategy<Value = &'static str> {
    proptest::sample::select(&["fifo", "fq_codel", "fq_codel_airtime"][..])
}

/// A station `x` metres from its AP uploading over TCP to a server 10 ms behind it, with
/// Rayleigh fading drawn per frame, MPDU retries enough that none is dropped.
pub fn tcp_upload_with_fading(x: f64, seed: u64) -> Value {
    let wired = json!({"rate_bps": 1_000_000_000u64, "delay_ns": 10_000_000u64});
    json!({
        "name": "radio-ampdu-tcp", "seed": seed, "duration_ns": 8 * S, "measure_from_ns": 2 * S,
        "nodes": ["ap", "server", "sta"],
        "links": [{"a": 0, "b": 1, "a_to_b": wired, "b_to_a": wired}],
        "wlans": [{"ap": 0, "stations": [2], "queue_packets": 1000, "edca": false,
                   "short_retry_limit": 255, "long_retry_limit": 255,
                   "phy": {"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80}}],
        "positions": [{"node": 0, "x": 0.0, "y": 0.0}, {"node": 1, "x": 0.0, "y": 0.0},
                      {"node": 2, "x": x, "y": 0.0}],
        "radio": {"fading": {"model": "rayleigh"}},
        "flows": [{"name": "up", "src": 2, "dst": 1,
                   "app": {"kind": "tcp_bulk", "tcp": {"window_scaling": true,
                           "send_buffer": 1_000_000, "receive_buffer": 1_000_000}}}],
    })
}

/// `tcp_upload_with_fading`'s run: at least `failed` MPDUs lost and as many held in the
/// recipient's buffer, at least `duplicates` received again (BlockAcks lost), none dropped,
/// and TCP saw every segment once and in order at over 100 Mbit/s.
pub fn assert_tcp_intact_over_lossy_ampdus(
    summary: &airtcp_sim::Summary,
    failed: u64,
    duplicates: u64,
) {
    let wlan = &summary.wlans[0];
    let (c, radio) = (&wlan.counters, wlan.radio.as_ref().expect("geometry"));
    let flow = &summary.flows[0];
    eprintln!("{c:?}\n{radio:?}\n{flow:?}");
    assert!(
        c.ampdu_failed_mpdus > failed && c.reordered_mpdus > failed,
        "{c:?}"
    );
    assert!(radio.duplicates > duplicates, "{radio:?}: BlockAcks lost");
    assert_eq!((c.retry_drops, c.queue_drops), (0, 0));
    assert_eq!((flow.duplicate_acks, flow.retransmissions), (0, 0));
    assert!(flow.goodput_bps > 100e6, "{}", flow.goodput_bps);
}

/// Runs a one-station upload (`one_station_upload`'s, placed) as seed `seed` with Rayleigh
/// fading, the AP sending the same back, both for 1 s so that the queues drain by the end:
/// the summary and the datagrams sent and delivered (1472-byte payloads).
pub fn run_both_ways_with_fading(
    mut scenario: Value,
    seed: u64,
) -> (airtcp_sim::Summary, u64, u64) {
    scenario["seed"] = json!(seed);
    scenario["radio"] = json!({"fading": {"model": "rayleigh"}});
    let mut down = scenario["flows"][0].clone();
    down["name"] = json!("down");
    (down["src"], down["dst"]) = (json!(0), json!(1));
    scenario["flows"].as_array_mut().unwrap().push(down);
    for flow in scenario["flows"].as_array_mut().unwrap() {
        flow["stop_ns"] = json!(S);
    }
    scenario["measure_from_ns"] = json!(0);
    let summary = run(&scenario).summary;
    let sent = summary.flows.iter().map(|f| f.packets_sent).sum();
    let delivered = summary.flows.iter().map(|f| f.bytes_delivered / 1472).sum();
    eprintln!(
        "seed {seed}: sent {sent} delivered {delivered} {:?}",
        summary.wlans[0]
    );
    (summary, sent, delivered)
}

/// The round trips of ping flow `flow`'s probes that came back, in ms, in the order sent.
pub fn ping_rtts_ms(summary: &airtcp_sim::Summary, flow: usize) -> Vec<f64> {
    let probes = summary.flows[flow].probes.as_ref().expect("a ping flow");
    probes
        .sent_ns
        .iter()
        .zip(&probes.returned_ns)
        .filter_map(|(sent, back)| back.map(|b| (b - sent) as f64 / 1e6))
        .collect()
}
