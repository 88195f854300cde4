//! Issue-5 figures: ghost sampling cost (forward at 60 Hz, random access), allocations per sample,
//! live-delta cost, and the time to load a 5-minute run from a local compacted file; issue 50's:
//! several ghosts sampled together (a `GhostSet` of 8, per ghost) and the gold splits' best
//! possible time, per tick.
//!
//! The run: a simulated player at 20 ticks/s for 6000 ticks (5 minutes), crossing a checkpoint
//! every 30 s, written by `ReelWriter` with the compacted defaults. Loads are measured alone in
//! the file (a saved run) and as one of 10 players of a server recording.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use tickreel::Event;
use tickreel::ghost::{
    GhostCursor, GhostRange, GhostSample, GhostSet, GhostTrack, GoldSplits, LiveDelta,
};
use tickreel::play::Reader;
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel_sim::{SimConfig, Simulator};

use super::shared::median;
use super::{Figures, put};
use crate::alloc_count::allocations;

/// 5 minutes at 20 ticks/s.
const RUN_TICKS: u32 = 6000;

fn write_run(path: &Path, players: u32) {
    let mut sim = Simulator::new(SimConfig {
        players,
        seed: 5,
        ..SimConfig::default()
    });
    let mut w = ReelWriter::create(path, ReelOptions::compacted()).expect("create bench file");
    for _ in 0..RUN_TICKS {
        let (t, mut events) = sim.step();
        if t % 600 == 0 {
            events.push(Event::Checkpoint {
                entity: 1,
                index: t / 600,
            });
        }
        w.write_tick(t, &events).expect("write tick");
    }
    w.finish().expect("finish bench file");
}

/// Median of `runs` timings of `f`, in milliseconds.
fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    )
}

