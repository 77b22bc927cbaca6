//! The scenario's radio settings: where nodes are and how they move, how signals travel
//! between them, and what a receiver needs to detect and decode a frame. They apply to the
//! WLANs with geometry (a WLAN whose nodes have positions, that shares its channel, or that
//! runs rate control), whose channel is `radio`'s (`radio::motion` moves the nodes); the
//! others keep the single collision domain of `wlan::dcf`.
//!
//! Defaults are ns-3's (3.44) YANS PHY and channel: log-distance loss with exponent 3 and
//! 46.6777 dB at 1 m (`LogDistancePropagationLossModel`), 16.0206 dBm transmit power
//! (`TxPowerStart`), 7 dB noise figure (`RxNoiseFigure`), CCA energy detection at -62 dBm
//! (`CcaEdThreshold`), preamble detection at 4 dB SNR and -82 dBm
//! (`ThresholdPreambleDetectionModel`), no frame capture (`FrameCaptureModel` unset; ns-3's
//! `SimpleFrameCaptureModel` margin is 5 dB), propagation at the speed of light
//! (`ConstantSpeedPropagationDelayModel`).

use serde::{Deserialize, Serialize};

use airtcp_proto::wifi::propagation::PathLoss;

/// A point of a path: where the node is at `at_ns`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PathPoint {
    pub at_ns: u64,
    pub x: f64,
    pub y: f64,
    #[serde(default)]
    pub z: f64,
}

/// How a node moves from its position.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum MotionConfig {
    /// From its position at time 0 through these points, in time order.
    Path { points: Vec<PathPoint> },
    /// Random waypoint within the rectangle [x_min, x_max] × [y_min, y_max] (at its z).
    RandomWaypoint {
        x_min: f64,
        x_max: f64,
        y_min: f64,
        y_max: f64,
        speed_min_mps: f64,
        speed_max_mps: f64,
        #[serde(default)]
        pause_ns: u64,
    },
}

/// A node's radio: where it is (metres) and, if it differs from the scenario's, its transmit
/// power.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodePosition {
    pub node: usize,
    pub x: f64,
    pub y: f64,
    #[serde(default)]
    pub z: f64,
    #[serde(default)]
    pub tx_power_dbm: Option<f64>,
    /// How it moves from there, if it does.
    #[serde(default)]
    pub motion: Option<MotionConfig>,
}

/// The deterministic path loss (`airtcp_proto::wifi::propagation`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum PropagationConfig {
    LogDistance {
        #[serde(default = "default_exponent")]
        exponent: f64,
        #[serde(default = "default_reference_loss")]
        reference_loss_db: f64,
        #[serde(default = "one")]
        reference_distance_m: f64,
    },
    /// Free space at the channel's centre frequency.
    Friis {
        #[serde(default)]
        system_loss_db: f64,
    },
    /// Two-ray ground reflection, antennas `antenna_height_m` above each node's z.
    TwoRayGround {
        #[serde(default)]
        system_loss_db: f64,
        #[serde(default = "default_antenna_height")]
        antenna_height_m: f64,
    },
}

impl Default for PropagationConfig {
    fn default() -> Self {
        PropagationConfig::LogDistance {
            exponent: default_exponent(),
            reference_loss_db: default_reference_loss(),
            reference_distance_m: 1.0,
        }
    }
}

impl PropagationConfig {
    /// The loss model at a channel's centre frequency.
    pub fn path_loss(&self, frequency_hz: f64) -> PathLoss {
        match *self {
            PropagationConfig::LogDistance {
                exponent,
                reference_loss_db,
                reference_distance_m,
            } => PathLoss::LogDistance {
                exponent,
                reference_loss_db,
                reference_distance_m,
            },
            PropagationConfig::Friis { system_loss_db } => PathLoss::Friis {
                frequency_hz,
                system_loss_db,
                min_loss_db: 0.0,
            },
            PropagationConfig::TwoRayGround { system_loss_db, .. } => PathLoss::TwoRayGround {
                frequency_hz,
                system_loss_db,
                min_loss_db: 0.0,
            },
        }
    }

    /// Antenna height above a node's z (two-ray only).
    pub fn antenna_height_m(&self) -> f64 {
        match *self {
            PropagationConfig::TwoRayGround {
                antenna_height_m, ..
            } => antenna_height_m,
            _ => 0.0,
        }
    }
}

