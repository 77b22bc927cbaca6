//! A-MPDU with immediate Block Ack on a shared channel, for the MCS PHYs (802.11n, ac, ax):
//! IEEE 802.11-2020 §10.12 (A-MPDU), §10.25.6 (HT-immediate block ack), §10.23.2.2 (retries
//! per MPDU); the rules the central DCF follows (`wlan::dcf::ampdu`), with what only a
//! channel with geometry has: each MPDU meets the SINR of its own part of the PPDU, and a
//! BlockAck can be lost.
//!
//! - **Forming** (`wlan::block_ack::select_mpdus`): at each access a radio's interface sends
//!   the frames of its queue addressed to its head frame's receiver, in queue order, within
//!   the Block Ack window (64, 256 for 802.11ax), the longest A-MPDU and aPPDUMaxTime (or
//!   `max_ampdu_duration`) at the rate its destination's rate choice gives for this attempt;
//!   sequence numbers per originator and recipient are given when an MPDU is first put in an
//!   A-MPDU (before its RTS, if one goes first). The MPDUs stay queued, flagged in flight,
//!   until settled; an agent may remove other frames around them meanwhile. A
//!   PSDU longer than the RTS threshold goes after RTS/CTS. A lone MPDU goes as such (an
//!   S-MPDU in VHT and HE) and is answered by an ACK, an A-MPDU by a compressed BlockAck.
//! - **Reception**: a radio locked on the PPDU decodes its PHY header (the preamble's fields
//!   at 6 Mbit/s) and then each MPDU over the time its bytes take at the MCS, each with its
//!   own SINR chunks and draw, as ns-3's `PhyEntity` checks each MPDU of an A-MPDU: the
//!   first from the data field's start (the SERVICE bits), each to the next subframe's
//!   start (delimiter and padding included), the last to the PPDU's end. The
//!   addressee receives the MPDUs that survive and answers SIFS later if any did; if none
//!   did, the reception failed (EIFS). A radio it is not addressed to reads the first MPDU
//!   only: its Duration field sets that radio's NAV (ns-3 reads every MPDU; reading one keeps
//!   a third party's cost at one MPDU, and it differs only where the first MPDU fails and a
//!   later one survives, when this radio waits EIFS instead).
//! - **BlockAck**: its bitmap is the recipient's scoreboard (§10.25.6.3): the MPDUs of the
//!   A-MPDU that arrived now or before (handed up or held). The originator acts on it; MPDUs
//!   it acknowledges leave the queue, the others count a failure (the long counter after a
//!   CTS, the short one otherwise) and go again in a later A-MPDU, dropped at the limit. No
//!   BlockAck (a collision, every MPDU lost, or the BlockAck itself lost): every MPDU counts a
//!   failure, and those the recipient had come again: it discards them (`duplicates`) and
//!   acknowledges them in its next BlockAck.
//! - **Reordering** (`wlan::block_ack::Reordering`): the recipient hands MPDUs up in
//!   sequence order; for an MPDU the originator gives up it owes the recipient a
//!   BlockAckReq (`block_ack_req`), which moves the window past it.
//! - **Rates**: the link's (a station's own MCS where it has one); rate control over MCSs is
//!   refused when the run is built, and would see each A-MPDU as one frame.
//!
//! - **A-MSDU** (`max_amsdu_bytes`): MSDUs not yet sent gather into the MPDU before them as
//!   on the central DCF (`select_mpdus`); an A-MSDU is one MPDU: one sequence number, one
//!   stretch of the PPDU decoded over its whole length, one bit of the BlockAck, one retry
//!   count (its frames' counts kept equal, also in internal collisions), handed up whole.
//! - **TXOP**: an EDCAF with a TXOP limit shortens its A-MPDU so that it and its BlockAck
//!   (and RTS/CTS where the WLAN sets a threshold) fit in the limit (§10.23.2.9).
//!
//! Not modelled here: several A-MPDUs in a TXOP, an AP agent that plans access beside
//! A-MPDU (refused when the run is built).

