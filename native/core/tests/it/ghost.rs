//! Ghost racing: tracks loaded from recordings, the interpolating cursor, splits, the live delta,
//! several ghosts and the sum-of-best ghost, background loading, the `tickreel ghost` command.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use tickreel::format::flag;
use tickreel::ghost::track::{PITCH, X, Y, YAW, Z};
use tickreel::ghost::{
    DeltaOptions, GhostCursor, GhostRange, GhostSample, GhostSet, GhostState, GhostTrack,
    LiveDelta, LiveSplits, RunBuilder, SplitComparison, sum_of_best,
};
use tickreel::play::Reader;
use tickreel::record::ChunkPolicy;
use tickreel::storage::{MemSource, Source};
use tickreel::{Event, Pose};

fn small_chunks() -> ChunkPolicy {
    ChunkPolicy {
        chunk_ticks: 37,
        chunk_bytes: 1 << 20,
        snapshot_interval: 150,
        zstd_level: 3,
    }
}

use crate::common::checkpoint_run as sim_run;

fn write(path: &Path, ticks: &[(u32, Vec<Event>)]) {
    common::write_reel(path, ticks, small_chunks());
}

fn pose_of(s: &GhostSample) -> [f64; 5] {
    [s.x, s.y, s.z, s.yaw, s.pitch]
}

fn exact(p: &Pose) -> [f64; 5] {
    [p.x_f64(), p.y_f64(), p.z_f64(), p.yaw_deg(), p.pitch_deg()]
}

#[test]
fn sampled_poses_equal_the_recorded_poses_at_every_recorded_tick() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    let ticks = sim_run(1000, 11);
    write(&path, &ticks);
    let states = common::expected_states(&ticks);
    let reader = Reader::open_path(&path).unwrap();
    for (range, origin, end) in [
        (GhostRange::all(), 0, 999),
        (GhostRange::checkpoints(0, 3), 120, 800),
        (GhostRange::ticks(333, 777), 333, 777),
    ] {
        let g = Arc::new(GhostTrack::load(&reader, 1, range).unwrap());
        assert_eq!(g.origin_tick(), origin, "{range:?}");
        assert_eq!(g.duration_ticks(), end - origin, "{range:?}");
        assert!((0..g.len()).any(|i| g.is_break(i)), "the run has teleports");
        let mut c = GhostCursor::new(g.clone());
        let mut checked = 0;
        for (tick, table) in &states {
            if *tick < origin || *tick > end {
                continue;
            }
            let want = table.get(1).unwrap();
            let s = c.sample(f64::from(tick - origin));
            assert_eq!(pose_of(&s), exact(&want.pose), "tick {tick} of {range:?}");
            assert_eq!(s.flags, want.flags, "flags at tick {tick}");
            let expected_state = if *tick == end {
                GhostState::Finished
            } else {
                GhostState::Running
            };
            assert_eq!(s.state, expected_state);
            // and the same by random access
            assert_eq!(g.pose_at(f64::from(tick - origin)), exact(&want.pose));
            checked += 1;
        }
        assert_eq!(checked, end - origin + 1);
    }
}

fn assert_within_segment_boxes(g: &Arc<GhostTrack>, steps: u32) {
    let mut c = GhostCursor::new(g.clone());
    for i in 0..g.len() - 1 {
        let (a, b) = (g.pose(i), g.pose(i + 1));
        let (t0, t1) = (f64::from(g.tick(i)), f64::from(g.tick(i + 1)));
        for k in 0..=steps {
            let t = t0 + (t1 - t0) * f64::from(k) / f64::from(steps);
            if t >= t1 {
                continue;
            }
            let p = pose_of(&c.sample(t));
            for col in [X, Y, Z, PITCH] {
                let (lo, hi) = (a[col].min(b[col]), a[col].max(b[col]));
                assert!(
                    p[col] >= lo - 1e-9 && p[col] <= hi + 1e-9,
                    "column {col} at t {t}: {} outside [{lo}, {hi}]",
                    p[col]
                );
            }
            // yaw: within the shortest arc from a to b
            let arc = tickreel::ghost::track::shortest_arc(b[YAW], a[YAW]);
            let (lo, hi) = (a[YAW].min(a[YAW] + arc), a[YAW].max(a[YAW] + arc));
            assert!(p[YAW] >= lo - 1e-9 && p[YAW] <= hi + 1e-9, "yaw at {t}");
        }
    }
}

