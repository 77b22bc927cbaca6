//! The FIFO under sch_codel, sch_pie and sch_red (and under DropTail when sojourns are
//! measured): packets with their arrival times, which CoDel dequeues from
//! (`airtcp_proto::aqm::codel::CodelQueue`) and FQ-CoDel keeps in its flows
//! (`airtcp_proto::aqm::fq::FqItem`).

use std::collections::VecDeque;

use airtcp_proto::aqm::codel::CodelQueue;
use airtcp_proto::aqm::fq::FqItem;
use airtcp_proto::Instant;

use crate::packet::Carries;
use crate::queue::QueueLimit;

/// A packet waiting, with its arrival time (CoDel's timestamp).
#[derive(Clone, Copy, Debug)]
pub(super) struct Queued<P> {
    pub(super) packet: P,
    pub(super) at: Instant,
}

impl<P: Carries> FqItem for Queued<P> {
    fn len_bytes(&self) -> u32 {
        self.packet.packet().len()
    }
    fn enqueued_at(&self) -> Instant {
        self.at
    }
    fn mark_ce(&mut self) -> bool {
        self.packet.packet_mut().mark_ce()
    }
}

/// sch_codel's and sch_pie's FIFO (CoDel dequeues from it).
#[derive(Debug)]
pub(super) struct Fifo<P> {
    pub(super) packets: VecDeque<Queued<P>>,
    pub(super) bytes: u64,
}

impl<P> Default for Fifo<P> {
    fn default() -> Self {
        Fifo {
            packets: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl<P: Carries> Fifo<P> {
    /// Whether `limit` leaves no room for `packet`.
    pub(super) fn full(&self, limit: &QueueLimit, packet: &P) -> bool {
        let size = packet.packet().len();
        limit.full(self.packets.len(), self.bytes, u64::from(size))
    }

    pub(super) fn push(&mut self, packet: P, at: Instant) {
        self.bytes += u64::from(packet.packet().len());
        self.packets.push_back(Queued { packet, at });
    }
}

impl<P: Carries> CodelQueue for Fifo<P> {
    type Item = Queued<P>;

    fn dequeue(&mut self) -> Option<Queued<P>> {
        let head = self.packets.pop_front()?;
        self.bytes -= u64::from(head.packet.packet().len());
        Some(head)
    }

    fn enqueued_at(item: &Queued<P>) -> Instant {
        item.at
    }

    fn backlog_bytes(&self) -> u64 {
        self.bytes
    }

    fn mark_ce(item: &mut Queued<P>) -> bool {
        item.packet.packet_mut().mark_ce()
    }
}
