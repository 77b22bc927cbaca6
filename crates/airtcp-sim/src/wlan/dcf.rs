//! IEEE 802.11 DCF for one infrastructure BSS in a single collision domain (IEEE
//! 802.11-2020 §10.3), resolved centrally so that the cost per frame does not grow with the
//! number of stations.
//!
//! Every station hears every other, so all agree on when the medium is idle. The medium
//! keeps a global count of idle backoff slots; a station's backoff is stored as the absolute
//! slot number at which it expires, in one heap. Counting down "only in idle slots, frozen
//! while busy" is then implicit: the count does not advance while the medium is busy. The
//! earliest expiry wins; equal expiries collide. After a busy period counting resumes one
//! DIFS later where it stopped, so a counter k transmits k idle slots after DIFS
//! (§10.3.4.3). This is the rule paper 000 relies on: right after a transmission only a
//! station that has just drawn 0 can access at DIFS.
//!
//! After a failed exchange the stations resume at different times (`airtcp_proto::wifi::Phy`):
//! its senders DIFS after their AckTimeout (CTSTimeout), counted from the end of their own
//! frame (§10.3.2.9); the others EIFS after a frame received in error, with the standard's
//! EstimatedAckTxTime for that frame (§10.3.2.3.7), or, after a collision without
//! `eifs_after_collision`, DIFS (ns-3's PHY); after an unanswered frame they decoded, the
//! NAV it set. Counting resumes at the earliest, and each group joins the count at the
//! nearest slot boundary to its own time (`slots_between`): the others by a count that
//! starts a few slots earlier, each sender by a later expiry. Saturation throughput agrees
//! with the model of exactly these rules within 1.5 % (`wifi::bianchi`,
//! tests/bianchi_saturation.rs).
//!
//! Modelled: DIFS/EIFS/AckTimeout deferral, backoff in [0, CW], binary exponential CW
//! growth, reset on success or drop, RTS/CTS above a threshold, post-backoff, immediate
//! access when a frame arrives to an idle medium with no backoff pending, MAC ACKs (assumed
//! error-free), per-frame errors. Retries follow §10.3.4.4: a failed RTS, or a failed frame
//! no longer than the RTS threshold, counts against the short retry limit
//! (dot11ShortRetryLimit, 7); a failed frame longer than the threshold (sent after a CTS)
//! against the long one (dot11LongRetryLimit, 4), and its CTS resets the short count. The
//! MSDU lifetime runs from an MSDU's first attempt; `queue_max_delay` (ns-3's MaxDelay)
//! bounds its wait from arrival. NAV is implicit where the medium is busy anyway: with one
//! collision domain the reservation an RTS or data frame announces coincides with it.
//! Hidden terminals and capture are not modelled. With an MCS PHY the MACs aggregate MPDUs
//! into A-MPDUs answered by a BlockAck (`ampdu`).
//!
//! The AP (MAC 0) may run an access-point agent (`airtcp_proto::agent`): it then keeps TCP
//! pure ACKs in a queue of their own, and each channel access follows the agent's plan:
//! backoff 0, a TXOP burst of SIFS-separated frames, or an A-MSDU of several frames (the rules
//! it shares with an AP's radio on a shared channel are in `wlan::ap_plan`). The two
//! queues share the WLAN's queue limit (an agent reorders the AP's buffer, it does not
//! enlarge it) unless the agent gives the ACK queue a limit of its own. When a frame after
//! the first of a TXOP fails, the TXOP ends and the EDCA backoff procedure runs for the
//! failure (IEEE 802.11-2020 §10.23.2.2 c): the frame's retry count rises and CW doubles.

use std::collections::VecDeque;
use std::ops::Range;
use std::time::Duration;

use airtcp_proto::agent::{AccessPlan, AccessPlanner, Agent, ApQueue, ChannelEvent};

use crate::interface::AgentSlot;
use airtcp_proto::wifi::edca::AccessCategory;
use airtcp_proto::wifi::{slots_between, Phy};
use airtcp_proto::Instant;
use rand::Rng;
use serde::Serialize;

pub(crate) use super::block_ack::{MpduState, RetryCounter};
pub use agent_view::MacQueue;
pub use ampdu::AmpduLimits;
pub use capture::{AirBody, AirFrame};
pub use edca::EdcaSet;
pub(crate) use queue_meter::{frames_ip_bytes, meter_of, note_attempt, QueueMeter};
pub use queue_meter::{MacQueueId, MacQueueSample};
pub(crate) use txq::{expected_airtime_ns, Budget, Sizing, Txqs};
pub use txq::{Driver, DriverQueue, Qdisc, Queueing};

#[cfg(test)]
use super::ap_plan::{a_msdu_bytes, QOS_CONTROL_BYTES};
use super::ap_plan::{
    frames_per_access, payload_bytes, plan_access, queue_full, serve_nonempty, txop_frame_ns,
};
use crate::error_model::ErrorModel;
use crate::packet::Packet;
use crate::rng::Stream;
use crate::sojourn::SojournSample;

/// LLC/SNAP header carried in every MSDU before the IP packet.
pub const LLC_SNAP_BYTES: u32 = 8;

