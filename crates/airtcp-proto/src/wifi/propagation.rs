//! Deterministic radio propagation: path loss by distance, thermal noise per channel width,
//! channel centre frequencies, and dBm/mW conversions. The random parts of a channel
//! (log-normal shadowing, Rayleigh and Nakagami fading) are draws the simulator makes from
//! its own streams on top of these.
//!
//! - Log-distance: L(d) = L0 + 10·n·log10(d/d0) beyond the reference distance d0, L0 at and
//!   within it (Rappaport, "Wireless Communications", 2nd ed., §4.9.1; ns-3's
//!   `LogDistancePropagationLossModel`, whose defaults n = 3, L0 = 46.6777 dB at d0 = 1 m
//!   are Friis' loss at 1 m and 5.15 GHz, with c rounded to 3e8 m/s).
//! - Friis free space: Pr/Pt = λ² / ((4π d)² L), L the system loss (Friis 1946; ns-3's
//!   `FriisPropagationLossModel`, which also clamps the loss at a minimum, 0 dB by default).
//! - Two-ray ground reflection: Friis up to the crossover distance dc = 4π·ht·hr/λ, then
//!   Pr/Pt = ht²·hr² / (d⁴ L) (Rappaport §4.6; ns-3's `TwoRayGroundPropagationLossModel`).
//! - Thermal noise: k·T·B at 290 K (-174 dBm/Hz) times the receiver's noise figure, in the
//!   channel width (ns-3's `WifiPhy`: 22 MHz for DSSS, 20 MHz for OFDM, the channel's width
//!   for HT, VHT and HE: `Phy::noise_bandwidth_hz`).
//! - Channel frequencies: 2.4 GHz band 2407 + 5·n MHz (n = 1..13), 2484 MHz for 14 (IEEE
//!   802.11-2020 §15.4.4.3, §17.3.8.4.2 for 5 GHz: 5000 + 5·n MHz; 802.11ax-2021 §27.3.23.2
//!   for 6 GHz: 5950 + 5·n MHz).
//!
//! Antenna heights matter only to two-ray; every model is symmetric in its two ends.

use super::mcs::Band;

/// Speed of light, m/s.
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;

/// Thermal noise density at 290 K, dBm/Hz (10·log10(k·290 K / 1 mW)).
pub const THERMAL_NOISE_DBM_PER_HZ: f64 = -173.975_4;

/// A deterministic path-loss model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PathLoss {
    LogDistance {
        exponent: f64,
        reference_loss_db: f64,
        reference_distance_m: f64,
    },
    Friis {
        frequency_hz: f64,
        system_loss_db: f64,
        min_loss_db: f64,
    },
    TwoRayGround {
        frequency_hz: f64,
        system_loss_db: f64,
        min_loss_db: f64,
    },
}

impl PathLoss {
    /// ns-3's default: log-distance, exponent 3, 46.6777 dB at 1 m.
    pub const NS3_DEFAULT: PathLoss = PathLoss::LogDistance {
        exponent: 3.0,
        reference_loss_db: 46.6777,
        reference_distance_m: 1.0,
    };

    /// Loss in dB between antennas `distance_m` apart, at heights `tx_height_m` and
    /// `rx_height_m` above the ground (two-ray only).
    pub fn loss_db(&self, distance_m: f64, tx_height_m: f64, rx_height_m: f64) -> f64 {
        match *self {
            PathLoss::LogDistance {
                exponent,
                reference_loss_db,
                reference_distance_m,
            } => {
                if distance_m <= reference_distance_m {
                    reference_loss_db
                } else {
                    reference_loss_db
                        + 10.0 * exponent * (distance_m / reference_distance_m).log10()
                }
            }
            PathLoss::Friis {
                frequency_hz,
                system_loss_db,
                min_loss_db,
            } => friis_loss_db(distance_m, frequency_hz, system_loss_db).max(min_loss_db),
            PathLoss::TwoRayGround {
                frequency_hz,
                system_loss_db,
                min_loss_db,
            } => {
                let wavelength = SPEED_OF_LIGHT / frequency_hz;
                let (ht, hr) = (tx_height_m.max(0.0), rx_height_m.max(0.0));
                let crossover = 4.0 * std::f64::consts::PI * ht * hr / wavelength;
                let loss = if distance_m <= crossover || ht == 0.0 || hr == 0.0 {
                    friis_loss_db(distance_m, frequency_hz, system_loss_db)
                } else {
                    // Pr/Pt = ht² hr² / (d⁴ L)
                    40.0 * distance_m.log10() - 20.0 * (ht * hr).log10() + system_loss_db
                };
                loss.max(min_loss_db)
            }
        }
    }
}

/// Friis' free-space loss, 0 dB at distance 0 (ns-3 returns the transmit power there).
fn friis_loss_db(distance_m: f64, frequency_hz: f64, system_loss_db: f64) -> f64 {
    if distance_m <= 0.0 {
        return 0.0;
    }
    let wavelength = SPEED_OF_LIGHT / frequency_hz;
    20.0 * (4.0 * std::f64::consts::PI * distance_m / wavelength).log10() + system_loss_db
}

/// Thermal noise power in dBm over `bandwidth_hz` through a receiver of noise figure
/// `noise_figure_db`.
pub fn noise_dbm(bandwidth_hz: f64, noise_figure_db: f64) -> f64 {
    THERMAL_NOISE_DBM_PER_HZ + 10.0 * bandwidth_hz.log10() + noise_figure_db
}

