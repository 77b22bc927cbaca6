//! BBR's model and states on hand-made rate samples; the numbers are tcp_bbr.c's integer
//! arithmetic worked by hand.

use super::*;

const MSS: u32 = 1448;
const RTT: Duration = Duration::from_millis(100);

/// A BBR sender fed one ACK at a time.
struct Driver {
    bbr: Bbr,
    now: Instant,
    delivered: u64,
    lost: u64,
    /// The samples are app-limited.
    app_limited: bool,
}

impl Driver {
    fn new() -> Self {
        let mut bbr = Bbr::new(10 * MSS, MSS);
        bbr.seed(1);
        let mut driver = Driver {
            bbr,
            now: Instant::from_nanos(1_000_000_000),
            delivered: 0,
            lost: 0,
            app_limited: false,
        };
        let cx = driver.cx(0, CaState::Open);
        driver.bbr.on_established(&cx);
        driver
    }

    fn cx(&self, in_flight: u64, state: CaState) -> RateContext {
        RateContext {
            now: self.now,
            delivered: self.delivered,
            delivered_time: self.now,
            lost: self.lost,
            in_flight,
            state,
            srtt: Some(RTT),
            pacing_release: self.now,
        }
    }

    /// One ACK `RTT` after the last, delivering `segments` sent when the last ACK arrived
    /// (so each ACK starts a round), `losses` newly lost; returns BBR's app-limited wish.
    fn round(&mut self, segments: u64, in_flight: u64, state: CaState, losses: u64) -> bool {
        self.now += RTT;
        let prior_delivered = self.delivered;
        self.delivered += segments;
        self.lost += losses;
        let sample = RateSample {
            delivered: Some(segments),
            interval: Some(RTT),
            prior_delivered,
            acked_sacked: segments,
            losses,
            prior_in_flight: in_flight + segments,
            rtt: Some(RTT),
            is_app_limited: self.app_limited,
            ..RateSample::default()
        };
        let cx = self.cx(in_flight, state);
        self.bbr.on_rate_sample(&sample, &cx)
    }

    fn cwnd(&self) -> u64 {
        self.bbr.cwnd()
    }
}

#[test]
fn the_initial_pacing_rate_is_high_gain_times_the_initial_window_per_rtt() {
    let driver = Driver::new();
    // bw = 10 · 2^24 / 100 000 µs = 1677; 1677 · 1448 · 739 >> 8 = 7 009 807;
    // · 990 000 >> 24 = 413 638 bytes/s (2.885 · 10 · 1448 B / 100 ms, less 1 %).
    assert_eq!(driver.bbr.pacing_rate(), Some(413_638));
    assert_eq!(driver.bbr.min_rtt(), Some(RTT));
    assert_eq!(driver.bbr.mode(), Mode::Startup);
}

#[test]
fn the_bdp_and_the_window_target_are_linuxs_integer_arithmetic() {
    let mut driver = Driver::new();
    driver.round(100, 0, CaState::Open, 0);
    // 100 segments in 100 ms: bw = 100 · 2^24 / 100 000 = 16 777.
    assert_eq!(driver.bbr.max_bw(), 16_777);
    // 2 · BDP: 16 777 · 100 000 · 512 >> 8 = 3 355 400 000, ⌈/ 2^24⌉ = 200.
    assert_eq!(driver.bbr.bdp(16_777, CWND_GAIN), 200);
    // The pacing rate at gain 1 is 1 433 501 B/s: a TSO burst is 1433501 >> 10 = 1399 bytes,
    // less than a segment, so the minimum of 2 (above 1.2 Mbit/s): 200 + 3 · 2 = 206.
    driver.bbr.pacing_rate = 1_433_501;
    assert_eq!(driver.bbr.tso_segs_goal(), 2);
    assert_eq!(driver.bbr.quantization_budget(200), 206);
    driver.bbr.mode = Mode::ProbeBw;
    driver.bbr.cycle_idx = 0;
    assert_eq!(driver.bbr.quantization_budget(200), 208, "+2 while probing");
    driver.bbr.pacing_rate = 100_000;
    assert_eq!(driver.bbr.tso_segs_goal(), 1, "below 1.2 Mbit/s");
    assert_eq!(
        driver.bbr.quantization_budget(201),
        206,
        "rounded up to even, +2"
    );
}

