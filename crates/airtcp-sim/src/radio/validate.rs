//! Which WLANs have geometry and share a channel (`ChannelPlan`), and what a scenario with
//! geometry must satisfy: every node of such a WLAN placed, numbers finite and in range, one
//! PHY per shared channel, none of the settings the shared channel does not run yet (the
//! module doc of `radio` lists them), and an AP whose agent plans its access in one WLAN
//! of its channel only. Errors name the resolved field.

use airtcp_proto::agent;
use airtcp_proto::wifi::edca::AccessCategory;
use airtcp_proto::wifi::mcs::Band;
use airtcp_proto::wifi::propagation::channel_frequency_hz;
use airtcp_proto::wifi::rate_control::RATE_CONTROLS;
use airtcp_proto::wifi::Modulation;

use crate::config::{
    ConfigError, DriverQueue, FadingConfig, MotionConfig, PhyStandard, PropagationConfig, Scenario,
    WlanConfig,
};
use crate::interface::Interface;

fn fail<T>(key: impl Into<String>, message: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError {
        key: key.into(),
        message: message.into(),
    })
}

/// How a scenario's WLANs run: `shared[k]` lists the WLANs (indices into `wlans`) of the
/// k-th channel with geometry; the WLANs in none run alone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChannelPlan {
    pub shared: Vec<Vec<usize>>,
}

impl ChannelPlan {
    /// A WLAN has geometry when any of its nodes has a position, it sets rate control, or
    /// it names a channel another WLAN names too; then so has every WLAN on its channel.
    /// (Per-station rates run in the central DCF too: `Bss::use_station_phys`.)
    pub fn of(scenario: &Scenario) -> ChannelPlan {
        let placed = |node: usize| scenario.positions.iter().any(|p| p.node == node);
        let wants = |w: &WlanConfig| nodes_of(w).any(placed) || w.rate_control.is_some();
        let mut shared: Vec<Vec<usize>> = Vec::new();
        let mut by_number: Vec<(u32, usize)> = Vec::new();
        for (i, wlan) in scenario.wlans.iter().enumerate() {
            match wlan.channel {
                Some(number) => match by_number.iter().find(|(n, _)| *n == number) {
                    Some(&(_, group)) => shared[group].push(i),
                    None => {
                        by_number.push((number, shared.len()));
                        shared.push(vec![i]);
                    }
                },
                None => shared.push(vec![i]),
            }
        }
        shared.retain(|group| group.len() > 1 || wants(&scenario.wlans[group[0]]));
        ChannelPlan { shared }
    }

    /// The shared channel a WLAN is on, if any.
    pub fn channel_of(&self, wlan: usize) -> Option<usize> {
        self.shared.iter().position(|group| group.contains(&wlan))
    }
}

fn nodes_of(wlan: &WlanConfig) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(wlan.ap).chain(wlan.stations.iter().copied())
}

/// The centre frequency of a WLAN's channel (2.4 GHz channel 1 when it names none).
pub fn frequency_hz(wlan: &WlanConfig) -> f64 {
    let band = wlan.phy.band();
    wlan.channel
        .and_then(|channel| channel_frequency_hz(band, channel))
        .unwrap_or(match band {
            Band::Ghz2_4 => 2.412e9,
            Band::Ghz5 => 5.18e9,
            Band::Ghz6 => 5.955e9,
        })
}

