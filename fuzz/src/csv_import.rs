//! What the `csv_import` fuzz target does with its input: `tickreel import` of the bytes as a CSV
//! trace, through the library the `tickreel` binary runs (`tickreel_cli::csv`). Shared with the
//! CLI's regression test (`native/cli/tests/it/fuzz_regressions.rs` includes this file, and
//! `harness.rs` for its scratch directory, by path), so that a kept input replays through exactly
//! the code the fuzzer ran.
//!
//! A function panics only when a property listed in its documentation breaks (or when the code
//! under test panics). Errors returned by the importer are the expected answer to bad bytes.

use std::path::Path;

use tickreel_cli::csv::export::export;
use tickreel_cli::csv::import::{ImportSummary, import_from, reel_options};

use crate::harness::{failed_import, imported, lossy, scratch_dir};

/// Longest error message an import may give, in bytes: messages quote at most
/// `tickreel_cli::errors::ECHO_MAX_CHARS` characters of the input (each at most 10 bytes once
/// escaped, `\u{10ffff}`), plus the file name, line number and fixed text.
pub const MAX_MESSAGE_BYTES: usize = 1024;

/// The import of `data` as the CSV file `fuzz.csv` into a new recording, with the options of
/// `tickreel import` (compacted, 20 ticks per second); when it succeeds, the recording read back,
/// exported as CSV, and that CSV imported and exported again.
///
/// Properties: no panic; a failed import leaves nothing in its directory (no recording, no
/// temporary file) and its message is at most [`MAX_MESSAGE_BYTES`] long; an imported recording
/// opens, verifies, has the ticks the import reported and is as large as it reported; its export
/// has one row per imported row (no checkpoint left out); the export imports to the same rows,
/// entities and ticks, and exports again to the same text.
pub fn csv_import(data: &[u8]) {
    let dir = scratch_dir();
    let first = dir.path().join("first.reel");
    let summary = match import(data, "fuzz.csv", &first) {
        Ok(s) => s,
        Err(e) => {
            failed_import(dir.path(), &e.to_string(), MAX_MESSAGE_BYTES);
            return;
        }
    };
    let text = read_back(&first, &summary);

    let second = dir.path().join("second.reel");
    let again = import(&text, "export.csv", &second)
        .unwrap_or_else(|e| panic!("an export does not import: {e}\n{}", lossy(&text)));
    assert_eq!(
        (again.rows, again.entities, again.ticks),
        (summary.rows, summary.entities, summary.ticks),
        "the export imports to other rows, entities or ticks"
    );
    assert_eq!(
        (again.first_tick, again.last_tick),
        (summary.first_tick, summary.last_tick),
        "the export imports to another tick range"
    );
    let text2 = read_back(&second, &again);
    assert!(
        text2 == text,
        "exporting the export's import gives another text\n{}\n---\n{}",
        lossy(&text),
        lossy(&text2)
    );
}

/// `tickreel import` of `data` (named `name` in messages) to `out`.
fn import(data: &[u8], name: &str, out: &Path) -> tickreel::Result<ImportSummary> {
    let options = reel_options(20.0).expect("the default tick rate");
    import_from(data, Path::new(name), out, options, false)
}

/// Opens, verifies and exports an imported recording, checking it against what its import
/// reported; returns the export.
fn read_back(path: &Path, s: &ImportSummary) -> Vec<u8> {
    let r = imported(path, s.bytes, s.ticks, (s.first_tick, s.last_tick));
    let mut text = Vec::new();
    let e =
        export(&r, &mut text).unwrap_or_else(|e| panic!("an imported file does not export: {e:?}"));
    assert_eq!(e.rows, s.rows, "exported rows");
    assert_eq!(e.ticks, s.ticks, "exported ticks");
    assert_eq!(
        e.checkpoints_dropped, 0,
        "checkpoints left out of the export"
    );
    text
}