/// A queued MSDU, the index of the MAC it is addressed to, when it entered the queue (for
/// the queue's sojourn limit) and when its first transmission attempt began (for the MSDU
/// lifetime); its sequence number and whether it has been on the air (its next transmission
/// is then a retry), for captures.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub packet: Packet,
    pub to: u32,
    pub queued_at: Instant,
    /// `Instant::MAX` until the first attempt: queues move frames by value on the fast
    /// path, and an `Option` would make each 8 bytes larger (`attempted_at`).
    first_attempt: Instant,
    pub sequence: u16,
    pub transmitted: bool,
    /// In a BSS that aggregates: the MPDU's Block Ack state (`ampdu`).
    pub(crate) mpdu: MpduState,
}

// The fast path moves frames through the MAC queues by value: the Block Ack state must fit
// in what was padding before aggregation came (136 bytes).
const _: () = assert!(std::mem::size_of::<Frame>() <= 136);

impl Frame {
    /// A frame that has not been on the air.
    pub fn new(packet: Packet, to: u32, queued_at: Instant, sequence: u16) -> Frame {
        Frame {
            packet,
            to,
            queued_at,
            first_attempt: Instant::MAX,
            sequence,
            transmitted: false,
            mpdu: MpduState::default(),
        }
    }

    pub fn msdu_bytes(&self) -> u32 {
        LLC_SNAP_BYTES + self.packet.len()
    }

    /// When its first transmission attempt began, if one did.
    pub fn attempted_at(&self) -> Option<Instant> {
        (self.first_attempt != Instant::MAX).then_some(self.first_attempt)
    }

    /// An attempt began at `at`: the first one starts the MSDU lifetime (and ends the
    /// frame's sojourn in its queues: true then).
    pub fn note_attempt(&mut self, at: Instant) -> bool {
        let first = self.first_attempt == Instant::MAX;
        if first {
            self.first_attempt = at;
        }
        first
    }
}

/// Counters of one BSS, reported per run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MacCounters {
    /// Transmission attempts of data (or RTS) frames.
    pub attempts: u64,
    pub successes: u64,
    /// Channel accesses in which two or more stations transmitted.
    pub collisions: u64,
    /// Attempts that failed (collided or corrupted).
    pub failed_attempts: u64,
    /// Attempts beyond the first for a frame.
    pub retries: u64,
    /// Frames dropped at the retry limit.
    pub retry_drops: u64,
    /// Frames dropped because a MAC queue was full.
    pub queue_drops: u64,
    /// MSDUs discarded because the MSDU lifetime passed since their first transmission
    /// attempt: all, the AP's, and each station's (in the WLAN's station order).
    pub lifetime_drops: u64,
    pub ap_lifetime_drops: u64,
    pub station_lifetime_drops: Vec<u64>,
    /// MSDUs discarded because they waited in a queue longer than `queue_max_delay`: all,
    /// the AP's, and each station's.
    pub queue_delay_drops: u64,
    pub ap_queue_delay_drops: u64,
    pub station_queue_delay_drops: Vec<u64>,
    /// Frames corrupted by the channel's error model.
    pub channel_errors: u64,
    /// Attempts to a station that had left the BSS (no ACK came back).
    pub absent_receiver_failures: u64,
    /// Frames lost because their station had left (its own, while detached with `lose`).
    pub absent_drops: u64,
    /// `contenders[k]`: channel accesses at which k MACs (AP included) held a frame.
    pub contenders: Vec<u64>,
    /// Payload (MSDU) bytes delivered.
    pub delivered_msdu_bytes: u64,
    /// MSDUs delivered (an aggregate counts each of its MSDUs).
    pub delivered_msdus: u64,
    /// AP transmissions (first frames of its accesses), and of those: ACK-headed ones,
    /// ones made with backoff 0, and ones that were both.
    pub ap_accesses: u64,
    pub ap_ack_headed_accesses: u64,
    pub ap_zero_backoff_accesses: u64,
    pub ap_zero_backoff_ack_headed_accesses: u64,
    /// TXOP bursts of two or more frames, their frames, and the longest one.
    pub txop_bursts: u64,
    pub txop_frames: u64,
    pub max_txop_ns: u64,
    /// Aggregated MAC frames and the MSDUs they carried.
    pub aggregates: u64,
    pub aggregated_msdus: u64,
    /// In a BSS that aggregates (`ampdu`): transmissions (A-MPDUs, and lone MPDUs), the
    /// MPDUs they carried, those not acknowledged, and those a recipient held back for
    /// order after a gap.
    pub ampdus: u64,
    pub ampdu_mpdus: u64,
    pub ampdu_failed_mpdus: u64,
    pub reordered_mpdus: u64,
    /// BlockAckReqs answered, and those given up at the retry limit (`block_ack_req`).
    pub block_ack_reqs: u64,
    pub block_ack_reqs_given_up: u64,
    /// With mac80211's queues (`txq`): frames CoDel dropped.
    pub codel_drops: u64,
    /// With a qdisc above the drivers (`aqm`, `txq::qdisc`): frames its AQM dropped (tail
    /// drops count in `queue_drops`).
    pub aqm_drops: u64,
    /// Frames marked CE instead of dropped: by mac80211's CoDel or a qdisc's AQM.
    pub ecn_marks: u64,
    /// With EDCA: EDCAFs that lost an internal collision to a higher AC of their MAC.
    pub internal_collisions: u64,
    /// Airtime of the data PPDUs each station sent, and of those the AP sent it (in the
    /// WLAN's station order; collisions and errors included).
    pub station_uplink_airtime_ns: Vec<u64>,
    pub station_downlink_airtime_ns: Vec<u64>,
}

