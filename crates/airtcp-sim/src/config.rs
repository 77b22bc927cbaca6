//! The resolved scenario the simulator runs: plain numbers (ns, bit/s, bytes) and node
//! indices. Python turns a user's TOML (units, templates, dotted overrides) into this JSON;
//! the same schema will drive the emulator. Unknown fields are errors here too, so a
//! mismatch between the two layers cannot pass silently.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use airtcp_proto::aqm::aql::AqlLimits;
use airtcp_proto::tcp::cc::CongestionParams;
use airtcp_proto::tcp::{
    Ecn, LossRecovery, RtoFloor, SlowStart, SynLossWindow, TcpConfig, TcpProfile, ZeroWindow,
};
use airtcp_proto::wifi::edca::{AccessCategory, EdcaParams};
use airtcp_proto::wifi::mcs::{Band, Format, McsPhy};
use airtcp_proto::wifi::{Modulation, Phy, PhyError, Preamble};
use serde::Deserialize;

use crate::aqm::AqmConfig;
use crate::error_model::ErrorModel;
pub use crate::mobility::MobileConfig;
use crate::queue::QueueLimit;
pub use crate::radio::{NodePosition, RadioConfig};
use crate::wlan::{AmpduLimits, Driver, DriverQueue, EdcaSet, Qdisc, Queueing};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    pub seed: u64,
    pub duration_ns: u64,
    /// Goodput is measured from here to the end.
    #[serde(default)]
    pub measure_from_ns: u64,
    /// Per-flow time series sampling period; 0 disables it.
    #[serde(default)]
    pub sample_interval_ns: u64,
    /// Time each TCP bulk and UDP flow's data packets from sender to receiver
    /// (`one_way_delay`); off by default (it costs a queue operation a packet).
    #[serde(default)]
    pub one_way_delay: bool,
    /// Measure the sojourn of every packet through each wired link direction's queue and
    /// each WLAN MAC's, and put the MACs' queues in the queue series (`queue_sojourn`;
    /// `crate::sojourn`, `wlan::dcf::queue_meter`); off by default (a DropTail queue then
    /// keeps arrival times).
    #[serde(default)]
    pub queue_sojourn: bool,
    pub nodes: Vec<String>,
    #[serde(default)]
    pub links: Vec<LinkConfig>,
    #[serde(default)]
    pub wlans: Vec<WlanConfig>,
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// Agents on nodes' interfaces, after each WLAN's `agent` (placed on its AP).
    #[serde(default)]
    pub agents: Vec<AgentPlacement>,
    /// Mobile hosts and their handoffs between base stations.
    #[serde(default)]
    pub mobiles: Vec<MobileConfig>,
    /// The radio channel of WLANs with geometry (`crate::radio`).
    #[serde(default)]
    pub radio: RadioConfig,
    /// Where nodes' radios are; a WLAN any of whose nodes has one has geometry.
    #[serde(default)]
    pub positions: Vec<NodePosition>,
}

