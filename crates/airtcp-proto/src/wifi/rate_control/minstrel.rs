//! Minstrel as Linux's mac80211 runs it today for a legacy (non-HT) station.
//!
//! Source: `net/mac80211/rc80211_minstrel_ht.c` and `rc80211_minstrel_ht.h` of Linux 6.18.
//! The old `rc80211_minstrel.c` was removed in the 5.x series (2021); `minstrel_ht` serves
//! legacy stations too, through its CCK group (1, 2, 5.5, 11 Mbit/s) and OFDM group (6 to
//! 54 Mbit/s). ns-3's `minstrel-wifi-manager.cc` models the older algorithm (EWMA at 75 %,
//! statistics every 100 ms, 10 % "look-around" frames placed by a random sample table, chain
//! max_tp, max_tp2, max_prob, lowest rate); this module follows the kernel instead.
//!
//! # What is reproduced
//!
//! - Statistics (`minstrel_ht_tx_status`, `minstrel_ht_calc_rate_stats`): every attempt
//!   counts at its rate, a success at the rate of the acknowledged attempt. Every
//!   `update_interval` = HZ/20 = 50 ms (checked when a frame's status comes in, the update
//!   running when now is past the last update plus 50 ms) each rate that had attempts takes
//!   the sample success/attempts into its average by `minstrel_filter_avg_add`: not an EWMA
//!   any more but a second-order low-pass filter (period 16 updates) with 12-bit fixed-point
//!   coefficients 1173, 5273, -2350 (the kernel's `MINSTREL_AVG_COEFF1..3`), clamped to
//!   [1, 4096], a first sample taken as it is, a zero sample counted as 1/4096. (`EWMA_LEVEL`
//!   96/128 = 75 % still exists in the kernel but only averages the A-MPDU length, which is
//!   1 for a legacy station.)
//! - A rate never tried takes the best average of the faster rates of its group that were
//!   tried (`minstrel_ht_update_stats`, `last_prob`).
//! - Throughput estimate (`minstrel_ht_get_tp_avg`): probability / exchange time in the
//!   kernel's integer arithmetic, 0 below 10 % success, the probability capped at 90 %
//!   ("collision related packet error rate fluctuation").
//! - Rate choice (`minstrel_ht_update_stats`): `max_tp_rate[0..4]` by insertion sort
//!   (`minstrel_ht_sort_best_tp_rates`; ties by probability, rates tried from the fastest of
//!   each group down, the list starting filled with the lowest rate), and `max_prob_rate`
//!   (`minstrel_ht_set_best_prob_rate`: among rates above 75 % success the best throughput,
//!   otherwise the best probability, skipping rates faster than `max_tp_rate[0]` that
//!   deliver worse than it).
//! - Retry chain (`minstrel_ht_update_rates`, `minstrel_ht_set_rate`,
//!   `minstrel_calc_retransmit`): 4 multi-rate retry stages, (`max_tp_rate[0]`,
//!   `max_tp_rate[1]`, `max_tp_rate[2]`, `max_prob_rate`). Tries per stage: 2 below 20 %
//!   success; otherwise as many as fit the 6000 µs `segment_size` with the kernel's
//!   contention estimate (9 µs slots, CW from 15 doubling to 1023, half a window per try),
//!   at least 2, at most `max_retry`. The first stage counts plain exchanges, the others
//!   the RTS/CTS count (exchange plus twice the ACK time), since the kernel sends fallback
//!   stages with RTS/CTS.
//! - Sampling (`minstrel_ht_get_rate`, `minstrel_ht_refill_sample_rates`): at most one
//!   probe every `MINSTREL_SAMPLE_INTERVAL` = HZ/50 = 20 ms, the clock restarting at each
//!   statistics update. A probe puts the sample rate in the first stage with one try; the
//!   other stages stay. Sample rates come from three lists of up to 5, refilled at each
//!   update and consumed in the fixed order INC, JUMP, INC, JUMP, INC, SLOW (one list per
//!   opportunity; an empty list means no probe that time): INC holds, per group, the slowest
//!   rate faster than `max_tp_rate[0]`; JUMP rates faster than all of `max_tp_rate[0]`,
//!   `max_tp_rate[1]` and `max_prob_rate`, drawn from a per-group walk through a random
//!   sample table (`init_sample_table`: 10 columns, each a permutation of 0..9); SLOW the
//!   rates met on that walk between the fastest and the slowest of those three, skipped above
//!   95 % success. The kernel's list compaction (`minstrel_ht_move_sample_rates`) does not
//!   count an entry already at the head of a list, so that entry is lost at the refill; this
//!   is reproduced.
//! - Sudden death (in `minstrel_ht_tx_status`): when `max_tp_rate[0]` or `[1]` had more than
//!   30 attempts in the current interval and under a quarter succeeded, it is replaced by the
//!   best rate of the group below (OFDM falls to CCK; CCK has none below, only the chain is
//!   rebuilt).
//! - The station starts with every stage at its lowest rate, 2 tries each
//!   (`minstrel_ht_update_caps`), at the time of its first call here.
//!
//! # Choices where the kernel depends on hardware or on the band
//!
//! - `hw->max_rates` = 4 (`MAX_RATES`): four stages, as ath9k, mt76 and mac80211_hwsim.
//! - `hw->max_rate_tries` unset, so `max_retry` = 7 (`MAX_RETRY`), the kernel's default.
//! - The chain ends a frame, as the kernel's hardware gives up when the rate table's tries
//!   are spent (with 4 stages typically 10 to 20 tries): `attempt_limit` is the chain's
//!   total (`chain_attempts`), which the MAC uses instead of its own retry limits.
//! - Times: the kernel's per-rate duration (`CCK_DURATION`, `OFDM_DURATION` for a 1200-byte
//!   frame) plus `overhead_legacy` (an ACK at the lowest rate) is the MAC's
//!   `RateInfo::exchange_ns`, so the estimate follows the simulated PHY (the kernel rounds
//!   OFDM symbols down, here the PHY's own airtime). The ACK time that the RTS/CTS count adds
//!   twice is the kernel's `ieee80211_frame_duration` of a 14-byte frame at the lowest rate
//!   (OFDM formula for an OFDM rate, DSSS with the short-preamble flag the kernel passes).
//! - Rates are grouped by value: 1, 2, 5.5 and 11 Mbit/s in the CCK group, any other rate in
//!   the OFDM group; within a group rates keep their order (the kernel's index is the
//!   position in the band's list, the same when the station supports all of a group).
//! - Times are continuous nanoseconds, not jiffies.
//!
//! # Not reproduced
//!
//! - RTS/CTS on the fallback stages: the trait returns a rate only; the MAC applies its own
//!   RTS threshold.
//! - The short- and long-preamble variants of CCK rates, which the kernel keeps as separate
//!   rates (supported bits 4-7) and samples only in the preamble in use: each rate appears
//!   once, with the exchange time the MAC gives.
//! - Aggregation (A-MPDU length, A-MSDU limits), HT/VHT groups and their stream logic, the
//!   debugfs fixed rate, frames without ACK (the MAC reports none), EAPOL on single-rate
//!   hardware.
//! - The sample table is per station, drawn from the seed; the kernel draws one per boot for
//!   all stations.

