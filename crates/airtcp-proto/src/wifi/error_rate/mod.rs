//! Frame (chunk) success probability from SINR for the 802.11 PHYs: the reception
//! model of a simulator that cuts a frame into chunks of constant SINR and takes the product
//! of their success rates (ns-3's `InterferenceHelper`). Closed forms only (one fixed
//! 32-point quadrature for CCK), no allocation: this runs for every chunk of every frame.
//!
//! The models are ns-3's (3.44), re-derived from its sources and the papers they cite:
//!
//! - 802.11b DSSS/HR-DSSS (`dsss`): ns-3's `DsssErrorRateModel`
//!   (src/wifi/model/non-ht/dsss-error-rate-model.cc; G. Pei and T. Henderson, "Validation
//!   of ns-3 802.11b PHY model", 2010). Eb/N0 = SINR · 22 MHz / bit rate (the processing
//!   gain of the 11-chip Barker code at 1 and 2 Mbit/s, of the 8-chip CCK codewords at 1.375
//!   Msymbol/s with 4 or 8 bits a symbol at 5.5 and 11 Mbit/s). DBPSK (1 Mbit/s): BER
//!   ½·e^(−Eb/N0), Proakis, Digital Communications (4th ed., 2001), eq. 5.2-69. DQPSK
//!   (2 Mbit/s): the high-SNR approximation of G. Ferrari and G. E. Corazza, "Tight bounds and
//!   accurate approximations for DQPSK transmission bit error rate", Electronics Letters
//!   40(20):1284-1285, 2004, eq. 8. CCK (5.5, 11 Mbit/s): the symbol error probabilities of
//!   M. B. Pursley and T. C. Royster, "Properties and performance of the IEEE 802.11b
//!   complementary-code-key signal sets", IEEE Trans. Commun. 57(2):440-449, 2009, eqs. (18)
//!   and (17), the integrals ns-3 evaluates with GSL when it is built with it. The PyPI `ns3`
//!   package is: its 11 Mbit/s success rate for 8 bits is 0.028 at SINR 0.05 and below 1 at
//!   SINR 12, where the MATLAB fit ns-3 falls back to without GSL (not implemented here)
//!   gives BER ½ below SINR 0.1 (0.0039) and exactly 1 above SINR 10.
//! - 802.11a/g OFDM (`ofdm`): ns-3's `NistErrorRateModel` (src/wifi/model/
//!   nist-error-rate-model.cc; L. E. Miller, "Validation of 802.11a/UWB Coexistence
//!   Simulation", NIST technical report, 2003, §3.1; G. Pei and T. Henderson, "Validation of
//!   OFDM error rate model in ns-3", 2010). Uncoded BER of BPSK, QPSK, 16-QAM and 64-QAM (Gray
//!   coded, the SINR taken as the symbol SNR), then the hard-decision Viterbi decoder's bit
//!   error probability bounded by the union over the code's distance spectrum with the
//!   Chernoff (Bhattacharyya) bound D = √(4p(1−p)) on each pairwise error, for the K = 7
//!   rate-1/2 code and its rate-2/3 and 3/4 puncturings (C. Hepner, A. Witt and R. Muenzner,
//!   "In depth analysis of the ns-3 physical layer abstraction for WLAN systems", SInCom
//!   2015; D. Haccoun and G. Bégin, "High-rate punctured convolutional codes for Viterbi and
//!   sequential decoding", IEEE Trans. Commun. 37(11), 1989; P. Frenger et al., "Multi-rate
//!   convolutional codes", 1998). ns-3's default for 802.11a/g is its YANS model; the NIST
//!   model is the one it used by default through 3.32 and still offers.
//! - HT, VHT and HE MCSs (`Family::Mcs`): the same NIST model, as ns-3 extends it to them,
//!   with 256- and 1024-QAM in the same square-QAM formula and the rate-5/6 puncturing's
//!   spectrum from Haccoun and Bégin's Table V (free distance 4). ns-3's default for these
//!   since 3.33 is its `TableBasedErrorRateModel`, AWGN tables from link simulations in
//!   MATLAB that are data rather than a model (not reproduced here).
//!
//! A chunk of `bits` succeeds when every bit (DBPSK, DQPSK, OFDM after decoding) or every
//! symbol (CCK: `bits`/4 or `bits`/8 symbols, fractional as in ns-3) does, errors being
//! independent: (1 − p)^n, computed as exp(n·ln(1 − p)) so that a tiny p is not lost to
//! rounding. Additive white Gaussian noise only, with interference counted as noise: no
//! fading, multipath, capture or synchronisation model, and no PHY header: the caller
//! evaluates the preamble and header (1 Mbit/s DBPSK or 2 Mbit/s DQPSK; 6 Mbit/s BPSK in
//! OFDM's SIGNAL field) as their own chunks at their own rate, as ns-3 does.
//!
//! Where this differs from ns-3:
//! - DQPSK: Ferrari and Corazza's approximation is asymptotic; below Eb/N0 = 0.407 (SINR
//!   −14.3 dB) it exceeds ½, below 0.139 (−19.0 dB) it exceeds 1, and ns-3's (1 − BER)^n
//!   then is negative for odd n and above 1 for even n once the BER exceeds 2 (ns-3 gives
//!   −0.009 for 3 bits at Eb/N0 = 0.1, 9.16 for 2 bits at 0.01). Here the BER is capped at
//!   ½, the error rate of a guess, which changes nothing where ns-3's BER is at most ½ (a
//!   chunk of 20 bits or more succeeds with probability below 1e-6 there anyway).
//! - CCK: ns-3 integrates adaptively with GSL (relative tolerance 1e-7) and takes 1 − the
//!   probability of a correct symbol; this module integrates the error probability itself
//!   with a fixed rule (relative error below 1e-9 wherever it is above 1e-15). ns-3's
//!   integration error, up to 1.5e-12 in a symbol's error probability (0.4 % of it at 5.5
//!   Mbit/s and 7.3 dB, where it is 3.7e-10), is the difference: at most 5e-9 relative on a
//!   1528-byte frame's success rate.
//! - A negative or NaN SINR counts as zero; a chunk of no bits always succeeds.

