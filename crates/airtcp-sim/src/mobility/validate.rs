//! The rules a mobile must follow: its node and cells, the procedure's latencies, and either
//! a schedule of handoffs that fit in the run one after the other (with their whole jitter)
//! or a movement through cells with coverage that starts in the first cell's range.

use airtcp_proto::time::seconds;

use crate::config::{ConfigError, MobileConfig, Movement, Scenario};

type Checked = Result<(), ConfigError>;

fn fail(key: String, message: String) -> Checked {
    Err(ConfigError { key, message })
}

impl MobileConfig {
    /// Checks the mobile at `key` (`mobiles[0]`).
    pub fn validate(&self, scenario: &Scenario, key: &str) -> Checked {
        let names = &scenario.nodes;
        let known = |node: usize| node < names.len();
        if !known(self.node) || !known(self.attached) {
            return fail(key.into(), "must name existing nodes".into());
        }
        let mobile = &names[self.node];
        if scenario
            .mobiles
            .iter()
            .take_while(|m| !std::ptr::eq(*m, self))
            .any(|m| m.node == self.node)
        {
            return fail(
                format!("{key}.node"),
                format!("{mobile} is already a mobile"),
            );
        }
        if scenario.wlans.iter().any(|w| w.ap == self.node) {
            return fail(
                format!("{key}.node"),
                format!("{mobile} is the AP of a WLAN; a mobile is a station of its cells"),
            );
        }
        let stations: Vec<usize> = self
            .cells(scenario)
            .iter()
            .map(|cell| cell.base_station)
            .collect();
        if let Some(twice) = stations
            .iter()
            .enumerate()
            .find_map(|(i, bs)| stations[..i].contains(bs).then_some(*bs))
        {
            return fail(
                format!("{key}.node"),
                format!(
                    "{mobile} has two cells at {}; a cell is one link or one WLAN",
                    names[twice]
                ),
            );
        }
        let cells = Cells {
            mobile,
            names,
            stations: &stations,
        };
        if !stations.contains(&self.attached) {
            return fail(
                format!("{key}.attached"),
                format!(
                    "{} is not a cell of {mobile}; {}",
                    names[self.attached],
                    cells.list()
                ),
            );
        }
        if self.procedure.beacon_interval_ns == 0 {
            return fail(
                format!("{key}.procedure.beacon_interval_ns"),
                "must be positive".into(),
            );
        }
        if self.handoff_duration_ns == Some(0) {
            return fail(
                format!("{key}.handoff_duration_ns"),
                "must be positive".into(),
            );
        }
        match &self.movement {
            Some(movement) => self.validate_movement(movement, &cells, key),
            None => self.validate_schedule(scenario, &cells, key),
        }
    }

    /// Scheduled handoffs: each to another cell, after the previous one ends (the latest it
    /// can end, with its whole jitter) and before the end of the run.
    fn validate_schedule(&self, scenario: &Scenario, cells: &Cells, key: &str) -> Checked {
        let names = cells.names;
        let jitter = self.handoff_jitter_ns;
        let latest = self.timeline(&vec![jitter; self.handoffs.len()], scenario.duration_ns);
        let mut cell = self.attached;
        let mut free_from = 0;
        for (handoff, (j, h)) in latest.iter().zip(self.handoffs.iter().enumerate()) {
            let at = format!("{key}.handoffs[{j}]");
            if !cells.stations.contains(&h.to) {
                return fail(
                    format!("{at}.to"),
                    format!("not a cell of {}; {}", cells.mobile, cells.list()),
                );
            }
            if h.to == cell {
                return fail(
                    format!("{at}.to"),
                    format!("{} is already in {}'s cell then", cells.mobile, names[cell]),
                );
            }
            if h.duration_ns == Some(0) {
                return fail(format!("{at}.duration_ns"), "must be positive".into());
            }
            let with_jitter = |what: &str| {
                if jitter == 0 {
                    String::new()
                } else {
                    format!(" {what} {} s of handoff_jitter", seconds(jitter))
                }
            };
            if h.at_ns < free_from {
                return fail(
                    format!("{at}.at_ns"),
                    format!(
                        "{} s is before the previous handoff ends ({} s{})",
                        seconds(h.at_ns),
                        seconds(free_from),
                        with_jitter("with its")
                    ),
                );
            }
            if handoff.detach_ns >= scenario.duration_ns {
                return fail(
                    format!("{at}.at_ns"),
                    format!(
                        "{} s{} is not before the end of the run ({} s)",
                        seconds(h.at_ns),
                        with_jitter("plus"),
                        seconds(scenario.duration_ns)
                    ),
                );
            }
            free_from = handoff.end_ns();
            cell = h.to;
        }
        Ok(())
    }

