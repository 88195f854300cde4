//! The compacted-file writer (`ReelWriter`): ticks go straight into a finished `.reel` file,
//! encoded and compressed on the calling thread. For recording a live server with almost no cost
//! on the server thread, use the recorder instead.

use std::ffi::c_char;
use std::sync::Mutex;

use super::args::{self, Out};
use super::batch::{TickreelBatch, with_batch};
use super::handle::{self, HandleType};
use super::result::{FfiError, FfiResult, TickreelResult, guard};
use tickreel::format::metadata::{EntityInfo, EventType};
use tickreel::record::{ChunkPolicy, RecordingInfo, ReelOptions, ReelWriter};

/// A writer of one compacted `.reel` file. Opaque: create with `tickreel_writer_create`, release
/// with `tickreel_writer_free`. The pointer is a handle, not an address: never dereference it.
pub struct TickreelWriter {
    _private: [u8; 0],
}

/// Options of `tickreel_writer_create`. Fill with `tickreel_writer_options_default`, then change
/// what you need.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TickreelWriterOptions {
    /// Ticks per second times 1000 (default 20000: 20 ticks/s). Must be > 0.
    pub tick_rate_millihz: u32,
    /// The game's own data version (e.g. a Minecraft data version), opaque to tickreel.
    pub game_data_version: u32,
    /// Unix milliseconds when the recording started.
    pub timestamp_ms: i64,
    /// World identity, opaque to tickreel (e.g. a UUID).
    pub world_id: [u8; 16],
    /// World version, opaque to tickreel.
    pub world_version: [u8; 16],
    /// Zstd dictionary id (0: none); a non-zero id must have been registered with the library.
    pub dictionary_id: u16,
    /// Zstd compression level (default 9 for finished files).
    pub zstd_level: i32,
    /// Most ticks one chunk spans (default 100). 1 to 1048576.
    pub chunk_ticks: u32,
    /// Cut a chunk once its uncompressed payload reaches about this many bytes (default 1 MiB).
    /// Must be > 0.
    pub chunk_bytes: usize,
    /// Ticks between snapshots (default 600). Must be > 0.
    pub snapshot_interval: u32,
}

impl TickreelWriterOptions {
    fn from_core(o: &ReelOptions) -> Self {
        TickreelWriterOptions {
            tick_rate_millihz: o.info.tick_rate_millihz,
            game_data_version: o.info.game_data_version,
            timestamp_ms: o.info.timestamp_ms,
            world_id: o.info.world_id,
            world_version: o.info.world_version,
            dictionary_id: o.info.dictionary_id,
            zstd_level: o.policy.zstd_level,
            chunk_ticks: o.policy.chunk_ticks,
            chunk_bytes: o.policy.chunk_bytes,
            snapshot_interval: o.policy.snapshot_interval,
        }
    }

    /// A translation only: `ReelWriter::create` checks the values (`RecordingInfo::validate`,
    /// `ChunkPolicy::validate`).
    fn to_core(self) -> ReelOptions {
        ReelOptions {
            info: RecordingInfo {
                world_id: self.world_id,
                world_version: self.world_version,
                timestamp_ms: self.timestamp_ms,
                tick_rate_millihz: self.tick_rate_millihz,
                game_data_version: self.game_data_version,
                dictionary_id: self.dictionary_id,
            },
            policy: ChunkPolicy {
                chunk_ticks: self.chunk_ticks,
                chunk_bytes: self.chunk_bytes,
                snapshot_interval: self.snapshot_interval,
                zstd_level: self.zstd_level,
            },
        }
    }
}

enum WriterState {
    Open(Box<ReelWriter>),
    Finished,
}

/// The object behind a writer handle.
pub(crate) struct WriterObj {
    state: Mutex<WriterState>,
}

impl HandleType for WriterObj {
    type Opaque = TickreelWriter;
    const TAG: u8 = 2;
    const NAME: &'static str = "writer";
}

fn with_writer<R>(
    writer: *mut TickreelWriter,
    f: impl FnOnce(&mut ReelWriter) -> FfiResult<R>,
) -> FfiResult<R> {
    let obj = handle::get::<WriterObj>(writer)?;
    let mut state = obj.state.lock().map_err(|_| FfiError::Poisoned("writer"))?;
    match &mut *state {
        WriterState::Open(w) => f(w),
        WriterState::Finished => Err(tickreel::Error::InvalidState(
            "the writer was already finished (or its finish failed)".into(),
        )
        .into()),
    }
}

