//! The intermediate queues of Linux's mac80211 between the stack and the MAC (net/mac80211/
//! tx.c, `ieee80211_txq_*`; Høiland-Jørgensen et al., "Ending the Anomaly", USENIX ATC 2017),
//! on each MAC of a BSS that sets `queueing` to `fq_codel` or `fq_codel_airtime` (and, fed
//! by the same `Txqs::refill`, of a WLAN with geometry: `radio::queueing`).
//!
//! - **Queues**: per receiver and AC (mac80211's per-station, per-TID queue; one TID an AC), a tin
//!   of flow queues with CoDel (`airtcp_proto::aqm::fq`, mac80211's 4096 flows, 300-byte
//!   quantum, 8192 packets; over the limit one head of the fattest flow is dropped, as up to
//!   Linux 5.10; the memory limit, 4 MiB for hardware without VHT, is not modelled).
//!   CoDel's target and interval are mac80211's: 20 ms and 100 ms, or 50 ms and 300 ms
//!   towards a station slower than 6 Mbit/s times the stations its sender serves (the AP's
//!   station count; one for a station towards its AP) (`sta_update_codel_params`, Linux 4.9
//!   to 6.14, which compares rate control's expected throughput where this takes the data
//!   rate).
//!   CoDel marks ECN-capable packets CE rather than dropping them (mac80211's `ecn`; not
//!   towards a slow station), counted in `ecn_marks`. Beside `queueing = "fifo"` a qdisc
//!   may take these queues' place (`qdisc`).
//! - **Scheduling**: the MAC's own FIFO plays the driver's hardware queue, kept as deep as
//!   ath9k keeps its own: two A-MPDUs (`ATH_AGGR_MIN_QDEPTH`), each receiver's frames
//!   counting apart, or eight single frames (`ATH_NON_AGGR_MIN_QDEPTH`): when the MAC's
//!   transmission completes, and at each channel access, the station scheduler
//!   (`airtcp_proto::aqm::airtime`) picks receivers, round robin (`fq_codel`) or by airtime
//!   deficit (`fq_codel_airtime`), and each one's tin gives one transmission's worth: an
//!   A-MPDU's (the Block Ack window and the longest PSDU) in a BSS that aggregates, one
//!   frame otherwise. MPDUs to retry stay at the FIFO's head and their receiver's tin tops
//!   their A-MPDU up, as ath9k's retry queue does. CoDel measures the sojourn up to this
//!   dequeue, as in Linux, so the wait in the driver's queue is not part of it. A driver
//!   with a deep firmware queue instead, with or without airtime queue limits (AQL), is
//!   `firmware` (`driver_queue`).
//! - **Airtime**: every data PPDU's airtime is charged to the station it was for or from, at
//!   the AP's scheduler (both directions, as the paper's scheduler does).
//! - **Beside an AP's access-planning agent** (paper 000's, `wlan::ap_plan`) the data goes
//!   through these queues and the agent's ACK queue sits below them, beside the driver's
//!   FIFO: the ACKs it classifies skip the tins and the scheduler (ours: Linux has no such
//!   queue) and their airtime is charged as any PPDU's.
//! - **Where this departs from ath9k**: MPDUs to retry go again from the FIFO's head without
//!   passing the scheduler (ath9k returns them to the TID's retry queue); A-MPDUs keep the
//!   standard's limits (the Block Ack window, aPPDUMaxTime) unless `ba_window` and
//!   `max_ampdu_duration` set ath9k's 32 subframes and 4 ms; uplink airtime is charged for every PPDU a station sent, also those the AP
//!   could not decode (ath9k counts received data frames); frames leave the tins when the
//!   driver refills, not at every enqueue.

use airtcp_proto::aqm::airtime::StationScheduler;
use airtcp_proto::aqm::codel::CodelParams;
use airtcp_proto::aqm::fq::{flow_hash, Fq, FqItem, FqParams};
use airtcp_proto::wifi::mcs::subframe_bytes;
use airtcp_proto::Instant;

use std::collections::VecDeque;

use airtcp_proto::wifi::mcs::Format;

use super::ampdu::Aggregation;
use super::{Bss, Edcaf, Frame};
use airtcp_proto::wifi::edca::AccessCategory;

use crate::config::{Driver, DriverQueue, Qdisc, Queueing};
pub use firmware::expected_airtime_ns;
pub(crate) use qdisc::Dropped;

