//! What an access-planning agent's plan (`airtcp_proto::agent::AccessPlan`, paper 000 §2.2)
//! means to the MAC that carries it out, shared by the two MACs that do: the central DCF of
//! a WLAN without geometry (`wlan::dcf`) and the AP's radio on a shared channel
//! (`radio::planning`). The AP keeps TCP pure ACKs in a queue of their own; the plan names
//! the queue an access serves, whether it goes with backoff 0, a TXOP limit for further
//! frames SIFS apart (IEEE 802.11-2020 §10.23.2.9), and how many frames one A-MSDU carries
//! (§9.3.2.2).

use std::collections::VecDeque;

use airtcp_proto::agent::{AccessPlan, AccessPlanner, ApQueue, ApView};
use airtcp_proto::wifi::Phy;
use airtcp_proto::Instant;

use super::dcf::{Frame, MacCounters, MacParams};

/// The QoS Control field a QoS data frame adds to the MAC header.
pub(crate) const QOS_CONTROL_BYTES: u32 = 2;

/// The AP's next access plan from its agent (plain DCF on the data queue without one). A
/// plan for an empty queue serves the other one: an agent's choice of ACKs first is only a
/// priority, and backoff 0 was meant for the queue it named. `data_backlog`: the data
/// frames waiting above the data queue in mac80211's queues (`wlan::dcf::txq`), which the
/// agent counts as data and the driver moves into the data queue at the access.
pub(crate) fn plan_access(
    planner: Option<&mut dyn AccessPlanner>,
    now: Instant,
    queues: &[VecDeque<Frame>; 2],
    data_backlog: usize,
) -> AccessPlan {
    let view = ApView {
        data_frames: queues[0].len() + data_backlog,
        ack_frames: queues[1].len(),
    };
    let plan = match planner {
        Some(planner) => planner.plan(now, &view),
        None => AccessPlan::plain(ApQueue::Data),
    };
    if plan.queue == ApQueue::Data && data_backlog > 0 {
        return plan; // the driver fills the data queue at the access
    }
    serve_nonempty(plan, queues)
}

/// `plan`, or, if its queue is empty, the same for the other queue without backoff 0.
pub(crate) fn serve_nonempty(plan: AccessPlan, queues: &[VecDeque<Frame>; 2]) -> AccessPlan {
    if !queues[plan.queue as usize].is_empty() {
        return plan;
    }
    let other = match plan.queue {
        ApQueue::Ack => ApQueue::Data,
        ApQueue::Data => ApQueue::Ack,
    };
    AccessPlan {
        queue: other,
        zero_backoff: false,
        ..plan
    }
}

/// The number of frames of the planned queue (`queued` of them) the access's first MAC
/// frame carries: up to the plan's `aggregate`, at least one.
pub(crate) fn frames_per_access(plan: &AccessPlan, queued: usize) -> usize {
    plan.aggregate.clamp(1, queued.max(1))
}

/// Whether `queue` of a MAC holding `queues` can take no more frames: the two queues share
/// the WLAN's limit (an agent reorders the AP's buffer, it does not enlarge it) unless the
/// ACK queue has a limit of its own.
pub(crate) fn queue_full(queues: &[VecDeque<Frame>; 2], params: &MacParams, queue: usize) -> bool {
    match params.ack_queue_packets {
        Some(limit) if queue == ApQueue::Ack as usize => queues[queue].len() >= limit as usize,
        Some(_) => queues[queue].len() >= params.queue_packets as usize,
        None => queues.iter().map(VecDeque::len).sum::<usize>() >= params.queue_packets as usize,
    }
}

/// What a MAC frame carrying `frames` adds to a data frame's header and FCS: one MSDU, or an
/// A-MSDU and the QoS Control field of the QoS data frame that must carry it (IEEE
/// 802.11-2020 §9.2.4.7, §9.3.2.2.2).
pub(crate) fn payload_bytes<'a>(frames: impl ExactSizeIterator<Item = &'a Frame>) -> u32 {
    if frames.len() == 1 {
        return frames.map(Frame::msdu_bytes).sum();
    }
    QOS_CONTROL_BYTES + a_msdu_bytes(frames.map(Frame::msdu_bytes))
}