#[test]
fn startup_ends_after_three_rounds_without_a_quarter_more_bandwidth() {
    let mut driver = Driver::new();
    // Doubling each round: still filling the pipe.
    for segments in [20, 40, 80, 160] {
        driver.round(segments, 2 * segments, CaState::Open, 0);
        assert_eq!(driver.bbr.mode(), Mode::Startup);
        assert!(!driver.bbr.full_bw_reached);
    }
    assert_eq!(driver.bbr.pacing_gain, HIGH_GAIN);
    // The bottleneck: 200 segments a round, three times (with 1.25 · 160 = 200 the first
    // still counts as growth).
    driver.round(200, 400, CaState::Open, 0);
    assert_eq!(driver.bbr.full_bw_cnt, 0);
    for count in 1..=2 {
        driver.round(200, 400, CaState::Open, 0);
        assert_eq!(
            (driver.bbr.full_bw_cnt, driver.bbr.mode()),
            (count, Mode::Startup)
        );
    }
    // The third: the pipe is full; 400 in flight is above one BDP, so BBR drains.
    driver.round(200, 400, CaState::Open, 0);
    assert!(driver.bbr.full_bw_reached);
    assert_eq!(driver.bbr.mode(), Mode::Drain);
    assert_eq!(driver.bbr.pacing_gain, DRAIN_GAIN);
    // ssthresh is one BDP as the pacing rate stood before this ACK (STARTUP's: 8.3 MB/s,
    // 8078 B a ms, 5 segments a burst): 200 + 3 · 5 = 215, even 216.
    let ssthresh = u64::from(driver.bbr.window().ssthresh) / u64::from(MSS);
    assert_eq!(ssthresh, 216);
    // Once the flight is down to a BDP, PROBE_BW, at any phase but the draining one.
    driver.round(200, 150, CaState::Open, 0);
    assert_eq!(driver.bbr.mode(), Mode::ProbeBw);
    assert_ne!(driver.bbr.cycle_idx, 1);
}

#[test]
fn probe_bw_starts_at_every_phase_but_the_draining_one() {
    let mut phases = [0; CYCLE_LEN];
    for seed in 0..400 {
        let mut driver = Driver::new();
        driver.bbr.seed(seed);
        let cx = driver.cx(0, CaState::Open);
        driver.bbr.reset_probe_bw_mode(&cx);
        phases[driver.bbr.cycle_idx] += 1;
    }
    // CYCLE_LEN - 1 - rand(7) is 1..=7, then advanced by one: 2..=7 or 0, each about 1/7.
    assert_eq!(phases[1], 0);
    for (phase, &count) in phases.iter().enumerate().filter(|&(p, _)| p != 1) {
        assert!((35..=80).contains(&count), "phase {phase}: {count} of 400");
    }
}

#[test]
fn the_window_grows_by_what_is_acked_up_to_the_target() {
    let mut driver = Driver::new();
    driver.round(10, 10, CaState::Open, 0);
    assert_eq!(driver.cwnd(), 20, "startup: cwnd + acked");
    driver.bbr.full_bw_reached = true;
    driver.bbr.mode = Mode::ProbeBw;
    driver.bbr.cycle_idx = 2;
    driver.round(10, 10, CaState::Open, 0);
    // bw 10 segments / 100 ms (bw = 1677): 2 · BDP = 20; aggregation: 20 acked in the
    // epoch against 1677 · 100 000 >> 24 = 9 expected, 11, capped at 100 ms of bw, 9; TSO
    // 3 · 1 (143 kB/s, below 1.2 Mbit/s): target 32, above 20 + 10.
    assert_eq!(driver.cwnd(), 30);
    driver.round(10, 10, CaState::Open, 0);
    assert_eq!(driver.cwnd(), 32, "capped at the target");
}

#[test]
fn recovery_conserves_packets_then_restores_the_window() {
    let mut driver = Driver::new();
    // Still in STARTUP (the bandwidth doubles each round).
    for segments in [20, 40, 80] {
        driver.round(segments, 60, CaState::Open, 0);
    }
    let before = driver.cwnd();
    assert!(before > 60);
    driver.bbr.on_enter_recovery(driver.now, 0);
    // First ACK in recovery: cwnd = in flight + acked.
    driver.round(5, 40, CaState::Recovery, 3);
    assert_eq!(driver.cwnd(), 45);
    assert!(driver.bbr.packet_conservation);
    // Conservation holds the window at in flight + acked while the round lasts.
    driver.bbr.next_rtt_delivered = u64::MAX;
    driver.round(2, 30, CaState::Recovery, 10);
    assert_eq!(driver.cwnd(), 35, "max(45 - 10 lost, 30 + 2)");
    // Out of recovery: at least the window saved when it began.
    driver.bbr.next_rtt_delivered = 0;
    driver.round(5, 30, CaState::Open, 0);
    assert!(!driver.bbr.packet_conservation);
    assert!(driver.cwnd() >= before, "{} < {before}", driver.cwnd());
}

