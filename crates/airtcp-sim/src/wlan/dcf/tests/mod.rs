//! Unit tests of the DCF: retry counting, queue limits, aggregation, TXOP failures,
//! post-backoff, driven on a BSS alone; what a capture of its channel shows in `capture`.

mod capture;
mod edca;
mod ifs;
mod lifetime;

use super::*;
use crate::packet::tests::{pure_ack, udp_packet};
use crate::rng::{stream, StreamId};
use airtcp_proto::agent::{self, AgentSettings};
use airtcp_proto::wifi::Preamble;

#[test]
fn a_failed_frame_is_settled_as_it_was_sent_even_if_acks_arrive_meanwhile() {
    // Every frame is corrupted: one attempt, then a drop.
    let mut bss = bss_of(2, params(None, 1, 1, 50), 1.0, Some("ack_aggregation"), 1);
    let mut actions = Actions::default();
    bss.enqueue(Instant::ZERO, 0, udp_packet(500), 1, &mut actions);
    let (at, generation) = actions
        .access
        .take()
        .expect("the AP accesses the idle medium");
    bss.on_access(at, generation, &mut actions);
    let busy_end = actions
        .busy_end
        .take()
        .expect("the data frame is on the air");
    for _ in 0..5 {
        bss.enqueue(at, 0, pure_ack(), 1, &mut actions);
    }
    bss.enqueue(at, 0, udp_packet(500), 1, &mut actions);
    bss.on_busy_end(busy_end, &mut actions);
    assert_eq!(
        bss.counters.retry_drops, 1,
        "only the frame that was sent is dropped"
    );
    let queued = bss.edcafs[0].queues.each_ref().map(VecDeque::len);
    assert_eq!(queued, [1, 5]);
}

pub(in crate::wlan::dcf) fn params(
    rts_threshold: Option<u32>,
    short: u32,
    long: u32,
    queue: u32,
) -> MacParams {
    MacParams {
        rts_threshold,
        short_retry_limit: short,
        long_retry_limit: long,
        queue_packets: queue,
        ack_queue_packets: None,
        msdu_lifetime_ns: None,
        queue_max_delay_ns: None,
        eifs_after_collision: true,
    }
}

/// An 802.11b BSS of `macs` MACs (MAC 0 the AP), node i for MAC i, streams from `seed`.
pub(in crate::wlan::dcf) fn bss_of(
    macs: usize,
    params: MacParams,
    loss: f64,
    agent: Option<&str>,
    seed: u64,
) -> Bss {
    let phy = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
    bss_on(phy, macs, params, loss, agent, seed)
}

/// `bss_of` on another PHY.
pub(in crate::wlan::dcf) fn bss_on(
    phy: Phy,
    macs: usize,
    params: MacParams,
    loss: f64,
    agent: Option<&str>,
    seed: u64,
) -> Bss {
    let settings = AgentSettings {
        txop_ns: 3_264_000,
        max_aggregate: 16,
        target_stations: 3.0,
        cw_min: 31,
        stages: 5,
        ..AgentSettings::DEFAULT
    };
    Bss::new(
        phy,
        params,
        ErrorModel { loss, ber: 0.0 },
        stream(seed, StreamId::WlanChannel { bss: 0 }),
        (0..macs)
            .map(|m| {
                (
                    m,
                    stream(
                        seed,
                        StreamId::Mac {
                            bss: 0,
                            mac: m as u32,
                        },
                    ),
                )
            })
            .collect(),
        agent.and_then(|name| agent::by_name(name, settings)),
    )
}

/// Drives a BSS alone until nothing is left to happen (or `until`); returns when each
/// transmission (busy period) started. `arrivals` are (time, MAC, (packet, receiver MAC)).
pub(super) fn drive(
    bss: &mut Bss,
    arrivals: Vec<(Instant, u32, (Packet, u32))>,
    until: Instant,
) -> Vec<Instant> {
    drive_capturing(bss, arrivals, until, &mut Vec::new())
}

/// `drive`, keeping the frames the BSS reports on the air in `air`.
pub(super) fn drive_capturing(
    bss: &mut Bss,
    arrivals: Vec<(Instant, u32, (Packet, u32))>,
    until: Instant,
    air: &mut Vec<AirFrame>,
) -> Vec<Instant> {
    drive_logged(bss, arrivals, until, air, &mut Vec::new())
}

