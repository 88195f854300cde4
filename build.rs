//! Generates the C header `include/tickreel.h` from `native/ffi/` with cbindgen (`cbindgen.toml`).
//!
//! The header is always generated into `$OUT_DIR/tickreel.h`; the test `tests/c_header.rs`
//! compares it with the committed `include/tickreel.h`. Outside CI (no `CI` variable), the
//! committed header is also rewritten, but only when its content changed, so that cargo does not
//! rebuild in a loop (the committed header is deliberately not a rerun trigger: a hand-edited or
//! deleted header is caught by the test, whose message gives the command that restores it).
//! In CI it is never written, so a stale committed header fails that test.
//! A cbindgen failure never fails the build: it prints a cargo warning, and the test reports it.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

/// First line of `$OUT_DIR/tickreel.h` when generation failed (the test looks for it).
const FAILED: &str = "#error tickreel.h could not be generated: ";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=native/ffi");
    println!("cargo:rerun-if-env-changed=CI");
    let root = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo")).join("tickreel.h");
    match generate(&root) {
        Ok(header) => {
            write_if_changed(&out, &header);
            if env::var_os("CI").is_none() {
                write_if_changed(&root.join("include").join("tickreel.h"), &header);
            }
        }
        Err(e) => {
            let e = e.replace('\n', " ");
            println!("cargo:warning=cbindgen could not generate include/tickreel.h: {e}");
            write_if_changed(&out, &format!("{FAILED}{e}\n"));
        }
    }
}

/// Runs cbindgen over `native/ffi/` only (it follows `mod` declarations from `mod.rs`).
fn generate(root: &Path) -> Result<String, String> {
    let run = || -> Result<String, String> {
        let config = cbindgen::Config::from_file(root.join("cbindgen.toml"))?;
        let bindings = cbindgen::Builder::new()
            .with_config(config)
            .with_src(root.join("native").join("ffi").join("mod.rs"))
            .generate()
            .map_err(|e| e.to_string())?;
        let mut bytes = Vec::new();
        bindings.write(&mut bytes);
        String::from_utf8(bytes).map_err(|e| e.to_string())
    };
    std::panic::catch_unwind(run).unwrap_or_else(|_| Err("cbindgen panicked".into()))
}

/// Writes `path` unless it already holds exactly `content` (keeps its mtime, so no rebuild loop).
fn write_if_changed(path: &Path, content: &str) {
    if fs::read(path).is_ok_and(|old| old == content.as_bytes()) {
        return;
    }
    let written = path
        .parent()
        .map_or(Ok(()), fs::create_dir_all)
        .and_then(|()| fs::write(path, content));
    if let Err(e) = written {
        println!("cargo:warning=cannot write {}: {e}", path.display());
    }
}
