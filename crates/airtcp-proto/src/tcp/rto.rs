//! Retransmission timeout estimation, RFC 6298 §2 and §5, in integer nanoseconds so that runs
//! are bit-reproducible.

use core::time::Duration;

use super::RtoFloor;
use crate::time::duration_nanos;

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    srtt: Option<u64>,
    rttvar: u64,
    base_rto: u64,
    /// Exponent of the exponential backoff (§5.5), reset by a new sample.
    backoff: u32,
    min_rto: u64,
    max_rto: u64,
    granularity: u64,
    floor: RtoFloor,
}

impl RtoEstimator {
    pub fn new(initial: Duration, min: Duration, max: Duration, granularity: Duration) -> Self {
        Self::with_floor(initial, min, max, granularity, RtoFloor::Total)
    }

    pub fn with_floor(
        initial: Duration,
        min: Duration,
        max: Duration,
        granularity: Duration,
        floor: RtoFloor,
    ) -> Self {
        RtoEstimator {
            srtt: None,
            rttvar: 0,
            base_rto: duration_nanos(initial),
            backoff: 0,
            min_rto: duration_nanos(min),
            max_rto: duration_nanos(max),
            granularity: duration_nanos(granularity),
            floor,
        }
    }

    /// Takes one RTT measurement (never from a retransmitted segment: Karn's rule is the
    /// caller's).
    pub fn on_sample(&mut self, rtt: Duration) {
        self.on_sample_among(rtt, 1);
    }

    /// Takes one of `expected` measurements a round trip brings (RFC 7323 Appendix G, with
    /// timestamps every ACK measures): the gains are divided by `expected`, so a round
    /// trip's samples weigh what one sample weighs without timestamps.
    pub fn on_sample_among(&mut self, rtt: Duration, expected: u64) {
        let r = duration_nanos(rtt);
        let e = expected.max(1);
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                self.rttvar = ((4 * e - 1) * self.rttvar + srtt.abs_diff(r)) / (4 * e);
                self.srtt = Some(((8 * e - 1) * srtt + r) / (8 * e));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        let variance = self.granularity.max(4 * self.rttvar);
        self.base_rto = match self.floor {
            RtoFloor::Total => (srtt + variance).clamp(self.min_rto, self.max_rto),
            RtoFloor::Variance => (srtt + variance.max(self.min_rto)).min(self.max_rto),
        };
        self.backoff = 0;
    }

    /// Re-initialises the timeout to at least `rto`, with no backoff (§5.7: after a lost SYN
    /// the connection starts from 3 s until a sample arrives).
    pub fn fall_back(&mut self, rto: Duration) {
        self.base_rto = self.base_rto.max(duration_nanos(rto)).min(self.max_rto);
        self.backoff = 0;
    }

    /// Forgets the backoff of earlier expiries (the estimate stays).
    pub fn clear_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Doubles the timeout after an expiry (§5.5).
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(16);
    }

    pub fn rto(&self) -> Duration {
        let backed_off = self.base_rto.saturating_mul(1u64 << self.backoff);
        Duration::from_nanos(
            backed_off
                .min(self.max_rto)
                .max(self.min_rto.min(self.base_rto)),
        )
    }

    pub fn srtt(&self) -> Option<Duration> {
        self.srtt.map(Duration::from_nanos)
    }

    pub fn rttvar(&self) -> Duration {
        Duration::from_nanos(self.rttvar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimator() -> RtoEstimator {
        RtoEstimator::new(
            Duration::from_secs(1),
            Duration::from_millis(200),
            Duration::from_secs(60),
            Duration::from_millis(1),
        )
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut rto = estimator();
        assert_eq!(rto.rto(), Duration::from_secs(1));
        rto.on_sample(Duration::from_millis(100));
        assert_eq!(rto.srtt(), Some(Duration::from_millis(100)));
        assert_eq!(rto.rttvar(), Duration::from_millis(50));
        assert_eq!(rto.rto(), Duration::from_millis(300));
    }

    #[test]
    fn later_samples_use_rfc6298_gains() {
        let mut rto = estimator();
        rto.on_sample(Duration::from_millis(100));
        rto.on_sample(Duration::from_millis(200));
        // rttvar = 3/4·50 + 1/4·100 = 62.5 ms, srtt = 7/8·100 + 1/8·200 = 112.5 ms
        assert_eq!(rto.rttvar(), Duration::from_micros(62_500));
        assert_eq!(rto.srtt(), Some(Duration::from_micros(112_500)));
        assert_eq!(rto.rto(), Duration::from_micros(362_500));
    }

    #[test]
    fn with_four_samples_a_round_trip_each_weighs_a_quarter() {
        let mut rto = estimator();
        rto.on_sample(Duration::from_millis(100));
        rto.on_sample_among(Duration::from_millis(200), 4);
        // rttvar = 15/16·50 + 1/16·100 = 53.125 ms, srtt = 31/32·100 + 1/32·200 = 103.125 ms
        assert_eq!(rto.rttvar(), Duration::from_micros(53_125));
        assert_eq!(rto.srtt(), Some(Duration::from_micros(103_125)));
    }

    #[test]
    fn linux_puts_the_minimum_on_the_variance_term() {
        let linux = |rtt_ms| {
            let mut rto = RtoEstimator::with_floor(
                Duration::from_secs(1),
                Duration::from_millis(200),
                Duration::from_secs(60),
                Duration::from_millis(1),
                RtoFloor::Variance,
            );
            for _ in 0..50 {
                rto.on_sample(Duration::from_millis(rtt_ms));
            }
            rto.rto()
        };
        // A steady 192 ms path: RFC 6298 lets the RTO fall to the RTT plus the clock
        // granularity (here up to the 200 ms floor), Linux keeps it 200 ms above the RTT.
        assert_eq!(linux(192), Duration::from_millis(392));
        let mut rfc = estimator();
        for _ in 0..50 {
            rfc.on_sample(Duration::from_millis(192));
        }
        assert_eq!(rfc.rto(), Duration::from_millis(200));
        assert_eq!(linux(10), Duration::from_millis(210));
    }

    #[test]
    fn minimum_and_backoff_are_applied() {
        let mut rto = estimator();
        rto.on_sample(Duration::from_millis(10));
        assert_eq!(rto.rto(), Duration::from_millis(200), "clamped to min RTO");
        rto.back_off();
        rto.back_off();
        assert_eq!(rto.rto(), Duration::from_millis(800));
        for _ in 0..20 {
            rto.back_off();
        }
        assert_eq!(rto.rto(), Duration::from_secs(60), "capped at max RTO");
        rto.on_sample(Duration::from_millis(10));
        assert_eq!(
            rto.rto(),
            Duration::from_millis(200),
            "a new sample resets the backoff"
        );
    }
}
