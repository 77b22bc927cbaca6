//! EDCA for several access categories on a channel with geometry (IEEE 802.11-2020
//! §10.23.2): where a scenario's flows map to more than one AC, each radio of a WLAN with
//! EDCA contends with four EDCAFs (`access::Edcaf`), each counting its own backoff after its
//! own AIFS in the radio's view of the medium, with its own CW and retry counts; each MAC
//! has an interface per AC (its queue, intermediate queues, A-MPDU in flight and Block Ack
//! agreements per TID), AC_BE's being the MAC's own. The central DCF's rules
//! (`wlan::dcf::edca`), run per radio:
//!
//! - **Classification**: a packet joins its MAC's interface of the AC its DSCP maps to
//!   (`AccessCategory::of_dscp`, as `wlan::dcf::edca` classifies).
//! - **Internal collisions** (§10.23.2.4): when EDCAFs of one radio reach the end of their
//!   backoff in the same slot, the one of the highest AC transmits; each other one counts a
//!   failed attempt of its head frame (its head MPDU in an aggregating WLAN) against the
//!   short retry limit, dropping it there (CW back to CWmin; for a numbered MPDU a
//!   BlockAckReq is owed, `block_ack_req`, or with one owed already that counts the
//!   failure instead), doubling its CW
//!   otherwise, and draws a new backoff, counted once the medium is idle again. Nothing of
//!   it goes on the air (`MacCounters::internal_collisions`).
//! - **Duplicates** are detected per transmitter and TID (§10.3.2.14.3), since frames of
//!   one transmitter's ACs interleave.
//!
//! With one AC in use a radio keeps its one EDCAF (the fast path, unchanged). An EDCAF's
//! TXOP limit (`Edcaf::txop_ns`) makes bursts of single frames (`planning::Txop`) or
//! shortens its A-MPDU (`aggregation`). An agent works on the queue of its AC's interface
//! (`SharedChannel::place_agent`). Not run here (refused when the run is built): a firmware
//! queue, a radio in WLANs of which only some have EDCA.

use super::*;
use crate::wlan::block_ack::{head_mpdu, RetryCounter};

/// Adds the interfaces of ACs BK, VI and VO of every MAC of WLAN `spec`, whose MACs' own
/// interfaces (AC_BE's) start at `first_interface`; each joins its MAC's radio.
pub(super) fn add_ac_interfaces(
    interfaces: &mut Vec<Interface>,
    radios: &mut [Radio],
    first_interface: u32,
    spec: &WlanSpec,
) {
    for mac in 0..spec.nodes.len() as u32 {
        let own = first_interface + mac;
        let (wlan, radio) = {
            let interface = &interfaces[own as usize];
            (interface.wlan, interface.radio)
        };
        let mut by_ac = [own; 4];
        for ac in AccessCategory::ALL {
            if ac == AccessCategory::Be {
                continue;
            }
            let index = interfaces.len() as u32;
            by_ac[ac as usize] = index;
            radios[radio as usize].interfaces.push(index);
            interfaces.push(Interface {
                wlan,
                mac,
                radio,
                queues: [VecDeque::new(), VecDeque::new()],
                held: Vec::new(),
                agent: None,
                planning: None,
                in_flight: InFlight::default(),
                txqs: queueing::txqs_of(spec, mac, ac as u8),
                edcaf: ac as u8,
                by_ac: None,
                meter: None,
                mac_interface: own,
                stats: StationStats::default(),
                sampled: StationStats::default(),
            });
        }
        for &i in &by_ac {
            interfaces[i as usize].by_ac = Some(by_ac);
        }
    }
}

impl SharedChannel {
    /// The interface of MAC interface `i` that queues `packet`: its AC's, with EDCA for
    /// several ACs.
    pub(super) fn ac_interface(&self, i: u32, packet: &Packet) -> u32 {
        match self.interfaces[i as usize].by_ac {
            Some(by_ac) => by_ac[AccessCategory::of_dscp(packet.repr.ip.dscp) as usize],
            None => i,
        }
    }

    /// The EDCAF serving interface `i`.
    pub(super) fn edcaf_of(&self, i: u32) -> usize {
        usize::from(self.interfaces[i as usize].edcaf)
    }

