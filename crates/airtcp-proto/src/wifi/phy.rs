//! PHY parameter sets and frame airtime.
//!
//! - 802.11b DSSS/HR-DSSS (clauses 15, 16): slot 20 µs, SIFS 10 µs, CW 31..1023; PLCP
//!   preamble and header 192 µs (long) or 96 µs (short; not at 1 Mbit/s); the PSDU length is
//!   counted in whole microseconds.
//! - 802.11g ERP-OFDM (clause 18 with the ERP rules of clause 19): 20 µs preamble and SIGNAL,
//!   4 µs symbols carrying 16 service + 8·len + 6 tail bits, 6 µs signal extension; slot 9 µs
//!   (short) or 20 µs (long), CWmin 15 (31 with long slots, as in a mixed b/g BSS).
//! - 802.11a OFDM (clause 17) in 5 GHz: as ERP-OFDM without signal extension; slot 9 µs,
//!   SIFS 16 µs, CWmin 15 (Table 17-21).
//! - 802.11n HT, 802.11ac VHT, 802.11ax HE (`super::mcs`): data frames at an MCS, control
//!   frames (RTS, CTS, ACK) as non-HT OFDM PPDUs at the mandatory rates 6, 12, 24 Mbit/s
//!   (a response at the highest not above the eliciting frame's non-HT reference rate,
//!   §10.6.6.5.2); slot 9 µs; SIFS 16 µs in 5 and 6 GHz, 10 µs with a 6 µs signal
//!   extension in 2.4 GHz (Tables 19-25, 21-28, 27-54); CWmin 15, CWmax 1023. VHT and HE
//!   send a lone MPDU as an S-MPDU: a 4-byte delimiter ahead of it, padded to 4 bytes.
//! - Bianchi (JSAC 2000) FHSS parameter set: 1 Mbit/s, 128-bit PHY header, 272-bit MAC
//!   header, slot 50 µs, SIFS 28 µs, DIFS 128 µs, 1 µs propagation delay.
//!
//! DIFS = SIFS + 2·slot. EIFS = aSIFSTime + EstimatedAckTxTime + DIFS (IEEE 802.11-2020
//! §10.3.2.3.7), the estimate depending on the PPDU whose reception failed (the standard's
//! table "Determination of the EstimatedAckTxTime based on properties of the PPDU causing the
//! EIFS", Table 10-5 of 802.11-2016; ns-3's `GetEstimatedAckTxTime`): an ACK at 1 Mbit/s
//! (304 µs) after a 1 Mbit/s DSSS PPDU, at 2 Mbit/s after a faster one (248 µs long preamble,
//! 152 µs short); after an OFDM or ERP-OFDM PPDU an ACK at 6, 12 or 24 Mbit/s for BPSK, QPSK
//! or 16/64-QAM (44, 32, 28 µs; no signal extension). 802.11-2012 and earlier assumed the
//! PHY's lowest mandatory rate for every PPDU (1 Mbit/s DSSS, 304 µs, on 802.11b and g).
//! A transmitter whose frame got no ACK (or RTS no CTS) concludes failure after AckTimeout
//! (CTSTimeout) = aSIFSTime + aSlotTime + aRxPHYStartDelay from the end of its frame
//! (§10.3.2.9, §10.3.2.7), aRxPHYStartDelay being the response's preamble and PHY header.

use core::fmt;

use serde::{Deserialize, Serialize};

use super::mcs::{subframe_bytes, Band, Format, McsPhy};
use super::modulation::non_ht_reference_bps;

/// ACK and CTS are 14 bytes, RTS 20 bytes, including the FCS.
pub const FRAME_ACK_BYTES: u32 = 14;
pub const FRAME_CTS_BYTES: u32 = 14;
pub const FRAME_RTS_BYTES: u32 = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preamble {
    Long,
    Short,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modulation {
    /// 802.11b; the preamble choice applies to rates above 1 Mbit/s.
    Dsss(Preamble),
    ErpOfdm,
    /// 802.11a, 5 GHz.
    Ofdm,
    /// HT, VHT or HE: data at an MCS, control frames non-HT OFDM.
    Mcs(McsPhy),
    /// Bianchi's FHSS set: a fixed PHY header sent at the channel rate.
    Fhss {
        phy_header_bits: u32,
    },
}

/// A PHY's timing and rates; all times in nanoseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Phy {
    pub name: &'static str,
    pub modulation: Modulation,
    pub slot_ns: u64,
    pub sifs_ns: u64,
    pub propagation_ns: u64,
    pub cw_min: u32,
    pub cw_max: u32,
    pub data_rate_bps: u64,
    pub basic_rate_bps: u64,
    /// MAC header plus FCS of a data frame.
    pub mac_overhead_bytes: u32,
    /// The data rates, lowest first (an MCS PHY's by their names, `super::mcs`).
    rates: Vec<u64>,
}

