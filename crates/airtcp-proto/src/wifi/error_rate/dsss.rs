//! 802.11b DSSS and HR-DSSS (CCK) chunk success rates: ns-3's `DsssErrorRateModel` with GSL
//! (module doc of `error_rate` for the sources).
//!
//! Every rate first converts the SINR, measured over ns-3's 22 MHz, to Eb/N0 = SINR · 22 MHz
//! / bit rate: the despreading gain of the 11-chip Barker code at 1 and 2 Mbit/s, and of the
//! 8-chip CCK codewords at 1.375 Msymbol/s carrying 4 (5.5 Mbit/s) or 8 (11 Mbit/s) bits.

use core::f64::consts::{FRAC_1_SQRT_2, PI, SQRT_2};

use super::{erfc, q, Trials};

/// The bandwidth over which ns-3 measures a DSSS signal's SINR (its 802.11b channel width).
const BANDWIDTH_HZ: f64 = 22e6;

/// A chunk's bits as trials at `sinr`; `None` for a rate 802.11b lacks.
pub(super) fn trials(rate_bps: u64, sinr: f64) -> Option<Trials> {
    let eb_n0 = sinr * BANDWIDTH_HZ / rate_bps as f64;
    Some(match rate_bps {
        1_000_000 => Trials::bits(dbpsk_ber(eb_n0)),
        2_000_000 => Trials::bits(dqpsk_ber(eb_n0)),
        // 16 codewords of 4 bits; the symbol's energy is 4·Eb. ns-3 passes its eq. (18) the
        // argument 2·Eb/N0 (its `4.0 * EbN0 / 2.0`) and counts bits/4 symbols.
        //
        // 11 Mbit/s: 256 codewords of 8 bits. ns-3 takes eq. (17) as two independent 16-ary
        // decisions at half the argument, 1 − (1 − P16(e/2))², with e = 8·Eb/N0 / 2 =
        // 4·Eb/N0, and counts bits/8 symbols: (1 − P16(2·Eb/N0))^(2·bits/8), the 5.5 Mbit/s
        // form. With Eb/N0 half as large for the same SINR, an 11 Mbit/s chunk fares as a
        // 5.5 Mbit/s one of the same bits 3 dB weaker.
        5_500_000 | 11_000_000 => cck16(2.0 * eb_n0),
        _ => return None,
    })
}

/// DBPSK with differentially coherent detection: Pb = ½·e^(−Eb/N0) (Proakis eq. 5.2-69).
fn dbpsk_ber(eb_n0: f64) -> f64 {
    0.5 * (-eb_n0).exp()
}

/// DQPSK (Gray-coded, differentially coherent): Ferrari and Corazza's eq. 8,
/// Pb ≈ (√2 + 1)/√(8π√2) · e^(−(2 − √2)·Eb/N0)/√(Eb/N0). An asymptotic form that grows
/// without bound as Eb/N0 → 0; capped at ½ (ns-3 does not cap it: see the module doc).
fn dqpsk_ber(eb_n0: f64) -> f64 {
    let coefficient = (SQRT_2 + 1.0) / (8.0 * PI * SQRT_2).sqrt();
    (coefficient * (-(2.0 - SQRT_2) * eb_n0).exp() / eb_n0.sqrt()).min(0.5)
}

/// Positive nodes and their weights of the 32-point Gauss-Legendre rule on [−1, 1] (the
/// rule is symmetric; numpy.polynomial.legendre.leggauss(32)). Exact for polynomials of
/// degree 63.
const GAUSS_LEGENDRE_32: [(f64, f64); 16] = [
    (0.048307665687738324, 0.09654008851472766),
    (0.1444719615827965, 0.09563872007927471),
    (0.23928736225213706, 0.09384439908080451),
    (0.33186860228212767, 0.09117387869576378),
    (0.42135127613063533, 0.08765209300440378),
    (0.5068999089322294, 0.08331192422694671),
    (0.5877157572407623, 0.07819389578707023),
    (0.6630442669302152, 0.07234579410884834),
    (0.7321821187402897, 0.06582222277636168),
    (0.7944837959679424, 0.058684093478535565),
    (0.84936761373257, 0.05099805926237609),
    (0.8963211557660521, 0.042835898022226836),
    (0.9349060759377397, 0.034273862913021765),
    (0.9647622555875064, 0.025392065309262024),
    (0.9856115115452684, 0.016274394730905743),
    (0.9972638618494816, 0.007018610009470506),
];

/// Half-width of the integration window around the integrand's peak (below).
const WINDOW_HALF_WIDTH: f64 = 6.5;