#[derive(Debug)]
pub struct MacParams {
    pub rts_threshold: Option<u32>,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    /// Frames a MAC may hold; at an AP with an agent, in both its queues together.
    pub queue_packets: u32,
    /// At an AP with an agent: a separate limit for its ACK queue, the data queue keeping
    /// `queue_packets`.
    pub ack_queue_packets: Option<u32>,
    /// dot11MaxTransmitMSDULifetime, counted from an MSDU's first transmission attempt;
    /// `None` keeps MSDUs until sent or dropped at the retry limit.
    pub msdu_lifetime_ns: Option<u64>,
    /// A limit on the time an MSDU may wait in a MAC queue from its arrival (ns-3's
    /// `WifiMacQueue` MaxDelay); `None`: no limit.
    pub queue_max_delay_ns: Option<u64>,
    /// Whether the stations that did not send in a collision wait EIFS (their PHY began to
    /// receive a frame that failed) or DIFS (it saw only a busy medium).
    pub eifs_after_collision: bool,
}

/// The station at the other end from the AP of frames between MACs `a` and `b` (one of
/// them the AP): whose link they are.
fn link_of(a: u32, b: u32) -> u32 {
    if a == 0 {
        b
    } else {
        a
    }
}

/// The PHY of frames between MACs `a` and `b` (one of them the AP): the station's own, or
/// the BSS's where stations have none (`Bss::use_station_phys`). Free of `Bss` so that it
/// borrows only these fields.
fn link_phy<'a>(phy: &'a Phy, link_phys: &'a [Phy], a: u32, b: u32) -> &'a Phy {
    link_phys.get(link_of(a, b) as usize).unwrap_or(phy)
}

/// Whether heap entry (`expiry`, `edcaf`, `generation`) is an EDCAF's current backoff.
fn live(edcafs: &[Edcaf]) -> impl Fn(SlotCount, u32, u64) -> bool + '_ {
    move |expiry, edcaf, generation| {
        let station = &edcafs[edcaf as usize];
        station.generation == generation && station.expiry == Some(expiry)
    }
}

/// A MAC of the BSS (an address: frames name their receiver by its index, MAC 0 the AP).
#[derive(Debug)]
struct Mac {
    node: usize,
    rng: Stream,
    /// The sequence number of the next MSDU (modulo 4096 on the air).
    next_sequence: u16,
    /// The AC whose EDCAF an agent on this MAC's interface works on (`edca`).
    agent_ac: AccessCategory,
}

/// A channel access function (IEEE 802.11-2020 §10.23.2): the DCF of a MAC without QoS, or
/// one of a QoS MAC's four EDCAFs, each with its own queue, contention window, retry counts
/// and backoff (`edca`). `Bss::edcafs[f]`: MAC f's DCF, or with EDCA MAC m's EDCAF of AC a
/// at 4m + a.
#[derive(Debug)]
struct Edcaf {
    mac: u32,
    ac: AccessCategory,
    /// Its AIFSN's class of backoff counts (`edca::Classes`).
    class: usize,
    cw_min: u32,
    cw_max: u32,
    /// Further frames SIFS apart after the first, within this time from the access's start
    /// (a TXOP limit above 0).
    txop_ns: Option<u64>,
    /// Indexed by `ApQueue`: only the EDCAF of an AP's access-planning agent uses both.
    queues: [VecDeque<Frame>; 2],
    /// The current backoff was set to 0 by the agent's plan.
    zero_backoff: bool,
    cw: u32,
    /// Failed attempts of the head frame, by retry counter.
    short_retries: u32,
    long_retries: u32,
    /// Absolute count of its class's idle slots at which the backoff expires.
    expiry: Option<SlotCount>,
    generation: u64,
}

impl Edcaf {
    /// MAC `mac`'s DCF: AIFSN 2 (DIFS) and the PHY's contention window.
    fn dcf(mac: u32, phy: &Phy) -> Edcaf {
        Edcaf {
            mac,
            ac: AccessCategory::Be,
            class: 0,
            cw_min: phy.cw_min,
            cw_max: phy.cw_max,
            txop_ns: None,
            queues: [VecDeque::new(), VecDeque::new()],
            zero_backoff: false,
            cw: phy.cw_min,
            short_retries: 0,
            long_retries: 0,
            expiry: None,
            generation: 0,
        }
    }

    /// CW after a failed attempt: back to CWmin if the attempt reached a retry limit
    /// (§10.23.2.2: "CW shall be reset to CWmin after every unsuccessful attempt to transmit
    /// an MPDU that causes the retry counter to reach its limit"), doubled otherwise.
    fn after_failure(&mut self, at_limit: bool) {
        self.cw = if at_limit {
            self.cw_min
        } else {
            (2 * self.cw + 1).min(self.cw_max)
        };
    }
}

