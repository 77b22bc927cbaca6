//! Wi-Fi in space: the WLANs that share one channel, with positions, propagation, reception
//! from SINR and each radio's own carrier sense: IEEE 802.11-2020 §10.3 DCF run per radio,
//! as ns-3's wifi module runs it per device.
//!
//! A channel goes this way when its WLANs have geometry (positions, a channel shared by
//! several WLANs, or rate control); otherwise each WLAN keeps the single collision domain
//! of `wlan::dcf`, resolved centrally, and its results do not change.
//!
//! - **Radios.** One per node on the channel: a mesh node that is a station of one WLAN and
//!   the AP of the next sends and receives with one radio, one DCF serving its interfaces'
//!   queues in arrival order.
//! - **Signals** (`geometry`): a transmission reaches the radios within the cut-off with the
//!   pair's gain (path loss and shadowing, `config`), per-frame fading drawn on top, after
//!   the pair's propagation delay. A frame costs work in proportion to the radios it reaches.
//! - **Reception** (`reception`): an idle PHY locks on a frame whose preamble arrives above
//!   the detection power and SNR; with frame capture it switches to one arriving stronger by
//!   the margin; the frame it locked on survives with the probability its SINR chunks give.
//!   A frame received in error makes the radio wait EIFS; a correct one addressed elsewhere
//!   sets its NAV from the Duration field (RTS, CTS, data). ACKs and CTSs can be lost too.
//! - **Carrier sense** (`access`): a radio's medium is busy while it sends, receives, waits
//!   for a response, hears energy above the CCA threshold, or its NAV runs; stations that do
//!   not hear each other both transmit (hidden terminals), and a radio hearing a frame it
//!   cannot decode under the preamble threshold is free (exposed terminals transmit).
//!   A signal is sensed `cca_time` after it arrives (4 µs by default, ns-3's preamble
//!   detection time; the standard allows up to aCCATime, 15 µs for DSSS, 4 µs for OFDM): a
//!   radio whose backoff ends within that time of another's frame reaching it transmits
//!   too (a collision in the same slot).
//! - **Exchanges**: DATA-ACK, or RTS-CTS-DATA-ACK above the RTS threshold; a CTS only while
//!   the responder's NAV is clear; AckTimeout/CTSTimeout from the frame's end
//!   (`Phy::response_timeout_ns`), extended while a response is being received; retries on
//!   the short and long counters, duplicate detection by sequence number at the receiver
//!   (a lost ACK makes the sender retry a frame delivered already); in an aggregating WLAN,
//!   A-MPDU-BlockAck with the recipient's reordering buffer (`aggregation`).
//! - **Rates**: per WLAN, per station (`station_rates`: frames to and from it) or by a rate
//!   control algorithm per destination (`airtcp_proto::wifi::rate_control`); control frames
//!   at the highest basic rate not above the data frame's.
//! - **A-MPDU** (`aggregation`): on the MCS PHYs, with each MPDU decoded at its own SINR and
//!   BlockAcks that can be lost. **EDCA** (`access`, `edca`): each radio contends as the
//!   EDCAF of its traffic's one access category, or with four EDCAFs and internal
//!   collisions where the traffic uses several; TXOP limits make bursts of single frames
//!   (`planning::Txop`) or shorten A-MPDUs. **mac80211's queues** (`queueing`): the central
//!   DCF's, feeding each MAC's queue on the channel.
//! - **Access planning** (`planning`): an AP's agent that plans its channel access (paper
//!   000) gets the AP's ACK queue and its plan is carried out by the AP's radio, as the
//!   central DCF does it (backoff 0, TXOPs, A-MSDUs); the agent hears the idle slots and busy
//!   periods that radio perceives.
//!
//! Simplifications, stated: signals are registered at every receiver when sent and end
//! there when the transmission ends, each at its own arrival times (sub-microsecond
//! propagation delays shift no event); the NAV is not reset after an unanswered RTS;
//! adjacent-channel leakage is not modelled (two channels never interact); the MSDU
//! lifetime, queue sojourn limits and roaming need a WLAN without geometry, and an access-planning agent an AP whose node
//! is in no other WLAN of its channel and neither A-MPDU nor EDCA.

mod access;
mod aggregation;
mod air;
mod block_ack_req;
mod carrier;
mod edca;
mod exchange;
mod expiry;
mod geometry;
pub mod motion;
mod planning;
mod queue_samples;
mod queueing;
mod reception;
pub mod series;
pub mod validate;

use std::collections::VecDeque;
use std::time::Duration;

use airtcp_proto::agent::{Agent, ApQueue};
use airtcp_proto::wifi::edca::{AccessCategory, EdcaParams};
use airtcp_proto::wifi::error_rate::Family;
use airtcp_proto::wifi::propagation::{dbm_to_mw, mw_to_dbm, noise_dbm};
use airtcp_proto::wifi::rate_control::{RateControl, RateInfo};
use airtcp_proto::wifi::{
    Modulation, Phy, Preamble, FRAME_ACK_BYTES, FRAME_CTS_BYTES, FRAME_RTS_BYTES,
};
use airtcp_proto::Instant;
use rand::Rng;
use rand_distr::{Distribution, Exp1, Gamma};
use serde::Serialize;

