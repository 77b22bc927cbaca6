//! Congestion control: the trait every TCP variant implements, and the variants.
//!
//! The sender owns loss detection and the recovery state machine (RFC 5681, RFC 6582); a
//! controller only decides the congestion window and slow-start threshold at each event.
//! The default methods are NewReno's, so a variant overrides only what its paper changes
//! (Westwood+ its ssthresh after loss, CUBIC its window growth, ...). A controller sees every
//! ACK (`on_any_ack`), an RTT sample from every ACK Karn's rule allows (`on_rtt_sample`),
//! growth only when the sender is cwnd-limited outside recovery (`on_ack`), and the loss
//! events with their time. One variant per file; the Westwood+ estimator and HyStart++ are
//! parts shared by two variants each.
//!
//! A controller may instead set the window and a pacing rate itself from delivery-rate
//! samples, as Linux's `cong_control` hook lets BBR do (`sets_window_from_rate`): the sender
//! then keeps the samples (`tcp::delivery_rate`), paces its segments, and neither PRR nor the
//! default growth touches cwnd.

mod bandwidth_estimate;
mod bbr;
mod cubic;
mod hystart;
mod newreno;
mod params;
mod reno;
mod veno;
mod westwood;
mod westwood_cubic;
mod windowed_max;

use core::fmt;
use core::time::Duration;

pub use bbr::Bbr;
pub use cubic::Cubic;
pub use newreno::NewReno;
pub use params::{CongestionParams, ParamSpec, PARAMS};
pub use reno::Reno;
pub use veno::Veno;
pub use westwood::Westwood;
pub use westwood_cubic::WestwoodCubic;

use super::config::SlowStart;
use super::RateSample;
use super::TcpConfig;
use crate::time::Instant;

/// The window a controller manages, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub mss: u32,
    /// Bytes acknowledged in congestion avoidance since cwnd last grew (RFC 3465 §2.1).
    pub bytes_acked: u32,
    /// How slow start grows the window (the connection's `TcpConfig::slow_start`).
    pub slow_start: SlowStart,
}

impl Window {
    pub fn new(initial_cwnd: u32, mss: u32) -> Self {
        Window {
            cwnd: initial_cwnd,
            ssthresh: u32::MAX,
            mss,
            bytes_acked: 0,
            slow_start: SlowStart::PerAck,
        }
    }

    /// What slow start adds for an ACK of `bytes_acked`, before the cap at ssthresh.
    pub fn slow_start_increase(&self, bytes_acked: u32) -> u32 {
        match self.slow_start {
            SlowStart::PerAck => bytes_acked.min(self.mss),
            SlowStart::PerSegment => bytes_acked,
        }
    }

    /// Grows cwnd by `increase` in slow start; returns the bytes left for congestion
    /// avoidance: Linux stops at ssthresh and counts the rest (`tcp_slow_start`), RFC 5681
    /// adds all of it.
    pub fn grow_in_slow_start(&mut self, increase: u32) -> u32 {
        let grown = self.cwnd.saturating_add(increase);
        match self.slow_start {
            SlowStart::PerAck => {
                self.cwnd = grown;
                0
            }
            SlowStart::PerSegment => {
                let capped = grown.min(self.ssthresh.max(self.cwnd));
                let left = increase - (capped - self.cwnd);
                self.cwnd = capped;
                left
            }
        }
    }

    /// Congestion avoidance by byte counting (RFC 3465, and in effect Linux's
    /// tcp_cong_avoid_ai): one SMSS each time a cwnd's worth of bytes has been acknowledged.
    pub fn grow_in_avoidance(&mut self, bytes_acked: u32) {
        self.bytes_acked = self.bytes_acked.saturating_add(bytes_acked);
        if self.bytes_acked >= self.cwnd {
            self.bytes_acked -= self.cwnd;
            self.cwnd = self.cwnd.saturating_add(self.mss);
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RFC 5681 eq. (4): half the flight, at least two segments.
    pub fn halved_flight(&self, flight_size: u32) -> u32 {
        (flight_size / 2).max(2 * self.mss)
    }
}

/// How the sender recovers after a fast retransmit: the controller names it, the sender
/// carries it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// RFC 6582: partial ACKs keep the recovery going, each resending the next hole, until
    /// the highest data sent at its start is acknowledged; no new recovery before that.
    NewReno,
    /// RFC 5681 section 3.2: the first ACK of new data ends the recovery.
    Reno,
}

/// A cumulative acknowledgement of new data, outside loss recovery.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent {
    pub now: Instant,
    pub bytes_acked: u32,
    /// Bytes outstanding before this ACK.
    pub flight_size: u32,
    pub rtt: Option<Duration>,
}

