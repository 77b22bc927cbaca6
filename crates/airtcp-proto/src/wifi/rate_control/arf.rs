//! Auto Rate Fallback (Kamerman and Monteban, "WaveLAN-II: a high-performance wireless LAN
//! for the unlicensed band", Bell Labs Technical Journal 1997), as ns-3 implements it in
//! `src/wifi/model/rate-control/arf-wifi-manager.cc` (`ArfWifiManager`), with its defaults.
//!
//! Every transmission attempt counts on its own, a retransmission as much as a first
//! transmission (ns-3: "there is a backoff between each data transmission"); the MAC's
//! attempt number is not used. Per attempt:
//! - success (`DoReportDataOk`): the timer and the success count grow, the failure count is
//!   cleared and so is recovery. When the success count reaches the success threshold (10) or
//!   the timer reaches the timer threshold (15), and a higher rate exists, the rate steps up,
//!   both counts restart and the station enters recovery: the next attempt is a probe.
//! - failure (`DoReportDataFailed`): the timer and the failure count grow, the success count
//!   is cleared. In recovery, the first failure (the failed probe) steps straight back down;
//!   the timer restarts. Otherwise every second consecutive failure steps down, and the timer
//!   restarts from the second failure on.
//!
//! What is reproduced, ns-3's details included:
//! - The "timer" is a count of attempts since the last rate change or timer restart, not a
//!   time (the paper's timer; ns-3 counts transmissions).
//! - Both thresholds are compared with `==`, so a count that has passed its threshold (at the
//!   highest rate, where no step up happens) does not trigger again until it is restarted.
//! - Recovery ends only with a success: after a failed probe, further consecutive failures do
//!   not step down again until one attempt succeeds.
//! - The station starts at the lowest rate (ns-3's `m_rate = 0`).
//!
//! Not modelled: RTS outcomes (ns-3 ignores them too; the MAC reports data attempts only) and
//! ns-3's per-mode transmit vector (preamble, power).

use super::RateControl;

/// What a failure did to the rate, for AARF's threshold adaptation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fallback {
    /// The rate stays.
    None,
    /// The probe after a step up failed ("recovery fallback").
    Recovery,
    /// The second consecutive failure outside recovery ("normal fallback").
    Normal,
}

#[derive(Clone, Debug)]
pub struct Arf {
    n_rates: usize,
    rate: usize,
    timer: u32,
    success: u32,
    failed: u32,
    recovery: bool,
    success_threshold: u32,
    timer_threshold: u32,
}

impl Arf {
    /// ns-3's `SuccessThreshold`.
    pub const SUCCESS_THRESHOLD: u32 = 10;
    /// ns-3's `TimerThreshold`.
    pub const TIMER_THRESHOLD: u32 = 15;

    pub fn new(n_rates: usize) -> Self {
        Self::with_thresholds(n_rates, Self::SUCCESS_THRESHOLD, Self::TIMER_THRESHOLD)
    }

    pub(super) fn with_thresholds(n_rates: usize, success: u32, timer: u32) -> Self {
        Arf {
            n_rates,
            rate: 0,
            timer: 0,
            success: 0,
            failed: 0,
            recovery: false,
            success_threshold: success,
            timer_threshold: timer,
        }
    }

    /// (success threshold, timer threshold) in force.
    pub fn thresholds(&self) -> (u32, u32) {
        (self.success_threshold, self.timer_threshold)
    }

    pub(super) fn set_thresholds(&mut self, success: u32, timer: u32) {
        self.success_threshold = success;
        self.timer_threshold = timer;
    }

    /// `DoReportDataOk`.
    pub(super) fn on_success(&mut self) {
        self.timer += 1;
        self.success += 1;
        self.failed = 0;
        self.recovery = false;
        let threshold_met =
            self.success == self.success_threshold || self.timer == self.timer_threshold;
        if threshold_met && self.rate + 1 < self.n_rates {
            self.rate += 1;
            self.timer = 0;
            self.success = 0;
            // The next attempt probes the new rate: its failure alone steps back.
            self.recovery = true;
        }
    }

