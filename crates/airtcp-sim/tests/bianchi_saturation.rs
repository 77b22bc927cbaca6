//! Saturation throughput of the DCF against the model of the standard's DCF
//! (`bianchi::CollisionTiming::Mac`: Bianchi's renewal argument with counters frozen while
//! the medium is busy, the senders of a collision resuming DIFS after their AckTimeout and
//! the others after EIFS or DIFS), within 1.5 %, at every 802.11b and 802.11g rate, 5 to 50
//! stations, both readings of `eifs_after_collision`, basic access and RTS/CTS. The model
//! shares only the PHY's timing with the MAC (whose values `phy.rs` tests against the
//! standard); its chain is written from the standard's rules, not from the MAC's code.
//!
//! Without channel errors every failure is a collision of a data frame or an RTS, which
//! counts against the short retry limit (7 attempts) in both modes. Each run lasts long
//! enough for about 12 000 frames, so that its own noise stays well inside the bound.

mod common;

use airtcp_proto::wifi::bianchi::{self, CollisionTiming, Params};
use airtcp_proto::wifi::edca::{AccessCategory, EdcaParams};
use airtcp_proto::wifi::mcs::{Band, Format, McsPhy};
use airtcp_proto::wifi::{Modulation, Phy, Preamble};
use serde_json::{json, Value};

const MSDU: u32 = 1024;
const FRAMES: f64 = 12_000.0;

/// The AC stations send in (best effort) with the WLAN's EDCA, if it has it: the MCS PHYs'
/// default, or where `wlan` sets `edca` (with `edca_params`).
fn edca_of(phy: &Phy, wlan: &Value) -> Option<EdcaParams> {
    let qos = matches!(phy.modulation, Modulation::Mcs(_));
    if !wlan["edca"].as_bool().unwrap_or(qos) {
        return None;
    }
    let dsss = matches!(phy.modulation, Modulation::Dsss(_));
    let standard = EdcaParams::station(AccessCategory::Be, phy.cw_min, phy.cw_max, dsss);
    let aifsn = wlan["edca_params"]["be"]["aifsn"].as_u64();
    Some(EdcaParams {
        aifsn: aifsn.map_or(standard.aifsn, |a| a as u8),
        ..standard
    })
}

fn check(phy: &Phy, json_phy: Value, rts: bool, eifs_after_collision: bool, stations: &[u32]) {
    check_wlan(
        phy,
        json_phy,
        rts,
        eifs_after_collision,
        stations,
        json!({}),
    );
}

/// `check` with more settings of the WLAN (`wlan`).
fn check_wlan(
    phy: &Phy,
    json_phy: Value,
    rts: bool,
    eifs_after_collision: bool,
    stations: &[u32],
    wlan: Value,
) {
    let timing = CollisionTiming::Mac {
        eifs_after_collision,
    };
    let mut params = Params::from_phy(phy, MSDU, rts, timing, Some(7 - 1));
    if let Some(edca) = edca_of(phy, &wlan) {
        params = params.with_edca(&edca);
    }
    let mut report = Vec::new();
    let mut worst: f64 = 0.0;
    for &n in stations {
        let model = bianchi::solve(&params, n).throughput_bps;
        let seconds = (FRAMES * f64::from(8 * MSDU) / model).ceil() as u64 + 2;
        let mut scenario = common::saturation_on(
            json_phy.clone(),
            phy.data_rate_bps,
            n as usize,
            MSDU,
            rts,
            1,
            seconds,
        );
        scenario["wlans"][0]["eifs_after_collision"] = json!(eifs_after_collision);
        common::extend_wlan(&mut scenario, &wlan);
        // one MPDU an exchange, as the model has it
        scenario["wlans"][0]["ampdu"] = json!(false);
        let result = common::run(&scenario);
        let msdu_per_datagram = f64::from(MSDU) / f64::from(MSDU - 36);
        let simulated = result.summary.aggregate_goodput_bps * msdu_per_datagram;
        let error = (simulated - model) / model;
        worst = worst.max(error.abs());
        report.push(format!(
            "{} {} Mbit/s rts={rts} eifs_after_collision={eifs_after_collision} n={n}: \
             sim {:.3} Mbit/s, model {:.3} Mbit/s, {:+.2} %",
            phy.name,
            phy.data_rate_bps as f64 / 1e6,
            simulated / 1e6,
            model / 1e6,
            100.0 * error
        ));
    }
    let report = report.join("\n");
    assert!(worst < 0.015, "{report}");
    eprintln!("{report}");
}

