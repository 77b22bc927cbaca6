//! RACK loss detection (RFC 8985 §6) over the sender's segments in flight, as Linux's
//! `tcp_recovery.c` runs it, and the in-flight count Linux paces recovery with.
//!
//! Each segment sent keeps its latest transmission time and three marks, Linux's
//! `TCPCB_SACKED_ACKED`, `TCPCB_LOST` and `TCPCB_SACKED_RETRANS`: SACKed, deemed lost, a
//! retransmission in flight. A segment is deemed lost when a segment sent after it was
//! delivered and more than RACK.rtt + RACK.reo_wnd has passed since it was sent (§6.2 step 5):
//! so a lost retransmission is found as a lost original is, without waiting for the timer.
//! The reordering window (step 4) is min(min_RTT / 4 · multiplier, SRTT), zero while no
//! reordering was seen and the sender is recovering or DupThresh segments are SACKed; each
//! round with a D-SACK widens it by one step, kept for 16 recoveries.
//!
//! `pipe` is `tcp_packets_in_flight`: sent, less SACKed, less lost, plus retransmissions in
//! flight. Offsets count sequence space from the connection's start, as the scoreboard's.
//!
//! With a controller that sets the window from the delivery rate (BBR), each record also
//! keeps the delivery state when it was sent, and each delivery feeds the ACK's rate sample
//! (`tcp::delivery_rate`, Linux's `tcp_rate.c` reading the same per-segment state).
//!
//! Chosen differently (docs/tcp.md): min_RTT is the least unambiguous RTT of the whole
//! connection (Linux's is a 300 s windowed minimum, `tcp_min_rtt_wlen`); the reordering timer
//! fires after the exact remaining time (Linux adds up to 2 ms of jiffy rounding).

use std::collections::VecDeque;

use core::time::Duration;

use super::delivery_rate::{DeliveryRate, RateSample, TxSnapshot};
use super::timestamps;
use crate::time::Instant;

/// Recoveries a widened reordering window outlives (RFC 8985 §6.2 step 4, Linux's
/// TCP_RACK_RECOVERY_THRESH).
const REO_WND_PERSIST: u32 = 16;

/// One transmitted segment, or a run of SACKed ones merged (their times no longer matter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sent {
    start: u64,
    end: u64,
    /// The latest transmission (RFC 8985's Segment.xmit_ts).
    xmit_ts: Instant,
    /// Original segments in this record (more than one only for merged SACKed runs).
    segments: u32,
    /// Sent more than once: which copy arrived is ambiguous (Linux's TCPCB_EVER_RETRANS).
    retransmitted: bool,
    /// A retransmission is in flight (TCPCB_SACKED_RETRANS).
    retrans_in_flight: bool,
    lost: bool,
    sacked: bool,
    /// The delivery state at the latest transmission (with rate sampling on).
    tx: Option<TxSnapshot>,
}

impl Sent {
    fn len(&self) -> u64 {
        self.end - self.start
    }
}

/// What a loss scan found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossScan {
    /// Bytes newly deemed lost.
    pub newly_lost: u64,
    /// A retransmission was among them (Linux's FLAG_LOST_RETRANS).
    pub lost_retransmission: bool,
    /// When a segment not yet lost would be, if nothing is delivered meanwhile (RFC 8985's
    /// reordering timer).
    pub reorder_deadline: Option<Instant>,
}

