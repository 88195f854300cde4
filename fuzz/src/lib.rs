//! The fuzz targets' code (the binaries in `fuzz_targets/` are one line each):
//!
//! - [`harness`]: every target of the core crate, shared with the core's regression tests;
//! - [`csv_import`]: the CLI's CSV importer, through the `tickreel-cli` library the `tickreel`
//!   binary uses, shared with the CLI's regression tests;
//! - [`json_import`]: the CLI's import of `tickreel dump`'s JSON lines, the same way;
//! - [`http_api`]: `tickreel serve`'s HTTP API, its routes answering in process, the same way.

pub mod csv_import;
pub mod harness;
pub mod http_api;
pub mod json_import;