/// `drive_capturing`, keeping the deliveries (time, receiving MAC, packet) in `delivered`.
pub(in crate::wlan::dcf) fn drive_logged(
    bss: &mut Bss,
    mut arrivals: Vec<(Instant, u32, (Packet, u32))>,
    until: Instant,
    air: &mut Vec<AirFrame>,
    delivered: &mut Vec<(Instant, u32, Packet)>,
) -> Vec<Instant> {
    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum Kind {
        Arrival(usize),
        BusyEnd,
        Access(u64),
    }
    arrivals.sort_by_key(|a| a.0);
    let mut events: Vec<(Instant, u64, Kind)> = arrivals
        .iter()
        .enumerate()
        .map(|(i, a)| (a.0, i as u64, Kind::Arrival(i)))
        .collect();
    let mut order = events.len() as u64;
    let mut starts = Vec::new();
    let mut actions = Actions::default();
    while let Some(index) = (0..events.len()).min_by_key(|&i| (events[i].0, events[i].1)) {
        let (now, _, kind) = events.swap_remove(index);
        if now > until {
            break;
        }
        match kind {
            Kind::Arrival(i) => {
                let (_, mac, (packet, to)) = arrivals[i];
                bss.enqueue(now, mac, packet, to, &mut actions);
            }
            Kind::BusyEnd => bss.on_busy_end(now, &mut actions),
            Kind::Access(generation) => bss.on_access(now, generation, &mut actions),
        }
        if let Some((at, generation)) = actions.access.take() {
            events.push((at, order, Kind::Access(generation)));
            order += 1;
        }
        if let Some(at) = actions.busy_end.take() {
            starts.push(now);
            events.push((at, order, Kind::BusyEnd));
            order += 1;
        }
        delivered.append(&mut actions.deliveries);
        air.append(&mut actions.air);
    }
    starts
}

pub(super) fn frame(to: u32) -> (Packet, u32) {
    (udp_packet(1000), to)
}

#[test]
fn rts_failures_count_against_the_short_retry_limit() {
    // Two stations hold a frame at an idle medium: both access at once and their RTSs
    // collide. A failed RTS is a short retry (limit 7), so with a long limit of 1 nothing
    // may be dropped.
    let mut bss = bss_of(3, params(Some(0), 7, 1, 10), 0.0, None, 1);
    let arrivals = vec![(Instant::ZERO, 1, frame(0)), (Instant::ZERO, 2, frame(0))];
    drive(&mut bss, arrivals, Instant::from_nanos(1_000_000_000));
    let c = &bss.counters;
    assert!(c.collisions >= 1, "{c:?}");
    assert_eq!(c.retry_drops, 0, "{c:?}");
    assert_eq!(c.successes, 2, "{c:?}");
}

#[test]
fn failed_frames_after_a_cts_count_against_the_long_retry_limit() {
    // Every data frame is corrupted. After a successful RTS/CTS that is a long retry (limit
    // 4); without RTS/CTS the same frame is a short retry (limit 7).
    for (rts_threshold, attempts) in [(Some(0), 4), (None, 7)] {
        let mut bss = bss_of(2, params(rts_threshold, 7, 4, 10), 1.0, None, 1);
        drive(
            &mut bss,
            vec![(Instant::ZERO, 1, frame(0))],
            Instant::from_nanos(1_000_000_000),
        );
        assert_eq!(bss.counters.failed_attempts, attempts, "{rts_threshold:?}");
        assert_eq!(bss.counters.retry_drops, 1);
    }
}

#[test]
fn the_last_a_msdu_subframe_is_not_padded() {
    // 40-byte MSDUs: subframes of 54 bytes; the first padded to 56, the last not.
    assert_eq!(a_msdu_bytes([40, 40].into_iter()), 56 + 54);
    assert_eq!(a_msdu_bytes([40, 40, 41].into_iter()), 56 + 56 + 55);
    assert_eq!(a_msdu_bytes([42].into_iter()), 56);
}

