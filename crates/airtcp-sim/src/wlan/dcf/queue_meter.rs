//! What the queues of one channel access function did, for the queue series and the run
//! summary (`crate::queue_series`), with `simulation.queue_sojourn` only: a MAC's queues
//! for one AC with EDCA, for the MAC without; on the central DCF an EDCAF's, on a channel
//! with geometry an interface's.
//!
//! - **Drops and marks**: the frames its queues dropped (over the WLAN's `queue`, by
//!   mac80211's CoDel, by a qdisc's AQM) and marked CE instead; the MAC's own losses (the
//!   retry limit, the MSDU lifetime, `queue_max_delay`) are the WLAN's counters, not these.
//! - **Sojourn** (`simulation.queue_sojourn`): from a frame's arrival at the MAC to the start
//!   of its first transmission attempt, the wait a wired link's queue counts up to its
//!   serialisation: the qdisc's or mac80211's queues, the driver's FIFO, and at its head the
//!   channel access (deferral and backoff). Retries are the MAC's service, not its queue's,
//!   so they are not counted; frames that never go on the air (dropped on arrival or by an
//!   AQM, discarded past `queue_max_delay` before an attempt, removed by an agent) are not
//!   counted either. A frame held while its station roamed is queued anew on its return
//!   (`roaming`): counted from then, and a second time if it had been attempted.

use airtcp_proto::wifi::edca::AccessCategory;
use airtcp_proto::Instant;

use super::txq::Dropped;
use super::Frame;
use crate::sojourn::{SojournSample, Sojourns};

/// A queue's meter, kept only with `queue_sojourn` (`None` otherwise, where it is held:
/// the fast path neither counts nor notes anything for it).
#[derive(Clone, Debug, Default)]
pub(crate) struct QueueMeter {
    /// Frames dropped by the queues (module doc).
    pub drops: u64,
    /// Frames marked CE instead of dropped.
    pub ecn_marks: u64,
    pub sojourns: Sojourns,
}

impl QueueMeter {
    /// What an intermediate queue dropped or marked.
    pub fn count(&mut self, dropped: Dropped) {
        self.drops += dropped.tail + dropped.codel + dropped.aqm;
        self.ecn_marks += dropped.marks;
    }

    /// The interval's sojourns, and a fresh start for the next.
    pub fn take_sojourn(&mut self) -> SojournSample {
        self.sojourns.take_interval()
    }
}

/// Queue `index`'s meter among `meters` (an EDCAF's among a BSS's), if they are metered.
/// Free of its owner, so that it borrows the meters alone beside the queues.
pub(crate) fn meter_of(
    meters: &mut Option<Box<[QueueMeter]>>,
    index: u32,
) -> Option<&mut QueueMeter> {
    Some(&mut meters.as_mut()?[index as usize])
}

/// `frame` begins a transmission attempt at `at`: its first starts its MSDU lifetime and,
/// where its queue is metered, ends its sojourn.
#[inline]
pub(crate) fn note_attempt(meter: Option<&mut QueueMeter>, at: Instant, frame: &mut Frame) {
    if frame.note_attempt(at) {
        if let Some(meter) = meter {
            meter
                .sojourns
                .record((at - frame.queued_at).as_nanos() as u64);
        }
    }
}

/// Which queue of which MAC: WLAN `bss`'s MAC `mac` (0: the AP), and its AC's with EDCA for
/// several ACs (`None`: the MAC's one queue).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacQueueId {
    pub bss: u32,
    pub mac: u32,
    pub ac: Option<AccessCategory>,
}

/// One metered queue of a MAC at a sampling instant (`wlan::Bss::sample_queues`, and on a
/// channel with geometry `radio::SharedChannel::sample_queues`): what it holds (in its
/// qdisc or mac80211's queues and the driver's FIFO), its drops and marks so far, and the
/// sojourns since the last sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MacQueueSample {
    pub id: MacQueueId,
    pub packets: u32,
    /// IP bytes, as a wired link's queue counts them.
    pub bytes: u64,
    pub drops: u64,
    pub ecn_marks: u64,
    pub sojourn: SojournSample,
}

/// The IP bytes of `frames`.
pub(crate) fn frames_ip_bytes<'a>(frames: impl Iterator<Item = &'a Frame>) -> u64 {
    frames.map(|frame| u64::from(frame.packet.len())).sum()
}