/// Linux's congestion-avoidance states (`icsk_ca_state`), in their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    Open,
    Disorder,
    Cwr,
    Recovery,
    Loss,
}

/// What a controller that sets the window from rate samples reads of the connection (the
/// `tcp_sock` fields BBR reads). Counts are segments.
#[derive(Clone, Copy, Debug)]
pub struct RateContext {
    pub now: Instant,
    /// Segments delivered so far, and when the latest delivery was acknowledged.
    pub delivered: u64,
    pub delivered_time: Instant,
    /// Segments deemed lost so far.
    pub lost: u64,
    /// Segments in flight (`tcp_packets_in_flight`).
    pub in_flight: u64,
    pub state: CaState,
    pub srtt: Option<Duration>,
    /// When pacing lets the next segment go (`tcp_wstamp_ns`).
    pub pacing_release: Instant,
}

pub trait CongestionControl: fmt::Debug + Send {
    fn name(&self) -> &'static str;
    fn window(&self) -> &Window;
    fn window_mut(&mut self) -> &mut Window;

    /// The fast recovery the sender runs: NewReno's unless the variant says otherwise.
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    /// New data acknowledged in the open state. Slow start as `SlowStart` says (RFC 5681
    /// §3.1's min(bytes acked, SMSS) per ACK, or Linux's every segment acknowledged).
    /// Congestion avoidance: byte counting, the method RFC 5681 §3.1 recommends (RFC 3465,
    /// and in effect Linux's tcp_cong_avoid_ai): one SMSS each time a cwnd's worth of bytes
    /// has been acknowledged, so one SMSS per RTT also with delayed ACKs, where the per-ACK
    /// formula SMSS²/cwnd would give only half of that.
    fn on_ack(&mut self, ack: &AckEvent) {
        let w = self.window_mut();
        let mut bytes = ack.bytes_acked;
        if w.in_slow_start() {
            bytes = w.grow_in_slow_start(w.slow_start_increase(bytes));
            if bytes == 0 {
                return;
            }
        }
        w.grow_in_avoidance(bytes);
    }

    /// Every ACK, in any state, before the sender acts on it: `bytes_acked` new bytes
    /// acknowledged, 0 for a duplicate ACK. Variants that estimate the delivery rate use it
    /// (Westwood+).
    fn on_any_ack(&mut self, _now: Instant, _bytes_acked: u32) {}

    /// An RTT sample from an ACK of new data (every one that Karn's rule allows, not one
    /// per round trip); delay-based variants use it.
    fn on_rtt_sample(&mut self, _now: Instant, _rtt: Duration) {}

    /// Fast retransmit: RFC 6582 §3.2 step 3 (ssthresh from eq. 4, cwnd = ssthresh + 3 SMSS).
    fn on_enter_recovery(&mut self, _now: Instant, flight_size: u32) {
        let w = self.window_mut();
        w.bytes_acked = 0;
        w.ssthresh = w.halved_flight(flight_size);
        w.cwnd = w.ssthresh + 3 * w.mss;
    }

    /// A further duplicate ACK in recovery inflates the window (RFC 6582 step 4).
    fn on_dupack_in_recovery(&mut self, _now: Instant) {
        let w = self.window_mut();
        w.cwnd = w.cwnd.saturating_add(w.mss);
    }

    /// A partial ACK deflates by the amount acknowledged, adding back one SMSS if at least
    /// one SMSS was acknowledged (RFC 6582 step 5).
    fn on_partial_ack(&mut self, _now: Instant, bytes_acked: u32) {
        let w = self.window_mut();
        w.cwnd = w.cwnd.saturating_sub(bytes_acked);
        if bytes_acked >= w.mss {
            w.cwnd += w.mss;
        }
        w.cwnd = w.cwnd.max(w.mss);
    }

    /// A full ACK ends recovery: cwnd = min(ssthresh, FlightSize + SMSS) (RFC 6582 step 6,
    /// option 1), where the flight is what remains after the ACK.
    fn on_exit_recovery(&mut self, _now: Instant, flight_size: u32) {
        let w = self.window_mut();
        w.cwnd = w.ssthresh.min(flight_size.saturating_add(w.mss)).max(w.mss);
    }