use std::collections::{HashMap, VecDeque};

use airtcp_proto::wifi::mcs::{block_ack_bytes, subframe_bytes, Format};

use super::air::frame_shape;
use super::block_ack_req::BlockAckReq;
use super::*;
use crate::config::AmpduLimits;
use crate::wlan::block_ack::{
    longest_psdu, modular_distance, mpdu_positions, msdus_bytes, number_mpdus, psdu_within_txop,
    select_mpdus, Forming, Reordering, RetryCounter,
};
use crate::wlan::dcf::Budget;

/// How a WLAN of the channel aggregates: its limits and format, and the longest PSDU at each
/// rate of its links (the airtime grows with length: found once, by bisection, when built).
#[derive(Debug)]
pub(super) struct Aggregating {
    limits: AmpduLimits,
    format: Format,
    longest: Vec<(u64, u32)>,
    /// Per (rate, TXOP limit of its EDCAFs): the longest PSDU whose exchange fits in the
    /// limit (`max_psdu_in_txop`).
    longest_in_txop: Vec<(u64, u64, u32)>,
}

impl Aggregating {
    /// A WLAN's, if it aggregates: `limits` set and an MCS PHY; the longest PSDUs at its
    /// links' `rates` found already, also for each of its EDCAFs' TXOP limits `txops` (with
    /// RTS/CTS counted where `protected`).
    pub(super) fn of(
        phy: &Phy,
        limits: Option<AmpduLimits>,
        rates: &[u64],
        (txops, protected): (&[u64], bool),
    ) -> Option<Aggregating> {
        let Modulation::Mcs(setting) = phy.modulation else {
            return None;
        };
        let limits = limits?;
        let mut longest: Vec<(u64, u32)> = Vec::new();
        let mut longest_in_txop = Vec::new();
        for &rate in rates {
            if longest.iter().any(|&(known, _)| known == rate) {
                continue;
            }
            let bytes = longest_psdu(phy, rate, limits.max_bytes, limits.max_ppdu_ns);
            longest.push((rate, bytes));
            let response_ns =
                phy.airtime_ns(block_ack_bytes(limits.window), phy.control_rate_bps(rate));
            for &txop in txops.iter().filter(|&&txop| txop > 0) {
                if !longest_in_txop
                    .iter()
                    .any(|&(r, t, _)| (r, t) == (rate, txop))
                {
                    let fitting = psdu_within_txop(phy, txop, response_ns, protected);
                    longest_in_txop.push((rate, txop, longest_psdu(phy, rate, bytes, fitting)));
                }
            }
        }
        Some(Aggregating {
            limits,
            format: setting.format,
            longest,
            longest_in_txop,
        })
    }

    pub(super) fn format(&self) -> Format {
        self.format
    }

    /// What one transmission at `rate_bps`, a rate of its links, may carry (`wlan::dcf::txq`).
    pub(super) fn budget(&self, rate_bps: u64) -> Budget {
        Budget {
            frames: self.limits.frames_per_ampdu(),
            psdu_bytes: self.max_psdu(rate_bps),
        }
    }

    /// The longest PSDU at `rate_bps`, a rate of its links (rate control over MCSs is
    /// refused, so no other is met).
    fn max_psdu(&self, rate_bps: u64) -> u32 {
        let found = self.longest.iter().find(|(rate, _)| *rate == rate_bps);
        found.expect("a rate of its links").1
    }

    /// The longest PSDU at `rate_bps` of an EDCAF with TXOP limit `txop_ns` (0: none): one
    /// whose exchange with its BlockAck, and RTS/CTS where the WLAN may send them, fits in
    /// the limit (§10.23.2.9, as the central DCF and ns-3 shorten an A-MPDU).
    fn max_psdu_in_txop(&self, rate_bps: u64, txop_ns: u64) -> u32 {
        if txop_ns == 0 {
            return self.max_psdu(rate_bps);
        }
        let found = (self.longest_in_txop.iter())
            .find(|&&(rate, txop, _)| (rate, txop) == (rate_bps, txop_ns));
        found
            .expect("a rate of its links and a TXOP limit of its EDCAFs")
            .2
    }
}