#[derive(Debug)]
enum Outcome {
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
struct FailedFrame {
    edcaf: u32,
    queue: usize,
    count: usize,
    counter: RetryCounter,
    resume_ns: u64,
}

/// An absolute count of idle slots. Signed: after a failure the stations that did not send
/// may resume later than the senders, and the count then starts a few slots before theirs
/// (`on_busy_end`).
type SlotCount = i64;

#[derive(Debug)]
enum Medium {
    /// Idle slots count from `origin`, where the count is `base`; a station that did not send
    /// in the last busy period may not access before slot `others_from` (its DIFS or EIFS).
    Idle {
        origin: Instant,
        base: SlotCount,
        others_from: SlotCount,
    },
    /// The stations that did not send resume `others_ifs_ns` after the busy period;
    /// `internal_losers`: EDCAFs that lost an internal collision as it began (`edca`).
    Busy {
        others_ifs_ns: u64,
        next_base: SlotCount,
        outcome: Outcome,
        internal_losers: Vec<u32>,
    },
}

/// What the caller must schedule after a call into the BSS.
#[derive(Debug, Default)]
pub struct Actions {
    /// A channel-access check at this time, with the generation to pass back.
    pub access: Option<(Instant, u64)>,
    /// The end of the busy period just started.
    pub busy_end: Option<Instant>,
    /// A packet received at a time by a MAC (its index in the BSS).
    pub deliveries: Vec<(Instant, u32, Packet)>,
    /// Frames put on the air, in order of their start, when the BSS captures them.
    pub air: Vec<AirFrame>,
}

#[derive(Debug)]
pub struct Bss {
    phy: Phy,
    params: MacParams,
    errors: ErrorModel,
    channel_rng: Stream,
    macs: Vec<Mac>,
    /// The channel access functions: one DCF per MAC, or with EDCA four EDCAFs (`Edcaf`).
    edcafs: Vec<Edcaf>,
    /// Whether the MACs contend with EDCA (`edca`).
    edca: bool,
    /// The EDCAFs' backoff expiries, by AIFSN (`edca::Classes`).
    classes: edca::Classes,
    /// EDCAFs whose backoff counts from a start other than the others' (`edca`).
    early_starters: Vec<edca::EarlyStart>,
    medium: Medium,
    access_generation: u64,
    scheduled_access: Option<Instant>,
    /// EDCAFs holding a frame.
    holding: usize,
    /// The agent on each MAC's interface (MAC 0, the AP, may plan its channel access).
    agents: Vec<Option<AgentSlot>>,
    /// The AP's agent plans the accesses of its EDCAF `planning`: two queues, and the
    /// agent's plan.
    plans_access: bool,
    planning: u32,
    /// The plan of the AP's pending access.
    ap_plan: AccessPlan,
    /// Report every frame on the air in `Actions::air`.
    capture: bool,
    /// Per MAC: whether the station has left, and how its frames are treated (`roaming`).
    absent: Vec<Option<roaming::Absence>>,
    /// Frames held for or from stations that have left, with their senders' MACs.
    held: Vec<(u32, Frame)>,
    /// Stations that left during a busy period, whose frames go at its end.
    evict_at_busy_end: Vec<u32>,
    /// A-MPDU aggregation with Block Ack, when on (`ampdu`).
    ampdu: Option<ampdu::Aggregation>,
    /// mac80211's intermediate queues, when on (`txq`).
    txqs: Option<txq::Txqs>,
    /// With `queue_sojourn`, per EDCAF, what its queues dropped, marked and held frames for
    /// (`meter_sojourns`; `None` on the fast path).
    meters: Option<Box<[QueueMeter]>>,
    /// Per MAC, the PHY of the frames between it and the AP where stations send at rates of
    /// their own (`use_station_phys`); empty: every frame at `phy`'s.
    link_phys: Vec<Phy>,
    pub counters: MacCounters,
}

impl Bss {
    /// MAC 0 is the AP; `nodes[i]` is the node of MAC i; `rngs[i]` its backoff stream.
    pub fn new(
        phy: Phy,
        params: MacParams,
        errors: ErrorModel,
        channel_rng: Stream,
        nodes: Vec<(usize, Stream)>,
        ap_agent: Option<Box<dyn Agent>>,
    ) -> Self {
        let macs = nodes
            .into_iter()
            .map(|(node, rng)| Mac {
                node,
                rng,
                next_sequence: 0,
                agent_ac: AccessCategory::Be,
            })
            .collect::<Vec<_>>();
        let edcafs: Vec<Edcaf> = (0..macs.len() as u32)
            .map(|mac| Edcaf::dcf(mac, &phy))
            .collect();
        let counters = MacCounters {
            contenders: vec![0; macs.len() + 1],
            station_lifetime_drops: vec![0; macs.len() - 1],
            station_queue_delay_drops: vec![0; macs.len() - 1],
            station_uplink_airtime_ns: vec![0; macs.len() - 1],
            station_downlink_airtime_ns: vec![0; macs.len() - 1],
            ..MacCounters::default()
        };
        let mut bss = Bss {
            meters: None,
            agents: macs.iter().map(|_| None).collect(),
            absent: vec![None; macs.len()],
            held: Vec::new(),
            evict_at_busy_end: Vec::new(),
            plans_access: false,
            planning: 0,
            edcafs,
            edca: false,
            classes: edca::Classes::dcf(),
            early_starters: Vec::new(),
            phy,
            params,
            errors,
            channel_rng,
            macs,
            medium: Medium::Idle {
                origin: Instant::ZERO,
                base: 0,
                others_from: 0,
            },
            access_generation: 0,
            scheduled_access: None,
            holding: 0,
            ap_plan: AccessPlan::plain(ApQueue::Data),
            capture: false,
            ampdu: None,
            txqs: None,
            link_phys: Vec::new(),
            counters,
        };
        if let Some(agent) = ap_agent {
            bss.place_agent(0, agent, AccessCategory::Be);
        }
        bss
    }

