//! Generates the C header from `native/bridge/ffi/` with cbindgen (`cbindgen.toml`) into
//! `$OUT_DIR/tickreel.h`. Nothing in the source tree is written by a build: the test
//! `tests/c_header.rs` compares the generated header with the committed `include/tickreel.h`, and
//! `TICKREEL_BLESS=1 cargo test --test c_header` copies it there (the explicit command).
//! A cbindgen failure never fails the build: it prints a cargo warning, and the test reports it.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

/// First line of `$OUT_DIR/tickreel.h` when generation failed (the test looks for it).
const FAILED: &str = "#error tickreel.h could not be generated: ";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=native/bridge/ffi");
    let root = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo")).join("tickreel.h");
    let header = generate(&root).unwrap_or_else(|e| {
        let e = e.replace('\n', " ");
        println!("cargo:warning=cbindgen could not generate include/tickreel.h: {e}");
        format!("{FAILED}{e}\n")
    });
    write_if_changed(&out, &header);
}

/// Runs cbindgen over `native/bridge/ffi/` only (it follows `mod` declarations from `mod.rs`).
fn generate(root: &Path) -> Result<String, String> {
    let run = || -> Result<String, String> {
        let config = cbindgen::Config::from_file(root.join("cbindgen.toml"))?;
        let bindings = cbindgen::Builder::new()
            .with_config(config)
            .with_src(root.join("native/bridge/ffi/mod.rs"))
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
    if let Err(e) = fs::write(path, content) {
        println!("cargo:warning=cannot write {}: {e}", path.display());
    }
}