#[test]
fn hermite_stays_within_the_segment_bounding_box_and_is_not_linear() {
    // Smooth motion: a rising spiral, turning the view with it.
    let poses: Vec<(u32, Pose)> = (0..200u32)
        .map(|t| {
            let a = f64::from(t) * 0.07;
            let pose = Pose::from_f64(
                12.0 * a.cos(),
                64.0 + 0.05 * f64::from(t),
                12.0 * a.sin(),
                a.to_degrees() + 90.0,
                20.0 * (a * 0.5).sin(),
            );
            (t, pose)
        })
        .collect();
    let g = Arc::new(GhostTrack::from_poses(20.0, &poses, &[]).unwrap());
    assert_within_segment_boxes(&g, 16);
    // It is a cubic, not a straight line between samples: on a circle, the midpoint lies
    // outside the chord, close to the arc.
    let mut c = GhostCursor::new(g.clone());
    let (mut off_chord, mut worst_arc_error, mut sum_arc_error) = (0.0f64, 0.0f64, 0.0);
    for i in 10..150 {
        let t = f64::from(i as u32) + 0.5;
        let s = c.sample(t);
        let (a, b) = (g.pose(i), g.pose(i + 1));
        let chord = [(a[X] + b[X]) / 2.0, (a[Z] + b[Z]) / 2.0];
        off_chord = off_chord.max(((s.x - chord[0]).powi(2) + (s.z - chord[1]).powi(2)).sqrt());
        let e = (s.x.hypot(s.z) - 12.0).abs();
        worst_arc_error = worst_arc_error.max(e);
        sum_arc_error += e;
    }
    let mean_arc_error = sum_arc_error / 140.0;

    let chord_sagitta = 12.0 * (1.0 - (0.035f64).cos());
    assert!(
        off_chord > chord_sagitta * 0.5,
        "{off_chord} vs {chord_sagitta}"
    );
    // On average far closer to the arc than the chord (a straight line is off by the sagitta);
    // never worse than the chord, even where the limiter flattens an extreme of x or z.
    assert!(mean_arc_error < chord_sagitta * 0.1, "{mean_arc_error}");
    assert!(worst_arc_error < chord_sagitta, "{worst_arc_error}");
    // Noisy, physics-like motion from a recording holds to the same bound.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("noisy.reel");
    write(&path, &sim_run(600, 5));
    let g = Arc::new(GhostTrack::load_path(&path, 2, GhostRange::all()).unwrap());
    assert_within_segment_boxes(&g, 8);
}

