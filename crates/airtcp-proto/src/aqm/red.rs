//! Random Early Detection (Floyd and Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1993) and Adaptive RED (Floyd, Gummadi and Shenker,
//! 2001) as Linux's `include/net/red.h` runs them for sch_red, with tc's derivation of the
//! parameters (iproute2 `tc/q_red.c`, `tc_red_eval_ewma`).
//!
//! On each arrival the average backlog (bytes) is updated, `avg += (backlog − avg) · W` with
//! W = 2^−Wlog, in Linux's fixed point (the average scaled by 2^Wlog). Below `min` nothing
//! happens; at or above `max` the packet is marked (dropped) for sure; between, marks are
//! spread evenly: Linux's divisionless form of the paper's Fig. 17 marks the `count`-th
//! packet since the last mark once `count · (avg − min) ≥ R`, R drawn uniformly in
//! [0, (max − min) / max_P) at each mark (`red_action`, `red_mark_probability`,
//! `red_random`): with p_b = max_P · (avg − min)/(max − min) the gaps between marks are
//! uniform on 1..1/p_b (the paper's §7), so about 2·p_b of the packets are marked. After an idle period the average decays as if `m` packets of `avpkt`
//! bytes had left at the link's rate (the paper's `avg ← (1 − W)^m · avg`).
//!
//! Adaptive RED (`red_adaptative_algo`, every 500 ms): max_P grows by min(0.01, max_P/4)
//! while the average is above min + 0.6 (max − min) and max_P ≤ 0.5, and shrinks to 0.9 of
//! itself while the average is under min + 0.4 (max − min) and max_P ≥ 0.01. max_P is a Q0.32
//! number as Linux's.
//!
//! Chosen differently (docs/scenarios.md): the idle decay is computed exactly, where Linux
//! reads it from a 256-cell table of shifts that tc computes (`tc_red_eval_idle_damping`);
//! the adaptive timer runs lazily at the next arrival (exact: the average changes only at
//! arrivals and idle starts).

/// max_P's 1 % and 50 % in Q0.32 (`RED_ONE_PERCENT`, `MAX_P_MIN`, `MAX_P_MAX`).
const ONE_PERCENT: u64 = ((1u64 << 32) + 50) / 100;
const MAX_P_MIN: u64 = ONE_PERCENT;
const MAX_P_MAX: u64 = 50 * ONE_PERCENT;
/// Adaptive RED's period (the sch_red timer: HZ/2).
pub const ADAPT_PERIOD_NS: u64 = 500_000_000;

/// RED's parameters, as sch_red holds them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    /// Thresholds on the average backlog, bytes.
    pub min_bytes: u32,
    pub max_bytes: u32,
    /// log2(1/W), the averaging weight.
    pub wlog: u8,
    /// The mark probability at `max_bytes`, Q0.32 (Adaptive RED's starting value).
    pub max_p: u32,
    /// Adaptive RED: max_P follows the average every 500 ms.
    pub adaptive: bool,
    /// Time to send `avpkt` bytes at the link's rate: the idle decay's unit.
    pub avpkt_time_ns: u64,
}

/// What RED does with an arriving packet (`red_action`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedAction {
    Pass,
    /// An early mark (drop, or CE with ECN) drawn with RED's probability.
    Early,
    /// The average is at or above `max`: a mark for sure.
    Forced,
}

impl RedParams {
    /// The parameters tc derives for `tc qdisc add ... red limit L [min M] [max X]
    /// [probability P] [burst B] avpkt A bandwidth R`: `max` defaults to a quarter of the
    /// limit, `min` to a third of `max`, `burst` to (2·min + max)/(3·avpkt) packets, from
    /// which Wlog is the smallest with burst + 1 − min/avpkt ≤ (1 − (1 − W)^burst)/W
    /// (`tc_red_eval_ewma`). Why they do not make a RED otherwise.
    #[allow(clippy::too_many_arguments)]
    pub fn tc(
        limit_bytes: u32,
        min_bytes: Option<u32>,
        max_bytes: Option<u32>,
        probability: f64,
        burst: Option<u32>,
        avpkt: u32,
        rate_bps: u64,
        adaptive: bool,
    ) -> Result<Self, String> {
        let max = max_bytes.unwrap_or(limit_bytes / 4);
        let min = min_bytes.unwrap_or(max / 3);
        if !(min < max && max <= limit_bytes) {
            return Err(format!(
                "min ({min} bytes) must be below max ({max}), and max at most the queue's \
                 {limit_bytes} bytes"
            ));
        }
        if !(probability > 0.0 && probability <= 1.0) {
            return Err(format!("probability {probability} is not in (0, 1]"));
        }
        if avpkt == 0 || rate_bps == 0 {
            return Err("avpkt and the link's rate must be positive".into());
        }
        let burst = burst.unwrap_or((2 * min + max) / (3 * avpkt));
        let a = f64::from(burst) + 1.0 - f64::from(min) / f64::from(avpkt);
        if a < 1.0 {
            return Err(format!(
                "burst {burst} is too small for min {min} and avpkt {avpkt} (at least {})",
                1 + min / avpkt
            ));
        }
        let mut w = 0.5f64;
        let mut wlog = None;
        for log in 1u8..32 {
            if a <= (1.0 - (1.0 - w).powi(burst as i32)) / w {
                wlog = Some(log);
                break;
            }
            w /= 2.0;
        }
        let wlog = wlog.ok_or_else(|| format!("no averaging weight allows a burst of {burst}"))?;
        Ok(RedParams {
            min_bytes: min,
            max_bytes: max,
            wlog,
            max_p: (probability * 4_294_967_296.0).round().min(u32::MAX as f64) as u32,
            adaptive,
            avpkt_time_ns: (u64::from(avpkt) * 8 * 1_000_000_000).div_ceil(rate_bps),
        })
    }

