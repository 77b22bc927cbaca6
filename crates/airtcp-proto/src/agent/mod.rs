//! Access-point agents of paper 000 (Ryu et al., "Improving TCP Uploading Throughput in IEEE
//! 802.11 WLANs", §2.2): TCP pure ACKs get their own queue at the AP and one of three
//! channel-access privileges. Plus `adaptive`, the paper's stated future work.
//!
//! An agent is sans-IO: it classifies packets from their headers and, each time the AP
//! prepares a channel access, returns an [`AccessPlan`] that the MAC (simulated or, later,
//! emulated) carries out. It may also observe the channel (`on_channel`).

mod ack_aggregation;
mod ack_priority;
mod adaptive;
mod dcf;
mod txop_burst;

use core::fmt;

pub use ack_aggregation::AckAggregation;
pub use ack_priority::AckPriority;
pub use adaptive::AdaptivePriority;
pub use dcf::PlainDcf;
pub use txop_burst::{TxopBurst, DSSS_AC_VO_TXOP_NS, OFDM_AC_VO_TXOP_NS};

use crate::time::Instant;
use crate::wire::PacketRepr;

/// The AP's queues: everything else, and TCP pure ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApQueue {
    Data = 0,
    Ack = 1,
}

/// How the AP's next channel access is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessPlan {
    /// Serve this queue (strict priority decided by the agent).
    pub queue: ApQueue,
    /// Contend with backoff counter 0 (transmit right after DIFS).
    pub zero_backoff: bool,
    /// After winning, send further frames of the queue SIFS-separated within this TXOP (ns).
    pub txop_ns: Option<u64>,
    /// Pack up to this many frames of the queue into one MAC frame (A-MSDU).
    pub aggregate: usize,
}

impl AccessPlan {
    pub const fn plain(queue: ApQueue) -> Self {
        AccessPlan {
            queue,
            zero_backoff: false,
            txop_ns: None,
            aggregate: 1,
        }
    }
}

/// Queue lengths the AP sees when it plans.
#[derive(Clone, Copy, Debug, Default)]
pub struct ApView {
    pub data_frames: usize,
    pub ack_frames: usize,
}

impl ApView {
    /// The non-empty queue, ACKs first (the priority every ACK agent gives).
    fn ack_first(&self) -> ApQueue {
        if self.ack_frames > 0 {
            ApQueue::Ack
        } else {
            ApQueue::Data
        }
    }
}

/// What the AP heard on the channel between two of its own accesses: idle backoff slots and
/// busy periods (other stations' transmissions) — Bianchi's virtual slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelEvent {
    IdleSlots(u64),
    Busy { collision: bool },
}

pub trait ApAgent: fmt::Debug + Send {
    fn name(&self) -> &'static str;

    /// The queue a packet joins. Pure TCP ACKs are recognised from the header only.
    fn classify(&self, packet: &PacketRepr) -> ApQueue {
        match packet.tcp() {
            Some(tcp) if tcp.is_pure_ack() => ApQueue::Ack,
            _ => ApQueue::Data,
        }
    }

    fn plan(&mut self, now: Instant, view: &ApView) -> AccessPlan;

    /// A packet the AP queued, and the queue it joined.
    fn on_packet(&mut self, _now: Instant, _packet: &PacketRepr, _queue: ApQueue) {}

    fn on_channel(&mut self, _now: Instant, _event: ChannelEvent) {}
}

/// Agent names a scenario can use.
pub const AGENTS: &[&str] = &[
    "dcf",
    "ack_priority",
    "txop_burst",
    "ack_aggregation",
    "adaptive",
];

/// Settings of the agents, with the documented defaults applied by the caller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentSettings {
    pub txop_ns: u64,
    pub max_aggregate: usize,
    /// Contending stations (AP excluded) the adaptive agent aims for.
    pub target_stations: f64,
    pub cw_min: u32,
    pub stages: u32,
}

pub fn by_name(name: &str, settings: AgentSettings) -> Option<Box<dyn ApAgent>> {
    Some(match name {
        "dcf" => Box::new(PlainDcf),
        "ack_priority" => Box::new(AckPriority),
        "txop_burst" => Box::new(TxopBurst {
            txop_ns: settings.txop_ns,
        }),
        "ack_aggregation" => Box::new(AckAggregation {
            max_frames: settings.max_aggregate,
        }),
        "adaptive" => Box::new(AdaptivePriority::new(
            settings.target_stations,
            settings.cw_min,
            settings.stages,
        )),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::SeqNumber;
    use crate::wire::{Ipv4Repr, TcpFlags, TcpRepr, TransportRepr, UdpRepr};

    fn tcp(flags: TcpFlags, payload_len: u32) -> PacketRepr {
        PacketRepr {
            ip: Ipv4Repr {
                src: [10, 0, 0, 1],
                dst: [10, 0, 0, 2],
                ttl: 64,
            },
            transport: TransportRepr::Tcp(TcpRepr {
                src_port: 1,
                dst_port: 2,
                seq: SeqNumber(1),
                ack: SeqNumber(1),
                flags,
                window: 100,
                mss: None,
                window_scale: None,
                payload_len,
            }),
        }
    }

    #[test]
    fn classifier_separates_pure_acks_from_data_syn_fin_and_udp() {
        let agent = AckPriority;
        let ack = TcpFlags {
            ack: true,
            ..Default::default()
        };
        assert_eq!(agent.classify(&tcp(ack, 0)), ApQueue::Ack);
        assert_eq!(agent.classify(&tcp(ack, 1024)), ApQueue::Data);
        assert_eq!(
            agent.classify(&tcp(TcpFlags { syn: true, ..ack }, 0)),
            ApQueue::Data
        );
        assert_eq!(
            agent.classify(&tcp(TcpFlags { fin: true, ..ack }, 0)),
            ApQueue::Data
        );
        let udp = PacketRepr {
            transport: TransportRepr::Udp(UdpRepr {
                src_port: 1,
                dst_port: 2,
                payload_len: 0,
            }),
            ..tcp(ack, 0)
        };
        assert_eq!(agent.classify(&udp), ApQueue::Data);
    }

    #[test]
    fn every_named_agent_builds() {
        let settings = AgentSettings {
            txop_ns: 3_264_000,
            max_aggregate: 8,
            target_stations: 3.0,
            cw_min: 31,
            stages: 5,
        };
        for name in AGENTS {
            assert_eq!(by_name(name, settings).unwrap().name(), *name);
        }
        assert!(by_name("nope", settings).is_none());
    }
}
