//! The time series of the wired links' queues: at each sampling instant, per link direction,
//! the packets and bytes queued and the drops and ECN marks so far (mahimahi's `mm-link
//! --meter` shows the same occupancy), so that a queue's standing backlog under an AQM can be
//! followed through a run; with `simulation.queue_sojourn`, also the packets that left the
//! queue since the last instant and their mean and longest sojourn (`crate::sojourn`).
//! Column-wise, like the flows' series; kept with them.

use serde::Serialize;

use crate::sojourn::SojournSample;

/// One direction at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueSample {
    /// Index into `QueueSeries::directions`.
    pub direction: u32,
    pub time_s: f64,
    pub packets: u32,
    pub bytes: u64,
    /// Tail and AQM drops so far.
    pub drops: u64,
    pub ecn_marks: u64,
    /// With `queue_sojourn`: the packets that left since the last instant.
    pub sojourn: Option<SojournSample>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct QueueSeries {
    /// Per direction: "a→b" by the nodes' names.
    pub directions: Vec<String>,
    pub direction: Vec<u32>,
    pub time_s: Vec<f64>,
    pub packets: Vec<u32>,
    pub bytes: Vec<u64>,
    pub drops: Vec<u64>,
    pub ecn_marks: Vec<u64>,
    /// With `queue_sojourn` (empty without): packets dequeued in the interval, their mean
    /// and longest sojourn in ms (NaN when none left).
    pub dequeued: Vec<u64>,
    pub sojourn_mean_ms: Vec<f64>,
    pub sojourn_max_ms: Vec<f64>,
}

impl QueueSeries {
    pub fn push(&mut self, sample: QueueSample) {
        self.direction.push(sample.direction);
        self.time_s.push(sample.time_s);
        self.packets.push(sample.packets);
        self.bytes.push(sample.bytes);
        self.drops.push(sample.drops);
        self.ecn_marks.push(sample.ecn_marks);
        if let Some(sojourn) = sample.sojourn {
            self.dequeued.push(sojourn.dequeued);
            self.sojourn_mean_ms.push(sojourn.mean_ms);
            self.sojourn_max_ms.push(sojourn.max_ms);
        }
    }

    /// Room for `rows` samples (`TimeSeries::reserve`), with their sojourns if `metered`.
    pub fn reserve(&mut self, rows: usize, metered: bool) {
        if metered {
            self.dequeued.reserve_exact(rows);
            self.sojourn_mean_ms.reserve_exact(rows);
            self.sojourn_max_ms.reserve_exact(rows);
        }
        self.direction.reserve_exact(rows);
        self.time_s.reserve_exact(rows);
        self.packets.reserve_exact(rows);
        self.bytes.reserve_exact(rows);
        self.drops.reserve_exact(rows);
        self.ecn_marks.reserve_exact(rows);
    }

    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}
