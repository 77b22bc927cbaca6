//! Point-to-point wired links: per direction a rate, a propagation delay, a DropTail queue
//! and an error model, so asymmetric links (a slow uplink) are one link.

use std::time::Duration;

use airtcp_proto::Instant;

use crate::config::DirectionConfig;
use crate::error_model::ErrorModel;
use crate::interface::AgentSlot;
use crate::packet::Packet;
use crate::queue::DropTailQueue;
use crate::rng::Stream;

/// One direction of a link.
#[derive(Debug)]
pub struct Channel {
    pub to_node: usize,
    rate_bps: u64,
    delay: Duration,
    errors: ErrorModel,
    rng: Stream,
    pub queue: DropTailQueue,
    /// The agent on the sending node's side of this direction.
    pub agent: Option<AgentSlot>,
    in_transmission: Option<Packet>,
    pub delivered: u64,
    pub lost: u64,
}

/// What the caller schedules after a channel call.
#[derive(Debug, Default)]
pub struct ChannelActions {
    /// Serialisation of the head packet ends at this time.
    pub tx_done: Option<Instant>,
    /// A packet reaches `to_node` at this time.
    pub arrival: Option<(Instant, Packet)>,
}

impl Channel {
    pub fn new(config: &DirectionConfig, to_node: usize, rng: Stream) -> Self {
        Channel {
            to_node,
            rate_bps: config.rate_bps,
            delay: Duration::from_nanos(config.delay_ns),
            errors: config.errors,
            rng,
            queue: DropTailQueue::new(config.queue),
            agent: None,
            in_transmission: None,
            delivered: 0,
            lost: 0,
        }
    }

    fn serialisation(&self, packet: &Packet) -> Duration {
        Duration::from_nanos((8 * u64::from(packet.len()) * 1_000_000_000).div_ceil(self.rate_bps))
    }

    /// Queues a packet; starts sending it if the channel is idle.
    pub fn enqueue(&mut self, now: Instant, packet: Packet) -> ChannelActions {
        if self.in_transmission.is_none() && self.queue.is_empty() {
            self.in_transmission = Some(packet);
            return ChannelActions {
                tx_done: Some(now + self.serialisation(&packet)),
                arrival: None,
            };
        }
        self.queue.push(packet);
        ChannelActions::default()
    }

    /// The packet on the wire is fully sent: it propagates (or is lost), the next starts.
    pub fn on_tx_done(&mut self, now: Instant) -> ChannelActions {
        let mut actions = ChannelActions::default();
        if let Some(packet) = self.in_transmission.take() {
            if self.errors.corrupts(packet.len(), &mut self.rng) {
                self.lost += 1;
            } else {
                self.delivered += 1;
                actions.arrival = Some((now + self.delay, packet));
            }
        }
        if let Some(next) = self.queue.pop() {
            actions.tx_done = Some(now + self.serialisation(&next));
            self.in_transmission = Some(next);
        }
        actions
    }
}