/// Runs `pass` `passes` times; the fastest pass's time per item, in nanoseconds.
fn fastest_ns_per_item(passes: usize, items: usize, mut pass: impl FnMut()) -> f64 {
    (0..passes)
        .map(|_| {
            let t = Instant::now();
            pass();
            t.elapsed().as_secs_f64() * 1e9 / items as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn load(path: &Path) -> GhostTrack {
    let reader = Reader::open_path(path).expect("open bench file");
    GhostTrack::load(&reader, 1, GhostRange::all()).expect("load ghost")
}

/// Ghosts raced together in the set figure (the server recording's players 1 to 8).
const SET_GHOSTS: u32 = 8;

pub fn run(quick: bool, out: &mut Figures) {
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "tickreel-bench-ghost-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos())
    ));
    std::fs::create_dir_all(&dir).expect("bench temp dir");
    let solo = dir.join("run.reel");
    let server = dir.join("server.reel");
    write_run(&solo, 1);
    write_run(&server, 10);

    let loads = if quick { 15 } else { 101 };
    let _ = load(&solo); // warm the page cache
    put(
        out,
        "ghost_load_5min_ms",
        median_ms(loads, || drop(load(&solo))),
    );
    let _ = load(&server);
    put(
        out,
        "ghost_load_5min_10p_ms",
        median_ms(loads, || drop(load(&server))),
    );

    let track = Arc::new(load(&solo));
    put(out, "ghost_track_kib", track.heap_bytes() as f64 / 1024.0);
    let dur = f64::from(track.duration_ticks());
    let step = track.tick_rate() / 60.0;
    let per_pass = (dur / step) as usize + 1;
    let passes = if quick { 30 } else { 300 };

    // Forward at 60 Hz over the whole run (what a server does every frame). The machine may be
    // shared: each figure is the fastest of several passes.
    let mut cursor = GhostCursor::new(track.clone());
    let mut acc = 0.0;
    let allocs_before = allocations();
    let forward_ns = fastest_ns_per_item(passes, per_pass, || {
        for k in 0..per_pass {
            let s = cursor.sample(black_box(k as f64 * step));
            acc += s.x + s.yaw;
        }
    });
    let forward_allocs = allocations() - allocs_before;
    put(out, "ghost_sample_ns", forward_ns);

    // Random access.
    let mut rng = fastrand::Rng::with_seed(9);
    let times: Vec<f64> = (0..4096).map(|_| rng.f64() * dur).collect();
    let allocs_before = allocations();
    let random_ns = fastest_ns_per_item(passes, times.len(), || {
        for &t in &times {
            let s = cursor.sample(black_box(t));
            acc += s.z;
        }
    });
    let random_allocs = allocations() - allocs_before;
    put(out, "ghost_random_sample_ns", random_ns);
    let samples = (passes * (per_pass + times.len())) as f64;
    put(
        out,
        "ghost_allocs_per_sample",
        (forward_allocs + random_allocs) as f64 / samples,
    );

    // The live delta of a player 7 ticks behind the ghost, updated every tick.
    let mut delta = LiveDelta::new(track.clone());
    let positions: Vec<[f64; 3]> = (0..RUN_TICKS)
        .map(|t| cursor.sample(f64::from(t) - 7.0).position())
        .collect();
    let delta_passes = if quick { 5 } else { 50 };
    let allocs_before = allocations();
    let delta_ns = fastest_ns_per_item(delta_passes, positions.len(), || {
        delta.reset();
        for (t, p) in positions.iter().enumerate() {
            acc += delta.update(black_box(t as f64), *p).raw_ticks;
        }
    });
    let updates = (delta_passes * positions.len()) as f64;
    put(out, "ghost_delta_update_ns", delta_ns);
    put(
        out,
        "ghost_delta_allocs_per_update",
        (allocations() - allocs_before) as f64 / updates,
    );
    // Several ghosts at once: 8 players' runs in one set, each with its own cursor and a time
    // shift, sampled together at 60 Hz into one buffer; the figure is per ghost.
    let reader = Reader::open_path(&server).expect("open bench file");
    let mut set = GhostSet::new();
    for entity in 1..=SET_GHOSTS {
        let track = GhostTrack::load(&reader, entity, GhostRange::all()).expect("load ghost");
        let i = set.push(Arc::new(track));
        set.set_time_shift(i, f64::from(entity) * 3.0);
    }
    let mut samples = [GhostSample::default(); SET_GHOSTS as usize];
    let allocs_before = allocations();
    let set_ns = fastest_ns_per_item(passes, per_pass * SET_GHOSTS as usize, || {
        for k in 0..per_pass {
            set.sample_into(black_box(k as f64 * step), &mut samples);
            acc += samples[SET_GHOSTS as usize - 1].x;
        }
    });
    put(out, "ghost_set_sample_ns_per_ghost", set_ns);
    put(
        out,
        "ghost_set_allocs_per_sample",
        (allocations() - allocs_before) as f64 / (passes * per_pass) as f64,
    );

    // The live gold figures every tick: the best possible time, and a split every 600 ticks.
    let route: Vec<u32> = (1..10).collect();
    let mut gold = GoldSplits::new(&route, &[600; 10], 20.0).expect("gold splits");
    let gold_passes = if quick { 5 } else { 50 };
    let allocs_before = allocations();
    let gold_ns = fastest_ns_per_item(gold_passes, RUN_TICKS as usize, || {
        gold.reset();
        for t in 0..RUN_TICKS {
            let live = black_box(f64::from(t));
            if t > 0
                && t % 600 == 0
                && let Some(s) = gold.checkpoint(t / 600, live)
            {
                acc += s.delta_ticks;
            }
            acc += gold.best_possible_ticks(live);
        }
    });
    put(out, "gold_splits_tick_ns", gold_ns);
    put(
        out,
        "gold_splits_allocs_per_tick",
        (allocations() - allocs_before) as f64 / (gold_passes * RUN_TICKS as usize) as f64,
    );

    black_box(acc);
    let _ = std::fs::remove_dir_all(&dir);
}
