//! What one radio receives: the signals on the air at its antenna, the frame its PHY is
//! locked on, and whether that frame survives the noise and interference it met.
//!
//! As ns-3's `InterferenceHelper` does, a frame is cut into chunks of constant SINR at every
//! start and end of another signal, and at the boundary between its PHY header (sent at the
//! header rate) and its payload (at the data rate); its success probability is the product
//! of the chunks' success rates (`airtcp_proto::wifi::error_rate`), one draw deciding it.
//! The preamble itself is not error-checked: detecting it is the lock decision (`Medium`).

use airtcp_proto::wifi::error_rate::{success_rate, Family};
use airtcp_proto::Instant;

/// A signal at this radio's antenna: transmission `tx`, from `start` to `end` (at this radio:
/// propagation delay included), received with `power_mw`.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub tx: u32,
    pub start: Instant,
    pub end: Instant,
    pub power_mw: f64,
}

/// How a frame is sent, for its error chunks: the PHY header from `header_ns` after its start
/// at `header_rate_bps`, the payload from `payload_ns` at `payload_rate_bps`.
#[derive(Clone, Copy, Debug)]
pub struct FrameShape {
    pub family: Family,
    pub header_ns: u64,
    pub header_rate_bps: u64,
    pub payload_ns: u64,
    pub payload_rate_bps: u64,
}

/// The signals at one radio, and the one its PHY is receiving.
#[derive(Debug, Default)]
pub struct Antenna {
    arrivals: Vec<Arrival>,
    /// The arrival (its `tx`) the PHY is locked on.
    pub lock: Option<Arrival>,
}

impl Antenna {
    pub fn add(&mut self, arrival: Arrival) {
        self.arrivals.push(arrival);
    }

    /// Power of the signals that have not ended by `at`, `except` one transmission (a
    /// signal registered ahead of its arrival counts already: see `Medium`).
    pub fn energy_mw(&self, at: Instant, except: Option<u32>) -> f64 {
        self.arrivals
            .iter()
            .filter(|a| a.end > at && Some(a.tx) != except)
            .map(|a| a.power_mw)
            .sum()
    }

    /// The transmissions whose signals have not ended by `at`.
    pub fn on_air(&self, at: Instant) -> impl Iterator<Item = u32> + '_ {
        self.arrivals
            .iter()
            .filter(move |a| a.end > at)
            .map(|a| a.tx)
    }

    /// Forgets signals that ended by `now` and that no frame being received overlaps.
    pub fn prune(&mut self, now: Instant) {
        let keep_from = self.lock.map_or(now, |lock| lock.start.min(now));
        self.arrivals.retain(|a| a.end > keep_from);
    }

    /// Probability that `frame` (an arrival at this antenna) is received without error,
    /// over noise `noise_mw` and the other signals that overlapped it.
    pub fn success_probability(&self, frame: &Arrival, shape: &FrameShape, noise_mw: f64) -> f64 {
        let (start, end) = (frame.start.as_nanos(), frame.end.as_nanos());
        let header_at = start + shape.header_ns;
        let payload_at = start + shape.payload_ns;
        let mut cuts: Vec<u64> = vec![header_at, payload_at];
        let interferers: Vec<&Arrival> = self
            .arrivals
            .iter()
            .filter(|a| a.tx != frame.tx && a.start < frame.end && a.end > frame.start)
            .collect();
        for a in &interferers {
            cuts.extend([a.start.as_nanos(), a.end.as_nanos()]);
        }
        cuts.retain(|&t| t > header_at.min(start) && t < end);
        cuts.push(end);
        cuts.sort_unstable();
        cuts.dedup();
        let mut probability = 1.0;
        let mut from = header_at;
        for &to in &cuts {
            if to <= from {
                continue;
            }
            let interference: f64 = interferers
                .iter()
                .filter(|a| a.start.as_nanos() <= from && a.end.as_nanos() > from)
                .map(|a| a.power_mw)
                .sum();
            let sinr = frame.power_mw / (noise_mw + interference);
            let rate = if from < payload_at {
                shape.header_rate_bps
            } else {
                shape.payload_rate_bps
            };
            let bits = (u128::from(to - from) * u128::from(rate) / 1_000_000_000) as u64;
            if bits > 0 {
                probability *= success_rate(shape.family, rate, sinr, bits);
            }
            from = to;
        }
        probability
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(us: u64) -> Instant {
        Instant::from_nanos(us * 1_000)
    }

    const DSSS_11: FrameShape = FrameShape {
        family: Family::Dsss,
        header_ns: 144_000,
        header_rate_bps: 1_000_000,
        payload_ns: 192_000,
        payload_rate_bps: 11_000_000,
    };

    #[test]
    fn chunks_multiply_with_interference_added_where_it_overlaps() {
        let noise = 1e-9;
        let frame = Arrival {
            tx: 0,
            start: at(0),
            end: at(1192),
            power_mw: 1e-8,
        };
        let mut antenna = Antenna::default();
        antenna.add(frame);
        let alone = antenna.success_probability(&frame, &DSSS_11, noise);
        let header = success_rate(Family::Dsss, 1_000_000, 10.0, 48);
        let payload = success_rate(Family::Dsss, 11_000_000, 10.0, 11_000);
        assert!((alone - header * payload).abs() < 1e-12, "{alone}");
        // Two interferers by hand: 2e-9 over [500, 700) µs and 3e-9 over [600, 900) µs.
        for (tx, from, to, power) in [(1, 500, 700, 2e-9), (2, 600, 900, 3e-9)] {
            antenna.add(Arrival {
                tx,
                start: at(from),
                end: at(to),
                power_mw: power,
            });
        }
        let expected = header
            * success_rate(Family::Dsss, 11_000_000, 10.0, 11 * 308)
            * success_rate(Family::Dsss, 11_000_000, 1e-8 / 3e-9, 11 * 100)
            * success_rate(Family::Dsss, 11_000_000, 1e-8 / 6e-9, 11 * 100)
            * success_rate(Family::Dsss, 11_000_000, 1e-8 / 4e-9, 11 * 200)
            * success_rate(Family::Dsss, 11_000_000, 10.0, 11 * 292);
        let got = antenna.success_probability(&frame, &DSSS_11, noise);
        assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
        assert!(got < alone);
        assert_eq!(antenna.on_air(at(650)).collect::<Vec<_>>(), vec![0, 1, 2]);
        assert_eq!(antenna.energy_mw(at(800), None), 1e-8 + 3e-9);
        antenna.lock = Some(frame);
        antenna.prune(at(1000));
        assert_eq!(
            antenna.arrivals.len(),
            3,
            "overlapping the frame being received"
        );
        antenna.lock = None;
        antenna.prune(at(1000));
        assert_eq!(antenna.arrivals.len(), 1);
    }
}
