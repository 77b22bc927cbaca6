//! EDCA in the central DCF (IEEE 802.11-2020 §10.23.2): each MAC of a QoS BSS contends
//! with four EDCAFs, one per access category, each with its own queue, AIFSN, contention
//! window, retry counts and TXOP limit (`airtcp_proto::wifi::edca` has the parameters and
//! the classification of packets by DSCP).
//!
//! - **AIFS**: an EDCAF counts its backoff down only in idle slots at least AIFS[AC] =
//!   aSIFSTime + AIFSN·aSlotTime after the medium fell idle (§10.23.2.4), so one of AIFSN 3
//!   starts counting a slot after one of AIFSN 2 (the DCF's DIFS), and after every busy
//!   period falls one slot further behind. The DCF's single count of idle slots serves them
//!   all: EDCAFs of one AIFSN form a class with a heap of expiries in its own count, which
//!   lags the common one by the slots the class has not counted (`Classes`); a busy period
//!   adds AIFSN minus the least AIFSN of the BSS to each class's lag, fewer when the idle
//!   time before it was shorter. The common count's reference is the least AIFSN (an AP's 1
//!   for VI and VO resumes a slot before DIFS). A frame's cost grows with the number of
//!   classes (at most four), not with the stations.
//! - **Internal collisions** (§10.23.2.4): when EDCAFs of one MAC reach zero in the same
//!   slot, the one of the highest AC transmits; each other one counts a failed attempt of
//!   its head frame against the short retry limit and doubles its CW (back to CWmin at the
//!   limit, the frame dropped), then draws a new backoff, counted from when its MAC's
//!   winner resumes. Nothing of it goes on the air.
//! - **TXOP limits** (§10.23.2.9): an EDCAF with a limit above 0 sends further frames SIFS
//!   apart while the whole exchange fits in it (as an AP's TXOP agent does); with A-MPDU,
//!   the one A-MPDU it sends is shortened to fit (`ampdu`). More than one A-MPDU in a TXOP
//!   is not modelled.
//! - **Parameters**: the stations' from `EdcaSet::station`, the AP's own from
//!   `EdcaSet::ap` (by default the standard's two tables; ns-3 gives its AP the stations').
//!
//! Not modelled here: admission control (ACM), more than one TID per AC, EDCA on a channel
//! with geometry (`radio`), and roaming mobiles in a QoS BSS.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use airtcp_proto::wifi::edca::AccessCategory;

use airtcp_proto::Instant;

use super::{Actions, Bss, Edcaf, Medium, SlotCount};
use crate::config::EdcaSet;

/// A class of EDCAFs of one AIFSN: their expiries, each in the class's own count of idle
/// slots, which is the common count less `lag`.
#[derive(Debug)]
pub(super) struct Class {
    /// AIFSN less the BSS's least: the slots it starts counting after the reference.
    extra: SlotCount,
    lag: SlotCount,
    heap: BinaryHeap<Reverse<(SlotCount, u32, u64)>>,
}

/// The backoff classes of a BSS: one (AIFSN 2, no lag) for the DCF.
#[derive(Debug)]
pub(super) struct Classes {
    classes: Vec<Class>,
    /// The least AIFSN: the common count resumes AIFS of it after a busy period.
    reference_aifsn: u8,
}

impl Classes {
    /// The classes of the AIFSNs given (one per distinct value), and each AIFSN's class.
    pub(super) fn new(aifsns: &[u8]) -> (Classes, impl Fn(u8) -> usize) {
        let mut distinct: Vec<u8> = aifsns.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let reference_aifsn = distinct[0];
        let classes = distinct
            .iter()
            .map(|&aifsn| Class {
                extra: SlotCount::from(aifsn - reference_aifsn),
                lag: 0,
                heap: BinaryHeap::new(),
            })
            .collect();
        let class_of = move |aifsn: u8| {
            distinct
                .iter()
                .position(|&a| a == aifsn)
                .expect("an AIFSN of the set")
        };
        (
            Classes {
                classes,
                reference_aifsn,
            },
            class_of,
        )
    }

    /// The DCF's one class.
    pub(super) fn dcf() -> Classes {
        Classes::new(&[2]).0
    }

    /// How much later than DIFS the common count resumes, in slots (negative: earlier).
    pub(super) fn reference_offset_slots(&self) -> i64 {
        i64::from(self.reference_aifsn) - 2
    }

    /// The most slots a class starts counting after the common count's resumption.
    pub(super) fn max_extra(&self) -> SlotCount {
        self.classes.iter().map(|c| c.extra).max().unwrap_or(0)
    }

    /// The slots after the common count's resumption at which `class` starts counting.
    pub(super) fn extra(&self, class: usize) -> SlotCount {
        self.classes[class].extra
    }

