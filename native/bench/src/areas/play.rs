//! Issue-4 figures: seek latency (cold and warm chunk cache), the cost of a step back against a
//! step forward, and the memory of one more viewer of an already-cached recording.
//!
//! Workload: a recording of the simulated server (100 players, default `SimConfig`: walking,
//! sprinting, jumping, turning, rare teleports) written by `ReelWriter` with the default chunk
//! policy (100-tick chunks, a snapshot every 600 ticks); 1 hour (72,000 ticks), or 6 minutes with
//! `--quick`. Prefetching is off while timing, so that background decoding does not compete with
//! the measured thread on a small machine.

use std::path::PathBuf;
use std::time::Instant;

use tickreel::play::{Direction, PlaybackContext, Playhead, PlayheadOptions, Recording};
use tickreel::record::ReelOptions;

use super::shared::{percentile, simulated_reel};
use super::{Figures, put};

const PLAYERS: u32 = 100;

pub fn run(quick: bool, out: &mut Figures) {
    let ticks: u32 = if quick { 20 * 60 * 6 } else { 20 * 60 * 60 };
    let path =
        std::env::temp_dir().join(format!("tickreel-bench-play-{}.reel", std::process::id()));
    let r = (|| -> tickreel::Result<()> {
        simulated_reel(&path, PLAYERS, 4, ticks, ReelOptions::default())?;
        seeks(&path, ticks, quick, out)?;
        steps(&path, ticks, quick, out)?;
        viewers(&path, ticks, out)?;
        Ok(())
    })();
    let _ = std::fs::remove_file(&path);
    if let Err(e) = r {
        eprintln!("bench play: {e}");
    }
}

fn no_prefetch() -> PlayheadOptions {
    PlayheadOptions {
        prefetch: false,
        ..PlayheadOptions::default()
    }
}

/// Seeks to random ticks: cold (the chunk cache emptied before each seek: read + decompress +
/// decode + replay from the keyframe) and warm (the chunk already decoded: replay only).
fn seeks(path: &PathBuf, ticks: u32, quick: bool, out: &mut Figures) -> tickreel::Result<()> {
    let rec = Recording::open_path_with(path, &PlaybackContext::new(1 << 30, 1, 16))?;
    let mut ph = Playhead::with_options(rec.clone(), 0, no_prefetch())?;
    let mut rng = fastrand::Rng::with_seed(7);
    let n = if quick { 60 } else { 300 };
    let (mut cold, mut warm) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let q = rng.u32(0..ticks);
        let away = (q + ticks / 2) % ticks;
        rec.cache().clear();
        let t0 = Instant::now();
        ph.seek(q)?;
        cold.push(t0.elapsed().as_secs_f64() * 1e3);
        ph.seek(away)?;
        let t0 = Instant::now();
        ph.seek(q)?;
        warm.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    put(out, "seek_cold_p50_ms", percentile(&mut cold, 0.5));
    put(out, "seek_cold_p99_ms", percentile(&mut cold, 0.99));
    put(out, "seek_warm_p50_ms", percentile(&mut warm, 0.5));
    put(out, "seek_warm_p99_ms", percentile(&mut warm, 0.99));
    Ok(())
}

/// Amortised cost of one step back against one step forward over the same range of ticks, with
/// the chunks already decoded; backward includes building each chunk's reverse log (on the
/// stepping thread: `step_back` blocks for it). Each round uses a fresh recording (no reverse log
/// cached); the figure is the best round of each direction, as other processes on a loaded
/// machine only ever add time.
fn steps(path: &PathBuf, ticks: u32, quick: bool, out: &mut Figures) -> tickreel::Result<()> {
    let range: u32 = if quick { 1000 } else { 2000 };
    let rounds = if quick { 5 } else { 11 };
    let (mut best_f, mut best_b) = (f64::MAX, f64::MAX);
    for round in 0..rounds {
        let rec = Recording::open_path_with(path, &PlaybackContext::new(1 << 30, 1, 16))?;
        let a = (ticks / (rounds + 1)) * (round + 1) - range / 2;
        let mut ph = Playhead::with_options(rec.clone(), a, no_prefetch())?;
        for _ in 0..range {
            ph.step_forward();
        }
        ph.seek(a)?;
        let t0 = Instant::now();
        for _ in 0..range {
            ph.step_forward();
        }
        best_f = best_f.min(t0.elapsed().as_secs_f64());
        let t0 = Instant::now();
        for _ in 0..range {
            ph.step_back();
        }
        best_b = best_b.min(t0.elapsed().as_secs_f64());
        assert_eq!(ph.position(), a);
    }
    put(out, "step_back_vs_forward_ratio", best_b / best_f);
    put(out, "step_forward_us", best_f * 1e6 / f64::from(range));
    put(out, "step_back_us", best_b * 1e6 / f64::from(range));
    Ok(())
}

/// Heap owned by one more viewer of a recording whose chunks are cached: its update buffers,
/// state, cursors (`Playhead::heap_bytes`), after seeking and playing both ways for a while.
fn viewers(path: &PathBuf, ticks: u32, out: &mut Figures) -> tickreel::Result<()> {
    let rec = Recording::open_path_with(path, &PlaybackContext::new(1 << 30, 1, 64))?;
    let span = 2000.min(ticks - 1);
    let mut first = Playhead::with_options(rec.clone(), 0, no_prefetch())?;
    for _ in 0..span {
        first.step_forward();
    }
    let viewers: Vec<Playhead> = (0..32u32)
        .map(|v| -> tickreel::Result<Playhead> {
            let mut ph = Playhead::with_options(rec.clone(), 300 + v * 40, no_prefetch())?;
            ph.set_speed(2.0)?;
            ph.play();
            for _ in 0..100 {
                ph.prepare();
                ph.advance();
            }
            ph.set_direction(Direction::Backward);
            for _ in 0..100 {
                ph.prepare();
                ph.advance();
            }
            Ok(ph)
        })
        .collect::<tickreel::Result<_>>()?;
    let bytes: usize = viewers.iter().map(Playhead::heap_bytes).sum();
    put(
        out,
        "viewer_extra_bytes",
        bytes as f64 / viewers.len() as f64,
    );
    Ok(())
}
