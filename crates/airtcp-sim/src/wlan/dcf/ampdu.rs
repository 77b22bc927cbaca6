//! A-MPDU aggregation with immediate Block Ack in the central DCF, for the MCS PHYs
//! (802.11n, ac, ax): IEEE 802.11-2020 §10.12 (A-MPDU), §10.25.6 (HT-immediate block ack:
//! the originator's scoreboard and the recipient's reordering buffer), §10.24.7 (the
//! recipient's window); Linux mac80211 and ns-3 for what the standard leaves to the
//! implementation.
//!
//! - **Forming**: at each channel access an EDCAF (the MAC's DCF without EDCA) sends the
//!   frames of its queue addressed to its head frame's receiver (one TID per AC), in queue
//!   order, while the A-MPDU stays within the Block Ack window (64 MPDUs, 256 for 802.11ax;
//!   counted from the oldest unacknowledged MPDU), the maximum A-MPDU length, the longest
//!   PPDU (aPPDUMaxTime, 5.484 ms, or `max_ampdu_duration`) and, for an EDCAF with a TXOP
//!   limit, the TXOP with its BlockAck, all at the link's rate (a station's own where it has
//!   one: `Bss::use_station_phys`). Each subframe is a 4-byte
//!   delimiter and the MPDU, padded to 4 bytes (all of them in VHT and HE, all but the last
//!   in HT). A lone MPDU goes as such (an S-MPDU in VHT and HE) and is answered by an ACK;
//!   more than one by a compressed BlockAck (32 bytes with its 64-bit bitmap, 56 with 256
//!   bits) at the control response rate. With an RTS threshold, a PSDU longer than it is
//!   protected by RTS/CTS.
//! - **A-MSDU** (`max_amsdu_bytes`, off by default): an MSDU not yet sent joins the MPDU
//!   before it while its A-MSDU stays within the limit (§9.3.2.2.2; `block_ack::select_mpdus`);
//!   the MPDU is then one sequence number, one error draw on its whole length, one bit of the
//!   BlockAck, retried and handed up whole.
//! - **Sequence numbers** per originator EDCAF and recipient, given when an MPDU is first
//!   put in an A-MPDU (mac80211 numbers a frame when it leaves the TXQ).
//! - **Errors**: each MPDU is corrupted or not by the WLAN's error model on its own bytes; the
//!   recipient answers if any MPDU arrived, and its BlockAck tells the originator which. A
//!   recipient that gets an MPDU past its window's end moves the window there (§10.25.6.6).
//!   Acknowledged MPDUs leave the queue; the others stay where they were and go again in a
//!   later A-MPDU, each with its own short and long retry counts (§10.23.2.2: a failed RTS
//!   or an unprotected A-MPDU counts against the short limit, a loss after a CTS against the
//!   long one and clears the short count), dropped at either limit. ACKs and BlockAcks are
//!   not lost (this DCF's one collision domain has no errors on control frames).
//! - **Contention**: a BlockAck (or ACK) received is a success, and CW returns to CWmin; an
//!   A-MPDU without a response (a collision, or every MPDU corrupted) doubles CW, and its
//!   sender resumes DIFS after the response timeout, as for a single frame.
//! - **Reordering**: the recipient hands MPDUs up in sequence order; one that arrives after
//!   a gap waits in its buffer until the gap is filled, or until the originator gives the
//!   missing MPDU up (the retry limit, the MSDU lifetime or the sojourn limit) and its
//!   BlockAckReq (`block_ack_req`) moves the window (§10.25.6.6).
//! - **Lifetime and sojourn limit**: an MPDU's MSDU lifetime runs from its first attempt,
//!   and an MPDU past it (or past the queue's sojourn limit) is discarded at the head of the
//!   queue at an access, as with single frames; if it had been sent, a BlockAckReq moves
//!   its recipient's window past it.
//!
//! What both MACs share (the limits, forming, retry counts per MPDU, the reordering buffer)
//! is `wlan::block_ack`; a channel with geometry aggregates in `radio::aggregation`.
//!
//! Not modelled here: lost BlockAcks, the recipient's reorder timeout (a BlockAckReq given
//! up moves the window instead), more than one TID per AC, and several A-MPDUs in a TXOP.

