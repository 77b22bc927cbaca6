//! CoDel, the Controlled Delay AQM (RFC 8289), as Linux runs it (include/net/codel_impl.h:
//! `codel_dequeue`, `codel_should_drop`, `codel_Newton_step`, `codel_control_law`), for one
//! queue: FQ-CoDel keeps one per flow (`fq`).
//!
//! At each dequeue the head's sojourn time is compared with `target`. Once it has stayed at
//! or above target for `interval` (and the queue holds more than an MTU), CoDel enters the
//! dropping state: it drops the head and schedules the next drop `interval / sqrt(count)`
//! later, `count` growing with each drop, until a head's sojourn falls below target. On
//! re-entering the dropping state soon after leaving it (within 16 intervals of the last
//! scheduled drop), `count` resumes from what the last cycle added (`count - lastcount`),
//! as Linux does (RFC 8289 §5.5 gives a variant of the same idea).
//!
//! Like Linux, 1/sqrt(count) is kept as a 16-bit fixed-point value refined by one Newton
//! step per drop, and the next drop time is `interval * rec_inv_sqrt / 2^32`. Unlike Linux,
//! times are kept in nanoseconds rather than Linux's 1.024 µs units (`CODEL_SHIFT`), so
//! drop times may differ from Linux's by under 1 µs. ECN marking is not done here: packets
//! are dropped (the simulator's TCP does not negotiate ECN).

use crate::Instant;

/// CoDel's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodelParams {
    /// The acceptable standing sojourn time.
    pub target_ns: u64,
    /// The time the sojourn must stay above target before dropping starts, and the base of
    /// the drop schedule.
    pub interval_ns: u64,
    /// A queue holding no more than this many bytes is not dropped from (Linux's
    /// `params->mtu`; mac80211 leaves it 0, sch_fq_codel uses the device's MTU).
    pub mtu_bytes: u32,
    /// Mark an ECN-capable packet CE instead of dropping it (`params->ecn`: off in
    /// sch_codel, on in sch_fq_codel and mac80211).
    pub ecn: bool,
}

impl CodelParams {
    /// RFC 8289's defaults: target 5 ms, interval 100 ms, with a 1500-byte MTU.
    pub const RFC: CodelParams = CodelParams {
        target_ns: 5_000_000,
        interval_ns: 100_000_000,
        mtu_bytes: 1500,
        ecn: false,
    };
}

/// What CoDel needs of the queue it manages.
pub trait CodelQueue {
    type Item;
    /// Takes the head, if any.
    fn dequeue(&mut self) -> Option<Self::Item>;
    /// When an item entered the queue.
    fn enqueued_at(item: &Self::Item) -> Instant;
    /// Bytes still queued (after the dequeue of the item examined).
    fn backlog_bytes(&self) -> u64;
    /// Marks the item CE if it is ECN-capable (`INET_ECN_set_ce`); false if it is not.
    fn mark_ce(item: &mut Self::Item) -> bool;
}

/// Bits of the fixed-point 1/sqrt(count) (Linux's `REC_INV_SQRT_BITS`).
const REC_INV_SQRT_BITS: u32 = 16;
const REC_INV_SQRT_SHIFT: u32 = 32 - REC_INV_SQRT_BITS;

/// One queue's CoDel state (Linux's `struct codel_vars`).
#[derive(Clone, Debug, Default)]
pub struct Codel {
    /// Drops since entering the dropping state (and the value it resumes from).
    count: u32,
    lastcount: u32,
    dropping: bool,
    /// 1/sqrt(count) in Q0.16.
    rec_inv_sqrt: u16,
    /// When the sojourn, above target since, may first cause a drop; `None` while below.
    first_above: Option<u64>,
    /// When the next drop is due, in the dropping state.
    drop_next: u64,
    /// Packets marked CE instead of dropped, not yet collected (`take_marks`).
    marks: u32,
}

