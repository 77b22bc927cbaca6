//! Per-destination rate control for legacy 802.11 rates (802.11b 1, 2, 5.5, 11 Mbit/s;
//! 802.11a/g 6 to 54 Mbit/s), for a simulated DCF.
//!
//! The MAC keeps one controller per destination. Before each transmission attempt of the
//! frame at the head of its queue it asks which rate to use (`rate_for_attempt`, with the
//! number of attempts that frame already had); after each attempt it reports whether the
//! frame was acknowledged (`handle_attempt`); when the frame's attempts are over, delivered
//! or dropped at the retry limit, it says so (`handle_frame_done`). The calls come in
//! that order, once per attempt: `rate_for_attempt(now, 0)` starts a new frame.
//! `current_rate` is what the controller would pick for a first attempt now, without side
//! effects, for the time series.
//!
//! Sans-IO like the rest of the crate: no clock (every input carries `now_ns`), no global
//! random generator (Minstrel's only randomness, its sample table, comes from the seed given
//! at construction).
//!
//! One algorithm per file:
//! - `constant`: one fixed rate.
//! - `arf`: Auto Rate Fallback (Kamerman and Monteban 1997) as ns-3's `ArfWifiManager`.
//! - `aarf`: Adaptive ARF (Lacage, Manshaei and Turletti, MSWiM 2004) as ns-3's
//!   `AarfWifiManager`.
//! - `minstrel`: Minstrel as Linux's mac80211 runs it for a legacy station
//!   (`rc80211_minstrel_ht.c`, its CCK and OFDM groups).
//!
//! Rates are identified by their index in the slice given at construction, which must be
//! sorted by strictly increasing rate.

mod aarf;
mod arf;
mod constant;
mod minstrel;

use core::fmt;

pub use aarf::Aarf;
pub use arf::Arf;
pub use constant::Constant;
pub use minstrel::{Minstrel, Stage};

/// A legacy rate a station may use, with the airtime the algorithm may need (Minstrel's
/// throughput estimate).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateInfo {
    pub rate_bps: u64,
    /// Airtime of a reference 1200-byte data frame exchange at this rate (frame + SIFS +
    /// ACK), in ns.
    pub exchange_ns: u64,
}

/// A rate control algorithm serving one destination.
pub trait RateControl: Send + fmt::Debug {
    /// The name a scenario gives it (one of `RATE_CONTROLS`).
    fn name(&self) -> &'static str;

    /// Index (into the rates given at construction, sorted ascending by rate) of the rate for
    /// the next attempt of the frame at the head of the queue; `attempt` counts the attempts
    /// this frame already had (0 for its first). `now` in ns.
    fn rate_for_attempt(&mut self, now_ns: u64, attempt: u32) -> usize;

    /// The outcome of one attempt made at `rate` (acked or not). Called once per attempt, in
    /// order.
    fn handle_attempt(&mut self, now_ns: u64, rate: usize, acked: bool);

    /// The frame's attempts are over (delivered, or dropped at the retry limit): Minstrel's
    /// per-frame accounting; default does nothing.
    fn handle_frame_done(&mut self, _now_ns: u64, _delivered: bool) {}

    /// The rate the algorithm would pick for a first attempt now, without side effects
    /// (Minstrel's `max_tp_rate[0]`; a probe it might send instead is not shown).
    fn current_rate(&self) -> usize;

    /// The attempts the frame in progress gets in all, where the algorithm's retry chain
    /// ends frames (Linux's mac80211 hands the driver a rate table whose tries the hardware
    /// spends, then gives up); `None`: the MAC's retry limits end them. Asked after an
    /// attempt of the frame failed.
    fn attempt_limit(&self) -> Option<u32> {
        None
    }
}

/// Names accepted in scenarios.
pub const RATE_CONTROLS: &[&str] = &["constant", "arf", "aarf", "minstrel"];

/// Settings beyond the name; the default is every algorithm's own default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RateControlConfig {
    /// `constant`: the index of its rate; `None` for the highest.
    pub constant_index: Option<usize>,
}

/// The controller named `name` for a destination reachable at `rates` (sorted by strictly
/// increasing rate), with its defaults; `seed` feeds Minstrel's sample table.
pub fn new_rate_control(
    name: &str,
    rates: &[RateInfo],
    seed: u64,
) -> Result<Box<dyn RateControl>, String> {
    new_rate_control_with(name, rates, seed, &RateControlConfig::default())
}

