//! HT-immediate Block Ack, the parts both 802.11 MACs share (the central DCF's
//! `dcf/ampdu.rs` and the shared channel's `radio/aggregation.rs`): IEEE 802.11-2020 §10.12
//! (A-MPDU contents and limits), §10.25.6 (the originator's scoreboard and the recipient's
//! reordering buffer), §10.23.2.2 (retry counts per MPDU), §9.2.4.4.2 (sequence numbers
//! modulo 4096).
//!
//! - `AmpduLimits` (a WLAN's setting, `config`'s): the Block Ack window, the longest A-MPDU
//!   and the longest PPDU; `longest_psdu` finds the longest PSDU a rate sends within them.
//! - `select_mpdus` picks an A-MPDU's MPDUs from a queue, gathering MSDUs into A-MSDUs where
//!   asked (§9.3.2.2.2: a 14-byte subframe header each, padded to 4 bytes but the last),
//!   `number_mpdus` numbers those sent for the first time (mac80211 numbers a frame when it
//!   leaves the TXQ), every MSDU of an A-MSDU the same.
//! - `MpduState`: an MPDU's Block Ack state; `count_failure` its retry counts.
//! - `Reordering`: the recipient's buffer, which hands MPDUs up in sequence order.

use std::collections::VecDeque;

use airtcp_proto::wifi::mcs::{subframe_bytes, Format};
use airtcp_proto::wifi::Phy;

use super::ap_plan::a_msdu_bytes;
use super::Frame;
use crate::config::AmpduLimits;
use crate::packet::Packet;

/// Sequence numbers run modulo 4096 (§9.2.4.4.2).
pub(crate) const SEQUENCE_MODULO: u16 = 4096;
/// A compressed BlockAckReq's length with its FCS (§9.3.1.7: Frame Control, Duration, RA,
/// TA, BAR Control, Starting Sequence Control, FCS).
pub const BLOCK_ACK_REQ_BYTES: u32 = 24;

/// Which retry counter a failed transmission counts against (IEEE 802.11-2020 §10.3.4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RetryCounter {
    Short,
    Long,
}

impl AmpduLimits {
    /// The frames one A-MPDU may carry, which a driver's queue keeps ready
    /// (`wlan::dcf::Budget`): an MPDU per window slot, and with A-MSDUs as many full-size
    /// frames an MPDU as its A-MSDU holds (1500-byte packets; smaller ones, TCP ACKs, then
    /// fill less of an A-MPDU than it could carry, never more than the driver's depth).
    pub(crate) fn frames_per_ampdu(&self) -> usize {
        usize::from(self.window) * (self.max_amsdu_bytes / FULL_SIZE_AMSDU_SUBFRAME).max(1) as usize
    }
}

/// An A-MSDU subframe of a 1500-byte IP packet: 14 bytes of header, the LLC/SNAP header and
/// the packet, padded to 4 bytes.
const FULL_SIZE_AMSDU_SUBFRAME: u32 = 1524;

/// The PPDU time left in a TXOP of `txop_ns` for an A-MPDU and its BlockAck (`response_ns`),
/// SIFS apart, each propagating, with RTS/CTS ahead where `protected` (§10.23.2.9: the
/// exchange fits in the TXOP limit; ns-3 shortens A-MPDUs to fit the same way).
pub(crate) fn psdu_within_txop(phy: &Phy, txop_ns: u64, response_ns: u64, protected: bool) -> u64 {
    let delta = phy.propagation_ns;
    let mut overhead = phy.sifs_ns + response_ns + 2 * delta;
    if protected {
        overhead += phy.rts_airtime_ns() + phy.cts_airtime_ns() + 2 * (phy.sifs_ns + delta);
    }
    txop_ns.saturating_sub(overhead)
}

