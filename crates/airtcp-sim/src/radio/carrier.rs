//! Carrier sense and channel access on a shared channel: when each radio's medium is busy
//! (sending, receiving, awaiting or owing a response, energy above the CCA threshold, NAV),
//! freezing and resuming its backoff (`access::Access`), and the one run event per channel
//! for the earliest backoff end (IEEE 802.11-2020 §10.3.2.1, §10.3.4.3).

use super::*;

/// Each radio's pending backoff end (its `Access::scheduled`), side by side, and the
/// earliest of them, which the channel's one `RadioEvent::Accesses` is for. A frame freezes
/// the backoff of every radio that hears it and its end resumes them: each change costs a
/// store, and finding the earliest a scan of the radios once the earliest has moved.
#[derive(Debug)]
pub(super) struct BackoffEnds {
    /// Per radio; `Instant::MAX`: none pending.
    ends: Vec<Instant>,
    /// The earliest (end, radio), or (`Instant::MAX`, _) for none, while `known`.
    earliest: (Instant, u32),
    known: bool,
}

impl BackoffEnds {
    pub(super) fn new(radios: usize) -> Self {
        BackoffEnds {
            ends: vec![Instant::MAX; radios],
            earliest: (Instant::MAX, 0),
            known: true,
        }
    }

    /// Radio `r`'s backoff now ends at `end` (`None`: none is pending).
    fn set(&mut self, r: u32, end: Option<Instant>) {
        let end = end.unwrap_or(Instant::MAX);
        self.ends[r as usize] = end;
        if !self.known {
            return;
        }
        if end != Instant::MAX && (end, r) < self.earliest {
            self.earliest = (end, r);
        } else if self.earliest.1 == r {
            // The earliest moved later or went: another radio's may be earlier now.
            self.known = false;
        }
    }

    /// The earliest pending backoff end and its radio; of equal ends, the lowest radio's.
    pub(super) fn earliest(&mut self) -> Option<(Instant, u32)> {
        if !self.known {
            self.earliest = (Instant::MAX, 0);
            for (r, &end) in self.ends.iter().enumerate() {
                if end < self.earliest.0 {
                    self.earliest = (end, r as u32);
                }
            }
            self.known = true;
        }
        (self.earliest.0 != Instant::MAX).then_some(self.earliest)
    }
}

impl SharedChannel {
    /// A radio's backoff ended: it sends, or its post-backoff is over (with several EDCAFs,
    /// `edca`).
    pub(super) fn access(&mut self, radio: u32, now: Instant, out: &mut RadioActions) {
        let access = &mut self.radios[radio as usize].access;
        access.scheduled = None;
        self.backoff_ends.set(radio, None);
        if self.time_limits {
            // an MSDU past its lifetime or sojourn limit is discarded instead of sent
            self.discard_expired(radio, now);
        }
        let access = &mut self.radios[radio as usize].access;
        if access.edcafs.len() > 1 {
            self.contend(radio, now, out);
            return;
        }
        access.edcafs[0].backoff = None;
        if self.head_interface(radio, 0).is_some() {
            self.radios[radio as usize].access.seize(now, &self.phy);
            self.start_exchange(radio, 0, now, out);
        } else {
            // A post-backoff ran out with nothing to send; the medium stays idle since
            // when it was, unless a signal is on its way.
            self.refresh(radio, now, now);
        }
    }

    /// Arms the run's event for the earliest backoff end, if none is armed as early.
    pub(super) fn arm(&mut self, out: &mut RadioActions) {
        debug_assert!(
            self.backoff_ends_agree(),
            "a backoff end changed unmirrored"
        );
        if let Some((at, _)) = self.backoff_ends.earliest() {
            if self.armed.is_none_or(|armed| at < armed) {
                self.armed = Some(at);
                out.timers.push((at, RadioEvent::Accesses));
            }
        }
    }

    /// Whether `backoff_ends` holds every radio's `Access::scheduled`: whatever changes one
    /// (`Access::freeze`, `stale`) must tell it (`backoff_changed`).
    fn backoff_ends_agree(&self) -> bool {
        let ends = &self.backoff_ends.ends;
        (self.radios.iter().zip(ends))
            .all(|(radio, &end)| radio.access.scheduled.unwrap_or(Instant::MAX) == end)
    }

    /// Radio `r`'s `Access::scheduled` may have changed: the channel's copy follows it.
    pub(super) fn backoff_changed(&mut self, r: u32) {
        let end = self.radios[r as usize].access.scheduled;
        self.backoff_ends.set(r, end);
    }

