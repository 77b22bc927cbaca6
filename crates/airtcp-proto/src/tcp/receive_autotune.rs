//! Receive-buffer autotuning as Linux does it ("dynamic right-sizing"): the receive buffer
//! starts at `tcp_rmem[1]` and grows, once per receiver-measured round trip, to hold about
//! four times what the application read in the last one, up to `tcp_rmem[2]`.
//!
//! Followed: Linux v6.10-rc1, `net/ipv4/tcp_input.c` (read as stored for torvalds/linux at
//! commit 35e02583088823e8833419c360eeefcd3f935fed, whose Makefile says 6.10.0-rc1):
//! `tcp_init_buffer_space`, `tcp_rcv_rtt_update`, `tcp_rcv_rtt_measure`,
//! `tcp_rcv_rtt_measure_ts` and `tcp_rcv_space_adjust`. The payload share of a buffer is
//! `tcp_win_from_space`/`tcp_space_from_win` of `include/net/tcp.h` (space · scaling_ratio /
//! 256 and its inverse), with `TCP_DEFAULT_SCALING_RATIO` = 128 (50 %) since upstream commit
//! 697a6c8cec03 ("tcp: increase the default TCP scaling ratio"), which 6.10-rc1 contains.
//! `tcp_rmem` defaults 4096 131072 6291456 are those `tcp_init` (`net/ipv4/tcp.c`) sets on a
//! machine with enough memory: [PAGE_SIZE, 131072, max(131072, min(6 MiB, limit))].
//! `tcp_app_win` = 31 is its default (Documentation/networking/ip-sysctl.rst).
//!
//! Not modelled: the per-segment measured `scaling_ratio` (`tcp_measure_rcv_mss`: payload /
//! skb truesize; here payload bytes are virtual, so the ratio is a fixed parameter), the
//! receive-window growth inside the buffer by `rcv_ssthresh` (`tcp_grow_window`), memory
//! pressure (`tcp_clamp_window`, `tcp_rmem[0]`), `SO_RCVBUF` locking (other than
//! `moderate_rcvbuf = false`), and the later kernels' changes (6.16+: `tcp_rcvbuf_grow`,
//! subtracting the bytes still queued from `copied`, `tcp_rcvbuf_low_rtt`).

use core::time::Duration;

use serde::{Deserialize, Serialize};

use super::timestamps;
use crate::time::Instant;

/// `TCP_RMEM_TO_WIN_SCALE`: the scaling ratio is in 1/256ths.
const RMEM_TO_WIN_SCALE: u32 = 8;
/// `TCP_INIT_CWND`: the first measurement expects at most ten segments a round trip.
const INIT_CWND: u64 = 10;

/// The sysctls the autotuning reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutotuneConfig {
    /// `net.ipv4.tcp_rmem`: minimum (unused here: memory pressure is not modelled), initial
    /// and largest receive buffer, in bytes of buffer (payload plus overhead).
    pub rmem: [u32; 3],
    /// Payload share of a buffer byte, in 1/256ths (`tp->scaling_ratio`, at least 1).
    pub scaling_ratio: u8,
    /// `net.ipv4.tcp_app_win`: keep buffer/2^tcp_app_win out of the window (0: nothing).
    pub app_win: u8,
    /// `net.ipv4.tcp_moderate_rcvbuf`: grow the buffer (off, as with `SO_RCVBUF` set).
    pub moderate_rcvbuf: bool,
}

impl Default for AutotuneConfig {
    fn default() -> Self {
        AutotuneConfig {
            rmem: [4096, 131_072, 6_291_456],
            scaling_ratio: 1 << (RMEM_TO_WIN_SCALE - 1),
            app_win: 31,
            moderate_rcvbuf: true,
        }
    }
}

