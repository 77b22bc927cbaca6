//! Workloads of many short TCP flows: sizes drawn from an empirical distribution, arriving
//! as a Poisson process at an offered load, as datacenter transport studies generate them
//! (pFabric, DCTCP, HPCC).
//!
//! A size distribution is a CDF given as points (size in bytes, cumulative probability),
//! interpolated linearly between them (ns-2's `EmpiricalRandomVariable` with interpolation,
//! as empirical-traffic-gen and HPCC's traffic_gen sample them). Two are built in, as
//! github.com/datacenter/empirical-traffic-gen ships them: `web_search` (DCTCP_CDF: the web
//! search cluster of Alizadeh et al., DCTCP, SIGCOMM 2010; mean 1.71 MB) and `data_mining`
//! (VL2_CDF: the data mining cluster of Greenberg et al., VL2, SIGCOMM 2009; mean 12.7 MB,
//! 80 % of flows under 10 kB). Flows arrive with exponential gaps of mean 8 · mean size /
//! offered rate, so that the offered load is the given rate on average.

use rand::Rng;
use serde::Deserialize;

/// A flow-size distribution: CDF points, sizes non-decreasing, probabilities
/// non-decreasing from the first to 1 at the last.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeDistribution {
    points: Vec<(f64, f64)>,
}

/// DCTCP_CDF of empirical-traffic-gen (web search).
const WEB_SEARCH: &[(f64, f64)] = &[
    (0.0, 0.0),
    (10e3, 0.15),
    (20e3, 0.2),
    (30e3, 0.3),
    (50e3, 0.4),
    (80e3, 0.53),
    (200e3, 0.6),
    (1e6, 0.7),
    (2e6, 0.8),
    (5e6, 0.9),
    (10e6, 0.97),
    (30e6, 1.0),
];

/// VL2_CDF of empirical-traffic-gen (data mining).
const DATA_MINING: &[(f64, f64)] = &[
    (0.0, 0.0),
    (180.0, 0.1),
    (216.0, 0.2),
    (560.0, 0.3),
    (900.0, 0.4),
    (1100.0, 0.5),
    (1870.0, 0.6),
    (3160.0, 0.7),
    (10e3, 0.8),
    (400e3, 0.9),
    (3.16e6, 0.95),
    (100e6, 0.98),
    (1e9, 1.0),
];

/// How a scenario names a distribution: built in, or its points.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum SizeSpec {
    Named(String),
    Points(Vec<(f64, f64)>),
}

