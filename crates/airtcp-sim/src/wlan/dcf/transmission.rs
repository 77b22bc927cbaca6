//! The start of a transmission: what the EDCAFs whose backoff expired put on the air and
//! what comes of it, decided when the busy period begins. A lone transmitter sends its
//! frame (after RTS/CTS above the threshold), or an A-MPDU (`ampdu`) or a
//! BlockAckReq (`block_ack_req`), and within a TXOP limit further frames SIFS apart
//! (§10.23.2.9); it fails on a channel error or an absent receiver. Two or more collide.
//! The busy period's length, the IFS the others wait after it (DIFS, EIFS §10.3.2.3.7, or
//! a NAV) and its `Outcome` go into `Medium::Busy` (`go_busy`), settled at its end
//! (`outcome`). Airtime is charged to the links here.

use std::time::Duration;

use airtcp_proto::agent::ApQueue;
use airtcp_proto::Instant;

use super::{link_phy, Actions, Bss, Edcaf, FailedFrame, Medium, Outcome, RetryCounter, SlotCount};
use crate::wlan::ap_plan::{frames_per_access, payload_bytes, txop_frame_ns};

impl Bss {
    /// The queue an EDCAF transmits from, and how many of its frames form the first MAC
    /// frame (the AP's agent plans those of the EDCAF it plans).
    pub(super) fn selection(&self, edcaf: u32) -> (usize, usize) {
        if !self.plans(edcaf) {
            return (ApQueue::Data as usize, 1);
        }
        let queue = self.ap_plan.queue as usize;
        let queued = self.edcafs[edcaf as usize].queues[queue].len();
        (queue, frames_per_access(&self.ap_plan, queued))
    }

    /// What a MAC frame carrying `count` frames of `edcaf`'s queue from `from` adds to a data
    /// frame's header and FCS (`ap_plan::payload_bytes`).
    pub(super) fn payload_bytes(&self, edcaf: u32, queue: usize, from: usize, count: usize) -> u32 {
        payload_bytes(
            self.edcafs[edcaf as usize].queues[queue]
                .iter()
                .skip(from)
                .take(count),
        )
    }

    pub(super) fn uses_rts(&self, payload_bytes: u32) -> bool {
        self.params
            .rts_threshold
            .is_some_and(|threshold| self.phy.mac_overhead_bytes + payload_bytes > threshold)
    }

