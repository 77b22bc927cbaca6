//! Building a run from a resolved [`Scenario`]: wired links as pairs of channels, BSSs with
//! their MACs, the adjacency that `routing` computes first hops from, the flows' endpoints,
//! and the agents placed on nodes' interfaces (`wlan.agent` on its AP, then `[[agents]]`).

use airtcp_proto::agent::{self, Agent, AgentSettings, DSSS_AC_VO_TXOP_NS, OFDM_AC_VO_TXOP_NS};
use airtcp_proto::wifi::bianchi::{self, CollisionTiming, Params};
use airtcp_proto::wifi::edca::AccessCategory;
use airtcp_proto::wifi::{Modulation, Phy};
use rand::Rng;

use super::endpoints::build_flow;
use super::external::External;
use super::wlans::Wlan;
use super::{RunOptions, Simulation};
use crate::config::{AgentConfig, AppConfig, ConfigError, Queueing, Scenario, WlanConfig};
use crate::engine::EventQueue;
use crate::interface::{planner_off_ap, AgentSlot, Interface};
use crate::link::Channel;
use crate::pcap::{NodeTraces, WlanTraces};
use crate::radio::validate::{frequency_hz, ChannelPlan};
use crate::radio::{Placement, RadioActions, SharedChannel, WlanSpec};
use crate::rng::{stream, StreamId};
use crate::routing::{Hop, Routes};
use crate::slab::Slab;
use crate::summary::TimeSeries;
use crate::wlan::{Actions, Bss, MacParams};