use crate::config::{AmpduLimits, Driver, EdcaSet, MotionConfig, Qdisc, Queueing};
pub use crate::config::{DcfModel, FadingConfig, NodePosition, PropagationConfig, RadioConfig};
use crate::interface::AgentSlot;
use crate::packet::Packet;
use crate::rng::{stream, Stream, StreamId};
use crate::slab::Slab;
use crate::wlan::ap_plan::queue_full;
use crate::wlan::dcf::{note_attempt, MacQueueId, MacQueueSample, QueueMeter, Txqs};
use crate::wlan::{AirBody, AirFrame, Frame, MacCounters, MacParams, MacQueue};
use access::{Access, Edcaf};
use aggregation::{Aggregating, BlockAcks, InFlight};
use carrier::BackoffEnds;
use geometry::Neighbour;
pub use geometry::Placement;
use motion::Motion;
use planning::{Perception, Planning, Txop};
use reception::{Antenna, Arrival, FrameShape, SuccessCache};

/// Something a shared channel asked to be woken for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RadioEvent {
    /// The earliest backoff end of the channel's radios (`SharedChannel::backoff_ends`).
    Accesses,
    /// A transmission's last bit leaves its sender.
    TxEnd { tx: u32 },
    /// SIFS after a frame: a radio sends the response (CTS, ACK) or data frame it owes.
    Sifs { radio: u32 },
    /// A radio's AckTimeout or CTSTimeout.
    Timeout { radio: u32, generation: u32 },
    /// The moving radios' positions are due again (`RadioConfig::position_update_ns`).
    Move,
}

/// What the caller must do after a call into a shared channel.
#[derive(Debug, Default)]
pub struct RadioActions {
    pub timers: Vec<(Instant, RadioEvent)>,
    /// A packet reaches MAC `mac` of WLAN `bss` at a time.
    pub deliveries: Vec<(Instant, u32, u32, Packet)>,
    /// Frames that ended on the air, with their WLAN, while capturing (`capture_air`).
    pub air: Vec<(u32, AirFrame)>,
}

/// What only a channel with geometry counts, per WLAN (next to its `MacCounters`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct RadioCounters {
    /// Data frames that went unacknowledged (sent alone, or after their CTS).
    pub data_failures: u64,
    /// RTS frames that got no CTS.
    pub rts_failures: u64,
    /// Receptions a stronger frame took over (frame capture).
    pub captures: u64,
    /// Data frames received again after their ACK was lost (delivered once).
    pub duplicates: u64,
}

/// One WLAN of the channel: its index in the scenario, PHY, MAC settings, rates, counters.
#[derive(Debug)]
pub struct WlanPart {
    pub bss: u32,
    pub phy: Phy,
    pub params: MacParams,
    /// Per MAC (0 the AP): the data rate of frames to and from it, for fixed rates.
    pub mac_rates: Vec<u64>,
    /// The rate control algorithm's name, if one chooses the rates.
    pub rate_control: Option<String>,
    pub counters: MacCounters,
    pub radio_counters: RadioCounters,
    /// How it aggregates, if it does (`aggregation`).
    aggregation: Option<Aggregating>,
    /// Index of its MAC 0 in the channel's interfaces; MAC m is `first_interface + m`.
    first_interface: u32,
}

/// What one MAC of a WLAN with geometry sent, and how its peers heard it.
#[derive(Clone, Copy, Debug, Default)]
pub struct StationStats {
    /// Data or RTS frames that opened an attempt, the attempts that failed, and the frames
    /// delivered.
    pub attempts: u64,
    pub failures: u64,
    pub delivered: u64,
    /// The sum of the attempts' data rates (their mean is the rate it used).
    pub rate_sum_bps: f64,
    /// The frames its addressees decoded from it and the sum of their received powers.
    pub received: u64,
    pub power_sum_mw: f64,
}

impl StationStats {
    /// An attempt at `rate_bps`.
    fn count_attempt(&mut self, rate_bps: u64) {
        self.attempts += 1;
        self.rate_sum_bps += rate_bps as f64;
    }
}

/// A WLAN's MAC on the channel: its radio, queue and agent.
#[derive(Debug)]
struct Interface {
    wlan: u32,
    mac: u32,
    radio: u32,
    /// Indexed by `ApQueue`: the data queue, and the ACK queue of an AP whose agent plans
    /// its channel access (`planning`); other MACs use only the first.
    queues: [VecDeque<Frame>; 2],
    held: Vec<(u32, Frame)>,
    agent: Option<AgentSlot>,
    /// At an AP whose agent plans its channel access: the plan and what it carries.
    planning: Option<Planning>,
    /// The A-MPDU it has on the air, in an aggregating WLAN.
    in_flight: InFlight,
    /// mac80211's intermediate queues, if its WLAN keeps them (`queueing`).
    txqs: Option<Txqs>,
    /// The EDCAF of its radio that serves it (`Access::edcafs`): 0, but with EDCA for several
    /// access categories, where a MAC has an interface per AC, that AC's (`edca`).
    edcaf: u8,
    /// With EDCA for several ACs: the MAC's interfaces per AC (`AccessCategory::ALL`'s
    /// order), AC_BE's the MAC's own (`first_interface + mac`).
    by_ac: Option<[u32; 4]>,
    /// With `queue_sojourn`, what its queues dropped, marked and held frames for.
    meter: Option<Box<QueueMeter>>,
    /// The MAC's own interface, which counts `stats` for all of the MAC's.
    mac_interface: u32,
    stats: StationStats,
    /// `stats` at the last sampling instant.
    sampled: StationStats,
}

