//! Radios that move: along a path of timed points (straight lines between them, at rest after
//! the last), or by random waypoint (Johnson and Maltz, "Dynamic Source Routing in Ad Hoc
//! Wireless Networks", 1996; ns-3's `RandomWaypointMobilityModel`): pause, pick a point of
//! the area and a speed uniformly, go there in a straight line, pause again. The channel asks
//! where each moving radio is every `position_update` and recomputes who hears whom then.

use rand::Rng;

use crate::config::MotionConfig;
use crate::rng::Stream;

/// A moving radio's state: the path's knots, or the random waypoint's leg under way.
#[derive(Debug)]
pub struct Motion {
    config: MotionConfig,
    /// Path: the start at time 0, then each point (position, seconds).
    knots: Vec<([f64; 3], f64)>,
    /// Random waypoint: the leg under way, from a point at a time to a point at a later
    /// time; a pause is a leg that goes nowhere.
    from: ([f64; 3], f64),
    to: ([f64; 3], f64),
    paused: bool,
    rng: Stream,
}

impl Motion {
    /// A radio starting at `start` that moves as `config` says, drawing from `rng`.
    pub fn new(config: MotionConfig, start: [f64; 3], rng: Stream) -> Motion {
        let mut knots = vec![(start, 0.0)];
        if let MotionConfig::Path { points } = &config {
            knots.extend(
                points
                    .iter()
                    .map(|p| ([p.x, p.y, p.z], p.at_ns as f64 / 1e9)),
            );
        }
        Motion {
            config,
            knots,
            from: (start, 0.0),
            to: (start, 0.0),
            // It sets off at once, as ns-3's model does, and pauses on arrival.
            paused: true,
            rng,
        }
    }

    /// Where the radio is at `t` seconds; `t` never decreases from call to call.
    pub fn position_at(&mut self, t: f64) -> [f64; 3] {
        if let MotionConfig::Path { .. } = self.config {
            return match self.knots.iter().position(|&(_, at)| at > t) {
                None => self.knots[self.knots.len() - 1].0,
                Some(0) => self.knots[0].0,
                Some(i) => interpolate(self.knots[i - 1], self.knots[i], t),
            };
        }
        while t >= self.to.1 {
            self.next_leg();
        }
        interpolate(self.from, self.to, t)
    }

    /// Random waypoint: after a move, the pause; after a pause, a move to a point of the
    /// area drawn uniformly, at a speed drawn uniformly.
    fn next_leg(&mut self) {
        let MotionConfig::RandomWaypoint {
            x_min,
            x_max,
            y_min,
            y_max,
            speed_min_mps,
            speed_max_mps,
            pause_ns,
        } = self.config
        else {
            unreachable!("only random waypoint draws legs");
        };
        let (here, now) = self.to;
        if !self.paused && pause_ns > 0 {
            self.paused = true;
            self.from = (here, now);
            self.to = (here, now + pause_ns as f64 / 1e9);
            return;
        }
        self.paused = false;
        let target = [
            self.rng.random_range(x_min..=x_max),
            self.rng.random_range(y_min..=y_max),
            here[2],
        ];
        let speed = self.rng.random_range(speed_min_mps..=speed_max_mps);
        // A leg of at least a nanosecond, so that time always advances.
        let duration = (distance(here, target) / speed).max(1e-9);
        self.from = (here, now);
        self.to = (target, now + duration);
    }
}

fn interpolate((a, ta): ([f64; 3], f64), (b, tb): ([f64; 3], f64), t: f64) -> [f64; 3] {
    if tb <= ta || t <= ta {
        return a;
    }
    let f = ((t - ta) / (tb - ta)).min(1.0);
    [
        a[0] + f * (b[0] - a[0]),
        a[1] + f * (b[1] - a[1]),
        a[2] + f * (b[2] - a[2]),
    ]
}

/// Metres between two points.
pub(super) fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    a.iter()
        .zip(&b)
        .map(|(p, q)| (p - q) * (p - q))
        .sum::<f64>()
        .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PathPoint;
    use crate::rng::{stream, StreamId};

    fn rng() -> Stream {
        stream(
            1,
            StreamId::Radio {
                channel: 0,
                radio: 0,
            },
        )
    }

    #[test]
    fn a_path_is_straight_lines_between_its_points() {
        let points = vec![
            PathPoint {
                at_ns: 10_000_000_000,
                x: 100.0,
                y: 0.0,
                z: 0.0,
            },
            PathPoint {
                at_ns: 20_000_000_000,
                x: 100.0,
                y: 50.0,
                z: 0.0,
            },
        ];
        let mut motion = Motion::new(MotionConfig::Path { points }, [0.0, 0.0, 0.0], rng());
        assert_eq!(motion.position_at(0.0), [0.0, 0.0, 0.0]);
        assert_eq!(motion.position_at(2.5), [25.0, 0.0, 0.0]);
        assert_eq!(motion.position_at(10.0), [100.0, 0.0, 0.0]);
        assert_eq!(motion.position_at(15.0), [100.0, 25.0, 0.0]);
        assert_eq!(
            motion.position_at(60.0),
            [100.0, 50.0, 0.0],
            "at rest after the last"
        );
    }

    #[test]
    fn random_waypoint_stays_in_its_area_at_its_speeds_and_pauses() {
        let config = MotionConfig::RandomWaypoint {
            x_min: -50.0,
            x_max: 50.0,
            y_min: 0.0,
            y_max: 20.0,
            speed_min_mps: 1.0,
            speed_max_mps: 2.0,
            pause_ns: 3_000_000_000,
        };
        let mut motion = Motion::new(config.clone(), [0.0, 10.0, 1.5], rng());
        let mut previous = motion.position_at(0.0);
        let (mut still, mut moving) = (0, 0);
        for step in 1..=20_000 {
            let here = motion.position_at(f64::from(step) * 0.01);
            assert!((-50.0..=50.0).contains(&here[0]) && (0.0..=20.0).contains(&here[1]));
            assert_eq!(here[2], 1.5);
            let speed = distance(previous, here) / 0.01;
            assert!(speed <= 2.0 + 1e-6, "{speed}");
            if speed < 1e-9 {
                still += 1;
            } else {
                moving += 1;
            }
            previous = here;
        }
        assert!(
            still > 1_000 && moving > 1_000,
            "{still} still, {moving} moving"
        );
        // Seeded: the same stream, the same walk.
        let mut again = Motion::new(config, [0.0, 10.0, 1.5], rng());
        assert_eq!(again.position_at(200.0), previous);
    }
}