impl Simulation {
    pub fn new(scenario: Scenario, options: &RunOptions) -> Result<Simulation, ConfigError> {
        scenario.validate()?;
        let seed = scenario.seed;
        let node_count = scenario.nodes.len();
        let mut adjacency: Vec<Vec<(usize, Hop)>> = vec![Vec::new(); node_count];
        let mut channels = Vec::new();
        let mut channel_ends = Vec::new();
        for (i, link) in scenario.links.iter().enumerate() {
            for (direction, (from, to, config)) in [
                (link.a, link.b, &link.a_to_b),
                (link.b, link.a, &link.b_to_a),
            ]
            .into_iter()
            .enumerate()
            {
                let id = channels.len() as u32;
                let (link, direction) = (i as u32, direction as u8);
                let rng = stream(seed, StreamId::Link { link, direction });
                let aqm_rng = stream(seed, StreamId::LinkAqm { link, direction });
                let metered = scenario.queue_sojourn;
                channels.push(Channel::new(config, to, rng, aqm_rng, metered));
                channel_ends.push((from, to));
                adjacency[from].push((to, Hop::Channel(id)));
            }
        }
        let plan = ChannelPlan::of(&scenario);
        let mut wlans = Vec::new();
        for (b, wlan) in scenario.wlans.iter().enumerate() {
            let phy = wlan.build_phy(&format!("wlans[{b}]"))?;
            let macs = std::iter::once(wlan.ap)
                .chain(wlan.stations.iter().copied())
                .enumerate()
                .map(|(m, node)| {
                    (
                        node,
                        stream(
                            seed,
                            StreamId::Mac {
                                bss: b as u32,
                                mac: m as u32,
                            },
                        ),
                    )
                })
                .collect::<Vec<_>>();
            for (m, &station) in wlan.stations.iter().enumerate() {
                let mac = m as u32 + 1;
                adjacency[wlan.ap].push((
                    station,
                    Hop::Wlan {
                        bss: b as u32,
                        mac: 0,
                        to: mac,
                    },
                ));
                adjacency[station].push((
                    wlan.ap,
                    Hop::Wlan {
                        bss: b as u32,
                        mac,
                        to: 0,
                    },
                ));
            }
            let params = mac_params(wlan);
            if let Some(k) = plan.channel_of(b) {
                wlans.push(Wlan::Shared(k as u32));
                continue;
            }
            let channel_rng = stream(seed, StreamId::WlanChannel { bss: b as u32 });
            let data_rate_bps = phy.data_rate_bps;
            let edca = wlan.uses_edca().then(|| wlan.edca_set(&phy));
            let station_phys = station_phys(wlan, &phy, &format!("wlans[{b}]"))?;
            let rates: Vec<u64> = match &station_phys {
                Some(phys) => phys.iter().map(|p| p.data_rate_bps).collect(),
                None => vec![data_rate_bps; wlan.stations.len() + 1],
            };
            let mut bss = Bss::new(phy, params, wlan.errors, channel_rng, macs, None);
            if let Some(set) = &edca {
                bss.use_edca(set);
            }
            if let Some(phys) = station_phys {
                bss.use_station_phys(phys);
            }
            if let Some(limits) = wlan.ampdu_limits() {
                bss.aggregate(limits);
            }
            let qdisc = wlan.qdisc(seed, b as u32, data_rate_bps);
            if wlan.queueing != Queueing::Fifo || qdisc.is_some() {
                let key = stream(seed, StreamId::FlowHash { bss: b as u32 }).random();
                let queues = (wlan.queueing, wlan.driver(), qdisc.as_ref());
                bss.queue_through(queues, &rates, key);
            }
            wlans.push(Wlan::Alone(bss));
        }
        let mut shared = plan
            .shared
            .iter()
            .enumerate()
            .map(|(k, group)| build_shared(&scenario, k as u32, group))
            .collect::<Result<Vec<_>, _>>()?;
        // Validation made sure that every flow has a path.
        let external = if options.external_hosts {
            Some(External::new(&scenario, &adjacency)?)
        } else {
            None
        };
        let routes = Routes::new(adjacency);
        // Workload k is the k-th flow whose app is a workload (its server port's offset).
        let workload_flows: Vec<usize> = scenario
            .flows
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f.app, crate::config::AppConfig::TcpWorkload { .. }))
            .map(|(i, _)| i)
            .collect();
        let flows = scenario
            .flows
            .iter()
            .enumerate()
            .map(|(i, config)| {
                let workload = workload_flows.iter().position(|&w| w == i);
                build_flow(i, config, scenario.seed, workload, scenario.one_way_delay)
            })
            .collect();
        let cannot_write = |key: &str, dir: &std::path::Path, e: std::io::Error| ConfigError {
            key: key.into(),
            message: format!("cannot write traces in {}: {e}", dir.display()),
        };
        let node_traces = match &options.pcap_dir {
            Some(dir) => Some(
                NodeTraces::create(dir, &scenario.nodes, options.pcap_snaplen)
                    .map_err(|e| cannot_write("pcap", dir, e))?,
            ),
            None => None,
        };
        let wlan_traces = match &options.wlan_pcap_dir {
            Some(_) if scenario.wlans.is_empty() => {
                return Err(ConfigError {
                    key: "pcap-80211".into(),
                    message: "the scenario has no WLAN to capture".into(),
                })
            }
            Some(dir) => {
                let phys: Vec<Phy> = scenario
                    .wlans
                    .iter()
                    .enumerate()
                    .map(|(b, wlan)| wlan.build_phy(&format!("wlans[{b}]")))
                    .collect::<Result<_, _>>()?;
                let described: Vec<(&str, &Phy, Option<u32>)> = scenario
                    .wlans
                    .iter()
                    .zip(&phys)
                    .map(|(wlan, phy)| (scenario.nodes[wlan.ap].as_str(), phy, wlan.channel))
                    .collect();
                let traces = WlanTraces::create(dir, &described, options.pcap_snaplen)
                    .map_err(|e| cannot_write("pcap-80211", dir, e))?;
                for wlan in &mut wlans {
                    if let Wlan::Alone(bss) = wlan {
                        bss.capture_air();
                    }
                }
                shared.iter_mut().for_each(SharedChannel::capture_air);
                Some(traces)
            }
            None => None,
        };
        let mut simulation = Simulation {
            events: EventQueue::default(),
            routes,
            channels,
            channel_ends,
            wlans,
            shared,
            radio_actions: RadioActions::default(),
            flows,
            workload_flows,
            node_traces,
            wlan_traces,
            next_uid: 0,
            wlan_actions: Actions::default(),
            outgoing: Vec::new(),
            series: TimeSeries::default(),
            wall_limit: options.wall_limit,
            monitor: options.monitor.clone(),
            time_series: options.time_series,
            signal_names: Vec::new(),
            held: Slab::default(),
            in_flight: Slab::default(),
            arrivals: Slab::default(),
            spare_batches: Vec::new(),
            mobiles: Vec::new(),
            external,
            scenario,
        };
        if simulation.scenario.queue_sojourn {
            simulation.meter_mac_sojourns();
        }
        simulation.place_mobiles();
        simulation.place_agents()?;
        simulation.schedule_initial_events();
        Ok(simulation)
    }

    /// Puts an agent on a node's interface before the run: `interface` names the peer of a
    /// wired link or `"wlan"`, and may be `None` when the node has one interface. Agents that
    /// plan channel access sit only on an AP's `wlan`. This is how tests and embedders add an
    /// agent of their own; scenarios place the built-in kinds with `[[agents]]`.
    pub fn place_agent(
        &mut self,
        node: &str,
        interface: Option<&str>,
        agent: Box<dyn Agent>,
    ) -> Result<(), ConfigError> {
        let index = self.node_index(node).ok_or_else(|| ConfigError {
            key: "agents.node".into(),
            message: format!("no node named '{node}'"),
        })?;
        let fail = |message| ConfigError {
            key: "agents.interface".into(),
            message,
        };
        let place = self.scenario.interface_of(index, interface).map_err(fail)?;
        self.put_agent(place, agent, AgentQueues::default())
            .map_err(fail)
    }

    /// Delivers a named signal (e.g. `"handoff"`) at `at` to the agent on a node's interface.
    pub fn schedule_signal(
        &mut self,
        at: airtcp_proto::Instant,
        node: &str,
        interface: Option<&str>,
        name: &str,
    ) -> Result<(), ConfigError> {
        let fail = |message: String| ConfigError {
            key: "signals".into(),
            message,
        };
        let index = self
            .node_index(node)
            .ok_or_else(|| fail(format!("no node named '{node}'")))?;
        let interface = self.scenario.interface_of(index, interface).map_err(fail)?;
        self.signal_names.push(name.to_owned());
        let signal = self.signal_names.len() as u32 - 1;
        self.events
            .schedule(at, super::Event::AgentSignal { interface, signal });
        Ok(())
    }

    fn node_index(&self, name: &str) -> Option<usize> {
        self.scenario.nodes.iter().position(|node| node == name)
    }

    /// The scenario's agents, where validation found their places.
    fn place_agents(&mut self) -> Result<(), ConfigError> {
        let places = self.scenario.agent_places()?;
        let built: Vec<_> = places
            .into_iter()
            .map(|(key, place, config)| {
                let ap = match place {
                    Interface::Wlan { bss, mac: 0 } => {
                        let wlan = &self.scenario.wlans[bss as usize];
                        let phy = wlan.build_phy("wlans").expect("validated PHY");
                        Some((bss as usize, phy))
                    }
                    _ => None,
                };
                let ap = ap.as_ref().map(|(bss, phy)| (*bss, phy));
                let agent = build_agent(&self.scenario, config, ap).expect("validated kind");
                let queues = AgentQueues {
                    ack_queue_packets: config.ack_queue_packets,
                    ac: config.ac.unwrap_or(AccessCategory::Be),
                };
                (key, place, agent, queues)
            })
            .collect();
        for (key, place, agent, queues) in built {
            self.put_agent(place, agent, queues)
                .map_err(|message| ConfigError {
                    key: format!("{key}.interface"),
                    message,
                })?;
        }
        Ok(())
    }

    pub(super) fn put_agent(
        &mut self,
        place: Interface,
        mut agent: Box<dyn Agent>,
        queues: AgentQueues,
    ) -> Result<(), String> {
        if self.has_agent(place) {
            return Err("the interface already has an agent".into());
        }
        if agent.access_planner().is_some() && !place.is_ap() {
            return Err(planner_off_ap(agent.name()));
        }
        match place {
            Interface::Channel(c) => self.channels[c as usize].agent = Some(AgentSlot::new(agent)),
            Interface::Wlan { bss, mac } => {
                if agent.access_planner().is_some() {
                    let refused = self.scenario.planner_refused(bss as usize, agent.name());
                    if let Some(message) = refused {
                        return Err(message);
                    }
                }
                self.wlan_place_agent(bss, mac, agent, queues);
            }
        }
        Ok(())
    }
}

