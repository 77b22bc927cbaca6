//! Flow queueing: the DRR between flows, new flows first, collisions and the fattest-flow
//! drop, with CoDel off (a target no sojourn reaches).

use super::*;

#[derive(Debug, PartialEq)]
struct Item {
    flow: u32,
    len: u32,
    at: u64,
}

impl FqItem for Item {
    fn len_bytes(&self) -> u32 {
        self.len
    }
    fn enqueued_at(&self) -> Instant {
        Instant::from_nanos(self.at)
    }
    fn mark_ce(&mut self) -> bool {
        false
    }
}

const NO_CODEL: CodelParams = CodelParams {
    target_ns: u64::MAX,
    interval_ns: 100_000_000,
    mtu_bytes: 0,
    ecn: false,
};

/// The hash that lands in flow index `index` of 4096.
fn hash_of(index: u32) -> u32 {
    index << 20
}

fn item(flow: u32, len: u32) -> Item {
    Item { flow, len, at: 0 }
}

fn drain(fq: &mut Fq<Item>, tin: u32) -> Vec<u32> {
    let mut order = Vec::new();
    while let Some(out) = fq.dequeue(tin, Instant::ZERO, &NO_CODEL, &mut |_| panic!("drop")) {
        order.push(out.flow);
    }
    order
}

#[test]
fn flows_share_bytes_by_deficit_round_robin() {
    let mut fq = Fq::new(FqParams::MAC80211, 1);
    // flow 1 sends 1500-byte packets, flow 2 300-byte ones: 5 of flow 2's per one of flow 1's
    for _ in 0..4 {
        fq.enqueue(0, hash_of(1), item(1, 1500), &mut |_, _| panic!());
    }
    for _ in 0..20 {
        fq.enqueue(0, hash_of(2), item(2, 300), &mut |_, _| panic!());
    }
    let order = drain(&mut fq, 0);
    let first_rounds: Vec<u32> = order[..12].to_vec();
    // both new with a 300-byte quantum: flow 1 sends one (deficit -1200), flow 2 one (0);
    // then both are old: flow 1 waits 4 rounds to be positive again, flow 2 sends one a round
    assert_eq!(first_rounds, [1, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2]);
    assert_eq!(order.len(), 24);
}

#[test]
fn a_sparse_flow_goes_before_a_backlogged_one() {
    let mut fq = Fq::new(FqParams::MAC80211, 1);
    for _ in 0..10 {
        fq.enqueue(0, hash_of(1), item(1, 1500), &mut |_, _| panic!());
    }
    // the bulk flow has been served and is old
    fq.dequeue(0, Instant::ZERO, &NO_CODEL, &mut |_| panic!());
    fq.enqueue(0, hash_of(7), item(7, 100), &mut |_, _| panic!());
    let next = fq.dequeue(0, Instant::ZERO, &NO_CODEL, &mut |_| panic!());
    assert_eq!(next.unwrap().flow, 7);
}

#[test]
fn a_flow_in_use_by_another_tin_goes_to_the_default_flow() {
    let mut fq = Fq::new(FqParams::MAC80211, 2);
    fq.enqueue(0, hash_of(5), item(1, 100), &mut |_, _| panic!());
    fq.enqueue(1, hash_of(5), item(2, 100), &mut |_, _| panic!());
    assert_eq!(fq.counters.collisions, 1);
    assert_eq!(fq.tin_backlog(0), 1);
    assert_eq!(fq.tin_backlog(1), 1);
    assert_eq!(drain(&mut fq, 1), [2]);
    assert_eq!(drain(&mut fq, 0), [1]);
    // with both empty, the flow is free again: no collision
    fq.enqueue(1, hash_of(5), item(3, 100), &mut |_, _| panic!());
    assert_eq!(fq.counters.collisions, 1);
}

#[test]
fn over_the_limit_the_fattest_flows_head_is_dropped() {
    let params = FqParams {
        limit_packets: 4,
        ..FqParams::MAC80211
    };
    let mut fq = Fq::new(params, 2);
    let mut dropped = Vec::new();
    fq.enqueue(0, hash_of(1), item(1, 1000), &mut |t, i| {
        dropped.push((t, i.flow))
    });
    fq.enqueue(0, hash_of(1), item(1, 1000), &mut |t, i| {
        dropped.push((t, i.flow))
    });
    fq.enqueue(1, hash_of(2), item(2, 1500), &mut |t, i| {
        dropped.push((t, i.flow))
    });
    fq.enqueue(1, hash_of(3), item(3, 100), &mut |t, i| {
        dropped.push((t, i.flow))
    });
    assert!(dropped.is_empty());
    // the fifth packet, to a small flow: flow 1 has 2000 bytes, the most, and loses its head
    fq.enqueue(1, hash_of(3), item(3, 100), &mut |t, i| {
        dropped.push((t, i.flow))
    });
    assert_eq!(dropped, [(0, 1)]);
    assert_eq!(fq.backlog(), 4);
    assert_eq!(fq.counters.overlimit_drops, 1);
}

