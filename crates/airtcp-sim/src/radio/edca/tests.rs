//! EDCA for several ACs on a channel with geometry, by hand: with every CW 0 the backoffs
//! are 0 and the order and gaps of the frames on the air can be written down.

use super::*;
use crate::packet::tests::udp_packet;
use crate::wlan::block_ack::Reordering;
use airtcp_proto::wifi::edca::EdcaParams;
use airtcp_proto::wifi::mcs::{Format, McsPhy};

const CS1: u8 = 8; // BK
const EF: u8 = 46; // VO
const AF41: u8 = 34; // VI

/// An AP and a station 5 m apart on an 802.11g channel, EDCA for four ACs with the
/// standard's AIFSNs, every CW from 0 to `cw_max` and no TXOP.
fn channel(short_retry_limit: u32, cw_max: u32) -> SharedChannel {
    channel_with(short_retry_limit, cw_max, 0, Queueing::Fifo)
}

/// The same, AC_VO with a TXOP limit of `txop_ns`, the MACs with `queueing`.
fn channel_with(
    short_retry_limit: u32,
    cw_max: u32,
    txop_ns: u64,
    queueing: Queueing,
) -> SharedChannel {
    let phy = Phy::erp_ofdm(54_000_000, None, true).unwrap();
    let mut set = EdcaSet::standard(&phy);
    for p in set.station.iter_mut().chain(set.ap.iter_mut()) {
        *p = EdcaParams {
            cw_min: 0,
            cw_max,
            txop_limit_ns: 0,
            ..*p
        };
    }
    set.station[AccessCategory::Vo as usize].txop_limit_ns = txop_ns;
    let edca = Some((set, None));
    let mut channel = super::super::two_node_channel(&phy, edca, short_retry_limit, queueing);
    channel.capture_air();
    channel
}

/// A 1000-byte datagram marked `dscp`.
fn marked(dscp: u8) -> Packet {
    let mut packet = udp_packet(1000);
    packet.repr.ip.dscp = dscp;
    packet
}

/// Queues `packets` at the station for the AP at time 0 and runs the channel until
/// nothing is left: the frames that went on the air.
fn run(channel: &mut SharedChannel, packets: &[Packet]) -> Vec<AirFrame> {
    let mut out = RadioActions::default();
    for &packet in packets {
        channel.enqueue(Instant::ZERO, 0, 1, packet, 0, &mut out);
    }
    drive(channel, out).0
}

/// Runs the channel from `out` on until nothing is left: the frames that went on the air
/// and the packets delivered.
fn drive(channel: &mut SharedChannel, mut out: RadioActions) -> (Vec<AirFrame>, Vec<Packet>) {
    let mut pending: Vec<(Instant, usize, RadioEvent)> = Vec::new();
    let (mut air, mut delivered) = (Vec::new(), Vec::new());
    for order in 0.. {
        for (at, event) in out.timers.drain(..) {
            pending.push((at, order, event));
        }
        air.extend(out.air.drain(..).map(|(_, frame)| frame));
        delivered.extend(out.deliveries.drain(..).map(|(_, _, _, packet)| packet));
        let Some(next) = (0..pending.len()).min_by_key(|&k| (pending[k].0, pending[k].1)) else {
            break;
        };
        let (at, _, event) = pending.swap_remove(next);
        assert!(at < Instant::from_nanos(1_000_000_000), "runs away");
        channel.on_event(at, event, &mut out);
    }
    (air, delivered)
}

/// The DSCP of each data frame on the air, and the idle time before it since the last
/// frame before it ended (at the station, 17 ns after it left the AP).
fn data_frames(air: &[AirFrame]) -> Vec<(u8, u64)> {
    let mut previous_end = Instant::ZERO;
    let mut frames = Vec::new();
    for frame in air {
        if let AirBody::Data { msdus, .. } = &frame.body {
            let gap = frame.at.as_nanos() - previous_end.as_nanos();
            frames.push((msdus[0].repr.ip.dscp, gap));
        }
        previous_end = frame.at + Duration::from_nanos(frame.airtime_ns);
    }
    frames
}