use super::{check_rates, RateControl, RateInfo};

/// Fixed-point scale of probabilities: 1 << 12 is 100 % (`MINSTREL_SCALE`).
const SCALE: u32 = 12;
const PROB_ONE: u32 = 1 << SCALE;
/// `MINSTREL_FRAC(val, div)`.
const fn frac(val: u32, div: u32) -> u32 {
    (val << SCALE) / div
}
const PROB_10: u32 = frac(10, 100);
const PROB_20: u32 = frac(20, 100);
const PROB_75: u32 = frac(75, 100);
const PROB_90: u32 = frac(90, 100);
const PROB_95: u32 = frac(95, 100);

/// `MINSTREL_AVG_COEFF2`, `_3`, and `_1` = 1 - the other two.
const AVG_COEFF2: i32 = 0x1499;
const AVG_COEFF3: i32 = -0x92e;
const AVG_COEFF1: i32 = (1 << SCALE) - AVG_COEFF2 - AVG_COEFF3;

/// `mp->update_interval` = HZ / 20.
pub const UPDATE_INTERVAL_NS: u64 = 50_000_000;
/// `MINSTREL_SAMPLE_INTERVAL` = HZ / 50.
pub const SAMPLE_INTERVAL_NS: u64 = 20_000_000;
/// Multi-rate retry stages: `hw->max_rates` (4 on common hardware; also the kernel's table
/// size, `IEEE80211_TX_RATE_TABLE_SIZE`).
pub const MAX_RATES: usize = 4;
/// Most tries per stage: the kernel's default `max_retry` when the driver leaves
/// `hw->max_rate_tries` unset.
pub const MAX_RETRY: u8 = 7;

/// `MAX_THR_RATES`.
const MAX_THR_RATES: usize = 4;
/// `MINSTREL_SAMPLE_RATES`: entries per sample list.
const SAMPLE_RATES: usize = 5;
/// `SAMPLE_COLUMNS`, and `MCS_GROUP_RATES` (rates a group may hold).
const SAMPLE_COLUMNS: usize = 10;
const GROUP_RATES: usize = 10;
/// `minstrel_calc_retransmit`'s constants: `mp->cw_min`, `mp->cw_max`, `mp->segment_size`
/// (µs) and its slot time (µs, "FIXME" in the kernel).
const CW_MIN: u64 = 15;
const CW_MAX: u64 = 1023;
const SEGMENT_SIZE_US: u64 = 6000;
const SLOT_US: u64 = 9;

const CCK_RATES_BPS: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];

/// `enum minstrel_sample_type`, indices into `Minstrel::sample`.
const INC: usize = 0;
const JUMP: usize = 1;
const SLOW: usize = 2;
/// `minstrel_sample_seq`: which list each sampling opportunity draws from.
const SAMPLE_SEQ: [usize; 6] = [INC, JUMP, INC, JUMP, INC, SLOW];

/// One multi-rate retry stage: a rate and how many attempts the frame gets at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage {
    pub rate: usize,
    pub count: u8,
}

/// `struct minstrel_rate_stats`.
#[derive(Clone, Debug, Default)]
struct RateStats {
    /// This interval's attempts and successes.
    attempts: u32,
    success: u32,
    /// All intervals'.
    att_hist: u64,
    succ_hist: u64,
    /// The filtered success probability and its previous value (scaled by `PROB_ONE`).
    prob_avg: u16,
    prob_avg_1: u16,
    retry_count: u8,
    retry_count_rtscts: u8,
    /// Retry counts computed since the last statistics update.
    retry_updated: bool,
}

/// `struct minstrel_mcs_group_data`, for the CCK or OFDM group.
#[derive(Clone, Debug)]
struct Group {
    /// Indices into `Minstrel::rates`, slowest first.
    rates: Vec<usize>,
    /// Position of this group's walk through the sample table.
    column: usize,
    index: usize,
    max_group_tp_rate: [usize; MAX_THR_RATES],
}

/// `struct minstrel_sample_category`.
#[derive(Clone, Debug)]
struct SampleList {
    /// The group last drawn from (an index into `Minstrel::groups`).
    group: usize,
    rates: [Option<usize>; SAMPLE_RATES],
}

/// The chain of the frame in progress.
#[derive(Clone, Debug)]
struct Frame {
    stages: [Stage; MAX_RATES],
    probe: bool,
}

#[derive(Clone, Debug)]
pub struct Minstrel {
    rates: Vec<RateInfo>,
    /// Each rate's group (an index into `groups`).
    group_of: Vec<usize>,
    /// CCK first, then OFDM, as in the kernel's group array; only those present.
    groups: Vec<Group>,
    stats: Vec<RateStats>,
    /// `ack_dur` of `minstrel_ht_update_caps`, µs.
    ack_us: u64,
    sample_table: [[u8; GROUP_RATES]; SAMPLE_COLUMNS],
    max_tp_rate: [usize; MAX_THR_RATES],
    max_prob_rate: usize,
    /// The station's rate table (`rate_control_set_rates`).
    rate_table: [Stage; MAX_RATES],
    sample: [SampleList; 3],
    sample_seq: usize,
    sample_time_ns: u64,
    last_stats_update_ns: u64,
    started: bool,
    frame: Option<Frame>,
}

impl Minstrel {
    /// A station reachable at `rates` (sorted by increasing rate); `seed` draws the sample
    /// table.
    pub fn new(rates: &[RateInfo], seed: u64) -> Result<Self, String> {
        check_rates(rates)?;
        let is_cck = |r: &RateInfo| CCK_RATES_BPS.contains(&r.rate_bps);
        let mut groups = Vec::new();
        let mut group_of = vec![0; rates.len()];
        for cck in [true, false] {
            let members: Vec<usize> = (0..rates.len())
                .filter(|&i| is_cck(&rates[i]) == cck)
                .collect();
            if members.is_empty() {
                continue;
            }
            if members.len() > GROUP_RATES {
                return Err(format!(
                    "minstrel: at most {GROUP_RATES} {} rates, got {}",
                    if cck { "CCK" } else { "OFDM" },
                    members.len()
                ));
            }
            for &i in &members {
                group_of[i] = groups.len();
            }
            groups.push(Group {
                max_group_tp_rate: [members[0]; MAX_THR_RATES],
                rates: members,
                column: 0,
                index: 0,
            });
        }
        let lowest = groups[0].rates[0];
        // The kernel's sample groups start at group 0, an HT group a legacy station lacks,
        // so its first draw is from the first legacy group: start "just before" ours.
        let last_group = groups.len() - 1;
        let list = SampleList {
            group: last_group,
            rates: [None; SAMPLE_RATES],
        };
        let mut m = Minstrel {
            ack_us: ack_duration_us(&rates[0], is_cck(&rates[0])),
            rates: rates.to_vec(),
            group_of,
            groups,
            stats: vec![RateStats::default(); rates.len()],
            sample_table: sample_table(seed),
            max_tp_rate: [lowest; MAX_THR_RATES],
            max_prob_rate: lowest,
            rate_table: [Stage {
                rate: lowest,
                count: 2,
            }; MAX_RATES],
            sample: [list.clone(), list.clone(), list],
            sample_seq: 0,
            sample_time_ns: 0,
            last_stats_update_ns: 0,
            started: false,
            frame: None,
        };
        // `minstrel_ht_update_caps`: an initial rate table at the lowest rates.
        m.update_stats(0);
        m.update_rates();
        Ok(m)
    }