impl WlanPart {
    /// The Block Ack window of this aggregating WLAN.
    pub(super) fn block_ack_window(&self) -> u16 {
        let aggregating = self.aggregation.as_ref().expect("an aggregating WLAN");
        aggregating.limits.window
    }
}

/// The response to a data frame of `mpdus` MPDUs (0: not aggregated) in WLAN `part`: a
/// BlockAck for an A-MPDU, an ACK otherwise.
pub(super) fn response_bytes(part: &WlanPart, mpdus: u16) -> u32 {
    match &part.aggregation {
        Some(aggregating) if mpdus > 1 => block_ack_bytes(aggregating.limits.window),
        _ => FRAME_ACK_BYTES,
    }
}

/// The airtime of a data frame of `bytes` at `rate_bps` carrying `mpdus` MPDUs: an A-MPDU's
/// PSDU, or a frame of that many MAC bytes.
pub(super) fn data_airtime_ns(phy: &Phy, bytes: u32, rate_bps: u64, mpdus: u16) -> u64 {
    if mpdus > 1 {
        phy.psdu_airtime_ns(bytes, rate_bps)
    } else {
        phy.airtime_ns(bytes, rate_bps)
    }
}

/// The channel's Block Ack agreements: per (originator interface, recipient MAC), the next
/// sequence number and the recipient's reordering buffer.
#[derive(Debug, Default)]
pub(super) struct BlockAcks {
    pub(super) next_sequence: HashMap<(u32, u32), u16>,
    pub(super) buffers: HashMap<(u32, u32), Reordering>,
    /// Packets a recipient released (kept to reuse its allocation).
    pub(super) released: Vec<Packet>,
    /// Packets a window moved by a BlockAckReq (or one given up) released, handed to the run
    /// after the call.
    pub(super) given_up: Vec<(Instant, u32, u32, Packet)>,
    /// While capturing: per recipient radio, the bitmap of the BlockAck it owed last (the
    /// first MPDU's sequence number, and a bit per MPDU after it that it has).
    pub(super) bitmaps: HashMap<u32, (u16, [u8; 32])>,
    /// The BlockAckReqs owed (`block_ack_req`).
    pub(super) requests: Vec<BlockAckReq>,
}

impl BlockAcks {
    /// The reordering buffer of the recipient of `link` (originator interface, recipient
    /// MAC), made with a window of `window` MPDUs when it first receives (or is told where
    /// to start), and the emptied list of what it releases.
    pub(super) fn recipient(
        &mut self,
        link: (u32, u32),
        window: u16,
    ) -> (&mut Reordering, &mut Vec<Packet>) {
        self.released.clear();
        let buffer = (self.buffers.entry(link)).or_insert_with(|| Reordering::new(window));
        (buffer, &mut self.released)
    }

    /// The recipient of `link` moves its window to `start` (a BlockAckReq's, or one given
    /// up); what it releases goes in `given_up`, handed up at `at` by BSS `bss`.
    pub(super) fn move_window(
        &mut self,
        link: (u32, u32),
        window: u16,
        start: u16,
        (at, bss): (Instant, u32),
    ) {
        let (buffer, released) = self.recipient(link, window);
        buffer.move_window(start, released);
        let released = self
            .released
            .iter()
            .map(|&packet| (at, bss, link.1, packet));
        self.given_up.extend(released);
    }
}

/// The A-MPDU an interface has on the air: the frames of its MPDUs, flagged `in_flight` in
/// the queue (an agent may remove other frames from it meanwhile, so their positions are
/// found again at each use: `locate`), how many they are, and the PSDU's length.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    positions: Vec<usize>,
    /// Where each MPDU starts among `positions` (an A-MSDU's frames follow its first).
    starts: Vec<usize>,
    count: usize,
    bytes: u32,
}

impl InFlight {
    /// The MPDUs on the air.
    fn mpdus(&self) -> usize {
        self.starts.len()
    }

