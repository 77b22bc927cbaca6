//! BBR v1 as Linux runs it (`net/ipv4/tcp_bbr.c`; Cardwell et al., "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016): a model of the path, the bottleneck
//! bandwidth (the maximum delivery rate over 10 round trips) and the propagation delay (the
//! minimum RTT over 10 s), sets the pacing rate (gain · bw) and cwnd (gain · bw · min_rtt plus
//! allowances); loss does not cut the window, beyond packet conservation in the first round
//! of a recovery.
//!
//! - STARTUP paces at 2/ln 2 ≈ 2.89 · bw until three rounds without 25 % growth of bw, DRAIN
//!   paces at 1/2.89 until the flight falls to one BDP, PROBE_BW cycles its pacing gain over
//!   eight phases (1.25, 0.75, then 1 six times, entered at a random phase), PROBE_RTT caps
//!   cwnd at 4 segments for 200 ms and a round when min_rtt was not renewed for 10 s.
//! - cwnd = 2 · BDP plus the ACK-aggregation allowance (the most data ACKed beyond bw over
//!   5-10 rounds, capped at 100 ms of bw) plus 3 TSO bursts, rounded up to even, + 2 in the
//!   1.25 phase (`bbr_quantization_budget`); it grows by what each ACK delivers until it
//!   reaches that target, and below the target before the pipe is full.
//! - A policer is detected as Linux does (`bbr_lt_bw_sampling`: two intervals of 4-16 rounds
//!   with 20 % loss and bandwidths within 1/8 or 4 kbit/s), and its long-term rate then used
//!   for 48 rounds.
//! - Integer arithmetic as the kernel's: bandwidth in segments per µs scaled by 2^24, gains
//!   scaled by 256, times in µs. cwnd is kept in segments (the window holds segments · MSS).
//!
//! Chosen differently (docs/tcp.md): the TSO budget is Linux's arithmetic though the
//! simulated sender sends single segments; `is_ack_delayed` is never set (Linux marks a
//! lone runt's delayed ACK). Undo (`bbr_undo_cwnd`) restarts full-bandwidth detection and
//! the policer estimate and keeps the window.

use core::time::Duration;

use super::windowed_max::WindowedMax;
use super::{AckEvent, CaState, CongestionControl, RateContext, Window};
use crate::tcp::RateSample;
use crate::time::Instant;

const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
const BBR_SCALE: u32 = 8;
const BBR_UNIT: u64 = 1 << BBR_SCALE;

