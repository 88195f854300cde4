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

/// What `measure` sums over its seeds (bytes).
struct Sizes {
    /// The files without the dictionary, then with it.
    plain: u64,
    with: u64,
    /// The per-chunk reference encoding of the same ticks.
    reference: u64,
    /// The compressed chunk payloads without the dictionary, then with it.
    plain_payload: u64,
    with_payload: u64,
    /// The anchor's compacted files of the same ticks.
    anchor: u64,
}

impl Sizes {
    /// Puts `dictionary_RUN_bytes` and `_dict_bytes` (per seed, over `n` seeds), `_gain_ratio`
    /// and `_payload_gain_ratio` (without / with).
    fn put_gains(&self, out: &mut Figures, run: &str, n: f64) {
        put(
            out,
            &format!("dictionary_{run}_bytes"),
            self.plain as f64 / n,
        );
        put(
            out,
            &format!("dictionary_{run}_dict_bytes"),
            self.with as f64 / n,
        );
        put(
            out,
            &format!("dictionary_{run}_gain_ratio"),
            self.plain as f64 / self.with as f64,
        );
        put(
            out,
            &format!("dictionary_{run}_payload_gain_ratio"),
            self.plain_payload as f64 / self.with_payload as f64,
        );
    }
}

/// Sizes of the runs of `seeds` without and with dictionary `id`.
fn measure(
    seeds: std::ops::Range<u64>,
    id: u16,
    shape: impl Fn(u64) -> Vec<(u32, Vec<Event>)>,
) -> Sizes {
    let mut sums = Sizes {
        plain: 0,
        with: 0,
        reference: 0,
        plain_payload: 0,
        with_payload: 0,
        anchor: 0,
    };
    for s in seeds {
        let ticks = shape(s);
        let (plain, plain_payload, _) = write(&ticks, 0);
        let (with, with_payload, _) = write(&ticks, id);
        sums.plain += plain;
        sums.with += with;
        sums.reference += baseline::baseline_size(&ticks);
        sums.plain_payload += plain_payload;
        sums.with_payload += with_payload;
        sums.anchor += hollowcube::compacted_size(&ticks);
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
    let short = measure(1..1 + measured, ID, |s| run_of(s, 1, 300, true));
    let n = measured as f64;
    short.put_gains(out, "short_run", n);
    put(
        out,
        "dictionary_short_run_payload_bytes",
        short.plain_payload as f64 / n,
    );
    put(
        out,
        "dictionary_short_run_dict_payload_bytes",
        short.with_payload as f64 / n,
    );
    put(
        out,
        "short_run_vs_per_chunk_reference_ratio",
        short.reference as f64 / short.plain as f64,
    );
    put(
        out,
        "short_run_vs_per_chunk_reference_ratio_with_dictionary",
        short.reference as f64 / short.with as f64,
    );
    // Against the anchor's compacted files of the same runs (both counted whole), over the
    // seeds: without and with the dictionary.
    put(
        out,
        "dictionary_short_run_hollowcube_compacted_bytes",
        short.anchor as f64 / n,
    );
    put(
        out,
        "short_run_seeds_vs_hollowcube_compacted_ratio",
        short.anchor as f64 / short.plain as f64,
    );
    put(
        out,
        "short_run_vs_hollowcube_compacted_ratio_with_dictionary",
        short.anchor as f64 / short.with as f64,
    );
    // The same with a 16 KiB dictionary trained on the same samples.
    let small = tickreel::dictionary::train(&samples, 16 << 10, SMALL_ID).expect("train");
    tickreel::dictionary::register(&small).expect("register");
    measure(1..1 + measured, SMALL_ID, |s| run_of(s, 1, 300, true)).put_gains(
        out,
        "16k_short_run",
        n,
    );
    // A 3-second one-player run.
    measure(1..1 + measured, ID, |s| run_of(s, 1, 60, true)).put_gains(out, "3s_run", n);
    // A sparse world: one player with every entity around it, one minute.
    let sparse = measure(1..1 + measured, ID, |s| run_of(s, 1, 1200, false));
    sparse.put_gains(out, "sparse_world", n);
    put(
        out,
        "sparse_world_vs_per_chunk_reference_ratio_with_dictionary",
        sparse.reference as f64 / sparse.with as f64,
    );
    // A long busy world (10 minutes, 2 players and their entities): where it should not matter.
    let minutes = if quick { 2 } else { 10 };
    measure(1..2, ID, |s| run_of(s, 2, minutes * 60 * 20, false)).put_gains(out, "realistic", 1.0);
}