/// Symbols of 16-ary CCK at argument `e`, each failing with P16(e) (`cck16_symbol_error`):
/// a chunk succeeds with (1 − P16(e))^symbols. A fast path skips the quadrature (some
/// 700 ns) where the union bound P16(e) ≤ Q(β) + 14·Q(β/√2) (the correct output negative,
/// or one of the 7 others larger in magnitude: |N| − v > β for each of its two signs) shows
/// the result to round to 1, as it does for most frames of a simulation (`SinrSuccess`).
fn cck16(e: f64) -> Trials {
    Trials::Cck16 {
        e,
        union_bound: cck16_union_bound(e),
        ln_success: None,
    }
}

fn cck16_union_bound(e: f64) -> f64 {
    let beta = (2.0 * e).sqrt();
    q(beta) + 14.0 * q(beta * FRAC_1_SQRT_2)
}

/// The symbol error probability of 16-ary CCK at argument `e`, Pursley and Royster's eq.
/// (18) as ns-3 evaluates it: with β = √(2e), the probability that the correct correlator
/// output v + β (v standard normal) is positive and larger in magnitude than the other seven
/// (each standard normal) is
///   Pc = ∫_{−β}^{∞} (2Φ(v + β) − 1)^7 φ(v) dv,
/// the correct-decision probability of 8 biorthogonal pairs. ns-3 integrates Pc with GSL's
/// adaptive QAGIU and returns 1 − Pc, which loses every symbol error probability below
/// 1e-16. Here the error probability is the integral: substituting y = v + β,
///   1 − Pc = Q(β) + ∫_0^∞ [1 − (1 − 2Q(y))^7] φ(y − β) dy,
/// the first term for a negative correct output. The integrand is smooth (analytic) on
/// [0, ∞): 1 − (1 − 2Q(y))^7 falls from 1 at y = 0 like 14Q(y), so the integrand is at most
/// about 14·Q(y)·φ(y − β) ≤ (7/π)·e^(−(y − β/2)² − β²/4): it peaks near β/2 with width
/// 1/√2 and, relative to the result (≈ 14·Q(β/√2) for large β), is below 1e-16 more than
/// 6.5 from β/2. One 32-point Gauss-Legendre rule over [max(0, β/2 − 6.5), β/2 + 6.5] then
/// gives a relative error below 1e-9 (2e-12 for symbol error probabilities above 1e-13),
/// checked against a 4000-point rule in the tests' reference values.
pub(super) fn cck16_symbol_error(e: f64) -> f64 {
    let beta = (2.0 * e).sqrt();
    if beta > 60.0 {
        // Q(β/√2) underflows; also keeps an infinite SINR out of the window arithmetic.
        return 0.0;
    }
    let lo = (0.5 * beta - WINDOW_HALF_WIDTH).max(0.0);
    let hi = 0.5 * beta + WINDOW_HALF_WIDTH;
    let (centre, half) = (0.5 * (hi + lo), 0.5 * (hi - lo));
    // 1/√(2π), for the normal density
    let frac_1_sqrt_2pi = FRAC_1_SQRT_2 / PI.sqrt();
    let integrand = |y: f64| {
        // 2Q(y): the probability that a given other correlator beats y in magnitude
        let e = erfc(y * FRAC_1_SQRT_2);
        // 1 − (1 − e)^7 expanded, so that a tiny e is not lost in 1 − e
        let others_win =
            e * (7.0 + e * (-21.0 + e * (35.0 + e * (-35.0 + e * (21.0 + e * (-7.0 + e))))));
        others_win * (-0.5 * (y - beta) * (y - beta)).exp() * frac_1_sqrt_2pi
    };
    let mut sum = 0.0;
    for (x, w) in GAUSS_LEGENDRE_32 {
        sum += w * (integrand(centre - half * x) + integrand(centre + half * x));
    }
    q(beta) + half * sum
}

#[cfg(test)]
mod tests {
    use super::super::tests::assert_close_to_ns3;
    use super::super::{success_rate as chunk_success, Family};
    use super::*;

