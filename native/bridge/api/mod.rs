//! The binding surface, declared once: every operation C and Java can call is one Rust function
//! here, marked `#[bridge_fn(c = "...", java = "...")]`, taking and returning Rust types
//! (`&str`, `&Path`, `&[u8]`, numbers, handle objects by reference, [`New`] for a created object,
//! [`Released`] for a freed one; fallible operations return [`tickreel::Result`]).
//!
//! `build.rs` generates from these definitions (see `native/bridge/codegen/`) the `extern "C"`
//! entry points (`crate::ffi::generated`, and so `include/tickreel.h`), the JNI entry points and
//! their `RegisterNatives` table (`crate::jni::generated`), and the `native` declarations of
//! `NativeBridge.java` (checked by a test; `TICKREEL_BLESS=1` rewrites them). How each type
//! crosses each boundary lives in `crate::ffi::convert` and `crate::jni::convert`.
//!
//! Rules for these modules: translation only (no logic: that belongs in the core); the doc
//! comment of an operation is its C documentation (the generator adds the `# Safety` section);
//! `use` items name things by `crate::` or external paths (the generated code repeats them).

pub mod ghost;
pub mod playhead;
pub mod reader;

/// A created object, returned as a new handle (C: through its out-pointer, which is set to NULL
/// first; Java: a `long`).
pub struct New<T>(pub T);

/// A handle being freed (C: `tickreel_*_free`; NULL is a no-op). The object, if any, is dropped
/// when the operation returns, or later if a call on another thread still uses it.
pub struct Released<T> {
    /// Held only to be dropped.
    pub(crate) _object: Option<std::sync::Arc<T>>,
}
