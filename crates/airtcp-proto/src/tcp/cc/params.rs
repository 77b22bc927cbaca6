//! Per-controller parameters a scenario may set (`[tcp.congestion_params]`), with the
//! defaults of each controller's paper or RFC, their bounds, and which controllers read
//! them. This table is the one source: the simulator validates against it and the Python
//! schema is built from it.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CongestionParams {
    /// Veno's backlog threshold β in segments (Fu and Liew 2003 §2.1; Linux `beta` = 3):
    /// below it a loss is taken as random and cwnd is cut by 1/5, not 1/2.
    pub veno_beta: u32,
    /// CUBIC's C (RFC 9438 §4.2), in segments per second cubed.
    pub cubic_c: f64,
    /// CUBIC's multiplicative decrease factor β_cubic (RFC 9438 §4.6).
    pub cubic_beta: f64,
    /// CUBIC's fast convergence (RFC 9438 §4.7).
    pub cubic_fast_convergence: bool,
    /// HyStart++ (RFC 9406) in slow start, for cubic and westwood_cubic.
    pub hystart: bool,
}

impl Default for CongestionParams {
    fn default() -> Self {
        CongestionParams {
            veno_beta: 3,
            cubic_c: 0.4,
            cubic_beta: 0.7,
            cubic_fast_convergence: true,
            hystart: true,
        }
    }
}

/// One parameter: its name, the controllers that read it, and its bounds (numbers only).
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub controllers: &'static [&'static str],
    pub bounds: Option<(f64, f64)>,
}

const CUBIC_FAMILY: &[&str] = &["cubic", "westwood_cubic"];

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "veno_beta",
        controllers: &["veno"],
        bounds: Some((1.0, 1000.0)),
    },
    ParamSpec {
        name: "cubic_c",
        controllers: CUBIC_FAMILY,
        bounds: Some((0.01, 10.0)),
    },
    ParamSpec {
        name: "cubic_beta",
        controllers: CUBIC_FAMILY,
        bounds: Some((0.5, 0.95)),
    },
    ParamSpec {
        name: "cubic_fast_convergence",
        controllers: CUBIC_FAMILY,
        bounds: None,
    },
    ParamSpec {
        name: "hystart",
        controllers: CUBIC_FAMILY,
        bounds: None,
    },
];

impl CongestionParams {
    /// The first parameter outside its bounds, with its value.
    pub fn out_of_bounds(&self) -> Option<(&'static ParamSpec, f64)> {
        let values = [
            ("veno_beta", f64::from(self.veno_beta)),
            ("cubic_c", self.cubic_c),
            ("cubic_beta", self.cubic_beta),
        ];
        values.into_iter().find_map(|(name, value)| {
            let spec = PARAMS.iter().find(|spec| spec.name == name)?;
            let (low, high) = spec.bounds?;
            (!(low..=high).contains(&value)).then_some((spec, value))
        })
    }

    /// The parameters that differ from their defaults and that `controller` does not read.
    pub fn unused_by(&self, controller: &str) -> Vec<&'static str> {
        let set = serde_json::to_value(self).expect("plain fields");
        let default = serde_json::to_value(Self::default()).expect("plain fields");
        PARAMS
            .iter()
            .filter(|spec| set[spec.name] != default[spec.name])
            .filter(|spec| !spec.controllers.contains(&controller))
            .map(|spec| spec.name)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_has_a_spec_and_bounds_are_checked() {
        let fields = serde_json::to_value(CongestionParams::default()).unwrap();
        let names: Vec<_> = fields.as_object().unwrap().keys().cloned().collect();
        let mut specs: Vec<_> = PARAMS.iter().map(|spec| spec.name.to_string()).collect();
        specs.sort();
        let mut names = names;
        names.sort();
        assert_eq!(names, specs);
        assert!(CongestionParams::default().out_of_bounds().is_none());
        let bad = CongestionParams {
            cubic_beta: 1.0,
            ..CongestionParams::default()
        };
        assert_eq!(bad.out_of_bounds().unwrap().0.name, "cubic_beta");
    }

    #[test]
    fn a_parameter_set_for_another_controller_is_named() {
        let params = CongestionParams {
            veno_beta: 5,
            ..CongestionParams::default()
        };
        assert_eq!(params.unused_by("cubic"), vec!["veno_beta"]);
        assert!(params.unused_by("veno").is_empty());
    }
}
