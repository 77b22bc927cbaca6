//! Packet-delivery traces in mahimahi's format (Netravali et al., "Mahimahi: Accurate
//! Record-and-Replay for HTTP", USENIX ATC 2015; `mm-link`): a link direction whose capacity
//! varies over time, such as a recorded cellular link.
//!
//! Each line of a trace is a time in milliseconds from its start, an opportunity to deliver
//! 1500 bytes (a time repeats for several in one millisecond); the trace starts again when
//! it ends, shifted by its last time. As in `mm-link`'s `LinkQueue::rationalize`: an
//! opportunity that passes while nothing is queued is lost; a packet uses the opportunities
//! after it reaches the head of the queue, several if it is longer than what one has left,
//! and leaves at the time of the one that completes it; what that one has left serves the
//! next queued packet at the same time. A packet that arrives at an opportunity's very time
//! misses it (mahimahi spends due opportunities before it queues an arrival).

use airtcp_proto::Instant;

/// Bytes of IP packet one opportunity carries (mahimahi's 1504 include its 4-byte TUN
/// packet information header).
pub const OPPORTUNITY_BYTES: u32 = 1500;

const NS_PER_MS: u64 = 1_000_000;

/// The opportunities of a trace text, one whole number of milliseconds per line; an error
/// names the line and what is wrong.
pub fn parse(text: &str) -> Result<Vec<u64>, String> {
    let mut times = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        let ms = line.parse::<u64>().map_err(|_| {
            format!(
                "line {}: expected a whole number of milliseconds, found {line:?}",
                i + 1
            )
        })?;
        times.push(ms);
    }
    check(&times)?;
    Ok(times)
}

/// Whether `times` (ms) is a trace: not empty, never decreasing, lasting a while.
pub fn check(times: &[u64]) -> Result<(), String> {
    if let Some(i) = times.windows(2).position(|pair| pair[1] < pair[0]) {
        return Err(format!(
            "line {}: {} ms comes after {} ms (times must not decrease)",
            i + 2,
            times[i + 1],
            times[i]
        ));
    }
    match times.last() {
        None => Err("no delivery opportunity (an empty trace)".into()),
        Some(0) => Err("the trace must last longer than 0 ms (its last time)".into()),
        Some(last) if last.checked_mul(NS_PER_MS).is_none() => {
            Err(format!("{last} ms is beyond the simulator's clock"))
        }
        Some(_) => Ok(()),
    }
}

/// The average rate a trace offers, over its length.
pub fn mean_rate_bps(times: &[u64]) -> u64 {
    let last_ms = times.last().copied().unwrap_or(0).max(1);
    times.len() as u64 * u64::from(OPPORTUNITY_BYTES) * 8 * 1000 / last_ms
}

/// Where a link direction is in its trace.
#[derive(Debug)]
pub struct TraceCursor {
    times_ms: Vec<u64>,
    /// The opportunity in use or next, and the start of the trace's current round.
    index: usize,
    round_start_ns: u64,
    /// Bytes the opportunity at `index` has left.
    left: u32,
}

impl TraceCursor {
    /// At time 0, before the trace's first opportunity (`times_ms` passed `check`).
    pub fn new(times_ms: Vec<u64>) -> Self {
        TraceCursor {
            times_ms,
            index: 0,
            round_start_ns: 0,
            left: OPPORTUNITY_BYTES,
        }
    }

    fn period_ns(&self) -> u64 {
        self.times_ms[self.times_ms.len() - 1] * NS_PER_MS
    }

    fn time_ns(&self) -> u64 {
        self.round_start_ns + self.times_ms[self.index] * NS_PER_MS
    }

    fn next_opportunity(&mut self) {
        self.index += 1;
        if self.index == self.times_ms.len() {
            self.index = 0;
            self.round_start_ns += self.period_ns();
        }
        self.left = OPPORTUNITY_BYTES;
    }

    /// Lets every opportunity up to and including `now_ns` pass unused.
    fn pass(&mut self, now_ns: u64) {
        let period = self.period_ns();
        while self.time_ns() <= now_ns {
            if self.index == 0 && now_ns >= self.round_start_ns + period {
                // Whole rounds at once after a long idle time.
                self.round_start_ns += (now_ns - self.round_start_ns) / period * period;
                self.left = OPPORTUNITY_BYTES;
            } else {
                self.next_opportunity();
            }
        }
    }

