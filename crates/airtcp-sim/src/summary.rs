//! What a run reports: a summary (per flow, per BSS, per link) and per-flow time series.

use serde::Serialize;

use crate::one_way_delay::{DelaySeries, DelaySummary};
use crate::queue_series::QueueSeries;
use crate::radio::series::MacSeries;
use crate::radio::RadioCounters;

use crate::wlan::MacCounters;

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    pub measure_from_s: f64,
    pub flows: Vec<FlowSummary>,
    /// The flows' goodput together, ping flows left out (they carry no application data).
    pub aggregate_goodput_bps: f64,
    /// Jain's index over the same flows' goodput: 1 is perfectly fair.
    pub jain_fairness: f64,
    pub wlans: Vec<WlanSummary>,
    pub links: Vec<LinkSummary>,
    /// Mobile hosts and their handoffs (left out when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mobiles: Vec<MobileSummary>,
    /// What the agents that count something did (left out when none does).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<AgentSummary>,
    /// Emulation only: what passed between the real hosts and the emulated network.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emulator: Option<ExternalCounters>,
    pub events: u64,
    /// Excluded from reproducibility checks: it depends on the machine.
    pub wall_time_s: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub name: String,
    pub kind: &'static str,
    pub src: String,
    pub dst: String,
    /// Application bytes delivered in the measurement window, per second, in bits.
    pub goodput_bps: f64,
    /// Application bytes delivered over the whole run.
    pub bytes_delivered: u64,
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    /// Duplicate ACKs the sender received.
    pub duplicate_acks: u64,
    pub timeouts: u64,
    /// TCP: RFC 6675's rescue retransmissions (NextSeg rule 4), tail loss probes (RFC 8985
    /// §7), reductions undone as spurious (D-SACK or timestamps), and window reductions for
    /// ECN-Echo (RFC 3168), at the sender.
    pub rescue_retransmissions: u64,
    pub loss_probes: u64,
    pub undos: u64,
    pub ecn_reductions: u64,
    /// Packets the flow's source sent: UDP datagrams, echo requests, or the TCP sender's
    /// segments (handshake, data and retransmissions; its ACKs are the receiver's
    /// `acks_sent`).
    pub packets_sent: u64,
    /// TCP: segments the receiver sent (its ACKs, for a one-way transfer) and segments the
    /// sender received (the ACKs that reached it, regenerated ones included).
    pub acks_sent: u64,
    pub acks_received: u64,
    /// TCP only: connection states at the end, and whether a finite transfer completed.
    pub sender_state: Option<String>,
    pub receiver_state: Option<String>,
    pub completed: Option<bool>,
    /// A completed finite transfer: seconds from the flow's start until the receiver had
    /// every byte (the flow completion time), and the goodput over that time.
    pub completion_time_s: Option<f64>,
    pub transfer_goodput_bps: Option<f64>,
    /// Ping flows: every probe's times (left out for other flows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probes: Option<Probes>,
    /// Workloads: every flow's size and times (left out for other flows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<WorkloadFlows>,
    /// With `one_way_delay`, a TCP bulk or UDP flow's data packets' one-way delays over the
    /// measurement window (left out otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_way_delay: Option<DelaySummary>,
}

/// A workload's flows in the order they arrived (`AppConfig::TcpWorkload`): size, arrival
/// and completion in nanoseconds since the run's start (`None`: not complete at the end),
/// and how many arrivals found no connection free.
#[derive(Clone, Debug, Default, Serialize)]
pub struct WorkloadFlows {
    pub size_bytes: Vec<u64>,
    pub arrived_ns: Vec<u64>,
    pub completed_ns: Vec<Option<u64>>,
    pub refused: u64,
}

/// The times of a ping flow's probes in nanoseconds, one entry per request in the order sent:
/// when it left, when it reached the destination and when its reply came back (`None`: lost
/// on the way).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Probes {
    /// Requests per train (1: plain ping).
    pub train: u32,
    /// IP bytes of each request.
    pub ip_bytes: u32,
    pub sent_ns: Vec<u64>,
    pub arrived_ns: Vec<Option<u64>>,
    pub returned_ns: Vec<Option<u64>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct WlanSummary {
    pub ap: String,
    pub stations: usize,
    #[serde(flatten)]
    pub counters: MacCounters,
    /// Failed attempts over attempts.
    pub collision_probability: f64,
    pub mean_contenders: f64,
    /// A WLAN with geometry: what its channel counts besides.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub radio: Option<RadioCounters>,
    /// A WLAN with geometry: each MAC (the AP first), what it sent and how it was heard.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub macs: Vec<MacSummary>,
    /// With `queue_sojourn`: each MAC queue's sojourns over the measurement window.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queues: Vec<MacQueueSummary>,
}