/// One receiver's autotuning state. Stream offsets count payload bytes from the start of the
/// connection (0 when it is established).
///
/// The caller feeds it:
/// - [`ReceiveAutotune::on_timestamps`] for every segment carrying the timestamps option
///   (Linux calls `tcp_rcv_rtt_measure_ts` for every segment of an established connection);
/// - [`ReceiveAutotune::on_data_received`] for every segment that advances `rcv_nxt`
///   (`tcp_event_data_recv` → `tcp_rcv_rtt_measure`);
/// - [`ReceiveAutotune::on_copied`] whenever the application has read data (`tcp_recvmsg` →
///   `tcp_rcv_space_adjust`; with an application that reads at once, on every in-order
///   arrival);
///
/// and reads [`ReceiveAutotune::window_clamp`] as the most it may advertise (the payload
/// share of [`ReceiveAutotune::receive_buffer`]).
#[derive(Clone, Debug)]
pub struct ReceiveAutotune {
    config: AutotuneConfig,
    /// `tp->advmss`, also standing for `icsk_ack.rcv_mss` (the peer's MSS as we guess it).
    advmss: u32,
    /// `sk->sk_rcvbuf`.
    rcvbuf: u32,
    /// `tp->window_clamp`: the largest window to advertise.
    window_clamp: u32,
    /// `tp->rcvq_space.space`: bytes read in the last measured round trip.
    space: u32,
    /// `tp->rcvq_space.seq`, `.time`: where and when the current measurement began.
    space_seq: u64,
    space_time: Instant,
    /// `tp->rcv_rtt_est.rtt_us`: the receiver's RTT estimate in µs, times 8; 0 while none.
    rtt_us8: u64,
    /// `tp->rcv_rtt_est.seq`, `.time`: the window-based measurement under way, if any.
    rtt_mark: Option<(u64, Instant)>,
    /// `tp->rcv_rtt_last_tsecr`.
    last_tsecr: u32,
}

impl ReceiveAutotune {
    /// The state when the connection is established: `sk_rcvbuf` = `tcp_rmem[1]`
    /// (`tcp_init_sock`), then `tcp_init_buffer_space`.
    ///
    /// Difference: Linux's window clamp before `tcp_init_buffer_space` comes from
    /// `tcp_select_initial_window`; it is taken here to be at least the buffer's payload
    /// share (so with window scaling and no `SO_RCVBUF`), and the initial `rcv_ssthresh` and
    /// `rcv_wnd` at least `TCP_INIT_CWND` segments.
    pub fn new(config: AutotuneConfig, advmss: u32, now: Instant) -> Self {
        debug_assert!(advmss > 0 && config.scaling_ratio > 0);
        let mut tune = ReceiveAutotune {
            rcvbuf: config.rmem[1],
            config,
            advmss,
            window_clamp: 0,
            space: 0,
            space_seq: 0,
            space_time: now,
            rtt_us8: 0,
            rtt_mark: None,
            last_tsecr: 0,
        };
        // tcp_init_buffer_space: the clamp is the buffer's payload share (tcp_full_space)...
        let mss = u64::from(advmss);
        let maxwin = tune.win_from_space(u64::from(tune.rcvbuf));
        let mut clamp = maxwin;
        let app_win = u32::from(tune.config.app_win);
        // ... less 1/2^tcp_app_win of it for the application, but not under four segments...
        if app_win > 0 && maxwin > 4 * mss {
            clamp = (maxwin - maxwin.checked_shr(app_win).unwrap_or(0)).max(4 * mss);
        }
        // ... and, with tcp_app_win, at least one segment short of the whole.
        if app_win > 0 && clamp > 2 * mss && clamp + mss > maxwin {
            clamp = (2 * mss).max(maxwin.saturating_sub(mss));
        }
        tune.window_clamp = clamp as u32;
        // rcvq_space.space = min3(rcv_ssthresh, rcv_wnd, TCP_INIT_CWND · advmss), with
        // rcv_ssthresh already cut to the clamp.
        tune.space = clamp.min(INIT_CWND * mss) as u32;
        tune
    }

    /// `sk_rcvbuf`: the receive buffer, payload and overhead.
    pub fn receive_buffer(&self) -> u32 {
        self.rcvbuf
    }

    /// `window_clamp`: the payload share of the buffer, the most the socket may advertise.
    pub fn window_clamp(&self) -> u32 {
        self.window_clamp
    }

    /// The receiver's RTT estimate (`rcv_rtt_est.rtt_us >> 3`), once measured.
    pub fn rtt(&self) -> Option<Duration> {
        (self.rtt_us8 > 0).then(|| Duration::from_micros(self.rtt_us8 >> 3))
    }

    /// A segment carrying the timestamps option arrived (`tcp_rcv_rtt_measure_ts`): a new
    /// echo `tsecr` on a segment of at least one MSS of payload measures the RTT as our
    /// timestamp clock now less the echoed value (1 ms ticks, at least one;
    /// `tcp_rtt_tsopt_us`). A segment echoing the same value as the last measures nothing,
    /// nor does a short one, though it moves the last echo seen.
    pub fn on_timestamps(&mut self, now: Instant, tsecr: u32, payload_len: u32) {
        if tsecr == self.last_tsecr {
            return;
        }
        self.last_tsecr = tsecr;
        if payload_len >= self.advmss {
            let ticks = timestamps::clock(now).wrapping_sub(tsecr);
            // An echo from the future (or 24 days old) gives no sample (delta < 0).
            if ticks < i32::MAX as u32 / 1000 {
                self.rtt_update(u64::from(ticks.max(1)) * 1000, false);
            }
        }
    }

