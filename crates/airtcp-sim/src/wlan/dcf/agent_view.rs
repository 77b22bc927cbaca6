//! What an agent on a MAC's interface sees of its queue and may edit (`InterfaceQueue`):
//! the frames waiting behind the ones in service, never an MPDU its recipient may be
//! waiting for.

use std::collections::VecDeque;

use airtcp_proto::agent::InterfaceQueue;
use airtcp_proto::wire::PacketRepr;

use super::Frame;

/// A MAC's queues as its agent sees them: the data queue, then the AP's ACK queue, then the
/// frames the MAC holds for a station that has left (`roaming`: buffered, they are still the
/// interface's to send). The head of each queue is in service (its retries and lifetime
/// belong to it) and is not shown; in a BSS that aggregates, neither is an MPDU that has a
/// sequence number (its recipient may be waiting for it).
pub struct MacQueue<'a> {
    pub(super) queues: &'a mut [VecDeque<Frame>; 2],
    pub(super) held: &'a mut Vec<(u32, Frame)>,
    pub(super) mac: u32,
    pub(super) aggregating: bool,
}

/// Where an index of a `MacQueue` points.
enum Slot {
    Queued(usize, usize),
    /// An index into `held`.
    Held(usize),
}

impl<'a> MacQueue<'a> {
    /// MAC `mac`'s queues and the frames held for or from its stations; `aggregating`: its
    /// numbered MPDUs are hidden.
    pub(crate) fn new(
        queues: &'a mut [VecDeque<Frame>; 2],
        held: &'a mut Vec<(u32, Frame)>,
        mac: u32,
        aggregating: bool,
    ) -> Self {
        MacQueue {
            queues,
            held,
            mac,
            aggregating,
        }
    }

    /// The positions of a queue's frames the agent sees.
    fn shown(&self, queue: usize) -> impl Iterator<Item = usize> + '_ {
        let aggregating = self.aggregating;
        self.queues[queue]
            .iter()
            .enumerate()
            .skip(1)
            .filter(move |(_, frame)| !(aggregating && frame.mpdu.numbered()))
            .map(|(at, _)| at)
    }

    fn queued_shown(&self, queue: usize) -> usize {
        if self.aggregating {
            self.shown(queue).count()
        } else {
            self.queues[queue].len().saturating_sub(1)
        }
    }

    fn locate(&self, index: usize) -> Option<Slot> {
        let first = self.queued_shown(0);
        let second = self.queued_shown(1);
        let in_queue = |queue: usize, k: usize| {
            if self.aggregating {
                self.shown(queue).nth(k).map(|at| Slot::Queued(queue, at))
            } else {
                Some(Slot::Queued(queue, k + 1))
            }
        };
        if index < first {
            return in_queue(0, index);
        }
        if index - first < second {
            return in_queue(1, index - first);
        }
        self.held
            .iter()
            .enumerate()
            .filter(|(_, (sender, _))| *sender == self.mac)
            .nth(index - first - second)
            .map(|(at, _)| Slot::Held(at))
    }
}

impl InterfaceQueue for MacQueue<'_> {
    fn len(&self) -> usize {
        let queued = self.queued_shown(0) + self.queued_shown(1);
        queued + self.held.iter().filter(|(s, _)| *s == self.mac).count()
    }

    fn get(&self, index: usize) -> Option<&PacketRepr> {
        match self.locate(index)? {
            Slot::Queued(queue, at) => Some(&self.queues[queue][at].packet.repr),
            Slot::Held(at) => Some(&self.held[at].1.packet.repr),
        }
    }

    fn remove(&mut self, index: usize) -> Option<PacketRepr> {
        match self.locate(index)? {
            Slot::Queued(queue, at) => self.queues[queue].remove(at).map(|f| f.packet.repr),
            Slot::Held(at) => Some(self.held.remove(at).1.packet.repr),
        }
    }
}