#[derive(Clone, Debug)]
pub struct Rack {
    sent: VecDeque<Sent>,
    sacked_bytes: u64,
    sacked_segments: u64,
    /// Bytes marked lost and not SACKed (Linux's lost_out, in bytes).
    lost_bytes: u64,
    /// Bytes whose retransmission is in flight (retrans_out).
    retrans_bytes: u64,
    /// Bytes lost and not yet sent again.
    lost_pending: u64,
    /// The most recently sent segment delivered: RACK.xmit_ts and RACK.end_seq.
    latest: Option<(Instant, u64)>,
    /// RACK.rtt: the RTT of that segment's delivery.
    rtt: Duration,
    min_rtt: Option<Duration>,
    /// RACK.fack: the highest end delivered.
    fack: u64,
    reordering_seen: bool,
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    /// RACK.dsack_round: the window widens at most once a round trip.
    dsack_round: Option<u64>,
    /// No segment below this offset is lost with no retransmission in flight.
    retransmit_hint: u64,
    /// `latest` moved since the last scan (Linux's rack.advanced): scan again.
    advanced: bool,
    /// Delivery-rate sampling, for a controller that sets the window from it.
    rate: Option<DeliveryRate>,
    /// The timestamp echo of the ACK being processed.
    ack_echo: Option<u32>,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            sent: VecDeque::new(),
            sacked_bytes: 0,
            sacked_segments: 0,
            lost_bytes: 0,
            retrans_bytes: 0,
            lost_pending: 0,
            latest: None,
            rtt: Duration::ZERO,
            min_rtt: None,
            fack: 0,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            dsack_round: None,
            retransmit_hint: 0,
            advanced: false,
            rate: None,
            ack_echo: None,
        }
    }
}

/// RFC 8985's RACK_sent_after: sent later, or at the same time and higher in sequence.
fn sent_after(t1: Instant, end1: u64, t2: Instant, end2: u64) -> bool {
    t1 > t2 || (t1 == t2 && end1 > end2)
}

impl Rack {
    /// The ACK about to be processed echoes `echo` (RFC 7323's TSecr), if timestamps are on.
    pub fn set_ack_echo(&mut self, echo: Option<u32>) {
        self.ack_echo = echo.filter(|e| *e != 0);
    }

    /// Keeps delivery-rate samples from now on.
    pub fn sample_delivery_rate(&mut self) {
        self.rate.get_or_insert_with(DeliveryRate::default);
    }

    pub fn delivery_rate(&self) -> Option<&DeliveryRate> {
        self.rate.as_ref()
    }

    /// Completes the ACK's rate sample (see `DeliveryRate::take_sample`), in segments.
    pub fn take_rate_sample(
        &mut self,
        now: Instant,
        losses: u64,
        prior_in_flight: u64,
    ) -> Option<RateSample> {
        let min_rtt = self.min_rtt;
        self.rate
            .as_mut()
            .map(|rate| rate.take_sample(now, losses, prior_in_flight, min_rtt))
    }

    /// The application wrote: marks the flight app-limited if the sender was short of data
    /// (`tcp_rate_check_app_limited`), `pipe_segments` in flight.
    pub fn check_app_limited(
        &mut self,
        unsent_below_mss: bool,
        cwnd_limited: bool,
        pipe_segments: u64,
    ) {
        let lost_pending = self.lost_pending > 0;
        if let Some(rate) = self.rate.as_mut() {
            rate.check_app_limited(unsent_below_mss, cwnd_limited, lost_pending, pipe_segments);
        }
    }

    pub fn mark_app_limited(&mut self, pipe_segments: u64) {
        if let Some(rate) = self.rate.as_mut() {
            rate.mark_app_limited(pipe_segments);
        }
    }

    /// Bytes in flight as Linux counts them (`tcp_packets_in_flight`).
    pub fn pipe(&self) -> u64 {
        let outstanding = match (self.sent.front(), self.sent.back()) {
            (Some(first), Some(last)) => last.end - first.start,
            _ => 0,
        };
        outstanding - self.sacked_bytes - self.lost_bytes + self.retrans_bytes
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }

    /// Bytes retransmitted and still in flight.
    pub fn retrans_bytes(&self) -> u64 {
        self.retrans_bytes
    }

    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes
    }

    /// The end of the highest segment sent.
    fn sent_end(&self) -> Option<u64> {
        self.sent.back().map(|s| s.end)
    }

    /// Index of the record starting at `offset`, splitting the one that holds it.
    fn split_at(&mut self, offset: u64) -> usize {
        let i = self.sent.partition_point(|s| s.end <= offset);
        match self.sent.get(i).copied() {
            Some(s) if s.start < offset => {
                // A merged SACKed run shares its segment count in proportion.
                let mut head = s;
                head.end = offset;
                head.segments = (u64::from(s.segments) * head.len() / s.len()) as u32;
                self.sent[i].start = offset;
                self.sent[i].segments -= head.segments;
                self.sent.insert(i, head);
                i + 1
            }
            _ => i,
        }
    }

    /// `[start, end)` went out at `now`: new data, or sent again.
    pub fn on_transmit(&mut self, now: Instant, start: u64, end: u64) {
        let nothing_outstanding = self.sent.is_empty();
        let tx = self
            .rate
            .as_mut()
            .map(|rate| rate.on_send(now, nothing_outstanding));
        let sent_end = self.sent_end().unwrap_or(start);
        if start < sent_end {
            let last = end.min(sent_end);
            let first = self.split_at(start);
            let stop = self.split_at(last);
            for i in first..stop {
                let s = self.sent[i];
                if s.sacked {
                    continue;
                }
                self.update(i, |s| {
                    s.xmit_ts = now;
                    s.retransmitted = true;
                    s.retrans_in_flight = true;
                    s.tx = tx;
                });
            }
        }
        let new_from = start.max(sent_end);
        if new_from < end {
            self.sent.push_back(Sent {
                start: new_from,
                end,
                xmit_ts: now,
                segments: 1,
                retransmitted: false,
                retrans_in_flight: false,
                lost: false,
                sacked: false,
                tx,
            });
        }
    }

    /// Adds a record's bytes to the counters its marks put it in, or takes them out.
    fn account(&mut self, s: &Sent, add: bool) {
        if !(s.sacked || s.lost || s.retrans_in_flight) {
            return; // in flight: counted by its place in the queue alone
        }
        let counters: [(&mut u64, bool, u64); 5] = [
            (&mut self.sacked_bytes, s.sacked, s.len()),
            (&mut self.sacked_segments, s.sacked, u64::from(s.segments)),
            (&mut self.lost_bytes, !s.sacked && s.lost, s.len()),
            (
                &mut self.retrans_bytes,
                !s.sacked && s.retrans_in_flight,
                s.len(),
            ),
            (
                &mut self.lost_pending,
                !s.sacked && s.lost && !s.retrans_in_flight,
                s.len(),
            ),
        ];
        for (counter, applies, amount) in counters {
            if applies {
                if add {
                    *counter += amount;
                } else {
                    *counter -= amount;
                }
            }
        }
    }

    /// Changes the marks of record `i`, keeping the counters.
    fn update(&mut self, i: usize, change: impl FnOnce(&mut Sent)) {
        let before = self.sent[i];
        self.account(&before, false);
        change(&mut self.sent[i]);
        let after = self.sent[i];
        self.account(&after, true);
    }

    /// The cumulative ACK reached `una`; returns the bytes newly delivered (not SACKed
    /// before).
    pub fn on_cumulative_ack(&mut self, now: Instant, una: u64) -> u64 {
        let mut delivered = 0;
        while let Some(&s) = self.sent.front() {
            if s.start >= una {
                break;
            }
            if s.end > una {
                self.split_at(una);
                continue;
            }
            self.sent.pop_front();
            self.account(&s, false);
            if !s.sacked {
                delivered += s.len();
                self.on_delivered(now, &s, true);
            }
        }
        delivered
    }

    /// A SACK block `[start, end)` (offsets above the cumulative ACK); returns the bytes
    /// newly SACKed. Give an ACK's blocks in ascending order (RFC 8985 step 3).
    pub fn on_sack(&mut self, now: Instant, start: u64, end: u64) -> u64 {
        let (Some(first), Some(sent_end)) = (self.sent.front(), self.sent_end()) else {
            return 0;
        };
        let (start, end) = (start.max(first.start), end.min(sent_end));
        if start >= end {
            return 0;
        }
        let first = self.split_at(start);
        let stop = self.split_at(end);
        let mut newly = 0;
        for i in first..stop {
            let s = self.sent[i];
            if s.sacked {
                continue;
            }
            self.update(i, |s| {
                s.sacked = true;
                s.lost = false;
                s.retrans_in_flight = false;
            });
            newly += s.len();
            self.on_delivered(now, &s, false);
        }
        self.merge_sacked(first.saturating_sub(1), stop + 1);
        newly
    }

    /// Merges adjacent SACKed records in `[from, to)`, so that scans skip a SACKed run in
    /// one step.
    fn merge_sacked(&mut self, from: usize, to: usize) {
        let mut i = from;
        let mut to = to.min(self.sent.len());
        while i + 1 < to {
            let (a, b) = (self.sent[i], self.sent[i + 1]);
            if a.sacked && b.sacked {
                self.sent[i].end = b.end;
                self.sent[i].segments += b.segments;
                self.sent.remove(i + 1);
                to -= 1;
            } else {
                i += 1;
            }
        }
    }

    /// RFC 8985 §6.2 steps 1 to 3 for a segment newly delivered, `cumulative`ly
    /// acknowledged or SACKed.
    fn on_delivered(&mut self, now: Instant, s: &Sent, cumulative: bool) {
        if let (Some(rate), Some(tx)) = (self.rate.as_mut(), s.tx.as_ref()) {
            rate.on_delivered(now, tx, s.xmit_ts, u64::from(s.segments), s.retransmitted);
        }
        let rtt = now.saturating_duration_since(s.xmit_ts);
        if !s.retransmitted {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        // Step 2: a retransmitted segment delivered sooner than min_RTT after its
        // retransmission, or acknowledged cumulatively by an ACK echoing a timestamp older
        // than the retransmission (`tcp_skb_spurious_retrans` in `tcp_clean_rtx_queue`; a
        // SACK of a segment above a hole echoes an older timestamp anyway), was the
        // original's delivery; it says nothing of the latest sending.
        let echoes_original = cumulative
            && self
                .ack_echo
                .is_some_and(|echo| timestamps::older(echo, timestamps::clock(s.xmit_ts)));
        let ambiguous =
            s.retransmitted && (echoes_original || self.min_rtt.is_none_or(|m| rtt < m));
        let later = self
            .latest
            .is_none_or(|(ts, end)| sent_after(s.xmit_ts, s.end, ts, end));
        if !ambiguous && later {
            self.latest = Some((s.xmit_ts, s.end));
            self.rtt = rtt;
            self.advanced = true;
        }
        // Step 3: an original delivered below the highest delivered was reordered.
        if s.end > self.fack {
            self.fack = s.end;
        } else if s.end < self.fack && !s.retransmitted {
            self.reordering_seen = true;
        }
    }

    /// An ACK carried a D-SACK; `snd_nxt` is the end of what was sent (RFC 8985 step 4:
    /// widen the window once a round trip).
    pub fn on_dsack(&mut self, una: u64, snd_nxt: u64) {
        if self.dsack_round.is_some_and(|round| una >= round) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult = self.reo_wnd_mult.saturating_add(1);
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// A fast or timeout recovery ended (RFC 8985 step 4): after 16 without a D-SACK the
    /// window returns to one step.
    pub fn on_recovery_end(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// A recovery undone because every retransmission came back D-SACKed: the widened
    /// window lasts one recovery longer (`tcp_try_undo_dsack`).
    pub fn on_dsack_undo(&mut self) {
        self.reo_wnd_persist = (self.reo_wnd_persist + 1).min(REO_WND_PERSIST);
    }

    /// An undone timeout or recovery: nothing is deemed lost any more
    /// (`tcp_undo_cwnd_reduction` with `unmark_loss`).
    pub fn unmark_lost(&mut self) {
        for i in 0..self.sent.len() {
            if self.sent[i].lost {
                self.update(i, |s| s.lost = false);
            }
        }
        self.retransmit_hint = 0;
        self.advanced = true;
    }

    /// RFC 8985 §6.2 step 4: the reordering window.
    pub fn reo_wnd(&self, srtt: Duration, recovering: bool, dup_threshold: u32) -> Duration {
        if !self.reordering_seen && (recovering || self.sacked_segments >= u64::from(dup_threshold))
        {
            return Duration::ZERO;
        }
        let min_rtt = self.min_rtt.unwrap_or(Duration::ZERO);
        (min_rtt / 4 * self.reo_wnd_mult).min(srtt)
    }

    /// RFC 8985 §6.2 step 5: marks lost every segment sent before the latest delivered one
    /// and outstanding longer than RACK.rtt + `reo_wnd`. On an ACK (`on_timer` false) it
    /// scans only if a later segment was delivered since the last scan, as Linux's
    /// `tcp_rack_mark_lost`; the reordering timer always scans. `None`: no scan.
    pub fn detect_loss(
        &mut self,
        now: Instant,
        reo_wnd: Duration,
        on_timer: bool,
    ) -> Option<LossScan> {
        let mut scan = LossScan::default();
        let (latest_ts, latest_end) = self.latest.filter(|_| self.advanced || on_timer)?;
        self.advanced = false;
        let mut i = 0;
        while i < self.sent.len() {
            let s = self.sent[i];
            i += 1;
            if s.sacked || (s.lost && !s.retrans_in_flight) {
                continue;
            }
            if !sent_after(latest_ts, latest_end, s.xmit_ts, s.end) {
                // Segments first sent after this one were all sent after the latest
                // delivered: only retransmissions below may still be older.
                if s.retransmitted {
                    continue;
                }
                break;
            }
            let deadline = s.xmit_ts + self.rtt + reo_wnd;
            if deadline <= now {
                if !s.lost {
                    scan.newly_lost += s.len();
                }
                if let Some(rate) = self.rate.as_mut() {
                    // A lost retransmission counts again (`tcp_sum_lost`).
                    rate.on_lost(u64::from(s.segments));
                }
                scan.lost_retransmission |= s.retrans_in_flight;
                self.update(i - 1, |s| {
                    s.lost = true;
                    s.retrans_in_flight = false;
                });
                self.retransmit_hint = self.retransmit_hint.min(s.start);
            } else {
                scan.reorder_deadline =
                    Some(scan.reorder_deadline.map_or(deadline, |d| d.max(deadline)));
            }
        }
        Some(scan)
    }

    /// A retransmission timeout: every segment not SACKed is lost, no retransmission is in
    /// flight (Linux's `tcp_timeout_mark_lost`).
    pub fn on_timeout(&mut self) {
        for i in 0..self.sent.len() {
            let s = self.sent[i];
            if !s.sacked {
                if let Some(rate) = self
                    .rate
                    .as_mut()
                    .filter(|_| !s.lost || s.retrans_in_flight)
                {
                    rate.on_lost(u64::from(s.segments));
                }
                self.update(i, |s| {
                    s.lost = true;
                    s.retrans_in_flight = false;
                });
            }
        }
        self.retransmit_hint = 0;
    }

    /// The first segment deemed lost with no retransmission in flight: what Linux's
    /// `tcp_xmit_retransmit_queue` sends next.
    pub fn next_lost(&mut self) -> Option<(u64, u64)> {
        if self.lost_pending == 0 {
            return None;
        }
        let from = self.sent.partition_point(|s| s.end <= self.retransmit_hint);
        let found = self
            .sent
            .range(from..)
            .find(|s| s.lost && !s.retrans_in_flight)
            .map(|s| (s.start, s.end));
        if let Some((start, _)) = found {
            self.retransmit_hint = start;
        }
        found
    }

    /// The highest segment sent, for a tail loss probe to send again.
    pub fn last_segment(&self) -> Option<(u64, u64)> {
        self.sent
            .back()
            .filter(|s| !s.sacked)
            .map(|s| (s.start, s.end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(ms: f64) -> Instant {
        Instant::from_nanos((ms * 1e6) as u64)
    }

    /// Ten 1000-byte segments sent 1 ms apart from t = 0.
    fn ten_sent() -> Rack {
        let mut rack = Rack::default();
        for i in 0..10 {
            rack.on_transmit(ms(i as f64), i * MSS, (i + 1) * MSS);
        }
        rack
    }

    const SRTT: Duration = Duration::from_millis(100);

    #[test]
    fn a_segment_is_lost_after_rtt_plus_the_reordering_window() {
        let mut rack = ten_sent();
        // Segment 5 (sent at 5 ms) SACKed at 100 ms: RACK.rtt = 95 ms, min_RTT 95 ms.
        assert_eq!(rack.on_sack(ms(100.0), 5000, 6000), 1000);
        let reo_wnd = rack.reo_wnd(SRTT, false, 3);
        assert_eq!(reo_wnd, Duration::from_micros(23_750), "min_RTT / 4");
        let scan = rack
            .detect_loss(ms(100.0), reo_wnd, false)
            .expect("advanced");
        assert_eq!(
            scan.newly_lost, 0,
            "segments 0-4 wait 95 + 23.75 ms from sending"
        );
        // The latest of them, segment 4, is due at 4 + 118.75 ms.
        assert_eq!(scan.reorder_deadline, Some(ms(122.75)));
        assert_eq!(
            rack.detect_loss(ms(101.0), reo_wnd, false),
            None,
            "not advanced"
        );
        let scan = rack.detect_loss(ms(122.75), reo_wnd, true).expect("timer");
        assert_eq!(scan.newly_lost, 5000);
        assert_eq!(scan.reorder_deadline, None);
        // In flight: 10 sent, 1 SACKed, 5 lost.
        assert_eq!(rack.pipe(), 4000);
        assert_eq!(rack.next_lost(), Some((0, 1000)));
    }

    #[test]
    fn dupthresh_sacked_segments_close_the_window_until_reordering_is_seen() {
        let mut rack = ten_sent();
        for i in 5..8 {
            rack.on_sack(ms(100.0), i * MSS, (i + 1) * MSS);
        }
        let reo_wnd = rack.reo_wnd(SRTT, false, 3);
        assert_eq!(reo_wnd, Duration::ZERO, "three SACKed, no reordering seen");
        // RACK.rtt is segment 7's: 93 ms; segment 4 was sent at 4 ms: 97 ≤ 100.
        let scan = rack
            .detect_loss(ms(100.0), reo_wnd, false)
            .expect("advanced");
        assert_eq!(scan.newly_lost, 5000);
        assert_eq!(rack.reo_wnd(SRTT, true, 3), Duration::ZERO, "recovering");
        // An original delivered below the highest delivered: reordering.
        rack.on_cumulative_ack(ms(105.0), 1000);
        assert_eq!(
            rack.reo_wnd(SRTT, true, 3),
            Duration::from_micros(23_250),
            "93 / 4"
        );
        // The window is at most SRTT.
        assert_eq!(
            rack.reo_wnd(Duration::from_millis(10), true, 3),
            Duration::from_millis(10)
        );
    }

    #[test]
    fn a_lost_retransmission_is_found_without_the_timer() {
        let mut rack = ten_sent();
        for i in 5..8 {
            rack.on_sack(ms(100.0), i * MSS, (i + 1) * MSS);
        }
        rack.detect_loss(ms(100.0), Duration::ZERO, false);
        assert_eq!(rack.next_lost(), Some((0, 1000)));
        rack.on_transmit(ms(130.0), 0, 1000);
        assert_eq!(rack.next_lost(), Some((1000, 2000)), "the next one");
        assert_eq!(rack.pipe(), 10_000 - 3000 - 5000 + 1000);
        rack.on_transmit(ms(131.0), 10_000, 11_000);
        // Segment 10 delivered at 240 ms (RACK.rtt 109 ms): the retransmission sent at
        // 130 ms is due at 239 ms.
        rack.on_sack(ms(240.0), 10_000, 11_000);
        let scan = rack
            .detect_loss(ms(240.0), Duration::ZERO, false)
            .expect("advanced");
        assert!(scan.lost_retransmission);
        assert_eq!(
            scan.newly_lost, 2000,
            "segments 8 and 9; the retransmission was lost"
        );
        assert_eq!(rack.next_lost(), Some((0, 1000)), "to be sent again");
        assert_eq!(rack.retrans_bytes(), 0);
    }

    #[test]
    fn a_retransmission_delivered_sooner_than_min_rtt_is_ambiguous() {
        let mut rack = ten_sent();
        rack.on_sack(ms(100.0), 9000, 10_000); // min_RTT 91 ms, RACK.xmit_ts 9 ms
        rack.on_timeout();
        rack.on_transmit(ms(150.0), 0, 1000);
        // Delivered 10 ms after the retransmission: the original arrived.
        rack.on_cumulative_ack(ms(160.0), 1000);
        let scan = rack
            .detect_loss(ms(160.0), Duration::ZERO, true)
            .expect("timer");
        assert_eq!(
            scan.newly_lost, 0,
            "RACK did not advance to the retransmission"
        );
        assert_eq!(rack.latest, Some((ms(9.0), 10_000)));
        // Delivered after min_RTT, the retransmission counts.
        rack.on_transmit(ms(170.0), 1000, 2000);
        rack.on_cumulative_ack(ms(270.0), 2000);
        assert_eq!(rack.latest, Some((ms(170.0), 2000)));
    }

    #[test]
    fn a_timeout_marks_everything_not_sacked_lost() {
        let mut rack = ten_sent();
        rack.on_sack(ms(100.0), 3000, 5000);
        rack.on_transmit(ms(101.0), 0, 1000);
        rack.on_timeout();
        assert_eq!(rack.lost_bytes(), 8000);
        assert_eq!(rack.retrans_bytes(), 0);
        assert_eq!(rack.pipe(), 0);
        let mut order = Vec::new();
        while let Some((start, end)) = rack.next_lost() {
            order.push(start);
            rack.on_transmit(ms(200.0), start, end);
        }
        assert_eq!(order, [0, 1000, 2000, 5000, 6000, 7000, 8000, 9000]);
        assert_eq!(rack.pipe(), 8000);
    }

    #[test]
    fn sacked_runs_merge_and_acks_inside_segments_split_them() {
        let mut rack = ten_sent();
        rack.on_sack(ms(100.0), 2000, 4000);
        rack.on_sack(ms(100.0), 4000, 6000);
        assert_eq!(rack.sent.len(), 7, "2000-6000 one record");
        assert_eq!(rack.sacked_segments, 4);
        // A cumulative ACK inside segment 0, then inside the SACKed run.
        assert_eq!(rack.on_cumulative_ack(ms(101.0), 500), 500);
        assert_eq!(rack.on_cumulative_ack(ms(102.0), 3000), 1500);
        assert_eq!(rack.sacked_bytes(), 3000);
        assert_eq!(rack.sacked_segments, 3);
        assert_eq!(rack.pipe(), 4000);
        // A SACK block beyond what was sent, or below the ACK, changes nothing.
        assert_eq!(rack.on_sack(ms(103.0), 20_000, 21_000), 0);
        assert_eq!(rack.on_sack(ms(103.0), 0, 3000), 0);
    }

    #[test]
    fn dsacks_widen_the_window_once_a_round_for_sixteen_recoveries() {
        let mut rack = ten_sent();
        rack.on_cumulative_ack(ms(100.0), 1000); // min_RTT 100 ms
        rack.on_cumulative_ack(ms(101.0), 2000); // a delivery below nothing: no reordering
        rack.reordering_seen = true;
        assert_eq!(rack.reo_wnd(SRTT, false, 3), Duration::from_millis(25));
        rack.on_dsack(2000, 10_000);
        rack.on_dsack(3000, 10_000);
        assert_eq!(
            rack.reo_wnd(SRTT, false, 3),
            Duration::from_millis(50),
            "one a round"
        );
        rack.on_dsack(10_000, 12_000);
        assert_eq!(rack.reo_wnd(SRTT, false, 3), Duration::from_millis(75));
        for _ in 0..15 {
            rack.on_recovery_end();
        }
        assert_eq!(rack.reo_wnd(SRTT, false, 3), Duration::from_millis(75));
        rack.on_recovery_end();
        assert_eq!(rack.reo_wnd(SRTT, false, 3), Duration::from_millis(25));
    }
}
