//! What a capture of the channel shows: collided frames together and bad, retries with the
//! retry bit, RTS/CTS and ACK timing and NAVs, A-MSDUs and TXOP bursts, all on the DCF's own
//! timeline.

use std::time::Duration;

use super::*;

const SECOND: Instant = Instant::from_nanos(1_000_000_000);

fn captured(
    mut bss: Bss,
    arrivals: Vec<(Instant, u32, (Packet, u32))>,
) -> (Bss, Vec<AirFrame>, Vec<Instant>) {
    bss.capture_air();
    let mut air = Vec::new();
    let starts = drive_capturing(&mut bss, arrivals, SECOND, &mut air);
    (bss, air, starts)
}

fn end(frame: &AirFrame) -> Instant {
    frame.at + Duration::from_nanos(frame.airtime_ns)
}

/// (transmitter, sequence, retry) of a data frame.
fn data_id(frame: &AirFrame) -> Option<(usize, u16, bool)> {
    match frame.body {
        AirBody::Data {
            transmitter,
            sequence,
            retry,
            ..
        } => Some((transmitter, sequence, retry)),
        _ => None,
    }
}

fn gap(bss: &Bss) -> Duration {
    Duration::from_nanos(bss.phy.propagation_ns + bss.phy.sifs_ns)
}

#[test]
fn collided_frames_are_bad_and_together_and_their_retries_carry_the_retry_bit() {
    let arrivals = vec![
        (Instant::ZERO, 1, frame(0)),
        (Instant::ZERO, 2, frame(0)),
        (Instant::ZERO, 2, frame(0)),
    ];
    let (bss, air, _) = captured(bss_of(3, params(None, 7, 4, 10), 0.0, None, 1), arrivals);
    let first: Vec<_> = air.iter().filter(|f| f.at == Instant::ZERO).collect();
    assert_eq!(
        first.len(),
        2,
        "both stations access the idle medium at once"
    );
    for frame in &first {
        assert!(frame.bad_fcs);
        assert_eq!(frame.receiver, 0);
        assert!(matches!(data_id(frame), Some((_, 0, false))));
    }
    let c = &bss.counters;
    assert_eq!(
        air.iter().filter(|f| f.bad_fcs).count() as u64,
        c.failed_attempts
    );
    let acks = air.iter().filter(|f| f.body == AirBody::Ack).count() as u64;
    assert_eq!((acks, c.successes), (3, 3));
    for (i, frame) in air.iter().enumerate() {
        if let Some((transmitter, sequence, retry)) = data_id(frame) {
            let sent_before = air[..i]
                .iter()
                .filter_map(data_id)
                .any(|(t, s, _)| (t, s) == (transmitter, sequence));
            assert_eq!(retry, sent_before, "frame {i}: {frame:?}");
        }
    }
    // Station 2's two MSDUs have sequence numbers 0 and 1.
    let station2: std::collections::BTreeSet<u16> = air
        .iter()
        .filter_map(data_id)
        .filter(|(t, _, _)| *t == 2)
        .map(|(_, s, _)| s)
        .collect();
    assert_eq!(station2.into_iter().collect::<Vec<_>>(), [0, 1]);
    for pair in air.windows(2) {
        assert!(
            pair[1].at == pair[0].at || pair[1].at >= end(&pair[0]),
            "{pair:?}"
        );
        if pair[1].body == AirBody::Ack {
            let data = &pair[0];
            assert!(!data.bad_fcs);
            assert_eq!(pair[1].at, end(data) + gap(&bss));
            assert_eq!(Some(pair[1].receiver), data_id(data).map(|d| d.0));
            assert_eq!(data.nav_ns, bss.phy.sifs_ns + bss.phy.ack_airtime_ns());
        }
    }
}