/// Where an agent on a WLAN interface works: the EDCAF of `ac` (with EDCA), and a limit of
/// its own for an AP's ACK queue.
#[derive(Clone, Copy, Debug)]
pub(super) struct AgentQueues {
    pub ack_queue_packets: Option<u32>,
    pub ac: AccessCategory,
}

impl Default for AgentQueues {
    fn default() -> Self {
        AgentQueues {
            ack_queue_packets: None,
            ac: AccessCategory::Be,
        }
    }
}

/// An agent as `config` sets it. On the AP of WLAN `index` (with its PHY), the defaults of
/// paper 000's agents come from the WLAN: the PHY's AC_VO TXOP limit, 16 frames per
/// aggregate, and as target the optimal number of contenders of Bianchi's model for the
/// stations' TCP data frames. The AP is not subtracted: with backoff 0 its short ACK frames
/// rarely collide (paper 000's premise), so it is not a random-access contender.
fn build_agent(
    scenario: &Scenario,
    config: &AgentConfig,
    ap: Option<(usize, &Phy)>,
) -> Option<Box<dyn Agent>> {
    let Some((index, phy)) = ap else {
        return agent::by_name(&config.kind, config.settings());
    };
    let wlan = &scenario.wlans[index];
    let mss = scenario
        .flows
        .iter()
        .find_map(|flow| match &flow.app {
            AppConfig::TcpBulk { tcp, .. } if wlan.stations.contains(&flow.src) => {
                Some(tcp.build().mss)
            }
            _ => None,
        })
        .unwrap_or(1460);
    let msdu = crate::wlan::dcf::LLC_SNAP_BYTES + 40 + mss;
    let rts = wlan
        .rts_threshold
        .is_some_and(|t| phy.mac_overhead_bytes + msdu > t);
    let timing = CollisionTiming::Mac {
        eifs_after_collision: wlan.eifs_after_collision,
    };
    let retry_limit = Some(wlan.short_retry_limit - 1);
    let mut params = Params::from_phy(phy, msdu, rts, timing, retry_limit);
    // the stations' frames as the WLAN sends them: A-MPDUs where it aggregates, in AC_BE's
    // EDCAF where it has EDCA
    if let Some(limits) = wlan.ampdu_limits().filter(|_| !rts) {
        let ampdu = (limits.max_bytes, limits.max_ppdu_ns);
        let longest =
            Params::for_longest_ampdu(phy, msdu, limits.window, ampdu, timing, retry_limit);
        params = longest.map_or(params, |(_, aggregated)| aggregated);
    }
    let edca = wlan.uses_edca().then(|| wlan.edca_set(phy));
    if let Some(set) = &edca {
        params = params.with_edca(&set.station[AccessCategory::Be as usize]);
    }
    let optimum = bianchi::optimal_stations(&params, 1..=100).stations;
    let ofdm = !matches!(
        phy.modulation,
        Modulation::Dsss(_) | Modulation::Fhss { .. }
    );
    // a TXOP agent's limit: that of the AC it names with EDCA, if it has one, else AC_VO's
    // (paper 000's choice)
    let ac_txop = edca
        .zip(config.ac)
        .map(|(set, ac)| set.ap[ac as usize].txop_limit_ns)
        .filter(|&txop| txop > 0);
    let settings = AgentSettings {
        txop_ns: config.txop_limit_ns.or(ac_txop).unwrap_or(if ofdm {
            OFDM_AC_VO_TXOP_NS
        } else {
            DSSS_AC_VO_TXOP_NS
        }),
        max_aggregate: config.max_aggregate.unwrap_or(16) as usize,
        target_stations: config.target_stations.unwrap_or(f64::from(optimum)),
        cw_min: phy.cw_min,
        stages: phy.backoff_stages(),
        ..config.settings()
    };
    agent::by_name(&config.kind, settings)
}

