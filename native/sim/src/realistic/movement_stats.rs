//! How entities move in a recording, measured (issue 49): what the realistic preset is compared
//! with on real server recordings, statistic by statistic, with the tolerance each is held to.
//!
//! Entity kinds are not used (real recordings may carry kind 0 for every entity): a class is a
//! whole recording (its players only, or every entity), and the statistics describe behaviour:
//! how often samples come, how far and how fast entities move between them, how often they turn,
//! how many samples carry nothing new, how long entities live, and where in the world they are.

use std::collections::HashMap;

use tickreel::format::{Event, Pose};

/// How a statistic of the preset is held to the real one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// A share (0 to 1): within this much of the real share, either way.
    Share(f64),
    /// A size (a quantile of speeds, turns, lifetimes): within this factor of the real one,
    /// either way.
    Factor(f64),
    /// A coordinate magnitude: within this many powers of ten.
    Decades(f64),
}

impl Tolerance {
    /// Whether `preset` is within the tolerance of `real`.
    pub fn holds(self, real: f64, preset: f64) -> bool {
        match self {
            Tolerance::Share(d) => (real - preset).abs() <= d,
            Tolerance::Factor(f) => {
                // both (about) zero is a match; one zero against a size is not
                let (r, p) = (real.abs().max(1e-9), preset.abs().max(1e-9));
                r / p <= f && p / r <= f
            }
            Tolerance::Decades(d) => {
                (real.abs().max(1.0).log10() - preset.abs().max(1.0).log10()).abs() <= d
            }
        }
    }
}

/// The statistics [`MovementStats`] measures: name, what it is, its tolerance.
pub const STATISTICS: [(&str, &str, Tolerance); 15] = [
    (
        "gap_1_share",
        "samples 1 tick after the entity's previous one",
        Tolerance::Share(0.15),
    ),
    (
        "gap_2_share",
        "samples 2 ticks after the previous",
        Tolerance::Share(0.15),
    ),
    (
        "gap_3_to_5_share",
        "samples 3-5 ticks after the previous",
        Tolerance::Share(0.15),
    ),
    (
        "gap_over_5_share",
        "samples over 5 ticks after the previous",
        Tolerance::Share(0.15),
    ),
    (
        "moved_share",
        "samples whose position changed",
        Tolerance::Share(0.15),
    ),
    (
        "turned_share",
        "samples whose yaw or pitch changed",
        Tolerance::Share(0.15),
    ),
    (
        "unchanged_share",
        "samples with nothing new (neither moved nor turned)",
        Tolerance::Share(0.15),
    ),
    (
        "climbed_share",
        "moving samples whose height changed (jumps, falls, slopes)",
        Tolerance::Share(0.2),
    ),
    (
        "speed_p50",
        "median blocks per tick between samples that moved",
        Tolerance::Factor(1.5),
    ),
    (
        "speed_p99",
        "99th percentile of the same (sprinting, elytra, boats)",
        Tolerance::Factor(2.0),
    ),
    (
        "turn_p50",
        "median degrees of yaw and pitch change of samples that turned",
        Tolerance::Factor(2.0),
    ),
    (
        "turn_p90",
        "90th percentile of the same",
        Tolerance::Factor(2.0),
    ),
    (
        "lifetime_p50",
        "median ticks from add to remove (entities that left)",
        Tolerance::Factor(2.0),
    ),
    (
        "samples_per_entity_p50",
        "median samples per entity",
        Tolerance::Factor(2.0),
    ),
    (
        "coordinate_max",
        "largest |x| or |z| in blocks",
        Tolerance::Decades(1.0),
    ),
];

/// The shared real recordings' statistics (`shared/traces/real-minecraft`, issue 49: a real
/// survival server's players-only recordings, mc11 and mc3 together, as `tickreel bench --only
/// real` measures them), kept so that the preset is held to them where the folder is absent.
pub const REAL_PLAYERS: [f64; 15] = [
    0.109, 0.844, 0.01, 0.036, 0.982, 0.591, 0.012, 0.563, 0.333, 3.664, 8.438, 52.03, 8943.0,
    3128.0, 4.857e6,
];
/// The same for every entity of those recordings (players, mobs, items, projectiles).
pub const REAL_ALL: [f64; 15] = [
    0.501, 0.077, 0.303, 0.119, 0.79, 0.332, 0.204, 0.636, 0.422, 2.026, 8.438, 80.16, 142.0, 36.0,
    4.857e6,
];

