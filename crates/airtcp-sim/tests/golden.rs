//! Golden seeded runs: summaries of fixed scenarios, stored in `tests/golden/`, must stay
//! bit-identical across refactors (the agent interface, routing, the MAC's optional
//! mechanisms switched off: the MSDU lifetime is off here; the shared channel of WLANs
//! with geometry). Keys a later change adds to the
//! summary are allowed; every stored value must be equal. A change that moves them on
//! purpose re-blesses them with `AIRTCP_BLESS=1 cargo test --test golden` and says why in
//! its commit.

mod common;

use std::path::PathBuf;

use common::{run, saturation, upload, wired_tcp, MS, S};
use serde_json::{json, Value};

/// Two BSSs (802.11b with RTS/CTS and per-frame loss; 802.11g) joined by a router, with a
/// server behind it: TCP between stations of different BSSs, a download, an upload, and UDP.
fn two_bsses() -> Value {
    let nodes = [
        "ap1", "ap2", "router", "server", "a1", "a2", "a3", "b1", "b2",
    ];
    let wired = json!({"rate_bps": 100_000_000u64, "delay_ns": 2 * MS});
    let slow = json!({"rate_bps": 20_000_000u64, "delay_ns": 10 * MS, "queue": {"packets": 30}});
    let tcp = |name: &str, src: usize, dst: usize, cc: &str| {
        json!({"name": name, "src": src, "dst": dst,
               "app": {"kind": "tcp_bulk", "congestion_control": cc}})
    };
    json!({
        "name": "two-bsses", "seed": 11, "duration_ns": 15 * S, "measure_from_ns": 3 * S,
        "nodes": nodes,
        "links": [
            {"a": 0, "b": 2, "a_to_b": wired, "b_to_a": wired},
            {"a": 1, "b": 2, "a_to_b": wired, "b_to_a": wired},
            {"a": 2, "b": 3, "a_to_b": slow, "b_to_a": slow},
        ],
        "wlans": [
            {"ap": 0, "stations": [4, 5, 6], "rts_threshold": 500, "errors": {"loss": 0.02},
             "phy": {"standard": "802.11b", "rate_bps": 11_000_000, "basic_rate_bps": 2_000_000}},
            {"ap": 1, "stations": [7, 8],
             "phy": {"standard": "802.11g", "rate_bps": 54_000_000, "basic_rate_bps": 6_000_000},
             "agent": {"kind": "ack_priority"}},
        ],
        "flows": [
            tcp("a1-b1", 4, 7, "newreno"),
            tcp("server-a2", 3, 5, "newreno"),
            tcp("b2-server", 8, 3, "newreno"),
            {"name": "cbr", "src": 6, "dst": 8,
             "app": {"kind": "udp_cbr", "rate_bps": 1_000_000, "payload_bytes": 500}},
        ],
    })
}

