//! The acknowledgement fields of an arriving segment: the send window's update (RFC 9293
//! §3.10.7.4, SND.WL1/SND.WL2), SACK blocks into the scoreboard (RFC 2018), the cumulative
//! ACK's advance of SND.UNA with its RTT samples (RFC 6298 with Karn's rule, or RTTM with
//! timestamps, RFC 7323 §4), and window growth while the sender is cwnd-limited (RFC 7661
//! §4.2). Loss recovery itself is `recovery` (NewReno, RFC 6675) or `rack_recovery`.

use core::time::Duration;

use super::TcpSocket;
use crate::seq::SeqNumber;
use crate::tcp::cc::AckEvent;
use crate::tcp::timestamps;
use crate::time::Instant;
use crate::wire::{SackBlocks, TcpRepr, Timestamps};

impl TcpSocket {
    /// Processes the acknowledgement fields; false if the segment must be dropped.
    pub(super) fn process_ack(&mut self, now: Instant, seg: &TcpRepr) -> bool {
        let ack = seg.ack;
        if ack.diff(self.snd_max) > 0 {
            // It acknowledges what was never sent: answer with an ACK and drop the segment,
            // data included (RFC 9293 §3.10.7.4).
            self.ack_now = true;
            return false;
        }
        self.last_ack_at = now;
        let old_window = self.snd_wnd;
        let seg_window = u32::from(seg.window) << self.snd_shift;
        if !seg.flags.syn
            && (self.snd_wl1 < seg.seq || (self.snd_wl1 == seg.seq && self.snd_wl2 <= ack))
        {
            self.snd_wnd = seg_window;
            self.max_snd_wnd = self.max_snd_wnd.max(seg_window);
            self.snd_wl1 = seg.seq;
            self.snd_wl2 = ack;
        }
        let newly_sacked = self.take_sack_blocks(&seg.sack);
        let echo = seg.timestamps.filter(|_| self.timestamps_ok);
        if self.rack_on() {
            self.rack_ack(now, seg, echo, seg_window == old_window);
        } else {
            self.reno_ack(now, seg, echo, newly_sacked, old_window, seg_window);
            self.ecn_on_ack(ack);
            self.ecn_on_echo(now, seg);
        }
        self.update_pacing_rate();
        if self.snd_wnd > 0 && self.persist.is_some() {
            self.persist = None;
        }
        if self.snd_wnd == 0 && self.snd_nxt != self.snd_una {
            self.on_window_closed_in_flight();
        } else if self.held && self.snd_wnd > 0 {
            self.held = false;
            if self.snd_una != self.snd_max && self.rtx_deadline.is_none() {
                self.rtx_deadline = Some(now + self.rto.rto());
            }
        }
        true
    }

    /// Sequence-space offset of `seq` from the ISS, on the send side.
    pub(super) fn send_offset(&self, seq: SeqNumber) -> u64 {
        (self.una_offset as i64 + seq.diff(self.snd_una)).max(0) as u64
    }

    /// Enters an ACK's SACK blocks in the scoreboard; the bytes newly SACKed.
    pub(super) fn take_sack_blocks(&mut self, sack: &SackBlocks) -> u64 {
        if !self.sack_ok || sack.is_empty() {
            return 0;
        }
        let mut blocks = [(0, 0); SackBlocks::MAX];
        for (slot, &(left, right)) in blocks.iter_mut().zip(sack.as_slice()) {
            *slot = (self.send_offset(left), self.send_offset(right));
        }
        let max = self.send_offset(self.snd_max);
        self.scoreboard
            .on_sack(&blocks[..sack.as_slice().len()], self.una_offset, max)
    }

    /// RTTM (RFC 7323 section 4): with timestamps every ACK of new data measures, from the
    /// segment's send time or, where Karn's rule forbids that, from the echo (as Linux's
    /// `tcp_ack_update_rtt`), weighted as one of the samples a round trip brings (Appendix
    /// G).
    pub(super) fn measure_with_timestamps(
        &mut self,
        now: Instant,
        sample: Option<Duration>,
        echo: Option<Timestamps>,
        flight: u32,
    ) {
        if let Some(rtt) = sample.or_else(|| echo.and_then(|seen| timestamps::rtt(now, seen))) {
            let expected = u64::from(flight / (2 * self.mss).max(1)).max(1);
            self.rto.on_sample_among(rtt, expected);
        }
    }

    /// The cumulative ACK moved to `ack`: counters, RTT samples, snd_una. Returns the bytes
    /// acknowledged, the flight before the ACK and the RTT sample it gave.
    pub(super) fn advance_una(
        &mut self,
        now: Instant,
        ack: SeqNumber,
        echo: Option<Timestamps>,
    ) -> (u32, u32, Option<Duration>) {
        let acked = ack - self.snd_una;
        self.cc.on_any_ack(now, acked);
        self.consecutive_timeouts = 0;
        self.first_timeout_at = None;
        let flight_before = self.snd_max - self.snd_una;
        // Payload bytes exclude the SYN and FIN sequence numbers. Both tests compare numbers
        // within the window, never with the initial sequence number, which may be more than
        // 2^31 behind.
        // The SYN is all that precedes the first payload byte (snd_una meets the ISS again
        // after 2^32 bytes, hence the second test).
        let syn_acked = self.snd_una == self.iss && self.acked == 0;
        let fin_acked = self.close_requested && ack.diff(self.data_end()) > 0;
        let payload_acked = acked - u32::from(syn_acked) - u32::from(fin_acked);
        self.acked += u64::from(payload_acked);
        self.stats.bytes_acked += u64::from(payload_acked);

        let rtt = self.rtt_samples.on_ack(now, self.snd_una, ack);
        if self.timestamps_ok {
            self.measure_with_timestamps(now, rtt, echo, flight_before);
        } else if let Some((end, sent_at)) = self.timed {
            if ack >= end {
                self.rto.on_sample(now - sent_at);
                self.timed = None;
            }
        }
        if let Some(sample) = rtt {
            self.cc.on_rtt_sample(now, sample);
        }
        self.snd_una = ack;
        self.una_offset += u64::from(acked);
        self.scoreboard.on_cumulative_ack(self.una_offset);
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        (acked, flight_before, rtt)
    }

    /// New data acknowledged outside recovery: the controller grows the window if the
    /// sender was limited by it (RFC 7661 §4.2, Linux's `tcp_is_cwnd_limited`).
    pub(super) fn grow_window(
        &mut self,
        now: Instant,
        acked: u32,
        flight_before: u32,
        rtt: Option<Duration>,
    ) {
        let window = self.cc.window();
        let cwnd_limited = if window.in_slow_start() {
            2 * u64::from(flight_before) >= u64::from(window.cwnd)
        } else {
            flight_before + window.mss > window.cwnd
        };
        if cwnd_limited {
            self.cc.on_ack(&AckEvent {
                now,
                bytes_acked: acked,
                flight_size: flight_before,
                rtt,
            });
        }
    }
}
