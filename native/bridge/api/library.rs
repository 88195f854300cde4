//! The library itself, for Java: its versions and closing any handle. (C's equivalents,
//! `tickreel_version`, `tickreel_handle_count` and the last-error functions, return plain values
//! outside the result-code convention and are written by hand in `crate::ffi::result` and
//! `crate::ffi::handle`.)

use crate::api::AnyHandle;
use tickreel_bridge_macros::bridge_fn;

/// Version of the contract between the Java classes and this library. The Java loader refuses a
/// library whose version differs (a jar and a library from different builds). Written into
/// `NativeBridge.java`'s generated part; raise it whenever a native method changes.
pub const ABI_VERSION: i32 = 12;

/// The contract version Java checks ([`ABI_VERSION`]).
#[bridge_fn(java = "abiVersion")]
pub fn abi_version() -> i32 {
    ABI_VERSION
}

/// The library's version (the crate's).
#[bridge_fn(java = "libraryVersion")]
pub fn library_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// What this build carries, as the C `TICKREEL_FEATURE_*` bits: 1 object storage, 2 the catalog,
/// 4 the catalog on PostgreSQL (Cargo features `object`, `catalog` and `postgres`: all three in the
/// default build C users link and in the `io.tickreel:tickreel-network` jar; the catalog alone, on
/// SQLite, in the `io.tickreel:tickreel` jar).
#[bridge_fn(java = "features")]
pub fn features() -> u32 {
    let object = if cfg!(feature = "object") { 1 } else { 0 };
    let catalog = if cfg!(feature = "catalog") { 2 } else { 0 };
    let postgres = if cfg!(feature = "postgres") { 4 } else { 0 };
    object | catalog | postgres
}

/// Closes any handle; closing twice or a stale handle is harmless. The object is dropped once no
/// call uses it.
#[bridge_fn(java = "close")]
pub fn close(_handle: AnyHandle) {}
