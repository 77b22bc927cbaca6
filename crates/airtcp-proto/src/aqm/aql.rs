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
//!   faster than 20 µs); at least 4 µs. One that may not is charged all of it.
//!   Linux reads the 1024-byte times from its rate tables and truncates to µs; this takes
//!   the rate's exact times in ns.
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

/// The least airtime an estimate gives, 4 µs.
const MIN_ESTIMATE_NS: u64 = 4_000;

/// AQL's estimate of the airtime of a frame of `frame_bytes` sent at `rate_bps` (module
/// doc), in ns.
pub fn expected_tx_airtime_ns(class: AirtimeClass, rate_bps: u64, frame_bytes: u32) -> u64 {
    let bits = 8 * (u64::from(frame_bytes) + LENGTH_ALLOWANCE_BYTES);
    let payload_ns = bits * 1_000_000_000 / rate_bps;
    match class {
        AirtimeClass::Dsss { short_preamble } => {
            let plcp_us = if short_preamble { 96 } else { 192 };
            (plcp_us + 10) * 1_000 + payload_ns
        }
        AirtimeClass::Ofdm => (20 + 16) * 1_000 + payload_ns,
        AirtimeClass::Mcs {
            streams,
            he,
            aggregated,
        } => {
            let overhead_us = 36 + 4 * u64::from(streams);
            if !aggregated {
                return overhead_us * 1_000 + payload_ns;
            }
            // the time 1024 bytes take sets the aggregate length assumed
            let kilobyte_us = 8 * 1024 * 1_000_000 / rate_bps;
            let shift = match kilobyte_us {
                t if t > 400 => 1,
                t if t > 250 => 2,
                t if t > 150 => 3,
                t if t > 70 => 4,
                t if !he || t > 20 => 5,
                _ => 6,
            };
            (payload_ns + (overhead_us >> shift) * 1_000).max(MIN_ESTIMATE_NS)
        }
    }
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
        // 70 µs, so 32 MPDUs an A-MPDU are assumed; (1534 + 38) bytes take 29 019 ns and
        // 40 µs >> 5 is 1 µs
        let estimate = expected_tx_airtime_ns(VHT_1SS, 433_333_333, 1534);
        assert_eq!(estimate, 12_576 * 1_000_000_000 / 433_333_333 + 1_000);
        assert_eq!(estimate, 30_021);
    }

    #[test]
    fn slow_rates_assume_shorter_aggregates() {
        // 1024 bytes at 6.5 Mbit/s (HT MCS 0) take 1260 µs: 2 MPDUs, 40 µs >> 1 = 20 µs
        let slow = expected_tx_airtime_ns(VHT_1SS, 6_500_000, 1000);
        assert_eq!(slow, 8 * 1038 * 1_000_000_000 / 6_500_000 + 20_000);
        // 26 Mbit/s (MCS 3): 315 µs, 4 MPDUs, 10 µs; 52 Mbit/s: 157 µs, 8, 5 µs
        let mid = expected_tx_airtime_ns(VHT_1SS, 26_000_000, 1000);
        assert_eq!(mid, 8 * 1038 * 1_000_000_000 / 26_000_000 + 10_000);
        let fast = expected_tx_airtime_ns(VHT_1SS, 52_000_000, 1000);
        assert_eq!(fast, 8 * 1038 * 1_000_000_000 / 52_000_000 + 5_000);
        // 78 Mbit/s: 105 µs, 16 MPDUs, 40 >> 4 = 2 µs
        let faster = expected_tx_airtime_ns(VHT_1SS, 78_000_000, 1000);
        assert_eq!(faster, 8 * 1038 * 1_000_000_000 / 78_000_000 + 2_000);
    }

    #[test]
    fn he_at_high_rates_assumes_64_mpdus_and_two_streams_a_longer_preamble() {
        // HE 80 MHz MCS 11, two streams, 1201 Mbit/s: 1024 bytes in 6.8 µs; 44 µs >> 6 = 0
        let he = AirtimeClass::Mcs {
            streams: 2,
            he: true,
            aggregated: true,
        };
        let estimate = expected_tx_airtime_ns(he, 1_201_000_000, 1534);
        assert_eq!(estimate, 12_576 * 1_000_000_000 / 1_201_000_000);
        // a tiny frame still counts 4 µs
        assert_eq!(expected_tx_airtime_ns(he, 1_201_000_000, 40), 4_000);
        // VHT at that speed assumes 32: 44 >> 5 = 1 µs
        let vht = AirtimeClass::Mcs {
            streams: 2,
            he: false,
            aggregated: true,
        };
        assert_eq!(
            expected_tx_airtime_ns(vht, 1_201_000_000, 1534),
            estimate + 1_000
        );
    }

    #[test]
    fn frames_outside_aggregates_pay_the_whole_overhead() {
        let vo = AirtimeClass::Mcs {
            streams: 1,
            he: false,
            aggregated: false,
        };
        let payload = 12_576 * 1_000_000_000 / 433_333_333;
        assert_eq!(
            expected_tx_airtime_ns(vo, 433_333_333, 1534),
            payload + 40_000
        );
        // 802.11a at 54 Mbit/s: 20 µs preamble and header, 16 µs SIFS
        let ofdm = expected_tx_airtime_ns(AirtimeClass::Ofdm, 54_000_000, 1534);
        assert_eq!(ofdm, 36_000 + 12_576 * 1_000_000_000 / 54_000_000);
        // 802.11b at 11 Mbit/s: 192 µs (96 µs short) and a 10 µs SIFS
        let long = AirtimeClass::Dsss {
            short_preamble: false,
        };
        let short = AirtimeClass::Dsss {
            short_preamble: true,
        };
        let bits_ns = 12_576 * 1_000_000_000 / 11_000_000;
        assert_eq!(
            expected_tx_airtime_ns(long, 11_000_000, 1534),
            202_000 + bits_ns
        );
        assert_eq!(
            expected_tx_airtime_ns(short, 11_000_000, 1534),
            106_000 + bits_ns
        );
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