    /// The EDCAFs in `transmitters` (`internal_losers` lost an internal collision to one of
    /// them) transmit at `slot`.
    pub(super) fn start_transmission(
        &mut self,
        now: Instant,
        slot: SlotCount,
        transmitters: Vec<u32>,
        internal_losers: Vec<u32>,
        actions: &mut Actions,
    ) {
        self.counters.contenders[self.holding] += 1;
        self.counters.attempts += transmitters.len() as u64;
        if let Some(&ap) = transmitters
            .iter()
            .find(|&&f| self.edcafs[f as usize].mac == 0)
        {
            self.count_ap_access(ap);
        }
        if self.notes_attempts() {
            for &edcaf in &transmitters {
                if self.owes_block_ack_req(edcaf) {
                    continue; // its BlockAckReq goes first
                }
                let (queue, count) = self.selection(edcaf);
                self.mark_attempted(now, edcaf, queue, 0..count);
            }
        }
        self.counters.internal_collisions += internal_losers.len() as u64;
        let delta = self.phy.propagation_ns;
        let sifs = Duration::from_nanos(self.phy.sifs_ns);
        let (busy_ns, others_ifs_ns, outcome) = if let [edcaf] = transmitters[..] {
            let (queue, count) = self.selection(edcaf);
            if self.owes_block_ack_req(edcaf) {
                let sent = self.send_block_ack_req(now, edcaf, actions);
                self.go_busy(now, slot, sent, internal_losers, actions);
                return;
            }
            if self.ampdu.is_some() {
                let sent = self.send_ampdu(now, edcaf, queue, actions);
                self.go_busy(now, slot, sent, internal_losers, actions);
                return;
            }
            let mac = self.edcafs[edcaf as usize].mac;
            let payload = self.payload_bytes(edcaf, queue, 0, count);
            let rts = self.uses_rts(payload);
            let receiver = self.edcafs[edcaf as usize].queues[queue][0].to;
            let phy = link_phy(&self.phy, &self.link_phys, mac, receiver);
            let handshake = |rts: bool| {
                if rts {
                    phy.rts_airtime_ns()
                        + delta
                        + phy.sifs_ns
                        + phy.cts_airtime_ns()
                        + delta
                        + phy.sifs_ns
                } else {
                    0
                }
            };
            let exchange_tail = delta + phy.sifs_ns + phy.ack_airtime_ns() + delta;
            if self.is_absent(receiver) {
                // Nobody answers: no CTS to the RTS, or no ACK to the frame. The others
                // decoded it and wait out the NAV it set.
                self.counters.absent_receiver_failures += 1;
                let (airtime, _) =
                    self.unanswered_attempt(now, edcaf, (queue, count), payload, actions);
                let busy = airtime + delta;
                let phy = link_phy(&self.phy, &self.link_phys, mac, receiver);
                let others = if rts {
                    phy.rts_nav_reset_resume_ns()
                } else {
                    phy.ack_nav_resume_ns()
                };
                let failed = FailedFrame {
                    edcaf,
                    queue,
                    count,
                    counter: RetryCounter::Short,
                    resume_ns: self.phy.sender_resume_ns(airtime, busy),
                };
                let outcome = Outcome::Failure(vec![failed]);
                self.go_busy(now, slot, (busy, others, outcome), internal_losers, actions);
                return;
            }
            let data_at = now + Duration::from_nanos(handshake(rts));
            let data_airtime = phy.data_airtime_ns(payload);
            let data_end = handshake(rts) + data_airtime;
            let data_rate_bps = phy.data_rate_bps;
            if rts {
                self.on_air(actions, |b| b.rts_frame(now, edcaf, queue, payload, false));
                self.on_air(actions, |b| b.cts_frame(now, edcaf, receiver, payload));
            }
            self.charge_airtime(edcaf, receiver, data_airtime);
            if self
                .errors
                .corrupts(self.phy.mac_overhead_bytes + payload, &mut self.channel_rng)
            {
                self.counters.channel_errors += 1;
                self.on_air(actions, |b| {
                    b.data_frame(data_at, edcaf, queue, 0..count, true)
                });
                self.mark_transmitted(edcaf, queue, 0);
                // With RTS/CTS the CTS came back and the data frame failed: the long count.
                let counter = if rts {
                    RetryCounter::Long
                } else {
                    RetryCounter::Short
                };
                let busy = data_end + delta;
                let failed = FailedFrame {
                    edcaf,
                    queue,
                    count,
                    counter,
                    resume_ns: self.phy.sender_resume_ns(data_end, busy),
                };
                (
                    busy,
                    self.phy.eifs_ns(data_rate_bps),
                    Outcome::Failure(vec![failed]),
                )
            } else {
                let delivered_at = now + Duration::from_nanos(data_end + delta);
                self.on_air(actions, |b| {
                    b.data_frame(data_at, edcaf, queue, 0..count, false)
                });
                self.on_air(actions, |b| b.ack_frame(delivered_at + sifs, mac, receiver));
                self.deliver(edcaf, queue, 0, count, delivered_at, actions);
                let mut busy = data_end + exchange_tail;
                let mut delivered = count;
                let mut others_ifs = self.phy.difs_ns();
                let mut failed_after = None;
                if let Some(txop) = (count == 1).then(|| self.txop_ns(edcaf)).flatten() {
                    // Further frames SIFS apart while the whole exchange fits in the TXOP.
                    while delivered < self.edcafs[edcaf as usize].queues[queue].len() {
                        let next_frame = self.edcafs[edcaf as usize].queues[queue][delivered];
                        let next = next_frame.msdu_bytes();
                        let phy = link_phy(&self.phy, &self.link_phys, mac, next_frame.to);
                        let next_airtime = phy.data_airtime_ns(next);
                        let next_rate_bps = phy.data_rate_bps;
                        let next_nav_resume_ns = phy.ack_nav_resume_ns();
                        let exchange = txop_frame_ns(phy, next_airtime, phy.ack_airtime_ns());
                        if busy + exchange > txop {
                            break;
                        }
                        let frame_bytes = self.phy.mac_overhead_bytes + next;
                        let next_at = now + Duration::from_nanos(busy) + sifs;
                        let carried = delivered..delivered + 1;
                        self.mark_attempted(next_at, edcaf, queue, carried.clone());
                        let unanswered = self.is_absent(next_frame.to);
                        if unanswered || self.errors.corrupts(frame_bytes, &mut self.channel_rng) {
                            others_ifs = if unanswered {
                                self.counters.absent_receiver_failures += 1;
                                next_nav_resume_ns
                            } else {
                                self.counters.channel_errors += 1;
                                self.phy.eifs_ns(next_rate_bps)
                            };
                            self.on_air(actions, |b| {
                                b.data_frame(next_at, edcaf, queue, carried, true)
                            });
                            self.mark_transmitted(edcaf, queue, delivered);
                            let frame_end = busy + self.phy.sifs_ns + next_airtime;
                            busy = frame_end + delta;
                            // Sent alone, without RTS: a frame longer than the threshold
                            // counts against the long retry limit all the same.
                            let counter = if self.uses_rts(next) {
                                RetryCounter::Long
                            } else {
                                RetryCounter::Short
                            };
                            failed_after = Some(FailedFrame {
                                edcaf,
                                queue,
                                count: 1,
                                counter,
                                resume_ns: self.phy.sender_resume_ns(frame_end, busy),
                            });
                            break;
                        }
                        let at = next_at + Duration::from_nanos(next_airtime + delta);
                        self.on_air(actions, |b| {
                            b.data_frame(next_at, edcaf, queue, carried, false)
                        });
                        let to = next_frame.to;
                        self.on_air(actions, |b| b.ack_frame(at + sifs, mac, to));
                        self.deliver(edcaf, queue, delivered, 1, at, actions);
                        busy += exchange;
                        delivered += 1;
                    }
                    self.counters.count_txop(delivered, busy);
                }
                (
                    busy,
                    others_ifs,
                    Outcome::Success {
                        edcaf,
                        queue,
                        delivered,
                        failed_after,
                    },
                )
            }
        } else {
            self.counters.collisions += 1;
            let mut attempts = Vec::with_capacity(transmitters.len());
            // The longest frame ends the busy period; the others' PHYs began to receive it.
            let (mut longest, mut longest_rate) = (0, 0);
            for &edcaf in &transmitters {
                let (queue, count) = self.selection(edcaf);
                let (airtime, rate) = if self.owes_block_ack_req(edcaf) {
                    self.unanswered_block_ack_req(now, edcaf, actions)
                } else if self.ampdu.is_some() {
                    self.unanswered_ampdu(now, edcaf, queue, actions)
                } else {
                    let payload = self.payload_bytes(edcaf, queue, 0, count);
                    self.unanswered_attempt(now, edcaf, (queue, count), payload, actions)
                };
                if airtime > longest {
                    (longest, longest_rate) = (airtime, rate);
                }
                attempts.push((edcaf, queue, count, airtime));
            }
            let busy = longest + delta;
            let failed = attempts
                .into_iter()
                .map(|(edcaf, queue, count, airtime)| FailedFrame {
                    edcaf,
                    queue,
                    count,
                    // A failed RTS, or a frame short enough to go without one: the short count.
                    counter: RetryCounter::Short,
                    resume_ns: self.phy.sender_resume_ns(airtime, busy),
                })
                .collect();
            let others = if self.params.eifs_after_collision {
                self.phy.eifs_ns(longest_rate)
            } else {
                self.phy.difs_ns()
            };
            (busy, others, Outcome::Failure(failed))
        };
        self.go_busy(
            now,
            slot,
            (busy_ns, others_ifs_ns, outcome),
            internal_losers,
            actions,
        );
    }