    /// The interface whose head frame a radio's EDCAF `k` sends next: one that owes a
    /// BlockAckReq (`block_ack_req`), or the earliest queued of those it serves (of the
    /// queue a planning AP's plan serves).
    #[inline]
    pub(super) fn head_interface(&self, radio: u32, k: usize) -> Option<u32> {
        let interfaces = &self.radios[radio as usize].interfaces;
        if let [only] = interfaces[..] {
            // Most radios serve one interface, with one EDCAF.
            let queue = &self.interfaces[only as usize].queues[self.serving(only)];
            return (!queue.is_empty() || self.owes_block_ack_req(only)).then_some(only);
        }
        interfaces
            .iter()
            .copied()
            .filter(|&i| self.edcaf_of(i) == k)
            .filter_map(|i| {
                if self.owes_block_ack_req(i) {
                    return Some((Instant::ZERO, i)); // it goes ahead of data
                }
                let queue = &self.interfaces[i as usize].queues[self.serving(i)];
                Some((queue.front()?.queued_at, i))
            })
            .min()
            .map(|(_, i)| i)
    }

    /// Whether a radio's medium is busy at `at`.
    pub(super) fn is_busy(&self, r: u32, at: Instant) -> bool {
        self.busy(r, at, true, true)
    }

    /// ns-3's view when a frame is queued: its PHY and NAV, not the response it owes.
    pub(super) fn is_busy_ignoring_response(&self, r: u32, at: Instant) -> bool {
        self.busy(r, at, true, false)
    }

    pub(super) fn is_busy_ignoring_nav(&self, r: u32, at: Instant) -> bool {
        self.busy(r, at, false, true)
    }

    /// Whether radio `r`'s medium is busy at `at`: it sends, receives, awaits a response, or
    /// hears energy above its CCA threshold; and, as asked, its NAV runs or it owes a
    /// response.
    #[inline]
    fn busy(&self, r: u32, at: Instant, nav: bool, owed: bool) -> bool {
        let radio = &self.radios[r as usize];
        radio.sending_until.is_some()
            || radio.antenna.lock.is_some()
            || radio.awaiting.is_some()
            || (owed && radio.owed.is_some())
            || (nav && radio.nav_until > at)
            || radio.antenna.energy_mw(at, None) >= self.cca_busy_mw
    }

    /// A radio's situation changed at `now`, sensed at `sensed` (a signal's arrival plus
    /// aCCATime, or `now`): it freezes or resumes its backoff. Inlined, the changes out of
    /// line: most calls find the medium as it was (a frame's signal ending at a radio that
    /// hears others, or reaching one already busy).
    #[inline]
    pub(super) fn refresh(&mut self, r: u32, now: Instant, sensed: Instant) {
        // The NAV holds the medium only until a known time: a radio held by it alone is
        // idle from then on (a signal before then freezes a count that has not started),
        // which spares an event per radio and NAV.
        let busy = self.is_busy_ignoring_nav(r, sensed.max(now));
        let idle = self.radios[r as usize].access.idle_since.is_some();
        if busy && idle {
            self.fall_busy(r, sensed);
        } else if !busy && !idle {
            self.fall_idle(r, now);
        }
    }

    /// Radio `r`'s medium, idle until now, is busy from `sensed`: the backoff freezes.
    #[inline(never)]
    fn fall_busy(&mut self, r: u32, sensed: Instant) {
        let radio = &mut self.radios[r as usize];
        // A backoff that ends before the radio can sense the signal ends in a transmission
        // all the same.
        if radio.access.scheduled.is_some_and(|at| at <= sensed) && radio.sending_until.is_none() {
            return;
        }
        radio.access.freeze(sensed, &self.phy);
        self.backoff_changed(r);
    }

    /// Radio `r`'s medium, busy until now, is idle (or will be once its NAV runs out): its
    /// access is due.
    #[inline(never)]
    fn fall_idle(&mut self, r: u32, now: Instant) {
        let radio = &mut self.radios[r as usize];
        radio.access.idle_since = Some(radio.nav_until.max(now));
        self.schedule_access(r, now);
    }

    pub(super) fn schedule_access(&mut self, r: u32, now: Instant) {
        let has_frame = |k| self.head_interface(r, k).is_some();
        let at = self.radios[r as usize]
            .access
            .access_time(now, has_frame, &self.phy);
        let radio = &mut self.radios[r as usize];
        if let Some(at) = at {
            radio.access.stale();
            radio.access.scheduled = Some(at);
            self.backoff_ends.set(r, Some(at));
        }
    }
}