impl Interface {
    /// Whether it is its MAC's own interface, at index `k` (not one of its other ACs').
    fn is_mac(&self, k: usize) -> bool {
        self.mac_interface as usize == k
    }
}

impl SharedChannel {
    /// What the MAC of interface `i` sent and was heard with, counted on its own interface
    /// for all of its ACs'.
    fn mac_stats(&mut self, i: u32) -> &mut StationStats {
        let mac_interface = self.interfaces[i as usize].mac_interface;
        &mut self.interfaces[mac_interface as usize].stats
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Data,
    Rts,
    Cts,
    Ack,
    BlockAck,
    BlockAckReq,
}

/// A frame on the air.
#[derive(Clone, Copy, Debug)]
struct Transmission {
    kind: Kind,
    sender: u32,
    /// The radio it is addressed to.
    to: u32,
    wlan: u32,
    rate_bps: u64,
    start: Instant,
    /// The Duration field, ns after the frame's end (the NAV it sets).
    duration_ns: u64,
    /// Data frames: their header's fields (the MSDUs stay in the sender's queue).
    data: Option<DataHeader>,
    /// Another signal overlapped it at its addressee (its failure is a collision).
    overlapped: bool,
    /// Never reused, unlike its slot (`Arrival::serial`).
    serial: u32,
    /// On a channel whose radios move: the slot of the radios it reached.
    reached: Option<u32>,
}

/// What a data frame's addressee reads of its MAC header: the sequence number and retry
/// bit. Its MSDUs (one, or an A-MSDU's, each with the MAC it is for) are the head frames of the
/// sender's exchange, which stay queued while the frame is on the air
/// (`SharedChannel::carried`): a transmission is copied in and out of the slab of those on
/// the air, and packets are most of a frame's bytes.
#[derive(Clone, Copy, Debug)]
struct DataHeader {
    sequence: u16,
    retry: bool,
    /// In an aggregating WLAN, its MPDUs (one: an S-MPDU); 0 otherwise.
    mpdus: u16,
    /// The sender's EDCAF (its TID's AC with EDCA for several ACs; 0 otherwise).
    tid: u8,
}

/// A response a radio owes SIFS after a frame, or the data frame after its CTS.
#[derive(Clone, Copy, Debug)]
struct Owed {
    kind: Kind,
    to: u32,
    wlan: u32,
    rate_bps: u64,
    duration_ns: u64,
}

/// The exchange a radio has under way: its head frame's interface and queue, the frames its
/// MAC frame carries (an A-MSDU's), the rate (and the rate control's index of it), whether
/// it opened with an RTS, and where it stands; at a planning AP, the TXOP it belongs to.
#[derive(Clone, Copy, Debug)]
struct Exchange {
    interface: u32,
    queue: usize,
    msdus: usize,
    to: u32,
    rate_bps: u64,
    rate_index: Option<usize>,
    /// In an aggregating WLAN, the MPDUs of its A-MPDU (`Interface::in_flight`); 0 otherwise.
    mpdus: u16,
    rts: bool,
    /// The data frame is longer than the RTS threshold: its failures count against the long
    /// retry limit once it is on the air (§10.3.4.4), after a CTS or in a TXOP without one.
    long: bool,
    /// The TXOP this exchange is part of, and whether it is one of its further frames
    /// (neither an access nor an attempt of its own in the WLAN's counters, as in `wlan::dcf`).
    txop: Option<Txop>,
    continues_txop: bool,
    /// A CTS came back: the data frame is under way.
    cts_received: bool,
    /// The attempt failed where another signal interfered (a collision), as far as known.
    collided: bool,
    /// A BlockAckReq's exchange (`block_ack_req`): the recipient MAC and the starting
    /// sequence number it carries.
    block_ack_req: Option<(u32, u16)>,
}

/// Waiting for the response to a frame (CTS to an RTS, ACK to data).
#[derive(Clone, Copy, Debug)]
struct Awaiting {
    kind: Kind,
    from: u32,
    /// The timeout passed while a frame was being received: decide at its end.
    expired: bool,
    generation: u32,
}

/// How a radio picks the rate towards one destination.
#[derive(Debug)]
enum RateChoice {
    Fixed(u64),
    Control {
        control: Box<dyn RateControl>,
        rates: Vec<u64>,
    },
}

#[derive(Debug)]
struct Radio {
    node: usize,
    tx_power_mw: f64,
    interfaces: Vec<u32>,
    antenna: Antenna,
    /// The end of the radio's own transmission under way.
    sending_until: Option<Instant>,
    nav_until: Instant,
    access: Access,
    exchange: Option<Exchange>,
    awaiting: Option<Awaiting>,
    owed: Option<Owed>,
    next_sequence: u16,
    /// Per transmitter radio and EDCAF there (`DataHeader::tid`), the last sequence number
    /// received (duplicate detection, §10.3.2.14.3: per transmitter and TID).
    last_sequence: Vec<(u32, u16)>,
    /// Per destination radio, how the rate is chosen (created on first use).
    rates: Vec<(u32, RateChoice)>,
    /// Draws of rate controls (Minstrel's sampling) are keyed off this.
    seed: u64,
}

/// The WLANs sharing one channel with geometry.
#[derive(Debug)]
pub struct SharedChannel {
    /// Timing shared by every WLAN of the channel (slot, SIFS, DIFS, CW).
    phy: Phy,
    wlans: Vec<WlanPart>,
    radios: Vec<Radio>,
    interfaces: Vec<Interface>,
    neighbours: Vec<Vec<Neighbour>>,
    transmissions: Slab<Transmission>,
    /// The interfaces whose agents plan their AP's access (`planning`).
    planners: Vec<u32>,
    noise_mw: f64,
    /// The medium is busy while the signals at an antenna sum to this (energy detection,
    /// or ns-3's CCA sensitivity for signals the PHY does not receive, if lower).
    cca_busy_mw: f64,
    /// ns-3 3.44's channel access (`DcfModel::Ns3`).
    dcf_ns3: bool,
    /// A WLAN sets an MSDU lifetime or a queue sojourn limit (`expiry`).
    time_limits: bool,
    preamble_rssi_mw: f64,
    preamble_snr: f64,
    capture_ratio: Option<f64>,
    /// aCCATime: how long after a signal arrives a radio senses it.
    cca_time_ns: u64,
    fading: FadingConfig,
    rng: Stream,
    /// The radios' backoff ends: one event of the run for the earliest, not one per radio
    /// and backoff, most of which a frame would make stale.
    backoff_ends: BackoffEnds,
    /// The time of the earliest `Accesses` event pending in the run.
    armed: Option<Instant>,
    success_cache: SuccessCache,
    /// The Block Ack agreements of aggregating WLANs.
    block_acks: BlockAcks,
    /// Report every frame in `RadioActions::air`.
    capture: bool,
    /// The serial number of the next transmission.
    next_serial: u32,
    /// Radios that move, if any do.
    moving: Option<Moving>,
}

/// A channel whose radios move: where each is, how it moves, what the neighbour lists are
/// recomputed from, and the radios each frame on the air reached (the lists may change
/// before it ends).
#[derive(Debug)]
struct Moving {
    motions: Vec<Option<Motion>>,
    placements: Vec<Placement>,
    radio: RadioConfig,
    frequency_hz: f64,
    cutoff_dbm: f64,
    keys: (u64, u32),
    reached: Slab<Vec<Neighbour>>,
    spare: Vec<Vec<Neighbour>>,
}

/// A WLAN to put on a shared channel: its scenario index, PHY and MAC settings, its MACs'
/// nodes (AP first), per-MAC fixed rates and the rate control, if any.
pub struct WlanSpec {
    pub bss: u32,
    pub phy: Phy,
    pub params: MacParams,
    pub nodes: Vec<usize>,
    pub mac_rates: Vec<u64>,
    pub rate_control: Option<String>,
    /// A-MPDU aggregation (an MCS PHY's WLAN only), if on.
    pub ampdu: Option<AmpduLimits>,
    /// With EDCA, the parameters of the WLAN's access categories, and the one AC its
    /// traffic uses (`None`: several, each MAC contending with four EDCAFs, `edca`).
    pub edca: Option<(EdcaSet, Option<AccessCategory>)>,
    /// The queues between the stack and the channel (`queueing`), the driver's below them,
    /// and the key of their flow hash.
    pub queueing: Queueing,
    pub driver: Driver,
    /// Beside `queueing = "fifo"`, the qdisc above each MAC's driver (`aqm`).
    pub qdisc: Option<Qdisc>,
    pub flow_hash_key: u64,
}

impl SharedChannel {
    /// Builds the channel `channel` (an index keying its random streams) of these WLANs;
    /// `placement(node)` gives a node's position and power (every node here has one).
    pub fn new(
        channel: u32,
        seed: u64,
        wlans: Vec<WlanSpec>,
        radio: &RadioConfig,
        frequency_hz: f64,
        placement: impl Fn(usize) -> (Placement, Option<MotionConfig>),
    ) -> Self {
        let phy = wlans[0].phy.clone();
        let mut radios: Vec<Radio> = Vec::new();
        let mut placements = Vec::new();
        let mut motions = Vec::new();
        let mut interfaces = Vec::new();
        let mut parts = Vec::new();
        // Per radio: it took an AP's EDCA parameters.
        let mut edca_ap: Vec<bool> = Vec::new();
        // The TXOP limits any radio's EDCAF may have (a relay takes another WLAN's set).
        let txops: Vec<u64> = (wlans.iter().flat_map(|spec| &spec.edca))
            .flat_map(|(set, _)| set.station.iter().chain(&set.ap))
            .map(|params| params.txop_limit_ns)
            .collect();
        for (w, spec) in wlans.into_iter().enumerate() {
            let first_interface = interfaces.len() as u32;
            // an interface per AC and MAC (`edca`)
            let several_acs = matches!(spec.edca, Some((_, None)));
            for (mac, &node) in spec.nodes.iter().enumerate() {
                let index = match radios.iter().position(|r| r.node == node) {
                    Some(index) => index,
                    None => {
                        let (place, motion) = placement(node);
                        placements.push(place);
                        let id = radios.len() as u32;
                        motions.push(motion.map(|config| {
                            let rng = stream(seed, StreamId::RadioMotion { channel, radio: id });
                            Motion::new(config, place.position, rng)
                        }));
                        let rng = stream(seed, StreamId::Radio { channel, radio: id });
                        radios.push(Radio {
                            node,
                            tx_power_mw: dbm_to_mw(place.tx_power_dbm),
                            interfaces: Vec::new(),
                            antenna: Antenna::default(),
                            sending_until: None,
                            nav_until: Instant::ZERO,
                            access: Access::new(
                                vec![Edcaf::new((phy.difs_ns(), phy.cw_min, phy.cw_max))],
                                rng,
                            ),
                            exchange: None,
                            awaiting: None,
                            owed: None,
                            next_sequence: 0,
                            last_sequence: Vec::new(),
                            rates: Vec::new(),
                            seed: seed ^ (u64::from(channel) << 32) ^ u64::from(id),
                        });
                        radios.len() - 1
                    }
                };
                radios[index].interfaces.push(interfaces.len() as u32);
                if let Some((set, one_ac)) = &spec.edca {
                    // A radio that is the AP of one WLAN and a station of another (a relay)
                    // contends with the AP's parameters.
                    let params = if mac == 0 { &set.ap } else { &set.station };
                    if edca_ap.len() <= index {
                        edca_ap.resize(index + 1, false);
                    }
                    if mac == 0 || !edca_ap[index] {
                        let edcaf = |p: &EdcaParams| {
                            let aifs = phy.sifs_ns + u64::from(p.aifsn) * phy.slot_ns;
                            Edcaf {
                                txop_ns: p.txop_limit_ns,
                                ..Edcaf::new((aifs, p.cw_min, p.cw_max))
                            }
                        };
                        radios[index].access.edcafs = match one_ac {
                            Some(ac) => vec![edcaf(&params[*ac as usize])],
                            None => params.iter().map(edcaf).collect(),
                        };
                    }
                    edca_ap[index] |= mac == 0;
                }
                let own = interfaces.len() as u32;
                let ac_index = if several_acs {
                    AccessCategory::Be as u8
                } else {
                    0
                };
                interfaces.push(Interface {
                    wlan: w as u32,
                    mac: mac as u32,
                    radio: index as u32,
                    queues: [VecDeque::new(), VecDeque::new()],
                    held: Vec::new(),
                    agent: None,
                    planning: None,
                    in_flight: InFlight::default(),
                    txqs: queueing::txqs_of(&spec, mac as u32, ac_index),
                    edcaf: ac_index,
                    by_ac: None,
                    meter: None,
                    mac_interface: own,
                    stats: StationStats::default(),
                    sampled: StationStats::default(),
                });
            }
            if several_acs {
                edca::add_ac_interfaces(&mut interfaces, &mut radios, first_interface, &spec);
            }
            let stations = spec.nodes.len() - 1;
            let protected = spec.params.rts_threshold.is_some();
            let aggregation =
                Aggregating::of(&spec.phy, spec.ampdu, &spec.mac_rates, (&txops, protected));
            parts.push(WlanPart {
                bss: spec.bss,
                counters: MacCounters {
                    contenders: vec![0; spec.nodes.len() + 1],
                    station_lifetime_drops: vec![0; stations],
                    station_queue_delay_drops: vec![0; stations],
                    station_uplink_airtime_ns: vec![0; stations],
                    station_downlink_airtime_ns: vec![0; stations],
                    ..MacCounters::default()
                },
                phy: spec.phy,
                params: spec.params,
                mac_rates: spec.mac_rates,
                rate_control: spec.rate_control,
                radio_counters: RadioCounters::default(),
                aggregation,
                first_interface,
            });
        }
        let noise_dbm = noise_dbm(phy.noise_bandwidth_hz(), radio.noise_figure_db);
        let cutoff = radio.cutoff_dbm.unwrap_or(noise_dbm - 20.0);
        let neighbours =
            geometry::neighbours(&placements, radio, frequency_hz, cutoff, (seed, channel));
        // Radios start idle: the medium has been idle since time 0.
        for r in &mut radios {
            r.access.idle_since = Some(Instant::ZERO);
            r.access.ns3_eifs_ack_ns = (radio.dcf == DcfModel::Ns3).then(|| match phy.modulation {
                // ns-3 3.44's WifiPhy::Configure80211b (and g, which calls it): 304 µs, an ACK
                // at 1 Mbit/s, whatever the PPDU (3.45 estimates it per PPDU, as airtcp).
                Modulation::Dsss(_) | Modulation::ErpOfdm => 304_000,
                _ => phy.eifs_ns(phy.basic_rate_bps) - phy.sifs_ns - phy.difs_ns(),
            });
        }
        let time_limits = (parts.iter())
            .any(|p| p.params.msdu_lifetime_ns.is_some() || p.params.queue_max_delay_ns.is_some());
        SharedChannel {
            backoff_ends: BackoffEnds::new(radios.len()),
            cca_time_ns: radio.cca_time_ns,
            phy,
            wlans: parts,
            radios,
            interfaces,
            neighbours,
            transmissions: Slab::default(),
            planners: Vec::new(),
            noise_mw: dbm_to_mw(noise_dbm),
            cca_busy_mw: dbm_to_mw(
                radio
                    .cca_sensitivity_dbm
                    .map_or(radio.cca_ed_threshold_dbm, |s| {
                        s.min(radio.cca_ed_threshold_dbm)
                    }),
            ),
            dcf_ns3: radio.dcf == DcfModel::Ns3,
            time_limits,
            preamble_rssi_mw: dbm_to_mw(radio.preamble_rssi_dbm),
            preamble_snr: dbm_to_mw(radio.preamble_snr_db),
            capture_ratio: radio.capture_margin_db.map(dbm_to_mw),
            fading: radio.fading,
            rng: stream(seed, StreamId::RadioChannel { channel }),
            armed: None,
            success_cache: SuccessCache::default(),
            block_acks: BlockAcks::default(),
            capture: false,
            next_serial: 0,
            moving: motions.iter().any(Option::is_some).then(|| Moving {
                motions,
                placements,
                radio: radio.clone(),
                frequency_hz,
                cutoff_dbm: cutoff,
                keys: (seed, channel),
                reached: Slab::default(),
                spare: Vec::new(),
            }),
        }
    }