#[test]
fn an_agent_shares_the_ap_buffer_between_its_queues_unless_told_otherwise() {
    let at = Instant::ZERO;
    let fill = |bss: &mut Bss, data: usize, acks: usize| {
        let mut actions = Actions::default();
        for _ in 0..data {
            bss.enqueue(at, 0, udp_packet(1000), 1, &mut actions);
        }
        for _ in 0..acks {
            bss.enqueue(at, 0, pure_ack(), 1, &mut actions);
        }
    };
    let mut shared = bss_of(2, params(None, 7, 4, 4), 0.0, Some("ack_priority"), 1);
    fill(&mut shared, 3, 3);
    assert_eq!(shared.counters.queue_drops, 2, "4 frames in all");
    assert_eq!(shared.queue_len(0), 4);
    let mut separate = bss_of(
        2,
        MacParams {
            ack_queue_packets: Some(3),
            ..params(None, 7, 4, 4)
        },
        0.0,
        Some("ack_priority"),
        1,
    );
    fill(&mut separate, 4, 4);
    assert_eq!(separate.counters.queue_drops, 1, "4 data frames and 3 ACKs");
    assert_eq!(separate.queue_len(0), 7);
}

#[test]
fn a_failed_frame_inside_a_txop_counts_as_a_failure_and_doubles_cw() {
    // Half the frames are corrupted; find seeds where the first frame of a TXOP burst gets
    // through and a later one does not.
    let mut seen = 0;
    for seed in 0..200 {
        let mut bss = bss_of(2, params(None, 7, 4, 50), 0.5, Some("txop_burst"), seed);
        let mut actions = Actions::default();
        for _ in 0..4 {
            bss.enqueue(Instant::ZERO, 0, pure_ack(), 1, &mut actions);
        }
        let Some((at, generation)) = actions.access.take() else {
            continue;
        };
        bss.on_access(at, generation, &mut actions);
        let Medium::Busy {
            outcome:
                Outcome::Success {
                    delivered,
                    failed_after: Some(_),
                    ..
                },
            ..
        } = bss.medium
        else {
            continue;
        };
        let end = actions.busy_end.take().unwrap();
        bss.on_busy_end(end, &mut actions);
        seen += 1;
        let ap = &bss.edcafs[0];
        assert_eq!(ap.cw, 2 * 31 + 1, "CW doubles after the failed frame");
        assert_eq!(ap.short_retries, 1);
        assert_eq!(bss.counters.failed_attempts, 1);
        assert_eq!(bss.counters.retries, 1);
        assert_eq!(
            bss.queue_len(0),
            4 - delivered,
            "the failed frame stays queued"
        );
    }
    assert!(seen >= 10, "only {seen} seeds gave a failure inside a TXOP");
}

#[test]
fn a_frame_arriving_after_a_transmission_waits_for_the_post_backoff() {
    // A station sends a frame, then draws a backoff with an empty queue (post-backoff). A
    // frame that arrives just after the medium went idle (a frame arriving while it is busy
    // would back off anyway) waits for it: 0..=31 slots after DIFS, not DIFS alone.
    let phy = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
    let mut slots = Vec::new();
    for seed in 0..200 {
        let mut bss = bss_of(2, params(None, 7, 4, 10), 0.0, None, seed);
        let busy = phy.data_airtime_ns(LLC_SNAP_BYTES + frame(0).0.len())
            + 2 * phy.propagation_ns
            + phy.sifs_ns
            + phy.ack_airtime_ns();
        let idle = Instant::from_nanos(busy + 10_000);
        let starts = drive(
            &mut bss,
            vec![(Instant::ZERO, 1, frame(0)), (idle, 1, frame(0))],
            Instant::from_nanos(1_000_000_000),
        );
        assert_eq!(starts[0], Instant::ZERO, "an idle medium is used at once");
        let second = starts[1].as_nanos() - busy - phy.difs_ns();
        assert_eq!(second % phy.slot_ns, 0);
        slots.push(second / phy.slot_ns);
    }
    let mean = slots.iter().sum::<u64>() as f64 / slots.len() as f64;
    assert!(slots.iter().all(|s| *s <= 31), "{slots:?}");
    assert!(
        (12.0..19.0).contains(&mean),
        "mean backoff {mean} slots, expected ~15.5"
    );
}

