//! Agents: sans-IO middleboxes that sit on one interface of a node (an AP, a base station,
//! a router) and see every packet that crosses it, both ways. The papers' mechanisms are
//! agents: paper 000's ACK policies at an 802.11 AP (`dcf`, `ack_priority`, `txop_burst`,
//! `ack_aggregation`, and `adaptive`, its future work); paper 001's base-station agents
//! (`snoop`, `freeze`, `snoop_freeze`) and its baselines (`itcp` and `mtcp` at the base
//! station, `fast_retransmit` on the mobile); paper 003's ACK filter and regenerators at the two
//! ends of a slow uplink (`af`, `ar`, `acc`, `dar`).
//!
//! The driver (the simulator, later the emulator on real packets) calls, for an agent on an
//! interface:
//! - [`Agent::handle_packet`] for each packet leaving through the interface (before it joins
//!   the interface's queue) or arriving on it (before the node handles it). The agent may
//!   rewrite it in place and answers pass, drop or delay (held by the driver, then passed on
//!   without another look);
//! - [`Agent::poll_transmit`] after every call, for packets the agent injects, each leaving
//!   through the interface or arriving from it (then handled by the node like any other);
//! - [`Agent::poll_timeout`] / [`Agent::handle_timeout`] for the agent's own timers;
//! - [`Agent::handle_signal`] for notices from outside the packet stream (a handoff's steps,
//!   naming the mobile: [`Signal`]);
//! - [`Agent::hand_over`] on the old base station's agent at a handoff's adjust, and
//!   [`Agent::take_over`] on the new one's with what it handed over (I-TCP's connections);
//! - and gives it its interface's queue ([`InterfaceQueue`]) to inspect and edit.
//!
//! On an 802.11 AP an agent may also plan the AP's channel accesses: the optional
//! [`AccessPlanner`] capability (`access`).

mod access;
mod ack_aggregation;
mod ack_compaction;
pub mod ack_filter;
mod ack_gaps;
mod ack_priority;
mod ack_reconstruction;
mod adaptive;
mod chain;
pub mod connection;
mod dar;
mod dcf;
mod fast_retransmit;
mod freeze;
mod itcp;
mod mtcp;
mod none;
pub mod regenerator;
pub mod sequence_list;
mod snoop;
mod txop_burst;

use core::any::Any;
use core::fmt;
use core::time::Duration;

pub use access::{AccessPlan, AccessPlanner, ApQueue, ApView, ChannelEvent};
pub use ack_aggregation::AckAggregation;
pub use ack_compaction::AckCompaction;
pub use ack_filter::AckFilter;
pub use ack_gaps::{AckGaps, GAP_SAMPLES};
pub use ack_priority::AckPriority;
pub use ack_reconstruction::{AckReconstruction, ACK_THRESHOLD};
pub use adaptive::AdaptivePriority;
pub use chain::Chain;
pub use dar::{Dar, DarStats, FastRecovery};
pub use dcf::PlainDcf;
pub use fast_retransmit::FastRetransmit;
pub use freeze::Freeze;
pub use itcp::{Itcp, ItcpStats};
pub use mtcp::Mtcp;
pub use none::NoAgent;
pub use snoop::{Snoop, SnoopStats};
pub use txop_burst::{TxopBurst, DSSS_AC_VO_TXOP_NS, OFDM_AC_VO_TXOP_NS};

use crate::time::Instant;
use crate::wire::PacketRepr;

/// A notice from outside the packet stream: its name (`"inform"`, `"adjust"`, ...) and the
/// host it concerns, if one: a handoff names the mobile, so that an agent serving a cell of
/// several hosts acts on that one's connections only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signal<'a> {
    pub name: &'a str,
    pub host: Option<[u8; 4]>,
}

impl<'a> Signal<'a> {
    /// A signal about everything on the interface.
    pub fn named(name: &'a str) -> Self {
        Signal { name, host: None }
    }

    /// A signal about the host at `address`.
    pub fn about(name: &'a str, address: [u8; 4]) -> Self {
        Signal {
            name,
            host: Some(address),
        }
    }

    /// Whether it concerns the host at `address`.
    pub fn concerns(&self, address: [u8; 4]) -> bool {
        self.host.is_none_or(|host| host == address)
    }
}

/// Which way a packet crosses the agent's interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Leaving the node through the interface.
    Outbound,
    /// Received on the interface, not yet handled by the node.
    Inbound,
}

/// What becomes of a packet an agent has seen (a rewrite is done in place, then `Pass`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Drop,
    /// Held until then, and passed on without being shown to the agent again.
    Delay(Instant),
}