#[test]
fn uneven_tick_spacing_interpolates_short_gaps_and_holds_long_ones() {
    // Entity 3 is sent on uneven ticks: short gaps (a lower send rate), then it stands still for
    // 30 ticks (nothing sent), then moves again. Entity 9 moves every tick.
    let mut sent = vec![0u32, 1, 2, 4, 5, 7, 8, 10];
    sent.extend([40, 41, 43, 44, 47, 48, 50]);
    let x_at = |t: u32| f64::from(t.min(10) + t.saturating_sub(39)) * 0.25;
    let mut ticks = Vec::new();
    for t in 0..=50u32 {
        let mut events = vec![Event::Pose {
            entity: 9,
            pose: Pose::from_f64(f64::from(t), 70.0, 5.0, 0.0, 0.0),
        }];
        if sent.contains(&t) {
            events.push(Event::Pose {
                entity: 3,
                pose: Pose::from_f64(x_at(t), 64.0, 0.0, f64::from(t) * 1.40625, 0.0),
            });
        }
        ticks.push((t, events));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("uneven.reel");
    write(&path, &ticks);
    let g = Arc::new(GhostTrack::load_path(&path, 3, GhostRange::all()).unwrap());
    let mut c = GhostCursor::new(g.clone());
    let states = common::expected_states(&ticks);
    for (t, table) in &states {
        let s = c.sample(f64::from(*t));
        let want = exact(&table.get(3).unwrap().pose);
        if sent.contains(t) || (11..40).contains(t) {
            // recorded ticks exactly; the long stand-still held, not crept across
            assert_eq!(pose_of(&s), want, "tick {t}");
        } else {
            // a missing tick of a short gap: between its neighbours, not held
            let prev = sent.iter().rev().find(|&&u| u < *t).unwrap();
            let next = sent.iter().find(|&&u| u > *t).unwrap();
            let (lo, hi) = (x_at(*prev), x_at(*next));
            assert!(
                s.x > lo && s.x < hi,
                "tick {t}: {} not in ({lo}, {hi})",
                s.x
            );
        }
    }
    assert_within_segment_boxes(&g, 10);
}

#[test]
fn a_teleport_is_a_jump_not_a_streak() {
    let mut b = RunBuilder::new(1, 20.0);
    for t in 0..10u32 {
        b.pose(t, Pose::from_f64(f64::from(t) * 0.3, 64.0, 0.0, 0.0, 0.0))
            .unwrap();
    }
    b.teleport(10, Pose::from_f64(500.0, 80.0, -300.0, 90.0, 0.0))
        .unwrap();
    for t in 11..20u32 {
        b.pose(
            t,
            Pose::from_f64(500.0 + f64::from(t - 10) * 0.3, 80.0, -300.0, 90.0, 0.0),
        )
        .unwrap();
    }
    let g = Arc::new(b.build(&GhostRange::all(), &Default::default()).unwrap());
    let mut c = GhostCursor::new(g.clone());
    let before = g.pose(9);
    let mut t = 9.0;
    while t < 10.0 {
        assert_eq!(pose_of(&c.sample(t)), before, "t {t}: held, not streaked");
        t += 0.05;
    }
    assert_eq!(pose_of(&c.sample(10.0)), g.pose(10));
    let after = c.sample(10.5);
    assert!(after.x > 500.0 && after.x < 500.3 + 1e-9, "{after:?}");
    // the segment before the teleport is not bent by the far-away pose either
    let s = c.sample(8.5);
    assert!(s.x > 2.4 && s.x < 2.7 && s.z == 0.0, "{s:?}");

    // The same through a recording: Teleport events become breaks.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tp.reel");
    let mut ticks = Vec::new();
    for t in 0..40u32 {
        let x = if t < 25 {
            f64::from(t)
        } else {
            1000.0 + f64::from(t)
        };
        let pose = Pose::from_f64(x, 64.0, 0.0, 0.0, 0.0);
        let e = match t {
            0 => Event::EntityAdd {
                entity: 4,
                kind: 1,
                pose,
            },
            25 => Event::Teleport { entity: 4, pose },
            _ => Event::Pose { entity: 4, pose },
        };
        ticks.push((t, vec![e]));
    }
    write(&path, &ticks);
    let g = Arc::new(GhostTrack::load_path(&path, 4, GhostRange::all()).unwrap());
    let mut c = GhostCursor::new(g);
    assert_eq!(c.sample(24.0).x, 24.0);
    assert_eq!(c.sample(24.99).x, 24.0);
    assert_eq!(c.sample(25.0).x, 1025.0);
}

#[test]
fn yaw_turns_along_the_shortest_arc_and_stays_unbounded() {
    let track = |yaws: &[f64]| {
        let poses: Vec<(u32, Pose)> = yaws
            .iter()
            .enumerate()
            .map(|(t, &y)| (t as u32, Pose::from_f64(0.0, 64.0, 0.0, y, 0.0)))
            .collect();
        Arc::new(GhostTrack::from_poses(20.0, &poses, &[]).unwrap())
    };
    // Angles at the protocol's 1/256 turn, so that they are exact after quantisation.
    let step = 360.0 / 256.0;
    // A source that normalises yaw: 358.6 -> 1.4 is a +2.8 degree turn through 0/360.
    let (a, b) = (360.0 - step, step);
    let mut c = GhostCursor::new(track(&[a - step, a, b, b + step]));
    for k in 0..20 {
        let t = 1.0 + f64::from(k) * 0.05;
        let yaw = c.sample(t).yaw;
        assert!((a - 1e-9..=360.0 + b + 1e-9).contains(&yaw), "t {t}: {yaw}");
    }
    let mid = c.sample(1.5).yaw;
    assert!((mid - 360.0).abs() < 1e-9, "{mid}");
    assert_eq!(
        c.sample(2.0).yaw,
        b,
        "exactly the recorded value at its tick"
    );
    // ... and 1.4 -> 358.6 is -2.8 degrees.
    let mut c = GhostCursor::new(track(&[b + step, b, a, a - step]));
    let mid = c.sample(1.5).yaw;
    assert!(mid.abs() < 1e-9, "{mid}");
    // Unbounded values stay unbounded: a player who spun twenty turns, then small turns.
    let yaws = [0, 2, -1, 1, 64, 128, 127].map(|k| 7200.0 + f64::from(k) * step);
    let mut c = GhostCursor::new(track(&yaws));
    let mut t = 0.0;
    while t <= 6.0 {
        let yaw = c.sample(t).yaw;
        assert!(
            (7200.0 - step - 1e-9..=7380.0 + 1e-9).contains(&yaw),
            "t {t}: {yaw}"
        );
        let i = t as usize;
        if t == i as f64 {
            assert_eq!(yaw, yaws[i]);
        }
        t += 0.125;
    }
    // 90-degree steps stay continuous: between 7201.4 and 7290 the yaw goes up, not round.
    let y = c.sample(3.5).yaw;
    assert!(y > 7201.0 && y < 7290.0, "{y}");
    let y = c.sample(4.5).yaw;
    assert!(y > 7290.0 && y < 7380.0, "{y}");
}

#[test]
fn splits_come_from_checkpoint_markers_and_compare_with_a_live_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("splits.reel");
    write(&path, &sim_run(900, 3));
    let g = Arc::new(GhostTrack::load_path(&path, 1, GhostRange::checkpoints(0, 3)).unwrap());
    // the second crossing of 0 (a restart at tick 120) starts the run
    let splits: Vec<(u32, u32)> = g.splits().iter().map(|s| (s.checkpoint, s.tick)).collect();
    assert_eq!(splits, vec![(0, 0), (1, 180), (2, 400), (3, 680)]);
    assert_eq!(g.split(2), Some(400));
    assert_eq!(g.duration_seconds(), 34.0);
    // A whole-recording ghost keeps every crossing.
    let all = GhostTrack::load_path(&path, 1, GhostRange::all()).unwrap();
    assert_eq!(all.splits().len(), 5);
    assert_eq!(all.split(0), Some(60));

    let c = SplitComparison::new(&g, 1, 187.0, 0.0).unwrap();
    assert_eq!(c.ghost_ticks, 180.0);
    assert!((c.delta_seconds - 0.35).abs() < 1e-12);
    assert_eq!(c.to_string(), "+0.35 s");
    let c = SplitComparison::new(&g, 2, 390.0, 0.0).unwrap();
    assert_eq!(c.to_string(), "-0.50 s");
    // a ghost started 10 ticks later is half a second slower at every split
    let c = SplitComparison::new(&g, 2, 410.0, 10.0).unwrap();
    assert_eq!(c.to_string(), "+0.00 s");
    let c = SplitComparison::new(&g, 2, 390.0, 10.0).unwrap();
    assert_eq!(c.to_string(), "-1.00 s");
    assert!(SplitComparison::new(&g, 9, 1.0, 0.0).is_none());

    let mut live = LiveSplits::new(g.clone());
    assert!(live.checkpoint(0, 0.0).is_some());
    assert_eq!(live.checkpoint(1, 200.0).unwrap().to_string(), "+1.00 s");
    assert!(
        live.checkpoint(1, 260.0).is_none(),
        "only the first crossing"
    );
    assert!(live.checkpoint(7, 300.0).is_none());
    assert_eq!(live.comparisons().len(), 2);
}

