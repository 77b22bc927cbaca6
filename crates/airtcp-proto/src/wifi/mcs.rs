//! The MCS PHYs: 802.11n HT-mixed (IEEE 802.11-2020 clause 19), 802.11ac VHT single-user
//! (clause 21) and 802.11ax HE single-user (IEEE 802.11ax-2021 clause 27): each MCS's
//! modulation and code rate, which combinations exist, data rates and PPDU airtime (TXTIME).
//!
//! - Modulation and coding: HT MCS 0-7 of each stream count (HT MCS = 8·(N_SS − 1) + m,
//!   equal modulation; Tables 19-27 to 19-30), VHT MCS 0-9 (Table 21-29 onwards), HE MCS 0-11
//!   (Table 27-55 onwards): BPSK 1/2, QPSK 1/2 and 3/4, 16-QAM 1/2 and 3/4, 64-QAM 2/3, 3/4
//!   and 5/6, 256-QAM 3/4 and 5/6, 1024-QAM 3/4 and 5/6.
//! - Rates: N_DBPS = ⌊N_SD · N_BPSCS · N_SS · R⌋ bits a symbol (whole for every HT and VHT
//!   combination that exists; the HE tables floor it, e.g. 8166 for MCS 11 in 80 MHz), N_SD
//!   the data subcarriers (52, 108, 234, 468 in 20, 40, 80, 160 MHz for HT and VHT; HE's
//!   242-, 484-, 996- and 2×996-tone RUs: 234, 468, 980, 1960), over T_SYM = 3.2 µs + GI
//!   (0.8 µs, or the short 0.4 µs) for HT and VHT, 12.8 µs + GI (0.8, 1.6 or 3.2 µs) for HE.
//!   A rate is named by its data rate in bit/s rounded to the bit: within one PHY setting
//!   (format, width, GI, streams) N_DBPS grows with the MCS, so no two MCSs share a name, and
//!   no name is a mandatory OFDM rate (6, 12, 24 Mbit/s), which control frames use.
//! - VHT combinations that do not exist (§21.5, N_DBPS or N_DBPS/N_ES not whole): MCS 9 in
//!   20 MHz with 1, 2 or 4 streams, MCS 6 in 80 MHz with 3, MCS 9 in 160 MHz with 3.
//! - TXTIME, all PPDUs coded with BCC without STBC: N_SYM = ⌈(8·L + 16 + 6·N_ES)/N_DBPS⌉
//!   (Equation 19-32; 21-62), L the PSDU's bytes (for VHT and HE the A-MPDU's, APEP_LENGTH),
//!   16 SERVICE bits and 6 tail bits per encoder.
//!   - HT-mixed (§19.4.3): 16 µs L-STF and L-LTF, 4 µs L-SIG, 8 µs HT-SIG, 4 µs HT-STF,
//!     4 µs per HT-LTF (1, 2, 4, 4 for 1-4 streams, Table 19-13), then 4 µs per symbol with
//!     the 0.8 µs GI or 4·⌈3.6·N_SYM/4⌉ µs with the 0.4 µs one (the data field ends on a
//!     4 µs boundary of the legacy L-SIG symbols), plus 6 µs signal extension in 2.4 GHz.
//!   - VHT (§21.4.3): 16 + 4 (L-SIG) + 8 (VHT-SIG-A) + 4 (VHT-STF) + 4 per VHT-LTF (1, 2,
//!     4, 4) + 4 (VHT-SIG-B, in SU PPDUs too), then the data field as HT's. 5 GHz only.
//!   - HE SU (§27.4.3): 16 + 4 (L-SIG) + 4 (RL-SIG) + 8 (HE-SIG-A) + 4 (HE-STF) + one
//!     HE-LTF symbol per stream count as VHT's, each 6.4 µs + GI (2x HE-LTF) with the 0.8
//!     and 1.6 µs GIs and 12.8 + 3.2 µs (4x) with 3.2 µs, then N_SYM·T_SYM; no packet
//!     extension (a nominal packet padding of 0 µs); 6 µs signal extension in 2.4 GHz.
//!   - N_ES, the BCC encoders: HT one per 320 Mbit/s begun (350 with the short GI), VHT one
//!     per 540 (600) with the listed exceptions of Tables 21-30 to 21-61 (with 4 streams or
//!     fewer only 160 MHz MCS 7 with 4 streams: 6, not 5), as the standard's tables give;
//!     HE one (its high rates use LDPC).
//!
//! Not modelled: LDPC (required by HE above 20 MHz and at MCS 10 and 11; its N_SYM has no
//! tail bits and may add an extra symbol: BCC's count is used for every PPDU, as in ns-3),
//! STBC, HT-greenfield, HE extended-range, multi-user and trigger-based PPDUs, packet
//! extension, more than four streams.