    /// In-order data moved `rcv_nxt` to `rcv_nxt` while the last window advertised was
    /// `rcv_wnd` bytes (`tcp_rcv_rtt_measure`): the time from one mark until `rcv_nxt`
    /// passes the mark's `rcv_nxt + rcv_wnd` is an RTT sample (a window's worth arrived),
    /// kept only if smaller than the estimate; a new mark starts then.
    pub fn on_data_received(&mut self, now: Instant, rcv_nxt: u64, rcv_wnd: u32) {
        if let Some((seq, time)) = self.rtt_mark {
            if rcv_nxt < seq {
                return;
            }
            let delta_us = micros(now - time).max(1);
            self.rtt_update(delta_us, true);
        }
        self.rtt_mark = Some((rcv_nxt + u64::from(rcv_wnd), now));
    }

    /// The application has read up to stream offset `copied_seq` (`tcp_rcv_space_adjust`).
    /// Once per estimated RTT, what it read in that time (`copied`), if more than in the
    /// previous one, sets the buffer to the space for a window of
    ///
    /// rcvwin = 2·copied + 16·advmss, plus 2·rcvwin·(copied − space)/space,
    ///
    /// (twice what arrived, for losses, plus a cushion; then room for a sender still
    /// doubling its rate), never shrinking it, at most `tcp_rmem[2]`; the window clamp
    /// follows. Without an RTT estimate nothing happens.
    pub fn on_copied(&mut self, now: Instant, copied_seq: u64) {
        let time_us = micros(now - self.space_time);
        if self.rtt_us8 == 0 || time_us < self.rtt_us8 >> 3 {
            return;
        }
        let copied = copied_seq.saturating_sub(self.space_seq);
        let space = u64::from(self.space);
        if copied > space {
            if self.config.moderate_rcvbuf {
                let mut rcvwin = (copied << 1) + 16 * u64::from(self.advmss);
                let grow = rcvwin.saturating_mul(copied - space) / space.max(1);
                rcvwin = rcvwin.saturating_add(grow.saturating_mul(2));
                let rcvbuf = self
                    .space_from_win(rcvwin)
                    .min(u64::from(self.config.rmem[2]));
                if rcvbuf > u64::from(self.rcvbuf) {
                    self.rcvbuf = rcvbuf as u32;
                    self.window_clamp = self.win_from_space(rcvbuf) as u32;
                }
            }
            self.space = u32::try_from(copied).unwrap_or(u32::MAX);
        }
        self.space_seq = copied_seq;
        self.space_time = now;
    }

    /// `tcp_rcv_rtt_update`: a sample from timestamps is smoothed (gain 1/8); one from the
    /// window (`win_dep`) only lowers the estimate, since a window's worth can take longer
    /// than an RTT when the sender does not fill it.
    fn rtt_update(&mut self, sample_us: u64, win_dep: bool) {
        if self.rtt_us8 == 0 {
            self.rtt_us8 = sample_us << 3;
        } else if !win_dep {
            self.rtt_us8 = self.rtt_us8 - (self.rtt_us8 >> 3) + sample_us;
        } else {
            self.rtt_us8 = self.rtt_us8.min(sample_us << 3);
        }
    }

    /// `tcp_win_from_space`: the payload share of `space` buffer bytes.
    fn win_from_space(&self, space: u64) -> u64 {
        (space * u64::from(self.config.scaling_ratio)) >> RMEM_TO_WIN_SCALE
    }

    /// `tcp_space_from_win`: the buffer that holds a window of `win` payload bytes.
    fn space_from_win(&self, win: u64) -> u64 {
        (win << RMEM_TO_WIN_SCALE) / u64::from(self.config.scaling_ratio)
    }
}

