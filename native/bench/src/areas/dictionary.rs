//! Trained zstd dictionaries (issue 36 item 3): what a dictionary trained on other recordings of
//! the same kind saves on the files where it should pay, short runs and sparse worlds. The
//! dictionary is trained (as `tickreel dict train` does: on the decompressed chunks of sample
//! recordings) on runs of other seeds than the ones measured; each figure compares the same ticks
//! written with and without it by the compacted preset, against the per-chunk reference encoding
//! (`baseline.rs`) and against the anchor's compacted file of the same ticks (`hollowcube.rs`).

use std::time::Instant;

use tickreel::Event;
use tickreel::play::Reader;
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel_sim::realistic::{RealisticConfig, RealisticSim};

use super::{Figures, baseline, hollowcube, put};

/// The dictionary's id in the benchmark's process.
const ID: u16 = 36_003;
/// A 16 KiB dictionary trained on the same samples.
const SMALL_ID: u16 = 36_016;

/// `ticks` of a realistic world of `players` players (seed `seed`), players only if `players_only`.
fn run_of(seed: u64, players: u32, ticks: u32, players_only: bool) -> Vec<(u32, Vec<Event>)> {
    let mut sim = RealisticSim::new(RealisticConfig {
        players,
        seed,
        ..RealisticConfig::default()
    });
    let all: Vec<_> = (0..ticks).map(|_| sim.step()).collect();
    if players_only {
        super::realistic::players_only(&all)
    } else {
        all
    }
}

/// Writes `ticks` with the compacted preset (and dictionary `dictionary_id`, 0 for none); returns
/// the file's size, its compressed chunk payloads' bytes (frame headers left out) and its chunks'
/// decompressed payloads.
fn write(ticks: &[(u32, Vec<Event>)], dictionary_id: u16) -> (u64, u64, Vec<Vec<u8>>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("r.reel");
    let mut options = ReelOptions::compacted();
    options.identity.dictionary_id = dictionary_id;
    let mut w = ReelWriter::create(&path, options).expect("writer");
    for (t, ev) in ticks {
        w.write_tick(*t, ev).expect("tick");
    }
    let size = w.finish().expect("finish");
    let r = Reader::open_path(&path).expect("open");
    let compressed = r.index().iter().map(|e| u64::from(e.compressed_len)).sum();
    let payloads = (0..r.index().len())
        .map(|i| {
            let (fh, c) = r.read_compressed(i).expect("chunk");
            r.decompress(&fh, &c).expect("payload")
        })
        .collect();
    (size, compressed, payloads)
}

/// Sizes of the runs of `seeds` without and with dictionary `id`, their reference size, the
/// compressed chunk payloads without and with it, and the anchor's compacted file of them.
fn measure(
    seeds: std::ops::Range<u64>,
    id: u16,
    shape: impl Fn(u64) -> Vec<(u32, Vec<Event>)>,
) -> [u64; 6] {
    let mut sums = [0u64; 6];
    for s in seeds {
        let ticks = shape(s);
        let (plain, plain_payload, _) = write(&ticks, 0);
        let (with, with_payload, _) = write(&ticks, id);
        sums[0] += plain;
        sums[1] += with;
        sums[2] += baseline::baseline_size(&ticks);
        sums[3] += plain_payload;
        sums[4] += with_payload;
        sums[5] += hollowcube::compacted_size(&ticks);
    }
    sums
}

