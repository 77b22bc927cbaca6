//! A WLAN as a scenario gives it (`wlans[]`): its AP and stations, PHY, MAC settings,
//! per-station rates, aggregation, queueing and EDCA changes, and the parameters its MACs
//! take from them (`config::mac`).

use std::collections::BTreeMap;

use airtcp_proto::aqm::aql::AqlLimits;
use airtcp_proto::wifi::edca::{AccessCategory, EdcaParams};
use airtcp_proto::wifi::mcs::Format;
use airtcp_proto::wifi::{Modulation, Phy};
use serde::Deserialize;

use super::mac::{AmpduLimits, Driver, DriverQueue, EdcaSet, Qdisc, Queueing};
use super::{AgentConfig, ConfigError, PhyConfig};
use crate::aqm::AqmConfig;
use crate::error_model::ErrorModel;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WlanConfig {
    pub ap: usize,
    pub stations: Vec<usize>,
    pub phy: PhyConfig,
    /// Frames (MAC header + MSDU + FCS) longer than this use RTS/CTS.
    #[serde(default)]
    pub rts_threshold: Option<u32>,
    #[serde(default = "default_mac_queue")]
    pub queue_packets: u32,
    #[serde(default = "default_short_retry")]
    pub short_retry_limit: u32,
    #[serde(default = "default_long_retry")]
    pub long_retry_limit: u32,
    /// dot11MaxTransmitMSDULifetime, from an MSDU's first transmission attempt; `null`,
    /// the default, keeps a frame until it is sent or dropped at the retry limit, as real
    /// stations do (Linux's iwlwifi gives its firmware an infinite lifetime for data frames;
    /// mac80211 and ath9k have none) and ns-2; the standard's MIB default is 512 TU.
    #[serde(default)]
    pub msdu_lifetime_ns: Option<u64>,
    /// The longest an MSDU may wait in a MAC queue from its arrival (ns-3's `WifiMacQueue`
    /// MaxDelay); `null`, the default, sets no limit.
    #[serde(default)]
    pub queue_max_delay_ns: Option<u64>,
    /// Whether stations that did not send in a collision wait EIFS (the standard's reading:
    /// their PHY began to receive a frame that failed its FCS) or DIFS (ns-3's PHY, which
    /// detects no preamble at the 0 dB of two equal frames and sees a busy medium).
    #[serde(default = "yes")]
    pub eifs_after_collision: bool,
    #[serde(default)]
    pub errors: ErrorModel,
    /// The AP's agent; `None` is plain DCF without an agent.
    #[serde(default)]
    pub agent: Option<AgentConfig>,
    /// The channel number: WLANs on the same one share it (and have geometry); `None`, a
    /// channel of its own.
    #[serde(default)]
    pub channel: Option<u32>,
    /// Stations whose frames (both ways) go at a rate other than `phy.rate_bps`.
    #[serde(default)]
    pub station_rates: Vec<StationRate>,
    /// Stations of an MCS PHY whose frames (both ways) go at an MCS other than `phy.mcs`
    /// (802.11n: an MCS index of the same stream count).
    #[serde(default)]
    pub station_mcs: Vec<StationMcs>,
    /// A rate control algorithm (`airtcp_proto::wifi::rate_control`) instead of fixed rates.
    #[serde(default)]
    pub rate_control: Option<String>,
    /// A-MPDU aggregation with Block Ack (`wlan::dcf::ampdu`); `None`: on for the MCS PHYs
    /// (802.11n, ac, ax), which always aggregate in practice, off (and refused) for the rest.
    #[serde(default)]
    pub ampdu: Option<bool>,
    /// The longest A-MPDU in bytes; `None`: the format's own (`AmpduLimits::of`).
    #[serde(default)]
    pub max_ampdu_bytes: Option<u32>,
    /// The longest A-MSDU an MPDU of an A-MPDU carries; `None`: one MSDU an MPDU.
    #[serde(default)]
    pub max_amsdu_bytes: Option<u32>,
    /// The Block Ack window in MPDUs; `None`: 64, 256 for 802.11ax.
    #[serde(default)]
    pub ba_window: Option<u16>,
    /// The longest A-MPDU's PPDU; `None`: aPPDUMaxTime, 5.484 ms (ath9k sends at most 4 ms).
    #[serde(default)]
    pub max_ampdu_duration_ns: Option<u64>,
    /// The queues between the stack and each MAC (`wlan::dcf::txq`).
    #[serde(default)]
    pub queueing: Queueing,
    /// Beside `queueing = "fifo"`: a qdisc on each MAC's interface above its driver
    /// (`wlan::dcf::txq::qdisc`), any of the wired links' AQMs; none by default.
    #[serde(default)]
    pub aqm: AqmConfig,
    /// The driver's queue below mac80211's (`wlan::dcf::txq::firmware`): ath9k's, or a
    /// firmware queue, with or without airtime queue limits.
    #[serde(default)]
    pub driver_queue: DriverQueue,
    /// The firmware queue's depth in frames; `None`: 1424 (ath10k's).
    #[serde(default)]
    pub firmware_queue_frames: Option<u32>,
    /// AQL's limits; `None`: Linux's 5 ms, 12 ms and 24 ms (`airtcp_proto::aqm::aql`).
    #[serde(default)]
    pub aql_limit_low_ns: Option<u64>,
    #[serde(default)]
    pub aql_limit_high_ns: Option<u64>,
    #[serde(default)]
    pub aql_threshold_ns: Option<u64>,
    /// EDCA's four access categories (`wlan::dcf::edca`); `None`: on for the MCS PHYs
    /// (802.11n, ac and ax stations are QoS stations), off for the rest.
    #[serde(default)]
    pub edca: Option<bool>,
    /// The stations' EDCA parameters where they differ from the standard's (Table 9-155):
    /// what the AP announces in its EDCA Parameter Set.
    #[serde(default)]
    pub edca_params: BTreeMap<AccessCategory, EdcaOverride>,
    /// The AP's own where they differ from the standard's (dot11QAPEDCATable).
    #[serde(default)]
    pub ap_edca_params: BTreeMap<AccessCategory, EdcaOverride>,
}