/// Whole microseconds, as `tcp_stamp_us_delta` counts them.
fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn at(ms: u64) -> Instant {
        Instant::from_nanos(ms * MS)
    }

    /// Defaults, MSS 1460, and a 100 ms RTT measured from one timestamp echo.
    fn with_rtt_100ms(config: AutotuneConfig) -> ReceiveAutotune {
        let mut tune = ReceiveAutotune::new(config, 1460, at(0));
        // Our TSval 1 went out at 0 ms (the clock is ms + 1), echoed at 100 ms (clock 101).
        tune.on_timestamps(at(100), 1, 1460);
        assert_eq!(tune.rtt_us8, 800_000);
        tune
    }

    #[test]
    fn starts_at_tcp_rmem_1_with_the_window_tcp_init_buffer_space_gives() {
        let tune = ReceiveAutotune::new(AutotuneConfig::default(), 1460, at(0));
        assert_eq!(tune.receive_buffer(), 131_072);
        // tcp_full_space = 131072 · 128/256 = 65536; tcp_app_win 31 reserves 65536 >> 31 =
        // 0; then one segment is reserved: max(2 · 1460, 65536 − 1460) = 64076.
        assert_eq!(tune.window_clamp(), 64_076);
        // min(64076, TCP_INIT_CWND · 1460)
        assert_eq!(tune.space, 14_600);
        assert_eq!(tune.rtt(), None);

        // tcp_app_win 0 reserves nothing.
        let none = AutotuneConfig {
            app_win: 0,
            ..AutotuneConfig::default()
        };
        assert_eq!(
            ReceiveAutotune::new(none, 1460, at(0)).window_clamp(),
            65_536
        );
        // tcp_app_win 1 keeps half: max(65536 − 32768, 4 · 1460) = 32768, already more than
        // a segment short of 65536.
        let half = AutotuneConfig {
            app_win: 1,
            ..AutotuneConfig::default()
        };
        assert_eq!(
            ReceiveAutotune::new(half, 1460, at(0)).window_clamp(),
            32_768
        );
        // A 75 % payload share: 131072 · 192/256 = 98304, less a segment: 96844.
        let dense = AutotuneConfig {
            scaling_ratio: 192,
            ..AutotuneConfig::default()
        };
        assert_eq!(
            ReceiveAutotune::new(dense, 1460, at(0)).window_clamp(),
            96_844
        );
    }

    #[test]
    fn timestamp_samples_are_smoothed_by_an_eighth() {
        let mut tune = ReceiveAutotune::new(AutotuneConfig::default(), 1460, at(0));
        // TSval 1001 was sent at 1000 ms; echoed at 1050 ms (clock 1051): 50 ms.
        tune.on_timestamps(at(1050), 1001, 1460);
        assert_eq!(tune.rtt_us8, 400_000);
        // The same echo again measures nothing.
        tune.on_timestamps(at(1090), 1001, 1460);
        assert_eq!(tune.rtt_us8, 400_000);
        // TSval 1002 echoed at 1101 ms (clock 1102): 100 ms;
        // 400000 − 400000/8 + 100000 = 450000, an RTT of 56.25 ms.
        tune.on_timestamps(at(1101), 1002, 1460);
        assert_eq!(tune.rtt(), Some(Duration::from_micros(56_250)));
        // A short segment's new echo measures nothing but is remembered, so that the
        // full-sized segment echoing it next measures nothing either.
        tune.on_timestamps(at(1200), 1150, 1000);
        tune.on_timestamps(at(1200), 1150, 1460);
        assert_eq!(tune.rtt_us8, 450_000);
        // An echo of a value we have not sent yet gives no sample.
        tune.on_timestamps(at(1200), 5000, 1460);
        assert_eq!(tune.rtt_us8, 450_000);
        // An echo from this very tick counts as 1 ms: 450000 − 56250 + 1000 = 394750.
        tune.on_timestamps(at(1200), 1201, 1460);
        assert_eq!(tune.rtt_us8, 394_750);
    }

    #[test]
    fn a_window_takes_an_rtt_to_arrive_and_only_lowers_the_estimate() {
        let mut tune = ReceiveAutotune::new(AutotuneConfig::default(), 1460, at(0));
        // The first data sets the mark: a window of 14600 from offset 1460.
        tune.on_data_received(at(0), 1460, 14_600);
        // Not past 16060 yet.
        tune.on_data_received(at(10), 10_000, 14_600);
        assert_eq!(tune.rtt(), None);
        // Past it 30 ms after the mark: the first sample, 30000 µs · 8.
        tune.on_data_received(at(30), 16_060, 14_600);
        assert_eq!(tune.rtt_us8, 240_000);
        // Next mark 16060 + 14600 = 30660, passed 20 ms later: lower, taken.
        tune.on_data_received(at(50), 36_060, 20_000);
        assert_eq!(tune.rtt_us8, 160_000);
        // Next mark 36060 + 20000 = 56060, reached 50 ms later: higher, ignored.
        tune.on_data_received(at(100), 56_060, 20_000);
        assert_eq!(tune.rtt(), Some(Duration::from_millis(20)));
        // Less than a microsecond counts as one.
        tune.on_data_received(at(100), 76_060, 0);
        assert_eq!(tune.rtt_us8, 8);
    }

    #[test]
    fn nothing_grows_before_the_receiver_has_an_rtt() {
        let mut tune = ReceiveAutotune::new(AutotuneConfig::default(), 1460, at(0));
        tune.on_copied(at(500), 1_000_000);
        assert_eq!(tune.receive_buffer(), 131_072);
        // The measurement still runs from 0 (not restarted): once the RTT is known (TSval
        // 451 echoed at 550 ms, clock 551: 100 ms), the 1000000 bytes read since count.
        tune.on_timestamps(at(550), 451, 1460);
        tune.on_copied(at(600), 1_000_000);
        assert!(tune.receive_buffer() > 131_072);
        assert_eq!(tune.space, 1_000_000);
    }

    #[test]
    fn grows_to_four_times_what_a_round_trip_delivered_never_shrinks_and_stops_at_rmem_2() {
        let mut tune = with_rtt_100ms(AutotuneConfig::default());
        // Less than an RTT since the measurement began: nothing, and no restart.
        tune.on_copied(at(50), 30_000);
        assert_eq!(
            (tune.receive_buffer(), tune.space, tune.space_seq),
            (131_072, 14_600, 0)
        );
        // An RTT, but no more than the last round trip's 14600: the measurement restarts.
        tune.on_copied(at(100), 14_600);
        assert_eq!((tune.receive_buffer(), tune.space_seq), (131_072, 14_600));
        assert_eq!(tune.space_time, at(100));
        // 40000 in the next RTT: rcvwin = 2·40000 + 16·1460 = 103360;
        // grow = 103360 · (40000 − 14600) / 14600 = 179818; rcvwin = 103360 + 2·179818 =
        // 462996; buffer = 462996 · 256/128 = 925992; window clamp 925992 · 128/256.
        tune.on_copied(at(200), 54_600);
        assert_eq!(tune.receive_buffer(), 925_992);
        assert_eq!(tune.window_clamp(), 462_996);
        assert_eq!(tune.space, 40_000);
        // 50000 next: rcvwin = 123360 + 2·(123360 · 10000 / 40000) = 185040, a buffer of
        // 370080, smaller: kept at 925992; the round trip's 50000 is remembered.
        tune.on_copied(at(300), 104_600);
        assert_eq!(tune.receive_buffer(), 925_992);
        assert_eq!(tune.window_clamp(), 462_996);
        assert_eq!(tune.space, 50_000);
        // 2000000 next: rcvwin = 4023360 + 2·(4023360 · 1950000 / 50000) = 317845440, a
        // buffer of 635690880: capped at tcp_rmem[2].
        tune.on_copied(at(400), 2_104_600);
        assert_eq!(tune.receive_buffer(), 6_291_456);
        assert_eq!(tune.window_clamp(), 3_145_728);
    }

    #[test]
    fn the_payload_share_converts_both_ways() {
        let dense = AutotuneConfig {
            scaling_ratio: 192,
            ..AutotuneConfig::default()
        };
        let mut tune = with_rtt_100ms(dense);
        tune.on_copied(at(100), 14_600);
        // rcvwin 462996 as above; buffer 462996 · 256/192 = 617328; clamp back 462996.
        tune.on_copied(at(200), 54_600);
        assert_eq!(tune.receive_buffer(), 617_328);
        assert_eq!(tune.window_clamp(), 462_996);
    }

    #[test]
    fn without_moderate_rcvbuf_the_buffer_stays_but_the_measurement_goes_on() {
        let fixed = AutotuneConfig {
            moderate_rcvbuf: false,
            ..AutotuneConfig::default()
        };
        let mut tune = with_rtt_100ms(fixed);
        tune.on_copied(at(100), 14_600);
        tune.on_copied(at(200), 54_600);
        assert_eq!(
            (tune.receive_buffer(), tune.window_clamp()),
            (131_072, 64_076)
        );
        assert_eq!((tune.space, tune.space_seq), (40_000, 54_600));
    }
}
