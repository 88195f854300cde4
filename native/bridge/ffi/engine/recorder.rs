//! Recorders: one recording being written by an engine (`TickreelRecorder`), its counters, and
//! the calls on it from `tickreel_recorder_start` to `_finish` or `_abort`. `submit_tick` runs on
//! the server thread: a copy and a queue push.

use std::ffi::c_char;

use super::finish::{FinishObj, TickreelFinish};
use super::recorder_options::TickreelRecorderOptions;
use super::{EngineObj, TickreelEngine, read_options};
use crate::ffi::args::{self, Out};
use crate::ffi::batch::{TickreelBatch, with_batch};
use crate::ffi::handle::{self, HandleType};
use crate::ffi::result::{FfiResult, TickreelResult, guard};
use tickreel::format::metadata::{EntityInfo, EventType};
use tickreel::record::{Recorder, RecorderOptions, Submitted};

/// One recording being written by an engine. Opaque: create with `tickreel_recorder_start`,
/// release with `tickreel_recorder_free`. The pointer is a handle, not an address.
pub struct TickreelRecorder {
    _private: [u8; 0],
}

/// Counters of one recording, as filled in by `tickreel_recorder_stats`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickreelRecorderStats {
    /// Ticks queued by `tickreel_recorder_submit_tick` / `_submit_batch`.
    pub submitted_ticks: u64,
    /// Ticks dropped by backpressure (recorded as gaps).
    pub dropped_ticks: u64,
    /// Ticks the writer refused (a malformed batch); see `tickreel_recorder_status`.
    pub rejected_ticks: u64,
    /// Compressed bytes written to the live directory.
    pub bytes_written: u64,
    /// Flushes done.
    pub flushes: u64,
    /// Duration of the last flush, in microseconds.
    pub last_flush_latency_us: u64,
    /// Messages waiting in this recording's writer queue (shared with other recordings).
    pub queue_depth: usize,
    /// Every tick up to and including this one is durably on disk; meaningful only when
    /// `has_flushed_tick` is true.
    pub flushed_tick: u32,
    /// Whether any tick is durable yet (`flushed_tick` is valid).
    pub has_flushed_tick: bool,
}

/// The object behind a recorder handle. Dropping it closes an open recording (resumable).
pub(crate) struct RecorderObj {
    pub(super) rec: Recorder,
}

impl HandleType for RecorderObj {
    type Opaque = TickreelRecorder;
    const TAG: u8 = 5;
    const NAME: &'static str = "recorder";
}

fn rec_of(recorder: *mut TickreelRecorder) -> FfiResult<std::sync::Arc<RecorderObj>> {
    handle::get::<RecorderObj>(recorder)
}

/// Starts recording into the final file `path` (a NUL-terminated path in the platform's
/// encoding). While recording, the data lives in a directory next to `path` (metadata file +
/// append-only segments, durable at each flush); `tickreel_recorder_finish` compacts it into
/// `path`. If that directory exists (a recording closed by `tickreel_recorder_free`, an engine
/// shutdown or a crash), the recording is resumed: ticks must continue after its last tick.
/// Resuming recovers that directory on the calling thread (it reads every segment): resume off
/// the server's tick thread. A fresh recording costs two `stat` calls and no file.
/// `options` may be NULL for the defaults of `tickreel_recorder_options_default`. Stores the
/// recorder's handle in `*out_recorder` (NULL on failure, when it can be written).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty path or an invalid option,
/// `TICKREEL_RESULT_LOCKED` if `path` is already being recorded (in this process or another),
/// `TICKREEL_RESULT_INVALID_STATE` if a finished file exists at `path` and `overwrite` is 0 or the
/// engine has shut down, `TICKREEL_RESULT_IO` and the data errors for a live directory that
/// cannot be resumed, and `TICKREEL_RESULT_BACKPRESSURE` if the writer's queue stayed full past
/// the recording's backpressure policy (at once with `TICKREEL_BACKPRESSURE_DROP`): nothing was
/// started, try again later.
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string; `options` must be NULL or point to a readable
/// `TickreelRecorderOptions`; `out_recorder` must be NULL or point to writable storage for one
/// pointer.
///
/// Thread safety: any thread. A recorder may then be used from any thread, but its ticks must be
/// submitted in increasing order, by one thread at a time.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_recorder_start(
    engine: *mut TickreelEngine,
    path: *const c_char,
    options: *const TickreelRecorderOptions,
    out_recorder: *mut *mut TickreelRecorder,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_recorder, "out_recorder") }?;
        out.set(std::ptr::null_mut());
        // SAFETY: caller contract: NULL or NUL-terminated.
        let path = unsafe { args::path(path, "path") }?;
        // SAFETY: caller contract: NULL or a readable options struct (plain data).
        let options = match unsafe { read_options(options) }? {
            Some(o) => o.to_core()?,
            None => RecorderOptions::default(),
        };
        let obj = handle::get::<EngineObj>(engine)?;
        let rec = obj.engine.start_recording(path, options)?;
        out.set(handle::insert(RecorderObj { rec })?);
        Ok(())
    })
}