/// A ghost from a recording, and a live run that is that ghost `k` ticks later.
fn ghost_for_delta() -> Arc<GhostTrack> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("delta.reel");
    write(&path, &sim_run(900, 21));
    Arc::new(GhostTrack::load_path(&path, 1, GhostRange::checkpoints(0, 3)).unwrap())
}

/// A course along a curve; run `r` moves at `speeds[k]` blocks per tick in segment `k` (checkpoints
/// every 20 blocks), offset sideways by `side` blocks and turned by `turns` whole turns of yaw.
fn course_run(speeds: &[f64], side: f64, turns: f64) -> GhostTrack {
    let at = |s: f64| {
        let a = s / 40.0;
        let (x, z) = (40.0 * a.sin(), 40.0 * (1.0 - a.cos()));
        let (nx, nz) = (-a.sin(), a.cos());
        (
            x + nz * side,
            z - nx * side,
            90.0 - a.to_degrees() + turns * 360.0,
        )
    };
    let mut b = RunBuilder::new(1, 20.0);
    let (mut s, mut t) = (0.0, 0u32);
    let mut cp = 1;
    loop {
        let (x, z, yaw) = at(s);
        b.pose(t, Pose::from_f64(x, 64.0, z, yaw, 5.0)).unwrap();
        b.flags(t, if (t / 7) % 2 == 0 { flag::SPRINTING } else { 0 });
        if s >= 20.0 * cp as f64 && cp < speeds.len() {
            b.checkpoint(t, cp as u32);
            cp += 1;
        }
        if s >= 20.0 * speeds.len() as f64 {
            break;
        }
        s += speeds[((s / 20.0) as usize).min(speeds.len() - 1)];
        t += 1;
    }
    b.build(&GhostRange::all(), &Default::default()).unwrap()
}