    /// The queue positions of the frames (MSDUs) of MPDU `k`.
    fn mpdu(&self, k: usize) -> &[usize] {
        mpdu_positions(&self.positions, &self.starts, k)
    }

    /// Finds the positions of the MPDUs in flight in `frames` again.
    fn locate(&mut self, frames: &VecDeque<Frame>) {
        self.positions.clear();
        for (position, frame) in frames.iter().enumerate() {
            if frame.mpdu.in_flight {
                self.positions.push(position);
                if self.positions.len() == self.count {
                    break;
                }
            }
        }
        debug_assert_eq!(
            self.positions.len(),
            self.count,
            "agents keep MPDUs in flight"
        );
    }
}

impl SharedChannel {
    /// Whether interface `i`'s WLAN aggregates.
    pub(super) fn aggregates(&self, i: u32) -> bool {
        let w = self.interfaces[i as usize].wlan;
        self.wlans[w as usize].aggregation.is_some()
    }

    /// Radio `r`'s exchange for the A-MPDU (or lone MPDU) interface `i` sends now: the rate
    /// first, then the MPDUs that fit at it; and the data frame's bytes.
    pub(super) fn open_ampdu_exchange(&mut self, r: u32, i: u32, now: Instant) -> (Exchange, u32) {
        let (mut exchange, _) = self.open_exchange(r, i, (ApQueue::Data as usize, 1), now);
        let interface = &mut self.interfaces[i as usize];
        let part = &mut self.wlans[interface.wlan as usize];
        let aggregating = part.aggregation.as_ref().expect("an aggregating WLAN");
        let frames = &mut interface.queues[ApQueue::Data as usize];
        let to = frames[0].to;
        let key = (i, to);
        let next = self
            .block_acks
            .next_sequence
            .get(&key)
            .copied()
            .unwrap_or(0);
        // The window starts at the oldest MPDU not yet acknowledged: the head's.
        let start = if frames[0].mpdu.numbered {
            frames[0].sequence
        } else {
            next
        };
        let edcaf = &self.radios[r as usize].access.edcafs[usize::from(interface.edcaf)];
        let max_psdu = aggregating.max_psdu_in_txop(exchange.rate_bps, edcaf.txop_ns);
        let forming = Forming {
            format: aggregating.format,
            mac_overhead_bytes: part.phy.mac_overhead_bytes,
            window: aggregating.limits.window,
            max_psdu,
            max_amsdu: aggregating.limits.max_amsdu_bytes,
        };
        let in_flight = &mut interface.in_flight;
        let (positions, starts) = (&mut in_flight.positions, &mut in_flight.starts);
        let psdu = select_mpdus(frames, to, (start, next), forming, positions, starts);
        let next = number_mpdus(frames, (positions, starts), next);
        let meter = &mut interface.meter;
        if part.params.msdu_lifetime_ns.is_some() || meter.is_some() {
            // the MSDU lifetime runs from an MSDU's first attempt (`expiry`), where its
            // sojourn ends (`QueueMeter`)
            for &position in positions.iter() {
                note_attempt(meter.as_deref_mut(), now, &mut frames[position]);
            }
        }
        self.block_acks.next_sequence.insert(key, next);
        in_flight.count = in_flight.positions.len();
        let mpdus = in_flight.mpdus();
        in_flight.bytes = if mpdus == 1 {
            part.phy.mac_overhead_bytes + msdus_bytes(frames, in_flight.mpdu(0))
        } else {
            psdu
        };
        let bytes = in_flight.bytes;
        let long = part
            .params
            .rts_threshold
            .is_some_and(|threshold| bytes > threshold);
        exchange.mpdus = mpdus as u16;
        exchange.rts = long;
        exchange.long = long;
        (exchange, bytes)
    }

