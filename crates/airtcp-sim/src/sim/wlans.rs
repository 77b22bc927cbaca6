//! The run's WLANs, each either alone in its collision domain (`wlan::Bss`, the fast path)
//! or a part of a channel shared with geometry (`radio::SharedChannel`), and the one place
//! that dispatches between the two for the rest of the run.

use airtcp_proto::agent::Agent;

use super::{Event, Simulation};
use crate::interface::AgentSlot;
use crate::packet::Packet;
use crate::radio::series::MacSample;
use crate::radio::{RadioCounters, RadioEvent, SharedChannel};
use crate::summary::{MacQueueSummary, MacSummary};
use crate::wlan::dcf::{MacQueueId, MacQueueSample};
use crate::wlan::{Bss, MacCounters, MacQueue};
use airtcp_proto::wifi::propagation::mw_to_dbm;

/// A WLAN as the run holds it. A run has few WLANs, and keeping the fast path's `Bss`
/// inline spares it an indirection on every frame.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub(super) enum Wlan {
    Alone(Bss),
    /// On shared channel `k` of the run.
    Shared(u32),
}

impl Simulation {
    /// The WLAN's own collision domain: only WLANs without geometry have one (their events,
    /// roaming and captures; validation keeps the others out of those).
    pub(super) fn bss(&mut self, bss: u32) -> &mut Bss {
        match &mut self.wlans[bss as usize] {
            Wlan::Alone(alone) => alone,
            Wlan::Shared(_) => unreachable!("WLAN {bss} has geometry"),
        }
    }

    pub(super) fn bss_ref(&self, bss: u32) -> &Bss {
        match &self.wlans[bss as usize] {
            Wlan::Alone(alone) => alone,
            Wlan::Shared(_) => unreachable!("WLAN {bss} has geometry"),
        }
    }

    pub(super) fn wlan_node(&self, bss: u32, mac: u32) -> usize {
        match &self.wlans[bss as usize] {
            Wlan::Alone(alone) => alone.node(mac),
            Wlan::Shared(k) => self.shared[*k as usize].node(bss, mac),
        }
    }

    /// A WLAN's counters, and its channel's if it has geometry.
    pub(super) fn wlan_counters(&self, bss: usize) -> (&MacCounters, Option<&RadioCounters>) {
        match &self.wlans[bss] {
            Wlan::Alone(alone) => (&alone.counters, None),
            Wlan::Shared(k) => {
                let (mac, radio) = self.shared[*k as usize].counters(bss as u32);
                (mac, Some(radio))
            }
        }
    }

    /// Per MAC of a WLAN with geometry, what it sent and how it was heard (empty without).
    pub(super) fn mac_summaries(&self, bss: usize) -> Vec<MacSummary> {
        let Wlan::Shared(k) = &self.wlans[bss] else {
            return Vec::new();
        };
        let channel = &self.shared[*k as usize];
        let noise = channel.noise_dbm();
        let ratio = |a: f64, b: u64| if b == 0 { 0.0 } else { a / b as f64 };
        channel
            .station_stats(bss as u32)
            .into_iter()
            .map(|(node, stats)| {
                let rssi = (stats.received > 0)
                    .then(|| mw_to_dbm(stats.power_sum_mw / stats.received as f64));
                MacSummary {
                    node: self.scenario.nodes[node].clone(),
                    attempts: stats.attempts,
                    failures: stats.failures,
                    delivered: stats.delivered,
                    loss: ratio(stats.failures as f64, stats.attempts),
                    mean_rate_bps: ratio(stats.rate_sum_bps, stats.attempts),
                    rssi_dbm: rssi,
                    snr_db: rssi.map(|dbm| dbm - noise),
                }
            })
            .collect()
    }

    /// A row of the MACs' series per MAC of a WLAN with geometry (their names on the first).
    pub(super) fn sample_macs(&mut self, time_s: f64) {
        let series = &mut self.series.macs;
        let names = &self.scenario.nodes;
        let mut key = 0u32;
        for channel in &mut self.shared {
            for (bss, node, d) in channel.sample().collect::<Vec<_>>() {
                if series.nodes.len() == key as usize {
                    series.nodes.push(names[node].clone());
                    series
                        .wlans
                        .push(names[self.scenario.wlans[bss as usize].ap].clone());
                }
                let mean = |sum: f64, n: u64| if n == 0 { f64::NAN } else { sum / n as f64 };
                series.push(MacSample {
                    mac: key,
                    time_s,
                    attempts: d.attempts,
                    failures: d.failures,
                    rate_bps: mean(d.rate_sum_bps, d.attempts),
                    rssi_dbm: mw_to_dbm(mean(d.power_sum_mw, d.received)),
                });
                key += 1;
            }
        }
    }