#[test]
fn an_rts_cts_exchange_shows_its_frames_nav_and_the_failed_data_frame() {
    // Every data frame is corrupted after a good RTS/CTS: four long retries, then a drop.
    let arrivals = vec![(Instant::ZERO, 1, frame(0))];
    let (bss, air, starts) = captured(bss_of(2, params(Some(0), 7, 4, 10), 1.0, None, 1), arrivals);
    assert_eq!(air.len(), 12, "{air:#?}");
    let phy = &bss.phy;
    for (attempt, exchange) in air.chunks(3).enumerate() {
        let [rts, cts, data] = exchange else {
            unreachable!()
        };
        assert_eq!(rts.at, starts[attempt]);
        assert_eq!(rts.body, AirBody::Rts { transmitter: 1 });
        assert_eq!((rts.receiver, cts.receiver, data.receiver), (0, 1, 0));
        assert_eq!(cts.body, AirBody::Cts);
        assert_eq!(cts.at, end(rts) + gap(&bss));
        assert_eq!(data.at, end(cts) + gap(&bss));
        assert_eq!(
            rts.nav_ns,
            3 * phy.sifs_ns + phy.cts_airtime_ns() + data.airtime_ns + phy.ack_airtime_ns()
        );
        assert_eq!(cts.nav_ns, rts.nav_ns - phy.sifs_ns - phy.cts_airtime_ns());
        assert!(!rts.bad_fcs && !cts.bad_fcs && data.bad_fcs);
        assert_eq!(data_id(data), Some((1, 0, attempt > 0)));
        assert_eq!(rts.rate_bps, phy.basic_rate_bps);
        assert_eq!(data.rate_bps, phy.data_rate_bps);
    }
}

#[test]
fn an_a_msdu_is_one_qos_frame_of_all_its_msdus() {
    let acks = (0..6)
        .map(|_| (Instant::ZERO, 0, (pure_ack(), 1)))
        .collect();
    let mut bss = bss_of(2, params(None, 7, 4, 50), 0.0, Some("ack_aggregation"), 1);
    bss.capture_air();
    let mut air = Vec::new();
    let starts = drive_capturing(&mut bss, acks, SECOND, &mut air);
    let data: Vec<_> = air.iter().filter(|f| data_id(f).is_some()).collect();
    let msdus = |f: &AirFrame| match &f.body {
        AirBody::Data { msdus, .. } => msdus.len(),
        _ => 0,
    };
    assert_eq!(data.iter().map(|f| msdus(f)).sum::<usize>(), 6);
    let aggregate = data.iter().find(|f| msdus(f) > 1).expect("an A-MSDU");
    let n = msdus(aggregate);
    let a_msdu = a_msdu_bytes(std::iter::repeat_n(pure_ack().len() + LLC_SNAP_BYTES, n));
    assert_eq!(
        aggregate.airtime_ns,
        bss.phy.data_airtime_ns(QOS_CONTROL_BYTES + a_msdu)
    );
    assert_eq!(bss.counters.aggregated_msdus as usize, n);
    assert!(starts.contains(&aggregate.at));
}

#[test]
fn a_txop_burst_sends_frames_a_sifs_after_each_ack() {
    let acks = (0..4)
        .map(|_| (Instant::ZERO, 0, (pure_ack(), 1)))
        .collect();
    let (bss, air, _) = captured(
        bss_of(2, params(None, 7, 4, 50), 0.0, Some("txop_burst"), 1),
        acks,
    );
    let c = &bss.counters;
    assert!(c.txop_bursts >= 1);
    // Each frame of a burst after its first starts a SIFS after the previous frame's ACK.
    let continued = air
        .windows(3)
        .filter(|w| {
            data_id(&w[0]).is_some()
                && w[1].body == AirBody::Ack
                && data_id(&w[2]).is_some()
                && w[2].at == end(&w[1]) + gap(&bss)
        })
        .count() as u64;
    assert_eq!(continued, c.txop_frames - c.txop_bursts, "{air:#?}");
}

#[test]
fn nothing_is_reported_unless_capturing() {
    let mut bss = bss_of(3, params(Some(0), 7, 4, 10), 0.1, None, 1);
    let mut air = Vec::new();
    let arrivals = vec![(Instant::ZERO, 1, frame(0)), (Instant::ZERO, 2, frame(0))];
    drive_capturing(&mut bss, arrivals, SECOND, &mut air);
    assert!(bss.counters.successes > 0 && air.is_empty());
}
