//! 802.11a/g OFDM chunk success rates: ns-3's `NistErrorRateModel` (module doc of
//! `error_rate` for the sources).
//!
//! The SINR, over 20 MHz, is taken as each subcarrier's symbol SNR Es/N0, as ns-3 does (no
//! correction for the 52 of 64 subcarriers used or the guard interval); the uncoded bit error
//! probability p of the constellation (Gray coded) follows, then the coded bit error
//! probability after hard-decision Viterbi decoding, bounded by the union over the code's
//! distance spectrum: Pb ≤ 1/(2k) · Σ_d c_d · D^d with D = √(4p(1 − p)) (D^d the Chernoff
//! bound on the probability of preferring a path at Hamming distance d, with the factor ½
//! ns-3 applies), c_d the information-bit weight of the paths at distance d and k the input
//! bits of one puncturing period (rate k/(k + 1)). ns-3 keeps the first 9 (rate 1/2) or 10
//! terms of each spectrum. A chunk of n bits succeeds with probability (1 − min(Pb, 1))^n.

use super::{erfc, Trials};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Constellation {
    Bpsk,
    Qpsk,
    Qam16,
    Qam64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CodeRate {
    Half,
    TwoThirds,
    ThreeQuarters,
}

/// IEEE 802.11-2020 Table 17-4: modulation and coding rate of each OFDM data rate (20 MHz).
fn mode(rate_bps: u64) -> Option<(Constellation, CodeRate)> {
    use CodeRate::*;
    use Constellation::*;
    Some(match rate_bps {
        6_000_000 => (Bpsk, Half),
        9_000_000 => (Bpsk, ThreeQuarters),
        12_000_000 => (Qpsk, Half),
        18_000_000 => (Qpsk, ThreeQuarters),
        24_000_000 => (Qam16, Half),
        36_000_000 => (Qam16, ThreeQuarters),
        48_000_000 => (Qam64, TwoThirds),
        54_000_000 => (Qam64, ThreeQuarters),
        _ => return None,
    })
}

/// A chunk's bits as trials at `sinr`; `None` for a rate 802.11a/g lacks.
pub(super) fn trials(rate_bps: u64, sinr: f64) -> Option<Trials> {
    let (constellation, code) = mode(rate_bps)?;
    Some(Trials::bits(coded_ber(
        uncoded_ber(constellation, sinr),
        code,
    )))
}

/// Bit error probability of the constellation at symbol SNR `snr`, Gray coded:
/// BPSK Q(√(2·snr)); QPSK Q(√snr) (each bit a BPSK on half the symbol's energy); square
/// M-QAM the nearest-neighbour approximation (4/log2 M)(1 − 1/√M)·Q(√(3·snr/(M − 1))),
/// written with erfc: ((√M − 1)/(√M·log2 √M))·erfc(√(snr/(2(M − 1)/3))).
fn uncoded_ber(constellation: Constellation, snr: f64) -> f64 {
    match constellation {
        Constellation::Bpsk => 0.5 * erfc(snr.sqrt()),
        Constellation::Qpsk => 0.5 * erfc((snr / 2.0).sqrt()),
        // M = 16: (4 − 1)/(4·2), 2(M − 1)/3 = 10
        Constellation::Qam16 => 3.0 / 8.0 * erfc((snr / 10.0).sqrt()),
        // M = 64: (8 − 1)/(8·3), 2(M − 1)/3 = 42
        Constellation::Qam64 => 7.0 / 24.0 * erfc((snr / 42.0).sqrt()),
    }
}

/// The 802.11 convolutional code (K = 7, generators 133 and 171 octal) and its punctured
/// rate-2/3 and 3/4 versions: free distance, and the information-bit weights c_d of the paths
/// at distance d_free, d_free + 1, … (rate 1/2: even distances only; its odd ones have no
/// paths). The values ns-3 takes (the NIST report's tables for 1/2 and 2/3, 3/4 as Haccoun and
/// Bégin's punctured codes).
const SPECTRUM_HALF: (i32, [f64; 9]) = (
    10,
    [
        36.0,
        211.0,
        1404.0,
        11633.0,
        77433.0,
        502690.0,
        3322763.0,
        21292910.0,
        134365911.0,
    ],
);
const SPECTRUM_TWO_THIRDS: (i32, [f64; 10]) = (
    6,
    [
        3.0, 70.0, 285.0, 1276.0, 6160.0, 27128.0, 117019.0, 498860.0, 2103891.0, 8784123.0,
    ],
);
const SPECTRUM_THREE_QUARTERS: (i32, [f64; 10]) = (
    5,
    [
        42.0,
        201.0,
        1492.0,
        10469.0,
        62935.0,
        379644.0,
        2253373.0,
        13073811.0,
        75152755.0,
        428005675.0,
    ],
);

/// Σ c_i·x^i over the weights (Horner), times x^first.
fn series(first: i32, weights: &[f64], x: f64) -> f64 {
    weights.iter().rev().fold(0.0, |acc, c| acc * x + c) * x.powi(first)
}

/// Bit error probability after hard-decision Viterbi decoding of a code whose channel bits
/// err with probability `p` (module doc), capped at 1 as in ns-3.
fn coded_ber(p: f64, code: CodeRate) -> f64 {
    let d = (4.0 * p * (1.0 - p)).sqrt();
    let bound = match code {
        // k = 1; distances 10, 12, …, 26: a series in D² from (D²)^5
        CodeRate::Half => 0.5 * series(SPECTRUM_HALF.0 / 2, &SPECTRUM_HALF.1, d * d),
        CodeRate::TwoThirds => {
            series(SPECTRUM_TWO_THIRDS.0, &SPECTRUM_TWO_THIRDS.1, d) / (2.0 * 2.0)
        }
        CodeRate::ThreeQuarters => {
            series(SPECTRUM_THREE_QUARTERS.0, &SPECTRUM_THREE_QUARTERS.1, d) / (2.0 * 3.0)
        }
    };
    bound.min(1.0)
}

#[cfg(test)]
mod tests {
    use super::super::tests::assert_close_to_ns3;
    use super::super::{success_rate as chunk_success, Family};
    use super::*;

    /// (rate bit/s, linear SINR, bits, ns-3's success rate): 7 SINRs around each rate's 50 %
    /// point for 1528 bytes (−4, −1, −0.25, 0, +0.25, +1, +4 dB) and 14- and 1528-byte
    /// chunks, from ns-3 3.44's `NistErrorRateModel` with the ERP-OFDM modes, by the script in
    /// `error_rate::tests::assert_close_to_ns3`.
    const NS3_REFERENCE: [(u64, f64, u64, f64); 112] = [
        (6000000, 0.8770008211436348, 112, 0.0),
        (6000000, 0.8770008211436348, 12224, 0.0),
        (6000000, 1.749846688624657, 112, 0.8181200169951023),
        (6000000, 1.749846688624657, 12224, 3.052111019886714e-10),
        (6000000, 2.0796966871036955, 112, 0.9853100503316106),
        (6000000, 2.0796966871036955, 12224, 0.1988517090585319),
        (6000000, 2.202926463053456, 112, 0.9937218862953662),
        (6000000, 2.202926463053456, 12224, 0.5028963320710383),
        (6000000, 2.333458062281003, 112, 0.997349816080316),
        (6000000, 2.333458062281003, 12224, 0.7485385267315303),
        (6000000, 2.77332010465184, 112, 0.9998273015970062),
        (6000000, 2.77332010465184, 12224, 0.9813261332275129),
        (6000000, 5.533501092157366, 112, 0.999999999965917),
        (6000000, 5.533501092157366, 12224, 0.9999999962800885),
        (9000000, 1.6943378004473284, 112, 0.0),
        (9000000, 1.6943378004473284, 12224, 0.0),
        (9000000, 3.3806483620598162, 112, 0.8362482894235033),
        (9000000, 3.3806483620598162, 12224, 3.33769353476034e-09),
        (9000000, 4.017908108489399, 112, 0.9857664455123359),
        (9000000, 4.017908108489399, 12224, 0.20916064325239472),
        (9000000, 4.2559841313374305, 112, 0.9936679540185762),
        (9000000, 4.2559841313374305, 12224, 0.49992614503826055),
        (9000000, 4.508167045414602, 112, 0.9972004341777877),
        (9000000, 4.508167045414602, 12224, 0.7364005226666032),
        (9000000, 5.357966575133416, 112, 0.9997834833297837),
        (9000000, 5.357966575133416, 12224, 0.9766432845540471),
        (9000000, 10.690548792226577, 112, 0.9999999998764135),
        (9000000, 10.690548792226577, 12224, 0.9999999865114192),
        (12000000, 1.7538805018417614, 112, 0.0),
        (12000000, 1.7538805018417614, 12224, 0.0),
        (12000000, 3.499451670283573, 112, 0.8179425102322633),
        (12000000, 3.499451670283573, 12224, 2.980676511862178e-10),
        (12000000, 4.1591061049402205, 112, 0.9852951253988222),
        (12000000, 4.1591061049402205, 12224, 0.19852322941686773),
        (12000000, 4.405548635065533, 112, 0.9937154424391735),
        (12000000, 4.405548635065533, 12224, 0.502540534889694),
        (12000000, 4.666593803142887, 112, 0.9973470448279711),
        (12000000, 4.666593803142887, 12224, 0.7483115544674235),
        (12000000, 5.546257129579107, 112, 0.9998271029353178),
        (12000000, 5.546257129579107, 12224, 0.9813048521728455),
        (12000000, 11.066237839776663, 112, 0.9999999999658424),
        (12000000, 11.066237839776663, 12224, 0.9999999962719457),
        (18000000, 3.3884415613920256, 112, 0.0),
        (18000000, 3.3884415613920256, 12224, 0.0),
        (18000000, 6.760829753919819, 112, 0.8360900807481236),
        (18000000, 6.760829753919819, 12224, 3.2694751516701933e-09),
        (18000000, 8.035261221856173, 112, 0.9857526137914242),
        (18000000, 8.035261221856173, 12224, 0.20884057100845316),
        (18000000, 8.511380382023766, 112, 0.9936617840105673),
        (18000000, 8.511380382023766, 12224, 0.4995874570401356),
        (18000000, 9.01571137605957, 112, 0.9971976721028541),
        (18000000, 9.01571137605957, 12224, 0.7361779369140811),
        (18000000, 10.715193052376065, 112, 0.9997832510298726),
        (18000000, 10.715193052376065, 12224, 0.9766185178099847),
        (18000000, 21.379620895022324, 112, 0.9999999998761773),
        (18000000, 21.379620895022324, 12224, 0.9999999864856336),
        (24000000, 7.7983011052325875, 112, 0.0),
        (24000000, 7.7983011052325875, 12224, 0.0),
        (24000000, 15.559656316050742, 112, 0.8712259496420571),
        (24000000, 15.559656316050742, 12224, 2.922164960751115e-07),
        (24000000, 18.492686189780777, 112, 0.986456054563153),
        (24000000, 18.492686189780777, 12224, 0.22575008353430748),
        (24000000, 19.5884467350599, 112, 0.9937021314480622),
        (24000000, 19.5884467350599, 12224, 0.501806358777952),
        (24000000, 20.749135174549096, 112, 0.9971107426517157),
        (24000000, 20.749135174549096, 12224, 0.7292065650016709),
        (24000000, 24.660393372343385, 112, 0.9997560335265275),
        (24000000, 24.660393372343385, 12224, 0.9737210169915751),
        (24000000, 49.20395356814511, 112, 0.9999999997755573),
        (24000000, 49.20395356814511, 12224, 0.9999999755036842),
        (36000000, 15.9220872705117, 112, 0.0),
        (36000000, 15.9220872705117, 12224, 0.0),
        (36000000, 31.768740706497706, 112, 0.8680541813926157),
        (36000000, 31.768740706497706, 12224, 1.9625729908377755e-07),
        (36000000, 37.7572190925416, 112, 0.9866218630233565),
        (36000000, 37.7572190925416, 12224, 0.22992939814804586),
        (36000000, 39.994474976109736, 112, 0.9937634057343904),
        (36000000, 39.994474976109736, 12224, 0.5051948183840962),
        (36000000, 42.36429660495411, 112, 0.9971151817368024),
        (36000000, 42.36429660495411, 12224, 0.7295609705493544),
        (36000000, 50.35006087879047, 112, 0.9997441673912905),
        (36000000, 50.35006087879047, 12224, 0.9724604485463179),
        (36000000, 100.46157902783946, 112, 0.9999999996752109),
        (36000000, 100.46157902783946, 12224, 0.999999964551592),
        (48000000, 47.42419852602448, 112, 0.0),
        (48000000, 47.42419852602448, 12224, 0.0),
        (48000000, 94.62371613657935, 112, 0.8796741567577865),
        (48000000, 94.62371613657935, 12224, 8.377719461523668e-07),
        (48000000, 112.46049739669269, 112, 0.9865553082416909),
        (48000000, 112.46049739669269, 12224, 0.22824270848402362),
        (48000000, 119.1242008027375, 112, 0.9936893751547488),
        (48000000, 119.1242008027375, 12224, 0.5011037746503895),
        (48000000, 126.18275345906706, 112, 0.9970741060767867),
        (48000000, 126.18275345906706, 12224, 0.7262880978654843),
        (48000000, 149.9684835502374, 112, 0.9997376510219813),
        (48000000, 149.9684835502374, 12224, 0.9717688867048234),
        (48000000, 299.2264636608189, 112, 0.9999999992670112),
        (48000000, 299.2264636608189, 12224, 0.9999999199995134),
        (54000000, 62.95061828571975, 112, 0.0),
        (54000000, 62.95061828571975, 12224, 0.0),
        (54000000, 125.60299636948741, 112, 0.8863075630402723),
        (54000000, 125.60299636948741, 12224, 1.902031418128994e-06),
        (54000000, 149.2794409578996, 112, 0.9868270001254165),
        (54000000, 149.2794409578996, 12224, 0.23520624692609776),
        (54000000, 158.12480392703827, 112, 0.9936029782669158),
        (54000000, 158.12480392703827, 12224, 0.4963708428135365),
        (54000000, 167.49428760264365, 112, 0.996920299180696),
        (54000000, 167.49428760264365, 12224, 0.7141616101334431),
        (54000000, 199.06733389871863, 112, 0.9996911207913816),
        (54000000, 199.06733389871863, 12224, 0.9668449217409094),
        (54000000, 397.1915494694401, 112, 0.9999999991871693),
        (54000000, 397.1915494694401, 12224, 0.9999999112853398),
    ];

    #[test]
    fn matches_ns3() {
        for (rate, sinr, bits, want) in NS3_REFERENCE {
            let got = chunk_success(Family::Ofdm, rate, sinr, bits);
            assert_close_to_ns3(got, want, 0.0, (rate, sinr, bits));
        }
    }

    #[test]
    fn coded_ber_terms() {
        // At D = 1/8 every term counts (the last ones at 1e-8 of the sum, far above the
        // tolerance); the sums written out, term by term.
        let p = (1.0 - (63.0f64 / 64.0).sqrt()) / 2.0; // 4p(1 − p) = 1/64
        let half: f64 = [
            36.0,
            211.0,
            1404.0,
            11633.0,
            77433.0,
            502690.0,
            3322763.0,
            21292910.0,
            134365911.0,
        ]
        .iter()
        .enumerate()
        .map(|(i, c)| c * 0.125f64.powi(10 + 2 * i as i32))
        .sum();
        let two_thirds: f64 = [
            3.0, 70.0, 285.0, 1276.0, 6160.0, 27128.0, 117019.0, 498860.0, 2103891.0, 8784123.0,
        ]
        .iter()
        .enumerate()
        .map(|(i, c)| c * 0.125f64.powi(6 + i as i32))
        .sum();
        let three_quarters: f64 = [
            42.0,
            201.0,
            1492.0,
            10469.0,
            62935.0,
            379644.0,
            2253373.0,
            13073811.0,
            75152755.0,
            428005675.0,
        ]
        .iter()
        .enumerate()
        .map(|(i, c)| c * 0.125f64.powi(5 + i as i32))
        .sum();
        let cases = [
            (CodeRate::Half, half / 2.0),
            (CodeRate::TwoThirds, two_thirds / 4.0),
            (CodeRate::ThreeQuarters, three_quarters / 6.0),
        ];
        for (code, want) in cases {
            let got = coded_ber(p, code);
            assert!(
                (got / want - 1.0).abs() < 1e-13,
                "{code:?}: {got} vs {want}"
            );
            assert!(want < 1.0, "{code:?}: the cap must not apply here");
        }
        // capped at 1 when the bound exceeds it
        assert_eq!(coded_ber(0.5, CodeRate::Half), 1.0);
        assert_eq!(coded_ber(0.0, CodeRate::ThreeQuarters), 0.0);
    }

    #[test]
    fn uncoded_ber_of_each_constellation() {
        // BPSK at Eb/N0 = 9.6 dB: the textbook 1e-5 (Q(4.265) = 1.0e-5)
        let snr = 10f64.powf(0.96);
        assert!((uncoded_ber(Constellation::Bpsk, snr) - 1.0e-5).abs() < 0.03e-5);
        // QPSK at twice the symbol SNR equals BPSK: same Eb/N0
        assert_eq!(
            uncoded_ber(Constellation::Qpsk, 2.0 * snr),
            uncoded_ber(Constellation::Bpsk, snr)
        );
        // M-QAM at high SNR: (4/log2 M)(1 − 1/√M)·Q(√(3·snr/(M − 1)))
        let q = |x: f64| 0.5 * erfc(x / 2f64.sqrt());
        let s: f64 = 200.0;
        let qam16 = 4.0 / 4.0 * (1.0 - 1.0 / 4.0) * q((3.0 * s / 15.0).sqrt());
        let qam64 = 4.0 / 6.0 * (1.0 - 1.0 / 8.0) * q((3.0 * s / 63.0).sqrt());
        assert!((uncoded_ber(Constellation::Qam16, s) / qam16 - 1.0).abs() < 1e-13);
        assert!((uncoded_ber(Constellation::Qam64, s) / qam64 - 1.0).abs() < 1e-13);
    }

    #[test]
    fn rate_table() {
        use CodeRate::{Half, ThreeQuarters, TwoThirds};
        use Constellation::{Bpsk, Qam16, Qam64, Qpsk};
        let table = [
            (6, Bpsk, Half),
            (9, Bpsk, ThreeQuarters),
            (12, Qpsk, Half),
            (18, Qpsk, ThreeQuarters),
            (24, Qam16, Half),
            (36, Qam16, ThreeQuarters),
            (48, Qam64, TwoThirds),
            (54, Qam64, ThreeQuarters),
        ];
        for (mbps, constellation, code) in table {
            assert_eq!(
                mode(mbps * 1_000_000),
                Some((constellation, code)),
                "{mbps}"
            );
        }
        assert_eq!(mode(11_000_000), None);
    }
}