    /// A common-count slot in `class`'s count.
    pub(super) fn to_class(&self, class: usize, slot: SlotCount) -> SlotCount {
        slot - self.classes[class].lag
    }

    pub(super) fn push(&mut self, class: usize, expiry: SlotCount, edcaf: u32, generation: u64) {
        self.classes[class]
            .heap
            .push(Reverse((expiry, edcaf, generation)));
    }

    /// The earliest live expiry in the common count, dropping stale entries (`live` tells).
    pub(super) fn earliest(
        &mut self,
        live: impl Fn(SlotCount, u32, u64) -> bool,
    ) -> Option<SlotCount> {
        let mut earliest = None;
        for class in &mut self.classes {
            while let Some(&Reverse((expiry, edcaf, generation))) = class.heap.peek() {
                if live(expiry, edcaf, generation) {
                    let common = expiry + class.lag;
                    earliest = Some(earliest.map_or(common, |e: SlotCount| e.min(common)));
                    break;
                }
                class.heap.pop();
            }
        }
        earliest
    }

    /// Takes out an EDCAF whose live expiry is at or before common slot `current`, if one is.
    pub(super) fn pop_due(
        &mut self,
        current: SlotCount,
        live: impl Fn(SlotCount, u32, u64) -> bool,
    ) -> Option<u32> {
        for class in &mut self.classes {
            while let Some(&Reverse((expiry, edcaf, generation))) = class.heap.peek() {
                if !live(expiry, edcaf, generation) {
                    class.heap.pop();
                    continue;
                }
                if expiry + class.lag > current {
                    break;
                }
                class.heap.pop();
                return Some(edcaf);
            }
        }
        None
    }

    /// A busy period starts at common slot `slot` after an idle period in which the EDCAFs
    /// that had not sent could count from `others_from`: each class's lag grows by
    /// `uncounted(slot - others_from, extra)`.
    pub(super) fn on_busy_start(&mut self, slot: SlotCount, others_from: SlotCount) {
        for class in &mut self.classes {
            class.lag += uncounted(slot - others_from, class.extra);
        }
    }
}

/// An EDCAF whose backoff, drawn at the end of a busy period, counts from its group's start
/// `start` (a failure's senders resume at their own time: `Bss::on_busy_end`) rather than
/// the others' (`others_from`), while its generation is `generation`.
#[derive(Clone, Copy, Debug)]
pub(super) struct EarlyStart {
    edcaf: u32,
    generation: u64,
    start: SlotCount,
}

/// How much later than now an EDCAF whose group joined the common count `elapsed` slots
/// before a busy period (negative: it had not joined yet), counting `extra` slots after
/// joining, will transmit, relative to its expiry in the common count: it counted
/// `max(0, elapsed - extra)` of the `elapsed` slots, and after the busy period it counts
/// from the next period's start plus `extra` again. So `min(elapsed, extra)`, negative when
/// the busy period began before its group joined: it keeps the slots it had left. (The
/// DCF's one count, without EDCA, keeps the absolute expiries instead: there such an
/// EDCAF waits `-elapsed` slots more, as it always has.)
fn uncounted(elapsed: SlotCount, extra: SlotCount) -> SlotCount {
    elapsed.min(extra)
}

impl Bss {
    /// `edcaf` just drew a backoff counted from `start` in an idle period whose others count
    /// from `others_from`: its class's lag will not fit it if the two differ
    /// (`correct_early_starters`).
    pub(super) fn note_start(&mut self, edcaf: u32, start: SlotCount, others_from: SlotCount) {
        if !self.edca || start == others_from {
            return;
        }
        let generation = self.edcafs[edcaf as usize].generation;
        self.early_starters.push(EarlyStart {
            edcaf,
            generation,
            start,
        });
    }

    /// A busy period starts at `slot`: the class lags grow by what each class's EDCAFs that
    /// count from `others_from` did not count (`uncounted`, `Classes::on_busy_start`); an
    /// EDCAF whose group started at `start` instead has its expiry moved by the difference.
    pub(super) fn correct_early_starters(&mut self, slot: SlotCount, others_from: SlotCount) {
        for EarlyStart {
            edcaf,
            generation,
            start,
        } in std::mem::take(&mut self.early_starters)
        {
            let station = &self.edcafs[edcaf as usize];
            let Some(expiry) = station.expiry.filter(|_| station.generation == generation) else {
                continue;
            };
            let extra = self.classes.extra(station.class);
            let shift = uncounted(slot - start, extra) - uncounted(slot - others_from, extra);
            if shift != 0 {
                let zero_backoff = station.zero_backoff;
                self.set_expiry(edcaf, expiry + shift, zero_backoff);
            }
        }
    }

