//! The curves finished files' settings were chosen from (issue 36): file size and write time of
//! the compacted file at several chunk sizes and zstd levels, on the realistic preset (every
//! entity, and its players only), the busy preset (100 always-moving players) and a 15-second
//! one-player run; the decode time of one chunk (what a seek costs) at each chunk size on the busy
//! preset; and what long-distance matching changes. Only run when asked for (`--only curve`): it
//! writes each workload a dozen times.

use std::time::Instant;

use tickreel::Event;
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, ReelOptions, ReelWriter};
use tickreel_sim::realistic::{RealisticConfig, RealisticSim};
use tickreel_sim::{SimConfig, Simulator};

use super::realistic::players_only;
use super::{Figures, put};

/// Chunk sizes (uncompressed payload, KiB) and zstd levels measured.
const CHUNK_KIB: [usize; 4] = [64, 128, 256, 512];
const LEVELS: [i32; 5] = [9, 12, 15, 17, 19];

/// Writes `ticks` with the compacted preset at `chunk_kib` and `level`: the file's size and the
/// milliseconds spent writing it (encoding and compression).
fn write(
    ticks: &[(u32, Vec<Event>)],
    chunk_kib: usize,
    level: i32,
    path: &std::path::Path,
) -> (u64, f64) {
    let policy = ChunkPolicy {
        chunk_bytes: chunk_kib << 10,
        zstd_level: level,
        ..ChunkPolicy::compacted()
    };
    let t0 = Instant::now();
    let mut w = ReelWriter::create(
        path,
        ReelOptions {
            chunk_policy: policy,
            ..ReelOptions::compacted()
        },
    )
    .expect("writer");
    for (t, ev) in ticks {
        w.write_tick(*t, ev).expect("tick");
    }
    let size = w.finish().expect("finish");
    (size, t0.elapsed().as_secs_f64() * 1000.0)
}

/// Median milliseconds to read, check, decompress and decode one chunk of the file at `path`.
fn chunk_decode_ms(path: &std::path::Path) -> f64 {
    let r = Reader::open_path(path).expect("open");
    let n = r.index().len();
    let mut rng = fastrand::Rng::with_seed(3);
    let mut v: Vec<f64> = (0..200)
        .map(|_| {
            let i = rng.usize(..n);
            let t0 = Instant::now();
            std::hint::black_box(r.read_chunk(i).expect("chunk"));
            t0.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    super::shared::median(std::mem::take(&mut v))
}

/// The file's chunk payloads recompressed at `level` with long-distance matching off and on:
/// the two sums of compressed bytes.
fn long_distance(path: &std::path::Path, level: i32) -> (u64, u64) {
    use zstd::zstd_safe::CParameter;
    let r = Reader::open_path(path).expect("open");
    let mut plain = zstd::bulk::Compressor::new(level).expect("zstd");
    let mut ldm = zstd::bulk::Compressor::new(level).expect("zstd");
    ldm.set_parameter(CParameter::EnableLongDistanceMatching(true))
        .expect("ldm");
    let (mut a, mut b) = (0u64, 0u64);
    for i in 0..r.index().len() {
        let (fh, compressed) = r.read_compressed(i).expect("read");
        let payload = r.decompress(&fh, &compressed).expect("decompress");
        a += plain.compress(&payload).expect("zstd").len() as u64;
        b += ldm.compress(&payload).expect("zstd").len() as u64;
    }
    (a, b)
}

fn workload(
    name: &str,
    ticks: &[(u32, Vec<Event>)],
    seeks: bool,
    dir: &std::path::Path,
    out: &mut Figures,
) {
    for kib in CHUNK_KIB {
        for level in LEVELS {
            let path = dir.join(format!("{name}-{kib}-{level}.reel"));
            let (size, ms) = write(ticks, kib, level, &path);
            put(
                out,
                &format!("curve_{name}_{kib}k_l{level}_bytes"),
                size as f64,
            );
            put(out, &format!("curve_{name}_{kib}k_l{level}_write_ms"), ms);
            if level == LEVELS[0] {
                let r = Reader::open_path(&path).expect("open");
                put(
                    out,
                    &format!("curve_{name}_{kib}k_chunks"),
                    r.index().len() as f64,
                );
                if seeks {
                    put(
                        out,
                        &format!("curve_{name}_{kib}k_chunk_decode_ms"),
                        chunk_decode_ms(&path),
                    );
                }
            }
            if level == 19 && kib == 256 {
                let (plain, ldm) = long_distance(&path, level);
                put(
                    out,
                    &format!("curve_{name}_256k_l19_payload_bytes"),
                    plain as f64,
                );
                put(
                    out,
                    &format!("curve_{name}_256k_l19_ldm_payload_bytes"),
                    ldm as f64,
                );
            }
        }
    }
}

pub fn run(quick: bool, out: &mut Figures) {
    let dir = tempfile::tempdir().expect("tempdir");
    let minutes = if quick { 2 } else { 10 };
    let mut sim = RealisticSim::new(RealisticConfig::default());
    let realistic: Vec<_> = (0..minutes * 60 * 20).map(|_| sim.step()).collect();
    workload("realistic", &realistic, false, dir.path(), out);
    let players = players_only(&realistic);
    drop(realistic);
    workload("players", &players, false, dir.path(), out);
    drop(players);
    let mut busy = Simulator::new(SimConfig {
        players: 100,
        ..SimConfig::default()
    });
    let busy: Vec<_> = (0..if quick { 1200 } else { 6000 })
        .map(|_| busy.step())
        .collect();
    workload("busy", &busy, true, dir.path(), out);
    drop(busy);
    let mut one = RealisticSim::new(RealisticConfig {
        players: 1,
        ..RealisticConfig::default()
    });
    let short: Vec<_> = (0..300).map(|_| one.step()).collect();
    workload("short", &players_only(&short), false, dir.path(), out);
}