impl Scenario {
    pub(crate) fn validate_radio(&self) -> Result<(), ConfigError> {
        self.validate_radio_settings()?;
        let mut seen = vec![false; self.nodes.len()];
        for (i, position) in self.positions.iter().enumerate() {
            let key = format!("positions[{i}]");
            if position.node >= self.nodes.len() {
                return fail(format!("{key}.node"), "must be an existing node");
            }
            if std::mem::replace(&mut seen[position.node], true) {
                return fail(
                    format!("{key}.node"),
                    format!("node '{}' is placed twice", self.nodes[position.node]),
                );
            }
            for (axis, value) in [("x", position.x), ("y", position.y), ("z", position.z)] {
                if !value.is_finite() || value.abs() > 1e7 {
                    return fail(
                        format!("{key}.{axis}"),
                        "must be a finite number of metres within 10000 km",
                    );
                }
            }
            if let Some(motion) = &position.motion {
                validate_motion(&format!("{key}.motion"), motion)?;
            }
            if let Some(power) = position.tx_power_dbm {
                in_range(&format!("{key}.tx_power_dbm"), power, -50.0, 50.0, "dBm")?;
            }
        }
        let plan = ChannelPlan::of(self);
        for (i, wlan) in self.wlans.iter().enumerate() {
            let key = format!("wlans[{i}]");
            if let Some(number) = wlan.channel {
                let band = wlan.phy.band();
                let exists = wlan.phy.standard != PhyStandard::Bianchi2000
                    && channel_frequency_hz(band, number).is_some();
                if !exists {
                    let expected = match band {
                        Band::Ghz2_4 => "1 to 14",
                        Band::Ghz5 => "32 to 177",
                        Band::Ghz6 => "1 to 233",
                    };
                    return fail(
                        format!("{key}.channel"),
                        format!(
                            "{number} is not a {} channel of {}; expected {expected}",
                            band.name(),
                            wlan.phy.standard.name()
                        ),
                    );
                }
            }
            for (j, rate) in wlan.station_rates.iter().enumerate() {
                let rate_key = format!("{key}.station_rates[{j}]");
                if !wlan.stations.contains(&rate.station) {
                    return fail(
                        format!("{rate_key}.station"),
                        "must be a station of this WLAN",
                    );
                }
                let mut phy = wlan.phy.clone();
                phy.rate_bps = Some(rate.rate_bps);
                if let Err((_, message)) = phy.build() {
                    return fail(format!("{rate_key}.rate_bps"), message);
                }
            }
            for (j, station) in wlan.station_mcs.iter().enumerate() {
                let mcs_key = format!("{key}.station_mcs[{j}]");
                if !wlan.stations.contains(&station.station) {
                    return fail(
                        format!("{mcs_key}.station"),
                        "must be a station of this WLAN",
                    );
                }
                if wlan.phy.standard.mcs_format().is_none() {
                    return fail(
                        format!("{mcs_key}.mcs"),
                        format!(
                            "{} has no MCSs: set station_rates",
                            wlan.phy.standard.name()
                        ),
                    );
                }
                let geometry = plan.shared.iter().flatten().any(|&w| w == i);
                if let Err((_, message)) = wlan.phy_at_mcs(station.mcs, geometry) {
                    return fail(format!("{mcs_key}.mcs"), message);
                }
            }
            if let Some(name) = &wlan.rate_control {
                if wlan.phy.standard.mcs_format().is_some() {
                    return fail(
                        format!("{key}.rate_control"),
                        format!(
                            "rate control over {}'s MCSs (Linux's Minstrel-HT) is not modelled; \
                             set each station's MCS with station_mcs",
                            wlan.phy.standard.name()
                        ),
                    );
                }
                if !RATE_CONTROLS.contains(&name.as_str()) {
                    return fail(
                        format!("{key}.rate_control"),
                        format!(
                            "unknown rate control '{name}'; expected one of {}",
                            RATE_CONTROLS.join(", ")
                        ),
                    );
                }
            }
        }
        for group in &plan.shared {
            self.validate_shared(group, &seen)?;
        }
        Ok(())
    }