    /// The station's current rate table: what a frame that is not a probe gets.
    pub fn rate_table(&self) -> [Stage; MAX_RATES] {
        self.rate_table
    }

    /// `max_tp_rate[0..4]`, best first.
    pub fn max_tp_rates(&self) -> [usize; MAX_THR_RATES] {
        self.max_tp_rate
    }

    pub fn max_prob_rate(&self) -> usize {
        self.max_prob_rate
    }

    /// The filtered success probability of `rate`, 0 to 1.
    pub fn success_probability(&self, rate: usize) -> f64 {
        f64::from(self.stats[rate].prob_avg) / f64::from(PROB_ONE)
    }

    /// Whether the frame in progress is a probe (its first stage a sample rate).
    pub fn is_probe(&self) -> bool {
        self.frame.as_ref().is_some_and(|f| f.probe)
    }

    /// Tries in the chain of the frame in progress (or of the rate table): where the
    /// kernel's hardware would give up.
    pub fn chain_attempts(&self) -> u32 {
        let stages = self.frame.as_ref().map_or(&self.rate_table, |f| &f.stages);
        stages.iter().map(|s| u32::from(s.count)).sum()
    }

    /// The station's statistics clock starts at its first call (the kernel's rate_init at
    /// association).
    fn start(&mut self, now_ns: u64) {
        if !self.started {
            self.started = true;
            self.last_stats_update_ns = now_ns;
            self.sample_time_ns = now_ns;
        }
    }

    fn duration(&self, rate: usize) -> u64 {
        self.rates[rate].exchange_ns
    }

    fn prob(&self, rate: usize) -> u32 {
        u32::from(self.stats[rate].prob_avg)
    }

    /// `minstrel_ht_get_tp_avg` for a legacy rate (no aggregation): frames per unit time,
    /// in the kernel's units and integer arithmetic (ties between rates decide the order).
    fn tp_avg(&self, rate: usize) -> u64 {
        let prob = self.prob(rate);
        if prob < PROB_10 {
            return 0;
        }
        let prob = u64::from(prob.min(PROB_90));
        (100 * (prob * 1_000_000 / self.duration(rate))) >> SCALE
    }

    /// `minstrel_ht_sort_best_tp_rates`: inserts `rate` into `list` (best first) if it beats
    /// an entry, by throughput and then by probability.
    fn sort_best_tp_rates(&self, rate: usize, list: &mut [usize; MAX_THR_RATES]) {
        let cur_tp = self.tp_avg(rate);
        let cur_prob = self.prob(rate);
        let mut j = MAX_THR_RATES;
        while j > 0 {
            let other = list[j - 1];
            let (tp, prob) = (self.tp_avg(other), self.prob(other));
            if cur_tp < tp || (cur_tp == tp && cur_prob <= prob) {
                break;
            }
            j -= 1;
        }
        if j < MAX_THR_RATES {
            list.copy_within(j..MAX_THR_RATES - 1, j + 1);
            list[j] = rate;
        }
    }

    /// `minstrel_ht_set_best_prob_rate`, the part that decides `max_prob_rate` (the per-group
    /// best-probability rate serves only HT stream reduction).
    fn set_best_prob_rate(&self, dest: &mut usize, rate: usize) {
        let dest_tp = self.tp_avg(*dest);
        let dest_prob = self.prob(*dest);
        let max_tp = self.max_tp_rate[0];
        // A rate faster than max_tp_rate[0] that delivers worse is no fallback.
        if self.duration(max_tp) > self.duration(rate) && self.prob(rate) < self.prob(max_tp) {
            return;
        }
        if self.prob(rate) > PROB_75 {
            // Reliable enough: prefer throughput.
            if self.tp_avg(rate) > dest_tp {
                *dest = rate;
            }
        } else if self.prob(rate) > dest_prob {
            *dest = rate;
        }
    }

    /// `minstrel_ht_update_stats` for a legacy station.
    fn update_stats(&mut self, now_ns: u64) {
        let lowest = self.groups[0].rates[0];
        let mut tp_rates = [lowest; MAX_THR_RATES];
        let mut max_prob = lowest;
        for g in 0..self.groups.len() {
            let members = self.groups[g].rates.clone();
            let mut group_tp_rates = [members[0]; MAX_THR_RATES];
            let mut last_prob = 0;
            for &rate in members.iter().rev() {
                let s = &mut self.stats[rate];
                s.retry_updated = false;
                calc_rate_stats(s);
                // A rate never tried is assumed as good as the best faster rate tried.
                if s.att_hist > 0 {
                    last_prob = last_prob.max(s.prob_avg);
                } else {
                    s.prob_avg = s.prob_avg.max(last_prob);
                }
                if self.tp_avg(rate) == 0 {
                    continue;
                }
                self.sort_best_tp_rates(rate, &mut tp_rates);
                self.sort_best_tp_rates(rate, &mut group_tp_rates);
            }
            self.groups[g].max_group_tp_rate = group_tp_rates;
        }
        // `minstrel_ht_assign_best_tp_rates` merges a separate CCK list only for HT
        // stations; a legacy station sorts every group into the one list.
        self.max_tp_rate = tp_rates;
        for g in 0..self.groups.len() {
            for k in 0..self.groups[g].rates.len() {
                let rate = self.groups[g].rates[k];
                self.set_best_prob_rate(&mut max_prob, rate);
            }
        }
        self.max_prob_rate = max_prob;
        self.refill_sample_rates();
        self.last_stats_update_ns = now_ns;
        // A fresh table may be sampled at once.
        self.sample_time_ns = now_ns;
    }