/// The transmit queue of the agent's interface, head first: what ACK filtering needs to find
/// and remove queued ACKs that a newer one covers. A packet being transmitted is not in it.
pub trait InterfaceQueue {
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The packet at `index` (0 is the head).
    fn get(&self, index: usize) -> Option<&PacketRepr>;

    /// Takes the packet at `index` out of the queue; it is not sent.
    fn remove(&mut self, index: usize) -> Option<PacketRepr>;
}

/// A queue that is always empty: for tests, and interfaces without one.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoQueue;

impl InterfaceQueue for NoQueue {
    fn len(&self) -> usize {
        0
    }

    fn get(&self, _index: usize) -> Option<&PacketRepr> {
        None
    }

    fn remove(&mut self, _index: usize) -> Option<PacketRepr> {
        None
    }
}

/// An agent on one interface of a node. Every method has a do-nothing default, so an agent
/// implements only what it uses.
pub trait Agent: fmt::Debug + Send {
    /// The kind, as scenarios name it.
    fn name(&self) -> &'static str;

    /// A packet crossing the interface; it may be rewritten in place.
    fn handle_packet(
        &mut self,
        _now: Instant,
        _direction: Direction,
        _packet: &mut PacketRepr,
        _queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        Verdict::Pass
    }

    /// A packet the agent injects, and the way it goes; called until `None`.
    fn poll_transmit(&mut self, _now: Instant) -> Option<(Direction, PacketRepr)> {
        None
    }

    /// When the agent next wants `handle_timeout`.
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    fn handle_timeout(&mut self, _now: Instant, _queue: &mut dyn InterfaceQueue) {}

    /// A notice from outside the packet stream, e.g. a handoff's `"inform"`.
    fn handle_signal(
        &mut self,
        _now: Instant,
        _signal: Signal<'_>,
        _queue: &mut dyn InterfaceQueue,
    ) {
    }

    /// A handoff of the mobile at `mobile` is adjusted and this agent is on the old base
    /// station's cell interface: what it hands to the agent on the new one's (`take_over`).
    /// Most agents hand over nothing.
    fn hand_over(&mut self, _now: Instant, _mobile: [u8; 4]) -> Option<Box<dyn Any + Send>> {
        None
    }

    /// What the old base station's agent handed over for the mobile at `mobile`; an agent
    /// ignores what it cannot use.
    fn take_over(&mut self, _now: Instant, _mobile: [u8; 4], _state: Box<dyn Any + Send>) {}

    /// The 802.11 AP capability: queues for ACKs and a plan for each channel access.
    fn access_planner(&mut self) -> Option<&mut dyn AccessPlanner> {
        None
    }

    /// What the agent has done, by name (`filtered_acks`, ...), for the run's summary.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// Kinds that plan an 802.11 AP's channel access, so they only sit on an AP's WLAN side.
const ACCESS_PLANNERS: &[&str] = &[
    "dcf",
    "ack_priority",
    "txop_burst",
    "ack_aggregation",
    "adaptive",
];

/// Agent kinds a scenario can name.
pub const AGENTS: &[&str] = &[
    "none",
    "dcf",
    "ack_priority",
    "txop_burst",
    "ack_aggregation",
    "adaptive",
    "snoop",
    "freeze",
    "snoop_freeze",
    "itcp",
    "mtcp",
    "fast_retransmit",
    "af",
    "ar",
    "acc",
    "dar",
];

pub fn plans_access(kind: &str) -> bool {
    ACCESS_PLANNERS.contains(&kind)
}

/// Settings of the agents, with the documented defaults applied by the caller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentSettings {
    pub txop_ns: u64,
    pub max_aggregate: usize,
    /// Contending stations (AP excluded) the adaptive agent aims for.
    pub target_stations: f64,
    pub cw_min: u32,
    pub stages: u32,
    /// Snoop's smallest local retransmission timeout.
    pub local_rto_min_ns: u64,
    /// M-TCP: how long the mobile may stay silent with data outstanding.
    pub silence_ns: u64,
    /// fast_retransmit: duplicate ACKs sent after a handoff.
    pub duplicate_acks: u32,
    /// dar: what a fast retransmit does to regeneration.
    pub fast_recovery: FastRecovery,
}

impl AgentSettings {
    /// Defaults: paper 000's agents on an 802.11b AP; Snoop's timer at least 20 ms; M-TCP
    /// freezing after 300 ms of silence (longer than a 200 ms delayed ACK); three
    /// duplicates, the sender's threshold.
    pub const DEFAULT: AgentSettings = AgentSettings {
        txop_ns: DSSS_AC_VO_TXOP_NS,
        max_aggregate: 16,
        target_stations: 3.0,
        cw_min: 31,
        stages: 5,
        local_rto_min_ns: 20_000_000,
        silence_ns: 300_000_000,
        duplicate_acks: 3,
        fast_recovery: FastRecovery::Regenerate,
    };
}