use std::collections::HashMap;
use std::time::Duration;

use airtcp_proto::wifi::mcs::{block_ack_bytes, Format};
use airtcp_proto::wifi::{Modulation, Phy};
use airtcp_proto::Instant;

use super::{Actions, AirBody, AirFrame, Bss, FailedFrame, Outcome};
use crate::config::AmpduLimits;
use crate::packet::Packet;
use crate::wlan::block_ack::{
    head_mpdu, longest_psdu, modular_distance, mpdu_positions, msdus_bytes, number_mpdus,
    psdu_within_txop, select_mpdus, window_start, Forming, Reordering, RetryCounter,
};

/// A-MPDU state of a BSS: the limits, sequence numbers and the recipients' buffers.
#[derive(Debug)]
pub struct Aggregation {
    pub(super) limits: AmpduLimits,
    pub(super) format: Format,
    /// The next sequence number, per (originator MAC, recipient MAC).
    pub(super) next_sequence: HashMap<(u32, u32), u16>,
    /// The recipients' reordering buffers, per (originator MAC, recipient MAC).
    pub(super) buffers: HashMap<(u32, u32), Reordering>,
    /// The BlockAckReqs owed (`block_ack_req`).
    pub(super) block_ack_reqs: Vec<super::block_ack_req::BlockAckReq>,
    /// Per link (the BSS's PHY, or each station's own: `Bss::use_station_phys`), the
    /// longest PSDUs (`PsduLimits`; airtime grows with length: found once).
    psdu_limits: Vec<PsduLimits>,
    /// The MAC at the station's end of the A-MPDU formed last (`Bss::use_station_phys`).
    pub(super) formed_link: u32,
    /// The queue positions of the A-MPDU being formed, and where each MPDU starts among them
    /// (kept to reuse their allocations).
    positions: Vec<usize>,
    starts: Vec<usize>,
    /// Per MAC: the queue positions its MPDUs in flight lie before (no frame ahead of them
    /// leaves its queue while they fly, so settling scans only that far).
    in_flight_end: Vec<usize>,
    /// Queue positions to remove when settling (kept to reuse its allocation).
    removals: Vec<usize>,
    /// Packets a recipient released, to hand up (kept to reuse its allocation).
    released: Vec<Packet>,
    /// The reference number of the next A-MPDU a capture shows.
    reference: u32,
}

impl Aggregation {
    /// `links`: the PHYs of the stations' links (`Bss::use_station_phys`; empty: `phy`'s
    /// for all); `txop_limits`: those of the BSS's EDCAFs; `protected`: A-MPDUs may go after
    /// RTS/CTS.
    pub fn new(
        phy: &Phy,
        links: &[Phy],
        limits: AmpduLimits,
        txop_limits: &[u64],
        protected: bool,
    ) -> Option<Aggregation> {
        let Modulation::Mcs(setting) = phy.modulation else {
            return None;
        };
        let psdu_limits = std::iter::once(phy)
            .chain(links.iter().skip(1))
            .map(|link| PsduLimits::of(link, limits, txop_limits, protected))
            .collect();
        Some(Aggregation {
            limits,
            format: setting.format,
            next_sequence: HashMap::new(),
            buffers: HashMap::new(),
            block_ack_reqs: Vec::new(),
            psdu_limits,
            formed_link: 0,
            positions: Vec::new(),
            starts: Vec::new(),
            in_flight_end: Vec::new(),
            removals: Vec::new(),
            released: Vec::new(),
            reference: 0,
        })
    }

