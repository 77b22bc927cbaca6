//! Paper 003's spacing of regenerated ACKs (section 3.2, equations 1-4): the gaps between
//! successive new ACKs arriving from the slow link, their mean, and the effective mean
//! that leaves out the gaps longer than the mean (a lost ACK, a sender held by its window:
//! waits that are not the ACK clock). The ACKs regenerated for one received ACK are then
//! `δt = Δt_eff / δα` apart, so the train has left before the next ACK is due.
//!
//! The paper averages over all gaps so far; airtcp keeps the last [`GAP_SAMPLES`], so the
//! estimate follows the uplink's queue as it fills and drains over a run.

use core::time::Duration;
use std::collections::VecDeque;

use crate::time::Instant;

/// Gaps the means are taken over.
pub const GAP_SAMPLES: usize = 32;

#[derive(Clone, Debug, Default)]
pub struct AckGaps {
    last_arrival: Option<Instant>,
    gaps: VecDeque<Duration>,
}

impl AckGaps {
    /// A new ACK arrived at `now`: equation 1, `Δt = t_new − t_prev`.
    pub fn record(&mut self, now: Instant) {
        if let Some(previous) = self.last_arrival {
            if self.gaps.len() == GAP_SAMPLES {
                self.gaps.pop_front();
            }
            self.gaps.push_back(now - previous);
        }
        self.last_arrival = Some(now);
    }

    /// Equation 2: the mean gap `Δt_avg`.
    pub fn average(&self) -> Option<Duration> {
        let count = u32::try_from(self.gaps.len()).ok().filter(|&n| n > 0)?;
        Some(self.gaps.iter().sum::<Duration>() / count)
    }

    /// Equation 3: `Δt_eff`, the mean of the gaps shorter than `Δt_avg` (the mean itself
    /// when none is: all gaps equal).
    pub fn effective(&self) -> Option<Duration> {
        let average = self.average()?;
        let short: Vec<Duration> = self.gaps.iter().copied().filter(|g| *g < average).collect();
        match u32::try_from(short.len()) {
            Ok(count) if count > 0 => Some(short.iter().sum::<Duration>() / count),
            _ => Some(average),
        }
    }

    /// Equation 4: `δt = Δt_eff / δα` for a train of `acks` ACKs (zero before any gap).
    pub fn spacing(&self, acks: u32) -> Duration {
        self.effective()
            .map_or(Duration::ZERO, |effective| effective / acks.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equations_1_to_4_by_hand() {
        let mut gaps = AckGaps::default();
        let ms = |n: u64| Duration::from_millis(n);
        assert_eq!(gaps.spacing(4), Duration::ZERO);
        let mut t = Instant::ZERO;
        gaps.record(t);
        // Gaps 10, 20, 30 and a 140 ms wait: mean 50, effective (10 + 20 + 30) / 3 = 20.
        for gap in [10, 20, 30, 140] {
            t += ms(gap);
            gaps.record(t);
        }
        assert_eq!(gaps.average(), Some(ms(50)));
        assert_eq!(gaps.effective(), Some(ms(20)));
        assert_eq!(gaps.spacing(4), ms(5));
    }

    #[test]
    fn equal_gaps_are_their_own_effective_mean_and_old_gaps_are_forgotten() {
        let mut gaps = AckGaps::default();
        let mut t = Instant::ZERO;
        gaps.record(t);
        t += Duration::from_secs(10);
        gaps.record(t);
        for _ in 0..GAP_SAMPLES {
            t += Duration::from_millis(8);
            gaps.record(t);
        }
        assert_eq!(gaps.average(), Some(Duration::from_millis(8)));
        assert_eq!(gaps.effective(), Some(Duration::from_millis(8)));
    }
}