    fn validate_radio_settings(&self) -> Result<(), ConfigError> {
        let radio = &self.radio;
        match radio.propagation {
            PropagationConfig::LogDistance {
                exponent,
                reference_loss_db,
                reference_distance_m,
            } => {
                in_range("radio.propagation.exponent", exponent, 1.0, 8.0, "")?;
                in_range(
                    "radio.propagation.reference_loss_db",
                    reference_loss_db,
                    0.0,
                    200.0,
                    "dB",
                )?;
                in_range(
                    "radio.propagation.reference_distance_m",
                    reference_distance_m,
                    1e-3,
                    1e4,
                    "m",
                )?;
            }
            PropagationConfig::Friis { system_loss_db }
            | PropagationConfig::TwoRayGround { system_loss_db, .. } => {
                let key = "radio.propagation.system_loss_db";
                in_range(key, system_loss_db, 0.0, 100.0, "dB")?;
            }
        }
        if let PropagationConfig::TwoRayGround {
            antenna_height_m, ..
        } = radio.propagation
        {
            let key = "radio.propagation.antenna_height_m";
            in_range(key, antenna_height_m, 0.01, 1e4, "m")?;
        }
        in_range(
            "radio.shadowing_sigma_db",
            radio.shadowing_sigma_db,
            0.0,
            30.0,
            "dB",
        )?;
        if let FadingConfig::Nakagami { m } = radio.fading {
            in_range("radio.fading.m", m, 0.5, 100.0, "")?;
        }
        in_range("radio.tx_power_dbm", radio.tx_power_dbm, -50.0, 50.0, "dBm")?;
        in_range(
            "radio.antenna_gain_db",
            radio.antenna_gain_db,
            -30.0,
            30.0,
            "dB",
        )?;
        in_range(
            "radio.noise_figure_db",
            radio.noise_figure_db,
            0.0,
            30.0,
            "dB",
        )?;
        in_range(
            "radio.cca_ed_threshold_dbm",
            radio.cca_ed_threshold_dbm,
            -130.0,
            0.0,
            "dBm",
        )?;
        in_range(
            "radio.preamble_rssi_dbm",
            radio.preamble_rssi_dbm,
            -130.0,
            0.0,
            "dBm",
        )?;
        in_range(
            "radio.preamble_snr_db",
            radio.preamble_snr_db,
            -10.0,
            50.0,
            "dB",
        )?;
        if let Some(sensitivity) = radio.cca_sensitivity_dbm {
            in_range(
                "radio.cca_sensitivity_dbm",
                sensitivity,
                -130.0,
                radio.cca_ed_threshold_dbm,
                "dBm (the CCA threshold at most)",
            )?;
        }
        if let Some(margin) = radio.capture_margin_db {
            in_range("radio.capture_margin_db", margin, 0.0, 50.0, "dB")?;
        }
        if radio.position_update_ns < 1_000_000 {
            return fail(
                "radio.position_update_ns",
                "must be at least 1 ms (each update recomputes who hears whom)",
            );
        }
        if radio.cca_time_ns > 15_000 {
            return fail(
                "radio.cca_time_ns",
                "must be at most 15 µs (aCCATime of DSSS, the longest the standard allows)",
            );
        }
        if let Some(cutoff) = radio.cutoff_dbm {
            in_range("radio.cutoff_dbm", cutoff, -250.0, 0.0, "dBm")?;
        }
        Ok(())
    }

    /// Why an agent of `kind` that plans the AP's channel access cannot go on the AP of WLAN
    /// `wlan`, if it cannot: on a shared channel the AP's node is also a MAC of another WLAN
    /// there, and its one radio serves both MACs' queues in arrival order with one backoff,
    /// which the plan (backoff 0, TXOPs, aggregates of the AP's own queues) cannot extend to.
    pub fn planner_refused(&self, wlan: usize, kind: &str) -> Option<String> {
        let plan = ChannelPlan::of(self);
        let group = &plan.shared[plan.channel_of(wlan)?];
        let ap = self.wlans[wlan].ap;
        let other = group
            .iter()
            .find(|&&w| w != wlan && nodes_of(&self.wlans[w]).any(|n| n == ap))?;
        Some(format!(
            "'{kind}' plans the AP's channel access, but node '{}' is also in wlans[{other}] on \
             the same channel: its one radio would serve the other WLAN's queue under the plan; \
             put the agent on an AP in one WLAN only",
            self.nodes[ap]
        ))
    }

