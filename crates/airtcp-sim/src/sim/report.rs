//! What a run reports: per-flow samples for the time series (cwnd, ssthresh, srtt, goodput
//! per `simulation.sample_interval`) and the summary (goodput over the measurement window,
//! Jain's fairness, TCP counters, and the MAC's and links' counters).

use std::time::Duration;

use airtcp_proto::time::seconds;

use super::endpoints::FlowApp;
use super::workloads::{add_stats, WorkloadFlow};
use super::{Event, Side, Simulation};
use crate::queue_series::QueueSample;
use crate::summary::{
    jain_index, AgentSummary, FlowSummary, LinkSummary, Sample, Summary, WlanSummary, WorkloadFlows,
};
use airtcp_proto::tcp::TcpStats;
use airtcp_proto::Instant;

impl Simulation {
    pub(super) fn sample(&mut self) {
        let now = self.now();
        let interval = seconds(self.scenario.sample_interval_ns);
        if self.series.flow_names.is_empty() {
            self.series.flow_names = self.flows.iter().map(|f| f.config.name.clone()).collect();
        }
        for (index, flow) in self.flows.iter_mut().enumerate() {
            let goodput = (flow.delivered - flow.delivered_at_sample) as f64 * 8.0 / interval;
            flow.delivered_at_sample = flow.delivered;
            if let Some(delay) = &mut flow.delay {
                let interval = delay.take_interval();
                self.series
                    .delays
                    .push(index as u32, now.as_secs_f64(), interval);
            }
            let FlowApp::Tcp(tcp) = &flow.app else {
                continue;
            };
            let sender = &tcp.sockets[Side::Sender as usize];
            let receiver = &tcp.sockets[Side::Receiver as usize];
            let ssthresh = sender.ssthresh();
            let ends = [flow.config.src, flow.config.dst];
            let in_handoff = self
                .mobiles
                .iter()
                .any(|m| m.in_handoff && ends.contains(&m.node));
            self.series.push(Sample {
                flow: index as u32,
                time_s: now.as_secs_f64(),
                cwnd_bytes: sender.cwnd(),
                send_window_bytes: sender.send_window(),
                ssthresh_bytes: if ssthresh == u32::MAX {
                    f64::NAN
                } else {
                    f64::from(ssthresh)
                },
                srtt_ms: sender
                    .srtt()
                    .map_or(f64::NAN, |d| d.as_nanos() as f64 / 1e6),
                bytes_acked: sender.stats().bytes_acked,
                acks_sent: receiver.stats().segments_sent,
                acks_received: sender.stats().segments_received,
                goodput_bps: goodput,
                in_handoff,
            });
        }
        self.sample_macs(now.as_secs_f64());
        self.sample_queues(now.as_secs_f64());
        let next = now + Duration::from_nanos(self.scenario.sample_interval_ns);
        self.events.schedule(next, Event::Sample);
    }