    /// Puts an agent on a MAC's interface (before any traffic); on the AP, an agent that
    /// plans access gets the AP's ACK queue and plans each access.
    /// With EDCA the agent works on the EDCAF of `ac` (the DCF's single queue without).
    pub fn place_agent(&mut self, mac: u32, mut agent: Box<dyn Agent>, ac: AccessCategory) {
        self.macs[mac as usize].agent_ac = ac;
        if mac == 0 {
            self.plans_access = agent.access_planner().is_some();
            self.planning = self.edcaf_of(0, ac);
        }
        self.agents[mac as usize] = Some(AgentSlot::new(agent));
    }

    pub fn phy(&self) -> &Phy {
        &self.phy
    }

    /// Aggregates MPDUs into A-MPDUs with Block Ack within `limits` (an MCS PHY's BSS,
    /// before any traffic; `ampdu`).
    pub fn aggregate(&mut self, limits: AmpduLimits) {
        let mut txops: Vec<u64> = self.edcafs.iter().filter_map(|f| f.txop_ns).collect();
        txops.sort_unstable();
        txops.dedup();
        let protected = self.params.rts_threshold.is_some();
        self.ampdu = ampdu::Aggregation::new(&self.phy, &self.link_phys, limits, &txops, protected);
    }

    /// Queues frames as `queueing` says, or beside a FIFO through `qdisc` (before any
    /// traffic; `txq`): `rates_bps[i]` is the data rate to and from MAC i, `hash_key` the
    /// key of the flow hash.
    pub fn queue_through(
        &mut self,
        (queueing, driver, qdisc): (Queueing, Driver, Option<&Qdisc>),
        rates_bps: &[u64],
        hash_key: u64,
    ) {
        let edcafs = (0, self.edcafs.len());
        self.txqs = txq::Txqs::new((queueing, driver, qdisc), rates_bps, hash_key, edcafs);
    }

    /// Sends the frames to and from MAC m with `phys[m]` (a station's own rate or MCS;
    /// before any traffic, and before `aggregate`): their data and control rates and
    /// airtimes. The BSS's timing (slot, SIFS) is `phy`'s for all.
    pub fn use_station_phys(&mut self, phys: Vec<Phy>) {
        assert_eq!(phys.len(), self.macs.len(), "a PHY per MAC");
        self.link_phys = phys;
    }

    pub fn has_agent(&self, mac: u32) -> bool {
        self.agents[mac as usize].is_some()
    }

    /// The agents on the MACs' interfaces, by MAC.
    pub fn agents(&self) -> impl Iterator<Item = (u32, &dyn Agent)> {
        self.agents
            .iter()
            .enumerate()
            .filter_map(|(mac, slot)| Some((mac as u32, slot.as_ref()?.agent.as_ref())))
    }

    /// Takes the agent off a MAC's interface (a mobile's, moving with it to another cell).
    pub fn take_agent(&mut self, mac: u32) -> Option<Box<dyn Agent>> {
        Some(self.agents[mac as usize].take()?.agent)
    }

    /// Gives the AP's ACK queue a limit of its own (an agent's `ack_queue`).
    pub fn limit_ack_queue(&mut self, packets: u32) {
        self.params.ack_queue_packets = Some(packets);
    }

    /// The node of a MAC.
    pub fn node(&self, mac: u32) -> usize {
        self.macs[mac as usize].node
    }

    /// The agent on a MAC's interface, with the MAC's queue as the agent may see and edit it.
    pub fn agent_and_queue(&mut self, mac: u32) -> Option<(&mut AgentSlot, MacQueue<'_>)> {
        let edcaf = self.edcaf_of(mac, self.macs[mac as usize].agent_ac);
        let slot = self.agents[mac as usize].as_mut()?;
        let queue = MacQueue::new(
            &mut self.edcafs[edcaf as usize].queues,
            &mut self.held,
            mac,
            self.ampdu.is_some(),
        );
        Some((slot, queue))
    }

    fn planner(&mut self) -> Option<&mut dyn AccessPlanner> {
        if !self.plans_access {
            return None;
        }
        self.agents[0].as_mut()?.agent.access_planner()
    }

