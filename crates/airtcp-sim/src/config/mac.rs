//! What a WLAN's MACs run with: the scenario's `queueing` and `driver_queue` settings, and
//! the parameters `WlanConfig` resolves for the MACs (`wlan::dcf`, `radio`): the EDCA
//! parameter set, the A-MPDU limits, the driver below mac80211's queues and the qdisc above
//! it. The behaviour that uses them stays with the MACs.

use airtcp_proto::aqm::aql::AqlLimits;
use airtcp_proto::wifi::edca::{AccessCategory, EdcaParams};
use airtcp_proto::wifi::mcs::Format;
use airtcp_proto::wifi::Phy;

use crate::aqm::AqmConfig;
use crate::queue::QueueLimit;

/// Which queues a MAC keeps between the stack and the channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Queueing {
    /// One DropTail FIFO per MAC (`queue_packets`), as ns-2 and ns-3 give.
    #[default]
    Fifo,
    /// mac80211's per-station FQ-CoDel queues, stations served in turn.
    FqCodel,
    /// mac80211's per-station FQ-CoDel queues with airtime fairness.
    FqCodelAirtime,
}

impl Queueing {
    /// The scenario's names of the settings, in order.
    pub const NAMES: [&'static str; 3] = ["fifo", "fq_codel", "fq_codel_airtime"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// The driver's queue below mac80211's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DriverQueue {
    /// ath9k's hardware queue: two A-MPDUs or eight frames deep.
    #[default]
    Ath9k,
    /// A firmware queue of up to `firmware_queue_frames` frames.
    Firmware,
    /// A firmware queue with mac80211's airtime queue limits.
    FirmwareAql,
}

impl DriverQueue {
    /// The scenario's names of the settings, in order.
    pub const NAMES: [&'static str; 3] = ["ath9k", "firmware", "firmware_aql"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// How a MAC's driver takes frames from mac80211's queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Driver {
    pub queue: DriverQueue,
    /// The firmware queue's depth (not `Ath9k`).
    pub firmware_frames: u32,
    /// AQL's limits (`FirmwareAql`).
    pub aql: AqlLimits,
}

impl Driver {
    /// ath10k 10.x's MSDU descriptors (`TARGET_10X_NUM_MSDU_DESC`, 1024 + 400).
    pub const FIRMWARE_FRAMES: u32 = 1424;

    pub const ATH9K: Driver = Driver {
        queue: DriverQueue::Ath9k,
        firmware_frames: Self::FIRMWARE_FRAMES,
        aql: AqlLimits::LINUX,
    };
}

/// The qdisc a WLAN's MACs keep above their drivers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Qdisc {
    pub aqm: AqmConfig,
    /// The WLAN's `queue`.
    pub limit_packets: u32,
    /// RED's idle decay: the BSS's data rate.
    pub rate_bps: u64,
    /// The scenario's seed and the WLAN's index: each qdisc draws from a stream of its own.
    pub seed: u64,
    pub bss: u32,
}

impl Qdisc {
    /// Its limit: the WLAN's `queue`, in packets.
    pub fn limit(&self) -> QueueLimit {
        QueueLimit::packets(self.limit_packets)
    }
}

/// The parameters of the four ACs (in `AccessCategory::ALL`'s order) for the stations and
/// for the AP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdcaSet {
    pub station: [EdcaParams; 4],
    pub ap: [EdcaParams; 4],
}

impl EdcaSet {
    /// The standard's: Table 9-155 for the stations, dot11QAPEDCATable for the AP, from the
    /// PHY's aCWmin and aCWmax.
    pub fn standard(phy: &Phy) -> EdcaSet {
        let dsss = matches!(phy.modulation, airtcp_proto::wifi::Modulation::Dsss(_));
        let of = |build: fn(AccessCategory, u32, u32, bool) -> EdcaParams| {
            AccessCategory::ALL.map(|ac| build(ac, phy.cw_min, phy.cw_max, dsss))
        };
        EdcaSet {
            station: of(EdcaParams::station),
            ap: of(EdcaParams::ap),
        }
    }
}

/// The longest PPDU (aPPDUMaxTime, 5.484 ms, the longest an L-SIG can announce).
pub const MAX_PPDU_NS: u64 = 5_484_000;

/// The limits of an A-MPDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmpduLimits {
    /// The Block Ack window: MPDUs in flight from the oldest unacknowledged one.
    pub window: u16,
    /// The longest A-MPDU (PSDU) in bytes.
    pub max_bytes: u32,
    /// The longest PPDU.
    pub max_ppdu_ns: u64,
    /// The longest A-MSDU an MPDU carries; 0: one MSDU an MPDU (the default, as ath9k and
    /// ns-3 send).
    pub max_amsdu_bytes: u32,
}

impl AmpduLimits {
    /// The format's own: a window of 64 (256 for HE) and the longest A-MPDU its
    /// capabilities allow (HT 65 535 bytes, VHT 1 048 575, HE 6 500 631), within 5.484 ms.
    pub fn of(format: Format) -> AmpduLimits {
        let (window, max_bytes) = match format {
            Format::Ht => (64, 65_535),
            Format::Vht => (64, 1_048_575),
            Format::He => (256, 6_500_631),
        };
        AmpduLimits {
            window,
            max_bytes,
            max_ppdu_ns: MAX_PPDU_NS,
            max_amsdu_bytes: 0,
        }
    }
}
