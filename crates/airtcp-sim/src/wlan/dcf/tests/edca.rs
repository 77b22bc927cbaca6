//! EDCA (`edca`): each AC waits its own AIFS after a busy period, the AP's AIFSN 1 included;
//! an internal collision lets the higher AC send and backs the other off as a failure; each
//! class of AIFSN lags the common count by the slots it did not count.

use super::*;
use crate::config::EdcaSet;
use airtcp_proto::wifi::edca::EdcaParams;

/// 802.11g (9 µs slots, SIFS 10 µs) with EDCA: the standard's AIFSNs (the AP's own set
/// included), every CW 0 unless `cw_max` widens it, so that backoffs are 0 and the times
/// can be written down.
fn bss_with_edca(macs: usize, short_retry_limit: u32, cw_max: u32) -> Bss {
    let phy = Phy::erp_ofdm(54_000_000, None, true).unwrap();
    let mut bss = bss_on(
        phy.clone(),
        macs,
        params(None, short_retry_limit, 4, 10),
        0.0,
        None,
        1,
    );
    let mut set = EdcaSet::standard(&phy);
    for params in set.station.iter_mut().chain(set.ap.iter_mut()) {
        *params = EdcaParams {
            cw_min: 0,
            cw_max,
            ..*params
        };
    }
    bss.use_edca(&set);
    bss
}

/// A 1000-byte UDP frame to `to` marked with `dscp`.
fn marked(to: u32, dscp: u8) -> (Packet, u32) {
    let (mut packet, to) = frame(to);
    packet.repr.ip.dscp = dscp;
    (packet, to)
}

const EF: u8 = 46; // VO
const AF41: u8 = 34; // VI
const CS1: u8 = 8; // BK

#[test]
fn each_access_category_waits_its_own_aifs() {
    let phy = Phy::erp_ofdm(54_000_000, None, true).unwrap();
    let exchange = phy.data_airtime_ns(LLC_SNAP_BYTES + frame(0).0.len())
        + 2 * phy.propagation_ns
        + phy.sifs_ns
        + phy.ack_airtime_ns();
    // Station 1 opens the medium at 0; while it sends, frames of four ACs arrive: each goes
    // with backoff 0 once the medium has been idle its AIFS (SIFS + AIFSN slots), in
    // order of AIFSN: the AP's VO (1), station 2's VI (2), then BE (3), then BK (7).
    let mut bss = bss_with_edca(4, 7, 0);
    let during = Instant::from_nanos(10_000);
    let starts = drive(
        &mut bss,
        vec![
            (Instant::ZERO, 1, frame(0)),
            (during, 3, marked(0, CS1)),
            (during, 1, frame(0)),
            (during, 2, marked(0, AF41)),
            (during, 0, marked(2, EF)),
        ],
        Instant::from_nanos(1_000_000_000),
    );
    assert_eq!(
        starts[0],
        Instant::ZERO,
        "the medium was idle long enough at the start"
    );
    let gaps: Vec<u64> = starts
        .windows(2)
        .map(|w| w[1].as_nanos() - w[0].as_nanos() - exchange)
        .collect();
    let aifs = |aifsn: u64| phy.sifs_ns + aifsn * phy.slot_ns;
    assert_eq!(gaps, [aifs(1), aifs(2), aifs(3), aifs(7)]);
    assert_eq!(bss.counters.collisions, 0);
}

/// A station's VI and VO frames arrive while the AP sends: with CW 0 (up to `cw_max`) both
/// reach 0 in the slot AIFSN 2 allows, VO's and VI's alike; the BSS and what was delivered.
fn internal_collision(short_retry_limit: u32) -> (Bss, Vec<(Instant, u32, Packet)>) {
    let mut bss = bss_with_edca(2, short_retry_limit, 1);
    let during = Instant::from_nanos(10_000);
    let mut delivered = Vec::new();
    drive_logged(
        &mut bss,
        vec![
            (Instant::ZERO, 0, frame(1)),
            (during, 1, marked(0, AF41)),
            (during, 1, marked(0, EF)),
        ],
        Instant::from_nanos(1_000_000_000),
        &mut Vec::new(),
        &mut delivered,
    );
    (bss, delivered)
}

