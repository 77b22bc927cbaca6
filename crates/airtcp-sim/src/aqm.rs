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

use std::collections::VecDeque;

use airtcp_proto::agent::InterfaceQueue;
use airtcp_proto::aqm::codel::{Codel, CodelParams, CodelQueue};
use airtcp_proto::aqm::fq::{flow_hash, Fq, FqItem, FqParams};
use airtcp_proto::aqm::pie::{Pie, PieParams};
use airtcp_proto::aqm::red::{Red, RedAction, RedParams};
use airtcp_proto::wire::PacketRepr;
use airtcp_proto::Instant;
use rand::Rng;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::packet::{Carries, Packet};
use crate::queue::{DropTailQueue, QueueLimit};
use crate::rng::Stream;
use crate::sojourn::{SojournSample, Sojourns};

/// sch_pie marks rather than drops only while its probability is at most 10 %.
const PIE_MARK_LIMIT: u64 = airtcp_proto::aqm::pie::MAX_PROB / 10;

/// CoDel's defaults (RFC 8289 §4.2, §4.3; sch_codel's and sch_fq_codel's).
pub const TARGET_NS: u64 = CodelParams::RFC.target_ns;
pub const INTERVAL_NS: u64 = CodelParams::RFC.interval_ns;

/// The queue discipline of a link direction, as the scenario sets it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AqmConfig {
    /// DropTail (`queue`'s limits).
    #[default]
    None,
    Codel {
        #[serde(default = "default_target")]
        target_ns: u64,
        #[serde(default = "default_interval")]
        interval_ns: u64,
        /// Mark ECN-capable packets CE instead of dropping them (sch_codel: off).
        #[serde(default)]
        ecn: bool,
    },
    FqCodel {
        #[serde(default = "default_target")]
        target_ns: u64,
        #[serde(default = "default_interval")]
        interval_ns: u64,
        #[serde(default = "default_flows")]
        flows: u32,
        #[serde(default = "default_quantum")]
        quantum: u32,
        /// sch_fq_codel: on.
        #[serde(default = "default_fq_codel_ecn")]
        ecn: bool,
    },
    Pie {
        #[serde(default = "default_pie_target")]
        target_ns: u64,
        #[serde(default = "default_tupdate")]
        tupdate_ns: u64,
        #[serde(default = "default_alpha")]
        alpha: u32,
        #[serde(default = "default_beta")]
        beta: u32,
        /// Mark instead of dropping while the probability is at most 10 % (sch_pie: off).
        #[serde(default)]
        ecn: bool,
    },
    /// RED (and Adaptive RED) as sch_red with tc's defaults (`airtcp_proto::aqm::red`):
    /// thresholds in bytes of average backlog (`max` a quarter of the limit, `min` a third
    /// of `max`), `burst` packets (tc's (2·min + max)/(3·avpkt)).
    Red {
        #[serde(default)]
        min: Option<u32>,
        #[serde(default)]
        max: Option<u32>,
        #[serde(default = "default_red_probability")]
        probability: f64,
        #[serde(default)]
        burst: Option<u32>,
        #[serde(default = "default_avpkt")]
        avpkt: u32,
        #[serde(default)]
        adaptive: bool,
        /// Mark ECN-capable packets CE instead of dropping them (sch_red: off).
        #[serde(default)]
        ecn: bool,
    },
}

fn default_target() -> u64 {
    TARGET_NS
}
fn default_interval() -> u64 {
    INTERVAL_NS
}
fn default_flows() -> u32 {
    FqParams::SCH_FQ_CODEL.flows
}
fn default_quantum() -> u32 {
    FqParams::SCH_FQ_CODEL.quantum
}
fn default_red_probability() -> f64 {
    0.02
}
fn default_avpkt() -> u32 {
    1000
}
fn default_fq_codel_ecn() -> bool {
    true
}
fn default_pie_target() -> u64 {
    PieParams::LINUX.target_ns
}
fn default_tupdate() -> u64 {
    PieParams::LINUX.tupdate_ns
}
fn default_alpha() -> u32 {
    PieParams::LINUX.alpha
}
fn default_beta() -> u32 {
    PieParams::LINUX.beta
}