/// As `new_rate_control`, with settings.
pub fn new_rate_control_with(
    name: &str,
    rates: &[RateInfo],
    seed: u64,
    config: &RateControlConfig,
) -> Result<Box<dyn RateControl>, String> {
    check_rates(rates)?;
    match name {
        "constant" => Ok(Box::new(Constant::new(rates.len(), config.constant_index)?)),
        "arf" => Ok(Box::new(Arf::new(rates.len()))),
        "aarf" => Ok(Box::new(Aarf::new(rates.len()))),
        "minstrel" => Ok(Box::new(Minstrel::new(rates, seed)?)),
        _ => Err(format!(
            "unknown rate control `{name}`; expected one of {}",
            RATE_CONTROLS.join(", ")
        )),
    }
}

/// The rates every algorithm relies on: at least one, each with a positive rate and exchange
/// time, sorted by strictly increasing rate (ARF steps up and down by index).
fn check_rates(rates: &[RateInfo]) -> Result<(), String> {
    if rates.is_empty() {
        return Err("rate control needs at least one rate".to_string());
    }
    if let Some(bad) = rates.iter().find(|r| r.rate_bps == 0 || r.exchange_ns == 0) {
        return Err(format!(
            "rate {} bit/s with exchange time {} ns: both must be positive",
            bad.rate_bps, bad.exchange_ns
        ));
    }
    if rates.windows(2).any(|w| w[0].rate_bps >= w[1].rate_bps) {
        return Err("rates must be sorted by strictly increasing rate".to_string());
    }
    Ok(())
}

/// Plays `pattern` ('S' acked, 'F' not) as first attempts and returns the rate after each
/// (the algorithms' tests).
#[cfg(test)]
pub(crate) fn play(rc: &mut dyn RateControl, pattern: &str) -> Vec<usize> {
    pattern
        .chars()
        .map(|c| {
            let rate = rc.rate_for_attempt(0, 0);
            rc.handle_attempt(0, rate, c == 'S');
            rc.current_rate()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates() -> Vec<RateInfo> {
        [
            (1_000_000, 10_000_000),
            (2_000_000, 5_200_000),
            (11_000_000, 1_200_000),
        ]
        .iter()
        .map(|&(rate_bps, exchange_ns)| RateInfo {
            rate_bps,
            exchange_ns,
        })
        .collect()
    }

    #[test]
    fn every_listed_name_builds_and_reports_its_name() {
        for name in RATE_CONTROLS {
            let rc = new_rate_control(name, &rates(), 1).unwrap();
            assert_eq!(rc.name(), *name);
        }
    }

    #[test]
    fn unknown_name_lists_the_valid_choices() {
        let err = new_rate_control("onoe", &rates(), 1).unwrap_err();
        assert!(err.contains("onoe"), "{err}");
        for name in RATE_CONTROLS {
            assert!(err.contains(name), "{err}");
        }
    }

    #[test]
    fn rejects_unsorted_empty_or_zero_rates() {
        let mut unsorted = rates();
        unsorted.swap(0, 1);
        assert!(new_rate_control("arf", &unsorted, 1)
            .unwrap_err()
            .contains("sorted"));
        let mut duplicate = rates();
        duplicate[1].rate_bps = duplicate[0].rate_bps;
        assert!(new_rate_control("arf", &duplicate, 1).is_err());
        assert!(new_rate_control("arf", &[], 1).is_err());
        let mut zero = rates();
        zero[2].exchange_ns = 0;
        assert!(new_rate_control("minstrel", &zero, 1)
            .unwrap_err()
            .contains("positive"));
    }

    #[test]
    fn constant_uses_the_highest_rate_unless_given_an_index() {
        let mut rc = new_rate_control("constant", &rates(), 1).unwrap();
        assert_eq!(rc.current_rate(), 2);
        assert_eq!(rc.rate_for_attempt(0, 0), 2);
        rc.handle_attempt(0, 2, false);
        assert_eq!(rc.rate_for_attempt(1, 1), 2);
        let config = RateControlConfig {
            constant_index: Some(1),
        };
        let mut rc = new_rate_control_with("constant", &rates(), 1, &config).unwrap();
        assert_eq!(rc.rate_for_attempt(0, 0), 1);
        assert_eq!(rc.current_rate(), 1);
        let config = RateControlConfig {
            constant_index: Some(3),
        };
        let err = new_rate_control_with("constant", &rates(), 1, &config).unwrap_err();
        assert!(err.contains('3'), "{err}");
    }
}
