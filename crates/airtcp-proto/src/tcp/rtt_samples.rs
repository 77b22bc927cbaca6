//! An RTT sample from every ACK, for the congestion controller (Veno's backlog estimate,
//! Westwood+'s RTTmin, HyStart++'s delay increase), as Linux takes one in
//! `tcp_clean_rtx_queue` from each acknowledged segment's send time.
//!
//! The sample is the time since the newest segment this ACK covers was first sent. Karn's
//! rule (RFC 6298 §3) holds strictly: an ACK that covers any byte sent more than once gives
//! no sample, and neither does one that ends inside a segment or covers bytes that were not
//! timed (a window probe). The retransmission timer keeps its own one-sample-per-round-trip
//! estimate (`RtoEstimator`).

use std::collections::VecDeque;

use core::time::Duration;

use crate::seq::SeqNumber;
use crate::time::Instant;

#[derive(Clone, Debug, Default)]
pub struct RttSamples {
    /// End sequence number and send time of each segment sent once, oldest first.
    sent: VecDeque<(SeqNumber, Instant)>,
    /// Data below this was sent again; ACKs that start below it give no sample.
    retransmitted_below: Option<SeqNumber>,
}

impl RttSamples {
    /// A segment ending at `end` went out for the first time.
    pub fn on_first_transmission(&mut self, end: SeqNumber, now: Instant) {
        self.sent.push_back((end, now));
    }

    /// Data ending at `end` was sent again.
    pub fn on_retransmission(&mut self, end: SeqNumber) {
        self.retransmitted_below = Some(match self.retransmitted_below {
            Some(below) => below.max(end),
            None => end,
        });
    }

    /// A timeout: everything sent so far will be sent again.
    pub fn on_timeout(&mut self, snd_max: SeqNumber) {
        self.sent.clear();
        self.on_retransmission(snd_max);
    }

    /// An ACK moved `snd_una` from `una` to `ack`; the sample it gives, if any.
    pub fn on_ack(&mut self, now: Instant, una: SeqNumber, ack: SeqNumber) -> Option<Duration> {
        let mut newest = None;
        while let Some(&(end, sent_at)) = self.sent.front() {
            if end > ack {
                break;
            }
            newest = Some((end, sent_at));
            self.sent.pop_front();
        }
        let ambiguous = self.retransmitted_below.is_some_and(|below| una < below);
        if self.retransmitted_below.is_some_and(|below| ack >= below) {
            self.retransmitted_below = None;
        }
        match newest {
            Some((end, sent_at)) if end == ack && !ambiguous => Some(now - sent_at),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::ZERO + Duration::from_millis(ms)
    }

    #[test]
    fn each_ack_times_the_newest_segment_it_covers() {
        let mut samples = RttSamples::default();
        for (i, end) in [1000u32, 2000, 3000, 4000].into_iter().enumerate() {
            samples.on_first_transmission(SeqNumber(end), at(10 * i as u64));
        }
        // A delayed ACK of two segments: timed from the second.
        let rtt = samples.on_ack(at(110), SeqNumber(0), SeqNumber(2000));
        assert_eq!(rtt, Some(Duration::from_millis(100)));
        // An ACK inside a segment is not timed (the segment's end is not known to it).
        assert_eq!(
            samples.on_ack(at(120), SeqNumber(2000), SeqNumber(2500)),
            None
        );
        assert_eq!(
            samples.on_ack(at(135), SeqNumber(2500), SeqNumber(4000)),
            Some(Duration::from_millis(105))
        );
    }

    #[test]
    fn karn_no_sample_from_an_ack_that_covers_data_sent_twice() {
        let mut samples = RttSamples::default();
        for (i, end) in [1000u32, 2000, 3000].into_iter().enumerate() {
            samples.on_first_transmission(SeqNumber(end), at(10 * i as u64));
        }
        samples.on_retransmission(SeqNumber(1000));
        assert_eq!(samples.on_ack(at(300), SeqNumber(0), SeqNumber(2000)), None);
        // Past the retransmitted data, samples come again.
        assert_eq!(
            samples.on_ack(at(310), SeqNumber(2000), SeqNumber(3000)),
            Some(Duration::from_millis(290))
        );
        // After a timeout nothing sent before it is timed.
        samples.on_first_transmission(SeqNumber(4000), at(320));
        samples.on_timeout(SeqNumber(4000));
        assert_eq!(
            samples.on_ack(at(900), SeqNumber(3000), SeqNumber(4000)),
            None
        );
        samples.on_first_transmission(SeqNumber(5000), at(900));
        assert_eq!(
            samples.on_ack(at(950), SeqNumber(4000), SeqNumber(5000)),
            Some(Duration::from_millis(50))
        );
    }

    #[test]
    fn sequence_numbers_wrap() {
        let mut samples = RttSamples::default();
        let start = SeqNumber(u32::MAX - 500);
        samples.on_first_transmission(start + 1000, at(0));
        samples.on_first_transmission(start + 2000, at(1));
        assert_eq!(
            samples.on_ack(at(50), start, start + 2000),
            Some(Duration::from_millis(49))
        );
    }
}
