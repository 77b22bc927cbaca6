//! PIE's updates against RFC 8033's formulas computed by hand (in floating point: Linux's
//! fixed point agrees within its truncation), its caps, its decay and its early drops.

use super::*;

const MS: u64 = 1_000_000;
const P: PieParams = PieParams::LINUX;

/// A probability as a fraction.
fn fraction(prob: u64) -> f64 {
    prob as f64 / MAX_PROB as f64
}

/// A fraction as a probability (1.0: exactly `MAX_PROB`).
fn of(fraction: f64) -> u64 {
    ((fraction * MAX_PROB as f64) as u64).min(MAX_PROB)
}

/// PIE at the first update (500 ms) with `prob`, the last update's delay `old_ms` and the
/// delay now `now_ms`.
fn at_first_update(prob: f64, old_ms: u64, now_ms: u64) -> Pie {
    let mut pie = Pie::new(0);
    pie.prob = of(prob);
    pie.qdelay_old = ticks(old_ms * MS);
    // the packet dequeued just before the update waited `now_ms`, 10 packets remain
    pie.dequeued(499 * MS, (499 - now_ms) * MS, 15_000);
    pie
}

fn assert_near(got: f64, want: f64) {
    assert!(
        (got - want).abs() <= want.abs() * 1e-3 + 1e-12,
        "{got} against {want}"
    );
}

#[test]
fn the_first_update_comes_500_ms_after_set_up_then_every_15_ms() {
    let mut pie = at_first_update(0.2, 30, 30);
    pie.catch_up(499 * MS, &P, 15_000);
    assert_eq!(pie.prob(), of(0.2), "none due yet");
    pie.catch_up(500 * MS, &P, 15_000);
    let once = pie.prob();
    assert!(once > of(0.2));
    pie.catch_up(514 * MS, &P, 15_000);
    assert_eq!(pie.prob(), once, "the next at 515 ms");
    pie.catch_up(545 * MS, &P, 15_000);
    assert!(pie.prob() > once, "515, 530 and 545 ms: three more");
}

#[test]
fn a_step_is_alpha_times_the_error_plus_beta_times_the_trend() {
    // p = 0.2 (no scaling): 30 ms of delay twice: alpha (0.125) x 15 ms
    let mut pie = at_first_update(0.2, 30, 30);
    pie.catch_up(500 * MS, &P, 15_000);
    assert_near(fraction(pie.prob()), 0.2 + 0.125 * 0.015);
    // delay falling from 40 to 20 ms: 0.125 x 5 ms - 1.25 x 20 ms
    let mut pie = at_first_update(0.2, 40, 20);
    pie.catch_up(500 * MS, &P, 15_000);
    assert_near(fraction(pie.prob()), 0.2 + 0.125 * 0.005 - 1.25 * 0.020);
}

#[test]
fn small_probabilities_take_small_steps() {
    // RFC 8033 §4.2: below 0.000001 alpha and beta are divided by 2048; from 0, 30 ms of
    // delay after none: (0.125 x 15 ms + 1.25 x 30 ms) / 2048
    let mut pie = at_first_update(0.0, 0, 30);
    pie.catch_up(500 * MS, &P, 15_000);
    assert_near(
        fraction(pie.prob()),
        (0.125 * 0.015 + 1.25 * 0.030) / 2048.0,
    );
    // below 1 % (and above 0.1 %): divided by 8
    let mut pie = at_first_update(0.005, 30, 30);
    pie.catch_up(500 * MS, &P, 15_000);
    assert_near(fraction(pie.prob()), 0.005 + 0.125 * 0.015 / 8.0);
}

#[test]
fn steps_above_10_percent_are_capped_at_2_percent_and_high_delays_add_2_more() {
    // 200 ms after none: 0.125 x 185 ms + 1.25 x 200 ms = 0.273, capped at 0.02
    let mut pie = at_first_update(0.5, 0, 200);
    pie.catch_up(500 * MS, &P, 15_000);
    assert_near(fraction(pie.prob()), 0.52);
    // 300 ms twice: capped at 0.02, and 0.02 more above 250 ms
    let mut pie = at_first_update(0.5, 300, 300);
    pie.catch_up(500 * MS, &P, 15_000);
    assert_near(fraction(pie.prob()), 0.54);
    // nor past 1 (RFC 8033 §4.2's bound): 0.99 + 0.04
    let mut pie = at_first_update(0.99, 300, 300);
    pie.catch_up(500 * MS, &P, 15_000);
    assert_eq!(pie.prob(), MAX_PROB);
    pie.catch_up(515 * MS, &P, 15_000);
    assert_eq!(pie.prob(), MAX_PROB);
}