pub fn run(quick: bool, out: &mut Figures) {
    let (train_runs, measured) = if quick { (60u64, 5u64) } else { (200, 20) };
    // Training samples: 15-second one-player runs and 1-minute sparse worlds of seeds 1000.. (the
    // measured runs use seeds 1..).
    let started = Instant::now();
    let mut samples = Vec::new();
    for s in 0..train_runs {
        samples.extend(write(&run_of(1000 + s, 1, 300, true), 0).2);
        if s % 4 == 0 {
            samples.extend(write(&run_of(5000 + s, 1, 1200, false), 0).2);
        }
    }
    let sample_bytes: usize = samples.iter().map(Vec::len).sum();
    let dict =
        tickreel::dictionary::train(&samples, tickreel::dictionary::DEFAULT_DICTIONARY_BYTES, ID)
            .expect("train");
    tickreel::dictionary::register(&dict).expect("register");
    put(
        out,
        "dictionary_train_ms",
        started.elapsed().as_secs_f64() * 1000.0,
    );
    put(out, "dictionary_bytes", dict.len() as f64);
    put(out, "dictionary_training_samples", samples.len() as f64);
    put(out, "dictionary_training_sample_bytes", sample_bytes as f64);

    // The 15-second one-player run (players only, as the short-run ratio counts it).
    let [plain, with, reference, plain_payload, with_payload, anchor] =
        measure(1..1 + measured, ID, |s| run_of(s, 1, 300, true));
    let n = measured as f64;
    put(
        out,
        "dictionary_short_run_payload_bytes",
        plain_payload as f64 / n,
    );
    put(
        out,
        "dictionary_short_run_dict_payload_bytes",
        with_payload as f64 / n,
    );
    put(
        out,
        "dictionary_short_run_payload_gain_ratio",
        plain_payload as f64 / with_payload as f64,
    );
    put(out, "dictionary_short_run_bytes", plain as f64 / n);
    put(out, "dictionary_short_run_dict_bytes", with as f64 / n);
    put(
        out,
        "dictionary_short_run_gain_ratio",
        plain as f64 / with as f64,
    );
    put(
        out,
        "short_run_vs_per_chunk_reference_ratio",
        reference as f64 / plain as f64,
    );
    put(
        out,
        "short_run_vs_per_chunk_reference_ratio_with_dictionary",
        reference as f64 / with as f64,
    );
    // Against the anchor's compacted files of the same runs (both counted whole), over the
    // seeds: without and with the dictionary.
    put(
        out,
        "dictionary_short_run_hollowcube_compacted_bytes",
        anchor as f64 / n,
    );
    put(
        out,
        "short_run_seeds_vs_hollowcube_compacted_ratio",
        anchor as f64 / plain as f64,
    );
    put(
        out,
        "short_run_vs_hollowcube_compacted_ratio_with_dictionary",
        anchor as f64 / with as f64,
    );
    // The same with a 16 KiB dictionary trained on the same samples.
    let small = tickreel::dictionary::train(&samples, 16 << 10, SMALL_ID).expect("train");
    tickreel::dictionary::register(&small).expect("register");
    let [plain, with, _, plain_payload, with_payload, _] =
        measure(1..1 + measured, SMALL_ID, |s| run_of(s, 1, 300, true));
    put(
        out,
        "dictionary_16k_short_run_gain_ratio",
        plain as f64 / with as f64,
    );
    put(
        out,
        "dictionary_16k_short_run_payload_gain_ratio",
        plain_payload as f64 / with_payload as f64,
    );
    // A 3-second one-player run.
    let [plain, with, _, plain_payload, with_payload, _] =
        measure(1..1 + measured, ID, |s| run_of(s, 1, 60, true));
    put(
        out,
        "dictionary_3s_run_payload_gain_ratio",
        plain_payload as f64 / with_payload as f64,
    );
    put(out, "dictionary_3s_run_bytes", plain as f64 / n);
    put(out, "dictionary_3s_run_dict_bytes", with as f64 / n);
    put(
        out,
        "dictionary_3s_run_gain_ratio",
        plain as f64 / with as f64,
    );
    // A sparse world: one player with every entity around it, one minute.
    let [plain, with, reference, plain_payload, with_payload, _] =
        measure(1..1 + measured, ID, |s| run_of(s, 1, 1200, false));
    put(
        out,
        "dictionary_sparse_world_payload_gain_ratio",
        plain_payload as f64 / with_payload as f64,
    );
    put(out, "dictionary_sparse_world_bytes", plain as f64 / n);
    put(out, "dictionary_sparse_world_dict_bytes", with as f64 / n);
    put(
        out,
        "dictionary_sparse_world_gain_ratio",
        plain as f64 / with as f64,
    );
    put(
        out,
        "sparse_world_vs_per_chunk_reference_ratio_with_dictionary",
        reference as f64 / with as f64,
    );
    // A long busy world (10 minutes, 2 players and their entities): where it should not matter.
    let minutes = if quick { 2 } else { 10 };
    let [plain, with, ..] = measure(1..2, ID, |s| run_of(s, 2, minutes * 60 * 20, false));
    put(
        out,
        "dictionary_realistic_gain_ratio",
        plain as f64 / with as f64,
    );
}