mod dsss;
mod ofdm;

use super::mcs::McsPhy;

/// Which error-rate family a PHY rate belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// 802.11b: DSSS (1, 2 Mbit/s) and HR-DSSS/CCK (5.5, 11 Mbit/s); SINR over 22 MHz.
    Dsss,
    /// 802.11a/g OFDM and ERP-OFDM (6 to 54 Mbit/s); SINR over 20 MHz.
    Ofdm,
    /// An HT, VHT or HE PHY setting: its MCSs by their rates' names (`mcs`), and the
    /// non-HT OFDM rates of its control frames; SINR over the channel width, the same for
    /// every stream (ns-3's `InterferenceHelper` with as many receive antennas as streams:
    /// no diversity gain).
    Mcs(McsPhy),
}

/// Probability that `bits` bits sent at `rate_bps` of `family` all survive at the linear SINR
/// `sinr` (received signal power over noise plus interference, both in the channel bandwidth:
/// 22 MHz for DSSS as ns-3 uses, 20 MHz for OFDM).
///
/// Panics (debug_assert) on a rate the family does not have; a release build returns 0 for
/// it (nothing is decodable at a rate the PHY lacks).
pub fn success_rate(family: Family, rate_bps: u64, sinr: f64, bits: u64) -> f64 {
    SinrSuccess::new(family, rate_bps, sinr).success(bits)
}

