//! The settings a run actually uses, defaults applied: each WLAN's PHY timing, MAC limits,
//! queues (a qdisc's AQM) and agent, each TCP flow's configuration, each link direction (and
//! its AQM), each mobile's handoff
//! procedure and each placed agent's settings; with WLANs with geometry, the radio settings
//! (`config::RadioConfig`) and each WLAN node's position. Reproductions print them so that every
//! value behind a figure is stated, not only the ones a scenario file sets.

use airtcp_proto::wifi::edca::{AccessCategory, EdcaParams};
use airtcp_proto::wifi::Modulation;
use serde_json::{json, Value};

use crate::config::{
    AgentConfig, AppConfig, ConfigError, DirectionConfig, DriverQueue, FastRecoveryConfig,
    MobileConfig, Scenario,
};
use crate::mobility::CellPath;
use crate::radio::validate::ChannelPlan;

/// The effective settings of a validated scenario, as JSON.
pub fn effective_settings(scenario: &Scenario) -> Result<Value, ConfigError> {
    let mut wlans = Vec::new();
    for (index, wlan) in scenario.wlans.iter().enumerate() {
        let phy = wlan.build_phy(&format!("wlans[{index}]"))?;
        let stations = wlan.stations.iter().map(|&s| &scenario.nodes[s]);
        wlans.push(json!({
            "ap": scenario.nodes[wlan.ap],
            "stations": stations.collect::<Vec<_>>(),
            "phy": phy.name,
            "rate_bps": phy.data_rate_bps,
            "basic_rate_bps": phy.basic_rate_bps,
            "slot_ns": phy.slot_ns,
            "sifs_ns": phy.sifs_ns,
            "difs_ns": phy.difs_ns(),
            "eifs_ns": phy.eifs_ns(phy.data_rate_bps),
            "ack_timeout_ns": phy.response_timeout_ns(),
            "eifs_after_collision": wlan.eifs_after_collision,
            "cw_min": phy.cw_min,
            "cw_max": phy.cw_max,
            "rts_threshold": wlan.rts_threshold,
            "queue_packets": wlan.queue_packets,
            "short_retry_limit": wlan.short_retry_limit,
            "long_retry_limit": wlan.long_retry_limit,
            "msdu_lifetime_ns": wlan.msdu_lifetime_ns,
            "queue_max_delay_ns": wlan.queue_max_delay_ns,
            "agent": wlan.agent.as_ref().map(|agent| agent.kind.clone()),
            "queueing": wlan.queueing.name(),
            "driver_queue": wlan.driver_queue.name(),
        }));
        if let Some(qdisc) = wlan.qdisc(scenario.seed, index as u32, phy.data_rate_bps) {
            // the qdisc above each MAC's driver, as it runs
            let entry = wlans.last_mut().expect("just pushed");
            entry["aqm"] = json!(qdisc.aqm.effective(&qdisc.limit(), Some(qdisc.rate_bps)));
        }
        if wlan.driver_queue != DriverQueue::Ath9k {
            // the firmware's depth and, with AQL, its limits as the run used them
            let driver = wlan.driver();
            let entry = wlans.last_mut().expect("just pushed");
            entry["firmware_queue_frames"] = json!(driver.firmware_frames);
            if wlan.driver_queue == DriverQueue::FirmwareAql {
                entry["aql_limit_low_ns"] = json!(driver.aql.low_ns);
                entry["aql_limit_high_ns"] = json!(driver.aql.high_ns);
                entry["aql_threshold_ns"] = json!(driver.aql.threshold_ns);
            }
        }
        if !wlan.station_rates.is_empty() || !wlan.station_mcs.is_empty() {
            // each station's own data rate (and MCS), by name
            let entry = wlans.last_mut().expect("just pushed");
            let names = &scenario.nodes;
            let rates = wlan
                .station_rates
                .iter()
                .map(|r| (names[r.station].clone(), json!(r.rate_bps)));
            let mcs = wlan
                .station_mcs
                .iter()
                .map(|m| (names[m.station].clone(), json!(m.mcs)));
            entry["station_rates_bps"] = Value::Object(rates.collect());
            entry["station_mcs"] = Value::Object(mcs.collect());
        }
        if wlan.uses_edca() {
            let set = wlan.edca_set(&phy);
            let by_ac = |params: &[EdcaParams; 4]| {
                AccessCategory::ALL
                    .iter()
                    .zip(params)
                    .map(|(ac, p)| (ac.name().to_string(), json!(p)))
                    .collect::<serde_json::Map<_, _>>()
            };
            let entry = wlans.last_mut().expect("just pushed");
            entry["edca"] = json!({"stations": by_ac(&set.station), "ap": by_ac(&set.ap)});
        }
        if let Modulation::Mcs(setting) = phy.modulation {
            let entry = wlans.last_mut().expect("just pushed");
            entry["mcs"] = setting.mcs_of(phy.data_rate_bps).into();
            entry["channel_width_mhz"] = setting.width_mhz.into();
            entry["spatial_streams"] = setting.streams.into();
            entry["guard_interval_ns"] = setting.guard_interval_ns.into();
            entry["band"] = setting.band.name().into();
            entry["ampdu"] = match wlan.ampdu_limits() {
                Some(limits) => json!({
                    "ba_window": limits.window,
                    "max_ampdu_bytes": limits.max_bytes,
                    "max_ppdu_ns": limits.max_ppdu_ns,
                    // 0: one MSDU an MPDU
                    "max_amsdu_bytes": limits.max_amsdu_bytes,
                }),
                None => Value::Null,
            };
        }
    }
    let flows = scenario
        .flows
        .iter()
        .map(|flow| match &flow.app {
            AppConfig::TcpBulk {
                congestion_control,
                tcp,
                ..
            }
            | AppConfig::TcpWorkload {
                congestion_control,
                tcp,
                ..
            } => json!({
                "name": flow.name,
                "congestion_control": congestion_control,
                "tcp": tcp.build(),
            }),
            AppConfig::UdpCbr { .. } | AppConfig::Ping { .. } => json!({"name": flow.name}),
        })
        .collect::<Vec<_>>();
    let names = &scenario.nodes;
    let links = scenario
        .links
        .iter()
        .flat_map(|link| {
            [
                direction(&names[link.a], &names[link.b], &link.a_to_b),
                direction(&names[link.b], &names[link.a], &link.b_to_a),
            ]
        })
        .collect::<Vec<_>>();
    let mobiles = scenario
        .mobiles
        .iter()
        .map(|m| mobile(m, scenario))
        .collect::<Vec<_>>();
    let agents = scenario
        .agents
        .iter()
        .map(|placed| {
            let mut entry = agent(&placed.agent);
            entry["node"] = json!(names[placed.node]);
            entry["interface"] = json!(placed.interface);
            entry
        })
        .collect::<Vec<_>>();
    let mut settings = json!({"wlans": wlans, "flows": flows, "links": links,
                              "mobiles": mobiles, "agents": agents});
    if !ChannelPlan::of(scenario).shared.is_empty() {
        settings["radio"] = json!(scenario.radio);
        let positions = scenario.positions.iter().map(|p| {
            json!({"node": names[p.node], "x_m": p.x, "y_m": p.y, "z_m": p.z,
                   "tx_power_dbm": p.tx_power_dbm.unwrap_or(scenario.radio.tx_power_dbm)})
        });
        settings["positions"] = json!(positions.collect::<Vec<_>>());
    }
    Ok(settings)
}