#[test]
fn a_frame_arriving_after_the_post_backoff_ended_goes_at_once() {
    let mut bss = bss_of(2, params(None, 7, 4, 10), 0.0, None, 3);
    let later = Instant::from_nanos(50_000_000);
    let starts = drive(
        &mut bss,
        vec![(Instant::ZERO, 1, frame(0)), (later, 1, frame(0))],
        Instant::from_nanos(1_000_000_000),
    );
    // At the next slot boundary of the idle medium, without a backoff.
    assert_eq!(starts.len(), 2);
    let waited = starts[1].as_nanos() - later.as_nanos();
    assert!(waited < 20_000, "waited {waited} ns");
}

#[test]
fn an_agent_sees_neither_the_heads_nor_numbered_mpdus() {
    use airtcp_proto::agent::InterfaceQueue;
    // queue 0: head, numbered, free, numbered, free; queue 1: head, free
    let frame_with = |uid: u64, numbered: bool| {
        let mut frame = Frame::new(
            Packet {
                uid,
                ..udp_packet(10)
            },
            1,
            Instant::ZERO,
            0,
        );
        if numbered {
            frame.mpdu = MpduState::numbered_mpdu();
        }
        frame
    };
    let mut queues = [
        [(0, false), (1, true), (2, false), (3, true), (4, false)]
            .map(|(uid, numbered)| frame_with(uid, numbered))
            .into_iter()
            .collect(),
        [(5, false), (6, false)]
            .map(|(uid, n)| frame_with(uid, n))
            .into_iter()
            .collect(),
    ];
    let mut held = Vec::new();
    let mut queue = MacQueue {
        queues: &mut queues,
        held: &mut held,
        mac: 0,
        aggregating: true,
    };
    assert_eq!(queue.len(), 3);
    let shown: Vec<u32> = (0..3)
        .map(|i| queue.get(i).unwrap().payload_len())
        .collect();
    assert_eq!(shown, [10, 10, 10]);
    // removing the second shown takes frame 4, past the numbered frame 3
    queue.remove(1);
    let uids: Vec<u64> = queues[0].iter().map(|f| f.packet.uid).collect();
    assert_eq!(uids, [0, 1, 2, 3]);
    // without aggregation only the heads are hidden
    let mut queue = MacQueue::new(&mut queues, &mut held, 0, false);
    assert_eq!(queue.len(), 4);
    queue.remove(0);
    assert_eq!(
        queues[0].iter().map(|f| f.packet.uid).collect::<Vec<_>>(),
        [0, 2, 3]
    );
}

#[test]
fn a_station_that_leaves_does_not_leave_its_block_ack_windows_waiting() {
    use crate::config::AmpduLimits;
    use crate::wlan::block_ack::Reordering;
    use airtcp_proto::wifi::mcs::{Band, Format, McsPhy};
    // 802.11n with A-MPDU. The AP sent MPDUs 0 and 1 to station 1, which has 1 and waits
    // for 0; MPDU 0 is still queued at the AP when the station leaves (its frames held).
    // Held, MPDU 0 will go again as a new MPDU: the station's window must move past it now
    // (the reorder timeout's release), handing MPDU 1 up, or 1 waits for ever.
    let setting = McsPhy {
        format: Format::Ht,
        width_mhz: 20,
        streams: 1,
        guard_interval_ns: 800,
        band: Band::Ghz5,
    };
    let phy = Phy::mcs(setting, 7, None).unwrap();
    let mut bss = bss_on(phy, 2, params(None, 7, 4, 100), 0.0, None, 1);
    bss.aggregate(AmpduLimits::of(Format::Ht));
    let (waiting, held) = (
        Packet {
            uid: 7,
            ..udp_packet(10)
        },
        udp_packet(10),
    );
    let mut frame = Frame::new(waiting, 1, Instant::ZERO, 0);
    frame.mpdu = MpduState::numbered_mpdu();
    bss.edcafs[0].queues[0].push_back(frame);
    bss.holding += 1;
    let ampdu = bss.ampdu.as_mut().unwrap();
    ampdu.next_sequence.insert((0, 1), 2);
    let mut buffer = Reordering::new(64);
    buffer.receive(1, [held], &mut Vec::new());
    ampdu.buffers.insert((0, 1), buffer);
    let mut actions = Actions::default();
    bss.leave(Instant::ZERO, 1, true, &mut actions);
    let delivered: Vec<u64> = actions.deliveries.iter().map(|d| d.2.uid).collect();
    assert_eq!(delivered, [held.uid]);
    assert_eq!(bss.take_held(1).len(), 1, "MPDU 0 held, to go again");
}
