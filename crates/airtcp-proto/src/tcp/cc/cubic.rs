//! CUBIC (RFC 9438): in congestion avoidance the window follows a cubic function of the time
//! since the epoch began, `W_cubic(t) = C (t - K)^3 + W_max` (eq. 1), with
//! `K = cbrt((W_max - cwnd_epoch) / C)` (eq. 2), so it regains the old maximum quickly, lingers
//! near it, then probes beyond; in segments, C = 0.4 and β = 0.7 unless the scenario sets
//! `cubic_c`, `cubic_beta`.
//!
//! - Each ACK in avoidance aims at `W_cubic(t + RTT)`, clamped to [cwnd, 1.5 cwnd] (§4.4,
//!   §4.5), and grows cwnd by `(target - cwnd) / cwnd` per segment acknowledged; RTT is
//!   smoothed with gain 1/8 from the per-ACK samples.
//! - Reno-friendly region (§4.3): `W_est` starts at cwnd_epoch and grows by
//!   `α = 3(1 - β)/(1 + β)` segments per window (1 once it reaches cwnd_prior); where
//!   `W_cubic(t) < W_est`, cwnd is `W_est`.
//! - A loss (§4.6): `ssthresh = max(flight size · β, 2 segments)` (the RFC's flight size;
//!   Linux uses cwnd); `W_max` is cwnd at the loss, or with fast convergence (§4.7) and cwnd
//!   below the previous `W_max`, `cwnd (1 + β) / 2`. The sender's NewReno recovery runs as
//!   for every variant (cwnd = ssthresh + 3 segments, inflated by duplicates, then
//!   min(ssthresh, flight + 1 segment)); the next epoch starts at the first ACK in avoidance.
//! - A timeout (§4.8): the same ssthresh, cwnd one segment; the first avoidance epoch after
//!   it takes `W_max` = cwnd_epoch and K = 0. A timeout inside an open loss episode keeps the
//!   episode's ssthresh and W_max (Linux's `tcp_enter_loss`), so a recovery that ends in a
//!   timeout does not reduce twice.
//! - Slow start (§4.10): standard, with HyStart++ (RFC 9406) in the initial one when
//!   `hystart` is on (the default, as Linux runs its HyStart).
//! - Not modelled: spurious-congestion undo (§4.9), and W_max from a window that was not
//!   fully used (t counts only while the sender is cwnd-limited in Linux; here the sender
//!   calls on_ack only then, but t is wall time since the epoch began).

use core::time::Duration;

use super::hystart::{Growth, HyStart};
use super::{AckEvent, CongestionControl, CongestionParams, Window};
use crate::time::Instant;

#[derive(Clone, Debug)]
pub struct Cubic {
    window: Window,
    c: f64,
    beta: f64,
    fast_convergence: bool,
    /// The window before the last reduction (after fast convergence), in segments.
    w_max: f64,
    /// cwnd when the last reduction began, in segments.
    cwnd_prior: f64,
    /// When the current avoidance epoch began, and its K in seconds.
    epoch: Option<(Instant, f64)>,
    /// The Reno-friendly estimate, in segments.
    w_est: f64,
    after_timeout: bool,
    srtt: Option<Duration>,
    /// Growth in bytes not yet whole.
    carry: f64,
    /// Bytes acknowledged so far (HyStart++ counts rounds in them).
    acked: u64,
    hystart: Option<HyStart>,
}

impl Cubic {
    pub fn new(initial_cwnd: u32, mss: u32, params: &CongestionParams) -> Self {
        Cubic {
            window: Window::new(initial_cwnd, mss),
            c: params.cubic_c,
            beta: params.cubic_beta,
            fast_convergence: params.cubic_fast_convergence,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            w_est: 0.0,
            after_timeout: false,
            srtt: None,
            carry: 0.0,
            acked: 0,
            hystart: params.hystart.then(HyStart::default),
        }
    }

    /// Eq. 1, in segments, `t` seconds into the epoch whose K is `k`.
    pub fn w_cubic(&self, t: f64, k: f64) -> f64 {
        self.c * (t - k).powi(3) + self.w_max
    }

    /// Eq. 2: K for an epoch starting at `cwnd` segments.
    pub fn k(&self, cwnd: f64) -> f64 {
        ((self.w_max - cwnd).max(0.0) / self.c).cbrt()
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    fn segments(&self) -> f64 {
        f64::from(self.window.cwnd) / f64::from(self.window.mss)
    }

    /// §4.6 and §4.7: W_max, cwnd_prior and ssthresh for a congestion event.
    fn reduce(&mut self, flight_size: u32) {
        let cwnd = self.segments();
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.beta) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        let mss = self.window.mss;
        let ssthresh = (f64::from(flight_size) * self.beta).min(f64::from(u32::MAX)) as u32;
        self.window.ssthresh = ssthresh.max(2 * mss);
        self.window.bytes_acked = 0;
        self.epoch = None;
        self.carry = 0.0;
        self.hystart = None;
    }

