//! A link direction's queue as an agent on the link sees and edits it
//! (`airtcp_proto::agent::InterfaceQueue`): a FIFO's packets, head first.

use airtcp_proto::agent::InterfaceQueue;
use airtcp_proto::wire::PacketRepr;

use super::link_queue::Discipline;
use super::LinkQueue;
use crate::packet::Carries;

/// The queue as an agent on the link sees it: a FIFO's packets, head first; FQ-CoDel's
/// flows are not shown (agents are refused beside it).
impl<P: Carries> InterfaceQueue for LinkQueue<P> {
    fn len(&self) -> usize {
        match &self.discipline {
            Discipline::DropTail(queue) => InterfaceQueue::len(queue),
            Discipline::Codel { fifo, .. }
            | Discipline::Pie { fifo, .. }
            | Discipline::Red { fifo, .. }
            | Discipline::TimedDropTail { fifo, .. } => fifo.packets.len(),
            Discipline::FqCodel { .. } => 0,
        }
    }

    fn get(&self, index: usize) -> Option<&PacketRepr> {
        match &self.discipline {
            Discipline::DropTail(queue) => queue.get(index),
            Discipline::Codel { fifo, .. }
            | Discipline::Pie { fifo, .. }
            | Discipline::Red { fifo, .. }
            | Discipline::TimedDropTail { fifo, .. } => {
                fifo.packets.get(index).map(|q| &q.packet.packet().repr)
            }
            Discipline::FqCodel { .. } => None,
        }
    }

    fn remove(&mut self, index: usize) -> Option<PacketRepr> {
        match &mut self.discipline {
            Discipline::DropTail(queue) => queue.remove(index),
            Discipline::Codel { fifo, .. }
            | Discipline::Pie { fifo, .. }
            | Discipline::Red { fifo, .. }
            | Discipline::TimedDropTail { fifo, .. } => {
                let removed = fifo.packets.remove(index)?.packet;
                fifo.bytes -= u64::from(removed.packet().len());
                Some(removed.packet().repr)
            }
            Discipline::FqCodel { .. } => None,
        }
    }
}