use super::modulation::{CodeRate, Constellation};
use super::PhyError;

/// Which of the MCS PHYs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// 802.11n.
    Ht,
    /// 802.11ac.
    Vht,
    /// 802.11ax, single-user PPDUs.
    He,
}

/// The frequency band: 2.4 GHz frames end with a 6 µs signal extension and use a 10 µs
/// SIFS; 5 and 6 GHz ones a 16 µs SIFS and none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Band {
    Ghz2_4,
    Ghz5,
    Ghz6,
}

/// One setting of an MCS PHY: format, channel width, streams, guard interval and band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct McsPhy {
    pub format: Format,
    pub width_mhz: u16,
    /// N_SS, 1 to 4.
    pub streams: u8,
    pub guard_interval_ns: u16,
    pub band: Band,
}

/// The most streams modelled.
pub const MAX_STREAMS: u8 = 4;

impl McsPhy {
    /// The setting, or the parameter at fault (`channel_width`, `spatial_streams`,
    /// `guard_interval`, `band`) and why.
    pub fn new(
        format: Format,
        width_mhz: u16,
        streams: u8,
        guard_interval_ns: u16,
        band: Band,
    ) -> Result<McsPhy, PhyError> {
        let name = format.name();
        let error = |parameter, message: String| Err(PhyError { parameter, message });
        let widths: &[u16] = match format {
            Format::Ht => &[20, 40],
            Format::Vht | Format::He => &[20, 40, 80, 160],
        };
        if !widths.contains(&width_mhz) {
            return error(
                "channel_width",
                format!(
                    "{width_mhz} MHz is not a {name} channel width; expected one of {widths:?} MHz"
                ),
            );
        }
        if !(1..=MAX_STREAMS).contains(&streams) {
            return error(
                "spatial_streams",
                format!("{streams} spatial streams: expected 1 to {MAX_STREAMS}"),
            );
        }
        let gis: &[u16] = match format {
            Format::Ht | Format::Vht => &[800, 400],
            Format::He => &[800, 1600, 3200],
        };
        if !gis.contains(&guard_interval_ns) {
            return error(
                "guard_interval",
                format!("{guard_interval_ns} ns is not a {name} guard interval; expected one of {gis:?} ns"),
            );
        }
        let band_ok = match (format, band) {
            (Format::Ht, Band::Ghz6) | (Format::Vht, Band::Ghz2_4 | Band::Ghz6) => false,
            (Format::He, Band::Ghz2_4) => width_mhz <= 40,
            _ => true,
        };
        if !band_ok {
            return error(
                "band",
                format!(
                    "{name} has no {width_mhz} MHz channels in the {} band",
                    band.name()
                ),
            );
        }
        Ok(McsPhy {
            format,
            width_mhz,
            streams,
            guard_interval_ns,
            band,
        })
    }

    /// The highest MCS of the format (per stream count for HT).
    pub fn max_mcs(&self) -> u8 {
        match self.format {
            Format::Ht => 7,
            Format::Vht => 9,
            Format::He => 11,
        }
    }

    /// Whether MCS `mcs` (HT: 0-7, the MCS of one stream count) exists in this setting.
    pub fn has_mcs(&self, mcs: u8) -> bool {
        if mcs > self.max_mcs() {
            return false;
        }
        !(self.format == Format::Vht
            && matches!(
                (self.width_mhz, mcs, self.streams),
                (20, 9, 1 | 2 | 4) | (80, 6, 3) | (160, 9, 3)
            ))
    }