/// An agent on a node's interface: `interface` names the peer of a wired link or `"wlan"`,
/// and may be left out when the node has one interface.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentPlacement {
    pub node: usize,
    #[serde(default)]
    pub interface: Option<String>,
    pub agent: AgentConfig,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub a: usize,
    pub b: usize,
    pub a_to_b: DirectionConfig,
    pub b_to_a: DirectionConfig,
    /// Times the link is down both ways (a cable pulled, a radio link lost): the packet on
    /// the wire and everything sent meanwhile are lost.
    #[serde(default)]
    pub outages: Vec<OutageConfig>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutageConfig {
    pub at_ns: u64,
    pub duration_ns: u64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionConfig {
    /// A constant rate, or instead `trace_ms`: the times of a mahimahi packet-delivery
    /// trace (`crate::delivery_trace`).
    #[serde(default)]
    pub rate_bps: Option<u64>,
    #[serde(default)]
    pub trace_ms: Option<Vec<u64>>,
    pub delay_ns: u64,
    #[serde(default)]
    pub queue: QueueLimit,
    /// DropTail without one (`crate::aqm`).
    #[serde(default)]
    pub aqm: AqmConfig,
    #[serde(default)]
    pub errors: ErrorModel,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum PhyStandard {
    #[serde(rename = "802.11b")]
    Dsss,
    #[serde(rename = "802.11g")]
    ErpOfdm,
    #[serde(rename = "bianchi2000")]
    Bianchi2000,
    #[serde(rename = "802.11a")]
    Ofdm,
    #[serde(rename = "802.11n")]
    Ht,
    #[serde(rename = "802.11ac")]
    Vht,
    #[serde(rename = "802.11ax")]
    He,
}

impl PhyStandard {
    /// The PHYs a WLAN may have (Bianchi's FHSS set is for his model alone).
    pub const WLAN: [PhyStandard; 6] = [
        PhyStandard::Dsss,
        PhyStandard::ErpOfdm,
        PhyStandard::Ofdm,
        PhyStandard::Ht,
        PhyStandard::Vht,
        PhyStandard::He,
    ];

    /// The name scenarios give it.
    pub fn name(self) -> &'static str {
        match self {
            PhyStandard::Dsss => "802.11b",
            PhyStandard::ErpOfdm => "802.11g",
            PhyStandard::Bianchi2000 => "bianchi2000",
            PhyStandard::Ofdm => "802.11a",
            PhyStandard::Ht => "802.11n",
            PhyStandard::Vht => "802.11ac",
            PhyStandard::He => "802.11ax",
        }
    }

    /// The MCS PHY format, for 802.11n, ac and ax.
    pub fn mcs_format(self) -> Option<Format> {
        match self {
            PhyStandard::Ht => Some(Format::Ht),
            PhyStandard::Vht => Some(Format::Vht),
            PhyStandard::He => Some(Format::He),
            _ => None,
        }
    }
}

/// The band of an 802.11n or 802.11ax WLAN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum BandConfig {
    #[serde(rename = "2.4GHz")]
    Ghz2_4,
    #[serde(rename = "5GHz")]
    Ghz5,
    #[serde(rename = "6GHz")]
    Ghz6,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhyConfig {
    pub standard: PhyStandard,
    /// The data rate of 802.11a/b/g; the MCS PHYs take `mcs` instead.
    #[serde(default)]
    pub rate_bps: Option<u64>,
    /// The MCS PHYs' settings (`airtcp_proto::wifi::mcs`); defaults in `McsSettings`.
    #[serde(default)]
    pub mcs: Option<u8>,
    #[serde(default)]
    pub channel_width_mhz: Option<u16>,
    #[serde(default)]
    pub spatial_streams: Option<u8>,
    #[serde(default)]
    pub guard_interval_ns: Option<u16>,
    #[serde(default)]
    pub band: Option<BandConfig>,
    #[serde(default)]
    pub basic_rate_bps: Option<u64>,
    #[serde(default = "long_preamble")]
    pub preamble: Preamble,
    #[serde(default = "yes")]
    pub short_slot: bool,
    #[serde(default)]
    pub cw_min: Option<u32>,
    #[serde(default)]
    pub cw_max: Option<u32>,
}

impl DirectionConfig {
    /// The constant rate, or a trace's average rate.
    pub fn mean_rate_bps(&self) -> u64 {
        match (&self.trace_ms, self.rate_bps) {
            (Some(times), _) => crate::delivery_trace::mean_rate_bps(times),
            (None, rate) => rate.unwrap_or(0),
        }
    }
}

fn long_preamble() -> Preamble {
    Preamble::Long
}

fn yes() -> bool {
    true
}

impl PhyConfig {
    /// The PHY, or the field at fault (`rate_bps`, `basic_rate_bps`, `mcs`,
    /// `channel_width_mhz`, `spatial_streams`, `guard_interval_ns`, `band`, `cw_min`,
    /// `cw_max`) and why.
    pub fn build(&self) -> Result<Phy, (&'static str, String)> {
        let field = |e: PhyError| {
            let name = match e.parameter {
                "basic_rate" => "basic_rate_bps",
                "channel_width" => "channel_width_mhz",
                "guard_interval" => "guard_interval_ns",
                "spatial_streams" => "spatial_streams",
                "mcs" => "mcs",
                "band" => "band",
                _ => "rate_bps",
            };
            (name, e.message)
        };
        let name = self.standard.name();
        let mut phy = match self.standard.mcs_format() {
            Some(format) => {
                if self.rate_bps.is_some() {
                    return Err((
                        "rate_bps",
                        format!("{name} sends data at an MCS: set mcs, not a rate"),
                    ));
                }
                let (setting, mcs) = self.mcs_setting(format).map_err(field)?;
                Phy::mcs(setting, mcs, self.basic_rate_bps).map_err(field)?
            }
            None => {
                let mcs_keys = [
                    ("mcs", self.mcs.is_some()),
                    ("channel_width_mhz", self.channel_width_mhz.is_some()),
                    ("spatial_streams", self.spatial_streams.is_some()),
                    ("guard_interval_ns", self.guard_interval_ns.is_some()),
                    ("band", self.band.is_some()),
                ];
                if let Some((key, _)) = mcs_keys.iter().find(|(_, given)| *given) {
                    return Err((
                        key,
                        format!("is a setting of 802.11n, ac and ax, not of {name}"),
                    ));
                }
                let Some(rate) = self.rate_bps else {
                    return Err(("rate_bps", format!("{name} needs a data rate")));
                };
                match self.standard {
                    PhyStandard::Dsss => Phy::dsss(
                        rate,
                        self.basic_rate_bps.unwrap_or(1_000_000),
                        self.preamble,
                    )
                    .map_err(field)?,
                    PhyStandard::ErpOfdm => {
                        Phy::erp_ofdm(rate, self.basic_rate_bps, self.short_slot).map_err(field)?
                    }
                    PhyStandard::Ofdm => Phy::ofdm(rate, self.basic_rate_bps).map_err(field)?,
                    _ => Phy::bianchi2000(31, 5),
                }
            }
        };
        if let Some(cw_min) = self.cw_min {
            phy.cw_min = cw_min;
        }
        if let Some(cw_max) = self.cw_max {
            phy.cw_max = cw_max;
        }
        for (name, value) in [("cw_min", phy.cw_min), ("cw_max", phy.cw_max)] {
            if !(value + 1).is_power_of_two() || !(1..=32_767).contains(&value) {
                return Err((name, format!("{value} is not 2^k - 1 between 1 and 32767")));
            }
        }
        if phy.cw_max < phy.cw_min {
            return Err((
                "cw_max",
                format!("{} is below cw_min {}", phy.cw_max, phy.cw_min),
            ));
        }
        Ok(phy)
    }

    /// The band: 2.4 GHz for 802.11b and g, 5 GHz for 802.11a and ac, the `band` setting
    /// (5 GHz by default) for 802.11n and ax.
    pub fn band(&self) -> Band {
        match self.standard {
            PhyStandard::Dsss | PhyStandard::ErpOfdm | PhyStandard::Bianchi2000 => Band::Ghz2_4,
            PhyStandard::Ofdm | PhyStandard::Vht => Band::Ghz5,
            PhyStandard::Ht | PhyStandard::He => match self.band {
                Some(BandConfig::Ghz2_4) => Band::Ghz2_4,
                Some(BandConfig::Ghz6) => Band::Ghz6,
                Some(BandConfig::Ghz5) | None => Band::Ghz5,
            },
        }
    }

    /// An MCS PHY's setting and its MCS (HT: of its stream count), defaults applied: 20 MHz
    /// for 802.11n and 80 MHz for ac and ax, one stream (802.11n: those of its MCS index,
    /// 0-31), the 0.8 µs guard interval, 5 GHz, the highest MCS that exists.
    fn mcs_setting(&self, format: Format) -> Result<(McsPhy, u8), PhyError> {
        let width = self.channel_width_mhz.unwrap_or(match format {
            Format::Ht => 20,
            Format::Vht | Format::He => 80,
        });
        let mut streams = self.spatial_streams.unwrap_or(1);
        let mut mcs = self.mcs;
        if let (Format::Ht, Some(index)) = (format, self.mcs) {
            if index > 31 {
                return Err(PhyError {
                    parameter: "mcs",
                    message: format!("HT MCS {index}: expected 0 to 31"),
                });
            }
            let implied = index / 8 + 1;
            if self.spatial_streams.is_some_and(|s| s != implied) {
                return Err(PhyError {
                    parameter: "spatial_streams",
                    message: format!("HT MCS {index} has {implied} spatial stream(s)"),
                });
            }
            streams = implied;
            mcs = Some(index % 8);
        }
        let gi = self.guard_interval_ns.unwrap_or(800);
        if let Some(band) = self.band {
            if format == Format::Vht && band != BandConfig::Ghz5 {
                return Err(PhyError {
                    parameter: "band",
                    message: "802.11ac is a 5 GHz PHY".to_string(),
                });
            }
        }
        let setting = McsPhy::new(format, width, streams, gi, self.band())?;
        let mcs = mcs.unwrap_or_else(|| setting.mcs_list().last().unwrap_or(0));
        Ok((setting, mcs))
    }
}

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
    /// The PHY of the WLAN at `key` (`wlans[0]`), or an error naming the field at fault.
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

    /// How each MAC's driver takes frames from mac80211's queues (`queueing`).
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

    pub fn build_phy(&self, key: &str) -> Result<Phy, ConfigError> {
        self.phy.build().map_err(|(field, message)| ConfigError {
            key: format!("{key}.phy.{field}"),
            message,
        })
    }
}

