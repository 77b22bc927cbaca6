//! PIE, the Proportional Integral controller Enhanced (RFC 8033), as Linux's sch_pie runs it
//! (net/sched/sch_pie.c: `pie_drop_early`, `pie_process_dequeue` without the dequeue-rate
//! estimator, `pie_calculate_probability`; include/net/pie.h: `pie_params_init`,
//! `pie_vars_init`), for one FIFO.
//!
//! Every `tupdate` (15 ms; the first update 500 ms after the queue is set up, as sch_pie's
//! timer) the drop probability moves by `alpha * (qdelay - target) + beta * (qdelay -
//! qdelay_old)`, alpha and beta scaled down while it is small (RFC 8033 §4.2's table, in
//! Linux's shifts), capped at +2 % an update above 10 %, raised by 2 % while the delay
//! exceeds 250 ms, and decayed by 1/64 after two updates without delay. The delay is the
//! last dequeued packet's sojourn (0 once the queue is empty). On arrival a packet is
//! dropped early with that probability, de-randomised as Linux does (the probabilities
//! accumulate: no drop below 0.85 in total, a drop at 8.5), except within the 150 ms burst
//! allowance, under two MTUs of backlog, or while the delay is under half the target and
//! the probability under 20 %.
//!
//! Fixed point as in Linux: probabilities in units of `MAX_PROB` (2^56 - 1), times in
//! psched ticks of 64 ns. The timer runs lazily here: the updates due are run, in order,
//! when the queue is next touched (`catch_up`: its owner calls it before anything changes
//! the backlog), with the backlog it has held since. The update interval is exactly 15 ms (Linux rounds it to jiffies: 16 ms
//! at HZ = 250). ECN marking and byte mode are not modelled.
//!
//! Chosen differently from Linux: the probability is bounded at 1 (`MAX_PROB`), as RFC 8033
//! §4.2 bounds it and Linux's code did while it kept it in 32 bits. Since it is a u64
//! (`MAX_PROB` = 2^56 - 1) Linux bounds it only against wrapping, so a delay above 250 ms
//! for a second (slow start into a full 1000-packet buffer) takes it to several times 1,
//! and with a packet or two always queued (no decay) it then drops every arrival for tens
//! of seconds: two CUBIC flows over 10 Mbit/s lost 22 % of their packets so (`bufferbloat`).

/// The largest drop probability (`MAX_PROB`: 1.0).
pub const MAX_PROB: u64 = u64::MAX >> 8;

/// Linux's psched clock: nanoseconds >> 6.
const PSCHED_SHIFT: u32 = 6;
const PSCHED_TICKS_PER_SEC: u64 = 1_000_000_000 >> PSCHED_SHIFT;

fn ticks(ns: u64) -> u64 {
    ns >> PSCHED_SHIFT
}

/// PIE's parameters (sch_pie's `pie_params`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieParams {
    /// The delay PIE steers towards.
    pub target_ns: u64,
    /// How often the drop probability is updated.
    pub tupdate_ns: u64,
    /// The integral and proportional gains in 1/16 (Linux's 0-32 for RFC 8033's 0-2).
    pub alpha: u32,
    pub beta: u32,
    /// Below two of these bytes queued nothing is dropped early.
    pub mtu_bytes: u32,
}

impl PieParams {
    /// sch_pie's defaults (`pie_params_init`, RFC 8033 §5): target 15 ms, updates every 15
    /// ms, alpha 0.125, beta 1.25; a 1500-byte MTU.
    pub const LINUX: PieParams = PieParams {
        target_ns: 15_000_000,
        tupdate_ns: 15_000_000,
        alpha: 2,
        beta: 20,
        mtu_bytes: 1500,
    };
}

/// When sch_pie's timer first fires after the queue is set up (`HZ / 2`).
const FIRST_UPDATE_NS: u64 = 500_000_000;
/// The burst allowance after (re)initialisation (`pie_vars_init`).
const BURST_ALLOWANCE_NS: u64 = 150_000_000;

/// One queue's PIE state (sch_pie's `pie_vars`).
#[derive(Clone, Debug)]
pub struct Pie {
    /// The current and the previous update's delay, in ticks.
    qdelay: u64,
    qdelay_old: u64,
    /// Burst allowance left, in ticks.
    burst_time: u64,
    /// The last dequeue, in ticks.
    dq_tstamp: Option<u64>,
    prob: u64,
    accu_prob: u64,
    /// When the next update is due, in ns.
    next_update_ns: u64,
}

impl Pie {
    /// A queue set up at `now_ns`.
    pub fn new(now_ns: u64) -> Self {
        Pie {
            qdelay: 0,
            qdelay_old: 0,
            burst_time: ticks(BURST_ALLOWANCE_NS),
            dq_tstamp: None,
            prob: 0,
            accu_prob: 0,
            next_update_ns: now_ns + FIRST_UPDATE_NS,
        }
    }

    /// The drop probability, in units of `MAX_PROB`.
    pub fn prob(&self) -> u64 {
        self.prob
    }

