//! The time series of the MACs of WLANs with geometry: at each sampling instant, per MAC,
//! what it did since the last one (attempts, failures, the mean data rate it used, the mean
//! power at which its addressees decoded it), so that a rate control's decisions and a
//! station's loss can be followed through a run. Column-wise, like the flows' series.

use serde::Serialize;

/// One MAC's interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MacSample {
    /// Index into `MacSeries::nodes` and `wlans`.
    pub mac: u32,
    pub time_s: f64,
    pub attempts: u64,
    pub failures: u64,
    /// NaN when it made no attempt in the interval.
    pub rate_bps: f64,
    /// NaN when none of its frames was decoded in the interval.
    pub rssi_dbm: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct MacSeries {
    /// Per MAC: its node's name and its WLAN's AP's name.
    pub nodes: Vec<String>,
    pub wlans: Vec<String>,
    pub mac: Vec<u32>,
    pub time_s: Vec<f64>,
    pub attempts: Vec<u64>,
    pub failures: Vec<u64>,
    pub rate_bps: Vec<f64>,
    pub rssi_dbm: Vec<f64>,
}

impl MacSeries {
    pub fn push(&mut self, sample: MacSample) {
        self.mac.push(sample.mac);
        self.time_s.push(sample.time_s);
        self.attempts.push(sample.attempts);
        self.failures.push(sample.failures);
        self.rate_bps.push(sample.rate_bps);
        self.rssi_dbm.push(sample.rssi_dbm);
    }

    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}
