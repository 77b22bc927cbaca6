//! Airtime queue limits (AQL) of Linux's mac80211 (Kan Yan and Toke Høiland-Jørgensen,
//! "mac80211: Implement Airtime-based Queue Limit (AQL)", Linux 5.5; as in 5.10 to 5.18):
//! drivers whose firmware keeps deep queues of its own (ath10k, mt76) would otherwise take
//! every frame mac80211 holds, and FQ-CoDel, which measures the sojourn only up to the
//! driver, could no longer bound the latency.
//!
//! - **The estimate** (`ieee80211_calc_expected_tx_airtime`, net/mac80211/airtime.c): when a
//!   frame leaves mac80211's queues, its airtime is estimated from its length plus 38 bytes
//!   (an Ethernet header's allowance) at the station's last data rate. A legacy frame is
//!   charged its PLCP preamble and header (OFDM 20 µs, DSSS 192 µs or 96 µs with the short
//!   preamble) and a SIFS (16 µs, 10 µs). An HT, VHT or HE frame that may go in an A-MPDU
//!   (any AC but AC_VO) is charged a share of the PHY overhead (36 µs + 4 µs a stream),
//!   `1 / 2^shift` of it, the aggregate length assumed from the time 1024 bytes take at the
//!   rate: above 400 µs 2 MPDUs, 250 µs 4, 150 µs 8, 70 µs 16, otherwise 32 (64 for HE
//!   faster than 20 µs); at least 4 µs. One that may not is charged all of it. The frame's
//!   estimate is kept in 4 µs units, floored, and at most 4092 µs
//!   (`ieee80211_info_set_tx_time_est`, a 10-bit field). Linux reads the 1024-byte times
//!   from its rate tables (symbols rounded); this takes the rate's exact times.
//! - **The check** (`ieee80211_txq_airtime_check`, net/mac80211/tx.c): the airtime estimated
//!   for a station's frames that the driver holds and has not reported back is its pending
//!   airtime (per AC); the interface's pending airtime is the sum over its stations and ACs.
//!   A station may be scheduled while its pending airtime is under the low limit (5 ms), or
//!   under the high limit (12 ms) while the interface's is under the threshold (24 ms)
//!   (`IEEE80211_DEFAULT_AQL_TXQ_LIMIT_L`, `_H`, `IEEE80211_AQL_THRESHOLD`, include/net/
//!   cfg80211.h; debugfs's `aql_txq_limit` and `aql_threshold` set them).
//!
//! Not modelled: the per-AC limit of later kernels (6.0: the high limit plus half the low
//! one per further active station) and their counting of pending airtime in the scheduler's
//! deficit; multicast's own limit.

/// AQL's limits, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AqlLimits {
    pub low_ns: u64,
    pub high_ns: u64,
    pub threshold_ns: u64,
}

impl AqlLimits {
    /// Linux's defaults: 5 ms, 12 ms and 24 ms.
    pub const LINUX: AqlLimits = AqlLimits {
        low_ns: 5_000_000,
        high_ns: 12_000_000,
        threshold_ns: 24_000_000,
    };

    /// Whether a station whose frames hold `station_pending_ns` of airtime in the driver may
    /// be scheduled, its interface's holding `interface_pending_ns`.
    pub fn allows(&self, station_pending_ns: u64, interface_pending_ns: u64) -> bool {
        station_pending_ns < self.low_ns
            || (interface_pending_ns < self.threshold_ns && station_pending_ns < self.high_ns)
    }
}

/// What the estimate knows of the PHY a frame goes out on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AirtimeClass {
    /// 802.11b's DSSS/CCK, with the short PLCP preamble or the long one.
    Dsss { short_preamble: bool },
    /// 802.11a/g's OFDM.
    Ofdm,
    /// HT, VHT or HE at `streams` spatial streams; `aggregated` if the frame may go in an
    /// A-MPDU (A-MPDU on, and not AC_VO).
    Mcs {
        streams: u8,
        he: bool,
        aggregated: bool,
    },
}

/// `ieee80211_calc_expected_tx_airtime`'s allowance for the Ethernet header.
const LENGTH_ALLOWANCE_BYTES: u64 = 38;

/// The least airtime an estimate gives, and its unit: 4 µs; the most, 4092 µs.
const ESTIMATE_UNIT_US: u64 = 4;
const MAX_ESTIMATE_US: u64 = 4092;

/// AQL's estimate of the airtime of a frame of `frame_bytes` (its MAC header and body,
/// without the FCS) sent at `rate_bps` (module doc), in ns, a multiple of 4 µs.
pub fn expected_tx_airtime_ns(class: AirtimeClass, rate_bps: u64, frame_bytes: u32) -> u64 {
    let bits = 8 * (u64::from(frame_bytes) + LENGTH_ALLOWANCE_BYTES);
    let payload_us = bits * 1_000_000 / rate_bps;
    let estimate_us = match class {
        AirtimeClass::Dsss { short_preamble } => {
            let plcp_us = if short_preamble { 96 } else { 192 };
            plcp_us + 10 + payload_us
        }
        AirtimeClass::Ofdm => 20 + 16 + payload_us,
        AirtimeClass::Mcs {
            streams,
            he,
            aggregated,
        } => {
            let overhead_us = 36 + 4 * u64::from(streams);
            if aggregated {
                // the time 1024 bytes take sets the aggregate length assumed
                let kilobyte_ns = 8 * 1024 * 1_000_000_000 / rate_bps;
                let shift = match kilobyte_ns {
                    t if t > 400_000 => 1,
                    t if t > 250_000 => 2,
                    t if t > 150_000 => 3,
                    t if t > 70_000 => 4,
                    t if !he || t > 20_000 => 5,
                    _ => 6,
                };
                (payload_us + (overhead_us >> shift)).max(ESTIMATE_UNIT_US)
            } else {
                overhead_us + payload_us
            }
        }
    };
    let stored_us = (estimate_us / ESTIMATE_UNIT_US * ESTIMATE_UNIT_US).min(MAX_ESTIMATE_US);
    stored_us * 1_000
}