    /// The longest PSDU to or from station `link` (0: at the BSS's PHY) of an EDCAF with
    /// TXOP limit `txop_ns` (none: one PPDU per access).
    pub(super) fn max_psdu_for(&self, link: u32, txop_ns: Option<u64>) -> u32 {
        let limits = self
            .psdu_limits
            .get(link as usize)
            .unwrap_or(&self.psdu_limits[0]);
        let Some(txop) = txop_ns else {
            return limits.max_bytes;
        };
        limits
            .by_txop
            .iter()
            .find(|&&(limit, _)| limit == txop)
            .map_or(limits.max_bytes, |&(_, bytes)| bytes)
    }

    /// A compressed BlockAck answering this BSS's A-MPDUs.
    pub(super) fn block_ack_bytes(&self) -> u32 {
        block_ack_bytes(self.limits.window)
    }

    /// Whether the A-MPDU formed last is a lone MPDU.
    fn lone(&self) -> bool {
        self.starts.len() == 1
    }

    /// The MPDUs of the A-MPDU formed last.
    fn mpdus(&self) -> usize {
        self.starts.len()
    }

    /// The queue positions of the frames (MSDUs) of its MPDU `k`.
    fn mpdu(&self, k: usize) -> &[usize] {
        mpdu_positions(&self.positions, &self.starts, k)
    }
}

/// The longest PSDUs at a link's rate: within both the A-MPDU length limit and
/// aPPDUMaxTime, and for each TXOP limit of the BSS's EDCAFs, one whose exchange fits in it
/// (`psdu_within_txop`).
#[derive(Debug)]
struct PsduLimits {
    max_bytes: u32,
    by_txop: Vec<(u64, u32)>,
}

impl PsduLimits {
    fn of(phy: &Phy, limits: AmpduLimits, txop_limits: &[u64], protected: bool) -> PsduLimits {
        let max_bytes = longest_psdu(phy, phy.data_rate_bps, limits.max_bytes, limits.max_ppdu_ns);
        let response = phy.airtime_ns(block_ack_bytes(limits.window), phy.basic_rate_bps);
        let by_txop = txop_limits
            .iter()
            .map(|&txop| {
                let fitting = psdu_within_txop(phy, txop, response, protected);
                (
                    txop,
                    longest_psdu(phy, phy.data_rate_bps, max_bytes, fitting),
                )
            })
            .collect();
        PsduLimits { max_bytes, by_txop }
    }
}

/// The reordering buffer of the recipient of `(originator EDCAF, recipient MAC)`, made with
/// a window of `window` MPDUs when it first receives (or is told where to start).
fn recipient_buffer(
    buffers: &mut HashMap<(u32, u32), Reordering>,
    link: (u32, u32),
    window: u16,
) -> &mut Reordering {
    buffers
        .entry(link)
        .or_insert_with(|| Reordering::new(window))
}

/// The PHY of the A-MPDU formed last (its link's: `Bss::use_station_phys`).
fn formed_phy<'a>(phy: &'a Phy, link_phys: &'a [Phy], ampdu: &Aggregation) -> &'a Phy {
    super::link_phy(phy, link_phys, 0, ampdu.formed_link)
}

impl Bss {
    /// Whether this BSS aggregates.
    pub fn aggregates(&self) -> bool {
        self.ampdu.is_some()
    }