/// The longest PSDU up to `max_bytes` whose PPDU at `rate_bps` lasts at most `max_ns`, by
/// bisection on the airtime (it grows with length).
pub(crate) fn longest_psdu(phy: &Phy, rate_bps: u64, max_bytes: u32, max_ns: u64) -> u32 {
    let fits = |bytes: u32| phy.psdu_airtime_ns(bytes, rate_bps) <= max_ns;
    if fits(max_bytes) {
        return max_bytes;
    }
    let (mut fitting, mut too_long) = (0, max_bytes);
    while too_long - fitting > 1 {
        let mid = fitting + (too_long - fitting) / 2;
        if fits(mid) {
            fitting = mid;
        } else {
            too_long = mid;
        }
    }
    fitting
}

/// How an A-MPDU is formed: its format (for the subframes' padding), the MPDU's MAC
/// overhead, the Block Ack window, the longest PSDU and the longest A-MSDU an MPDU may carry
/// (0: one MSDU an MPDU).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Forming {
    pub format: Format,
    pub mac_overhead_bytes: u32,
    pub window: u16,
    pub max_psdu: u32,
    pub max_amsdu: u32,
}

/// The MPDU being gathered while an A-MPDU is formed: its sequence number (`numbered`: the
/// frames it was given to, which go together again), its MSDUs, where it starts in
/// `positions`, and the PSDU's length before it (`closed`, its subframes padded), with the
/// MPDU before it as the last (`prior_psdu`) and with it as the last (`psdu`).
#[derive(Clone, Copy)]
struct Gathering {
    sequence: u16,
    numbered: bool,
    msdus: Msdus,
    start: usize,
    closed: u32,
    prior_psdu: u32,
    psdu: u32,
}

/// The MSDUs of an MPDU: one, or several as an A-MSDU (a 14-byte subframe header each,
/// padded to 4 bytes but the last).
#[derive(Clone, Copy)]
struct Msdus {
    count: u32,
    first: u32,
    padded: u32,
    last_subframe: u32,
}

impl Msdus {
    fn one(msdu_bytes: u32) -> Msdus {
        Msdus {
            count: 1,
            first: msdu_bytes,
            padded: 0,
            last_subframe: 14 + msdu_bytes,
        }
    }

    fn with(self, msdu_bytes: u32) -> Msdus {
        Msdus {
            count: self.count + 1,
            padded: self.padded + self.last_subframe.next_multiple_of(4),
            last_subframe: 14 + msdu_bytes,
            ..self
        }
    }

    /// The A-MSDU's length (several MSDUs).
    fn amsdu_bytes(&self) -> u32 {
        self.padded + self.last_subframe
    }

    /// The MPDU's length with `overhead` bytes of MAC header and FCS.
    fn mpdu_bytes(&self, overhead: u32) -> u32 {
        overhead
            + if self.count == 1 {
                self.first
            } else {
                self.amsdu_bytes()
            }
    }
}