    /// Measures every queue's sojourns (`queue_sojourn`; before any traffic, after
    /// `use_edca`).
    pub fn meter_sojourns(&mut self) {
        self.meters = Some(vec![QueueMeter::default(); self.edcafs.len()].into());
    }

    /// Its queues as `sample_queues` gives them: one an EDCAF, when metered.
    pub fn queue_count(&self) -> usize {
        self.meters.as_ref().map_or(0, |meters| meters.len())
    }

    /// Which queue EDCAF `edcaf`'s is, in WLAN `bss`.
    fn queue_id(&self, bss: u32, edcaf: &Edcaf) -> MacQueueId {
        MacQueueId {
            bss,
            mac: edcaf.mac,
            ac: self.edca.then_some(edcaf.ac),
        }
    }

    /// Each EDCAF's queues now (this being WLAN `bss`), when metered: frames, bytes, drops
    /// and marks so far, and the sojourns since the last call (`queue_meter`).
    pub fn sample_queues(&mut self, bss: u32) -> Vec<MacQueueSample> {
        let mut samples = Vec::with_capacity(self.queue_count());
        for f in 0..self.queue_count() as u32 {
            let packets = self.edcaf_len(f) as u32;
            let above = self.txqs.as_ref().map_or(0, |txqs| txqs.backlog_bytes(f));
            let id = self.queue_id(bss, &self.edcafs[f as usize]);
            let queues = &self.edcafs[f as usize].queues;
            let meter = meter_of(&mut self.meters, f).expect("metered");
            samples.push(MacQueueSample {
                id,
                packets,
                bytes: queue_meter::frames_ip_bytes(queues.iter().flatten()) + above,
                drops: meter.drops,
                ecn_marks: meter.ecn_marks,
                sojourn: meter.take_sojourn(),
            });
        }
        samples
    }

    /// With `queue_sojourn`, each EDCAF's sojourns over the measurement window.
    pub fn window_sojourns(&self, bss: u32) -> Vec<(MacQueueId, SojournSample)> {
        let meters = self.meters.iter().flat_map(|meters| meters.iter());
        (self.edcafs.iter().zip(meters))
            .map(|(edcaf, meter)| (self.queue_id(bss, edcaf), meter.sojourns.window_sample()))
            .collect()
    }

    /// The measurement window begins: sojourns count from now.
    pub fn start_sojourn_window(&mut self) {
        for meter in self.meters.iter_mut().flat_map(|meters| meters.iter_mut()) {
            meter.sojourns.start_window();
        }
    }

    /// Frames queued at a MAC (in all its EDCAFs' queues, and its intermediate queues).
    pub fn queue_len(&self, mac: u32) -> usize {
        self.edcafs_of(mac).map(|f| self.edcaf_len(f)).sum()
    }

    /// Frames queued at an EDCAF (both queues, and its intermediate queues).
    fn edcaf_len(&self, edcaf: u32) -> usize {
        let queued: usize = self.edcafs[edcaf as usize]
            .queues
            .iter()
            .map(VecDeque::len)
            .sum();
        queued + self.txqs.as_ref().map_or(0, |txqs| txqs.backlog(edcaf))
    }

    /// Asks the AP's agent for its next access plan (plain DCF without an agent).
    fn replan(&mut self, now: Instant) -> AccessPlan {
        let planner = match &mut self.agents[0] {
            Some(slot) if self.plans_access => slot.agent.access_planner(),
            _ => None,
        };
        let queues = &self.edcafs[self.planning as usize].queues;
        let backlog = self.txqs.as_ref().map_or(0, |t| t.backlog(self.planning));
        self.ap_plan = plan_access(planner, now, queues, backlog);
        self.ap_plan
    }

    /// The slot count (of `edcaf`'s class) at which `edcaf`, which did not send in the last
    /// busy period and may access at once, would transmit.
    fn immediate_slot(&self, now: Instant, edcaf: u32) -> SlotCount {
        let class = self.edcafs[edcaf as usize].class;
        let extra = self.classes.extra(class);
        let common = match &self.medium {
            Medium::Idle {
                origin,
                base,
                others_from,
            } => {
                let elapsed_ns = now.as_nanos().saturating_sub(origin.as_nanos());
                let next = base + elapsed_ns.div_ceil(self.phy.slot_ns) as SlotCount;
                next.max(*others_from + extra)
            }
            Medium::Busy { next_base, .. } => *next_base + extra,
        };
        self.classes.to_class(class, common)
    }

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

    /// `edcaf` has frames again: it starts its channel access, unless it is contending
    /// already or a post-backoff is counting down.
    fn contend(&mut self, now: Instant, edcaf: u32, actions: &mut Actions) {
        if self.edcafs[edcaf as usize].expiry.is_some() {
            return;
        }
        let expiry = self.fresh_expiry(now, edcaf);
        self.set_expiry(edcaf, expiry, false);
        self.schedule_access(actions);
    }