    /// Chooses the MPDUs of `edcaf`'s A-MPDU from `queue` (their positions, in order, in
    /// `ampdu.positions`), marks them in flight and numbers those not yet sent; the PSDU
    /// length in bytes, or a lone MPDU's MSDU length.
    fn form_ampdu(&mut self, now: Instant, edcaf: u32, queue: usize) -> u32 {
        let txop = self.txop_ns(edcaf);
        let mac = self.edcafs[edcaf as usize].mac;
        let two_queues = self.plans(edcaf);
        let ampdu = self.ampdu.as_mut().expect("an aggregating BSS");
        let queues = &mut self.edcafs[edcaf as usize].queues;
        let mut meter = super::meter_of(&mut self.meters, edcaf);
        let to = queues[queue][0].to;
        let mut next = ampdu.next_sequence.get(&(edcaf, to)).copied().unwrap_or(0);
        // The window starts at the oldest MPDU not yet acknowledged: the head's, unless the
        // AP's agent keeps a second queue whose MPDUs share the sequence numbers
        let start = if two_queues {
            queues
                .iter()
                .flatten()
                .filter(|f| f.to == to && f.mpdu.numbered)
                .map(|f| f.sequence)
                .max_by_key(|&sequence| modular_distance(sequence, next))
                .unwrap_or(next)
        } else if queues[queue][0].mpdu.numbered {
            queues[queue][0].sequence
        } else {
            next
        };
        let frames = &mut queues[queue];
        let link = super::link_of(mac, to);
        let max_psdu = ampdu.max_psdu_for(link, txop);
        ampdu.formed_link = link;
        let forming = Forming {
            format: ampdu.format,
            mac_overhead_bytes: self.phy.mac_overhead_bytes,
            window: ampdu.limits.window,
            max_psdu,
            max_amsdu: ampdu.limits.max_amsdu_bytes,
        };
        let (positions, starts) = (&mut ampdu.positions, &mut ampdu.starts);
        let psdu = select_mpdus(frames, to, (start, next), forming, positions, starts);
        next = number_mpdus(frames, (positions, starts), next);
        if self.params.msdu_lifetime_ns.is_some() || meter.is_some() {
            // the MSDU lifetime runs from an MSDU's first attempt, where its sojourn ends
            for &position in &ampdu.positions {
                super::queue_meter::note_attempt(meter.as_deref_mut(), now, &mut frames[position]);
            }
        }
        ampdu.next_sequence.insert((edcaf, to), next);
        let end = ampdu.positions.last().map_or(0, |&last| last + 1);
        if ampdu.in_flight_end.len() <= edcaf as usize {
            ampdu.in_flight_end.resize(edcaf as usize + 1, 0);
        }
        ampdu.in_flight_end[edcaf as usize] = end;
        if ampdu.lone() {
            return msdus_bytes(frames, ampdu.mpdu(0));
        }
        psdu
    }

    /// The airtime of what `form_ampdu` formed, `bytes` long: a lone MPDU is the PHY's data
    /// frame (an S-MPDU in VHT and HE).
    fn ampdu_airtime_ns(&self, bytes: u32) -> u64 {
        let ampdu = self.ampdu.as_ref().expect("an aggregating BSS");
        let phy = formed_phy(&self.phy, &self.link_phys, ampdu);
        if ampdu.lone() {
            phy.data_airtime_ns(bytes)
        } else {
            phy.psdu_airtime_ns(bytes, phy.data_rate_bps)
        }
    }

    /// Whether what `form_ampdu` formed, `bytes` long, goes after RTS/CTS: a lone MPDU as a
    /// data frame, an A-MPDU by its PSDU length.
    fn ampdu_uses_rts(&self, bytes: u32) -> bool {
        let ampdu = self.ampdu.as_ref().expect("an aggregating BSS");
        if ampdu.lone() {
            self.uses_rts(bytes)
        } else {
            self.params
                .rts_threshold
                .is_some_and(|threshold| bytes > threshold)
        }
    }