/// Picks the MPDUs of an A-MPDU to MAC `to` from `frames`, in queue order: while the
/// A-MPDU stays within the window that starts at `start` (the oldest unacknowledged MPDU),
/// MPDUs not yet numbered taking numbers from `next` on, and within the longest PSDU (a
/// first MPDU always goes). With A-MSDU (`Forming::max_amsdu`), an MSDU not yet sent joins
/// the MPDU before it, if that one was not sent either, while its A-MSDU stays within the
/// limit (ns-3's `MsduAggregator`; mac80211 builds them in its queues); frames numbered
/// together go together again. The frames' positions go in `positions`, where each MPDU
/// starts among them in `starts`; the PSDU length in bytes. Each subframe is a 4-byte
/// delimiter and the MPDU, padded to 4 bytes (all of them in VHT and HE, all but the last
/// in HT).
pub(crate) fn select_mpdus(
    frames: &VecDeque<Frame>,
    to: u32,
    (start, next): (u16, u16),
    forming: Forming,
    positions: &mut Vec<usize>,
    starts: &mut Vec<usize>,
) -> u32 {
    positions.clear();
    starts.clear();
    let overhead = forming.mac_overhead_bytes;
    let subframe =
        |msdus: Msdus, last| subframe_bytes(forming.format, msdus.mpdu_bytes(overhead), last);
    let mut fresh = next;
    let mut open: Option<Gathering> = None;
    for (position, frame) in frames.iter().enumerate() {
        if frame.to != to {
            continue;
        }
        let msdu = frame.msdu_bytes();
        if let Some(mpdu) = &mut open {
            let grown = mpdu.msdus.with(msdu);
            let joins = if frame.mpdu.numbered {
                mpdu.numbered && frame.sequence == mpdu.sequence
            } else {
                !mpdu.numbered && forming.max_amsdu > 0 && grown.amsdu_bytes() <= forming.max_amsdu
            };
            if joins {
                let psdu = mpdu.closed + subframe(grown, true);
                if psdu <= forming.max_psdu || (mpdu.numbered && starts.len() == 1) {
                    (mpdu.msdus, mpdu.psdu) = (grown, psdu);
                    positions.push(position);
                    continue;
                }
                if mpdu.numbered {
                    // an MPDU sent before goes whole or not at all
                    positions.truncate(mpdu.start);
                    starts.pop();
                    return mpdu.prior_psdu;
                }
                break;
            }
        }
        // a new MPDU
        let sequence = if frame.mpdu.numbered {
            frame.sequence
        } else {
            fresh
        };
        if modular_distance(start, sequence) >= forming.window {
            break;
        }
        let (closed, prior_psdu) = open.map_or((0, 0), |mpdu| {
            (mpdu.closed + subframe(mpdu.msdus, false), mpdu.psdu)
        });
        let psdu = closed + subframe(Msdus::one(msdu), true);
        if !starts.is_empty() && psdu > forming.max_psdu {
            break;
        }
        if !frame.mpdu.numbered {
            fresh = (fresh + 1) % SEQUENCE_MODULO;
        }
        starts.push(positions.len());
        positions.push(position);
        open = Some(Gathering {
            sequence,
            numbered: frame.mpdu.numbered,
            msdus: Msdus::one(msdu),
            start: positions.len() - 1,
            closed,
            prior_psdu,
            psdu,
        });
    }
    open.map_or(0, |mpdu| mpdu.psdu)
}

/// The positions of MPDU `k`'s frames among an A-MPDU's `positions`, each MPDU starting at
/// its entry of `starts` (`select_mpdus`).
pub(crate) fn mpdu_positions<'a>(
    positions: &'a [usize],
    starts: &[usize],
    k: usize,
) -> &'a [usize] {
    let end = starts.get(k + 1).copied().unwrap_or(positions.len());
    &positions[starts[k]..end]
}

/// The MSDU bytes an MPDU carries of the frames at `group`: one MSDU, or an A-MSDU of
/// several.
pub(crate) fn msdus_bytes(frames: &VecDeque<Frame>, group: &[usize]) -> u32 {
    match group {
        [one] => frames[*one].msdu_bytes(),
        _ => a_msdu_bytes(group.iter().map(|&position| frames[position].msdu_bytes())),
    }
}

/// The positions in `frames` of the head MPDU's frames: the head frame and, if it was sent
/// as an A-MSDU, the frames numbered with it (to its receiver, with its sequence number).
pub(crate) fn head_mpdu(frames: &VecDeque<Frame>, members: &mut Vec<usize>) {
    members.clear();
    members.push(0);
    let head = frames[0];
    if head.mpdu.numbered {
        members.extend(frames.iter().enumerate().skip(1).filter_map(|(p, f)| {
            let with_head = f.to == head.to && f.mpdu.numbered && f.sequence == head.sequence;
            with_head.then_some(p)
        }));
    }
}

/// Where an originator tells its recipient `to` to start its window (a BlockAckReq's
/// starting sequence number): the oldest MPDU for it among `frames` that was numbered, or
/// `next`, the next number it will give.
pub(crate) fn window_start<'a>(
    frames: impl IntoIterator<Item = &'a Frame>,
    to: u32,
    next: u16,
) -> u16 {
    let mut frames = frames.into_iter();
    let oldest = frames.find(|f| f.to == to && f.mpdu.numbered);
    oldest.map_or(next, |f| f.sequence)
}