const STATIONS: [u32; 4] = [5, 10, 20, 50];

fn dsss(rate: u64) -> (Phy, Value) {
    let phy = Phy::dsss(rate, 1_000_000, Preamble::Long).unwrap();
    let json = json!({"standard": "802.11b", "rate_bps": rate, "basic_rate_bps": 1_000_000});
    (phy, json)
}

fn erp(rate: u64) -> (Phy, Value) {
    let phy = Phy::erp_ofdm(rate, None, true).unwrap();
    (phy, json!({"standard": "802.11g", "rate_bps": rate}))
}

const DSSS_RATES: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];
const OFDM_RATES: [u64; 8] = [
    6_000_000, 9_000_000, 12_000_000, 18_000_000, 24_000_000, 36_000_000, 48_000_000, 54_000_000,
];

#[test]
fn dsss_with_eifs_after_collisions() {
    for rate in DSSS_RATES {
        let (phy, json) = dsss(rate);
        check(&phy, json, false, true, &STATIONS);
    }
}

#[test]
fn dsss_with_difs_after_collisions() {
    for rate in DSSS_RATES {
        let (phy, json) = dsss(rate);
        check(&phy, json, false, false, &STATIONS);
    }
}

#[test]
fn erp_ofdm_with_eifs_after_collisions() {
    for rate in OFDM_RATES {
        let (phy, json) = erp(rate);
        check(&phy, json, false, true, &STATIONS);
    }
}

#[test]
fn erp_ofdm_with_difs_after_collisions() {
    for rate in OFDM_RATES {
        let (phy, json) = erp(rate);
        check(&phy, json, false, false, &STATIONS);
    }
}

#[test]
fn rts_cts() {
    for eifs in [true, false] {
        let (phy, json) = dsss(11_000_000);
        check(&phy, json, true, eifs, &[5, 50]);
        let (phy, json) = erp(54_000_000);
        check(&phy, json, true, eifs, &[5, 50]);
    }
}

#[test]
fn edca_against_the_model_with_aifs_for_difs() {
    // AC_BE's AIFSN 3 on 802.11g (EDCA on), and AIFSN 7: the stations' class lags the
    // AP's AIFSN 1 by 2 and 6 slots after every busy period
    let (phy, json) = erp(54_000_000);
    for aifsn in [3, 7] {
        let wlan = json!({"edca": true, "edca_params": {"be": {"aifsn": aifsn}}});
        check_wlan(&phy, json.clone(), false, true, &[5, 20], wlan);
    }
    let (phy, json) = dsss(11_000_000);
    check_wlan(&phy, json, false, false, &[10], json!({"edca": true}));
}

