//! CoDel against hand-computed drop times and Linux's fixed-point arithmetic.

use std::collections::VecDeque;

use super::*;

const MS: u64 = 1_000_000;

/// Packets of 1500 bytes, each with its arrival time.
struct Fifo(VecDeque<u64>);

impl CodelQueue for Fifo {
    type Item = u64;
    fn dequeue(&mut self) -> Option<u64> {
        self.0.pop_front()
    }
    fn enqueued_at(item: &u64) -> Instant {
        Instant::from_nanos(*item)
    }
    fn backlog_bytes(&self) -> u64 {
        1500 * self.0.len() as u64
    }
    fn mark_ce(_: &mut u64) -> bool {
        false
    }
}

fn at(ns: u64) -> Instant {
    Instant::from_nanos(ns)
}

/// A queue that always has packets that arrived at 0 (a standing queue).
fn standing(packets: usize) -> Fifo {
    Fifo(std::iter::repeat_n(0, packets).collect())
}

#[test]
fn a_sojourn_below_target_never_drops() {
    let mut codel = Codel::default();
    let mut queue = Fifo((0..1000).map(|i| i * MS).collect());
    let mut drops = 0;
    for i in 0..1000 {
        // each packet waits 4 ms, under the 5 ms target
        let out = codel.dequeue(
            at(i * MS + 4 * MS),
            &CodelParams::RFC,
            &mut queue,
            &mut |_| drops += 1,
        );
        assert_eq!(out, Some(i * MS));
    }
    assert_eq!(drops, 0);
}

#[test]
fn dropping_starts_one_interval_after_the_sojourn_went_above_target() {
    let params = CodelParams::RFC;
    let mut codel = Codel::default();
    let mut queue = standing(10_000);
    let mut dropped = Vec::new();
    // sojourn 10 ms at t = 10 ms: above target, the interval starts (no drop before 110 ms)
    for t in [10 * MS, 60 * MS, 110 * MS] {
        codel.dequeue(at(t), &params, &mut queue, &mut |p| dropped.push(p));
        assert!(dropped.is_empty(), "dropped at {t}");
    }
    assert!(!codel.dropping());
    codel.dequeue(at(110 * MS + 1), &params, &mut queue, &mut |p| {
        dropped.push(p)
    });
    assert_eq!(dropped.len(), 1);
    assert!(codel.dropping());
    assert_eq!(codel.count(), 1);
}

/// The drop times of a standing queue: `interval * rec_inv_sqrt` apart, where Linux's
/// 1/sqrt(count) is one Newton step a drop from 1 (so 0.5 at count 2, 0.5625 at 3: not the
/// exact 0.707 and 0.577).
#[test]
fn the_control_law_follows_linux_newton_steps() {
    let params = CodelParams::RFC;
    let mut codel = Codel::default();
    let mut queue = standing(100_000);
    codel.dequeue(at(10 * MS), &params, &mut queue, &mut |_| {});
    let mut now = 110 * MS + 1;
    let mut drop_times = Vec::new();
    // dequeue every 100 µs for 2 s; record when each drop happened
    while now < 2_000 * MS {
        let mut dropped = 0;
        codel.dequeue(at(now), &params, &mut queue, &mut |_| dropped += 1);
        for _ in 0..dropped {
            drop_times.push(now);
        }
        now += 100_000;
    }
    // the expected schedule, from the same recurrence in floating point: each drop on the
    // first dequeue (a 100 µs grid) at or after its time; Linux's 16-bit fixed point may put
    // a time up to some µs earlier (it truncates), hence the tolerance
    let mut inv_sqrt: f64 = 65535.0 / 65536.0;
    let mut due = (110 * MS + 1) as f64;
    for (count, &dropped_at) in (1..=12u32).zip(&drop_times) {
        if count > 1 {
            inv_sqrt = inv_sqrt * (3.0 - f64::from(count) * inv_sqrt * inv_sqrt) / 2.0;
        }
        let late = dropped_at as f64 - due;
        assert!(
            (-20_000.0..120_000.0).contains(&late),
            "drop {count}: {late} ns late"
        );
        due += params.interval_ns as f64 * inv_sqrt;
    }
    // the second gap is half an interval (Newton from 1 at count 2), not 70.7 ms
    let second_gap = drop_times[2] - drop_times[1];
    assert!(
        (50 * MS..50 * MS + 100_000).contains(&second_gap),
        "{second_gap}"
    );
}