    pub(super) fn summarise(&self, wall_time_s: f64) -> Summary {
        let names = &self.scenario.nodes;
        let window = seconds(self.scenario.duration_ns - self.scenario.measure_from_ns);
        let flows: Vec<FlowSummary> = self
            .flows
            .iter()
            .map(|flow| {
                let goodput_bps =
                    (flow.delivered - flow.delivered_at_measure) as f64 * 8.0 / window;
                let base = FlowSummary {
                    name: flow.config.name.clone(),
                    kind: "udp_cbr",
                    src: names[flow.config.src].clone(),
                    dst: names[flow.config.dst].clone(),
                    goodput_bps,
                    bytes_delivered: flow.delivered,
                    retransmissions: 0,
                    fast_retransmits: 0,
                    duplicate_acks: 0,
                    timeouts: 0,
                    rescue_retransmissions: 0,
                    loss_probes: 0,
                    undos: 0,
                    ecn_reductions: 0,
                    packets_sent: flow.packets_sent,
                    acks_sent: 0,
                    acks_received: 0,
                    sender_state: None,
                    receiver_state: None,
                    completed: None,
                    completion_time_s: None,
                    transfer_goodput_bps: None,
                    probes: None,
                    workload: None,
                    one_way_delay: flow.delay.as_ref().map(|delay| delay.summary()),
                };
                match &flow.app {
                    FlowApp::Udp(_) => base,
                    FlowApp::Workload(workload) => workload_summary(workload, base),
                    FlowApp::Ping(ping) => FlowSummary {
                        kind: "ping",
                        probes: Some(ping.probes.clone()),
                        ..base
                    },
                    FlowApp::Tcp(tcp) => {
                        let [sender, receiver] = &tcp.sockets;
                        let stats = sender.stats();
                        let completion_time_s = flow
                            .completed_at
                            .filter(|_| tcp.finite)
                            .map(|at| seconds(at.as_nanos() - flow.config.start_ns));
                        FlowSummary {
                            kind: "tcp_bulk",
                            acks_sent: receiver.stats().segments_sent,
                            sender_state: Some(format!("{:?}", sender.state())),
                            receiver_state: Some(format!("{:?}", receiver.state())),
                            completed: tcp
                                .finite
                                .then(|| sender.all_acknowledged() && receiver.peer_closed()),
                            completion_time_s,
                            transfer_goodput_bps: completion_time_s
                                .map(|t| flow.delivered as f64 * 8.0 / t),
                            ..with_sender_counters(stats, base)
                        }
                    }
                }
            })
            .collect();
        // Ping flows are probes, not traffic: their echoes carry no application bytes, and
        // their zeros would only lower the aggregate's fairness.
        let goodputs: Vec<f64> = flows
            .iter()
            .filter(|f| f.kind != "ping")
            .map(|f| f.goodput_bps)
            .collect();
        let wlans = self
            .scenario
            .wlans
            .iter()
            .enumerate()
            .map(|(bss, config)| {
                let (c, radio) = self.wlan_counters(bss);
                let accesses: u64 = c.contenders.iter().sum();
                let weighted: u64 = c
                    .contenders
                    .iter()
                    .enumerate()
                    .map(|(k, n)| k as u64 * n)
                    .sum();
                WlanSummary {
                    ap: names[config.ap].clone(),
                    stations: config.stations.len(),
                    counters: c.clone(),
                    collision_probability: ratio(c.failed_attempts, c.attempts),
                    mean_contenders: ratio(weighted, accesses),
                    radio: radio.cloned(),
                    macs: self.mac_summaries(bss),
                    queues: self.mac_queue_summaries(bss),
                }
            })
            .collect();
        let links = self
            .channels
            .iter()
            .zip(&self.channel_ends)
            .map(|(channel, &(from, to))| LinkSummary {
                from: names[from].clone(),
                to: names[to].clone(),
                delivered: channel.delivered,
                queue_drops: channel.queue.drops,
                aqm_drops: channel.queue.aqm_drops,
                ecn_marks: channel.queue.ecn_marks,
                lost: channel.lost,
                sojourn: channel.queue.window_sojourn(),
            })
            .collect();
        Summary {
            scenario: self.scenario.name.clone(),
            seed: self.scenario.seed,
            duration_s: seconds(self.scenario.duration_ns),
            measure_from_s: seconds(self.scenario.measure_from_ns),
            aggregate_goodput_bps: goodputs.iter().sum(),
            jain_fairness: jain_index(&goodputs),
            flows,
            wlans,
            links,
            mobiles: self.mobile_summaries(),
            agents: self.agent_summaries(),
            emulator: self.external.as_ref().map(|external| external.counters),
            events: self.events.processed(),
            wall_time_s,
        }
    }
}