    /// Sends radio `r`'s A-MPDU (or lone MPDU).
    pub(super) fn send_mpdus(&mut self, r: u32, now: Instant, out: &mut RadioActions) {
        let exchange = self.radios[r as usize].exchange.expect("an exchange");
        let interface = &mut self.interfaces[exchange.interface as usize];
        let w = interface.wlan;
        let part = &mut self.wlans[w as usize];
        let frames = &mut interface.queues[ApQueue::Data as usize];
        let in_flight = &mut interface.in_flight;
        in_flight.locate(frames);
        for k in 0..in_flight.mpdus() {
            let group = in_flight.mpdu(k);
            part.counters.retries += u64::from(frames[group[0]].transmitted);
            for &position in group {
                let frame = &mut frames[position];
                frame.mpdu.resent = frame.transmitted;
                (frame.mpdu.acked, frame.mpdu.received) = (false, false);
                frame.transmitted = true;
            }
        }
        let head = frames[0];
        let phy = &part.phy;
        let control = phy.control_rate_bps(exchange.rate_bps);
        let response_ns = phy.airtime_ns(response_bytes(part, exchange.mpdus), control);
        let header = DataHeader {
            sequence: head.sequence,
            retry: head.mpdu.resent,
            mpdus: exchange.mpdus,
            tid: interface.edcaf,
        };
        let bytes = interface.in_flight.bytes;
        let duration = phy.sifs_ns + response_ns;
        self.transmit_data(r, &exchange, (w, bytes), duration, header, now, out);
    }

    /// Whether radio `q`, locked on `frame`, the arrival of aggregated data frame `t`,
    /// decodes it: its PHY header, then each MPDU over its own bytes (the addressee marks
    /// those that arrived; another radio reads the first).
    pub(super) fn decode_mpdus(&mut self, q: u32, t: &Transmission, frame: &Arrival) -> bool {
        let phy = &self.wlans[t.wlan as usize].phy;
        let shape = frame_shape(phy, t.rate_bps);
        let (start, end) = (frame.start.as_nanos(), frame.end.as_nanos());
        let payload_at = start + shape.payload_ns;
        let antenna = &self.radios[q as usize].antenna;
        let header = antenna.segment_probability(
            frame,
            (shape.family, shape.header_rate_bps),
            (start + shape.header_ns, payload_at),
            self.noise_mw,
            &mut self.success_cache,
        );
        if !draw(&mut self.rng, header) {
            return false;
        }
        let Some(format) = self.wlans[t.wlan as usize]
            .aggregation
            .as_ref()
            .map(|a| a.format)
        else {
            unreachable!("aggregated data comes from an aggregating WLAN")
        };
        let overhead = phy.mac_overhead_bytes;
        let (i, _, _) = self.carried_at(t);
        let interface = &mut self.interfaces[i as usize];
        let frames = &mut interface.queues[ApQueue::Data as usize];
        let in_flight = &mut interface.in_flight;
        in_flight.locate(frames);
        let addressed = q == t.to;
        let mut offset = 0u64;
        let mut any = false;
        // As ns-3 cuts a PPDU (`PhyEntity::ScheduleEndOfMpdus`): the first MPDU from the data
        // field's start (its 16 SERVICE bits, §19.3.11.2, §21.3.10.2), each to the next
        // subframe's start (its delimiter and padding with it), the last to the PPDU's end
        // (the tail and pad bits with it); a lone MPDU is the whole data field.
        let at = |bits: u64| (payload_at + bits * 1_000_000_000 / t.rate_bps).min(end);
        let last = in_flight.mpdus() - 1;
        for k in 0..=last {
            let group = in_flight.mpdu(k);
            let mpdu = overhead + msdus_bytes(frames, group);
            let from = if k == 0 {
                payload_at
            } else {
                at(16 + 8 * offset)
            };
            offset += u64::from(subframe_bytes(format, mpdu, false));
            let to = if k == last { end } else { at(16 + 8 * offset) };
            let p = antenna.segment_probability(
                frame,
                (shape.family, shape.payload_rate_bps),
                (from, to),
                self.noise_mw,
                &mut self.success_cache,
            );
            let arrived = draw(&mut self.rng, p);
            if !addressed {
                return arrived;
            }
            for &position in group {
                let state = &mut frames[position].mpdu;
                (state.acked, state.received) = (arrived, arrived);
            }
            any |= arrived;
        }
        any
    }