/// An agent of `airtcp_proto::agent` and its settings (defaults in docs/agents.md).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    pub kind: String,
    /// TXOP limit of `txop_burst`; default: the EDCA AC_VO limit of the PHY.
    #[serde(default)]
    pub txop_limit_ns: Option<u64>,
    /// Most frames per aggregate of `ack_aggregation` (default 16).
    #[serde(default)]
    pub max_aggregate: Option<u32>,
    /// Contending stations `adaptive` aims for; default: Bianchi's optimum for the stations.
    #[serde(default)]
    pub target_stations: Option<f64>,
    /// With EDCA, the access category whose EDCAF the agent works on (plans, or sees the
    /// queue of); `None`: best effort.
    #[serde(default)]
    pub ac: Option<AccessCategory>,
    /// A limit of the AP's ACK queue of its own; `None` shares the WLAN's `queue_packets`
    /// between the AP's two queues, so an agent does not enlarge the AP's buffer.
    #[serde(default)]
    pub ack_queue_packets: Option<u32>,
    /// Snoop's smallest local retransmission timeout (`snoop`, `snoop_freeze`).
    #[serde(default)]
    pub local_rto_min_ns: Option<u64>,
    /// `mtcp`: silence of the mobile, with data outstanding, after which it freezes.
    #[serde(default)]
    pub silence_ns: Option<u64>,
    /// `fast_retransmit`: duplicate ACKs the mobile sends after a handoff.
    #[serde(default)]
    pub duplicate_acks: Option<u32>,
    /// `dar`: what a fast retransmit does to regeneration.
    #[serde(default)]
    pub fast_recovery: Option<FastRecoveryConfig>,
}