/// Per-frame fading of the received power on top of path loss and shadowing.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum FadingConfig {
    #[default]
    None,
    /// Rayleigh: the power is exponentially distributed about its mean.
    Rayleigh,
    /// Nakagami-m: the power is Gamma(m, mean/m) (ns-3's `NakagamiPropagationLossModel`
    /// with one m at every distance); m = 1 is Rayleigh.
    Nakagami { m: f64 },
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RadioConfig {
    #[serde(default)]
    pub propagation: PropagationConfig,
    /// Log-normal shadowing: a loss drawn once per pair of radios, normal in dB with this
    /// standard deviation (0: none).
    #[serde(default)]
    pub shadowing_sigma_db: f64,
    #[serde(default)]
    pub fading: FadingConfig,
    #[serde(default = "default_tx_power")]
    pub tx_power_dbm: f64,
    /// Gain of each antenna (the transmitter's and the receiver's both count).
    #[serde(default)]
    pub antenna_gain_db: f64,
    #[serde(default = "default_noise_figure")]
    pub noise_figure_db: f64,
    /// CCA energy detection: the medium is busy while the power received exceeds this.
    #[serde(default = "default_cca_ed")]
    pub cca_ed_threshold_dbm: f64,
    /// ns-3's `CcaSensitivity` for signals the PHY does not receive (their preamble came
    /// while it was sending or receiving, or was too weak or too noisy to detect): the
    /// medium is busy while the power of the signals at the antenna is at or above it.
    /// `None` (the default): such signals count only against `cca_ed_threshold_dbm`, as
    /// the standard has it for a missed preamble (§17.3.10.6: 20 dB above the minimum
    /// sensitivity). ns-3 3.44 applies -82 dBm to every PPDU it knows of
    /// (`PhyEntity::GetCcaThreshold`).
    #[serde(default)]
    pub cca_sensitivity_dbm: Option<f64>,
    /// Preamble detection: a frame is received only if it arrives above this power ...
    #[serde(default = "default_preamble_rssi")]
    pub preamble_rssi_dbm: f64,
    /// ... and this SNR (over noise and the interference present when it starts).
    #[serde(default = "default_preamble_snr")]
    pub preamble_snr_db: f64,
    /// Frame capture: a receiver switches to a frame that arrives this much stronger than
    /// the one it is receiving (`None`: it never switches; the frame it locked on still
    /// survives interference its SINR can bear).
    #[serde(default)]
    pub capture_margin_db: Option<f64>,
    /// Signals weaker than this (mean power, before fading) are not delivered to a receiver
    /// at all; `None`: 20 dB under the channel's noise floor, where one changes the SINR by
    /// under 0.05 dB.
    #[serde(default)]
    pub cutoff_dbm: Option<f64>,
    /// Signals travel at the speed of light (false: they arrive when sent).
    #[serde(default = "yes")]
    pub propagation_delay: bool,
    /// How long after a signal arrives a radio's carrier sense reports it: a backoff that
    /// ends sooner transmits all the same. The standard bounds it by aCCATime (15 µs DSSS,
    /// 4 µs OFDM); the default is ns-3's preamble detection time, after which its PHY
    /// reports the medium busy.
    #[serde(default = "default_cca_time")]
    pub cca_time_ns: u64,
    /// How often moving radios' positions (and who hears whom) are recomputed.
    #[serde(default = "default_position_update")]
    pub position_update_ns: u64,
    /// Channel access as the standard's DCF (the default), or as ns-3 3.44 runs it.
    #[serde(default)]
    pub dcf: DcfModel,
}

/// Where ns-3 3.44's channel access (`ChannelAccessManager`, `Txop`) departs from the
/// DCF of IEEE 802.11-2016/2020, for comparisons with it.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DcfModel {
    /// EIFS from when the medium falls idle after a frame received in error (§10.3.2.3.7);
    /// a frame queued while its radio owes a response (ACK, CTS) backs off, the medium not
    /// staying idle for DIFS (§10.3.4.2); the CW back to CWmin when the short (long) retry
    /// count reaches its limit, the frame dropped then (§10.3.3).
    #[default]
    Standard,
    /// ns-3 3.44: EIFS counted from the end of the frame received in error, even if the
    /// medium stayed busy after it (`GetAccessGrantStart`); a frame queued while the radio
    /// owes a response goes DIFS after it without backoff, the PHY and NAV being idle when
    /// it was queued (`NeedBackoffUponAccess`); the CW follows a station retry count apart
    /// from the frame's, back to CWmin only at the failure after the one that reaches the
    /// short retry limit, so a frame dropped there leaves CWmax for the next frame's first
    /// backoff (`Txop::UpdateFailedCw`, after §10.23.2.2 of 802.11-2020).
    Ns3,
}

impl Default for RadioConfig {
    fn default() -> Self {
        serde_json::from_str("{}").expect("every field has a default")
    }
}

fn default_exponent() -> f64 {
    3.0
}
fn default_reference_loss() -> f64 {
    46.6777
}
fn one() -> f64 {
    1.0
}
fn default_antenna_height() -> f64 {
    1.5
}
fn default_tx_power() -> f64 {
    16.0206
}
fn default_noise_figure() -> f64 {
    7.0
}
fn default_cca_ed() -> f64 {
    -62.0
}
fn default_preamble_rssi() -> f64 {
    -82.0
}
fn default_preamble_snr() -> f64 {
    4.0
}
fn yes() -> bool {
    true
}
fn default_cca_time() -> u64 {
    4_000
}
fn default_position_update() -> u64 {
    100_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_ns3s() {
        let radio = RadioConfig::default();
        assert_eq!(radio.propagation, PropagationConfig::default());
        assert_eq!(radio.tx_power_dbm, 16.0206);
        assert_eq!(radio.cca_ed_threshold_dbm, -62.0);
        assert_eq!(radio.preamble_rssi_dbm, -82.0);
        assert_eq!(radio.preamble_snr_db, 4.0);
        assert_eq!(radio.capture_margin_db, None);
        assert_eq!(radio.cca_sensitivity_dbm, None);
        assert_eq!(radio.dcf, DcfModel::Standard);
        assert!(radio.propagation_delay);
        let friis: RadioConfig = serde_json::from_str(
            r#"{"propagation": {"model": "friis"}, "fading": {"model": "nakagami", "m": 2}}"#,
        )
        .unwrap();
        assert_eq!(
            friis.propagation,
            PropagationConfig::Friis {
                system_loss_db: 0.0
            }
        );
        assert_eq!(friis.fading, FadingConfig::Nakagami { m: 2.0 });
        assert!(serde_json::from_str::<RadioConfig>(r#"{"tx_power": 3}"#).is_err());
    }
}