    /// Radio `q` received the MPDUs of aggregated data frame `t` that arrived at `at`: its
    /// reordering buffer hands up what is in order; the response it owes.
    pub(super) fn take_mpdus(
        &mut self,
        q: u32,
        t: &Transmission,
        at: Instant,
        out: &mut RadioActions,
    ) -> Owed {
        let (i, _, _) = self.carried_at(t);
        let part = &mut self.wlans[t.wlan as usize];
        let window = part.block_ack_window();
        let interface = &mut self.interfaces[i as usize];
        let frames = &mut interface.queues[ApQueue::Data as usize];
        let in_flight = &interface.in_flight;
        let first = frames[in_flight.positions[0]];
        let to = first.to;
        let (buffer, released) = self.block_acks.recipient((i, to), window);
        for k in 0..in_flight.mpdus() {
            let group = in_flight.mpdu(k);
            let lead = frames[group[0]];
            let had = buffer.is_behind(lead.sequence) || buffer.holds(lead.sequence);
            if had {
                // Received before (its BlockAck lost): its recipient's scoreboard acknowledges
                // it again, whether or not this copy arrived (§10.25.6.3).
                for &position in group {
                    frames[position].mpdu.acked = true;
                }
                part.radio_counters.duplicates += u64::from(lead.mpdu.received);
                continue;
            }
            if lead.mpdu.received {
                let msdus = group.iter().map(|&position| frames[position].packet);
                let held = buffer.receive(lead.sequence, msdus, released);
                part.counters.reordered_mpdus += u64::from(held);
            }
        }
        for &packet in released.iter() {
            out.deliveries.push((at, part.bss, to, packet));
        }
        let aggregated = in_flight.mpdus() > 1;
        if self.capture && aggregated {
            let mut bitmap = [0u8; 32];
            for &position in &in_flight.positions {
                if frames[position].mpdu.acked {
                    let bit =
                        usize::from(modular_distance(first.sequence, frames[position].sequence));
                    bitmap[bit / 8] |= 1 << (bit % 8);
                }
            }
            self.block_acks.bitmaps.insert(q, (first.sequence, bitmap));
        }
        let kind = if aggregated {
            Kind::BlockAck
        } else {
            Kind::Ack
        };
        Owed {
            kind,
            to: t.sender,
            wlan: t.wlan,
            rate_bps: part.phy.control_rate_bps(t.rate_bps),
            duration_ns: 0,
        }
    }