#[test]
fn a_sojourn_back_under_target_leaves_the_dropping_state() {
    let params = CodelParams::RFC;
    let mut codel = Codel::default();
    let mut queue = Fifo(
        [0, 0, 0]
            .into_iter()
            .chain(200 * MS..200 * MS + 10)
            .collect(),
    );
    codel.dequeue(at(10 * MS), &params, &mut queue, &mut |_| {});
    let mut dropped = 0;
    codel.dequeue(at(111 * MS), &params, &mut queue, &mut |_| dropped += 1);
    assert!(codel.dropping());
    // the next head arrived at 200 ms and leaves at 201 ms: 1 ms, under target
    let out = codel.dequeue(at(201 * MS), &params, &mut queue, &mut |_| dropped += 1);
    assert_eq!(out, Some(200 * MS));
    assert!(!codel.dropping());
    assert_eq!(dropped, 1);
}

#[test]
fn a_queue_of_one_mtu_is_not_dropped_from() {
    let params = CodelParams::RFC;
    let mut codel = Codel::default();
    let mut dropped = 0;
    for t in (10..1000).map(|ms| ms * MS) {
        // one packet queued, long waiting: after its dequeue nothing is left
        let mut queue = Fifo([0, 0].into_iter().collect());
        codel.dequeue(at(t), &params, &mut queue, &mut |_| dropped += 1);
    }
    assert_eq!(dropped, 0);
}

#[test]
fn re_entering_soon_resumes_the_last_cycles_count() {
    let params = CodelParams::RFC;
    let mut codel = Codel::default();
    let mut queue = standing(100_000);
    codel.dequeue(at(10 * MS), &params, &mut queue, &mut |_| {});
    let mut now = 110 * MS + 1;
    while codel.count() < 5 {
        codel.dequeue(at(now), &params, &mut queue, &mut |_| {});
        now += 100_000;
    }
    // a short dip under target ends the cycle...
    let mut fresh = Fifo([now].into_iter().collect());
    codel.dequeue(at(now + MS), &params, &mut fresh, &mut |_| {});
    assert!(!codel.dropping());
    // ...and a standing queue again enters with count = 5 - 1 (what the cycle added), not 1
    codel.dequeue(at(now + 2 * MS), &params, &mut queue, &mut |_| {});
    codel.dequeue(
        at(now + 2 * MS + params.interval_ns + 1),
        &params,
        &mut queue,
        &mut |_| {},
    );
    assert!(codel.dropping());
    assert_eq!(codel.count(), 4);
}

/// Packets that arrived at 0, each ECN-capable or not, and whether it was marked CE.
struct Marking(VecDeque<(bool, bool)>);

impl CodelQueue for Marking {
    type Item = (bool, bool);
    fn dequeue(&mut self) -> Option<(bool, bool)> {
        self.0.pop_front()
    }
    fn enqueued_at(_: &(bool, bool)) -> Instant {
        Instant::ZERO
    }
    fn backlog_bytes(&self) -> u64 {
        1500 * self.0.len() as u64
    }
    fn mark_ce(item: &mut (bool, bool)) -> bool {
        item.1 = item.0;
        item.0
    }
}

#[test]
fn with_ecn_a_capable_packet_is_marked_where_it_would_be_dropped_on_the_same_schedule() {
    // codel_dequeue with params->ecn: the marked packet is sent, the count and the next
    // drop time advance as for a drop; a packet that is not ECN-capable is dropped.
    let params = CodelParams {
        ecn: true,
        ..CodelParams::RFC
    };
    let mut marking = Codel::default();
    let mut queue = Marking(std::iter::repeat_n((true, false), 1000).collect());
    let mut dropping = Codel::default();
    let mut standing = standing(1000);
    let (mut marks, mut drops) = (Vec::new(), 0);
    for t in [10, 110, 111, 150, 180, 181, 200, 250] {
        let now = at(t * MS);
        let sent = marking.dequeue(now, &params, &mut queue, &mut |_| panic!("dropped"));
        if sent.expect("a packet").1 {
            marks.push(t);
        }
        dropping.dequeue(now, &CodelParams::RFC, &mut standing, &mut |_| drops += 1);
        assert_eq!(marking.count(), dropping.count(), "at {t} ms");
    }
    // First at 111 ms (an interval after 10 ms), the next due interval / sqrt(1) later
    // (211 ms): the dequeue at 250 ms.
    assert_eq!(marks, [111, 250]);
    assert_eq!(marks.len(), drops);
    assert_eq!(marking.take_marks(), 2);
    assert_eq!(marking.take_marks(), 0);
    // Not ECN-capable: dropped.
    let mut codel = Codel::default();
    let mut queue = Marking(std::iter::repeat_n((false, false), 10).collect());
    let mut dropped = 0;
    codel.dequeue(at(10 * MS), &params, &mut queue, &mut |_| dropped += 1);
    codel.dequeue(at(111 * MS), &params, &mut queue, &mut |_| dropped += 1);
    assert_eq!((dropped, codel.take_marks()), (1, 0));
}