    fn slow_start(&mut self, ack: &AckEvent) {
        let increase = self.window.slow_start_increase(ack.bytes_acked);
        let growth = match &mut self.hystart {
            Some(hystart) => {
                let sent = self.acked - u64::from(ack.bytes_acked) + u64::from(ack.flight_size);
                hystart.on_ack(self.acked, sent, ack.rtt, increase)
            }
            None => Growth::Grow(increase),
        };
        match growth {
            Growth::Grow(bytes) => {
                let left = self.window.grow_in_slow_start(bytes);
                if left > 0 {
                    self.avoid(&AckEvent {
                        bytes_acked: left,
                        ..*ack
                    });
                }
            }
            Growth::Exit => {
                self.window.ssthresh = self.window.cwnd;
                self.hystart = None;
            }
        }
    }

    fn avoid(&mut self, ack: &AckEvent) {
        let cwnd = self.segments();
        let (start, k) = match self.epoch {
            Some(epoch) => epoch,
            None => {
                if self.after_timeout || self.w_max < cwnd {
                    self.w_max = cwnd;
                }
                self.after_timeout = false;
                let epoch = (ack.now, self.k(cwnd));
                self.epoch = Some(epoch);
                self.w_est = cwnd;
                epoch
            }
        };
        let mss = f64::from(self.window.mss);
        let acked = f64::from(ack.bytes_acked) / mss;
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        };
        self.w_est += alpha * acked / cwnd;
        let t = (ack.now - start).as_secs_f64();
        let w = &mut self.window;
        if self.c * (t - k).powi(3) + self.w_max < self.w_est {
            let est = (self.w_est * mss).min(f64::from(u32::MAX)) as u32;
            w.cwnd = w.cwnd.max(est);
            return;
        }
        let rtt = self.srtt.map_or(0.0, |d| d.as_secs_f64());
        let target = (self.c * (t + rtt - k).powi(3) + self.w_max).clamp(cwnd, 1.5 * cwnd);
        self.carry += (target - cwnd) / cwnd * acked * mss;
        let whole = self.carry.floor();
        self.carry -= whole;
        w.cwnd = (f64::from(w.cwnd) + whole).min(f64::from(u32::MAX)) as u32;
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }

    fn on_any_ack(&mut self, _now: Instant, bytes_acked: u32) {
        self.acked += u64::from(bytes_acked);
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        if self.window.in_slow_start() {
            self.slow_start(ack);
        } else {
            self.avoid(ack);
        }
    }

    fn on_rtt_sample(&mut self, _now: Instant, rtt: Duration) {
        self.srtt = Some(match self.srtt {
            Some(srtt) => (srtt * 7 + rtt) / 8,
            None => rtt,
        });
    }

    fn on_enter_recovery(&mut self, _now: Instant, flight_size: u32) {
        self.reduce(flight_size);
        let w = &mut self.window;
        w.cwnd = w.ssthresh + 3 * w.mss;
    }

    fn on_rto(&mut self, _now: Instant, flight_size: u32, episode_open: bool) {
        if !episode_open {
            self.reduce(flight_size);
        }
        self.after_timeout = true;
        self.epoch = None;
        self.window.bytes_acked = 0;
        self.window.cwnd = self.window.mss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn ack(at: Instant, segments: u32) -> AckEvent {
        AckEvent {
            now: at,
            bytes_acked: segments * MSS,
            flight_size: 100 * MSS,
            rtt: None,
        }
    }

    fn secs(s: f64) -> Instant {
        Instant::ZERO + Duration::from_secs_f64(s)
    }

    /// A CUBIC sender that was at 100 segments when a loss struck.
    fn after_a_loss_at_100() -> Cubic {
        let mut cubic = Cubic::new(100 * MSS, MSS, &CongestionParams::default());
        cubic.window_mut().ssthresh = 50 * MSS;
        cubic.on_enter_recovery(Instant::ZERO, 100 * MSS);
        cubic.on_exit_recovery(Instant::ZERO, 100 * MSS);
        cubic
    }

    #[test]
    fn a_loss_sets_w_max_ssthresh_and_k_by_equations_1_and_2() {
        let cubic = after_a_loss_at_100();
        assert_eq!(cubic.w_max(), 100.0);
        assert_eq!(cubic.window().ssthresh, 70 * MSS);
        assert_eq!(cubic.window().cwnd, 70 * MSS, "min(ssthresh, flight + mss)");
        // K = cbrt((100 - 70) / 0.4) = cbrt(75) = 4.2172 s; W(0) = 70, W(K) = 100.
        let k = cubic.k(70.0);
        assert!((k - 75f64.cbrt()).abs() < 1e-12 && (k - 4.2172).abs() < 1e-4);
        assert!((cubic.w_cubic(0.0, k) - 70.0).abs() < 1e-9);
        assert!((cubic.w_cubic(k, k) - 100.0).abs() < 1e-12);
        assert!(
            (cubic.w_cubic(k + 2.0, k) - 103.2).abs() < 1e-9,
            "0.4 x 2^3 past W_max"
        );
    }

    #[test]
    fn the_window_follows_w_cubic_of_t_plus_rtt() {
        let mut cubic = after_a_loss_at_100();
        cubic.on_rtt_sample(Instant::ZERO, Duration::from_millis(100));
        let k = cubic.k(70.0);
        // An epoch of ACKs, 70 segments a round trip: by K the window is near W_max, and it
        // never overshoots the target of the ACK's time plus one RTT.
        let mut t = 0.0;
        while t < k {
            cubic.on_ack(&ack(secs(t), 1));
            let w = f64::from(cubic.window().cwnd) / f64::from(MSS);
            assert!(w <= cubic.w_cubic(t + 0.1, k) + 1.0, "at {t}: {w}");
            t += 0.1 / 70.0;
        }
        let w = f64::from(cubic.window().cwnd) / f64::from(MSS);
        assert!((97.0..=101.0).contains(&w), "{w} near W_max at K");
    }

    #[test]
    fn the_reno_friendly_region_takes_over_where_reno_would_be_faster() {
        // A small W_max and a long, slow epoch: W_est grows α segments a window, W_cubic
        // almost not at all near its plateau.
        let mut cubic = Cubic::new(10 * MSS, MSS, &CongestionParams::default());
        cubic.window_mut().ssthresh = 5 * MSS;
        cubic.on_enter_recovery(Instant::ZERO, 10 * MSS);
        cubic.on_exit_recovery(Instant::ZERO, 10 * MSS);
        assert_eq!(cubic.window().cwnd, 7 * MSS);
        cubic.on_rtt_sample(Instant::ZERO, Duration::from_millis(1));
        // Ten windows of ACKs at one instant of the epoch: W_cubic(0 + 1 ms) is still 7, so
        // the cubic alone would not grow; W_est grows by α = 0.529 per window.
        for _ in 0..70 {
            cubic.on_ack(&ack(Instant::ZERO, 1));
        }
        let alpha = 3.0 * (1.0 - 0.7) / (1.0 + 0.7);
        let w = f64::from(cubic.window().cwnd) / f64::from(MSS);
        assert!(w > 7.0 + 5.0 * alpha, "Reno-friendly growth: {w}");
    }

    #[test]
    fn fast_convergence_releases_bandwidth_after_a_second_loss_below_w_max() {
        let mut cubic = after_a_loss_at_100();
        cubic.window_mut().cwnd = 80 * MSS;
        cubic.on_enter_recovery(Instant::ZERO, 80 * MSS);
        assert!(
            (cubic.w_max() - 80.0 * 1.7 / 2.0).abs() < 1e-9,
            "W_max = cwnd (1 + β)/2"
        );
        assert_eq!(cubic.window().ssthresh, 56 * MSS);
        // Without fast convergence W_max is the cwnd at the loss.
        let params = CongestionParams {
            cubic_fast_convergence: false,
            ..CongestionParams::default()
        };
        let mut plain = Cubic::new(100 * MSS, MSS, &params);
        plain.on_enter_recovery(Instant::ZERO, 100 * MSS);
        plain.window_mut().cwnd = 80 * MSS;
        plain.on_enter_recovery(Instant::ZERO, 80 * MSS);
        assert_eq!(plain.w_max(), 80.0);
    }

    #[test]
    fn a_timeout_in_an_open_episode_does_not_reduce_again_and_restarts_at_k_zero() {
        let mut cubic = after_a_loss_at_100();
        cubic.window_mut().cwnd = 90 * MSS; // inflated by the recovery
        cubic.on_rto(Instant::ZERO, 100 * MSS, true);
        assert_eq!(
            (cubic.window().cwnd, cubic.window().ssthresh),
            (MSS, 70 * MSS)
        );
        assert_eq!(cubic.w_max(), 100.0);
        // Slow start back to ssthresh, then the first epoch after a timeout: W_max is the
        // window it starts at and K = 0, so the window grows at once, convexly.
        cubic.window_mut().cwnd = 70 * MSS;
        cubic.on_rtt_sample(Instant::ZERO, Duration::from_millis(100));
        cubic.on_ack(&ack(secs(10.0), 1));
        assert_eq!(cubic.w_max(), 70.0);
        let w = |c: &Cubic| f64::from(c.window().cwnd) / f64::from(MSS);
        for i in 1..=700 {
            cubic.on_ack(&ack(secs(10.0 + f64::from(i) / 700.0), 1));
        }
        // One second in: W_cubic(1.1) = 70 + 0.4 x 1.1^3 = 70.53; the Reno-friendly estimate
        // (alpha 0.53 below cwnd_prior = 100, 10 windows) is about 75 and leads.
        assert!((74.0..76.5).contains(&w(&cubic)), "{}", w(&cubic));
        // A fresh timeout reduces from the window it finds.
        cubic.on_rto(Instant::ZERO, 75 * MSS, false);
        assert_eq!(cubic.window().ssthresh, 52_500, "0.7 x 75 segments");
    }
}
