//! Sojourn times of a queue's packets (`simulation.queue_sojourn`): from a packet's arrival in
//! the queue to its dequeue, when the link starts to serialise it (CoDel's measure, RFC 8289
//! §2-3; the queueing delay `mm-link --meter-uplink-delay` draws), gathered per
//! sampling interval (the queue series) and over the measurement window (the run summary):
//! how many packets the link took from the queue to send, their mean sojourn and the
//! longest. Packets that leave otherwise (an AQM's head drops, a link going down, an agent's
//! removal) are not counted. A WLAN MAC's queues keep the same, from a frame's arrival at
//! the MAC to its first transmission attempt (`wlan::dcf::queue_meter`).

use serde::Serialize;

use crate::durations::Durations;

/// A metered queue's sojourns: since the last sample, and since the measurement began.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sojourns {
    pub interval: Durations,
    pub window: Durations,
}

impl Sojourns {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.interval.add(ns);
        self.window.add(ns);
    }

    /// The interval's sojourns, and a fresh start for the next.
    pub fn take_interval(&mut self) -> SojournSample {
        SojournSample::of(&std::mem::take(&mut self.interval))
    }

    /// The sojourns since the measurement window began.
    pub fn window_sample(&self) -> SojournSample {
        SojournSample::of(&self.window)
    }

    /// The measurement window begins: sojourns count from now.
    pub fn start_window(&mut self) {
        self.window = Durations::default();
    }
}

/// Sojourns over an interval or the window; the times are NaN (null in JSON) when no packet
/// left the queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SojournSample {
    pub dequeued: u64,
    pub mean_ms: f64,
    pub max_ms: f64,
}

impl SojournSample {
    pub fn of(sojourns: &Durations) -> SojournSample {
        SojournSample {
            dequeued: sojourns.count(),
            mean_ms: sojourns.mean_ms(),
            max_ms: sojourns.max_ms(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_gives_count_mean_and_longest_then_starts_afresh() {
        let mut sojourns = Sojourns::default();
        for ns in [0, 2_000_000, 7_000_000] {
            sojourns.record(ns);
        }
        let sample = SojournSample {
            dequeued: 3,
            mean_ms: 3.0,
            max_ms: 7.0,
        };
        assert_eq!(sojourns.take_interval(), sample);
        let idle = sojourns.take_interval();
        assert_eq!(idle.dequeued, 0);
        assert!(idle.mean_ms.is_nan() && idle.max_ms.is_nan());
        assert_eq!(
            SojournSample::of(&sojourns.window),
            sample,
            "the window keeps them"
        );
    }
}