    /// The MCSs that exist, lowest first.
    pub fn mcs_list(&self) -> impl Iterator<Item = u8> + '_ {
        (0..=self.max_mcs()).filter(|&m| self.has_mcs(m))
    }

    /// The modulation and code rate of MCS `mcs`.
    pub fn modulation(mcs: u8) -> (Constellation, CodeRate) {
        use CodeRate::*;
        use Constellation::*;
        match mcs {
            0 => (Bpsk, Half),
            1 => (Qpsk, Half),
            2 => (Qpsk, ThreeQuarters),
            3 => (Qam16, Half),
            4 => (Qam16, ThreeQuarters),
            5 => (Qam64, TwoThirds),
            6 => (Qam64, ThreeQuarters),
            7 => (Qam64, FiveSixths),
            8 => (Qam256, ThreeQuarters),
            9 => (Qam256, FiveSixths),
            10 => (Qam1024, ThreeQuarters),
            _ => (Qam1024, FiveSixths),
        }
    }

    /// N_SD: the data subcarriers of the channel.
    fn data_subcarriers(&self) -> u32 {
        let index = match self.width_mhz {
            20 => 0,
            40 => 1,
            80 => 2,
            _ => 3,
        };
        match self.format {
            Format::Ht | Format::Vht => [52, 108, 234, 468][index],
            Format::He => [234, 468, 980, 1960][index],
        }
    }

    /// T_SYM in ns, guard interval included.
    pub fn symbol_ns(&self) -> u64 {
        let useful = match self.format {
            Format::Ht | Format::Vht => 3_200,
            Format::He => 12_800,
        };
        useful + u64::from(self.guard_interval_ns)
    }

    /// N_DBPS of MCS `mcs`: data bits per symbol over all streams.
    pub fn data_bits_per_symbol(&self, mcs: u8) -> u64 {
        let (constellation, code) = Self::modulation(mcs);
        let (num, den) = code.ratio();
        let coded =
            u64::from(self.data_subcarriers() * constellation.bits()) * u64::from(self.streams);
        coded * u64::from(num) / u64::from(den)
    }

    /// The data rate of MCS `mcs` in bit/s, rounded to the bit: the rate's name (module doc).
    pub fn rate_bps(&self, mcs: u8) -> u64 {
        let symbol = self.symbol_ns();
        (self.data_bits_per_symbol(mcs) * 1_000_000_000 + symbol / 2) / symbol
    }

    /// The MCS whose rate is named `rate_bps`, if one is.
    pub fn mcs_of(&self, rate_bps: u64) -> Option<u8> {
        self.mcs_list().find(|&m| self.rate_bps(m) == rate_bps)
    }

    /// N_ES: the BCC encoders of MCS `mcs` (module doc).
    pub fn bcc_encoders(&self, mcs: u8) -> u64 {
        let short_gi = self.guard_interval_ns == 400;
        let per_encoder_mbps = match self.format {
            Format::Ht => {
                if short_gi {
                    350
                } else {
                    320
                }
            }
            Format::Vht => {
                if short_gi {
                    600
                } else {
                    540
                }
            }
            Format::He => return 1,
        };
        if self.format == Format::Vht && (self.width_mhz, self.streams, mcs) == (160, 4, 7) {
            return 6;
        }
        // ⌈rate / per encoder⌉ with rate = N_DBPS / T_SYM, in whole numbers
        (self.data_bits_per_symbol(mcs) * 1_000).div_ceil(self.symbol_ns() * per_encoder_mbps)
    }

    /// The long training fields: HT-LTFs, VHT-LTFs, HE-LTFs (1, 2, 4, 4 for 1-4 streams).
    fn training_symbols(&self) -> u64 {
        match self.streams {
            1 => 1,
            2 => 2,
            _ => 4,
        }
    }

    /// Everything of a PPDU before its data field, in ns (module doc).
    pub fn preamble_ns(&self) -> u64 {
        let legacy = 16_000 + 4_000; // L-STF, L-LTF; L-SIG
        legacy
            + match self.format {
                Format::Ht => 8_000 + 4_000 + 4_000 * self.training_symbols(),
                Format::Vht => 8_000 + 4_000 + 4_000 * self.training_symbols() + 4_000,
                Format::He => {
                    let ltf = match self.guard_interval_ns {
                        3_200 => 12_800 + 3_200,
                        gi => 6_400 + u64::from(gi),
                    };
                    4_000 + 8_000 + 4_000 + ltf * self.training_symbols()
                }
            }
    }

    /// The signal extension a PPDU ends with: 6 µs in 2.4 GHz.
    pub fn signal_extension_ns(&self) -> u64 {
        if self.band == Band::Ghz2_4 {
            6_000
        } else {
            0
        }
    }

    /// N_SYM: data symbols of a PSDU of `psdu_bytes` at MCS `mcs`.
    pub fn data_symbols(&self, mcs: u8, psdu_bytes: u32) -> u64 {
        let bits = 8 * u64::from(psdu_bytes) + 16 + 6 * self.bcc_encoders(mcs);
        bits.div_ceil(self.data_bits_per_symbol(mcs))
    }

    /// TXTIME of a PPDU carrying `psdu_bytes` at MCS `mcs`, in ns (module doc).
    pub fn ppdu_ns(&self, mcs: u8, psdu_bytes: u32) -> u64 {
        let symbols = self.data_symbols(mcs, psdu_bytes);
        let data = match self.format {
            Format::Ht | Format::Vht if self.guard_interval_ns == 400 => {
                (3_600 * symbols).div_ceil(4_000) * 4_000
            }
            _ => symbols * self.symbol_ns(),
        };
        self.preamble_ns() + data + self.signal_extension_ns()
    }
}

