//! The driver's queue below mac80211's (`driver_queue`): ath9k's shallow hardware queue
//! (the default, `Txqs::refill`'s module doc), or a driver that hands frames to firmware
//! with deep queues of its own, as ath10k and mt76 do, with or without airtime queue limits
//! (`airtcp_proto::aqm::aql`, whose module doc cites Linux).
//!
//! - **Firmware queue**: the MAC's FIFO plays the firmware's queue. At each channel access
//!   and each completed transmission (and, on a channel with geometry, when a frame comes
//!   to an empty queue) the driver asks mac80211's scheduler for a station and takes a
//!   burst of its frames, 16 with A-MPDU and 3 without (mt76's `mt76_txq_send_burst`),
//!   until the firmware holds `firmware_queue_frames` (1424 by default: ath10k 10.x's MSDU
//!   descriptors, `TARGET_10X_NUM_MSDU_DESC`) over all the MAC's ACs (each AC's as it last
//!   refilled). mt76's own cap of four bursts in its hardware queue is not modelled (this is
//!   a deep firmware queue, as ath10k's). The firmware forms each A-MPDU from all the
//!   frames it holds for the receiver (`block_ack::select_mpdus`).
//! - **AQL** (`firmware_aql`): the scheduler passes over a station whose pending airtime is
//!   over AQL's limit (`StationScheduler::next_station_where`). A station's pending airtime
//!   is AQL's estimate summed over its frames in the firmware's queue of the AC, counted
//!   afresh at each refill, which is when Linux would have subtracted the frames reported
//!   done since; the interface's adds the MAC's other ACs as each last counted them. The
//!   estimate takes the rate of the station at the time of counting.
//!
//! Without AQL the firmware takes nearly everything and CoDel, which measures the sojourn
//! up to the driver, sees short queues while the firmware's grows: the bufferbloat AQL
//! was written to remove.

use std::collections::VecDeque;

use airtcp_proto::aqm::aql::{expected_tx_airtime_ns, AirtimeClass, AqlLimits};
use airtcp_proto::wifi::mcs::Format;
use airtcp_proto::wifi::{Modulation, Phy, Preamble};
use airtcp_proto::Instant;

use super::{Budget, Frame, Sizing, Txqs};
use crate::config::{Driver, DriverQueue};

impl Driver {
    fn aql(&self) -> Option<AqlLimits> {
        (self.queue == DriverQueue::FirmwareAql).then_some(self.aql)
    }
}

/// AQL's estimate of `frame`'s airtime on `phy` at `rate_bps`, `aggregated` if Linux
/// assumes it goes in an A-MPDU (any AC but AC_VO): its MPDU's length without the FCS
/// counts (`skb->len`), an MSDU of an A-MSDU as if alone (Linux estimates the A-MSDU's skb).
pub fn expected_airtime_ns(phy: &Phy, rate_bps: u64, aggregated: bool, frame: &Frame) -> u64 {
    let class = match phy.modulation {
        Modulation::Dsss(preamble) => AirtimeClass::Dsss {
            short_preamble: preamble == Preamble::Short,
        },
        Modulation::Mcs(setting) => AirtimeClass::Mcs {
            streams: setting.streams,
            he: setting.format == Format::He,
            aggregated,
        },
        Modulation::ErpOfdm | Modulation::Ofdm | Modulation::Fhss { .. } => AirtimeClass::Ofdm,
    };
    let mpdu_bytes = phy.mac_overhead_bytes - FCS_BYTES + frame.msdu_bytes();
    expected_tx_airtime_ns(class, rate_bps, mpdu_bytes)
}

/// The FCS, which Linux's `skb->len` leaves out.
const FCS_BYTES: u32 = 4;

/// Frames a station's turn gives the firmware: mt76's burst, 16 with A-MPDU, 3 without.
const AGGREGATE_BURST: usize = 16;
const SINGLE_FRAME_BURST: usize = 3;

impl Txqs {
    /// The room the firmware gives `edcaf`: its depth is the device's, and the MAC's other
    /// ACs hold their part (as each last refilled).
    pub(super) fn firmware_depth(&self, edcaf: u32, sizing: &Sizing) -> usize {
        let elsewhere: usize = (sizing.siblings.clone())
            .filter(|&e| e != edcaf)
            .map(|e| self.fifo_frames[e as usize])
            .sum();
        (self.driver.firmware_frames as usize).saturating_sub(elsewhere)
    }

    /// `refill` for a firmware queue (module doc): bursts from the stations the scheduler
    /// picks, AQL's passing over those whose pending airtime is over its limits, until the
    /// firmware is full or no station may send. The frames CoDel dropped.
    pub(super) fn refill_firmware(
        &mut self,
        now: Instant,
        edcaf: u32,
        fifo: &mut VecDeque<Frame>,
        sizing: &Sizing,
    ) -> u64 {
        let depth = self.firmware_depth(edcaf, sizing);
        // AQL's interface airtime is the device's too: the MAC's other ACs hold their part
        // (as each last counted it)
        let mut interface_ns: u64 = (sizing.siblings.clone())
            .filter(|&e| e != edcaf)
            .map(|e| self.ac_pending_ns[e as usize])
            .sum();
        let aql = self.driver.aql();
        let mut pending = std::mem::take(&mut self.aql_pending);
        // most frames of a receiver are of one or two lengths (TCP segments, ACKs): its last
        // estimate spares the airtime arithmetic
        let mut last = std::mem::take(&mut self.aql_last_estimate);
        let first = edcaf as usize * pending.len();
        let mut estimate = |frame: &Frame| {
            let (bytes, ns) = &mut last[first + frame.to as usize];
            if *bytes != frame.msdu_bytes() {
                (*bytes, *ns) = (frame.msdu_bytes(), (sizing.estimate)(frame));
            }
            *ns
        };
        if aql.is_some() {
            pending.fill(0);
            for frame in fifo.iter() {
                pending[frame.to as usize] += estimate(frame);
            }
            interface_ns += pending.iter().sum::<u64>();
        }
        let burst = if sizing.aggregation.is_some() {
            AGGREGATE_BURST
        } else {
            SINGLE_FRAME_BURST
        };
        let mut dropped = 0;
        while fifo.len() < depth && self.backlog(edcaf) > 0 {
            let scheduler = &mut self.edcafs[edcaf as usize].scheduler;
            let allowed = |to: u32| {
                aql.is_none_or(|limits| limits.allows(pending[to as usize], interface_ns))
            };
            let Some(to) = scheduler.next_station_where(allowed) else {
                break;
            };
            let before = fifo.len();
            let budget = Budget {
                frames: burst.min(depth - before),
                psdu_bytes: u32::MAX,
            };
            dropped += self.pull(now, (edcaf, to), fifo, sizing, (budget, 0, 0));
            if aql.is_some() {
                let added: u64 = fifo.range(before..).map(&mut estimate).sum();
                pending[to as usize] += added;
                interface_ns += added;
            }
        }
        if aql.is_some() {
            self.ac_pending_ns[edcaf as usize] = pending.iter().sum();
        }
        self.fifo_frames[edcaf as usize] = fifo.len();
        self.aql_pending = pending;
        self.aql_last_estimate = last;
        dropped
    }
}

#[cfg(test)]
mod tests;