    /// `minstrel_calc_retransmit`: tries at `rate` that fit the segment size.
    fn calc_retransmit(&mut self, rate: usize) {
        // Per try: the exchange (the kernel's overhead + data time) and, with RTS/CTS, two
        // more ACK-sized frames.
        let per_try = self.duration(rate) / 1000;
        let rts_extra = 2 * self.ack_us;
        let s = &mut self.stats[rate];
        if u32::from(s.prob_avg) < PROB_10 {
            s.retry_count = 1;
            s.retry_count_rtscts = 1;
            return;
        }
        s.retry_count = 2;
        s.retry_count_rtscts = 2;
        s.retry_updated = true;
        // Mean backoff of the first two tries, the window doubling after each.
        let mut cw = CW_MIN;
        let mut ctime = (SLOT_US * cw) >> 1;
        cw = ((cw << 1) | 1).min(CW_MAX);
        ctime += (SLOT_US * cw) >> 1;
        cw = ((cw << 1) | 1).min(CW_MAX);
        let mut tx_time = ctime + 2 * per_try;
        let mut tx_time_rtscts = ctime + 2 * (per_try + rts_extra);
        loop {
            let ctime = (SLOT_US * cw) >> 1;
            cw = ((cw << 1) | 1).min(CW_MAX);
            tx_time += ctime + per_try;
            tx_time_rtscts += ctime + per_try + rts_extra;
            if tx_time_rtscts < SEGMENT_SIZE_US {
                s.retry_count_rtscts += 1;
            }
            if tx_time >= SEGMENT_SIZE_US {
                break;
            }
            s.retry_count += 1;
            if s.retry_count >= MAX_RETRY {
                break;
            }
        }
    }

    /// `minstrel_ht_set_rate`: stage `offset` of the rate table at `rate`.
    fn set_rate(&mut self, offset: usize, rate: usize) -> Stage {
        if !self.stats[rate].retry_updated {
            self.calc_retransmit(rate);
        }
        let s = &self.stats[rate];
        let count = if u32::from(s.prob_avg) < PROB_20 || s.retry_count == 0 {
            2
        } else if offset == 0 {
            s.retry_count
        } else {
            // Fallback stages go out with RTS/CTS in the kernel.
            s.retry_count_rtscts
        };
        Stage { rate, count }
    }

    /// `minstrel_ht_update_rates`: max_tp_rate[0], [1], [2], then max_prob_rate.
    fn update_rates(&mut self) {
        let mut table = self.rate_table;
        for (i, stage) in table.iter_mut().enumerate().take(MAX_RATES - 1) {
            *stage = self.set_rate(i, self.max_tp_rate[i]);
        }
        table[MAX_RATES - 1] = self.set_rate(MAX_RATES - 1, self.max_prob_rate);
        self.rate_table = table;
    }

    /// `minstrel_downgrade_rate`: the best rate of the group below (for a legacy station
    /// OFDM's is CCK; below CCK there is none).
    fn downgrade_rate(&mut self, slot: usize, primary: bool) {
        let group = self.group_of[self.max_tp_rate[slot]];
        if group > 0 {
            let below = &self.groups[group - 1];
            self.max_tp_rate[slot] = below.max_group_tp_rate[if primary { 0 } else { 1 }];
        }
    }

    /// `minstrel_ht_tx_status`, after the frame's attempts were counted.
    fn tx_status(&mut self, now_ns: u64) {
        let mut update = false;
        // "Sudden death" of the best rates within an interval.
        for (slot, primary) in [(0, true), (1, false)] {
            let s = &self.stats[self.max_tp_rate[slot]];
            if s.attempts > 30 && s.success < s.attempts / 4 {
                self.downgrade_rate(slot, primary);
                update = true;
            }
        }
        if now_ns > self.last_stats_update_ns + UPDATE_INTERVAL_NS {
            update = true;
            self.update_stats(now_ns);
        }
        if update {
            self.update_rates();
        }
    }

    /// `minstrel_ht_get_rate`: the chain of a new frame, a probe if sampling is due and a
    /// sample rate is left.
    fn start_frame(&mut self, now_ns: u64) -> Frame {
        let mut frame = Frame {
            stages: self.rate_table,
            probe: false,
        };
        if now_ns < self.sample_time_ns {
            return frame;
        }
        self.sample_time_ns = now_ns + SAMPLE_INTERVAL_NS;
        if let Some(rate) = self.next_sample_rate() {
            frame.stages[0] = Stage { rate, count: 1 };
            frame.probe = true;
        }
        frame
    }

    /// `minstrel_ht_get_sample_rate`: the head of the list the sequence names; the sequence
    /// moves on whether or not that list had one.
    fn next_sample_rate(&mut self) -> Option<usize> {
        let ty = SAMPLE_SEQ[self.sample_seq];
        self.sample_seq = (self.sample_seq + 1) % SAMPLE_SEQ.len();
        self.sample[ty].rates.iter_mut().find_map(Option::take)
    }

    /// `minstrel_ht_refill_sample_rates`.
    fn refill_sample_rates(&mut self) {
        let prob_dur = self.duration(self.max_prob_rate);
        let tp_dur = self.duration(self.max_tp_rate[0]);
        let tp2_dur = self.duration(self.max_tp_rate[1]);
        let fast = tp_dur.min(tp2_dur).min(prob_dur);
        let slow = tp_dur.max(tp2_dur).max(prob_dur);

        let mut i = self.move_sample_rates(INC, fast, slow);
        while i < SAMPLE_RATES {
            let rate = self.next_inc_rate(tp_dur);
            self.sample[INC].rates[i] = rate;
            if rate.is_none() {
                break;
            }
            i += 1;
        }

        let mut i = self.move_sample_rates(JUMP, fast, slow);
        let mut slow_len = self.move_sample_rates(SLOW, fast, slow);
        while i < SAMPLE_RATES {
            let rate = self.next_jump_rate(fast, slow, &mut slow_len);
            self.sample[JUMP].rates[i] = rate;
            if rate.is_none() {
                break;
            }
            i += 1;
        }
    }

    /// `minstrel_ht_move_sample_rates`: drops entries no longer faster (INC, JUMP) or
    /// in between (SLOW) and packs the rest to the front; returns the count it kept.
    /// As in the kernel, an entry that is already in place at the head is left there but
    /// not counted, so the next kept entry, or the refill, overwrites it.
    fn move_sample_rates(&mut self, ty: usize, fast: u64, slow: u64) -> usize {
        let rates = &self.rates;
        let list = &mut self.sample[ty].rates;
        let mut j = 0;
        for i in 0..SAMPLE_RATES {
            let Some(cur) = list[i] else { continue };
            let d = rates[cur].exchange_ns;
            let valid = if ty == SLOW {
                d > fast && d < slow
            } else {
                d < fast
            };
            if !valid {
                list[i] = None;
                continue;
            }
            if i == j {
                continue;
            }
            list[j] = Some(cur);
            j += 1;
            list[i] = None;
        }
        j
    }

    /// `minstrel_ht_find_sample_rate`: whether `rate` is in the list (up to its first gap).
    fn find_sample_rate(&self, ty: usize, rate: usize) -> bool {
        for entry in self.sample[ty].rates {
            match entry {
                Some(r) if r == rate => return true,
                Some(_) => {}
                None => break,
            }
        }
        false
    }

    /// `minstrel_ht_group_min_rate_offset`: position of the slowest rate of `group` faster
    /// than `max_duration`.
    fn group_min_rate_offset(&self, group: usize, max_duration: u64) -> Option<usize> {
        self.groups[group]
            .rates
            .iter()
            .position(|&r| self.duration(r) < max_duration)
    }