/// Frees a recorder. A recording still open is closed, not finished: queued ticks are written
/// and flushed by the writer thread, and the recording stays resumable (`tickreel_recorder_start`
/// on the same path continues it; a later `_finish` produces the file). A finished recording's
/// compaction goes on (its finish handle stays valid). `tickreel_recorder_free(NULL)` is a no-op
/// returning `TICKREEL_RESULT_OK`; a freed or invalid handle returns
/// `TICKREEL_RESULT_INVALID_HANDLE`. Never does I/O and never waits, not even for room in a full
/// writer queue: the close then takes effect after every tick queued before it.
///
/// Thread safety: any thread. A call on the same recorder still running in another thread
/// finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_recorder_free(recorder: *mut TickreelRecorder) -> TickreelResult {
    guard(|| handle::remove::<RecorderObj>(recorder).map(drop))
}

fn submit(rec: &Recorder, tick: u32, batch: &[u8], dropped: Option<Out<bool>>) -> FfiResult {
    let r = rec.submit_tick(tick, batch);
    if let Some(d) = dropped {
        d.set(matches!(
            r,
            Ok(Submitted::Dropped) | Err(tickreel::Error::Backpressure(_))
        ));
    }
    r?;
    Ok(())
}

/// Queues one tick given as a batch-encoded buffer (see `tickreel_batch_bytes` for the
/// encoding; the bytes are copied). The server-thread path: O(1) checks, a copy into a pooled
/// buffer and a queue push; never I/O. The batch's events are decoded on the writer thread: a
/// malformed batch is refused there (counted in `rejected_ticks`, reported by
/// `tickreel_recorder_status`), not here. Ticks must be strictly increasing.
///
/// When the writer falls behind, the backpressure policy applies. `TICKREEL_BACKPRESSURE_DROP`:
/// the tick is dropped (counted, recorded as a gap) and the call returns `TICKREEL_RESULT_OK`
/// with `*out_dropped` set to true. `TICKREEL_BACKPRESSURE_BLOCK`: the call waits up to the
/// deadline, then drops the tick the same way and returns `TICKREEL_RESULT_BACKPRESSURE`.
/// `*out_dropped` (if `out_dropped` is not NULL) is false when the tick was queued.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `batch` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
/// for fewer than 2 bytes, more than `max_batch_bytes`, or a tick not after the previous one,
/// `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted or the engine has
/// shut down.
///
/// # Safety
/// `batch` must point to `len` readable bytes; `out_dropped` must be NULL or point to a writable
/// `bool`.
///
/// Thread safety: any thread, but one thread at a time per recorder (ticks in order).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_recorder_submit_tick(
    recorder: *mut TickreelRecorder,
    tick: u32,
    batch: *const u8,
    len: usize,
    out_dropped: *mut bool,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one bool.
        let dropped = unsafe { Out::optional(out_dropped, "out_dropped") }?;
        if let Some(d) = &dropped {
            d.set(false);
        }
        // SAFETY: caller contract: `len` readable bytes at `batch`.
        let bytes = unsafe { args::bytes_nonnull(batch, len, "batch") }?;
        submit(&rec_of(recorder)?.rec, tick, bytes, dropped)
    })
}