/// An AC's EDCA parameters that differ from the default set's.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdcaOverride {
    #[serde(default)]
    pub aifsn: Option<u8>,
    #[serde(default)]
    pub cw_min: Option<u32>,
    #[serde(default)]
    pub cw_max: Option<u32>,
    #[serde(default)]
    pub txop_limit_ns: Option<u64>,
}

impl EdcaOverride {
    /// `params` with these changes.
    pub fn apply(&self, params: EdcaParams) -> EdcaParams {
        EdcaParams {
            aifsn: self.aifsn.unwrap_or(params.aifsn),
            cw_min: self.cw_min.unwrap_or(params.cw_min),
            cw_max: self.cw_max.unwrap_or(params.cw_max),
            txop_limit_ns: self.txop_limit_ns.unwrap_or(params.txop_limit_ns),
        }
    }
}

/// A station's MCS, to and from it.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StationMcs {
    pub station: usize,
    pub mcs: u8,
}

/// A station's data rate, to and from it.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StationRate {
    pub station: usize,
    pub rate_bps: u64,
}

impl WlanConfig {
    /// The PHY with its data at MCS `mcs`, or why not. 802.11n's MCS index carries a
    /// stream count: on a channel with geometry it must be the WLAN's (`same_streams`: its
    /// radios' SINR is taken for the WLAN's streams); in the central DCF a station may
    /// have fewer or more than the others.
    pub fn phy_at_mcs(&self, mcs: u8, same_streams: bool) -> Result<Phy, (&'static str, String)> {
        let own = self.phy.build()?;
        let mut config = self.phy.clone();
        config.mcs = Some(mcs);
        if !same_streams && self.phy.standard.mcs_format() == Some(Format::Ht) {
            config.spatial_streams = None;
        }
        let phy = config.build()?;
        match (phy.modulation, own.modulation) {
            (Modulation::Mcs(a), Modulation::Mcs(b)) if same_streams && a.streams != b.streams => {
                Err((
                    "mcs",
                    format!(
                        "HT MCS {mcs} has {} spatial stream(s), the WLAN's PHY {}",
                        a.streams, b.streams
                    ),
                ))
            }
            _ => Ok(phy),
        }
    }