    /// (rate bit/s, linear SINR, bits, ns-3's success rate): 7 SINRs around each rate's 50 %
    /// point for 1528 bytes (−4, −1, −0.25, 0, +0.25, +1, +4 dB) and 14- and 1528-byte
    /// chunks, from ns-3 3.44 (PyPI `ns3`, built with GSL) by the script in
    /// `error_rate::tests::assert_close_to_ns3`.
    const NS3_REFERENCE: [(u64, f64, u64, f64); 56] = [
        (1000000, 0.16443717232149316, 112, 0.22011864305311366),
        (1000000, 0.16443717232149316, 12224, 1.8017227539393717e-72),
        (1000000, 0.328095293113119, 112, 0.9597652583255184),
        (1000000, 0.328095293113119, 12224, 0.011309408688639612),
        (1000000, 0.38994198667654345, 112, 0.9895231418469518),
        (1000000, 0.38994198667654345, 12224, 0.31679309652690557),
        (1000000, 0.4130475019901614, 112, 0.9936850213308335),
        (1000000, 0.4130475019901614, 12224, 0.5008642002989223),
        (1000000, 0.4375221051582521, 112, 0.9963094001024484),
        (1000000, 0.4375221051582521, 12224, 0.667946136344863),
        (1000000, 0.519995996533516, 112, 0.9993977625396081),
        (1000000, 0.519995996533516, 12224, 0.9363651907265568),
        (1000000, 1.0375284158180127, 112, 0.9999999931586014),
        (1000000, 1.0375284158180127, 12224, 0.9999992533104932),
        (2000000, 0.4688133821452652, 112, 0.3760379688925308),
        (2000000, 0.4688133821452652, 12224, 4.360877858641528e-47),
        (2000000, 0.9354056741475519, 112, 0.966470818007623),
        (2000000, 0.9354056741475519, 12224, 0.024180058375369504),
        (2000000, 1.1117317272815912, 112, 0.9900081966751237),
        (2000000, 1.1117317272815912, 12224, 0.3341989752693653),
        (2000000, 1.1776059735208073, 112, 0.9936381245163679),
        (2000000, 1.1776059735208073, 12224, 0.49829083114457234),
        (2000000, 1.247383514242943, 112, 0.9960523506915491),
        (2000000, 1.247383514242943, 12224, 0.6493974104521312),
        (2000000, 1.4825180851459536, 112, 0.9992029097879773),
        (2000000, 1.4825180851459536, 12224, 0.9166483182114225),
        (2000000, 2.958012466551546, 112, 0.9999999580633636),
        (2000000, 2.958012466551546, 12224, 0.9999954229260629),
        (5500000, 0.8531001140175895, 112, 0.2937009699582782),
        (5500000, 0.8531001140175895, 12224, 8.426999924489936e-59),
        (5500000, 1.7021585083949506, 112, 0.9615652389488781),
        (5500000, 1.7021585083949506, 12224, 0.013875629244151583),
        (5500000, 2.0230191786782714, 112, 0.9895834403795086),
        (5500000, 2.0230191786782714, 12224, 0.31890699220057367),
        (5500000, 2.1428906011200586, 112, 0.9936331456044271),
        (5500000, 2.1428906011200586, 12224, 0.4980183937298335),
        (5500000, 2.269864851883822, 112, 0.9962252181740037),
        (5500000, 2.269864851883822, 12224, 0.6618144674153992),
        (5500000, 2.6977394324449206, 112, 0.9993543878911699),
        (5500000, 2.6977394324449206, 12224, 0.9319401285172616),
        (5500000, 5.382697825162884, 112, 0.999999989653475),
        (5500000, 5.382697825162884, 12224, 0.9999988707513406),
        (11000000, 1.7060823890031236, 112, 0.29361621824444395),
        (11000000, 1.7060823890031236, 12224, 8.165692318657157e-59),
        (11000000, 3.404081897010009, 112, 0.9615470555034613),
        (11000000, 3.404081897010009, 12224, 0.013847020326174788),
        (11000000, 4.045758916974426, 112, 0.9895774712841898),
        (11000000, 4.045758916974426, 12224, 0.31869711086700064),
        (11000000, 4.285485203974395, 112, 0.9936292691862961),
        (11000000, 4.285485203974395, 12224, 0.4978063850518627),
        (11000000, 4.539416166502032, 112, 0.9962227787749193),
        (11000000, 4.539416166502032, 12224, 0.6616376197216733),
        (11000000, 5.3951062251512765, 112, 0.9993538909000302),
        (11000000, 5.3951062251512765, 12224, 0.9318895459607569),
        (11000000, 10.76465213629835, 112, 0.9999999896376428),
        (11000000, 10.76465213629835, 12224, 0.9999988690233682),
    ];

    #[test]
    fn matches_ns3() {
        for (rate, sinr, bits, want) in NS3_REFERENCE {
            let got = chunk_success(Family::Dsss, rate, sinr, bits);
            // GSL's error in ns-3's 16-ary CCK decision: 1.54e-12 at the +4 dB points (its
            // 1 − Pc is 3.6952e-10 at 5.5 Mbit/s, SINR 5.3827, where the 4000-point rule of
            // `cck16_symbol_error_against_a_dense_rule` gives 3.7106e-10, as this module
            // does), 6e-16 elsewhere;
            // bits/4 such decisions at either rate.
            let ns3_symbol_error = if rate > 2_000_000 { 2e-12 } else { 0.0 };
            assert_close_to_ns3(got, want, ns3_symbol_error, (rate, sinr, bits));
        }
    }