#[test]
fn probe_rtt_caps_the_window_for_200_ms_and_a_round_after_10_s() {
    let mut driver = Driver::new();
    for _ in 0..8 {
        driver.round(100, 100, CaState::Open, 0);
    }
    driver.bbr.full_bw_reached = true;
    let cx = driver.cx(100, CaState::Open);
    driver.bbr.reset_probe_bw_mode(&cx);
    // RTT samples no lower than min_rtt (set at establishment, 1 s) for 10 s; each round
    // 100 ms.
    let mut rounds = 0;
    loop {
        let marked = driver.round(100, 200, CaState::Open, 0);
        rounds += 1;
        if driver.bbr.mode() == Mode::ProbeRtt {
            assert!(marked, "PROBE_RTT's samples are app-limited");
            break;
        }
        assert!(!marked);
    }
    // The filter expires after t = 11 s: the round at 11.1 s, the 93rd after the first 8.
    assert_eq!(rounds, 93);
    let saved = driver.bbr.prior_cwnd;
    assert!(saved > 4);
    assert_eq!(driver.cwnd(), 4);
    // Still 200 in flight: no 200 ms yet; then the flight drains to 4.
    assert!(driver.round(4, 4, CaState::Open, 0));
    let done = driver
        .bbr
        .probe_rtt_done_stamp
        .expect("the 200 ms run from here");
    assert_eq!(done, driver.now + PROBE_RTT_TIME);
    // 100 ms in (a round done) and 200 ms in (not yet past: Linux's `after()`): probing.
    for _ in 0..2 {
        assert!(driver.round(4, 4, CaState::Open, 0));
        assert_eq!(driver.bbr.mode(), Mode::ProbeRtt);
    }
    driver.round(4, 4, CaState::Open, 0);
    assert_eq!(driver.bbr.mode(), Mode::ProbeBw, "past 200 ms and a round");
    assert_eq!(
        driver.bbr.min_rtt_stamp, driver.now,
        "min_rtt counts 10 s from here"
    );
    assert!(driver.cwnd() >= saved);
}

#[test]
fn a_policer_is_found_from_two_lossy_intervals_at_one_rate() {
    let mut driver = Driver::new();
    driver.bbr.full_bw_reached = true;
    let cx = driver.cx(0, CaState::Open);
    driver.bbr.reset_probe_bw_mode(&cx);
    // 50 segments a round delivered, 20 lost (more than 20 %): the policer's rate.
    driver.round(50, 50, CaState::Open, 20);
    assert!(driver.bbr.lt.is_sampling);
    for _ in 0..4 {
        driver.round(50, 50, CaState::Open, 20);
    }
    assert!(!driver.bbr.lt.use_bw, "one interval is no evidence");
    assert_eq!(driver.bbr.lt.bw, 50 * BW_UNIT / 100_000);
    for _ in 0..4 {
        driver.round(50, 50, CaState::Open, 20);
    }
    assert!(driver.bbr.lt.use_bw);
    assert_eq!(driver.bbr.bw(), 50 * BW_UNIT / 100_000);
    assert_eq!(driver.bbr.pacing_gain, BBR_UNIT);
    // The policer's rate is kept for 48 rounds from the one found it (the last above was
    // the first of them), then probing resumes.
    for _ in 0..46 {
        driver.round(50, 50, CaState::Open, 0);
    }
    assert!(driver.bbr.lt.use_bw);
    driver.round(50, 50, CaState::Open, 0);
    assert!(!driver.bbr.lt.use_bw);
}

#[test]
fn a_timeout_ends_the_round_and_sets_the_window_to_one_segment() {
    let mut driver = Driver::new();
    driver.round(50, 50, CaState::Open, 0);
    driver.bbr.on_rto(driver.now, 0, false);
    let cx = driver.cx(0, CaState::Loss);
    driver.bbr.on_enter_loss(&cx);
    assert_eq!(driver.cwnd(), 1);
    assert!(driver.bbr.prior_cwnd >= 60);
    assert!(driver.bbr.round_start);
    assert_eq!(driver.bbr.prev_ca_state, CaState::Loss);
}

#[test]
fn app_limited_samples_below_the_estimate_do_not_count() {
    let mut driver = Driver::new();
    driver.round(100, 100, CaState::Open, 0);
    // Twelve rounds of an application sending 10 segments a round: were they counted, the
    // 100 would age out of the 10-round filter.
    driver.app_limited = true;
    for _ in 0..12 {
        driver.round(10, 10, CaState::Open, 0);
    }
    assert_eq!(driver.bbr.max_bw(), 100 * BW_UNIT / 100_000);
    // One at the estimate or above counts.
    driver.round(120, 120, CaState::Open, 0);
    assert_eq!(driver.bbr.max_bw(), 120 * BW_UNIT / 100_000);
}