impl Simulation {
    /// The agents that count something, wired links' first, then each BSS's by MAC.
    fn agent_summaries(&self) -> Vec<AgentSummary> {
        let names = &self.scenario.nodes;
        let on_links =
            self.channels
                .iter()
                .zip(&self.channel_ends)
                .filter_map(|(channel, &(node, peer))| {
                    let agent = &channel.agent.as_ref()?.agent;
                    Some((node, names[peer].clone(), agent.as_ref()))
                });
        let on_wlans = self
            .wlan_agents()
            .into_iter()
            .map(|(node, agent)| (node, "wlan".to_string(), agent));
        on_links
            .chain(on_wlans)
            .filter_map(|(node, interface, agent)| {
                let counters = agent.counters();
                (!counters.is_empty()).then(|| AgentSummary {
                    node: names[node].clone(),
                    interface,
                    kind: agent.name(),
                    counters: counters.into_iter().collect(),
                })
            })
            .collect()
    }
}

fn ratio(numerator: u64, denominator: u64) -> f64 {
    if denominator == 0 {
        0.0
    } else {
        numerator as f64 / denominator as f64
    }
}

impl Simulation {
    /// Each wired link direction's queue at `time_s`, then with `queue_sojourn` each MAC
    /// queue (`crate::queue_series`; only then: a MAC queue's bytes are summed frame by
    /// frame, up to a tenth of a busy WLAN's run with a time series).
    fn sample_queues(&mut self, time_s: f64) {
        let mac_queues = self.sample_mac_queues();
        if self.series.queues.directions.is_empty() {
            let names = &self.scenario.nodes;
            let links = (self.channel_ends.iter())
                .map(|&(from, to)| format!("{}→{}", names[from], names[to]));
            let macs = mac_queues.iter().map(|q| self.mac_queue_name(q.id));
            self.series.queues.directions = links.chain(macs).collect();
        }
        for (index, channel) in self.channels.iter_mut().enumerate() {
            let queue = &mut channel.queue;
            self.series.queues.push(QueueSample {
                direction: index as u32,
                time_s,
                packets: queue.len() as u32,
                bytes: queue.bytes(),
                drops: queue.drops + queue.aqm_drops,
                ecn_marks: queue.ecn_marks,
                sojourn: queue.take_sojourn(),
            });
        }
        for (index, queue) in mac_queues.into_iter().enumerate() {
            self.series.queues.push(QueueSample {
                direction: (self.channels.len() + index) as u32,
                time_s,
                packets: queue.packets,
                bytes: queue.bytes,
                drops: queue.drops,
                ecn_marks: queue.ecn_marks,
                sojourn: Some(queue.sojourn),
            });
        }
    }
}

/// A workload's summary: the sender counters of all its connections, closed and open, and
/// every flow's times.
fn workload_summary(workload: &WorkloadFlow, base: FlowSummary) -> FlowSummary {
    let mut stats = workload.closed_stats;
    let mut acks_sent = workload.acks_sent;
    for tcp in workload.open() {
        add_stats(&mut stats, tcp.sockets[Side::Sender as usize].stats());
        acks_sent += tcp.sockets[Side::Receiver as usize].stats().segments_sent;
    }
    let records = &workload.records;
    let ns = |at: Instant| at.as_nanos();
    FlowSummary {
        kind: "tcp_workload",
        acks_sent,
        workload: Some(WorkloadFlows {
            size_bytes: records.size_bytes.clone(),
            arrived_ns: records.arrived_at.iter().copied().map(ns).collect(),
            completed_ns: records.completed_at.iter().map(|at| at.map(ns)).collect(),
            refused: records.refused,
        }),
        ..with_sender_counters(&stats, base)
    }
}

/// `base` with a TCP sender's loss-recovery counters and the ACKs it received.
fn with_sender_counters(stats: &TcpStats, base: FlowSummary) -> FlowSummary {
    FlowSummary {
        retransmissions: stats.retransmissions,
        fast_retransmits: stats.fast_retransmits,
        duplicate_acks: stats.duplicate_acks,
        timeouts: stats.timeouts,
        rescue_retransmissions: stats.rescue_retransmissions,
        loss_probes: stats.loss_probes,
        undos: stats.undos,
        ecn_reductions: stats.ecn_reductions,
        acks_received: stats.segments_received,
        ..base
    }
}
