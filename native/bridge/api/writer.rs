//! Writing a finished recording directly, without an engine ([`tickreel::record::ReelWriter`]):
//! C's `TickreelReelWriter`, Java's `ReelWriter`.

use std::path::Path;

use tickreel_sync::sync::Mutex;

use crate::api::batch::Batch;
use crate::api::reel_options::ReelOptions;
use crate::api::{Id, New, Released, TerrainSections};
use crate::shared::handle::HandleType;
use tickreel::format::Quantity;
use tickreel::format::{EntityInfo, EventType};
use tickreel::record;
use tickreel_bridge_macros::bridge_fn;

/// A writer (C: `TickreelReelWriter`, Java: `ReelWriter`); `None` once finished. Calls are
/// serialised by its lock.
pub struct ReelWriter(Mutex<Option<Box<record::ReelWriter>>>);

impl HandleType for ReelWriter {
    const TAG: u8 = 2;
    const NAME: &'static str = "reel writer";
}

impl ReelWriter {
    fn with<R>(
        &self,
        f: impl FnOnce(&mut record::ReelWriter) -> tickreel::Result<R>,
    ) -> tickreel::Result<R> {
        match self.0.lock().as_deref_mut() {
            Some(w) => f(w),
            None => Err(tickreel::Error::InvalidState(
                "the writer was already finished (or its finish failed)".into(),
            )),
        }
    }
}

/// Starts a compacted `.reel` file at `path` (a NUL-terminated path in the platform's encoding)
/// and stores the writer's handle in `*out_writer`. Nothing appears at `path` until
/// `tickreel_reel_writer_finish`, which writes the whole file atomically (temporary file + rename).
/// `options` (from `tickreel_reel_options_new`) may be NULL for the defaults.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `path` or `out_writer` is NULL,
/// `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty path or an invalid option. On failure
/// `*out_writer` is set to NULL (when it can be written).
///
/// Thread safety: any thread. A writer may then be used from any thread; its calls are
/// serialised by an internal lock.
#[bridge_fn(
    c = "tickreel_reel_writer_create",
    c_out = "out_writer",
    java = "reelWriterCreate"
)]
pub fn create(path: &Path, options: Option<&ReelOptions>) -> tickreel::Result<New<ReelWriter>> {
    let writer = record::ReelWriter::create(path, ReelOptions::or_default(options))?;
    Ok(New(ReelWriter(Mutex::new(Some(Box::new(writer))))))
}

/// Frees a writer. A writer that was not finished is discarded: no file is written and its
/// temporary files are removed. `tickreel_reel_writer_free(NULL)` is a no-op returning
/// `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A call on the same writer still running in another thread
/// finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_reel_writer_free")]
pub fn free(_writer: Released<ReelWriter>) {}

/// Appends one tick given as a batch-encoded buffer (see `tickreel_batch_bytes` for the
/// encoding). Ticks must be strictly increasing; ticks without events may be skipped.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `batch` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
/// for a malformed batch (including `len` 0) or a tick not after the previous one,
/// `TICKREEL_RESULT_INVALID_STATE` after `tickreel_reel_writer_finish`. A malformed batch or an
/// out-of-order tick is refused before anything is written.
///
/// Thread safety: any thread; calls on one writer are serialised.
#[bridge_fn(
    c = "tickreel_reel_writer_write_tick",
    java = "reelWriterTick",
    direct = "batch"
)]
pub fn write_tick(writer: &ReelWriter, tick: u32, batch: &[u8]) -> tickreel::Result<()> {
    writer.with(|w| w.write_batch(tick, batch))
}

/// Appends one tick holding the events of a batch builder (the batch is left unchanged; clear it
/// before building the next tick). Same rules and results as `tickreel_reel_writer_write_tick`.
///
/// Thread safety: any thread; calls on one writer are serialised. The batch must not be modified
/// by another thread during the call (its lock is held while it is read).
#[bridge_fn(c = "tickreel_reel_writer_write_batch")]
pub fn write_batch(writer: &ReelWriter, tick: u32, batch: &Batch) -> tickreel::Result<()> {
    let events = batch.events()?;
    writer.with(|w| w.write_tick(tick, &events))
}

/// Supplies snapshot bytes (the game's own world state: blocks, entities; opaque to tickreel,
/// copied). The next tick starts a chunk carrying them, so that a seek near it can restore the
/// world from them. `bytes` may be NULL when `len` is 0.
///
/// Thread safety: any thread; calls on one writer are serialised.
#[bridge_fn(c = "tickreel_reel_writer_offer_snapshot", java = "reelWriterSnapshot")]
pub fn offer_snapshot(writer: &ReelWriter, bytes: &[u8]) -> tickreel::Result<()> {
    writer.with(|w| w.offer_snapshot(bytes.to_vec()))
}

/// Supplies terrain: the blocks of an area as `sections_count` chunk sections in Minecraft's
/// layout (`TickreelTerrainSection`; copied). The next tick starts a chunk carrying it, stored
/// once, compressed; readers return it with the world from that tick on, a later offer's section
/// replacing an earlier one at the same position.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` (nothing changed) for an invalid section, a section
/// position twice or more than 16,384 sections, `TICKREEL_RESULT_LIMIT_EXCEEDED` for terrain
/// whose coded form would exceed 16 MiB, `TICKREEL_RESULT_NULL_ARGUMENT` for a NULL array with
/// a length (see `tickreel_recorder_offer_terrain`).
///
/// Thread safety: any thread; calls on one writer are serialised.
#[bridge_fn(c = "tickreel_reel_writer_offer_terrain", java = "reelWriterTerrain")]
pub fn offer_terrain(writer: &ReelWriter, sections: TerrainSections) -> tickreel::Result<()> {
    writer.with(|w| w.offer_terrain(sections.0))
}

