//! Per-frame loss: a fixed probability, a bit error rate turned into a frame error
//! probability (1 − (1 − BER)^bits, independent bit errors), or both.

use rand::Rng;
use serde::Deserialize;

use crate::rng::Stream;

#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorModel {
    #[serde(default)]
    pub loss: f64,
    #[serde(default)]
    pub ber: f64,
}

impl ErrorModel {
    pub fn is_lossless(&self) -> bool {
        self.loss <= 0.0 && self.ber <= 0.0
    }

    /// Probability that a frame of `bytes` is lost.
    pub fn frame_error_probability(&self, bytes: u32) -> f64 {
        let bit_survival = (1.0 - self.ber).powf(8.0 * f64::from(bytes));
        1.0 - (1.0 - self.loss) * bit_survival
    }

    /// Draws whether a frame is corrupted; draws nothing when lossless, which keeps the
    /// stream untouched for other uses.
    pub fn corrupts(&self, bytes: u32, rng: &mut Stream) -> bool {
        !self.is_lossless() && rng.random::<f64>() < self.frame_error_probability(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ber_gives_length_dependent_frame_errors() {
        let m = ErrorModel {
            loss: 0.0,
            ber: 1e-5,
        };
        let p = m.frame_error_probability(1250); // 10^4 bits
        assert!((p - (1.0 - (1.0f64 - 1e-5).powi(10_000))).abs() < 1e-12);
        assert!((p - 0.0952).abs() < 1e-3);
        assert!(m.frame_error_probability(40) < p);
        let both = ErrorModel {
            loss: 0.5,
            ber: 1e-5,
        };
        assert!((both.frame_error_probability(1250) - (1.0 - 0.5 * (1.0 - p))).abs() < 1e-12);
        assert_eq!(ErrorModel::default().frame_error_probability(1500), 0.0);
    }

    #[test]
    fn drawn_loss_rate_matches_probability() {
        let m = ErrorModel {
            loss: 0.1,
            ber: 0.0,
        };
        let mut rng = crate::rng::stream(7, crate::rng::StreamId::Flow { flow: 0 });
        let lost = (0..100_000).filter(|_| m.corrupts(1000, &mut rng)).count();
        assert!((9_500..10_500).contains(&lost), "{lost}");
    }
}
