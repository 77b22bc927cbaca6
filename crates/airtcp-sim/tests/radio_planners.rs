//! Paper 000's access-planning agents at an AP on a shared channel (`airtcp_sim::radio`,
//! `radio/planning.rs`): with every station placed together the channel is one collision
//! domain, and each agent must do there what it does on the central DCF; captures show its
//! plan on the air (backoff 0 right after DIFS, TXOP frames SIFS apart).

mod common;

use std::time::Duration;

use airtcp_sim::summary::WlanSummary;
use airtcp_sim::Summary;
use common::{run, upload};
use serde_json::{json, Value};

const AGENTS: [&str; 5] = [
    "dcf",
    "ack_priority",
    "txop_burst",
    "ack_aggregation",
    "adaptive",
];

/// Paper 000's upload (`common::upload`) with `agent` at the AP; with `geometry`, the AP at
/// the origin and every station at one spot 5 m away (all hear all at 42 dB SNR). Without,
/// the central DCF, whose stations that did not send in a collision wait DIFS, as on the
/// shared channel, where two frames meeting at 0 dB lock no receiver (`radio_channel.rs`).
fn together(n: usize, agent: Value, seed: u64, seconds: u64, geometry: bool) -> Value {
    let mut scenario = upload(n, Some(agent), seed, seconds);
    if geometry {
        let mut positions = vec![json!({"node": 0, "x": 0.0, "y": 0.0})];
        positions.extend((0..n).map(|i| json!({"node": 2 + i, "x": 5.0, "y": 0.0})));
        scenario["positions"] = json!(positions);
    } else {
        scenario["wlans"][0]["eifs_after_collision"] = json!(false);
    }
    scenario
}

fn kind(agent: &str) -> Value {
    json!({ "kind": agent })
}

#[test]
fn each_planner_on_the_shared_channel_matches_the_central_dcf() {
    // Mean goodput over three seeds within 3 % of the central DCF's, for every agent, at 3
    // flows (priority's peak in the paper) and 10; seeded, so the numbers are fixed (at most
    // 0.8 % apart when written).
    for agent in AGENTS {
        for n in [3, 10] {
            assert_matches_central(agent, n, json!({}));
        }
    }
}

#[test]
fn each_planner_beside_edca_on_the_shared_channel_matches_the_central_dcf() {
    // With EDCA (the flows best effort: AC_BE's AIFS, CWs and no TXOP limit) the planning
    // AP counts its backoff, and its agent the idle slots, after AIFS: mean goodput over
    // three seeds within 3 % of the central DCF's at 3 flows (at most 1.1 % apart when
    // written).
    for agent in AGENTS {
        assert_matches_central(agent, 3, json!({"edca": true}));
    }
}

/// `agent` with `n` flows (`together`, `wlan` added to the WLAN): the mean goodput over
/// seeds 1-3 on the shared channel within 3 % of the central DCF's.
fn assert_matches_central(agent: &str, n: usize, wlan: Value) {
    let mean = |geometry: bool| {
        let runs = (1..=3).map(|seed| {
            let mut scenario = together(n, kind(agent), seed, 20, geometry);
            common::extend_wlan(&mut scenario, &wlan);
            run(&scenario).summary.aggregate_goodput_bps
        });
        runs.sum::<f64>() / 3.0
    };
    let (central, shared) = (mean(false), mean(true));
    let difference = (shared - central) / central;
    eprintln!("{agent}, {n} flows, {wlan}: central {central:.0}, shared {shared:.0} bit/s");
    assert!(
        difference.abs() < 0.03,
        "{agent}, {n} flows, {wlan}: {shared:.0} bit/s on the shared channel against \
         {central:.0} ({:+.2} %)",
        100.0 * difference
    );
}

/// One frame of a capture: when its first bit went and its last ended (TSFT), whether the
/// AP sent it (a data frame from the DS) and whether it is a MAC ACK.
struct OnAir {
    start: Duration,
    end: Duration,
    from_ap: bool,
    ack: bool,
}

/// Runs `scenario` capturing its WLAN; its summary and the frames.
fn captured(scenario: &Value) -> (Summary, Vec<OnAir>) {
    let dir = std::env::temp_dir().join(format!(
        "airtcp-planner-capture-{}-{}",
        std::process::id(),
        scenario["wlans"][0]["agent"]["kind"]
            .as_str()
            .unwrap_or("none")
    ));
    let options = airtcp_sim::RunOptions {
        wlan_pcap_dir: Some(dir.clone()),
        ..airtcp_sim::RunOptions::default()
    };
    let summary = airtcp_sim::run_json(&scenario.to_string(), &options)
        .unwrap()
        .summary;
    let file = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap();
    let mut reader =
        pcap_file::pcap::PcapReader::new(std::fs::File::open(file.path()).unwrap()).unwrap();
    let mut frames = Vec::new();
    while let Some(record) = reader.next_packet() {
        let record = record.unwrap();
        let data = &record.data;
        let tsft = u64::from_le_bytes(data[8..16].try_into().unwrap());
        let (frame_control, flags) = (data[24], data[25]);
        frames.push(OnAir {
            start: record.timestamp,
            end: Duration::from_micros(tsft),
            from_ap: frame_control & 0x0c == 0x08 && flags & 0x03 == 0x02,
            ack: frame_control == 0xd4,
        });
    }
    std::fs::remove_dir_all(&dir).unwrap();
    (summary, frames)
}

/// The gaps in µs between the end of the frame before and the start of each frame `pick`s.
fn gaps(frames: &[OnAir], pick: impl Fn(&OnAir, &OnAir) -> bool) -> Vec<f64> {
    frames
        .windows(2)
        .filter(|pair| pick(&pair[0], &pair[1]))
        .map(|pair| pair[1].start.as_secs_f64() * 1e6 - pair[0].end.as_secs_f64() * 1e6)
        .collect()
}

