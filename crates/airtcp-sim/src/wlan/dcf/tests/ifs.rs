//! What stations wait after an exchange fails (IEEE 802.11-2020 §10.3.2.3.7, §10.3.2.9):
//! the senders of a collision DIFS after their AckTimeout, the others EIFS (or DIFS without
//! `eifs_after_collision`), on one count of idle slots (`slots_between`).

use super::*;

const US: u64 = 1_000;

fn g54() -> Phy {
    Phy::erp_ofdm(54_000_000, None, true).unwrap()
}

/// Who takes part in `collision`.
#[derive(Clone, Copy)]
enum Cast {
    /// The two senders, which retry.
    Senders,
    /// The two senders, which drop their frames at the collision (retry limit 1), and a
    /// third station whose frame arrives during it.
    Other,
}

/// Two stations whose frames collide at once: when the first transmission after the
/// collision starts, and the airtime of the collided frames.
fn collision(phy: Phy, eifs_after_collision: bool, cast: Cast, seed: u64) -> (u64, u64) {
    let retry = match cast {
        Cast::Senders => 7,
        Cast::Other => 1,
    };
    let mut params = params(None, retry, 4, 10);
    params.eifs_after_collision = eifs_after_collision;
    let airtime = phy.data_airtime_ns(LLC_SNAP_BYTES + udp_packet(1000).len());
    let mut bss = bss_on(phy, 4, params, 0.0, None, seed);
    let mut arrivals = vec![(Instant::ZERO, 1, frame(0)), (Instant::ZERO, 2, frame(0))];
    if let Cast::Other = cast {
        arrivals.push((Instant::from_nanos(10 * US), 3, frame(0)));
    }
    let starts = drive(&mut bss, arrivals, Instant::from_nanos(1_000_000_000));
    assert_eq!(
        starts[0],
        Instant::ZERO,
        "both access the idle medium at once"
    );
    assert!(bss.counters.collisions >= 1, "{:?}", bss.counters);
    (starts[1].as_nanos(), airtime)
}

/// Whether `t` is `from` plus a whole number of slots.
fn on_grid(t: u64, from: u64, slot: u64) -> bool {
    t >= from && (t - from) % slot == 0
}

#[test]
fn colliding_senders_resume_difs_after_their_ack_timeout() {
    // 802.11g: AckTimeout = 10 + 9 + 20 µs after the end of the frame, then DIFS (28 µs):
    // 67 µs. The other stations' EIFS after the busy period (1 µs longer than the frame) is
    // 10 + 28 (an ACK at 24 Mbit/s) + 28 µs: the same moment.
    for seed in 1..20 {
        for cast in [Cast::Senders, Cast::Other] {
            let (next, airtime) = collision(g54(), true, cast, seed);
            assert!(on_grid(next, airtime + 67 * US, 9 * US), "{next} {airtime}");
        }
    }
}

#[test]
fn without_eifs_after_collisions_the_others_may_send_before_the_senders() {
    // The others resume DIFS after the busy period (29 µs after the frame); the senders
    // 38 µs later, which one count of slots takes as 4 slots (36 µs, the nearest).
    let mut others_first = 0;
    for seed in 1..40 {
        let (next, airtime) = collision(g54(), false, Cast::Other, seed);
        assert!(on_grid(next, airtime + 29 * US, 9 * US), "{next} {airtime}");
        others_first += u64::from(next < airtime + 67 * US);
        let (next, airtime) = collision(g54(), false, Cast::Senders, seed);
        assert!(
            on_grid(next, airtime + (29 + 36) * US, 9 * US),
            "{next} {airtime}"
        );
    }
    assert!(others_first > 0, "some draws send before the senders could");
}

#[test]
fn the_others_wait_eifs_for_the_rate_of_the_collided_frames() {
    // 802.11b at 11 Mbit/s: the senders resume at 222 µs (AckTimeout: 10 + 20 + 192) + DIFS
    // 50 after the end of their frame; the others EIFS = 10 + 248 (an ACK at 2 Mbit/s) + 50
    // after the busy period, 37 µs later, which the count takes as 2 slots (40 µs).
    let phy = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
    for seed in 1..20 {
        let (next, airtime) = collision(phy.clone(), true, Cast::Senders, seed);
        assert!(on_grid(next, airtime + 272 * US, 20 * US), "{next}");
        let (next, airtime) = collision(phy.clone(), true, Cast::Other, seed);
        assert!(on_grid(next, airtime + (272 + 40) * US, 20 * US), "{next}");
    }
}

#[test]
fn an_unanswered_frame_holds_the_others_for_its_nav() {
    // The AP sends to a station that has left: nobody answers. The AP resumes DIFS after
    // its AckTimeout (272 µs after its frame on 802.11b); the other station, which decoded
    // the frame, after the NAV it set (SIFS and an ACK at 1 Mbit/s, 314 µs) and DIFS: 364
    // µs after the busy period, which the count takes as 5 slots after the AP (100 µs).
    let phy = Phy::dsss(11_000_000, 1_000_000, Preamble::Long).unwrap();
    let airtime = phy.data_airtime_ns(LLC_SNAP_BYTES + udp_packet(1000).len());
    let mut bss = bss_on(phy, 3, params(None, 1, 4, 10), 0.0, None, 1);
    bss.leave(Instant::ZERO, 2, false, &mut Actions::default());
    let arrivals = vec![
        (Instant::ZERO, 0, frame(2)),
        (Instant::from_nanos(10 * US), 1, frame(0)),
    ];
    let starts = drive(&mut bss, arrivals, Instant::from_nanos(1_000_000_000));
    assert_eq!(bss.counters.absent_receiver_failures, 1);
    assert_eq!(starts.len(), 2, "{starts:?}");
    let station = starts[1].as_nanos();
    assert!(
        on_grid(station, airtime + (271 + 1 + 100) * US, 20 * US),
        "{starts:?}"
    );
}
