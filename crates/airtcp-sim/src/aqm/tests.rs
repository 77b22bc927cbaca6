//! A link direction's queue by hand: the tail limit, CoDel's first drop one interval after
//! the sojourn passed its target (counted apart from tail drops), FQ-CoDel's sparse flow
//! first, and what a link that goes down takes out.

use airtcp_proto::agent::InterfaceQueue;
use airtcp_proto::Instant;

use super::*;
use crate::packet::tests::{udp_from, udp_src_port as port};
use crate::packet::Packet;
use crate::queue::QueueLimit;
use crate::rng::{stream, Stream, StreamId};

const MS: u64 = 1_000_000;

fn at(ms: u64) -> Instant {
    Instant::from_nanos(ms * MS)
}

/// A 1500-byte UDP packet of flow `port`.
fn packet(port: u16) -> Packet {
    udp_from(port, 1500 - 28)
}

/// A link direction's AQM draws.
fn draws() -> Stream {
    stream(
        1,
        StreamId::LinkAqm {
            link: 0,
            direction: 0,
        },
    )
}

fn limit(packets: u32) -> QueueLimit {
    QueueLimit {
        packets: Some(packets),
        bytes: None,
    }
}

const CODEL: AqmConfig = AqmConfig::Codel {
    target_ns: TARGET_NS,
    interval_ns: INTERVAL_NS,
    ecn: false,
};

/// sch_fq_codel's defaults.
const FQ_CODEL: AqmConfig = AqmConfig::FqCodel {
    target_ns: TARGET_NS,
    interval_ns: INTERVAL_NS,
    flows: 1024,
    quantum: 1514,
    ecn: true,
};

#[test]
fn codel_drops_the_head_once_the_sojourn_stayed_above_target_for_an_interval() {
    let mut queue = LinkQueue::new(limit(100), CODEL, None, draws());
    for k in 0..50 {
        assert!(queue.push(at(0), packet(k)));
    }
    // 10 ms of sojourn: above the 5 ms target, the interval starts
    assert_eq!(queue.pop(at(10)).map(|p| port(&p)), Some(0));
    // still within the interval (ends at 110 ms): no drop
    assert_eq!(queue.pop(at(110)).map(|p| port(&p)), Some(1));
    assert_eq!(queue.aqm_drops, 0);
    // past it: the head (2) is dropped and the next goes
    assert_eq!(queue.pop(at(111)).map(|p| port(&p)), Some(3));
    assert_eq!((queue.aqm_drops, queue.drops), (1, 0));
    // the next drop is due interval / sqrt(1) later
    assert_eq!(queue.pop(at(210)).map(|p| port(&p)), Some(4));
    assert_eq!(queue.pop(at(212)).map(|p| port(&p)), Some(6));
    assert_eq!(queue.aqm_drops, 2);
    assert_eq!(queue.len(), 43);
}

#[test]
fn codel_sees_no_standing_queue_below_target() {
    let mut queue = LinkQueue::new(limit(100), CODEL, None, draws());
    for step in 0..1000 {
        queue.push(at(step), packet(1));
        queue.push(at(step), packet(2));
        // each packet waits 4 ms: below target
        assert!(queue.pop(at(step + 4)).is_some());
        assert!(queue.pop(at(step + 4)).is_some());
    }
    assert_eq!(queue.aqm_drops, 0);
}

#[test]
fn the_limit_drops_at_the_tail_with_or_without_codel() {
    for aqm in [AqmConfig::None, CODEL] {
        let mut queue = LinkQueue::new(limit(3), aqm, None, draws());
        let taken: Vec<bool> = (0..5).map(|k| queue.push(at(0), packet(k))).collect();
        assert_eq!(taken, [true, true, true, false, false], "{aqm:?}");
        assert_eq!((queue.drops, queue.aqm_drops, queue.len()), (2, 0, 3));
        let held: Vec<u16> = queue.drain(at(1)).iter().map(port).collect();
        assert_eq!(held, [0, 1, 2]);
        assert!(queue.is_empty());
    }
}

