//! The tickreel shared library (`libtickreel.so`): the C ABI behind `include/tickreel.h` and the
//! JNI glue behind `java-bindings/`. Translation only: argument checks, handles, panic guards and
//! result codes; every behaviour lives in the core crate [`tickreel`].

// No call that leaves a thread-exit callback on a caller's thread (see `clippy.toml`): a
// plugin's thread that ends after a reload would call into the unloaded library.
#![cfg_attr(
    not(test),
    deny(
        clippy::disallowed_methods,
        clippy::disallowed_macros,
        clippy::disallowed_types
    )
)]

pub(crate) mod api;
pub mod ffi;
pub mod jni;
mod shared;

#[cfg(test)]
mod codes;

/// The generator `build.rs` runs, compiled here too for its own tests.
#[cfg(test)]
#[path = "codegen/mod.rs"]
mod codegen;
