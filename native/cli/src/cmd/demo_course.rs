//! The demo's course: a few runners, besides the simulated crowd, run a short parkour course over
//! and over while the session is recorded. Each run crosses checkpoint 0 at the start line,
//! the intermediate checkpoints along the way and the last one at the finish; the runner waits,
//! is teleported back to the start and goes again, at a speed that varies from run to
//! run. Every finished run is one the catalog stage registers
//! ([`super::demo_catalog`]); the ones the session cut short are not.

use tickreel::format::EntityInfo;
use tickreel::{Event, Pose};
use uuid::Uuid;

/// The course's corners on the x/z plane (blocks), start to finish.
pub const COURSE_POINTS: [[f64; 2]; 6] = [
    [0.0, 0.0],
    [20.0, 0.0],
    [20.0, 12.0],
    [40.0, 12.0],
    [40.0, -4.0],
    [56.0, -4.0],
];
/// The last checkpoint's index (the finish); checkpoint 0 is the start line.
pub const FINISH: u32 = 4;
/// The runners' names; their entity ids are [`FIRST_RUNNER`] onwards.
pub const RUNNERS: [&str; 4] = ["Alex", "Kai", "Noor", "Sam"];
/// The first runner's entity id (far above the simulator's players).
pub const FIRST_RUNNER: u32 = 100_000;
/// Blocks per tick of each runner on an average run.
const SPEEDS: [f64; 4] = [0.30, 0.28, 0.27, 0.25];
/// Ticks a runner waits at the finish and again at the start.
const PAUSE: u32 = 20;
const Y: f64 = 64.0;

/// The course's length in blocks.
pub fn length() -> f64 {
    COURSE_POINTS
        .windows(2)
        .map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt())
        .sum()
}

/// Position and yaw (degrees; 0 faces +z, 90 faces -x) `s` blocks along the course.
fn at(s: f64) -> ([f64; 2], f64) {
    let mut left = s.max(0.0);
    for w in COURSE_POINTS.windows(2) {
        let (dx, dz) = (w[1][0] - w[0][0], w[1][1] - w[0][1]);
        let len = (dx * dx + dz * dz).sqrt();
        let yaw = (-dx).atan2(dz).to_degrees();
        if left <= len {
            let f = left / len;
            return ([w[0][0] + f * dx, w[0][1] + f * dz], yaw);
        }
        left -= len;
    }
    let w = &COURSE_POINTS[COURSE_POINTS.len() - 2..];
    (
        w[1],
        (-(w[1][0] - w[0][0])).atan2(w[1][1] - w[0][1]).to_degrees(),
    )
}

fn pose(s: f64) -> Pose {
    let (p, yaw) = at(s);
    Pose::from_f64(p[0], Y, p[1], yaw, 0.0)
}

/// A finished run of the course (checkpoint 0 to the finish).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub runner: usize,
    pub entity: u32,
    /// The ticks of checkpoint 0 (the start) and of the finish.
    pub start: u32,
    pub finish: u32,
}

impl Run {
    pub fn ticks(&self) -> u32 {
        self.finish - self.start
    }
}

/// Who a runner is (the UUID and name the recording and the catalog know).
pub fn identity(runner: usize) -> (Uuid, String) {
    (
        Uuid::from_u128(0x7e57_c0de_0000 + runner as u128),
        RUNNERS[runner].to_string(),
    )
}

/// How the recording registers `entity` if it is a runner.
pub fn runner_info(entity: u32) -> Option<EntityInfo> {
    let i = entity.checked_sub(FIRST_RUNNER)? as usize;
    (i < RUNNERS.len()).then(|| {
        let (uuid, name) = identity(i);
        EntityInfo {
            id: entity,
            kind: 147,
            uuid: Some(uuid),
            name: Some(name),
        }
    })
}

