//! The MSDU lifetime and the queue sojourn limit on a channel with geometry
//! (`airtcp_sim::radio`'s `expiry`): what the central DCF discards, the channel with geometry
//! discards alike; discarded MPDUs that were sent are followed by a BlockAckReq; every
//! datagram is acknowledged or counted dropped once.

mod common;

use common::{MS, S};
use serde_json::{json, Value};

/// One station `x` metres from its AP sending 1472-byte UDP payloads at 780 Mbit/s to it
/// from 0 to 3 s of a 4 s run (measured from 2 s), 802.11ac 80 MHz MCS 9 with A-MPDU (or `phy`'s); `wlan` adds
/// to the WLAN; `placed`: with positions (a channel with geometry).
fn station_at(x: f64, phy: Value, wlan: Value, placed: bool) -> Value {
    let mut scenario = common::one_station_upload(phy, (390_000_000, 600), wlan, 4);
    scenario["flows"][0]["stop_ns"] = json!(3 * S); // the queue drains by the end
    if placed {
        scenario["positions"] = json!([{"node": 0, "x": 0.0, "y": 0.0},
                                       {"node": 1, "x": x, "y": 0.0}]);
    }
    scenario
}

fn vht80() -> Value {
    json!({"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80})
}

/// Datagrams sent, and delivered (1472-byte payloads).
fn accounts(summary: &airtcp_sim::Summary) -> (u64, u64) {
    let sent = summary.flows.iter().map(|f| f.packets_sent).sum();
    let delivered = summary.flows.iter().map(|f| f.bytes_delivered / 1472).sum();
    (sent, delivered)
}

#[test]
fn a_sojourn_limit_discards_as_on_the_central_dcf() {
    // ns-3's MaxDelay of 1 ms on a queue that holds about 2.4 A-MPDUs' worth (150 frames),
    // 5 m from the AP where nothing fails: the frames behind the first A-MPDU wait longer
    // and are discarded, about as many on both MACs (tests/ampdu.rs), and every one the
    // station's (`station_queue_delay_drops`).
    let wlan = json!({"queue_max_delay_ns": MS, "queue_packets": 150});
    let [central, placed] = [false, true]
        .map(|placed| common::run(&station_at(5.0, vht80(), wlan.clone(), placed)).summary);
    let (c, p) = (&central.wlans[0].counters, &placed.wlans[0].counters);
    eprintln!("central {c:?}\nplaced {p:?}");
    assert!(p.queue_delay_drops > 10_000, "{}", p.queue_delay_drops);
    assert_eq!(p.station_queue_delay_drops, [p.queue_delay_drops]);
    let ratio = p.queue_delay_drops as f64 / c.queue_delay_drops as f64;
    assert!((ratio - 1.0).abs() < 0.02, "{ratio}");
    let goodput = placed.aggregate_goodput_bps / central.aggregate_goodput_bps;
    assert!((goodput - 1.0).abs() < 0.01, "{goodput}");
    assert_eq!((p.block_ack_reqs, p.retry_drops), (0, 0), "none was sent");
}

#[test]
fn mpdus_past_their_lifetime_are_discarded_and_a_block_ack_req_moves_the_window() {
    // 8.5 m from the AP a fifth of the MPDUs fail; an MSDU may live 1 ms from its first
    // attempt, less than an A-MPDU takes, so the failed ones are discarded at the next
    // access instead of going again: a BlockAckReq follows, and the recipient hands up what
    // it held behind them (were it to wait, the goodput would fall to nothing).
    let wlan = json!({"msdu_lifetime_ns": MS, "short_retry_limit": 30});
    let summary = common::run(&station_at(8.5, vht80(), wlan, true)).summary;
    let c = &summary.wlans[0].counters;
    eprintln!("{c:?}");
    let lost = c.ampdu_failed_mpdus as f64;
    assert!(c.lifetime_drops as f64 > 0.9 * lost && c.lifetime_drops as f64 <= lost);
    assert_eq!(c.station_lifetime_drops, [c.lifetime_drops]);
    assert_eq!(c.retry_drops, 0);
    assert!(c.block_ack_reqs * 10 > c.ampdus * 9, "{c:?}");
    assert!(
        summary.aggregate_goodput_bps > 100e6,
        "{}",
        summary.aggregate_goodput_bps
    );
    let (sent, delivered) = accounts(&summary);
    assert_eq!(sent, c.delivered_msdus + c.lifetime_drops + c.queue_drops);
    assert_eq!(delivered, c.delivered_msdus);
}

#[test]
fn a_frame_that_failed_is_discarded_once_its_lifetime_has_passed() {
    // 802.11g at 54 Mbit/s, 15 m from the AP with Rayleigh fading drawn per frame: a
    // quarter of the frames fail. A 1538-byte frame takes 20 µs + 58 symbols (252 µs), its
    // ACK timeout follows, so with a lifetime of 300 µs from its first attempt a frame that
    // failed is always past it at its next access: each failure is a discard, none a retry
    // (retries enough that no limit is reached); each datagram acknowledged or counted
    // dropped, and delivered at most once.
    let phy = json!({"standard": "802.11g", "rate_bps": 54_000_000});
    let wlan = json!({"msdu_lifetime_ns": 300_000, "short_retry_limit": 100,
                      "long_retry_limit": 100, "queue_packets": 50});
    let mut scenario = station_at(15.0, phy, wlan, true);
    scenario["radio"] = json!({"fading": {"model": "rayleigh"}});
    scenario["flows"][0]["app"]["rate_bps"] = json!(30_000_000);
    let summary = common::run(&scenario).summary;
    let c = &summary.wlans[0].counters;
    eprintln!("{c:?}");
    assert!(c.lifetime_drops > 1000, "{c:?}");
    assert_eq!(c.lifetime_drops, c.channel_errors);
    assert_eq!(c.retry_drops, 0);
    let (sent, delivered) = accounts(&summary);
    assert_eq!(sent, c.delivered_msdus + c.lifetime_drops + c.queue_drops);
    // (a frame whose ACK was lost arrived, though its sender discards it)
    assert!(c.delivered_msdus <= delivered && delivered <= c.delivered_msdus + c.lifetime_drops);
}