    /// When the moving radios' positions are first due (their run event), if any move.
    pub fn first_move(&self) -> Option<Instant> {
        let moving = self.moving.as_ref()?;
        Some(Instant::from_nanos(moving.radio.position_update_ns))
    }

    /// The moving radios move to where they are at `now`; who hears whom is recomputed.
    fn move_radios(&mut self, now: Instant, out: &mut RadioActions) {
        let Some(moving) = &mut self.moving else {
            return;
        };
        let t = now.as_secs_f64();
        for (place, motion) in moving.placements.iter_mut().zip(&mut moving.motions) {
            if let Some(motion) = motion {
                place.position = motion.position_at(t);
            }
        }
        self.neighbours = geometry::neighbours(
            &moving.placements,
            &moving.radio,
            moving.frequency_hz,
            moving.cutoff_dbm,
            moving.keys,
        );
        let next = now + Duration::from_nanos(moving.radio.position_update_ns);
        out.timers.push((next, RadioEvent::Move));
    }

    /// Reports every frame put on the air from now on in `RadioActions::air`.
    pub fn capture_air(&mut self) {
        self.capture = true;
    }

    /// The WLANs on this channel.
    pub fn wlans(&self) -> &[WlanPart] {
        &self.wlans
    }

    /// Per MAC of WLAN `bss` (the AP first), its node and what it sent and was heard with.
    pub fn station_stats(&self, bss: u32) -> Vec<(usize, StationStats)> {
        let part = self.part(bss);
        self.interfaces
            .iter()
            .enumerate()
            .skip(part.first_interface as usize)
            .take_while(|(k, i)| self.wlans[i.wlan as usize].bss == bss && i.is_mac(*k))
            .map(|(_, i)| i)
            .map(|i| (self.radios[i.radio as usize].node, i.stats))
            .collect()
    }

