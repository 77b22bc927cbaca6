//! Bianchi's saturation model of DCF (G. Bianchi, "Performance Analysis of the IEEE 802.11
//! Distributed Coordination Function", IEEE JSAC 18(3), 2000), as he published it and, in
//! `standard_dcf`, refined to the standard's rules as this simulator's MAC runs them.
//!
//! Each of `n` saturated stations transmits in a slot with probability τ; a transmission
//! collides with probability p = 1 − (1 − τ)^(n−1). τ follows from the renewal form of his
//! Markov chain: in backoff stage i a station spends (W_i + 1)/2 slots on average (W_i
//! counter values, the transmission slot included) and reaches stage i with probability p^i,
//! so τ = Σ p^i / Σ p^i (W_i + 1)/2 with W_i = min(2^i W, W_max). With unlimited retries this
//! is exactly his eq. (7); with a retry limit it is the finite-retry chain (Wu et al. 2002).
//! Throughput is eq. (13): S = Ps·Ptr·E[P] / ((1 − Ptr)σ + Ptr·Ps·Ts + Ptr·(1 − Ps)·Tc).
//! With A-MPDU aggregation and no channel errors an A-MPDU is the model's frame
//! (`Params::for_ampdu`), as in the Bianchi-style model of 802.11ax aggregation ns-3 ships as
//! a reference (src/wifi/examples/reference/bianchi11ax.py, Yin and Deronne, 2020), which
//! answers A-MPDUs with a 14-byte ACK and leaves delimiter padding out; here the compressed
//! BlockAck and the padding are counted, with the standard's collision timing.

use serde::Serialize;

use super::edca::EdcaParams;
use super::mcs::{block_ack_bytes, subframe_bytes};
use super::{slots_between, standard_dcf, Modulation, Phy};
use crate::time::seconds;

/// Which DCF to model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollisionTiming {
    /// Bianchi's own: his chain, in which every counter falls in every slot, busy or idle,
    /// and his collision time (eqs. 14 and 15): frame + DIFS + δ for every station, the
    /// frame being the RTS with RTS/CTS and the data frame in basic access.
    Bianchi,
    /// What the standard and this simulator's MAC do (`Phy` module doc, `standard_dcf`):
    /// counters frozen while the medium is busy; the senders of a collision resume DIFS
    /// after their AckTimeout (CTSTimeout), the other stations after EIFS or, without
    /// `eifs_after_collision`, DIFS, the later group joining the count a whole number of
    /// slots later (`slots_between`).
    Mac { eifs_after_collision: bool },
}

/// The chain of a station's backoff the model solves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Chain {
    /// Bianchi's.
    Bianchi,
    /// The standard's (`standard_dcf`), with the slots by which the senders of a collision
    /// join the count after the others (negative: before them).
    Standard { sender_lag_slots: i64 },
}

/// Inputs of the model, times in seconds.
#[derive(Clone, Debug)]
pub struct Params {
    pub payload_bits: f64,
    pub slot: f64,
    pub success_time: f64,
    /// Channel time of a collision: Bianchi's; or, with the standard's chain, until the
    /// stations that did not send resume counting.
    pub collision_time: f64,
    pub chain: Chain,
    /// W = CWmin + 1.
    pub window: u32,
    /// m: CWmax + 1 = 2^m · W.
    pub stages: u32,
    /// Attempts after the first before a frame is dropped; `None` retries forever.
    pub retry_limit: Option<u32>,
    pub bit_rate: f64,
}

impl Params {
    pub fn from_phy(
        phy: &Phy,
        msdu_bytes: u32,
        rts_cts: bool,
        timing: CollisionTiming,
        retry_limit: Option<u32>,
    ) -> Self {
        let (collision, chain) = match timing {
            CollisionTiming::Bianchi => (
                phy.bianchi_collision_time_ns(msdu_bytes, rts_cts),
                Chain::Bianchi,
            ),
            CollisionTiming::Mac {
                eifs_after_collision,
            } => {
                let (frame, rate) = phy.unanswered_frame(msdu_bytes, rts_cts);
                standard_collision(phy, frame, rate, eifs_after_collision)
            }
        };
        let success = phy.success_time_ns(msdu_bytes, rts_cts);
        Params::of_frame(phy, msdu_bytes, (success, collision), chain, retry_limit)
    }

