//! World events (issue 33), on the realistic preset whose players mine, build, fight and chat
//! (`RealisticSim::with_world`, rates and sources in `tickreel_sim::world::WorldRates`):
//!
//! - `world_bytes_per_block_change`: what a block change adds to a finished file (compacted
//!   policy), the file with every event against the same file without its block changes, over
//!   the number of block changes (100 players, 5 minutes; 20 with `--quick`);
//! - `world_block_baseline_ratio`: the reference encoding of the same block changes (HollowCube's:
//!   per tick with changes a varint tick and a varint count, per change a 64-bit packed position
//!   as Minecraft packs it and a varint state, zstd level 3 per 100-tick chunk) over a finished
//!   file holding only those block changes (compressed chunk bytes on both sides; tickreel
//!   also carries each change's causing entity, which the reference does not);
//! - `world_blocks_vs_hollowcube_compacted_ratio` (issue 48): the block changes of the preset with
//!   the server's own block changes besides (`RealisticSim::with_server_world`, shapes and rates
//!   in `tickreel_sim::blocks::ServerBlocks`: machines, doors, farms, explosions, fills, fluids)
//!   in the anchor's compacted form (each block changed as a varint tick delta, the 64-bit packed
//!   position and a varint state, one stream cut into frames of at most 256 KiB, each at zstd
//!   level 19) over a finished file holding only those block changes (compressed bytes on both
//!   sides); `world_server_block_baseline_ratio`: the per-chunk reference (as
//!   `world_block_baseline_ratio`) over the same file; `world_server_*`: the workload's shape
//!   (`tickreel_sim::blocks::BlockStats`); `real_blocks_vs_hollowcube_compacted_ratio_<name>` and
//!   `real_block_baseline_ratio_<name>`: the same for each `<name>_blocks.jsonl.gz` of
//!   `shared/traces/real-minecraft` (or `$TICKREEL_REAL_TRACES`), when that folder exists;
//! - `submit_world_vs_plain_ratio`: the server thread's time in `submit_tick` per submitted byte
//!   for the preset with world events over the same for the preset's movement alone;
//! - `shadow_report_world_ms`: a report (radius 48) of 5 minutes of 100 players with world
//!   events, from the call to the finished file (`shadow_report_world_plain_ms`: the same
//!   players' movement alone; the preset loads 45 entities around each player), with each
//!   report's bytes (`shadow_report_world_bytes`, `shadow_report_world_plain_bytes`) and the
//!   ratio of the two times (`shadow_report_world_vs_plain_ratio`, issue 48: at most 1.2). Five
//!   rounds (one with `--quick`), each timing the two reports one right after the other: the
//!   times are medians over the rounds, the ratio the median of the rounds' ratios.

use std::time::{Duration, Instant};

use tickreel::format::{Event, encode_batch};
use tickreel::record::{Backpressure, FlushPolicy, ReelOptions, ReelWriter};
use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions};
use tickreel::{Engine, EngineOptions, Recorder, RecorderOptions};
use tickreel_sim::blocks::{BlockStats, ServerBlocks};
use tickreel_sim::realistic::{RealisticConfig, RealisticSim};
use tickreel_sim::world::{WorldRates, palette};

use super::shared::{big_engine, median};
use super::{Figures, Tool, put, real};

/// 5 minutes at 20 ticks/s.
const TICKS: u32 = 6000;

/// The preset's ticks with world events (`world`) or its movement alone.
fn ticks(players: u32, world: bool) -> Vec<(u32, Vec<Event>)> {
    let cfg = RealisticConfig {
        players,
        seed: 33,
        ..RealisticConfig::default()
    };
    let mut sim = if world {
        RealisticSim::with_world(cfg, WorldRates::default())
    } else {
        RealisticSim::new(cfg)
    };
    (0..TICKS).map(|_| sim.step()).collect()
}

/// The preset with the server's own block changes besides the players' (issue 48).
fn server_ticks(players: u32) -> Vec<(u32, Vec<Event>)> {
    let cfg = RealisticConfig {
        players,
        seed: 48,
        ..RealisticConfig::default()
    };
    let mut sim =
        RealisticSim::with_server_world(cfg, WorldRates::default(), ServerBlocks::default());
    (0..TICKS).map(|_| sim.step()).collect()
}

