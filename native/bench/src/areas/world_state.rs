//! Issue-33 and issue-48 figures of the world the library keeps: `seek_world_p99_ms`, random
//! seeks of a playhead (which rebuilds the world of edited blocks, equipment and health at the new
//! tick) in a recording with world events, against the same seeks in the same recording without
//! them (`seek_world_plain_p99_ms`, `seek_world_vs_plain_ratio`).
//!
//! Cold, as issue 48 defines it: every measured seek starts with nothing decoded, neither chunks
//! (the chunk cache emptied) nor keyframe worlds (the reader's kept worlds given back,
//! `Reader::trim_caches(0)`), as a viewer scrubbing a recording it never opened before: read,
//! decompress, decode, replay, rebuild, the keyframe's world decoded in the measured seek. Beside
//! it: `seek_world_read_p99_ms`, the same cold seek followed by reading every edited block of
//! the world it gives (what a viewer that shows the world does next; a seek that put off work
//! onto the world's reads pays it here); `seek_world_kept_keyframes_p99_ms`, issue 33's "cold"
//! (the chunk cache emptied, the keyframe worlds of earlier seeks kept by the reader, so only a
//! reader's first seek onto a keyframe decodes it); warm (chunks decoded already).
//!
//! Workload: the simulated server (100 players, default `SimConfig`) for 1 hour (72,000 ticks;
//! 6 minutes with `--quick`), written by `ReelWriter` with the default chunk policy (100-tick
//! chunks, a snapshot every 600 ticks), plus 100,000 block changes at distinct positions spread
//! evenly over the hour (10,000 over 6 minutes with `--quick`), in a 512 × 64 × 512 area, and an
//! equipment and a health event every 20 ticks. The plain recording is the same without the
//! world events. Prefetching is off while timing. 1,000 cold seeks per file (60 with `--quick`),
//! 300 of the other kinds.

use std::path::{Path, PathBuf};
use std::time::Instant;

use tickreel::format::BlockPos;
use tickreel::play::{PlaybackContext, Playhead, PlayheadOptions, Recording};
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel::{Event, Result};
use tickreel_sim::{SimConfig, Simulator};

use super::shared::percentile;
use super::{Figures, put};

const PLAYERS: u32 = 100;

/// Cold seeks measured per file (issue 48's cold: nothing decoded before each): 1,000, so that
/// the p99 is the tenth-slowest seek, not the third of 300 (one stalled seek moved it); the
/// kept-keyframe and warm seeks stay at 300.
const COLD_SEEKS: usize = 1_000;

pub fn run(quick: bool, out: &mut Figures) {
    let ticks: u32 = if quick { 20 * 60 * 6 } else { 20 * 60 * 60 };
    let blocks: u32 = if quick { 10_000 } else { 100_000 };
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let world = dir.join(format!("tickreel-bench-world-{pid}.reel"));
    let plain = dir.join(format!("tickreel-bench-world-plain-{pid}.reel"));
    let r = (|| -> Result<()> {
        write(&world, ticks, blocks, true)?;
        write(&plain, ticks, blocks, false)?;
        let n = if quick { 60 } else { 300 };
        let cold_n = if quick { 60 } else { COLD_SEEKS };
        let w = seeks(&world, ticks, n, cold_n)?;
        let p = seeks(&plain, ticks, n, cold_n)?;
        put(out, "seek_world_p99_ms", w.cold);
        put(out, "seek_world_p50_ms", w.cold_p50);
        put(out, "seek_world_read_p50_ms", w.cold_read_p50);
        put(out, "seek_world_plain_p50_ms", p.cold_p50);
        put(
            out,
            "seek_world_p50_vs_plain_ratio",
            w.cold_p50 / p.cold_p50,
        );
        put(out, "seek_world_read_p99_ms", w.cold_read);
        put(out, "seek_world_kept_keyframes_p99_ms", w.kept);
        put(out, "seek_world_warm_p99_ms", w.warm);
        put(out, "seek_world_plain_p99_ms", p.cold);
        put(out, "seek_world_plain_warm_p99_ms", p.warm);
        put(out, "seek_world_vs_plain_ratio", w.cold / p.cold);
        put(out, "seek_world_read_vs_plain_ratio", w.cold_read / p.cold);
        put(
            out,
            "seek_world_kept_keyframes_vs_plain_ratio",
            w.kept / p.cold,
        );
        put(out, "seek_world_edited_blocks", w.edited as f64);
        put(
            out,
            "seek_world_file_bytes",
            std::fs::metadata(&world).map_or(0, |m| m.len()) as f64,
        );
        put(
            out,
            "seek_world_plain_file_bytes",
            std::fs::metadata(&plain).map_or(0, |m| m.len()) as f64,
        );
        Ok(())
    })();
    let _ = std::fs::remove_file(&world);
    let _ = std::fs::remove_file(&plain);
    if let Err(e) = r {
        eprintln!("bench world_state: {e}");
    }
}