/// mac80211's CoDel parameters (`ieee80211_txq_setup_flows`: ECN marking on), and those
/// towards a slow station (`sta_update_codel_params`: under `SLOW_STATION_BPS` per station,
/// ECN marking off).
const CODEL: CodelParams = CodelParams {
    target_ns: 20_000_000,
    interval_ns: 100_000_000,
    mtu_bytes: 0,
    ecn: true,
};
const SLOW_CODEL: CodelParams = CodelParams {
    target_ns: 50_000_000,
    interval_ns: 300_000_000,
    mtu_bytes: 0,
    ecn: false,
};
const SLOW_STATION_BPS: u64 = 6_000_000;

impl FqItem for Frame {
    fn len_bytes(&self) -> u32 {
        self.packet.len()
    }
    fn enqueued_at(&self) -> Instant {
        self.queued_at
    }
    fn mark_ce(&mut self) -> bool {
        self.packet.mark_ce()
    }
}

/// One EDCAF's intermediate queues (mac80211's per-AC scheduling): a tin per receiver and
/// the scheduler of receivers.
#[derive(Debug)]
pub(crate) struct EdcafTxqs {
    fq: Fq<Frame>,
    /// Per receiver, a frame taken from its tin that did not fit the transmission it was
    /// taken for: it leads the next one (ath9k keeps such a frame in the TID's queue).
    held: Vec<Option<Frame>>,
    scheduler: StationScheduler,
}

impl EdcafTxqs {
    /// Frames waiting for `to`: in its tin, and held.
    fn waiting(&self, to: u32) -> u32 {
        self.fq.tin_backlog(to) + u32::from(self.held[to as usize].is_some())
    }
}

/// The intermediate queues of every EDCAF of a BSS (of each MAC's DCF without EDCA):
/// mac80211's (`edcafs`), or a qdisc each (`qdisc`).
#[derive(Debug)]
pub(crate) struct Txqs {
    edcafs: Vec<EdcafTxqs>,
    /// Beside `queueing = "fifo"`: each EDCAF's qdisc (`qdisc`); empty with mac80211's.
    qdiscs: Vec<crate::aqm::LinkQueue<Frame>>,
    /// CoDel's parameters towards each MAC (by its data rate).
    codel: Vec<CodelParams>,
    /// The flow hash's key (Linux seeds it at random).
    hash_key: u64,
    driver: Driver,
    /// With AQL: each EDCAF's pending airtime when it last counted it, and room to count
    /// one's per receiver (`firmware`).
    ac_pending_ns: Vec<u64>,
    aql_pending: Vec<u64>,
    /// With AQL: per EDCAF and receiver (`edcaf · MACs + receiver`), the last MSDU length
    /// estimated and its estimate (a receiver's rate and an AC's aggregation are fixed for
    /// the run, so the estimate depends on the length alone).
    aql_last_estimate: Vec<(u32, u64)>,
    /// With a firmware queue: each EDCAF's frames there when it last refilled.
    fifo_frames: Vec<usize>,
}

impl Txqs {
    /// Queues for `edcafs` EDCAFs (numbered from `first` in the BSS) of `rates_bps.len()`
    /// MACs, `rates_bps[i]` the data rate to and from MAC i, above `driver`'s queue: as
    /// `queueing` says, or beside a FIFO, `qdisc`'s.
    pub(crate) fn new(
        (queueing, driver, qdisc): (Queueing, Driver, Option<&Qdisc>),
        rates_bps: &[u64],
        hash_key: u64,
        (first, edcafs): (u32, usize),
    ) -> Option<Txqs> {
        // a qdisc takes the place of mac80211's queues, so only beside a FIFO
        let qdisc = qdisc.filter(|_| queueing == Queueing::Fifo);
        let airtime_fair = match queueing {
            Queueing::Fifo if qdisc.is_none() => return None,
            Queueing::Fifo | Queueing::FqCodel => false,
            Queueing::FqCodelAirtime => true,
        };
        let macs = rates_bps.len();
        let qdiscs: Vec<_> = qdisc.map_or_else(Vec::new, |qdisc| {
            (first..first + edcafs as u32)
                .map(|queue| qdisc.build(queue))
                .collect()
        });
        let tins = if qdiscs.is_empty() { edcafs } else { 0 };
        Some(Txqs {
            qdiscs,
            edcafs: (0..tins)
                .map(|_| EdcafTxqs {
                    fq: Fq::new(FqParams::MAC80211, macs),
                    held: vec![None; macs],
                    scheduler: StationScheduler::new(macs, airtime_fair),
                })
                .collect(),
            codel: rates_bps
                .iter()
                .enumerate()
                .map(|(receiver, &rate)| {
                    // the AP counts its stations; a station, towards its AP, one
                    let stations = if receiver == 0 { 1 } else { (macs - 1) as u64 };
                    if rate < SLOW_STATION_BPS * stations {
                        SLOW_CODEL
                    } else {
                        CODEL
                    }
                })
                .collect(),
            hash_key,
            driver,
            ac_pending_ns: vec![0; edcafs],
            fifo_frames: vec![0; edcafs],
            aql_pending: vec![0; macs],
            aql_last_estimate: vec![(u32::MAX, 0); edcafs * macs],
        })
    }

