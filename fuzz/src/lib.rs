//! The fuzz targets' code (the binaries in `fuzz_targets/` are one line each): [`harness`], every
//! target of the core crate, shared with the core's regression tests.
//!
//! The CLI's CSV importer is not fuzzed yet: it is a module of a binary crate, and compiling its
//! source file here by path broke as soon as the CLI changed; it needs a small library seam in
//! `tickreel-cli` first.

pub mod harness;
