//! Tail loss probe (RFC 8985 §7) as Linux's `tcp_schedule_loss_probe`,
//! `tcp_send_loss_probe` and `tcp_process_tlp_ack` run it: when a sender with data in flight
//! and no loss suspected hears nothing for about two round trips, it sends one segment (new
//! data if the peer's window allows, else the highest segment again) so that an ACK, with
//! SACK, lets RACK find the losses at the tail rather than the retransmission timer.
//!
//! PTO = 2·SRTT, plus the minimum RTO (Linux's `tcp_rto_min_us`, for a delayed ACK) when
//! one segment is in flight or 2 ms (TCP_TIMEOUT_MIN) otherwise; 1 s before any RTT sample; never after the RTO would
//! fire. One probe is outstanding at a time (`tlp_high_seq`). When the ACK for it comes: a
//! probe of new data, or a D-SACK of the probe, ends the episode; an ACK beyond the probe
//! shows the probe repaired a loss, and the window is reduced once (Linux's CWR: ssthresh
//! as for a loss, cwnd = ssthresh).

use core::time::Duration;

/// Added to 2·SRTT otherwise (Linux's TCP_TIMEOUT_MIN).
const MIN_ALLOWANCE: Duration = Duration::from_millis(2);
/// The probe timeout before an RTT was measured (TCP_TIMEOUT_INIT).
const WITHOUT_RTT: Duration = Duration::from_secs(1);

/// The probe timeout; with one segment in flight the peer may delay its ACK, for which
/// Linux allows the minimum RTO (`tcp_rto_min_us`, 200 ms by default); `rto_left` is how
/// long until the retransmission timer fires.
pub fn probe_timeout(
    srtt: Option<Duration>,
    one_segment: bool,
    min_rto: Duration,
    rto_left: Duration,
) -> Duration {
    let timeout = match srtt {
        Some(srtt) if one_segment => 2 * srtt + min_rto,
        Some(srtt) => 2 * srtt + MIN_ALLOWANCE,
        None => WITHOUT_RTT,
    };
    if rto_left.is_zero() {
        timeout
    } else {
        timeout.min(rto_left)
    }
}

/// What the ACK of a probe shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// No probe outstanding, or the ACK is below it.
    Pending,
    /// The episode ended without a loss.
    NoLoss,
    /// The probe repaired a loss: reduce the window once.
    Repaired,
}

/// The outstanding probe: the end of what was sent when it went out (`tlp_high_seq`), and
/// whether it was a retransmission (`tlp_retrans`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TailLossProbe {
    high: Option<(u64, bool)>,
}

impl TailLossProbe {
    pub fn outstanding(&self) -> bool {
        self.high.is_some()
    }

    /// A probe went out; `snd_nxt` is the end of what is sent after it.
    pub fn on_probe(&mut self, snd_nxt: u64, retransmission: bool) {
        self.high = Some((snd_nxt, retransmission));
    }

    /// A recovery or a reduction began: the episode is over (`tcp_init_cwnd_reduction`).
    pub fn clear(&mut self) {
        self.high = None;
    }

    /// An ACK (`tcp_process_tlp_ack`): `ack` the cumulative ACK, `dsack_end` the end of its
    /// D-SACK block if any (the probe's when it ends where the probe did), `pure_dupack` it
    /// moved nothing, carried no data and SACKed nothing new.
    pub fn on_ack(&mut self, ack: u64, dsack_end: Option<u64>, pure_dupack: bool) -> ProbeOutcome {
        let Some((high, retransmission)) = self.high else {
            return ProbeOutcome::Pending;
        };
        let dsack_of_probe = dsack_end == Some(high);
        if ack < high {
            return ProbeOutcome::Pending;
        }
        let outcome = if !retransmission || dsack_of_probe {
            ProbeOutcome::NoLoss
        } else if ack > high {
            ProbeOutcome::Repaired
        } else if pure_dupack {
            // The original and the probe both arrived.
            ProbeOutcome::NoLoss
        } else {
            return ProbeOutcome::Pending;
        };
        self.high = None;
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn probe_timeout_is_two_rtts_plus_an_allowance() {
        let rto_min = 200 * MS;
        assert_eq!(
            probe_timeout(Some(50 * MS), false, rto_min, 1000 * MS),
            102 * MS
        );
        assert_eq!(
            probe_timeout(Some(50 * MS), true, rto_min, 1000 * MS),
            300 * MS
        );
        assert_eq!(
            probe_timeout(Some(50 * MS), true, 1000 * MS, 3000 * MS),
            1100 * MS
        );
        assert_eq!(probe_timeout(None, false, rto_min, 3000 * MS), 1000 * MS);
        // Never later than the retransmission timer.
        assert_eq!(
            probe_timeout(Some(50 * MS), true, rto_min, 250 * MS),
            250 * MS
        );
    }

    #[test]
    fn the_ack_of_a_probe_says_whether_it_repaired_a_loss() {
        let mut tlp = TailLossProbe::default();
        assert_eq!(tlp.on_ack(5000, None, false), ProbeOutcome::Pending);
        // A retransmitted probe; an ACK beyond it: a loss was repaired.
        tlp.on_probe(10_000, true);
        assert_eq!(tlp.on_ack(9000, None, false), ProbeOutcome::Pending);
        assert!(tlp.outstanding());
        assert_eq!(tlp.on_ack(11_000, None, false), ProbeOutcome::Repaired);
        assert!(!tlp.outstanding());
        // A D-SACK of the probe: nothing was lost.
        tlp.on_probe(10_000, true);
        assert_eq!(
            tlp.on_ack(10_000, Some(10_000), false),
            ProbeOutcome::NoLoss
        );
        // A probe of new data acknowledged: no loss either.
        tlp.on_probe(10_000, false);
        assert_eq!(tlp.on_ack(12_000, None, false), ProbeOutcome::NoLoss);
        // At the probe's end, a pure duplicate: both copies arrived.
        tlp.on_probe(10_000, true);
        assert_eq!(
            tlp.on_ack(10_000, Some(9_000), false),
            ProbeOutcome::Pending
        );
        assert_eq!(tlp.on_ack(10_000, None, true), ProbeOutcome::NoLoss);
    }
}
