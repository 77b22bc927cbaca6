//! Point-to-point wired links: per direction a rate (or a mahimahi delivery trace), a
//! propagation delay, a queue (DropTail, or an AQM: `aqm`) and an error model, so
//! asymmetric links (a slow uplink) are one link.
//!
//! A mobile host's cell is such a link, and goes down when the mobile leaves the cell
//! (`crate::mobility`): the packet on the air is lost, and the queue either loses what it is
//! given or holds it, untransmitted, until the link comes up again or its sender takes the
//! packets back to send them another way.

use std::time::Duration;

use airtcp_proto::Instant;

use crate::aqm::LinkQueue;
use crate::config::DirectionConfig;
use crate::delivery_trace::TraceCursor;
use crate::error_model::ErrorModel;
use crate::interface::AgentSlot;
use crate::packet::Packet;
use crate::rng::Stream;

/// How fast a channel sends.
#[derive(Debug)]
enum Pace {
    Rate(u64),
    Trace(TraceCursor),
}

/// One direction of a link.
#[derive(Debug)]
pub struct Channel {
    pub to_node: usize,
    pace: Pace,
    delay: Duration,
    errors: ErrorModel,
    rng: Stream,
    pub queue: LinkQueue,
    /// The agent on the sending node's side of this direction.
    pub agent: Option<AgentSlot>,
    in_transmission: Option<Packet>,
    /// The packet on the wire was cut off by the link going down.
    cut: bool,
    /// Down: nothing is sent or received; `hold` keeps what is queued meanwhile.
    up: bool,
    hold: bool,
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
    /// One direction of a link to `to_node`, its error model drawing from `rng`, its AQM
    /// (if any) from `aqm_rng`; its queue measures sojourns if `metered`.
    pub fn new(
        config: &DirectionConfig,
        to_node: usize,
        rng: Stream,
        aqm_rng: Stream,
        metered: bool,
    ) -> Self {
        let queue = if metered {
            LinkQueue::metered(config.queue, config.aqm, config.rate_bps, aqm_rng)
        } else {
            LinkQueue::new(config.queue, config.aqm, config.rate_bps, aqm_rng)
        };
        Channel {
            to_node,
            pace: match (&config.trace_ms, config.rate_bps) {
                (Some(times), _) => Pace::Trace(TraceCursor::new(times.clone())),
                (None, rate) => Pace::Rate(rate.unwrap_or(1)),
            },
            delay: Duration::from_nanos(config.delay_ns),
            errors: config.errors,
            rng,
            queue,
            agent: None,
            in_transmission: None,
            cut: false,
            up: true,
            hold: false,
            delivered: 0,
            lost: 0,
        }
    }

    pub fn is_up(&self) -> bool {
        self.up
    }

    /// Takes the link down at `now`: the packet on the wire is lost, and so is everything
    /// queued now or later unless `hold`.
    pub fn go_down(&mut self, now: Instant, hold: bool) {
        self.up = false;
        self.hold = hold;
        self.cut = self.in_transmission.is_some();
        if !hold {
            self.lost += self.queue.drain(now).len() as u64;
        }
    }

    /// Brings the link up; sending resumes with what it holds.
    pub fn go_up(&mut self, now: Instant) -> ChannelActions {
        self.up = true;
        if self.in_transmission.is_some() {
            return ChannelActions::default(); // the cut packet's end starts the next
        }
        self.send_next(now)
    }

    /// The idle link starts sending the queue's next packet at `now`, if it gives one.
    fn send_next(&mut self, now: Instant) -> ChannelActions {
        match self.queue.pop(now) {
            Some(next) => {
                self.in_transmission = Some(next);
                ChannelActions {
                    tx_done: Some(self.sent_at(now, &next, false)),
                    arrival: None,
                }
            }
            None => ChannelActions::default(),
        }
    }

    /// Empties the queue of a link that is down at `now` (its sender sends them another
    /// way).
    pub fn take_held(&mut self, now: Instant) -> Vec<Packet> {
        self.queue.drain(now)
    }

    /// A packet arriving over the link at its far end: lost if the link went down while it
    /// was under way.
    pub fn accept_arrival(&mut self) -> bool {
        if !self.up {
            self.delivered -= 1;
            self.lost += 1;
        }
        self.up
    }

    /// When `packet`, at the head of the queue from `now`, has been sent; `follows` says
    /// the packet before it was sent just now.
    fn sent_at(&mut self, now: Instant, packet: &Packet, follows: bool) -> Instant {
        match &mut self.pace {
            Pace::Rate(rate_bps) => {
                now + Duration::from_nanos(
                    (8 * u64::from(packet.len()) * 1_000_000_000).div_ceil(*rate_bps),
                )
            }
            Pace::Trace(trace) => trace.delivery(now, packet.len(), follows),
        }
    }

    /// Queues a packet; starts sending it if the channel is idle.
    pub fn enqueue(&mut self, now: Instant, packet: Packet) -> ChannelActions {
        if !self.up {
            if !self.hold {
                self.lost += 1;
            } else {
                self.queue.push(now, packet);
            }
            return ChannelActions::default();
        }
        let idle = self.in_transmission.is_none() && self.queue.is_empty();
        if idle && self.queue.may_bypass() {
            self.in_transmission = Some(packet);
            return ChannelActions {
                tx_done: Some(self.sent_at(now, &packet, false)),
                arrival: None,
            };
        }
        self.queue.push(now, packet);
        if !idle {
            return ChannelActions::default();
        }
        // an AQM's queue: the packet arrives and leaves at once
        self.send_next(now)
    }

    /// The packet on the wire is fully sent: it propagates (or is lost), the next starts.
    pub fn on_tx_done(&mut self, now: Instant) -> ChannelActions {
        let mut actions = ChannelActions::default();
        if let Some(packet) = self.in_transmission.take() {
            // A packet cut off by the link going down is lost without a draw of the error
            // model, so the draws of the packets that follow are as without it.
            let cut = std::mem::take(&mut self.cut);
            if cut || self.errors.corrupts(packet.len(), &mut self.rng) {
                self.lost += 1;
            } else {
                self.delivered += 1;
                actions.arrival = Some((now + self.delay, packet));
            }
        }
        if !self.up {
            return actions;
        }
        if let Some(next) = self.queue.pop(now) {
            actions.tx_done = Some(self.sent_at(now, &next, true));
            self.in_transmission = Some(next);
        }
        actions
    }
}
