//! The end of a busy period (IEEE 802.11-2020 §10.3.4.3, §10.3.4.4): its `Outcome` is
//! settled (frames delivered leave their queues; a failed frame counts against its retry
//! limit and doubles CW, or is dropped at the limit), then idle slots count again from the
//! earliest resumption, the senders of a failure and the bystanders each joining the count
//! at their own IFS (`slots_between`), and every sender draws a new backoff.

use std::time::Duration;

use airtcp_proto::wifi::slots_between;
use airtcp_proto::Instant;

use super::{Actions, Bss, Medium, RetryCounter, SlotCount};

#[derive(Debug)]
pub(super) enum Outcome {
    /// `delivered` frames of `queue` went through (more than one in a TXOP or aggregate);
    /// `failed_after`: the next frame of a TXOP burst, which failed and stays queued.
    Success {
        edcaf: u32,
        queue: usize,
        delivered: usize,
        failed_after: Option<FailedFrame>,
    },
    /// `mac`'s A-MPDU (`ampdu`) got its BlockAck or ACK; its MPDUs that were not
    /// acknowledged count a failure against `counter`.
    Ampdu {
        edcaf: u32,
        queue: usize,
        counter: RetryCounter,
    },
    /// `edcaf`'s BlockAckReq got its BlockAck (`block_ack_req`).
    BlockAckReq { edcaf: u32 },
    /// Each failed MAC frame.
    Failure(Vec<FailedFrame>),
}

/// A MAC frame that failed: its sender, the queue and frame count it carried, the retry
/// counter the failure counts against, and when its sender resumes counting (ns after the
/// busy period: DIFS after its AckTimeout or CTSTimeout, `Phy::sender_resume_ns`).
#[derive(Clone, Copy, Debug)]
pub(super) struct FailedFrame {
    pub(super) edcaf: u32,
    pub(super) queue: usize,
    pub(super) count: usize,
    pub(super) counter: RetryCounter,
    pub(super) resume_ns: u64,
}

impl Bss {
    /// The busy period ended: settle the outcome, then resume counting. Counting resumes at
    /// the earliest resumption; the stations that did not send, and each sender, join the
    /// count as many slots later as they resume later (rounded to the nearest slot, so that
    /// one count serves them all: `slots_between`). With EDCA the count is that of the least
    /// AIFSN, and each class joins it later by its own (`edca`).
    pub fn on_busy_end(&mut self, now: Instant, actions: &mut Actions) {
        let Medium::Busy {
            others_ifs_ns,
            next_base,
            outcome,
            internal_losers,
        } = std::mem::replace(
            &mut self.medium,
            Medium::Idle {
                origin: now,
                base: 0,
                others_from: 0,
            },
        )
        else {
            return;
        };
        let failed: &[FailedFrame] = match &outcome {
            Outcome::Success { failed_after, .. } => failed_after.as_slice(),
            Outcome::Ampdu { .. } | Outcome::BlockAckReq { .. } => &[],
            Outcome::Failure(failed) => failed,
        };
        let earliest = failed
            .iter()
            .map(|f| f.resume_ns)
            .fold(others_ifs_ns, u64::min);
        let slot_ns = self.phy.slot_ns;
        // The common case, a success after which everyone resumes together, divides nothing.
        let later = |ifs_ns: u64| {
            if ifs_ns == earliest {
                0
            } else {
                slots_between(ifs_ns, earliest, slot_ns) as SlotCount
            }
        };
        let base = next_base - later(others_ifs_ns);
        let sender_base = |f: &FailedFrame| base + later(f.resume_ns);
        // the IFSs above end with DIFS: the count of the least AIFSN resumes that much apart
        let resume_ns = earliest as i64 + self.classes.reference_offset_slots() * slot_ns as i64;
        self.medium = Medium::Idle {
            origin: now + Duration::from_nanos(resume_ns as u64),
            base,
            others_from: next_base,
        };
        for loser in internal_losers {
            // it resumes with its MAC's winner
            let mac = self.edcafs[loser as usize].mac;
            let from = failed
                .iter()
                .find(|f| self.edcafs[f.edcaf as usize].mac == mac)
                .map_or(next_base, sender_base);
            self.settle_internal_collision(now, loser, actions);
            self.draw_backoff(now, loser, from, next_base);
        }
        match outcome {
            Outcome::Success {
                edcaf,
                queue,
                delivered,
                failed_after,
            } => {
                self.counters.successes += 1;
                for _ in 0..delivered {
                    let frame = self.pop_head(edcaf, queue);
                    self.counters.delivered_msdus += 1;
                    self.counters.delivered_msdu_bytes += u64::from(frame.msdu_bytes());
                }
                let from = failed_after.as_ref().map_or(next_base, sender_base);
                if let Some(frame) = failed_after {
                    self.settle_failure(frame);
                }
                if !self.is_absent(self.edcafs[edcaf as usize].mac) {
                    self.draw_backoff(now, edcaf, from, next_base);
                }
                self.completed(now, edcaf);
            }
            Outcome::Ampdu {
                edcaf,
                queue,
                counter,
            } => {
                self.counters.successes += 1;
                // a BlockAck is a success, whatever it acknowledged
                self.settle_ampdu(edcaf, queue, counter);
                let station = &mut self.edcafs[edcaf as usize];
                station.cw = station.cw_min;
                self.draw_backoff(now, edcaf, next_base, next_base);
                self.completed(now, edcaf);
            }
            Outcome::BlockAckReq { edcaf } => {
                self.counters.successes += 1;
                self.settle_block_ack_req(now, edcaf, actions);
                self.draw_backoff(now, edcaf, next_base, next_base);
                self.completed(now, edcaf);
            }
            Outcome::Failure(failed) => {
                for frame in failed {
                    let from = sender_base(&frame);
                    if self.sent_block_ack_req(frame.edcaf) {
                        self.settle_unanswered_block_ack_req(now, frame, actions);
                    } else if self.ampdu.is_some() {
                        self.settle_unanswered_ampdu(frame);
                    } else {
                        self.settle_failure(frame);
                    }
                    if !self.is_absent(self.edcafs[frame.edcaf as usize].mac) {
                        self.draw_backoff(now, frame.edcaf, from, next_base);
                    }
                    self.completed(now, frame.edcaf);
                }
            }
        }
        if !self.evict_at_busy_end.is_empty() {
            self.evict_postponed(now, actions);
        }
        self.schedule_access(actions);
    }

    /// `edcaf`'s transmission completed: its driver refills its FIFO from the intermediate
    /// queues (`txq`).
    pub(super) fn completed(&mut self, now: Instant, edcaf: u32) {
        if self.txqs.is_some() {
            self.refill(now, edcaf);
        }
    }

    /// Counts a failed transmission: the frame is dropped at its retry limit (an aggregate
    /// whole), otherwise it will be retried with a doubled contention window.
    pub(super) fn settle_failure(&mut self, failed: FailedFrame) {
        self.counters.failed_attempts += 1;
        let station = &mut self.edcafs[failed.edcaf as usize];
        let at_limit = match failed.counter {
            RetryCounter::Short => {
                station.short_retries += 1;
                station.short_retries >= self.params.short_retry_limit
            }
            RetryCounter::Long => {
                station.short_retries = 0;
                station.long_retries += 1;
                station.long_retries >= self.params.long_retry_limit
            }
        };
        if at_limit {
            for _ in 0..failed.count {
                self.counters.retry_drops += 1;
                self.pop_head(failed.edcaf, failed.queue);
            }
        } else {
            self.counters.retries += 1;
            station.cw = (2 * station.cw + 1).min(station.cw_max);
        }
    }
}