    /// Whether the driver has anything to do at `edcaf`'s refill: frames to move, or AQL's
    /// pending airtime to count.
    pub(crate) fn wants_refill(&self, edcaf: u32) -> bool {
        self.driver.queue == DriverQueue::FirmwareAql || self.backlog(edcaf) > 0
    }

    /// Frames waiting in `edcaf`'s intermediate queues.
    pub(crate) fn backlog(&self, edcaf: u32) -> usize {
        if let Some(qdisc) = self.qdiscs.get(edcaf as usize) {
            return qdisc.len();
        }
        let queues = &self.edcafs[edcaf as usize];
        let held = queues.held.iter().filter(|h| h.is_some()).count();
        queues.fq.backlog() as usize + held
    }

    /// The IP bytes waiting in `edcaf`'s intermediate queues.
    pub(crate) fn backlog_bytes(&self, edcaf: u32) -> u64 {
        if let Some(qdisc) = self.qdiscs.get(edcaf as usize) {
            return qdisc.bytes();
        }
        let queues = &self.edcafs[edcaf as usize];
        let held = super::queue_meter::frames_ip_bytes(queues.held.iter().flatten());
        queues.fq.backlog_bytes() + held
    }

    /// Queues a frame of `edcaf` for its receiver; what was dropped (over the limit, or by
    /// a qdisc's AQM on arrival).
    pub(crate) fn enqueue(&mut self, edcaf: u32, frame: Frame) -> Dropped {
        if self.has_qdisc() {
            return self.enqueue_qdisc(edcaf, frame);
        }
        let hash = flow_hash(&frame.packet.repr, self.hash_key);
        let queues = &mut self.edcafs[edcaf as usize];
        let mut overlimit = 0;
        queues
            .fq
            .enqueue(frame.to, hash, frame, &mut |_, _| overlimit += 1);
        queues.scheduler.activate(frame.to);
        Dropped {
            tail: overlimit,
            ..Dropped::default()
        }
    }

    /// Charges `airtime_ns` of a PPDU from EDCAF `sender` to MAC `receiver` to the station
    /// at the other end, at each end's scheduler of the AC: the sender's charges
    /// `receiver`, the receiver's (its EDCAF `receiving`) charges the sender (`sender_mac`).
    pub(super) fn charge(
        &mut self,
        (sender, receiver): (u32, u32),
        (receiving, sender_mac): (u32, u32),
        airtime_ns: u64,
    ) {
        self.charge_station(sender, receiver, airtime_ns);
        self.charge_station(receiving, sender_mac, airtime_ns);
    }

    /// Charges `airtime_ns` to `station` at the scheduler of `edcaf` (a qdisc has none).
    pub(crate) fn charge_station(&mut self, edcaf: u32, station: u32, airtime_ns: u64) {
        if let Some(queues) = self.edcafs.get_mut(edcaf as usize) {
            queues.scheduler.charge(station, airtime_ns);
        }
    }
}

/// How much one transmission may carry: frames and bytes of MPDU subframes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    pub frames: usize,
    pub psdu_bytes: u32,
}

impl Budget {
    /// One frame a transmission, without aggregation.
    pub(crate) const SINGLE: Budget = Budget {
        frames: 1,
        psdu_bytes: u32::MAX,
    };
}

/// Transmissions the driver keeps in the MAC's FIFO: ath9k's hardware queue depth, two
/// A-MPDUs (`ATH_AGGR_MIN_QDEPTH`) or eight single frames (`ATH_NON_AGGR_MIN_QDEPTH`).
const AGGREGATE_DEPTH: usize = 2;
const SINGLE_FRAME_DEPTH: usize = 8;