    /// The one access category of the scenario's traffic, which a WLAN with geometry and
    /// EDCA contends in with one EDCAF per radio (`radio::access`): its flows' DSCPs' (AC_BE
    /// without flows); `None` when they map to several (four EDCAFs, `radio::edca`).
    pub(crate) fn geometry_ac(&self) -> Option<AccessCategory> {
        let mut acs = self.flows.iter().map(|f| AccessCategory::of_dscp(f.dscp));
        let first = acs.next().unwrap_or(AccessCategory::Be);
        acs.all(|ac| ac == first).then_some(first)
    }

    /// A WLAN with geometry and EDCA whose flows use several ACs (`radio::edca`): what it
    /// does not run beside them is refused (a firmware queue, a radio also in a WLAN without
    /// EDCA).
    fn validate_several_acs(
        &self,
        key: &str,
        wlan: &WlanConfig,
        group: &[usize],
    ) -> Result<(), ConfigError> {
        if wlan.driver_queue != DriverQueue::Ath9k {
            return fail(
                format!("{key}.driver_queue"),
                "a WLAN with geometry whose flows use several access categories runs \
                 ath9k's driver queue only (a firmware queue is shared by the ACs); remove \
                 driver_queue or give the flows DSCPs of one AC",
            );
        }
        let without_edca = group.iter().find(|&&other| {
            let other_wlan = &self.wlans[other];
            !other_wlan.uses_edca() && nodes_of(other_wlan).any(|n| nodes_of(wlan).any(|m| m == n))
        });
        if let Some(other) = without_edca {
            return fail(
                format!("wlans[{other}].edca"),
                format!(
                    "a node of {key} is also in wlans[{other}] on the same channel, which has \
                     no EDCA while {key}'s flows use several access categories: one radio \
                     cannot contend both ways; set the same edca on both"
                ),
            );
        }
        Ok(())
    }

    /// The WLANs `group` share a channel with geometry.
    fn validate_shared(&self, group: &[usize], placed: &[bool]) -> Result<(), ConfigError> {
        let first = &self.wlans[group[0]];
        let places = self.agent_places()?;
        for &w in group {
            let wlan = &self.wlans[w];
            let key = format!("wlans[{w}]");
            if let Some(node) = nodes_of(wlan).find(|&n| !placed[n]) {
                return fail(
                    "positions",
                    format!(
                        "node '{}' (of the WLAN of AP '{}') has no position; a WLAN with \
                         geometry (positions, a shared channel, station rates or rate \
                         control) needs one for every node",
                        self.nodes[node], self.nodes[wlan.ap]
                    ),
                );
            }
            let phy = wlan.build_phy(&key)?;
            if matches!(phy.modulation, Modulation::Fhss { .. }) {
                return fail(format!("{key}.phy.standard"), "Bianchi's FHSS parameter set has no error-rate model; use 802.11b or 802.11g with geometry");
            }
            if wlan.phy.standard != first.phy.standard
                || wlan.phy.short_slot != first.phy.short_slot
            {
                return fail(
                    format!("{key}.phy"),
                    format!("shares channel {} with wlans[{}] but not its PHY (standard and slot must match)", wlan.channel.unwrap_or(0), group[0]),
                );
            }
            let unsupported = [
                (wlan.errors.loss > 0.0, "errors.loss", STAND_IN),
                (wlan.errors.ber > 0.0, "errors.ber", STAND_IN),
            ];
            for (set, field, what) in unsupported {
                if set {
                    return fail(format!("{key}.{field}"), format!("a WLAN with geometry does not run {what} yet; remove it or the geometry"));
                }
            }
            let several_acs = wlan.uses_edca() && self.geometry_ac().is_none();
            if several_acs {
                self.validate_several_acs(&key, wlan, group)?;
            }
            let in_wlan = |place: &Interface| matches!(place, Interface::Wlan { bss, .. } if *bss as usize == w);
            // beside several ACs an agent works on its `ac`'s queue
            let choosing = places
                .iter()
                .find(|(_, place, config)| in_wlan(place) && config.ac.is_some() && !several_acs);
            if let Some((agent_key, _, _)) = choosing {
                return fail(
                    format!("{agent_key}.ac"),
                    "a WLAN with geometry runs EDCA for its traffic's one access category: an \
                     agent there cannot choose another; remove ac",
                );
            }
            let at_ap = |place: &Interface| matches!(place, Interface::Wlan { bss, mac: 0 } if *bss as usize == w);
            for (agent_key, _, config) in places.iter().filter(|(_, place, _)| at_ap(place)) {
                if !agent::plans_access(&config.kind) {
                    continue;
                }
                let refused = if several_acs {
                    Some(format!(
                        "agent '{}' plans the AP's channel access, which a WLAN with geometry \
                         does not do beside EDCA for several access categories yet; give the \
                         flows DSCPs of one AC, set edca = false or remove the geometry",
                        config.kind
                    ))
                } else if wlan.ampdu_limits().is_some() {
                    Some(format!(
                        "agent '{}' plans the AP's channel access, which a WLAN with geometry \
                         does not do beside A-MPDU yet; set ampdu = false or remove the \
                         geometry",
                        config.kind
                    ))
                } else {
                    self.planner_refused(w, &config.kind)
                };
                if let Some(message) = refused {
                    return fail(format!("{agent_key}.kind"), message);
                }
            }
            if let Some(mobile) = self
                .mobiles
                .iter()
                .find(|m| nodes_of(wlan).any(|n| n == m.node))
            {
                return fail(format!("{key}.stations"), format!("mobile '{}' roams through this WLAN, which has geometry; roaming needs WLANs without it", self.nodes[mobile.node]));
            }
        }
        Ok(())
    }
}