/// Per MAC of a WLAN without geometry whose stations send at rates or MCSs of their own
/// (`station_rates`, `station_mcs`), the PHY of the frames between it and the AP (the AP's
/// entry the WLAN's `phy`); `None` when every station uses `phy`.
fn station_phys(wlan: &WlanConfig, phy: &Phy, key: &str) -> Result<Option<Vec<Phy>>, ConfigError> {
    if wlan.station_rates.is_empty() && wlan.station_mcs.is_empty() {
        return Ok(None);
    }
    let of_station = |node: usize| -> Result<Phy, ConfigError> {
        if let Some(station) = wlan.station_mcs.iter().find(|r| r.station == node) {
            return wlan
                .phy_at_mcs(station.mcs, false)
                .map_err(|(_, message)| ConfigError {
                    key: format!("{key}.station_mcs"),
                    message,
                });
        }
        match wlan.station_rates.iter().find(|r| r.station == node) {
            Some(rate) => {
                let mut config = wlan.phy.clone();
                config.rate_bps = Some(rate.rate_bps);
                config.build().map_err(|(_, message)| ConfigError {
                    key: format!("{key}.station_rates"),
                    message,
                })
            }
            None => Ok(phy.clone()),
        }
    };
    std::iter::once(Ok(phy.clone()))
        .chain(wlan.stations.iter().map(|&node| of_station(node)))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Shared channel `k`: the WLANs `group`, their radios where the scenario places them.
fn build_shared(
    scenario: &Scenario,
    k: u32,
    group: &[usize],
) -> Result<SharedChannel, ConfigError> {
    let mut specs = Vec::new();
    for &b in group {
        let wlan = &scenario.wlans[b];
        let key = format!("wlans[{b}]");
        let phy = wlan.build_phy(&key)?;
        let nodes: Vec<usize> = std::iter::once(wlan.ap)
            .chain(wlan.stations.iter().copied())
            .collect();
        let mac_rates = nodes
            .iter()
            .map(|node| {
                let mcs = wlan.station_mcs.iter().find(|r| r.station == *node);
                match mcs {
                    Some(station) => wlan
                        .phy_at_mcs(station.mcs, true)
                        .map(|phy| phy.data_rate_bps)
                        .map_err(|(_, message)| ConfigError {
                            key: format!("{key}.station_mcs"),
                            message,
                        }),
                    None => Ok(wlan
                        .station_rates
                        .iter()
                        .find(|r| r.station == *node)
                        .map_or(phy.data_rate_bps, |r| r.rate_bps)),
                }
            })
            .collect::<Result<_, _>>()?;
        let edca = wlan
            .uses_edca()
            .then(|| (wlan.edca_set(&phy), scenario.geometry_ac()));
        let qdisc = wlan.qdisc(scenario.seed, b as u32, phy.data_rate_bps);
        specs.push(WlanSpec {
            bss: b as u32,
            params: mac_params(wlan),
            phy,
            nodes,
            mac_rates,
            rate_control: wlan.rate_control.clone(),
            ampdu: wlan.ampdu_limits(),
            edca,
            queueing: wlan.queueing,
            driver: wlan.driver(),
            qdisc,
            flow_hash_key: stream(scenario.seed, StreamId::FlowHash { bss: b as u32 }).random(),
        });
    }
    let radio = &scenario.radio;
    let placement = |node: usize| {
        let p = scenario
            .positions
            .iter()
            .find(|p| p.node == node)
            .expect("validated: every node placed");
        let place = Placement {
            position: [p.x, p.y, p.z],
            tx_power_dbm: p.tx_power_dbm.unwrap_or(radio.tx_power_dbm),
        };
        (place, p.motion.clone())
    };
    let frequency = frequency_hz(&scenario.wlans[group[0]]);
    Ok(SharedChannel::new(
        k,
        scenario.seed,
        specs,
        radio,
        frequency,
        placement,
    ))
}

fn mac_params(wlan: &WlanConfig) -> MacParams {
    MacParams {
        rts_threshold: wlan.rts_threshold,
        short_retry_limit: wlan.short_retry_limit,
        long_retry_limit: wlan.long_retry_limit,
        queue_packets: wlan.queue_packets,
        ack_queue_packets: None, // set by the AP's agent, if it asks (place_agents)
        msdu_lifetime_ns: wlan.msdu_lifetime_ns,
        queue_max_delay_ns: wlan.queue_max_delay_ns,
        eifs_after_collision: wlan.eifs_after_collision,
    }
}