/// Writes the workload (with or without its world events).
fn write(path: &Path, ticks: u32, blocks: u32, with_world: bool) -> Result<()> {
    let mut sim = Simulator::new(SimConfig {
        players: PLAYERS,
        seed: 4,
        ..SimConfig::default()
    });
    let mut rng = fastrand::Rng::with_seed(9);
    let mut w = ReelWriter::create(path, ReelOptions::default())?;
    let mut placed = 0u32;
    for _ in 0..ticks {
        let (t, mut events) = sim.step();
        if with_world {
            // distinct positions: the n-th block goes to a fixed permutation of the area
            let due = (u64::from(t + 1) * u64::from(blocks) / u64::from(ticks)) as u32;
            while placed < due {
                let i = placed.wrapping_mul(2_654_435_761) % (512 * 64 * 512);
                events.push(Event::BlockChange {
                    pos: BlockPos::new(
                        (i % 512) as i32,
                        (i / 512 % 64) as i32,
                        (i / 512 / 64) as i32,
                    ),
                    state: rng.u32(1..2000),
                    cause: None,
                    block_entity: None,
                });
                placed += 1;
            }
            if t % 20 == 0 {
                events.push(Event::Equipment {
                    entity: rng.u32(0..PLAYERS),
                    slot: rng.u8(0..6),
                    item: rng.u32(1..800),
                    count: 1,
                });
                events.push(Event::Health {
                    entity: rng.u32(0..PLAYERS),
                    health: rng.u32(0..2001),
                });
            }
        }
        w.write_tick(t, &events)?;
    }
    w.finish()?;
    Ok(())
}

/// The p99 of each kind of seek (ms), and the edited blocks at the last tick.
struct Seeks {
    /// Nothing decoded before the seek: no chunk, no keyframe world.
    cold: f64,
    /// The same, then every edited block of the world read.
    cold_read: f64,
    /// The medians of those two (less moved by a loaded machine's stalls than the p99).
    cold_p50: f64,
    cold_read_p50: f64,
    /// The chunk cache emptied, the reader's keyframe worlds of earlier seeks kept (issue 33).
    kept: f64,
    /// The chunks decoded already.
    warm: f64,
    edited: usize,
}

/// Seeks to `n` random ticks (`cold_n` for the cold seeks), each from the previous position or
/// from half the recording away.
fn seeks(path: &PathBuf, ticks: u32, n: usize, cold_n: usize) -> Result<Seeks> {
    let opts = PlayheadOptions {
        prefetch: false,
        ..PlayheadOptions::default()
    };
    let open = || Recording::open_path_with(path, &PlaybackContext::new(1 << 30, 1, 16));
    // Issue 33's cold and warm seeks, as they were measured: the reader's keyframe worlds kept.
    let rec = open()?;
    let mut ph = Playhead::with_options(rec.clone(), 0, opts)?;
    let mut rng = fastrand::Rng::with_seed(7);
    let (mut kept, mut warm) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let q = rng.u32(0..ticks);
        let away = (q + ticks / 2) % ticks;
        rec.cache().clear();
        let t0 = Instant::now();
        ph.seek(q)?;
        kept.push(t0.elapsed().as_secs_f64() * 1e3);
        ph.seek(away)?;
        let t0 = Instant::now();
        ph.seek(q)?;
        warm.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    ph.seek(ticks - 1)?;
    let edited = ph.world_state().block_count();
    drop(ph);
    // Cold as issue 48 defines it: nothing of the recording decoded before each measured seek.
    let rec = open()?;
    let mut ph = Playhead::with_options(rec.clone(), 0, opts)?;
    let forget = || {
        rec.cache().clear();
        rec.view().reader().trim_caches(0);
    };
    let mut rng = fastrand::Rng::with_seed(7);
    let (mut cold, mut cold_read) = (Vec::with_capacity(cold_n), Vec::with_capacity(cold_n));
    for _ in 0..cold_n {
        let q = rng.u32(0..ticks);
        let away = (q + ticks / 2) % ticks;
        forget();
        let t0 = Instant::now();
        ph.seek(q)?;
        cold.push(t0.elapsed().as_secs_f64() * 1e3);
        ph.seek(away)?;
        forget();
        let t0 = Instant::now();
        ph.seek(q)?;
        let read = ph
            .world_state()
            .blocks()
            .fold(0u64, |a, (p, s)| a ^ (p.x as u64) ^ u64::from(s));
        std::hint::black_box(read);
        cold_read.push(t0.elapsed().as_secs_f64() * 1e3);
        ph.seek(away)?;
    }
    Ok(Seeks {
        cold_p50: percentile(&mut cold, 0.5),
        cold_read_p50: percentile(&mut cold_read, 0.5),
        cold: percentile(&mut cold, 0.99),
        cold_read: percentile(&mut cold_read, 0.99),
        kept: percentile(&mut kept, 0.99),
        warm: percentile(&mut warm, 0.99),
        edited,
    })
}