    /// Movement: the handoffs follow from it alone; a path of timed points in order, each
    /// coverage at a cell of the mobile, once, and the mobile in its first cell's range.
    fn validate_movement(&self, movement: &Movement, cells: &Cells, key: &str) -> Checked {
        let at = format!("{key}.movement");
        let names = cells.names;
        for (given, field) in [
            (!self.handoffs.is_empty(), "handoffs"),
            (self.handoff_jitter_ns > 0, "handoff_jitter_ns"),
            (self.handoff_duration_ns.is_some(), "handoff_duration_ns"),
        ] {
            if given {
                return fail(
                    format!("{key}.{field}"),
                    "a mobile with movement hands off where it leaves a cell's range; \
                     leave this out"
                        .into(),
                );
            }
        }
        if movement.path.is_empty() {
            return fail(format!("{at}.path"), "needs at least one point".into());
        }
        for (i, point) in movement.path.iter().enumerate() {
            if !(metres(point.x_m) && metres(point.y_m)) {
                return fail(format!("{at}.path[{i}]"), METRES.into());
            }
            if i > 0 && point.at_ns <= movement.path[i - 1].at_ns {
                return fail(
                    format!("{at}.path[{i}].at_ns"),
                    format!(
                        "{} s is not after the previous point's {} s",
                        seconds(point.at_ns),
                        seconds(movement.path[i - 1].at_ns)
                    ),
                );
            }
        }
        for (c, coverage) in movement.cells.iter().enumerate() {
            let here = format!("{at}.cells[{c}]");
            let bs = coverage.base_station;
            if !cells.stations.contains(&bs) {
                return fail(
                    format!("{here}.base_station"),
                    format!("not a cell of {}; {}", cells.mobile, cells.list()),
                );
            }
            if movement.cells[..c].iter().any(|o| o.base_station == bs) {
                return fail(
                    format!("{here}.base_station"),
                    format!("{}'s coverage is given twice", names[bs]),
                );
            }
            if !(metres(coverage.x_m) && metres(coverage.y_m)) {
                return fail(here, METRES.into());
            }
            if !(metres(coverage.range_m) && coverage.range_m > 0.0) {
                return fail(
                    format!("{here}.range_m"),
                    "must be a positive number of metres, at most 10000 km".into(),
                );
            }
        }
        let Some(first) = movement
            .cells
            .iter()
            .find(|c| c.base_station == self.attached)
        else {
            return fail(
                format!("{at}.cells"),
                format!(
                    "give the coverage of {}, the cell {} starts in",
                    names[self.attached], cells.mobile
                ),
            );
        };
        let (x, y) = movement.position(0);
        let distance = (x - first.x_m).hypot(y - first.y_m);
        if distance > first.range_m {
            return fail(
                format!("{key}.attached"),
                format!(
                    "{} starts at ({x}, {y}), {distance:.1} m from {}, beyond its {} m range",
                    cells.mobile, names[self.attached], first.range_m
                ),
            );
        }
        Ok(())
    }
}

/// Places and ranges stay within 10000 km, so that squared distances cannot overflow.
fn metres(value: f64) -> bool {
    value.is_finite() && value.abs() <= 1e7
}

const METRES: &str = "x and y must be numbers of metres within 10000 km of the origin";

/// A mobile's cells, for messages.
struct Cells<'a> {
    mobile: &'a str,
    names: &'a [String],
    stations: &'a [usize],
}

impl Cells<'_> {
    fn list(&self) -> String {
        let cells: Vec<&str> = self
            .stations
            .iter()
            .map(|&bs| self.names[bs].as_str())
            .collect();
        format!(
            "{}'s cells (its links and WLANs) are at: {}",
            self.mobile,
            cells.join(", ")
        )
    }
}
