//! The settings a run actually uses, defaults applied: each WLAN's PHY timing, MAC limits
//! and agent, and each TCP flow's configuration. Reproductions print them so that every
//! value behind a figure is stated, not only the ones a scenario file sets.

use serde_json::{json, Value};

use crate::config::{AppConfig, ConfigError, Scenario};

/// The effective settings of a validated scenario, as JSON.
pub fn effective_settings(scenario: &Scenario) -> Result<Value, ConfigError> {
    let mut wlans = Vec::new();
    for (index, wlan) in scenario.wlans.iter().enumerate() {
        let phy = wlan.build_phy(&format!("wlans[{index}]"))?;
        wlans.push(json!({
            "phy": phy.name,
            "rate_bps": phy.data_rate_bps,
            "basic_rate_bps": phy.basic_rate_bps,
            "slot_ns": phy.slot_ns,
            "sifs_ns": phy.sifs_ns,
            "difs_ns": phy.difs_ns(),
            "eifs_ns": phy.eifs_ns(),
            "cw_min": phy.cw_min,
            "cw_max": phy.cw_max,
            "rts_threshold": wlan.rts_threshold,
            "queue_packets": wlan.queue_packets,
            "short_retry_limit": wlan.short_retry_limit,
            "long_retry_limit": wlan.long_retry_limit,
            "msdu_lifetime_ns": wlan.msdu_lifetime_ns,
            "agent": wlan.agent.as_ref().map(|agent| agent.kind.clone()),
        }));
    }
    let flows = scenario
        .flows
        .iter()
        .map(|flow| match &flow.app {
            AppConfig::TcpBulk {
                congestion_control,
                tcp,
                ..
            } => json!({
                "name": flow.name,
                "congestion_control": congestion_control,
                "tcp": tcp.build(),
            }),
            AppConfig::UdpCbr { .. } => json!({"name": flow.name}),
        })
        .collect::<Vec<_>>();
    Ok(json!({"wlans": wlans, "flows": flows}))
}