/// `dar`'s `fast_recovery` (`airtcp_proto::agent::FastRecovery`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FastRecoveryConfig {
    Pass,
    Regenerate,
}

impl FastRecoveryConfig {
    /// The kinds the setting applies to.
    pub const KINDS: &'static [&'static str] = &["dar"];
}

impl From<FastRecoveryConfig> for airtcp_proto::agent::FastRecovery {
    fn from(config: FastRecoveryConfig) -> Self {
        match config {
            FastRecoveryConfig::Pass => Self::Pass,
            FastRecoveryConfig::Regenerate => Self::Regenerate,
        }
    }
}

/// One setting of the mobility agents (paper 001): its key, the kinds it applies to, its
/// value as set and as used.
pub struct MobilitySetting {
    pub name: &'static str,
    pub kinds: &'static [&'static str],
    pub set: Option<u64>,
    pub effective: u64,
}

impl AgentConfig {
    /// The mobility agents' settings.
    pub fn mobility_settings(&self) -> [MobilitySetting; 3] {
        let used = self.settings();
        [
            MobilitySetting {
                name: "local_rto_min_ns",
                kinds: &["snoop", "snoop_freeze"],
                set: self.local_rto_min_ns,
                effective: used.local_rto_min_ns,
            },
            MobilitySetting {
                name: "silence_ns",
                kinds: &["mtcp"],
                set: self.silence_ns,
                effective: used.silence_ns,
            },
            MobilitySetting {
                name: "duplicate_acks",
                kinds: &["fast_retransmit"],
                set: self.duplicate_acks.map(u64::from),
                effective: u64::from(used.duplicate_acks),
            },
        ]
    }