    /// The name of a MAC's queue in the queue series and the summary: "sta→ap (WLAN)" for
    /// a station's, "ap→stations (WLAN)" for the AP's, the AC added with EDCA for several
    /// ("ap→stations (WLAN, AC_VO)"), and the WLAN's index where its AP's node is the AP
    /// of another WLAN too ("ap→stations (WLAN 1)"), so that every name is another queue's.
    pub(super) fn mac_queue_name(&self, id: MacQueueId) -> String {
        let names = &self.scenario.nodes;
        let wlans = &self.scenario.wlans;
        let ap_node = wlans[id.bss as usize].ap;
        let ap = &names[ap_node];
        let from_to = match id.mac {
            0 => format!("{ap}→stations"),
            mac => format!("{}→{ap}", names[self.wlan_node(id.bss, mac)]),
        };
        let shared_ap = wlans.iter().filter(|wlan| wlan.ap == ap_node).count() > 1;
        let wlan = if shared_ap {
            format!("WLAN {}", id.bss)
        } else {
            "WLAN".to_string()
        };
        match id.ac {
            Some(ac) => format!("{from_to} ({wlan}, AC_{})", ac.name().to_uppercase()),
            None => format!("{from_to} ({wlan})"),
        }
    }

    /// Every MAC queue's sample now: the WLANs' alone in their collision domain in WLAN
    /// order, then the shared channels' (`sample_macs`'s order).
    pub(super) fn sample_mac_queues(&mut self) -> Vec<MacQueueSample> {
        let (mut samples, mut shared) = (Vec::new(), Vec::new());
        self.each_medium(
            |bss, alone| samples.extend(alone.sample_queues(bss)),
            |channel| shared.extend(channel.sample_queues()),
        );
        samples.append(&mut shared);
        samples
    }

    /// `alone` on each WLAN alone in its collision domain (with its index), in WLAN order,
    /// then `shared` on each shared channel.
    fn each_medium(
        &mut self,
        mut alone: impl FnMut(u32, &mut Bss),
        shared: impl FnMut(&mut SharedChannel),
    ) {
        for (bss, wlan) in self.wlans.iter_mut().enumerate() {
            if let Wlan::Alone(bss_alone) = wlan {
                alone(bss as u32, bss_alone);
            }
        }
        self.shared.iter_mut().for_each(shared);
    }

    /// The MAC queues `sample_mac_queues` samples.
    pub(super) fn mac_queue_count(&self) -> usize {
        let alone = self.wlans.iter().map(|wlan| match wlan {
            Wlan::Alone(alone) => alone.queue_count(),
            Wlan::Shared(_) => 0,
        });
        let shared = self.shared.iter().map(SharedChannel::queue_count);
        alone.chain(shared).sum()
    }

    /// With `queue_sojourn`, the sojourns of WLAN `bss`'s MAC queues over the measurement
    /// window (empty without).
    pub(super) fn mac_queue_summaries(&self, bss: usize) -> Vec<MacQueueSummary> {
        let sojourns = match &self.wlans[bss] {
            Wlan::Alone(alone) => alone.window_sojourns(bss as u32),
            Wlan::Shared(k) => self.shared[*k as usize].window_sojourns(),
        };
        let names = &self.scenario.nodes;
        sojourns
            .into_iter()
            .filter(|(id, _)| id.bss == bss as u32)
            .map(|(id, sojourn)| MacQueueSummary {
                queue: self.mac_queue_name(id),
                node: names[self.wlan_node(id.bss, id.mac)].clone(),
                ac: id.ac.map(|ac| ac.name()),
                sojourn,
            })
            .collect()
    }

    /// Turns on sojourn measurement in every MAC queue (`queue_sojourn`).
    pub(super) fn meter_mac_sojourns(&mut self) {
        self.each_medium(
            |_, alone| alone.meter_sojourns(),
            SharedChannel::meter_sojourns,
        );
    }

    /// The measurement window begins for the MAC queues' sojourns.
    pub(super) fn start_mac_sojourn_windows(&mut self) {
        self.each_medium(
            |_, alone| alone.start_sojourn_window(),
            SharedChannel::start_sojourn_window,
        );
    }

    pub(super) fn wlan_has_agent(&self, bss: u32, mac: u32) -> bool {
        match &self.wlans[bss as usize] {
            Wlan::Alone(alone) => alone.has_agent(mac),
            Wlan::Shared(k) => self.shared[*k as usize].has_agent(bss, mac),
        }
    }

