//! Linux's flow queueing for mac80211 (include/net/fq.h and fq_impl.h: `fq_tin_enqueue`,
//! `fq_tin_dequeue`, `fq_flow_classify`, `fq_find_fattest_flow`), with CoDel on each flow as
//! mac80211 runs it (net/mac80211/tx.c, `fq_tin_dequeue_func`); with one tin and
//! `FqParams::SCH_FQ_CODEL` it is the FQ-CoDel queueing discipline (RFC 8290; Linux's
//! net/sched/sch_fq_codel.c, which fq_impl.h was taken from), whose differences are
//! parameters: `drop_batch`, `whole_backlog` and `batch_raises_codel`.
//!
//! Packets are hashed on their 5-tuple into one of `flows` shared flows. Each tin (one per
//! station and TID in mac80211) keeps lists of new and old flows and serves them by deficit
//! round robin in bytes (`quantum`): a flow that becomes backlogged joins the new flows with
//! a full quantum, so sparse flows go first. A flow that hashes to a flow already in use by
//! another tin goes to the tin's own default flow instead (a collision). Over the packet
//! limit, the head of the flow with the largest backlog of all tins is dropped. On dequeue,
//! CoDel runs on the flow's queue (`codel`). Linux's memory limit (socket-buffer truesize:
//! 16 MiB, 4 MiB on hardware without VHT) is not modelled: the packet limit bounds them.

use std::collections::{HashMap, VecDeque};

use super::codel::{Codel, CodelParams, CodelQueue};
use crate::wire::{PacketRepr, TransportRepr};
use crate::Instant;

/// The parameters of a flow-queueing structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FqParams {
    /// Shared flows packets are hashed into.
    pub flows: u32,
    /// Bytes a flow may send per round.
    pub quantum: u32,
    /// Packets all tins may hold together.
    pub limit_packets: u32,
    /// Over the limit, at most this many heads of the fattest flow are dropped, until half
    /// its bytes are gone (`fq_codel_drop`'s `drop_batch_size`); mac80211 drops one.
    pub drop_batch: u32,
    /// CoDel's MTU test counts the bytes of the whole structure (sch_fq_codel passes
    /// `sch->qstats.backlog`), not of the flow (mac80211 passes `flow->backlog`).
    pub whole_backlog: bool,
    /// An overlimit batch raises the flow's CoDel count by its size (sch_fq_codel's
    /// `fq_codel_drop`: "tell codel to increase its signal strength"; mac80211 does not).
    pub batch_raises_codel: bool,
}

impl FqParams {
    /// mac80211's: 4096 flows, a 300-byte quantum, 8192 packets (`fq_init`,
    /// `ieee80211_txq_setup_flows`).
    pub const MAC80211: FqParams = FqParams {
        flows: 4096,
        quantum: 300,
        limit_packets: 8192,
        drop_batch: 1,
        whole_backlog: false,
        batch_raises_codel: false,
    };

    /// sch_fq_codel's defaults (`fq_codel_init`): 1024 flows, a quantum of the device's MTU
    /// with its link-layer header (`psched_mtu`: 1514 bytes on Ethernet), 10240 packets,
    /// drops in batches of up to 64.
    pub const SCH_FQ_CODEL: FqParams = FqParams {
        flows: 1024,
        quantum: 1514,
        limit_packets: 10_240,
        drop_batch: 64,
        whole_backlog: true,
        batch_raises_codel: true,
    };
}

/// What the structure needs of a queued item.
pub trait FqItem {
    fn len_bytes(&self) -> u32;
    fn enqueued_at(&self) -> Instant;
    /// Marks the item CE if it is ECN-capable; false if it is not.
    fn mark_ce(&mut self) -> bool;
}

/// A flow: its packets, the tin using it, its round-robin deficit and its CoDel state.
#[derive(Debug)]
struct Flow<T> {
    queue: VecDeque<T>,
    backlog_bytes: u64,
    tin: Option<u32>,
    deficit: i64,
    codel: Codel,
    /// On one of its tin's lists.
    listed: bool,
}

impl<T> Flow<T> {
    fn new() -> Self {
        Flow {
            queue: VecDeque::new(),
            backlog_bytes: 0,
            tin: None,
            deficit: 0,
            codel: Codel::default(),
            listed: false,
        }
    }
}

/// Where a flow is kept: a shared flow (by slab index) or a tin's default flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FlowRef {
    Shared(usize),
    Default(u32),
}

#[derive(Debug)]
struct Tin<T> {
    new_flows: VecDeque<FlowRef>,
    old_flows: VecDeque<FlowRef>,
    default_flow: Flow<T>,
    backlog_packets: u32,
}

/// Counters of a flow-queueing structure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FqCounters {
    /// Packets dropped over the packet limit.
    pub overlimit_drops: u64,
    /// Packets CoDel dropped.
    pub codel_drops: u64,
    /// Packets CoDel marked CE instead (`CodelParams::ecn`).
    pub ecn_marks: u64,
    /// Packets that went to their tin's default flow because their flow was another tin's.
    pub collisions: u64,
}