/// How a MAC's driver sizes its transmissions: with A-MPDU, the format and MAC overhead of
/// its subframes, and per receiver a transmission's budget; for AQL (`firmware`), a frame's
/// expected airtime and the EDCAFs of the MAC (whose pending airtime AQL sums).
pub(crate) struct Sizing<'a> {
    pub aggregation: Option<(Format, u32)>,
    pub budget: &'a dyn Fn(u32) -> Budget,
    pub estimate: &'a dyn Fn(&Frame) -> u64,
    pub siblings: std::ops::Range<u32>,
}

impl Sizing<'_> {
    /// The transmissions ath9k keeps in its hardware queue (`AGGREGATE_DEPTH`,
    /// `SINGLE_FRAME_DEPTH`).
    fn ath9k_depth(&self) -> usize {
        if self.aggregation.is_some() {
            AGGREGATE_DEPTH
        } else {
            SINGLE_FRAME_DEPTH
        }
    }

    fn subframe_bytes(&self, frame: &Frame) -> u32 {
        self.aggregation.map_or(0, |(format, overhead)| {
            subframe_bytes(format, overhead + frame.msdu_bytes(), true)
        })
    }

    /// Transmissions' worth of frames in `fifo`, by frame count and by bytes. Each
    /// receiver's frames are transmissions of their own (an A-MPDU goes to one).
    fn transmissions_queued(&self, fifo: &VecDeque<Frame>) -> usize {
        let mut receivers: Vec<(u32, usize, u64)> = Vec::new();
        for frame in fifo {
            let bytes = u64::from(self.subframe_bytes(frame));
            match receivers.iter_mut().find(|(to, _, _)| *to == frame.to) {
                Some((_, frames, total)) => (*frames, *total) = (*frames + 1, *total + bytes),
                None => receivers.push((frame.to, 1, bytes)),
            }
        }
        receivers
            .iter()
            .map(|&(to, frames, bytes)| {
                let budget = (self.budget)(to);
                let by_bytes = bytes.div_ceil(u64::from(budget.psdu_bytes)) as usize;
                frames.div_ceil(budget.frames).max(by_bytes)
            })
            .sum()
    }
}

impl Txqs {
    /// Moves frames from `edcaf`'s intermediate queues into its `fifo` at `now`, as the
    /// driver does when a transmission completes and at a channel access (module doc): the
    /// retries at the FIFO's head topped up from their receiver's tin, then a transmission's
    /// worth from each station the scheduler picks until the FIFO holds the driver's depth
    /// (below a qdisc, `refill_qdisc`). What CoDel dropped and marked.
    pub(crate) fn refill(
        &mut self,
        now: Instant,
        edcaf: u32,
        fifo: &mut VecDeque<Frame>,
        sizing: &Sizing,
    ) -> Dropped {
        if self.has_qdisc() {
            return self.refill_qdisc(now, edcaf, fifo, sizing);
        }
        let codel = if self.driver.queue != DriverQueue::Ath9k {
            self.refill_firmware(now, edcaf, fifo, sizing)
        } else {
            self.refill_ath9k(now, edcaf, fifo, sizing)
        };
        let marks = &mut self.edcafs[edcaf as usize].fq.counters.ecn_marks;
        Dropped {
            codel,
            marks: std::mem::take(marks),
            ..Dropped::default()
        }
    }

    /// `refill` below mac80211's queues into ath9k's hardware queue; the frames CoDel dropped.
    fn refill_ath9k(
        &mut self,
        now: Instant,
        edcaf: u32,
        fifo: &mut VecDeque<Frame>,
        sizing: &Sizing,
    ) -> u64 {
        if self.backlog(edcaf) == 0 {
            return 0;
        }
        let mut dropped = 0;
        if let Some(head) = fifo.front() {
            let to = head.to;
            let budget = (sizing.budget)(to);
            if sizing.aggregation.is_some() && head.transmitted {
                let queued = fifo.iter().filter(|f| f.to == to);
                let (frames, bytes) =
                    queued.fold((0, 0), |(n, b), f| (n + 1, b + sizing.subframe_bytes(f)));
                if frames < budget.frames && bytes < budget.psdu_bytes {
                    dropped += self.pull(now, (edcaf, to), fifo, sizing, (budget, frames, bytes));
                }
            }
        }
        let depth = sizing.ath9k_depth();
        while sizing.transmissions_queued(fifo) < depth {
            let Some(to) = self.edcafs[edcaf as usize].scheduler.next_station() else {
                break;
            };
            let budget = (sizing.budget)(to);
            dropped += self.pull(now, (edcaf, to), fifo, sizing, (budget, 0, 0));
        }
        dropped
    }

