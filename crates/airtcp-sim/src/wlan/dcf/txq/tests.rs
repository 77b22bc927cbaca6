//! mac80211's queues on a BSS alone: flow isolation, stations in turn, airtime fairness and
//! CoDel, each beside the FIFO that does not do it.

use super::super::tests::{bss_of, drive_logged, params};
use super::*;
use crate::packet::tests::{udp_from as udp, udp_src_port as port};
use crate::packet::Packet;

const MS: u64 = 1_000_000;

/// An 802.11b BSS of `macs` MACs whose queues are `queueing` (a FIFO of 10 000 frames).
fn bss(macs: usize, queueing: Queueing) -> Bss {
    let mut bss = bss_of(macs, params(None, 7, 4, 10_000), 0.0, None, 1);
    bss.queue_through((queueing, Driver::ATH9K, None), &vec![11_000_000; macs], 7);
    bss
}

/// Runs the BSS until `until_ms` on `arrivals` (time in ms, sender, packet, receiver); the
/// deliveries.
fn run(
    bss: &mut Bss,
    arrivals: Vec<(u64, u32, Packet, u32)>,
    until_ms: u64,
) -> Vec<(Instant, u32, Packet)> {
    let arrivals = arrivals
        .into_iter()
        .map(|(ms, mac, packet, to)| (Instant::from_nanos(ms * MS), mac, (packet, to)))
        .collect();
    let mut delivered = Vec::new();
    let until = Instant::from_nanos(until_ms * MS);
    drive_logged(bss, arrivals, until, &mut Vec::new(), &mut delivered);
    delivered
}

#[test]
fn a_sparse_flow_overtakes_a_bulk_flow_to_the_same_station() {
    let arrivals = || {
        // 30 ms of backlog: under CoDel's target, nothing is dropped
        let mut arrivals: Vec<_> = (0..30).map(|_| (0, 0, udp(1, 1000), 1)).collect();
        arrivals.push((10, 0, udp(9, 100), 1));
        arrivals
    };
    let position = |queueing| {
        let delivered = run(&mut bss(2, queueing), arrivals(), 2_000);
        assert_eq!(delivered.len(), 31, "{queueing:?}");
        let after_arrival = delivered
            .iter()
            .filter(|(at, _, _)| *at > Instant::from_nanos(10 * MS));
        after_arrival.take_while(|(_, _, p)| port(p) != 9).count()
    };
    // the sparse packet goes right after the driver's queue, eight single frames deep
    // (ath9k's `ATH_NON_AGGR_MIN_QDEPTH`)
    assert_eq!(position(Queueing::FqCodel), 8);
    // behind the FIFO's backlog: more than 20 frames first
    assert!(position(Queueing::Fifo) > 20);
}

#[test]
fn stations_are_served_in_turn() {
    let arrivals = || {
        let mut arrivals: Vec<_> = (0..20).map(|_| (0, 0, udp(1, 1000), 1)).collect();
        arrivals.extend((0..20).map(|_| (0, 0, udp(2, 1000), 2)));
        arrivals
    };
    let receivers = |queueing| {
        let delivered = run(&mut bss(3, queueing), arrivals(), 2_000);
        delivered.iter().map(|(_, to, _)| *to).collect::<Vec<_>>()
    };
    let in_turn: Vec<u32> = (0..40).map(|i| 1 + i % 2).collect();
    assert_eq!(receivers(Queueing::FqCodel), in_turn);
    let in_arrival_order: Vec<u32> = (0..40).map(|i| 1 + i / 20).collect();
    assert_eq!(receivers(Queueing::Fifo), in_arrival_order);
}

/// Station 1's frames take three times station 2's airtime: in turn, station 1 gets three
/// times the airtime; with airtime fairness both get the same.
#[test]
fn airtime_fairness_equalizes_airtime_not_frames() {
    let arrivals = || {
        let mut arrivals: Vec<_> = (0..1000).map(|_| (0, 0, udp(1, 1472), 1)).collect();
        arrivals.extend((0..1000).map(|_| (0, 0, udp(2, 272), 2)));
        arrivals
    };
    let airtime_ratio = |queueing| {
        let mut bss = bss(3, queueing);
        run(&mut bss, arrivals(), 500);
        let airtime = &bss.counters.station_downlink_airtime_ns;
        airtime[0] as f64 / airtime[1] as f64
    };
    let in_turn = airtime_ratio(Queueing::FqCodel);
    assert!((2.8..3.2).contains(&in_turn), "{in_turn}");
    let fair = airtime_ratio(Queueing::FqCodelAirtime);
    assert!((0.95..1.05).contains(&fair), "{fair}");
}

#[test]
fn codel_drops_from_a_standing_queue_and_the_fifo_does_not() {
    let arrivals = || {
        (0..2000)
            .map(|_| (0, 0, udp(1, 1472), 1))
            .collect::<Vec<_>>()
    };
    let mut fq = bss(2, Queueing::FqCodel);
    let delivered = run(&mut fq, arrivals(), 10_000).len() as u64;
    let c = &fq.counters;
    assert!(c.codel_drops > 100, "{c:?}");
    assert_eq!(
        delivered + c.codel_drops,
        2000,
        "every frame is sent or dropped"
    );
    let mut fifo = bss(2, Queueing::Fifo);
    assert_eq!(run(&mut fifo, arrivals(), 10_000).len(), 2000);
    assert_eq!(fifo.counters.codel_drops, 0);
}

#[test]
fn a_mac_with_nothing_left_after_codel_stops_holding() {
    let mut bss = bss(2, Queueing::FqCodel);
    let arrivals: Vec<_> = (0..2000).map(|_| (0, 0, udp(1, 1472), 1)).collect();
    run(&mut bss, arrivals, 5_000);
    assert_eq!(bss.holding, 0);
    assert_eq!(bss.queue_len(0), 0);
}

/// At HT MCS 7, 20 MHz, the 5.484 ms PPDU limit, not the Block Ack window, ends each A-MPDU
/// (about 29 MPDUs): the frame taken from a tin that no longer fits waits for its station's
/// next turn instead of giving that station an extra one, so stations stay in turn.
#[test]
fn a_frame_that_does_not_fit_waits_for_its_stations_next_turn() {
    use airtcp_proto::wifi::mcs::{Band, Format, McsPhy};
    use airtcp_proto::wifi::Phy;

    let setting = McsPhy::new(Format::Ht, 20, 1, 800, Band::Ghz5).unwrap();
    let phy = Phy::mcs(setting, 7, None).unwrap();
    let mut bss = super::super::tests::bss_on(phy, 4, params(None, 7, 4, 10_000), 0.0, None, 1);
    bss.aggregate(crate::config::AmpduLimits::of(Format::Ht));
    bss.queue_through(
        (Queueing::FqCodel, Driver::ATH9K, None),
        &[65_000_000; 4],
        7,
    );
    let arrivals = (1..4)
        .flat_map(|to| (0..200).map(move |_| (0, 0, udp(to as u16, 1472), to)))
        .collect();
    run(&mut bss, arrivals, 60);
    let airtime = &bss.counters.station_downlink_airtime_ns;
    let (least, most) = (airtime.iter().min().unwrap(), airtime.iter().max().unwrap());
    // within one A-MPDU's airtime (5.5 ms) of each other
    assert!(most - least <= 5_500_000, "{airtime:?}");
    assert!(*least > 10_000_000, "{airtime:?}");
}