/// An A-MPDU subframe's delimiter (§9.7.1).
pub const DELIMITER_BYTES: u32 = 4;

/// The bytes a subframe carrying an MPDU of `mpdu_bytes` adds to an A-MPDU of `format`: the
/// delimiter and the MPDU padded to 4 bytes, except the `last` of an HT A-MPDU (§9.7.1; VHT
/// and HE pad every subframe before their EOF padding).
pub fn subframe_bytes(format: Format, mpdu_bytes: u32, last: bool) -> u32 {
    let padded = if last && format == Format::Ht {
        mpdu_bytes
    } else {
        mpdu_bytes.next_multiple_of(4)
    };
    DELIMITER_BYTES + padded
}

/// A compressed BlockAck frame for a window of `window` MPDUs: Frame Control, Duration, RA,
/// TA, BA Control, Starting Sequence Control, the bitmap and the FCS (§9.3.1.8.2). The
/// bitmap is 8 bytes (64 MPDUs) or, for a window above 64, 32 bytes (256 MPDUs, 802.11ax
/// §9.3.1.8.2's compressed BlockAck with its Fragment Number subfield set so).
pub fn block_ack_bytes(window: u16) -> u32 {
    24 + if window <= 64 { 8 } else { 32 }
}

impl Format {
    /// The amendment's name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Ht => "802.11n",
            Format::Vht => "802.11ac",
            Format::He => "802.11ax",
        }
    }
}

