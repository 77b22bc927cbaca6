//! Snoop (Balakrishnan, Seshan, Amir and Katz, 1995), the local retransmission paper 001's
//! base station relies on: on the base station's cell interface it caches each data segment
//! going to the mobile until the mobile acknowledges it, and repairs wireless losses itself.
//!
//! - A duplicate ACK from the mobile for a segment it holds: the first one makes it send the
//!   segment again at once, and that and the duplicates the segments in flight behind it will
//!   cause are dropped, so the fixed sender never sees them and never halves its window. A
//!   segment the sender itself sent again (after its own timeout or fast retransmit) is the
//!   sender's business: duplicate ACKs for it pass.
//! - A local timer, from the smoothed round-trip time of the wireless hop (RFC 6298's
//!   formula, at least `min_rto`), resends the oldest segment when no new ACK has come.
//! - An ACK older than the newest seen is dropped: it can only confuse the sender.

use core::time::Duration;
use std::collections::VecDeque;

use super::connection::{ConnectionKey, Connections, SegmentCache, Stored};
use super::{Agent, Direction, InterfaceQueue, Verdict};
use crate::seq::SeqNumber;
use crate::time::Instant;
use crate::wire::PacketRepr;

/// Local retransmissions of one segment before Snoop leaves it to the sender (a cell that
/// has gone away should not be resent into forever).
const MAX_LOCAL_RETRANSMISSIONS: u32 = 4;

#[derive(Debug, Default)]
struct Connection {
    cache: SegmentCache,
    last_ack: Option<SeqNumber>,
    last_window: u16,
    /// The segment resent for duplicate ACKs, and how many more duplicates to drop for it.
    repairing: Option<(SeqNumber, u32)>,
    srtt: Option<Duration>,
    rttvar: Duration,
    deadline: Option<Instant>,
    backoff: u32,
}

/// What Snoop has done, for tests and summaries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SnoopStats {
    pub local_retransmissions: u64,
    pub suppressed_duplicate_acks: u64,
    pub timer_retransmissions: u64,
}

#[derive(Debug)]
pub struct Snoop {
    min_rto: Duration,
    connections: Connections<Connection>,
    outbox: VecDeque<(Direction, PacketRepr)>,
    pub stats: SnoopStats,
}

impl Snoop {
    pub fn new(min_rto: Duration) -> Self {
        Snoop {
            min_rto,
            connections: Connections::default(),
            outbox: VecDeque::new(),
            stats: SnoopStats::default(),
        }
    }

    fn on_ack(&mut self, now: Instant, key: ConnectionKey, ack: SeqNumber, window: u16) -> Verdict {
        let min_rto = self.min_rto;
        let c = self.connections.entry(key);
        let newest = c.last_ack.is_none_or(|last| ack > last);
        if newest {
            let removed = c.cache.acknowledge(ack);
            // Karn: time only segments sent once.
            if let Some(sample) = removed
                .iter()
                .rev()
                .find(|s| s.local_retransmissions == 0 && !s.sender_retransmitted)
                .map(|s| now - s.sent_at)
            {
                c.on_rtt_sample(sample);
            }
            c.last_ack = Some(ack);
            c.last_window = window;
            c.repairing = None;
            c.backoff = 0;
            c.deadline = (!c.cache.is_empty()).then(|| now + c.rto(min_rto));
            return Verdict::Pass;
        }
        if c.last_ack.is_some_and(|last| last > ack) {
            return Verdict::Drop;
        }
        if window != c.last_window {
            c.last_window = window;
            return Verdict::Pass; // a window update, not a duplicate
        }
        if let Some((seq, left)) = &mut c.repairing {
            if *seq == ack && *left > 0 {
                *left -= 1;
                self.stats.suppressed_duplicate_acks += 1;
                return Verdict::Drop;
            }
        }
        let behind = c.cache.len().saturating_sub(1) as u32;
        let Some(segment) = c.cache.at(ack) else {
            return Verdict::Pass;
        };
        if segment.sender_retransmitted
            || segment.local_retransmissions >= MAX_LOCAL_RETRANSMISSIONS
            || c.repairing.is_some_and(|(seq, _)| seq == ack)
        {
            return Verdict::Pass;
        }
        segment.local_retransmissions += 1;
        segment.sent_at = now;
        let packet = segment.packet;
        // This duplicate, and one for each segment sent after the lost one, are expected.
        c.repairing = Some((ack, behind.saturating_sub(1)));
        c.deadline = Some(now + c.rto(min_rto));
        self.outbox.push_back((Direction::Outbound, packet));
        self.stats.local_retransmissions += 1;
        self.stats.suppressed_duplicate_acks += 1;
        Verdict::Drop
    }
}