/// Numbers the MPDUs of `selection` sent for the first time from `next` on (every frame of
/// an MPDU the same number) and marks their frames in flight; the next number.
pub(crate) fn number_mpdus(
    frames: &mut VecDeque<Frame>,
    (positions, starts): (&[usize], &[usize]),
    mut next: u16,
) -> u16 {
    for k in 0..starts.len() {
        let mpdu = mpdu_positions(positions, starts, k);
        let lead = frames[mpdu[0]].mpdu;
        let fresh = !lead.numbered;
        for &position in mpdu {
            let frame = &mut frames[position];
            if fresh {
                frame.sequence = next;
                frame.mpdu.numbered = true;
                // one MPDU, one retry count (its first MSDU may have lost internal
                // collisions alone)
                frame.mpdu.short_retries = lead.short_retries;
                frame.mpdu.long_retries = lead.long_retries;
            }
            frame.mpdu.in_flight = true;
        }
        if fresh {
            next = (next + 1) % SEQUENCE_MODULO;
        }
    }
    next
}

/// How an MPDU of an aggregating MAC stands: numbered, in the A-MPDU on the air,
/// acknowledged in its BlockAck, and its failed attempts.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MpduState {
    /// It has a sequence number (given when it is first put in an A-MPDU).
    pub numbered: bool,
    /// Its present sending is a retry (for captures).
    pub resent: bool,
    pub in_flight: bool,
    /// Its recipient has it: what the BlockAck will tell (the originator acts on it only
    /// once the BlockAck arrives).
    pub acked: bool,
    /// On a channel with geometry: this sending of it reached its recipient (for captures;
    /// `acked` may also say that an earlier one did).
    pub received: bool,
    /// Failed attempts by retry counter (§10.23.2.2: a short and a long count per MSDU; a
    /// CTS resets the short one). A byte each, as the limits are (dot11ShortRetryLimit and
    /// dot11LongRetryLimit are 1..255, `limits::MAX_RETRY_LIMIT`): every queued frame
    /// carries this state.
    pub short_retries: u8,
    pub long_retries: u8,
}

impl MpduState {
    /// Whether the MPDU has a sequence number, so that its recipient may be waiting for it.
    pub(crate) fn numbered(&self) -> bool {
        self.numbered
    }

    /// The state of an MPDU that was given a sequence number.
    #[cfg(test)]
    pub(crate) fn numbered_mpdu() -> MpduState {
        MpduState {
            numbered: true,
            ..MpduState::default()
        }
    }

    /// A failed attempt against `counter` (a long failure, after a CTS, clears the short
    /// count); whether the MPDU reached that counter's limit.
    pub(crate) fn count_failure(
        &mut self,
        counter: RetryCounter,
        (short_limit, long_limit): (u32, u32),
    ) -> bool {
        match counter {
            RetryCounter::Short => {
                self.short_retries = self.short_retries.saturating_add(1);
                u32::from(self.short_retries) >= short_limit
            }
            RetryCounter::Long => {
                self.short_retries = 0;
                self.long_retries = self.long_retries.saturating_add(1);
                u32::from(self.long_retries) >= long_limit
            }
        }
    }
}

/// A recipient's reordering buffer (§10.25.6.6): `held[i]` is the MPDU with sequence number
/// `expected + i`, if it arrived (its first MSDU; an A-MSDU's others wait in `further`);
/// `held[0]` is always empty. `window` MPDUs from `expected` make its window.
#[derive(Debug)]
pub(crate) struct Reordering {
    expected: u16,
    window: u16,
    held: VecDeque<Option<Packet>>,
    /// The further MSDUs of held A-MSDUs, by sequence number, in order.
    further: Vec<(u16, Packet)>,
}

