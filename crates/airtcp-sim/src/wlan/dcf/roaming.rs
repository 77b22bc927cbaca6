//! Stations that leave and join the BSS: a mobile host's cell (`crate::mobility`). A station
//! that has left (out of range) neither contends nor answers. Frames for it and from it are
//! lost or held, as the mobile's `while_detached` says:
//! - lost: its own queued frames are dropped; the AP, which does not know it has gone, keeps
//!   sending it frames, which go unacknowledged, are retried with a doubled contention
//!   window and dropped at the retry limit (or at the MSDU lifetime): the airtime a departed
//!   station costs the others. Once told (`forget`: the handoff's inform, as IAPP tells an
//!   AP that a station has reassociated elsewhere), the AP drops what it has for it;
//! - held: its queued frames and the AP's frames for it are taken out of the queues and kept
//!   (as an AP buffers for a dozing station), to be sent on through another cell
//!   (`take_held`) or queued again when it joins (`join`).
//!
//! A transmission under way when the station leaves completes (it began while in range);
//! the frames it carried are settled first and what is left is evicted at the busy end.
//! With A-MPDU, the Block Ack agreements between the station and the AP move their
//! recipients' windows past what was evicted (`realign_after_eviction`); held frames go
//! again as new MPDUs.

use std::collections::VecDeque;

use super::{Actions, Bss, Frame, Medium};
use crate::packet::Packet;
use airtcp_proto::Instant;

/// How a station that has left is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Absence {
    pub hold: bool,
    /// The AP knows the station has gone.
    pub known: bool,
}

impl Bss {
    /// Whether MAC `mac` has left.
    pub fn is_absent(&self, mac: u32) -> bool {
        self.absent[mac as usize].is_some()
    }

    /// Station `mac` leaves the BSS at `now` (or, already gone, changes how its frames are
    /// treated).
    pub fn leave(&mut self, now: Instant, mac: u32, hold: bool, actions: &mut Actions) {
        assert_ne!(mac, 0, "the AP does not leave its BSS");
        let known = self.absent[mac as usize].is_some_and(|a| a.known);
        self.absent[mac as usize] = Some(Absence { hold, known });
        for edcaf in self.edcafs_of(mac) {
            if !self.transmitting(edcaf) {
                let station = &mut self.edcafs[edcaf as usize];
                station.expiry = None;
                station.generation += 1;
            }
        }
        self.evict_when_idle(now, mac, actions);
    }

    /// The AP learns that station `mac`, gone, is not coming back soon: it stops sending to
    /// it at `now`. Nothing changes if the station is back already.
    pub fn forget(&mut self, now: Instant, mac: u32, actions: &mut Actions) {
        if let Some(absence) = &mut self.absent[mac as usize] {
            absence.known = true;
            self.evict_when_idle(now, mac, actions);
        }
    }

    fn evict_when_idle(&mut self, now: Instant, mac: u32, actions: &mut Actions) {
        match self.medium {
            Medium::Idle { .. } => self.evict(now, mac, actions),
            Medium::Busy { .. } => self.evict_at_busy_end.push(mac),
        }
    }

    /// Station `mac` is back in range: its held frames and the AP's held frames for it are
    /// queued again, and it contends for what it has.
    pub fn join(&mut self, now: Instant, mac: u32, actions: &mut Actions) {
        self.absent[mac as usize] = None;
        for (sender, frame) in self.take_held_frames(mac) {
            self.enqueue(now, sender, frame.packet, frame.to, actions);
        }
    }

    /// The frames held for or from station `mac`, each with the node that sends it on.
    pub fn take_held(&mut self, mac: u32) -> Vec<(usize, Packet)> {
        self.take_held_frames(mac)
            .into_iter()
            .map(|(sender, frame)| (self.macs[sender as usize].node, frame.packet))
            .collect()
    }

    /// Takes out of `held` station `mac`'s frames and the AP's for it, with their senders.
    fn take_held_frames(&mut self, mac: u32) -> Vec<(u32, Frame)> {
        let (taken, kept) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|&(sender, frame)| sender == mac || (sender == 0 && frame.to == mac));
        self.held = kept;
        taken
    }

    /// Whether a frame `sender` queues for `to` is to be held or dropped instead: `Some(true)`
    /// held, `Some(false)` dropped, `None` queued (the AP's frames for a station it does not
    /// know has gone are queued, and fail on the air).
    pub(super) fn diverted(&self, sender: u32, to: u32) -> Option<bool> {
        if let Some(absence) = self.absent[sender as usize] {
            return Some(absence.hold);
        }
        match self.absent[to as usize] {
            Some(Absence { hold, known }) if sender == 0 && (hold || known) => Some(hold),
            _ => None,
        }
    }

    /// Keeps or drops a frame that `diverted` turned away.
    pub(super) fn divert(&mut self, sender: u32, frame: Frame, hold: bool) {
        if hold {
            self.held.push((sender, frame));
        } else {
            self.counters.absent_drops += 1;
        }
    }

    /// The evictions a busy period postponed, at its end `now`.
    pub(super) fn evict_postponed(&mut self, now: Instant, actions: &mut Actions) {
        for mac in std::mem::take(&mut self.evict_at_busy_end) {
            if self.is_absent(mac) {
                self.evict(now, mac, actions);
            }
        }
    }

    /// Takes a departed station's frames out of the queues: its own, and the AP's for it if
    /// they are held or the AP knows it has gone.
    fn evict(&mut self, now: Instant, mac: u32, actions: &mut Actions) {
        let Some(Absence { hold, known }) = self.absent[mac as usize] else {
            return;
        };
        for edcaf in self.edcafs_of(mac) {
            let own: Vec<Frame> = self.edcafs[edcaf as usize]
                .queues
                .iter_mut()
                .flat_map(std::mem::take)
                .collect();
            if !own.is_empty() {
                self.holding -= 1;
                self.reset_retries(edcaf);
            }
            for frame in own {
                self.divert(mac, frame, hold);
            }
        }
        if !(hold || known) {
            self.realign_after_eviction(now, mac, actions);
            return;
        }
        for edcaf in self.edcafs_of(0) {
            let ap = &mut self.edcafs[edcaf as usize];
            let had_frames = ap.queues.iter().any(|q| !q.is_empty());
            let head_for_mac = ap
                .queues
                .iter()
                .any(|q| q.front().is_some_and(|f| f.to == mac));
            let mut for_mac = Vec::new();
            for queue in &mut ap.queues {
                let (leaving, staying): (VecDeque<Frame>, VecDeque<Frame>) =
                    std::mem::take(queue).into_iter().partition(|f| f.to == mac);
                *queue = staying;
                for_mac.extend(leaving);
            }
            if had_frames && ap.queues.iter().all(VecDeque::is_empty) {
                self.holding -= 1;
            }
            if head_for_mac {
                // The retries belonged to a frame that is no longer at the head.
                self.reset_retries(edcaf);
            }
            for frame in for_mac {
                self.divert(0, frame, hold);
            }
        }
        self.realign_after_eviction(now, mac, actions);
    }
}