    /// Per MAC of the channel (in WLAN order, the AP first), its node and what it did since
    /// the last call: attempts, failures, mean rate and mean decoded power.
    pub fn sample(&mut self) -> impl Iterator<Item = (u32, usize, StationStats)> + '_ {
        let radios = &self.radios;
        let wlans = &self.wlans;
        let macs = self.interfaces.iter_mut().enumerate();
        macs.filter(|(k, i)| i.is_mac(*k)).map(move |(_, i)| {
            let s = i.stats;
            let d = StationStats {
                attempts: s.attempts - i.sampled.attempts,
                failures: s.failures - i.sampled.failures,
                delivered: s.delivered - i.sampled.delivered,
                rate_sum_bps: s.rate_sum_bps - i.sampled.rate_sum_bps,
                received: s.received - i.sampled.received,
                power_sum_mw: s.power_sum_mw - i.sampled.power_sum_mw,
            };
            i.sampled = s;
            (wlans[i.wlan as usize].bss, radios[i.radio as usize].node, d)
        })
    }

    /// The noise power in dBm.
    pub fn noise_dbm(&self) -> f64 {
        mw_to_dbm(self.noise_mw)
    }

    /// The counters of WLAN `bss` (on this channel).
    pub fn counters(&self, bss: u32) -> (&MacCounters, &RadioCounters) {
        let part = self.part(bss);
        (&part.counters, &part.radio_counters)
    }

