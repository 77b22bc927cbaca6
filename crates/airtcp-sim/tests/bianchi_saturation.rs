//! The DCF under saturation agrees with Bianchi's model (with the retry limit and EIFS the
//! simulator uses) within 3 %, for basic access and RTS/CTS. Without channel errors every
//! failure is a collision of a data frame or an RTS, which counts against the short retry
//! limit (7 attempts) in both modes.

mod common;

use airtcp_proto::wifi::bianchi::{self, CollisionTiming, Params};
use airtcp_proto::wifi::{Phy, Preamble};

fn check(rts: bool) {
    let phy = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
    let params = Params::from_phy(&phy, 1024, rts, CollisionTiming::Eifs, Some(7 - 1));
    let mut report = Vec::new();
    for n in [1usize, 2, 5, 10, 20, 50] {
        let result = common::run(&common::saturation(n, 1024, rts, 1, 32));
        let msdu_per_datagram = 1024.0 / (1024.0 - 36.0);
        let simulated: f64 = result.summary.aggregate_goodput_bps * msdu_per_datagram;
        let model = bianchi::solve(&params, n as u32).throughput_bps;
        let error = (simulated - model) / model;
        report.push(format!(
            "n={n}: sim {:.3} Mbit/s, model {:.3} Mbit/s, {:+.2} %",
            simulated / 1e6,
            model / 1e6,
            100.0 * error
        ));
        assert!(error.abs() < 0.03, "rts={rts}\n{}", report.join("\n"));
    }
    eprintln!("rts={rts}\n{}", report.join("\n"));
}

#[test]
fn basic_access_matches_bianchi() {
    check(false);
}

#[test]
fn rts_cts_matches_bianchi() {
    check(true);
}

#[test]
fn erp_ofdm_matches_bianchi() {
    let phy = Phy::erp_ofdm(54_000_000, None, true).unwrap();
    let params = Params::from_phy(&phy, 1024, false, CollisionTiming::Eifs, Some(6));
    for n in [1usize, 10, 30] {
        let scenario = common::saturation_on(
            serde_json::json!({"standard": "802.11g", "rate_bps": 54_000_000}),
            54_000_000,
            n,
            1024,
            false,
            2,
            12,
        );
        let result = common::run(&scenario);
        let simulated = result.summary.aggregate_goodput_bps * 1024.0 / (1024.0 - 36.0);
        let model = bianchi::solve(&params, n as u32).throughput_bps;
        let error = (simulated - model) / model;
        assert!(
            error.abs() < 0.03,
            "802.11g n={n}: sim {simulated:.0} vs model {model:.0} ({error:+.4})"
        );
    }
}
