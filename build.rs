//! Generates the binding surface and the C header into `OUT_DIR`:
//!
//! 1. from the `#[bridge_fn]` operations of `native/bridge/api/` (one Rust definition each), the
//!    `extern "C"` entry points (`bridge_ffi.rs`) and the JNI entry points with their
//!    `RegisterNatives` table and Java declarations (`bridge_jni.rs`), by `native/bridge/codegen/`;
//! 2. the C header, with cbindgen (`cbindgen.toml`) over `native/bridge/ffi/` and `bridge_ffi.rs`,
//!    into `$OUT_DIR/tickreel.h`, organised by area (`codegen/areas.rs`: each area its types, then
//!    its functions) with an index of its areas at the top (`codegen/index.rs`).
//!
//! Nothing in the source tree is written by a build: the test
//! `tests/c_header.rs` compares the generated header with the committed `include/tickreel.h`, and
//! `TICKREEL_BLESS=1 cargo test --test c_header` copies it there (the explicit command).
//! `NativeBridge.java`'s generated part is checked and blessed the same way by a test of the
//! library (`jni::generated`). A cbindgen failure never fails the build: it prints a cargo warning, and the test reports it.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

#[path = "native/bridge/codegen/mod.rs"]
mod codegen;

/// First line of `$OUT_DIR/tickreel.h` when generation failed (the test looks for it).
const FAILED: &str = "#error tickreel.h could not be generated: ";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=native/bridge/ffi");
    println!("cargo:rerun-if-changed=native/bridge/api");
    println!("cargo:rerun-if-changed=native/bridge/codegen");
    println!("cargo:rerun-if-changed=native/bridge/shared/block_state.rs");
    for f in codegen::constants::sources() {
        println!("cargo:rerun-if-changed=native/core/src/format/{f}");
    }
    let root = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));
    // A generator error fails the build: the library cannot be built without its entry points.
    let api = root.join("native/bridge/api");
    let ops = codegen::read_api(&api).unwrap_or_else(|e| panic!("native/bridge/api: {e}"));
    let mut ffi = codegen::c::emit(&api, &ops).unwrap_or_else(|e| panic!("bridge C: {e}"));
    let format = root.join("native/core/src/format");
    ffi += &codegen::constants::emit_c(&format).unwrap_or_else(|e| panic!("constants: {e}"));
    let result_rs = root.join("native/bridge/ffi/result.rs");
    let result_rs = fs::read_to_string(&result_rs).unwrap_or_else(|e| panic!("ffi/result.rs: {e}"));
    ffi += &codegen::constants::emit_results(&result_rs)
        .unwrap_or_else(|e| panic!("ffi/result.rs: {e}"));
    let jni = codegen::jni::emit(&api, &ops).unwrap_or_else(|e| panic!("bridge JNI: {e}"));
    write_if_changed(&out_dir.join("bridge_ffi.rs"), &ffi);
    write_if_changed(&out_dir.join("bridge_jni.rs"), &jni);
    let out = out_dir.join("tickreel.h");
    let header = generate(&root, &out_dir).unwrap_or_else(|e| {
        let e = e.replace('\n', " ");
        println!("cargo:warning=cbindgen could not generate include/tickreel.h: {e}");
        format!("{FAILED}{e}\n")
    });
    write_if_changed(&out, &header);
}

/// Runs cbindgen over `native/bridge/ffi/` (it follows `mod` declarations from `mod.rs`) and the
/// generated entry points (in `out_dir`).
fn generate(root: &Path, out_dir: &Path) -> Result<String, String> {
    let run = || -> Result<String, String> {
        let config = cbindgen::Config::from_file(root.join("cbindgen.toml"))?;
        let bindings = cbindgen::Builder::new()
            .with_config(config)
            .with_src(root.join("native/bridge/ffi/mod.rs"))
            .with_src(root.join("native/bridge/shared/block_state.rs"))
            .with_src(out_dir.join("bridge_ffi.rs"))
            .generate()
            .map_err(|e| e.to_string())?;
        let mut bytes = Vec::new();
        bindings.write(&mut bytes);
        String::from_utf8(bytes)
            .map(|h| codegen::index::with_index(&codegen::areas::by_area(&h)))
            .map_err(|e| e.to_string())
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