    /// `DoReportDataFailed`.
    pub(super) fn on_failure(&mut self) -> Fallback {
        self.timer += 1;
        self.failed += 1;
        self.success = 0;
        if self.recovery {
            self.timer = 0;
            if self.failed == 1 {
                self.step_down();
                return Fallback::Recovery;
            }
            Fallback::None
        } else {
            if self.failed >= 2 {
                self.timer = 0;
            }
            // Failures 2, 4, 6, ... of a run: a run of failures steps down every other one.
            if (self.failed - 1) % 2 == 1 {
                self.step_down();
                return Fallback::Normal;
            }
            Fallback::None
        }
    }

    fn step_down(&mut self) {
        self.rate = self.rate.saturating_sub(1);
    }
}

impl RateControl for Arf {
    fn name(&self) -> &'static str {
        "arf"
    }

    fn rate_for_attempt(&mut self, _now_ns: u64, _attempt: u32) -> usize {
        self.rate
    }

    fn handle_attempt(&mut self, _now_ns: u64, _rate: usize, acked: bool) {
        if acked {
            self.on_success();
        } else {
            self.on_failure();
        }
    }

    fn current_rate(&self) -> usize {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::rate_control::play;

    #[test]
    fn steps_up_after_exactly_ten_successes() {
        let mut arf = Arf::new(4);
        assert_eq!(arf.current_rate(), 0, "starts at the lowest rate");
        let rates = play(&mut arf, &"S".repeat(10));
        assert_eq!(rates[..9], [0; 9]);
        assert_eq!(rates[9], 1);
        // and again from scratch at the new rate (the probe succeeded, then 9 more)
        let rates = play(&mut arf, &"S".repeat(10));
        assert_eq!(rates[..9], [1; 9]);
        assert_eq!(rates[9], 2);
    }

    #[test]
    fn failed_probe_steps_straight_back() {
        let mut arf = Arf::new(4);
        play(&mut arf, &"S".repeat(10));
        assert_eq!(arf.current_rate(), 1);
        assert_eq!(
            play(&mut arf, "F"),
            [0],
            "one failure right after the step up"
        );
    }

    #[test]
    fn two_consecutive_failures_step_down() {
        let mut arf = Arf::new(4);
        play(&mut arf, &"S".repeat(20));
        assert_eq!(arf.current_rate(), 2);
        // the probe succeeds (recovery over); single failures between successes do not
        // step down, the second of two in a row does, the fourth again
        assert_eq!(play(&mut arf, "SFSF"), [2, 2, 2, 2]);
        assert_eq!(play(&mut arf, "F"), [1]);
        assert_eq!(play(&mut arf, "FF"), [1, 0]);
    }

    #[test]
    fn recovery_lasts_until_a_success() {
        // ns-3 clears recovery only on success: after the failed probe, more failures do not
        // step down until an attempt succeeds.
        let mut arf = Arf::new(4);
        play(&mut arf, &"S".repeat(20));
        assert_eq!(arf.current_rate(), 2);
        assert_eq!(play(&mut arf, "FFFF"), [1, 1, 1, 1]);
        assert_eq!(play(&mut arf, "SFF"), [1, 1, 0]);
    }

    #[test]
    fn timer_steps_up_without_ten_successes_in_a_row() {
        // 5 successes, a failure, 9 successes: 15 attempts, success count 9.
        let mut arf = Arf::new(4);
        let rates = play(&mut arf, "SSSSSFSSSSSSSSS");
        assert_eq!(rates[13], 0);
        assert_eq!(rates[14], 1, "the 15th attempt reaches the timer threshold");
    }

    #[test]
    fn stays_within_the_rate_set() {
        let mut arf = Arf::new(2);
        play(&mut arf, &"S".repeat(50));
        assert_eq!(arf.current_rate(), 1);
        play(&mut arf, &"F".repeat(10));
        assert_eq!(arf.current_rate(), 0);
    }
}
