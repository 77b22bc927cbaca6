//! HyStart++ (RFC 9406): leaves the initial slow start before it overshoots, when the
//! round's smallest RTT has grown by a threshold over the previous round's, through
//! Conservative Slow Start (CSS: a quarter of slow start's growth for up to five rounds,
//! back to slow start if the RTT falls again).
//!
//! Rounds are counted in stream bytes: a round ends when the acknowledged bytes reach what
//! had been sent when it began (`windowEnd = SND.NXT`, §4.2). Slow start's own growth is the
//! sender's (`SlowStart`: RFC 5681's min(N, SMSS) per ACK, or Linux's every segment)
//! rather than the RFC's min(N, L·SMSS), so that HyStart++ changes only when slow start
//! ends. Used for the initial slow start only (§4.3).

use core::time::Duration;

/// RFC 9406 §4.3's constants.
const MIN_RTT_THRESH: Duration = Duration::from_millis(4);
const MAX_RTT_THRESH: Duration = Duration::from_millis(16);
const MIN_RTT_DIVISOR: u32 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: u32 = 4;
const CSS_ROUNDS: u32 = 5;

/// What slow start does with an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// Grow cwnd by this many bytes.
    Grow(u32),
    /// Slow start is over: ssthresh = cwnd, congestion avoidance from now on.
    Exit,
}

#[derive(Clone, Debug, Default)]
pub struct HyStart {
    /// Stream offset that ends the current round.
    window_end: Option<u64>,
    last_round_min: Option<Duration>,
    current_round_min: Option<Duration>,
    samples: u32,
    /// In CSS: the RTT that triggered it and the rounds completed in it.
    css: Option<(Duration, u32)>,
}

impl HyStart {
    /// An ACK in slow start that brings the acknowledged stream to `acked` bytes when `sent`
    /// bytes had been sent, with its RTT sample; `increase` is what slow start alone adds.
    pub fn on_ack(
        &mut self,
        acked: u64,
        sent: u64,
        rtt: Option<Duration>,
        increase: u32,
    ) -> Growth {
        if self.window_end.is_none_or(|end| acked >= end) {
            if let Some((baseline, rounds)) = self.css {
                if rounds + 1 >= CSS_ROUNDS {
                    return Growth::Exit;
                }
                self.css = Some((baseline, rounds + 1));
            }
            self.window_end = Some(sent);
            self.last_round_min = self.current_round_min.take();
            self.samples = 0;
        }
        if let Some(rtt) = rtt {
            self.current_round_min = Some(self.current_round_min.map_or(rtt, |min| min.min(rtt)));
            self.samples += 1;
        }
        let enough = self.samples >= N_RTT_SAMPLE;
        match (self.css, self.current_round_min, self.last_round_min) {
            (None, Some(current), Some(last)) if enough => {
                let threshold = (last / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if current >= last + threshold {
                    self.css = Some((current, 0));
                }
            }
            (Some((baseline, _)), Some(current), _) if enough && current < baseline => {
                self.css = None; // a spurious exit: back to slow start
            }
            _ => {}
        }
        if self.css.is_some() {
            Growth::Grow(increase / CSS_GROWTH_DIVISOR)
        } else {
            Growth::Grow(increase)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// One round of `acks` ACKs of 1000 bytes at RTT `rtt`, starting at stream offset
    /// `*acked`; the growth each ACK gets.
    fn round(hystart: &mut HyStart, acked: &mut u64, acks: u64, rtt: Duration) -> Vec<Growth> {
        // What was sent when the round's first ACK came: its end, one more segment on.
        let sent = *acked + (acks + 1) * 1000;
        (0..acks)
            .map(|_| {
                *acked += 1000;
                hystart.on_ack(*acked, sent, Some(rtt), 1000)
            })
            .collect()
    }

    #[test]
    fn a_delay_increase_enters_css_and_five_rounds_end_slow_start() {
        let mut hystart = HyStart::default();
        let mut acked = 0;
        // The first round has no previous round to compare with.
        assert!(round(&mut hystart, &mut acked, 10, ms(100))
            .iter()
            .all(|g| *g == Growth::Grow(1000)));
        // Threshold: max(4, min(100 / 8, 16)) = 12.5 ms. 112 ms is below it.
        assert!(round(&mut hystart, &mut acked, 10, ms(112))
            .iter()
            .all(|g| *g == Growth::Grow(1000)));
        // Against 112 ms the threshold is min(112 / 8, 16) = 14 ms: 126 ms triggers at the
        // eighth sample.
        let growth = round(&mut hystart, &mut acked, 10, ms(126));
        assert_eq!(growth[6], Growth::Grow(1000));
        assert_eq!(growth[7], Growth::Grow(250), "CSS: a quarter");
        for _ in 0..4 {
            let growth = round(&mut hystart, &mut acked, 10, ms(126));
            assert!(growth.iter().all(|g| *g == Growth::Grow(250)));
        }
        // The fifth CSS round ends slow start.
        assert_eq!(round(&mut hystart, &mut acked, 1, ms(126)), [Growth::Exit]);
    }

    #[test]
    fn an_rtt_below_the_css_baseline_resumes_slow_start() {
        let mut hystart = HyStart::default();
        let mut acked = 0;
        round(&mut hystart, &mut acked, 10, ms(20));
        // Threshold max(4, min(20 / 8, 16)) = 4 ms.
        let growth = round(&mut hystart, &mut acked, 10, ms(24));
        assert_eq!(growth[7], Growth::Grow(250));
        let growth = round(&mut hystart, &mut acked, 10, ms(21));
        assert_eq!(growth[6], Growth::Grow(250));
        assert_eq!(growth[7], Growth::Grow(1000), "21 ms < the 24 ms baseline");
    }
}
