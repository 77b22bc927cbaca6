//! A qdisc on each MAC's interface above the driver's queue (`aqm` in `[wlan]`, beside
//! `queueing = "fifo"`): the arrangement of a Linux driver without mac80211's intermediate
//! queues (no `wake_tx_queue`), where the interface's qdisc (mq: one child per hardware
//! queue, that is per AC) feeds the driver and the driver stops it while its own queue is
//! full (`netif_tx_stop_queue`). ns-3's traffic control above a `WifiNetDevice` has the same
//! shape (the MAC queue's flow control stops the netdevice queue).
//!
//! - **Qdisc**: one an EDCAF (per AC with EDCA, per MAC without), any of the wired links'
//!   queue managers (`crate::aqm::LinkQueue`: CoDel, FQ-CoDel, PIE, RED with their Linux
//!   defaults and settings), its limit the WLAN's `queue` in packets; RED's idle decay takes
//!   the BSS's data rate. Its drops and CE marks are counted (`aqm_drops`, `ecn_marks`; tail
//!   drops in `queue_drops`).
//! - **Driver**: the MAC's FIFO plays the driver's queue, as below mac80211's queues: ath9k's
//!   depth (two A-MPDUs' or eight frames' worth, the default) or a firmware queue of
//!   `firmware_queue` frames (`driver_queue = "firmware"`). When a transmission completes and
//!   at each channel access the driver takes frames from the qdisc, in the qdisc's order,
//!   until its queue is that deep; CoDel's sojourn ends there, as in Linux. Under a deep
//!   firmware queue the qdisc sees short queues while the firmware's grows, which is why a
//!   qdisc above such a driver does little.
//! - **Where this departs from Linux**: no per-station scheduling below the qdisc: at an AP
//!   serving several stations each receiver's frames in a shallow driver queue count as a
//!   transmission of their own, so an A-MPDU carries what the qdisc's order brought (ath9k
//!   before mac80211's queues kept per-TID software queues below the qdisc, up to
//!   `ATH_MAX_QDEPTH` = 123 frames an AC: not modelled). AQL, being mac80211's, does not
//!   apply (refused).

use std::collections::VecDeque;

use airtcp_proto::Instant;

use super::{Frame, Sizing, Txqs};
use crate::aqm::LinkQueue;
use crate::config::{DriverQueue, Qdisc};
use crate::packet::{Carries, Packet};
use crate::rng::{stream, StreamId};

impl Carries for Frame {
    fn packet(&self) -> &Packet {
        &self.packet
    }
    fn packet_mut(&mut self) -> &mut Packet {
        &mut self.packet
    }
}

impl Qdisc {
    /// The qdisc of queue `queue` of the BSS (an EDCAF's index, or on a channel with geometry
    /// a MAC's times four plus its AC's), empty.
    pub(super) fn build(&self, queue: u32) -> LinkQueue<Frame> {
        let rng = stream(
            self.seed,
            StreamId::WlanAqm {
                bss: self.bss,
                queue,
            },
        );
        LinkQueue::new(self.limit(), self.aqm, Some(self.rate_bps), rng)
    }
}

/// What an AQM did while frames went in or out of the queues above the driver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use]
pub(crate) struct Dropped {
    /// Over the limit (`queue_drops`).
    pub tail: u64,
    /// CoDel's in mac80211's queues (`codel_drops`).
    pub codel: u64,
    /// A qdisc's AQM's (`aqm_drops`).
    pub aqm: u64,
    /// CE marks instead of drops (`ecn_marks`).
    pub marks: u64,
}

impl Dropped {
    /// Adds them to a BSS's (or a shared channel's) counters and to the queue's meter, if
    /// it has one.
    pub(crate) fn count(
        self,
        counters: &mut super::super::MacCounters,
        meter: Option<&mut super::super::QueueMeter>,
    ) {
        counters.queue_drops += self.tail;
        counters.codel_drops += self.codel;
        counters.aqm_drops += self.aqm;
        counters.ecn_marks += self.marks;
        if let Some(meter) = meter {
            meter.count(self);
        }
    }
}

/// The qdisc's counters, to tell what one call added.
fn totals(qdisc: &LinkQueue<Frame>) -> (u64, u64, u64) {
    (qdisc.drops, qdisc.aqm_drops, qdisc.ecn_marks)
}

fn added(before: (u64, u64, u64), after: (u64, u64, u64)) -> Dropped {
    Dropped {
        tail: after.0 - before.0,
        codel: 0,
        aqm: after.1 - before.1,
        marks: after.2 - before.2,
    }
}

impl Txqs {
    /// Whether a qdisc (not mac80211's queues) sits above the drivers.
    pub(super) fn has_qdisc(&self) -> bool {
        !self.qdiscs.is_empty()
    }

    /// Queues `frame` of `edcaf` in its qdisc at its arrival.
    pub(super) fn enqueue_qdisc(&mut self, edcaf: u32, frame: Frame) -> Dropped {
        let qdisc = &mut self.qdiscs[edcaf as usize];
        let before = totals(qdisc);
        qdisc.push(frame.queued_at, frame);
        added(before, totals(qdisc))
    }

    /// `refill` below a qdisc (module doc): frames in the qdisc's order until the driver's
    /// queue is as deep as it keeps it.
    pub(super) fn refill_qdisc(
        &mut self,
        now: Instant,
        edcaf: u32,
        fifo: &mut VecDeque<Frame>,
        sizing: &Sizing,
    ) -> Dropped {
        let e = edcaf as usize;
        let firmware_depth = match self.driver.queue {
            DriverQueue::Ath9k => None,
            DriverQueue::Firmware => Some(self.firmware_depth(edcaf, sizing)),
            DriverQueue::FirmwareAql => unreachable!("AQL is refused beside a qdisc"),
        };
        let ath9k_depth = sizing.ath9k_depth();
        let qdisc = &mut self.qdiscs[e];
        let before = totals(qdisc);
        while !qdisc.is_empty() {
            let room = match firmware_depth {
                Some(depth) => fifo.len() < depth,
                None => sizing.transmissions_queued(fifo) < ath9k_depth,
            };
            if !room {
                break;
            }
            match qdisc.pop(now) {
                Some(frame) => fifo.push_back(frame),
                None => break,
            }
        }
        self.fifo_frames[e] = fifo.len();
        added(before, totals(qdisc))
    }
}
