//! Receive-buffer autotuning in a whole connection (`receive_autotuning`, Linux's
//! `tcp_rcv_space_adjust`; tests/common's virtual wire): the window starts at the payload
//! share of `tcp_rmem[1]` and grows with what the application reads, so that a long fat
//! path is filled as with a large fixed buffer, where the rfc profile's 64 KiB is not.

mod common;

use std::time::Duration;

use airtcp_proto::tcp::{TcpConfig, TcpProfile};
use common::{at, Dir, Pair};

/// 20 MB over 100 Mbit/s and 50 ms each way (a BDP of 1.25 MB) with the linux profile at
/// both ends, the receiver autotuning or not.
fn long_fat(autotuning: bool) -> Pair {
    let linux = TcpConfig::profile(TcpProfile::Linux);
    let receiver = TcpConfig {
        receive_autotuning: autotuning,
        ..linux.clone()
    };
    let mut pair = Pair::new(linux, receiver, Duration::from_millis(50), 100_000_000);
    pair.run_until(at(0.2));
    pair.client_to_send = 20_000_000;
    pair.run_until(at(60.0));
    assert_eq!(pair.server.stats().bytes_received, 20_000_000);
    pair
}

/// The windows the server advertised on its ACKs, in bytes (scale 2^7 for 6 MiB).
fn windows(pair: &Pair) -> Vec<u32> {
    pair.log
        .iter()
        .filter(|(_, d, s)| *d == Dir::ServerToClient && !s.flags.syn)
        .map(|(_, _, s)| u32::from(s.window) << 7)
        .collect()
}

fn finished(pair: &Pair) -> f64 {
    let (t, ..) = pair
        .log
        .iter()
        .rev()
        .find(|(_, d, s)| *d == Dir::ServerToClient && s.flags.fin)
        .expect("closed");
    t.as_secs_f64()
}

#[test]
fn the_window_starts_at_64_kib_and_grows_past_the_path_s_bdp() {
    let tuned = long_fat(true);
    let advertised = windows(&tuned);
    // tcp_init_buffer_space: half of 128 KiB, less one MSS (1448): 64 088, as the scale
    // rounds it down (to 63 872).
    assert!(
        (63_000..=64_088).contains(&advertised[0]),
        "{}",
        advertised[0]
    );
    let largest = *advertised.iter().max().unwrap();
    assert!(largest > 1_250_000, "{largest}");
    assert!(largest <= 3 << 20, "half of tcp_rmem[2]: {largest}");
    // Fixed at 6 MiB from the start (no autotuning) it is not much faster; the rfc
    // profile's 64 KiB would take 20 MB / (64 KiB / 100 ms) = 30 s.
    let fixed = long_fat(false);
    assert!(
        finished(&tuned) < finished(&fixed) + 1.0,
        "{} against {}",
        finished(&tuned),
        finished(&fixed)
    );
    assert!(finished(&tuned) < 5.0, "{}", finished(&tuned));
}
