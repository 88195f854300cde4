//! What several benchmarks share: the simulated recording they measure, the engine and recorder
//! settings under which a measured round never meets backpressure, and the order statistics they
//! report.

use std::path::Path;
use std::time::Duration;

use tickreel::RecorderOptions;
use tickreel::record::{Backpressure, FlushPolicy};
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel_sim::{SimConfig, Simulator};

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
