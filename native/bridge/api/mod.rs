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

pub mod batch;
#[cfg(feature = "catalog")]
pub mod catalog;
#[cfg(feature = "catalog")]
pub mod catalog_admin;
#[cfg(feature = "catalog")]
pub mod catalog_network;
#[cfg(all(feature = "catalog", feature = "object"))]
pub mod catalog_object;
pub mod dictionary;
pub mod engine;
pub mod engine_options;
pub mod events;
pub mod ghost;
pub mod library;
#[cfg(feature = "object")]
pub mod object;
#[cfg(feature = "object")]
pub mod object_live;
pub mod pending;
pub mod playhead;
pub mod reader;
pub mod recorder_options;
pub mod reel_options;
pub mod report_options;
pub mod shadow;
pub mod shadow_options;
pub mod world_state;
pub mod writer;

/// An id, kind or version: any 32 bits (C: `uint32_t`; Java: an `int` read as unsigned, so
/// `-1` is `0xFFFFFFFF`), where ticks and counts are refused when negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Id(pub u32);

/// String pairs (report metadata): C `(keys, values, count)`, Java `String[] {k0, v0, k1, ...}`.
pub struct StringPairs(pub Vec<(String, String)>);

/// Chunk sections a game hands over as terrain (C: `(const TickreelTerrainSection *name,
/// size_t name_count)`, checked and copied by `crate::ffi::terrain`).
pub struct TerrainSections(pub Vec<tickreel::format::Section>);

/// Any handle, being closed (Java's `close`: no type check; closing twice is harmless).
pub struct AnyHandle {
    /// The object, if the handle was live (dropped with this value).
    pub(crate) _object: Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
}

/// A list of records (`#[bridge_struct]` types, `native/bridge/codegen/records.rs`), borrowed
/// from a handle's object or built for the call (C: the count/capacity convention; Java: one
/// flat `long[]`, the fields of each record in turn).
pub struct Rows<'a, R: Clone>(pub std::borrow::Cow<'a, [R]>);

impl<'a, R: Clone> From<&'a [R]> for Rows<'a, R> {
    fn from(rows: &'a [R]) -> Self {
        Rows(std::borrow::Cow::Borrowed(rows))
    }
}

impl<R: Clone> From<Vec<R>> for Rows<'_, R> {
    fn from(rows: Vec<R>) -> Self {
        Rows(std::borrow::Cow::Owned(rows))
    }
}

/// A created object, returned as a new handle (C: through its out-pointer, which is set to NULL
/// first; Java: a `long`).
pub struct New<T>(pub T);

/// A handle being freed (C: `tickreel_*_free`; NULL is a no-op). The object, if any, is dropped
/// when the operation returns, or later if a call on another thread still uses it.
pub struct Released<T> {
    /// The object, if the handle was live (dropped with this value).
    pub(crate) object: Option<std::sync::Arc<T>>,
}

/// The entries of user metadata given as a big-endian NBT root compound (the Java `Nbt` codec's
/// or a C caller's bytes): checked for depth, decoded, and refused if it uses the library's key.
pub(crate) fn nbt_entries(bytes: &[u8]) -> tickreel::Result<Vec<(String, fastnbt::Value)>> {
    use tickreel::format::{LIBRARY_KEY, check_nbt_shape};
    check_nbt_shape(bytes).map_err(|e| tickreel::Error::invalid(format!("metadata: {e}")))?;
    let value: fastnbt::Value = fastnbt::from_bytes(bytes)
        .map_err(|e| tickreel::Error::invalid(format!("metadata is not NBT: {e}")))?;
    let fastnbt::Value::Compound(map) = value else {
        return Err(tickreel::Error::invalid("metadata root is not a compound"));
    };
    if map.contains_key(LIBRARY_KEY) {
        return Err(tickreel::Error::invalid(format!(
            "the metadata key \"{LIBRARY_KEY}\" is reserved for the library"
        )));
    }
    Ok(map.into_iter().collect())
}

/// Ticks in the format Java's `TickReader.decodeTicks` and C callers read: per tick, `u32` BE
/// tick, `u32` BE length, then its events in the tick batch encoding (FORMAT.md).
pub(crate) fn encode_ticks<'a>(
    ticks: impl IntoIterator<Item = (u32, &'a [tickreel::format::Event])>,
    out: &mut Vec<u8>,
) -> tickreel::Result<()> {
    let mut batch = Vec::new();
    for (tick, events) in ticks {
        batch.clear();
        tickreel::format::encode_batch(events, &mut batch)?;
        out.extend_from_slice(&tick.to_be_bytes());
        out.extend_from_slice(&(batch.len() as u32).to_be_bytes());
        out.extend_from_slice(&batch);
    }
    Ok(())
}