/// Queues one tick holding the events of a batch builder (the batch is left unchanged; clear it
/// before building the next tick). Same rules and results as `tickreel_recorder_submit_tick`.
///
/// # Safety
/// `out_dropped` must be NULL or point to a writable `bool`.
///
/// Thread safety: any thread, but one thread at a time per recorder (ticks in order). The batch
/// must not be modified by another thread during the call (its lock is held while it is copied).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_recorder_submit_batch(
    recorder: *mut TickreelRecorder,
    tick: u32,
    batch: *mut TickreelBatch,
    out_dropped: *mut bool,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one bool.
        let dropped = unsafe { Out::optional(out_dropped, "out_dropped") }?;
        if let Some(d) = &dropped {
            d.set(false);
        }
        let obj = rec_of(recorder)?;
        with_batch(batch, |bytes| submit(&obj.rec, tick, bytes, dropped))
    })
}

/// A player left: asks the writer to flush (if the flush policy's `flush_on_player_leave` is
/// set) so that their part of the recording is durable, and starts the player's grace period in
/// a shadow buffer this recorder feeds (`tickreel_shadow_start`). Adds no event: record the leave
/// itself with `tickreel_batch_player_leave` in the tick's batch. Never does I/O; waits only
/// while the writer's queue is full.
///
/// Returns `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_recorder_player_left(
    recorder: *mut TickreelRecorder,
    entity: u32,
) -> TickreelResult {
    guard(|| Ok(rec_of(recorder)?.rec.player_left(entity)?))
}

/// Supplies snapshot bytes (the game's own world state, opaque to tickreel, copied); the next
/// tick starts a chunk carrying them. `bytes` may be NULL when `len` is 0. Never does I/O; waits
/// only while the writer's queue is full.
///
/// Returns `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// # Safety
/// `bytes` must point to `len` readable bytes (or `len` must be 0).
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_recorder_offer_snapshot(
    recorder: *mut TickreelRecorder,
    bytes: *const u8,
    len: usize,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: `len` readable bytes at `bytes`, or len 0.
        let bytes = unsafe { args::bytes(bytes, len, "bytes") }?;
        Ok(rec_of(recorder)?.rec.offer_snapshot(bytes.to_vec())?)
    })
}

/// Records who an entity is, in the recording's metadata: its game-defined `kind`, optionally a
/// 16-byte UUID (`uuid`, NULL for none) and a UTF-8 name (`name`, NULL for none). Registering an
/// id again replaces the earlier entry. Never does I/O; waits only while the writer's queue is
/// full.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `name` is not UTF-8,
/// `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// # Safety
/// `uuid` must be NULL or point to 16 readable bytes; `name` must be NULL or a NUL-terminated
/// string.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_recorder_register_entity(
    recorder: *mut TickreelRecorder,
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
        Ok(rec_of(recorder)?.rec.register_entity(EntityInfo {
            id: entity,
            kind,
            uuid,
            name,
        })?)
    })
}

/// Registers a custom event type in the recording's metadata: its id (as used by
/// `tickreel_batch_custom`), a UTF-8 name and the game's schema version of its payload. Never
/// does I/O; waits only while the writer's queue is full.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `name` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
/// if it is not UTF-8, `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// # Safety
/// `name` must be NULL or a NUL-terminated string.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_recorder_register_event_type(
    recorder: *mut TickreelRecorder,
    type_id: u32,
    name: *const c_char,
    version: u32,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or NUL-terminated.
        let name = unsafe { args::utf8(name, "name") }?;
        Ok(rec_of(recorder)?.rec.register_event_type(EventType {
            id: type_id,
            name,
            version,
        })?)
    })
}

/// Asks the writer to flush now and waits until every tick submitted before this call is durably
/// in the live directory (segments fsynced, metadata rewritten atomically). Blocks for the I/O:
/// not for the server thread.
///
/// Returns `TICKREEL_RESULT_OK` once durable (a tick the writer refused is not an error here: see
/// `tickreel_recorder_status`), `TICKREEL_RESULT_IO` if the flush failed,
/// `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_recorder_flush(recorder: *mut TickreelRecorder) -> TickreelResult {
    guard(|| Ok(rec_of(recorder)?.rec.flush()?))
}

