//! Handoffs from movement. The mobile follows a path: straight lines at constant speed
//! between timed points, at rest before the first and after the last. Each base station's
//! cell covers a disc: its antenna's place and its range, in metres (free space, no
//! shadowing). The mobile keeps its cell while in its range (a hard handoff, as paper 001's
//! mobile: an overlap of cells is not used early); when it leaves the range it detaches, and
//! hands off to the nearest cell whose range it is in then, or else to the first whose range
//! it enters next: the gap between the cells adds to the handoff's duration. It may come
//! back to the cell it left (from = to: a reconnection after an outage), or reach no cell
//! again before the run ends (the handoff does not complete).

use super::{Handoff, Planned};
use crate::config::{Coverage, MobileConfig, Movement, Waypoint};

/// Closed intervals of time, in ns, in order and apart.
type Intervals = Vec<(u64, u64)>;

impl Movement {
    /// Where the mobile is at `t`.
    pub fn position(&self, t: u64) -> (f64, f64) {
        let path = &self.path;
        let after = path.partition_point(|w| w.at_ns <= t);
        if after == 0 {
            return (path[0].x_m, path[0].y_m);
        }
        let from = path[after - 1];
        let Some(to) = path.get(after) else {
            return (from.x_m, from.y_m);
        };
        let s = (t - from.at_ns) as f64 / (to.at_ns - from.at_ns) as f64;
        (
            from.x_m + s * (to.x_m - from.x_m),
            from.y_m + s * (to.y_m - from.y_m),
        )
    }

    fn distance(&self, cell: &Coverage, t: u64) -> f64 {
        let (x, y) = self.position(t);
        (x - cell.x_m).hypot(y - cell.y_m)
    }

    /// When, up to `end_ns`, the mobile is in `cell`'s range.
    pub fn in_range(&self, cell: &Coverage, end_ns: u64) -> Intervals {
        let path = &self.path;
        let first = path[0];
        let last = path[path.len() - 1];
        // At rest before the first point and after the last: zero-length moves.
        let legs = std::iter::once((Waypoint { at_ns: 0, ..first }, first))
            .chain(path.windows(2).map(|pair| (pair[0], pair[1])))
            .chain(std::iter::once((
                last,
                Waypoint {
                    at_ns: end_ns.max(last.at_ns),
                    ..last
                },
            )));
        let mut intervals: Intervals = Vec::new();
        for (from, to) in legs {
            let Some((start, stop)) = leg_in_range(cell, from, to) else {
                continue;
            };
            let (start, stop) = (start, stop.min(end_ns));
            if start > stop {
                continue;
            }
            match intervals.last_mut() {
                Some((_, previous)) if start <= previous.saturating_add(1) => {
                    *previous = (*previous).max(stop);
                }
                _ => intervals.push((start, stop)),
            }
        }
        intervals
    }

    /// The handoffs the mobile makes as it moves, starting in `mobile.attached`'s cell.
    pub(super) fn handoffs(&self, mobile: &MobileConfig, end_ns: u64) -> Vec<Handoff> {
        let ranges: Vec<(usize, Intervals)> = self
            .cells
            .iter()
            .enumerate()
            .map(|(c, cell)| (c, self.in_range(cell, end_ns)))
            .collect();
        let index = |base_station: usize| {
            self.cells
                .iter()
                .position(|c| c.base_station == base_station)
                .expect("validated: the first cell has coverage")
        };
        let mut current = index(mobile.attached);
        let mut from = 0;
        let mut timeline = Vec::new();
        loop {
            let detach_ns = exit_after(&ranges[current].1, from);
            if detach_ns >= end_ns {
                break; // in range to the end of the run
            }
            let (next, in_range_ns) = self
                .nearest_in_range(&ranges, current, detach_ns)
                .or_else(|| self.first_entered(&ranges, detach_ns))
                .unwrap_or((current, end_ns));
            let handoff = mobile.handoff(
                self.cells[current].base_station,
                Planned {
                    detach_ns,
                    to: self.cells[next].base_station,
                    in_range_ns,
                    duration_ns: None,
                },
            );
            timeline.push(handoff);
            if in_range_ns >= end_ns {
                break;
            }
            current = next;
            from = handoff.end_ns().max(detach_ns + 1);
        }
        timeline
    }