    /// The parameters of a frame carrying `payload_bytes` on `phy`, whose exchange takes
    /// `success_ns` and whose collision `collision_ns`.
    fn of_frame(
        phy: &Phy,
        payload_bytes: u32,
        (success_ns, collision_ns): (u64, u64),
        chain: Chain,
        retry_limit: Option<u32>,
    ) -> Self {
        Params {
            payload_bits: 8.0 * f64::from(payload_bytes),
            slot: seconds(phy.slot_ns),
            success_time: seconds(success_ns),
            collision_time: seconds(collision_ns),
            chain,
            window: phy.cw_min + 1,
            stages: phy.backoff_stages(),
            retry_limit,
            bit_rate: phy.data_rate_bps as f64,
        }
    }

    /// The parameters of the longest A-MPDUs of MSDUs of `msdu_bytes` that the Block Ack
    /// window `ba_window`, `max_ampdu_bytes` and `max_ppdu_ns` allow (`mpdus_per_ampdu`,
    /// `for_ampdu`), and their MPDU count; `None` for a PHY without MCSs.
    pub fn for_longest_ampdu(
        phy: &Phy,
        msdu_bytes: u32,
        ba_window: u16,
        limits: (u32, u64),
        timing: CollisionTiming,
        retry_limit: Option<u32>,
    ) -> Option<(u32, Self)> {
        let mpdus = Self::mpdus_per_ampdu(phy, msdu_bytes, ba_window, limits)?;
        let params = Self::for_ampdu(phy, msdu_bytes, (mpdus, ba_window), timing, retry_limit)?;
        Some((mpdus, params))
    }

    /// The same exchange contended for by an EDCAF with `edca`'s AIFSN and contention window
    /// (IEEE 802.11-2020 §10.23.2): every IFS that ends in DIFS ends in AIFS instead (the
    /// others' DIFS or EIFS after a busy period, the senders' after their timeout), so a
    /// success and a collision each last (AIFSN - 2) slots longer; W and m are the AC's.
    pub fn with_edca(self, edca: &EdcaParams) -> Self {
        let extra = (f64::from(edca.aifsn) - 2.0) * self.slot;
        Params {
            success_time: self.success_time + extra,
            collision_time: self.collision_time + extra,
            window: edca.cw_min + 1,
            stages: ((edca.cw_max + 1) / (edca.cw_min + 1)).max(1).ilog2(),
            ..self
        }
    }

    /// The MPDUs a saturated station's A-MPDUs carry: as many MSDUs of `msdu_bytes` as fit
    /// in the Block Ack window `ba_window`, `max_ampdu_bytes` and `max_ppdu_ns` (the limits
    /// the simulator's MAC forms A-MPDUs by); `None` for a PHY without MCSs.
    pub fn mpdus_per_ampdu(
        phy: &Phy,
        msdu_bytes: u32,
        ba_window: u16,
        (max_ampdu_bytes, max_ppdu_ns): (u32, u64),
    ) -> Option<u32> {
        let Modulation::Mcs(setting) = phy.modulation else {
            return None;
        };
        let mpdu = phy.mac_overhead_bytes + msdu_bytes;
        let fits = |k: u32| {
            let psdu = (k - 1) * subframe_bytes(setting.format, mpdu, false)
                + subframe_bytes(setting.format, mpdu, true);
            psdu <= max_ampdu_bytes && phy.psdu_airtime_ns(psdu, phy.data_rate_bps) <= max_ppdu_ns
        };
        Some(
            (2..=u32::from(ba_window))
                .take_while(|&k| fits(k))
                .last()
                .unwrap_or(1),
        )
    }

