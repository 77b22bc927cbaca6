//! EDCA, the QoS channel access of IEEE 802.11-2020 §10.23.2: the four access categories,
//! their parameter sets, and which AC a packet goes in.
//!
//! - **Parameters**: a station uses the AP's EDCA Parameter Set, by default Table 9-155
//!   (AIFSN 7/3/2/2 for BK/BE/VI/VO; CWmin aCWmin for BK and BE, (aCWmin+1)/2-1 for VI,
//!   (aCWmin+1)/4-1 for VO; CWmax aCWmax, aCWmax, aCWmin, (aCWmin+1)/2-1; TXOP limits 0, 0,
//!   3.008 ms and 1.504 ms, or 6.016 ms and 3.264 ms for the DSSS PHYs). The AP contends with
//!   its own, dot11QAPEDCATable of Annex C: AIFSN 1 for VI and VO and a CWmax of
//!   4(aCWmin+1)-1 for BE, the rest as the stations' (hostapd's `tx_queue_data*` defaults
//!   are the same). ns-3 gives its AP the stations' set; `EdcaParams::station` is that set.
//! - **Classification**: the user priority of an IPv4 packet is Linux's
//!   (`cfg80211_classify8021d`, net/wireless/util.c, Linux 6.8 on): the DSCP's three
//!   high bits (RFC 8325 §2.3), except where RFC 8325 §4 maps a service class otherwise
//!   (AF1x and CS2 to 0, AF2x to 3, CS3 and AF3x to 4, VOICE-ADMIT and EF to 6, CS6 to 7);
//!   the AC is IEEE 802.1D's for that priority (`ieee802_1d_to_ac`: 1 and 2 BK, 0 and 3 BE,
//!   4 and 5 VI, 6 and 7 VO).

use serde::{Deserialize, Serialize};

/// An access category, in order of priority (the derived order: VO is the greatest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessCategory {
    Bk,
    Be,
    Vi,
    Vo,
}

impl AccessCategory {
    /// All four, lowest priority first (an EDCAF's index in a station is its position here).
    pub const ALL: [AccessCategory; 4] = [Self::Bk, Self::Be, Self::Vi, Self::Vo];
    /// The scenario's names, in `ALL`'s order.
    pub const NAMES: [&'static str; 4] = ["bk", "be", "vi", "vo"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    pub fn from_name(name: &str) -> Option<AccessCategory> {
        let index = Self::NAMES.iter().position(|n| *n == name)?;
        Some(Self::ALL[index])
    }

    /// The AC of IEEE 802.1D user priority `up` (0-7; Linux's `ieee802_1d_to_ac`).
    pub fn of_user_priority(up: u8) -> AccessCategory {
        match up & 7 {
            1 | 2 => Self::Bk,
            0 | 3 => Self::Be,
            4 | 5 => Self::Vi,
            _ => Self::Vo,
        }
    }

    /// The AC of an IPv4 packet with differentiated services code point `dscp` (0-63).
    pub fn of_dscp(dscp: u8) -> AccessCategory {
        Self::of_user_priority(user_priority(dscp))
    }
}

/// The DSCPs' names (the IANA registry of RFC 2474's code points: RFC 2474, 2597, 3246,
/// 5865, 8622), for scenarios to name them.
pub const DSCP_NAMES: [(&str, u8); 23] = [
    ("DF", 0),
    ("LE", 1),
    ("CS1", 8),
    ("AF11", 10),
    ("AF12", 12),
    ("AF13", 14),
    ("CS2", 16),
    ("AF21", 18),
    ("AF22", 20),
    ("AF23", 22),
    ("CS3", 24),
    ("AF31", 26),
    ("AF32", 28),
    ("AF33", 30),
    ("CS4", 32),
    ("AF41", 34),
    ("AF42", 36),
    ("AF43", 38),
    ("CS5", 40),
    ("VOICE-ADMIT", 44),
    ("EF", 46),
    ("CS6", 48),
    ("CS7", 56),
];

/// The user priority Linux gives a packet with `dscp` (module doc).
pub fn user_priority(dscp: u8) -> u8 {
    match dscp & 0x3f {
        10 | 12 | 14 | 16 => 0, // AF11-13 (high-throughput data), CS2 (OAM)
        18 | 20 | 22 => 3,      // AF21-23 (low-latency data)
        24 | 26 | 28 | 30 => 4, // CS3 (broadcast video), AF31-33 (multimedia streaming)
        44 | 46 => 6,           // VOICE-ADMIT, EF (telephony)
        48 => 7,                // CS6 (network control)
        other => other >> 3,
    }
}

/// One AC's parameters: AIFSN, the contention window's bounds and the TXOP limit (0: one
/// frame exchange per access).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdcaParams {
    pub aifsn: u8,
    pub cw_min: u32,
    pub cw_max: u32,
    pub txop_limit_ns: u64,
}

/// AIFSN's bounds: 2-15 for a non-AP station, from 1 for an AP (§9.4.2.28).
pub const MIN_AIFSN: u8 = 1;
pub const MIN_STATION_AIFSN: u8 = 2;
pub const MAX_AIFSN: u8 = 15;
/// The TXOP Limit field counts units of 32 µs, at most 255 of them.
pub const TXOP_UNIT_NS: u64 = 32_000;
pub const MAX_TXOP_LIMIT_NS: u64 = 255 * TXOP_UNIT_NS;
/// The largest contention window the ECWmin and ECWmax fields can carry: 2^15 - 1.
pub const MAX_CW: u32 = 32_767;

impl EdcaParams {
    /// A non-AP station's parameters for `ac` (Table 9-155), from the PHY's aCWmin and
    /// aCWmax; `dsss`: the DSSS PHYs' TXOP limits.
    pub fn station(ac: AccessCategory, cw_min: u32, cw_max: u32, dsss: bool) -> EdcaParams {
        let (vi_txop, vo_txop) = if dsss {
            (6_016_000, 3_264_000)
        } else {
            (3_008_000, 1_504_000)
        };
        // (aCWmin + 1)/2 - 1 and (aCWmin + 1)/4 - 1: aCWmin + 1 is a power of two
        let half = ((cw_min + 1) >> 1) - 1;
        let quarter = ((cw_min + 1) >> 2) - 1;
        let (aifsn, cw_min, cw_max, txop_limit_ns) = match ac {
            AccessCategory::Bk => (7, cw_min, cw_max, 0),
            AccessCategory::Be => (3, cw_min, cw_max, 0),
            AccessCategory::Vi => (2, half, cw_min, vi_txop),
            AccessCategory::Vo => (2, quarter, half, vo_txop),
        };
        EdcaParams {
            aifsn,
            cw_min,
            cw_max,
            txop_limit_ns,
        }
    }

    /// An AP's own parameters for `ac` (dot11QAPEDCATable, Annex C).
    pub fn ap(ac: AccessCategory, cw_min: u32, cw_max: u32, dsss: bool) -> EdcaParams {
        let station = Self::station(ac, cw_min, cw_max, dsss);
        match ac {
            AccessCategory::Bk => station,
            AccessCategory::Be => EdcaParams {
                cw_max: 4 * (cw_min + 1) - 1,
                ..station
            },
            AccessCategory::Vi | AccessCategory::Vo => EdcaParams {
                aifsn: 1,
                ..station
            },
        }
    }
}

#[cfg(test)]
mod tests;