/// A PHY setting the standard does not allow: which parameter (`rate` or `basic_rate`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhyError {
    pub parameter: &'static str,
    pub message: String,
}

impl fmt::Display for PhyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PhyError {}

const DSSS_RATES: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];
const OFDM_RATES: [u64; 8] = [
    6_000_000, 9_000_000, 12_000_000, 18_000_000, 24_000_000, 36_000_000, 48_000_000, 54_000_000,
];
const OFDM_MANDATORY_BASIC: [u64; 3] = [6_000_000, 12_000_000, 24_000_000];

fn check_rate(
    rate: u64,
    allowed: &[u64],
    parameter: &'static str,
    phy: &str,
) -> Result<(), PhyError> {
    if allowed.contains(&rate) {
        Ok(())
    } else {
        let list: Vec<String> = allowed
            .iter()
            .map(|r| format!("{}", *r as f64 / 1e6))
            .collect();
        Err(PhyError {
            parameter,
            message: format!(
                "{} Mbit/s is not a {phy} rate; expected one of {} Mbit/s",
                rate as f64 / 1e6,
                list.join(", ")
            ),
        })
    }
}

/// Whole slots by which a station that resumes counting `later_ns` after a busy period joins
/// a count that resumed `earlier_ns` after it: the difference to the nearest slot. One count
/// of idle slots then serves stations whose IFS differ (`airtcp-sim`'s DCF and
/// `bianchi::Params::from_phy`); the standard's stations keep their own slot boundaries,
/// which this places at most half a slot off.
pub fn slots_between(later_ns: u64, earlier_ns: u64, slot_ns: u64) -> u64 {
    (later_ns - earlier_ns + slot_ns / 2) / slot_ns
}

/// The highest of `rates` not above `rate_bps`, or the lowest of them.
fn highest_not_above(rates: &[u64], rate_bps: u64) -> u64 {
    rates
        .iter()
        .copied()
        .filter(|&r| r <= rate_bps)
        .max()
        .unwrap_or(rates[0])
}

/// A non-HT OFDM PPDU of `bits` (MAC header and FCS included) at `rate_bps` in 20 MHz, its
/// signal extension left out: 16 µs preamble, 4 µs SIGNAL, 4 µs symbols carrying 16
/// SERVICE bits, the PSDU and 6 tail bits (§17.4.3).
fn non_ht_ofdm_ns(bits: u64, rate_bps: u64) -> u64 {
    let bits_per_symbol = rate_bps * 4 / 1_000_000;
    20_000 + (16 + bits + 6).div_ceil(bits_per_symbol) * 4_000
}

/// The PSDU that carries one MPDU of `mpdu_bytes`: the MPDU itself in HT; in VHT and HE an
/// S-MPDU, one padded A-MPDU subframe (`mcs::subframe_bytes`).
fn psdu_bytes(format: Format, mpdu_bytes: u32) -> u32 {
    match format {
        Format::Ht => mpdu_bytes,
        Format::Vht | Format::He => subframe_bytes(format, mpdu_bytes, false),
    }
}

impl Phy {
    /// 802.11b at `data_rate_bps`; control frames at `basic_rate_bps` (1 or 2 Mbit/s).
    pub fn dsss(
        data_rate_bps: u64,
        basic_rate_bps: u64,
        preamble: Preamble,
    ) -> Result<Phy, PhyError> {
        check_rate(data_rate_bps, &DSSS_RATES, "rate", "802.11b")?;
        check_rate(
            basic_rate_bps,
            &DSSS_RATES[..2],
            "basic_rate",
            "802.11b basic",
        )?;
        Ok(Phy {
            name: "802.11b",
            modulation: Modulation::Dsss(preamble),
            slot_ns: 20_000,
            sifs_ns: 10_000,
            propagation_ns: 1_000,
            cw_min: 31,
            cw_max: 1023,
            data_rate_bps,
            basic_rate_bps,
            mac_overhead_bytes: 28,
            rates: DSSS_RATES.to_vec(),
        })
    }

