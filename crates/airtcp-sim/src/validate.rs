//! Everything a resolved scenario must satisfy before it runs: references, positive values,
//! probabilities, PHY rates the standard has, paths between flow ends, settings that would do
//! nothing, and the bounds of [`crate::limits`].
//!
//! Errors name the resolved field exactly (`wlans[0].phy.rate_bps`, `flows[3].stop_ns`); the
//! Python layer, which knows where each field came from, turns that into the user's key
//! (`wlan.rate`, `flows[0].stop`). `airtcp validate` runs this same code, so whatever it
//! accepts runs.

use crate::aqm::AqmConfig;
use crate::config::{
    AgentConfig, AmpduLimits, AppConfig, ConfigError, DirectionConfig, DriverQueue,
    FastRecoveryConfig, Queueing, Scenario, TcpOverrides, WlanConfig,
};
use crate::delivery_trace;
use crate::error_model::ErrorModel;
use crate::interface::Interface;
use crate::limits::{
    is_safe_name, MAX_FIRMWARE_QUEUE_FRAMES, MAX_FLOWS, MAX_NODES, MAX_NODE_NAME_LEN,
    MAX_RETRY_LIMIT, MAX_SERIES_SAMPLES, MAX_STATIONS, MAX_WORKLOADS, MIN_SAMPLE_INTERVAL_NS,
    SERIES_SAMPLE_BYTES,
};
use crate::queue::QueueLimit;
use crate::workload::SizeDistribution;

/// The shortest A-MPDU duration a scenario may set (an A-MPDU carries at least one MPDU
/// whatever its limit).
const MIN_AMPDU_DURATION_NS: u64 = 1_000;
use airtcp_proto::agent;
use airtcp_proto::tcp::{cc, LossRecovery, ZeroWindow};
use airtcp_proto::time::seconds;
use airtcp_proto::wifi::edca::{
    AccessCategory, MAX_AIFSN, MAX_CW, MAX_TXOP_LIMIT_NS, MIN_AIFSN, MIN_STATION_AIFSN,
    TXOP_UNIT_NS,
};
use airtcp_proto::wifi::mcs::Format;

fn fail<T>(key: impl Into<String>, message: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError {
        key: key.into(),
        message: message.into(),
    })
}