    /// When a packet of `len` bytes that reaches the head of the queue `now` has been
    /// delivered. `follows` says a packet delivered `now` preceded it, whose opportunity
    /// it may finish using.
    pub fn delivery(&mut self, now: Instant, len: u32, follows: bool) -> Instant {
        if !follows {
            self.pass(now.as_nanos());
        } else if self.left == 0 {
            // The next may be due now too (several in one millisecond, or a new round).
            self.next_opportunity();
        }
        let mut remaining = len;
        loop {
            let used = remaining.min(self.left);
            remaining -= used;
            self.left -= used;
            if remaining == 0 {
                return Instant::from_nanos(self.time_ns());
            }
            self.next_opportunity();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NS_PER_MS;

    fn at(ms: u64) -> Instant {
        Instant::from_nanos(ms * MS)
    }

    #[test]
    fn a_trace_parses_and_bad_lines_are_named() {
        assert_eq!(parse("1\n1\n3\n").unwrap(), vec![1, 1, 3]);
        assert_eq!(parse("2\r\n5").unwrap(), vec![2, 5]);
        let error = parse("1\n\n3\n").unwrap_err();
        assert!(
            error.starts_with("line 2: expected a whole number"),
            "{error}"
        );
        assert!(parse("1\n-4\n").unwrap_err().starts_with("line 2:"));
        let error = parse("5\n3\n").unwrap_err();
        assert!(
            error.starts_with("line 2: 3 ms comes after 5 ms"),
            "{error}"
        );
        assert!(parse("").unwrap_err().contains("empty"));
        assert!(parse("0\n0\n").unwrap_err().contains("longer than 0 ms"));
        assert!(parse("99999999999999999").unwrap_err().contains("beyond"));
    }

    proptest::proptest! {
        /// Trace files come from outside: any text is a trace or an error naming a line.
        #[test]
        fn any_text_parses_or_is_refused(text in "[0-9\\n\\r -]{0,40}|\\PC{0,40}") {
            if let Ok(times) = parse(&text) {
                proptest::prop_assert!(check(&times).is_ok());
            }
        }

        /// A trace written as text parses back, and every packet leaves at an opportunity,
        /// never before it reached the head of the queue.
        #[test]
        fn written_traces_parse_back_and_pace_packets(
            mut times in proptest::collection::vec(0u64..50, 1..30),
            packets in proptest::collection::vec((0u64..200, 1u32..3000), 1..20),
        ) {
            times.sort_unstable();
            let last = times.len() - 1;
            times[last] += 1;
            let text: String = times.iter().map(|t| format!("{t}\n")).collect();
            proptest::prop_assert_eq!(parse(&text).unwrap(), times.clone());
            let mut trace = TraceCursor::new(times);
            let mut now = Instant::ZERO;
            for (gap_ms, len) in packets {
                let start = now + std::time::Duration::from_millis(gap_ms);
                let done = trace.delivery(start, len, false);
                proptest::prop_assert!(done > start);
                proptest::prop_assert_eq!(done.as_nanos() % MS, 0);
                now = done;
            }
        }
    }

    #[test]
    fn one_opportunity_per_millisecond_is_twelve_megabits() {
        assert_eq!(mean_rate_bps(&[1]), 12_000_000);
        assert_eq!(mean_rate_bps(&[1, 2]), 12_000_000);
        assert_eq!(mean_rate_bps(&[1, 1, 2, 2]), 24_000_000);
    }

    #[test]
    fn packets_leave_at_the_opportunity_that_completes_them() {
        let mut trace = TraceCursor::new(vec![2, 4, 6, 8]);
        // 1500 bytes at 0.5 ms: the opportunity at 2 ms.
        assert_eq!(
            trace.delivery(Instant::from_nanos(MS / 2), 1500, false),
            at(2)
        );
        // 3000 bytes queued behind it: the opportunities at 4 and 6 ms.
        assert_eq!(trace.delivery(at(2), 3000, true), at(6));
        // Idle until 6.5 ms: the next is at 8 ms.
        assert_eq!(
            trace.delivery(Instant::from_nanos(6 * MS + 1), 100, false),
            at(8)
        );
    }

    #[test]
    fn what_an_opportunity_has_left_serves_the_next_packet_at_the_same_time() {
        let mut trace = TraceCursor::new(vec![1, 2]);
        assert_eq!(trace.delivery(at(0), 500, false), at(1));
        assert_eq!(trace.delivery(at(1), 1000, true), at(1));
        assert_eq!(trace.delivery(at(1), 1, true), at(2));
        // Arriving later, a packet does not use what is left of a past opportunity.
        let mut trace = TraceCursor::new(vec![1, 2]);
        assert_eq!(trace.delivery(at(0), 500, false), at(1));
        assert_eq!(trace.delivery(at(1), 500, false), at(2));
    }

    #[test]
    fn the_trace_repeats_shifted_by_its_last_time() {
        let mut trace = TraceCursor::new(vec![0, 10]);
        assert_eq!(trace.delivery(at(1), 1500, false), at(10));
        // The round from 10 ms: its first opportunity is at 10 ms too, then 20 ms.
        assert_eq!(trace.delivery(at(10), 1500, true), at(10));
        assert_eq!(trace.delivery(at(10), 1500, true), at(20));
        // After a long idle time, whole rounds are skipped at once.
        assert_eq!(trace.delivery(at(1_000_005), 1500, false), at(1_000_010));
    }
}