    /// `edcaf`, alone on the medium, sends an A-MPDU from `queue`: the busy period, the IFS of
    /// the others and the outcome.
    pub(super) fn send_ampdu(
        &mut self,
        now: Instant,
        edcaf: u32,
        queue: usize,
        actions: &mut Actions,
    ) -> (u64, u64, Outcome) {
        let bytes = self.form_ampdu(now, edcaf, queue);
        let rts = self.ampdu_uses_rts(bytes);
        let airtime = self.ampdu_airtime_ns(bytes);
        let to = self.edcafs[edcaf as usize].queues[queue][0].to;
        self.charge_airtime(edcaf, to, airtime);
        let ampdu = self.ampdu.as_ref().expect("an aggregating BSS");
        let phy = formed_phy(&self.phy, &self.link_phys, ampdu);
        let delta = phy.propagation_ns;
        let handshake = if rts {
            phy.rts_airtime_ns() + delta + phy.sifs_ns + phy.cts_airtime_ns() + delta + phy.sifs_ns
        } else {
            0
        };
        let data_end = handshake + airtime;
        let ampdu = self.ampdu.as_mut().expect("an aggregating BSS");
        let frames = &mut self.edcafs[edcaf as usize].queues[queue];
        let mut arrived = 0;
        for k in 0..ampdu.mpdus() {
            let group = ampdu.mpdu(k);
            let mpdu = phy.mac_overhead_bytes + msdus_bytes(frames, group);
            let received = !self.errors.corrupts(mpdu, &mut self.channel_rng);
            self.counters.retries += u64::from(frames[group[0]].transmitted);
            for &position in group {
                let frame = &mut frames[position];
                frame.mpdu.resent = frame.transmitted;
                frame.transmitted = true;
                frame.mpdu.acked = received;
            }
            arrived += usize::from(received);
        }
        let count = ampdu.mpdus();
        self.counters.count_ampdu(count, count - arrived);
        if self.capture {
            self.capture_ampdu(actions, now, edcaf, queue, (rts, false), bytes);
        }
        let ampdu = self.ampdu.as_mut().expect("an aggregating BSS");
        let phy = formed_phy(&self.phy, &self.link_phys, ampdu);
        let frames = &mut self.edcafs[edcaf as usize].queues[queue];
        if arrived == 0 {
            self.counters.channel_errors += 1;
            let busy = data_end + delta;
            let failed = FailedFrame {
                edcaf,
                queue,
                count,
                counter: if rts {
                    RetryCounter::Long
                } else {
                    RetryCounter::Short
                },
                resume_ns: phy.sender_resume_ns(data_end, busy),
            };
            let others = phy.eifs_ns(phy.data_rate_bps);
            return (busy, others, Outcome::Failure(vec![failed]));
        }
        let response = if count == 1 {
            phy.ack_airtime_ns()
        } else {
            phy.airtime_ns(ampdu.block_ack_bytes(), phy.basic_rate_bps)
        };
        let delivered_at = now + Duration::from_nanos(data_end + delta);
        let to = frames[ampdu.positions[0]].to;
        let buffer = recipient_buffer(&mut ampdu.buffers, (edcaf, to), ampdu.limits.window);
        ampdu.released.clear();
        for k in 0..ampdu.starts.len() {
            let group = mpdu_positions(&ampdu.positions, &ampdu.starts, k);
            let first = &frames[group[0]];
            if first.mpdu.acked {
                let msdus = group.iter().map(|&position| frames[position].packet);
                let held = buffer.receive(first.sequence, msdus, &mut ampdu.released);
                self.counters.reordered_mpdus += u64::from(held);
            }
        }
        for &packet in &ampdu.released {
            actions.deliveries.push((delivered_at, to, packet));
        }
        let busy = data_end + delta + phy.sifs_ns + response + delta;
        (
            busy,
            phy.difs_ns(),
            Outcome::Ampdu {
                edcaf,
                queue,
                counter: if rts {
                    RetryCounter::Long
                } else {
                    RetryCounter::Short
                },
            },
        )
    }

