//! A link direction's queue (`LinkQueue`): DropTail, inline on the fast path, or one of
//! the AQMs in its place as the Linux qdisc would run it (`Discipline`): CoDel at a FIFO's
//! head (sch_codel), FQ-CoDel (sch_fq_codel), PIE's and RED's drops and marks on arrival
//! (sch_pie, sch_red), with the tail limit, ECN marks instead of drops (RFC 3168), and
//! the sojourns of its packets when metered.

use airtcp_proto::aqm::codel::{Codel, CodelParams, CodelQueue};
use airtcp_proto::aqm::fq::{flow_hash, Fq, FqParams};
use airtcp_proto::aqm::pie::{Pie, PieParams};
use airtcp_proto::aqm::red::{Red, RedAction, RedParams};
use airtcp_proto::Instant;
use rand::Rng;

use super::fifo::{Fifo, Queued};
use super::AqmConfig;
use crate::packet::{Carries, Packet};
use crate::queue::{DropTailQueue, QueueLimit};
use crate::rng::Stream;
use crate::sojourn::{SojournSample, Sojourns};

/// sch_pie marks rather than drops only while its probability is at most 10 %.
const PIE_MARK_LIMIT: u64 = airtcp_proto::aqm::pie::MAX_PROB / 10;

/// An AQM's decision against `packet` becomes a CE mark if `allowed` and the packet is
/// ECN-capable (counted in `marks`); false: drop it.
fn mark_instead(allowed: bool, packet: &mut Packet, marks: &mut u64) -> bool {
    let marked = allowed && packet.mark_ce();
    *marks += u64::from(marked);
    marked
}

#[derive(Debug)]
pub(super) enum Discipline<P> {
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
    pub(super) discipline: Discipline<P>,
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