/// One MAC queue's sojourns (`wlan::dcf::queue_meter`): a MAC's, or with EDCA for several
/// ACs one AC's of a MAC.
#[derive(Clone, Debug, Serialize)]
pub struct MacQueueSummary {
    /// Its name in the queue series ("sta→ap (WLAN)").
    pub queue: String,
    pub node: String,
    /// Its AC's name ("be"), with EDCA for several ACs.
    pub ac: Option<&'static str>,
    pub sojourn: crate::sojourn::SojournSample,
}

/// One MAC of a WLAN with geometry over the whole run.
#[derive(Clone, Debug, Serialize)]
pub struct MacSummary {
    pub node: String,
    /// Data (or RTS) frames that opened an attempt, those that failed, those delivered.
    pub attempts: u64,
    pub failures: u64,
    pub delivered: u64,
    /// Failed attempts over attempts.
    pub loss: f64,
    /// The mean data rate of its attempts (what its rate control chose, or its fixed rate).
    pub mean_rate_bps: f64,
    /// The mean power at which its addressees decoded its frames, and that over the noise
    /// (`None`: none was decoded).
    pub rssi_dbm: Option<f64>,
    pub snr_db: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkSummary {
    pub from: String,
    pub to: String,
    pub delivered: u64,
    /// Dropped at the tail (over the limit; FQ-CoDel: from the fattest flow).
    pub queue_drops: u64,
    /// Dropped by the AQM (CoDel at the head, PIE on arrival).
    pub aqm_drops: u64,
    /// Marked CE by the AQM instead of dropped (ECN).
    pub ecn_marks: u64,
    pub lost: u64,
    /// With `queue_sojourn`: the packets that left the queue over the measurement window,
    /// their mean and longest sojourn (`crate::sojourn`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sojourn: Option<crate::sojourn::SojournSample>,
}

/// An agent on a node's interface and its counters (`airtcp_proto::agent::Agent::counters`).
#[derive(Clone, Debug, Serialize)]
pub struct AgentSummary {
    pub node: String,
    pub interface: String,
    pub kind: &'static str,
    pub counters: std::collections::BTreeMap<&'static str, u64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MobileSummary {
    pub node: String,
    pub handoffs: Vec<HandoffSummary>,
    /// Packets held on left cells' links and sent on through the new cell.
    pub forwarded_packets: u64,
}

/// One handoff's steps (`crate::mobility`), in seconds; `duration_s` until the mobile is
/// reachable again, `completed` if that was before the end of the run.
#[derive(Clone, Debug, Serialize)]
pub struct HandoffSummary {
    pub from: String,
    pub to: String,
    pub detach_s: f64,
    pub beacon_s: f64,
    pub greeting_s: f64,
    pub inform_s: f64,
    pub adjust_s: f64,
    pub attach_s: f64,
    pub duration_s: f64,
    pub completed: bool,
}

/// Column-wise per-flow samples, 69 bytes each (`crate::limits::SERIES_SAMPLE_BYTES`): the
/// flow is an index into `flow_names`, and the columns go to Python as raw arrays.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TimeSeries {
    pub flow_names: Vec<String>,
    pub flow: Vec<u32>,
    pub time_s: Vec<f64>,
    pub cwnd_bytes: Vec<u32>,
    /// The window the receiver last advertised to the sender (scaled); the sender has
    /// min(cwnd, this) in flight at most.
    pub send_window_bytes: Vec<u32>,
    /// NaN while ssthresh is still "infinite".
    pub ssthresh_bytes: Vec<f64>,
    /// NaN before the first RTT sample.
    pub srtt_ms: Vec<f64>,
    pub bytes_acked: Vec<u64>,
    /// Segments the receiver has sent (its ACKs, for a one-way transfer), so far.
    pub acks_sent: Vec<u64>,
    /// Segments the sender has received (the ACKs that reached it), so far.
    pub acks_received: Vec<u64>,
    pub goodput_bps: Vec<f64>,
    /// A mobile end of the flow is in a handoff (from its detach until it is reachable).
    pub in_handoff: Vec<bool>,
    /// The MACs of WLANs with geometry (`crate::radio::series`).
    pub macs: MacSeries,
    /// The wired links' queues (`crate::queue_series`).
    pub queues: QueueSeries,
    /// With `one_way_delay`, the flows' one-way delays per interval (`crate::one_way_delay`).
    pub delays: DelaySeries,
}

/// One row of the time series.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub flow: u32,
    pub time_s: f64,
    pub cwnd_bytes: u32,
    pub send_window_bytes: u32,
    pub ssthresh_bytes: f64,
    pub srtt_ms: f64,
    pub bytes_acked: u64,
    pub acks_sent: u64,
    pub acks_received: u64,
    pub goodput_bps: f64,
    pub in_handoff: bool,
}

