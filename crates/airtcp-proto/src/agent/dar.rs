//! Dynamic ACK regeneration (`dar`, paper 003 section 3), on the far side of the slow link
//! (the router on the sender's side, on its interface to the slow link):
//!
//! - 3.1: each data segment going towards the receiver is listed ([`SequenceList`]); a new
//!   ACK is followed back through the list, and one ACK is regenerated for the end of each
//!   segment between the previous ACK and it, so the sender sees one ACK per segment, as if
//!   nothing had been filtered and the receiver did not delay its ACKs;
//! - 3.2: they leave `δt = Δt_eff / δα` apart, the received ACK last ([`AckGaps`]);
//! - 3.3: only while the sender is in slow start. The amount of data listed (what the
//!   sender has in flight) is read at the end of each round trip (when an ACK reaches the
//!   highest data listed at the round's start); a round that grew it less than the round
//!   before ends slow start, and regeneration stops. A data segment listed before (a
//!   retransmission) after that means the sender timed out, and regeneration resumes. The
//!   paper says "the slope of the growth decreases"; comparing rounds is airtcp's reading.
//!
//! By default ([`FastRecovery::Regenerate`]) DAR is the paper's: any retransmission of
//! listed data after slow start is taken for a timeout. [`FastRecovery::Pass`] adds two
//! refinements of airtcp's, both for fast retransmit, which is neither slow start nor a
//! timeout: three duplicate ACKs end slow start at once (the sender is about to halve its
//! window), and the retransmissions of the fast recovery they start (until an ACK reaches
//! the highest data sent before it, NewReno's recovery point, RFC 6582) are not taken for a
//! timeout. Without them DAR would split the ACK that ends a fast recovery into one ACK per
//! segment, and a NewReno sender takes each of those partial ACKs as another loss and
//! resends a segment the receiver has. Which is better depends on the losses: without
//! them `Pass` spares the sender spurious retransmissions; with several losses a window,
//! those partial ACKs repair them faster (docs/reproductions/ahn-dar.md).
//!
//! Received ACKs always pass, in order after any regenerated ones.

use super::ack_gaps::AckGaps;
use super::connection::{ConnectionKey, Connections};
use super::regenerator::{AckRegenerator, Regenerator};
use super::sequence_list::{Added, Block, SequenceList};
use super::Verdict;
use crate::seq::SeqNumber;
use crate::time::Instant;
use crate::wire::{PacketRepr, TcpRepr};

/// Duplicate ACKs that make a sender retransmit (RFC 5681 section 3.2).
const DUPLICATE_THRESHOLD: u32 = 3;

/// What DAR does about a fast retransmit and the recovery it starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FastRecovery {
    /// airtcp's: three duplicate ACKs end slow start, and the recovery's retransmissions
    /// are not taken for a timeout: its ACKs pass as they come.
    Pass,
    /// The paper's (section 3.3): a retransmission is a timeout, whatever came before it,
    /// and regeneration resumes.
    #[default]
    Regenerate,
}

#[derive(Debug)]
struct Connection {
    list: SequenceList,
    gaps: AckGaps,
    last_ack: Option<SeqNumber>,
    /// Duplicates of `last_ack` in a row.
    duplicates: u32,
    /// In a fast recovery: until an ACK reaches this (the highest data at its start).
    recovery: Option<SeqNumber>,
    regenerating: bool,
    /// The round trip being measured: it ends when an ACK reaches `end`; the data listed
    /// when it started; the growth of the round before.
    round: Option<Round>,
    last_growth: Option<i64>,
}

#[derive(Clone, Copy, Debug)]
struct Round {
    end: SeqNumber,
    listed: u64,
}

impl Default for Connection {
    fn default() -> Self {
        Connection {
            list: SequenceList::default(),
            gaps: AckGaps::default(),
            last_ack: None,
            duplicates: 0,
            recovery: None,
            // A connection starts in slow start.
            regenerating: true,
            round: None,
            last_growth: None,
        }
    }
}