/// The statistics of one recording, in the order of [`STATISTICS`].
#[derive(Debug, Clone, PartialEq)]
pub struct MovementStats {
    pub values: [f64; 15],
    /// Pose samples measured (those with an earlier sample of the same entity).
    pub samples: u64,
}

fn quantile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

impl MovementStats {
    /// Measures `ticks` (a recording's ticks, in order).
    pub fn of(ticks: &[(u32, Vec<Event>)]) -> MovementStats {
        let mut last: HashMap<u32, (u32, Pose)> = HashMap::new();
        let mut added: HashMap<u32, u32> = HashMap::new();
        let mut per_entity: HashMap<u32, u64> = HashMap::new();
        let mut lifetimes = Vec::new();
        let (mut gaps, mut samples) = ([0u64; 4], 0u64);
        let (mut moved, mut turned, mut unchanged, mut climbed) = (0u64, 0u64, 0u64, 0u64);
        let (mut speeds, mut turns) = (Vec::new(), Vec::new());
        let mut coordinate_max = 0f64;
        for (t, events) in ticks {
            for e in events {
                let (entity, pose) = match *e {
                    Event::EntityAdd { entity, pose, .. } => {
                        added.insert(entity, *t);
                        last.insert(entity, (*t, pose));
                        coordinate_max = coordinate_max
                            .max(pose.x_f64().abs())
                            .max(pose.z_f64().abs());
                        continue;
                    }
                    Event::EntityRemove { entity } | Event::PlayerLeave { entity } => {
                        if let Some(a) = added.remove(&entity) {
                            lifetimes.push(f64::from(t - a));
                        }
                        last.remove(&entity);
                        continue;
                    }
                    Event::Pose { entity, pose } | Event::Teleport { entity, pose } => {
                        (entity, pose)
                    }
                    Event::Position { entity, x, y, z } => {
                        let Some(&(_, p)) = last.get(&entity) else {
                            continue;
                        };
                        (entity, Pose { x, y, z, ..p })
                    }
                    Event::Rotation { entity, yaw, pitch } => {
                        let Some(&(_, p)) = last.get(&entity) else {
                            continue;
                        };
                        (entity, Pose { yaw, pitch, ..p })
                    }
                    _ => continue,
                };
                coordinate_max = coordinate_max
                    .max(pose.x_f64().abs())
                    .max(pose.z_f64().abs());
                *per_entity.entry(entity).or_default() += 1;
                let Some((lt, lp)) = last.insert(entity, (*t, pose)) else {
                    continue;
                };
                let gap = t.saturating_sub(lt);
                if gap == 0 {
                    continue;
                }
                samples += 1;
                gaps[match gap {
                    1 => 0,
                    2 => 1,
                    3..=5 => 2,
                    _ => 3,
                }] += 1;
                let m = (pose.x, pose.y, pose.z) != (lp.x, lp.y, lp.z);
                let r = (pose.yaw, pose.pitch) != (lp.yaw, lp.pitch);
                if m {
                    moved += 1;
                    climbed += u64::from(pose.y != lp.y);
                    let d = ((pose.x_f64() - lp.x_f64()).powi(2)
                        + (pose.y_f64() - lp.y_f64()).powi(2)
                        + (pose.z_f64() - lp.z_f64()).powi(2))
                    .sqrt();
                    speeds.push(d / f64::from(gap));
                }
                if r {
                    turned += 1;
                    turns.push(
                        (pose.yaw_deg() - lp.yaw_deg()).abs()
                            + (pose.pitch_deg() - lp.pitch_deg()).abs(),
                    );
                }
                unchanged += u64::from(!m && !r);
            }
        }
        // the entities still there at the end lived at least until then
        let end = ticks.last().map_or(0, |(t, _)| *t);
        lifetimes.extend(added.values().map(|&a| f64::from(end - a)));
        let share = |n: u64| n as f64 / samples.max(1) as f64;
        let mut counts: Vec<f64> = per_entity.values().map(|&n| n as f64).collect();
        MovementStats {
            values: [
                share(gaps[0]),
                share(gaps[1]),
                share(gaps[2]),
                share(gaps[3]),
                share(moved),
                share(turned),
                share(unchanged),
                climbed as f64 / moved.max(1) as f64,
                quantile(&mut speeds, 0.5),
                quantile(&mut speeds, 0.99),
                quantile(&mut turns, 0.5),
                quantile(&mut turns, 0.9),
                quantile(&mut lifetimes, 0.5),
                quantile(&mut counts, 0.5),
                coordinate_max,
            ],
            samples,
        }
    }

