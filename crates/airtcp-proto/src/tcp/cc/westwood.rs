//! Westwood+ (Mascolo, Casetti, Gerla, Sanadidi, Wang 2001; Grieco and Mascolo 2004; Linux
//! `tcp_westwood.c`): NewReno's growth, but after a loss the window is set from an estimate
//! of the bandwidth the connection was getting (`BandwidthEstimate`), not halved, so random
//! (wireless) losses do not shrink it below what the path carries.
//!
//! At the end of a fast recovery, `cwnd = ssthresh = max(BWE · RTTmin, 2 segments)`; at a
//! timeout `ssthresh = max(BWE · RTTmin, 2 segments)` and cwnd one segment, and RTTmin is
//! measured afresh. Entering a fast recovery halves as NewReno does (Linux's
//! `tcp_reno_ssthresh`).

use core::time::Duration;

use super::bandwidth_estimate::BandwidthEstimate;
use super::{CongestionControl, Window};
use crate::time::Instant;

#[derive(Clone, Debug)]
pub struct Westwood {
    window: Window,
    estimate: BandwidthEstimate,
}

impl Westwood {
    pub fn new(initial_cwnd: u32, mss: u32) -> Self {
        Westwood {
            window: Window::new(initial_cwnd, mss),
            estimate: BandwidthEstimate::default(),
        }
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }

    fn on_any_ack(&mut self, now: Instant, bytes_acked: u32) {
        self.estimate.on_ack(now, bytes_acked, self.window.mss);
    }

    fn on_rtt_sample(&mut self, _now: Instant, rtt: Duration) {
        self.estimate.on_rtt_sample(rtt);
    }

    fn on_exit_recovery(&mut self, _now: Instant, _flight_size: u32) {
        let target = self.estimate.bw_rtt_min(self.window.mss);
        let w = self.window_mut();
        w.ssthresh = target;
        w.cwnd = target;
    }

    /// Linux's tcp_westwood on CA_EVENT_COMPLETE_CWR: as at the end of a recovery.
    fn on_end_cwnd_reduction(&mut self, now: Instant) {
        self.on_exit_recovery(now, 0);
    }

    fn on_rto(&mut self, _now: Instant, _flight_size: u32, _episode_open: bool) {
        let target = self.estimate.bw_rtt_min(self.window.mss);
        self.estimate.forget_rtt_min();
        let w = self.window_mut();
        w.bytes_acked = 0;
        w.ssthresh = target;
        w.cwnd = w.mss;
    }
}

#[cfg(test)]
mod tests {
    use super::super::bandwidth_estimate::tests::estimate;
    use super::*;

    const MSS: u32 = 1000;

    #[test]
    fn after_a_loss_the_window_is_bandwidth_times_rtt_min() {
        let mut w = Westwood::new(10 * MSS, MSS);
        w.estimate = estimate(125_000.0, Duration::from_millis(80));
        w.window_mut().cwnd = 40 * MSS;
        w.on_enter_recovery(Instant::ZERO, 40 * MSS);
        assert_eq!(
            w.window().ssthresh,
            20 * MSS,
            "entering halves, as Linux's Reno ssthresh"
        );
        w.on_exit_recovery(Instant::ZERO, 5 * MSS);
        // 125 000 B/s x 80 ms = 10 000 bytes: 10 segments.
        assert_eq!((w.window().cwnd, w.window().ssthresh), (10 * MSS, 10 * MSS));
        w.on_rto(Instant::ZERO, 10 * MSS, false);
        assert_eq!((w.window().cwnd, w.window().ssthresh), (MSS, 10 * MSS));
    }
}