    fn qth_min(&self) -> u64 {
        u64::from(self.min_bytes) << self.wlog
    }

    fn qth_max(&self) -> u64 {
        u64::from(self.max_bytes) << self.wlog
    }

    fn delta(&self) -> u64 {
        u64::from(self.max_bytes - self.min_bytes).max(1)
    }
}

/// One RED queue's state (Linux's `red_vars`, and max_P, which Adaptive RED moves).
#[derive(Clone, Debug)]
pub struct Red {
    /// The average backlog, scaled by 2^Wlog.
    qavg: u64,
    /// Packets since the last mark, −1 below `min` (`qcount`).
    qcount: i64,
    /// The drawn R (`qR`).
    q_r: u64,
    idle_since: Option<u64>,
    max_p: u32,
    next_adapt_ns: u64,
}

impl Red {
    pub fn new(params: &RedParams, now_ns: u64) -> Self {
        Red {
            qavg: 0,
            qcount: -1,
            q_r: 0,
            idle_since: None,
            max_p: params.max_p,
            next_adapt_ns: now_ns + ADAPT_PERIOD_NS,
        }
    }

    /// The average backlog in bytes.
    pub fn average_bytes(&self, params: &RedParams) -> f64 {
        self.qavg as f64 / f64::from(1u32 << params.wlog)
    }

    /// max_P now, as a probability.
    pub fn max_p(&self) -> f64 {
        f64::from(self.max_p) / 4_294_967_296.0
    }

    /// Runs Adaptive RED's updates due by `now_ns`.
    pub fn catch_up(&mut self, now_ns: u64, params: &RedParams) {
        while params.adaptive && self.next_adapt_ns <= now_ns {
            let at = self.next_adapt_ns;
            self.adapt(params, at);
            self.next_adapt_ns += ADAPT_PERIOD_NS;
        }
    }

    /// `red_adaptative_algo` at `now_ns`.
    fn adapt(&mut self, params: &RedParams, now_ns: u64) {
        let qavg = self.idle_decayed(params, now_ns) >> params.wlog;
        let delta = u64::from(params.max_bytes - params.min_bytes);
        let (target_min, target_max) = (
            u64::from(params.min_bytes) + 2 * (delta / 5),
            u64::from(params.min_bytes) + 3 * (delta / 5),
        );
        let max_p = u64::from(self.max_p);
        if qavg > target_max && max_p <= MAX_P_MAX {
            self.max_p = (max_p + MAX_P_MIN.min(max_p / 4)) as u32;
        } else if qavg < target_min && max_p >= MAX_P_MIN {
            self.max_p = ((max_p / 10) * 9) as u32;
        }
    }

    /// The average as an idle period ending at `now_ns` leaves it (`(1 − W)^m`).
    fn idle_decayed(&self, params: &RedParams, now_ns: u64) -> u64 {
        let Some(since) = self.idle_since else {
            return self.qavg;
        };
        let m = now_ns.saturating_sub(since) as f64 / params.avpkt_time_ns as f64;
        let w = 1.0 / f64::from(1u32 << params.wlog);
        (self.qavg as f64 * (1.0 - w).powf(m)) as u64
    }

    /// A packet arrives with `backlog_bytes` queued before it: updates the average and says
    /// what to do (`red_calc_qavg`, `red_action`). `draw` gives 32 random bits.
    pub fn on_arrival(
        &mut self,
        now_ns: u64,
        params: &RedParams,
        backlog_bytes: u64,
        mut draw: impl FnMut() -> u32,
    ) -> RedAction {
        self.catch_up(now_ns, params);
        self.qavg = if self.idle_since.is_some() {
            self.idle_decayed(params, now_ns)
        } else {
            // qavg·(1 − W) + backlog·W, scaled by 2^Wlog.
            (self.qavg + backlog_bytes).saturating_sub(self.qavg >> params.wlog)
        };
        self.idle_since = None;
        if self.qavg < params.qth_min() {
            self.qcount = -1;
            return RedAction::Pass;
        }
        if self.qavg >= params.qth_max() {
            self.qcount = -1;
            return RedAction::Forced;
        }
        self.qcount += 1;
        if self.qcount == 0 {
            self.q_r = self.random(params, draw());
            return RedAction::Pass;
        }
        let excess = (self.qavg - params.qth_min()) >> params.wlog;
        if excess * self.qcount as u64 >= self.q_r {
            self.qcount = 0;
            self.q_r = self.random(params, draw());
            return RedAction::Early;
        }
        RedAction::Pass
    }

    /// R uniform in [0, (max − min)/max_P) (`red_random` with `reciprocal_scale`).
    fn random(&self, params: &RedParams, bits: u32) -> u64 {
        let max_p = u64::from(self.max_p).max(1);
        let span = ((params.delta() << 32) + max_p / 2) / max_p;
        (u64::from(bits) * span.min(u64::from(u32::MAX))) >> 32
    }

    /// The queue emptied at `now_ns`: an idle period starts (`red_start_of_idle_period`).
    pub fn on_empty(&mut self, now_ns: u64) {
        self.idle_since.get_or_insert(now_ns);
    }
}

#[cfg(test)]
mod tests;