    /// What a capture shows of the A-MPDU `form_ampdu` formed for `edcaf` from `queue`,
    /// `bytes` long, its exchange begun at `at`: the RTS and CTS ahead of it (`rts`), one
    /// record per subframe (bad where it was not received: all of them when `collided`, and
    /// then nothing more, the RTS alone if there was one), then the BlockAck (an ACK for a
    /// lone MPDU) if any arrived.
    #[cold]
    fn capture_ampdu(
        &mut self,
        actions: &mut Actions,
        at: Instant,
        edcaf: u32,
        queue: usize,
        (rts, collided): (bool, bool),
        bytes: u32,
    ) {
        let airtime = self.ampdu_airtime_ns(bytes);
        let ampdu = self.ampdu.as_ref().expect("an aggregating BSS");
        let phy = formed_phy(&self.phy, &self.link_phys, ampdu);
        let (delta, sifs) = (phy.propagation_ns, phy.sifs_ns);
        let count = ampdu.mpdus();
        let mac = self.edcafs[edcaf as usize].mac;
        let frames = &self.edcafs[edcaf as usize].queues[queue];
        let first = frames[ampdu.positions[0]];
        let response_bytes = if count == 1 {
            airtcp_proto::wifi::FRAME_ACK_BYTES
        } else {
            ampdu.block_ack_bytes()
        };
        let response = phy.airtime_ns(response_bytes, phy.basic_rate_bps);
        let control = |at_ns: u64, airtime_ns: u64, nav_ns: u64, receiver: u32, body| AirFrame {
            at: at + Duration::from_nanos(at_ns),
            airtime_ns,
            rate_bps: phy.basic_rate_bps,
            nav_ns,
            bad_fcs: false,
            receiver: self.node(receiver),
            body,
            signal_dbm: None,
        };
        let mut data_at = 0;
        if rts {
            let nav = 3 * sifs + phy.cts_airtime_ns() + airtime + response;
            let body = AirBody::Rts {
                transmitter: self.node(mac),
            };
            let rts_frame = AirFrame {
                bad_fcs: collided,
                ..control(0, phy.rts_airtime_ns(), nav, first.to, body)
            };
            actions.air.push(rts_frame);
            if collided {
                return;
            }
            let cts_at = phy.rts_airtime_ns() + delta + sifs;
            let cts_nav = nav - sifs - phy.cts_airtime_ns();
            actions.air.push(control(
                cts_at,
                phy.cts_airtime_ns(),
                cts_nav,
                mac,
                AirBody::Cts,
            ));
            data_at = cts_at + phy.cts_airtime_ns() + delta + sifs;
        }
        let reference = ampdu.reference;
        let mut arrived = false;
        for k in 0..count {
            let group = ampdu.mpdu(k);
            let frame = &frames[group[0]];
            let received = !collided && frame.mpdu.acked;
            arrived |= received;
            actions.air.push(AirFrame {
                at: at + Duration::from_nanos(data_at),
                airtime_ns: airtime,
                rate_bps: phy.data_rate_bps,
                nav_ns: sifs + response,
                bad_fcs: !received,
                receiver: self.node(frame.to),
                body: AirBody::Data {
                    transmitter: self.node(mac),
                    ap: self.node(0),
                    retry: frame.mpdu.resent,
                    sequence: frame.sequence,
                    msdus: group
                        .iter()
                        .map(|&position| frames[position].packet)
                        .collect(),
                    ampdu: (count > 1).then_some((reference, k + 1 == count)),
                },
                signal_dbm: None,
            });
        }
        if arrived {
            let response_at = data_at + airtime + delta + sifs;
            let body = if count == 1 {
                AirBody::Ack
            } else {
                let mut bitmap = [0u8; 32];
                for &start in &ampdu.starts {
                    let frame = &frames[ampdu.positions[start]];
                    if frame.mpdu.acked {
                        let bit = usize::from(modular_distance(first.sequence, frame.sequence));
                        bitmap[bit / 8] |= 1 << (bit % 8);
                    }
                }
                AirBody::BlockAck {
                    transmitter: self.node(first.to),
                    start_sequence: first.sequence,
                    bitmap,
                    bitmap_bytes: (response_bytes - 24) as u8,
                }
            };
            actions
                .air
                .push(control(response_at, response, 0, mac, body));
        }
        if count > 1 {
            self.ampdu.as_mut().expect("an aggregating BSS").reference += 1;
        }
    }