/// What DAR has done besides regenerating.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DarStats {
    /// Times slow start was judged over and regeneration stopped.
    pub stops: u64,
    /// Times a retransmission was judged a timeout and regeneration resumed.
    pub resumes: u64,
    /// The most blocks one connection's list held.
    pub most_blocks: u64,
}

#[derive(Debug, Default)]
pub struct Dar {
    fast_recovery: FastRecovery,
    connections: Connections<Connection>,
    regenerator: Regenerator,
    pub stats: DarStats,
}

impl Dar {
    pub fn new(fast_recovery: FastRecovery) -> Self {
        Dar {
            fast_recovery,
            ..Dar::default()
        }
    }

    fn list(&mut self, key: ConnectionKey, seq: SeqNumber, len: u32) {
        let c = self.connections.entry(key);
        if c.list.add(seq, len) == Added::Again && !c.regenerating && c.recovery.is_none() {
            c.regenerating = true;
            c.round = None;
            c.last_growth = None;
            self.stats.resumes += 1;
        }
        self.stats.most_blocks = self.stats.most_blocks.max(c.list.blocks() as u64);
    }

    fn regenerate(&mut self, now: Instant, packet: &PacketRepr) -> Verdict {
        let tcp = packet.tcp().expect("an ACK");
        let key = ConnectionKey::of_ack(packet, tcp);
        let c = self.connections.entry(key);
        if c.last_ack.is_some_and(|last| tcp.ack <= last) {
            if c.last_ack == Some(tcp.ack) && self.fast_recovery == FastRecovery::Pass {
                c.duplicates += 1;
                if c.duplicates == DUPLICATE_THRESHOLD {
                    c.recovery = c.recovery.or(c.list.highest());
                    if c.regenerating {
                        c.regenerating = false;
                        self.stats.stops += 1;
                    }
                }
            }
            return self.regenerator.pass_in_order(now, key, packet);
        }
        c.last_ack = Some(tcp.ack);
        c.duplicates = 0;
        if c.recovery.is_some_and(|point| tcp.ack >= point) {
            c.recovery = None;
        }
        c.gaps.record(now);
        let ends = c.list.acknowledge(tcp.ack);
        if c.end_of_round(tcp.ack) {
            self.stats.stops += 1;
        }
        let regenerated: Vec<SeqNumber> = ends.into_iter().filter(|&end| end < tcp.ack).collect();
        if !c.regenerating || regenerated.is_empty() {
            return self.regenerator.pass_in_order(now, key, packet);
        }
        let spacing = c.gaps.spacing(regenerated.len() as u32 + 1);
        self.regenerator
            .send_train(now, key, regenerated, packet, spacing)
    }
}

impl Connection {
    /// Closes the round an ACK reaching `ack` ends, if it does; true if that ends slow start.
    fn end_of_round(&mut self, ack: SeqNumber) -> bool {
        let listed = self.list.bytes();
        let highest = ack + u32::try_from(listed).unwrap_or(u32::MAX);
        let Some(round) = self.round else {
            self.round = Some(Round {
                end: highest,
                listed,
            });
            return false;
        };
        if ack < round.end {
            return false;
        }
        let growth = listed as i64 - round.listed as i64;
        let slowed = self.last_growth.is_some_and(|last| growth < last);
        self.last_growth = Some(growth);
        self.round = Some(Round {
            end: highest,
            listed,
        });
        if slowed && self.regenerating {
            self.regenerating = false;
            return true;
        }
        false
    }
}

impl AckRegenerator for Dar {
    const KIND: &'static str = "dar";

    fn regenerator(&self) -> &Regenerator {
        &self.regenerator
    }

    fn regenerator_mut(&mut self) -> &mut Regenerator {
        &mut self.regenerator
    }

    fn on_data(&mut self, packet: &PacketRepr, tcp: &TcpRepr) {
        self.list(
            ConnectionKey::of_data(packet, tcp),
            tcp.seq,
            tcp.payload_len,
        );
    }

    fn on_ack(&mut self, now: Instant, packet: &mut PacketRepr) -> Verdict {
        self.regenerate(now, packet)
    }