#[test]
fn an_empty_queue_decays_the_probability() {
    // no delay twice, the queue empty: -0.125 x 15 ms, then 1/64 off
    let mut pie = at_first_update(0.5, 0, 0);
    pie.dequeued(499 * MS, 499 * MS, 0);
    pie.catch_up(500 * MS, &P, 0);
    assert_near(fraction(pie.prob()), (0.5 - 0.125 * 0.015) * 63.0 / 64.0);
    // with packets still queued (a small backlog) there is no decay
    let mut pie = at_first_update(0.5, 0, 0);
    pie.dequeued(499 * MS, 499 * MS, 0);
    pie.catch_up(500 * MS, &P, 3000);
    assert_near(fraction(pie.prob()), 0.5 - 0.125 * 0.015);
}

/// PIE past its burst allowance, at `prob` with 20 ms of delay.
fn draining(prob: f64) -> Pie {
    let mut pie = Pie::new(0);
    pie.dequeued(0, 0, 15_000);
    pie.dequeued(200 * MS, 180 * MS, 15_000);
    assert_eq!(pie.burst_time, 0);
    pie.prob = of(prob);
    pie
}

#[test]
fn early_drops_are_derandomised_by_the_accumulated_probability() {
    // p = 0.1 (`MAX_PROB / 10`): no drop and no draw while the sum is under 0.85 (8 packets)
    let mut pie = draining(0.0);
    pie.prob = MAX_PROB / 10;
    for _ in 0..8 {
        assert!(!pie.drop_early(&P, 15_000, || panic!("no draw")));
    }
    // from the 9th a draw decides: a low one drops and starts the sum again
    assert!(pie.drop_early(&P, 15_000, || 0));
    assert_eq!(pie.accu_prob, 0);
    // a high one never drops, until the sum reaches 8.5: 85 x (MAX_PROB / 10) falls just
    // short of 17 x (MAX_PROB / 2) in the fixed point, so at the 86th packet
    let mut pie = draining(0.0);
    pie.prob = MAX_PROB / 10;
    let drops: Vec<bool> = (0..86)
        .map(|_| pie.drop_early(&P, 15_000, || u64::MAX))
        .collect();
    assert!(drops[..85].iter().all(|d| !d) && drops[85], "{drops:?}");
}

#[test]
fn no_early_drop_in_a_burst_under_two_mtus_or_at_low_delay_and_probability() {
    let mut pie = Pie::new(0);
    pie.prob = MAX_PROB;
    pie.qdelay = ticks(100 * MS);
    assert!(
        !pie.drop_early(&P, 15_000, || 0),
        "the 150 ms burst allowance"
    );
    let mut pie = draining(1.0);
    assert!(!pie.drop_early(&P, 2999, || 0), "under two MTUs");
    assert!(pie.drop_early(&P, 3000, || 0));
    let mut pie = draining(0.19);
    pie.qdelay = ticks(7 * MS);
    assert!(
        !pie.drop_early(&P, 15_000, || 0),
        "7 ms < 7.5 ms and p < 20 %"
    );
    pie.prob = of(0.2);
    for _ in 0..4 {
        pie.drop_early(&P, 15_000, || u64::MAX);
    }
    assert!(pie.accu_prob > 0, "at 20 % it counts");
}

#[test]
fn low_delay_twice_without_probability_restores_the_burst_allowance() {
    let mut pie = draining(0.0);
    pie.dequeued(210 * MS, 209 * MS, 15_000); // 1 ms of delay
    pie.catch_up(500 * MS, &P, 15_000);
    assert_eq!(pie.burst_time, ticks(150 * MS));
    assert_eq!(pie.prob(), 0);
}