    /// Expiry (in its class's count) for a frame arriving at an EDCAF with no backoff
    /// pending: access at once if the medium is idle, otherwise defer and back off.
    fn fresh_expiry(&mut self, now: Instant, edcaf: u32) -> SlotCount {
        match &self.medium {
            Medium::Idle { .. } => self.immediate_slot(now, edcaf),
            Medium::Busy { .. } => self.immediate_slot(now, edcaf) + self.random_slots(edcaf),
        }
    }

    /// A backoff drawn uniformly in [0, CW] (from its MAC's stream).
    fn random_slots(&mut self, edcaf: u32) -> SlotCount {
        let Edcaf { mac, cw, .. } = self.edcafs[edcaf as usize];
        SlotCount::from(self.macs[mac as usize].rng.random_range(0..=cw))
    }

    /// Whether `edcaf` is one of the transmitters of the current busy period.
    fn transmitting(&self, edcaf: u32) -> bool {
        match &self.medium {
            Medium::Busy {
                outcome:
                    Outcome::Success { edcaf: sender, .. }
                    | Outcome::Ampdu { edcaf: sender, .. }
                    | Outcome::BlockAckReq { edcaf: sender },
                ..
            } => *sender == edcaf,
            Medium::Busy {
                outcome: Outcome::Failure(failed),
                ..
            } => failed.iter().any(|f| f.edcaf == edcaf),
            Medium::Idle { .. } => false,
        }
    }

    /// Sets `edcaf`'s backoff to expire at `expiry` of its class's count.
    fn set_expiry(&mut self, edcaf: u32, expiry: SlotCount, zero_backoff: bool) {
        let station = &mut self.edcafs[edcaf as usize];
        station.generation += 1;
        station.expiry = Some(expiry);
        station.zero_backoff = zero_backoff;
        self.classes
            .push(station.class, expiry, edcaf, station.generation);
    }

    /// Draws a fresh backoff in [0, CW] counted from common slot `base` (its class's AIFS
    /// later), or 0 if the AP's plan says so; the EDCAFs that did not send count from
    /// `others_from` (`note_start`).
    fn draw_backoff(&mut self, now: Instant, edcaf: u32, base: SlotCount, others_from: SlotCount) {
        let class = self.edcafs[edcaf as usize].class;
        let start = self
            .classes
            .to_class(class, base + self.classes.extra(class));
        if self.plans(edcaf) && self.edcaf_len(edcaf) > 0 && self.replan(now).zero_backoff {
            self.set_expiry(edcaf, start, true);
        } else {
            let slots = self.random_slots(edcaf);
            self.set_expiry(edcaf, start + slots, false);
        }
        self.note_start(edcaf, base, others_from);
    }

    /// Whether the AP's agent plans `edcaf`'s accesses.
    fn plans(&self, edcaf: u32) -> bool {
        self.plans_access && edcaf == self.planning
    }

    /// Drops stale heap entries and returns the earliest live expiry in the common count.
    fn earliest_expiry(&mut self) -> Option<SlotCount> {
        self.classes.earliest(live(&self.edcafs))
    }

    fn schedule_access(&mut self, actions: &mut Actions) {
        let Medium::Idle { origin, base, .. } = self.medium else {
            return;
        };
        let Some(expiry) = self.earliest_expiry() else {
            return;
        };
        let idle_slots = (expiry - base).max(0) as u64;
        let at = origin + Duration::from_nanos(idle_slots * self.phy.slot_ns);
        if self
            .scheduled_access
            .is_some_and(|scheduled| scheduled <= at)
        {
            return;
        }
        self.access_generation += 1;
        self.scheduled_access = Some(at);
        actions.access = Some((at, self.access_generation));
    }

    /// A scheduled access check: whoever's backoff expires now transmits.
    pub fn on_access(&mut self, now: Instant, generation: u64, actions: &mut Actions) {
        if generation != self.access_generation {
            return;
        }
        self.scheduled_access = None;
        let Medium::Idle { origin, base, .. } = self.medium else {
            return;
        };
        // u64, not Duration's u128: this runs once per channel access.
        let elapsed_ns = now.as_nanos().saturating_sub(origin.as_nanos());
        let current = base + (elapsed_ns / self.phy.slot_ns) as SlotCount;
        let mut transmitters = Vec::new();
        while let Some(edcaf) = self.classes.pop_due(current, live(&self.edcafs)) {
            self.edcafs[edcaf as usize].expiry = None;
            // Dequeue: an MSDU past its lifetime (or its queue's sojourn limit) is discarded
            // instead of sent, also before a retry.
            if self.discard_expired(now, edcaf) && self.plans(edcaf) && self.edcaf_len(edcaf) > 0 {
                self.replan(now);
            }
            if self.txqs.is_some() {
                self.refill(now, edcaf);
                if self.plans(edcaf) {
                    // CoDel may have emptied the planned queue
                    self.ap_plan =
                        serve_nonempty(self.ap_plan, &self.edcafs[edcaf as usize].queues);
                }
            }
            if self.edcaf_len(edcaf) > 0 || self.owes_block_ack_req(edcaf) {
                transmitters.push(edcaf);
            }
        }
        if transmitters.is_empty() {
            // Only post-backoffs without frames completed.
            self.schedule_access(actions);
            return;
        }
        let internal_losers = self.internal_losers(&mut transmitters);
        // the idle slots the planned EDCAF counted (with EDCA its AIFS after the count's
        // reference passes first), for a planning agent only: this runs at every access
        let idle_slots = self.plans_access.then(|| {
            let class = self.edcafs[self.planning as usize].class;
            (current - base - self.classes.extra(class)).max(0) as u64
        });
        let others_only = !transmitters.contains(&self.planning);
        if let (Some(idle_slots), Some(planner)) = (idle_slots, self.planner()) {
            planner.on_channel(now, ChannelEvent::IdleSlots(idle_slots));
            if others_only {
                planner.on_channel(
                    now,
                    ChannelEvent::Busy {
                        collision: transmitters.len() > 1,
                    },
                );
            }
        }
        self.start_transmission(now, current, transmitters, internal_losers, actions);
    }