/// Whether `e` changes blocks.
fn is_block(e: &Event) -> bool {
    matches!(e, Event::BlockChange { .. } | Event::BlockChanges { .. })
}

/// Each block `ticks` change: (tick, position, state), in order.
fn block_list(ticks: &[(u32, Vec<Event>)]) -> Vec<(u32, tickreel::format::BlockPos, u32)> {
    let mut v = Vec::new();
    for (t, ev) in ticks {
        for e in ev {
            match e {
                Event::BlockChange { pos, state, .. } => v.push((*t, *pos, *state)),
                Event::BlockChanges { blocks, .. } => {
                    v.extend(blocks.iter().map(|&(p, s)| (*t, p, s)));
                }
                _ => {}
            }
        }
    }
    v
}

/// The anchor's compacted form of the block changes of `ticks` (HollowCube's compactor over its
/// block records): per block changed a varint tick delta, the packed position (8 bytes) and a
/// varint state, one stream cut into frames of at most 256 KiB, each compressed at zstd level
/// 19; the frames' bytes.
fn compacted_reference_bytes(ticks: &[(u32, Vec<Event>)]) -> u64 {
    let mut stream = Vec::new();
    let mut prev = None;
    for (t, p, s) in block_list(ticks) {
        varint(&mut stream, u64::from(t - prev.unwrap_or(t)));
        prev = Some(t);
        stream.extend_from_slice(&packed(p.x, p.y, p.z).to_be_bytes());
        varint(&mut stream, u64::from(s));
    }
    let mut z = zstd::bulk::Compressor::new(super::hollowcube::COMPACT_LEVEL).expect("zstd");
    stream
        .chunks(super::hollowcube::FRAME_BYTE_LIMIT)
        .map(|f| z.compress(f).expect("zstd").len() as u64)
        .sum()
}

/// Bytes of a finished file (compacted policy, the palette registered) of `ticks`, keeping the
/// events `keep` says: (file bytes, compressed chunk bytes).
fn reel_bytes(
    dir: &std::path::Path,
    name: &str,
    ticks: &[(u32, Vec<Event>)],
    keep: impl Fn(&Event) -> bool,
) -> (u64, u64) {
    let path = dir.join(name);
    let mut w = ReelWriter::create(&path, ReelOptions::compacted()).expect("writer");
    for (kind, id, n) in palette() {
        w.register_name(kind, id, n).expect("name");
    }
    for (kind, id, n) in tickreel_sim::blocks::palette() {
        w.register_name(kind, id, &n).expect("name");
    }
    for (t, ev) in ticks {
        let ev: Vec<Event> = ev.iter().filter(|e| keep(e)).cloned().collect();
        w.write_tick(*t, &ev).expect("tick");
    }
    w.finish().expect("finish");
    let r = tickreel::play::Reader::open_path(&path).expect("open");
    let chunks = r.index().iter().map(|e| u64::from(e.compressed_len)).sum();
    (std::fs::metadata(&path).expect("stat").len(), chunks)
}