    /// A cwnd reduction ends (a RACK-TLP fast recovery, or a loss a tail loss probe
    /// repaired): Linux's `tcp_end_cwnd_reduction` sets cwnd to ssthresh, then tells the
    /// controller (CA_EVENT_COMPLETE_CWR).
    fn on_end_cwnd_reduction(&mut self, _now: Instant) {
        let w = self.window_mut();
        w.cwnd = w.ssthresh.max(w.mss);
    }

    /// Retransmission timeout: ssthresh from eq. 4, cwnd to the loss window of one segment
    /// (RFC 5681 §3.1). `episode_open`: the timeout came before the last loss episode (a
    /// fast recovery, or an earlier timeout) was over, i.e. before an ACK covered the data
    /// sent when it began; Linux then keeps the ssthresh that episode set
    /// (`tcp_enter_loss`), the RFCs reduce again.
    fn on_rto(&mut self, _now: Instant, flight_size: u32, _episode_open: bool) {
        let w = self.window_mut();
        w.bytes_acked = 0;
        w.ssthresh = w.halved_flight(flight_size);
        w.cwnd = w.mss;
    }

    /// A reduction proved spurious is undone (Linux's `undo_cwnd` hook): the window to
    /// return to, Reno's (`tcp_reno_undo_cwnd`, which CUBIC, Westwood+ and Veno use too)
    /// the larger of cwnd and `prior_cwnd`, the window before the reduction.
    fn undo_cwnd(&mut self, _now: Instant, prior_cwnd: u32) -> u32 {
        self.window().cwnd.max(prior_cwnd)
    }

    /// The controller sets cwnd and the pacing rate from rate samples (Linux's
    /// `cong_control`); the sender's recovery then leaves cwnd alone.
    fn sets_window_from_rate(&self) -> bool {
        false
    }

    /// The connection is established (Linux's `init` hook): `cx.srtt` is the handshake's.
    fn on_established(&mut self, _cx: &RateContext) {}

    /// An ACK's rate sample, after its loss detection (`cong_control`). Returns true if the
    /// controller wants the flight marked app-limited (BBR's PROBE_RTT).
    fn on_rate_sample(&mut self, _sample: &RateSample, _cx: &RateContext) -> bool {
        false
    }

    /// Data goes out with nothing in flight (CA_EVENT_TX_START); `app_limited`: the sender
    /// had run out of data.
    fn on_transmit_start(&mut self, _cx: &RateContext, _app_limited: bool) {}

    /// The retransmission timeout's marking is done (the Loss state's `set_state` hook).
    fn on_enter_loss(&mut self, _cx: &RateContext) {}

    /// The rate segments are paced at, bytes of payload a second; `None`: not paced.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }

    /// Seeds what the controller draws at random (BBR's gain-cycle phase); the sender gives
    /// its initial sequence number, itself drawn from the run's seed.
    fn seed(&mut self, _seed: u64) {}
}

/// The congestion controllers a scenario can name.
pub const VARIANTS: &[&str] = &[
    "newreno",
    "reno",
    "westwood",
    "veno",
    "cubic",
    "westwood_cubic",
    "bbr",
];

/// Builds the controller a scenario names for a connection with `config` (its initial
/// window, MSS and `congestion_params`), or `None` for an unknown name.
pub fn by_name(name: &str, config: &TcpConfig) -> Option<Box<dyn CongestionControl>> {
    let (initial_cwnd, mss) = (config.initial_cwnd(), config.mss);
    let params = &config.congestion_params;
    let mut controller: Box<dyn CongestionControl> = match name {
        "newreno" => Box::new(NewReno::new(initial_cwnd, mss)),
        "reno" => Box::new(Reno::new(initial_cwnd, mss)),
        "westwood" => Box::new(Westwood::new(initial_cwnd, mss)),
        "veno" => Box::new(Veno::new(initial_cwnd, mss, params.veno_beta)),
        "cubic" => Box::new(Cubic::new(initial_cwnd, mss, params)),
        "westwood_cubic" => Box::new(WestwoodCubic::new(initial_cwnd, mss, params)),
        "bbr" => Box::new(Bbr::new(initial_cwnd, mss)),
        _ => return None,
    };
    controller.window_mut().slow_start = config.slow_start;
    Some(controller)
}