#[test]
fn an_internal_collision_sends_the_higher_ac_and_backs_the_lower_off() {
    // VO goes, VI counts a failed attempt (its CW doubles to 1) and goes after
    let (bss, delivered) = internal_collision(7);
    assert_eq!(bss.counters.internal_collisions, 1);
    assert_eq!(bss.counters.collisions, 0, "nothing of it went on the air");
    let dscps: Vec<u8> = delivered.iter().map(|(_, _, p)| p.repr.ip.dscp).collect();
    assert_eq!(dscps, [0, EF, AF41]);
    let vi = &bss.edcafs[bss.edcaf_of(1, AccessCategory::Vi) as usize];
    assert_eq!(vi.cw, vi.cw_min, "back at CWmin once its frame went");
}

#[test]
fn an_internal_collision_at_the_retry_limit_drops_the_frame() {
    let (bss, delivered) = internal_collision(1);
    assert_eq!(bss.counters.internal_collisions, 1);
    assert_eq!(bss.counters.retry_drops, 1);
    assert_eq!(delivered.len(), 2, "the VI frame was dropped");
}

#[test]
fn without_edca_every_packet_shares_the_dcf() {
    let mut bss = bss_of(2, params(None, 7, 4, 10), 0.0, None, 1);
    assert!(!bss.edca);
    let mut actions = Actions::default();
    let (packet, to) = marked(0, EF);
    bss.enqueue(Instant::ZERO, 1, packet, to, &mut actions);
    assert_eq!(bss.edcafs.len(), 2);
    assert_eq!(bss.edcaf_len(1), 1);
}

#[test]
fn each_class_lags_the_common_count_by_the_slots_it_did_not_count() {
    let (mut classes, class_of) = super::super::edca::Classes::new(&[7, 3, 1, 2, 3]);
    assert_eq!(
        classes.reference_offset_slots(),
        -1,
        "AIFSN 1 resumes a slot before DIFS"
    );
    let lag = |classes: &super::super::edca::Classes, aifsn| -classes.to_class(class_of(aifsn), 0);
    // an idle period of 6 slots from when the count's reference class could count
    classes.on_busy_start(10, 4);
    assert_eq!([1, 2, 3, 7].map(|a| lag(&classes, a)), [0, 1, 2, 6]);
    // then one of 2 slots: AIFSN 7 had not started counting
    classes.on_busy_start(12, 10);
    assert_eq!([1, 2, 3, 7].map(|a| lag(&classes, a)), [0, 2, 4, 8]);
    // a transmission a slot before the others' count began (a sender's, after a failure):
    // every class keeps the slot it had not reached
    classes.on_busy_start(11, 12);
    assert_eq!([1, 2, 3, 7].map(|a| lag(&classes, a)), [-1, 1, 3, 7]);
}

#[test]
fn the_aps_agent_queues_acks_in_the_access_category_it_names() {
    use airtcp_proto::agent::{self, AgentSettings};
    let mut bss = bss_with_edca(2, 7, 0);
    let planner = agent::by_name("ack_priority", AgentSettings::DEFAULT).unwrap();
    bss.place_agent(0, planner, AccessCategory::Vo);
    let mut actions = Actions::default();
    // a TCP pure ACK (unmarked) and a data frame from the AP, an ACK from a station
    bss.enqueue(Instant::ZERO, 0, pure_ack(), 1, &mut actions);
    bss.enqueue(Instant::ZERO, 0, frame(1).0, 1, &mut actions);
    bss.enqueue(Instant::ZERO, 1, pure_ack(), 0, &mut actions);
    let vo = bss.edcaf_of(0, AccessCategory::Vo) as usize;
    let be = bss.edcaf_of(0, AccessCategory::Be) as usize;
    let lens = |f: usize| bss.edcafs[f].queues.each_ref().map(VecDeque::len);
    assert_eq!(lens(vo), [0, 1], "the ACK in VO's ACK queue");
    assert_eq!(lens(be), [1, 0], "the data by its DSCP");
    assert_eq!(
        bss.edcaf_len(bss.edcaf_of(1, AccessCategory::Be)),
        1,
        "stations: by DSCP"
    );
}