    /// 802.11g ERP-OFDM; `basic_rate_bps` of `None` picks the highest mandatory rate (6, 12,
    /// 24 Mbit/s) not above the data rate, as the standard's control-response rule does.
    pub fn erp_ofdm(
        data_rate_bps: u64,
        basic_rate_bps: Option<u64>,
        short_slot: bool,
    ) -> Result<Phy, PhyError> {
        check_rate(data_rate_bps, &OFDM_RATES, "rate", "802.11g")?;
        let basic = match basic_rate_bps {
            Some(rate) => {
                check_rate(rate, &OFDM_RATES, "basic_rate", "802.11g")?;
                rate
            }
            None => highest_not_above(&OFDM_MANDATORY_BASIC, data_rate_bps),
        };
        Ok(Phy {
            name: "802.11g",
            modulation: Modulation::ErpOfdm,
            slot_ns: if short_slot { 9_000 } else { 20_000 },
            sifs_ns: 10_000,
            propagation_ns: 1_000,
            cw_min: if short_slot { 15 } else { 31 },
            cw_max: 1023,
            data_rate_bps,
            basic_rate_bps: basic,
            mac_overhead_bytes: 28,
            rates: OFDM_RATES.to_vec(),
        })
    }

    /// 802.11a OFDM in 5 GHz; `basic_rate_bps` as `erp_ofdm`'s.
    pub fn ofdm(data_rate_bps: u64, basic_rate_bps: Option<u64>) -> Result<Phy, PhyError> {
        check_rate(data_rate_bps, &OFDM_RATES, "rate", "802.11a")?;
        if let Some(rate) = basic_rate_bps {
            check_rate(rate, &OFDM_RATES, "basic_rate", "802.11a")?;
        }
        let mut phy = Phy::erp_ofdm(data_rate_bps, basic_rate_bps, true)?;
        phy.name = "802.11a";
        phy.modulation = Modulation::Ofdm;
        phy.sifs_ns = 16_000;
        Ok(phy)
    }

    /// An HT, VHT or HE PHY sending data at MCS `mcs` (HT: 0-7, of its stream count);
    /// control frames at `basic_rate_bps` (6, 12 or 24 Mbit/s) or, by default, at the
    /// highest of those not above the MCS's non-HT reference rate.
    pub fn mcs(setting: McsPhy, mcs: u8, basic_rate_bps: Option<u64>) -> Result<Phy, PhyError> {
        if !setting.has_mcs(mcs) {
            let list: Vec<String> = setting.mcs_list().map(|m| m.to_string()).collect();
            return Err(PhyError {
                parameter: "mcs",
                message: format!(
                    "MCS {mcs} does not exist in {} at {} MHz with {} spatial stream(s); \
                     expected one of {}",
                    setting.format.name(),
                    setting.width_mhz,
                    setting.streams,
                    list.join(", ")
                ),
            });
        }
        let (constellation, code) = McsPhy::modulation(mcs);
        let reference = non_ht_reference_bps(constellation, code);
        let basic = match basic_rate_bps {
            Some(rate) => {
                check_rate(rate, &OFDM_MANDATORY_BASIC, "basic_rate", "mandatory OFDM")?;
                rate
            }
            None => highest_not_above(&OFDM_MANDATORY_BASIC, reference),
        };
        Ok(Phy {
            name: setting.format.name(),
            modulation: Modulation::Mcs(setting),
            slot_ns: 9_000,
            sifs_ns: if setting.band == Band::Ghz2_4 {
                10_000
            } else {
                16_000
            },
            propagation_ns: 1_000,
            cw_min: 15,
            cw_max: 1023,
            data_rate_bps: setting.rate_bps(mcs),
            basic_rate_bps: basic,
            // QoS data frames: a 26-byte header (QoS Control included) and the FCS
            mac_overhead_bytes: 30,
            rates: setting.mcs_list().map(|m| setting.rate_bps(m)).collect(),
        })
    }

