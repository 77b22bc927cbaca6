//! The firmware queue's refill by hand: without AQL it takes every frame up to its depth;
//! with AQL each station's estimated airtime stops at the high limit on a quiet interface
//! and at the low one on a busy interface, and frames reported done make room again.

use airtcp_proto::aqm::aql::AqlLimits;
use airtcp_proto::wifi::{Phy, Preamble};

use super::super::{Budget, Sizing, Txqs};
use super::expected_airtime_ns;
use crate::config::{Driver, DriverQueue, Queueing};
use crate::packet::tests::udp_packet;
use crate::wlan::Frame;
use airtcp_proto::Instant;
use std::collections::VecDeque;

const MS: u64 = 1_000_000;

fn phy() -> Phy {
    Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap()
}

/// An AP's queues towards `stations` 802.11b stations above a firmware queue of `frames`.
fn txqs(queue: DriverQueue, frames: u32, stations: usize) -> Txqs {
    let driver = Driver {
        queue,
        firmware_frames: frames,
        aql: AqlLimits::LINUX,
    };
    let rates = vec![11_000_000; stations + 1];
    Txqs::new((Queueing::FqCodel, driver, None), &rates, 7, (0, 1)).unwrap()
}

fn enqueue(txqs: &mut Txqs, to: u32, count: usize) {
    for _ in 0..count {
        let _ = txqs.enqueue(0, Frame::new(udp_packet(1000), to, Instant::ZERO, 0));
    }
}

/// The AP's driver refills `fifo` (at 1 ms: CoDel's target is not reached).
fn refill(txqs: &mut Txqs, fifo: &mut VecDeque<Frame>) {
    let phy = phy();
    let estimate = |frame: &Frame| expected_airtime_ns(&phy, 11_000_000, false, frame);
    let sizing = Sizing {
        aggregation: None,
        budget: &|_| Budget::SINGLE,
        estimate: &estimate,
        siblings: 0..1,
    };
    let dropped = txqs.refill(Instant::from_nanos(MS), 0, fifo, &sizing);
    assert_eq!(dropped.codel, 0, "nothing waited long enough for CoDel");
}

/// One 1000-byte UDP datagram's estimate: 192 µs of long preamble and 10 µs of SIFS, and
/// (1028 + 8 + 24 + 38) bytes (packet, LLC/SNAP, MAC header, Linux's allowance) at 11
/// Mbit/s, 798 µs: 1000 µs, a multiple of 4 µs.
fn frame_ns() -> u64 {
    let estimate = (202 + 8 * (1028 + 8 + 24 + 38) * 1_000_000 / 11_000_000) * 1_000;
    assert_eq!(estimate, 1_000_000);
    let frame = Frame::new(udp_packet(1000), 1, Instant::ZERO, 0);
    assert_eq!(
        expected_airtime_ns(&phy(), 11_000_000, false, &frame),
        estimate
    );
    estimate
}

fn pending_ns(fifo: &VecDeque<Frame>, to: u32) -> u64 {
    fifo.iter().filter(|f| f.to == to).count() as u64 * frame_ns()
}

#[test]
fn without_aql_the_firmware_takes_everything_up_to_its_depth() {
    let mut queues = txqs(DriverQueue::Firmware, 1424, 1);
    enqueue(&mut queues, 1, 100);
    let mut fifo = VecDeque::new();
    refill(&mut queues, &mut fifo);
    assert_eq!((fifo.len(), queues.backlog(0)), (100, 0));
    // a shallower firmware stops at its depth, also within a burst
    let mut queues = txqs(DriverQueue::Firmware, 40, 1);
    enqueue(&mut queues, 1, 100);
    let mut fifo = VecDeque::new();
    refill(&mut queues, &mut fifo);
    assert_eq!((fifo.len(), queues.backlog(0)), (40, 60));
}

#[test]
fn aql_stops_a_lone_station_at_the_high_limit() {
    let mut queues = txqs(DriverQueue::FirmwareAql, 1424, 1);
    enqueue(&mut queues, 1, 100);
    let mut fifo = VecDeque::new();
    refill(&mut queues, &mut fifo);
    // bursts of 3 (no A-MPDU) while under 12 ms (the interface, 24 ms, is quiet): 1 ms a
    // frame, so 4 bursts reach 12 ms
    let frame = frame_ns();
    let bursts = (12 * MS).div_ceil(3 * frame);
    assert_eq!(bursts, 4);
    assert_eq!(fifo.len() as u64, 3 * bursts);
    assert!(pending_ns(&fifo, 1) >= 12 * MS);
    // frames reported done (sent) make room for as many again
    fifo.drain(..6);
    refill(&mut queues, &mut fifo);
    assert_eq!(fifo.len(), 12);
}

#[test]
fn on_a_busy_interface_a_station_gets_only_the_low_limit() {
    let mut queues = txqs(DriverQueue::FirmwareAql, 1424, 3);
    enqueue(&mut queues, 1, 100);
    enqueue(&mut queues, 2, 100);
    let mut fifo = VecDeque::new();
    refill(&mut queues, &mut fifo);
    // two stations, in turn, each up to 12 ms: 24 ms or more together
    let frame = frame_ns();
    for station in [1, 2] {
        let pending = pending_ns(&fifo, station);
        assert!(
            (12 * MS..12 * MS + 3 * frame).contains(&pending),
            "{pending}"
        );
    }
    // a third station now finds the interface over AQL's threshold: up to 5 ms only
    enqueue(&mut queues, 3, 100);
    refill(&mut queues, &mut fifo);
    let third = pending_ns(&fifo, 3);
    assert!((5 * MS..5 * MS + 3 * frame).contains(&third), "{third}");
    assert_eq!(third, 3 * (5 * MS).div_ceil(3 * frame) * frame);
}
