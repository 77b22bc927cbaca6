//! NewReno (RFC 5681 congestion control, RFC 6582 fast recovery): the trait's defaults.

use super::{CongestionControl, Window};

#[derive(Clone, Debug)]
pub struct NewReno {
    window: Window,
}

impl NewReno {
    pub fn new(initial_cwnd: u32, mss: u32) -> Self {
        NewReno {
            window: Window::new(initial_cwnd, mss),
        }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }
}

#[cfg(test)]
mod tests {
    use super::super::AckEvent;
    use super::*;
    use crate::time::Instant;

    const MSS: u32 = 1000;

    fn ack(bytes_acked: u32) -> AckEvent {
        AckEvent {
            now: Instant::ZERO,
            bytes_acked,
            flight_size: 10 * MSS,
            rtt: None,
        }
    }

    #[test]
    fn slow_start_grows_one_mss_per_ack_even_for_stretch_acks() {
        let mut cc = NewReno::new(2 * MSS, MSS);
        cc.on_ack(&ack(MSS));
        assert_eq!(cc.window().cwnd, 3 * MSS);
        cc.on_ack(&ack(5 * MSS));
        assert_eq!(cc.window().cwnd, 4 * MSS);
    }

    #[test]
    fn congestion_avoidance_grows_one_mss_per_window() {
        let mut cc = NewReno::new(10 * MSS, MSS);
        cc.window_mut().ssthresh = 5 * MSS;
        for _ in 0..10 {
            cc.on_ack(&ack(MSS));
        }
        assert_eq!(cc.window().cwnd, 11 * MSS);
    }

    #[test]
    fn congestion_avoidance_with_delayed_acks_still_grows_one_mss_per_window() {
        // A delayed-ACK receiver acknowledges two segments at a time: a window of 10
        // segments brings 5 ACKs, which must still add one whole segment (byte counting).
        let mut cc = NewReno::new(10 * MSS, MSS);
        cc.window_mut().ssthresh = 5 * MSS;
        for _ in 0..5 {
            cc.on_ack(&ack(2 * MSS));
        }
        assert_eq!(cc.window().cwnd, 11 * MSS);
        for _ in 0..5 {
            cc.on_ack(&ack(2 * MSS));
        }
        assert_eq!(cc.window().cwnd, 11 * MSS, "the next window is 11 segments");
        cc.on_ack(&ack(2 * MSS));
        assert_eq!(cc.window().cwnd, 12 * MSS);
    }

    #[test]
    fn loss_forgets_the_bytes_counted_towards_growth() {
        let mut cc = NewReno::new(10 * MSS, MSS);
        cc.window_mut().ssthresh = 5 * MSS;
        cc.on_ack(&ack(9 * MSS));
        cc.on_rto(Instant::ZERO, 20 * MSS, false);
        assert_eq!(cc.window().bytes_acked, 0);
    }

    #[test]
    fn fast_recovery_follows_rfc6582() {
        let mut cc = NewReno::new(20 * MSS, MSS);
        cc.on_enter_recovery(Instant::ZERO, 20 * MSS);
        assert_eq!(cc.window().ssthresh, 10 * MSS);
        assert_eq!(cc.window().cwnd, 13 * MSS);
        cc.on_dupack_in_recovery(Instant::ZERO);
        assert_eq!(cc.window().cwnd, 14 * MSS);
        cc.on_partial_ack(Instant::ZERO, 3 * MSS);
        assert_eq!(cc.window().cwnd, 12 * MSS);
        cc.on_exit_recovery(Instant::ZERO, 15 * MSS);
        assert_eq!(cc.window().cwnd, 10 * MSS, "min(ssthresh, flight + mss)");
        cc.on_exit_recovery(Instant::ZERO, 2 * MSS);
        assert_eq!(cc.window().cwnd, 3 * MSS);
    }

    #[test]
    fn timeout_collapses_to_one_segment() {
        let mut cc = NewReno::new(20 * MSS, MSS);
        cc.on_rto(Instant::ZERO, 3 * MSS, false);
        assert_eq!(cc.window().ssthresh, 2 * MSS, "at least two segments");
        assert_eq!(cc.window().cwnd, MSS);
    }
}