#[test]
fn each_ac_waits_its_own_aifs_and_the_higher_ac_wins_an_internal_collision() {
    // Four frames at time 0 on an idle medium: each EDCAF's access is due its AIFS later
    // (SIFS 10 µs + AIFSN · 9 µs): VI and VO both at AIFSN 2, so VO sends and VI loses an
    // internal collision (backoff 0 again); VI then follows AIFS[VI] after VO's ACK, BE
    // AIFS[BE] after VI's, BK AIFS[BK] after BE's.
    let mut channel = channel(7, 0);
    let air = run(
        &mut channel,
        &[marked(CS1), marked(0), marked(AF41), marked(EF)],
    );
    let aifs = |aifsn: u64| 10_000 + aifsn * 9_000;
    let frames = data_frames(&air);
    let dscps: Vec<u8> = frames.iter().map(|f| f.0).collect();
    assert_eq!(dscps, [EF, AF41, 0, CS1]);
    // the gaps after an ACK include its 17 ns from the AP to the station
    let gaps: Vec<u64> = frames.iter().map(|f| f.1).collect();
    assert_eq!(gaps[0], aifs(2));
    assert_eq!(gaps[1..], [aifs(2) + 17, aifs(3) + 17, aifs(7) + 17]);
    let (counters, _) = channel.counters(0);
    assert_eq!(counters.internal_collisions, 1);
    assert_eq!((counters.retry_drops, counters.collisions), (0, 0));
    assert_eq!(counters.delivered_msdus, 4);
}

#[test]
fn an_internal_collision_counts_against_the_short_retry_limit() {
    // With a short retry limit of 1 the VI frame that lost to VO is dropped there: it never
    // goes on the air.
    let mut channel = channel(1, 0);
    let air = run(&mut channel, &[marked(AF41), marked(EF), marked(0)]);
    let dscps: Vec<u8> = data_frames(&air).iter().map(|f| f.0).collect();
    assert_eq!(dscps, [EF, 0]);
    let (counters, _) = channel.counters(0);
    assert_eq!(counters.internal_collisions, 1);
    assert_eq!(counters.retry_drops, 1);
}

#[test]
fn the_loser_doubles_its_cw_and_the_winner_keeps_cwmin() {
    // CWmin 0, CWmax 7: after the internal collision VI's CW is 1 and VO's 0.
    let mut channel = channel(7, 7);
    let mut out = RadioActions::default();
    for packet in [marked(AF41), marked(EF)] {
        channel.enqueue(Instant::ZERO, 0, 1, packet, 0, &mut out);
    }
    let due = Instant::from_nanos(28_000);
    channel.on_event(due, RadioEvent::Accesses, &mut out);
    let edcafs = &channel.radios[1].access.edcafs;
    let vi = &edcafs[AccessCategory::Vi as usize];
    let vo = &edcafs[AccessCategory::Vo as usize];
    assert_eq!((vi.cw, vi.short_retries), (1, 1));
    assert!(vi.backoff.is_some_and(|slots| slots <= 1));
    assert_eq!((vo.cw, vo.short_retries, vo.backoff), (0, 0, None));
    assert_eq!(channel.exchange_edcaf(1), Some(AccessCategory::Vo as usize));
}

#[test]
fn the_other_edcafs_keep_the_slots_they_counted_when_one_transmits() {
    // BE has 5 slots to count from AIFS[BE] (37 µs) and a frame; VO's frame arrives at
    // 60 µs to a medium idle for longer than its AIFS and goes at once. BE had counted two
    // slots (46 and 55 µs): three are left.
    let mut channel = channel(7, 0);
    let be = AccessCategory::Be as usize;
    channel.radios[1].access.edcafs[be].backoff = Some(5);
    let mut out = RadioActions::default();
    channel.enqueue(Instant::ZERO, 0, 1, marked(0), 0, &mut out);
    let arrival = Instant::from_nanos(60_000);
    channel.enqueue(arrival, 0, 1, marked(EF), 0, &mut out);
    assert_eq!(channel.radios[1].access.scheduled, Some(arrival));
    channel.on_event(arrival, RadioEvent::Accesses, &mut out);
    assert_eq!(channel.exchange_edcaf(1), Some(AccessCategory::Vo as usize));
    assert_eq!(channel.radios[1].access.edcafs[be].backoff, Some(3));
    assert_eq!(channel.counters(0).0.internal_collisions, 0);
}

