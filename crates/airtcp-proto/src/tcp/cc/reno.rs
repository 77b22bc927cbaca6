//! Reno (RFC 5681 section 3.2): NewReno's window rules, with the fast recovery of RFC 5681
//! itself. The first ACK of new data ends the recovery, partial or not, and cwnd becomes
//! ssthresh (step 6); a second loss in the same window needs three more duplicate ACKs and
//! halves the window again, or the timer. There is no `recover` point (RFC 6582's), so a
//! fast retransmit may follow a timeout at once.

use super::{CongestionControl, Recovery, Window};
use crate::time::Instant;

#[derive(Clone, Debug)]
pub struct Reno {
    window: Window,
}

impl Reno {
    pub fn new(initial_cwnd: u32, mss: u32) -> Self {
        Reno {
            window: Window::new(initial_cwnd, mss),
        }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }

    fn recovery(&self) -> Recovery {
        Recovery::Reno
    }

    /// RFC 5681 section 3.2 step 6: "set cwnd to ssthresh", deflating the window.
    fn on_exit_recovery(&mut self, _now: Instant, _flight_size: u32) {
        let w = self.window_mut();
        w.cwnd = w.ssthresh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_new_ack_deflates_the_window_to_ssthresh() {
        let mut reno = Reno::new(10_000, 1000);
        reno.window_mut().cwnd = 20_000;
        reno.on_enter_recovery(Instant::ZERO, 20_000);
        assert_eq!(
            (reno.window().ssthresh, reno.window().cwnd),
            (10_000, 13_000)
        );
        reno.on_dupack_in_recovery(Instant::ZERO);
        assert_eq!(reno.window().cwnd, 14_000);
        // Even with little left in flight (NewReno would take FlightSize + SMSS).
        reno.on_exit_recovery(Instant::ZERO, 2_000);
        assert_eq!(reno.window().cwnd, 10_000);
        assert_eq!(reno.recovery(), Recovery::Reno);
    }
}