pub fn by_name(name: &str, settings: AgentSettings) -> Option<Box<dyn Agent>> {
    Some(match name {
        "none" => Box::new(NoAgent),
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
        "snoop" => Box::new(snoop(settings)),
        "freeze" => Box::new(Freeze::default()),
        "snoop_freeze" => Box::new(Chain::new(
            "snoop_freeze",
            vec![Box::new(snoop(settings)), Box::new(Freeze::default())],
        )),
        "itcp" => Box::new(Itcp::default()),
        "mtcp" => Box::new(Mtcp::new(Duration::from_nanos(settings.silence_ns))),
        "fast_retransmit" => Box::new(FastRetransmit::new(settings.duplicate_acks)),
        "af" => Box::new(AckFilter::default()),
        "ar" => Box::new(AckReconstruction::default()),
        "acc" => Box::new(AckCompaction::default()),
        "dar" => Box::new(Dar::new(settings.fast_recovery)),
        _ => return None,
    })
}

fn snoop(settings: AgentSettings) -> Snoop {
    Snoop::new(Duration::from_nanos(settings.local_rto_min_ns))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::seq::SeqNumber;
    use crate::wire::{Ipv4Repr, TcpFlags, TcpRepr, TransportRepr, UdpRepr};

    fn tcp(flags: TcpFlags, payload_len: u32, dst: [u8; 4]) -> PacketRepr {
        PacketRepr {
            ip: Ipv4Repr {
                src: [10, 0, 0, 1],
                dst,
                ttl: 64,
                dscp: 0,
                ecn: 0,
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
                sack_permitted: false,
                sack: Default::default(),
                timestamps: None,
                compaction: None,
                payload_len,
            }),
        }
    }

    const ACK: TcpFlags = TcpFlags {
        ack: true,
        syn: false,
        fin: false,
        rst: false,
        psh: false,
        ece: false,
        cwr: false,
    };

    /// A TCP pure ACK to `dst`.
    pub(crate) fn pure_ack_to(dst: [u8; 4]) -> PacketRepr {
        tcp(ACK, 0, dst)
    }

    #[test]
    fn classifier_separates_pure_acks_from_data_syn_fin_and_udp() {
        let agent = AckPriority;
        let to = [10, 0, 0, 2];
        assert_eq!(agent.classify(&tcp(ACK, 0, to)), ApQueue::Ack);
        assert_eq!(agent.classify(&tcp(ACK, 1024, to)), ApQueue::Data);
        let syn = TcpFlags { syn: true, ..ACK };
        assert_eq!(agent.classify(&tcp(syn, 0, to)), ApQueue::Data);
        let fin = TcpFlags { fin: true, ..ACK };
        assert_eq!(agent.classify(&tcp(fin, 0, to)), ApQueue::Data);
        let udp = PacketRepr {
            transport: TransportRepr::Udp(UdpRepr {
                src_port: 1,
                dst_port: 2,
                payload_len: 0,
            }),
            ..tcp(ACK, 0, to)
        };
        assert_eq!(agent.classify(&udp), ApQueue::Data);
    }

    #[test]
    fn every_named_agent_builds_and_plans_access() {
        let settings = AgentSettings {
            txop_ns: 3_264_000,
            max_aggregate: 8,
            target_stations: 3.0,
            cw_min: 31,
            stages: 5,
            ..AgentSettings::DEFAULT
        };
        for name in AGENTS {
            let mut agent = by_name(name, settings).unwrap();
            assert_eq!(agent.name(), *name);
            assert_eq!(agent.access_planner().is_some(), plans_access(name));
        }
        assert!(by_name("nope", settings).is_none());
    }

    #[test]
    fn the_default_agent_passes_everything_and_injects_nothing() {
        #[derive(Debug)]
        struct Silent;
        impl Agent for Silent {
            fn name(&self) -> &'static str {
                "silent"
            }
        }
        let mut agent = Silent;
        let mut packet = pure_ack_to([10, 0, 0, 2]);
        for direction in [Direction::Outbound, Direction::Inbound] {
            let verdict = agent.handle_packet(Instant::ZERO, direction, &mut packet, &mut NoQueue);
            assert_eq!(verdict, Verdict::Pass);
        }
        assert_eq!(packet, pure_ack_to([10, 0, 0, 2]));
        assert!(agent.poll_transmit(Instant::ZERO).is_none());
        assert!(agent.poll_timeout().is_none());
        assert!(agent.access_planner().is_none());
    }
}