    pub(super) fn wlan_take_agent(&mut self, bss: u32, mac: u32) -> Option<Box<dyn Agent>> {
        match &mut self.wlans[bss as usize] {
            Wlan::Alone(alone) => alone.take_agent(mac),
            Wlan::Shared(k) => self.shared[*k as usize].take_agent(bss, mac),
        }
    }

    pub(super) fn wlan_place_agent(
        &mut self,
        bss: u32,
        mac: u32,
        agent: Box<dyn Agent>,
        queues: super::build::AgentQueues,
    ) {
        let ack_queue = queues.ack_queue_packets;
        match &mut self.wlans[bss as usize] {
            Wlan::Alone(alone) => {
                alone.place_agent(mac, agent, queues.ac);
                if let Some(limit) = ack_queue {
                    alone.limit_ack_queue(limit);
                }
            }
            Wlan::Shared(k) => {
                let channel = &mut self.shared[*k as usize];
                channel.place_agent(bss, mac, agent, queues.ac);
                if let Some(limit) = ack_queue {
                    channel.limit_ack_queue(bss, limit);
                }
            }
        }
    }

    pub(super) fn wlan_agent_and_queue(
        &mut self,
        bss: u32,
        mac: u32,
    ) -> Option<(&mut AgentSlot, MacQueue<'_>)> {
        match &mut self.wlans[bss as usize] {
            Wlan::Alone(alone) => alone.agent_and_queue(mac),
            Wlan::Shared(k) => self.shared[*k as usize].agent_and_queue(bss, mac),
        }
    }

    /// The agents on WLAN interfaces: (node, agent).
    pub(super) fn wlan_agents(&self) -> Vec<(usize, &dyn Agent)> {
        let mut agents = Vec::new();
        for wlan in &self.wlans {
            if let Wlan::Alone(alone) = wlan {
                agents.extend(alone.agents().map(|(mac, agent)| (alone.node(mac), agent)));
            }
        }
        for channel in &self.shared {
            agents.extend(
                channel
                    .agents()
                    .map(|(bss, mac, agent)| (channel.node(bss, mac), agent)),
            );
        }
        agents
    }

    /// A packet joins MAC `mac` of WLAN `bss`, for MAC `to`.
    pub(super) fn wlan_enqueue(
        &mut self,
        bss: u32,
        mac: u32,
        packet: Packet,
        to: u32,
    ) -> std::io::Result<()> {
        let now = self.now();
        match &mut self.wlans[bss as usize] {
            Wlan::Alone(alone) => {
                let mut actions = std::mem::take(&mut self.wlan_actions);
                alone.enqueue(now, mac, packet, to, &mut actions);
                self.apply_wlan(bss, actions)
            }
            Wlan::Shared(k) => {
                let k = *k;
                self.shared_enqueue(k, (bss, mac, to), packet)
            }
        }
    }

    // Out of line: the fast path's callers inline `wlan_enqueue` without it.
    #[inline(never)]
    fn shared_enqueue(
        &mut self,
        k: u32,
        (bss, mac, to): (u32, u32, u32),
        packet: Packet,
    ) -> std::io::Result<()> {
        let now = self.now();
        self.shared[k as usize].enqueue(now, bss, mac, packet, to, &mut self.radio_actions);
        self.apply_radio(k)
    }

    // Kept out of `handle`, the run loop's dispatch, which the WLANs without geometry use.
    #[inline(never)]
    pub(super) fn radio_event(&mut self, channel: u32, event: RadioEvent) -> std::io::Result<()> {
        let now = self.now();
        self.shared[channel as usize].on_event(now, event, &mut self.radio_actions);
        self.apply_radio(channel)
    }

    /// Carries out what the shared channel asked for in `radio_actions`, leaving it empty.
    /// Inlined into its two callers, which each run for one event.
    /// Its lists are worked through in place (a list is lent out only to a call that needs
    /// the whole run): moving the whole struct in and out of each call cost more than the
    /// calls of a short event.
    #[inline(always)]
    fn apply_radio(&mut self, channel: u32) -> std::io::Result<()> {
        let channel = channel as u16;
        for (at, event) in self.radio_actions.timers.drain(..) {
            self.events.schedule(at, Event::Radio { channel, event });
        }
        if !self.radio_actions.deliveries.is_empty() {
            let mut deliveries = std::mem::take(&mut self.radio_actions.deliveries);
            for (at, bss, mac, packet) in deliveries.drain(..) {
                self.wlan_arrival(at, bss, mac, packet);
            }
            self.radio_actions.deliveries = deliveries;
        }
        if !self.radio_actions.air.is_empty() {
            let mut air = std::mem::take(&mut self.radio_actions.air);
            for (bss, frame) in air.drain(..) {
                self.record_air(bss, &frame)?;
            }
            self.radio_actions.air = air;
        }
        Ok(())
    }
}
