//! Every input a fuzzer found a problem with, kept under `fuzz/regressions/<target>/`, replayed
//! through exactly the code its fuzz target runs (`fuzz/src/harness.rs`, included here by path):
//! one test per target, each naming every input that still panics. See `fuzz/README.md`.
//!
//! The CLI's CSV importer has no fuzz target yet (it needs a library seam in `tickreel-cli`).

#[path = "../../../../fuzz/src/harness.rs"]
mod harness;

use std::path::PathBuf;

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
        .filter(|p| {
            let bytes = std::fs::read(p).unwrap();
            std::panic::catch_unwind(|| run(&bytes)).is_err()
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
    ] {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fuzz/seeds")
            .join(target);
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            run(&std::fs::read(&p).unwrap());
            n += 1;
        }
        assert!(n > 0, "no seeds in {}", dir.display());
    }
}