    /// The TXOP limit of `edcaf`'s accesses: the AP's agent's plan for the EDCAF it plans,
    /// otherwise the AC's (none for a DCF).
    pub(super) fn txop_ns(&self, edcaf: u32) -> Option<u64> {
        if self.plans(edcaf) {
            self.ap_plan.txop_ns
        } else {
            self.edcafs[edcaf as usize].txop_ns
        }
    }

    /// The medium is busy for `busy_ns` from `now`, then the stations that did not send
    /// resume after `others_ifs_ns` (those that did, as `outcome` says); counting resumes
    /// from idle slot `slot`; `internal_losers` settle at its end.
    pub(super) fn go_busy(
        &mut self,
        now: Instant,
        slot: SlotCount,
        (busy_ns, others_ifs_ns, outcome): (u64, u64, Outcome),
        internal_losers: Vec<u32>,
        actions: &mut Actions,
    ) {
        if self.edca {
            if let Medium::Idle { others_from, .. } = self.medium {
                self.correct_early_starters(slot, others_from);
                self.classes.on_busy_start(slot, others_from);
            }
        }
        self.medium = Medium::Busy {
            others_ifs_ns,
            next_base: slot,
            outcome,
            internal_losers,
        };
        actions.busy_end = Some(now + Duration::from_nanos(busy_ns));
    }