    /// Contends with four EDCAFs per MAC with the parameters of `set` (before any traffic).
    pub fn use_edca(&mut self, set: &EdcaSet) {
        let aifsns: Vec<u8> = set.station.iter().chain(&set.ap).map(|p| p.aifsn).collect();
        let (classes, class_of) = Classes::new(&aifsns);
        self.classes = classes;
        self.edcafs = (0..self.macs.len() as u32)
            .flat_map(|mac| {
                let params = if mac == 0 { set.ap } else { set.station };
                AccessCategory::ALL
                    .into_iter()
                    .zip(params)
                    .map(move |(ac, p)| (mac, ac, p))
            })
            .map(|(mac, ac, p)| Edcaf {
                ac,
                class: class_of(p.aifsn),
                cw_min: p.cw_min,
                cw_max: p.cw_max,
                txop_ns: (p.txop_limit_ns > 0).then_some(p.txop_limit_ns),
                cw: p.cw_min,
                ..Edcaf::dcf(mac, &self.phy)
            })
            .collect();
        self.counters.contenders = vec![0; self.edcafs.len() + 1];
        // the medium has been idle long enough for every AC at the start
        self.medium = Medium::Idle {
            origin: Instant::ZERO,
            base: 0,
            others_from: -self.classes.max_extra(),
        };
        self.edca = true;
    }

    /// The EDCAF of `mac` for a frame carrying `packet`: its DSCP's AC (the DCF without EDCA).
    pub(super) fn edcaf_for(&self, mac: u32, packet: &crate::packet::Packet) -> u32 {
        if !self.edca {
            return mac;
        }
        self.edcaf_of(mac, AccessCategory::of_dscp(packet.repr.ip.dscp))
    }

    /// The EDCAF of `mac` for `ac` (its DCF without EDCA).
    pub(super) fn edcaf_of(&self, mac: u32, ac: AccessCategory) -> u32 {
        if self.edca {
            edcaf_index(mac, ac)
        } else {
            mac
        }
    }

    /// The EDCAFs of `mac`.
    pub(super) fn edcafs_of(&self, mac: u32) -> std::ops::Range<u32> {
        if self.edca {
            edcaf_index(mac, AccessCategory::Bk)..edcaf_index(mac + 1, AccessCategory::Bk)
        } else {
            mac..mac + 1
        }
    }

    /// `edcaf` lost an internal collision: its head frame counts a failed attempt against
    /// the short retry limit and is dropped there (CW back to CWmin), otherwise CW doubles.
    pub(super) fn settle_internal_collision(
        &mut self,
        now: Instant,
        edcaf: u32,
        actions: &mut Actions,
    ) {
        let (queue, _) = self.selection(edcaf);
        let limit = self.params.short_retry_limit;
        if self.owes_block_ack_req(edcaf) {
            // its BlockAckReq was to go first
            let given_up = self.count_block_ack_req_failure(now, edcaf, actions);
            self.edcafs[edcaf as usize].after_failure(given_up);
            return;
        }
        let at_limit = if self.edcafs[edcaf as usize].queues[queue].is_empty() {
            return; // the head left meanwhile (its lifetime, a departed receiver)
        } else if self.ampdu.is_some() {
            self.internal_collision_of_mpdu(edcaf, queue, limit)
        } else {
            let station = &mut self.edcafs[edcaf as usize];
            station.short_retries += 1;
            let at_limit = station.short_retries >= limit;
            if at_limit {
                self.pop_head(edcaf, queue);
            }
            at_limit
        };
        if at_limit {
            self.counters.retry_drops += 1;
        }
        self.edcafs[edcaf as usize].after_failure(at_limit);
    }

    /// Sorts out internal collisions among the EDCAFs due in one slot (`due`): of each MAC's,
    /// the highest AC's stays; the others are returned (§10.23.2.4).
    pub(super) fn internal_losers(&self, due: &mut Vec<u32>) -> Vec<u32> {
        let mut losers = Vec::new();
        if !self.edca || due.len() < 2 {
            return losers;
        }
        due.sort_unstable();
        // EDCAFs of one MAC are adjacent, ordered by AC: the last of each run wins
        let mut kept = Vec::with_capacity(due.len());
        for (i, &edcaf) in due.iter().enumerate() {
            let next_same_mac = due.get(i + 1).is_some_and(|&next| {
                self.edcafs[next as usize].mac == self.edcafs[edcaf as usize].mac
            });
            if next_same_mac {
                losers.push(edcaf);
            } else {
                kept.push(edcaf);
            }
        }
        *due = kept;
        losers
    }
}

/// The index in `Bss::edcafs` of `mac`'s EDCAF for `ac` in a BSS with EDCA.
fn edcaf_index(mac: u32, ac: AccessCategory) -> u32 {
    4 * mac + ac as u32
}