#[test]
fn ofdm_in_5_ghz_and_the_mcs_phys_with_single_mpdus() {
    for rate in [6_000_000, 54_000_000] {
        let phy = Phy::ofdm(rate, None).unwrap();
        check(
            &phy,
            json!({"standard": "802.11a", "rate_bps": rate}),
            false,
            true,
            &[5, 20],
        );
    }
    // (PHY, its settings in a scenario): an MCS, width, streams
    let mcs_phys = [
        (
            McsPhy::new(Format::Ht, 20, 1, 800, Band::Ghz5).unwrap(),
            7,
            json!({"standard": "802.11n", "mcs": 7}),
        ),
        (
            McsPhy::new(Format::Ht, 40, 2, 400, Band::Ghz2_4).unwrap(),
            4,
            json!({"standard": "802.11n", "mcs": 12, "channel_width_mhz": 40,
                   "guard_interval_ns": 400, "band": "2.4GHz"}),
        ),
        (
            McsPhy::new(Format::Vht, 80, 1, 800, Band::Ghz5).unwrap(),
            9,
            json!({"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80}),
        ),
        (
            McsPhy::new(Format::He, 80, 2, 800, Band::Ghz5).unwrap(),
            11,
            json!({"standard": "802.11ax", "mcs": 11, "spatial_streams": 2}),
        ),
    ];
    for (setting, mcs, json_phy) in mcs_phys {
        let phy = Phy::mcs(setting, mcs, None).unwrap();
        check(&phy, json_phy, false, true, &[5, 20]);
    }
}

/// The MPDUs of a saturated station's A-MPDUs: as many 1024-byte MSDUs (1054-byte QoS data
/// MPDUs, 1060-byte subframes) as fit in `window`, 5.484 ms and `max_bytes`, counted here
/// from the PHY's airtime alone.
fn mpdus_per_ampdu(phy: &Phy, window: u32, max_bytes: u32) -> u32 {
    let subframe = 4 + (phy.mac_overhead_bytes + MSDU).next_multiple_of(4);
    (1..=window)
        .take_while(|&k| {
            let psdu = k * subframe;
            psdu <= max_bytes && phy.psdu_airtime_ns(psdu, phy.data_rate_bps) <= 5_484_000
        })
        .last()
        .unwrap()
}

#[test]
fn a_mpdus_against_the_model_with_the_a_mpdu_as_its_frame() {
    // (PHY, its scenario settings, the longest A-MPDU, the Block Ack window)
    let cases = [
        (
            McsPhy::new(Format::Vht, 80, 1, 800, Band::Ghz5).unwrap(),
            9,
            json!({"standard": "802.11ac", "mcs": 9}),
            1_048_575,
            64,
        ),
        (
            McsPhy::new(Format::He, 80, 1, 800, Band::Ghz5).unwrap(),
            7,
            json!({"standard": "802.11ax", "mcs": 7}),
            6_500_631,
            256,
        ),
        (
            McsPhy::new(Format::Vht, 20, 1, 800, Band::Ghz5).unwrap(),
            4,
            json!({"standard": "802.11ac", "mcs": 4, "channel_width_mhz": 20}),
            1_048_575,
            64,
        ),
    ];
    for (setting, mcs, json_phy, max_bytes, window) in cases {
        let phy = Phy::mcs(setting, mcs, None).unwrap();
        let mpdus = mpdus_per_ampdu(&phy, window, max_bytes);
        let timing = CollisionTiming::Mac {
            eifs_after_collision: true,
        };
        let edca = edca_of(&phy, &json!({})).expect("an MCS PHY's default");
        let params = Params::for_ampdu(&phy, MSDU, (mpdus, window as u16), timing, Some(7 - 1))
            .unwrap()
            .with_edca(&edca);
        let mut report = Vec::new();
        for n in [5, 20] {
            let model = bianchi::solve(&params, n).throughput_bps;
            // about 3000 A-MPDUs: a sample as large as the single frames' 12 000 in variance
            let seconds = (3000.0 * f64::from(8 * MSDU * mpdus) / model).ceil() as u64 + 2;
            let mut scenario = common::saturation_on(
                json_phy.clone(),
                phy.data_rate_bps,
                n as usize,
                MSDU,
                false,
                1,
                seconds,
            );
            // Saturated: each station offers twice the PHY rate, and its queue holds three
            // windows. The MPDUs in flight stay queued until acknowledged (as in ns-3's
            // WifiMacQueue), and a station that wins several accesses in a row drains its
            // queue at the PHY rate: with less, it would send shorter A-MPDUs.
            scenario["wlans"][0]["queue_packets"] = json!(3 * window);
            for flow in scenario["flows"].as_array_mut().unwrap() {
                flow["app"]["rate_bps"] = json!(2 * phy.data_rate_bps);
            }
            let result = common::run(&scenario);
            let wlan = &result.summary.wlans[0].counters;
            let mean_mpdus = wlan.ampdu_mpdus as f64 / wlan.ampdus as f64;
            // (the first accesses of the run, before the queues fill, carry fewer)
            assert!(
                mean_mpdus > 0.99 * f64::from(mpdus),
                "{} MCS {mcs}: {mean_mpdus} MPDUs an A-MPDU, {mpdus} expected",
                phy.name
            );
            let simulated =
                result.summary.aggregate_goodput_bps * f64::from(MSDU) / f64::from(MSDU - 36);
            let error = (simulated - model) / model;
            report.push(format!(
                "{} MCS {mcs} {mpdus} MPDUs n={n}: sim {:.2} Mbit/s, model {:.2} Mbit/s, {:+.2} %",
                phy.name,
                simulated / 1e6,
                model / 1e6,
                100.0 * error
            ));
            assert!(error.abs() < 0.015, "{}", report.join("\n"));
        }
        eprintln!("{}", report.join("\n"));
    }
}
