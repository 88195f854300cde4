//! The committed C header `include/tickreel.h` must be what cbindgen generates from
//! `native/bridge/ffi/` and the C functions generated from `native/bridge/api/` now, and every
//! function in it must be documented (including its thread-safety).
//!
//! `build.rs` regenerates the header on every build that touches `native/bridge/ffi/`,
//! `native/bridge/api/`, `native/bridge/codegen/` or `cbindgen.toml` into `$OUT_DIR/tickreel.h` (outside the source tree); this test compares that
//! with the committed one. `TICKREEL_BLESS=1 cargo test --test c_header` writes the generated
//! header to `include/tickreel.h` (the one command that changes it); without it a stale header
//! fails here.

use std::path::Path;

/// The header cbindgen generated for this build (or the `#error` line build.rs wrote instead).
const GENERATED: &str = include_str!(concat!(env!("OUT_DIR"), "/tickreel.h"));
const GENERATED_PATH: &str = concat!(env!("OUT_DIR"), "/tickreel.h");

fn committed() -> String {
    if std::env::var_os("TICKREEL_BLESS").is_some() {
        // Being rewritten by `committed_header_is_current` (tests run in parallel).
        return GENERATED.to_owned();
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/tickreel.h");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}\nregenerate it with: cp {GENERATED_PATH} include/tickreel.h",
            path.display()
        )
    })
}

#[test]
fn committed_header_is_current() {
    assert!(
        !GENERATED.starts_with("#error"),
        "cbindgen failed in build.rs: {GENERATED}"
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/tickreel.h");
    if std::env::var_os("TICKREEL_BLESS").is_some() {
        std::fs::write(&path, GENERATED).expect("write include/tickreel.h");
    }
    let committed = match std::env::var_os("TICKREEL_BLESS") {
        Some(_) => std::fs::read_to_string(&path).expect("include/tickreel.h was just written"),
        None => committed(),
    };
    if committed != GENERATED {
        let line = committed
            .lines()
            .zip(GENERATED.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| "the end".to_owned(), |i| format!("line {}", i + 1));
        panic!(
            "include/tickreel.h is stale (first difference at {line}).\n\
             Regenerate it with `TICKREEL_BLESS=1 cargo test --test c_header` \
             (or `cp {GENERATED_PATH} include/tickreel.h`) and commit it."
        );
    }
}

/// Every function declaration, with the comment block right above it.
fn functions(header: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = header.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(open) = line.find("tickreel_").filter(|_| line.contains('(')) else {
            continue;
        };
        if line.starts_with(' ') || line.starts_with('*') || line.starts_with('/') {
            continue; // inside a comment or a continuation line
        }
        let name = line[open..line.find('(').unwrap()].to_owned();
        let mut doc = Vec::new();
        let mut j = i;
        if j > 0 && lines[j - 1].trim() == "*/" {
            while j > 0 {
                j -= 1;
                doc.push(lines[j]);
                if lines[j].starts_with("/**") {
                    break;
                }
            }
        }
        doc.reverse();
        out.push((name, doc.join("\n")));
    }
    out
}

#[test]
fn every_function_carries_its_doc_comment_and_thread_safety() {
    let header = committed();
    let fns = functions(&header);
    assert!(
        fns.len() >= 30,
        "only {} functions found in the header",
        fns.len()
    );
    for (name, doc) in &fns {
        assert!(
            doc.starts_with("/**"),
            "{name} has no doc comment in the header"
        );
        assert!(
            doc.contains("Thread safety:"),
            "{name}'s doc does not state its thread safety"
        );
    }
    for expected in [
        "tickreel_last_error",
        "tickreel_batch_new",
        "tickreel_batch_free",
        "tickreel_reel_writer_create",
        "tickreel_reel_writer_write_tick",
        "tickreel_reel_writer_finish",
        "tickreel_reader_open",
        "tickreel_reader_seek",
        "tickreel_reader_verify",
    ] {
        assert!(
            fns.iter().any(|(n, _)| n == expected),
            "{expected} missing from the header"
        );
    }
}

#[test]
fn header_is_prefixed_and_guarded() {
    let header = committed();
    assert!(header.contains("#ifndef TICKREEL_H\n#define TICKREEL_H"));
    assert!(header.contains("TICKREEL_RESULT_OK = 0,"));
    assert!(header.contains("TICKREEL_RESULT_BUFFER_TOO_SMALL = 103,"));
    // Only the C layer is exported: no core type leaks into the header.
    for line in header
        .lines()
        .filter(|l| l.starts_with("typedef") || l.starts_with("#define"))
    {
        let name = line
            .trim_end_matches(';')
            .split_whitespace()
            .nth(if line.starts_with("#define") { 1 } else { 2 })
            .unwrap_or("");
        assert!(
            name.starts_with("Tickreel") || name.starts_with("TICKREEL_") || name == "{",
            "unprefixed name in the header: {line}"
        );
    }
}