/// The success rate of chunks of any length sent at one rate and received at one SINR: the
/// error probability of a bit (or CCK symbol) is worked out once, and a chunk then costs an
/// exponential. A simulator that meets the same SINR in chunks of many lengths (two frames
/// overlapping by varying amounts) keeps these rather than `success_rate`'s results, which
/// it is built on: `success_rate(f, r, s, b)` is `SinrSuccess::new(f, r, s).success(b)`, the
/// same arithmetic to the bit.
#[derive(Clone, Copy, Debug)]
pub struct SinrSuccess(Trials);

/// What a chunk's bits are, as independent trials.
#[derive(Clone, Copy, Debug)]
enum Trials {
    /// Each bit is a trial that succeeds with probability e^`ln_success`.
    Bits { ln_success: f64 },
    /// 16-ary CCK at argument `e` (`dsss`), bits/4 symbols: the union bound on a symbol's
    /// error probability, and the logarithm of its success probability once a chunk has
    /// needed it (the bound settles most chunks without the quadrature).
    Cck16 {
        e: f64,
        union_bound: f64,
        ln_success: Option<f64>,
    },
    /// A rate the family lacks: nothing gets through.
    Undecodable,
}

impl SinrSuccess {
    /// Panics (debug_assert) on a rate the family does not have; in a release build every
    /// chunk at it fails.
    pub fn new(family: Family, rate_bps: u64, sinr: f64) -> Self {
        // f64::max returns the other operand for NaN: a NaN SINR counts as 0.
        let sinr = sinr.max(0.0);
        let trials = match family {
            Family::Dsss => dsss::trials(rate_bps, sinr),
            Family::Ofdm => ofdm::trials(rate_bps, sinr),
            Family::Mcs(phy) => match phy.mcs_of(rate_bps) {
                Some(mcs) => {
                    let (constellation, code) = McsPhy::modulation(mcs);
                    Some(ofdm::mcs_trials(constellation, code, sinr))
                }
                None => ofdm::trials(rate_bps, sinr),
            },
        };
        SinrSuccess(trials.unwrap_or_else(|| {
            debug_assert!(false, "{rate_bps} bit/s is not a {family:?} rate");
            Trials::Undecodable
        }))
    }

    /// The probability that a chunk of `bits` bits survives.
    pub fn success(&mut self, bits: u64) -> f64 {
        let n = bits as f64;
        match &mut self.0 {
            Trials::Bits { ln_success } => all_succeed(*ln_success, n),
            Trials::Cck16 {
                e,
                union_bound,
                ln_success,
            } => {
                let symbols = n / 4.0;
                if symbols * *union_bound < 1e-17 {
                    // 1 − 1e-17 rounds to 1
                    return 1.0;
                }
                let e = *e;
                let ln_success =
                    *ln_success.get_or_insert_with(|| ln_success_of(dsss::cck16_symbol_error(e)));
                all_succeed(ln_success, symbols)
            }
            Trials::Undecodable => 0.0,
        }
    }
}

impl Trials {
    /// Bits that each fail with probability `p`.
    fn bits(p: f64) -> Self {
        Trials::Bits {
            ln_success: ln_success_of(p),
        }
    }
}

/// The search range of `min_sinr_db`, in dB: below −50 dB every rate fails any frame of more
/// than a few bits; at 60 dB every rate's error probability underflows to 0.
const SEARCH_MIN_DB: f64 = -50.0;
const SEARCH_MAX_DB: f64 = 60.0;