    /// An attempt nobody answers (it collides, or its receiver has left): an RTS, or the
    /// data frame of `count` frames of `queue` when it goes without one; its airtime and
    /// rate.
    pub(super) fn unanswered_attempt(
        &mut self,
        now: Instant,
        edcaf: u32,
        (queue, count): (usize, usize),
        payload: u32,
        actions: &mut Actions,
    ) -> (u64, u64) {
        let rts = self.uses_rts(payload);
        if rts {
            self.on_air(actions, |b| b.rts_frame(now, edcaf, queue, payload, true));
        } else {
            self.on_air(actions, |b| b.data_frame(now, edcaf, queue, 0..count, true));
            self.mark_transmitted(edcaf, queue, 0);
        }
        let Edcaf { mac, .. } = self.edcafs[edcaf as usize];
        let receiver = self.edcafs[edcaf as usize].queues[queue][0].to;
        let phy = link_phy(&self.phy, &self.link_phys, mac, receiver);
        let (airtime, rate) = phy.unanswered_frame(payload, rts);
        if !rts {
            self.charge_airtime(edcaf, receiver, airtime);
        }
        (airtime, rate)
    }

    /// A data PPDU of `airtime_ns` went from EDCAF `sender` to MAC `receiver`: the station
    /// at the other end from the AP is charged, in the counters and at the airtime
    /// schedulers of the intermediate queues of the AC (`txq`).
    pub(super) fn charge_airtime(&mut self, sender: u32, receiver: u32, airtime_ns: u64) {
        let Edcaf { mac, ac, .. } = self.edcafs[sender as usize];
        self.counters.count_airtime(mac, receiver, airtime_ns);
        if self.txqs.is_some() {
            let receiving = self.edcaf_of(receiver, ac);
            if let Some(txqs) = &mut self.txqs {
                txqs.charge((sender, receiver), (receiving, mac), airtime_ns);
            }
        }
    }

    /// An access of the AP's EDCAF `edcaf`: counted, by whether it is ACK-headed and went
    /// with backoff 0.
    pub(super) fn count_ap_access(&mut self, edcaf: u32) {
        let ack_headed = self.plans(edcaf) && self.ap_plan.queue == ApQueue::Ack;
        let zero = self.edcafs[edcaf as usize].zero_backoff;
        self.counters.count_ap_access(ack_headed, zero);
    }

    /// Hands `count` frames from position `from` of a queue to their receivers at `at`.
    pub(super) fn deliver(
        &mut self,
        edcaf: u32,
        queue: usize,
        from: usize,
        count: usize,
        at: Instant,
        actions: &mut Actions,
    ) {
        self.counters.count_aggregate(count);
        for frame in self.edcafs[edcaf as usize].queues[queue]
            .iter()
            .skip(from)
            .take(count)
        {
            actions.deliveries.push((at, frame.to, frame.packet));
        }
    }
}