    fn own_counters(&self) -> Vec<(&'static str, u64)> {
        let state = self.stats.most_blocks * core::mem::size_of::<Block>() as u64;
        vec![
            ("regeneration_stops", self.stats.stops),
            ("regeneration_resumes", self.stats.resumes),
            ("most_list_blocks", self.stats.most_blocks),
            ("most_list_bytes", state),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::connection::tests::{ack, data};
    use crate::agent::{Agent, Direction, NoQueue};
    use core::time::Duration;

    fn regenerating(dar: &mut Dar, key: ConnectionKey) -> bool {
        dar.connections.entry(key).regenerating
    }

    /// Drives DAR and collects the ACKs it hands on at each time.
    struct Bench {
        dar: Dar,
        now: Instant,
        out: Vec<u32>,
    }

    impl Bench {
        fn new() -> Self {
            Bench {
                dar: Dar::default(),
                now: Instant::ZERO,
                out: Vec::new(),
            }
        }

        fn data(&mut self, seq: u32, len: u32) {
            let mut p = data(seq, len);
            let v = self
                .dar
                .handle_packet(self.now, Direction::Outbound, &mut p, &mut NoQueue);
            assert_eq!(v, Verdict::Pass);
        }

        fn ack(&mut self, at_ms: u64, value: u32) {
            self.now = Instant::ZERO + Duration::from_millis(at_ms);
            let mut p = ack(value, 100);
            let v = self
                .dar
                .handle_packet(self.now, Direction::Inbound, &mut p, &mut NoQueue);
            if v == Verdict::Pass {
                self.out.push(value);
            }
            self.drain_until(self.now);
        }

        fn drain_until(&mut self, until: Instant) {
            while let Some(at) = self.dar.poll_timeout().filter(|at| *at <= until) {
                while let Some((_, p)) = self.dar.poll_transmit(at) {
                    self.out.push(p.tcp().unwrap().ack.0);
                }
            }
        }

        fn key(&self) -> ConnectionKey {
            let p = ack(1, 1);
            ConnectionKey::of_ack(&p, p.tcp().unwrap())
        }
    }

    #[test]
    fn one_ack_per_segment_covered_in_order_never_past_the_received_one() {
        let mut b = Bench::new();
        for k in 0..8 {
            b.data(1 + k * 1000, 1000);
        }
        b.ack(0, 2001);
        b.ack(40, 6001);
        b.ack(80, 8001);
        b.drain_until(Instant::ZERO + Duration::from_secs(1));
        assert_eq!(b.out, [1001, 2001, 3001, 4001, 5001, 6001, 7001, 8001]);
        assert_eq!(b.dar.regenerator.stats.regenerated, 5);
    }

    #[test]
    fn the_train_is_spaced_by_the_effective_gap_over_its_length() {
        let mut b = Bench::new();
        for k in 0..40 {
            b.data(1 + k * 1000, 1000);
        }
        // Gaps 40, 40, a 200 ms wait, then 40: mean 80 ms, effective 40 ms.
        b.ack(0, 2001);
        b.ack(40, 4001);
        b.ack(80, 6001);
        b.ack(280, 8001);
        b.drain_until(Instant::ZERO + Duration::from_millis(319));
        assert_eq!(b.dar.regenerator.stats.late, 0);
        b.out.clear();
        // Four segments: δt = 40 / 4 = 10 ms; first at once, the received one at +30 ms.
        b.ack(320, 12001);
        assert_eq!(b.out, [9001]);
        let ms = |n| Instant::ZERO + Duration::from_millis(n);
        assert_eq!(b.dar.poll_timeout(), Some(ms(330)));
        b.drain_until(ms(349));
        assert_eq!(b.out, [9001, 10001, 11001]);
        b.drain_until(ms(350));
        assert_eq!(b.out, [9001, 10001, 11001, 12001]);
    }

    #[test]
    fn regeneration_stops_when_a_round_grows_less_and_resumes_after_a_timeout() {
        let mut b = Bench::new();
        let key = b.key();
        let mut next = 1u32;
        let mut acked = 1u32;
        let mut t = 0;
        // Slow start: each round acknowledges what was sent and sends twice as much.
        let mut flight = 2u32;
        for _ in 0..4 {
            for _ in 0..flight {
                b.data(next, 1000);
                next += 1000;
            }
            t += 100;
            acked += flight / 2 * 1000;
            b.ack(t, acked);
            flight *= 2;
        }
        assert!(regenerating(&mut b.dar, key), "still in slow start");
        // Avoidance: one more segment per round only.
        for _ in 0..4 {
            for _ in 0..3 {
                b.data(next, 1000);
                next += 1000;
            }
            t += 100;
            acked = next - 8000;
            b.ack(t, acked);
        }
        assert!(!regenerating(&mut b.dar, key), "slow start over");
        assert_eq!(b.dar.stats.stops, 1);
        // Nothing regenerated while off: a jump of several segments passes alone.
        b.out.clear();
        t += 100;
        acked += 3000;
        b.ack(t, acked);
        assert_eq!(b.out, [acked]);
        // The sender resends a listed segment: a timeout; regeneration is back.
        b.data(acked, 1000);
        assert!(regenerating(&mut b.dar, key));
        assert_eq!(b.dar.stats.resumes, 1);
        b.out.clear();
        b.ack(t + 100, acked + 3000);
        b.drain_until(Instant::ZERO + Duration::from_secs(100));
        assert_eq!(b.out, [acked + 1000, acked + 2000, acked + 3000]);
    }

    #[test]
    fn by_the_paper_a_fast_retransmit_resumes_regeneration() {
        let mut b = Bench::new();
        let key = b.key();
        for k in 0..10 {
            b.data(1 + k * 1000, 1000);
        }
        b.ack(10, 2001);
        for t in 20..23 {
            b.ack(t, 2001);
        }
        assert!(regenerating(&mut b.dar, key), "duplicates do not stop it");
        b.dar.connections.entry(key).regenerating = false;
        b.data(2001, 1000);
        assert!(
            regenerating(&mut b.dar, key),
            "a fast retransmit is taken for a timeout"
        );
        b.out.clear();
        b.ack(100, 5001);
        b.drain_until(Instant::ZERO + Duration::from_secs(1));
        assert_eq!(b.out, [3001, 4001, 5001]);
    }

    #[test]
    fn kept_out_a_fast_retransmit_stops_regeneration_and_is_not_taken_for_a_timeout() {
        let mut b = Bench::new();
        b.dar = Dar::new(FastRecovery::Pass);
        let key = b.key();
        for k in 0..10 {
            b.data(1 + k * 1000, 1000);
        }
        b.ack(10, 2001);
        assert!(regenerating(&mut b.dar, key));
        // Segment 2001 is lost: the receiver repeats 2001 for each later segment.
        for (i, t) in (20..23).enumerate() {
            b.ack(t, 2001);
            assert_eq!(
                regenerating(&mut b.dar, key),
                i < 2,
                "after {} duplicates",
                i + 1
            );
        }
        b.data(2001, 1000);
        assert!(
            !regenerating(&mut b.dar, key),
            "a fast retransmit is no timeout"
        );
        // A partial ACK, and the retransmission it brings, are still the recovery.
        b.ack(60, 4001);
        b.data(4001, 1000);
        assert!(
            !regenerating(&mut b.dar, key),
            "nor a partial ACK's retransmission"
        );
        assert_eq!((b.dar.stats.stops, b.dar.stats.resumes), (1, 0));
        // The ACK that ends the recovery passes whole: no partial ACKs for NewReno to resend.
        b.out.clear();
        b.ack(100, 10001);
        b.drain_until(Instant::ZERO + Duration::from_secs(1));
        assert_eq!(b.out, [10001]);
        // After it, a retransmission is a timeout again.
        b.data(11001, 1000);
        b.data(10001, 1000);
        assert!(regenerating(&mut b.dar, key));
        assert_eq!(b.dar.stats.resumes, 1);
    }
}
