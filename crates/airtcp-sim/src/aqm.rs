//! The queue of one direction of a wired link (`link::Channel`): a DropTail FIFO (`queue`),
//! or an active queue manager in its place, as a Linux qdisc on the sending interface (the
//! same queue, over WLAN frames, is a WLAN's qdisc above its drivers: `wlan::dcf::txq::qdisc`):
//!
//! - `codel`: one FIFO with CoDel at its head (RFC 8289; Linux's net/sched/sch_codel.c over
//!   include/net/codel_impl.h, `airtcp_proto::aqm::codel`): target 5 ms, interval 100 ms,
//!   CoDel's MTU test at 1500 bytes (our packets are IP packets, without the 14 bytes of
//!   Ethernet header `psched_mtu` adds); the link's `queue` is sch_codel's `limit`, tail
//!   drops above it (Linux's default limit is 1000 packets).
//! - `fq_codel`: FQ-CoDel (RFC 8290; net/sched/sch_fq_codel.c, `airtcp_proto::aqm::fq` with
//!   one tin and `FqParams::SCH_FQ_CODEL`): packets hashed on their 5-tuple (keyed by a
//!   random value, as Linux perturbs its hash) into 1024 flows, served by deficit round
//!   robin with a quantum of 1514 bytes, new flows first, CoDel on each flow; over the
//!   limit (the link's `queue` in packets: Linux's default is 10240) up to 64 heads of the
//!   fattest flow are dropped, until half its bytes are gone. Not modelled: the memory
//!   limit (32 MiB of socket-buffer truesize), `ce_threshold`.
//! - `pie`: PIE (RFC 8033; net/sched/sch_pie.c without its dequeue-rate estimator,
//!   `airtcp_proto::aqm::pie`): one FIFO whose arrivals are dropped early with a probability
//!   updated every 15 ms from the last dequeued packet's sojourn against `target` (15 ms),
//!   with `alpha` 2 and `beta` 20 (in sixteenths: RFC 8033's 0.125 and 1.25); the link's
//!   `queue` is sch_pie's `limit` (Linux's default 1000 packets).
//!
//! ECN (RFC 3168): with `ecn` an AQM marks an ECN-capable packet CE where it would drop it
//! (`CodelParams::ecn`; PIE only while its probability is at most 10 %, as sch_pie), Linux's
//! defaults: off for codel and pie, on for fq_codel; tail and overlimit drops stay drops. The
//! sojourn time runs from a packet's arrival in the queue to its dequeue, when the link
//! starts to serialise it; a packet that finds the link idle passes the AQM too (at once).
//! With `simulation.queue_sojourn` every queue measures its packets' sojourns
//! (`crate::sojourn`); a DropTail queue then keeps arrival times as the AQMs' FIFOs do, and
//! packets no longer skip an idle link's empty queue (they pass it at once, as through an
//! AQM): the plain DropTail, the fast path, is untouched.
//!
//! Where each part lives: the scenario's settings and their defaults (`config`), the queue
//! with its disciplines (`link_queue`), the timestamped FIFO under them (`fifo`), and the
//! queue as an agent sees it (`interface_queue`).

mod config;
mod fifo;
mod interface_queue;
mod link_queue;
#[cfg(test)]
mod tests;

pub use config::{AqmConfig, INTERVAL_NS, TARGET_NS};
pub use link_queue::LinkQueue;