/// Fills `*out_options` with the defaults for a finished file (20 ticks/s, zstd level 9,
/// 100-tick chunks, a snapshot every 600 ticks).
///
/// # Safety
/// `out_options` must be NULL or point to a writable `TickreelWriterOptions`.
///
/// Thread safety: any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_writer_options_default(
    out_options: *mut TickreelWriterOptions,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one options struct.
        let out = unsafe { Out::new(out_options, "out_options") }?;
        out.set(TickreelWriterOptions::from_core(&ReelOptions::compacted()));
        Ok(())
    })
}

/// Starts a compacted `.reel` file at `path` (a NUL-terminated path in the platform's encoding)
/// and stores the writer's handle in `*out_writer`. Nothing appears at `path` until
/// `tickreel_writer_finish`, which writes the whole file atomically (temporary file + rename).
/// `options` may be NULL for the defaults of `tickreel_writer_options_default`.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `path` or `out_writer` is NULL,
/// `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty path or an invalid option. On failure
/// `*out_writer` is set to NULL (when it can be written).
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string; `options` must be NULL or point to a readable
/// `TickreelWriterOptions`; `out_writer` must be NULL or point to writable storage for one pointer.
///
/// Thread safety: any thread. A writer may then be used from any thread; its calls are
/// serialised by an internal lock.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_writer_create(
    path: *const c_char,
    options: *const TickreelWriterOptions,
    out_writer: *mut *mut TickreelWriter,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_writer, "out_writer") }?;
        out.set(std::ptr::null_mut());
        // SAFETY: caller contract: NULL or NUL-terminated.
        let path = unsafe { args::path(path, "path") }?;
        let options = if options.is_null() {
            ReelOptions::compacted()
        } else {
            if !options.is_aligned() {
                return Err(FfiError::Invalid("`options` is misaligned".into()));
            }
            // SAFETY: non-NULL, aligned, and by the caller's contract readable; the struct is
            // plain data valid for any bit pattern.
            unsafe { options.read() }.to_core()
        };
        let writer = ReelWriter::create(path, options)?;
        out.set(handle::insert(WriterObj {
            state: Mutex::new(WriterState::Open(Box::new(writer))),
        })?);
        Ok(())
    })
}

/// Frees a writer. A writer that was not finished is discarded: no file is written and its
/// temporary files are removed. `tickreel_writer_free(NULL)` is a no-op returning
/// `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A call on the same writer still running in another thread
/// finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_writer_free(writer: *mut TickreelWriter) -> TickreelResult {
    guard(|| handle::remove::<WriterObj>(writer).map(drop))
}

/// Appends one tick given as a batch-encoded buffer (see `tickreel_batch_bytes` for the
/// encoding). Ticks must be strictly increasing; ticks without events may be skipped.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `batch` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
/// for a malformed batch (including `len` 0) or a tick not after the previous one,
/// `TICKREEL_RESULT_INVALID_STATE` after `tickreel_writer_finish`. A malformed batch or an
/// out-of-order tick is refused before anything is written.
///
/// # Safety
/// `batch` must point to `len` readable bytes.
///
/// Thread safety: any thread; calls on one writer are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_writer_write_tick(
    writer: *mut TickreelWriter,
    tick: u32,
    batch: *const u8,
    len: usize,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: `len` readable bytes at `batch`.
        let bytes = unsafe { args::bytes_nonnull(batch, len, "batch") }?;
        with_writer(writer, |w| Ok(w.write_batch(tick, bytes)?))
    })
}

/// Appends one tick holding the events of a batch builder (the batch is left unchanged; clear it
/// before building the next tick). Same rules and results as `tickreel_writer_write_tick`.
///
/// Thread safety: any thread; calls on one writer are serialised. The batch must not be modified
/// by another thread during the call (its lock is held while it is read).
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_writer_write_batch(
    writer: *mut TickreelWriter,
    tick: u32,
    batch: *mut TickreelBatch,
) -> TickreelResult {
    guard(|| {
        let events = with_batch(batch, |b| {
            Ok(tickreel::format::event::decode_batch(b.encoded())?)
        })?;
        with_writer(writer, |w| Ok(w.write_tick(tick, &events)?))
    })
}

