//! RED against tc's derivation by hand, the exact fixed-point average, the mark rate and
//! Adaptive RED's steps.

use super::*;

const MS: u64 = 1_000_000;

/// tc's defaults for a 400 000-byte limit at 10 Mbit/s with 1000-byte average packets.
fn tc_default() -> RedParams {
    RedParams::tc(400_000, None, None, 0.02, None, 1000, 10_000_000, false).unwrap()
}

#[test]
fn tc_derives_thresholds_burst_and_the_weight() {
    let p = tc_default();
    // max = limit / 4, min = max / 3; burst = (2·33 333 + 100 000) / 3000 = 55;
    // a = 55 + 1 − 33.3 = 22.7: W = 1/16 allows 16·(1 − (15/16)^55) = 15.5 < a,
    // W = 1/32 allows 32·(1 − (31/32)^55) = 26.4 ≥ a: Wlog 5.
    assert_eq!((p.min_bytes, p.max_bytes, p.wlog), (33_333, 100_000, 5));
    assert_eq!(p.max_p, 85_899_346, "0.02 · 2^32");
    assert_eq!(p.avpkt_time_ns, 800_000, "1000 bytes at 10 Mbit/s");
    let err = RedParams::tc(
        400_000,
        Some(50_000),
        Some(40_000),
        0.02,
        None,
        1000,
        1,
        false,
    );
    assert!(err.unwrap_err().contains("below max"));
    let err = RedParams::tc(400_000, None, None, 0.02, Some(1), 1000, 1, false);
    assert!(err.unwrap_err().contains("too small"));
}

#[test]
fn the_average_follows_the_backlog_in_linux_fixed_point() {
    let p = tc_default();
    let mut red = Red::new(&p, 0);
    // W = 1/32: 32 000 bytes queued gives 1000, then 32 000 · (1 − (31/32)^2) = 1968.75.
    red.on_arrival(0, &p, 32_000, || 0);
    assert_eq!(red.average_bytes(&p), 1000.0);
    red.on_arrival(1, &p, 32_000, || 0);
    assert_eq!(red.average_bytes(&p), 1968.75);
}

#[test]
fn below_min_nothing_above_max_everything_between_evenly_at_the_probability() {
    let p = tc_default();
    let mut red = Red::new(&p, 0);
    assert_eq!(red.on_arrival(0, &p, 1000, || 0), RedAction::Pass);
    // Hold the average at the midpoint (66 666 bytes): p_b = max_P / 2 = 1 %; the gaps
    // between marks are uniform on 1..1/p_b (Floyd and Jacobson §7), so one packet in
    // (1/p_b + 1)/2 = 50.5 is marked.
    red.qavg = 66_666 << p.wlog;
    let mut rng = 12_345u64;
    let mut draw = || {
        rng = rng
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (rng >> 32) as u32
    };
    let (mut marks, n) = (0, 200_000);
    let mut gaps = Vec::new();
    let mut last = 0;
    for k in 0..n {
        red.qavg = 66_666 << p.wlog;
        // A backlog equal to the average keeps it there.
        if red.on_arrival(k + 1, &p, 66_666, &mut draw) == RedAction::Early {
            marks += 1;
            gaps.push(k - last);
            last = k;
        }
    }
    let rate = f64::from(marks) / n as f64;
    assert!((rate - 1.0 / 50.5).abs() < 0.0005, "{rate}");
    // None longer than 1/p_b = 100 packets (+1: the gap counts from the last mark).
    assert!(
        gaps.iter().skip(1).all(|&g| (1..=101).contains(&g)),
        "{gaps:?}"
    );
    red.qavg = 100_000 << p.wlog;
    assert_eq!(red.on_arrival(n + 2, &p, 100_000, || 0), RedAction::Forced);
}

#[test]
fn an_idle_queue_decays_the_average_as_packets_leaving_at_the_link_rate() {
    let p = tc_default();
    let mut red = Red::new(&p, 0);
    red.qavg = 64_000 << p.wlog;
    red.on_empty(0);
    // 32 packet times of 0.8 ms idle: (31/32)^32 = 0.362; the arrival then adds nothing
    // to an average computed from idle time (Linux's red_calc_qavg_from_idle_time).
    red.on_arrival(32 * 800_000, &p, 0, || 0);
    let expected = 64_000.0 * (31.0f64 / 32.0).powi(32);
    assert!(
        (red.average_bytes(&p) - expected).abs() < 1.0,
        "{}",
        red.average_bytes(&p)
    );
}

#[test]
fn adaptive_red_moves_max_p_every_500_ms() {
    let p = RedParams {
        adaptive: true,
        ..tc_default()
    };
    let mut red = Red::new(&p, 0);
    // Above min + 0.6 (max − min) = 73 333: max_P + min(0.01, max_P/4) = 0.025.
    red.qavg = 90_000 << p.wlog;
    red.catch_up(500 * MS, &p);
    assert!((red.max_p() - 0.025).abs() < 1e-9, "{}", red.max_p());
    red.catch_up(999 * MS, &p);
    assert!((red.max_p() - 0.025).abs() < 1e-9, "one a period");
    // Under min + 0.4 (max − min) = 60 000: 0.9 of it, each period.
    red.qavg = 40_000 << p.wlog;
    red.catch_up(1500 * MS, &p);
    assert!((red.max_p() - 0.025 * 0.81).abs() < 1e-6, "{}", red.max_p());
    // Not adaptive: max_P stays.
    let mut fixed = Red::new(&tc_default(), 0);
    fixed.qavg = 90_000 << 5;
    fixed.catch_up(10_000 * MS, &tc_default());
    assert!((fixed.max_p() - 0.02).abs() < 1e-9);
}
