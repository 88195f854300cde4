//! Sparse player tracks (issue 36 item 4): where the bytes of players who move in bursts and stand
//! still go, on the realistic preset's players (`tickreel_sim::realistic`: clients send a pose
//! every 2-5 ticks while walking, nothing while standing but a rotation now and then). Each
//! figure is the finished file's size (`ReelOptions::compacted()`, every byte) minus the size of
//! the same recording with one thing taken out, so it is what that thing costs in the file:
//! a column held at the entity's first value, the standing players' rotations left out, every
//! value held (what is left is when samples happen and the container), and, as the coding idea
//! to test, prediction restarted at the first sample of each burst.

use std::collections::HashMap;

use tickreel::Event;
use tickreel::format::Pose;
use tickreel_sim::realistic::{RealisticConfig, RealisticSim};

use super::{Figures, put, realistic};

type Ticks = Vec<(u32, Vec<Event>)>;

/// Ticks without a sample after which an entity's next sample starts a burst (1 s at 20/s).
const BURST_GAP: u32 = 20;

/// The pose columns, in the format's order.
const COLUMNS: [&str; 5] = ["x", "y", "z", "yaw", "pitch"];

fn value(p: &Pose, c: usize) -> i64 {
    [p.x, p.y, p.z, p.yaw, p.pitch][c]
}

fn column(p: &mut Pose, c: usize) -> &mut i64 {
    match c {
        0 => &mut p.x,
        1 => &mut p.y,
        2 => &mut p.z,
        3 => &mut p.yaw,
        _ => &mut p.pitch,
    }
}

/// The recording with `f` applied to every event, given each entity's first pose.
fn map_events(ticks: &Ticks, mut f: impl FnMut(&Pose, &mut Event)) -> Ticks {
    let mut first: HashMap<u32, Pose> = HashMap::new();
    ticks
        .iter()
        .map(|(t, ev)| {
            let ev = ev
                .iter()
                .map(|e| {
                    let mut e = e.clone();
                    if let Event::EntityAdd { entity, pose, .. } = &e {
                        first.entry(*entity).or_insert(*pose);
                    }
                    if let Some(p) = e.entity().and_then(|id| first.get(&id)) {
                        f(p, &mut e);
                    }
                    e
                })
                .collect();
            (*t, ev)
        })
        .collect()
}

/// Holds column `c` of every sample at the entity's first value.
fn hold_column(ticks: &Ticks, c: usize) -> Ticks {
    map_events(ticks, |first, e| match e {
        Event::Pose { pose, .. } | Event::Teleport { pose, .. } => {
            *column(pose, c) = value(first, c);
        }
        Event::Rotation { yaw, pitch, .. } => {
            if c == 3 {
                *yaw = first.yaw;
            }
            if c == 4 {
                *pitch = first.pitch;
            }
        }
        _ => {}
    })
}

/// The first pose of every burst (after more than [`BURST_GAP`] ticks without a sample of its
/// entity) written as a teleport, which restarts prediction there (FORMAT.md §9, resets).
fn reset_bursts(ticks: &Ticks) -> (Ticks, u64) {
    let mut last: HashMap<u32, u32> = HashMap::new();
    let mut bursts = 0;
    let out = ticks
        .iter()
        .map(|(t, ev)| {
            let ev = ev
                .iter()
                .map(|e| match *e {
                    Event::Pose { entity, pose } => {
                        let gap = last.insert(entity, *t).map(|l| t - l);
                        if gap.is_some_and(|g| g > BURST_GAP) {
                            bursts += 1;
                            Event::Teleport { entity, pose }
                        } else {
                            e.clone()
                        }
                    }
                    Event::Rotation { entity, .. } | Event::EntityAdd { entity, .. } => {
                        last.insert(entity, *t);
                        e.clone()
                    }
                    _ => e.clone(),
                })
                .collect();
            (*t, ev)
        })
        .collect();
    (out, bursts)
}

pub fn run(quick: bool, out: &mut Figures) {
    let minutes = if quick { 2 } else { 10 };
    let mut sim = RealisticSim::new(RealisticConfig::default());
    let all: Ticks = (0..minutes * 60 * 20).map(|_| sim.step()).collect();
    let players = realistic::players_only(&all);
    let size = realistic::ours(&players);
    put(out, "sparse_players_bytes", size as f64);
    let count = |f: &dyn Fn(&Event) -> bool| -> u64 {
        players
            .iter()
            .flat_map(|(_, ev)| ev)
            .filter(|e| f(e))
            .count() as u64
    };
    put(
        out,
        "sparse_players_pose_samples",
        count(&|e| matches!(e, Event::Pose { .. })) as f64,
    );
    put(
        out,
        "sparse_players_rotation_samples",
        count(&|e| matches!(e, Event::Rotation { .. })) as f64,
    );
    for (c, name) in COLUMNS.iter().enumerate() {
        let held = realistic::ours(&hold_column(&players, c));
        put(
            out,
            &format!("sparse_column_{name}_bytes"),
            size as f64 - held as f64,
        );
    }
    let mut every = players.clone();
    for c in 0..COLUMNS.len() {
        every = hold_column(&every, c);
    }
    put(
        out,
        "sparse_without_values_bytes",
        realistic::ours(&every) as f64,
    );
    let standing: Ticks = players
        .iter()
        .map(|(t, ev)| {
            let keep = ev
                .iter()
                .filter(|e| !matches!(e, Event::Rotation { .. }))
                .cloned()
                .collect();
            (*t, keep)
        })
        .collect();
    put(
        out,
        "sparse_standing_rotation_bytes",
        size as f64 - realistic::ours(&standing) as f64,
    );
    let (reset, bursts) = reset_bursts(&players);
    put(out, "sparse_bursts", bursts as f64);
    put(
        out,
        "sparse_burst_reset_saved_bytes",
        size as f64 - realistic::ours(&reset) as f64,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holding_a_column_keeps_the_others_and_bursts_become_teleports() {
        let p = |x: f64, yaw: f64| Pose::from_f64(x, 64.0, 0.0, yaw, 0.0);
        let ticks: Ticks = vec![
            (
                0,
                vec![Event::EntityAdd {
                    entity: 1,
                    kind: 0,
                    pose: p(0.0, 0.0),
                }],
            ),
            (
                2,
                vec![Event::Pose {
                    entity: 1,
                    pose: p(1.0, 10.0),
                }],
            ),
            (
                40,
                vec![Event::Pose {
                    entity: 1,
                    pose: p(2.0, 20.0),
                }],
            ),
        ];
        let held = hold_column(&ticks, 0);
        let Event::Pose { pose, .. } = held[1].1[0] else {
            panic!("{:?}", held[1]);
        };
        assert_eq!(pose, p(0.0, 10.0));
        let (reset, bursts) = reset_bursts(&ticks);
        assert_eq!(bursts, 1);
        assert!(matches!(reset[1].1[0], Event::Pose { .. }));
        assert!(matches!(reset[2].1[0], Event::Teleport { .. }));
    }
}
