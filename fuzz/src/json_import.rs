//! What the `json_import` fuzz target does with its input: `tickreel import` of the bytes as the
//! JSON lines of `tickreel dump`, through the library the `tickreel` binary runs
//! (`tickreel_cli::json_import`, `tickreel_cli::dump`). Shared with the CLI's regression test
//! (`native/cli/tests/it/fuzz_regressions.rs` includes this file, and `harness.rs` for its scratch
//! directory, by path), so that a kept input replays through exactly the code the fuzzer ran.
//!
//! A function panics only when a property listed in its documentation breaks (or when the code
//! under test panics). Errors returned by the importer are the expected answer to bad bytes.

use std::path::Path;

use tickreel_cli::dump::dump;
use tickreel_cli::json_import::{JsonImportSummary, import_from};

use crate::harness::{failed_import, imported, lossy, scratch_dir};

/// Longest error message an import may give, in bytes: messages quote at most
/// `tickreel_cli::errors::ECHO_MAX_CHARS` characters of the input once (each at most 10 bytes
/// once escaped, `\u{10ffff}`), plus the file name, line number and fixed text.
pub const MAX_MESSAGE_BYTES: usize = 1024;

/// The import of `data` as the JSON lines file `fuzz.jsonl` into a new recording, with the options
/// of `tickreel import` (compacted, 20 ticks per second unless a `recording` line says otherwise);
/// when it succeeds, the recording read back and dumped with `--metadata`, and that dump imported
/// and dumped again.
///
/// Properties: no panic; a failed import leaves nothing in its directory (no recording, no
/// temporary file) and its message is at most [`MAX_MESSAGE_BYTES`] long; an imported recording
/// opens, verifies, has the ticks the import reported and is as large as it reported; its dump
/// imports to the same ticks and events, and dumps again to the same text.
pub fn json_import(data: &[u8]) {
    let dir = scratch_dir();
    let first = dir.path().join("first.reel");
    let summary = match import(data, "fuzz.jsonl", &first) {
        Ok(s) => s,
        Err(e) => {
            failed_import(dir.path(), &e.to_string(), MAX_MESSAGE_BYTES);
            return;
        }
    };
    let text = read_back(&first, &summary);

    let second = dir.path().join("second.reel");
    let again = import(&text, "dump.jsonl", &second)
        .unwrap_or_else(|e| panic!("a dump does not import: {e}\n{}", lossy(&text)));
    assert!(
        again.with_metadata,
        "a dump --metadata without its recording line"
    );
    assert_eq!(
        (again.ticks, again.first_tick, again.last_tick),
        (summary.ticks, summary.first_tick, summary.last_tick),
        "the dump imports to other ticks"
    );
    let text2 = read_back(&second, &again);
    assert!(
        text2 == text,
        "dumping the dump's import gives another text\n{}\n---\n{}",
        lossy(&text),
        lossy(&text2)
    );
}

/// `tickreel import --format json` of `data` (named `name` in messages) to `out`.
fn import(data: &[u8], name: &str, out: &Path) -> tickreel::Result<JsonImportSummary> {
    let options = tickreel_cli::csv::import::reel_options(20.0).expect("the default tick rate");
    import_from(data, Path::new(name), out, options, false)
}

/// Opens, verifies and dumps (with `--metadata`) an imported recording, checking it against what
/// its import reported; returns the dump.
fn read_back(path: &Path, s: &JsonImportSummary) -> Vec<u8> {
    let r = imported(path, s.bytes, s.ticks, (s.first_tick, s.last_tick));
    let mut text = Vec::new();
    dump(&r, path, None, None, true, &mut text)
        .unwrap_or_else(|e| panic!("an imported file does not dump: {e:?}"));
    text
}