impl Band {
    pub fn name(self) -> &'static str {
        match self {
            Band::Ghz2_4 => "2.4 GHz",
            Band::Ghz5 => "5 GHz",
            Band::Ghz6 => "6 GHz",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phy(format: Format, width: u16, streams: u8, gi: u16, band: Band) -> McsPhy {
        McsPhy::new(format, width, streams, gi, band).unwrap()
    }

    #[test]
    fn rates_match_the_standards_tables() {
        // (format, width, streams, GI, MCS, Mbit/s as the tables print them)
        let cases = [
            (Format::Ht, 20, 1, 800, 0, 6.5),
            (Format::Ht, 20, 1, 800, 7, 65.0),
            (Format::Ht, 20, 1, 400, 7, 72.2),
            (Format::Ht, 40, 1, 800, 7, 135.0),
            (Format::Ht, 40, 1, 400, 7, 150.0),
            (Format::Ht, 40, 4, 400, 7, 600.0),
            (Format::Vht, 80, 1, 800, 9, 390.0),
            (Format::Vht, 80, 1, 400, 9, 433.3),
            (Format::Vht, 80, 2, 400, 9, 866.7),
            (Format::Vht, 160, 4, 400, 9, 3466.7),
            (Format::Vht, 20, 3, 800, 9, 260.0),
            (Format::He, 20, 1, 800, 0, 8.6),
            (Format::He, 20, 1, 800, 11, 143.4),
            (Format::He, 80, 1, 800, 11, 600.4),
            (Format::He, 80, 2, 800, 11, 1201.0),
            (Format::He, 160, 2, 800, 11, 2401.9),
            (Format::He, 160, 4, 800, 11, 4803.9),
            (Format::He, 80, 1, 3200, 0, 30.6),
        ];
        for (format, width, streams, gi, mcs, mbps) in cases {
            let p = phy(format, width, streams, gi, Band::Ghz5);
            let got = p.rate_bps(mcs) as f64 / 1e6;
            assert!(
                (got - mbps).abs() < 0.051,
                "{format:?} {width} MHz {streams} SS GI {gi} MCS {mcs}: {got}, table {mbps}"
            );
        }
    }

    #[test]
    fn vht_lacks_the_combinations_the_standard_excludes() {
        for streams in 1..=4 {
            let p = phy(Format::Vht, 20, streams, 800, Band::Ghz5);
            assert_eq!(p.has_mcs(9), streams == 3, "{streams}");
            // where it exists, N_DBPS is whole and N_ES divides it
            for width in [20, 40, 80, 160] {
                let p = phy(Format::Vht, width, streams, 800, Band::Ghz5);
                for mcs in p.mcs_list() {
                    let (c, r) = McsPhy::modulation(mcs);
                    let (num, den) = r.ratio();
                    let coded = u64::from(p.data_subcarriers() * c.bits()) * u64::from(streams);
                    assert_eq!(coded * u64::from(num) % u64::from(den), 0);
                    assert_eq!(
                        p.data_bits_per_symbol(mcs) % p.bcc_encoders(mcs),
                        0,
                        "{width} MHz {streams} SS MCS {mcs}"
                    );
                }
            }
        }
        assert!(!phy(Format::Vht, 80, 3, 800, Band::Ghz5).has_mcs(6));
        assert!(!phy(Format::Vht, 160, 3, 800, Band::Ghz5).has_mcs(9));
        assert!(phy(Format::Vht, 160, 4, 800, Band::Ghz5).has_mcs(9));
        assert!(!phy(Format::He, 20, 1, 800, Band::Ghz5).has_mcs(12));
    }

    #[test]
    fn bcc_encoders_follow_the_tables() {
        // HT 40 MHz, 3 streams: MCS 21-23 need 2 (Table 19-29), MCS 20 one
        let ht = phy(Format::Ht, 40, 3, 800, Band::Ghz5);
        assert_eq!(ht.bcc_encoders(4), 1);
        assert_eq!(ht.bcc_encoders(5), 2);
        // VHT 80 MHz, 1 stream, MCS 9 (390 Mbit/s): one; 2 streams (780): two
        assert_eq!(phy(Format::Vht, 80, 1, 800, Band::Ghz5).bcc_encoders(9), 1);
        assert_eq!(phy(Format::Vht, 80, 2, 800, Band::Ghz5).bcc_encoders(9), 2);
        assert_eq!(phy(Format::Vht, 160, 4, 800, Band::Ghz5).bcc_encoders(7), 6);
        assert_eq!(phy(Format::He, 160, 4, 800, Band::Ghz5).bcc_encoders(11), 1);
    }

    #[test]
    fn ppdu_durations_by_hand() {
        // HT 20 MHz, 1 stream, MCS 7 (N_DBPS 260), 0.8 µs GI, 5 GHz, 1538 bytes:
        // N_SYM = ⌈(12304 + 16 + 6)/260⌉ = 48; 20 + 8 + 4 + 4 + 48·4 = 228 µs
        let ht = phy(Format::Ht, 20, 1, 800, Band::Ghz5);
        assert_eq!(ht.data_bits_per_symbol(7), 260);
        assert_eq!(ht.ppdu_ns(7, 1538), 228_000);
        // the same in 2.4 GHz: 6 µs signal extension
        assert_eq!(
            phy(Format::Ht, 20, 1, 800, Band::Ghz2_4).ppdu_ns(7, 1538),
            234_000
        );
        // short GI: 48 symbols of 3.6 µs = 172.8 µs, rounded up to 176
        assert_eq!(
            phy(Format::Ht, 20, 1, 400, Band::Ghz5).ppdu_ns(7, 1538),
            36_000 + 176_000
        );
        // HT 40 MHz, 2 streams: two HT-LTFs; MCS 15 N_DBPS 1080: ⌈12326/1080⌉ = 12
        assert_eq!(
            phy(Format::Ht, 40, 2, 800, Band::Ghz5).ppdu_ns(7, 1538),
            40_000 + 48_000
        );
        // VHT 80 MHz, 1 stream, MCS 9 (N_DBPS 1560), 0.8 µs: 20 + 8 + 4 + 4 + 4 = 40 µs of
        // preamble; ⌈(8·1542 + 22)/1560⌉ = 8 symbols: 72 µs
        let vht = phy(Format::Vht, 80, 1, 800, Band::Ghz5);
        assert_eq!(vht.preamble_ns(), 40_000);
        assert_eq!(vht.ppdu_ns(9, 1542), 72_000);
        // 4 streams: four VHT-LTFs
        assert_eq!(
            phy(Format::Vht, 80, 4, 800, Band::Ghz5).preamble_ns(),
            52_000
        );
        // HE 20 MHz, 1 stream, MCS 0 (N_DBPS 117), 0.8 µs GI: preamble 20 + 4 + 8 + 4 + 7.2
        // = 43.2 µs; 100 bytes: ⌈822/117⌉ = 8 symbols of 13.6 µs = 108.8 µs
        let he = phy(Format::He, 20, 1, 800, Band::Ghz5);
        assert_eq!(he.preamble_ns(), 43_200);
        assert_eq!(he.ppdu_ns(0, 100), 43_200 + 108_800);
        // 3.2 µs GI: the 4x HE-LTF (16 µs), 16 µs symbols
        let he32 = phy(Format::He, 20, 1, 3200, Band::Ghz5);
        assert_eq!(he32.preamble_ns(), 52_000);
        assert_eq!(he32.ppdu_ns(0, 100), 52_000 + 8 * 16_000);
    }

    #[test]
    fn rate_names_are_unique_and_miss_the_mandatory_ofdm_rates() {
        for format in [Format::Ht, Format::Vht, Format::He] {
            for width in [20, 40, 80, 160] {
                for streams in 1..=MAX_STREAMS {
                    for gi in [400, 800, 1600, 3200] {
                        for band in [Band::Ghz2_4, Band::Ghz5, Band::Ghz6] {
                            let Ok(p) = McsPhy::new(format, width, streams, gi, band) else {
                                continue;
                            };
                            let rates: Vec<u64> = p.mcs_list().map(|m| p.rate_bps(m)).collect();
                            assert!(rates.windows(2).all(|w| w[0] < w[1]), "{p:?}");
                            for mandatory in [6_000_000, 12_000_000, 24_000_000] {
                                assert!(!rates.contains(&mandatory), "{p:?}");
                            }
                            for m in p.mcs_list() {
                                assert_eq!(p.mcs_of(p.rate_bps(m)), Some(m));
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_mpdu_framing() {
        // 1538-byte MPDU: 4 + 1540 padded; HT's last subframe unpadded
        assert_eq!(subframe_bytes(Format::Vht, 1538, true), 1544);
        assert_eq!(subframe_bytes(Format::Ht, 1538, false), 1544);
        assert_eq!(subframe_bytes(Format::Ht, 1538, true), 1542);
        assert_eq!(block_ack_bytes(8), 32);
        assert_eq!(block_ack_bytes(64), 32);
        assert_eq!(block_ack_bytes(65), 56);
        assert_eq!(block_ack_bytes(256), 56);
    }

    #[test]
    fn rejects_settings_the_format_lacks() {
        let err = McsPhy::new(Format::Ht, 80, 1, 800, Band::Ghz5).unwrap_err();
        assert_eq!(err.parameter, "channel_width");
        let err = McsPhy::new(Format::Vht, 80, 5, 800, Band::Ghz5).unwrap_err();
        assert_eq!(err.parameter, "spatial_streams");
        let err = McsPhy::new(Format::He, 80, 1, 400, Band::Ghz5).unwrap_err();
        assert_eq!(err.parameter, "guard_interval");
        let err = McsPhy::new(Format::Vht, 80, 1, 800, Band::Ghz2_4).unwrap_err();
        assert_eq!(err.parameter, "band");
        assert!(McsPhy::new(Format::He, 80, 1, 800, Band::Ghz2_4).is_err());
        assert!(McsPhy::new(Format::He, 40, 1, 800, Band::Ghz2_4).is_ok());
    }

    /// ns-3 3.44's `WifiPhy::CalculateTxDuration` (PyPI `ns3==3.44.post0`) for a sample (every
    /// 13th) of 706 cases computed by bench/ns3_mcs_durations.py: (format, MCS (HT's
    /// 0-31), width, GI ns, streams, band, PSDU bytes, ns). All 706 agree with `ppdu_ns` once
    /// ns-3's three departures from the standard are accounted for: no VHT-SIG-B in VHT SU
    /// PPDUs (4 µs less), every HE-LTF 8 µs whatever the GI (the standard's 2x HE-LTF with
    /// 1.6 µs GI; 7.2 and 16 µs here with the 0.8 and 3.2 µs GIs), and short-GI data fields
    /// of N_SYM·3.6 µs, not rounded up to the 4 µs L-SIG symbol.
    /// (format, MCS, width MHz, GI ns, streams, band, PSDU bytes, ns-3's TXTIME in ns).
    type Ns3Duration = (Format, u8, u16, u16, u8, Band, u32, u64);

    const NS3_DURATIONS: [Ns3Duration; 54] = [
        (Format::Ht, 0, 20, 800, 1, Band::Ghz5, 100, 164000),
        (Format::Ht, 0, 40, 800, 1, Band::Ghz5, 1538, 952000),
        (Format::Ht, 7, 20, 800, 1, Band::Ghz5, 65535, 8104000),
        (Format::Ht, 7, 40, 800, 1, Band::Ghz2_4, 100, 50000),
        (Format::Ht, 15, 20, 800, 2, Band::Ghz2_4, 1538, 142000),
        (Format::Ht, 15, 40, 800, 2, Band::Ghz2_4, 65535, 1990000),
        (Format::Ht, 23, 20, 400, 3, Band::Ghz5, 100, 55200),
        (Format::Ht, 23, 40, 400, 3, Band::Ghz5, 1538, 76800),
        (Format::Ht, 31, 20, 400, 4, Band::Ghz5, 65535, 1866000),
        (Format::Ht, 31, 40, 400, 4, Band::Ghz2_4, 100, 57600),
        (Format::Vht, 0, 20, 800, 4, Band::Ghz5, 1538, 524000),
        (Format::Vht, 0, 20, 400, 4, Band::Ghz5, 100000, 27742800),
        (Format::Vht, 0, 40, 400, 1, Band::Ghz5, 100, 93600),
        (Format::Vht, 0, 80, 800, 1, Band::Ghz5, 1538, 460000),
        (Format::Vht, 0, 80, 400, 1, Band::Ghz5, 100000, 24652800),
        (Format::Vht, 0, 160, 800, 2, Band::Ghz5, 100, 48000),
        (Format::Vht, 0, 160, 400, 2, Band::Ghz5, 1538, 137200),
        (Format::Vht, 4, 20, 800, 2, Band::Ghz5, 100000, 10300000),
        (Format::Vht, 4, 20, 400, 3, Band::Ghz5, 100, 55200),
        (Format::Vht, 4, 40, 800, 3, Band::Ghz5, 1538, 100000),
        (Format::Vht, 4, 40, 400, 3, Band::Ghz5, 100000, 3014400),
        (Format::Vht, 4, 80, 800, 4, Band::Ghz5, 100, 52000),
        (Format::Vht, 4, 80, 400, 4, Band::Ghz5, 1538, 66000),
        (Format::Vht, 4, 160, 800, 4, Band::Ghz5, 100000, 620000),
        (Format::Vht, 8, 20, 800, 1, Band::Ghz5, 100, 48000),
        (Format::Vht, 8, 20, 400, 1, Band::Ghz5, 1538, 180000),
        (Format::Vht, 8, 40, 800, 1, Band::Ghz5, 100000, 4976000),
        (Format::Vht, 8, 40, 400, 2, Band::Ghz5, 100, 43600),
        (Format::Vht, 8, 80, 800, 2, Band::Ghz5, 1538, 60000),
        (Format::Vht, 8, 80, 400, 2, Band::Ghz5, 100000, 1066000),
        (Format::Vht, 8, 160, 800, 3, Band::Ghz5, 100, 52000),
        (Format::Vht, 8, 160, 400, 3, Band::Ghz5, 1538, 55200),
        (Format::Vht, 9, 40, 800, 1, Band::Ghz5, 100000, 4484000),
        (Format::Vht, 9, 40, 400, 2, Band::Ghz5, 100, 43600),
        (Format::Vht, 9, 80, 800, 2, Band::Ghz5, 1538, 56000),
        (Format::Vht, 9, 80, 400, 2, Band::Ghz5, 100000, 965200),
        (Format::Vht, 9, 160, 800, 3, Band::Ghz5, 100, 52000),
        (Format::Vht, 9, 160, 400, 3, Band::Ghz5, 1538, 55200),
        (Format::He, 0, 20, 800, 2, Band::Ghz5, 100000, 46550400),
        (Format::He, 0, 20, 1600, 2, Band::Ghz2_4, 100, 115600),
        (Format::He, 0, 20, 3200, 2, Band::Ghz2_4, 1538, 906000),
        (Format::He, 0, 80, 1600, 2, Band::Ghz5, 100000, 11816800),
        (Format::He, 0, 160, 1600, 1, Band::Ghz5, 100, 58400),
        (Format::He, 7, 20, 800, 1, Band::Ghz5, 1538, 193600),
        (Format::He, 7, 20, 1600, 1, Band::Ghz5, 100000, 9893600),
        (Format::He, 7, 20, 3200, 1, Band::Ghz2_4, 100, 66000),
        (Format::He, 7, 80, 800, 2, Band::Ghz5, 1538, 79200),
        (Format::He, 7, 80, 3200, 2, Band::Ghz5, 100000, 1364000),
        (Format::He, 7, 160, 3200, 1, Band::Ghz5, 100, 60000),
        (Format::He, 11, 20, 800, 2, Band::Ghz5, 1538, 106400),
        (Format::He, 11, 20, 1600, 2, Band::Ghz5, 100000, 3018400),
        (Format::He, 11, 20, 3200, 2, Band::Ghz2_4, 100, 74000),
        (Format::He, 11, 80, 1600, 2, Band::Ghz5, 1538, 66400),
        (Format::He, 11, 160, 800, 2, Band::Ghz5, 100000, 392000),
    ];

    #[test]
    fn durations_are_ns3s_but_for_its_stated_departures() {
        for (format, mcs, width, gi, streams, band, bytes, ns3) in NS3_DURATIONS {
            let p = phy(format, width, streams, gi, band);
            let mcs = if format == Format::Ht { mcs % 8 } else { mcs };
            let symbols = p.data_symbols(mcs, bytes);
            let sig_b: i64 = if format == Format::Vht { 4_000 } else { 0 };
            let ltfs = if format == Format::He {
                (p.preamble_ns() - 36_000) as i64 - 8_000 * p.training_symbols() as i64
            } else {
                0
            };
            let short_gi = if format != Format::He && gi == 400 {
                ((3_600 * symbols).div_ceil(4_000) * 4_000 - 3_600 * symbols) as i64
            } else {
                0
            };
            let ours = p.ppdu_ns(mcs, bytes) as i64;
            assert_eq!(
                ours,
                ns3 as i64 + sig_b + ltfs + short_gi,
                "{format:?} MCS {mcs} {width} MHz GI {gi} {streams} SS {band:?} {bytes} B"
            );
        }
    }
}