const CYCLE_LEN: usize = 8;
/// The bandwidth filter's window, in rounds.
const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
const MIN_RTT_WINDOW: Duration = Duration::from_secs(10);
const PROBE_RTT_TIME: Duration = Duration::from_millis(200);
/// Below this pacing rate (bit/s) a TSO burst is one segment.
const MIN_TSO_RATE: u64 = 1_200_000;
const PACING_MARGIN_PERCENT: u64 = 1;
const HIGH_GAIN: u64 = BBR_UNIT * 2885 / 1000 + 1;
const DRAIN_GAIN: u64 = BBR_UNIT * 1000 / 2885;
const CWND_GAIN: u64 = BBR_UNIT * 2;
const PACING_GAIN: [u64; CYCLE_LEN] = [
    BBR_UNIT * 5 / 4,
    BBR_UNIT * 3 / 4,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
];
/// PROBE_BW starts at one of this many phases, chosen at random.
const CYCLE_RAND: u64 = 7;
const CWND_MIN_TARGET: u64 = 4;
const FULL_BW_THRESH: u64 = BBR_UNIT * 5 / 4;
const FULL_BW_COUNT: u32 = 3;
const LT_INTERVAL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: u64 = 50;
const LT_BW_RATIO: u64 = BBR_UNIT / 8;
const LT_BW_DIFF: u64 = 4000 / 8;
const LT_BW_MAX_RTTS: u32 = 48;
const EXTRA_ACKED_GAIN: u64 = BBR_UNIT;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET: u64 = 1 << 20;
const EXTRA_ACKED_MAX_US: u64 = 100_000;
/// Linux's TCP_INIT_CWND.
const INIT_CWND: u64 = 10;
/// `sk_pacing_shift`: a TSO burst holds about 1 ms of the pacing rate.
const PACING_SHIFT: u32 = 10;
/// GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER on x86-64.
const TSO_MAX_BYTES: u64 = 65_536 - 1 - 320;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The long-term (policer) bandwidth estimator's state.
#[derive(Clone, Copy, Debug, Default)]
struct LongTerm {
    is_sampling: bool,
    rtt_cnt: u32,
    use_bw: bool,
    bw: u64,
    last_delivered: u64,
    last_stamp_ms: u64,
    last_lost: u64,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    window: Window,
    mode: Mode,
    prev_ca_state: CaState,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    min_rtt_us: Option<u64>,
    min_rtt_stamp: Instant,
    probe_rtt_done_stamp: Option<Instant>,
    bw: WindowedMax,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    cycle_stamp: Instant,
    cycle_idx: usize,
    pacing_gain: u64,
    cwnd_gain: u64,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    full_bw: u64,
    has_seen_rtt: bool,
    /// cwnd saved at a recovery or PROBE_RTT, segments.
    prior_cwnd: u64,
    lt: LongTerm,
    ack_epoch_stamp: Instant,
    ack_epoch_acked: u64,
    extra_acked: [u64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    /// Bytes a second.
    pacing_rate: u64,
    rng: u64,
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl Bbr {
    pub fn new(initial_cwnd: u32, mss: u32) -> Self {
        Bbr {
            window: Window::new(initial_cwnd, mss),
            mode: Mode::Startup,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            min_rtt_us: None,
            min_rtt_stamp: Instant::ZERO,
            probe_rtt_done_stamp: None,
            bw: WindowedMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_stamp: Instant::ZERO,
            cycle_idx: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw_reached: false,
            full_bw_cnt: 0,
            full_bw: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            lt: LongTerm::default(),
            ack_epoch_stamp: Instant::ZERO,
            ack_epoch_acked: 0,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            pacing_rate: 0,
            rng: 0,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The bottleneck bandwidth estimate in bytes a second (as `ss -i` shows it).
    pub fn bandwidth(&self) -> u64 {
        (self.bw() * u64::from(self.window.mss) * 1_000_000) >> BW_SCALE
    }

    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt_us.map(Duration::from_micros)
    }

    fn mss(&self) -> u64 {
        u64::from(self.window.mss)
    }

    fn cwnd(&self) -> u64 {
        u64::from(self.window.cwnd) / self.mss()
    }

    fn set_cwnd_segments(&mut self, segments: u64) {
        let bytes = segments.saturating_mul(self.mss()).min(u64::from(u32::MAX));
        self.window.cwnd = bytes as u32;
    }

    fn max_bw(&self) -> u64 {
        self.bw.get()
    }

    fn bw(&self) -> u64 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.max_bw()
        }
    }

    fn extra_acked(&self) -> u64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// `bbr_rate_bytes_per_sec`: segments/µs << 24 with a gain to bytes a second, less the
    /// 1 % pacing margin.
    fn rate_bytes_per_sec(&self, rate: u64, gain: u64) -> u64 {
        let rate = (u128::from(rate) * u128::from(self.mss()) * u128::from(gain)) >> BBR_SCALE;
        let rate = rate * u128::from(1_000_000 / 100 * (100 - PACING_MARGIN_PERCENT));
        (rate >> BW_SCALE) as u64
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain · cwnd / SRTT (1 ms before any sample).
    fn init_pacing_rate_from_rtt(&mut self, srtt: Option<Duration>) {
        let rtt_us = match srtt {
            Some(srtt) => {
                self.has_seen_rtt = true;
                micros(srtt).max(1)
            }
            None => 1000,
        };
        let bw = self.cwnd() * BW_UNIT / rtt_us;
        self.pacing_rate = self.rate_bytes_per_sec(bw, HIGH_GAIN);
    }

    fn set_pacing_rate(&mut self, bw: u64, gain: u64, srtt: Option<Duration>) {
        let rate = self.rate_bytes_per_sec(bw, gain);
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate_from_rtt(srtt);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    fn tso_segs_goal(&self) -> u64 {
        let min_segs = if self.pacing_rate < MIN_TSO_RATE / 8 {
            1
        } else {
            2
        };
        let bytes = (self.pacing_rate >> PACING_SHIFT).min(TSO_MAX_BYTES);
        (bytes / self.mss()).max(min_segs).min(0x7F)
    }

    fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd();
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd());
        }
    }

