//! A windowed maximum in constant space: Kathleen Nichols' algorithm as Linux's
//! `lib/win_minmax.c` (`minmax_running_max`) runs it for BBR's bottleneck bandwidth.
//!
//! It keeps the best, second and third best values with their times, the later ones from
//! later parts of the window, so that when the best ages out of the window a value from its
//! last part takes its place. Time is whatever the caller counts (BBR: round trips).

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    time: u64,
    value: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowedMax {
    best: [Sample; 3],
}

impl WindowedMax {
    /// The maximum over the window.
    pub fn get(&self) -> u64 {
        self.best[0].value
    }

    /// Forgets everything: `value` at `time` is the only sample (`minmax_reset`).
    pub fn reset(&mut self, time: u64, value: u64) {
        self.best = [Sample { time, value }; 3];
    }

    /// Adds `value` measured at `time`, the window `window` long; returns the maximum.
    pub fn update(&mut self, window: u64, time: u64, value: u64) -> u64 {
        let sample = Sample { time, value };
        if value >= self.best[0].value || time.wrapping_sub(self.best[2].time) > window {
            self.reset(time, value);
            return value;
        }
        if value >= self.best[1].value {
            self.best[1] = sample;
            self.best[2] = sample;
        } else if value >= self.best[2].value {
            self.best[2] = sample;
        }
        self.age(window, sample)
    }

    /// `minmax_subwin_update`: as time passes, the second and third choices move up.
    fn age(&mut self, window: u64, sample: Sample) -> u64 {
        let elapsed = sample.time.wrapping_sub(self.best[0].time);
        if elapsed > window {
            self.best = [self.best[1], self.best[2], sample];
            if sample.time.wrapping_sub(self.best[0].time) > window {
                self.best = [self.best[1], self.best[2], sample];
            }
        } else if self.best[1].time == self.best[0].time && elapsed > window / 4 {
            // A quarter of the window without a new best: a second choice from the second
            // quarter.
            self.best[1] = sample;
            self.best[2] = sample;
        } else if self.best[2].time == self.best[1].time && elapsed > window / 2 {
            self.best[2] = sample;
        }
        self.best[0].value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_maximum_replaces_everything() {
        let mut max = WindowedMax::default();
        assert_eq!(max.update(10, 0, 5), 5);
        assert_eq!(max.update(10, 1, 3), 5);
        assert_eq!(max.update(10, 2, 7), 7);
        assert_eq!(max.best, [Sample { time: 2, value: 7 }; 3]);
    }

    #[test]
    fn the_maximum_ages_out_and_a_later_choice_takes_its_place() {
        let mut max = WindowedMax::default();
        max.update(10, 0, 100);
        // Round 3 (past a quarter): the second choice; round 6 (past half): the third.
        max.update(10, 3, 80);
        max.update(10, 6, 60);
        for t in 7..=10 {
            assert_eq!(max.update(10, t, 10), 100, "round {t}");
        }
        // Round 11: 100 is more than 10 rounds old; 80 from round 3 is the maximum.
        assert_eq!(max.update(10, 11, 10), 80);
        // Round 14: 80 ages out too; 60 from round 6 remains.
        assert_eq!(max.update(10, 14, 10), 60);
        // Round 17: everything left is older than the window's reach from 6: 10 is all.
        assert_eq!(max.update(10, 17, 10), 10);
    }

    #[test]
    fn a_sample_after_a_silence_longer_than_the_window_restarts() {
        let mut max = WindowedMax::default();
        max.update(10, 0, 100);
        assert_eq!(max.update(10, 11, 1), 1);
    }
}
