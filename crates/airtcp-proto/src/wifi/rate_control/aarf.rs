//! Adaptive ARF (Lacage, Manshaei and Turletti, "IEEE 802.11 Rate Adaptation: A Practical
//! Approach", MSWiM 2004), as ns-3 implements it in
//! `src/wifi/model/rate-control/aarf-wifi-manager.cc` (`AarfWifiManager`), with its defaults.
//!
//! ARF (`arf`, whose state machine this reuses) probes a higher rate every 10 successes even
//! where that rate always fails, losing a frame attempt each time. AARF makes the thresholds
//! adapt: a failed probe (recovery fallback) multiplies the success threshold by 2, up to 60,
//! and the timer threshold by 2; a normal fallback (two failures in a row) resets them to
//! their minimums, 10 and 15.
//!
//! Reproduced from ns-3, defaults included: `MinSuccessThreshold` 10, `MaxSuccessThreshold`
//! 60, `MinTimerThreshold` 15, `SuccessK` = `TimerK` = 2. The timer threshold has no upper
//! bound, and ns-3 floors its doubled value at the *success* minimum (`Max(timer · K,
//! m_minSuccessThreshold)`), which with these defaults never binds. The thresholds change on
//! the fallback condition even at the lowest rate, where the rate itself cannot fall. The
//! factors are integers here (ns-3 multiplies doubles and truncates; the same for 2) and the
//! timer threshold saturates instead of overflowing. Everything else is ARF's (see `arf`).

use super::arf::{Arf, Fallback};
use super::RateControl;

#[derive(Clone, Debug)]
pub struct Aarf {
    arf: Arf,
}

impl Aarf {
    pub const MIN_SUCCESS_THRESHOLD: u32 = 10;
    pub const MAX_SUCCESS_THRESHOLD: u32 = 60;
    pub const MIN_TIMER_THRESHOLD: u32 = 15;
    pub const SUCCESS_K: u32 = 2;
    pub const TIMER_K: u32 = 2;

    pub fn new(n_rates: usize) -> Self {
        Aarf {
            arf: Arf::with_thresholds(
                n_rates,
                Self::MIN_SUCCESS_THRESHOLD,
                Self::MIN_TIMER_THRESHOLD,
            ),
        }
    }

    /// (success threshold, timer threshold) in force.
    pub fn thresholds(&self) -> (u32, u32) {
        self.arf.thresholds()
    }
}

impl RateControl for Aarf {
    fn name(&self) -> &'static str {
        "aarf"
    }

    fn rate_for_attempt(&mut self, _now_ns: u64, _attempt: u32) -> usize {
        self.arf.current_rate()
    }

    fn handle_attempt(&mut self, _now_ns: u64, _rate: usize, acked: bool) {
        if acked {
            self.arf.on_success();
            return;
        }
        let (success, timer) = self.arf.thresholds();
        match self.arf.on_failure() {
            // The higher rate failed its probe: wait longer before the next one.
            Fallback::Recovery => self.arf.set_thresholds(
                (success.saturating_mul(Self::SUCCESS_K)).min(Self::MAX_SUCCESS_THRESHOLD),
                (timer.saturating_mul(Self::TIMER_K)).max(Self::MIN_SUCCESS_THRESHOLD),
            ),
            // The channel got worse at a rate that had worked: start afresh.
            Fallback::Normal => {
                self.arf
                    .set_thresholds(Self::MIN_SUCCESS_THRESHOLD, Self::MIN_TIMER_THRESHOLD);
            }
            Fallback::None => {}
        }
    }

    fn current_rate(&self) -> usize {
        self.arf.current_rate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::rate_control::play;

    #[test]
    fn failed_probes_double_the_success_threshold_up_to_60() {
        let mut aarf = Aarf::new(3);
        assert_eq!(aarf.thresholds(), (10, 15));
        // Each round: successes up to the threshold step up, the probe fails and steps back.
        let expected = [(20, 30), (40, 60), (60, 120), (60, 240)];
        let mut needed = 10;
        for (round, thresholds) in expected.into_iter().enumerate() {
            let rates = play(&mut aarf, &"S".repeat(needed));
            assert_eq!(rates[needed - 2], 0, "round {round}: not before {needed}");
            assert_eq!(rates[needed - 1], 1, "round {round}: up after {needed}");
            assert_eq!(play(&mut aarf, "F"), [0], "round {round}: probe fails");
            assert_eq!(aarf.thresholds(), thresholds, "round {round}");
            needed = thresholds.0 as usize;
        }
    }

    #[test]
    fn normal_fallback_resets_the_thresholds() {
        let mut aarf = Aarf::new(3);
        play(&mut aarf, &"S".repeat(10));
        play(&mut aarf, "F");
        assert_eq!(aarf.thresholds(), (20, 30));
        // 20 successes step up to 1, the probe succeeds; two failures in a row fall back
        play(&mut aarf, &"S".repeat(20));
        assert_eq!(play(&mut aarf, "SFF"), [1, 1, 0]);
        assert_eq!(aarf.thresholds(), (10, 15));
        let rates = play(&mut aarf, &"S".repeat(10));
        assert_eq!(rates[9], 1, "10 successes suffice again");
    }

    #[test]
    fn thresholds_reset_even_at_the_lowest_rate() {
        let mut aarf = Aarf::new(2);
        play(&mut aarf, &"S".repeat(10));
        assert_eq!(play(&mut aarf, "F"), [0]);
        assert_eq!(aarf.thresholds(), (20, 30));
        // At rate 0, which cannot fall: a success ends recovery, two failures in a row are a
        // normal fallback all the same.
        assert_eq!(play(&mut aarf, "SFF"), [0, 0, 0]);
        assert_eq!(aarf.thresholds(), (10, 15));
    }
}