impl AqmConfig {
    /// The names of the kinds, as the scenario writes them.
    pub const KINDS: [&'static str; 5] = ["none", "codel", "fq_codel", "pie", "red"];

    /// RED's parameters for a queue of `limit` on a link of `rate_bps` (a limit in packets
    /// counts 1500 bytes each: sch_red's limit is in bytes); `None` for the other kinds.
    pub fn red_params(
        &self,
        limit: &QueueLimit,
        rate_bps: Option<u64>,
    ) -> Option<Result<RedParams, String>> {
        let AqmConfig::Red {
            min,
            max,
            probability,
            burst,
            avpkt,
            adaptive,
            ..
        } = *self
        else {
            return None;
        };
        let limit_bytes = match (limit.bytes, limit.packets) {
            (Some(bytes), _) => bytes,
            (None, Some(packets)) => u64::from(packets) * 1500,
            (None, None) => u64::from(u32::MAX),
        };
        let Some(rate) = rate_bps else {
            return Some(Err(
                "red needs the link's rate (its idle decay); a delivery trace has none".into(),
            ));
        };
        let limit_bytes = u32::try_from(limit_bytes).unwrap_or(u32::MAX);
        Some(RedParams::tc(
            limit_bytes,
            min,
            max,
            probability,
            burst,
            avpkt,
            rate,
            adaptive,
        ))
    }

    /// The settings a queue of `limit` on a link of `rate_bps` runs with, defaults applied
    /// (RED's thresholds as tc derives them), for the effective settings; `None` for DropTail.
    pub fn effective(&self, limit: &QueueLimit, rate_bps: Option<u64>) -> Option<Value> {
        let settings = match *self {
            AqmConfig::None => return None,
            AqmConfig::Codel {
                target_ns,
                interval_ns,
                ecn,
            } => json!({"kind": "codel", "target_ns": target_ns, "interval_ns": interval_ns,
                        "ecn": ecn}),
            AqmConfig::FqCodel {
                target_ns,
                interval_ns,
                flows,
                quantum,
                ecn,
            } => json!({"kind": "fq_codel", "target_ns": target_ns, "interval_ns": interval_ns,
                        "flows": flows, "quantum": quantum, "ecn": ecn}),
            AqmConfig::Pie {
                target_ns,
                tupdate_ns,
                alpha,
                beta,
                ecn,
            } => json!({"kind": "pie", "target_ns": target_ns, "tupdate_ns": tupdate_ns,
                        "alpha": alpha, "beta": beta, "ecn": ecn}),
            AqmConfig::Red {
                probability,
                avpkt,
                adaptive,
                ecn,
                ..
            } => {
                let red = self.red_params(limit, rate_bps)?.ok()?;
                json!({"kind": "red", "min_bytes": red.min_bytes, "max_bytes": red.max_bytes,
                       "wlog": red.wlog, "probability": probability, "avpkt": avpkt,
                       "adaptive": adaptive, "ecn": ecn})
            }
        };
        Some(settings)
    }

    fn codel(target_ns: u64, interval_ns: u64, ecn: bool) -> CodelParams {
        CodelParams {
            target_ns,
            interval_ns,
            ecn,
            ..CodelParams::RFC
        }
    }
}

/// An AQM's decision against `packet` becomes a CE mark if `allowed` and the packet is
/// ECN-capable (counted in `marks`); false: drop it.
fn mark_instead(allowed: bool, packet: &mut Packet, marks: &mut u64) -> bool {
    let marked = allowed && packet.mark_ce();
    *marks += u64::from(marked);
    marked
}

/// A packet waiting, with its arrival time (CoDel's timestamp).
#[derive(Clone, Copy, Debug)]
struct Queued<P> {
    packet: P,
    at: Instant,
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
struct Fifo<P> {
    packets: VecDeque<Queued<P>>,
    bytes: u64,
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
    fn full(&self, limit: &QueueLimit, packet: &P) -> bool {
        let size = packet.packet().len();
        limit.full(self.packets.len(), self.bytes, u64::from(size))
    }