    /// `bbr_bdp`: ⌈bw · min_rtt · gain⌉ segments; the initial window without an RTT.
    fn bdp(&self, bw: u64, gain: u64) -> u64 {
        let Some(min_rtt_us) = self.min_rtt_us else {
            return INIT_CWND;
        };
        let w = u128::from(bw) * u128::from(min_rtt_us);
        let bdp = ((w * u128::from(gain)) >> BBR_SCALE).div_ceil(u128::from(BW_UNIT));
        bdp.min(u128::from(u32::MAX)) as u64
    }

    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let cwnd = cwnd + 3 * self.tso_segs_goal();
        let cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd + 2
        } else {
            cwnd
        }
    }

    fn inflight(&self, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: what will be in the network when the next paced segment
    /// leaves.
    fn packets_in_net_at_edt(&self, inflight_now: u64, cx: &RateContext) -> u64 {
        let edt = cx.pacing_release.max(cx.now);
        let interval_us = micros(edt - cx.now);
        let interval_delivered =
            ((u128::from(self.bw()) * u128::from(interval_us)) >> BW_SCALE) as u64;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            inflight_at_edt += self.tso_segs_goal();
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    fn ack_aggregation_cwnd(&self) -> u64 {
        if EXTRA_ACKED_GAIN == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr_cwnd =
            (u128::from(self.bw()) * u128::from(EXTRA_ACKED_MAX_US) / u128::from(BW_UNIT)) as u64;
        let aggr_cwnd = (EXTRA_ACKED_GAIN * self.extra_acked()) >> BBR_SCALE;
        aggr_cwnd.min(max_aggr_cwnd)
    }

    /// Packet conservation in a recovery's first round, and the saved cwnd restored after
    /// it (`bbr_set_cwnd_to_recover_or_restore`). Returns the window, and whether
    /// conservation decides it.
    fn recover_or_restore(&mut self, rs: &RateSample, acked: u64, cx: &RateContext) -> (u64, bool) {
        let (prev, state) = (self.prev_ca_state, cx.state);
        let mut cwnd = self.cwnd();
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = cx.delivered;
            cwnd = cx.in_flight + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(cx.in_flight + acked), true);
        }
        (cwnd, false)
    }

    fn set_cwnd(&mut self, rs: &RateSample, acked: u64, bw: u64, gain: u64, cx: &RateContext) {
        let mut cwnd = self.cwnd();
        if acked > 0 {
            let (recovered, conserving) = self.recover_or_restore(rs, acked, cx);
            cwnd = recovered;
            if !conserving {
                let target = self.bdp(bw, gain) + self.ack_aggregation_cwnd();
                let target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || cx.delivered < INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(CWND_MIN_TARGET);
        }
        self.set_cwnd_segments(cwnd);
    }

    fn is_next_cycle_phase(&self, rs: &RateSample, cx: &RateContext) -> bool {
        let min_rtt_us = self.min_rtt_us.unwrap_or(u64::MAX);
        let is_full_length = micros(cx.delivered_time - self.cycle_stamp) > min_rtt_us;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight, cx);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            // Probing: until 1.25 · BDP is in flight, unless a loss says it will not fit.
            return is_full_length
                && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        // Draining: until the flight is down to one BDP.
        is_full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    fn advance_cycle_phase(&mut self, cx: &RateContext) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_stamp = cx.delivered_time;
    }

    /// A draw uniform on 0..n (splitmix64 over the seed).
    fn random_below(&mut self, n: u64) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((u128::from(z) * u128::from(n)) >> 64) as u64
    }

    fn reset_probe_bw_mode(&mut self, cx: &RateContext) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.random_below(CYCLE_RAND) as usize;
        self.advance_cycle_phase(cx);
    }

    fn reset_mode(&mut self, cx: &RateContext) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(cx);
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn reset_lt_interval(&mut self, cx: &RateContext) {
        self.lt.last_stamp_ms = cx.delivered_time.as_nanos() / 1_000_000;
        self.lt.last_delivered = cx.delivered;
        self.lt.last_lost = cx.lost;
        self.lt.rtt_cnt = 0;
    }

    /// Forgets the long-term estimate; the next loss starts a new interval.
    fn clear_lt(&mut self) {
        self.lt.bw = 0;
        self.lt.use_bw = false;
        self.lt.is_sampling = false;
    }

    fn reset_lt(&mut self, cx: &RateContext) {
        self.clear_lt();
        self.reset_lt_interval(cx);
    }

    /// `bbr_lt_bw_interval_done`: two intervals of consistent rate mean a policer.
    fn lt_interval_done(&mut self, bw: u64, cx: &RateContext) {
        if self.lt.bw != 0 {
            let diff = bw.abs_diff(self.lt.bw);
            if diff * BBR_UNIT <= LT_BW_RATIO * self.lt.bw
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF
            {
                self.lt.bw = (bw + self.lt.bw) >> 1;
                self.lt.use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt.rtt_cnt = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.reset_lt_interval(cx);
    }

    /// `bbr_lt_bw_sampling`.
    fn lt_sampling(&mut self, losses: u64, is_app_limited: bool, cx: &RateContext) {
        if self.lt.use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt.rtt_cnt += 1;
                if self.lt.rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt(cx);
                    self.reset_probe_bw_mode(cx);
                }
            }
            return;
        }
        // Sampling starts at the first loss, once the policer's tokens are spent.
        if !self.lt.is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_interval(cx);
            self.lt.is_sampling = true;
        }
        if is_app_limited {
            self.reset_lt(cx);
            return;
        }
        if self.round_start {
            self.lt.rtt_cnt += 1;
        }
        if self.lt.rtt_cnt < LT_INTERVAL_MIN_RTTS {
            return;
        }
        if self.lt.rtt_cnt > 4 * LT_INTERVAL_MIN_RTTS {
            self.reset_lt(cx);
            return;
        }
        if losses == 0 {
            return;
        }
        let lost = cx.lost - self.lt.last_lost;
        let delivered = cx.delivered - self.lt.last_delivered;
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        let elapsed_ms =
            (cx.delivered_time.as_nanos() / 1_000_000).saturating_sub(self.lt.last_stamp_ms);
        if elapsed_ms < 1 {
            return;
        }
        let bw = delivered * BW_UNIT / (elapsed_ms * 1000);
        self.lt_interval_done(bw, cx);
    }

    /// `bbr_update_bw`: rounds, and the bandwidth filter.
    fn update_bw(&mut self, rs: &RateSample, cx: &RateContext) {
        self.round_start = false;
        let (Some(delivered), Some(interval)) = (rs.delivered, rs.interval) else {
            return;
        };
        let interval_us = micros(interval);
        if interval_us == 0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = cx.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_sampling(rs.losses, rs.is_app_limited, cx);
        let bw = delivered * BW_UNIT / interval_us;
        // An app-limited sample counts only if it is no lower than the estimate.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`: data ACKed beyond what bw explains, over an epoch.
    fn update_ack_aggregation(&mut self, rs: &RateSample, cx: &RateContext) {
        if EXTRA_ACKED_GAIN == 0
            || rs.acked_sacked == 0
            || rs.delivered.is_none()
            || rs.interval.is_none_or(|i| i.is_zero())
        {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = micros(cx.delivered_time - self.ack_epoch_stamp);
        let mut expected =
            (u128::from(self.bw()) * u128::from(epoch_us) / u128::from(BW_UNIT)) as u64;
        if self.ack_epoch_acked <= expected
            || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = cx.delivered_time;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xFFFFF);
        let extra = (self.ack_epoch_acked - expected).min(self.cwnd());
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let threshold = (self.full_bw * FULL_BW_THRESH) >> BBR_SCALE;
        if self.max_bw() >= threshold {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_COUNT;
    }

    fn check_drain(&mut self, cx: &RateContext) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            let ssthresh = self.inflight(self.max_bw(), BBR_UNIT) * self.mss();
            self.window.ssthresh = ssthresh.min(u64::from(u32::MAX)) as u32;
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(cx.in_flight, cx)
                <= self.inflight(self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode(cx);
        }
    }

    fn check_probe_rtt_done(&mut self, cx: &RateContext) {
        if self.probe_rtt_done_stamp.is_none_or(|done| cx.now <= done) {
            return;
        }
        self.min_rtt_stamp = cx.now;
        let cwnd = self.cwnd().max(self.prior_cwnd);
        self.set_cwnd_segments(cwnd);
        self.reset_mode(cx);
    }

    /// `bbr_update_min_rtt`, and PROBE_RTT; returns true while PROBE_RTT wants the flight
    /// marked app-limited. Only a lower RTT renews the filter (current Linux's `<`; BBR's
    /// first version had `<=`, with which a steady path never probes).
    fn update_min_rtt(&mut self, rs: &RateSample, cx: &RateContext) -> bool {
        let filter_expired = cx.now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(rtt) = rs.rtt {
            let rtt_us = micros(rtt);
            if self.min_rtt_us.is_none_or(|min| rtt_us < min) || filter_expired {
                self.min_rtt_us = Some(rtt_us);
                self.min_rtt_stamp = cx.now;
            }
        }
        if filter_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
        }
        let mut mark_app_limited = false;
        if self.mode == Mode::ProbeRtt {
            mark_app_limited = true;
            if self.probe_rtt_done_stamp.is_none() && cx.in_flight <= CWND_MIN_TARGET {
                self.probe_rtt_done_stamp = Some(cx.now + PROBE_RTT_TIME);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = cx.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(cx);
                }
            }
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
        mark_app_limited
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw if self.lt.use_bw => (BBR_UNIT, CWND_GAIN),
            Mode::ProbeBw => (PACING_GAIN[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }

    fn sets_window_from_rate(&self) -> bool {
        true
    }

    /// `bbr_init`.
    fn on_established(&mut self, cx: &RateContext) {
        self.min_rtt_us = cx.srtt.map(micros);
        self.min_rtt_stamp = cx.now;
        self.window.ssthresh = u32::MAX;
        self.init_pacing_rate_from_rtt(cx.srtt);
        self.reset_lt(cx);
        self.ack_epoch_stamp = cx.now;
    }

    /// `bbr_main`.
    fn on_rate_sample(&mut self, rs: &RateSample, cx: &RateContext) -> bool {
        self.update_bw(rs, cx);
        self.update_ack_aggregation(rs, cx);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs, cx) {
            self.advance_cycle_phase(cx);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(cx);
        let mark_app_limited = self.update_min_rtt(rs, cx);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, cx.srtt);
        self.set_cwnd(rs, rs.acked_sacked, bw, self.cwnd_gain, cx);
        mark_app_limited
    }

    /// CA_EVENT_TX_START after the application ran dry: pace at bw, not above it.
    fn on_transmit_start(&mut self, cx: &RateContext, app_limited: bool) {
        if !app_limited {
            return;
        }
        self.idle_restart = true;
        self.ack_epoch_stamp = cx.now;
        self.ack_epoch_acked = 0;
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(self.bw(), BBR_UNIT, cx.srtt),
            Mode::ProbeRtt => self.check_probe_rtt_done(cx),
            _ => {}
        }
    }

    /// `bbr_set_state(TCP_CA_Loss)`: the timeout ends a round, forgets full-bandwidth
    /// progress and counts as a loss for the policer estimate.
    fn on_enter_loss(&mut self, cx: &RateContext) {
        self.prev_ca_state = CaState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        self.lt_sampling(1, false, cx);
    }

    fn pacing_rate(&self) -> Option<u64> {
        Some(self.pacing_rate)
    }

    /// `bbr_undo_cwnd`: a spurious slow-down; full-bandwidth detection and the policer
    /// estimate start over, the window stays.
    fn undo_cwnd(&mut self, _now: Instant, _prior_cwnd: u32) -> u32 {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.clear_lt();
        self.window.cwnd
    }

    fn seed(&mut self, seed: u64) {
        self.rng = seed;
    }

    // Linux's `cong_control` replaces every window rule of the sender's recovery: the
    // hooks below only save the window (`bbr_ssthresh`) or set what `tcp_enter_loss` sets.

    fn on_ack(&mut self, _ack: &AckEvent) {}

    fn on_enter_recovery(&mut self, _now: Instant, _flight_size: u32) {
        self.save_cwnd();
    }

    fn on_dupack_in_recovery(&mut self, _now: Instant) {}

    fn on_partial_ack(&mut self, _now: Instant, _bytes_acked: u32) {}

    fn on_exit_recovery(&mut self, _now: Instant, _flight_size: u32) {}

    fn on_end_cwnd_reduction(&mut self, _now: Instant) {}

    /// `tcp_enter_loss`: ssthresh from the hook (the window saved), cwnd the flight (none
    /// once everything is marked lost) plus one.
    fn on_rto(&mut self, _now: Instant, _flight_size: u32, episode_open: bool) {
        // Linux asks the ssthresh hook only when no loss episode is open.
        if !episode_open {
            self.save_cwnd();
        }
        self.set_cwnd_segments(1);
    }
}

#[cfg(test)]
mod tests;