/// Centre frequency of channel `channel` of `band`, in Hz: 2.4 GHz channels 1 to 14, 5 GHz
/// ones 32 to 177 (5000 + 5n MHz), 6 GHz ones 1 to 233 (5950 + 5n MHz); `None` for a number
/// the band lacks.
pub fn channel_frequency_hz(band: Band, channel: u32) -> Option<f64> {
    let mhz = match (band, channel) {
        (Band::Ghz2_4, 1..=13) => 2407 + 5 * channel,
        (Band::Ghz2_4, 14) => 2484,
        (Band::Ghz5, 32..=177) => 5000 + 5 * channel,
        (Band::Ghz6, 1..=233) => 5950 + 5 * channel,
        _ => return None,
    };
    Some(f64::from(mhz) * 1e6)
}

pub fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

pub fn mw_to_dbm(mw: f64) -> f64 {
    10.0 * mw.log10()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn log_distance_follows_its_exponent() {
        let model = PathLoss::NS3_DEFAULT;
        assert_eq!(model.loss_db(0.5, 0.0, 0.0), 46.6777);
        assert_eq!(model.loss_db(1.0, 0.0, 0.0), 46.6777);
        assert!(close(model.loss_db(10.0, 0.0, 0.0), 76.6777, 1e-9));
        assert!(close(model.loss_db(100.0, 0.0, 0.0), 106.6777, 1e-9));
        let steep = PathLoss::LogDistance {
            exponent: 4.0,
            reference_loss_db: 40.0,
            reference_distance_m: 2.0,
        };
        assert!(close(steep.loss_db(20.0, 0.0, 0.0), 80.0, 1e-9));
    }

    #[test]
    fn friis_at_one_metre_is_ns3s_reference_loss() {
        // ns-3's 46.6777 dB is Friis at 1 m and 5.15 GHz with c taken as 3e8 m/s (46.6779);
        // with the exact c (ns-3's Friis model uses it too) 46.6839 dB.
        let friis = PathLoss::Friis {
            frequency_hz: 5.15e9,
            system_loss_db: 0.0,
            min_loss_db: 0.0,
        };
        assert!(close(friis.loss_db(1.0, 0.0, 0.0), 46.6839, 1e-4));
        // 20 dB a decade, system loss added.
        assert!(close(
            friis.loss_db(10.0, 0.0, 0.0) - friis.loss_db(1.0, 0.0, 0.0),
            20.0,
            1e-9
        ));
        let lossy = PathLoss::Friis {
            frequency_hz: 5.15e9,
            system_loss_db: 3.0,
            min_loss_db: 60.0,
        };
        assert_eq!(lossy.loss_db(1.0, 0.0, 0.0), 60.0, "clamped at its minimum");
        assert!(close(
            lossy.loss_db(100.0, 0.0, 0.0),
            46.6839 + 40.0 + 3.0,
            1e-4
        ));
    }

    #[test]
    fn two_ray_is_friis_then_forty_db_a_decade() {
        let f = 2.412e9;
        let model = PathLoss::TwoRayGround {
            frequency_hz: f,
            system_loss_db: 0.0,
            min_loss_db: 0.0,
        };
        let wavelength = SPEED_OF_LIGHT / f;
        let crossover = 4.0 * std::f64::consts::PI * 1.5 * 1.5 / wavelength; // ≈ 341 m
        let friis = PathLoss::Friis {
            frequency_hz: f,
            system_loss_db: 0.0,
            min_loss_db: 0.0,
        };
        let near = crossover * 0.5;
        assert_eq!(model.loss_db(near, 1.5, 1.5), friis.loss_db(near, 0.0, 0.0));
        // Continuous at the crossover, 40 dB a decade beyond it.
        let at = model.loss_db(crossover * 1.000_001, 1.5, 1.5);
        assert!(close(at, friis.loss_db(crossover, 0.0, 0.0), 1e-3), "{at}");
        let far = model.loss_db(crossover * 10.0, 1.5, 1.5);
        assert!(close(far - at, 40.0, 1e-3));
        // By hand at 1 km: 40·3 - 20·log10(2.25) = 112.96 dB.
        assert!(close(model.loss_db(1000.0, 1.5, 1.5), 112.956, 1e-3));
    }

    #[test]
    fn noise_floor_per_width() {
        // ns-3: 20 MHz, NF 7 dB → -93.97 dBm; DSSS's 22 MHz → -93.56 dBm.
        assert!(close(noise_dbm(20e6, 7.0), -93.965, 1e-3));
        assert!(close(noise_dbm(22e6, 7.0), -93.551, 1e-3));
    }

    #[test]
    fn channel_frequencies() {
        assert_eq!(channel_frequency_hz(Band::Ghz2_4, 1), Some(2.412e9));
        assert_eq!(channel_frequency_hz(Band::Ghz2_4, 6), Some(2.437e9));
        assert_eq!(channel_frequency_hz(Band::Ghz2_4, 14), Some(2.484e9));
        assert_eq!(channel_frequency_hz(Band::Ghz5, 36), Some(5.18e9));
        assert_eq!(channel_frequency_hz(Band::Ghz6, 1), Some(5.955e9));
        assert_eq!(channel_frequency_hz(Band::Ghz2_4, 0), None);
        assert_eq!(channel_frequency_hz(Band::Ghz2_4, 36), None);
        assert_eq!(channel_frequency_hz(Band::Ghz5, 6), None);
        assert!(close(mw_to_dbm(dbm_to_mw(-82.0)), -82.0, 1e-12));
        assert!(close(dbm_to_mw(0.0), 1.0, 1e-15));
    }
}
