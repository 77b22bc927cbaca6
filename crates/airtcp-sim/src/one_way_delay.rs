//! Per-flow one-way delay and jitter of the data packets (`simulation.one_way_delay`): from
//! the moment the sender's stack originates a packet (a TCP segment carrying data, new or
//! resent; a UDP datagram) to its delivery to the receiver's stack, as iperf3 and flent
//! report it for UDP (sender timestamps in the payload) and as OWAMP measures it.
//!
//! Jitter is RFC 3550's interarrival jitter (§6.4.1, the estimator of its Appendix A.8 that
//! iperf3 uses): J += (|D(i-1, i)| - J) / 16, where D is the difference between consecutive
//! packets' transit times, in floating point on nanoseconds.
//!
//! A packet is known by its unique id, which grows with each packet the simulator makes: a
//! flow's packets in flight are kept in the order they were sent, and a delivery pops the
//! older ones, lost or overtaken. One overtaken (delivered after a later one) is not timed
//! and is counted in `reordered`. The cost is a queue push and pop per data packet, paid only
//! when the setting is on.

use std::collections::VecDeque;

use serde::Serialize;

use crate::durations::Durations;

/// A flow's packets in flight and what its deliveries measured.
#[derive(Clone, Debug, Default)]
pub struct OneWayDelay {
    in_flight: VecDeque<(u64, u64)>,
    /// Since the measurement began (`reset`): the timed deliveries and the packets
    /// delivered after a later one.
    total: Durations,
    reordered: u64,
    /// Since the last time-series sample (`take_interval`).
    interval: Durations,
    /// The last packet's transit time and RFC 3550's running jitter (never reset: it is an
    /// estimator, as iperf3 keeps it for the whole test).
    last_transit_ns: Option<u64>,
    jitter_ns: f64,
}

/// A flow's one-way delay over the measurement window, in the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DelaySummary {
    /// Data packets timed.
    pub packets: u64,
    pub mean_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// RFC 3550's interarrival jitter at the end of the run.
    pub jitter_ms: f64,
    /// Packets delivered after a later one (not timed).
    pub reordered: u64,
}

/// One sampling interval's deliveries (NaN without any).
#[derive(Clone, Copy, Debug)]
pub struct IntervalDelay {
    pub packets: u64,
    pub mean_ms: f64,
    pub max_ms: f64,
    pub jitter_ms: f64,
}

impl OneWayDelay {
    /// The packet `uid` left the sender's stack at `now_ns`.
    pub fn sent(&mut self, uid: u64, now_ns: u64) {
        self.in_flight.push_back((uid, now_ns));
    }

    /// The packet `uid` reached the receiver's stack at `now_ns`.
    pub fn delivered(&mut self, uid: u64, now_ns: u64) {
        let sent_ns = loop {
            match self.in_flight.front() {
                Some(&(head, sent_ns)) if head == uid => {
                    self.in_flight.pop_front();
                    break sent_ns;
                }
                // lost, or still on its way behind this one
                Some(&(head, _)) if head < uid => {
                    self.in_flight.pop_front();
                }
                // delivered after a later packet (its record was popped then), or a
                // duplicate
                _ => {
                    self.reordered += 1;
                    return;
                }
            }
        };
        let transit_ns = now_ns - sent_ns;
        if let Some(last) = self.last_transit_ns {
            let d = transit_ns.abs_diff(last) as f64;
            self.jitter_ns += (d - self.jitter_ns) / 16.0;
        }
        self.last_transit_ns = Some(transit_ns);
        self.total.add(transit_ns);
        self.interval.add(transit_ns);
    }

    /// The measurement begins: what came before is forgotten (the jitter estimator goes on).
    pub fn reset(&mut self) {
        self.total = Durations::default();
        self.reordered = 0;
    }

    /// The interval since the last call, for the time series.
    pub fn take_interval(&mut self) -> IntervalDelay {
        let durations = std::mem::take(&mut self.interval);
        IntervalDelay {
            packets: durations.count(),
            mean_ms: durations.mean_ms(),
            max_ms: durations.max_ms(),
            jitter_ms: self.jitter_ms(),
        }
    }

