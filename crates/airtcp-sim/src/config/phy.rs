//! A WLAN's PHY as a scenario gives it (`wlans[].phy`): the standard, its rate or MCS
//! settings, and how they become an `airtcp_proto::wifi::Phy` (or the field at fault).

use airtcp_proto::wifi::mcs::{Band, Format, McsPhy};
use airtcp_proto::wifi::{Phy, PhyError, Preamble};
use serde::Deserialize;

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