/// Stores the recording's counters in `*out_stats`. Never blocks.
///
/// # Safety
/// `out_stats` must be NULL or point to a writable `TickreelRecorderStats`.
///
/// Thread safety: any thread, concurrently with any other call; the counters are read one by one
/// and may be mutually a little out of date.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_recorder_stats(
    recorder: *mut TickreelRecorder,
    out_stats: *mut TickreelRecorderStats,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one stats struct.
        let out = unsafe { Out::new(out_stats, "out_stats") }?;
        let s = rec_of(recorder)?.rec.stats();
        out.set(TickreelRecorderStats {
            submitted_ticks: s.submitted_ticks,
            dropped_ticks: s.dropped_ticks,
            rejected_ticks: s.rejected_ticks,
            bytes_written: s.bytes_written,
            flushes: s.flushes,
            last_flush_latency_us: s.last_flush_latency_us,
            queue_depth: s.queue_depth,
            flushed_tick: s.flushed_tick.unwrap_or(0),
            has_flushed_tick: s.flushed_tick.is_some(),
        });
        Ok(())
    })
}

/// Waits up to `timeout_ms` for a resumed recording to be recovered (`tickreel_recorder_start`
/// on an existing live directory returns at once and recovers it on a thread of its own) and
/// stores its last recorded tick in `*out_tick` with `*out_has_tick` = 1 (0 for a recording
/// without ticks, and at once for a fresh one). Ticks submitted must come after it.
///
/// Returns `TICKREEL_RESULT_NOT_READY` if the recovery still runs at the timeout,
/// `TICKREEL_RESULT_INVALID_STATE` (with its error as the message) if it failed.
///
/// # Safety
/// `out_has_tick` and `out_tick` must each be NULL or point to a writable `uint32_t`.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_recorder_wait_resumed(
    recorder: *mut TickreelRecorder,
    timeout_ms: u32,
    out_has_tick: *mut u32,
    out_tick: *mut u32,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one u32 each.
        let has = unsafe { Out::new(out_has_tick, "out_has_tick") }?;
        // SAFETY: as above.
        let tick = unsafe { Out::new(out_tick, "out_tick") }?;
        let t = rec_of(recorder)?
            .rec
            .wait_resumed(std::time::Duration::from_millis(u64::from(timeout_ms)))?;
        has.set(u32::from(t.is_some()));
        tick.set(t.unwrap_or(0));
        Ok(())
    })
}

/// The writer's health for this recording: `TICKREEL_RESULT_OK` if it has reported no error,
/// otherwise `TICKREEL_RESULT_INVALID_STATE` with the writer's last error as the calling
/// thread's last error message (e.g. `tick 12 refused: ...` for a malformed batch, or a failed
/// flush). The writer processes ticks asynchronously: call `tickreel_recorder_flush` first to be
/// sure every submitted tick has been looked at. An error stays reported; the recording goes on
/// (refused ticks are skipped). Never blocks.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_recorder_status(recorder: *mut TickreelRecorder) -> TickreelResult {
    guard(|| Ok(rec_of(recorder)?.rec.status()?))
}

/// Ends the recording: the ticks still queued are written, then the engine's compaction worker
/// produces the final `.reel` file (atomically, verified if so configured) and removes the live
/// directory. Does not wait: stores a handle in `*out_finish` to poll (`tickreel_finish_poll`) or
/// wait on (`tickreel_finish_wait`), to be freed with `tickreel_finish_free`. Afterwards the
/// recorder refuses every call with `TICKREEL_RESULT_INVALID_STATE` except `_stats`, `_status`
/// and `tickreel_recorder_free`, which must still be called.
///
/// Never waits for room in a full writer queue: the finish then takes effect after every tick
/// queued before it.
///
/// Returns `TICKREEL_RESULT_INVALID_STATE` if the recording was already finished or aborted (a
/// second finish), the engine has shut down, or the recorder feeds a stream without a file
/// (`tickreel_shadow_start` with a NULL path: end it with `tickreel_recorder_free` or `_abort`).
/// On failure `*out_finish` is set to NULL (when it can be written).
///
/// # Safety
/// `out_finish` must be NULL or point to writable storage for one pointer.
///
/// Thread safety: any thread, concurrently with other recorder calls; only one finish or abort
/// succeeds.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_recorder_finish(
    recorder: *mut TickreelRecorder,
    out_finish: *mut *mut TickreelFinish,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_finish, "out_finish") }?;
        out.set(std::ptr::null_mut());
        let handle = rec_of(recorder)?.rec.finish()?;
        out.set(handle::insert(FinishObj { handle })?);
        Ok(())
    })
}

