//! Delivery-rate sampling as Linux's `net/ipv4/tcp_rate.c` does it (and
//! draft-cheng-iccrg-delivery-rate-estimation): each ACK yields the rate at which the
//! network delivered the segments sent since the one it newly (S)ACKs was sent, the longer
//! of that window's send phase and its ACK phase, so that neither a burst of compressed ACKs
//! nor a burst of sends inflates it.
//!
//! Each transmission takes a snapshot of the connection's delivery state
//! (`tcp_rate_skb_sent`); each segment delivered offers its snapshot to the ACK's sample,
//! which keeps the most recently sent one (`tcp_rate_skb_delivered`); after the ACK's loss
//! detection the sample is completed (`tcp_rate_gen`). A sample is marked app-limited when
//! the application left the sender without data at some moment while its segments were in
//! flight (`tcp_rate_check_app_limited`). Counts are segments, as Linux's `tp->delivered`.
//!
//! Not modelled: SACK reneging (our receivers never renege), and the RTT of the sample is the
//! newest never-retransmitted segment delivered by the ACK (Linux's `ca_rtt_us` prefers the
//! cumulatively acknowledged one).

use core::time::Duration;

use crate::time::Instant;

/// The connection's delivery state when a segment was (last) sent: Linux's `tcp_skb_cb.tx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxSnapshot {
    /// Segments delivered when it was sent.
    pub delivered: u64,
    /// When the latest of those was delivered.
    pub delivered_time: Instant,
    /// When the first segment of the flight it was sent in was sent.
    pub first_tx_time: Instant,
    pub app_limited: bool,
}

/// One ACK's rate sample (Linux's `struct rate_sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Segments delivered over `interval`; `None` for an ACK that gives no valid sample.
    pub delivered: Option<u64>,
    /// The sample's interval; `None` if shorter than the minimum RTT (or no sample).
    pub interval: Option<Duration>,
    /// `delivered` when the segment the sample comes from was sent.
    pub prior_delivered: u64,
    pub is_app_limited: bool,
    /// The sample comes from a retransmitted segment.
    pub is_retrans: bool,
    /// Segments newly delivered (cumulatively acknowledged or SACKed) by this ACK.
    pub acked_sacked: u64,
    /// Segments newly deemed lost by this ACK.
    pub losses: u64,
    /// Segments in flight before the ACK (`tcp_packets_in_flight`).
    pub prior_in_flight: u64,
    /// The ACK's RTT sample, from the newest segment it delivered that was sent once.
    pub rtt: Option<Duration>,
}

/// The sample being built from one ACK's deliveries.
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    /// `(delivered, delivered_time)` of the most recently sent segment delivered.
    prior: Option<(u64, Instant)>,
    send_interval: Duration,
    is_app_limited: bool,
    is_retrans: bool,
    /// The newest once-sent segment's send time and RTT.
    rtt: Option<(Instant, Duration)>,
}

/// The connection's delivery counters (Linux's `tp->delivered`, `delivered_mstamp`,
/// `first_tx_mstamp`, `app_limited`, `lost`) and the sample under way.
#[derive(Clone, Debug, Default)]
pub struct DeliveryRate {
    delivered: u64,
    delivered_time: Instant,
    first_tx_time: Instant,
    /// The flight is app-limited until `delivered` passes this (0: not app-limited).
    app_limited: u64,
    lost: u64,
    delivered_at_ack_start: u64,
    pending: Pending,
}

impl DeliveryRate {
    /// Segments delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// When the latest delivery was acknowledged.
    pub fn delivered_time(&self) -> Instant {
        self.delivered_time
    }

    /// Segments deemed lost so far (a lost retransmission counts again, as `tcp_sum_lost`).
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// The flight in progress is app-limited.
    pub fn app_limited(&self) -> bool {
        self.app_limited != 0
    }

    pub fn on_lost(&mut self, segments: u64) {
        self.lost += segments;
    }

