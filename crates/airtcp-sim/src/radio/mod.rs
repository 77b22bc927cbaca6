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
//!   (a lost ACK makes the sender retry a frame delivered already).
//! - **Rates**: per WLAN, per station (`station_rates`: frames to and from it) or by a rate
//!   control algorithm per destination (`airtcp_proto::wifi::rate_control`); control frames
//!   at the highest basic rate not above the data frame's.
//!
//! Simplifications, stated: signals are registered at every receiver when sent and end
//! there when the transmission ends, each at its own arrival times (sub-microsecond
//! propagation delays shift no event); the NAV is not reset after an unanswered RTS;
//! adjacent-channel leakage is not modelled (two channels never interact); radios do not
//! move; the AP's access-planning agents, MSDU lifetime, queue sojourn limits, roaming and
//! 802.11 captures need a WLAN without geometry.

mod access;
pub mod config;
mod geometry;
pub mod motion;
mod reception;
pub mod series;
pub mod validate;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Duration;

use airtcp_proto::agent::Agent;
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

use crate::interface::AgentSlot;
use crate::packet::Packet;
use crate::rng::{stream, Stream, StreamId};
use crate::slab::Slab;
use crate::wlan::{AirBody, AirFrame, Frame, MacCounters, MacParams, MacQueue};
use access::Access;
pub use config::{FadingConfig, NodePosition, PropagationConfig, RadioConfig};
use geometry::Neighbour;
pub use geometry::Placement;
use motion::{Motion, MotionConfig};
use reception::{Antenna, Arrival, FrameShape, SuccessCache};

/// Something a shared channel asked to be woken for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RadioEvent {
    /// The earliest backoff end of the channel's radios (`SharedChannel::accesses`).
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

