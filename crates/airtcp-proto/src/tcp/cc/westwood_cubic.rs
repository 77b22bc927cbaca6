//! Westwood+CUBIC: the hybrid paper 004 (§4, conclusion) calls for, "considering both the
//! wired and the wireless part", without specifying it. This design is airtcp's:
//!
//! - Growth is CUBIC's (RFC 9438, `Cubic`), for the long, fast wired backbone where Reno's
//!   one segment per round trip is too slow to refill the pipe.
//! - A loss is judged by Westwood+'s bandwidth estimate (`BandwidthEstimate`): ssthresh is
//!   CUBIC's `β · flight`, but never below `BWE · RTTmin` (capped at the flight), the
//!   window that carried what the connection was delivering with the queue empty. A random
//!   (wireless) loss with no queue built then leaves the window nearly where it was; a
//!   queue overflow, where the flight exceeds BWE · RTTmin by the queue, is cut by β as CUBIC
//!   cuts it. W_max is CUBIC's, so the next epoch starts close to it (small K) after a
//!   random loss and far from it after a congestive one.
//! - A timeout takes the same floor (outside an open loss episode) and measures RTTmin
//!   afresh, as Westwood+ does.
//!
//! The evaluation (paper 004's five-segment mesh path, random loss on the wireless hops) is in
//! docs/tcp.md and the `han-mesh` reproduction.

use core::time::Duration;

use super::bandwidth_estimate::BandwidthEstimate;
use super::{AckEvent, CongestionControl, CongestionParams, Cubic, Window};
use crate::time::Instant;

#[derive(Clone, Debug)]
pub struct WestwoodCubic {
    cubic: Cubic,
    estimate: BandwidthEstimate,
}

impl WestwoodCubic {
    pub fn new(initial_cwnd: u32, mss: u32, params: &CongestionParams) -> Self {
        WestwoodCubic {
            cubic: Cubic::new(initial_cwnd, mss, params),
            estimate: BandwidthEstimate::default(),
        }
    }

    /// Raises ssthresh to BWE · RTTmin, at most `flight_size`; true if it did.
    fn apply_floor(&mut self, flight_size: u32) -> bool {
        let mss = self.cubic.window().mss;
        let floor = self.estimate.bw_rtt_min(mss).min(flight_size);
        let w = self.cubic.window_mut();
        let raised = floor > w.ssthresh;
        if raised {
            w.ssthresh = floor;
        }
        raised
    }
}

impl CongestionControl for WestwoodCubic {
    fn name(&self) -> &'static str {
        "westwood_cubic"
    }

    fn window(&self) -> &Window {
        self.cubic.window()
    }

    fn window_mut(&mut self) -> &mut Window {
        self.cubic.window_mut()
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        self.cubic.on_ack(ack);
    }

    fn on_any_ack(&mut self, now: Instant, bytes_acked: u32) {
        self.estimate
            .on_ack(now, bytes_acked, self.cubic.window().mss);
        self.cubic.on_any_ack(now, bytes_acked);
    }

    fn on_rtt_sample(&mut self, now: Instant, rtt: Duration) {
        self.estimate.on_rtt_sample(rtt);
        self.cubic.on_rtt_sample(now, rtt);
    }

    fn on_enter_recovery(&mut self, now: Instant, flight_size: u32) {
        self.cubic.on_enter_recovery(now, flight_size);
        if self.apply_floor(flight_size) {
            let w = self.cubic.window_mut();
            w.cwnd = w.ssthresh + 3 * w.mss;
        }
    }

    fn on_rto(&mut self, now: Instant, flight_size: u32, episode_open: bool) {
        self.cubic.on_rto(now, flight_size, episode_open);
        if !episode_open {
            self.apply_floor(flight_size);
        }
        self.estimate.forget_rtt_min();
    }
}

#[cfg(test)]
mod tests {
    use super::super::bandwidth_estimate::tests::estimate;
    use super::*;

    const MSS: u32 = 1000;

    fn at_100_segments(bwe: f64) -> WestwoodCubic {
        let mut hybrid = WestwoodCubic::new(100 * MSS, MSS, &CongestionParams::default());
        hybrid.estimate = estimate(bwe, Duration::from_millis(100));
        hybrid.window_mut().ssthresh = 50 * MSS;
        hybrid
    }

    #[test]
    fn a_loss_with_the_pipe_full_but_no_queue_keeps_the_window() {
        // 100 segments delivered per 100 ms RTTmin: BWE x RTTmin = the whole flight.
        let mut hybrid = at_100_segments(1_000_000.0);
        hybrid.on_enter_recovery(Instant::ZERO, 100 * MSS);
        assert_eq!(hybrid.window().ssthresh, 100 * MSS);
        assert_eq!(hybrid.window().cwnd, 103 * MSS);
        assert_eq!(hybrid.cubic.w_max(), 100.0);
    }

    #[test]
    fn a_loss_from_a_full_queue_is_cut_by_cubics_beta() {
        // 50 segments per RTTmin delivered, 100 in flight: half of it was queue.
        let mut hybrid = at_100_segments(500_000.0);
        hybrid.on_enter_recovery(Instant::ZERO, 100 * MSS);
        assert_eq!(hybrid.window().ssthresh, 70 * MSS, "β = 0.7 > 50 segments");
        // Between the two: the estimate decides.
        let mut hybrid = at_100_segments(850_000.0);
        hybrid.on_enter_recovery(Instant::ZERO, 100 * MSS);
        assert_eq!(hybrid.window().ssthresh, 85 * MSS);
    }

    #[test]
    fn a_timeout_takes_the_floor_unless_the_episode_is_open() {
        let mut hybrid = at_100_segments(900_000.0);
        hybrid.on_rto(Instant::ZERO, 100 * MSS, false);
        assert_eq!(
            (hybrid.window().cwnd, hybrid.window().ssthresh),
            (MSS, 90 * MSS)
        );
        let mut hybrid = at_100_segments(900_000.0);
        hybrid.on_rto(Instant::ZERO, 100 * MSS, true);
        assert_eq!(hybrid.window().ssthresh, 50 * MSS, "kept from the episode");
    }
}