    /// `minstrel_ht_next_inc_rate`: groups in turn, the slowest rate faster than
    /// `fast_rate_dur` not already listed.
    fn next_inc_rate(&mut self, fast_rate_dur: u64) -> Option<usize> {
        let n = self.groups.len();
        let mut group = self.sample[INC].group;
        let mut found = None;
        for _ in 0..n {
            group = (group + 1) % n;
            if let Some(k) = self.group_min_rate_offset(group, fast_rate_dur) {
                let rate = self.groups[group].rates[k];
                if !self.find_sample_rate(INC, rate) {
                    found = Some(rate);
                    break;
                }
            }
        }
        self.sample[INC].group = group;
        found
    }

    /// `minstrel_ht_next_group_sample_rate`: the next entry of the group's walk through the
    /// sample table at or above position `offset`.
    fn next_group_sample_rate(&mut self, group: usize, offset: usize) -> Option<usize> {
        let table = &self.sample_table;
        let g = &mut self.groups[group];
        for _ in 0..GROUP_RATES {
            let idx = usize::from(table[g.column][g.index]);
            g.index += 1;
            if g.index >= GROUP_RATES {
                g.index = 0;
                g.column = (g.column + 1) % SAMPLE_COLUMNS;
            }
            if idx < offset || idx >= g.rates.len() {
                continue;
            }
            return Some(g.rates[idx]);
        }
        None
    }

    /// `minstrel_ht_next_jump_rate`: random rates faster than `fast`; those met on the way
    /// between `fast` and `slow` go to the SLOW list while it has room.
    fn next_jump_rate(&mut self, fast: u64, slow: u64, slow_len: &mut usize) -> Option<usize> {
        let n = self.groups.len();
        let mut max_duration = if *slow_len >= SAMPLE_RATES {
            fast
        } else {
            slow
        };
        let mut group = self.sample[JUMP].group;
        let mut found = None;
        for _ in 0..n {
            group = (group + 1) % n;
            let Some(offset) = self.group_min_rate_offset(group, max_duration) else {
                continue;
            };
            let Some(rate) = self.next_group_sample_rate(group, offset) else {
                continue;
            };
            let d = self.duration(rate);
            let ty = if d < fast { JUMP } else { SLOW };
            if self.find_sample_rate(ty, rate) {
                continue;
            }
            if ty == JUMP {
                found = Some(rate);
                break;
            }
            // Slow rates with a high success probability teach nothing.
            if *slow_len >= SAMPLE_RATES || d >= slow || self.prob(rate) > PROB_95 {
                continue;
            }
            self.sample[SLOW].rates[*slow_len] = Some(rate);
            *slow_len += 1;
            if *slow_len >= SAMPLE_RATES {
                max_duration = fast;
            }
        }
        self.sample[JUMP].group = group;
        found
    }
}

impl RateControl for Minstrel {
    fn name(&self) -> &'static str {
        "minstrel"
    }

    fn rate_for_attempt(&mut self, now_ns: u64, attempt: u32) -> usize {
        self.start(now_ns);
        if attempt == 0 || self.frame.is_none() {
            // Only a first attempt may start a probe (the kernel decides per frame).
            let frame = if attempt == 0 {
                self.start_frame(now_ns)
            } else {
                Frame {
                    stages: self.rate_table,
                    probe: false,
                }
            };
            self.frame = Some(frame);
        }
        let stages = &self.frame.as_ref().expect("frame set above").stages;
        let mut left = attempt;
        for stage in stages {
            let count = u32::from(stage.count);
            if left < count {
                return stage.rate;
            }
            left -= count;
        }
        stages[MAX_RATES - 1].rate
    }

    fn handle_attempt(&mut self, now_ns: u64, rate: usize, acked: bool) {
        self.start(now_ns);
        if let Some(s) = self.stats.get_mut(rate) {
            s.attempts += 1;
            if acked {
                s.success += 1;
            }
        }
    }

    fn handle_frame_done(&mut self, now_ns: u64, _delivered: bool) {
        self.start(now_ns);
        self.tx_status(now_ns);
        self.frame = None;
    }

    fn current_rate(&self) -> usize {
        self.max_tp_rate[0]
    }

    fn attempt_limit(&self) -> Option<u32> {
        Some(self.chain_attempts())
    }
}

/// `minstrel_ht_calc_rate_stats`: folds the interval's counts into the average.
fn calc_rate_stats(s: &mut RateStats) {
    // An interval without attempts leaves the average as it was.
    if let Some(cur_prob) = (s.success << SCALE).checked_div(s.attempts) {
        filter_avg_add(&mut s.prob_avg, &mut s.prob_avg_1, cur_prob);
        s.att_hist += u64::from(s.attempts);
        s.succ_hist += u64::from(s.success);
    }
    s.attempts = 0;
    s.success = 0;
}

/// `minstrel_filter_avg_add`: the second-order low-pass filter of success probabilities.
/// `prev_1` is the average (0: no sample yet), `prev_2` the one before.
fn filter_avg_add(prev_1: &mut u16, prev_2: &mut u16, input: u32) -> u16 {
    // A zero sample counts as the smallest probability: 0 means "no sample yet".
    let input = i32::try_from(input.clamp(1, PROB_ONE)).expect("at most 4096");
    let out_1 = i32::from(*prev_1);
    let out_2 = i32::from(*prev_2);
    let (val, out_1) = if out_1 == 0 {
        (input, input)
    } else {
        let val = (AVG_COEFF1 * input + AVG_COEFF2 * out_1 + AVG_COEFF3 * out_2) >> SCALE;
        // The filter overshoots; the kernel clamps above at 100 % and a negative value to
        // 1 (0 stays 0).
        let val = if val > 1 << SCALE {
            1 << SCALE
        } else if val < 0 {
            1
        } else {
            val
        };
        (val, out_1)
    };
    *prev_2 = u16::try_from(out_1).expect("at most 4096");
    *prev_1 = u16::try_from(val).expect("at most 4096");
    *prev_1
}

/// `ieee80211_frame_duration` of an ACK (10 bytes plus FCS) at `rate`, µs, SIFS included,
/// as `minstrel_ht_update_caps` computes `ack_dur` (short-preamble flag set).
fn ack_duration_us(rate: &RateInfo, cck: bool) -> u64 {
    let rate_100k = (rate.rate_bps / 100_000).max(1);
    let bits: u64 = 8 * (10 + 4);
    if cck {
        10 + 72 + 24 + (bits * 10).div_ceil(rate_100k)
    } else {
        // SIFS + signal extension, preamble, SIGNAL, then 4 µs symbols.
        16 + 16 + 4 + 4 * ((16 + bits + 6) * 10).div_ceil(4 * rate_100k)
    }
}