#[test]
fn an_ac_with_a_txop_limit_sends_frames_sifs_apart_while_their_exchanges_fit() {
    // VO's 1.504 ms (OFDM's default): an exchange E (data, SIFS, ACK, 17 ns each way) of a
    // 1000-byte datagram at 54 Mbit/s is 230 µs; the k-th frame fits while
    // k·E + (k − 1)·SIFS ≤ 1.504 ms: six frames (1430 µs; a seventh would end at 1670),
    // SIFS after each ACK; the other two at the next access, AIFS[VO] later.
    let mut channel = channel_with(7, 0, 1_504_000, Queueing::Fifo);
    let air = run(&mut channel, &[marked(EF); 8]);
    let data = air.iter().find(|f| matches!(f.body, AirBody::Data { .. }));
    let ack = air.iter().find(|f| matches!(f.body, AirBody::Ack));
    let exchange = data.unwrap().airtime_ns + 10_000 + ack.unwrap().airtime_ns + 34;
    assert_eq!(exchange, 230_034);
    assert!(6 * exchange + 5 * 10_000 <= 1_504_000 && 7 * exchange + 6 * 10_000 > 1_504_000);
    let gaps: Vec<u64> = data_frames(&air).iter().map(|f| f.1).collect();
    let sifs = 10_000 + 17;
    let aifs = 10_000 + 2 * 9_000;
    assert_eq!(gaps, [aifs, sifs, sifs, sifs, sifs, sifs, aifs + 17, sifs]);
    let (counters, _) = channel.counters(0);
    assert_eq!((counters.txop_bursts, counters.txop_frames), (2, 8));
    assert_eq!(counters.max_txop_ns, 6 * exchange + 5 * 10_000);
    // and without the limit every frame takes an access of its own
    let mut channel = channel_with(7, 0, 0, Queueing::Fifo);
    let gaps: Vec<u64> = data_frames(&run(&mut channel, &[marked(EF); 3]))
        .iter()
        .map(|f| f.1)
        .collect();
    assert_eq!(gaps, [aifs, aifs + 17, aifs + 17]);
}

#[test]
fn a_frame_dropped_in_an_internal_collision_makes_room_for_the_next_from_mac80211() {
    // With mac80211's queues the first VI frame goes to the driver's queue and the next two
    // wait in VI's tins (a frame arriving to a non-empty driver queue stays there). VI loses
    // to VO at a short limit of 1 and its frame is dropped: the driver's queue takes the
    // next ones from the tins, which then go too.
    let mut channel = channel_with(1, 0, 0, Queueing::FqCodel);
    let air = run(
        &mut channel,
        &[marked(AF41), marked(AF41), marked(AF41), marked(EF)],
    );
    let dscps: Vec<u8> = data_frames(&air).iter().map(|f| f.0).collect();
    assert_eq!(dscps, [EF, AF41, AF41]);
    assert_eq!(channel.counters(0).0.retry_drops, 1);
}

/// 802.11n MCS 7 with A-MPDU (A-MSDUs of up to `max_amsdu_bytes`), every CW 0, no TXOP,
/// a short limit of 1, the air captured; VI's first `sent` of `vi` frames queued at the
/// station went before as MPDU 0 (unacknowledged), then VO's frame is queued: the channel
/// and what `drive` gives.
fn vi_mpdu_sent_then_vo(
    max_amsdu_bytes: u32,
    vi: usize,
    sent: usize,
) -> (SharedChannel, (Vec<AirFrame>, Vec<Packet>)) {
    let setting = McsPhy {
        format: Format::Ht,
        width_mhz: 20,
        streams: 1,
        guard_interval_ns: 800,
        band: airtcp_proto::wifi::mcs::Band::Ghz5,
    };
    let phy = Phy::mcs(setting, 7, None).unwrap();
    let mut set = EdcaSet::standard(&phy);
    for p in set.station.iter_mut().chain(set.ap.iter_mut()) {
        (p.cw_min, p.cw_max, p.txop_limit_ns) = (0, 0, 0);
    }
    let mut channel = super::super::two_node_channel(&phy, Some((set, None)), 1, Queueing::Fifo);
    let rates = [phy.data_rate_bps; 2];
    let limits = AmpduLimits {
        max_amsdu_bytes,
        ..AmpduLimits::of(Format::Ht)
    };
    channel.wlans[0].aggregation = Aggregating::of(&phy, Some(limits), &rates, (&[], false));
    channel.capture_air();
    let mut out = RadioActions::default();
    for _ in 0..vi {
        channel.enqueue(Instant::ZERO, 0, 1, marked(AF41), 0, &mut out);
    }
    channel.enqueue(Instant::ZERO, 0, 1, marked(EF), 0, &mut out);
    let interface = channel.interfaces[1].by_ac.unwrap()[AccessCategory::Vi as usize];
    let frames = &mut channel.interfaces[interface as usize].queues[ApQueue::Data as usize];
    for frame in frames.iter_mut().take(sent) {
        (frame.sequence, frame.transmitted, frame.mpdu.numbered) = (0, true, true);
    }
    channel.block_acks.next_sequence.insert((interface, 0), 1);
    let driven = drive(&mut channel, out);
    (channel, driven)
}