    /// The settings of the agent, defaults applied (`AgentSettings::DEFAULT`); an AP's
    /// settings that depend on its WLAN are the caller's.
    pub fn settings(&self) -> airtcp_proto::agent::AgentSettings {
        let mut settings = airtcp_proto::agent::AgentSettings::DEFAULT;
        if let Some(ns) = self.local_rto_min_ns {
            settings.local_rto_min_ns = ns;
        }
        if let Some(ns) = self.silence_ns {
            settings.silence_ns = ns;
        }
        if let Some(copies) = self.duplicate_acks {
            settings.duplicate_acks = copies;
        }
        if let Some(fast_recovery) = self.fast_recovery {
            settings.fast_recovery = fast_recovery.into();
        }
        settings
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

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    pub name: String,
    pub src: usize,
    pub dst: usize,
    #[serde(default)]
    pub start_ns: u64,
    #[serde(default)]
    pub stop_ns: Option<u64>,
    /// The DSCP its packets carry, both ways (RFC 2474; a WLAN with EDCA maps it to an AC).
    #[serde(default)]
    pub dscp: u8,
    pub app: AppConfig,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    /// FTP-like bulk transfer over TCP: unlimited, or `bytes` then close.
    TcpBulk {
        #[serde(default)]
        bytes: Option<u64>,
        #[serde(default = "newreno")]
        congestion_control: String,
        #[serde(default)]
        tcp: TcpOverrides,
    },
    /// Many finite TCP flows (`workload`): sizes drawn from `sizes`, arriving as a Poisson
    /// process whose mean offered rate is `rate_bps`, at most `count` of them, each
    /// a connection of its own (`congestion_control`, `tcp`).
    TcpWorkload {
        sizes: crate::workload::SizeSpec,
        rate_bps: u64,
        #[serde(default)]
        count: Option<u64>,
        #[serde(default = "newreno")]
        congestion_control: String,
        #[serde(default)]
        tcp: TcpOverrides,
    },
    /// UDP constant bit rate.
    UdpCbr { rate_bps: u64, payload_bytes: u32 },
    /// ICMP echo probes, as ping sends them: `count` groups `interval_ns` apart, each a
    /// train of `train` requests back to back (1: ping; 2 or more: packet pairs and trains
    /// for capacity estimates); the destination answers each. `one_way`: the probes are
    /// echo replies, which nobody answers, so that a train has the path to itself (capacity
    /// tools send one-way UDP for the same reason).
    Ping {
        count: u32,
        interval_ns: u64,
        payload_bytes: u32,
        train: u32,
        #[serde(default)]
        one_way: bool,
    },
}

fn newreno() -> String {
    "newreno".into()
}

/// TCP settings a scenario may change; the rest come from the profile.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpOverrides {
    pub profile: Option<TcpProfile>,
    pub mss: Option<u32>,
    pub initial_window: Option<u32>,
    pub initial_rto_ns: Option<u64>,
    pub min_rto_ns: Option<u64>,
    pub max_rto_ns: Option<u64>,
    pub rto_floor: Option<RtoFloor>,
    pub delayed_ack: Option<bool>,
    pub delayed_ack_timeout_ns: Option<u64>,
    pub ack_every: Option<u32>,
    pub send_buffer: Option<u32>,
    pub receive_buffer: Option<u32>,
    pub receive_autotuning: Option<bool>,
    pub window_scaling: Option<bool>,
    pub sack: Option<bool>,
    pub timestamps: Option<bool>,
    pub nagle: Option<bool>,
    pub time_wait_ns: Option<u64>,
    pub zero_window: Option<ZeroWindow>,
    pub syn_loss_window: Option<SynLossWindow>,
    pub slow_start: Option<SlowStart>,
    pub loss_recovery: Option<LossRecovery>,
    pub ecn: Option<Ecn>,
    pub pacing: Option<bool>,
    pub congestion_params: Option<CongestionParams>,
}