impl Codel {
    /// Dequeues the next item to send at `now`, dropping heads as the control law says;
    /// each dropped item goes to `dropped`.
    pub fn dequeue<Q: CodelQueue>(
        &mut self,
        now: Instant,
        params: &CodelParams,
        queue: &mut Q,
        dropped: &mut impl FnMut(Q::Item),
    ) -> Option<Q::Item> {
        let now = now.as_nanos();
        let Some(mut item) = queue.dequeue() else {
            self.dropping = false;
            return None;
        };
        let drop = self.should_drop(Some(&item), queue, params, now);
        if self.dropping {
            if !drop {
                self.dropping = false;
            } else if now >= self.drop_next {
                while self.dropping && now >= self.drop_next {
                    self.count = self.count.wrapping_add(1);
                    self.newton_step();
                    if params.ecn && Q::mark_ce(&mut item) {
                        // Marked, not dropped: it goes; the next mark is scheduled.
                        self.marks += 1;
                        self.drop_next =
                            control_law(self.drop_next, params.interval_ns, self.rec_inv_sqrt);
                        return Some(item);
                    }
                    dropped(item);
                    match queue.dequeue() {
                        Some(next) => item = next,
                        None => {
                            self.should_drop(None, queue, params, now);
                            self.dropping = false;
                            return None;
                        }
                    }
                    if self.should_drop(Some(&item), queue, params, now) {
                        self.drop_next =
                            control_law(self.drop_next, params.interval_ns, self.rec_inv_sqrt);
                    } else {
                        self.dropping = false;
                    }
                }
            }
        } else if drop {
            let next = if params.ecn && Q::mark_ce(&mut item) {
                self.marks += 1;
                Some(item)
            } else {
                dropped(item);
                let next = queue.dequeue();
                // For its bookkeeping of the new head only: the dropping state begins
                // regardless.
                self.should_drop(next.as_ref(), queue, params, now);
                next
            };
            self.dropping = true;
            // If the sojourn went above target soon after the last cycle ended, resume at
            // the drop rate that controlled the queue then.
            let delta = self.count.wrapping_sub(self.lastcount);
            let since_scheduled = now as i64 - self.drop_next as i64;
            if delta > 1 && since_scheduled < (16 * params.interval_ns) as i64 {
                self.count = delta;
                self.newton_step();
            } else {
                self.count = 1;
                self.rec_inv_sqrt = u16::MAX;
            }
            self.lastcount = self.count;
            self.drop_next = control_law(now, params.interval_ns, self.rec_inv_sqrt);
            return next;
        }
        Some(item)
    }

    /// Whether the sojourn of `item` allows a drop (`codel_should_drop`).
    fn should_drop<Q: CodelQueue>(
        &mut self,
        item: Option<&Q::Item>,
        queue: &Q,
        params: &CodelParams,
        now: u64,
    ) -> bool {
        let Some(item) = item else {
            self.first_above = None;
            return false;
        };
        let sojourn = now.saturating_sub(Q::enqueued_at(item).as_nanos());
        if sojourn < params.target_ns || queue.backlog_bytes() <= u64::from(params.mtu_bytes) {
            self.first_above = None;
            return false;
        }
        match self.first_above {
            None => {
                self.first_above = Some(now + params.interval_ns);
                false
            }
            Some(at) => now > at,
        }
    }

    /// One Newton step of 1/sqrt(count) (`codel_Newton_step`).
    fn newton_step(&mut self) {
        let invsqrt = u64::from(self.rec_inv_sqrt) << REC_INV_SQRT_SHIFT;
        let invsqrt2 = (invsqrt * invsqrt) >> 32;
        let mut val = (3u64 << 32).wrapping_sub(u64::from(self.count).wrapping_mul(invsqrt2));
        val >>= 2; // avoids overflow in the multiplication below
        val = (val.wrapping_mul(invsqrt)) >> (32 - 2 + 1);
        self.rec_inv_sqrt = (val >> REC_INV_SQRT_SHIFT) as u16;
    }

    /// Whether CoDel is in its dropping state.
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// The packets marked CE since the last call.
    pub fn take_marks(&mut self) -> u32 {
        std::mem::take(&mut self.marks)
    }

    /// Drops in the present (or last) dropping cycle.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Raises the drop count by `drops` made outside CoDel, so that its next cycle drops
    /// faster (sch_fq_codel's `flow->cvars.count += i` after an overlimit batch).
    pub fn raise_count(&mut self, drops: u32) {
        self.count = self.count.wrapping_add(drops);
    }
}

/// The time of the next drop: `t + interval / sqrt(count)` (`codel_control_law`, with
/// Linux's `reciprocal_scale`).
fn control_law(t: u64, interval_ns: u64, rec_inv_sqrt: u16) -> u64 {
    let scale = u64::from(rec_inv_sqrt) << REC_INV_SQRT_SHIFT;
    t + ((u128::from(interval_ns) * u128::from(scale)) >> 32) as u64
}

#[cfg(test)]
mod tests;
