//! Writes the `csv_import` fuzzer's seed corpus (`fuzz/seeds/csv_import/`, committed, a few KB):
//! the import tests' trace, `tickreel export` output of small recordings and of the golden file,
//! and the malformed traces the import tests reject. Ignored: run it only to regenerate the seeds,
//! `cargo test -p tickreel-cli --test fuzz_seeds -- --ignored`, and commit what changed. See
//! `fuzz/README.md`.

#[path = "../../core/tests/common/mod.rs"]
mod common;
mod trace;

use std::path::{Path, PathBuf};

use tickreel::play::Reader;
use tickreel::record::ChunkPolicy;
use tickreel_cli::csv::export::export;
use tickreel_cli::csv::import::{import_from, reel_options};

fn put(name: &str, bytes: &[u8]) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/csv_import");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// `tickreel export` of the recording at `path`.
fn exported(path: &Path) -> Vec<u8> {
    let r = Reader::open_any(path).unwrap();
    let mut text = Vec::new();
    export(&r, &mut text).unwrap();
    text
}

fn policy() -> ChunkPolicy {
    ChunkPolicy {
        chunk_ticks: 10,
        snapshot_interval: 20,
        ..ChunkPolicy::default()
    }
}

#[test]
#[ignore = "writes fuzz/seeds/csv_import/; run by hand to regenerate the seeds"]
fn write_csv_import_seeds() {
    let dir = tempfile::tempdir().unwrap();

    // The import tests' trace (every optional column, in a non-canonical order).
    let trace = trace::render(&trace::trace());
    put("trace.csv", trace.as_bytes());

    // Exports: of the trace's import (teleports, checkpoints, on-ground changes), of a simulated
    // recording, of the golden file.
    let imported = dir.path().join("trace.reel");
    let options = reel_options(20.0).unwrap();
    import_from(
        trace.as_bytes(),
        Path::new("trace.csv"),
        &imported,
        options,
        false,
    )
    .unwrap();
    put("export-trace.csv", &exported(&imported));
    let sim = dir.path().join("sim.reel");
    common::write_reel(&sim, &common::sim_ticks(3, 16, 5), policy());
    put("export-sim.csv", &exported(&sim));
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/golden.reel");
    put("export-golden.csv", &exported(&golden));

    // Small valid traces: only the required columns; reordered columns after a byte-order mark
    // and a blank line, with CRLF line ends; ticks far apart, near the largest tick.
    put(
        "minimal.csv",
        b"tick,entity,x,y,z,yaw,pitch\n0,1,0,0,0,0,0\n",
    );
    put(
        "reordered.csv",
        "\u{feff}Entity, TICK ,pitch,yaw,z,y,x\r\n\r\n5,0,0,0,0,64,0\r\n5,1,1,1,1,64,1\r\n"
            .as_bytes(),
    );
    put(
        "far-ticks.csv",
        b"tick,entity,x,y,z,yaw,pitch,teleport,on_ground,checkpoint\n\
          4294967290,7,-1099511627776,1e3,0.000244140625,-1e9,90,true,false,4294967295\n\
          4294967294,7,1099511627776,-64,0,359.99,-90,0,1,\n",
    );

    // What the import tests reject (one error each).
    let h = "tick,entity,x,y,z,yaw,pitch\n";
    let bad: [(&str, String); 8] = [
        (
            "bad-number.csv",
            format!("{h}0,1,0,64,0,0,0\n1,1,0,sixty,0,0,0\n"),
        ),
        (
            "bad-short-row.csv",
            format!("{h}0,1,0,64,0,0,0\n1,1,0,64,0\n"),
        ),
        (
            "bad-unsorted.csv",
            format!("{h}5,1,0,64,0,0,0\n4,1,0,64,0,0,0\n"),
        ),
        (
            "bad-same-entity.csv",
            format!("{h}5,1,0,64,0,0,0\n5,1,1,64,0,0,0\n"),
        ),
        (
            "bad-too-far.csv",
            format!("{h}0,1,0,64,0,0,0\n4294967295,1,0,64,0,0,0\n"),
        ),
        (
            "bad-header.csv",
            "tick,entity,x,y,z,yaw\n0,1,0,0,0,0\n".to_string(),
        ),
        (
            "bad-long-field.csv",
            format!("{h}0,1,0,{}x,0,0,0\n", "9".repeat(200)),
        ),
        (
            "bad-flags.csv",
            "tick,entity,x,y,z,yaw,pitch,on_ground,checkpoint\n0,1,0,0,0,0,0,yes,-1\n".to_string(),
        ),
    ];
    for (name, text) in bad {
        put(name, text.as_bytes());
    }
}