/// Minecraft's block position packing (x 26 bits, z 26 bits, y 12 bits), as a fixed 8 bytes.
fn packed(x: i32, y: i32, z: i32) -> u64 {
    ((x as i64 as u64 & 0x3FF_FFFF) << 38)
        | ((z as i64 as u64 & 0x3FF_FFFF) << 12)
        | (y as u64 & 0xFFF)
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The reference encoding's compressed bytes of the block changes of `ticks`.
fn reference_bytes(ticks: &[(u32, Vec<Event>)]) -> u64 {
    let mut total = 0u64;
    let mut chunk = Vec::new();
    let mut chunk_start = 0u32;
    let flush = |chunk: &mut Vec<u8>, total: &mut u64| {
        if !chunk.is_empty() {
            *total += zstd::bulk::compress(chunk, 3).expect("zstd").len() as u64;
            chunk.clear();
        }
    };
    for (t, ev) in ticks {
        if *t >= chunk_start + 100 {
            flush(&mut chunk, &mut total);
            chunk_start = *t - *t % 100;
        }
        let changes: Vec<_> = block_list(std::slice::from_ref(&(*t, ev.clone())))
            .into_iter()
            .map(|(_, p, s)| (p, s))
            .collect();
        if changes.is_empty() {
            continue;
        }
        varint(&mut chunk, u64::from(*t));
        varint(&mut chunk, changes.len() as u64);
        for (p, s) in changes {
            chunk.extend_from_slice(&packed(p.x, p.y, p.z).to_be_bytes());
            varint(&mut chunk, u64::from(s));
        }
    }
    flush(&mut chunk, &mut total);
    total
}

/// Options that flush only when asked: the submit is what is timed.
fn quiet() -> RecorderOptions {
    RecorderOptions {
        flush: FlushPolicy {
            max_pending_bytes: 256 << 20,
            interval: Duration::from_secs(3600),
            on_player_leave: false,
        },
        ..RecorderOptions::default()
    }
}

/// A shadow-only stream on `engine` whose submits wait for the writer (see [`paced_by_the_writer`]).
fn shadow_stream(engine: &Engine) -> (Recorder, ShadowBuffer) {
    ShadowBuffer::start(
        engine,
        None,
        paced_by_the_writer(),
        ShadowOptions::default(),
    )
    .expect("shadow")
}

/// Seconds in `submit_tick` per submitted byte, the batches submitted to a shadow-only stream (on
/// an engine that holds them all: a submit never waits for the writer).
fn submit_per_byte(batches: &[Vec<u8>]) -> f64 {
    let engine = big_engine();
    let (rec, buf) = shadow_stream(&engine);
    let mut time = Duration::ZERO;
    let mut bytes = 0usize;
    for (t, b) in batches.iter().enumerate() {
        let s = Instant::now();
        rec.submit_tick(t as u32, b).expect("submit");
        time += s.elapsed();
        bytes += b.len();
    }
    rec.flush().expect("flush");
    drop(buf);
    rec.close().expect("close");
    engine.shutdown();
    time.as_secs_f64() / bytes.max(1) as f64
}

fn batches(ticks: &[(u32, Vec<Event>)]) -> Vec<Vec<u8>> {
    ticks
        .iter()
        .map(|(_, ev)| {
            let mut b = Vec::new();
            encode_batch(ev, &mut b).expect("batch");
            b
        })
        .collect()
}

pub fn run(quick: bool, out: &mut Figures, tool: &dyn Tool) {
    let players = if quick { 20 } else { 100 };
    let dir = tempfile::tempdir().expect("tempdir");
    let world = ticks(players, true);
    block_figures(dir.path(), players, &world, out, tool);

    // The server thread: world ticks against movement alone, alternating, median of rounds.
    let plain = batches(&ticks(players, false));
    let with_world = batches(&world);
    let rounds = if quick { 3 } else { 5 };
    let mut ratios = Vec::new();
    for _ in 0..rounds {
        let p = submit_per_byte(&plain);
        let w = submit_per_byte(&with_world);
        ratios.push(w / p);
    }
    put(out, "submit_world_vs_plain_ratio", median(ratios));

    reports(dir.path(), &with_world, &plain, quick, out);
    put(out, "world_players", f64::from(players));
}

/// The server workload's block changes (issue 48) against both forms of the anchor.
fn server_blocks(dir: &std::path::Path, players: u32, out: &mut Figures) {
    let server = server_ticks(players);
    let stats = BlockStats::of(&server);
    let (_, ours) = reel_bytes(dir, "server-blocks.reel", &server, is_block);
    let compacted = compacted_reference_bytes(&server);
    let reference = reference_bytes(&server);
    put(out, "world_server_block_changes", stats.changes as f64);
    put(out, "world_server_burst_mean", stats.burst_mean);
    put(out, "world_server_burst_max", stats.burst_max as f64);
    put(
        out,
        "world_server_back_to_previous_share",
        stats.back_to_previous,
    );
    put(
        out,
        "world_server_block_bytes_per_change",
        ours as f64 / stats.changes.max(1) as f64,
    );
    put(
        out,
        "world_server_hollowcube_compacted_bytes_per_change",
        compacted as f64 / stats.changes.max(1) as f64,
    );
    put(
        out,
        "world_blocks_vs_hollowcube_compacted_ratio",
        compacted as f64 / ours.max(1) as f64,
    );
    put(
        out,
        "world_server_block_baseline_ratio",
        reference as f64 / ours.max(1) as f64,
    );
}

/// The real recordings' block changes (`<name>_blocks.jsonl.gz` of the shared traces,
/// [`real::traces_dir`]), when the folder is there: the same two ratios per recording.
fn real_blocks(dir: &std::path::Path, out: &mut Figures, tool: &dyn Tool) {
    let Some(folder) = real::traces_dir() else {
        return;
    };
    for (name, path) in real::recordings(&folder, "_blocks.jsonl.gz") {
        let ticks: Vec<(u32, Vec<Event>)> = match real::ticks_of(tool, &path) {
            Ok(t) => t
                .into_iter()
                .map(|(t, ev)| (t, ev.into_iter().filter(is_block).collect::<Vec<_>>()))
                .filter(|(_, ev)| !ev.is_empty())
                .collect(),
            Err(e) => panic!("{}: {e}", path.display()),
        };
        let (_, ours) = reel_bytes(dir, &format!("real-{name}.reel"), &ticks, is_block);
        let compacted = compacted_reference_bytes(&ticks);
        let reference = reference_bytes(&ticks);
        put(
            out,
            &format!("real_blocks_vs_hollowcube_compacted_ratio_{name}"),
            compacted as f64 / ours.max(1) as f64,
        );
        put(
            out,
            &format!("real_block_baseline_ratio_{name}"),
            reference as f64 / ours.max(1) as f64,
        );
    }
}

/// The block figures alone (`--only world_blocks`: the same keys as `world` gives them, without
/// the submit and report figures).
pub fn run_blocks(quick: bool, out: &mut Figures, tool: &dyn Tool) {
    let players = if quick { 20 } else { 100 };
    let dir = tempfile::tempdir().expect("tempdir");
    block_figures(dir.path(), players, &ticks(players, true), out, tool);
    put(out, "world_players", f64::from(players));
}

/// The block changes' size figures: the preset's `world` (its changes alone, and what they add
/// to the whole file), the server workload's and the real recordings'.
fn block_figures(
    dir: &std::path::Path,
    players: u32,
    world: &[(u32, Vec<Event>)],
    out: &mut Figures,
    tool: &dyn Tool,
) {
    let changes = block_list(world).len();
    let (all, _) = reel_bytes(dir, "all.reel", world, |_| true);
    let (without, _) = reel_bytes(dir, "without.reel", world, |e| {
        !matches!(e, Event::BlockChange { .. })
    });
    let (_, blocks_only) = reel_bytes(dir, "blocks.reel", world, |e| {
        matches!(e, Event::BlockChange { .. })
    });
    let reference = reference_bytes(world);
    put(out, "world_block_changes", changes as f64);
    put(
        out,
        "world_bytes_per_block_change",
        all.saturating_sub(without) as f64 / changes.max(1) as f64,
    );
    put(
        out,
        "world_block_only_bytes_per_change",
        blocks_only as f64 / changes.max(1) as f64,
    );
    put(
        out,
        "world_block_reference_bytes_per_change",
        reference as f64 / changes.max(1) as f64,
    );
    put(
        out,
        "world_block_baseline_ratio",
        reference as f64 / blocks_only.max(1) as f64,
    );
    server_blocks(dir, players, out);
    real_blocks(dir, out, tool);
}

/// The report figures alone (`--only world_report`: the same keys as `world` gives them, without
/// the file size and submit figures).
pub fn run_reports(quick: bool, out: &mut Figures) {
    let players = if quick { 20 } else { 100 };
    let dir = tempfile::tempdir().expect("tempdir");
    let with_world = batches(&ticks(players, true));
    let plain = batches(&ticks(players, false));
    reports(dir.path(), &with_world, &plain, quick, out);
    put(out, "world_players", f64::from(players));
}

/// A report of 5 minutes of the players with world events, and of the same players' movement
/// alone (what the world adds).
fn reports(
    dir: &std::path::Path,
    with_world: &[Vec<u8>],
    plain: &[Vec<u8>],
    quick: bool,
    out: &mut Figures,
) {
    let pairs = report_pairs(dir, with_world, plain, quick);
    let ms = median(pairs.iter().map(|p| p.world_ms).collect());
    let plain_ms = median(pairs.iter().map(|p| p.plain_ms).collect());
    let (bytes, plain_bytes) = pairs
        .last()
        .map(|p| (p.world_bytes, p.plain_bytes))
        .expect("a round");
    put(out, "shadow_report_world_ms", ms);
    put(out, "shadow_report_world_bytes", bytes as f64);
    put(out, "shadow_report_world_plain_ms", plain_ms);
    put(out, "shadow_report_world_plain_bytes", plain_bytes as f64);
    put(
        out,
        "shadow_report_world_vs_plain_ratio",
        median(pairs.iter().map(|p| p.world_ms / p.plain_ms).collect()),
    );
}

/// [`quiet`], its submits waiting for the writer as long as it takes: the stream is submitted as
/// fast as the loop goes, not at 20 ticks a second, and the report needs every tick of it.
fn paced_by_the_writer() -> RecorderOptions {
    RecorderOptions {
        backpressure: Backpressure::Block {
            deadline: Duration::from_secs(60),
        },
        ..quiet()
    }
}

/// One round of [`report_pairs`]: the two reports' milliseconds and file bytes.
struct ReportPair {
    world_ms: f64,
    plain_ms: f64,
    world_bytes: u64,
    plain_bytes: u64,
}

/// Rounds of two reports (radius 48, player 1) timed from `report` to the finished file, one over
/// a shadow-only stream of `with_world`, one over a stream of `plain`, both streams submitted in
/// the same engine beforehand and the two reports taken one right after the other (which goes
/// first alternating by round), so that both see the machine of the same moment: a stall or a
/// change of load lands on one pair, which the median of the per-round ratios leaves out.
fn report_pairs(
    dir: &std::path::Path,
    with_world: &[Vec<u8>],
    plain: &[Vec<u8>],
    quick: bool,
) -> Vec<ReportPair> {
    let mut pairs = Vec::new();
    for round in 0..if quick { 1 } else { 5 } {
        let engine = Engine::new(EngineOptions::default()).expect("engine");
        let streams: Vec<_> = [with_world, plain]
            .into_iter()
            .map(|batches| {
                let (rec, buf) = shadow_stream(&engine);
                for (kind, id, n) in palette() {
                    rec.register_name(kind, id, n).expect("name");
                }
                for (t, b) in batches.iter().enumerate() {
                    rec.submit_tick(t as u32, b).expect("submit");
                }
                rec.flush().expect("flush");
                (rec, buf)
            })
            .collect();
        let mut ms = [0.0f64; 2];
        let mut bytes = [0u64; 2];
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for i in order {
            // the first player (id 1): always there
            let path = dir.join(format!("report{round}-{i}.reel"));
            let started = Instant::now();
            streams[i]
                .1
                .report(
                    1,
                    &path,
                    ReportOptions {
                        after: Duration::ZERO,
                        overwrite: true,
                        ..ReportOptions::default()
                    },
                )
                .expect("report")
                .wait()
                .expect("report file");
            ms[i] = started.elapsed().as_secs_f64() * 1e3;
            bytes[i] = std::fs::metadata(&path).expect("stat").len();
        }
        for (rec, _) in &streams {
            rec.close().expect("close");
        }
        drop(streams);
        engine.shutdown();
        pairs.push(ReportPair {
            world_ms: ms[0],
            plain_ms: ms[1],
            world_bytes: bytes[0],
            plain_bytes: bytes[1],
        });
    }
    pairs
}