    /// A saturated station of an aggregating BSS (802.11n/ac/ax): each access sends an
    /// A-MPDU of `mpdus` MPDUs, each an MSDU of `msdu_bytes` in a QoS data frame, answered
    /// by a compressed BlockAck for a window of `ba_window` (an ACK for a lone MPDU), without
    /// RTS/CTS. Without channel errors a collision loses every MPDU of it and a success
    /// delivers them all, so the A-MPDU is the model's frame: its payload the MSDUs
    /// together, its success and collision times the A-MPDU's. `None` for a PHY without
    /// MCSs.
    pub fn for_ampdu(
        phy: &Phy,
        msdu_bytes: u32,
        (mpdus, ba_window): (u32, u16),
        timing: CollisionTiming,
        retry_limit: Option<u32>,
    ) -> Option<Self> {
        let Modulation::Mcs(setting) = phy.modulation else {
            return None;
        };
        let mpdu = phy.mac_overhead_bytes + msdu_bytes;
        let (frame, response) = if mpdus == 1 {
            (phy.data_airtime_ns(msdu_bytes), phy.ack_airtime_ns())
        } else {
            let psdu = (mpdus - 1) * subframe_bytes(setting.format, mpdu, false)
                + subframe_bytes(setting.format, mpdu, true);
            (
                phy.psdu_airtime_ns(psdu, phy.data_rate_bps),
                phy.airtime_ns(block_ack_bytes(ba_window), phy.basic_rate_bps),
            )
        };
        let delta = phy.propagation_ns;
        let (collision, chain) = match timing {
            CollisionTiming::Bianchi => (frame + phy.difs_ns() + delta, Chain::Bianchi),
            CollisionTiming::Mac {
                eifs_after_collision,
            } => standard_collision(phy, frame, phy.data_rate_bps, eifs_after_collision),
        };
        let success = frame + delta + phy.sifs_ns + response + delta + phy.difs_ns();
        Some(Params::of_frame(
            phy,
            mpdus * msdu_bytes,
            (success, collision),
            chain,
            retry_limit,
        ))
    }

    pub(super) fn stage_window(&self, stage: u32) -> f64 {
        f64::from(self.window) * 2f64.powi(stage.min(self.stages) as i32)
    }

    /// τ of Bianchi's chain as a function of the conditional collision probability p.
    pub fn tau_given_p(&self, p: f64) -> f64 {
        let mut attempts = 0.0;
        let mut slots = 0.0;
        let mut reach = 1.0;
        let last_explicit = match self.retry_limit {
            Some(limit) => limit,
            None => self.stages,
        };
        for stage in 0..=last_explicit {
            let weight = if self.retry_limit.is_none() && stage == self.stages {
                // Stages ≥ m share W_max: a geometric tail Σ_{i≥m} p^i = p^m / (1 − p).
                reach / (1.0 - p)
            } else {
                reach
            };
            attempts += weight;
            slots += weight * (self.stage_window(stage) + 1.0) / 2.0;
            reach *= p;
        }
        attempts / slots
    }
}

/// The standard's collision of a frame of `frame_ns` sent at `rate_bps` (`CollisionTiming::Mac`):
/// the channel time until the stations that did not send resume counting, and the chain
/// with the slots by which the senders join the count after them.
fn standard_collision(
    phy: &Phy,
    frame_ns: u64,
    rate_bps: u64,
    eifs_after_collision: bool,
) -> (u64, Chain) {
    let busy = frame_ns + phy.propagation_ns;
    let senders = phy.sender_resume_ns(frame_ns, busy);
    let others = if eifs_after_collision {
        phy.eifs_ns(rate_bps)
    } else {
        phy.difs_ns()
    };
    let earliest = senders.min(others);
    let lag = |ifs: u64| slots_between(ifs, earliest, phy.slot_ns);
    let others_lag = lag(others);
    (
        busy + earliest + others_lag * phy.slot_ns,
        Chain::Standard {
            sender_lag_slots: lag(senders) as i64 - others_lag as i64,
        },
    )
}

/// The model's answer for one number of stations.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Point {
    pub stations: u32,
    pub tau: f64,
    pub p: f64,
    /// Fraction of channel time carrying payload bits (Bianchi's S).
    pub throughput: f64,
    pub throughput_bps: f64,
}