    /// An A-MPDU of `edcaf` nobody answers (it collided): its airtime and rate.
    pub(super) fn unanswered_ampdu(
        &mut self,
        now: Instant,
        edcaf: u32,
        queue: usize,
        actions: &mut Actions,
    ) -> (u64, u64) {
        let bytes = self.form_ampdu(now, edcaf, queue);
        if self.ampdu_uses_rts(bytes) {
            // only the RTS went on the air: its MPDUs count a failed attempt, not a sending
            if self.capture {
                self.capture_ampdu(actions, now, edcaf, queue, (true, true), bytes);
            }
            let ampdu = self.ampdu.as_ref().expect("an aggregating BSS");
            let phy = formed_phy(&self.phy, &self.link_phys, ampdu);
            return (phy.rts_airtime_ns(), phy.basic_rate_bps);
        }
        let ampdu = self.ampdu.as_ref().expect("an aggregating BSS");
        let count = ampdu.mpdus();
        self.counters.count_ampdu(count, count);
        let frames = &mut self.edcafs[edcaf as usize].queues[queue];
        for &first in &ampdu.starts {
            self.counters.retries += u64::from(frames[ampdu.positions[first]].transmitted);
        }
        for &position in &ampdu.positions {
            let frame = &mut frames[position];
            frame.mpdu.resent = frame.transmitted;
            frame.transmitted = true;
        }
        if self.capture {
            self.capture_ampdu(actions, now, edcaf, queue, (false, true), bytes);
        }
        let airtime = self.ampdu_airtime_ns(bytes);
        let to = self.edcafs[edcaf as usize].queues[queue][0].to;
        self.charge_airtime(edcaf, to, airtime);
        let ampdu = self.ampdu.as_ref().expect("an aggregating BSS");
        (
            airtime,
            formed_phy(&self.phy, &self.link_phys, ampdu).data_rate_bps,
        )
    }

    /// Settles `edcaf`'s A-MPDU at the end of its busy period: acknowledged MPDUs leave the
    /// queue, the others count a failure against `counter` and are dropped at its limit (a
    /// long failure, after a CTS, clears the short count); the recipient's
    /// window follows the originator's (released MPDUs are handed up at `now`). Whether an
    /// MPDU was dropped.
    pub(super) fn settle_ampdu(&mut self, edcaf: u32, queue: usize, counter: RetryCounter) -> bool {
        let limits = (self.params.short_retry_limit, self.params.long_retry_limit);
        let ampdu = self.ampdu.as_mut().expect("an aggregating BSS");
        let counters = &mut self.counters;
        let drops_before = counters.retry_drops;
        let frames = &mut self.edcafs[edcaf as usize].queues[queue];
        let end = ampdu
            .in_flight_end
            .get(edcaf as usize)
            .copied()
            .unwrap_or(0);
        let end = end.min(frames.len());
        let Some(to) = frames.range(..end).find(|f| f.mpdu.in_flight).map(|f| f.to) else {
            return false;
        };
        ampdu.removals.clear();
        for (position, frame) in frames.range_mut(..end).enumerate() {
            if !frame.mpdu.in_flight {
                continue;
            }
            frame.mpdu.in_flight = false;
            if frame.mpdu.acked {
                counters.delivered_msdus += 1;
                counters.delivered_msdu_bytes += u64::from(frame.msdu_bytes());
                ampdu.removals.push(position);
                continue;
            }
            if frame.mpdu.count_failure(counter, limits) {
                counters.retry_drops += 1;
                ampdu.removals.push(position);
            }
        }
        // The usual case, the acknowledged MPDUs at the head of the queue, is one drain.
        let prefix = ampdu.removals.iter().enumerate().all(|(k, &p)| k == p);
        if prefix {
            frames.drain(..ampdu.removals.len());
        } else {
            for &position in ampdu.removals.iter().rev() {
                frames.remove(position);
            }
        }
        let dropped = self.counters.retry_drops > drops_before;
        if self.holds_nothing(edcaf) {
            self.holding -= 1;
        }
        if dropped {
            self.request_block_ack_req(edcaf, to);
        }
        dropped
    }

    /// Where the recipient `to` of `edcaf`'s MPDUs should start its window: at the oldest
    /// MPDU `edcaf` still holds for it, or the next it will number (a BlockAckReq's starting
    /// sequence number).
    pub(super) fn window_start(&self, edcaf: u32, to: u32) -> u16 {
        let ampdu = self.ampdu.as_ref().expect("an aggregating BSS");
        let next = ampdu.next_sequence.get(&(edcaf, to)).copied().unwrap_or(0);
        window_start(
            self.edcafs[edcaf as usize].queues.iter().flatten(),
            to,
            next,
        )
    }