    /// Bianchi's FHSS parameters (JSAC 2000, Table I) with the given contention window.
    pub fn bianchi2000(cw_min: u32, stages: u32) -> Phy {
        Phy {
            name: "bianchi2000",
            modulation: Modulation::Fhss {
                phy_header_bits: 128,
            },
            slot_ns: 50_000,
            sifs_ns: 28_000,
            propagation_ns: 1_000,
            cw_min,
            cw_max: ((cw_min + 1) << stages) - 1,
            data_rate_bps: 1_000_000,
            basic_rate_bps: 1_000_000,
            mac_overhead_bytes: 34,
            rates: DSSS_RATES[..1].to_vec(),
        }
    }

    /// The data rates the PHY has, lowest first (802.11b: 1, 2, 5.5, 11 Mbit/s; the OFDM
    /// rates; an MCS PHY's MCSs by their names).
    pub fn rates(&self) -> &[u64] {
        &self.rates
    }

    /// The mandatory rates a control response may use: 1 and 2 Mbit/s on 802.11b, 6, 12 and
    /// 24 Mbit/s on OFDM (IEEE 802.11-2020 §10.6.6.5.2).
    pub fn mandatory_rates(&self) -> &'static [u64] {
        match self.modulation {
            Modulation::Dsss(_) => &DSSS_RATES[..2],
            Modulation::ErpOfdm | Modulation::Ofdm | Modulation::Mcs(_) => &OFDM_MANDATORY_BASIC,
            Modulation::Fhss { .. } => &DSSS_RATES[..1],
        }
    }

    /// The rate a control response to a frame at `rate_bps` is chosen by: an MCS's non-HT
    /// reference rate (its modulation and code rate as an OFDM rate), any other rate itself.
    fn reference_rate_bps(&self, rate_bps: u64) -> u64 {
        let Modulation::Mcs(setting) = self.modulation else {
            return rate_bps;
        };
        setting.mcs_of(rate_bps).map_or(rate_bps, |mcs| {
            let (constellation, code) = McsPhy::modulation(mcs);
            non_ht_reference_bps(constellation, code)
        })
    }

    /// The rate of a control response (ACK, CTS) to a frame at `rate_bps`, and of an RTS
    /// ahead of it: the highest mandatory rate not above it (an MCS's non-HT reference
    /// rate), capped at the BSS's basic rate (§10.6.6.5.2).
    pub fn control_rate_bps(&self, rate_bps: u64) -> u64 {
        let mandatory = self.mandatory_rates();
        highest_not_above(mandatory, self.reference_rate_bps(rate_bps))
            .min(self.basic_rate_bps)
            .max(mandatory[0])
    }

    /// The frequency band: 2.4 GHz for 802.11b and g (and Bianchi's set), 5 GHz for
    /// 802.11a, an MCS PHY's own.
    pub fn band(&self) -> Band {
        match self.modulation {
            Modulation::Mcs(setting) => setting.band,
            Modulation::Ofdm => Band::Ghz5,
            _ => Band::Ghz2_4,
        }
    }

    /// The bandwidth its receiver's thermal noise is counted over, in Hz: 22 MHz for DSSS
    /// (as ns-3), 20 MHz for OFDM, an MCS PHY's channel width.
    pub fn noise_bandwidth_hz(&self) -> f64 {
        match self.modulation {
            Modulation::Dsss(_) => 22e6,
            Modulation::Mcs(setting) => f64::from(setting.width_mhz) * 1e6,
            _ => 20e6,
        }
    }

    /// m: the number of times the contention window doubles, CWmax + 1 = 2^m (CWmin + 1).
    pub fn backoff_stages(&self) -> u32 {
        ((self.cw_max + 1) / (self.cw_min + 1)).max(1).ilog2()
    }

    pub fn difs_ns(&self) -> u64 {
        // Bianchi's DIFS (128 µs) is SIFS + 2 slots only for his own slot size; keep his value.
        match self.modulation {
            Modulation::Fhss { .. } => 128_000,
            _ => self.sifs_ns + 2 * self.slot_ns,
        }
    }

    /// Airtime of a frame of `bytes` (MAC header and FCS included) sent at `rate_bps`.
    #[inline]
    pub fn airtime_ns(&self, bytes: u32, rate_bps: u64) -> u64 {
        let bits = 8 * u64::from(bytes);
        match self.modulation {
            Modulation::Dsss(preamble) => {
                let plcp = if preamble == Preamble::Short && rate_bps > 1_000_000 {
                    96_000
                } else {
                    192_000
                };
                let micros = (bits * 1_000_000).div_ceil(rate_bps);
                plcp + micros * 1_000
            }
            Modulation::ErpOfdm | Modulation::Ofdm => {
                non_ht_ofdm_ns(bits, rate_bps) + self.signal_extension_ns()
            }
            Modulation::Mcs(setting) => self.mcs_airtime_ns(setting, bytes, rate_bps),
            Modulation::Fhss { phy_header_bits } => {
                (u64::from(phy_header_bits) + bits) * 1_000_000_000 / rate_bps
            }
        }
    }

    /// `airtime_ns` of an MCS PHY: out of line, so that the legacy PHYs' airtime stays
    /// small enough to inline into the DCF's per-frame paths (the fast path).
    #[inline(never)]
    fn mcs_airtime_ns(&self, setting: McsPhy, bytes: u32, rate_bps: u64) -> u64 {
        match setting.mcs_of(rate_bps) {
            Some(mcs) => setting.ppdu_ns(mcs, psdu_bytes(setting.format, bytes)),
            None => non_ht_ofdm_ns(8 * u64::from(bytes), rate_bps) + self.signal_extension_ns(),
        }
    }

    /// Airtime of a PSDU of `psdu_bytes` (an A-MPDU's subframes, delimiters and padding
    /// included) at `rate_bps`, an MCS of this PHY; a PHY without MCSs sends it as one frame.
    pub fn psdu_airtime_ns(&self, psdu_bytes: u32, rate_bps: u64) -> u64 {
        match self.modulation {
            Modulation::Mcs(setting) => match setting.mcs_of(rate_bps) {
                Some(mcs) => setting.ppdu_ns(mcs, psdu_bytes),
                None => self.airtime_ns(psdu_bytes, rate_bps),
            },
            _ => self.airtime_ns(psdu_bytes, rate_bps),
        }
    }

    /// The idle time an ERP-OFDM frame ends with (aSignalExtension, 6 µs), counted in its
    /// airtime; none for the other PHYs.
    pub fn signal_extension_ns(&self) -> u64 {
        match self.modulation {
            Modulation::ErpOfdm => 6_000,
            Modulation::Mcs(setting) => setting.signal_extension_ns(),
            _ => 0,
        }
    }

    /// Airtime of a data frame carrying an MSDU of `msdu_bytes`.
    pub fn data_airtime_ns(&self, msdu_bytes: u32) -> u64 {
        self.airtime_ns(self.mac_overhead_bytes + msdu_bytes, self.data_rate_bps)
    }

    pub fn ack_airtime_ns(&self) -> u64 {
        self.airtime_ns(FRAME_ACK_BYTES, self.basic_rate_bps)
    }

    pub fn rts_airtime_ns(&self) -> u64 {
        self.airtime_ns(FRAME_RTS_BYTES, self.basic_rate_bps)
    }

    pub fn cts_airtime_ns(&self) -> u64 {
        self.airtime_ns(FRAME_CTS_BYTES, self.basic_rate_bps)
    }

    /// EstimatedAckTxTime after a PPDU sent at `ppdu_rate_bps` was received in error: an
    /// ACK at the mandatory rate of its modulation that an ACK to it would use (module doc).
    pub fn estimated_ack_ns(&self, ppdu_rate_bps: u64) -> u64 {
        match self.modulation {
            Modulation::Dsss(_) => self.airtime_ns(FRAME_ACK_BYTES, ppdu_rate_bps.min(2_000_000)),
            Modulation::ErpOfdm | Modulation::Ofdm | Modulation::Mcs(_) => {
                let reference = self.reference_rate_bps(ppdu_rate_bps);
                let rate = highest_not_above(&OFDM_MANDATORY_BASIC, reference);
                self.airtime_ns(FRAME_ACK_BYTES, rate) - self.signal_extension_ns()
            }
            Modulation::Fhss { .. } => self.ack_airtime_ns(),
        }
    }

    /// EIFS: what a station whose PHY began to receive a PPDU sent at `ppdu_rate_bps` that
    /// did not end in a frame with a valid FCS waits instead of DIFS.
    pub fn eifs_ns(&self, ppdu_rate_bps: u64) -> u64 {
        self.sifs_ns + self.estimated_ack_ns(ppdu_rate_bps) + self.difs_ns()
    }

    /// aRxPHYStartDelay of a response (ACK, CTS) at the basic rate: its preamble and PHY
    /// header (DSSS 192 µs long, 96 µs short above 1 Mbit/s; OFDM 16 µs preamble and 4 µs
    /// SIGNAL; Bianchi's FHSS header).
    pub fn response_start_delay_ns(&self) -> u64 {
        match self.modulation {
            Modulation::Dsss(preamble) => {
                if preamble == Preamble::Short && self.basic_rate_bps > 1_000_000 {
                    96_000
                } else {
                    192_000
                }
            }
            Modulation::ErpOfdm | Modulation::Ofdm | Modulation::Mcs(_) => 20_000,
            Modulation::Fhss { phy_header_bits } => {
                u64::from(phy_header_bits) * 1_000_000_000 / self.basic_rate_bps
            }
        }
    }

    /// AckTimeout, and CTSTimeout: aSIFSTime + aSlotTime + aRxPHYStartDelay after the end of
    /// the frame, after which a transmitter that has heard no response backs off.
    pub fn response_timeout_ns(&self) -> u64 {
        self.sifs_ns + self.slot_ns + self.response_start_delay_ns()
    }

    /// When a transmitter whose frame ended at `frame_end_ns` and went unanswered resumes
    /// counting, in ns after the busy period that ends at `busy_end_ns` (both from the same
    /// origin): DIFS after its timeout, or after the medium falls idle if that is later
    /// (another frame of a collision may outlast its timeout).
    pub fn sender_resume_ns(&self, frame_end_ns: u64, busy_end_ns: u64) -> u64 {
        (frame_end_ns + self.response_timeout_ns()).saturating_sub(busy_end_ns) + self.difs_ns()
    }

    /// When other stations resume after an unanswered RTS they decoded, in ns after it: the
    /// NAV it set may be reset when no frame starts within 2·aSIFSTime + CTS_Time +
    /// aRxPHYStartDelay + 2·aSlotTime (IEEE 802.11-2020 §10.3.2.4), then DIFS.
    pub fn rts_nav_reset_resume_ns(&self) -> u64 {
        2 * self.sifs_ns
            + self.cts_airtime_ns()
            + self.response_start_delay_ns()
            + 2 * self.slot_ns
            + self.difs_ns()
    }

    /// When other stations resume after an unanswered data frame they decoded, in ns after
    /// it: the NAV its Duration field set (SIFS and the ACK), then DIFS.
    pub fn ack_nav_resume_ns(&self) -> u64 {
        self.sifs_ns + self.ack_airtime_ns() + self.difs_ns()
    }

    /// Channel time of a successful exchange of an MSDU, up to the end of the DIFS that
    /// follows (Bianchi's Ts): [RTS, CTS,] DATA, ACK, each with SIFS and propagation delay.
    pub fn success_time_ns(&self, msdu_bytes: u32, rts_cts: bool) -> u64 {
        let d = self.propagation_ns;
        let mut t = self.data_airtime_ns(msdu_bytes)
            + d
            + self.sifs_ns
            + self.ack_airtime_ns()
            + d
            + self.difs_ns();
        if rts_cts {
            t +=
                self.rts_airtime_ns() + d + self.sifs_ns + self.cts_airtime_ns() + d + self.sifs_ns;
        }
        t
    }

    /// Bianchi's own collision time (JSAC 2000, eqs. 14 and 15): frame, DIFS, propagation.
    pub fn bianchi_collision_time_ns(&self, msdu_bytes: u32, rts_cts: bool) -> u64 {
        self.unanswered_frame(msdu_bytes, rts_cts).0 + self.difs_ns() + self.propagation_ns
    }

    /// The frame that opens an exchange, and is all of it when nobody answers: the RTS with
    /// RTS/CTS (at the basic rate), otherwise the data frame carrying `msdu_bytes`; its
    /// airtime and rate.
    pub fn unanswered_frame(&self, msdu_bytes: u32, rts_cts: bool) -> (u64, u64) {
        if rts_cts {
            (self.rts_airtime_ns(), self.basic_rate_bps)
        } else {
            (self.data_airtime_ns(msdu_bytes), self.data_rate_bps)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsss_airtime_counts_whole_microseconds() {
        let b = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
        // 1052 bytes = 8416 bits at 11 Mbit/s = 765.09 µs, rounded up, plus 192 µs PLCP
        assert_eq!(b.data_airtime_ns(1024), 958_000);
        assert_eq!(b.ack_airtime_ns(), 304_000);
        assert_eq!(b.difs_ns(), 50_000);
        // EstimatedAckTxTime after an 11 Mbit/s PPDU: an ACK at 2 Mbit/s, long preamble
        assert_eq!(b.eifs_ns(11_000_000), 10_000 + 192_000 + 56_000 + 50_000);
        assert_eq!(
            b.eifs_ns(1_000_000),
            364_000,
            "after a 1 Mbit/s PPDU, 304 µs"
        );
        // AckTimeout: SIFS + slot + the ACK's 192 µs preamble and PLCP header
        assert_eq!(b.response_timeout_ns(), 222_000);
        assert_eq!(
            b.sender_resume_ns(958_000, 959_000),
            222_000 - 1_000 + 50_000
        );
        let short = Phy::dsss(11_000_000, 2_000_000, Preamble::Short).unwrap();
        assert_eq!(short.data_airtime_ns(1024), 862_000);
        assert_eq!(short.ack_airtime_ns(), 96_000 + 56_000);
        assert_eq!(short.eifs_ns(11_000_000), 10_000 + 96_000 + 56_000 + 50_000);
        assert_eq!(short.response_timeout_ns(), 10_000 + 20_000 + 96_000);
        let one_mbps_basic = Phy::dsss(11_000_000, 1_000_000, Preamble::Short).unwrap();
        assert_eq!(
            one_mbps_basic.response_timeout_ns(),
            222_000,
            "an ACK at 1 Mbit/s always has the long preamble"
        );
        assert_eq!(
            short.airtime_ns(14, 1_000_000),
            192_000 + 112_000,
            "1 Mbit/s always long"
        );
    }

    #[test]
    fn ofdm_airtime_counts_symbols() {
        let g = Phy::erp_ofdm(54_000_000, None, true).unwrap();
        assert_eq!(g.basic_rate_bps, 24_000_000);
        // 16 + 8·1052 + 6 = 8438 bits / 216 per symbol = 39.06 → 40 symbols
        assert_eq!(g.data_airtime_ns(1024), 20_000 + 40 * 4_000 + 6_000);
        // ACK at 24 Mbit/s: 16 + 112 + 6 = 134 bits / 96 → 2 symbols
        assert_eq!(g.ack_airtime_ns(), 34_000);
        assert_eq!(g.difs_ns(), 28_000);
        // EstimatedAckTxTime after a 64-QAM PPDU: an ACK at 24 Mbit/s, no signal extension
        assert_eq!(g.eifs_ns(54_000_000), 10_000 + 28_000 + 28_000);
        assert_eq!(
            g.eifs_ns(12_000_000),
            10_000 + 32_000 + 28_000,
            "QPSK: 12 Mbit/s"
        );
        assert_eq!(
            g.eifs_ns(9_000_000),
            10_000 + 44_000 + 28_000,
            "BPSK: 6 Mbit/s"
        );
        // AckTimeout: SIFS + slot + 20 µs preamble and SIGNAL
        assert_eq!(g.response_timeout_ns(), 39_000);
        // A sender whose frame ended before the other colliding frame: DIFS after that.
        assert_eq!(g.sender_resume_ns(100_000, 200_000), 28_000);
        assert_eq!(g.cw_min, 15);
        let long = Phy::erp_ofdm(6_000_000, None, false).unwrap();
        assert_eq!(long.difs_ns(), 50_000);
        assert_eq!(long.basic_rate_bps, 6_000_000);
    }

    #[test]
    fn bianchi_fhss_times_match_his_table() {
        let phy = Phy::bianchi2000(31, 5);
        assert_eq!(phy.cw_max, 1023);
        assert_eq!(phy.backoff_stages(), 5);
        assert_eq!(Phy::bianchi2000(127, 3).backoff_stages(), 3);
        // 8184-bit payload = 1023 bytes: H + P = 128 + 272 + 8184 bits = 8584 µs
        assert_eq!(phy.data_airtime_ns(1023), 8_584_000);
        assert_eq!(phy.ack_airtime_ns(), 240_000);
        assert_eq!(phy.rts_airtime_ns(), 288_000);
    }

    #[test]
    fn rejects_rates_a_phy_lacks() {
        let err = Phy::dsss(54_000_000, 1_000_000, Preamble::Long).unwrap_err();
        assert!(err.message.contains("not a 802.11b rate"), "{err}");
        assert_eq!(err.parameter, "rate");
        let err = Phy::dsss(11_000_000, 11_000_000, Preamble::Long).unwrap_err();
        assert_eq!(err.parameter, "basic_rate");
        assert!(Phy::erp_ofdm(11_000_000, None, true).is_err());
        assert!(Phy::dsss(11_000_000, 5_500_000, Preamble::Long).is_err());
    }

    #[test]
    fn ofdm_in_5_ghz_has_no_signal_extension_and_a_16_us_sifs() {
        let a = Phy::ofdm(54_000_000, None).unwrap();
        assert_eq!(a.name, "802.11a");
        assert_eq!(a.difs_ns(), 34_000);
        // as 802.11g without the 6 µs signal extension
        assert_eq!(a.data_airtime_ns(1024), 20_000 + 40 * 4_000);
        assert_eq!(a.ack_airtime_ns(), 28_000);
        // EIFS = SIFS + an ACK at 24 Mbit/s + DIFS
        assert_eq!(a.eifs_ns(54_000_000), 16_000 + 28_000 + 34_000);
        assert_eq!(a.response_timeout_ns(), 16_000 + 9_000 + 20_000);
        let err = Phy::ofdm(54_000_000, Some(11_000_000)).unwrap_err();
        assert_eq!(err.parameter, "basic_rate");
        assert!(err.message.contains("802.11a"), "{err}");
    }

    #[test]
    fn mcs_phys_send_data_at_the_mcs_and_control_frames_as_non_ht_ofdm() {
        let ht = McsPhy::new(Format::Ht, 20, 1, 800, Band::Ghz5).unwrap();
        let n = Phy::mcs(ht, 7, None).unwrap();
        assert_eq!(n.name, "802.11n");
        assert_eq!(n.data_rate_bps, 65_000_000);
        assert_eq!(n.rates().len(), 8);
        // 64-QAM 5/6: reference 54 Mbit/s, so ACKs at 24
        assert_eq!(n.basic_rate_bps, 24_000_000);
        assert_eq!(n.ack_airtime_ns(), 28_000);
        // a 1500-byte MSDU in a QoS data frame (1530 bytes): ⌈(12240 + 22)/260⌉ = 48 symbols
        assert_eq!(n.data_airtime_ns(1500), 36_000 + 48 * 4_000);
        assert_eq!(n.eifs_ns(n.data_rate_bps), 16_000 + 28_000 + 34_000);
        // MCS 0 (BPSK 1/2) answers at 6 Mbit/s, whatever its rate's name
        let four = McsPhy::new(Format::Ht, 20, 4, 800, Band::Ghz5).unwrap();
        let slow = Phy::mcs(four, 0, None).unwrap();
        assert_eq!(slow.data_rate_bps, 26_000_000);
        assert_eq!(slow.basic_rate_bps, 6_000_000);
        assert_eq!(n.control_rate_bps(n.rates()[0]), 6_000_000);
        assert_eq!(n.control_rate_bps(n.rates()[3]), 24_000_000);
        // in 2.4 GHz: SIFS 10 µs and a signal extension on every PPDU
        let g24 = McsPhy::new(Format::Ht, 20, 1, 800, Band::Ghz2_4).unwrap();
        let n24 = Phy::mcs(g24, 7, None).unwrap();
        assert_eq!(n24.sifs_ns, 10_000);
        assert_eq!(n24.ack_airtime_ns(), 34_000);
        assert_eq!(n24.data_airtime_ns(1500), 36_000 + 48 * 4_000 + 6_000);
        // VHT: an S-MPDU, 4 + 1532 bytes: ⌈(12288 + 22)/1560⌉ = 8 symbols after 40 µs
        let vht = McsPhy::new(Format::Vht, 80, 1, 800, Band::Ghz5).unwrap();
        let ac = Phy::mcs(vht, 9, None).unwrap();
        assert_eq!(ac.data_airtime_ns(1500), 40_000 + 8 * 4_000);
        assert_eq!(ac.rates().len(), 10);
        // errors name the parameter
        let vht20 = McsPhy::new(Format::Vht, 20, 1, 800, Band::Ghz5).unwrap();
        let err = Phy::mcs(vht20, 9, None).unwrap_err();
        assert_eq!(err.parameter, "mcs");
        assert!(err.message.contains("expected one of 0, 1"), "{err}");
        let err = Phy::mcs(vht, 9, Some(54_000_000)).unwrap_err();
        assert_eq!(err.parameter, "basic_rate");
    }
}