    /// Runs the probability updates due by `now_ns`, the queue having held `backlog_bytes`
    /// since the last call.
    pub fn catch_up(&mut self, now_ns: u64, params: &PieParams, backlog_bytes: u64) {
        while self.next_update_ns <= now_ns {
            self.calculate_probability(params, backlog_bytes);
            self.next_update_ns += params.tupdate_ns.max(1);
        }
    }

    /// Whether a packet arriving at a queue of `backlog_bytes` is dropped early
    /// (`pie_drop_early`); `draw` gives 64 random bits when the decision needs them.
    pub fn drop_early(
        &mut self,
        params: &PieParams,
        backlog_bytes: u64,
        draw: impl FnOnce() -> u64,
    ) -> bool {
        if self.burst_time > 0 {
            return false;
        }
        let target = ticks(params.target_ns);
        if self.qdelay < target / 2 && self.prob < MAX_PROB / 5 {
            return false;
        }
        if backlog_bytes < 2 * u64::from(params.mtu_bytes) {
            return false;
        }
        let local_prob = self.prob;
        if local_prob == 0 {
            self.accu_prob = 0;
        } else {
            self.accu_prob = self.accu_prob.wrapping_add(local_prob);
        }
        if self.accu_prob < (MAX_PROB / 100) * 85 {
            return false;
        }
        if self.accu_prob >= (MAX_PROB / 2) * 17 {
            return true;
        }
        if (draw() >> 8) < local_prob {
            self.accu_prob = 0;
            return true;
        }
        false
    }

    /// A packet was dropped on arrival (early, or over the limit): the accumulated
    /// probability starts again (sch_pie's `out:` path).
    pub fn dropped(&mut self) {
        self.accu_prob = 0;
    }

    /// A packet that arrived at `enqueued_ns` left at `now_ns`, `backlog_bytes` remaining
    /// (`pie_process_dequeue` with timestamps).
    pub fn dequeued(&mut self, now_ns: u64, enqueued_ns: u64, backlog_bytes: u64) {
        let now = ticks(now_ns);
        self.qdelay = now.wrapping_sub(ticks(enqueued_ns));
        let dtime = self.dq_tstamp.map_or(0, |last| now.wrapping_sub(last));
        self.dq_tstamp = Some(now);
        if backlog_bytes == 0 {
            self.qdelay = 0;
        }
        if dtime == 0 {
            return;
        }
        self.burst_time = self.burst_time.saturating_sub(dtime);
    }

    /// One update of the drop probability (`pie_calculate_probability`).
    fn calculate_probability(&mut self, params: &PieParams, backlog_bytes: u64) {
        let (qdelay, qdelay_old) = (self.qdelay, self.qdelay_old);
        let target = ticks(params.target_ns);
        // a small backlog that left no delay: no update this round
        let mut update_prob = !(qdelay == 0 && backlog_bytes != 0);
        let mut alpha = (u64::from(params.alpha) * (MAX_PROB / PSCHED_TICKS_PER_SEC)) >> 4;
        let mut beta = (u64::from(params.beta) * (MAX_PROB / PSCHED_TICKS_PER_SEC)) >> 4;
        // RFC 8033 §4.2: smaller steps while the probability is small
        if self.prob < MAX_PROB / 10 {
            alpha >>= 1;
            beta >>= 1;
            let mut power = 100u64;
            while self.prob < MAX_PROB / power && power <= 1_000_000 {
                alpha >>= 2;
                beta >>= 2;
                power *= 10;
            }
        }
        // Linux's u64 arithmetic: a delay below target wraps to the negative step
        let mut delta = alpha
            .wrapping_mul(qdelay.wrapping_sub(target))
            .wrapping_add(beta.wrapping_mul(qdelay.wrapping_sub(qdelay_old)))
            as i64;
        let oldprob = self.prob;
        // at most 2 % a step once above 10 %
        if delta > (MAX_PROB / 50) as i64 && self.prob >= MAX_PROB / 10 {
            delta = ((MAX_PROB / 100) * 2) as i64;
        }
        // a delay above 250 ms raises the probability by 2 % more
        if qdelay > ticks(250_000_000) {
            delta = delta.wrapping_add((MAX_PROB / 50) as i64);
        }
        self.prob = self.prob.wrapping_add(delta as u64);
        if delta > 0 {
            // RFC 8033 bounds it at 1; Linux only against wrapping (module doc)
            if self.prob < oldprob || self.prob > MAX_PROB {
                self.prob = MAX_PROB;
                update_prob = false;
            }
        } else if self.prob > oldprob {
            self.prob = 0;
        }
        // two updates without delay: decay to 98.4 %
        if qdelay == 0 && qdelay_old == 0 && update_prob {
            self.prob -= self.prob / 64;
        }
        self.qdelay = qdelay;
        // low delay twice and no probability: a new measurement cycle (`pie_vars_init`)
        if qdelay < target / 2 && qdelay_old < target / 2 && self.prob == 0 {
            self.burst_time = ticks(BURST_ALLOWANCE_NS);
            self.dq_tstamp = None;
            self.accu_prob = 0;
        }
        self.qdelay_old = qdelay;
    }
}

#[cfg(test)]
mod tests;
