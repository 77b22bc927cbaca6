//! ACK filtering (`af`, RFC 3449 section 5.1; paper 003 section 2): on the interface into a
//! slow link (the uplink of an asymmetric path), when a TCP ACK joins the queue, the earlier
//! ACKs of its connection still waiting that it covers are taken out: a cumulative ACK
//! carries everything they said, so the slow link carries one instead of many.
//!
//! What may be taken out follows Linux CAKE's ack-filter (`cake_tcph_may_drop`,
//! `cake_tcph_sack_compare`), so that no information is lost: only a pure ACK (the ACK flag
//! alone, with or without ECE/CWR; no data, SYN, FIN, RST or PSH), of the same addresses and
//! ports, whose ECE and CWR flags equal the new ACK's (an ECN echo is never merged away);
//! with no options but timestamps and SACK blocks; its timestamps (value and echo) not
//! newer than the new ACK's; every block it SACKs inside one the new ACK SACKs; and its
//! acknowledgment number below the new ACK's, or equal to it when the new ACK SACKs more
//! bytes (a plain duplicate ACK, which the sender counts, stays). The new ACK itself must
//! have the ACK flag and no SYN. Unlike CAKE, which removes one ACK per arrival, every
//! covered ACK goes, as RFC 3449 and the paper describe AF.

use super::{Agent, Direction, InterfaceQueue, Verdict};
use crate::wire::{PacketRepr, TcpRepr};

/// Whether `queued` may be taken out of the queue because `newer`, of the same connection,
/// says all it says. `records` allows queued ACKs carrying a compaction record (ACK
/// compaction merges them; plain filtering would lose them).
pub fn covered(queued: &PacketRepr, newer: &PacketRepr, records: bool) -> bool {
    let (Some(old), Some(new)) = (queued.tcp(), newer.tcp()) else {
        return false;
    };
    queued.ip.src == newer.ip.src
        && queued.ip.dst == newer.ip.dst
        && old.src_port == new.src_port
        && old.dst_port == new.dst_port
        && may_drop(old, records)
        && (old.flags.ece, old.flags.cwr) == (new.flags.ece, new.flags.cwr)
        && timestamps_not_newer(old, new)
        && match sack_covered(old, new) {
            None => false,
            Some(more) => old.ack < new.ack || (old.ack == new.ack && more),
        }
}

/// CAKE's timestamp rule: an ACK with timestamps goes only for one whose value and echo are
/// at least as recent.
fn timestamps_not_newer(old: &TcpRepr, new: &TcpRepr) -> bool {
    match (old.timestamps, new.timestamps) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(o), Some(n)) => {
            let at_most = |a: u32, b: u32| b.wrapping_sub(a) as i32 >= 0;
            at_most(o.value, n.value) && at_most(o.echo_reply, n.echo_reply)
        }
    }
}

/// CAKE's `cake_tcph_sack_compare`: `None` if `old` SACKs a block no block of `new`
/// contains, else whether `new` SACKs more bytes.
fn sack_covered(old: &TcpRepr, new: &TcpRepr) -> Option<bool> {
    let bytes = |tcp: &TcpRepr| -> i64 {
        tcp.sack
            .as_slice()
            .iter()
            .map(|&(left, right)| right.diff(left).max(0))
            .sum()
    };
    let contained = old.sack.as_slice().iter().all(|&(left, right)| {
        new.sack
            .as_slice()
            .iter()
            .any(|&(l, r)| l <= left && right <= r)
    });
    contained.then(|| bytes(new) > bytes(old))
}

/// A segment that triggers filtering: it acknowledges and is not a SYN.
pub fn triggers(packet: &PacketRepr) -> bool {
    packet
        .tcp()
        .is_some_and(|tcp| tcp.flags.ack && !tcp.flags.syn)
}

fn may_drop(tcp: &TcpRepr, records: bool) -> bool {
    let options = tcp.mss.is_some() || tcp.window_scale.is_some() || tcp.sack_permitted;
    tcp.is_pure_ack() && !tcp.flags.psh && !options && (records || tcp.compaction.is_none())
}