impl Scenario {
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_timing()?;
        self.validate_nodes()?;
        for (i, link) in self.links.iter().enumerate() {
            if !self.node_ok(link.a) || !self.node_ok(link.b) || link.a == link.b {
                return fail(
                    format!("links[{i}]"),
                    "must join two different existing nodes",
                );
            }
            for (dir, d) in [("a_to_b", &link.a_to_b), ("b_to_a", &link.b_to_a)] {
                validate_direction(&format!("links[{i}].{dir}"), d)?;
            }
            let mut up_again = 0;
            for (j, outage) in link.outages.iter().enumerate() {
                let key = format!("links[{i}].outages[{j}]");
                if outage.duration_ns == 0 {
                    return fail(format!("{key}.duration_ns"), "must be positive");
                }
                if outage.at_ns < up_again {
                    return fail(
                        format!("{key}.at_ns"),
                        "starts before the previous outage ends (list them in time order)",
                    );
                }
                up_again = outage.at_ns.saturating_add(outage.duration_ns);
            }
        }
        for (i, wlan) in self.wlans.iter().enumerate() {
            self.validate_wlan(&format!("wlans[{i}]"), wlan)?;
        }
        self.validate_flows()?;
        for (i, mobile) in self.mobiles.iter().enumerate() {
            mobile.validate(self, &format!("mobiles[{i}]"))?;
        }
        for (i, placement) in self.agents.iter().enumerate() {
            if !self.node_ok(placement.node) {
                return fail(format!("agents[{i}].node"), "must be an existing node");
            }
            validate_agent(&format!("agents[{i}]"), &placement.agent)?;
        }
        self.validate_radio()?;
        for (key, place, config) in self.agent_places()? {
            let on_edca = matches!(place, Interface::Wlan { bss, .. }
                if self.wlans[bss as usize].uses_edca());
            if config.ac.is_some() && !on_edca {
                return fail(
                    format!("{key}.ac"),
                    "is a setting of EDCA, which is off where the agent is",
                );
            }
            if let Interface::Channel(channel) = place {
                if matches!(
                    self.channel_direction(channel).aqm,
                    AqmConfig::FqCodel { .. }
                ) {
                    return fail(
                        format!("{key}.kind"),
                        format!(
                            "agent '{}' on a link direction whose aqm is fq_codel is not \
                             supported yet (it would see none of FQ-CoDel's flows); use aqm \
                             \"codel\" or \"none\" there",
                            config.kind
                        ),
                    );
                }
            }
            if let Interface::Wlan { bss, .. } = place {
                // an access planner's ACK queue goes below mac80211's queues (`wlan::dcf`)
                let planner = agent::plans_access(&config.kind);
                let wlan = &self.wlans[bss as usize];
                let above_driver = wlan.queueing != Queueing::Fifo || wlan.aqm != AqmConfig::None;
                if above_driver && !planner {
                    return fail(
                        format!("{key}.kind"),
                        format!(
                            "agent '{}' on an interface of a WLAN with mac80211's queues or a \
                             qdisc (aqm) is not supported yet (it would see the driver's queue \
                             only, not the frames waiting above it); set queueing = \"fifo\" \
                             and aqm = \"none\" on that WLAN (access-planning agents run \
                             beside them)",
                            config.kind
                        ),
                    );
                }
                if self.wlans[bss as usize].ampdu_limits().is_some() {
                    refuse_beside_ampdu(&format!("{key}.kind"), &config.kind)?;
                }
                if self.wlans[bss as usize].max_amsdu_bytes.is_some() {
                    return fail(
                        format!("{key}.interface"),
                        "an agent on an interface of a WLAN with A-MSDUs inside A-MPDUs is not \
                         supported yet (it would split them); remove max_amsdu on that WLAN",
                    );
                }
            }
        }
        self.validate_paths()?;
        self.validate_series()
    }

    fn node_ok(&self, node: usize) -> bool {
        node < self.nodes.len()
    }

    fn validate_timing(&self) -> Result<(), ConfigError> {
        if self.duration_ns == 0 {
            return fail("simulation.duration_ns", "must be positive");
        }
        if self.measure_from_ns >= self.duration_ns {
            return fail(
                "simulation.measure_from_ns",
                "must be before the end of the run (simulation.duration)",
            );
        }
        if self.sample_interval_ns != 0 && self.sample_interval_ns < MIN_SAMPLE_INTERVAL_NS {
            return fail(
                "simulation.sample_interval_ns",
                format!(
                    "must be 0 (no time series) or at least {} µs",
                    MIN_SAMPLE_INTERVAL_NS / 1_000
                ),
            );
        }
        Ok(())
    }

    fn validate_nodes(&self) -> Result<(), ConfigError> {
        if self.nodes.len() > MAX_NODES {
            return fail(
                "nodes",
                format!(
                    "the scenario has {} nodes; at most {MAX_NODES}",
                    self.nodes.len()
                ),
            );
        }
        let mut seen = std::collections::HashSet::with_capacity(self.nodes.len());
        for (i, name) in self.nodes.iter().enumerate() {
            if !is_safe_name(name) {
                return fail(
                    format!("nodes[{i}]"),
                    format!(
                        "node name {name:?} must be letters, digits, '_', '-' or '.', not \
                         starting with '.' or '-', at most {MAX_NODE_NAME_LEN} characters \
                         (it names files)"
                    ),
                );
            }
            if !seen.insert(name) {
                return fail(
                    format!("nodes[{i}]"),
                    format!("node {name:?} appears twice"),
                );
            }
        }
        Ok(())
    }

    fn validate_wlan(&self, key: &str, wlan: &WlanConfig) -> Result<(), ConfigError> {
        if !self.node_ok(wlan.ap)
            || wlan
                .stations
                .iter()
                .any(|&s| !self.node_ok(s) || s == wlan.ap)
        {
            return fail(
                format!("{key}.stations"),
                "stations and AP must be distinct existing nodes",
            );
        }
        if wlan.stations.is_empty() {
            return fail(
                format!("{key}.stations"),
                "a WLAN needs at least one station",
            );
        }
        if wlan.stations.len() > MAX_STATIONS {
            return fail(
                format!("{key}.stations"),
                format!("{} stations; at most {MAX_STATIONS}", wlan.stations.len()),
            );
        }
        wlan.build_phy(key)?;
        if wlan.queue_packets == 0 {
            return fail(format!("{key}.queue_packets"), "must be positive");
        }
        for (field, value) in [
            ("short_retry_limit", wlan.short_retry_limit),
            ("long_retry_limit", wlan.long_retry_limit),
        ] {
            if !(1..=MAX_RETRY_LIMIT).contains(&value) {
                return fail(
                    format!("{key}.{field}"),
                    format!("{value}; expected 1..{MAX_RETRY_LIMIT} (the standard's MIB range)"),
                );
            }
        }
        for (field, value) in [
            ("msdu_lifetime_ns", wlan.msdu_lifetime_ns),
            ("queue_max_delay_ns", wlan.queue_max_delay_ns),
        ] {
            if value == Some(0) {
                return fail(format!("{key}.{field}"), "must be positive (or off)");
            }
        }
        validate_errors(&format!("{key}.errors"), &wlan.errors)?;
        if let Some(agent) = &wlan.agent {
            validate_agent(&format!("{key}.agent"), agent)?;
        }
        self.validate_queueing(key, wlan)?;
        self.validate_ampdu(key, wlan)?;
        self.validate_edca(key, wlan)
    }

    /// EDCA's parameters: within the EDCA Parameter Set's fields (§9.4.2.28), and not (yet)
    /// beside roaming mobiles; an agent's AC only where EDCA is on.
    fn validate_edca(&self, key: &str, wlan: &WlanConfig) -> Result<(), ConfigError> {
        if !wlan.uses_edca() {
            for (set, field) in [
                (!wlan.edca_params.is_empty(), "edca_params"),
                (!wlan.ap_edca_params.is_empty(), "ap_edca_params"),
                (
                    wlan.agent.as_ref().is_some_and(|a| a.ac.is_some()),
                    "agent.ac",
                ),
            ] {
                if set {
                    return fail(
                        format!("{key}.{field}"),
                        "is a setting of EDCA, which is off",
                    );
                }
            }
            return Ok(());
        }
        let phy = wlan.build_phy(key)?;
        let set = wlan.edca_set(&phy);
        for (field, params, min_aifsn) in [
            ("edca_params", &set.station, MIN_STATION_AIFSN),
            ("ap_edca_params", &set.ap, MIN_AIFSN),
        ] {
            for (ac, p) in AccessCategory::ALL.iter().zip(params) {
                let at = format!("{key}.{field}.{}", ac.name());
                if !(min_aifsn..=MAX_AIFSN).contains(&p.aifsn) {
                    return fail(
                        format!("{at}.aifsn"),
                        format!("{}; expected {min_aifsn} to {MAX_AIFSN}", p.aifsn),
                    );
                }
                for (name, cw) in [("cw_min", p.cw_min), ("cw_max", p.cw_max)] {
                    if cw > MAX_CW || !(cw + 1).is_power_of_two() {
                        return fail(
                            format!("{at}.{name}"),
                            format!("{cw}; expected 2^k - 1 up to {MAX_CW} (the ECW fields)"),
                        );
                    }
                }
                if p.cw_min > p.cw_max {
                    return fail(
                        format!("{at}.cw_min"),
                        format!("{} is above cw_max {}", p.cw_min, p.cw_max),
                    );
                }
                if p.txop_limit_ns > MAX_TXOP_LIMIT_NS || p.txop_limit_ns % TXOP_UNIT_NS != 0 {
                    return fail(
                        format!("{at}.txop_limit_ns"),
                        format!(
                            "{} us; expected a multiple of 32 us up to 8160 us (the TXOP \
                             Limit field)",
                            p.txop_limit_ns as f64 / 1e3
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// mac80211's queues run in the central DCF only, without the mechanisms that take
    /// frames out of the MAC queue.
    fn validate_queueing(&self, key: &str, wlan: &WlanConfig) -> Result<(), ConfigError> {
        validate_driver_queue(key, wlan)?;
        if wlan.aqm != AqmConfig::None {
            if wlan.queueing != Queueing::Fifo {
                return fail(
                    format!("{key}.aqm"),
                    format!(
                        "a qdisc sits above the driver only without mac80211's queues (Linux \
                         gives an interface with them none), and queueing = \"{}\" keeps \
                         them; set queueing = \"fifo\" or aqm = \"none\"",
                        wlan.queueing.name()
                    ),
                );
            }
            let limit = QueueLimit::packets(wlan.queue_packets);
            let rate = wlan.build_phy(key).ok().map(|phy| phy.data_rate_bps);
            validate_aqm(key, &wlan.aqm, &limit, rate)?;
            return self.refuse_beside_roaming(key, wlan, "a qdisc (aqm)", "aqm = \"none\"");
        }
        if wlan.queueing == Queueing::Fifo {
            return Ok(());
        }
        let what = format!("queueing = \"{}\"", wlan.queueing.name());
        let way_out = "queueing = \"fifo\"";
        self.refuse_beside_roaming(key, wlan, &what, way_out)
    }

    /// A-MPDU settings: only for the MCS PHYs, in range, and not (yet) beside the
    /// mechanisms the aggregating DCF does not run.
    fn validate_ampdu(&self, key: &str, wlan: &WlanConfig) -> Result<(), ConfigError> {
        let name = wlan.phy.standard.name();
        let Some(format) = wlan.phy.standard.mcs_format() else {
            if wlan.ampdu == Some(true) {
                return fail(
                    format!("{key}.ampdu"),
                    format!("{name} has no A-MPDU (802.11n, ac and ax have)"),
                );
            }
            return Ok(());
        };
        let Some(limits) = wlan.ampdu_limits() else {
            for (set, field) in [
                (wlan.max_ampdu_bytes.is_some(), "max_ampdu_bytes"),
                (wlan.ba_window.is_some(), "ba_window"),
                (
                    wlan.max_ampdu_duration_ns.is_some(),
                    "max_ampdu_duration_ns",
                ),
                (wlan.max_amsdu_bytes.is_some(), "max_amsdu_bytes"),
            ] {
                if set {
                    return fail(
                        format!("{key}.{field}"),
                        "is a setting of A-MPDU, which is off",
                    );
                }
            }
            return Ok(());
        };
        let own = AmpduLimits::of(format);
        if !(1..=own.window).contains(&limits.window) {
            return fail(
                format!("{key}.ba_window"),
                format!(
                    "{}: expected 1 to {} MPDUs ({name})",
                    limits.window, own.window
                ),
            );
        }
        if !(MIN_AMPDU_DURATION_NS..=own.max_ppdu_ns).contains(&limits.max_ppdu_ns) {
            return fail(
                format!("{key}.max_ampdu_duration_ns"),
                format!(
                    "{} us: expected {} to {} us",
                    limits.max_ppdu_ns as f64 / 1e3,
                    MIN_AMPDU_DURATION_NS / 1000,
                    own.max_ppdu_ns / 1000
                ),
            );
        }
        if !(1..=own.max_bytes).contains(&limits.max_bytes) {
            return fail(
                format!("{key}.max_ampdu_bytes"),
                format!(
                    "{}: expected 1 to {} bytes ({name})",
                    limits.max_bytes, own.max_bytes
                ),
            );
        }
        if let Some(agent) = &wlan.agent {
            refuse_beside_ampdu(&format!("{key}.agent"), &agent.kind)?;
        }
        if wlan.max_amsdu_bytes.is_some() {
            validate_amsdu(key, wlan, format)?;
        }
        Ok(())
    }

    /// A mechanism of the central DCF (`what`) that does not run yet beside roaming mobiles;
    /// `way_out` is the setting that turns it off.
    fn refuse_beside_roaming(
        &self,
        key: &str,
        wlan: &WlanConfig,
        what: &str,
        way_out: &str,
    ) -> Result<(), ConfigError> {
        if self.mobiles.iter().any(|m| wlan.stations.contains(&m.node)) {
            return fail(
                format!("{key}.stations"),
                format!(
                    "{what} does not run beside roaming mobiles yet; set {way_out} or remove them"
                ),
            );
        }
        Ok(())
    }

    fn validate_flows(&self) -> Result<(), ConfigError> {
        let mut workloads = 0;
        if self.flows.is_empty() {
            return fail(
                "flows",
                "the scenario has no flows: nothing would be measured",
            );
        }
        if self.flows.len() > MAX_FLOWS {
            return fail(
                "flows",
                format!("{} flows; at most {MAX_FLOWS}", self.flows.len()),
            );
        }
        for (i, flow) in self.flows.iter().enumerate() {
            let key = format!("flows[{i}]");
            if !self.node_ok(flow.src) || !self.node_ok(flow.dst) || flow.src == flow.dst {
                return fail(key, "src and dst must be different existing nodes");
            }
            if flow.start_ns >= self.duration_ns {
                return fail(
                    format!("{key}.start_ns"),
                    "starts at or after the end of the run (simulation.duration)",
                );
            }
            if flow.stop_ns.is_some_and(|stop| stop <= flow.start_ns) {
                return fail(format!("{key}.stop_ns"), "must be after start");
            }
            match &flow.app {
                AppConfig::TcpBulk {
                    bytes,
                    congestion_control,
                    tcp,
                } => {
                    let key = format!("{key}.app");
                    if *bytes == Some(0) {
                        return fail(format!("{key}.bytes"), "must be positive");
                    }
                    validate_tcp(&key, congestion_control, tcp)?;
                }
                AppConfig::TcpWorkload {
                    sizes,
                    rate_bps,
                    count,
                    congestion_control,
                    tcp,
                } => {
                    let key = format!("{key}.app");
                    workloads += 1;
                    if workloads > MAX_WORKLOADS {
                        return fail(key, format!("at most {MAX_WORKLOADS} workloads a scenario"));
                    }
                    if let Err(why) = SizeDistribution::from_spec(sizes) {
                        return fail(format!("{key}.sizes"), why);
                    }
                    if *rate_bps == 0 {
                        return fail(format!("{key}.rate_bps"), "must be positive");
                    }
                    if *count == Some(0) {
                        return fail(format!("{key}.count"), "must be positive");
                    }
                    validate_tcp(&key, congestion_control, tcp)?;
                }
                AppConfig::Ping {
                    count,
                    interval_ns,
                    payload_bytes,
                    train,
                    ..
                } => {
                    let key = format!("{key}.app");
                    if *count == 0 || *train == 0 {
                        return fail(format!("{key}.count"), "count and train must be positive");
                    }
                    if u64::from(*count) * u64::from(*train) > 65_536 {
                        return fail(
                            format!("{key}.count"),
                            format!(
                                "{count} trains of {train} probes; at most 65536 probes (the \
                                 16-bit echo sequence number)"
                            ),
                        );
                    }
                    if *count > 1 && *interval_ns == 0 {
                        return fail(format!("{key}.interval_ns"), "must be positive");
                    }
                    if *payload_bytes > 65_000 {
                        return fail(
                            format!("{key}.payload_bytes"),
                            "must be at most 65000 bytes",
                        );
                    }
                }
                AppConfig::UdpCbr {
                    rate_bps,
                    payload_bytes,
                } => {
                    if *rate_bps == 0 {
                        return fail(format!("{key}.app.rate_bps"), "must be positive");
                    }
                    if !(1..=65_000).contains(payload_bytes) {
                        return fail(
                            format!("{key}.app.payload_bytes"),
                            "must be between 1 and 65000 bytes",
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// Every flow's ends are connected: links join their two nodes both ways, and a WLAN
    /// joins its AP and stations.
    fn validate_paths(&self) -> Result<(), ConfigError> {
        let mut components = Components::new(self.nodes.len());
        for link in &self.links {
            components.join(link.a, link.b);
        }
        for wlan in &self.wlans {
            for &station in &wlan.stations {
                components.join(wlan.ap, station);
            }
        }
        for (i, flow) in self.flows.iter().enumerate() {
            if components.root(flow.src) != components.root(flow.dst) {
                return fail(
                    format!("flows[{i}]"),
                    format!(
                        "no path from {} to {}: no links or WLAN connect them",
                        self.nodes[flow.src], self.nodes[flow.dst]
                    ),
                );
            }
        }
        Ok(())
    }

    /// The time series is bounded in memory; past the bound, a clear refusal with the cost.
    fn validate_series(&self) -> Result<(), ConfigError> {
        if self.sample_interval_ns == 0 {
            return Ok(());
        }
        let tcp_flows = self
            .flows
            .iter()
            .filter(|f| matches!(f.app, AppConfig::TcpBulk { .. }))
            .count() as u64;
        // The MACs of WLANs with geometry have a row each per instant too.
        let plan = crate::radio::validate::ChannelPlan::of(self);
        let macs: u64 = (plan.shared.iter())
            .flatten()
            .map(|&w| self.wlans[w].stations.len() as u64 + 1)
            .sum();
        // And each wired link direction's queue, with `queue_sojourn` each MAC queue (a MAC's,
        // with EDCA an AC's: four a MAC, but on a channel with geometry where the flows use
        // one AC), and with `one_way_delay` each TCP bulk and UDP flow's delays.
        let mac_queues: u64 = (self.wlans.iter().enumerate())
            .map(|(b, wlan)| {
                let several_acs = plan.channel_of(b).is_none() || self.geometry_ac().is_none();
                let per_mac = if wlan.uses_edca() && several_acs {
                    4
                } else {
                    1
                };
                per_mac * (wlan.stations.len() as u64 + 1)
            })
            .sum::<u64>()
            * u64::from(self.queue_sojourn);
        let queues = 2 * self.links.len() as u64 + mac_queues;
        let timed = self
            .flows
            .iter()
            .filter(|f| matches!(f.app, AppConfig::TcpBulk { .. } | AppConfig::UdpCbr { .. }))
            .count() as u64;
        let delays = if self.one_way_delay { timed } else { 0 };
        let rows = tcp_flows + macs + queues + delays;
        let instants = self.duration_ns / self.sample_interval_ns;
        let samples = rows.saturating_mul(instants);
        if samples <= MAX_SERIES_SAMPLES {
            return Ok(());
        }
        let shortest = (self.duration_ns * rows).div_ceil(MAX_SERIES_SAMPLES);
        let what = if macs > 0 {
            format!("{tcp_flows} TCP flows, {queues} queues and {macs} radios")
        } else {
            format!("{tcp_flows} TCP flows and {queues} queues")
        };
        fail(
            "simulation.sample_interval_ns",
            format!(
                "{} s of {what} sampled every {} would keep {samples} \
                 time-series samples (about {}); at most {MAX_SERIES_SAMPLES}: sample every \
                 {} or more, or set \"0s\" for no time series",
                seconds(self.duration_ns),
                human_duration(self.sample_interval_ns),
                human_bytes(samples.saturating_mul(SERIES_SAMPLE_BYTES)),
                human_duration(shortest),
            ),
        )
    }
}

/// A TCP flow's controller and settings (`key` names its `app`).
fn validate_tcp(
    key: &str,
    congestion_control: &str,
    tcp: &TcpOverrides,
) -> Result<(), ConfigError> {
    if !cc::VARIANTS.contains(&congestion_control) {
        return fail(
            format!("{key}.congestion_control"),
            format!(
                "unknown '{congestion_control}'; expected one of {}",
                cc::VARIANTS.join(", ")
            ),
        );
    }
    let built = tcp.build();
    if !(64..=65_000).contains(&built.mss) {
        return fail(
            format!("{key}.tcp.mss"),
            "must be between 64 and 65000 bytes",
        );
    }
    for (field, size) in [
        ("send_buffer", built.send_buffer),
        ("receive_buffer", built.receive_buffer),
    ] {
        if size < built.mss {
            return fail(
                format!("{key}.tcp.{field}"),
                format!("{size} bytes is less than one segment (mss {})", built.mss),
            );
        }
    }
    if built.loss_recovery == LossRecovery::RackTlp && built.zero_window != ZeroWindow::Retransmit {
        return fail(
            format!("{key}.tcp.loss_recovery"),
            "rack_tlp (the linux profile's) goes with Linux's zero_window = \"retransmit\"; with \
             persist or hold set loss_recovery = \"rfc6675\"",
        );
    }
    if congestion_control == "bbr" && (built.loss_recovery != LossRecovery::RackTlp || !built.sack)
    {
        return fail(
            format!("{key}.congestion_control"),
            "bbr takes its rate samples from RACK's per-segment records, as Linux: it needs \
             tcp.loss_recovery = \"rack_tlp\" and tcp.sack = true (the linux profile)",
        );
    }
    if built.ack_every == 0 {
        return fail(format!("{key}.tcp.ack_every"), "must be positive");
    }
    let params = &built.congestion_params;
    if let Some((spec, value)) = params.out_of_bounds() {
        let (low, high) = spec.bounds.expect("bounded");
        return fail(
            format!("{key}.tcp.congestion_params.{}", spec.name),
            format!("{value} is out of range; expected {low} to {high}"),
        );
    }
    if let Some(name) = params.unused_by(congestion_control).first() {
        let spec = cc::PARAMS.iter().find(|spec| spec.name == *name);
        return fail(
            format!("{key}.tcp.congestion_params.{name}"),
            format!(
                "applies to {}, not to {congestion_control}",
                spec.expect("named by PARAMS").controllers.join(" and ")
            ),
        );
    }
    Ok(())
}

fn validate_direction(key: &str, d: &DirectionConfig) -> Result<(), ConfigError> {
    match (d.rate_bps, &d.trace_ms) {
        (Some(0), _) => return fail(format!("{key}.rate_bps"), "must be positive"),
        (Some(_), Some(_)) => {
            return fail(
                format!("{key}.trace_ms"),
                "a direction has a rate or a delivery trace, not both",
            )
        }
        (None, None) => return fail(format!("{key}.rate_bps"), "needs a rate or a trace"),
        (None, Some(times)) => delivery_trace::check(times).map_err(|message| ConfigError {
            key: format!("{key}.trace_ms"),
            message,
        })?,
        (Some(_), None) => {}
    }
    validate_errors(&format!("{key}.errors"), &d.errors)?;
    if d.queue.packets == Some(0) || d.queue.bytes == Some(0) {
        return fail(
            format!("{key}.queue"),
            "a zero-sized queue drops everything",
        );
    }
    validate_aqm(key, &d.aqm, &d.queue, d.rate_bps)
}

/// The AQM `aqm` of the queue `owner` (a link direction, a WLAN) limited by `queue`, whose
/// link sends at `rate_bps`: its settings within what Linux's qdiscs accept (sch_codel,
/// sch_fq_codel, sch_pie, sch_red).
fn validate_aqm(
    owner: &str,
    aqm: &AqmConfig,
    queue: &QueueLimit,
    rate_bps: Option<u64>,
) -> Result<(), ConfigError> {
    let key = format!("{owner}.aqm");
    let times = match *aqm {
        AqmConfig::None => return Ok(()),
        AqmConfig::Red { .. } => {
            return match aqm.red_params(queue, rate_bps) {
                Some(Err(why)) => fail(key, why),
                _ => Ok(()),
            };
        }
        AqmConfig::Codel {
            target_ns,
            interval_ns,
            ..
        } => [("target_ns", target_ns), ("interval_ns", interval_ns)],
        AqmConfig::FqCodel {
            target_ns,
            interval_ns,
            flows,
            quantum,
            ..
        } => {
            if !(1..=65_536).contains(&flows) {
                return fail(format!("{key}.flows"), "must be 1 to 65536 (sch_fq_codel)");
            }
            if !(256..=1 << 20).contains(&quantum) {
                return fail(
                    format!("{key}.quantum"),
                    "must be 256 to 1048576 bytes (sch_fq_codel)",
                );
            }
            if queue.bytes.is_some() {
                return fail(
                    format!("{owner}.queue"),
                    "fq_codel's limit counts packets (as sch_fq_codel's); give the queue \
                     in packets",
                );
            }
            [("target_ns", target_ns), ("interval_ns", interval_ns)]
        }
        AqmConfig::Pie {
            target_ns,
            tupdate_ns,
            alpha,
            beta,
            ..
        } => {
            for (name, gain) in [("alpha", alpha), ("beta", beta)] {
                if gain > 32 {
                    return fail(
                        format!("{key}.{name}"),
                        "must be 0 to 32 sixteenths (RFC 8033's 0 to 2)",
                    );
                }
            }
            if tupdate_ns < 1_000_000 {
                return fail(format!("{key}.tupdate_ns"), "must be at least 1 ms");
            }
            [("target_ns", target_ns), ("tupdate_ns", tupdate_ns)]
        }
    };
    for (name, value) in times {
        if value == 0 || value > 10 * 1_000_000_000 {
            return fail(format!("{key}.{name}"), "must be positive and at most 10 s");
        }
    }
    Ok(())
}

/// The agents whose plans an aggregating DCF does not carry out yet: a TXOP burst of
/// several A-MPDUs, and A-MSDUs inside an A-MPDU.
fn refuse_beside_ampdu(key: &str, kind: &str) -> Result<(), ConfigError> {
    let why = match kind {
        "txop_burst" => "a TXOP of several A-MPDUs",
        "ack_aggregation" => "A-MSDUs of its own inside A-MPDUs",
        _ => return Ok(()),
    };
    fail(
        key,
        format!(
            "{kind} needs {why}, which a WLAN with A-MPDU does not run yet; set ampdu = false \
             on that WLAN"
        ),
    )
}

/// The longest MPDU an HT A-MPDU carries: its delimiter's 12-bit MPDU Length (§9.7.1;
/// Linux's `IEEE80211_MAX_MPDU_LEN_HT_BA`), below HT Capabilities' longest A-MSDU (7935).
const HT_MAX_MPDU_IN_AMPDU_BYTES: u32 = 4095;
/// The longest VHT or HE MPDU (VHT Capabilities' Maximum MPDU Length, §9.4.2.157.2).
const VHT_MAX_MPDU_BYTES: u32 = 11_454;

/// A-MSDUs inside A-MPDUs (`max_amsdu_bytes`): within the format's longest A-MSDU (HT) or
/// MPDU (VHT, HE), and not beside what would take one MSDU out of an A-MSDU.
fn validate_amsdu(key: &str, wlan: &WlanConfig, format: Format) -> Result<(), ConfigError> {
    let bytes = wlan.max_amsdu_bytes.unwrap_or(0);
    let overhead = wlan.build_phy(key)?.mac_overhead_bytes;
    let (most, why) = match format {
        Format::Ht => (
            HT_MAX_MPDU_IN_AMPDU_BYTES - overhead,
            "an HT A-MPDU's longest MPDU, 4095 bytes, less its MAC header and FCS",
        ),
        Format::Vht | Format::He => (
            VHT_MAX_MPDU_BYTES - overhead,
            "the longest MPDU, 11454 bytes, less its MAC header and FCS",
        ),
    };
    if !(1..=most).contains(&bytes) {
        return fail(
            format!("{key}.max_amsdu_bytes"),
            format!("{bytes}: expected 1 to {most} bytes ({why})"),
        );
    }
    let agent = (wlan.agent.is_some(), "agent", "an agent on its AP");
    refuse_beside(
        key,
        std::iter::once(agent).chain(wlan.queue_time_limits()),
        "A-MSDUs inside A-MPDUs (max_amsdu) do not run",
        "it would take MSDUs out of an A-MSDU",
    )
}

/// Refuses the first of `settings` (whether set, its key under `key`, what it is) that is
/// set beside a mechanism: "`mechanism` beside it yet (`why`); remove one of them".
fn refuse_beside<'a>(
    key: &str,
    settings: impl IntoIterator<Item = (bool, &'a str, &'a str)>,
    mechanism: &str,
    why: &str,
) -> Result<(), ConfigError> {
    match settings.into_iter().find(|&(set, _, _)| set) {
        Some((_, field, what)) => fail(
            format!("{key}.{field}"),
            format!("{mechanism} beside {what} yet ({why}); remove one of them"),
        ),
        None => Ok(()),
    }
}

/// An agent's kind and settings (where it sits is checked when the network is built).
fn validate_agent(key: &str, agent: &AgentConfig) -> Result<(), ConfigError> {
    if !airtcp_proto::agent::AGENTS.contains(&agent.kind.as_str()) {
        return fail(
            format!("{key}.kind"),
            format!(
                "unknown '{}'; expected one of {}",
                agent.kind,
                airtcp_proto::agent::AGENTS.join(", ")
            ),
        );
    }
    if agent.max_aggregate == Some(0) {
        return fail(format!("{key}.max_aggregate"), "must be positive");
    }
    if agent.txop_limit_ns == Some(0) {
        return fail(format!("{key}.txop_limit_ns"), "must be positive");
    }
    if agent.ack_queue_packets == Some(0) {
        return fail(format!("{key}.ack_queue_packets"), "must be positive");
    }
    if agent
        .target_stations
        .is_some_and(|t| !(t.is_finite() && t >= 1.0))
    {
        return fail(format!("{key}.target_stations"), "must be at least 1");
    }
    let kind = agent.kind.as_str();
    let kinds = FastRecoveryConfig::KINDS;
    if agent.fast_recovery.is_some() && !kinds.contains(&kind) {
        return fail(
            format!("{key}.fast_recovery"),
            format!("applies to {}, not to {kind}", kinds.join(" and ")),
        );
    }
    for setting in agent.mobility_settings() {
        let (name, kinds, value) = (setting.name, setting.kinds, setting.set);
        if value.is_some() && !kinds.contains(&kind) {
            return fail(
                format!("{key}.{name}"),
                format!("applies to {}, not to {kind}", kinds.join(" and ")),
            );
        }
        if value == Some(0) {
            return fail(format!("{key}.{name}"), "must be positive");
        }
    }
    Ok(())
}

fn validate_errors(key: &str, errors: &ErrorModel) -> Result<(), ConfigError> {
    if !(0.0..1.0).contains(&errors.loss) {
        return fail(format!("{key}.loss"), "must be a probability in [0, 1)");
    }
    if !(0.0..1.0).contains(&errors.ber) {
        return fail(format!("{key}.ber"), "must be a probability in [0, 1)");
    }
    Ok(())
}

fn human_duration(ns: u64) -> String {
    match ns {
        ns if ns >= 1_000_000_000 => format!("{} s", seconds(ns)),
        ns if ns >= 1_000_000 => format!("{} ms", ns as f64 / 1e6),
        ns if ns >= 1_000 => format!("{} µs", ns as f64 / 1e3),
        ns => format!("{ns} ns"),
    }
}

fn human_bytes(bytes: u64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.3} {}", units[unit])
}

/// Union-find over node indices.
struct Components(Vec<usize>);

impl Components {
    fn new(nodes: usize) -> Self {
        Components((0..nodes).collect())
    }

    fn root(&mut self, mut node: usize) -> usize {
        while self.0[node] != node {
            self.0[node] = self.0[self.0[node]];
            node = self.0[node];
        }
        node
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        self.0[a] = b;
    }
}

/// The driver's queue below mac80211's: only beneath mac80211's queues, its settings only
/// where they apply, AQL's limits in order.
fn validate_driver_queue(key: &str, wlan: &WlanConfig) -> Result<(), ConfigError> {
    let queue = wlan.driver_queue;
    let qdisc = wlan.aqm != AqmConfig::None;
    if queue != DriverQueue::Ath9k && wlan.queueing == Queueing::Fifo && !qdisc {
        return fail(
            format!("{key}.driver_queue"),
            format!(
                "driver_queue = \"{}\" sits below mac80211's queues or a qdisc (aqm), and \
                 queueing = \"fifo\" without aqm keeps neither; set queueing to \"fq_codel\" \
                 or \"fq_codel_airtime\", or an aqm",
                queue.name()
            ),
        );
    }
    if queue == DriverQueue::FirmwareAql && qdisc {
        return fail(
            format!("{key}.driver_queue"),
            "airtime queue limits are mac80211's and do not run below a qdisc (aqm); use \
             driver_queue = \"firmware\"",
        );
    }
    if queue != DriverQueue::Ath9k {
        refuse_beside(
            key,
            wlan.queue_time_limits(),
            "a firmware queue (driver_queue) does not run",
            "its frames are not in arrival order",
        )?;
    }
    if let Some(frames) = wlan.firmware_queue_frames {
        if queue == DriverQueue::Ath9k {
            return fail(
                format!("{key}.firmware_queue_frames"),
                "a firmware queue's depth needs driver_queue = \"firmware\" or \"firmware_aql\"",
            );
        }
        if !(1..=MAX_FIRMWARE_QUEUE_FRAMES).contains(&frames) {
            return fail(
                format!("{key}.firmware_queue_frames"),
                format!("expected 1 to {MAX_FIRMWARE_QUEUE_FRAMES} frames, got {frames}"),
            );
        }
    }
    let limits = [
        ("aql_limit_low_ns", wlan.aql_limit_low_ns),
        ("aql_limit_high_ns", wlan.aql_limit_high_ns),
        ("aql_threshold_ns", wlan.aql_threshold_ns),
    ];
    for (field, value) in limits {
        let Some(ns) = value else { continue };
        if queue != DriverQueue::FirmwareAql {
            return fail(
                format!("{key}.{field}"),
                "AQL's limits need driver_queue = \"firmware_aql\"",
            );
        }
        if ns == 0 {
            return fail(format!("{key}.{field}"), "expected a duration above 0");
        }
    }
    let aql = wlan.driver().aql;
    if aql.low_ns > aql.high_ns {
        return fail(
            format!("{key}.aql_limit_low_ns"),
            format!(
                "AQL's low limit ({} us) is above its high limit ({} us)",
                aql.low_ns / 1_000,
                aql.high_ns / 1_000
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(extra: serde_json::Value) -> Scenario {
        let mut base = serde_json::json!({
            "name": "t", "seed": 1, "duration_ns": 10_000_000_000u64,
            "nodes": ["a", "b", "c"],
            "links": [{"a": 0, "b": 1,
                       "a_to_b": {"rate_bps": 1_000_000, "delay_ns": 0},
                       "b_to_a": {"rate_bps": 1_000_000, "delay_ns": 0}}],
            "flows": [{"name": "f", "src": 0, "dst": 1, "app": {"kind": "tcp_bulk"}}],
        });
        for (k, v) in extra.as_object().unwrap() {
            base[k] = v.clone();
        }
        serde_json::from_value(base).unwrap()
    }

    fn key_of(extra: serde_json::Value) -> String {
        scenario(extra).validate().unwrap_err().key
    }

    #[test]
    fn a_valid_scenario_passes() {
        scenario(serde_json::json!({})).validate().unwrap();
    }

    #[test]
    fn each_problem_names_its_field() {
        let flow = |f: serde_json::Value| serde_json::json!({"flows": [f]});
        assert_eq!(
            key_of(flow(serde_json::json!({"name": "f", "src": 0, "dst": 2,
                "app": {"kind": "tcp_bulk"}}))),
            "flows[0]",
            "c is connected to nothing"
        );
        assert_eq!(
            key_of(flow(serde_json::json!({"name": "f", "src": 0, "dst": 1,
                "start_ns": 10_000_000_000u64, "app": {"kind": "tcp_bulk"}}))),
            "flows[0].start_ns"
        );
        assert_eq!(
            key_of(flow(serde_json::json!({"name": "f", "src": 0, "dst": 1,
                "start_ns": 5, "stop_ns": 5, "app": {"kind": "tcp_bulk"}}))),
            "flows[0].stop_ns"
        );
        assert_eq!(key_of(serde_json::json!({"flows": []})), "flows");
        assert_eq!(
            key_of(serde_json::json!({"nodes": ["a", "../../escaped", "c"]})),
            "nodes[1]"
        );
        assert_eq!(
            key_of(serde_json::json!({"sample_interval_ns": 1})),
            "simulation.sample_interval_ns"
        );
        let wlan = |phy: serde_json::Value| serde_json::json!({"wlans": [{"ap": 2, "stations": [0], "phy": phy}]});
        assert_eq!(
            key_of(wlan(
                serde_json::json!({"standard": "802.11b", "rate_bps": 7_000_000})
            )),
            "wlans[0].phy.rate_bps"
        );
        assert_eq!(
            key_of(wlan(serde_json::json!({"standard": "802.11b",
                "rate_bps": 11_000_000, "basic_rate_bps": 11_000_000}))),
            "wlans[0].phy.basic_rate_bps"
        );
    }

    #[test]
    fn oversized_time_series_are_refused_with_their_cost() {
        // 1000 s sampled every 10 µs for one flow and a link's two queues: 3e8 samples.
        let error = scenario(serde_json::json!({
            "duration_ns": 1_000_000_000_000u64, "sample_interval_ns": 10_000}))
        .validate()
        .unwrap_err();
        assert_eq!(error.key, "simulation.sample_interval_ns");
        assert!(
            error.message.contains("1 TCP flows and 2 queues")
                && error.message.contains("300000000 time-series samples")
                && error.message.contains("20.700 GB")
                && error.message.contains("150 µs"),
            "{}",
            error.message
        );
        scenario(serde_json::json!({
            "duration_ns": 1_000_000_000_000u64, "sample_interval_ns": 150_000}))
        .validate()
        .unwrap();
    }
}