/// Flow queues over `tins` tins.
#[derive(Debug)]
pub struct Fq<T> {
    params: FqParams,
    /// Shared flows in use, by flow index (allocated on first use: a structure has 4096).
    flow_of_index: HashMap<u32, usize>,
    flows: Vec<Flow<T>>,
    /// Flow index of each allocated flow (for the fattest flow's tie-break, as Linux scans
    /// by index).
    index_of_flow: Vec<u32>,
    tins: Vec<Tin<T>>,
    backlog_packets: u32,
    backlog_bytes: u64,
    pub counters: FqCounters,
}

impl<T: FqItem> Fq<T> {
    pub fn new(params: FqParams, tins: usize) -> Self {
        Fq {
            params,
            flow_of_index: HashMap::new(),
            flows: Vec::new(),
            index_of_flow: Vec::new(),
            tins: (0..tins)
                .map(|_| Tin {
                    new_flows: VecDeque::new(),
                    old_flows: VecDeque::new(),
                    default_flow: Flow::new(),
                    backlog_packets: 0,
                })
                .collect(),
            backlog_packets: 0,
            backlog_bytes: 0,
            counters: FqCounters::default(),
        }
    }

    fn flow(&mut self, at: FlowRef) -> &mut Flow<T> {
        match at {
            FlowRef::Shared(slab) => &mut self.flows[slab],
            FlowRef::Default(tin) => &mut self.tins[tin as usize].default_flow,
        }
    }

    /// Packets queued in a tin.
    pub fn tin_backlog(&self, tin: u32) -> u32 {
        self.tins[tin as usize].backlog_packets
    }

    /// Packets queued in all tins.
    pub fn backlog(&self) -> u32 {
        self.backlog_packets
    }

    /// Bytes queued in all tins.
    pub fn backlog_bytes(&self) -> u64 {
        self.backlog_bytes
    }

    /// Queues `item` of the flow with hash `hash` in `tin`; items dropped over the limit (the
    /// fattest flow's heads, perhaps of another tin) go to `dropped` with their tin.
    pub fn enqueue(&mut self, tin: u32, hash: u32, item: T, dropped: &mut impl FnMut(u32, T)) {
        let at = self.classify(tin, hash);
        let len = u64::from(item.len_bytes());
        let quantum = i64::from(self.params.quantum);
        let flow = self.flow(at);
        flow.tin = Some(tin);
        flow.backlog_bytes += len;
        flow.queue.push_back(item);
        let newly = !flow.listed;
        if newly {
            flow.listed = true;
            flow.deficit = quantum;
        }
        let tin_state = &mut self.tins[tin as usize];
        tin_state.backlog_packets += 1;
        if newly {
            tin_state.new_flows.push_back(at);
        }
        self.backlog_packets += 1;
        self.backlog_bytes += len;
        while self.backlog_packets > self.params.limit_packets {
            let Some(fattest) = self.fattest_flow() else {
                return;
            };
            let (batch, raises) = (
                self.params.drop_batch.max(1),
                self.params.batch_raises_codel,
            );
            let flow = self.flow(fattest);
            let owner = flow.tin.expect("a backlogged flow has a tin");
            let threshold = flow.backlog_bytes / 2;
            let (mut count, mut bytes) = (0u32, 0u64);
            // at least one head, then on while under the batch and half the flow's bytes
            while count < batch && (count == 0 || bytes < threshold) {
                let Some(head) = flow.queue.pop_front() else {
                    break;
                };
                let len = u64::from(head.len_bytes());
                flow.backlog_bytes -= len;
                (count, bytes) = (count + 1, bytes + len);
                dropped(owner, head);
            }
            if count == 0 {
                return;
            }
            if raises {
                flow.codel.raise_count(count);
            }
            self.tins[owner as usize].backlog_packets -= count;
            self.backlog_packets -= count;
            self.backlog_bytes -= bytes;
            self.counters.overlimit_drops += u64::from(count);
        }
    }

    /// The flow a packet of `hash` goes to in `tin` (`fq_flow_classify`: Linux's
    /// `reciprocal_scale(hash, flows)`).
    fn classify(&mut self, tin: u32, hash: u32) -> FlowRef {
        let index = ((u64::from(hash) * u64::from(self.params.flows)) >> 32) as u32;
        let slab = *self.flow_of_index.entry(index).or_insert_with(|| {
            self.flows.push(Flow::new());
            self.index_of_flow.push(index);
            self.flows.len() - 1
        });
        match self.flows[slab].tin {
            Some(owner) if owner != tin => {
                self.counters.collisions += 1;
                FlowRef::Default(tin)
            }
            _ => FlowRef::Shared(slab),
        }
    }