    #[test]
    fn union_bound_bounds_and_is_tight_at_high_snr() {
        for i in 0..=600 {
            let e = 0.1 * f64::from(i);
            let (exact, bound) = (cck16_symbol_error(e), cck16_union_bound(e));
            assert!(bound >= exact, "e = {e}: {bound:e} < {exact:e}");
            if e >= 30.0 {
                assert!(bound < 1.01 * exact, "e = {e}: {bound:e} vs {exact:e}");
            }
        }
        // the fast path's threshold: success rounds to 1 below it, not above it
        let all_succeed = |p: f64| super::super::all_succeed(super::super::ln_success_of(p), 1.0);
        assert_eq!(all_succeed(1e-17), 1.0);
        assert!(all_succeed(1e-16) < 1.0);
    }

    #[test]
    fn gauss_legendre_rule_is_exact_to_degree_63() {
        for k in 0..32 {
            let sum: f64 = GAUSS_LEGENDRE_32
                .iter()
                .map(|(x, w)| 2.0 * w * x.powi(2 * k))
                .sum();
            let want = 2.0 / f64::from(2 * k + 1);
            assert!((sum - want).abs() < 1e-14, "x^{}: {sum} vs {want}", 2 * k);
        }
    }

    #[test]
    fn cck16_symbol_error_against_a_dense_rule() {
        // (e, 1 − Pc) by the same integral with a 4000-point Gauss-Legendre rule over
        // [0, β + 12] and 1 − (1 − 2Q)^7 as −expm1(7·log1p(−2Q)) (SciPy), which agrees with
        // scipy.integrate.quad on ns-3's form ∫(2Φ(v+β)−1)^7 φ(v) dv to 1e-12 where
        // 1 − Pc > 1e-7.
        let cases = [
            (0.0, 0.9375), // (2Φ(v) − 1 is uniform on v > 0: Pc = ½ · 1/8)
            (0.008, 0.9221338552621433),
            (0.4, 0.766764230178334),
            (2.4, 0.336939321876645),
            (8.0, 0.023998797740658044),
            (16.0, 0.00041110175244573515),
            (32.0, 1.07425212250892e-07),
            // 5.5 Mbit/s at SINR 5.382697825162884 (8·SINR), where ns-3 gives 3.6952e-10
            (43.06158260130307, 3.7105991752644724e-10),
            (64.0, 8.709195023731681e-15),
            (120.0, 4.4282477795314455e-27),
            (240.0, 2.75298322554311e-53),
        ];
        for (e, want) in cases {
            let got = cck16_symbol_error(e);
            let tolerance = if want > 1e-13 { 2e-12 } else { 1e-9 };
            assert!(
                (got / want - 1.0).abs() < tolerance,
                "e = {e}: {got:e}, want {want:e}"
            );
        }
        assert_eq!(cck16_symbol_error(f64::INFINITY), 0.0);
    }

    #[test]
    fn dqpsk_ber_is_ns3s_up_to_one_half() {
        // ns-3's DsssErrorRateModel::DqpskFunction(x) for x = 2, 0.45, 0.41 (3.44, the
        // command in `error_rate::tests::assert_close_to_ns3` with
        // print(repr(ns.DsssErrorRateModel.DqpskFunction(x))))
        for (eb_n0, ns3) in [
            (2.0, 0.08873105063295493),
            (0.45, 0.4637781478600365),
            (0.41, 0.49739425304506557),
        ] {
            let got = dqpsk_ber(eb_n0);
            assert!((got / ns3 - 1.0).abs() < 1e-15, "{eb_n0}: {got} vs {ns3}");
        }
        // ns-3 below 0.407: 0.5065 at 0.40, 1.2077 at 0.1, where its success rate for 3 bits is
        // −0.009
        assert_eq!(dqpsk_ber(0.40), 0.5);
        assert_eq!(dqpsk_ber(0.1), 0.5);
        assert_eq!(dqpsk_ber(0.0), 0.5);
    }

    #[test]
    fn eleven_mbps_is_five_and_a_half_three_db_weaker() {
        for sinr in [0.5, 1.0, 2.0, 4.0] {
            for bits in [8, 112, 12224] {
                let fast = chunk_success(Family::Dsss, 11_000_000, sinr, bits);
                let slow = chunk_success(Family::Dsss, 5_500_000, sinr / 2.0, bits);
                assert!(
                    (fast - slow).abs() <= 1e-14 * slow,
                    "{sinr} {bits}: {fast} {slow}"
                );
            }
        }
    }
}
