//! Who hears whom: for each radio of a shared channel, the radios its signals reach above the
//! cut-off, with the pair's gain (path loss, log-normal shadowing drawn once per pair,
//! antenna gains) and propagation delay. Computed once when the channel is built (radios do
//! not move yet), so that a frame costs work in proportion to the radios in its range.
//!
//! Shadowing is one draw per unordered pair from a stream of its own (`StreamId::RadioPair`),
//! so the two directions agree and adding a radio changes no other pair's draw; the cut-off
//! allows three standard deviations of it.

use rand_distr::{Distribution, Normal};

use airtcp_proto::wifi::propagation::{dbm_to_mw, SPEED_OF_LIGHT};

use super::motion::distance;
use crate::config::RadioConfig;
use crate::rng::{stream, StreamId};

/// A radio's signals reach `radio` with gain `gain` (linear; received power = transmitted
/// power × gain) after `delay_ns`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    pub radio: u32,
    pub gain: f64,
    pub delay_ns: u64,
}

/// Where a radio is and how strongly it sends.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    pub position: [f64; 3],
    pub tx_power_dbm: f64,
}

/// Each radio's neighbours, in radio order. `channel` and `seed` key the shadowing draws.
pub fn neighbours(
    placements: &[Placement],
    radio: &RadioConfig,
    frequency_hz: f64,
    cutoff_dbm: f64,
    (seed, channel): (u64, u32),
) -> Vec<Vec<Neighbour>> {
    let loss = radio.propagation.path_loss(frequency_hz);
    let height = radio.propagation.antenna_height_m();
    let sigma = radio.shadowing_sigma_db;
    let shadowing = (sigma > 0.0).then(|| Normal::new(0.0, sigma).expect("sigma is checked"));
    let mut lists = vec![Vec::new(); placements.len()];
    for i in 0..placements.len() {
        for j in i + 1..placements.len() {
            let (a, b) = (&placements[i], &placements[j]);
            let distance = distance(a.position, b.position);
            let mean_loss = loss.loss_db(distance, a.position[2] + height, b.position[2] + height)
                - 2.0 * radio.antenna_gain_db;
            // The strongest either end could receive, shadowing allowed three sigmas.
            let best = a.tx_power_dbm.max(b.tx_power_dbm) - mean_loss + 3.0 * sigma;
            if best < cutoff_dbm {
                continue;
            }
            let shadow = shadowing.map_or(0.0, |normal| {
                let mut rng = stream(
                    seed,
                    StreamId::RadioPair {
                        channel,
                        a: i as u32,
                        b: j as u32,
                    },
                );
                normal.sample(&mut rng)
            });
            let loss_db = mean_loss + shadow;
            let gain = dbm_to_mw(-loss_db);
            let delay_ns = if radio.propagation_delay {
                (distance / SPEED_OF_LIGHT * 1e9).round() as u64
            } else {
                0
            };
            if a.tx_power_dbm - loss_db >= cutoff_dbm {
                lists[i].push(Neighbour {
                    radio: j as u32,
                    gain,
                    delay_ns,
                });
            }
            if b.tx_power_dbm - loss_db >= cutoff_dbm {
                lists[j].push(Neighbour {
                    radio: i as u32,
                    gain,
                    delay_ns,
                });
            }
        }
    }
    lists
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f64) -> Placement {
        Placement {
            position: [x, 0.0, 0.0],
            tx_power_dbm: 16.0206,
        }
    }

    #[test]
    fn neighbours_within_the_cutoff_with_log_distance_gains() {
        let radio = RadioConfig::default();
        // 16.0206 dBm - (46.6777 + 30·log10 d): -80.6 dBm at 50 m, -89.7 at 100 m,
        // -101.2 at 250 m.
        let lists = neighbours(
            &[at(0.0), at(50.0), at(100.0), at(250.0)],
            &radio,
            2.412e9,
            -95.0,
            (1, 0),
        );
        let heard: Vec<u32> = lists[0].iter().map(|n| n.radio).collect();
        assert_eq!(heard, vec![1, 2], "250 m is below -95 dBm");
        let fifty = lists[0][0];
        let rx_dbm = 16.0206 + 10.0 * fifty.gain.log10();
        assert!((rx_dbm - (16.0206 - 46.6777 - 30.0 * 50f64.log10())).abs() < 1e-9);
        assert_eq!(fifty.delay_ns, 167, "50 m at the speed of light");
        // 100 m apart as 0 and 2 are, 1 and 3 are 200 m: under the cut-off, like 2 and 3.
        let radios = |i: usize| lists[i].iter().map(|n| n.radio).collect::<Vec<_>>();
        assert_eq!(radios(1), vec![0, 2]);
        assert_eq!(lists[1][1], Neighbour { radio: 2, ..fifty });
        assert!(lists[3].is_empty(), "{:?}", lists[3]);
    }

    #[test]
    fn shadowing_is_one_draw_per_pair_and_symmetric() {
        let radio = RadioConfig {
            shadowing_sigma_db: 8.0,
            ..RadioConfig::default()
        };
        let placements = [at(0.0), at(30.0), at(60.0)];
        let lists = neighbours(&placements, &radio, 2.412e9, -200.0, (7, 0));
        let gain = |i: usize, j: u32| lists[i].iter().find(|n| n.radio == j).unwrap().gain;
        assert_eq!(gain(0, 1), gain(1, 0));
        let plain = neighbours(
            &placements,
            &RadioConfig::default(),
            2.412e9,
            -200.0,
            (7, 0),
        );
        assert_ne!(gain(0, 1), plain[0][0].gain, "shadowed");
        // Adding a radio does not change an existing pair's draw.
        let more = neighbours(
            &[at(0.0), at(30.0), at(60.0), at(90.0)],
            &radio,
            2.412e9,
            -200.0,
            (7, 0),
        );
        assert_eq!(more[0][0].gain, gain(0, 1));
        // Another seed, another draw.
        let other = neighbours(&placements, &radio, 2.412e9, -200.0, (8, 0));
        assert_ne!(other[0][0].gain, gain(0, 1));
    }
}