#[test]
fn sch_fq_codel_drops_a_batch_until_half_the_fattest_flow_is_gone() {
    // fq_codel_drop: the fattest flow (10 x 1000 bytes) loses heads until 5000 bytes are
    // dropped, at most `drop_batch` of them; the flow of the new packet keeps it.
    let params = |drop_batch| FqParams {
        limit_packets: 11,
        drop_batch,
        ..FqParams::SCH_FQ_CODEL
    };
    let hash = |index: u32| index << 22; // flow `index` of 1024
    for (batch, lost) in [(64, 5), (3, 3), (1, 1)] {
        let mut fq = Fq::new(params(batch), 1);
        let mut dropped = Vec::new();
        for _ in 0..10 {
            fq.enqueue(0, hash(1), item(1, 1000), &mut |_, i| dropped.push(i.flow));
        }
        fq.enqueue(0, hash(2), item(2, 100), &mut |_, i| dropped.push(i.flow));
        assert!(dropped.is_empty());
        fq.enqueue(0, hash(2), item(2, 100), &mut |_, i| dropped.push(i.flow));
        assert_eq!(dropped, vec![1; lost], "batch {batch}");
        assert_eq!(fq.backlog(), 12 - lost as u32);
        assert_eq!(fq.backlog_bytes(), 10_200 - 1000 * lost as u64);
        assert_eq!(fq.counters.overlimit_drops, lost as u64);
    }
}

#[test]
fn sch_fq_codels_batch_raises_the_flows_codel_count_and_mac80211s_does_not() {
    let hash = |index: u32| index << 22;
    for (params, raised) in [(FqParams::SCH_FQ_CODEL, 5), (FqParams::MAC80211, 0)] {
        let params = FqParams {
            limit_packets: 11,
            drop_batch: 64,
            ..params
        };
        let mut fq = Fq::new(params, 1);
        for _ in 0..10 {
            fq.enqueue(0, hash(1), item(1, 1000), &mut |_, _| {});
        }
        fq.enqueue(0, hash(2), item(2, 100), &mut |_, _| {});
        fq.enqueue(0, hash(2), item(2, 100), &mut |_, _| {});
        let FlowRef::Shared(slab) = fq.classify(0, hash(1)) else {
            panic!("flow 1 is a shared flow")
        };
        assert_eq!(fq.flows[slab].codel.count(), raised);
    }
}

#[test]
fn sch_fq_codels_mtu_test_counts_every_flows_bytes() {
    // One 1500-byte packet alone in its flow, long above target, beside another flow's
    // 1500 bytes: with the whole backlog counted (sch_fq_codel) the queue holds more than
    // an MTU and CoDel drops; counting the flow alone (mac80211), it does not.
    let ms = 1_000_000;
    for (whole, drops) in [(true, 1), (false, 0)] {
        let params = FqParams {
            whole_backlog: whole,
            ..FqParams::SCH_FQ_CODEL
        };
        let mut fq = Fq::new(params, 1);
        let hash = |index: u32| index << 22;
        for _ in 0..3 {
            fq.enqueue(0, hash(1), item(1, 1500), &mut |_, _| panic!());
        }
        fq.enqueue(0, hash(2), item(2, 1500), &mut |_, _| panic!());
        let codel = CodelParams::RFC;
        let mut dropped = 0;
        // the first dequeue starts the interval, the second (past it) drops
        for at in [10 * ms, 120 * ms] {
            fq.dequeue(0, Instant::from_nanos(at), &codel, &mut |_| dropped += 1);
        }
        assert_eq!(dropped, drops, "whole backlog {whole}");
        assert_eq!(fq.backlog_bytes(), u64::from(fq.backlog()) * 1500);
    }
}

#[test]
fn codel_drops_on_a_flow_count_and_leave_the_backlog_right() {
    let mut fq = Fq::new(FqParams::MAC80211, 1);
    for _ in 0..100 {
        fq.enqueue(0, hash_of(1), item(1, 1500), &mut |_, _| panic!());
    }
    let params = CodelParams {
        mtu_bytes: 0,
        ..CodelParams::RFC
    };
    let ms = 1_000_000;
    let mut dropped = 0;
    fq.dequeue(0, Instant::from_nanos(10 * ms), &params, &mut |_| {
        dropped += 1
    });
    fq.dequeue(0, Instant::from_nanos(111 * ms), &params, &mut |_| {
        dropped += 1
    });
    assert_eq!(dropped, 1);
    assert_eq!(fq.counters.codel_drops, 1);
    assert_eq!(fq.backlog(), 97);
    assert_eq!(fq.tin_backlog(0), 97);
}

#[test]
fn flow_hashes_differ_by_ports_and_by_key() {
    use crate::wire::{Ipv4Repr, UdpRepr};
    let udp = |src_port| PacketRepr {
        ip: Ipv4Repr {
            src: [10, 0, 0, 1],
            dst: [10, 0, 0, 2],
            ttl: 64,
            dscp: 0,
            ecn: 0,
        },
        transport: TransportRepr::Udp(UdpRepr {
            src_port,
            dst_port: 5001,
            payload_len: 100,
        }),
    };
    assert_eq!(flow_hash(&udp(1), 7), flow_hash(&udp(1), 7));
    assert_ne!(flow_hash(&udp(1), 7), flow_hash(&udp(2), 7));
    assert_ne!(flow_hash(&udp(1), 7), flow_hash(&udp(1), 8));
}
