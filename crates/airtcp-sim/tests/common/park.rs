//! Paper 001's network: fh - router - bs1 | bs2 - mh, a mobile host with a cell at each base
//! station, either a 1.5 Mbit/s, 10 ms wireless link or an 802.11b BSS at 2 Mbit/s (one per
//! base station, each on its own channel); 1.5 Mbit/s, 1 ms wired links, a 512-byte MSS and a
//! 32-segment window, `bytes` from fh to mh (0: unbounded).

use serde_json::{json, Value};

use super::{run, MS, S};

/// What a mobile's cells are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cells {
    Links,
    Wlans,
}

pub const FH: usize = 0;
pub const BS1: usize = 2;
pub const BS2: usize = 3;
pub const MH: usize = 4;

fn link(a: usize, b: usize, delay_ms: u64) -> Value {
    let d = json!({"rate_bps": 1_500_000, "delay_ns": delay_ms * MS, "queue": {"packets": 100}});
    json!({"a": a, "b": b, "a_to_b": d, "b_to_a": d})
}

/// An 802.11b BSS at 2 Mbit/s with `stations`.
pub fn bss(ap: usize, stations: &[usize]) -> Value {
    json!({"ap": ap, "stations": stations,
           "phy": {"standard": "802.11b", "rate_bps": 2_000_000, "basic_rate_bps": 1_000_000}})
}

pub fn park(
    cells: Cells,
    handoffs: Value,
    while_detached: &str,
    bytes: u64,
    duration_s: u64,
) -> Value {
    let mut links = vec![link(FH, 1, 1), link(1, BS1, 1), link(1, BS2, 1)];
    let mut wlans = vec![];
    match cells {
        Cells::Links => links.extend([link(BS1, MH, 10), link(BS2, MH, 10)]),
        Cells::Wlans => wlans.extend([bss(BS1, &[MH]), bss(BS2, &[MH])]),
    }
    json!({
        "name": "park", "seed": 1, "duration_ns": duration_s * S, "measure_from_ns": 0,
        "sample_interval_ns": 0,
        "nodes": ["fh", "router", "bs1", "bs2", "mh"],
        "links": links, "wlans": wlans,
        "flows": [{"name": "bulk", "src": FH, "dst": MH, "start_ns": 0,
                   "app": {"kind": "tcp_bulk", "bytes": if bytes > 0 { Some(bytes) } else { None },
                           "tcp": {"mss": 512, "receive_buffer": 32 * 512,
                                   "window_scaling": false}}}],
        "mobiles": [{"node": MH, "attached": BS1, "while_detached": while_detached,
                     "handoffs": handoffs}],
    })
}

/// `kind` on both base stations' cell interfaces, or on the mobile for `fast_retransmit`.
pub fn with_agent(mut scenario: Value, kind: &str) -> Value {
    let cell = if scenario["wlans"].as_array().is_some_and(|w| !w.is_empty()) {
        "wlan"
    } else {
        "mh"
    };
    scenario["agents"] = match kind {
        "none" => json!([]),
        "fast_retransmit" => json!([{"node": MH, "interface": "bs1", "agent": {"kind": kind}}]),
        _ => json!([{"node": BS1, "interface": cell, "agent": {"kind": kind}},
                    {"node": BS2, "interface": cell, "agent": {"kind": kind}}]),
    };
    scenario
}

/// The paper's two 1-s handoffs, at 2.5 s (to bs2) and 7 s (back to bs1).
pub fn two_handoffs() -> Value {
    json!([{"at_ns": 2_500 * MS, "to": BS2, "duration_ns": S},
           {"at_ns": 7 * S, "to": BS1, "duration_ns": S}])
}

/// The sender's cwnd and ssthresh every 10 ms.
pub fn window_over_time(
    scenario: &Value,
) -> (airtcp_sim::summary::FlowSummary, Vec<(f64, u32, f64)>) {
    let mut scenario = scenario.clone();
    scenario["sample_interval_ns"] = json!(10 * MS);
    let result = run(&scenario);
    let s = &result.series;
    let samples = (0..s.len())
        .map(|i| (s.time_s[i], s.cwnd_bytes[i], s.ssthresh_bytes[i]))
        .collect();
    (result.summary.flows[0].clone(), samples)
}

/// The samples from each handoff's start until `after` seconds past its end whose cwnd is
/// below, or ssthresh differs from, the last sample before the handoff.
pub fn changed_windows(samples: &[(f64, u32, f64)], after: f64) -> Vec<(f64, u32, f64)> {
    let mut changed = Vec::new();
    for (start, end) in [(2.5, 3.5), (7.0, 8.0)] {
        let before = *samples.iter().rev().find(|s| s.0 < start).unwrap();
        changed.extend(
            samples
                .iter()
                .filter(|s| s.0 >= start && s.0 < end + after)
                .filter(|s| s.1 < before.1 || s.2.to_bits() != before.2.to_bits()),
        );
    }
    changed
}