fn direction(from: &str, to: &str, d: &DirectionConfig) -> Value {
    let mut settings = json!({
        "from": from, "to": to, "rate_bps": d.mean_rate_bps(),
        "delivery_trace": d.trace_ms.as_ref().map(|times| times.len()), "delay_ns": d.delay_ns,
        "queue_packets": d.queue.packets, "queue_bytes": d.queue.bytes,
        "loss": d.errors.loss, "ber": d.errors.ber,
    });
    if let Some(aqm) = d.aqm.effective(&d.queue, d.rate_bps) {
        // the queue manager's settings, defaults applied (DropTail states none)
        settings["aqm"] = aqm;
    }
    settings
}

fn mobile(m: &MobileConfig, scenario: &Scenario) -> Value {
    let names = &scenario.nodes;
    let p = &m.procedure;
    let cells = m
        .cells(scenario)
        .iter()
        .map(|cell| {
            let kind = match cell.path {
                CellPath::Link { .. } => "link",
                CellPath::Wlan { .. } => "wlan",
            };
            json!({"base_station": names[cell.base_station], "kind": kind})
        })
        .collect::<Vec<_>>();
    let movement = m.movement.as_ref().map(|movement| {
        json!({
            "path": movement.path.iter().map(|w| json!({
                "at_ns": w.at_ns, "x_m": w.x_m, "y_m": w.y_m,
            })).collect::<Vec<_>>(),
            "cells": movement.cells.iter().map(|c| json!({
                "base_station": names[c.base_station], "x_m": c.x_m, "y_m": c.y_m,
                "range_m": c.range_m,
            })).collect::<Vec<_>>(),
        })
    });
    json!({
        "node": names[m.node], "attached": names[m.attached], "cells": cells,
        "movement": movement,
        "while_detached": m.while_detached,
        "beacon_interval_ns": p.beacon_interval_ns, "greeting_ns": p.greeting_ns,
        "inform_ns": p.inform_ns, "adjust_ns": p.adjust_ns,
        "handoff_duration_ns": m.handoff_duration_ns, "handoff_jitter_ns": m.handoff_jitter_ns,
        "handoffs": m.handoffs.iter().map(|h| json!({
            "at_ns": h.at_ns, "to": names[h.to], "duration_ns": h.duration_ns,
        })).collect::<Vec<_>>(),
    })
}

/// An agent's kind and the mobility settings that apply to it, defaults applied.
fn agent(config: &AgentConfig) -> Value {
    let mut entry = json!({"kind": config.kind});
    for setting in config.mobility_settings() {
        if setting.kinds.contains(&config.kind.as_str()) {
            entry[setting.name] = json!(setting.effective);
        }
    }
    if FastRecoveryConfig::KINDS.contains(&config.kind.as_str()) {
        entry["fast_recovery"] = json!(config
            .fast_recovery
            .unwrap_or(FastRecoveryConfig::Regenerate));
    }
    entry
}