impl Connection {
    fn on_rtt_sample(&mut self, rtt: Duration) {
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = rtt / 2;
            }
            Some(srtt) => {
                self.rttvar = (self.rttvar * 3 + srtt.abs_diff(rtt)) / 4;
                self.srtt = Some((srtt * 7 + rtt) / 8);
            }
        }
    }

    /// The local timeout: RFC 6298's from the wireless hop's samples (four times the minimum
    /// before any), doubled for each expiry in a row.
    fn rto(&self, min_rto: Duration) -> Duration {
        let base = match self.srtt {
            Some(srtt) => (srtt + self.rttvar * 4).max(min_rto),
            None => min_rto * 4,
        };
        base * (1 << self.backoff.min(6))
    }
}

impl Agent for Snoop {
    fn name(&self) -> &'static str {
        "snoop"
    }

    fn handle_packet(
        &mut self,
        now: Instant,
        direction: Direction,
        packet: &mut PacketRepr,
        _queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        let Some(tcp) = packet.tcp().copied() else {
            return Verdict::Pass;
        };
        match direction {
            Direction::Outbound if tcp.payload_len > 0 => {
                let min_rto = self.min_rto;
                let c = self.connections.entry(ConnectionKey::of_data(packet, &tcp));
                let acked = c.last_ack;
                if c.cache.store(now, *packet, acked) == Stored::New && c.deadline.is_none() {
                    c.deadline = Some(now + c.rto(min_rto));
                }
                Verdict::Pass
            }
            Direction::Inbound
                if tcp.flags.ack && tcp.payload_len == 0 && !tcp.flags.syn && !tcp.flags.fin =>
            {
                self.on_ack(
                    now,
                    ConnectionKey::of_ack(packet, &tcp),
                    tcp.ack,
                    tcp.window,
                )
            }
            _ => Verdict::Pass,
        }
    }

    fn poll_transmit(&mut self, _now: Instant) -> Option<(Direction, PacketRepr)> {
        self.outbox.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.connections.iter().filter_map(|c| c.deadline).min()
    }

    fn handle_timeout(&mut self, now: Instant, _queue: &mut dyn InterfaceQueue) {
        let min_rto = self.min_rto;
        for c in self.connections.iter_mut() {
            if c.deadline.is_none_or(|d| d > now) {
                continue;
            }
            c.deadline = None;
            let Some(first) = c.cache.first_mut() else {
                continue;
            };
            if first.local_retransmissions >= MAX_LOCAL_RETRANSMISSIONS {
                continue;
            }
            first.local_retransmissions += 1;
            first.sent_at = now;
            self.outbox.push_back((Direction::Outbound, first.packet));
            self.stats.local_retransmissions += 1;
            self.stats.timer_retransmissions += 1;
            c.backoff += 1;
            c.deadline = Some(now + c.rto(min_rto));
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("local_retransmissions", self.stats.local_retransmissions),
            (
                "suppressed_duplicate_acks",
                self.stats.suppressed_duplicate_acks,
            ),
            ("timer_retransmissions", self.stats.timer_retransmissions),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::connection::tests::{ack, data};
    use crate::agent::NoQueue;

    const MS: Duration = Duration::from_millis(1);

    fn at(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    fn see(agent: &mut Snoop, t: u64, direction: Direction, mut packet: PacketRepr) -> Verdict {
        agent.handle_packet(at(t), direction, &mut packet, &mut NoQueue)
    }

    fn sent(agent: &mut Snoop) -> Vec<u32> {
        std::iter::from_fn(|| agent.poll_transmit(Instant::ZERO))
            .map(|(d, p)| {
                assert_eq!(d, Direction::Outbound);
                p.tcp().unwrap().seq.0
            })
            .collect()
    }

    #[test]
    fn a_lost_segment_is_resent_locally_and_its_duplicate_acks_never_pass() {
        let mut snoop = Snoop::new(20 * MS);
        for (i, seq) in [1, 513, 1025, 1537, 2049].into_iter().enumerate() {
            see(&mut snoop, i as u64, Direction::Outbound, data(seq, 512));
        }
        assert_eq!(
            see(&mut snoop, 30, Direction::Inbound, ack(513, 9000)),
            Verdict::Pass
        );
        // 513 was lost: 1025, 1537 and 2049 each make a duplicate ACK.
        for t in [31, 32, 33] {
            assert_eq!(
                see(&mut snoop, t, Direction::Inbound, ack(513, 9000)),
                Verdict::Drop
            );
        }
        assert_eq!(
            sent(&mut snoop),
            [513],
            "resent once, at the first duplicate"
        );
        assert_eq!(snoop.stats.suppressed_duplicate_acks, 3);
        assert_eq!(
            see(&mut snoop, 60, Direction::Inbound, ack(2561, 9000)),
            Verdict::Pass
        );
        // A stale ACK is dropped; a window update passes.
        assert_eq!(
            see(&mut snoop, 61, Direction::Inbound, ack(1025, 9000)),
            Verdict::Drop
        );
        assert_eq!(
            see(&mut snoop, 62, Direction::Inbound, ack(2561, 100)),
            Verdict::Pass
        );
    }

    #[test]
    fn duplicate_acks_for_what_the_sender_resent_or_never_cached_pass() {
        let mut snoop = Snoop::new(20 * MS);
        see(&mut snoop, 0, Direction::Outbound, data(1, 512));
        see(&mut snoop, 1, Direction::Outbound, data(513, 512));
        see(&mut snoop, 2, Direction::Inbound, ack(1, 9000));
        see(&mut snoop, 3, Direction::Outbound, data(1, 512)); // the sender's own resend
        assert_eq!(
            see(&mut snoop, 4, Direction::Inbound, ack(1, 9000)),
            Verdict::Pass
        );
        let mut other = Snoop::new(20 * MS);
        other.handle_packet(at(0), Direction::Inbound, &mut ack(1, 9000), &mut NoQueue);
        assert_eq!(
            see(&mut other, 1, Direction::Inbound, ack(1, 9000)),
            Verdict::Pass
        );
        assert!(sent(&mut snoop).is_empty() && sent(&mut other).is_empty());
    }

    #[test]
    fn the_local_timer_resends_the_oldest_segment_and_backs_off() {
        let mut snoop = Snoop::new(20 * MS);
        see(&mut snoop, 0, Direction::Outbound, data(1, 512));
        see(&mut snoop, 1, Direction::Outbound, data(513, 512));
        see(&mut snoop, 25, Direction::Inbound, ack(513, 9000)); // a 25 ms sample
        let first = snoop.poll_timeout().expect("armed for 513");
        assert_eq!(
            first,
            at(25) + Duration::from_micros(75_000),
            "srtt + 4 rttvar"
        );
        snoop.handle_timeout(first, &mut NoQueue);
        assert_eq!(sent(&mut snoop), [513]);
        let second = snoop.poll_timeout().unwrap();
        assert_eq!(second - first, Duration::from_millis(150), "doubled");
        for _ in 0..10 {
            if let Some(due) = snoop.poll_timeout() {
                snoop.handle_timeout(due, &mut NoQueue);
            }
        }
        assert_eq!(
            snoop.stats.timer_retransmissions,
            u64::from(MAX_LOCAL_RETRANSMISSIONS)
        );
        assert!(snoop.poll_timeout().is_none(), "left to the sender");
    }
}