#[derive(Debug, Clone, Copy)]
enum Phase {
    Absent {
        spawn: u32,
    },
    /// At the start line until the tick given.
    Ready {
        until: u32,
    },
    Running {
        start: u32,
        s: f64,
        speed: f64,
        next: u32,
    },
    /// At the finish until the tick given.
    Done {
        until: u32,
    },
}

/// The runners, moved one tick at a time.
pub struct Course {
    phases: Vec<Phase>,
    rng: fastrand::Rng,
    length: f64,
    /// Every finished run, in finishing order.
    pub runs: Vec<Run>,
}

impl Course {
    pub fn new(seed: u64) -> Course {
        Course {
            phases: (0..RUNNERS.len())
                .map(|i| Phase::Absent {
                    spawn: 1 + 7 * i as u32,
                })
                .collect(),
            rng: fastrand::Rng::with_seed(seed ^ 0xc0_75e),
            length: length(),
            runs: Vec::new(),
        }
    }

    /// Adds the runners' events of `tick` to `events`.
    pub fn tick(&mut self, tick: u32, events: &mut Vec<Event>) {
        let Course {
            phases,
            rng,
            length,
            runs,
        } = self;
        let step = *length / f64::from(FINISH);
        for (i, phase) in phases.iter_mut().enumerate() {
            let entity = FIRST_RUNNER + i as u32;
            *phase = match *phase {
                Phase::Absent { spawn } if tick >= spawn => {
                    events.push(Event::EntityAdd {
                        entity,
                        kind: 147,
                        pose: pose(0.0),
                    });
                    Phase::Ready {
                        until: tick + PAUSE,
                    }
                }
                Phase::Ready { until } if tick >= until => {
                    events.push(Event::Checkpoint { entity, index: 0 });
                    Phase::Running {
                        start: tick,
                        s: 0.0,
                        speed: SPEEDS[i] * (0.92 + 0.14 * rng.f64()),
                        next: 1,
                    }
                }
                Phase::Running {
                    start,
                    s,
                    speed,
                    mut next,
                } => {
                    let s = (s + speed).min(*length);
                    events.push(Event::Pose {
                        entity,
                        pose: pose(s),
                    });
                    while next <= FINISH && s >= step * f64::from(next) - 1e-9 {
                        events.push(Event::Checkpoint {
                            entity,
                            index: next,
                        });
                        next += 1;
                    }
                    if next > FINISH {
                        runs.push(Run {
                            runner: i,
                            entity,
                            start,
                            finish: tick,
                        });
                        Phase::Done {
                            until: tick + PAUSE,
                        }
                    } else {
                        Phase::Running {
                            start,
                            s,
                            speed,
                            next,
                        }
                    }
                }
                Phase::Done { until } if tick >= until => {
                    events.push(Event::Teleport {
                        entity,
                        pose: pose(0.0),
                    });
                    Phase::Ready {
                        until: tick + PAUSE,
                    }
                }
                p => p,
            };
        }
    }
}

/// Each runner's best run, fastest first (equal times: the earlier finish first): the board
/// the catalog must show.
pub fn board(runs: &[Run]) -> Vec<Run> {
    let mut best: Vec<Run> = Vec::new();
    for a in runs {
        match best.iter_mut().find(|b| b.runner == a.runner) {
            Some(b) if (a.ticks(), a.finish) < (b.ticks(), b.finish) => *b = *a,
            Some(_) => {}
            None => best.push(*a),
        }
    }
    best.sort_by_key(|a| (a.ticks(), a.finish));
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_course_is_walked_from_start_to_finish() {
        assert_eq!(length(), 84.0);
        assert_eq!(at(0.0).0, [0.0, 0.0]);
        assert_eq!(at(26.0).0, [20.0, 6.0]);
        assert_eq!(at(84.0).0, [56.0, -4.0]);
        assert_eq!(at(1e9).0, [56.0, -4.0]);
        // heading +x (east): yaw -90
        assert_eq!(at(1.0).1, -90.0);
    }
}