/// A path's points in time order at finite places; a random waypoint's area and speeds in
/// order, the speeds positive.
fn validate_motion(key: &str, motion: &MotionConfig) -> Result<(), ConfigError> {
    match motion {
        MotionConfig::Path { points } => {
            if points.is_empty() {
                return fail(format!("{key}.points"), "a path needs at least one point");
            }
            let mut after = 0;
            for (j, p) in points.iter().enumerate() {
                let point = format!("{key}.points[{j}]");
                if p.at_ns <= after && j > 0 || p.at_ns == 0 {
                    return fail(
                        format!("{point}.at_ns"),
                        "points come after time 0, each later than the one before",
                    );
                }
                after = p.at_ns;
                for (axis, value) in [("x", p.x), ("y", p.y), ("z", p.z)] {
                    in_range(&format!("{point}.{axis}"), value, -1e7, 1e7, "m")?;
                }
            }
        }
        MotionConfig::RandomWaypoint {
            x_min,
            x_max,
            y_min,
            y_max,
            speed_min_mps,
            speed_max_mps,
            pause_ns: _,
        } => {
            for (name, value) in [
                ("x_min", x_min),
                ("x_max", x_max),
                ("y_min", y_min),
                ("y_max", y_max),
            ] {
                in_range(&format!("{key}.{name}"), *value, -1e7, 1e7, "m")?;
            }
            in_range(
                &format!("{key}.speed_min_mps"),
                *speed_min_mps,
                1e-3,
                1e3,
                "m/s",
            )?;
            in_range(
                &format!("{key}.speed_max_mps"),
                *speed_max_mps,
                1e-3,
                1e3,
                "m/s",
            )?;
            for (low, high, name) in [
                (x_min, x_max, "x_max"),
                (y_min, y_max, "y_max"),
                (speed_min_mps, speed_max_mps, "speed_max_mps"),
            ] {
                if high < low {
                    return fail(
                        format!("{key}.{name}"),
                        format!("{high} is below its minimum {low}"),
                    );
                }
            }
        }
    }
    Ok(())
}

const STAND_IN: &str = "a random loss stand-in (frames fail from their SINR)";

fn in_range(key: &str, value: f64, low: f64, high: f64, unit: &str) -> Result<(), ConfigError> {
    if value.is_finite() && (low..=high).contains(&value) {
        return Ok(());
    }
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    fail(
        key,
        format!("{value} is out of range; expected {low} to {high}{unit}"),
    )
}