#[cfg(test)]
mod tests {
    use super::*;

    const VHT_1SS: AirtimeClass = AirtimeClass::Mcs {
        streams: 1,
        he: false,
        aggregated: true,
    };

    #[test]
    fn an_aggregated_vht_frame_is_charged_a_32nd_of_the_preamble() {
        // 802.11ac 80 MHz MCS 9, one stream, 433.3 Mbit/s: 1024 bytes take 18.9 µs, under
        // 70 µs, so 32 MPDUs an A-MPDU are assumed; (1534 + 38) bytes take 29 µs and
        // 40 µs >> 5 is 1 µs: 30 µs, kept as 28 (4 µs units)
        assert_eq!(expected_tx_airtime_ns(VHT_1SS, 433_333_333, 1534), 28_000);
    }

    #[test]
    fn slow_rates_assume_shorter_aggregates() {
        // (1000 + 38) bytes; 1024 bytes at 6.5 Mbit/s (HT MCS 0) take 1260 µs: 2 MPDUs,
        // 40 µs >> 1 = 20 µs; 1277 + 20 = 1297 µs, kept as 1296
        assert_eq!(expected_tx_airtime_ns(VHT_1SS, 6_500_000, 1000), 1_296_000);
        // 26 Mbit/s (MCS 3): 315 µs, 4 MPDUs, 319 + 10 = 329; 52 Mbit/s: 158 µs, 8 MPDUs,
        // 159 + 5 = 164; 78 Mbit/s: 105 µs, 16 MPDUs, 106 + 2 = 108
        assert_eq!(expected_tx_airtime_ns(VHT_1SS, 26_000_000, 1000), 328_000);
        assert_eq!(expected_tx_airtime_ns(VHT_1SS, 52_000_000, 1000), 164_000);
        assert_eq!(expected_tx_airtime_ns(VHT_1SS, 78_000_000, 1000), 108_000);
    }

    #[test]
    fn he_at_high_rates_assumes_64_mpdus_and_two_streams_a_longer_preamble() {
        // HE 80 MHz MCS 11, two streams, 1201 Mbit/s: 1024 bytes in 6.8 µs, 64 MPDUs, and
        // 44 µs >> 6 = 0: (4020 + 38) bytes take 27 µs, kept as 24
        let he = AirtimeClass::Mcs {
            streams: 2,
            he: true,
            aggregated: true,
        };
        assert_eq!(expected_tx_airtime_ns(he, 1_201_000_000, 4020), 24_000);
        // a tiny frame still counts 4 µs
        assert_eq!(expected_tx_airtime_ns(he, 1_201_000_000, 40), 4_000);
        // VHT at that speed assumes 32: 44 >> 5 = 1 µs, 28
        let vht = AirtimeClass::Mcs {
            streams: 2,
            he: false,
            aggregated: true,
        };
        assert_eq!(expected_tx_airtime_ns(vht, 1_201_000_000, 4020), 28_000);
    }

    #[test]
    fn frames_outside_aggregates_pay_the_whole_overhead() {
        let vo = AirtimeClass::Mcs {
            streams: 1,
            he: false,
            aggregated: false,
        };
        // 29 + 40 = 69 µs, kept as 68
        assert_eq!(expected_tx_airtime_ns(vo, 433_333_333, 1534), 68_000);
        // 802.11a at 54 Mbit/s: 20 µs preamble and header, 16 µs SIFS; 232 + 36
        let ofdm = expected_tx_airtime_ns(AirtimeClass::Ofdm, 54_000_000, 1534);
        assert_eq!(ofdm, 268_000);
        // 802.11b at 11 Mbit/s: 192 µs (96 µs short) and a 10 µs SIFS; 1143 µs of bits
        let long = AirtimeClass::Dsss {
            short_preamble: false,
        };
        let short = AirtimeClass::Dsss {
            short_preamble: true,
        };
        assert_eq!(expected_tx_airtime_ns(long, 11_000_000, 1534), 1_344_000);
        assert_eq!(expected_tx_airtime_ns(short, 11_000_000, 1534), 1_248_000);
        // at 1 Mbit/s the 12.8 ms it takes are kept as the field's most, 4092 µs
        assert_eq!(expected_tx_airtime_ns(long, 1_000_000, 1534), 4_092_000);
    }

    #[test]
    fn a_station_may_go_under_the_low_limit_or_under_the_high_one_on_a_quiet_interface() {
        let limits = AqlLimits::LINUX;
        let ms = 1_000_000;
        assert!(limits.allows(5 * ms - 1, 100 * ms)); // under low: always
        assert!(!limits.allows(5 * ms, 24 * ms)); // busy interface: low limit
        assert!(limits.allows(5 * ms, 24 * ms - 1)); // quiet interface: high limit
        assert!(limits.allows(12 * ms - 1, 24 * ms - 1));
        assert!(!limits.allows(12 * ms, 12 * ms));
    }
}