    /// Moves frames of `edcaf` for `to` from their tin into `fifo` until a transmission's
    /// worth (`budget`), (frames, bytes) being there already; a frame that would not fit is
    /// held for the next (`EdcafTxqs::held`). Tells the scheduler; the frames CoDel dropped.
    fn pull(
        &mut self,
        now: Instant,
        (edcaf, to): (u32, u32),
        fifo: &mut VecDeque<Frame>,
        sizing: &Sizing,
        (budget, mut frames, mut bytes): (Budget, usize, u32),
    ) -> u64 {
        let mut dropped = 0u64;
        let queues = &mut self.edcafs[edcaf as usize];
        let codel = &self.codel[to as usize];
        while frames < budget.frames {
            let frame = match queues.held[to as usize].take() {
                Some(frame) => frame,
                None => match queues.fq.dequeue(to, now, codel, &mut |_| dropped += 1) {
                    Some(frame) => frame,
                    None => break,
                },
            };
            let length = sizing.subframe_bytes(&frame);
            if frames > 0 && bytes.saturating_add(length) > budget.psdu_bytes {
                queues.held[to as usize] = Some(frame);
                break;
            }
            frames += 1;
            bytes = bytes.saturating_add(length);
            fifo.push_back(frame);
        }
        let backlogged = queues.waiting(to) > 0;
        queues.scheduler.served(to, backlogged);
        dropped
    }
}

/// One transmission's limits from the MAC `mac` to `to`, for an EDCAF of TXOP limit `txop_ns`.
fn budget_of(ampdu: Option<&Aggregation>, mac: u32, to: u32, txop_ns: Option<u64>) -> Budget {
    match ampdu {
        Some(ampdu) => Budget {
            frames: ampdu.limits.frames_per_ampdu(),
            psdu_bytes: ampdu.max_psdu_for(super::link_of(mac, to), txop_ns),
        },
        None => Budget::SINGLE,
    }
}

impl Bss {
    /// `Txqs::refill` of `edcaf`'s FIFO.
    pub(super) fn refill(&mut self, now: Instant, edcaf: u32) {
        if self
            .txqs
            .as_ref()
            .is_none_or(|txqs| !txqs.wants_refill(edcaf))
        {
            return;
        }
        let Edcaf { mac, ac, .. } = self.edcafs[edcaf as usize];
        let txop_ns = self.txop_ns(edcaf);
        let overhead = self.phy.mac_overhead_bytes;
        let ampdu = self.ampdu.as_ref();
        let budget = |to: u32| budget_of(ampdu, mac, to, txop_ns);
        let (phy, link_phys) = (&self.phy, &self.link_phys);
        let aggregated = ac != AccessCategory::Vo;
        let estimate = |frame: &Frame| {
            let link = super::link_phy(phy, link_phys, mac, frame.to);
            expected_airtime_ns(link, link.data_rate_bps, aggregated, frame)
        };
        let sizing = Sizing {
            aggregation: ampdu.map(|ampdu| (ampdu.format, overhead)),
            budget: &budget,
            estimate: &estimate,
            siblings: self.edcafs_of(mac),
        };
        let was_holding = !self.holds_nothing(edcaf);
        let txqs = self.txqs.as_mut().expect("intermediate queues");
        let fifo = &mut self.edcafs[edcaf as usize].queues[0];
        let meter = super::meter_of(&mut self.meters, edcaf);
        txqs.refill(now, edcaf, fifo, &sizing)
            .count(&mut self.counters, meter);
        if was_holding && self.holds_nothing(edcaf) {
            // CoDel dropped everything that was left
            self.holding -= 1;
        }
    }

    /// Whether `edcaf` holds no frame, in its FIFO or its intermediate queues, and owes no
    /// BlockAckReq.
    pub(super) fn holds_nothing(&self, edcaf: u32) -> bool {
        self.edcafs[edcaf as usize]
            .queues
            .iter()
            .all(|q| q.is_empty())
            && self
                .txqs
                .as_ref()
                .is_none_or(|txqs| txqs.backlog(edcaf) == 0)
            && !self.owes_block_ack_req(edcaf)
    }
}

mod firmware;
mod qdisc;
#[cfg(test)]
mod tests;