    /// The recipient `to` of `edcaf`'s MPDUs moves its window to `start`, handing up what it
    /// held before it at `now` (a BlockAckReq's effect).
    pub(super) fn move_recipient_window(
        &mut self,
        now: Instant,
        edcaf: u32,
        (to, start): (u32, u16),
        actions: &mut Actions,
    ) {
        let ampdu = self.ampdu.as_mut().expect("an aggregating BSS");
        // a recipient that has received nothing yet starts its window there too
        let buffer = recipient_buffer(&mut ampdu.buffers, (edcaf, to), ampdu.limits.window);
        ampdu.released.clear();
        buffer.move_window(start, &mut ampdu.released);
        for &packet in &ampdu.released {
            actions.deliveries.push((now, to, packet));
        }
    }

    /// Station `mac` left and its frames (and perhaps the AP's for it) were taken out of the
    /// queues at `now` (`roaming`): each recipient of an agreement between it and the AP
    /// moves its window to the oldest MPDU its originator still holds (or the next it will
    /// number), so that what was taken out is not waited for, as the recipient's reorder
    /// timeout would release it (Linux's 100 ms, `HT_RX_REORDER_BUF_TIMEOUT`; not waited
    /// here).
    pub(super) fn realign_after_eviction(&mut self, now: Instant, mac: u32, actions: &mut Actions) {
        if self.ampdu.is_none() {
            return;
        }
        let links = (self.edcafs_of(mac).map(|edcaf| (edcaf, 0)))
            .chain(self.edcafs_of(0).map(|edcaf| (edcaf, mac)));
        for (edcaf, to) in links.collect::<Vec<_>>() {
            let start = self.window_start(edcaf, to);
            self.move_recipient_window(now, edcaf, (to, start), actions);
        }
    }

    /// `edcaf` lost an internal collision (`edca`): the MPDU at the head of `queue` counts a
    /// failed attempt against the short limit `limit`; whether it reached it (and was
    /// dropped, a BlockAckReq then owed to its recipient if it was numbered).
    pub(super) fn internal_collision_of_mpdu(
        &mut self,
        edcaf: u32,
        queue: usize,
        limit: u32,
    ) -> bool {
        let frames = &mut self.edcafs[edcaf as usize].queues[queue];
        let mut members = Vec::new();
        head_mpdu(frames, &mut members);
        let mut at_limit = false;
        for &position in &members {
            let counts = (limit, u32::MAX);
            at_limit = frames[position]
                .mpdu
                .count_failure(RetryCounter::Short, counts);
        }
        if !at_limit {
            return false;
        }
        for &position in members[1..].iter().rev() {
            frames.remove(position);
        }
        self.counters.retry_drops += (members.len() - 1) as u64;
        let frame = self.pop_head(edcaf, queue);
        if frame.mpdu.numbered {
            self.request_block_ack_req(edcaf, frame.to);
        }
        true
    }

    /// An A-MPDU of `failed.edcaf` got no response: every MPDU in it counts a retry, and CW
    /// doubles, or returns to CWmin when an MPDU reached its retry limit (§10.23.2.2: "CW
    /// shall be reset to CWmin after every unsuccessful attempt to transmit an MPDU that
    /// causes the retry counter to reach its limit").
    pub(super) fn settle_unanswered_ampdu(&mut self, failed: FailedFrame) {
        self.counters.failed_attempts += 1;
        let end = self.ampdu.as_ref().map_or(0, |a| {
            a.in_flight_end
                .get(failed.edcaf as usize)
                .copied()
                .unwrap_or(0)
        });
        let frames = &mut self.edcafs[failed.edcaf as usize].queues[failed.queue];
        let end = end.min(frames.len());
        for frame in frames.range_mut(..end) {
            frame.mpdu.acked = false;
        }
        let dropped = self.settle_ampdu(failed.edcaf, failed.queue, failed.counter);
        self.edcafs[failed.edcaf as usize].after_failure(dropped);
    }
}
