//! Proportional Rate Reduction (RFC 6937) as Linux's `tcp_cwnd_reduction` runs it: during a
//! fast recovery the window falls from its value at the loss to ssthresh in step with the
//! data delivered, rather than halving at once and then stalling (RFC 6675) or bursting.
//!
//! Each ACK in recovery sets cwnd = pipe + sndcnt, where, with `prr_delivered` the bytes
//! delivered (acknowledged or SACKed) since recovery began and `prr_out` the bytes sent:
//! - while pipe > ssthresh (proportional part): sndcnt = ⌈prr_delivered · ssthresh /
//!   RecoverFS⌉ − prr_out;
//! - else (slow-start reduction bound, PRR-SSRB): sndcnt = min(ssthresh − pipe,
//!   max(prr_delivered − prr_out, DeliveredData) + MSS), the extra MSS only when the ACK
//!   moved snd_una and found no new loss (Linux's condition, from RFC 6937bis);
//! - at least one MSS until the first retransmission is out.
//!
//! Linux's choices, which we follow: RecoverFS is cwnd at the start of recovery
//! (`prior_cwnd`), not the flight RFC 6937 names; counts are bytes here where Linux counts
//! segments (the same for full-sized segments).

/// One cwnd reduction's state (Linux's prior_cwnd, prr_delivered, prr_out).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    recover_fs: u64,
    ssthresh: u64,
    delivered: u64,
    out: u64,
}

/// What one ACK in recovery brought.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrrAck {
    /// Bytes newly acknowledged or SACKed (DeliveredData).
    pub delivered: u64,
    /// The pipe after the ACK was processed and losses marked.
    pub pipe: u64,
    /// The cumulative ACK advanced.
    pub una_advanced: bool,
    /// Bytes newly deemed lost on this ACK.
    pub newly_lost: u64,
}

impl Prr {
    /// A reduction begins (`tcp_init_cwnd_reduction`): `prior_cwnd` the window before it,
    /// `ssthresh` the target.
    pub fn start(prior_cwnd: u32, ssthresh: u32) -> Self {
        Prr {
            recover_fs: u64::from(prior_cwnd).max(1),
            ssthresh: u64::from(ssthresh),
            delivered: 0,
            out: 0,
        }
    }

    /// Bytes sent during the reduction, new or again.
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// The window after an ACK in recovery; `None` if the ACK delivered nothing (Linux
    /// leaves cwnd as it was then).
    pub fn on_ack(&mut self, ack: PrrAck, mss: u32) -> Option<u32> {
        if ack.delivered == 0 {
            return None;
        }
        let mss = u64::from(mss);
        self.delivered += ack.delivered;
        let mut sndcnt = if ack.pipe > self.ssthresh {
            // Rounded up to whole segments, as Linux's count of segments is.
            let target = (self.ssthresh * self.delivered).div_ceil(self.recover_fs.max(1));
            (target.div_ceil(mss) * mss).saturating_sub(self.out)
        } else {
            let mut bound = self.delivered.saturating_sub(self.out).max(ack.delivered);
            if ack.una_advanced && ack.newly_lost == 0 {
                bound += mss;
            }
            bound.min(self.ssthresh - ack.pipe)
        };
        if self.out == 0 {
            sndcnt = sndcnt.max(mss);
        }
        Some((ack.pipe + sndcnt).min(u64::from(u32::MAX)) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn ack(delivered: u64, pipe: u64) -> PrrAck {
        PrrAck {
            delivered,
            pipe,
            una_advanced: false,
            newly_lost: 0,
        }
    }

    #[test]
    fn proportional_part_sends_half_of_what_is_delivered() {
        // cwnd 20 segments at the loss, ssthresh 10 (a Reno halving), one segment lost:
        // 19 in flight. RFC 6937 §3's example: one segment out for every two delivered.
        let mut prr = Prr::start(20 * MSS, 10 * MSS);
        // First dupACK: 1 delivered; ⌈1·10/20⌉ = 1 segment, the fast retransmit.
        assert_eq!(prr.on_ack(ack(1000, 18_000), MSS), Some(19_000));
        prr.on_sent(1000);
        // Second: delivered 2, ⌈2·10/20⌉ − 1 = 0.
        assert_eq!(prr.on_ack(ack(1000, 18_000), MSS), Some(18_000));
        // Third: delivered 3, ⌈3·10/20⌉ − 1 = 1.
        assert_eq!(prr.on_ack(ack(1000, 17_000), MSS), Some(18_000));
        prr.on_sent(1000);
        // Every other segment delivered sends one; from the 17th the pipe is at ssthresh and
        // PRR-SSRB holds it there. The 19 ACKs of the segments not lost have sent 10 (the
        // retransmission and 9 new): pipe = ssthresh when the retransmission's ACK ends the
        // recovery.
        let mut pipe = 18_000;
        for _ in 0..16 {
            pipe -= 1000;
            let cwnd = prr.on_ack(ack(1000, pipe), MSS).expect("delivered");
            let sent = u64::from(cwnd).saturating_sub(pipe);
            prr.on_sent(sent);
            pipe += sent;
        }
        assert_eq!(prr.out, 10_000, "ssthresh's worth for RecoverFS delivered");
        assert_eq!(prr.delivered, 19_000);
        assert_eq!(pipe, 10_000);
    }

    #[test]
    fn the_first_ack_forces_the_retransmission() {
        // A reduction to 7 of 20: ⌈1·7/20⌉ = 1 anyway; with ssthresh 2, ⌈2/20⌉ = 1 too;
        // ssthresh 0 (a degenerate target) still gives one segment before anything else.
        let mut prr = Prr::start(20 * MSS, 0);
        assert_eq!(prr.on_ack(ack(1000, 18_000), MSS), Some(19_000));
        prr.on_sent(1000);
        assert_eq!(prr.on_ack(ack(1000, 18_000), MSS), Some(18_000));
    }

    #[test]
    fn slow_start_reduction_bound_below_ssthresh() {
        // Heavy loss: the pipe (3) fell below ssthresh (10). PRR-SSRB sends what was
        // delivered and not yet matched, plus one MSS on an ACK that moves snd_una.
        let mut prr = Prr::start(20 * MSS, 10 * MSS);
        prr.on_sent(1000);
        let cwnd = prr.on_ack(
            PrrAck {
                delivered: 4000,
                pipe: 3000,
                una_advanced: true,
                newly_lost: 0,
            },
            MSS,
        );
        // max(4000 − 1000, 4000) + 1000 = 5000 ≤ ssthresh − pipe = 7000.
        assert_eq!(cwnd, Some(8000));
        // Without the advance of snd_una, or with a new loss, no extra MSS.
        let mut other = Prr::start(20 * MSS, 10 * MSS);
        other.on_sent(1000);
        let cwnd = other.on_ack(
            PrrAck {
                delivered: 4000,
                pipe: 3000,
                una_advanced: true,
                newly_lost: 1000,
            },
            MSS,
        );
        assert_eq!(cwnd, Some(7000));
        // Capped at ssthresh − pipe.
        let mut capped = Prr::start(20 * MSS, 10 * MSS);
        capped.on_sent(1000);
        assert_eq!(capped.on_ack(ack(9000, 8000), MSS), Some(10_000));
    }

    #[test]
    fn an_ack_delivering_nothing_leaves_the_window() {
        let mut prr = Prr::start(20 * MSS, 10 * MSS);
        assert_eq!(prr.on_ack(ack(0, 18_000), MSS), None);
        assert_eq!(prr.delivered, 0);
    }
}
