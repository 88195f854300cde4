//! The fuzz targets' code (the binaries in `fuzz_targets/` are one line each).
//!
//! - [`harness`]: every target of the core crate, shared with the core's regression tests;
//! - [`csv_import`]: the CLI's CSV importer, compiled here from its source file
//!   (`native/cli/src/cmd/import.rs`, a module of a binary crate with no library to link).

pub mod harness;

#[allow(dead_code)]
#[path = "../../native/cli/src/cmd/import.rs"]
mod import;

use tickreel::play::Reader;
use tickreel::record::ReelOptions;

/// `tickreel import` of the input as a CSV file (with the CLI's default options), then the
/// imported file read back.
///
/// Properties: no panic; an imported file opens and verifies, and has exactly as many ticks with
/// data as the import reported.
pub fn csv_import(data: &[u8]) {
    let dir = harness::scratch_dir();
    let csv = dir.path().join("in.csv");
    let out = dir.path().join("out.reel");
    std::fs::write(&csv, data).expect("writing the CSV");
    let Ok(summary) = import::import(&csv, &out, ReelOptions::compacted()) else {
        return;
    };
    let r = Reader::open_path(&out).expect("an imported file opens");
    r.verify().expect("an imported file verifies");
    let mut ticks = 0u64;
    for t in r.ticks(0, u32::MAX) {
        t.expect("an imported tick decodes");
        ticks += 1;
    }
    assert_eq!(ticks, summary.ticks, "ticks with data");
}
