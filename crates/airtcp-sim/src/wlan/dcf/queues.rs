//! The MAC queues of the channel access functions: a frame enters at `enqueue` (to the
//! AP's ACK queue when its agent plans access, to mac80211's queues with `txq`, dropped
//! when full) and leaves at its queue's head, on success or at the retry limit
//! (`pop_head`, which resets the retry counts and CW, §10.3.4.4), or discarded past its
//! MSDU lifetime (dot11MaxTransmitMSDULifetime, from its first attempt) or its queue's
//! sojourn limit (ns-3's MaxDelay) as it would be dequeued (`discard_expired`).

use std::ops::Range;

use airtcp_proto::agent::ApQueue;
use airtcp_proto::Instant;

use super::{meter_of, queue_meter, Actions, Bss, Frame};
use crate::packet::Packet;
use crate::wlan::ap_plan::queue_full;

impl Bss {
    /// Queues a frame at `mac` (with EDCA, in its AC's EDCAF); starts that EDCAF's channel
    /// access if it was idle.
    pub fn enqueue(
        &mut self,
        now: Instant,
        mac: u32,
        packet: Packet,
        to: u32,
        actions: &mut Actions,
    ) {
        if let Some(hold) = self.diverted(mac, to) {
            let frame = Frame::new(packet, to, now, 0); // numbered when queued again
            self.divert(mac, frame, hold);
            return;
        }
        let mut edcaf = self.edcaf_for(mac, &packet);
        // The AP's planning agent takes the ACKs it classifies into its EDCAF's ACK queue,
        // whatever their DSCP (with EDCA, into the AC it names); other frames go by DSCP.
        // Beside mac80211's queues (`txq`) the ACK queue sits below them, in the driver.
        let queue = match self.planner() {
            Some(planner) if mac == 0 => planner.classify(&packet.repr) as usize,
            _ => ApQueue::Data as usize,
        };
        if queue == ApQueue::Ack as usize {
            edcaf = self.planning;
        }
        let planning = self.plans(edcaf);
        let queues = &self.edcafs[edcaf as usize].queues;
        let to_txqs = self.txqs.is_some() && queue == ApQueue::Data as usize;
        if !to_txqs && queue_full(queues, &self.params, queue) {
            self.counters.queue_drops += 1;
            if let Some(meter) = meter_of(&mut self.meters, edcaf) {
                meter.drops += 1;
            }
            return;
        }
        // (a BlockAckReq owed keeps an EDCAF holding and contending)
        let was_empty = self.holds_nothing(edcaf);
        let head_changed =
            was_empty || (queue == ApQueue::Ack as usize && queues[queue].is_empty());
        let station = &mut self.macs[mac as usize];
        let frame = Frame::new(packet, to, now, station.next_sequence);
        station.next_sequence = station.next_sequence.wrapping_add(1);
        if to_txqs {
            // numbered as it enters mac80211's queues
            let txqs = self.txqs.as_mut().expect("intermediate queues");
            let meter = meter_of(&mut self.meters, edcaf);
            txqs.enqueue(edcaf, frame).count(&mut self.counters, meter);
        } else {
            self.edcafs[edcaf as usize].queues[queue].push_back(frame);
        }
        if was_empty {
            self.holding += 1;
        }
        if planning {
            // The head of the AP changed: plan again (unless the AP is sending now: the end of
            // its busy period plans); a zero backoff can only shorten a backoff already running.
            if head_changed && !self.transmitting(edcaf) {
                let plan = self.replan(now);
                let pending = self.edcafs[edcaf as usize].expiry;
                if plan.zero_backoff {
                    let at = self.immediate_slot(now, edcaf);
                    if pending.is_none_or(|e| at <= e) {
                        self.set_expiry(edcaf, at, true);
                    }
                } else if pending.is_none() {
                    let expiry = self.fresh_expiry(now, edcaf);
                    self.set_expiry(edcaf, expiry, false);
                }
                self.schedule_access(actions);
            }
            return;
        }
        if was_empty {
            self.contend(now, edcaf, actions);
        }
    }

    /// Discards the MSDUs at the heads of `edcaf`'s queues whose MSDU lifetime has passed
    /// since their first attempt, or that have waited longer than the queue's sojourn limit
    /// (queues are FIFO, so both are a prefix); whether any was.
    pub(super) fn discard_expired(&mut self, now: Instant, edcaf: u32) -> bool {
        let (lifetime, max_delay) = (self.params.msdu_lifetime_ns, self.params.queue_max_delay_ns);
        if lifetime.is_none() && max_delay.is_none() {
            return false;
        }
        let mac = self.edcafs[edcaf as usize].mac;
        let mut discarded = false;
        for queue in 0..2 {
            while let Some(frame) = self.edcafs[edcaf as usize].queues[queue].front() {
                if !(self.counters).count_expired(frame, now, (lifetime, max_delay), mac) {
                    break;
                }
                let frame = self.pop_head(edcaf, queue);
                discarded = true;
                if self.ampdu.is_some() && frame.mpdu.numbered() {
                    // its recipient is told to stop waiting for it
                    self.request_block_ack_req(edcaf, frame.to);
                }
            }
        }
        discarded
    }

    /// A transmission attempt of the frames `carried` of a queue (an RTS, or the data frame)
    /// began at `at`: their MSDU lifetime runs from their first (dot11MaxTransmitMSDULifetime,
    /// IEEE 802.11-2020 Annex C: "the elapsed time in TU, after the initial transmission of
    /// an MSDU, after which further attempts to transmit the MSDU are terminated").
    /// The first attempt also ends a frame's sojourn (`queue_meter`). Nothing to mark
    /// without a lifetime or `queue_sojourn` (the default): this is off the fast path.
    pub(super) fn mark_attempted(
        &mut self,
        at: Instant,
        edcaf: u32,
        queue: usize,
        carried: Range<usize>,
    ) {
        if !self.notes_attempts() {
            return;
        }
        let mut meter = meter_of(&mut self.meters, edcaf);
        for frame in self.edcafs[edcaf as usize].queues[queue].range_mut(carried) {
            queue_meter::note_attempt(meter.as_deref_mut(), at, frame);
        }
    }

    /// Whether frames' first attempts are noted: for the MSDU lifetime, or for the sojourns.
    pub(super) fn notes_attempts(&self) -> bool {
        self.params.msdu_lifetime_ns.is_some() || self.meters.is_some()
    }

    /// Removes the head frame of a queue after success or drop; the contention window resets.
    pub(super) fn pop_head(&mut self, edcaf: u32, queue: usize) -> Frame {
        let frame = self.edcafs[edcaf as usize].queues[queue]
            .pop_front()
            .expect("head frame exists");
        if self.holds_nothing(edcaf) {
            self.holding -= 1;
        }
        self.reset_retries(edcaf);
        frame
    }

    /// A new head frame: no retries yet, the contention window back at its minimum.
    pub(super) fn reset_retries(&mut self, edcaf: u32) {
        let station = &mut self.edcafs[edcaf as usize];
        station.short_retries = 0;
        station.long_retries = 0;
        station.cw = station.cw_min;
    }
}