    fn part(&self, bss: u32) -> &WlanPart {
        self.wlans
            .iter()
            .find(|w| w.bss == bss)
            .expect("the WLAN is on this channel")
    }

    fn interface_of(&self, bss: u32, mac: u32) -> u32 {
        self.part(bss).first_interface + mac
    }

    /// The node of a WLAN's MAC.
    pub fn node(&self, bss: u32, mac: u32) -> usize {
        let interface = &self.interfaces[self.interface_of(bss, mac) as usize];
        self.radios[interface.radio as usize].node
    }

    /// Puts an agent on a MAC's interface (before any traffic): with EDCA for several ACs,
    /// its AC `ac`'s (`edca`), whose queue it works on; on the AP, an agent that plans access
    /// gets the AP's ACK queue and plans its radio's accesses, and hears what the radio
    /// perceives of the channel (`planning`).
    pub fn place_agent(
        &mut self,
        bss: u32,
        mac: u32,
        mut agent: Box<dyn Agent>,
        ac: AccessCategory,
    ) {
        let own = self.interface_of(bss, mac);
        let i = self.interfaces[own as usize]
            .by_ac
            .map_or(own, |by_ac| by_ac[ac as usize]);
        if mac == 0 && agent.access_planner().is_some() {
            self.interfaces[i as usize].planning = Some(Planning::new());
            let r = self.interfaces[i as usize].radio;
            self.radios[r as usize].access.perceived = Some(Perception::default());
            self.planners.push(i);
        }
        self.interfaces[i as usize].agent = Some(AgentSlot::new(agent));
    }