/// The lowest SINR in dB at which `bits` bits sent at `rate_bps` of `family` succeed with
/// probability at least `target_success` (in (0, 1]), by bisection to 1e-9 dB on
/// `success_rate`, which grows with SINR: e.g. the SINR at which a 1528-byte MPDU gets
/// through half the time. −50 dB if the target is met there already; at most 60 dB, where
/// every rate succeeds with certainty.
pub fn min_sinr_db(family: Family, rate_bps: u64, bits: u64, target_success: f64) -> f64 {
    debug_assert!(
        target_success > 0.0 && target_success <= 1.0,
        "target success {target_success} is not a probability above 0"
    );
    let meets = |db: f64| success_rate(family, rate_bps, db_to_linear(db), bits) >= target_success;
    if meets(SEARCH_MIN_DB) {
        return SEARCH_MIN_DB;
    }
    // Invariant: the target is missed at `lo` and met at `hi` (at 60 dB every rate's error
    // probability has underflowed to 0, so any target is met).
    let (mut lo, mut hi) = (SEARCH_MIN_DB, SEARCH_MAX_DB);
    while hi - lo > 1e-9 {
        let mid = 0.5 * (lo + hi);
        if meets(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

fn db_to_linear(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// ln(1 − p), the logarithm of a trial's success probability when it fails with probability
/// `p`: ln_1p keeps a p far below 1e-16 that 1 − p would round away.
fn ln_success_of(p: f64) -> f64 {
    (-p).ln_1p()
}

/// The probability that none of `n` independent trials fails, each succeeding with
/// probability e^`ln_success` (`ln_success_of`): (1 − p)^n as exp(n·ln(1 − p)). `n` is a
/// real number: CCK counts bits/4 symbols.
fn all_succeed(ln_success: f64, n: f64) -> f64 {
    if n == 0.0 {
        // ln(1 − 1) · 0 would be NaN; no trial, no failure.
        return 1.0;
    }
    (n * ln_success).exp()
}

/// Gaussian tail probability Q(x) = P(N(0, 1) > x) = ½·erfc(x/√2).
fn q(x: f64) -> f64 {
    0.5 * erfc(x * core::f64::consts::FRAC_1_SQRT_2)
}

/// The complementary error function, by W. J. Cody's rational Chebyshev approximations
/// ("Rational Chebyshev approximations for the error function", Math. Comp. 23(107):631-637,
/// 1969; the coefficients of his SPECFUN routine CALERF, netlib.org/specfun/erf, which
/// approximate erfc to at least 18 significant digits): in f64 the error is the arithmetic's,
/// a few units in the last place (the tests check 2e-15 relative), as accurate as the C
/// library's `erfc` ns-3 uses. std has none.
// Cody's coefficients as he published them, beyond f64's precision.
#[allow(clippy::excessive_precision)]
fn erfc(x: f64) -> f64 {
    // erf on |x| ≤ 0.46875: x·P(x²)/Q(x²).
    const A: [f64; 5] = [
        3.16112374387056560e0,
        1.13864154151050156e2,
        3.77485237685302021e2,
        3.20937758913846947e3,
        1.85777706184603153e-1,
    ];
    const B: [f64; 4] = [
        2.36012909523441209e1,
        2.44024637934444173e2,
        1.28261652607737228e3,
        2.84423683343917062e3,
    ];
    // erfc·e^(x²) on 0.46875 < |x| ≤ 4: P(x)/Q(x).
    const C: [f64; 9] = [
        5.64188496988670089e-1,
        8.88314979438837594e0,
        6.61191906371416295e1,
        2.98635138197400131e2,
        8.81952221241769090e2,
        1.71204761263407058e3,
        2.05107837782607147e3,
        1.23033935479799725e3,
        2.15311535474403846e-8,
    ];
    const D: [f64; 8] = [
        1.57449261107098347e1,
        1.17693950891312499e2,
        5.37181101862009858e2,
        1.62138957456669019e3,
        3.29079923573345963e3,
        4.36261909014324716e3,
        3.43936767414372164e3,
        1.23033935480374942e3,
    ];
    // erfc·e^(x²)·x on |x| > 4: 1/√π − P(1/x²)/(x²·Q(1/x²)).
    const P: [f64; 6] = [
        3.05326634961232344e-1,
        3.60344899949804439e-1,
        1.25781726111229246e-1,
        1.60837851487422766e-2,
        6.58749161529837803e-4,
        1.63153871373020978e-2,
    ];
    const Q: [f64; 5] = [
        2.56852019228982242e0,
        1.87295284992346047e0,
        5.27905102951428412e-1,
        6.05183413124413191e-2,
        2.33520497626869185e-3,
    ];
    const FRAC_1_SQRT_PI: f64 = 5.6418958354775628695e-1;
    // erfc underflows beyond this (Cody's XBIG).
    const X_BIG: f64 = 26.543;

    let y = x.abs();
    if y >= X_BIG {
        // erfc underflows (and an infinite x would make the exponent NaN below)
        return if x < 0.0 { 2.0 } else { 0.0 };
    }
    if y <= 0.468_75 {
        let z = y * y;
        let mut num = A[4] * z;
        let mut den = z;
        for i in 0..3 {
            num = (num + A[i]) * z;
            den = (den + B[i]) * z;
        }
        return 1.0 - x * (num + A[3]) / (den + B[3]);
    }
    let scaled = if y <= 4.0 {
        let mut num = C[8] * y;
        let mut den = y;
        for i in 0..7 {
            num = (num + C[i]) * y;
            den = (den + D[i]) * y;
        }
        (num + C[7]) / (den + D[7])
    } else {
        let z = 1.0 / (y * y);
        let mut num = P[5] * z;
        let mut den = z;
        for i in 0..4 {
            num = (num + P[i]) * z;
            den = (den + Q[i]) * z;
        }
        (FRAC_1_SQRT_PI - z * (num + P[4]) / (den + Q[4])) / y
    };
    // e^(−y²) as e^(−r²)·e^(−(y−r)(y+r)) with r = y rounded down to 1/16: r² is exact, so
    // the rounding error of y² is not amplified by the exponential (Cody's device).
    let r = (16.0 * y).trunc() / 16.0;
    let result = (-r * r).exp() * (-(y - r) * (y + r)).exp() * scaled;
    if x < 0.0 {
        2.0 - result
    } else {
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATES: [(Family, &[u64]); 2] = [
        (Family::Dsss, &[1_000_000, 2_000_000, 5_500_000, 11_000_000]),
        (
            Family::Ofdm,
            &[
                6_000_000, 9_000_000, 12_000_000, 18_000_000, 24_000_000, 36_000_000, 48_000_000,
                54_000_000,
            ],
        ),
    ];
    /// A 1500-byte MSDU in a data frame: 28 bytes of MAC header and FCS.
    const MPDU_1528_BITS: u64 = 8 * 1528;

    /// Asserts that `got` is ns-3's success rate `want` to a relative 1e-9 of the smaller of
    /// the success and the failure probabilities (of 1 − p near 1), give or take ns-3's
    /// rounding of 1 − p before its `pow`.
    ///
    /// The reference tables (`NS3_REFERENCE` in `dsss` and `ofdm`, `NS3_HALF_SUCCESS_DB`
    /// below) are the output of this command (ns-3 3.44 from PyPI, `ns3==3.44.post0`,
    /// built with GSL), run in /work/ns3venv (cppyy's "Failed to materialize symbols" lines
    /// on stderr are harmless):
    ///
    /// ```text
    /// /work/ns3venv/bin/python - <<'EOF'
    /// from ns import ns
    /// m = ns.CreateObject[ns.NistErrorRateModel]()
    /// def mode(r):
    ///     if r in (1, 2, 5.5, 11):
    ///         return getattr(ns.DsssPhy, "GetDsssRate%sMbps" % str(r).replace(".", "_"))()
    ///     return getattr(ns.ErpOfdmPhy, "GetErpOfdmRate%dMbps" % r)()
    /// def p(r, snr, bits):
    ///     tx = ns.WifiTxVector()
    ///     tx.SetMode(mode(r))
    ///     return m.GetChunkSuccessRate(mode(r), tx, snr, bits)
    /// for r in (1, 2, 5.5, 11, 6, 9, 12, 18, 24, 36, 48, 54):
    ///     lo, hi = -30.0, 40.0
    ///     while hi - lo > 1e-10:
    ///         mid = (lo + hi) / 2
    ///         lo, hi = (mid, hi) if p(r, 10 ** (mid / 10), 12224) < 0.5 else (lo, mid)
    ///     print("half", int(r * 1e6), repr(hi))
    ///     for d in (-4, -1, -0.25, 0, 0.25, 1, 4):
    ///         snr = 10 ** ((round(hi, 2) + d) / 10)
    ///         for bits in (112, 12224):
    ///             print(f"({int(r * 1e6)}, {snr!r}, {bits}, {p(r, snr, bits)!r}),")
    /// EOF
    /// ```
    ///
    /// `GetChunkSuccessRate` of any ns-3 error-rate model sends the DSSS modes to
    /// `DsssErrorRateModel`'s static methods, so one NIST model serves both families.
    ///
    /// `ns3_symbol_error` bounds the absolute error of ns-3's probability that one symbol
    /// (of `bits`/4 for CCK) fails, beyond rounding: 0 but for its CCK integration.
    pub(super) fn assert_close_to_ns3(
        got: f64,
        want: f64,
        ns3_symbol_error: f64,
        (rate, sinr, bits): (u64, f64, u64),
    ) {
        let scale = want.min(1.0 - want);
        // ns-3 rounds 1 − p (relative error up to 2⁻⁵³) before raising it to the power n;
        // its result is off by up to n·2⁻⁵³ relative, more than 1e-9·(1 − p) near 1.
        let ns3_rounding = (bits as f64 + 2.0) * f64::EPSILON / 2.0 * want;
        let ns3_integration = bits as f64 / 4.0 * ns3_symbol_error * want;
        assert!(
            (got - want).abs() <= 1e-9 * scale + ns3_rounding + ns3_integration,
            "{rate} bit/s, SINR {sinr}, {bits} bits: {got:e}, ns-3 {want:e} (relative {:e})",
            (got - want) / scale
        );
    }

    #[test]
    fn erfc_matches_reference_values() {
        // SciPy's scipy.special.erfc (Cephes), each checked against the tabulated values of
        // Abramowitz & Stegun table 7.1 where they overlap; one point in each of Cody's
        // three ranges and their borders, on both sides of 0.
        let cases = [
            (-3.0, 1.999_977_909_503_001_5),
            (-1.0, 1.842_700_792_949_714_8),
            (-0.3, 1.328_626_759_459_127_4),
            (0.0, 1.0),
            (0.1, 0.887_537_083_981_715_2),
            (0.468_75, 0.507_386_526_782_062),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_16),
            (2.0, 0.004_677_734_981_047_266),
            (3.9, 3.479_224_859_723_178e-8),
            (4.0, 1.541_725_790_028_002e-8),
            (4.1, 6.700_027_654_084_907_5e-9),
            (5.0, 1.537_459_794_428_034_7e-12),
            (10.0, 2.088_487_583_762_544_6e-45),
            (20.0, 5.395_865_611_607_901e-176),
            (26.0, 5.663_192_408_856_145e-296),
        ];
        for (x, want) in cases {
            let got = erfc(x);
            assert!(
                (got - want).abs() <= 2e-15 * want,
                "erfc({x}) = {got:e}, want {want:e}"
            );
        }
        assert_eq!(erfc(27.0), 0.0, "underflow beyond Cody's XBIG");
        assert_eq!(erfc(-27.0), 2.0);
        assert_eq!(erfc(f64::INFINITY), 0.0);
        assert_eq!(erfc(f64::NEG_INFINITY), 2.0);
        // Q(x) = ½ erfc(x/√2): Q(1.96) = 0.0249979
        assert!((q(1.959_963_984_540_054) - 0.025).abs() < 1e-15);
    }

    #[test]
    fn all_succeed_keeps_tiny_probabilities() {
        // 1 − 1e-18 rounds to 1, so (1 − p)^n would give exactly 1.
        assert_eq!((1.0 - 1e-18f64).powf(1e6), 1.0);
        let all_succeed = |p: f64, n: f64| all_succeed(ln_success_of(p), n);
        let s = all_succeed(1e-18, 1e6);
        // 1 − s = 1e-12, give or take the rounding of s near 1 (1.1e-16)
        assert!((1.0 - s - 1e-12).abs() < 2e-16, "{s}");
        assert_eq!(all_succeed(1.0, 0.0), 1.0);
        assert_eq!(all_succeed(1.0, 3.0), 0.0);
        assert!((all_succeed(0.5, 3.0) - 0.125).abs() < 1e-16);
    }

    #[test]
    fn one_sinr_serves_chunks_of_any_length() {
        for (family, rates) in RATES {
            for &rate in rates {
                for sinr in [0.0, 0.3, 1.0, 2.5, 6.0, 30.0] {
                    let mut at_sinr = SinrSuccess::new(family, rate, sinr);
                    for bits in [0, 1, 48, 8 * 14, 2000, MPDU_1528_BITS, 4 * MPDU_1528_BITS] {
                        let once = success_rate(family, rate, sinr, bits);
                        let kept = at_sinr.success(bits);
                        assert_eq!(once.to_bits(), kept.to_bits(), "{rate} {sinr} {bits}");
                    }
                }
            }
        }
    }

    #[test]
    fn success_grows_with_sinr_and_falls_with_bits() {
        for (family, rates) in RATES {
            for &rate in rates {
                for bits in [1, 8 * 14, MPDU_1528_BITS] {
                    let mut last = 0.0;
                    // −20 to +35 dB in 0.05 dB steps
                    for step in 0..=1100 {
                        let sinr = db_to_linear(-20.0 + 0.05 * f64::from(step));
                        let p = success_rate(family, rate, sinr, bits);
                        assert!((0.0..=1.0).contains(&p), "{rate} {sinr} {bits}: {p}");
                        // CCK's quadrature may wobble in the 16th digit
                        assert!(
                            p >= last - 1e-15,
                            "{family:?} {rate} bit/s, {bits} bits: {p} after {last} at {sinr}"
                        );
                        last = p;
                        let longer = success_rate(family, rate, sinr, 2 * bits);
                        assert!(longer <= p, "{rate} {sinr} {bits}: {longer} > {p}");
                        if p > 1e-6 && p < 1.0 - 1e-6 {
                            // independent bits: twice the bits, the square of the success
                            assert!(
                                (longer / (p * p) - 1.0).abs() < 1e-9,
                                "{rate} {sinr} {bits}: {longer} vs {p}²"
                            );
                        }
                    }
                    assert!(last > 0.999_999, "{rate} bit/s at 35 dB: {last}");
                    let low = success_rate(family, rate, db_to_linear(-20.0), bits.max(100));
                    assert!(low < 1e-6, "{rate} bit/s at −20 dB: {low}");
                }
            }
        }
    }

    #[test]
    fn degenerate_inputs() {
        for (family, rates) in RATES {
            for &rate in rates {
                assert_eq!(success_rate(family, rate, 0.5, 0), 1.0, "{rate}: no bits");
                let zero = success_rate(family, rate, 0.0, 100);
                assert_eq!(success_rate(family, rate, -1.0, 100), zero, "{rate}");
                assert_eq!(success_rate(family, rate, f64::NAN, 100), zero, "{rate}");
                assert!(zero < 1e-9, "{rate}: {zero}");
                assert_eq!(
                    success_rate(family, rate, f64::INFINITY, 100),
                    1.0,
                    "{rate}"
                );
            }
        }
    }

    #[test]
    #[should_panic(expected = "not a Ofdm rate")]
    #[cfg(debug_assertions)]
    fn rejects_a_rate_the_family_lacks() {
        success_rate(Family::Ofdm, 11_000_000, 10.0, 100);
    }

    #[test]
    #[should_panic(expected = "not a Dsss rate")]
    #[cfg(debug_assertions)]
    fn rejects_an_ofdm_rate_for_dsss() {
        success_rate(Family::Dsss, 6_000_000, 10.0, 100);
    }

    /// The SINR (dB) at which a 1528-byte MPDU (1500-byte MSDU) succeeds half the time, per
    /// rate, found with ns-3 itself by bisection to 1e-10 dB (the "half" lines of the script
    /// in `assert_close_to_ns3`).
    const NS3_HALF_SUCCESS_DB: [(Family, u64, f64); 12] = [
        (Family::Dsss, 1_000_000, -3.841_192_324_280_200_4),
        (Family::Dsss, 2_000_000, 0.712_645_237_563_265_3),
        (Family::Dsss, 5_500_000, 3.312_805_318_109_895),
        (Family::Dsss, 11_000_000, 6.323_105_274_750_56),
        (Family::Ofdm, 6_000_000, 3.427_560_891_304_892_8),
        (Family::Ofdm, 9_000_000, 6.290_065_420_880_637),
        (Family::Ofdm, 12_000_000, 6.437_860_847_945_558),
        (Family::Ofdm, 18_000_000, 9.300_365_377_521_302),
        (Family::Ofdm, 24_000_000, 12.918_315_068_072_843),
        (Family::Ofdm, 36_000_000, 16.015_111_312_635_78),
        (Family::Ofdm, 48_000_000, 20.758_957_991_320_13),
        (Family::Ofdm, 54_000_000, 21.993_589_758_621_965),
    ];

    #[test]
    fn half_success_sinr_matches_ns3_and_success_rate() {
        for (family, rate, ns3_db) in NS3_HALF_SUCCESS_DB {
            let db = min_sinr_db(family, rate, MPDU_1528_BITS, 0.5);
            assert!((db - ns3_db).abs() < 1e-6, "{rate}: {db} dB, ns-3 {ns3_db}");
            // consistent with success_rate: met at the answer, missed just below it
            let at = success_rate(family, rate, db_to_linear(db), MPDU_1528_BITS);
            let below = success_rate(family, rate, db_to_linear(db - 1e-6), MPDU_1528_BITS);
            assert!(at >= 0.5 && below < 0.5, "{rate}: {below} → {at}");
            assert!((at - 0.5).abs() < 1e-6, "{rate}: {at}");
        }
    }

    #[test]
    fn faster_rates_need_more_sinr() {
        for (family, rates) in RATES {
            for bits in [8 * 14, MPDU_1528_BITS] {
                for target in [0.1, 0.5, 0.99] {
                    let mut last = f64::NEG_INFINITY;
                    for &rate in rates {
                        let db = min_sinr_db(family, rate, bits, target);
                        assert!(
                            db > last,
                            "{rate} bit/s: {db} dB, not above the slower rate's {last} dB"
                        );
                        last = db;
                    }
                }
            }
        }
    }

    #[test]
    fn min_sinr_db_edges() {
        // a chunk of no bits succeeds at any SINR
        assert_eq!(min_sinr_db(Family::Ofdm, 54_000_000, 0, 0.5), SEARCH_MIN_DB);
        // more bits, or a higher target, need more SINR
        let short = min_sinr_db(Family::Dsss, 11_000_000, 8 * 14, 0.5);
        let long = min_sinr_db(Family::Dsss, 11_000_000, MPDU_1528_BITS, 0.5);
        let sure = min_sinr_db(Family::Dsss, 11_000_000, MPDU_1528_BITS, 0.99);
        assert!(short < long && long < sure, "{short} {long} {sure}");
        // certainty is reached: the error probabilities underflow at high SINR
        let certain = min_sinr_db(Family::Ofdm, 54_000_000, MPDU_1528_BITS, 1.0);
        assert!(certain.is_finite() && certain > sure, "{certain}");
        assert_eq!(
            success_rate(
                Family::Ofdm,
                54_000_000,
                db_to_linear(certain),
                MPDU_1528_BITS
            ),
            1.0
        );
    }
}
