//! The Rust side of the JNI benchmark (`java-bindings/bench.sh`): the same workload the Java
//! benchmark (`java-bindings/src/bench/java/io/tickreel/bench/JniBench.java`) submits through
//! `TickWriter` + one JNI call per tick, here through the Rust API, so that the two figures differ
//! by the binding's cost only. Key: `rust_ns_per_player_tick`.
//!
//! Path measured: until the live recorder is bound in Java, both sides submit into
//! [`ReelWriter::write_batch`], which decodes, chunks and compresses on the calling thread, so the
//! figure is dominated by that work, not by the submit itself.

use std::time::Instant;

use tickreel::Pose;
use tickreel::format::event::{Event, encode_batch};
use tickreel::record::{ReelOptions, ReelWriter};

use super::{Figures, put};

/// Players per tick (as `JniBench.PLAYERS`).
pub const PLAYERS: u32 = 100;

/// One player's pose at a tick; must stay identical to `JniBench.fill`.
fn pose(p: u32, t: u32) -> Pose {
    let (pf, tf) = (f64::from(p), f64::from(t));
    Pose::from_f64(
        pf * 2.0 + tf * 0.28 + (tf * 0.05 + pf).sin() * 0.1,
        64.0 + ((tf * 0.3 + pf).sin() * 0.6).max(0.0),
        pf * 0.5 + (tf * 0.02).cos() * 3.0,
        tf * 3.7 + pf,
        (tf * 0.1).sin() * 20.0,
    )
}

/// One tick's events; must stay identical to `JniBench.fill`.
fn fill(t: u32, events: &mut Vec<Event>) {
    events.clear();
    for p in 0..PLAYERS {
        let pose = pose(p, t);
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

/// Nanoseconds per player-tick of one run of `ticks` ticks.
fn run_once(ticks: u32, run: usize) -> f64 {
    let path = std::env::temp_dir().join(format!(
        "tickreel-bench-jni-{}-{run}.reel",
        std::process::id()
    ));
    let mut w = ReelWriter::create(&path, ReelOptions::default()).expect("writer");
    let mut events = Vec::with_capacity(2 * PLAYERS as usize);
    let mut batch = Vec::with_capacity(4096);
    let start = Instant::now();
    for t in 0..ticks {
        fill(t, &mut events);
        batch.clear();
        encode_batch(&events, &mut batch).expect("encode");
        w.write_batch(t, &batch).expect("write");
    }
    let elapsed = start.elapsed();
    w.finish().expect("finish");
    let _ = std::fs::remove_file(&path);
    elapsed.as_nanos() as f64 / (f64::from(ticks) * f64::from(PLAYERS))
}

/// Median over several runs after a warm-up run.
pub fn rust_ns_per_player_tick(quick: bool) -> f64 {
    let (ticks, runs) = if quick { (600, 3) } else { (2000, 7) };
    run_once(ticks / 2, 0);
    let mut v: Vec<f64> = (1..=runs).map(|r| run_once(ticks, r)).collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn run(quick: bool, out: &mut Figures) {
    put(
        out,
        "rust_ns_per_player_tick",
        rust_ns_per_player_tick(quick),
    );
}