impl Reordering {
    pub(crate) fn new(window: u16) -> Self {
        Reordering {
            expected: 0,
            window,
            held: VecDeque::new(),
            further: Vec::new(),
        }
    }

    /// The MPDU `sequence` arrived with `msdus` (one, or an A-MSDU's): handed up with the
    /// ones it frees, or held after a gap; whether it was held.
    pub(crate) fn receive(
        &mut self,
        sequence: u16,
        msdus: impl IntoIterator<Item = Packet>,
        out: &mut Vec<Packet>,
    ) -> bool {
        if sequence == self.expected && self.held.is_empty() {
            // in order with nothing held: straight up (the usual case)
            out.extend(msdus);
            self.expected = (self.expected + 1) % SEQUENCE_MODULO;
            return false;
        }
        let mut offset = modular_distance(self.expected, sequence);
        if offset >= SEQUENCE_MODULO / 2 {
            return false; // before the window: a duplicate
        }
        if offset >= self.window {
            // past the window's end: the window moves so that it ends there (§10.25.6.6.2),
            // handing up what it held before its new start
            let start = (sequence + SEQUENCE_MODULO + 1 - self.window) % SEQUENCE_MODULO;
            self.move_window(start, out);
            offset = modular_distance(self.expected, sequence);
        }
        let offset = usize::from(offset);
        if self.held.len() <= offset {
            self.held.resize(offset + 1, None);
        }
        if self.held[offset].is_none() {
            let mut msdus = msdus.into_iter();
            self.held[offset] = msdus.next();
            self.further.extend(msdus.map(|packet| (sequence, packet)));
        }
        self.release(out);
        offset > 0
    }

    /// Whether MPDU `sequence` lies before the window: handed up (or given up) already.
    pub(crate) fn is_behind(&self, sequence: u16) -> bool {
        modular_distance(self.expected, sequence) >= SEQUENCE_MODULO / 2
    }

    /// Whether MPDU `sequence` is held, waiting for a gap before it to fill.
    pub(crate) fn holds(&self, sequence: u16) -> bool {
        let offset = usize::from(modular_distance(self.expected, sequence));
        self.held.get(offset).is_some_and(Option::is_some)
    }

    /// The bitmap of the BlockAck answering a BlockAckReq that starts at `start`, `bits`
    /// long (at most 256): bit i set where MPDU `start + i` is held (§10.25.6.5).
    pub(crate) fn scoreboard(&self, start: u16, bits: usize) -> [u8; 32] {
        let mut bitmap = [0u8; 32];
        for bit in 0..bits {
            if self.holds((start + bit as u16) % SEQUENCE_MODULO) {
                bitmap[bit / 8] |= 1 << (bit % 8);
            }
        }
        bitmap
    }

    /// The originator gave up every MPDU before `start` (a BlockAckReq's starting sequence
    /// number): the window moves there, handing up what it held before it.
    pub(crate) fn move_window(&mut self, start: u16, out: &mut Vec<Packet>) {
        let offset = modular_distance(self.expected, start);
        if offset >= SEQUENCE_MODULO / 2 {
            return;
        }
        for _ in 0..offset {
            if let Some(Some(packet)) = self.held.pop_front() {
                self.hand_up(packet, out);
            }
            self.expected = (self.expected + 1) % SEQUENCE_MODULO;
        }
        self.release(out);
    }

    /// Hands up the MPDUs in order from the window's start.
    fn release(&mut self, out: &mut Vec<Packet>) {
        while let Some(Some(_)) = self.held.front() {
            let packet = self.held.pop_front().flatten().expect("held");
            self.hand_up(packet, out);
            self.expected = (self.expected + 1) % SEQUENCE_MODULO;
        }
    }

    /// Hands up MPDU `expected`, its first MSDU `packet` and the further ones of its A-MSDU.
    fn hand_up(&mut self, packet: Packet, out: &mut Vec<Packet>) {
        out.push(packet);
        if self.further.is_empty() {
            return;
        }
        let expected = self.expected;
        out.extend(
            self.further
                .iter()
                .filter(|(s, _)| *s == expected)
                .map(|&(_, p)| p),
        );
        self.further.retain(|(s, _)| *s != expected);
    }
}