/// Records who an entity is, in the file's metadata: its game-defined `kind`, optionally a
/// 16-byte UUID (`uuid`, NULL for none) and a UTF-8 name (`name`, NULL for none). Registering an
/// id again replaces the earlier entry.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `name` is not UTF-8.
///
/// Thread safety: any thread; calls on one writer are serialised.
#[bridge_fn(
    c = "tickreel_reel_writer_register_entity",
    java = "reelWriterRegisterEntity"
)]
pub fn register_entity(
    writer: &ReelWriter,
    entity: Id,
    kind: Id,
    uuid: Option<uuid::Uuid>,
    name: Option<&str>,
) -> tickreel::Result<()> {
    let info = EntityInfo {
        id: entity.0,
        kind: kind.0,
        uuid,
        name: name.map(str::to_owned),
    };
    writer.with(|w| w.register_entity(info))
}

/// Registers a custom event type in the file's metadata: its id (as used by
/// `tickreel_batch_custom`), a UTF-8 name and the game's schema version of its payload.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `name` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
/// if it is not UTF-8.
///
/// Thread safety: any thread; calls on one writer are serialised.
#[bridge_fn(
    c = "tickreel_reel_writer_register_event_type",
    java = "reelWriterRegisterEventType"
)]
pub fn register_event_type(
    writer: &ReelWriter,
    type_id: Id,
    name: &str,
    version: Id,
) -> tickreel::Result<()> {
    let t = EventType {
        id: type_id.0,
        name: name.to_owned(),
        version: version.0,
    };
    writer.with(|w| w.register_event_type(t))
}

/// Names id `id` of palette `kind` (`TICKREEL_PALETTE_BLOCK`, `_ITEM` or `_DAMAGE_CAUSE`) in the
/// file's metadata, e.g. block state 1 as `"minecraft:stone"`. Naming an id again with the same
/// name does nothing.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `name` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
/// for an unknown kind, a name that is not UTF-8, empty or over 256 bytes, or an id named
/// otherwise already; `TICKREEL_RESULT_LIMIT_EXCEEDED` beyond 131072 names of a kind or the
/// metadata budget.
///
/// Thread safety: any thread; calls on one writer are serialised.
#[bridge_fn(
    c = "tickreel_reel_writer_register_name",
    java = "reelWriterRegisterName"
)]
pub fn register_name(writer: &ReelWriter, kind: Id, id: Id, name: &str) -> tickreel::Result<()> {
    let kind = tickreel::format::PaletteKind::from_code(kind.0)?;
    writer.with(|w| w.register_name(kind, id.0, name))
}

/// Adds the keys of `nbt`, a big-endian NBT root compound (as Minecraft writes it), to the
/// recording's user metadata (a key given again replaces the earlier value). The key
/// `"tickreel"` is the library's own.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `nbt` is not an NBT compound, nests too deeply
/// or uses the reserved key; `TICKREEL_RESULT_INVALID_STATE` after `tickreel_reel_writer_finish`.
///
/// Thread safety: any thread; calls on one writer are serialised.
#[bridge_fn(
    c = "tickreel_reel_writer_set_user_metadata",
    java = "reelWriterSetUserMetadata"
)]
pub fn set_user_metadata(writer: &ReelWriter, nbt: &[u8]) -> tickreel::Result<()> {
    let entries = crate::api::nbt_entries(nbt)?;
    writer.with(|w| {
        for (key, value) in entries {
            w.set_user_metadata(key, value)?;
        }
        Ok(())
    })
}

/// Writes the file: flushes the last chunk, writes header, metadata, index and chunks to a
/// temporary file next to `path`, fsyncs it and renames it into place. Stores the file's size in
/// bytes in `*out_size` (`out_size` may be NULL). Blocks for the I/O.
///
/// Afterwards (whether it succeeded or not) the writer accepts no more calls
/// (`TICKREEL_RESULT_INVALID_STATE`) except `tickreel_reel_writer_free`, which must still be called.
///
/// Thread safety: any thread; calls on one writer are serialised.
#[bridge_fn(
    c = "tickreel_reel_writer_finish",
    c_out = "out_size",
    c_out_optional,
    java = "reelWriterFinish"
)]
pub fn finish(writer: &ReelWriter) -> tickreel::Result<u64> {
    let w =
        writer.0.lock().take().ok_or_else(|| {
            tickreel::Error::InvalidState("the writer was already finished".into())
        })?;
    w.finish()
}

/// The core's check of a position (0), angle (1) or velocity (2) Java found out of range: its
/// error, or the quantised value. (Java checks the common case itself; the message is the
/// core's.)
#[bridge_fn(java = "quantityCheck")]
pub fn quantity_check(quantity: u32, what: &str, value: f64) -> tickreel::Result<i64> {
    let quantity = Quantity::from_code(quantity)
        .ok_or_else(|| tickreel::Error::invalid(format!("no quantity {quantity}")))?;
    quantity.check(what, value)
}