    /// The flow with the most bytes queued; the first by flow index among equals, then the
    /// tins' default flows (`fq_find_fattest_flow`).
    fn fattest_flow(&self) -> Option<FlowRef> {
        let mut best: Option<(u64, u32, FlowRef)> = None;
        for (slab, flow) in self.flows.iter().enumerate() {
            let (len, index) = (flow.backlog_bytes, self.index_of_flow[slab]);
            if len == 0 {
                continue;
            }
            if best.is_none_or(|(most, first, _)| len > most || (len == most && index < first)) {
                best = Some((len, index, FlowRef::Shared(slab)));
            }
        }
        for (tin, state) in self.tins.iter().enumerate() {
            let len = state.default_flow.backlog_bytes;
            if len > 0 && best.is_none_or(|(most, _, _)| len > most) {
                best = Some((len, u32::MAX, FlowRef::Default(tin as u32)));
            }
        }
        best.map(|(_, _, at)| at)
    }

    /// The next packet of `tin` at `now` (`fq_tin_dequeue`), CoDel running with `codel` on
    /// the flow it comes from; CoDel's drops go to `dropped`.
    pub fn dequeue(
        &mut self,
        tin: u32,
        now: Instant,
        codel: &CodelParams,
        dropped: &mut impl FnMut(T),
    ) -> Option<T> {
        loop {
            let state = &mut self.tins[tin as usize];
            let from_new = !state.new_flows.is_empty();
            let at = *state.new_flows.front().or(state.old_flows.front())?;
            let quantum = i64::from(self.params.quantum);
            let (whole, total) = (self.params.whole_backlog, self.backlog_bytes);
            let flow = self.flow(at);
            if flow.deficit <= 0 {
                flow.deficit += quantum;
                let state = &mut self.tins[tin as usize];
                pop_front(state, from_new);
                state.old_flows.push_back(at);
                continue;
            }
            let mut drops = 0u32;
            let others = if whole { total - flow.backlog_bytes } else { 0 };
            let mut served = FlowQueue {
                flow,
                others,
                dequeued: 0,
                dequeued_bytes: 0,
            };
            let mut codel_state = std::mem::take(&mut served.flow.codel);
            let item = codel_state.dequeue(now, codel, &mut served, &mut |item| {
                drops += 1;
                dropped(item)
            });
            let (taken, taken_bytes) = (served.dequeued, served.dequeued_bytes);
            let marks = codel_state.take_marks();
            served.flow.codel = codel_state;
            let state = &mut self.tins[tin as usize];
            state.backlog_packets -= taken;
            self.backlog_packets -= taken;
            self.backlog_bytes -= taken_bytes;
            self.counters.codel_drops += u64::from(drops);
            self.counters.ecn_marks += u64::from(marks);
            let Some(item) = item else {
                // An emptied new flow passes through the old flows once, so that a flow
                // cannot stay new by emptying each round (starving the old ones).
                let state = &mut self.tins[tin as usize];
                pop_front(state, from_new);
                if from_new && !state.old_flows.is_empty() {
                    state.old_flows.push_back(at);
                } else {
                    let flow = self.flow(at);
                    flow.listed = false;
                    flow.tin = None;
                }
                continue;
            };
            self.flow(at).deficit -= i64::from(item.len_bytes());
            return Some(item);
        }
    }
}

fn pop_front<T>(tin: &mut Tin<T>, from_new: bool) {
    if from_new {
        tin.new_flows.pop_front();
    } else {
        tin.old_flows.pop_front();
    }
}

/// A flow's queue as CoDel sees it: dequeues keep its backlog; `others`: the bytes of the
/// other flows, which CoDel's MTU test counts too with `whole_backlog`.
struct FlowQueue<'a, T> {
    flow: &'a mut Flow<T>,
    others: u64,
    dequeued: u32,
    dequeued_bytes: u64,
}

impl<T: FqItem> CodelQueue for FlowQueue<'_, T> {
    type Item = T;

    fn dequeue(&mut self) -> Option<T> {
        let item = self.flow.queue.pop_front()?;
        let len = u64::from(item.len_bytes());
        self.flow.backlog_bytes -= len;
        self.dequeued += 1;
        self.dequeued_bytes += len;
        Some(item)
    }

    fn enqueued_at(item: &T) -> Instant {
        item.enqueued_at()
    }

    fn backlog_bytes(&self) -> u64 {
        self.flow.backlog_bytes + self.others
    }

    fn mark_ce(item: &mut T) -> bool {
        item.mark_ce()
    }
}

/// A packet's flow hash: its addresses, protocol and ports (an echo's identifier as its
/// port) mixed with `key` (Linux's `skb_get_hash` keys its hash with a random seed).
pub fn flow_hash(repr: &PacketRepr, key: u64) -> u32 {
    let (protocol, ports) = match &repr.transport {
        TransportRepr::Tcp(tcp) => (
            6u64,
            (u64::from(tcp.src_port) << 16) | u64::from(tcp.dst_port),
        ),
        TransportRepr::Udp(udp) => (
            17,
            (u64::from(udp.src_port) << 16) | u64::from(udp.dst_port),
        ),
        TransportRepr::Echo(echo) => (1, u64::from(echo.id)),
    };
    let addresses = (u64::from(u32::from_be_bytes(repr.ip.src)) << 32)
        | u64::from(u32::from_be_bytes(repr.ip.dst));
    let mixed = mix(mix(key ^ addresses) ^ (protocol << 32 | ports));
    (mixed >> 32) as u32
}

/// splitmix64's finalizer: every input bit affects every output bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests;