/// Bytes of an A-MSDU of MSDUs of the given sizes: a 14-byte subframe header each, and
/// padding to 4 bytes after every subframe but the last.
pub(crate) fn a_msdu_bytes(msdus: impl Iterator<Item = u32>) -> u32 {
    let subframes: Vec<u32> = msdus.map(|msdu| 14 + msdu).collect();
    let (last, padded) = subframes.split_last().expect("an A-MSDU has subframes");
    padded.iter().map(|s| s.next_multiple_of(4)).sum::<u32>() + last
}

/// The channel time a further frame of a TXOP adds: SIFS, the data frame, SIFS and its ACK,
/// each with the propagation delay. The frame goes only if the TXOP, this included, stays
/// within the plan's limit.
pub(crate) fn txop_frame_ns(phy: &Phy, data_airtime_ns: u64, ack_airtime_ns: u64) -> u64 {
    let delta = phy.propagation_ns;
    phy.sifs_ns + data_airtime_ns + delta + phy.sifs_ns + ack_airtime_ns + delta
}

impl MacCounters {
    /// An access of the AP: ACK-headed (its plan served the ACK queue), with backoff 0.
    pub(crate) fn count_ap_access(&mut self, ack_headed: bool, zero_backoff: bool) {
        self.ap_accesses += 1;
        self.ap_ack_headed_accesses += u64::from(ack_headed);
        self.ap_zero_backoff_accesses += u64::from(zero_backoff);
        self.ap_zero_backoff_ack_headed_accesses += u64::from(zero_backoff && ack_headed);
    }

    /// A MAC frame carrying `count` MSDUs was delivered (an aggregate if more than one).
    pub(crate) fn count_aggregate(&mut self, count: usize) {
        if count > 1 {
            self.aggregates += 1;
            self.aggregated_msdus += count as u64;
        }
    }

    /// An A-MPDU (or a lone MPDU of an aggregating BSS) of `mpdus` MPDUs went on the air,
    /// `failed` of them not to be acknowledged.
    pub(crate) fn count_ampdu(&mut self, mpdus: usize, failed: usize) {
        self.ampdus += 1;
        self.ampdu_mpdus += mpdus as u64;
        self.ampdu_failed_mpdus += failed as u64;
    }

    /// Whether `frame`, queued at MAC `mac` (0: the AP), is past its MSDU lifetime (counted
    /// from its first attempt) or its queue's sojourn limit at `now` (either `None`: none);
    /// if so it is counted as such, for the BSS and for its MAC.
    pub(crate) fn count_expired(
        &mut self,
        frame: &Frame,
        now: Instant,
        (lifetime_ns, max_delay_ns): (Option<u64>, Option<u64>),
        mac: u32,
    ) -> bool {
        let older = |since: Instant, limit: Option<u64>| {
            limit.is_some_and(|limit| (now - since).as_nanos() > u128::from(limit))
        };
        let station = (mac as usize).checked_sub(1);
        if frame
            .attempted_at()
            .is_some_and(|at| older(at, lifetime_ns))
        {
            self.lifetime_drops += 1;
            match station {
                None => self.ap_lifetime_drops += 1,
                Some(s) => self.station_lifetime_drops[s] += 1,
            }
        } else if older(frame.queued_at, max_delay_ns) {
            self.queue_delay_drops += 1;
            match station {
                None => self.ap_queue_delay_drops += 1,
                Some(s) => self.station_queue_delay_drops[s] += 1,
            }
        } else {
            return false;
        }
        true
    }

    /// A data PPDU of `airtime_ns` from MAC `sender` to MAC `receiver` (0: the AP): the
    /// station's at the other end of the AP's, the sender's own otherwise.
    pub(crate) fn count_airtime(&mut self, sender: u32, receiver: u32, airtime_ns: u64) {
        if sender == 0 {
            if let Some(station) = (receiver as usize).checked_sub(1) {
                self.station_downlink_airtime_ns[station] += airtime_ns;
            }
        } else {
            self.station_uplink_airtime_ns[sender as usize - 1] += airtime_ns;
        }
    }

    /// A TXOP delivered `frames` frames in `busy_ns` (a burst if more than one).
    pub(crate) fn count_txop(&mut self, frames: usize, busy_ns: u64) {
        if frames > 1 {
            self.txop_bursts += 1;
            self.txop_frames += frames as u64;
            self.max_txop_ns = self.max_txop_ns.max(busy_ns);
        }
    }
}
