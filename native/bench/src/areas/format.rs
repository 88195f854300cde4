//! Issue-2 figures: size vs the baseline, encode/decode throughput, seek latency.
//!
//! Workload: `tickreel_sim::Simulator` with the default `SimConfig` apart from the player count
//! (100 players), 20 ticks/s. The full run records one hour (72,000 ticks); `--quick` records five
//! minutes. The same file gives every figure: size, encode and decode throughput, random seeks and
//! single-chunk decodes. See BENCHMARKS.md for the model and the figures.

use std::time::{Duration, Instant};

use tickreel::Event;
use tickreel::play::Reader;
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel_sim::{SimConfig, Simulator};

use super::{Figures, baseline, hollowcube, put};

/// Players on the simulated server.
const PLAYERS: u32 = 100;
/// Ticks per second of the workload.
const TICK_RATE: f64 = 20.0;
/// Ticks generated and encoded at a time (a multiple of the baseline's 100-tick chunk, so that
/// summing the baseline per block equals the baseline of the whole run).
const BLOCK: u32 = 1200;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The value at quantile `q` (0..=1) of sorted `v` (nearest rank).
fn quantile(v: &[f64], q: f64) -> f64 {
    let i = ((v.len() as f64 * q).ceil() as usize).clamp(1, v.len()) - 1;
    v[i]
}

pub fn run(quick: bool, out: &mut Figures) {
    if let Err(e) = measure(quick, out) {
        eprintln!("format benchmark failed: {e}");
        out.insert("format_error".into(), serde_json::json!(e.to_string()));
    }
}

fn measure(quick: bool, out: &mut Figures) -> tickreel::Result<()> {
    let ticks: u32 = if quick { 5 * 60 * 20 } else { 60 * 60 * 20 };
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("bench.reel");

    // Encode: the simulator runs outside the timed sections; the baseline is computed per block.
    let mut sim = Simulator::new(SimConfig {
        players: PLAYERS,
        ..SimConfig::default()
    });
    let mut writer = ReelWriter::create(&path, ReelOptions::compacted())?;
    let mut encode = Duration::ZERO;
    let mut baseline_bytes = 0u64;
    // The anchor's compacted form of the same ticks, fed the same chunks.
    let mut anchor = hollowcube::Compacted::new();
    let mut block: Vec<(u32, Vec<Event>)> = Vec::with_capacity(BLOCK as usize);
    let mut done = 0;
    while done < ticks {
        block.clear();
        let n = BLOCK.min(ticks - done);
        block.extend((0..n).map(|_| sim.step()));
        let t0 = Instant::now();
        for (t, events) in &block {
            writer.write_tick(*t, events)?;
        }
        encode += t0.elapsed();
        baseline::encode_chunks(&block, |c| {
            baseline_bytes += baseline::chunk_size(c);
            anchor.chunk(c);
        });
        done += n;
    }
    let t0 = Instant::now();
    let size = writer.finish()?;
    encode += t0.elapsed();

    let player_ticks = f64::from(PLAYERS) * f64::from(ticks);
    let player_seconds = player_ticks / TICK_RATE;
    let ours = size as f64 / player_seconds;
    let base = baseline_bytes as f64 / player_seconds;
    put(out, "bytes_per_player_second", ours);
    put(out, "baseline_bytes_per_player_second", base);
    put(out, "baseline_ratio", base / ours);
    let anchor_bytes = anchor.finish();
    put(out, "busy_hollowcube_compacted_bytes", anchor_bytes as f64);
    put(
        out,
        "busy_vs_hollowcube_compacted_ratio",
        anchor_bytes as f64 / size as f64,
    );
    put(
        out,
        "encode_player_ticks_per_s",
        player_ticks / encode.as_secs_f64(),
    );

    // Decode: a full straight decode through the reader.
    let reader = Reader::open_path(&path)?;
    let t0 = Instant::now();
    let mut poses = 0u64;
    for t in reader.ticks(0, u32::MAX) {
        poses += t?
            .events
            .iter()
            .filter(|e| matches!(e, Event::Pose { .. } | Event::Teleport { .. }))
            .count() as u64;
    }
    let decode = t0.elapsed();
    if poses + u64::from(PLAYERS) < player_ticks as u64 {
        return Err(tickreel::Error::InvalidState(format!(
            "decoded {poses} poses for {player_ticks} player-ticks"
        )));
    }
    put(
        out,
        "decode_player_ticks_per_s",
        player_ticks / decode.as_secs_f64(),
    );

    // Seeks to random ticks (each decodes its chunk from scratch: the reader keeps no cache), and
    // single-chunk decodes (read + checksum + decompress + decode).
    let mut rng = fastrand::Rng::with_seed(7);
    let (first, last) = (
        reader.first_tick().unwrap_or(0),
        reader.last_tick().unwrap_or(0),
    );
    // Each sampled tick is sought three times: the first time counts for `seek_p50/p99_ms`; the
    // best of the three, which leaves out time the thread spent preempted on a busy machine, gives
    // `seek_p99_best_of_3_ms`.
    let seeks = if quick { 300 } else { 1000 };
    let mut seek_ms = Vec::with_capacity(seeks);
    let mut best_ms = Vec::with_capacity(seeks);
    for _ in 0..seeks {
        let t = rng.u32(first..=last);
        let mut runs = [0f64; 3];
        for r in &mut runs {
            let t0 = Instant::now();
            let s = reader.seek(t)?;
            *r = ms(t0.elapsed());
            std::hint::black_box(s);
        }
        seek_ms.push(runs[0]);
        best_ms.push(runs.iter().copied().fold(f64::INFINITY, f64::min));
    }
    seek_ms.sort_by(f64::total_cmp);
    best_ms.sort_by(f64::total_cmp);
    let chunks = reader.index().len();
    let mut chunk_ms = Vec::with_capacity(seeks);
    for _ in 0..seeks {
        let i = rng.usize(..chunks);
        let t0 = Instant::now();
        let c = reader.read_chunk(i)?;
        chunk_ms.push(ms(t0.elapsed()));
        std::hint::black_box(c);
    }
    chunk_ms.sort_by(f64::total_cmp);
    let p99 = quantile(&seek_ms, 0.99);
    let chunk_median = quantile(&chunk_ms, 0.5);
    put(out, "seek_p50_ms", quantile(&seek_ms, 0.5));
    put(out, "seek_p99_ms", p99);
    put(out, "chunk_decode_ms", chunk_median);
    put(out, "seek_vs_chunk_decode_ratio", p99 / chunk_median);
    let best_p99 = quantile(&best_ms, 0.99);
    put(out, "seek_p99_best_of_3_ms", best_p99);
    put(
        out,
        "seek_best_of_3_vs_chunk_decode_ratio",
        best_p99 / chunk_median,
    );

    // The workload itself, so that the figures can be read.
    put(out, "format_players", f64::from(PLAYERS));
    put(out, "format_ticks", f64::from(ticks));
    put(out, "format_file_bytes", size as f64);
    put(out, "format_chunks", chunks as f64);
    // How busy the machine was (timings on a shared 2-core machine depend on it).
    if let Some(load) = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
    {
        put(out, "load_average_1m", load);
    }
    Ok(())
}