#[test]
fn backoff_zero_sends_the_aps_acks_right_after_difs() {
    // Three stations uploading: under ack_priority the AP sends its ACK frames DIFS (50 µs)
    // after the medium falls idle, bar the few that find it idle already; under plain DCF a
    // random backoff puts one in 32 there. TSFT, the end of the frame before, is in whole µs:
    // within 2 µs.
    let after_difs = |agent: &str| {
        let (summary, frames) = captured(&together(3, kind(agent), 4, 6, true));
        let gaps = gaps(&frames, |_, frame| frame.from_ap);
        let share =
            gaps.iter().filter(|g| (49.0..=52.0).contains(*g)).count() as f64 / gaps.len() as f64;
        eprintln!(
            "{agent}: {share:.3} of {} AP frames DIFS after the one before",
            gaps.len()
        );
        (share, summary.wlans[0].clone())
    };
    let (priority, w) = after_difs("ack_priority");
    let c = &w.counters;
    assert!(c.ap_ack_headed_accesses > 500, "{c:?}");
    assert_eq!(c.ap_zero_backoff_accesses, c.ap_ack_headed_accesses);
    assert_eq!(
        c.ap_zero_backoff_ack_headed_accesses,
        c.ap_ack_headed_accesses
    );
    assert!(priority > 0.85, "{priority}");
    let (plain, w) = after_difs("dcf");
    assert_eq!(w.counters.ap_zero_backoff_accesses, 0);
    assert!(plain < 0.1, "{plain}");
}

#[test]
fn a_txop_burst_sends_its_frames_sifs_apart_within_its_limit() {
    // With a 1.5 ms limit an ACK frame's exchange (248 µs, SIFS, a 304 µs MAC ACK) fits
    // twice, with the default 3.264 ms five times: every further frame of a TXOP starts SIFS
    // (10 µs) after the MAC ACK before it, and there are exactly as many as the bursts'
    // frames beyond their first.
    for (limit, longest) in [(1_500_000u64, 2usize), (3_264_000, 5)] {
        let agent = json!({"kind": "txop_burst", "txop_limit_ns": limit});
        let (summary, frames) = captured(&together(10, agent, 5, 6, true));
        let c = &summary.wlans[0].counters;
        let continued = gaps(&frames, |before, frame| frame.from_ap && before.ack);
        let sifs_apart = continued
            .iter()
            .filter(|g| (9.0..=12.0).contains(*g))
            .count();
        eprintln!(
            "TXOP {limit} ns: {} bursts of {} frames, {sifs_apart} frames SIFS after an ACK, \
             longest {} ns",
            c.txop_bursts, c.txop_frames, c.max_txop_ns
        );
        assert!(c.txop_bursts > 20, "{c:?}");
        assert_eq!(sifs_apart as u64, c.txop_frames - c.txop_bursts);
        assert!(c.max_txop_ns <= limit, "{} > {limit}", c.max_txop_ns);
        // The longest run of AP frames each SIFS after the ACK of the one before.
        let mut run = 1;
        let mut most = 1;
        for pair in frames.windows(3) {
            let gap = pair[2].start.as_secs_f64() * 1e6 - pair[1].end.as_secs_f64() * 1e6;
            if pair[2].from_ap && pair[1].ack && (9.0..=12.0).contains(&gap) {
                run += 1;
                most = most.max(run);
            } else if pair[2].from_ap {
                run = 1;
            }
        }
        assert_eq!(most, longest, "TXOP {limit} ns");
    }
}

#[test]
fn aggregation_packs_several_acks_into_one_mac_frame() {
    let agent = json!({"kind": "ack_aggregation", "max_aggregate": 4});
    let w: WlanSummary = run(&together(10, agent, 3, 10, true)).summary.wlans[0].clone();
    common::assert_aggregated(&w.counters, 4);
    assert_eq!(w.radio.as_ref().unwrap().duplicates, 0);
}

#[test]
fn a_planner_on_a_radio_serving_two_wlans_is_refused_naming_the_key() {
    // A two-hop chain on one channel: n1 is the station of n0's WLAN and the AP of n2's.
    let nodes = ["n0", "n1", "n2"];
    let phy = json!({"standard": "802.11b", "rate_bps": 11_000_000, "basic_rate_bps": 1_000_000});
    let scenario = json!({
        "name": "chain", "seed": 1, "duration_ns": common::S,
        "nodes": nodes,
        "wlans": [
            {"ap": 0, "stations": [1], "phy": phy, "channel": 1},
            {"ap": 1, "stations": [2], "phy": phy, "channel": 1,
             "agent": {"kind": "ack_priority"}},
        ],
        "positions": [
            {"node": 0, "x": 0.0, "y": 0.0}, {"node": 1, "x": 40.0, "y": 0.0},
            {"node": 2, "x": 80.0, "y": 0.0},
        ],
        "flows": [{"name": "up", "src": 2, "dst": 0,
                   "app": {"kind": "udp_cbr", "rate_bps": 1_000_000, "payload_bytes": 1000}}],
    });
    let Err(error) =
        airtcp_sim::run_json(&scenario.to_string(), &airtcp_sim::RunOptions::default())
    else {
        panic!("a planner on a relay's radio runs");
    };
    let error = error.to_string();
    assert!(error.contains("wlans[1].agent.kind"), "{error}");
    assert!(error.contains("node 'n1' is also in wlans[0]"), "{error}");
    assert_eq!(error.lines().count(), 1);
}
