//! Every input a fuzzer found a problem with, kept under `fuzz/regressions/<target>/`, replayed
//! through exactly the code its fuzz target runs (`fuzz/src/harness.rs`, included here by path):
//! one test per target, each naming every input that still panics or allocates past the fuzz
//! campaigns' per-allocation limit (libFuzzer's `-malloc_limit_mb=512`: a crafted length must not
//! become one huge allocation). See `fuzz/README.md`.
//!
//! The CLI's targets (`csv_import`, `json_import`, `http_api`) are replayed by the CLI's
//! `tests/it/fuzz_regressions.rs`.

#[path = "../../../../fuzz/src/harness.rs"]
mod harness;

use std::path::PathBuf;

use crate::heap;

/// The fuzz campaigns' limit on one allocation (`-malloc_limit_mb=512`).
const MALLOC_LIMIT: usize = 512 << 20;

/// Runs one input; `Err` says why it fails: a panic, or an allocation on this thread past
/// [`MALLOC_LIMIT`] (the harnesses decode on the calling thread).
fn run_one(run: fn(&[u8]), bytes: &[u8]) -> Result<(), String> {
    let out = std::panic::catch_unwind(|| heap::on_this_thread(|| run(bytes)));
    match out {
        Err(_) => Err("panics".into()),
        Ok(((), allocs)) if allocs.largest > MALLOC_LIMIT => Err(format!(
            "allocates {} bytes at once (limit {MALLOC_LIMIT})",
            allocs.largest
        )),
        Ok(_) => Ok(()),
    }
}

fn replay(target: &str, run: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions")
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return; // nothing kept for this target
    };
    let mut paths: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    let failed: Vec<String> = paths
        .iter()
        .filter_map(|p| {
            let bytes = std::fs::read(p).unwrap();
            run_one(run, &bytes)
                .err()
                .map(|why| format!("{} {why}", p.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} inputs in {} fail: {failed:?}",
        failed.len(),
        paths.len(),
        dir.display()
    );
}

#[test]
fn reader() {
    replay("reader", harness::reader);
}

#[test]
fn chunk() {
    replay("chunk", harness::chunk);
}

#[test]
fn recovery() {
    replay("recovery", harness::recovery);
}

#[test]
fn live_dir() {
    replay("live_dir", harness::live_dir);
}

#[test]
fn batch() {
    replay("batch", harness::batch);
}

#[test]
fn metadata() {
    replay("metadata", harness::metadata);
}

#[test]
fn terrain() {
    replay("terrain", harness::terrain);
}

#[test]
fn world_section() {
    replay("world_section", harness::world_section);
}

/// The seed corpora pass too (they are the fuzzers' starting points, and exercise the harness).
#[test]
fn seeds() {
    for (target, run) in [
        ("reader", harness::reader as fn(&[u8])),
        ("chunk", harness::chunk),
        ("recovery", harness::recovery),
        ("live_dir", harness::live_dir),
        ("batch", harness::batch),
        ("metadata", harness::metadata),
        ("terrain", harness::terrain),
        ("world_section", harness::world_section),
    ] {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fuzz/seeds")
            .join(target);
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if let Err(why) = run_one(run, &std::fs::read(&p).unwrap()) {
                panic!("seed {} {why}", p.display());
            }
            n += 1;
        }
        assert!(n > 0, "no seeds in {}", dir.display());
    }
}