/// WLANs with geometry (`airtcp_sim::radio`): two cells sharing channel 6, one with RTS/CTS
/// and Minstrel, log-normal shadowing, Rayleigh fading, frame capture, a station on random
/// waypoints and one on a path, TCP both ways and UDP.
fn geometry() -> Value {
    let nodes = ["ap1", "ap2", "server", "a1", "a2", "b1", "b2"];
    let wired = json!({"rate_bps": 100_000_000u64, "delay_ns": 2 * MS});
    let phy = json!({"standard": "802.11b", "rate_bps": 11_000_000, "basic_rate_bps": 2_000_000});
    let at = |node: usize, x: f64, y: f64| json!({"node": node, "x": x, "y": y});
    let mut walker = at(4, 20.0, 0.0);
    walker["motion"] = json!({"model": "random_waypoint", "x_min": -30.0, "x_max": 60.0,
                              "y_min": -20.0, "y_max": 20.0, "speed_min_mps": 1.0,
                              "speed_max_mps": 5.0, "pause_ns": S});
    let mut leaver = at(6, 50.0, 10.0);
    leaver["motion"] =
        json!({"model": "path", "points": [{"at_ns": 10 * S, "x": 150.0, "y": 10.0}]});
    json!({
        "name": "geometry", "seed": 13, "duration_ns": 12 * S, "measure_from_ns": 2 * S,
        "sample_interval_ns": 500 * MS,
        "nodes": nodes,
        "radio": {"shadowing_sigma_db": 4.0, "fading": {"model": "rayleigh"},
                  "capture_margin_db": 8.0, "preamble_rssi_dbm": -95.0},
        "positions": [at(0, 0.0, 0.0), at(1, 60.0, 0.0), at(2, 30.0, 30.0), at(3, -10.0, 5.0),
                      walker, at(5, 70.0, -5.0), leaver],
        "links": [
            {"a": 0, "b": 2, "a_to_b": wired, "b_to_a": wired},
            {"a": 1, "b": 2, "a_to_b": wired, "b_to_a": wired},
        ],
        "wlans": [
            {"ap": 0, "stations": [3, 4], "channel": 6, "phy": phy, "rts_threshold": 500,
             "rate_control": "minstrel"},
            {"ap": 1, "stations": [5, 6], "channel": 6, "phy": phy,
             "station_rates": [{"station": 6, "rate_bps": 5_500_000}]},
        ],
        "flows": [
            {"name": "a1-up", "src": 3, "dst": 2, "app": {"kind": "tcp_bulk"}},
            {"name": "down-a2", "src": 2, "dst": 4, "app": {"kind": "tcp_bulk"}},
            {"name": "b1-b2", "src": 5, "dst": 6,
             "app": {"kind": "udp_cbr", "rate_bps": 2_000_000, "payload_bytes": 800}},
        ],
    })
}

fn cases() -> Vec<(String, Value)> {
    let mut cases = Vec::new();
    for agent in [
        "none",
        "dcf",
        "ack_priority",
        "txop_burst",
        "ack_aggregation",
        "adaptive",
    ] {
        let config = (agent != "none").then(|| json!({"kind": agent}));
        cases.push((format!("upload-{agent}"), upload(6, config, 7, 15)));
    }
    cases.push(("two-bsses".into(), two_bsses()));
    cases.push(("geometry".into(), geometry()));
    cases.push(("saturation-rts".into(), saturation(5, 1500, true, 3, 10)));
    cases.push((
        "wired-lossy-finite".into(),
        wired_tcp(10_000_000, 20, 40, 0.01, Some(4_000_000), 5, 10),
    ));
    for (_, scenario) in &mut cases {
        let wlans = scenario.get_mut("wlans").and_then(Value::as_array_mut);
        for wlan in wlans.into_iter().flatten() {
            wlan["msdu_lifetime_ns"] = Value::Null;
        }
    }
    cases
}

/// Whether every value of `stored` is in `now` and equal (objects may have gained keys).
fn keeps(stored: &Value, now: &Value) -> bool {
    match (stored, now) {
        (Value::Object(stored), Value::Object(now)) => stored
            .iter()
            .all(|(key, value)| now.get(key).is_some_and(|v| keeps(value, v))),
        (Value::Array(stored), Value::Array(now)) => {
            stored.len() == now.len() && stored.iter().zip(now).all(|(a, b)| keeps(a, b))
        }
        _ => stored == now,
    }
}

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.json"))
}

#[test]
fn seeded_summaries_match_their_golden_files() {
    let bless = std::env::var_os("AIRTCP_BLESS").is_some();
    let mut differing = Vec::new();
    for (name, scenario) in cases() {
        let mut summary = serde_json::to_value(run(&scenario).summary).unwrap();
        summary.as_object_mut().unwrap().remove("wall_time_s");
        let path = golden_path(&name);
        if bless {
            let text = serde_json::to_string_pretty(&summary).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
            continue;
        }
        let stored: Value = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(Value::Null);
        // Both sides through the same text parser: serde_json's default float parsing may
        // be an ulp off the value printed.
        let now: Value = serde_json::from_str(&summary.to_string()).unwrap();
        if !keeps(&stored, &now) {
            differing.push(name);
        }
    }
    assert!(
        differing.is_empty(),
        "summaries differ from tests/golden/ for {differing:?}"
    );
}