    /// A segment goes out at `now`; `nothing_outstanding`: no segment is unacknowledged
    /// (Linux's `packets_out == 0`, not the in-flight estimate: spurious loss marks must not
    /// shorten the interval). Returns its snapshot.
    pub fn on_send(&mut self, now: Instant, nothing_outstanding: bool) -> TxSnapshot {
        if nothing_outstanding {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        TxSnapshot {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx_time: self.first_tx_time,
            app_limited: self.app_limited != 0,
        }
    }

    /// `segments` sent at `xmit_ts` with `tx` were delivered (SACKed or cumulatively
    /// acknowledged for the first time) by the ACK arriving at `now`.
    pub fn on_delivered(
        &mut self,
        now: Instant,
        tx: &TxSnapshot,
        xmit_ts: Instant,
        segments: u64,
        retransmitted: bool,
    ) {
        self.delivered += segments;
        let p = &mut self.pending;
        // Linux tests `!rs->prior_delivered` for "no sample yet", so while the prior count
        // is 0 (the first flight) every segment delivered replaces it: the last one wins.
        if p.prior
            .is_none_or(|(delivered, _)| delivered == 0 || tx.delivered > delivered)
        {
            p.prior = Some((tx.delivered, tx.delivered_time));
            p.is_app_limited = tx.app_limited;
            p.is_retrans = retransmitted;
            self.first_tx_time = xmit_ts;
            p.send_interval = xmit_ts.saturating_duration_since(tx.first_tx_time);
        }
        if !retransmitted && p.rtt.is_none_or(|(sent, _)| xmit_ts > sent) {
            p.rtt = Some((xmit_ts, now.saturating_duration_since(xmit_ts)));
        }
    }

    /// Completes the ACK's sample (`tcp_rate_gen`): `losses` segments newly deemed lost,
    /// `prior_in_flight` segments in flight before it, `min_rtt` the connection's.
    pub fn take_sample(
        &mut self,
        now: Instant,
        losses: u64,
        prior_in_flight: u64,
        min_rtt: Option<Duration>,
    ) -> RateSample {
        let pending = core::mem::take(&mut self.pending);
        let acked_sacked = self.delivered - self.delivered_at_ack_start;
        self.delivered_at_ack_start = self.delivered;
        // The app-limited bubble is over once it was delivered.
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if acked_sacked > 0 {
            self.delivered_time = now;
        }
        let mut sample = RateSample {
            acked_sacked,
            losses,
            prior_in_flight,
            rtt: pending.rtt.map(|(_, rtt)| rtt),
            is_app_limited: pending.is_app_limited,
            is_retrans: pending.is_retrans,
            ..RateSample::default()
        };
        let Some((prior_delivered, prior_time)) = pending.prior else {
            return sample;
        };
        sample.prior_delivered = prior_delivered;
        sample.delivered = Some(self.delivered - prior_delivered);
        // The send phase and the ACK phase of the window: the longer is the safer.
        let interval = pending
            .send_interval
            .max(now.saturating_duration_since(prior_time));
        // Shorter than the path's RTT cannot be a full window's delivery (a spurious
        // retransmission's ACK, say): no rate from it.
        if min_rtt.is_none_or(|min| interval >= min) {
            sample.interval = Some(interval);
        }
        sample
    }

    /// The application wrote (`tcp_rate_check_app_limited`): if less than a segment was
    /// waiting, the window was not full and no lost segment waits to go again, the sender
    /// was short of data, and the samples of what is in flight say so.
    pub fn check_app_limited(
        &mut self,
        unsent_below_mss: bool,
        cwnd_limited: bool,
        lost_pending: bool,
        in_flight: u64,
    ) {
        if unsent_below_mss && !cwnd_limited && !lost_pending {
            self.mark_app_limited(in_flight);
        }
    }

    /// Marks the flight app-limited (also BBR's PROBE_RTT, which wants no low-rate sample
    /// to count).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    const MIN_RTT: Option<Duration> = Some(Duration::from_millis(50));

    /// Ten segments sent 1 ms apart from t = 0 over an idle connection.
    fn ten_sent(rate: &mut DeliveryRate) -> Vec<(Instant, TxSnapshot)> {
        (0..10)
            .map(|k| (ms(k), rate.on_send(ms(k), k == 0)))
            .collect()
    }

    #[test]
    fn a_window_acked_at_the_bottleneck_rate_gives_that_rate() {
        let mut rate = DeliveryRate::default();
        let sent = ten_sent(&mut rate);
        // ACKs come back 2 ms apart from t = 100 ms: the bottleneck's 2 ms a segment.
        let mut last = RateSample::default();
        for (k, (at, tx)) in sent.iter().enumerate() {
            let now = ms(100 + 2 * k as u64);
            rate.on_delivered(now, tx, *at, 1, false);
            last = rate.take_sample(now, 0, 10 - k as u64, MIN_RTT);
        }
        // The last segment was sent with 0 delivered at t = 0 (idle start): 10 segments
        // over max(send phase 9 ms, ACK phase 118 ms).
        assert_eq!(last.delivered, Some(10));
        assert_eq!(last.interval, Some(Duration::from_millis(118)));
        assert_eq!(last.acked_sacked, 1);
        assert_eq!(last.rtt, Some(Duration::from_millis(109)));
        assert_eq!(rate.delivered(), 10);
        // The next flight, sent as the ACKs arrive, measures one ACK-clocked window.
        let tx = rate.on_send(ms(118), false);
        assert_eq!((tx.delivered, tx.delivered_time), (10, ms(118)));
        for k in 1..=5 {
            rate.on_delivered(ms(218 + 2 * k), &tx, ms(118), 1, false);
        }
        let sample = rate.take_sample(ms(228), 0, 0, MIN_RTT);
        assert_eq!(sample.delivered, Some(5));
        assert_eq!(sample.interval, Some(Duration::from_millis(110)));
        assert_eq!(sample.acked_sacked, 5);
    }

    #[test]
    fn the_most_recently_sent_segment_delivered_sets_the_sample() {
        let mut rate = DeliveryRate::default();
        let sent = ten_sent(&mut rate);
        for (at, tx) in &sent[..3] {
            rate.on_delivered(ms(100), tx, *at, 1, false);
        }
        rate.take_sample(ms(100), 0, 10, MIN_RTT);
        let later = rate.on_send(ms(101), false);
        // One ACK delivers an old segment and the one sent at 101 ms (a stretch ACK).
        rate.on_delivered(ms(200), &later, ms(101), 1, false);
        rate.on_delivered(ms(200), &sent[3].1, sent[3].0, 1, false);
        let sample = rate.take_sample(ms(200), 0, 8, MIN_RTT);
        assert_eq!(sample.prior_delivered, 3);
        assert_eq!(sample.delivered, Some(2));
        assert_eq!(sample.interval, Some(Duration::from_millis(100)));
    }

    #[test]
    fn with_compressed_acks_the_longer_send_phase_sets_the_interval() {
        let mut rate = DeliveryRate::default();
        let first = rate.on_send(ms(0), true);
        rate.on_delivered(ms(50), &first, ms(0), 1, false);
        rate.take_sample(ms(50), 0, 1, MIN_RTT);
        // Sent 90 ms after the flight began, acknowledged 50 ms after the last delivery:
        // the ACKs came faster than the data went, so the send phase (90 ms) counts.
        let second = rate.on_send(ms(90), false);
        rate.on_delivered(ms(100), &second, ms(90), 1, false);
        let sample = rate.take_sample(ms(100), 0, 1, MIN_RTT);
        assert_eq!(sample.interval, Some(Duration::from_millis(90)));
        assert_eq!(sample.delivered, Some(1));
    }

    #[test]
    fn an_interval_shorter_than_the_minimum_rtt_gives_no_rate() {
        let mut rate = DeliveryRate::default();
        let tx = rate.on_send(ms(0), true);
        rate.on_delivered(ms(30), &tx, ms(0), 1, true);
        let sample = rate.take_sample(ms(30), 0, 1, MIN_RTT);
        assert_eq!((sample.delivered, sample.interval), (Some(1), None));
        assert!(sample.is_retrans);
        assert_eq!(sample.rtt, None, "a retransmission's RTT is ambiguous");
    }

    #[test]
    fn an_ack_that_delivers_nothing_gives_no_sample() {
        let mut rate = DeliveryRate::default();
        ten_sent(&mut rate);
        let sample = rate.take_sample(ms(100), 2, 10, MIN_RTT);
        assert_eq!(sample.delivered, None);
        assert_eq!((sample.acked_sacked, sample.losses), (0, 2));
    }

    #[test]
    fn app_limited_marks_last_until_the_bubble_is_delivered() {
        let mut rate = DeliveryRate::default();
        let sent = ten_sent(&mut rate);
        // Short of data with 10 in flight: segments sent from now are app-limited until
        // delivered passes 10.
        rate.check_app_limited(true, true, false, 10);
        assert!(
            !rate.on_send(ms(10), false).app_limited,
            "cwnd-limited is not"
        );
        rate.check_app_limited(true, false, false, 10);
        let tx = rate.on_send(ms(10), false);
        assert!(tx.app_limited);
        for (at, tx) in &sent {
            rate.on_delivered(ms(100), tx, *at, 1, false);
        }
        rate.take_sample(ms(100), 0, 11, MIN_RTT);
        assert!(
            rate.on_send(ms(100), false).app_limited,
            "10 delivered: not past 10"
        );
        rate.on_delivered(ms(110), &tx, ms(10), 1, false);
        let sample = rate.take_sample(ms(110), 0, 1, MIN_RTT);
        assert!(sample.is_app_limited);
        assert!(!rate.on_send(ms(110), false).app_limited);
    }
}