    /// Settles interface `i`'s A-MPDU of `exchange`, `answered` by its BlockAck (or ACK) or
    /// not: MPDUs acknowledged leave the queue, the others count a failure and are dropped
    /// at the limit, a BlockAckReq then owed to their recipient. Whether one was dropped.
    pub(super) fn settle_mpdus(&mut self, exchange: &Exchange, answered: bool) -> bool {
        let i = exchange.interface;
        let interface = &mut self.interfaces[i as usize];
        let part = &mut self.wlans[interface.wlan as usize];
        let limits = (part.params.short_retry_limit, part.params.long_retry_limit);
        let counter = if exchange.rts && exchange.cts_received {
            RetryCounter::Long
        } else {
            RetryCounter::Short
        };
        let counters = &mut part.counters;
        let frames = &mut interface.queues[ApQueue::Data as usize];
        let in_flight = &mut interface.in_flight;
        in_flight.locate(frames);
        let to = frames[in_flight.positions[0]].to;
        let (mut acked_mpdus, mut acked_msdus, mut dropped) = (0, 0, false);
        // The positions of the frames that leave the queue are gathered at the front of
        // `positions`, in queue order (each written at or before where it was read).
        let mut leaving = 0;
        for k in 0..in_flight.mpdus() {
            let (from, to_end) = (
                in_flight.starts[k],
                in_flight
                    .starts
                    .get(k + 1)
                    .copied()
                    .unwrap_or(in_flight.count),
            );
            let delivered = answered && frames[in_flight.positions[from]].mpdu.acked;
            let mut at_limit = false;
            for j in from..to_end {
                let frame = &mut frames[in_flight.positions[j]];
                frame.mpdu.in_flight = false;
                if delivered {
                    counters.delivered_msdu_bytes += u64::from(frame.msdu_bytes());
                } else {
                    frame.mpdu.acked = false;
                    // an A-MSDU's frames share one count (`number_mpdus`)
                    at_limit = frame.mpdu.count_failure(counter, limits);
                }
            }
            let msdus = to_end - from;
            if delivered {
                acked_mpdus += 1;
                acked_msdus += msdus;
                counters.delivered_msdus += msdus as u64;
            } else if at_limit {
                counters.retry_drops += msdus as u64;
                dropped = true;
            } else {
                continue;
            }
            in_flight.positions.copy_within(from..to_end, leaving);
            leaving += msdus;
        }
        let positions = &mut in_flight.positions;
        positions.truncate(leaving);
        let prefix = positions.iter().enumerate().all(|(k, &p)| k == p);
        if prefix {
            frames.drain(..positions.len());
        } else {
            for &position in positions.iter().rev() {
                frames.remove(position);
            }
        }
        let sent = !exchange.rts || exchange.cts_received;
        if sent {
            let count = usize::from(exchange.mpdus);
            counters.count_ampdu(count, count - acked_mpdus);
        }
        positions.clear();
        in_flight.count = 0;
        self.mac_stats(i).delivered += acked_msdus as u64;
        if dropped {
            self.owe_block_ack_req(i, to);
        }
        dropped
    }

    /// What a capture shows of aggregated data frame `t`, ended at `end`: one record per
    /// subframe, bad where its addressee did not receive it.
    #[cold]
    pub(super) fn air_mpdus(
        &self,
        t: &Transmission,
        end: Instant,
        at_receiver: Option<(bool, f64)>,
    ) -> Vec<AirFrame> {
        let (i, _, _) = self.carried_at(t);
        let interface = &self.interfaces[i as usize];
        let in_flight = &interface.in_flight;
        let frames: Vec<&Frame> = interface.queues[ApQueue::Data as usize]
            .iter()
            .filter(|frame| frame.mpdu.in_flight)
            .take(in_flight.count)
            .collect();
        let decoded = at_receiver.is_some_and(|(decoded, _)| decoded);
        let whole = self.air_frame(t, end, at_receiver);
        let count = in_flight.mpdus();
        (0..count)
            .map(|k| {
                let AirBody::Data {
                    transmitter, ap, ..
                } = whole.body
                else {
                    unreachable!("a data frame's record")
                };
                let members = in_flight.starts[k]
                    ..in_flight.starts.get(k + 1).copied().unwrap_or(frames.len());
                let lead = frames[members.start];
                AirFrame {
                    bad_fcs: !(decoded && lead.mpdu.received),
                    body: AirBody::Data {
                        transmitter,
                        ap,
                        retry: lead.mpdu.resent,
                        sequence: lead.sequence,
                        msdus: frames[members].iter().map(|frame| frame.packet).collect(),
                        ampdu: (count > 1).then_some((t.serial, k + 1 == count)),
                    },
                    ..whole.clone()
                }
            })
            .collect()
    }

    /// The BlockAck radio `responder` sent last, as a capture shows it.
    #[cold]
    pub(super) fn air_block_ack(&self, responder: u32, bytes: u32) -> AirBody {
        let (start_sequence, bitmap) = self
            .block_acks
            .bitmaps
            .get(&responder)
            .copied()
            .unwrap_or_default();
        AirBody::BlockAck {
            transmitter: self.radios[responder as usize].node,
            start_sequence,
            bitmap,
            bitmap_bytes: (bytes - 24) as u8,
        }
    }
}

/// One draw deciding an event of probability `p` (none for a certain one).
fn draw(rng: &mut Stream, p: f64) -> bool {
    p >= 1.0 || rng.random::<f64>() < p
}