    /// The value of the statistic `name` ([`STATISTICS`]).
    pub fn get(&self, name: &str) -> Option<f64> {
        STATISTICS
            .iter()
            .position(|s| s.0 == name)
            .map(|i| self.values[i])
    }

    /// Per statistic: name, real value, this (the preset's) value, whether within tolerance.
    pub fn against(&self, real: &MovementStats) -> Vec<(&'static str, f64, f64, bool)> {
        STATISTICS
            .iter()
            .enumerate()
            .map(|(i, &(name, _, tol))| {
                let (r, p) = (real.values[i], self.values[i]);
                (name, r, p, tol.holds(r, p))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pose(x: f64, yaw: f64) -> Pose {
        Pose::from_f64(x, 64.0, 0.0, yaw, 0.0)
    }

    #[test]
    fn measures_gaps_motion_turns_and_lifetimes() {
        let add = |t, e| {
            (
                t,
                vec![Event::EntityAdd {
                    entity: e,
                    kind: 0,
                    pose: pose(0.0, 0.0),
                }],
            )
        };
        let ticks = vec![
            add(0, 1),
            (
                2,
                vec![Event::Pose {
                    entity: 1,
                    pose: pose(0.5, 0.0),
                }],
            ), // gap 2, moved 0.25/tick
            (
                3,
                vec![Event::Pose {
                    entity: 1,
                    pose: pose(0.5, 10.0),
                }],
            ), // gap 1, turned 10
            (
                13,
                vec![Event::Pose {
                    entity: 1,
                    pose: pose(0.5, 10.0),
                }],
            ), // gap 10, nothing new
            (20, vec![Event::EntityRemove { entity: 1 }]),
        ];
        let s = MovementStats::of(&ticks);
        assert_eq!(s.samples, 3);
        let third = 1.0 / 3.0;
        for (name, want) in [
            ("gap_1_share", third),
            ("gap_2_share", third),
            ("gap_over_5_share", third),
            ("moved_share", third),
            ("turned_share", third),
            ("unchanged_share", third),
            ("speed_p50", 0.25),
            ("turn_p50", 10.0),
            ("lifetime_p50", 20.0),
            ("samples_per_entity_p50", 3.0),
            ("coordinate_max", 0.5),
        ] {
            let got = s.get(name).unwrap();
            // angles are stored in 1/65536 turn
            assert!((got - want).abs() < 1e-2, "{name}: {got} against {want}");
        }
    }

    #[test]
    fn tolerances_hold_within_and_fail_beyond() {
        assert!(Tolerance::Share(0.15).holds(0.5, 0.64));
        assert!(!Tolerance::Share(0.15).holds(0.5, 0.66));
        assert!(Tolerance::Factor(2.0).holds(1.0, 1.9));
        assert!(Tolerance::Factor(2.0).holds(1.0, 0.55));
        assert!(!Tolerance::Factor(2.0).holds(1.0, 2.1));
        assert!(!Tolerance::Factor(2.0).holds(0.0, 1.0));
        assert!(Tolerance::Decades(1.0).holds(3_000_000.0, 400_000.0));
        assert!(!Tolerance::Decades(1.0).holds(3_000_000.0, 300.0));
    }
}
