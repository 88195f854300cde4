//! The Rust side of the JNI benchmark (`java-bindings/bench.sh`): the same workload the Java
//! benchmark (`java-bindings/benchmarks/src/main/java/io/tickreel/JniBench.java`) submits through
//! `Batch` + one JNI call per tick, here through the Rust API, so that the two figures differ
//! by the binding's cost only. Key: `rust_ns_per_player_tick`.
//!
//! Path measured: the server thread's side of the live recorder. Per tick: build the tick's events,
//! encode them as a tick batch, and [`tickreel::Recorder::submit_tick`] (a copy into a pooled
//! buffer and a queue push), with the writer thread held during the measured round.

use std::time::{Duration, Instant};

use tickreel::format::{Event, encode_batch};
use tickreel::{Engine, EngineOptions, Pose};

use super::shared::{blocking_recorder_options, median};
use super::{Figures, put};

/// Players per tick (as `JniBench.PLAYERS`).
pub const PLAYERS: u32 = 100;

/// Every player's x, y, z, yaw, pitch for `ticks` ticks, computed before timing (a server has its
/// players' positions at hand); must stay identical to the Java benchmarks' workload
/// (`BenchPoses`, its constructor).
fn table(ticks: u32) -> Vec<[f64; 5]> {
    let mut v = Vec::with_capacity((ticks * PLAYERS) as usize);
    for t in 0..ticks {
        for p in 0..PLAYERS {
            let (pf, tf) = (f64::from(p), f64::from(t));
            v.push([
                pf * 2.0 + tf * 0.28 + (tf * 0.05 + pf).sin() * 0.1,
                64.0 + ((tf * 0.3 + pf).sin() * 0.6).max(0.0),
                pf * 0.5 + (tf * 0.02).cos() * 3.0,
                tf * 3.7 + pf,
                (tf * 0.1).sin() * 20.0,
            ]);
        }
    }
    v
}

/// One tick's events (the timed work with the submit); must stay identical to `BenchPoses.fill`.
fn fill(t: u32, events: &mut Vec<Event>, table: &[[f64; 5]]) {
    events.clear();
    let row = &table[(t * PLAYERS) as usize..((t + 1) * PLAYERS) as usize];
    for (p, &[x, y, z, yaw, pitch]) in (0..PLAYERS).zip(row) {
        let pose = Pose::from_f64(x, y, z, yaw, pitch);
        if t == 0 {
            events.push(Event::EntityAdd {
                entity: p,
                kind: 0,
                pose,
            });
        } else {
            events.push(Event::Pose { entity: p, pose });
        }
        if t.is_multiple_of(20) {
            events.push(Event::Flags {
                entity: p,
                flags: (t / 20 + p) & 7,
            });
        }
    }
}

/// An engine and recording sized so that a measured round never meets backpressure.
fn engine() -> Engine {
    Engine::new(EngineOptions {
        queue_capacity: 1 << 16,
        max_inflight_bytes: 1 << 30,
        ..EngineOptions::default()
    })
    .expect("engine")
}

fn drain(engine: &Engine) {
    while engine.stats().inflight_bytes > 0 || engine.stats().queue_depth > 0 {
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Nanoseconds per player-tick of one run of `ticks` ticks: fill + encode + `submit_tick` on the
/// calling (server) thread. A warm-up round of `ticks / 2` ticks runs with the writer; the measured
/// round runs with the writer held (`set_writers_stalled`), so that the figure is the server
/// thread's own cost, not time shared with the writer on a 2-core machine.
fn run_once(engine: &Engine, ticks: u32, run: usize, table: &[[f64; 5]]) -> f64 {
    let dir = tempfile::tempdir().expect("tempdir");
    let rec = engine
        .start_recording(
            dir.path().join(format!("jni-{run}.reel")),
            blocking_recorder_options(),
        )
        .expect("start");
    let mut events = Vec::with_capacity(2 * PLAYERS as usize);
    let mut batch = Vec::with_capacity(4096);
    let warm = ticks / 2;
    for t in 0..warm {
        fill(t, &mut events, table);
        batch.clear();
        encode_batch(&events, &mut batch).expect("encode");
        rec.submit_tick(t, &batch).expect("submit");
    }
    drain(engine);
    engine.set_writers_stalled(true);
    let start = Instant::now();
    for t in warm..warm + ticks {
        fill(t, &mut events, table);
        batch.clear();
        encode_batch(&events, &mut batch).expect("encode");
        rec.submit_tick(t, &batch).expect("submit");
    }
    let elapsed = start.elapsed();
    engine.set_writers_stalled(false);
    rec.abort().expect("abort");
    drain(engine);
    elapsed.as_nanos() as f64 / (f64::from(ticks) * f64::from(PLAYERS))
}

/// Median over several runs after a warm-up run (as `JniBench`).
pub fn rust_ns_per_player_tick(quick: bool) -> f64 {
    let (ticks, runs) = if quick { (600, 3) } else { (2000, 7) };
    let table = table(ticks / 2 + ticks);
    let engine = engine();
    run_once(&engine, ticks, 0, &table);
    let v: Vec<f64> = (1..=runs)
        .map(|r| run_once(&engine, ticks, r, &table))
        .collect();
    engine.shutdown();
    median(v)
}

pub fn run(quick: bool, out: &mut Figures) {
    put(
        out,
        "rust_ns_per_player_tick",
        rust_ns_per_player_tick(quick),
    );
}