/// A WLAN's MAC on the channel: its radio, queue and agent.
#[derive(Debug)]
struct Interface {
    wlan: u32,
    mac: u32,
    radio: u32,
    /// Stations use only the first (the second is the fast path's AP ACK queue).
    queues: [VecDeque<Frame>; 2],
    held: Vec<(u32, Frame)>,
    agent: Option<AgentSlot>,
    stats: StationStats,
    /// `stats` at the last sampling instant.
    sampled: StationStats,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Data,
    Rts,
    Cts,
    Ack,
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
    /// Data frames: the MSDU, its sequence number and retry bit, and the receiving MAC.
    packet: Option<(Packet, u16, bool, u32)>,
    /// Another signal overlapped it at its addressee (its failure is a collision).
    overlapped: bool,
    /// Never reused, unlike its slot (`Arrival::serial`).
    serial: u32,
    /// On a channel whose radios move: the slot of the radios it reached.
    reached: Option<u32>,
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

/// The exchange a radio has under way: its head frame's interface, the rate (and the rate
/// control's index of it), whether it opened with an RTS, and where it stands.
#[derive(Clone, Copy, Debug)]
struct Exchange {
    interface: u32,
    to: u32,
    rate_bps: u64,
    rate_index: Option<usize>,
    rts: bool,
    /// A CTS came back: the data frame is under way.
    cts_received: bool,
    /// The attempt failed where another signal interfered (a collision), as far as known.
    collided: bool,
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
    short_retries: u32,
    long_retries: u32,
    next_sequence: u16,
    /// Per transmitter radio, the last sequence number received (duplicate detection).
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
    noise_mw: f64,
    cca_ed_mw: f64,
    preamble_rssi_mw: f64,
    preamble_snr: f64,
    capture_ratio: Option<f64>,
    /// aCCATime: how long after a signal arrives a radio senses it.
    cca_time_ns: u64,
    fading: FadingConfig,
    rng: Stream,
    /// Backoff ends (time, radio, generation), earliest first: entries a busy medium made
    /// stale stay until they surface, so that a frame costs the radios that hear it a heap
    /// push each, not an event of the run each.
    accesses: BinaryHeap<Reverse<(Instant, u32, u32)>>,
    /// The time of the earliest `Accesses` event pending in the run.
    armed: Option<Instant>,
    success_cache: SuccessCache,
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
        for (w, spec) in wlans.into_iter().enumerate() {
            let first_interface = interfaces.len() as u32;
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
                            access: Access::new(phy.cw_min, rng),
                            exchange: None,
                            awaiting: None,
                            owed: None,
                            short_retries: 0,
                            long_retries: 0,
                            next_sequence: 0,
                            last_sequence: Vec::new(),
                            rates: Vec::new(),
                            seed: seed ^ (u64::from(channel) << 32) ^ u64::from(id),
                        });
                        radios.len() - 1
                    }
                };
                radios[index].interfaces.push(interfaces.len() as u32);
                interfaces.push(Interface {
                    wlan: w as u32,
                    mac: mac as u32,
                    radio: index as u32,
                    queues: [VecDeque::new(), VecDeque::new()],
                    held: Vec::new(),
                    agent: None,
                    stats: StationStats::default(),
                    sampled: StationStats::default(),
                });
            }
            let stations = spec.nodes.len() - 1;
            parts.push(WlanPart {
                bss: spec.bss,
                counters: MacCounters {
                    contenders: vec![0; spec.nodes.len() + 1],
                    station_lifetime_drops: vec![0; stations],
                    station_queue_delay_drops: vec![0; stations],
                    ..MacCounters::default()
                },
                phy: spec.phy,
                params: spec.params,
                mac_rates: spec.mac_rates,
                rate_control: spec.rate_control,
                radio_counters: RadioCounters::default(),
                first_interface,
            });
        }
        let bandwidth = match phy.modulation {
            Modulation::Dsss(_) => 22e6,
            _ => 20e6,
        };
        let noise_dbm = noise_dbm(bandwidth, radio.noise_figure_db);
        let cutoff = radio.cutoff_dbm.unwrap_or(noise_dbm - 20.0);
        let neighbours =
            geometry::neighbours(&placements, radio, frequency_hz, cutoff, (seed, channel));
        // Radios start idle: the medium has been idle since time 0.
        for r in &mut radios {
            r.access.idle_since = Some(Instant::ZERO);
        }
        SharedChannel {
            cca_time_ns: radio.cca_time_ns,
            phy,
            wlans: parts,
            radios,
            interfaces,
            neighbours,
            transmissions: Slab::default(),
            noise_mw: dbm_to_mw(noise_dbm),
            cca_ed_mw: dbm_to_mw(radio.cca_ed_threshold_dbm),
            preamble_rssi_mw: dbm_to_mw(radio.preamble_rssi_dbm),
            preamble_snr: dbm_to_mw(radio.preamble_snr_db),
            capture_ratio: radio.capture_margin_db.map(dbm_to_mw),
            fading: radio.fading,
            rng: stream(seed, StreamId::RadioChannel { channel }),
            accesses: BinaryHeap::new(),
            armed: None,
            success_cache: SuccessCache::default(),
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
            .skip(part.first_interface as usize)
            .take_while(|i| self.wlans[i.wlan as usize].bss == bss)
            .map(|i| (self.radios[i.radio as usize].node, i.stats))
            .collect()
    }

    /// Per MAC of the channel (in WLAN order, the AP first), its node and what it did since
    /// the last call: attempts, failures, mean rate and mean decoded power.
    pub fn sample(&mut self) -> impl Iterator<Item = (u32, usize, StationStats)> + '_ {
        let radios = &self.radios;
        let wlans = &self.wlans;
        self.interfaces.iter_mut().map(move |i| {
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

    pub fn place_agent(&mut self, bss: u32, mac: u32, agent: Box<dyn Agent>) {
        let i = self.interface_of(bss, mac) as usize;
        self.interfaces[i].agent = Some(AgentSlot::new(agent));
    }

    pub fn has_agent(&self, bss: u32, mac: u32) -> bool {
        self.interfaces[self.interface_of(bss, mac) as usize]
            .agent
            .is_some()
    }

    pub fn take_agent(&mut self, bss: u32, mac: u32) -> Option<Box<dyn Agent>> {
        let i = self.interface_of(bss, mac) as usize;
        Some(self.interfaces[i].agent.take()?.agent)
    }

    /// The agent on a MAC's interface with the MAC's queue (its head frame, in service,
    /// hidden).
    pub fn agent_and_queue(
        &mut self,
        bss: u32,
        mac: u32,
    ) -> Option<(&mut AgentSlot, MacQueue<'_>)> {
        let i = self.interface_of(bss, mac) as usize;
        let interface = &mut self.interfaces[i];
        let slot = interface.agent.as_mut()?;
        Some((
            slot,
            MacQueue::new(&mut interface.queues, &mut interface.held, mac),
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
        self.arm(out);
    }

    /// A timer of this channel fired.
    pub fn on_event(&mut self, now: Instant, event: RadioEvent, out: &mut RadioActions) {
        self.handle(now, event, out);
        self.arm(out);
    }

    fn queue_frame(&mut self, now: Instant, bss: u32, mac: u32, packet: Packet, to: u32) {
        let i = self.interface_of(bss, mac);
        let interface = &mut self.interfaces[i as usize];
        let part = &mut self.wlans[interface.wlan as usize];
        if interface.queues[0].len() >= part.params.queue_packets as usize {
            part.counters.queue_drops += 1;
            return;
        }
        let r = interface.radio;
        let radio = &mut self.radios[r as usize];
        // One sequence-number space per transmitter (§10.3.2.14).
        let sequence = radio.next_sequence;
        radio.next_sequence = sequence.wrapping_add(1);
        interface.queues[0].push_back(Frame {
            packet,
            to,
            queued_at: now,
            first_attempt: None,
            sequence,
            transmitted: false,
        });
        if radio.exchange.is_some() || radio.access.backoff.is_some() {
            return; // contending already, or a post-backoff will find it
        }
        if self.is_busy(r, now) {
            // A frame meeting a busy medium backs off (§10.3.4.3).
            self.radios[r as usize].access.draw();
        }
        // Idle (or idle once its NAV runs out): the access is due.
        let access = &self.radios[r as usize].access;
        if access.idle_since.is_some() && access.scheduled.is_none() {
            self.schedule_access(r, now);
        }
    }

    fn handle(&mut self, now: Instant, event: RadioEvent, out: &mut RadioActions) {
        match event {
            RadioEvent::Accesses => {
                if self.armed == Some(now) {
                    self.armed = None;
                }
                while let Some(&Reverse((at, radio, generation))) = self.accesses.peek() {
                    if at > now {
                        break;
                    }
                    self.accesses.pop();
                    let access = &self.radios[radio as usize].access;
                    if access.generation == generation && access.scheduled == Some(at) {
                        self.access(radio, now, out);
                    }
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
                let from = awaiting.from;
                let receiving_response = r.antenna.lock.is_some_and(|lock| {
                    self.transmissions
                        .get(lock.tx)
                        .is_some_and(|t| t.serial == lock.serial && t.sender == from)
                });
                if receiving_response {
                    awaiting.expired = true;
                } else {
                    self.fail_attempt(radio, now);
                }
            }
        }
    }

    /// A radio's backoff ended: it sends, or its post-backoff is over.
    fn access(&mut self, radio: u32, now: Instant, out: &mut RadioActions) {
        let access = &mut self.radios[radio as usize].access;
        access.scheduled = None;
        access.backoff = None;
        if self.head_interface(radio).is_some() {
            self.radios[radio as usize].access.idle_since = None;
            self.start_exchange(radio, now, out);
        } else {
            // A post-backoff ran out with nothing to send; the medium stays idle since
            // when it was, unless a signal is on its way.
            self.refresh(radio, now, now);
        }
    }

    /// Arms the run's event for the earliest live backoff end, if none is armed as early.
    fn arm(&mut self, out: &mut RadioActions) {
        while let Some(&Reverse((at, radio, generation))) = self.accesses.peek() {
            let access = &self.radios[radio as usize].access;
            if access.generation == generation && access.scheduled == Some(at) {
                if self.armed.is_none_or(|armed| at < armed) {
                    self.armed = Some(at);
                    out.timers.push((at, RadioEvent::Accesses));
                }
                return;
            }
            self.accesses.pop();
        }
    }

    /// The interface whose head frame a radio sends next: the earliest queued.
    fn head_interface(&self, radio: u32) -> Option<u32> {
        self.radios[radio as usize]
            .interfaces
            .iter()
            .copied()
            .filter_map(|i| Some((self.interfaces[i as usize].queues[0].front()?.queued_at, i)))
            .min()
            .map(|(_, i)| i)
    }

    /// Whether a radio's medium is busy at `at`.
    fn is_busy(&self, r: u32, at: Instant) -> bool {
        let radio = &self.radios[r as usize];
        radio.sending_until.is_some()
            || radio.antenna.lock.is_some()
            || radio.awaiting.is_some()
            || radio.owed.is_some()
            || radio.nav_until > at
            || radio.antenna.energy_mw(at, None) >= self.cca_ed_mw
    }

    /// A radio's situation changed at `now`, sensed at `sensed` (a signal's arrival plus
    /// aCCATime, or `now`): it freezes or resumes its backoff.
    fn refresh(&mut self, r: u32, now: Instant, sensed: Instant) {
        // The NAV holds the medium only until a known time: a radio held by it alone is
        // idle from then on (a signal before then freezes a count that has not started),
        // which spares an event per radio and NAV.
        let busy = self.is_busy_ignoring_nav(r, sensed.max(now));
        if busy {
            let radio = &mut self.radios[r as usize];
            if radio.access.idle_since.is_none() {
                return;
            }
            // A backoff that ends before the radio can sense the signal ends in a
            // transmission all the same.
            if radio.access.scheduled.is_some_and(|at| at <= sensed)
                && radio.sending_until.is_none()
            {
                return;
            }
            radio.access.freeze(sensed, &self.phy);
            return;
        }
        let radio = &mut self.radios[r as usize];
        if radio.access.idle_since.is_none() {
            radio.access.idle_since = Some(radio.nav_until.max(now));
            self.schedule_access(r, now);
        }
    }

    fn is_busy_ignoring_nav(&self, r: u32, at: Instant) -> bool {
        let radio = &self.radios[r as usize];
        radio.sending_until.is_some()
            || radio.antenna.lock.is_some()
            || radio.awaiting.is_some()
            || radio.owed.is_some()
            || radio.antenna.energy_mw(at, None) >= self.cca_ed_mw
    }

    fn schedule_access(&mut self, r: u32, now: Instant) {
        let has_frame = self.head_interface(r).is_some();
        let radio = &mut self.radios[r as usize];
        if let Some(at) = radio.access.access_time(now, has_frame, &self.phy) {
            radio.access.stale();
            radio.access.scheduled = Some(at);
            let generation = radio.access.generation;
            self.accesses.push(Reverse((at, r, generation)));
        }
    }

    /// The radio's backoff ended: it sends its head frame, or the RTS for it.
    fn start_exchange(&mut self, r: u32, now: Instant, out: &mut RadioActions) {
        let i = self.head_interface(r).expect("a frame is queued");
        let interface = &self.interfaces[i as usize];
        let frame = *interface.queues[0].front().expect("head frame");
        let w = interface.wlan;
        let to =
            self.interfaces[(self.wlans[w as usize].first_interface + frame.to) as usize].radio;
        let attempt = self.radios[r as usize].short_retries + self.radios[r as usize].long_retries;
        let (rate_bps, rate_index) =
            self.pick_rate(r, to, w, interface.mac, frame.to, now, attempt);
        let stats = &mut self.interfaces[i as usize].stats;
        stats.attempts += 1;
        stats.rate_sum_bps += rate_bps as f64;
        let part = &mut self.wlans[w as usize];
        part.counters.attempts += 1;
        let bytes = part.phy.mac_overhead_bytes + frame.msdu_bytes();
        let rts = part
            .params
            .rts_threshold
            .is_some_and(|threshold| bytes > threshold);
        let phy = &part.phy;
        let control = control_rate(phy, rate_bps);
        let ack_ns = phy.airtime_ns(FRAME_ACK_BYTES, control);
        self.radios[r as usize].exchange = Some(Exchange {
            interface: i,
            to,
            rate_bps,
            rate_index,
            rts,
            cts_received: false,
            collided: false,
        });
        if rts {
            let data_ns = phy.airtime_ns(bytes, rate_bps);
            let cts_ns = phy.airtime_ns(FRAME_CTS_BYTES, control);
            let duration = 3 * phy.sifs_ns + cts_ns + data_ns + ack_ns;
            self.transmit(
                r,
                Kind::Rts,
                to,
                w,
                (FRAME_RTS_BYTES, control),
                duration,
                None,
                now,
                out,
            );
        } else {
            self.send_data(r, now, out);
        }
    }

    /// Sends the data frame of the radio's exchange.
    fn send_data(&mut self, r: u32, now: Instant, out: &mut RadioActions) {
        let exchange = self.radios[r as usize].exchange.expect("an exchange");
        let interface = &mut self.interfaces[exchange.interface as usize];
        let frame = interface.queues[0].front_mut().expect("head frame");
        let retry = frame.transmitted;
        frame.transmitted = true;
        let frame = *frame;
        let w = interface.wlan;
        let phy = &self.wlans[w as usize].phy;
        let bytes = phy.mac_overhead_bytes + frame.msdu_bytes();
        let ack_ns = phy.airtime_ns(FRAME_ACK_BYTES, control_rate(phy, exchange.rate_bps));
        let duration = phy.sifs_ns + ack_ns;
        let packet = Some((frame.packet, frame.sequence, retry, frame.to));
        self.transmit(
            r,
            Kind::Data,
            exchange.to,
            w,
            (bytes, exchange.rate_bps),
            duration,
            packet,
            now,
            out,
        );
    }

    fn send_owed(&mut self, r: u32, owed: Owed, now: Instant, out: &mut RadioActions) {
        if self.radios[r as usize].sending_until.is_some() {
            // Cannot answer while sending; a data frame after its CTS then fails.
            if owed.kind == Kind::Data {
                self.fail_attempt(r, now);
            }
            return;
        }
        match owed.kind {
            Kind::Data => self.send_data(r, now, out),
            kind => {
                let bytes = if kind == Kind::Cts {
                    FRAME_CTS_BYTES
                } else {
                    FRAME_ACK_BYTES
                };
                self.transmit(
                    r,
                    kind,
                    owed.to,
                    owed.wlan,
                    (bytes, owed.rate_bps),
                    owed.duration_ns,
                    None,
                    now,
                    out,
                );
            }
        }
    }

    /// Puts a frame on the air from radio `r`: every radio in range gets its signal.
    #[allow(clippy::too_many_arguments)]
    fn transmit(
        &mut self,
        r: u32,
        kind: Kind,
        to: u32,
        wlan: u32,
        (bytes, rate_bps): (u32, u64),
        duration_ns: u64,
        packet: Option<(Packet, u16, bool, u32)>,
        now: Instant,
        out: &mut RadioActions,
    ) {
        let phy = &self.wlans[wlan as usize].phy;
        let airtime = phy.airtime_ns(bytes, rate_bps);
        let end = now + Duration::from_nanos(airtime);
        let tx = self.transmissions.insert(Transmission {
            kind,
            sender: r,
            to,
            wlan,
            rate_bps,
            start: now,
            duration_ns,
            packet,
            overlapped: false,
            reached: None,
            serial: self.next_serial,
        });
        self.next_serial = self.next_serial.wrapping_add(1);
        let radio = &mut self.radios[r as usize];
        radio.sending_until = Some(end);
        radio.antenna.lock = None; // sending aborts a reception
        radio.access.freeze(now, &self.phy);
        let power = radio.tx_power_mw;
        if let Some(moving) = &mut self.moving {
            // The lists may change before the frame ends: keep whom it reached.
            let mut reached = moving.spare.pop().unwrap_or_default();
            reached.extend_from_slice(&self.neighbours[r as usize]);
            let slot = moving.reached.insert(reached);
            self.transmissions.get_mut(tx).expect("just sent").reached = Some(slot);
        }
        for n in 0..self.neighbours[r as usize].len() {
            let neighbour = self.neighbours[r as usize][n];
            let fading = self.fading_factor();
            let delay = Duration::from_nanos(neighbour.delay_ns);
            let arrival = Arrival {
                tx,
                serial: self.transmissions.get(tx).expect("just sent").serial,
                start: now + delay,
                end: end + delay,
                power_mw: power * neighbour.gain * fading,
            };
            self.arrive(neighbour.radio, arrival, now);
        }
        out.timers.push((end, RadioEvent::TxEnd { tx }));
    }

    fn fading_factor(&mut self) -> f64 {
        match self.fading {
            FadingConfig::None => 1.0,
            FadingConfig::Rayleigh => Exp1.sample(&mut self.rng),
            FadingConfig::Nakagami { m } => Gamma::new(m, 1.0 / m)
                .expect("m is checked")
                .sample(&mut self.rng),
        }
    }

    /// A signal starts arriving at radio `q`.
    fn arrive(&mut self, q: u32, arrival: Arrival, now: Instant) {
        self.mark_overlaps(q, &arrival);
        let radio = &mut self.radios[q as usize];
        radio.antenna.add(arrival);
        if radio.sending_until.is_none() {
            let detect = |frame: &Arrival, antenna: &Antenna| {
                let others = antenna.energy_mw(frame.start, Some(frame.serial));
                frame.power_mw >= self.preamble_rssi_mw
                    && frame.power_mw >= self.preamble_snr * (self.noise_mw + others)
            };
            match radio.antenna.lock {
                // A preamble is detected over PREAMBLE_DETECTION: a frame that starts
                // within that time of the one being detected counts against its SNR, and
                // two that start together at 0 dB are both missed (ns-3's
                // `ThresholdPreambleDetectionModel` after `PreambleDetectionDuration`).
                Some(current)
                    if arrival.start < current.start + PREAMBLE_DETECTION
                        && !detect(&current, &radio.antenna) =>
                {
                    radio.antenna.lock = detect(&arrival, &radio.antenna).then_some(arrival);
                }
                None => {
                    if detect(&arrival, &radio.antenna) {
                        radio.antenna.lock = Some(arrival);
                    }
                }
                Some(current) => {
                    if self
                        .capture_ratio
                        .is_some_and(|ratio| arrival.power_mw >= current.power_mw * ratio)
                    {
                        radio.antenna.lock = Some(arrival);
                        let wlan = self.transmissions.get(arrival.tx).expect("on the air").wlan;
                        self.wlans[wlan as usize].radio_counters.captures += 1;
                    }
                }
            }
        }
        let sensed = arrival.start + Duration::from_nanos(self.cca_time_ns);
        self.refresh(q, now, sensed);
    }

    /// A signal reaches radio `q` while others are on the air there: frames addressed to `q`
    /// among them (the new one included) overlap another signal.
    fn mark_overlaps(&mut self, q: u32, arrival: &Arrival) {
        let antenna = &self.radios[q as usize].antenna;
        let transmissions = &mut self.transmissions;
        let mut any = false;
        for (slot, serial) in antenna.on_air(arrival.start) {
            any = true;
            if let Some(t) = transmissions.get_mut(slot).filter(|t| t.serial == serial) {
                t.overlapped |= t.to == q;
            }
        }
        if any {
            if let Some(t) = self.transmissions.get_mut(arrival.tx) {
                t.overlapped |= t.to == q;
            }
        }
    }

    /// A transmission ends: at its sender, then at every radio it reached.
    fn end_transmission(&mut self, tx: u32, now: Instant, out: &mut RadioActions) {
        let t = self.transmissions.take(tx);
        let s = t.sender;
        let radio = &mut self.radios[s as usize];
        radio.sending_until = None;
        if matches!(t.kind, Kind::Data | Kind::Rts) {
            radio.access.stale();
            let generation = radio.access.generation;
            radio.awaiting = Some(Awaiting {
                kind: if t.kind == Kind::Rts {
                    Kind::Cts
                } else {
                    Kind::Ack
                },
                from: t.to,
                expired: false,
                generation,
            });
            let timeout = self.wlans[t.wlan as usize].phy.response_timeout_ns();
            out.timers.push((
                now + Duration::from_nanos(timeout),
                RadioEvent::Timeout {
                    radio: s,
                    generation,
                },
            ));
        }
        if matches!(t.kind, Kind::Ack | Kind::Cts) {
            // A response it sent aborted its own reception of the response it awaits.
            self.response_failed(s, now);
        }
        self.refresh(s, now, now);
        let mut at_receiver = None;
        let reached = match (&mut self.moving, t.reached) {
            (Some(moving), Some(slot)) => Some(moving.reached.take(slot)),
            _ => None,
        };
        let count = reached
            .as_ref()
            .map_or(self.neighbours[s as usize].len(), Vec::len);
        for n in 0..count {
            let neighbour = match &reached {
                Some(list) => list[n],
                None => self.neighbours[s as usize][n],
            };
            let at = now + Duration::from_nanos(neighbour.delay_ns);
            if self.capture && neighbour.radio == t.to {
                let power = self.radios[t.to as usize].antenna.power_of(t.serial);
                let decoded = self.signal_ends(neighbour.radio, &t, at, out);
                at_receiver = power.map(|power| (decoded, power));
            } else {
                self.signal_ends(neighbour.radio, &t, at, out);
            }
        }
        if let (Some(moving), Some(mut list)) = (&mut self.moving, reached) {
            list.clear();
            moving.spare.push(list);
        }
        if self.capture {
            let frame = self.air_frame(&t, now, at_receiver);
            out.air.push((self.wlans[t.wlan as usize].bss, frame));
        }
    }

    /// Frame `t`, which ended at `end`, as a monitor by its receiver captured it: bad unless
    /// the receiver decoded it, with the power it had there.
    #[cold]
    fn air_frame(
        &self,
        t: &Transmission,
        end: Instant,
        at_receiver: Option<(bool, f64)>,
    ) -> AirFrame {
        let node = |radio: u32| self.radios[radio as usize].node;
        let part = &self.wlans[t.wlan as usize];
        let body = match t.kind {
            Kind::Rts => AirBody::Rts {
                transmitter: node(t.sender),
            },
            Kind::Cts => AirBody::Cts,
            Kind::Ack => AirBody::Ack,
            Kind::Data => {
                let (packet, sequence, retry, _) = t.packet.expect("data frames carry one");
                let ap = self.interfaces[part.first_interface as usize].radio;
                AirBody::Data {
                    transmitter: node(t.sender),
                    ap: node(ap),
                    retry,
                    sequence,
                    msdus: vec![packet],
                }
            }
        };
        AirFrame {
            at: t.start,
            airtime_ns: (end - t.start).as_nanos() as u64,
            rate_bps: t.rate_bps,
            nav_ns: t.duration_ns,
            bad_fcs: !at_receiver.is_some_and(|(decoded, _)| decoded),
            receiver: node(t.to),
            body,
            signal_dbm: at_receiver.map(|(_, power)| (mw_to_dbm(power), self.noise_dbm())),
        }
    }

    /// Transmission `t` ends at radio `q` at `at`; whether `q` decoded it.
    fn signal_ends(
        &mut self,
        q: u32,
        t: &Transmission,
        at: Instant,
        out: &mut RadioActions,
    ) -> bool {
        let radio = &mut self.radios[q as usize];
        let locked = radio.antenna.lock.filter(|lock| lock.serial == t.serial);
        let mut decoded = false;
        if let Some(frame) = locked {
            let phy = &self.wlans[t.wlan as usize].phy;
            let shape = frame_shape(phy, t.rate_bps);
            let p = radio.antenna.success_probability(
                &frame,
                &shape,
                self.noise_mw,
                &mut self.success_cache,
            );
            radio.antenna.lock = None;
            let ok = p >= 1.0 || self.rng.random::<f64>() < p;
            self.radios[q as usize].antenna.prune(at);
            decoded = ok;
            if ok {
                if q == t.to && matches!(t.kind, Kind::Data | Kind::Rts) {
                    self.heard(t.sender, frame.power_mw);
                }
                self.received(q, t, at, out);
            } else {
                self.radios[q as usize].access.eifs_after = Some(t.rate_bps);
                if q == t.to {
                    self.blame(t, t.overlapped);
                }
                self.response_failed(q, at);
            }
        } else {
            if q == t.to {
                // Not even detected: a collision if other signals were on the air.
                self.blame(t, t.overlapped);
            }
            self.radios[q as usize].antenna.prune(at);
        }
        self.refresh(q, at, at);
        decoded
    }

    /// The addressee of radio `sender`'s exchange decoded its frame at `power_mw`.
    fn heard(&mut self, sender: u32, power_mw: f64) {
        if let Some(exchange) = self.radios[sender as usize].exchange {
            let stats = &mut self.interfaces[exchange.interface as usize].stats;
            stats.received += 1;
            stats.power_sum_mw += power_mw;
        }
    }

    /// Frame `t` failed at its addressee, by a collision or not: the exchange it belongs
    /// to is its sender's (data, RTS) or its addressee's (the ACK or CTS it awaited).
    fn blame(&mut self, t: &Transmission, collided: bool) {
        let owner = match t.kind {
            Kind::Data | Kind::Rts => t.sender,
            Kind::Ack | Kind::Cts => t.to,
        };
        if let Some(exchange) = &mut self.radios[owner as usize].exchange {
            exchange.collided |= collided;
        }
    }

    /// A reception ended in error at a radio waiting for a response whose timeout passed.
    fn response_failed(&mut self, q: u32, at: Instant) {
        if self.radios[q as usize]
            .awaiting
            .is_some_and(|awaiting| awaiting.expired)
        {
            self.fail_attempt(q, at);
        }
    }

    /// Radio `q` decoded frame `t` at `at`.
    fn received(&mut self, q: u32, t: &Transmission, at: Instant, out: &mut RadioActions) {
        let sifs = Duration::from_nanos(self.wlans[t.wlan as usize].phy.sifs_ns);
        let radio = &mut self.radios[q as usize];
        radio.access.eifs_after = None;
        if t.to != q {
            let until = at + Duration::from_nanos(t.duration_ns);
            if until > radio.nav_until {
                radio.nav_until = until;
            }
            self.response_failed(q, at);
            return;
        }
        let phy = &self.wlans[t.wlan as usize].phy;
        let control = control_rate(phy, t.rate_bps);
        match t.kind {
            Kind::Data => {
                let (packet, sequence, retry, mac) = t.packet.expect("data frames carry one");
                let duplicate = retry
                    && radio
                        .last_sequence
                        .iter()
                        .any(|&(from, last)| from == t.sender && last == sequence);
                match radio
                    .last_sequence
                    .iter_mut()
                    .find(|(from, _)| *from == t.sender)
                {
                    Some(entry) => entry.1 = sequence,
                    None => radio.last_sequence.push((t.sender, sequence)),
                }
                let part = &mut self.wlans[t.wlan as usize];
                if duplicate {
                    part.radio_counters.duplicates += 1;
                } else {
                    out.deliveries.push((at, part.bss, mac, packet));
                }
                radio.owed = Some(Owed {
                    kind: Kind::Ack,
                    to: t.sender,
                    wlan: t.wlan,
                    rate_bps: control,
                    duration_ns: 0,
                });
                out.timers.push((at + sifs, RadioEvent::Sifs { radio: q }));
            }
            Kind::Rts => {
                // A CTS only while the NAV is clear (§10.3.2.8).
                if radio.nav_until <= at {
                    let cts_ns = phy.airtime_ns(FRAME_CTS_BYTES, control);
                    radio.owed = Some(Owed {
                        kind: Kind::Cts,
                        to: t.sender,
                        wlan: t.wlan,
                        rate_bps: control,
                        duration_ns: t.duration_ns.saturating_sub(phy.sifs_ns + cts_ns),
                    });
                    out.timers.push((at + sifs, RadioEvent::Sifs { radio: q }));
                }
            }
            Kind::Cts | Kind::Ack => {
                let expected = radio
                    .awaiting
                    .is_some_and(|a| a.from == t.sender && a.kind == t.kind);
                if !expected {
                    return;
                }
                radio.awaiting = None;
                if t.kind == Kind::Cts {
                    // The CTS resets the short retry count (§10.3.4.4); the data frame goes
                    // SIFS later.
                    radio.short_retries = 0;
                    if let Some(exchange) = &mut radio.exchange {
                        exchange.cts_received = true;
                        radio.owed = Some(Owed {
                            kind: Kind::Data,
                            to: t.sender,
                            wlan: t.wlan,
                            rate_bps: exchange.rate_bps,
                            duration_ns: 0,
                        });
                        out.timers.push((at + sifs, RadioEvent::Sifs { radio: q }));
                    }
                } else {
                    self.succeed(q, at);
                }
            }
        }
    }

    /// The head frame of radio `r`'s exchange was acknowledged at `at`.
    fn succeed(&mut self, r: u32, at: Instant) {
        let exchange = self.radios[r as usize]
            .exchange
            .take()
            .expect("an exchange");
        let interface = &mut self.interfaces[exchange.interface as usize];
        let frame = interface.queues[0].pop_front().expect("head frame");
        interface.stats.delivered += 1;
        let counters = &mut self.wlans[interface.wlan as usize].counters;
        counters.successes += 1;
        counters.delivered_msdus += 1;
        counters.delivered_msdu_bytes += u64::from(frame.msdu_bytes());
        self.report_rate(r, &exchange, at, Some(true), true);
        let radio = &mut self.radios[r as usize];
        radio.short_retries = 0;
        radio.long_retries = 0;
        radio.access.cw = self.phy.cw_min;
        radio.access.draw(); // post-backoff
    }

    /// Radio `r`'s attempt went unanswered (or its response was lost): retry or drop.
    fn fail_attempt(&mut self, r: u32, now: Instant) {
        let radio = &mut self.radios[r as usize];
        radio.awaiting = None;
        radio.owed = None;
        let Some(exchange) = radio.exchange.take() else {
            self.refresh(r, now, now);
            return;
        };
        let interface = &mut self.interfaces[exchange.interface as usize];
        interface.stats.failures += 1;
        let w = interface.wlan as usize;
        let params = &self.wlans[w].params;
        let long = exchange.rts && exchange.cts_received;
        let at_limit = if long {
            radio.short_retries = 0;
            radio.long_retries += 1;
            radio.long_retries >= params.long_retry_limit
        } else {
            radio.short_retries += 1;
            radio.short_retries >= params.short_retry_limit
        };
        let radio_counters = &mut self.wlans[w].radio_counters;
        if exchange.rts && !exchange.cts_received {
            radio_counters.rts_failures += 1;
        } else {
            radio_counters.data_failures += 1;
        }
        let counters = &mut self.wlans[w].counters;
        counters.failed_attempts += 1;
        if exchange.collided {
            counters.collisions += 1;
        } else {
            counters.channel_errors += 1;
        }
        let data_attempted = !exchange.rts || exchange.cts_received;
        if at_limit {
            counters.retry_drops += 1;
            self.interfaces[exchange.interface as usize].queues[0].pop_front();
            let radio = &mut self.radios[r as usize];
            radio.short_retries = 0;
            radio.long_retries = 0;
            radio.access.cw = self.phy.cw_min;
            let outcome = data_attempted.then_some(false);
            self.report_rate(r, &exchange, now, outcome, true);
        } else {
            counters.retries += 1;
            let radio = &mut self.radios[r as usize];
            radio.access.cw = (2 * radio.access.cw + 1).min(self.phy.cw_max);
            let outcome = data_attempted.then_some(false);
            self.report_rate(r, &exchange, now, outcome, false);
        }
        self.radios[r as usize].access.draw();
        self.refresh(r, now, now);
    }

    /// Tells the rate control of the exchange's destination how the attempt went.
    fn report_rate(
        &mut self,
        r: u32,
        exchange: &Exchange,
        now: Instant,
        acked: Option<bool>,
        done: bool,
    ) {
        let Some(index) = exchange.rate_index else {
            return;
        };
        let radio = &mut self.radios[r as usize];
        let Some((_, RateChoice::Control { control, .. })) =
            radio.rates.iter_mut().find(|(to, _)| *to == exchange.to)
        else {
            return;
        };
        let now_ns = now.as_nanos();
        if let Some(acked) = acked {
            control.handle_attempt(now_ns, index, acked);
        }
        if done {
            control.handle_frame_done(now_ns, acked == Some(true));
        }
    }

    /// The data rate from radio `r` to radio `to` for this attempt (and the rate control's
    /// index of it).
    #[allow(clippy::too_many_arguments)]
    fn pick_rate(
        &mut self,
        r: u32,
        to: u32,
        w: u32,
        mac: u32,
        to_mac: u32,
        now: Instant,
        attempt: u32,
    ) -> (u64, Option<usize>) {
        let part = &self.wlans[w as usize];
        let radio = &mut self.radios[r as usize];
        if !radio.rates.iter().any(|(d, _)| *d == to) {
            let choice = match &part.rate_control {
                Some(name) => {
                    let rates = legacy_rates(&part.phy);
                    let infos = rates
                        .iter()
                        .map(|&rate| RateInfo {
                            rate_bps: rate,
                            exchange_ns: part
                                .phy
                                .airtime_ns(part.phy.mac_overhead_bytes + 1200, rate)
                                + part.phy.sifs_ns
                                + part
                                    .phy
                                    .airtime_ns(FRAME_ACK_BYTES, control_rate(&part.phy, rate)),
                        })
                        .collect();
                    let infos: Vec<RateInfo> = infos;
                    let control = airtcp_proto::wifi::rate_control::new_rate_control(
                        name,
                        &infos,
                        radio.seed ^ u64::from(to),
                    )
                    .expect("the name is checked");
                    RateChoice::Control { control, rates }
                }
                None => {
                    // Frames to and from a station go at its rate (the AP's MAC is 0).
                    let station = if mac == 0 { to_mac } else { mac };
                    RateChoice::Fixed(part.mac_rates[station as usize])
                }
            };
            radio.rates.push((to, choice));
        }
        let (_, choice) = radio
            .rates
            .iter_mut()
            .find(|(d, _)| *d == to)
            .expect("made above");
        match choice {
            RateChoice::Fixed(rate) => (*rate, None),
            RateChoice::Control { control, rates } => {
                let index = control.rate_for_attempt(now.as_nanos(), attempt);
                (rates[index], Some(index))
            }
        }
    }
}

/// The rate of a control response (ACK, CTS) to a frame at `rate_bps`, and of an RTS: the
/// highest mandatory rate of the PHY not above it, capped at the BSS's basic rate
/// (§10.6.6.5.2).
fn control_rate(phy: &Phy, rate_bps: u64) -> u64 {
    let mandatory: &[u64] = match phy.modulation {
        Modulation::Dsss(_) => &[1_000_000, 2_000_000],
        Modulation::ErpOfdm => &[6_000_000, 12_000_000, 24_000_000],
        Modulation::Fhss { .. } => &[1_000_000],
    };
    let highest = mandatory
        .iter()
        .copied()
        .filter(|&r| r <= rate_bps)
        .max()
        .unwrap_or(mandatory[0]);
    highest.min(phy.basic_rate_bps).max(mandatory[0])
}

/// The rates a rate control chooses among.
fn legacy_rates(phy: &Phy) -> Vec<u64> {
    match phy.modulation {
        Modulation::Dsss(_) => vec![1_000_000, 2_000_000, 5_500_000, 11_000_000],
        _ => vec![
            6_000_000, 9_000_000, 12_000_000, 18_000_000, 24_000_000, 36_000_000, 48_000_000,
            54_000_000,
        ],
    }
}

/// A frame's PHY header and payload, for its error chunks: DSSS sends its 48-bit PLCP
/// header at 1 Mbit/s after a 144 µs preamble (long), or at 2 Mbit/s after 72 µs (short,
/// above 1 Mbit/s); OFDM its 24-bit SIGNAL at 6 Mbit/s after a 16 µs preamble.
fn frame_shape(phy: &Phy, rate_bps: u64) -> FrameShape {
    match phy.modulation {
        Modulation::Dsss(preamble) => {
            let short = preamble == Preamble::Short && rate_bps > 1_000_000;
            let (header_ns, header_rate) = if short {
                (72_000, 2_000_000)
            } else {
                (144_000, 1_000_000)
            };
            FrameShape {
                family: Family::Dsss,
                header_ns,
                header_rate_bps: header_rate,
                payload_ns: header_ns + 48 * 1_000_000_000 / header_rate,
                payload_rate_bps: rate_bps,
            }
        }
        _ => FrameShape {
            family: Family::Ofdm,
            header_ns: 16_000,
            header_rate_bps: 6_000_000,
            payload_ns: 20_000,
            payload_rate_bps: rate_bps,
        },
    }
}

/// How long a PHY takes to detect a preamble (ns-3's `PreambleDetectionDuration`, 4 µs).
const PREAMBLE_DETECTION: Duration = Duration::from_micros(4);