impl TimeSeries {
    pub fn push(&mut self, sample: Sample) {
        self.flow.push(sample.flow);
        self.time_s.push(sample.time_s);
        self.cwnd_bytes.push(sample.cwnd_bytes);
        self.send_window_bytes.push(sample.send_window_bytes);
        self.ssthresh_bytes.push(sample.ssthresh_bytes);
        self.srtt_ms.push(sample.srtt_ms);
        self.bytes_acked.push(sample.bytes_acked);
        self.acks_sent.push(sample.acks_sent);
        self.acks_received.push(sample.acks_received);
        self.goodput_bps.push(sample.goodput_bps);
        self.in_handoff.push(sample.in_handoff);
    }

    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }

    /// Room for `rows` flow samples: a run knows its samples before it starts, and growing
    /// the columns as they fill copies each several times.
    pub fn reserve(&mut self, rows: usize) {
        self.flow.reserve_exact(rows);
        self.time_s.reserve_exact(rows);
        self.cwnd_bytes.reserve_exact(rows);
        self.send_window_bytes.reserve_exact(rows);
        self.ssthresh_bytes.reserve_exact(rows);
        self.srtt_ms.reserve_exact(rows);
        self.bytes_acked.reserve_exact(rows);
        self.acks_sent.reserve_exact(rows);
        self.acks_received.reserve_exact(rows);
        self.goodput_bps.reserve_exact(rows);
        self.in_handoff.reserve_exact(rows);
    }
}

pub fn jain_index(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    let squares: f64 = values.iter().map(|v| v * v).sum();
    if squares == 0.0 {
        return 1.0;
    }
    sum * sum / (values.len() as f64 * squares)
}

/// What passed between the hosts and the emulated network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ExternalCounters {
    /// Packets the hosts sent into the network.
    pub injected: u64,
    /// Packets handed to the hosts.
    pub delivered: u64,
    /// Not IPv4 carrying TCP, UDP or ICMP echo (IPv6 neighbour discovery, say), or
    /// malformed: not carried.
    pub unparsed: u64,
    /// From a source address other than the host's own: not carried.
    pub foreign_source: u64,
    /// Reached their host after their payload had been forgotten (`PayloadStore`'s
    /// budget): dropped rather than delivered with wrong bytes.
    pub payload_missing: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element<T>(_: &[T]) -> u64 {
        std::mem::size_of::<T>() as u64
    }

    #[test]
    fn a_sample_costs_what_the_limits_say() {
        // Column-wise: a sample costs one element of each column. The pattern names every
        // field, so a new column does not compile until it is counted here.
        let TimeSeries {
            flow_names: _,
            flow,
            time_s,
            cwnd_bytes,
            send_window_bytes,
            ssthresh_bytes,
            srtt_ms,
            bytes_acked,
            acks_sent,
            acks_received,
            goodput_bps,
            in_handoff,
            // Bounded apart: per radio, not per flow (`validate_series` counts both).
            macs: _,
            // Per link direction, counted as rows too; a queue sample is smaller.
            queues,
            // Per timed flow, counted as rows too; a delay sample is smaller.
            delays,
        } = TimeSeries::default();
        let crate::one_way_delay::DelaySeries {
            flow: delay_flow,
            time_s: delay_time,
            packets: delay_packets,
            mean_ms,
            max_ms,
            jitter_ms,
        } = delays;
        let delay_sample = element(&delay_flow)
            + element(&delay_time)
            + element(&delay_packets)
            + element(&mean_ms)
            + element(&max_ms)
            + element(&jitter_ms);
        assert!(delay_sample <= crate::limits::SERIES_SAMPLE_BYTES);
        let crate::queue_series::QueueSeries {
            directions: _,
            direction,
            time_s: queue_time,
            packets,
            bytes,
            drops,
            ecn_marks,
            dequeued,
            sojourn_mean_ms,
            sojourn_max_ms,
        } = queues;
        let queue_sample = element(&direction)
            + element(&queue_time)
            + element(&packets)
            + element(&bytes)
            + element(&drops)
            + element(&ecn_marks)
            + element(&dequeued)
            + element(&sojourn_mean_ms)
            + element(&sojourn_max_ms);
        assert!(queue_sample <= crate::limits::SERIES_SAMPLE_BYTES);
        let columns = [
            element(&flow),
            element(&time_s),
            element(&cwnd_bytes),
            element(&send_window_bytes),
            element(&ssthresh_bytes),
            element(&srtt_ms),
            element(&bytes_acked),
            element(&acks_sent),
            element(&acks_received),
            element(&goodput_bps),
            element(&in_handoff),
        ];
        assert_eq!(
            columns.iter().sum::<u64>(),
            crate::limits::SERIES_SAMPLE_BYTES
        );
    }

    #[test]
    fn jain_index_bounds() {
        assert!((jain_index(&[5.0, 5.0, 5.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert_eq!(jain_index(&[]), 1.0);
    }
}