/// Solves the fixed point τ = f(p(τ)) by bisection (f decreasing in p, p increasing in τ).
pub fn solve(params: &Params, stations: u32) -> Point {
    let n = f64::from(stations.max(1));
    let collision = |tau: f64| 1.0 - (1.0 - tau).powf(n - 1.0);
    let tau_given_p = |p: f64| match params.chain {
        Chain::Bianchi => params.tau_given_p(p),
        Chain::Standard { sender_lag_slots } => {
            standard_dcf::FrameCycle::new(params, sender_lag_slots, p).tau()
        }
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid - tau_given_p(collision(mid)) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let tau = 0.5 * (lo + hi);
    let p = collision(tau);
    let p_tr = 1.0 - (1.0 - tau).powf(n);
    let p_s = n * tau * (1.0 - tau).powf(n - 1.0) / p_tr;
    let payload_rate = match params.chain {
        Chain::Bianchi => {
            let denominator = (1.0 - p_tr) * params.slot
                + p_tr * p_s * params.success_time
                + p_tr * (1.0 - p_s) * params.collision_time;
            p_s * p_tr * params.payload_bits / denominator
        }
        Chain::Standard { sender_lag_slots } => {
            standard_dcf::FrameCycle::new(params, sender_lag_slots, p)
                .payload_rate(params, n, p_tr, p_s)
        }
    };
    Point {
        stations,
        tau,
        p,
        throughput: payload_rate / params.bit_rate,
        throughput_bps: payload_rate,
    }
}

/// The number of contending stations in `range` that maximises throughput.
pub fn optimal_stations(params: &Params, range: std::ops::RangeInclusive<u32>) -> Point {
    range
        .map(|n| solve(params, n))
        .max_by(|a, b| a.throughput.total_cmp(&b.throughput))
        .expect("range is not empty")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::Preamble;

    fn fhss(window: u32, stages: u32, rts: bool) -> Params {
        Params::from_phy(
            &Phy::bianchi2000(window - 1, stages),
            1023,
            rts,
            CollisionTiming::Bianchi,
            None,
        )
    }

    #[test]
    fn renewal_form_equals_bianchi_eq7() {
        let params = fhss(32, 5, false);
        for p in [0.01, 0.1, 0.3, 0.49, 0.51, 0.7] {
            let (w, m) = (32.0f64, 5);
            let closed = 2.0 * (1.0 - 2.0 * p)
                / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m)));
            let ours = params.tau_given_p(p);
            assert!((ours - closed).abs() < 1e-12, "p={p}: {ours} vs {closed}");
        }
    }

    #[test]
    fn single_station_never_collides() {
        let point = solve(&fhss(32, 3, false), 1);
        assert_eq!(point.p, 0.0);
        assert!((point.tau - 2.0 / 33.0).abs() < 1e-9);
    }

    #[test]
    fn published_fhss_curves() {
        // Values read off Bianchi's Fig. 6 (basic access) and Fig. 9 (RTS/CTS), ±0.015.
        let cases = [
            (32, 3, false, 5, 0.81),
            (32, 3, false, 50, 0.55),
            (32, 5, false, 50, 0.61),
            (128, 3, false, 50, 0.73),
            (32, 3, true, 5, 0.835),
            (32, 3, true, 50, 0.83),
        ];
        for (w, m, rts, n, expect) in cases {
            let s = solve(&fhss(w, m, rts), n).throughput;
            assert!(
                (s - expect).abs() < 0.015,
                "W={w} m={m} rts={rts} n={n}: S={s:.4}, figure {expect}"
            );
        }
    }

    #[test]
    fn optimum_matches_bianchi_eq26_approximation() {
        // τ_opt ≈ 1 / (n·sqrt(Tc*/2)), Tc* = Tc/σ, for large n (his eq. 26).
        let params = fhss(32, 3, false);
        let n = 50.0;
        let tc_star = params.collision_time / params.slot;
        let tau_opt = 1.0 / (n * (tc_star / 2.0).sqrt());
        let best = (1..=20000)
            .map(|k| k as f64 * 1e-6)
            .max_by(|a, b| {
                let s = |tau: f64| {
                    let ptr = 1.0 - (1.0f64 - tau).powf(n);
                    let ps = n * tau * (1.0 - tau).powf(n - 1.0) / ptr;
                    ps * ptr
                        / ((1.0 - ptr) * params.slot
                            + ptr * ps * params.success_time
                            + ptr * (1.0 - ps) * params.collision_time)
                };
                s(*a).total_cmp(&s(*b))
            })
            .unwrap();
        assert!(
            (best - tau_opt).abs() / tau_opt < 0.05,
            "numeric {best} vs eq.26 {tau_opt}"
        );
    }

    #[test]
    fn paper000_optimal_contenders_for_1024_byte_packets() {
        // Paper 000 Fig. 4: about 4 contenders are optimal for 1024-byte packets with basic
        // access on 802.11b, and about 7 with RTS/CTS at any length.
        let phy = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
        let basic = Params::from_phy(
            &phy,
            1024,
            false,
            CollisionTiming::Mac {
                eifs_after_collision: true,
            },
            Some(7),
        );
        let rts = Params::from_phy(
            &phy,
            1024,
            true,
            CollisionTiming::Mac {
                eifs_after_collision: true,
            },
            Some(7),
        );
        let basic_best = optimal_stations(&basic, 1..=100).stations;
        let rts_best = optimal_stations(&rts, 1..=100).stations;
        assert!((2..=6).contains(&basic_best), "basic optimum {basic_best}");
        assert!(
            rts_best > basic_best,
            "RTS/CTS optimum {rts_best} should exceed basic {basic_best}"
        );
    }
}