    fn push(&mut self, packet: P, at: Instant) {
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

#[derive(Debug)]
enum Discipline<P> {
    DropTail(DropTailQueue<P>),
    /// DropTail over a FIFO that keeps arrival times, for `queue_sojourn`.
    TimedDropTail {
        fifo: Fifo<P>,
        limit: QueueLimit,
    },
    Codel {
        fifo: Fifo<P>,
        state: Codel,
        params: CodelParams,
        limit: QueueLimit,
    },
    FqCodel {
        fq: Box<Fq<Queued<P>>>,
        params: CodelParams,
        hash_key: u64,
    },
    Pie {
        fifo: Fifo<P>,
        state: Pie,
        params: PieParams,
        /// Mark rather than drop while the probability is at most 10 %.
        ecn: bool,
        limit: QueueLimit,
        rng: Stream,
    },
    Red {
        fifo: Fifo<P>,
        state: Red,
        params: RedParams,
        ecn: bool,
        limit: QueueLimit,
        rng: Stream,
    },
}

/// A link direction's queue: what it drops at the tail (`drops`; FQ-CoDel's from its
/// fattest flow), what its AQM drops (`aqm_drops`: CoDel's at the head, PIE's on arrival)
/// and what it marks CE instead (`ecn_marks`); with `metered`, its packets' sojourns.
#[derive(Debug)]
pub struct LinkQueue<P = Packet> {
    discipline: Discipline<P>,
    pub drops: u64,
    pub aqm_drops: u64,
    pub ecn_marks: u64,
    sojourn: Option<Sojourns>,
}

impl<P: Carries> LinkQueue<P> {
    /// A queue of `limit` managed as `aqm` says, set up at time 0; `rng` keys FQ-CoDel's
    /// flow hash and draws PIE's drops.
    pub fn new(limit: QueueLimit, aqm: AqmConfig, rate_bps: Option<u64>, mut rng: Stream) -> Self {
        let discipline = match aqm {
            AqmConfig::Red { ecn, .. } => {
                let params = aqm
                    .red_params(&limit, rate_bps)
                    .expect("red")
                    .expect("validated RED parameters");
                Discipline::Red {
                    fifo: Fifo::default(),
                    state: Red::new(&params, 0),
                    params,
                    ecn,
                    limit,
                    rng,
                }
            }
            AqmConfig::None => Discipline::DropTail(DropTailQueue::new(limit)),
            AqmConfig::Codel {
                target_ns,
                interval_ns,
                ecn,
            } => Discipline::Codel {
                fifo: Fifo::default(),
                state: Codel::default(),
                params: AqmConfig::codel(target_ns, interval_ns, ecn),
                limit,
            },
            AqmConfig::FqCodel {
                target_ns,
                interval_ns,
                flows,
                quantum,
                ecn,
            } => Discipline::FqCodel {
                fq: Box::new(Fq::new(
                    FqParams {
                        flows,
                        quantum,
                        limit_packets: limit
                            .packets
                            .unwrap_or(FqParams::SCH_FQ_CODEL.limit_packets),
                        ..FqParams::SCH_FQ_CODEL
                    },
                    1,
                )),
                params: AqmConfig::codel(target_ns, interval_ns, ecn),
                hash_key: rng.random(),
            },
            AqmConfig::Pie {
                target_ns,
                tupdate_ns,
                alpha,
                beta,
                ecn,
            } => Discipline::Pie {
                fifo: Fifo::default(),
                state: Pie::new(0),
                params: PieParams {
                    target_ns,
                    tupdate_ns,
                    alpha,
                    beta,
                    ..PieParams::LINUX
                },
                ecn,
                limit,
                rng,
            },
        };
        LinkQueue {
            discipline,
            drops: 0,
            aqm_drops: 0,
            ecn_marks: 0,
            sojourn: None,
        }
    }

    /// As `new`, measuring the sojourn of every packet that leaves (`take_sojourn`).
    pub fn metered(limit: QueueLimit, aqm: AqmConfig, rate_bps: Option<u64>, rng: Stream) -> Self {
        let mut queue = Self::new(limit, aqm, rate_bps, rng);
        if let Discipline::DropTail(_) = queue.discipline {
            queue.discipline = Discipline::TimedDropTail {
                fifo: Fifo::default(),
                limit,
            };
        }
        queue.sojourn = Some(Sojourns::default());
        queue
    }

    /// The sojourns since the last call, if the queue is metered.
    pub fn take_sojourn(&mut self) -> Option<SojournSample> {
        self.sojourn.as_mut().map(Sojourns::take_interval)
    }

    /// The measurement window begins: sojourns count from now.
    pub fn start_sojourn_window(&mut self) {
        if let Some(sojourns) = &mut self.sojourn {
            sojourns.start_window();
        }
    }

    /// The sojourns over the measurement window, if the queue is metered.
    pub fn window_sojourn(&self) -> Option<SojournSample> {
        self.sojourn.as_ref().map(Sojourns::window_sample)
    }

    /// Queues `packet` arriving at `now`; false if it was dropped at the tail. (FQ-CoDel
    /// takes every packet and drops from its fattest flow, which may be this one's.)
    #[inline]
    pub fn push(&mut self, now: Instant, packet: P) -> bool {
        // DropTail inline: it is every link's without `aqm`, on the fast path
        if let Discipline::DropTail(queue) = &mut self.discipline {
            let taken = queue.push(packet);
            self.drops += u64::from(!taken);
            return taken;
        }
        self.push_managed(now, packet)
    }

    fn push_managed(&mut self, now: Instant, packet: P) -> bool {
        match &mut self.discipline {
            Discipline::DropTail(_) => unreachable!("pushed inline"),
            Discipline::Codel { fifo, limit, .. } | Discipline::TimedDropTail { fifo, limit } => {
                if fifo.full(limit, &packet) {
                    self.drops += 1;
                    return false;
                }
                fifo.push(packet, now);
                true
            }
            Discipline::Pie {
                fifo,
                state,
                params,
                ecn,
                limit,
                rng,
            } => {
                let mut packet = packet;
                state.catch_up(now.as_nanos(), params, fifo.bytes);
                if fifo.full(limit, &packet) {
                    state.dropped();
                    self.drops += 1;
                    return false;
                }
                if state.drop_early(params, fifo.bytes, || rng.random()) {
                    // sch_pie marks an ECN-capable packet instead while the probability is
                    // at most 10 %, without resetting the derandomisation.
                    let marked = *ecn && state.prob() <= PIE_MARK_LIMIT;
                    if !mark_instead(marked, packet.packet_mut(), &mut self.ecn_marks) {
                        state.dropped();
                        self.aqm_drops += 1;
                        return false;
                    }
                }
                fifo.push(packet, now);
                true
            }
            Discipline::Red {
                fifo,
                state,
                params,
                ecn,
                limit,
                rng,
            } => {
                let mut packet = packet;
                let action = state.on_arrival(now.as_nanos(), params, fifo.bytes, || rng.random());
                // sch_red: an early or forced decision marks an ECN-capable packet with
                // `ecn` (forced ones too, without `harddrop`), drops it otherwise.
                if action != RedAction::Pass
                    && !mark_instead(*ecn, packet.packet_mut(), &mut self.ecn_marks)
                {
                    self.aqm_drops += 1;
                    return false;
                }
                if fifo.full(limit, &packet) {
                    self.drops += 1;
                    return false;
                }
                fifo.push(packet, now);
                true
            }
            Discipline::FqCodel { fq, hash_key, .. } => {
                let hash = flow_hash(&packet.packet().repr, *hash_key);
                let mut dropped = 0;
                fq.enqueue(0, hash, Queued { packet, at: now }, &mut |_, _| {
                    dropped += 1
                });
                self.drops += dropped;
                true
            }
        }
    }

    /// The next packet to send at `now`; the AQM's drops on the way are counted.
    #[inline]
    pub fn pop(&mut self, now: Instant) -> Option<P> {
        if let Discipline::DropTail(queue) = &mut self.discipline {
            return queue.pop();
        }
        self.pop_managed(now)
    }

    fn pop_managed(&mut self, now: Instant) -> Option<P> {
        let mut dropped = 0;
        let next = match &mut self.discipline {
            Discipline::DropTail(_) => unreachable!("popped inline"),
            Discipline::Codel {
                fifo,
                state,
                params,
                ..
            } => {
                let next = state.dequeue(now, params, fifo, &mut |_| dropped += 1);
                self.ecn_marks += u64::from(state.take_marks());
                next
            }
            Discipline::FqCodel { fq, params, .. } => {
                let next = fq.dequeue(0, now, params, &mut |_| dropped += 1);
                self.ecn_marks += std::mem::take(&mut fq.counters.ecn_marks);
                next
            }
            Discipline::Pie {
                fifo,
                state,
                params,
                ..
            } => {
                state.catch_up(now.as_nanos(), params, fifo.bytes);
                let head = fifo.dequeue()?;
                state.dequeued(now.as_nanos(), head.at.as_nanos(), fifo.bytes);
                Some(head)
            }
            Discipline::Red { fifo, state, .. } => {
                let head = fifo.dequeue();
                if fifo.packets.is_empty() {
                    state.on_empty(now.as_nanos());
                }
                head
            }
            Discipline::TimedDropTail { fifo, .. } => fifo.dequeue(),
        };
        self.aqm_drops += dropped;
        let queued = next?;
        if let Some(sojourns) = &mut self.sojourn {
            sojourns.record((now - queued.at).as_nanos() as u64);
        }
        Some(queued.packet)
    }

    /// Whether packets may skip the queue when it is empty and the link idle (DropTail); an
    /// AQM sees every packet arrive and leave, as a qdisc does.
    #[inline]
    pub fn may_bypass(&self) -> bool {
        matches!(self.discipline, Discipline::DropTail(_))
    }

    /// Runs what is due by `now` before anything but an arrival or a dequeue changes the
    /// queue (an agent's edit, a link going down): PIE's probability updates.
    pub fn advance(&mut self, now: Instant) {
        if let Discipline::Pie {
            fifo,
            state,
            params,
            ..
        } = &mut self.discipline
        {
            state.catch_up(now.as_nanos(), params, fifo.bytes);
        }
    }

    /// Empties the queue at `now`, without the AQM (a link that went down). (Linux resets a
    /// qdisc's state with the device; here CoDel's and PIE's go on.)
    pub fn drain(&mut self, now: Instant) -> Vec<P> {
        self.advance(now);
        match &mut self.discipline {
            Discipline::DropTail(queue) => std::iter::from_fn(|| queue.pop()).collect(),
            Discipline::Codel { fifo, .. }
            | Discipline::Pie { fifo, .. }
            | Discipline::Red { fifo, .. }
            | Discipline::TimedDropTail { fifo, .. } => std::iter::from_fn(|| fifo.dequeue())
                .map(|q| q.packet)
                .collect(),
            Discipline::FqCodel { fq, .. } => {
                // every flow emptied in turn, none dropped (no sojourn counts as high)
                let off = CodelParams {
                    target_ns: u64::MAX,
                    ..CodelParams::RFC
                };
                std::iter::from_fn(|| fq.dequeue(0, Instant::ZERO, &off, &mut |_| {}))
                    .map(|q| q.packet)
                    .collect()
            }
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match &self.discipline {
            Discipline::DropTail(queue) => queue.len(),
            Discipline::Codel { fifo, .. }
            | Discipline::Pie { fifo, .. }
            | Discipline::Red { fifo, .. }
            | Discipline::TimedDropTail { fifo, .. } => fifo.packets.len(),
            Discipline::FqCodel { fq, .. } => fq.backlog() as usize,
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes queued.
    #[inline]
    pub fn bytes(&self) -> u64 {
        match &self.discipline {
            Discipline::DropTail(queue) => queue.bytes(),
            Discipline::Codel { fifo, .. }
            | Discipline::Pie { fifo, .. }
            | Discipline::Red { fifo, .. }
            | Discipline::TimedDropTail { fifo, .. } => fifo.bytes,
            Discipline::FqCodel { fq, .. } => fq.backlog_bytes(),
        }
    }
}

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

#[cfg(test)]
mod tests;