/// How far `to` is after `from`, modulo 4096.
pub(crate) fn modular_distance(from: u16, to: u16) -> u16 {
    to.wrapping_sub(from) % SEQUENCE_MODULO
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::tests::udp_packet;

    fn uids(out: &[Packet]) -> Vec<u64> {
        out.iter().map(|p| p.uid).collect()
    }

    fn packet(uid: u64) -> Packet {
        Packet {
            uid,
            ..udp_packet(100)
        }
    }

    #[test]
    fn reordering_holds_after_a_gap_and_releases_in_order() {
        let mut buffer = Reordering::new(64);
        let mut out = Vec::new();
        buffer.receive(0, [packet(0)], &mut out);
        buffer.receive(2, [packet(2)], &mut out);
        buffer.receive(3, [packet(3)], &mut out);
        assert_eq!(uids(&out), [0]);
        assert!(
            !buffer.is_behind(2) && buffer.holds(2),
            "held, not handed up"
        );
        assert!(!buffer.holds(1) && !buffer.holds(9));
        buffer.receive(1, [packet(1)], &mut out);
        assert_eq!(uids(&out), [0, 1, 2, 3]);
        // a duplicate before the window is dropped
        assert!(buffer.is_behind(2));
        buffer.receive(2, [packet(9)], &mut out);
        assert_eq!(out.len(), 4);
        assert_eq!(buffer.expected, 4);
    }

    #[test]
    fn a_block_ack_request_moves_the_window_past_a_given_up_mpdu() {
        let mut buffer = Reordering::new(64);
        let mut out = Vec::new();
        buffer.receive(1, [packet(1)], &mut out);
        buffer.receive(3, [packet(3)], &mut out);
        assert!(out.is_empty());
        // the originator gave up 0: 1 goes up, 3 waits for 2
        buffer.move_window(1, &mut out);
        assert_eq!(uids(&out), [1]);
        buffer.move_window(3, &mut out);
        assert_eq!(uids(&out), [1, 3]);
        assert_eq!(buffer.expected, 4);
        // a window start already passed changes nothing
        buffer.move_window(2, &mut out);
        assert_eq!(buffer.expected, 4);
    }

    #[test]
    fn an_mpdu_past_the_window_moves_it() {
        let mut buffer = Reordering::new(4);
        let mut out = Vec::new();
        buffer.receive(1, [packet(1)], &mut out);
        buffer.receive(2, [packet(2)], &mut out);
        assert!(out.is_empty());
        // 5 lies past the window 0-3: the window becomes 2-5, 0 is given up, 1 and 2 go up
        buffer.receive(5, [packet(5)], &mut out);
        assert_eq!(uids(&out), [1, 2]);
        assert_eq!(buffer.expected, 3);
        buffer.receive(3, [packet(3)], &mut out);
        buffer.receive(4, [packet(4)], &mut out);
        assert_eq!(uids(&out), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn sequence_numbers_wrap_at_4096() {
        let mut buffer = Reordering {
            expected: 4094,
            ..Reordering::new(64)
        };
        let mut out = Vec::new();
        buffer.receive(0, [packet(0)], &mut out);
        buffer.receive(4095, [packet(4095)], &mut out);
        assert!(out.is_empty());
        buffer.receive(4094, [packet(4094)], &mut out);
        assert_eq!(uids(&out), [4094, 4095, 0]);
        assert_eq!(buffer.expected, 1);
    }

    #[test]
    fn a_failure_counts_against_its_counter_and_a_long_one_clears_the_short_count() {
        let mut mpdu = MpduState::default();
        assert!(!mpdu.count_failure(RetryCounter::Short, (2, 3)));
        assert!(!mpdu.count_failure(RetryCounter::Long, (2, 3)));
        assert_eq!((mpdu.short_retries, mpdu.long_retries), (0, 1));
        assert!(!mpdu.count_failure(RetryCounter::Short, (2, 3)));
        assert!(mpdu.count_failure(RetryCounter::Short, (2, 3)), "2 short");
        assert!(!mpdu.count_failure(RetryCounter::Long, (2, 3)));
        assert!(mpdu.count_failure(RetryCounter::Long, (2, 3)), "3 long");
    }

    /// `count` frames to MAC 1 of 1472-byte UDP payloads (1508-byte MSDUs), uids from 0.
    fn queue(count: u64) -> VecDeque<Frame> {
        (0..count)
            .map(|uid| {
                let packet = Packet {
                    uid,
                    ..udp_packet(1472)
                };
                Frame::new(packet, 1, airtcp_proto::Instant::ZERO, 0)
            })
            .collect()
    }

    /// 802.11ac MPDUs (30 bytes of MAC header and FCS) within `max_psdu` and `max_amsdu`.
    fn vht(max_psdu: u32, max_amsdu: u32) -> Forming {
        Forming {
            format: Format::Vht,
            mac_overhead_bytes: 30,
            window: 64,
            max_psdu,
            max_amsdu,
        }
    }

    #[test]
    fn msdus_gather_into_a_msdus_within_their_limit() {
        // A-MSDU subframes of 14 + 1508 bytes, padded to 1524 but the last: 5 make 7618
        // bytes (6, 9142 > 7935); MPDUs of 30 + 7618 and, for the 12th-13th, 30 + 3046,
        // each an A-MPDU subframe of 4 + MPDU padded to 4 (VHT)
        let mut frames = queue(12);
        let (mut positions, mut starts) = (Vec::new(), Vec::new());
        let forming = vht(1_000_000, 7935);
        let psdu = select_mpdus(&frames, 1, (0, 0), forming, &mut positions, &mut starts);
        assert_eq!(positions, (0..12).collect::<Vec<_>>());
        assert_eq!(starts, [0, 5, 10]);
        assert_eq!(psdu, 2 * 7652 + 3080);
        let next = number_mpdus(&mut frames, (&positions, &starts), 7);
        assert_eq!(next, 10);
        let sequences: Vec<u16> = frames.iter().map(|f| f.sequence).collect();
        assert_eq!(sequences, [7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 9, 9]);
        // the first A-MSDU arrived: the rest go again as they were, new MSDUs in MPDUs of
        // their own, never inside an MPDU sent before
        for frame in frames.iter_mut() {
            frame.mpdu.in_flight = false;
        }
        frames.drain(..5);
        frames.extend(queue(3));
        select_mpdus(&frames, 1, (8, 10), forming, &mut positions, &mut starts);
        assert_eq!(starts, [0, 5, 7]);
        assert_eq!(positions.len(), 10);
        // without A-MSDUs each MSDU is an MPDU
        let fresh = queue(12);
        select_mpdus(
            &fresh,
            1,
            (0, 0),
            vht(1_000_000, 0),
            &mut positions,
            &mut starts,
        );
        assert_eq!(starts, (0..12).collect::<Vec<_>>());
    }

    #[test]
    fn the_psdu_limit_ends_an_a_msdu_and_keeps_a_sent_one_whole() {
        // 10 000 bytes: the first MPDU (7652), then one MSDU alone (4 + 1538, padded to 1544);
        // a second MSDU in that MPDU would make 7652 + 3080 = 10 732
        let mut frames = queue(12);
        let (mut positions, mut starts) = (Vec::new(), Vec::new());
        let psdu = select_mpdus(
            &frames,
            1,
            (0, 0),
            vht(10_000, 7935),
            &mut positions,
            &mut starts,
        );
        assert_eq!(
            (positions.len(), starts.clone(), psdu),
            (6, vec![0, 5], 7652 + 1544)
        );
        // numbered as 5 + 1; then with room for 7652 + 1544 + 1544 only, the 5-MSDU MPDU
        // still goes whole, and a sent MPDU that no longer fits waits whole
        number_mpdus(&mut frames, (&positions, &starts), 0);
        let psdu = select_mpdus(
            &frames,
            1,
            (0, 2),
            vht(7000, 7935),
            &mut positions,
            &mut starts,
        );
        assert_eq!((positions.len(), starts.clone(), psdu), (5, vec![0], 7652));
    }

    #[test]
    fn a_sent_a_msdu_that_no_longer_fits_waits_whole() {
        // numbered as 5 + 5 + 2 MSDUs; then within 12 000 bytes the second A-MSDU's first
        // three MSDUs would fit (7652 + 4604 = 12 256 does not, 7652 + 3080 does): it stays
        // out whole, and the A-MPDU is the first MPDU alone
        let mut frames = queue(12);
        let (mut positions, mut starts) = (Vec::new(), Vec::new());
        let wide = vht(1_000_000, 7935);
        select_mpdus(&frames, 1, (0, 0), wide, &mut positions, &mut starts);
        number_mpdus(&mut frames, (&positions, &starts), 0);
        let narrow = vht(12_000, 7935);
        let psdu = select_mpdus(&frames, 1, (0, 3), narrow, &mut positions, &mut starts);
        assert_eq!((positions.len(), starts.clone(), psdu), (5, vec![0], 7652));
    }

    #[test]
    fn a_held_a_msdu_goes_up_whole_and_in_order() {
        let mut buffer = Reordering::new(64);
        let mut out = Vec::new();
        buffer.receive(1, [packet(10), packet(11), packet(12)], &mut out);
        buffer.receive(2, [packet(20)], &mut out);
        assert!(out.is_empty() && buffer.holds(1));
        // a copy of a held MPDU adds nothing
        buffer.receive(1, [packet(10), packet(11), packet(12)], &mut out);
        buffer.receive(0, [packet(0), packet(1)], &mut out);
        assert_eq!(uids(&out), [0, 1, 10, 11, 12, 20]);
        // held behind a gap the originator gives up: the window moves, the A-MSDU goes up
        out.clear();
        buffer.receive(4, [packet(40), packet(41)], &mut out);
        buffer.move_window(4, &mut out);
        assert_eq!(uids(&out), [40, 41]);
        assert!(buffer.further.is_empty());
    }

    #[test]
    fn a_block_ack_req_is_answered_with_what_the_recipient_holds_from_its_start() {
        // expecting 4090, holding 4092 and 3 (across the wrap): from 4091, bits 1 and 8
        let mut buffer = Reordering::new(64);
        // (a window moves forward by less than half the sequence space at a time)
        for start in [2000, 4000, 4090] {
            buffer.move_window(start, &mut Vec::new());
        }
        let mut out = Vec::new();
        buffer.receive(4092, [packet(1)], &mut out);
        buffer.receive(3, [packet(2)], &mut out);
        assert!(out.is_empty());
        let bitmap = buffer.scoreboard(4091, 64);
        assert_eq!((bitmap[0], bitmap[1]), (0b10, 0b1));
        assert!(bitmap[2..].iter().all(|&byte| byte == 0));
        // a shorter bitmap leaves out what lies past it
        assert_eq!(buffer.scoreboard(4091, 8)[1], 0);
    }

    #[test]
    fn a_window_starts_at_the_oldest_numbered_mpdu_for_its_recipient() {
        let frame = |to: u32, sequence: u16, numbered: bool| {
            let mut frame = Frame::new(packet(0), to, airtcp_proto::Instant::ZERO, sequence);
            frame.mpdu.numbered = numbered;
            frame
        };
        let frames = [
            frame(1, 7, true),
            frame(2, 5, false),
            frame(2, 9, true),
            frame(2, 3, true),
        ];
        assert_eq!(window_start(&frames, 2, 11), 9);
        assert_eq!(
            window_start(&frames, 3, 11),
            11,
            "none held: the next number"
        );
        assert_eq!(window_start(&frames[1..2], 2, 11), 11, "not numbered yet");
    }
}
