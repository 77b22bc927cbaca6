//! The optional 802.11 access-point capability of an agent (paper 000, §2.2): the AP keeps
//! TCP pure ACKs in a queue of their own, and each time it prepares a channel access the
//! agent returns an [`AccessPlan`] that the MAC (simulated or, later, emulated) carries out.
//! The agent may also observe the channel between the AP's own accesses.

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
    pub(super) fn ack_first(&self) -> ApQueue {
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

/// Channel-access planning at an 802.11 AP, offered by an agent through
/// [`Agent::access_planner`](super::Agent::access_planner).
pub trait AccessPlanner {
    /// The queue a packet joins. Pure TCP ACKs are recognised from the header only.
    fn classify(&self, packet: &PacketRepr) -> ApQueue {
        match packet.tcp() {
            Some(tcp) if tcp.is_pure_ack() => ApQueue::Ack,
            _ => ApQueue::Data,
        }
    }

    fn plan(&mut self, now: Instant, view: &ApView) -> AccessPlan;

    fn on_channel(&mut self, _now: Instant, _event: ChannelEvent) {}
}
