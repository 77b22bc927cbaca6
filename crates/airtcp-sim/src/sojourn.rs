//! Sojourn times of a queue's packets (`simulation.queue_sojourn`): from a packet's arrival in
//! the queue to its dequeue, when the link starts to serialise it (CoDel's measure, RFC 8289
//! §2-3; the queueing delay `mm-link --meter-uplink-delay` draws), gathered per
//! sampling interval (the queue series) and over the measurement window (the run summary):
//! how many packets the link took from the queue to send, their mean sojourn and the
//! longest. Packets that leave otherwise (an AQM's head drops, a link going down, an agent's
//! removal) are not counted.

use serde::Serialize;

/// A metered queue's sojourns: since the last sample, and since the measurement began.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sojourns {
    pub interval: SojournMeter,
    pub window: SojournMeter,
}

impl Sojourns {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.interval.record(ns);
        self.window.record(ns);
    }
}

/// Sojourns gathered since the meter was last taken (or started).
#[derive(Clone, Copy, Debug, Default)]
pub struct SojournMeter {
    dequeued: u64,
    total_ns: u64,
    max_ns: u64,
}

/// One interval's sojourns; the times are NaN (null in JSON) when no packet left the queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SojournSample {
    pub dequeued: u64,
    pub mean_ms: f64,
    pub max_ms: f64,
}

impl SojournMeter {
    /// A packet left the queue after `ns` in it.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.dequeued += 1;
        self.total_ns += ns;
        self.max_ns = self.max_ns.max(ns);
    }

    /// The interval's figures, and a fresh start for the next.
    pub fn take(&mut self) -> SojournSample {
        std::mem::take(self).sample()
    }

    /// The figures so far.
    pub fn sample(&self) -> SojournSample {
        let (mean_ms, max_ms) = if self.dequeued == 0 {
            (f64::NAN, f64::NAN)
        } else {
            (
                self.total_ns as f64 / self.dequeued as f64 / 1e6,
                self.max_ns as f64 / 1e6,
            )
        };
        SojournSample {
            dequeued: self.dequeued,
            mean_ms,
            max_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_gives_count_mean_and_longest_then_starts_afresh() {
        let mut meter = SojournMeter::default();
        for ns in [0, 2_000_000, 7_000_000] {
            meter.record(ns);
        }
        assert_eq!(
            meter.take(),
            SojournSample {
                dequeued: 3,
                mean_ms: 3.0,
                max_ms: 7.0
            }
        );
        let idle = meter.take();
        assert_eq!(idle.dequeued, 0);
        assert!(idle.mean_ms.is_nan() && idle.max_ms.is_nan());
    }
}