    /// Gives the AP's ACK queue of WLAN `bss` a limit of its own (an agent's `ack_queue`).
    pub fn limit_ack_queue(&mut self, bss: u32, packets: u32) {
        let part = self.wlans.iter_mut().find(|w| w.bss == bss);
        part.expect("the WLAN is on this channel")
            .params
            .ack_queue_packets = Some(packets);
    }

    /// The interface of a MAC that has its agent, if any has it: its own, or with EDCA for
    /// several ACs that of the agent's AC.
    fn agent_interface(&self, bss: u32, mac: u32) -> u32 {
        let own = self.interface_of(bss, mac);
        let Some(by_ac) = self.interfaces[own as usize].by_ac else {
            return own;
        };
        let with_agent = by_ac
            .into_iter()
            .find(|&i| self.interfaces[i as usize].agent.is_some());
        with_agent.unwrap_or(own)
    }

    pub fn has_agent(&self, bss: u32, mac: u32) -> bool {
        self.interfaces[self.agent_interface(bss, mac) as usize]
            .agent
            .is_some()
    }

    pub fn take_agent(&mut self, bss: u32, mac: u32) -> Option<Box<dyn Agent>> {
        let i = self.agent_interface(bss, mac) as usize;
        Some(self.interfaces[i].agent.take()?.agent)
    }

    /// The agent on a MAC's interface with the MAC's queue (its head frame, in service,
    /// hidden).
    pub fn agent_and_queue(
        &mut self,
        bss: u32,
        mac: u32,
    ) -> Option<(&mut AgentSlot, MacQueue<'_>)> {
        let i = self.agent_interface(bss, mac);
        let aggregating = self.aggregates(i);
        let interface = &mut self.interfaces[i as usize];
        let slot = interface.agent.as_mut()?;
        Some((
            slot,
            MacQueue::new(&mut interface.queues, &mut interface.held, mac, aggregating),
        ))
    }

    /// The agents on the channel's interfaces: (bss, mac, agent).
    pub fn agents(&self) -> impl Iterator<Item = (u32, u32, &dyn Agent)> {
        self.interfaces.iter().filter_map(|i| {
            let agent = i.agent.as_ref()?.agent.as_ref();
            Some((self.wlans[i.wlan as usize].bss, i.mac, agent))
        })
    }

    /// Queues a packet at MAC `mac` of WLAN `bss` for MAC `to`.
    pub fn enqueue(
        &mut self,
        now: Instant,
        bss: u32,
        mac: u32,
        packet: Packet,
        to: u32,
        out: &mut RadioActions,
    ) {
        self.queue_frame(now, bss, mac, packet, to);
        self.after_call(out);
    }

    /// A timer of this channel fired.
    #[inline(always)]
    pub fn on_event(&mut self, now: Instant, event: RadioEvent, out: &mut RadioActions) {
        self.handle(now, event, out);
        self.after_call(out);
    }

    /// After every call into the channel: the run's event for the earliest backoff end, and
    /// what the planning APs' radios perceived handed to their agents.
    fn after_call(&mut self, out: &mut RadioActions) {
        self.arm(out);
        if !self.block_acks.given_up.is_empty() {
            out.deliveries.append(&mut self.block_acks.given_up);
        }
        for k in 0..self.planners.len() {
            self.hand_perception(self.planners[k]);
        }
    }