    /// The queue an EDCAF transmits from, and how many of its frames form the first MAC
    /// frame (the AP's agent plans those of the EDCAF it plans).
    fn selection(&self, edcaf: u32) -> (usize, usize) {
        if !self.plans(edcaf) {
            return (ApQueue::Data as usize, 1);
        }
        let queue = self.ap_plan.queue as usize;
        let queued = self.edcafs[edcaf as usize].queues[queue].len();
        (queue, frames_per_access(&self.ap_plan, queued))
    }

    /// What a MAC frame carrying `count` frames of `edcaf`'s queue from `from` adds to a data
    /// frame's header and FCS (`ap_plan::payload_bytes`).
    fn payload_bytes(&self, edcaf: u32, queue: usize, from: usize, count: usize) -> u32 {
        payload_bytes(
            self.edcafs[edcaf as usize].queues[queue]
                .iter()
                .skip(from)
                .take(count),
        )
    }

    fn uses_rts(&self, payload_bytes: u32) -> bool {
        self.params
            .rts_threshold
            .is_some_and(|threshold| self.phy.mac_overhead_bytes + payload_bytes > threshold)
    }

    /// The EDCAFs in `transmitters` (`internal_losers` lost an internal collision to one of
    /// them) transmit at `slot`.
    fn start_transmission(
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
    fn txop_ns(&self, edcaf: u32) -> Option<u64> {
        if self.plans(edcaf) {
            self.ap_plan.txop_ns
        } else {
            self.edcafs[edcaf as usize].txop_ns
        }
    }

    /// The medium is busy for `busy_ns` from `now`, then the stations that did not send
    /// resume after `others_ifs_ns` (those that did, as `outcome` says); counting resumes
    /// from idle slot `slot`; `internal_losers` settle at its end.
    fn go_busy(
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
    fn unanswered_attempt(
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
    fn charge_airtime(&mut self, sender: u32, receiver: u32, airtime_ns: u64) {
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
    fn count_ap_access(&mut self, edcaf: u32) {
        let ack_headed = self.plans(edcaf) && self.ap_plan.queue == ApQueue::Ack;
        let zero = self.edcafs[edcaf as usize].zero_backoff;
        self.counters.count_ap_access(ack_headed, zero);
    }

    /// Hands `count` frames from position `from` of a queue to their receivers at `at`.
    fn deliver(
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
    fn completed(&mut self, now: Instant, edcaf: u32) {
        if self.txqs.is_some() {
            self.refill(now, edcaf);
        }
    }

    /// Counts a failed transmission: the frame is dropped at its retry limit (an aggregate
    /// whole), otherwise it will be retried with a doubled contention window.
    fn settle_failure(&mut self, failed: FailedFrame) {
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

    /// Discards the MSDUs at the heads of `edcaf`'s queues whose MSDU lifetime has passed
    /// since their first attempt, or that have waited longer than the queue's sojourn limit
    /// (queues are FIFO, so both are a prefix); whether any was.
    fn discard_expired(&mut self, now: Instant, edcaf: u32) -> bool {
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
    fn mark_attempted(&mut self, at: Instant, edcaf: u32, queue: usize, carried: Range<usize>) {
        if !self.notes_attempts() {
            return;
        }
        let mut meter = meter_of(&mut self.meters, edcaf);
        for frame in self.edcafs[edcaf as usize].queues[queue].range_mut(carried) {
            queue_meter::note_attempt(meter.as_deref_mut(), at, frame);
        }
    }

    /// Whether frames' first attempts are noted: for the MSDU lifetime, or for the sojourns.
    fn notes_attempts(&self) -> bool {
        self.params.msdu_lifetime_ns.is_some() || self.meters.is_some()
    }

    /// Removes the head frame of a queue after success or drop; the contention window resets.
    fn pop_head(&mut self, edcaf: u32, queue: usize) -> Frame {
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
    fn reset_retries(&mut self, edcaf: u32) {
        let station = &mut self.edcafs[edcaf as usize];
        station.short_retries = 0;
        station.long_retries = 0;
        station.cw = station.cw_min;
    }
}

mod agent_view;
mod ampdu;
mod block_ack_req;
mod capture;
mod edca;
mod queue_meter;
mod roaming;
#[cfg(test)]
mod tests;
mod txq;
