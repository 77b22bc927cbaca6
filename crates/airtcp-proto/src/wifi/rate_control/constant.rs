//! Constant rate: every attempt of every frame at one rate, whatever the outcomes (ns-3's
//! `ConstantRateWifiManager`, and what the simulator did before rate control). The rate is
//! the highest unless the scenario names an index.

use super::RateControl;

#[derive(Clone, Debug)]
pub struct Constant {
    rate: usize,
}

impl Constant {
    /// Among `n_rates` rates, the one at `index`, or the highest for `None`.
    pub fn new(n_rates: usize, index: Option<usize>) -> Result<Self, String> {
        let rate = index.unwrap_or(n_rates.saturating_sub(1));
        if rate >= n_rates {
            return Err(format!(
                "constant rate index {rate} is out of range: there are {n_rates} rates"
            ));
        }
        Ok(Constant { rate })
    }
}

impl RateControl for Constant {
    fn name(&self) -> &'static str {
        "constant"
    }

    fn rate_for_attempt(&mut self, _now_ns: u64, _attempt: u32) -> usize {
        self.rate
    }

    fn handle_attempt(&mut self, _now_ns: u64, _rate: usize, _acked: bool) {}

    fn current_rate(&self) -> usize {
        self.rate
    }
}