#[test]
fn fq_codel_serves_a_sparse_flow_before_a_backlogged_one() {
    let mut queue = LinkQueue::new(limit(1000), FQ_CODEL, None, draws());
    for _ in 0..20 {
        queue.push(at(0), packet(1));
    }
    // the bulk flow's first round: 1514 bytes of deficit, two packets (the second takes it
    // below zero)
    assert_eq!(queue.pop(at(1)).map(|p| port(&p)), Some(1));
    assert_eq!(queue.pop(at(1)).map(|p| port(&p)), Some(1));
    // a packet of a new flow arrives behind 18 of the bulk flow's: it goes next
    queue.push(at(1), packet(2));
    assert_eq!(queue.pop(at(2)).map(|p| port(&p)), Some(2));
    assert_eq!(queue.pop(at(2)).map(|p| port(&p)), Some(1));
    assert_eq!(queue.len(), 17);
    // an agent sees nothing of FQ-CoDel's flows (agents are refused beside it)
    assert_eq!(InterfaceQueue::len(&queue), 0);
    assert_eq!(queue.drain(at(1)).len(), 17);
}

#[test]
fn fq_codel_over_its_limit_drops_from_the_fattest_flow_and_counts_it_at_the_tail() {
    let mut queue = LinkQueue::new(limit(10), FQ_CODEL, None, draws());
    for _ in 0..10 {
        assert!(queue.push(at(0), packet(1)));
    }
    // the eleventh packet, of another flow, is taken; the bulk flow loses half its bytes
    assert!(queue.push(at(0), packet(2)));
    assert_eq!((queue.drops, queue.len()), (5, 6));
    let ports: Vec<u16> = std::iter::from_fn(|| queue.pop(at(1)))
        .map(|p| port(&p))
        .collect();
    // (the bulk flow's first round is two packets: 1514 bytes of deficit)
    assert_eq!(ports, [1, 1, 2, 1, 1, 1]);
}

#[test]
fn an_agent_edits_a_codel_fifo_and_frees_its_bytes() {
    let mut queue = LinkQueue::new(
        QueueLimit {
            packets: None,
            bytes: Some(3000),
        },
        CODEL,
        None,
        draws(),
    );
    queue.push(at(0), packet(1));
    queue.push(at(0), packet(2));
    assert!(!queue.push(at(0), packet(3)), "3000 bytes are full");
    let view: &mut dyn InterfaceQueue = &mut queue;
    assert_eq!(view.len(), 2);
    assert_eq!(view.remove(0).map(|r| r.ip_len()), Some(1500));
    assert!(
        queue.push(at(0), packet(3)),
        "the removed packet's bytes are free"
    );
}

const PIE: AqmConfig = AqmConfig::Pie {
    target_ns: 15 * MS,
    tupdate_ns: 15 * MS,
    alpha: 2,
    beta: 20,
    ecn: false,
};

#[test]
fn pie_drops_arrivals_early_once_a_standing_queue_raises_its_probability() {
    // 1500-byte packets arriving every 1 ms, leaving every 1.2 ms: the queue and its delay
    // grow; after the 150 ms burst allowance and the first update at 500 ms PIE drops
    // arrivals (counted apart from tail drops), and none before 500 ms
    let mut queue = LinkQueue::new(limit(1000), PIE, None, draws());
    let (mut next_out, mut early) = (0u64, Vec::new());
    for ms in 0..2000u64 {
        let before = queue.aqm_drops;
        queue.push(at(ms), packet(1));
        if queue.aqm_drops > before {
            early.push(ms);
        }
        while next_out <= ms * 10 {
            queue.pop(Instant::from_nanos(next_out * MS / 10));
            next_out += 12;
        }
    }
    assert!(
        early.first().is_some_and(|&first| first >= 500),
        "{early:?}"
    );
    assert!(early.len() > 50, "{}", early.len());
    assert_eq!(
        queue.drops, 0,
        "no tail drop: 1000 packets is more than PIE lets build"
    );
}