impl SizeDistribution {
    /// The built-in distributions' names.
    pub const NAMES: [&'static str; 2] = ["web_search", "data_mining"];

    pub fn named(name: &str) -> Option<Self> {
        let points = match name {
            "web_search" => WEB_SEARCH,
            "data_mining" => DATA_MINING,
            _ => return None,
        };
        Some(SizeDistribution {
            points: points.to_vec(),
        })
    }

    /// A distribution from CDF points; why they are not one otherwise.
    pub fn from_points(points: &[(f64, f64)]) -> Result<Self, String> {
        if points.len() < 2 {
            return Err("at least two points (size, probability)".into());
        }
        for pair in points.windows(2) {
            let ((x0, p0), (x1, p1)) = (pair[0], pair[1]);
            if !(x1 >= x0 && p1 >= p0) {
                return Err(format!(
                    "sizes and probabilities must not decrease: ({x0}, {p0}) then ({x1}, {p1})"
                ));
            }
        }
        let (first, last) = (points[0], points[points.len() - 1]);
        if !(first.0 >= 0.0 && first.1 >= 0.0 && first.1 < 1.0) {
            return Err(format!(
                "the first point must have a size >= 0 and a probability in [0, 1): {first:?}"
            ));
        }
        if last.1 != 1.0 || !last.0.is_finite() || last.0 < 1.0 {
            return Err(format!(
                "the last point must have probability 1 and a finite size of at least 1 byte: {last:?}"
            ));
        }
        Ok(SizeDistribution {
            points: points.to_vec(),
        })
    }

    pub fn from_spec(spec: &SizeSpec) -> Result<Self, String> {
        match spec {
            SizeSpec::Named(name) => Self::named(name).ok_or_else(|| {
                format!(
                    "unknown distribution '{name}' (built in: {})",
                    Self::NAMES.join(", ")
                )
            }),
            SizeSpec::Points(points) => Self::from_points(points),
        }
    }

    /// The mean size in bytes: below the first point's probability every size is the first
    /// point's; between points, the midpoint weighted by the probability between them.
    pub fn mean(&self) -> f64 {
        let (x0, p0) = self.points[0];
        let mut mean = x0 * p0;
        for pair in self.points.windows(2) {
            let ((x0, p0), (x1, p1)) = (pair[0], pair[1]);
            mean += (p1 - p0) * (x0 + x1) / 2.0;
        }
        mean
    }

    /// The size (bytes, at least 1) at cumulative probability `u` in [0, 1).
    pub fn quantile(&self, u: f64) -> u64 {
        let i = self.points.partition_point(|&(_, p)| p <= u);
        let size = match (i.checked_sub(1).map(|j| self.points[j]), self.points.get(i)) {
            (Some((x0, p0)), Some(&(x1, p1))) => x0 + (u - p0) / (p1 - p0) * (x1 - x0),
            (None, Some(&(x, _))) => x,
            (Some((x, _)), None) => x,
            (None, None) => unreachable!("at least two points"),
        };
        (size.round() as u64).max(1)
    }

    pub fn sample(&self, rng: &mut impl Rng) -> u64 {
        self.quantile(rng.random::<f64>())
    }
}

/// The gap to the next arrival of a Poisson process of `rate_per_s`, in nanoseconds (at
/// least 1).
pub fn exponential_gap_ns(rate_per_s: f64, rng: &mut impl Rng) -> u64 {
    let u: f64 = rng.random();
    let gap_s = -(1.0 - u).ln() / rate_per_s;
    ((gap_s * 1e9).round() as u64).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_of_the_built_in_distributions() {
        // Web search by hand: 0.15·5 kB + 0.05·15 kB + 0.1·25 kB + 0.1·40 kB + 0.13·65 kB
        // + 0.07·140 kB + 0.1·600 kB + 0.1·1.5 MB + 0.1·3.5 MB + 0.07·7.5 MB + 0.03·20 MB.
        let web = SizeDistribution::named("web_search").unwrap();
        assert!((web.mean() - 1_711_250.0).abs() < 1e-3, "{}", web.mean());
        let mining = SizeDistribution::named("data_mining").unwrap();
        assert!(
            (mining.mean() - 12_658_198.6).abs() < 1e-3,
            "{}",
            mining.mean()
        );
        assert!(SizeDistribution::named("uniform").is_none());
    }

    #[test]
    fn quantiles_interpolate_between_points() {
        let web = SizeDistribution::named("web_search").unwrap();
        assert_eq!(web.quantile(0.0), 1, "at least one byte");
        assert_eq!(web.quantile(0.075), 5000);
        assert_eq!(web.quantile(0.15), 10_000);
        assert_eq!(web.quantile(0.565), 140_000);
        assert_eq!(web.quantile(0.985), 20_000_000);
        let step = SizeDistribution::from_points(&[(1000.0, 0.5), (3000.0, 1.0)]).unwrap();
        assert_eq!(
            step.quantile(0.2),
            1000,
            "below the first probability: its size"
        );
        assert_eq!(step.quantile(0.75), 2000);
        assert!((step.mean() - 1500.0).abs() < 1e-9);
    }

    #[test]
    fn bad_points_say_why() {
        let err = |points: &[(f64, f64)]| SizeDistribution::from_points(points).unwrap_err();
        assert!(err(&[(1.0, 1.0)]).contains("two points"));
        assert!(err(&[(10.0, 0.0), (5.0, 1.0)]).contains("must not decrease"));
        assert!(err(&[(0.0, 0.0), (5.0, 0.9)]).contains("probability 1"));
        assert!(err(&[(-1.0, 0.0), (5.0, 1.0)]).contains("first point"));
    }

    #[test]
    fn gaps_and_sizes_have_the_given_means() {
        let mut rng = crate::rng::stream(3, crate::rng::StreamId::Flow { flow: 0 });
        let n = 200_000;
        let mean_gap = (0..n)
            .map(|_| exponential_gap_ns(1000.0, &mut rng) as f64)
            .sum::<f64>()
            / n as f64;
        assert!((mean_gap / 1e6 - 1.0).abs() < 0.01, "{mean_gap} ns");
        let web = SizeDistribution::named("web_search").unwrap();
        let mean_size = (0..n).map(|_| web.sample(&mut rng) as f64).sum::<f64>() / n as f64;
        assert!((mean_size / web.mean() - 1.0).abs() < 0.03, "{mean_size}");
    }
}