fn max_step(g: &GhostTrack) -> f64 {
    (1..g.len())
        .map(|i| {
            let (a, b) = (g.pose(i - 1), g.pose(i));
            ((b[X] - a[X]).powi(2) + (b[Y] - a[Y]).powi(2) + (b[Z] - a[Z]).powi(2)).sqrt()
        })
        .fold(0.0, f64::max)
}

#[test]
fn background_loads_become_ready_and_equal_the_sync_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("async.reel");
    write(&path, &sim_run(900, 8));
    let range = GhostRange::checkpoints(0, 2);
    let sync = GhostTrack::load_path(&path, 1, range).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let mem: Arc<dyn Source> = Arc::new(MemSource::new(bytes));
    let reader = Arc::new(Reader::open_path(&path).unwrap());
    let loads = [
        GhostTrack::load_async(path.clone(), 1, range),
        GhostTrack::load_async(mem, 1, range),
        GhostTrack::load_async(reader, 1, range),
    ];
    for mut load in loads {
        let mut polls = 0u64;
        while !load.is_ready() {
            polls += 1;
            assert!(polls < 120_000, "the load never became ready");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(load.poll().unwrap().as_ref().unwrap(), &sync);
        let taken = load.try_take().unwrap().unwrap();
        assert_eq!(taken, sync);
        assert!(load.try_take().is_none());
        assert!(load.wait().is_err(), "the result was already taken");
    }
    // wait() blocks until done
    let t = GhostTrack::load_async(path.clone(), 2, GhostRange::all())
        .wait()
        .unwrap();
    assert_eq!(
        t,
        GhostTrack::load_path(&path, 2, GhostRange::all()).unwrap()
    );
    // errors arrive the same way
    let missing = GhostTrack::load_async(dir.path().join("nope.reel"), 1, range).wait();
    assert!(matches!(missing, Err(tickreel::Error::Io(_))));
    let no_entity = GhostTrack::load_async(path, 99, range).wait();
    assert!(matches!(
        no_entity,
        Err(tickreel::Error::InvalidArgument(_))
    ));
}

#[test]
fn corrupt_files_give_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("good.reel");
    write(&path, &sim_run(300, 4));
    let good = std::fs::read(&path).unwrap();
    let reader = Reader::open_path(&path).unwrap();
    let chunks_from = reader.index()[0].offset as usize;
    let bad = dir.path().join("bad.reel");
    // every byte of the chunk area flipped, one at a time (a sparse stride keeps it quick)
    for pos in (chunks_from..good.len()).step_by(13) {
        let mut b = good.clone();
        b[pos] ^= 0x5A;
        std::fs::write(&bad, &b).unwrap();
        let r = GhostTrack::load_path(&bad, 1, GhostRange::all());
        assert!(r.is_err(), "flipped byte {pos} went unnoticed");
    }
    // header, metadata and index are checksummed too
    for pos in (0..chunks_from).step_by(7) {
        let mut b = good.clone();
        b[pos] ^= 0xFF;
        let src: Arc<dyn Source> = Arc::new(MemSource::new(b));
        let r = Reader::open(src).and_then(|r| GhostTrack::load(&r, 1, GhostRange::all()));
        assert!(r.is_err(), "flipped byte {pos} went unnoticed");
    }
    // truncated, and not a recording at all
    for len in [0, 10, 300, good.len() / 2, good.len() - 1] {
        std::fs::write(&bad, &good[..len]).unwrap();
        assert!(GhostTrack::load_path(&bad, 1, GhostRange::all()).is_err());
        assert!(
            GhostTrack::load_async(bad.clone(), 1, GhostRange::all())
                .wait()
                .is_err()
        );
    }
    std::fs::write(&bad, vec![0x42; 4096]).unwrap();
    assert!(GhostTrack::load_path(&bad, 1, GhostRange::all()).is_err());
}

#[path = "ghost/race.rs"]
mod race;