    /// The EDCAF of radio `r`'s exchange under way, if it has one.
    pub(super) fn exchange_edcaf(&self, r: u32) -> Option<usize> {
        let exchange = self.radios[r as usize].exchange?;
        Some(self.edcaf_of(exchange.interface))
    }

    /// Radio `r`, of several EDCAFs, reached the earliest of their access times: of those
    /// due now with a frame, the highest AC's transmits and the others lose an internal
    /// collision; those due without one (a post-backoff) are done.
    pub(super) fn contend(&mut self, r: u32, now: Instant, out: &mut RadioActions) {
        let count = self.radios[r as usize].access.edcafs.len();
        let mut due = [(false, false); 4];
        for (k, slot) in due.iter_mut().enumerate().take(count) {
            let has_frame = self.head_interface(r, k).is_some();
            let access = &self.radios[r as usize].access;
            let at = access.edcaf_time(k, has_frame, &self.phy);
            *slot = (at.is_some_and(|at| at <= now), has_frame);
        }
        let winner = (0..count).rev().find(|&k| due[k] == (true, true));
        let access = &mut self.radios[r as usize].access;
        for (k, _) in due.iter().enumerate().filter(|(_, d)| d.0) {
            access.edcafs[k].backoff = None;
        }
        let Some(winner) = winner else {
            self.refresh(r, now, now);
            if self.radios[r as usize].access.idle_since.is_some() {
                self.schedule_access(r, now);
            }
            return;
        };
        // the others keep the slots they had left
        access.seize(now, &self.phy);
        for (k, _) in due
            .iter()
            .enumerate()
            .filter(|&(k, d)| *d == (true, true) && k != winner)
        {
            self.lose_internal_collision(r, k, now);
            self.radios[r as usize].access.draw(k);
        }
        self.start_exchange(r, winner, now, out);
    }

    /// EDCAF `k` of radio `r` lost an internal collision: its head frame (or MPDU) counts a
    /// failed attempt against the short retry limit and is dropped there; its CW follows.
    fn lose_internal_collision(&mut self, r: u32, k: usize, now: Instant) {
        let i = self.head_interface(r, k).expect("a frame is queued");
        let interface = &mut self.interfaces[i as usize];
        let w = interface.wlan as usize;
        let limit = self.wlans[w].params.short_retry_limit;
        self.wlans[w].counters.internal_collisions += 1;
        if self.owes_block_ack_req(i) {
            // its BlockAckReq was to go first
            self.settle_block_ack_req(r, i, (false, false), now);
            return;
        }
        let interface = &mut self.interfaces[i as usize];
        let edcaf = &mut self.radios[r as usize].access.edcafs[k];
        let frames = &mut interface.queues[ApQueue::Data as usize];
        let at_limit = if self.wlans[w].aggregation.is_some() {
            // the head MPDU's frames (an A-MSDU's, if it went as one) share one count
            let mut members = Vec::new();
            head_mpdu(frames, &mut members);
            let mut at_limit = false;
            for &position in &members {
                let state = &mut frames[position].mpdu;
                at_limit = state.count_failure(RetryCounter::Short, (limit, u32::MAX));
            }
            if at_limit {
                for &position in members[1..].iter().rev() {
                    frames.remove(position);
                }
                self.wlans[w].counters.retry_drops += (members.len() - 1) as u64;
                let head = frames.pop_front().expect("the head");
                if head.mpdu.numbered {
                    self.owe_block_ack_req(i, head.to);
                }
            }
            at_limit
        } else {
            edcaf.short_retries += 1;
            let at_limit = edcaf.short_retries >= limit;
            if at_limit {
                frames.pop_front();
                (edcaf.short_retries, edcaf.long_retries) = (0, 0);
            }
            at_limit
        };
        self.wlans[w].counters.retry_drops += u64::from(at_limit);
        if at_limit {
            self.refill(i, now); // the drop may have emptied its queue (`queueing`)
        }
        let edcaf = &mut self.radios[r as usize].access.edcafs[k];
        if self.dcf_ns3 {
            exchange::ns3_failed_cw(edcaf, limit);
        } else {
            edcaf.after_failure(at_limit);
        }
    }
}

#[cfg(test)]
mod tests;
