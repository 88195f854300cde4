//! Every input the `csv_import` fuzzer found a problem with, kept under
//! `fuzz/regressions/csv_import/`, replayed through exactly the code the fuzz target runs
//! (`fuzz/src/csv_import.rs`, included here by path with the `harness.rs` it uses), and the seed
//! corpus `fuzz/seeds/csv_import/` too. See `fuzz/README.md`; the core's targets are replayed by
//! `native/core/tests/fuzz_regressions.rs`.

#[path = "../../../fuzz/src/harness.rs"]
mod harness;

#[path = "../../../fuzz/src/csv_import.rs"]
mod csv_import;

use std::path::PathBuf;

/// The files of `fuzz/<kind>/csv_import/`, sorted (none if the directory does not exist).
fn inputs(kind: &str) -> (PathBuf, Vec<PathBuf>) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz")
        .join(kind)
        .join("csv_import");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return (dir, Vec::new());
    };
    let mut paths: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    (dir, paths)
}

/// Runs every input of `fuzz/<kind>/csv_import/`; fails naming each one that panics.
fn replay(kind: &str) -> usize {
    let (dir, paths) = inputs(kind);
    let failed: Vec<String> = paths
        .iter()
        .filter(|p| {
            let bytes = std::fs::read(p).unwrap();
            std::panic::catch_unwind(|| csv_import::csv_import(&bytes)).is_err()
        })
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} inputs in {} panic: {failed:?}",
        failed.len(),
        paths.len(),
        dir.display()
    );
    paths.len()
}

#[test]
fn csv_import_regressions() {
    replay("regressions");
}

/// The seeds pass too (they are the fuzzer's starting points, and exercise the harness).
#[test]
fn csv_import_seeds() {
    let n = replay("seeds");
    assert!(n > 0, "no seeds in fuzz/seeds/csv_import");
}

/// A valid trace goes through the whole round trip; invalid ones are errors, which the harness
/// accepts (the seeds may not cover both).
#[test]
fn valid_and_invalid_traces_pass_the_harness() {
    csv_import::csv_import(b"tick,entity,x,y,z,yaw,pitch\n0,1,0,64,0,0,0\n");
    csv_import::csv_import(b"tick,entity\n");
    csv_import::csv_import(b"\xff\xfe\n");
    csv_import::csv_import(b"");
}