/// `init_sample_table`: each column a permutation of 0..9, placed by random bytes with
/// linear probing, here from SplitMix64 seeded by `seed`.
fn sample_table(seed: u64) -> [[u8; GROUP_RATES]; SAMPLE_COLUMNS] {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut table = [[u8::MAX; GROUP_RATES]; SAMPLE_COLUMNS];
    for column in &mut table {
        let mut rnd = [0u8; 16];
        rnd[..8].copy_from_slice(&next().to_le_bytes());
        rnd[8..].copy_from_slice(&next().to_le_bytes());
        for (i, &byte) in rnd.iter().take(GROUP_RATES).enumerate() {
            let mut new_idx = (i + usize::from(byte)) % GROUP_RATES;
            while column[new_idx] != u8::MAX {
                new_idx = (new_idx + 1) % GROUP_RATES;
            }
            column[new_idx] = u8::try_from(i).expect("below 10");
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn rates(list: &[(u64, u64)]) -> Vec<RateInfo> {
        list.iter()
            .map(|&(mbps_x10, exchange_us)| RateInfo {
                rate_bps: mbps_x10 * 100_000,
                exchange_ns: exchange_us * 1000,
            })
            .collect()
    }

    /// 802.11g with round exchange times (µs) for hand computation.
    fn ofdm() -> Vec<RateInfo> {
        rates(&[
            (60, 1700),
            (90, 1200),
            (120, 950),
            (180, 670),
            (240, 530),
            (360, 380),
            (480, 300),
            (540, 280),
        ])
    }
    const R6: usize = 0;
    const R9: usize = 1;
    const R12: usize = 2;
    const R18: usize = 3;
    const R24: usize = 4;
    const R36: usize = 5;
    const R48: usize = 6;
    const R54: usize = 7;

    fn cck() -> Vec<RateInfo> {
        rates(&[(10, 10_000), (20, 5_200), (55, 2_100), (110, 1_200)])
    }

    /// One frame at `now`: attempts until acknowledged or `limit`, `ok` deciding each.
    /// Returns the first attempt's rate and whether the frame was a probe.
    fn send(m: &mut Minstrel, now: u64, limit: u32, ok: impl Fn(usize) -> bool) -> (usize, bool) {
        let mut first = None;
        let mut probe = false;
        let mut delivered = false;
        for attempt in 0..limit {
            let rate = m.rate_for_attempt(now, attempt);
            if attempt == 0 {
                first = Some(rate);
                probe = m.is_probe();
            }
            delivered = ok(rate);
            m.handle_attempt(now, rate, delivered);
            if delivered {
                break;
            }
        }
        m.handle_frame_done(now, delivered);
        (first.expect("limit > 0"), probe)
    }

    fn stage(rate: usize, count: u8) -> Stage {
        Stage { rate, count }
    }

    #[test]
    fn filter_average_by_hand() {
        let (mut p1, mut p2) = (0u16, 0u16);
        // first sample taken as it is
        assert_eq!(filter_avg_add(&mut p1, &mut p2, 2048), 2048);
        assert_eq!(p2, 2048);
        // (1173·4096 + 5273·2048 − 2350·2048) >> 12 = 10_790_912 >> 12 = 2634
        assert_eq!(filter_avg_add(&mut p1, &mut p2, 4096), 2634);
        assert_eq!(p2, 2048);
        // a zero sample counts as 1: (1173 + 5273·2634 − 2350·2048) >> 12 = 2216
        assert_eq!(filter_avg_add(&mut p1, &mut p2, 0), 2216);
        assert_eq!(filter_avg_add(&mut p1, &mut p2, 0), 1341);
        assert_eq!(filter_avg_add(&mut p1, &mut p2, 0), 455);
        // (1173 + 5273·455 − 2350·1341) >> 12 < 0: clamped to 1
        assert_eq!(filter_avg_add(&mut p1, &mut p2, 0), 1);
        // full success stays at 100 %, never above
        let (mut p1, mut p2) = (4096u16, 4000u16);
        assert_eq!(filter_avg_add(&mut p1, &mut p2, 4096), 4096);
    }

    #[test]
    fn interval_counts_become_the_first_average() {
        let mut m = Minstrel::new(&ofdm(), 1).unwrap();
        m.rate_for_attempt(0, 0);
        for acked in [true, false, true] {
            m.handle_attempt(0, R24, acked);
        }
        m.handle_frame_done(0, true);
        assert_eq!(m.stats[R24].prob_avg, 0, "no update before 50 ms");
        m.handle_frame_done(UPDATE_INTERVAL_NS, true);
        assert_eq!(m.stats[R24].prob_avg, 0, "due only past 50 ms");
        m.handle_frame_done(UPDATE_INTERVAL_NS + 1, true);
        // (2 << 12) / 3
        assert_eq!(m.stats[R24].prob_avg, 2730);
        assert_eq!((m.stats[R24].att_hist, m.stats[R24].succ_hist), (3, 2));
        assert_eq!(m.stats[R24].attempts, 0);
    }

    #[test]
    fn throughput_ignores_below_10_and_caps_at_90_percent() {
        let mut m = Minstrel::new(&ofdm(), 1).unwrap();
        let mut tp = |prob: u16| {
            m.stats[R48].prob_avg = prob;
            m.tp_avg(R48)
        };
        // FRAC(10, 100) = 409: (100 · (409e6 / 300_000)) >> 12 = 136_300 >> 12 = 33
        assert_eq!(tp(408), 0);
        assert_eq!(tp(409), 33);
        // FRAC(90, 100) = 3686: (100 · 12_286) >> 12 = 299, and no more above it
        assert_eq!(tp(3686), 299);
        assert_eq!(tp(4096), 299);
    }

    #[test]
    fn retry_counts_fill_the_segment_size() {
        // ACK at 6 Mbit/s, OFDM: 16 + 16 + 4 + 4·⌈1340/240⌉ = 60 µs
        let mut m = Minstrel::new(&ofdm(), 1).unwrap();
        assert_eq!(m.ack_us, 60);
        for r in [R9, R48] {
            m.stats[r].prob_avg = 4096;
        }
        // 1200 µs per try, 1320 with RTS/CTS; backoff 67 + 139, then 283, 571 µs:
        // 2 tries 2606; 3rd 4089; 4th 5860 (< 6000, counted); 5th 8207 stops.
        // RTS/CTS: 2846, 4449 (3 tries), 6340 is over.
        m.calc_retransmit(R9);
        assert_eq!(
            (m.stats[R9].retry_count, m.stats[R9].retry_count_rtscts),
            (4, 3)
        );
        // 300 µs: 806, 1389, 2260, 3707 (5 tries), then 6306; RTS/CTS 4307 at 5 tries.
        m.calc_retransmit(R48);
        assert_eq!(
            (m.stats[R48].retry_count, m.stats[R48].retry_count_rtscts),
            (5, 5)
        );
        // The first stage uses the plain count, fallback stages the RTS/CTS one.
        assert_eq!(m.set_rate(0, R9), stage(R9, 4));
        m.stats[R9].retry_updated = false;
        assert_eq!(m.set_rate(1, R9), stage(R9, 3));
        // Below 20 % success: 2 tries whatever fits; below 10 % the count itself is 1.
        m.stats[R9].prob_avg = 800;
        m.stats[R9].retry_updated = false;
        assert_eq!(m.set_rate(0, R9), stage(R9, 2));
        assert_eq!(m.stats[R9].retry_count, 4);
        m.stats[R9].prob_avg = 400;
        m.stats[R9].retry_updated = false;
        assert_eq!(m.set_rate(0, R9), stage(R9, 2));
        assert_eq!(m.stats[R9].retry_count, 1);
        // DSSS ACK at 1 Mbit/s: 10 + 96 + 112 µs
        assert_eq!(Minstrel::new(&cck(), 1).unwrap().ack_us, 218);
    }

    #[test]
    fn update_picks_max_tp_and_max_prob_by_hand() {
        let mut m = Minstrel::new(&ofdm(), 1).unwrap();
        let probs = [4096, 4096, 4096, 4096, 4096, 2048, 3072, 0];
        for (s, p) in m.stats.iter_mut().zip(probs) {
            s.prob_avg = p;
            s.att_hist = 1;
        }
        m.update_stats(100 * MS);
        m.update_rates();
        // tp: 6→52, 9→74, 12→94, 18→134, 24→169, 36 (50 %)→131, 48 (75 %)→250, 54→0
        assert_eq!(m.max_tp_rates(), [R48, R24, R18, R36]);
        // max_prob: 48 is not above 75 %, 36 not either and less likely than 24: the best
        // throughput above 75 % is 24.
        assert_eq!(m.max_prob_rate(), R24);
        assert_eq!(m.current_rate(), R48);
        // Tries: 48 (300 µs) 5; fallback stages by the RTS/CTS count: 24 (530 µs) 5,
        // 18 (670 µs) 4, 24 again 5.
        assert_eq!(
            m.rate_table(),
            [stage(R48, 5), stage(R24, 5), stage(R18, 4), stage(R24, 5)]
        );
        assert_eq!(m.chain_attempts(), 19);
    }

    #[test]
    fn max_prob_prefers_throughput_above_75_percent() {
        let mut m = Minstrel::new(&ofdm(), 1).unwrap();
        // 36 at 80 %: (100 · (3277e6 / 380_000)) >> 12 = 210; 48 at exactly 75 %: 250.
        let probs = [4096, 4096, 4096, 4096, 4096, 3277, 3072, 0];
        for (s, p) in m.stats.iter_mut().zip(probs) {
            s.prob_avg = p;
            s.att_hist = 1;
        }
        m.update_stats(100 * MS);
        m.update_rates();
        assert_eq!(m.max_tp_rates(), [R48, R36, R24, R18]);
        // 36 is above 75 % and beats 24 (169) on throughput; 48 is not above 75 % and
        // less likely than 36.
        assert_eq!(m.max_prob_rate(), R36);
        assert_eq!(m.rate_table()[3].rate, R36);
    }

    #[test]
    fn throughput_ties_go_to_the_likelier_then_the_first_sorted() {
        // b/g: 11 Mbit/s (CCK) and 9 Mbit/s (OFDM) with the same exchange time; rates
        // from 12 Mbit/s up always fail.
        let mut list = cck();
        list.extend(ofdm());
        list.sort_by_key(|r| r.rate_bps);
        let r9 = list.iter().position(|r| r.rate_bps == 9_000_000).unwrap();
        let r11 = list.iter().position(|r| r.rate_bps == 11_000_000).unwrap();
        assert_eq!(list[r9].exchange_ns, list[r11].exchange_ns);
        let run = |p11: u16, p9: u16| {
            let mut m = Minstrel::new(&list, 1).unwrap();
            for (i, s) in m.stats.iter_mut().enumerate() {
                s.att_hist = 1;
                s.prob_avg = if list[i].rate_bps >= 12_000_000 {
                    0
                } else {
                    4096
                };
            }
            m.stats[r11].prob_avg = p11;
            m.stats[r9].prob_avg = p9;
            m.update_stats(100 * MS);
            m.max_tp_rates()
        };
        // Both above 90 %: equal throughput (74); the likelier first.
        assert_eq!(run(3800, 4096)[..2], [r9, r11]);
        assert_eq!(run(4096, 3800)[..2], [r11, r9]);
        // Equal in both: the one sorted first stays first (the CCK group comes first).
        assert_eq!(run(4096, 4096)[..2], [r11, r9]);
    }

    #[test]
    fn slow_samples_skip_rates_above_95_percent() {
        let mut m = Minstrel::new(&ofdm(), 11).unwrap();
        for s in &mut m.stats {
            s.prob_avg = 4096;
        }
        m.stats[R24].prob_avg = 2048;
        m.stats[R48].prob_avg = 2048;
        // Empty lists: a rate already listed is not drawn again.
        m.sample[SLOW].rates = [None; SAMPLE_RATES];
        m.sample[JUMP].rates = [None; SAMPLE_RATES];
        // fast = 48 Mbit/s's time, slow = 9 Mbit/s's: JUMP takes 54 only; SLOW those in
        // between (48 itself included: not faster than fast) at or below 95 %.
        let (fast, slow) = (m.duration(R48), m.duration(R9));
        let mut slow_len = 0;
        let mut jumps = Vec::new();
        for _ in 0..30 {
            jumps.extend(m.next_jump_rate(fast, slow, &mut slow_len));
        }
        let mut slow_rates: Vec<usize> = m.sample[SLOW].rates.iter().flatten().copied().collect();
        slow_rates.sort_unstable();
        assert_eq!(slow_rates, [R24, R48]);
        assert_eq!(slow_len, 2);
        assert!(!jumps.is_empty() && jumps.iter().all(|&r| r == R54));
    }

    #[test]
    fn untried_rates_inherit_the_best_faster_probability() {
        let mut m = Minstrel::new(&ofdm(), 1).unwrap();
        m.stats[R36].prob_avg = 3000;
        m.stats[R36].att_hist = 1;
        m.update_stats(100 * MS);
        assert_eq!(m.stats[R24].prob_avg, 3000);
        assert_eq!(m.stats[R6].prob_avg, 3000);
        assert_eq!(m.stats[R48].prob_avg, 0, "faster rates learn nothing");
        assert_eq!(m.max_tp_rates(), [R36, R24, R18, R12]);
    }

    #[test]
    fn starts_at_the_lowest_rate_with_two_tries_per_stage() {
        let m = Minstrel::new(&ofdm(), 1).unwrap();
        assert_eq!(m.current_rate(), R6);
        assert_eq!(m.rate_table(), [stage(R6, 2); 4]);
        // The INC list holds the next rate up; JUMP rates faster than 6 Mbit/s.
        assert_eq!(m.sample[INC].rates[0], Some(R9));
        assert_eq!(m.sample[INC].rates[1], None);
        assert!(m.sample[JUMP].rates[0].is_some_and(|r| r > R6));
    }

    #[test]
    fn settles_on_the_best_rate_when_one_rate_always_fails() {
        let mut m = Minstrel::new(&ofdm(), 7).unwrap();
        let ok = |rate: usize| rate != R54;
        let mut settled_at = None;
        for t in 0..3000 {
            send(&mut m, t * MS, 7, ok);
            if settled_at.is_none() && m.current_rate() == R48 {
                settled_at = Some(t);
            }
            if settled_at.is_some() {
                assert_eq!(m.current_rate(), R48, "left 48 Mbit/s at {t} ms");
            }
        }
        let settled_at = settled_at.expect("never reached 48 Mbit/s");
        assert!(settled_at <= 500, "took {settled_at} ms");
        assert!(m.success_probability(R54) < 0.1);
        // All rates up to 48 at 100 %: throughput falls with airtime; max_prob is the best
        // rate above 75 %, 48 itself. Tries: 300, 380, 530 µs: 5 each.
        assert_eq!(m.max_tp_rates(), [R48, R36, R24, R18]);
        assert_eq!(m.max_prob_rate(), R48);
        assert_eq!(
            m.rate_table(),
            [stage(R48, 5), stage(R36, 5), stage(R24, 5), stage(R48, 5)]
        );
    }

    #[test]
    fn samples_every_20_ms_restarting_at_each_update() {
        // 802.11b where only 1 Mbit/s works: max_tp stays 1 Mbit/s, INC holds 2 Mbit/s
        // after each refill, JUMP random faster rates, SLOW nothing.
        let mut m = Minstrel::new(&cck(), 3).unwrap();
        let mut probes = Vec::new();
        for t in 0..=205 {
            let jump_head = m.sample[JUMP].rates.iter().flatten().next().copied();
            let (rate, probe) = send(&mut m, t * MS, 7, |r| r == 0);
            if probe {
                probes.push((t, rate));
                let seq = SAMPLE_SEQ[(m.sample_seq + SAMPLE_SEQ.len() - 1) % SAMPLE_SEQ.len()];
                if seq == INC {
                    assert_eq!(rate, 1, "INC at {t} ms: the next rate up");
                } else {
                    assert_eq!(Some(rate), jump_head, "JUMP at {t} ms: the list's head");
                }
            } else {
                assert_eq!(rate, 0);
            }
        }
        assert_eq!(m.current_rate(), 0);
        // Opportunities at 0, 20, 40 ms; updates at 51, 102, 153, 204 ms (past 50 ms since
        // the last) restart the clock: 52, 72, 92; 103, 123, 143; 154, 174, 194; 205.
        // The lists in turn: INC, JUMP, INC (spent at 0), JUMP, INC, SLOW (empty), INC,
        // JUMP, INC (spent at 103), JUMP, INC, SLOW, INC.
        let times: Vec<u64> = probes.iter().map(|&(t, _)| t).collect();
        assert_eq!(times, [0, 20, 52, 72, 103, 123, 154, 174, 205]);
        // a probe tries its rate once, then the chain goes on at max_tp_rate[1]
        assert_eq!(m.rate_table()[1].rate, 0);
    }

    #[test]
    fn probe_takes_the_first_stage_with_one_try() {
        let mut m = Minstrel::new(&cck(), 3).unwrap();
        assert_eq!(m.rate_for_attempt(0, 0), 1);
        assert!(m.is_probe());
        assert_eq!(m.chain_attempts(), 1 + 2 + 2 + 2);
        assert_eq!(m.rate_for_attempt(0, 1), 0);
        assert_eq!(m.rate_for_attempt(0, 6), 0);
        // past the chain: its last stage
        assert_eq!(m.rate_for_attempt(0, 9), 0);
        m.handle_frame_done(0, false);
        // the next frame, within 20 ms: no probe
        assert_eq!(m.rate_for_attempt(MS, 0), 0);
        assert!(!m.is_probe());
    }

    #[test]
    fn sudden_death_falls_to_the_group_below() {
        // b/g: CCK group (1..11) then OFDM (6..54).
        let mut list = cck();
        list.extend(ofdm());
        list.sort_by_key(|r| r.rate_bps);
        let mut m = Minstrel::new(&list, 5).unwrap();
        for s in &mut m.stats {
            s.prob_avg = 4096;
            s.att_hist = 1;
        }
        m.start(0);
        m.update_stats(0);
        m.update_rates();
        let r54 = list.len() - 1;
        let r11 = list.iter().position(|r| r.rate_bps == 11_000_000).unwrap();
        assert_eq!(m.current_rate(), r54);
        // 31 failures at 54 Mbit/s within the interval
        m.rate_for_attempt(MS, 0);
        for _ in 0..31 {
            m.handle_attempt(MS, r54, false);
        }
        m.handle_frame_done(MS, false);
        assert_eq!(m.current_rate(), r11, "CCK's best rate");
        assert_eq!(m.rate_table()[0].rate, r11);
    }

    #[test]
    fn list_compaction_loses_an_entry_left_at_the_head() {
        let mut m = Minstrel::new(&ofdm(), 1).unwrap();
        m.sample[JUMP].rates = [Some(R48), Some(R54), None, None, None];
        let kept = m.move_sample_rates(JUMP, m.duration(R36), m.duration(R6));
        assert_eq!(kept, 1);
        assert_eq!(m.sample[JUMP].rates, [Some(R54), None, None, None, None]);
        // entries behind a consumed head are packed forward
        m.sample[JUMP].rates = [None, Some(R48), Some(R54), None, None];
        assert_eq!(
            m.move_sample_rates(JUMP, m.duration(R36), m.duration(R6)),
            2
        );
        assert_eq!(
            m.sample[JUMP].rates,
            [Some(R48), Some(R54), None, None, None]
        );
        // no longer faster than the fast rate: dropped
        m.sample[JUMP].rates = [None, Some(R36), Some(R54), None, None];
        assert_eq!(
            m.move_sample_rates(JUMP, m.duration(R36), m.duration(R6)),
            1
        );
        assert_eq!(m.sample[JUMP].rates, [Some(R54), None, None, None, None]);
    }

    #[test]
    fn sample_table_columns_are_seeded_permutations() {
        let table = sample_table(42);
        for column in table {
            let mut sorted = column;
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        }
        assert_eq!(table, sample_table(42));
        assert_ne!(table, sample_table(43));
    }

    #[test]
    fn same_seed_same_decisions() {
        let run = |seed| {
            let mut m = Minstrel::new(&ofdm(), seed).unwrap();
            (0..400)
                .map(|t| send(&mut m, t * MS, 7, |r| r <= R36 || t % 3 == 0))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(9), run(9));
    }

    #[test]
    fn rejects_more_rates_than_a_group_holds() {
        let list: Vec<RateInfo> = (1..=11)
            .map(|i| RateInfo {
                rate_bps: 6_500_000 + i * 1_000_000,
                exchange_ns: 1_000_000 / i,
            })
            .collect();
        assert!(Minstrel::new(&list, 1).unwrap_err().contains("at most 10"));
    }
}
