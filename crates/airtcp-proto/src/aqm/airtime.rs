//! The station scheduler of Linux's mac80211 (net/mac80211/tx.c, `ieee80211_next_txq` and
//! `__ieee80211_schedule_txq`, kernels 5.0-5.13), with or without airtime fairness: the
//! deficit round robin on airtime of Høiland-Jørgensen et al., "Ending the Anomaly"
//! (USENIX ATC 2017), Algorithm 2.
//!
//! Backlogged stations wait in a list. Without airtime fairness the list is plain round
//! robin: the head is served (one aggregate) and goes to the tail. With it, each station has
//! an airtime deficit, charged with the airtime of what it sent and received
//! (`ieee80211_sta_register_airtime`); the scheduler passes over a head whose deficit is
//! negative, adding a quantum (`airtime_weight`, 256 µs) and moving it to the tail, and
//! serves the first head whose deficit is not negative, which stays at the head until it
//! is. A station that becomes backlogged joins at the head, so that it moves back only once
//! its deficit is spent. Deficits start at one quantum (`sta_info_alloc`) and persist while
//! a station is idle, as in Linux.
//!
//! With airtime queue limits (`super::aql`), a station that may not be scheduled is passed
//! over as one with a negative deficit is (`next_station_where`).
//!
//! Not modelled: the per-round guard (`schedule_round`), the virtual-time scheduler of
//! kernels 5.14-5.19 and the pending AQL airtime later kernels count in the deficit;
//! airtime weights other than the default.

use std::collections::VecDeque;

/// mac80211's default airtime weight, the quantum a deficit is refilled by (256 µs,
/// `IEEE80211_DEFAULT_AIRTIME_WEIGHT`).
pub const AIRTIME_QUANTUM_NS: i64 = 256_000;

/// A scheduler of stations (by index) for one access category.
#[derive(Clone, Debug)]
pub struct StationScheduler {
    airtime_fair: bool,
    active: VecDeque<u32>,
    listed: Vec<bool>,
    /// Airtime deficit per station, in ns.
    deficit: Vec<i64>,
}

impl StationScheduler {
    pub fn new(stations: usize, airtime_fair: bool) -> Self {
        StationScheduler {
            airtime_fair,
            active: VecDeque::new(),
            listed: vec![false; stations],
            deficit: vec![AIRTIME_QUANTUM_NS; stations],
        }
    }

    /// A station has frames to send: it joins the list if it was not on it.
    pub fn activate(&mut self, station: u32) {
        let listed = &mut self.listed[station as usize];
        if *listed {
            return;
        }
        *listed = true;
        if self.airtime_fair {
            self.active.push_front(station);
        } else {
            self.active.push_back(station);
        }
    }

    /// The station to serve next, if any is backlogged.
    pub fn next_station(&mut self) -> Option<u32> {
        self.next_station_where(|_| true)
    }

    /// The station to serve next among those `eligible` lets be scheduled (airtime queue
    /// limits, `super::aql`; Linux 5.5-5.13's `ieee80211_next_txq`): a head it refuses goes
    /// to the tail, as one whose deficit is negative does (after its quantum); none once a
    /// whole pass of the list found no station eligible.
    pub fn next_station_where(&mut self, mut eligible: impl FnMut(u32) -> bool) -> Option<u32> {
        let mut pass_head = None;
        let mut found_eligible = false;
        loop {
            let &head = self.active.front()?;
            match pass_head {
                None => pass_head = Some(head),
                Some(start) if start == head => {
                    if !found_eligible {
                        return None;
                    }
                    found_eligible = false;
                }
                Some(_) => {}
            }
            let may = eligible(head);
            found_eligible |= may;
            let deficit = &mut self.deficit[head as usize];
            let spent = self.airtime_fair && *deficit < 0;
            if spent {
                *deficit += AIRTIME_QUANTUM_NS;
            }
            if spent || !may {
                self.active.rotate_left(1);
                continue;
            }
            return Some(head);
        }
    }

    /// `station`, returned by `next_station`, was served; it still has frames (`backlogged`) or not.
    pub fn served(&mut self, station: u32, backlogged: bool) {
        if self.active.front() != Some(&station) {
            return;
        }
        if !backlogged {
            self.active.pop_front();
            self.listed[station as usize] = false;
        } else if !self.airtime_fair {
            self.active.rotate_left(1);
        }
    }

    /// Charges `airtime_ns` the station used, sending or receiving.
    pub fn charge(&mut self, station: u32, airtime_ns: u64) {
        if self.airtime_fair {
            self.deficit[station as usize] -= airtime_ns as i64;
        }
    }

    /// A station's airtime deficit in ns.
    pub fn deficit(&self, station: u32) -> i64 {
        self.deficit[station as usize]
    }
}

#[cfg(test)]
mod tests;