/// Throws the recording away: queued ticks are discarded and its live directory is removed.
/// Blocks until the writer has done so. Afterwards the recorder behaves as after a finish.
///
/// Returns `TICKREEL_RESULT_INVALID_STATE` if the recording was already finished or aborted or
/// the engine has shut down, `TICKREEL_RESULT_IO` if the directory could not be removed.
///
/// Thread safety: any thread, concurrently with other recorder calls; only one finish or abort
/// succeeds.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_recorder_abort(recorder: *mut TickreelRecorder) -> TickreelResult {
    guard(|| Ok(rec_of(recorder)?.rec.abort()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::engine::tests::{engine, recorder_options, start, stats};
    use crate::ffi::engine::tickreel_engine_free;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    #[test]
    fn malformed_batches_are_reported_by_status_and_a_freed_recorder_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let path = CString::new(dir.path().join("m.reel").to_str().unwrap()).unwrap();
        let e = engine(None);
        let o = recorder_options();
        let r = start(e, &path, &o);
        let good = [0u8, 0];
        let bad = [0u8, 1, 0x33];
        // SAFETY: the arrays are readable for their lengths.
        unsafe {
            assert_eq!(
                tickreel_recorder_submit_tick(r, 1, good.as_ptr(), 2, std::ptr::null_mut()),
                OK
            );
            assert_eq!(
                tickreel_recorder_submit_tick(r, 2, bad.as_ptr(), 3, std::ptr::null_mut()),
                OK
            );
            assert_eq!(
                tickreel_recorder_submit_tick(r, 2, good.as_ptr(), 2, std::ptr::null_mut()),
                TickreelResult::InvalidArgument
            );
            assert_eq!(
                tickreel_recorder_submit_tick(r, 3, good.as_ptr(), 1, std::ptr::null_mut()),
                TickreelResult::InvalidArgument
            );
        }
        assert_eq!(tickreel_recorder_flush(r), OK);
        assert_eq!(tickreel_recorder_status(r), TickreelResult::InvalidState);
        assert_eq!(stats(r).rejected_ticks, 1);
        // Freed while open: closed, resumable.
        assert_eq!(tickreel_recorder_free(r), OK);
        let r = loop {
            let mut r = std::ptr::null_mut();
            // SAFETY: valid string, options and out-pointer.
            match unsafe { tickreel_recorder_start(e, path.as_ptr(), &o, &mut r) } {
                OK => break r,
                // the writer thread may not have closed it yet
                TickreelResult::Locked => std::thread::yield_now(),
                other => panic!("{other:?}"),
            }
        };
        // Recovered on a thread of its own: where it ends is known once that is done.
        let (mut has, mut last) = (0u32, 0u32);
        // SAFETY: writable out-values.
        let res = unsafe { tickreel_recorder_wait_resumed(r, 30_000, &mut has, &mut last) };
        assert_eq!((res, has, last), (OK, 1, 1));
        // SAFETY: `good` has 2 readable bytes.
        unsafe {
            assert_eq!(
                tickreel_recorder_submit_tick(r, 1, good.as_ptr(), 2, std::ptr::null_mut()),
                TickreelResult::InvalidArgument,
                "tick 1 was recorded before the resume"
            );
            assert_eq!(
                tickreel_recorder_submit_tick(r, 5, good.as_ptr(), 2, std::ptr::null_mut()),
                OK
            );
        }
        assert_eq!(tickreel_recorder_abort(r), OK);
        assert_eq!(tickreel_recorder_abort(r), TickreelResult::InvalidState);
        assert_eq!(tickreel_recorder_free(r), OK);
        assert!(!path.to_str().map(std::path::Path::new).unwrap().exists());
        assert_eq!(tickreel_engine_free(e), OK);
    }
}