    fn jitter_ms(&self) -> f64 {
        if self.last_transit_ns.is_none() {
            return f64::NAN;
        }
        self.jitter_ns / 1e6
    }

    /// The summary over the measurement window.
    pub fn summary(&self) -> DelaySummary {
        let total = &self.total;
        DelaySummary {
            packets: total.count(),
            mean_ms: total.mean_ms(),
            min_ms: total.min_ms(),
            max_ms: total.max_ms(),
            jitter_ms: self.jitter_ms(),
            reordered: self.reordered,
        }
    }
}

/// The time series of the flows' one-way delays (flows with the setting on), column-wise as
/// the flows' series; `flow` indexes the flows' names.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DelaySeries {
    pub flow: Vec<u32>,
    pub time_s: Vec<f64>,
    pub packets: Vec<u64>,
    pub mean_ms: Vec<f64>,
    pub max_ms: Vec<f64>,
    pub jitter_ms: Vec<f64>,
}

impl DelaySeries {
    pub fn push(&mut self, flow: u32, time_s: f64, interval: IntervalDelay) {
        self.flow.push(flow);
        self.time_s.push(time_s);
        self.packets.push(interval.packets);
        self.mean_ms.push(interval.mean_ms);
        self.max_ms.push(interval.max_ms);
        self.jitter_ms.push(interval.jitter_ms);
    }

    /// Room for `rows` samples (`TimeSeries::reserve`).
    pub fn reserve(&mut self, rows: usize) {
        self.flow.reserve_exact(rows);
        self.time_s.reserve_exact(rows);
        self.packets.reserve_exact(rows);
        self.mean_ms.reserve_exact(rows);
        self.max_ms.reserve_exact(rows);
        self.jitter_ms.reserve_exact(rows);
    }

    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn delays_and_rfc3550_jitter_by_hand() {
        let mut delay = OneWayDelay::default();
        // sent every 10 ms; transits 5, 7, 6 ms
        for (uid, sent) in [(10, 0), (11, 10 * MS), (12, 20 * MS)] {
            delay.sent(uid, sent);
        }
        delay.delivered(10, 5 * MS);
        delay.delivered(11, 17 * MS);
        delay.delivered(12, 26 * MS);
        let summary = delay.summary();
        assert_eq!(summary.packets, 3);
        assert!((summary.mean_ms - 6.0).abs() < 1e-9);
        assert_eq!((summary.min_ms, summary.max_ms), (5.0, 7.0));
        // J1 = (2 - 0)/16 = 0.125 ms; J2 = 0.125 + (1 - 0.125)/16 = 0.1796875 ms
        assert!(
            (summary.jitter_ms - 0.179_687_5).abs() < 1e-12,
            "{summary:?}"
        );
    }

    #[test]
    fn lost_packets_are_passed_over_and_overtaken_ones_counted() {
        let mut delay = OneWayDelay::default();
        for uid in 1..=4 {
            delay.sent(uid, uid * MS);
        }
        delay.delivered(2, 3 * MS); // 1 lost (or behind)
        delay.delivered(4, 6 * MS); // 3 behind
        delay.delivered(3, 7 * MS); // overtaken by 4
        delay.delivered(1, 8 * MS); // overtaken
        let summary = delay.summary();
        assert_eq!((summary.packets, summary.reordered), (2, 2));
        assert_eq!((summary.min_ms, summary.max_ms), (1.0, 2.0));
        assert!(delay.in_flight.is_empty());
    }

    #[test]
    fn the_measurement_forgets_the_warm_up_and_intervals_are_taken_apart() {
        let mut delay = OneWayDelay::default();
        delay.sent(1, 0);
        delay.delivered(1, 100 * MS);
        delay.reset();
        delay.sent(2, 200 * MS);
        delay.delivered(2, 204 * MS);
        assert_eq!(delay.summary().max_ms, 4.0);
        let interval = delay.take_interval();
        assert_eq!((interval.packets, interval.max_ms), (2, 100.0));
        let empty = delay.take_interval();
        assert_eq!(empty.packets, 0);
        assert!(empty.mean_ms.is_nan() && !empty.jitter_ms.is_nan());
    }
}