/// Supplies snapshot bytes (the game's own world state: blocks, entities; opaque to tickreel,
/// copied). The next tick starts a chunk carrying them, so that a seek near it can restore the
/// world from them. `bytes` may be NULL when `len` is 0.
///
/// # Safety
/// `bytes` must point to `len` readable bytes (or `len` must be 0).
///
/// Thread safety: any thread; calls on one writer are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_writer_offer_snapshot(
    writer: *mut TickreelWriter,
    bytes: *const u8,
    len: usize,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: `len` readable bytes at `bytes`, or len 0.
        let bytes = unsafe { args::bytes(bytes, len, "bytes") }?;
        with_writer(writer, |w| Ok(w.offer_snapshot(bytes.to_vec())?))
    })
}

/// Records who an entity is, in the file's metadata: its game-defined `kind`, optionally a
/// 16-byte UUID (`uuid`, NULL for none) and a UTF-8 name (`name`, NULL for none). Registering an
/// id again replaces the earlier entry.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `name` is not UTF-8.
///
/// # Safety
/// `uuid` must be NULL or point to 16 readable bytes; `name` must be NULL or a NUL-terminated
/// string.
///
/// Thread safety: any thread; calls on one writer are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_writer_register_entity(
    writer: *mut TickreelWriter,
    entity: u32,
    kind: u32,
    uuid: *const u8,
    name: *const c_char,
) -> TickreelResult {
    guard(|| {
        let uuid = if uuid.is_null() {
            None
        } else {
            // SAFETY: caller contract: non-NULL means 16 readable bytes.
            let b = unsafe { args::bytes(uuid, 16, "uuid") }?;
            Some(uuid::Uuid::from_bytes(b.try_into().expect("16 bytes")))
        };
        // SAFETY: caller contract: NULL or NUL-terminated.
        let name = unsafe { args::opt_utf8(name, "name") }?;
        with_writer(writer, |w| {
            Ok(w.register_entity(EntityInfo {
                id: entity,
                kind,
                uuid,
                name,
            })?)
        })
    })
}

/// Registers a custom event type in the file's metadata: its id (as used by
/// `tickreel_batch_custom`), a UTF-8 name and the game's schema version of its payload.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `name` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
/// if it is not UTF-8.
///
/// # Safety
/// `name` must be NULL or a NUL-terminated string.
///
/// Thread safety: any thread; calls on one writer are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_writer_register_event_type(
    writer: *mut TickreelWriter,
    type_id: u32,
    name: *const c_char,
    version: u32,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or NUL-terminated.
        let name = unsafe { args::utf8(name, "name") }?;
        with_writer(writer, |w| {
            Ok(w.register_event_type(EventType {
                id: type_id,
                name,
                version,
            })?)
        })
    })
}

/// Writes the file: flushes the last chunk, writes header, metadata, index and chunks to a
/// temporary file next to `path`, fsyncs it and renames it into place. Stores the file's size in
/// bytes in `*out_size` (`out_size` may be NULL). Blocks for the I/O.
///
/// Afterwards (whether it succeeded or not) the writer accepts no more calls
/// (`TICKREEL_RESULT_INVALID_STATE`) except `tickreel_writer_free`, which must still be called.
///
/// # Safety
/// `out_size` must be NULL or point to a writable `uint64_t`.
///
/// Thread safety: any thread; calls on one writer are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_writer_finish(
    writer: *mut TickreelWriter,
    out_size: *mut u64,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one u64.
        let out = unsafe { Out::optional(out_size, "out_size") }?;
        let obj = handle::get::<WriterObj>(writer)?;
        let mut state = obj.state.lock().map_err(|_| FfiError::Poisoned("writer"))?;
        let WriterState::Open(w) = std::mem::replace(&mut *state, WriterState::Finished) else {
            return Err(
                tickreel::Error::InvalidState("the writer was already finished".into()).into(),
            );
        };
        let size = w.finish()?;
        if let Some(out) = out {
            out.set(size);
        }
        Ok(())
    })
}
