//! The modulations and convolutional code rates of the OFDM PHYs (802.11a/g, HT, VHT, HE),
//! and which one each legacy OFDM rate uses.
//!
//! - IEEE 802.11-2020 Table 17-4: the eight OFDM rates of 20 MHz channels (6 to 54 Mbit/s).
//! - The non-HT reference rate of a modulation and code rate (§10.6.6.5.2 with Table 10-10,
//!   "Non-HT reference rate", of 802.11-2020): the OFDM rate with the same modulation and
//!   code rate, 54 Mbit/s for 64-QAM 5/6 and the denser constellations of VHT and HE. A
//!   control response to an HT, VHT or HE PPDU goes at the highest mandatory rate not above it.

/// A subcarrier's constellation, Gray coded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Constellation {
    Bpsk,
    Qpsk,
    Qam16,
    Qam64,
    /// VHT MCS 8 and 9, HE MCS 8 and 9.
    Qam256,
    /// HE MCS 10 and 11.
    Qam1024,
}

impl Constellation {
    /// N_BPSCS: coded bits a subcarrier carries per symbol.
    pub fn bits(self) -> u32 {
        match self {
            Constellation::Bpsk => 1,
            Constellation::Qpsk => 2,
            Constellation::Qam16 => 4,
            Constellation::Qam64 => 6,
            Constellation::Qam256 => 8,
            Constellation::Qam1024 => 10,
        }
    }
}

/// The rate of the K = 7 convolutional code (generators 133, 171 octal) and its puncturings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CodeRate {
    Half,
    TwoThirds,
    ThreeQuarters,
    /// HT MCS 7, VHT and HE MCS 7, 9 and 11.
    FiveSixths,
}

impl CodeRate {
    /// The rate as (numerator, denominator).
    pub fn ratio(self) -> (u32, u32) {
        match self {
            CodeRate::Half => (1, 2),
            CodeRate::TwoThirds => (2, 3),
            CodeRate::ThreeQuarters => (3, 4),
            CodeRate::FiveSixths => (5, 6),
        }
    }
}

/// Table 17-4: the modulation and code rate of each 20 MHz OFDM rate; `None` for a rate
/// OFDM lacks.
pub fn legacy_ofdm(rate_bps: u64) -> Option<(Constellation, CodeRate)> {
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

/// The non-HT reference rate of a modulation and code rate (module doc), in bit/s.
pub fn non_ht_reference_bps(constellation: Constellation, code: CodeRate) -> u64 {
    use CodeRate::*;
    use Constellation::*;
    match (constellation, code) {
        (Bpsk, Half) => 6_000_000,
        (Bpsk, _) => 9_000_000,
        (Qpsk, Half) => 12_000_000,
        (Qpsk, _) => 18_000_000,
        (Qam16, Half) => 24_000_000,
        (Qam16, _) => 36_000_000,
        (Qam64, Half | TwoThirds) => 48_000_000,
        _ => 54_000_000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_rates_are_subcarriers_times_bits_times_code_rate() {
        // 48 data subcarriers, 4 µs symbols: rate = 48 · N_BPSCS · R / 4 µs
        for mbps in [6, 9, 12, 18, 24, 36, 48, 54] {
            let (c, r) = legacy_ofdm(mbps * 1_000_000).unwrap();
            let (num, den) = r.ratio();
            assert_eq!(
                48 * u64::from(c.bits() * num) * 1_000_000 / u64::from(den) / 4,
                mbps * 1_000_000
            );
            assert_eq!(non_ht_reference_bps(c, r), mbps * 1_000_000, "{mbps}");
        }
        assert_eq!(legacy_ofdm(11_000_000), None);
    }

    #[test]
    fn reference_rate_of_the_denser_modes_is_54() {
        assert_eq!(
            non_ht_reference_bps(Constellation::Qam64, CodeRate::FiveSixths),
            54_000_000
        );
        assert_eq!(
            non_ht_reference_bps(Constellation::Qam1024, CodeRate::FiveSixths),
            54_000_000
        );
    }
}