    fn queue_frame(&mut self, now: Instant, bss: u32, mac: u32, packet: Packet, to: u32) {
        let i = self.ac_interface(self.interface_of(bss, mac), &packet);
        let k = self.edcaf_of(i);
        let queue = self.classify(i, &packet);
        let interface = &mut self.interfaces[i as usize];
        let r = interface.radio;
        // (beside mac80211's queues a planning AP's ACK queue sits below them, in the driver)
        if interface.txqs.is_some() && queue == ApQueue::Data as usize {
            let idle = interface.queues.iter().all(VecDeque::is_empty);
            let planning = interface.planning.is_some();
            let radio = &mut self.radios[r as usize];
            let sequence = radio.next_sequence;
            radio.next_sequence = sequence.wrapping_add(1);
            if self.enqueue_txq(i, Frame::new(packet, to, now, sequence), now) {
                if idle && planning && self.planned_arrival(i, now) {
                    return;
                }
                self.frame_waiting(r, k, now);
            }
            return;
        }
        let part = &mut self.wlans[interface.wlan as usize];
        if queue_full(&interface.queues, &part.params, queue) {
            part.counters.queue_drops += 1;
            if let Some(meter) = &mut interface.meter {
                meter.drops += 1;
            }
            return;
        }
        let radio = &mut self.radios[r as usize];
        // One sequence-number space per transmitter (§10.3.2.14).
        let sequence = radio.next_sequence;
        radio.next_sequence = sequence.wrapping_add(1);
        let head_changed = interface.queues[queue].is_empty()
            && (queue == ApQueue::Ack as usize || interface.queues[1 - queue].is_empty());
        interface.queues[queue].push_back(Frame::new(packet, to, now, sequence));
        if head_changed && interface.planning.is_some() && self.planned_arrival(i, now) {
            return;
        }
        self.frame_waiting(r, k, now);
    }

    /// Radio `r`'s EDCAF `k` has a frame waiting to be sent: its access starts, unless it
    /// is under way.
    fn frame_waiting(&mut self, r: u32, k: usize, now: Instant) {
        let serving = self.exchange_edcaf(r) == Some(k);
        if serving || self.radios[r as usize].access.edcafs[k].backoff.is_some() {
            return; // contending already, or a post-backoff will find it
        }
        // A radio that owes a response (its ACK to the frame that brought this packet) will
        // not see the medium idle for DIFS: the frame backs off. ns-3 looks at the PHY and
        // NAV alone and sends it DIFS after the response.
        // (the radio's exchange of another EDCAF holds the medium, also between its CTS and
        // its data frame)
        let busy = self.radios[r as usize].exchange.is_some()
            || if self.dcf_ns3 {
                self.is_busy_ignoring_response(r, now)
            } else {
                self.is_busy(r, now)
            };
        if busy {
            // A frame meeting a busy medium backs off (§10.3.4.3).
            self.radios[r as usize].access.draw(k);
        }
        // Idle (or idle once its NAV runs out): the access is due (with several EDCAFs,
        // this one's may come before the one pending).
        let access = &self.radios[r as usize].access;
        let several = access.edcafs.len() > 1;
        if access.idle_since.is_some() && (access.scheduled.is_none() || several) {
            self.schedule_access(r, now);
        }
    }

    fn handle(&mut self, now: Instant, event: RadioEvent, out: &mut RadioActions) {
        match event {
            RadioEvent::Accesses => {
                if self.armed == Some(now) {
                    self.armed = None;
                }
                // Every backoff that ends by now, earliest first: `access` clears each.
                while let Some((at, radio)) = self.backoff_ends.earliest() {
                    if at > now {
                        break;
                    }
                    self.access(radio, now, out);
                }
            }
            RadioEvent::TxEnd { tx } => self.end_transmission(tx, now, out),
            RadioEvent::Move => self.move_radios(now, out),
            RadioEvent::Sifs { radio } => {
                if let Some(owed) = self.radios[radio as usize].owed.take() {
                    self.send_owed(radio, owed, now, out);
                }
            }
            RadioEvent::Timeout { radio, generation } => {
                let r = &mut self.radios[radio as usize];
                let Some(awaiting) = &mut r.awaiting else {
                    return;
                };
                if awaiting.generation != generation {
                    return;
                }
                // A frame being received when the timeout passes may be the response: the
                // attempt is settled at its end (§10.3.2.9, PHY-RXSTART before the timeout).
                if r.antenna.lock.is_some() {
                    awaiting.expired = true;
                } else {
                    self.fail_attempt(radio, now);
                }
            }
        }
    }
}

/// An AP and a station 5 m apart on a channel of `phy` with these EDCA settings, short
/// retry limit and queueing, for the unit tests.
#[cfg(test)]
fn two_node_channel(
    phy: &Phy,
    edca: Option<(EdcaSet, Option<AccessCategory>)>,
    short_retry_limit: u32,
    queueing: Queueing,
) -> SharedChannel {
    let params = MacParams {
        rts_threshold: None,
        short_retry_limit,
        long_retry_limit: 4,
        queue_packets: 50,
        ack_queue_packets: None,
        msdu_lifetime_ns: None,
        queue_max_delay_ns: None,
        eifs_after_collision: true,
    };
    let wlan = WlanSpec {
        bss: 0,
        phy: phy.clone(),
        params,
        nodes: vec![0, 1],
        mac_rates: vec![phy.data_rate_bps; 2],
        rate_control: None,
        ampdu: None,
        edca,
        queueing,
        driver: Driver::ATH9K,
        qdisc: None,
        flow_hash_key: 0,
    };
    let place = |node: usize| {
        let placement = Placement {
            position: [5.0 * node as f64, 0.0, 0.0],
            tx_power_dbm: 16.0206,
        };
        (placement, None)
    };
    SharedChannel::new(0, 1, vec![wlan], &RadioConfig::default(), 2.412e9, place)
}