impl TcpOverrides {
    pub fn build(&self) -> TcpConfig {
        let mut c = TcpConfig::profile(self.profile.unwrap_or_default());
        let ns = Duration::from_nanos;
        if let Some(v) = self.mss {
            c.mss = v;
        }
        if self.initial_window.is_some() {
            c.initial_window = self.initial_window;
        }
        if let Some(v) = self.initial_rto_ns {
            c.initial_rto = ns(v);
        }
        if let Some(v) = self.min_rto_ns {
            c.min_rto = ns(v);
        }
        if let Some(v) = self.max_rto_ns {
            c.max_rto = ns(v);
        }
        if let Some(v) = self.rto_floor {
            c.rto_floor = v;
        }
        if let Some(v) = self.delayed_ack {
            c.delayed_ack = v;
        }
        if let Some(v) = self.delayed_ack_timeout_ns {
            c.delayed_ack_timeout = ns(v);
        }
        if let Some(v) = self.ack_every {
            c.ack_every = v;
        }
        if let Some(v) = self.send_buffer {
            c.send_buffer = v;
        }
        if let Some(v) = self.receive_buffer {
            c.receive_buffer = v;
        }
        if let Some(v) = self.receive_autotuning {
            c.receive_autotuning = v;
        }
        if let Some(v) = self.window_scaling {
            c.window_scaling = v;
        }
        if let Some(v) = self.sack {
            c.sack = v;
        }
        if let Some(v) = self.timestamps {
            c.timestamps = v;
        }
        if let Some(v) = self.nagle {
            c.nagle = v;
        }
        if let Some(v) = self.time_wait_ns {
            c.time_wait = ns(v);
        }
        if let Some(v) = self.zero_window {
            c.zero_window = v;
        }
        if let Some(v) = self.syn_loss_window {
            c.syn_loss_window = v;
        }
        if let Some(v) = self.slow_start {
            c.slow_start = v;
        }
        if let Some(v) = self.loss_recovery {
            c.loss_recovery = v;
        }
        if let Some(v) = self.ecn {
            c.ecn = v;
        }
        if let Some(v) = self.pacing {
            c.pacing = v;
        }
        if let Some(v) = &self.congestion_params {
            c.congestion_params = v.clone();
        }
        c
    }
}

/// A scenario that cannot run: the resolved field at fault and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

impl std::error::Error for ConfigError {}

impl Scenario {
    /// Parses and validates (`crate::validate`) a resolved scenario.
    pub fn from_json(text: &str) -> Result<Scenario, ConfigError> {
        let scenario: Scenario = serde_json::from_str(text).map_err(|e| ConfigError {
            key: "scenario".into(),
            message: e.to_string(),
        })?;
        scenario.validate()?;
        Ok(scenario)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phy_names_are_the_ones_scenarios_use() {
        for phy in PhyStandard::WLAN
            .into_iter()
            .chain([PhyStandard::Bianchi2000])
        {
            let parsed: PhyStandard =
                serde_json::from_value(serde_json::json!(phy.name())).expect("a name serde reads");
            assert_eq!(parsed, phy);
        }
    }

    fn mcs_config(standard: PhyStandard) -> PhyConfig {
        serde_json::from_value(serde_json::json!({ "standard": standard.name() })).unwrap()
    }

    #[test]
    fn mcs_phys_default_to_one_stream_the_widest_common_channel_and_the_top_mcs() {
        let ac = mcs_config(PhyStandard::Vht).build().unwrap();
        assert_eq!(ac.name, "802.11ac");
        assert_eq!(ac.data_rate_bps, 390_000_000, "MCS 9, 80 MHz, 1 stream");
        let n = mcs_config(PhyStandard::Ht).build().unwrap();
        assert_eq!(n.data_rate_bps, 65_000_000, "MCS 7, 20 MHz");
        let mut ht = mcs_config(PhyStandard::Ht);
        ht.mcs = Some(15);
        assert_eq!(
            ht.build().unwrap().data_rate_bps,
            130_000_000,
            "two streams"
        );
        ht.spatial_streams = Some(1);
        assert_eq!(ht.build().unwrap_err().0, "spatial_streams");
        let mut ax = mcs_config(PhyStandard::He);
        ax.rate_bps = Some(54_000_000);
        assert_eq!(ax.build().unwrap_err().0, "rate_bps");
        let mut b: PhyConfig = serde_json::from_value(
            serde_json::json!({"standard": "802.11b", "rate_bps": 11e6 as u64}),
        )
        .unwrap();
        b.channel_width_mhz = Some(20);
        assert_eq!(b.build().unwrap_err().0, "channel_width_mhz");
        let mut ac = mcs_config(PhyStandard::Vht);
        ac.band = Some(BandConfig::Ghz2_4);
        assert_eq!(ac.build().unwrap_err().0, "band");
    }
}
