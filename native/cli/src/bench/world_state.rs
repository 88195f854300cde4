//! Issue-33 figures of the world the library keeps: `seek_world_p99_ms`, random seeks of a
//! playhead (which rebuilds the world of edited blocks, equipment and health at the new tick)
//! in a recording with world events, against the same seeks in the same recording without them
//! (`seek_world_plain_p99_ms`, `seek_world_vs_plain_ratio`); cold (the chunk cache emptied before
//! each seek: read, decompress, decode, replay, rebuild) and warm (chunks decoded already).
//!
//! Workload: the simulated server (100 players, default `SimConfig`) for 1 hour (72,000 ticks;
//! 6 minutes with `--quick`), written by `ReelWriter` with the default chunk policy (100-tick
//! chunks, a snapshot every 600 ticks), plus 100,000 block changes at distinct positions spread
//! evenly over the hour (10,000 over 6 minutes with `--quick`), in a 512 × 64 × 512 area, and an
//! equipment and a health event every 20 ticks. The plain recording is the same without the
//! world events. Prefetching is off while timing.

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
        let (w_cold, w_warm, edited) = seeks(&world, ticks, n)?;
        let (p_cold, p_warm, _) = seeks(&plain, ticks, n)?;
        put(out, "seek_world_p99_ms", w_cold);
        put(out, "seek_world_warm_p99_ms", w_warm);
        put(out, "seek_world_plain_p99_ms", p_cold);
        put(out, "seek_world_plain_warm_p99_ms", p_warm);
        put(out, "seek_world_vs_plain_ratio", w_cold / p_cold);
        put(out, "seek_world_edited_blocks", edited as f64);
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

/// p99 of cold and warm seeks to random ticks (each from the previous position), and the edited
/// blocks at the last tick.
fn seeks(path: &PathBuf, ticks: u32, n: usize) -> Result<(f64, f64, usize)> {
    let rec = Recording::open_path_with(path, &PlaybackContext::new(1 << 30, 1, 16))?;
    let opts = PlayheadOptions {
        prefetch: false,
        ..PlayheadOptions::default()
    };
    let mut ph = Playhead::with_options(rec.clone(), 0, opts)?;
    let mut rng = fastrand::Rng::with_seed(7);
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
    ph.seek(ticks - 1)?;
    let edited = ph.world().block_count();
    Ok((
        percentile(&mut cold, 0.99),
        percentile(&mut warm, 0.99),
        edited,
    ))
}
