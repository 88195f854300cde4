//! What several benchmarks share: the simulated recording they measure, the engine and recorder
//! settings under which a measured round never meets backpressure, and the order statistics they
//! report.

use std::path::Path;
use std::time::Duration;

use tickreel::record::{Backpressure, FlushPolicy};
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel::{Engine, EngineOptions, Event, Pose, RecorderOptions};
use tickreel_sim::{SimConfig, Simulator};

use super::{Figures, put};

/// Writes `ticks` ticks of the simulated server (`players` always-moving players, the default
/// `SimConfig` otherwise, `seed`) to a `.reel` at `path` with `ReelWriter` and `options`.
pub fn simulated_reel(
    path: &Path,
    players: u32,
    seed: u64,
    ticks: u32,
    options: ReelOptions,
) -> tickreel::Result<()> {
    let mut sim = Simulator::new(SimConfig {
        players,
        seed,
        ..SimConfig::default()
    });
    let mut w = ReelWriter::create(path, options)?;
    for _ in 0..ticks {
        let (t, events) = sim.step();
        w.write_tick(t, &events)?;
    }
    w.finish()?;
    Ok(())
}

/// An engine whose queue and in-flight budget hold a whole benchmark run (a million messages,
/// 1 GiB): ticks submitted as fast as a loop goes, far faster than 20 a second, never wait for the
/// writer or meet backpressure, however far behind it falls on a busy machine.
pub fn big_engine() -> Engine {
    Engine::new(EngineOptions {
        queue_capacity: 1 << 20,
        max_inflight_bytes: 1 << 30,
        ..EngineOptions::default()
    })
    .expect("engine")
}

/// A recorder that waits (up to 10 s) rather than drops, and flushes only every 4 MiB: what the
/// submit benchmarks time is the submit, not a flush policy.
pub fn blocking_recorder_options() -> RecorderOptions {
    RecorderOptions {
        backpressure: Backpressure::Block {
            deadline: Duration::from_secs(10),
        },
        flush: FlushPolicy {
            max_pending_bytes: 4 << 20,
            interval: Duration::from_secs(3600),
            on_player_leave: false,
        },
        ..RecorderOptions::default()
    }
}

/// The value at `p` (0..=1) of `v` (sorted here): the element at `p` of the way from the first to
/// the last, rounded to the nearest.
pub fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// The median of `v` (the upper one of an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Puts the median and the 99th percentile of `v` (milliseconds) as `KEY_p50_ms` and
/// `KEY_p99_ms`, each followed by `suffix`.
pub fn put_percentiles(out: &mut Figures, key: &str, suffix: &str, mut v: Vec<f64>) {
    v.sort_by(f64::total_cmp);
    put(out, &format!("{key}_p50_ms{suffix}"), v[v.len() / 2]);
    put(
        out,
        &format!("{key}_p99_ms{suffix}"),
        v[(v.len() * 99 / 100).min(v.len() - 1)],
    );
}

/// Writes a race of runners to `w` and finishes it: runner `e` (1-based) is added at tick 0,
/// moves along x until `ticks[e - 1]`, and is removed the tick after; with `checkpoint`, each
/// passes checkpoint 1 halfway.
pub fn write_race(mut w: ReelWriter, ticks: &[u32], checkpoint: bool) {
    let last = *ticks.iter().max().expect("runners");
    for t in 0..=last + 1 {
        let mut events = Vec::new();
        for (i, &d) in ticks.iter().enumerate() {
            let e = i as u32 + 1;
            let pose = Pose::from_f64(f64::from(t) * 0.2, 64.0, f64::from(e), 90.0, 0.0);
            if t == 0 {
                events.push(Event::EntityAdd {
                    entity: e,
                    kind: 0,
                    pose,
                });
            } else if t <= d {
                events.push(Event::Pose { entity: e, pose });
            } else if t == d + 1 {
                events.push(Event::EntityRemove { entity: e });
            }
            if checkpoint && t == d / 2 {
                events.push(Event::Checkpoint {
                    entity: e,
                    index: 1,
                });
            }
        }
        w.write_tick(t, &events).expect("write tick");
    }
    w.finish().expect("finish bench file");
}
