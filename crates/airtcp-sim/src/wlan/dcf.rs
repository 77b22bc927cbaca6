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
//!
//! Where each part lives: the queued frame (`frame`), the MAC parameters (`params`) and
//! counters (`counters`); channel access and backoff, with the EDCAFs and the medium's
//! count of idle slots (`access`); the MAC queues, frames in and out and the MSDU lifetime
//! (`queues`); a transmission's start and what comes of it (`transmission`); the end of a
//! busy period, its outcome settled (`outcome`). EDCA (`edca`), A-MPDU (`ampdu`),
//! BlockAckReqs (`block_ack_req`), captures (`capture`), roaming stations (`roaming`),
//! mac80211's queues and qdiscs (`txq`), queue sojourns (`queue_meter`) and an agent's view
//! of a MAC queue (`agent_view`) have their own. This file keeps the `Bss` and its set-up
//! and accessors.

use std::collections::VecDeque;

use airtcp_proto::agent::{AccessPlan, AccessPlanner, Agent, ApQueue};

use crate::config::{AmpduLimits, Driver, Qdisc, Queueing};
use crate::interface::AgentSlot;
use airtcp_proto::wifi::edca::AccessCategory;
use airtcp_proto::wifi::Phy;
use airtcp_proto::Instant;

pub(crate) use super::block_ack::{MpduState, RetryCounter};
use access::{Edcaf, Medium, SlotCount};
pub use agent_view::MacQueue;
pub use capture::{AirBody, AirFrame};
pub use counters::MacCounters;
pub use frame::{Frame, LLC_SNAP_BYTES};
use outcome::{FailedFrame, Outcome};
pub use params::MacParams;
pub(crate) use queue_meter::{frames_ip_bytes, meter_of, note_attempt, QueueMeter};
pub use queue_meter::{MacQueueId, MacQueueSample};
pub(crate) use txq::{expected_airtime_ns, Budget, Sizing, Txqs};

#[cfg(test)]
use super::ap_plan::{a_msdu_bytes, QOS_CONTROL_BYTES};
use crate::error_model::ErrorModel;
use crate::packet::Packet;
use crate::rng::Stream;
use crate::sojourn::SojournSample;

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
}

mod access;
mod agent_view;
mod ampdu;
mod block_ack_req;
mod capture;
mod counters;
mod edca;
mod frame;
mod outcome;
mod params;
mod queue_meter;
mod queues;
mod roaming;
#[cfg(test)]
mod tests;
mod transmission;
mod txq;