    /// Whether the WLAN contends with EDCA (its PHY already checked).
    pub fn uses_edca(&self) -> bool {
        self.edca
            .unwrap_or_else(|| self.phy.standard.mcs_format().is_some())
    }

    /// The EDCA parameters of the stations and the AP on `phy`: the standard's, with the
    /// scenario's changes.
    pub fn edca_set(&self, phy: &Phy) -> EdcaSet {
        let standard = EdcaSet::standard(phy);
        let apply = |defaults: [EdcaParams; 4],
                     changes: &BTreeMap<AccessCategory, EdcaOverride>| {
            let mut params = defaults;
            for (ac, change) in changes {
                params[*ac as usize] = change.apply(params[*ac as usize]);
            }
            params
        };
        EdcaSet {
            station: apply(standard.station, &self.edca_params),
            ap: apply(standard.ap, &self.ap_edca_params),
        }
    }

    /// The A-MPDU limits when the WLAN aggregates (its PHY already checked).
    pub fn ampdu_limits(&self) -> Option<AmpduLimits> {
        let format = self.phy.standard.mcs_format()?;
        if self.ampdu == Some(false) {
            return None;
        }
        let own = AmpduLimits::of(format);
        Some(AmpduLimits {
            window: self.ba_window.unwrap_or(own.window),
            max_bytes: self.max_ampdu_bytes.unwrap_or(own.max_bytes),
            max_ppdu_ns: self.max_ampdu_duration_ns.unwrap_or(own.max_ppdu_ns),
            max_amsdu_bytes: self.max_amsdu_bytes.unwrap_or(own.max_amsdu_bytes),
        })
    }

    /// The limits on how long a frame may stay queued, whether each is set, its key and
    /// what it is (for refusals beside the mechanisms that do not run with them yet).
    pub fn queue_time_limits(&self) -> [(bool, &'static str, &'static str); 2] {
        [
            (
                self.msdu_lifetime_ns.is_some(),
                "msdu_lifetime_ns",
                "an MSDU lifetime",
            ),
            (
                self.queue_max_delay_ns.is_some(),
                "queue_max_delay_ns",
                "a queue sojourn limit",
            ),
        ]
    }

    /// The qdisc above each MAC's driver, if `aqm` names one; `rate_bps` is the BSS's data
    /// rate (RED's idle decay).
    pub fn qdisc(&self, seed: u64, bss: u32, rate_bps: u64) -> Option<Qdisc> {
        (self.aqm != AqmConfig::None).then_some(Qdisc {
            aqm: self.aqm,
            limit_packets: self.queue_packets,
            rate_bps,
            seed,
            bss,
        })
    }

    /// How each MAC's driver takes frames from mac80211's queues (`queueing`).
    pub fn driver(&self) -> Driver {
        let linux = AqlLimits::LINUX;
        Driver {
            queue: self.driver_queue,
            firmware_frames: self
                .firmware_queue_frames
                .unwrap_or(Driver::FIRMWARE_FRAMES),
            aql: AqlLimits {
                low_ns: self.aql_limit_low_ns.unwrap_or(linux.low_ns),
                high_ns: self.aql_limit_high_ns.unwrap_or(linux.high_ns),
                threshold_ns: self.aql_threshold_ns.unwrap_or(linux.threshold_ns),
            },
        }
    }

    /// The PHY of the WLAN at `key` (`wlans[0]`), or an error naming the field at fault.
    pub fn build_phy(&self, key: &str) -> Result<Phy, ConfigError> {
        self.phy.build().map_err(|(field, message)| ConfigError {
            key: format!("{key}.phy.{field}"),
            message,
        })
    }
}

fn default_mac_queue() -> u32 {
    100
}

fn default_short_retry() -> u32 {
    7
}

fn default_long_retry() -> u32 {
    4
}

fn yes() -> bool {
    true
}