#[test]
fn pie_with_ecn_marks_capable_packets_while_its_probability_is_at_most_ten_percent() {
    // As above, with sch_pie's `ecn`: the early decisions on ECN-capable packets are marks
    // until the probability passes 10 %, drops after; packets that are not capable are
    // dropped as before.
    let pie_ecn = AqmConfig::Pie {
        target_ns: 15 * MS,
        tupdate_ns: 15 * MS,
        alpha: 2,
        beta: 20,
        ecn: true,
    };
    let run = |ecn_capable: bool| {
        let mut queue = LinkQueue::new(limit(1000), pie_ecn, None, draws());
        let mut next_out = 0u64;
        let mut marked_late = 0;
        for ms in 0..2000u64 {
            let mut p = packet(1);
            if ecn_capable {
                p.repr.ip.ecn = airtcp_proto::wire::Ipv4Repr::ECT0;
            }
            let marks = queue.ecn_marks;
            queue.push(at(ms), p);
            if queue.ecn_marks > marks && queue.aqm_drops > 0 {
                marked_late += 1;
            }
            while next_out <= ms * 10 {
                let sent = queue.pop(Instant::from_nanos(next_out * MS / 10));
                let ce = sent.is_some_and(|p| p.repr.ip.ecn == airtcp_proto::wire::Ipv4Repr::CE);
                assert!(ecn_capable || !ce);
                next_out += 12;
            }
        }
        (queue.ecn_marks, queue.aqm_drops, marked_late)
    };
    let (marks, drops, marked_after_a_drop) = run(true);
    assert!(marks > 5 && drops > 20, "{marks} marks, {drops} drops");
    // Once the probability passed 10 % (the first drop) it does not come back under it
    // while this overload lasts: no mark after the first drop.
    assert_eq!(marked_after_a_drop, 0);
    assert_eq!(run(false).0, 0, "nothing to mark");
}

#[test]
fn pie_keeps_the_tail_limit_and_empties_on_a_link_down() {
    let mut queue = LinkQueue::new(limit(3), PIE, None, draws());
    let taken: Vec<bool> = (0..5).map(|k| queue.push(at(0), packet(k))).collect();
    assert_eq!(taken, [true, true, true, false, false]);
    assert_eq!((queue.drops, queue.aqm_drops), (2, 0));
    assert_eq!(
        queue.drain(at(1)).iter().map(port).collect::<Vec<_>>(),
        [0, 1, 2]
    );
}

#[test]
fn red_drops_arrivals_early_as_its_average_passes_min_and_marks_with_ecn() {
    // tc's RED on a 1000-packet (1.5 MB) queue at 10 Mbit/s: min 125 kB, max 375 kB of
    // average backlog. Arrivals every 1 ms, departures every 1.2 ms: the backlog grows and
    // RED drops early once the average passes min, with no tail drop; with ECN the
    // ECN-capable packets are marked instead.
    let red = |ecn: bool| AqmConfig::Red {
        min: None,
        max: None,
        probability: 0.02,
        burst: None,
        avpkt: 1000,
        adaptive: false,
        ecn,
    };
    let run = |ecn: bool, capable: bool| {
        let mut queue = LinkQueue::new(limit(1000), red(ecn), Some(10_000_000), draws());
        let (mut next_out, mut first_early) = (0u64, None);
        for ms in 0..3000u64 {
            let mut p = packet(1);
            if capable {
                p.repr.ip.ecn = airtcp_proto::wire::Ipv4Repr::ECT0;
            }
            let before = queue.aqm_drops + queue.ecn_marks;
            queue.push(at(ms), p);
            if queue.aqm_drops + queue.ecn_marks > before {
                first_early.get_or_insert(ms);
            }
            while next_out <= ms * 10 {
                queue.pop(Instant::from_nanos(next_out * MS / 10));
                next_out += 12;
            }
        }
        (queue.drops, queue.aqm_drops, queue.ecn_marks, first_early)
    };
    let (tail, early, marks, first) = run(false, true);
    assert_eq!((tail, marks), (0, 0));
    assert!(early > 20, "{early}");
    // min 125 000 bytes of average: the backlog passes it after 125 000 / (1500 / 6 ms)
    // = 500 ms, the average some time later.
    assert!(first.is_some_and(|ms| ms > 500), "{first:?}");
    let (_, early, marks, _) = run(true, true);
    assert_eq!(early, 0, "every decision a mark");
    assert!(marks > 20);
    assert_eq!(run(true, false).2, 0, "nothing to mark");
}