/// Takes the ACKs `newer` covers out of `queue`, newest first so that indices stay valid;
/// calls `removed` with each.
pub fn remove_covered(
    queue: &mut dyn InterfaceQueue,
    newer: &PacketRepr,
    records: bool,
    mut removed: impl FnMut(PacketRepr),
) {
    for index in (0..queue.len()).rev() {
        if queue.get(index).is_some_and(|q| covered(q, newer, records)) {
            removed(queue.remove(index).expect("the index is in the queue"));
        }
    }
}

#[derive(Debug, Default)]
pub struct AckFilter {
    /// ACKs taken out of the queue.
    pub filtered: u64,
}

impl Agent for AckFilter {
    fn name(&self) -> &'static str {
        "af"
    }

    fn handle_packet(
        &mut self,
        _now: crate::time::Instant,
        direction: Direction,
        packet: &mut PacketRepr,
        queue: &mut dyn InterfaceQueue,
    ) -> Verdict {
        if direction == Direction::Outbound && triggers(packet) {
            remove_covered(queue, packet, false, |_| self.filtered += 1);
        }
        Verdict::Pass
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("filtered_acks", self.filtered)]
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::agent::connection::tests::{ack, data};
    use crate::seq::SeqNumber;
    use crate::time::Instant;
    use crate::wire::{Compaction, SackBlocks, TcpFlags, Timestamps};

    /// A queue of packets, for agents' tests.
    #[derive(Debug, Default)]
    pub(crate) struct VecQueue(pub Vec<PacketRepr>);

    impl InterfaceQueue for VecQueue {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn get(&self, index: usize) -> Option<&PacketRepr> {
            self.0.get(index)
        }
        fn remove(&mut self, index: usize) -> Option<PacketRepr> {
            (index < self.0.len()).then(|| self.0.remove(index))
        }
    }

    pub(crate) fn with_tcp(mut packet: PacketRepr, edit: impl FnOnce(&mut TcpRepr)) -> PacketRepr {
        edit(packet.tcp_mut().expect("a TCP segment"));
        packet
    }

    fn acks_of(queue: &VecQueue) -> Vec<u32> {
        queue.0.iter().map(|p| p.tcp().unwrap().ack.0).collect()
    }

    fn enqueue(agent: &mut AckFilter, queue: &mut VecQueue, packet: PacketRepr) {
        let mut packet = packet;
        let verdict = agent.handle_packet(Instant::ZERO, Direction::Outbound, &mut packet, queue);
        assert_eq!(verdict, Verdict::Pass);
        queue.0.push(packet);
    }

    #[test]
    fn a_new_ack_removes_every_older_pure_ack_of_its_connection() {
        let mut agent = AckFilter::default();
        let mut queue = VecQueue::default();
        for a in [1001, 2001, 3001] {
            enqueue(&mut agent, &mut queue, ack(a, 100));
        }
        assert_eq!(acks_of(&queue), [3001]);
        assert_eq!(agent.filtered, 2);
    }

    #[test]
    fn what_is_never_removed() {
        let newer = ack(9001, 100);
        let keep: Vec<(&str, PacketRepr)> = vec![
            ("a duplicate ACK (same number)", ack(9001, 100)),
            ("a later ACK", ack(9501, 100)),
            ("data", with_tcp(ack(1001, 100), |t| t.payload_len = 10)),
            ("SYN", with_tcp(ack(1001, 100), |t| t.flags.syn = true)),
            ("FIN", with_tcp(ack(1001, 100), |t| t.flags.fin = true)),
            ("RST", with_tcp(ack(1001, 100), |t| t.flags.rst = true)),
            ("PSH", with_tcp(ack(1001, 100), |t| t.flags.psh = true)),
            (
                "an ECN echo",
                with_tcp(ack(1001, 100), |t| t.flags.ece = true),
            ),
            ("CWR", with_tcp(ack(1001, 100), |t| t.flags.cwr = true)),
            (
                "an MSS option",
                with_tcp(ack(1001, 100), |t| t.mss = Some(1000)),
            ),
            (
                "a window scale",
                with_tcp(ack(1001, 100), |t| t.window_scale = Some(2)),
            ),
            (
                "a compaction record",
                with_tcp(ack(1001, 100), |t| t.compaction = Compaction::of(2)),
            ),
            (
                "another connection's ACK",
                with_tcp(ack(1001, 100), |t| t.src_port = 81),
            ),
            ("a data segment of the other way", data(1, 0)),
        ];
        for (what, old) in keep {
            assert!(!covered(&old, &newer, false), "{what} was removed");
        }
        assert!(
            covered(&ack(1001, 7), &newer, false),
            "an older ACK, window changed"
        );
        let echo = |p: PacketRepr| with_tcp(p, |t| t.flags.ece = true);
        assert!(
            covered(&echo(ack(1001, 7)), &echo(newer), false),
            "same ECN flags"
        );
        let record = with_tcp(ack(1001, 100), |t| t.compaction = Compaction::of(2));
        assert!(covered(&record, &newer, true), "compaction merges records");
    }

    #[test]
    fn timestamps_and_sack_blocks_as_cake_compares_them() {
        let ts = |p: PacketRepr, value, echo_reply| {
            with_tcp(p, |t| t.timestamps = Some(Timestamps { value, echo_reply }))
        };
        let sack = |p: PacketRepr, blocks: &[(u32, u32)]| {
            with_tcp(p, |t| {
                t.sack = SackBlocks::new(blocks.iter().map(|&(l, r)| (SeqNumber(l), SeqNumber(r))))
            })
        };
        let newer = ts(ack(9001, 100), 50, 70);
        assert!(covered(&ts(ack(1001, 100), 50, 70), &newer, false));
        assert!(covered(&ts(ack(1001, 100), 49, 69), &newer, false));
        assert!(
            !covered(&ts(ack(1001, 100), 51, 70), &newer, false),
            "newer value"
        );
        assert!(
            !covered(&ts(ack(1001, 100), 50, 71), &newer, false),
            "newer echo"
        );
        assert!(
            !covered(&ts(ack(1001, 100), 1, 1), &ack(9001, 100), false),
            "only one has them"
        );
        assert!(!covered(
            &with_tcp(ack(1001, 100), |t| t.sack_permitted = true),
            &newer,
            false
        ));

        let newer = sack(ack(1001, 100), &[(3001, 5001), (7001, 8001)]);
        assert!(
            covered(&sack(ack(1001, 100), &[(3001, 4001)]), &newer, false),
            "a duplicate ACK SACKing less"
        );
        assert!(
            covered(&ack(1001, 100), &newer, false),
            "a duplicate ACK without SACK"
        );
        assert!(
            !covered(&newer, &newer, false),
            "the same SACK and number: a duplicate ACK"
        );
        assert!(covered(
            &sack(ack(501, 100), &[(3001, 5001), (7001, 8001)]),
            &newer,
            false
        ));
        assert!(
            !covered(&sack(ack(501, 100), &[(3001, 6001)]), &newer, false),
            "a block the new ACK does not contain"
        );
        assert!(!covered(
            &sack(ack(501, 100), &[(3001, 4001)]),
            &ack(2001, 100),
            false
        ));
    }

    #[test]
    fn only_acks_trigger_filtering_and_sequence_numbers_wrap() {
        let syn = with_tcp(ack(1, 100), |t| t.flags.syn = true);
        let no_ack = with_tcp(ack(1, 100), |t| t.flags = TcpFlags::default());
        assert!(!triggers(&syn) && !triggers(&no_ack) && triggers(&ack(1, 1)));
        let old = with_tcp(ack(0, 100), |t| t.ack = SeqNumber(u32::MAX - 100));
        assert!(covered(&old, &ack(500, 100), false), "across the wrap");
        assert!(!covered(&ack(500, 100), &old, false));
    }
}