/// The DSCPs of `packets`.
fn dscps(packets: &[Packet]) -> Vec<u8> {
    packets.iter().map(|p| p.repr.ip.dscp).collect()
}

#[test]
fn an_mpdu_dropped_in_an_internal_collision_moves_its_recipients_window() {
    // VI's head MPDU was sent before (number 0, unacknowledged); it loses to VO and is
    // dropped there: the AP's window must move past it, or VI's next MPDU (number 1) would
    // wait in its reordering buffer for ever.
    let (channel, (air, delivered)) = vi_mpdu_sent_then_vo(0, 2, 1);
    let (counters, _) = channel.counters(0);
    assert_eq!((counters.internal_collisions, counters.retry_drops), (1, 1));
    assert_eq!(dscps(&delivered), [EF, AF41], "VO's, then VI's second");
    // VI owes the AP a BlockAckReq, which goes at its next access ahead of its data: 24
    // bytes at its link's control rate (24 Mbit/s, the highest basic rate below MCS 7's 65),
    // 20 µs + 3 symbols of 96 bits (16 + 192 + 6 bits), its Duration SIFS and the 32-byte BlockAck (20 µs + 3 symbols), which follows
    // SIFS later from 1
    let summary: Vec<String> = air
        .iter()
        .map(|frame| match &frame.body {
            AirBody::Data { sequence, .. } => format!("data {sequence}"),
            AirBody::Ack => "ack".into(),
            AirBody::BlockAckReq { start_sequence, .. } => format!("bar {start_sequence}"),
            AirBody::BlockAck { start_sequence, .. } => format!("ba {start_sequence}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(summary, ["data 0", "ack", "bar 1", "ba 1", "data 1", "ack"]);
    let (bar, block_ack) = (&air[2], &air[3]);
    assert_eq!((bar.rate_bps, bar.airtime_ns), (24_000_000, 32_000));
    assert_eq!(
        (bar.nav_ns, block_ack.airtime_ns),
        (16_000 + 32_000, 32_000)
    );
    let gap = block_ack.at.as_nanos() - (bar.at.as_nanos() + bar.airtime_ns);
    assert_eq!(gap, 16_000 + 17, "SIFS and the propagation delay");
    assert_eq!(
        (counters.block_ack_reqs, counters.block_ack_reqs_given_up),
        (1, 0)
    );
}

#[test]
fn a_block_ack_req_given_up_moves_the_recipients_window_all_the_same() {
    // The AP holds VI's MPDU 1 behind MPDU 0, which VI gave up; VI's BlockAckReq fails at
    // its limit (1): the request is given up, and the window moves past MPDU 0 anyway
    // (standing in for the recipient's reorder timeout), handing MPDU 1 up.
    let (mut channel, _) = vi_mpdu_sent_then_vo(0, 0, 0);
    let vi = channel.interfaces[1].by_ac.unwrap()[AccessCategory::Vi as usize];
    let held = marked(AF41);
    let buffer = channel.block_acks.buffers.entry((vi, 0));
    let buffer = buffer.or_insert_with(|| Reordering::new(64));
    buffer.receive(1, [held], &mut Vec::new());
    channel.block_acks.next_sequence.insert((vi, 0), 2);
    channel.owe_block_ack_req(vi, 0);
    assert!(channel.owes_block_ack_req(vi));
    channel.settle_block_ack_req(1, vi, (true, false), Instant::ZERO);
    assert!(!channel.owes_block_ack_req(vi));
    let released: Vec<Packet> = channel.block_acks.given_up.iter().map(|g| g.3).collect();
    assert_eq!(dscps(&released), [AF41]);
    let (counters, _) = channel.counters(0);
    assert_eq!(
        (counters.block_ack_reqs, counters.block_ack_reqs_given_up),
        (0, 1)
    );
}

#[test]
fn an_a_msdu_losing_an_internal_collision_counts_and_goes_whole() {
    // VI's head MPDU is an A-MSDU of two frames sent before; it loses to VO at the limit:
    // both its MSDUs are dropped (one MPDU, one retry count), and VI's third frame goes.
    let (channel, (_, delivered)) = vi_mpdu_sent_then_vo(3839, 3, 2);
    let (counters, _) = channel.counters(0);
    assert_eq!((counters.internal_collisions, counters.retry_drops), (1, 2));
    assert_eq!(dscps(&delivered), [EF, AF41], "VO's, then VI's third");
}