    /// The nearest cell other than `left` whose range the mobile is in at `t`.
    fn nearest_in_range(
        &self,
        ranges: &[(usize, Intervals)],
        left: usize,
        t: u64,
    ) -> Option<(usize, u64)> {
        ranges
            .iter()
            .filter(|(c, intervals)| *c != left && covers(intervals, t))
            .map(|&(c, _)| (c, self.distance(&self.cells[c], t)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(c, _)| (c, t))
    }

    /// The cell whose range the mobile enters first after `t`, and when (the nearest then,
    /// if several at once).
    fn first_entered(&self, ranges: &[(usize, Intervals)], t: u64) -> Option<(usize, u64)> {
        ranges
            .iter()
            .filter_map(|(c, intervals)| {
                let &(start, _) = intervals.iter().find(|&&(start, _)| start > t)?;
                Some((*c, start))
            })
            .min_by(|a, b| {
                a.1.cmp(&b.1).then_with(|| {
                    let da = self.distance(&self.cells[a.0], a.1);
                    da.total_cmp(&self.distance(&self.cells[b.0], b.1))
                })
            })
    }
}

fn covers(intervals: &Intervals, t: u64) -> bool {
    intervals
        .iter()
        .any(|&(start, stop)| start <= t && t <= stop)
}

/// The last instant in range of the stretch in range that holds `t`, or `t` itself if the
/// mobile is out of range then (the end of the run if it stays in range to the end).
fn exit_after(intervals: &Intervals, t: u64) -> u64 {
    intervals
        .iter()
        .find(|&&(start, stop)| start <= t && t <= stop)
        .map_or(t, |&(_, stop)| stop)
}

/// When on one straight leg the mobile is within the cell's range: |d + v s| <= r for s in
/// [0, 1], d the leg's start relative to the antenna and v the leg's displacement.
fn leg_in_range(cell: &Coverage, from: Waypoint, to: Waypoint) -> Option<(u64, u64)> {
    let (dx, dy) = (from.x_m - cell.x_m, from.y_m - cell.y_m);
    let (vx, vy) = (to.x_m - from.x_m, to.y_m - from.y_m);
    let r2 = cell.range_m * cell.range_m;
    let a = vx * vx + vy * vy;
    let c = dx * dx + dy * dy - r2;
    let (s1, s2) = if a == 0.0 {
        if c > 0.0 {
            return None;
        }
        (0.0, 1.0)
    } else {
        let b = 2.0 * (dx * vx + dy * vy);
        let discriminant = b * b - 4.0 * a * c;
        if discriminant < 0.0 {
            return None;
        }
        let root = discriminant.sqrt();
        ((-b - root) / (2.0 * a), (-b + root) / (2.0 * a))
    };
    let (s1, s2) = (s1.max(0.0), s2.min(1.0));
    if s1 > s2 {
        return None;
    }
    let span = (to.at_ns - from.at_ns) as f64;
    let start = from.at_ns + (s1 * span).ceil() as u64;
    let stop = from.at_ns + (s2 * span).floor() as u64;
    (start <= stop).then_some((start, stop))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Detached, Procedure};

    const S: u64 = 1_000_000_000;

    fn point(at_s: u64, x_m: f64) -> Waypoint {
        Waypoint {
            at_ns: at_s * S,
            x_m,
            y_m: 0.0,
        }
    }

    fn cell(base_station: usize, x_m: f64, range_m: f64) -> Coverage {
        Coverage {
            base_station,
            x_m,
            y_m: 0.0,
            range_m,
        }
    }

    /// Along the x axis from 0 to 300 m in 10 s (30 m/s), past cells 1 at 0 m and 2 at 250 m.
    fn drive(path: Vec<Waypoint>, range_m: f64) -> (Movement, MobileConfig) {
        let movement = Movement {
            path,
            cells: vec![cell(1, 0.0, range_m), cell(2, 250.0, range_m)],
        };
        let mobile = MobileConfig {
            node: 3,
            attached: 1,
            while_detached: Detached::Buffer,
            // Every step at once: the handoff ends when the mobile is in range.
            procedure: Procedure {
                beacon_interval_ns: 1,
                greeting_ns: 0,
                inform_ns: 0,
                adjust_ns: 0,
            },
            handoff_duration_ns: None,
            handoff_jitter_ns: 0,
            handoffs: vec![],
            movement: Some(movement.clone()),
        };
        (movement, mobile)
    }

    #[test]
    fn the_mobile_moves_in_straight_lines_and_rests_at_the_ends() {
        let (movement, _) = drive(vec![point(2, 0.0), point(12, 300.0)], 100.0);
        assert_eq!(movement.position(0), (0.0, 0.0));
        assert_eq!(movement.position(7 * S), (150.0, 0.0));
        assert_eq!(movement.position(20 * S), (300.0, 0.0));
    }

    #[test]
    fn a_cells_range_is_where_the_path_crosses_its_circle() {
        let (movement, _) = drive(vec![point(0, 0.0), point(10, 300.0)], 120.0);
        // In bs1's range to 120 m (4 s), in bs2's from 130 m (4.333 s) to the end.
        assert_eq!(movement.in_range(&movement.cells[0], 20 * S), [(0, 4 * S)]);
        assert_eq!(
            movement.in_range(&movement.cells[1], 20 * S),
            [(4_333_333_334, 20 * S)]
        );
        // A path that passes 100 m beside an antenna with a 50-m range never enters it.
        let away = cell(9, 150.0, 50.0);
        let beside = Movement {
            path: vec![
                Waypoint {
                    at_ns: 0,
                    x_m: 0.0,
                    y_m: 100.0,
                },
                Waypoint {
                    at_ns: 10 * S,
                    x_m: 300.0,
                    y_m: 100.0,
                },
            ],
            cells: vec![away],
        };
        assert_eq!(beside.in_range(&away, 20 * S), []);
    }

    #[test]
    fn the_mobile_hands_off_at_the_edge_waits_out_gaps_and_may_come_back() {
        let handoffs = |path, range| {
            let (movement, mobile) = drive(path, range);
            movement
                .handoffs(&mobile, 30 * S)
                .iter()
                .map(|h| (h.from, h.to, h.detach_ns, h.end_ns()))
                .collect::<Vec<_>>()
        };
        // Overlapping cells: straight to bs2 at bs1's edge (140 m: 4.667 s).
        assert_eq!(
            handoffs(vec![point(0, 0.0), point(10, 300.0)], 140.0),
            [(1, 2, 4_666_666_666, 4_666_666_666)]
        );
        // A 10-m gap: detached from 4 s until in bs2's range.
        assert_eq!(
            handoffs(vec![point(0, 0.0), point(10, 300.0)], 120.0),
            [(1, 2, 4 * S, 4_333_333_334)]
        );
        // Out to 125 m and back: a reconnection to bs1.
        let back = handoffs(vec![point(0, 0.0), point(5, 125.0), point(10, 0.0)], 120.0);
        assert_eq!(back, [(1, 1, 4_800_000_000, 5_200_000_000)]);
    }
}
