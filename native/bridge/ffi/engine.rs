//! The live write path: the engine (background writer and compaction threads), recorders (one
//! per recording, `submit_tick` on the server thread: a copy and a queue push) and the handles
//! `tickreel_recorder_finish` returns.

use std::ffi::c_char;
use std::time::Duration;

use super::args::{self, Out, OutArray};
use super::batch::{TickreelBatch, with_batch};
use super::handle::{self, HandleType};
use super::result::{FfiError, FfiResult, TickreelResult, guard};
use tickreel::format::Limits;
use tickreel::format::metadata::{EntityInfo, EventType};
use tickreel::record::{
    Backpressure, ChunkPolicy, CompactOptions, Engine, EngineOptions, FinishHandle, FlushPolicy,
    Recorder, RecorderOptions, RecordingInfo, Submitted,
};

/// The recording runtime: writer thread(s) and a compaction worker, shared by every recording of
/// a server. Opaque: create with `tickreel_engine_new`, release with `tickreel_engine_free`
/// (which stops and joins its threads). The pointer is a handle, not an address.
pub struct TickreelEngine {
    _private: [u8; 0],
}

/// One recording being written by an engine. Opaque: create with `tickreel_recorder_start`,
/// release with `tickreel_recorder_free`. The pointer is a handle, not an address.
pub struct TickreelRecorder {
    _private: [u8; 0],
}

/// The completion of a finished recording's compaction into its final `.reel` file. Opaque:
/// returned by `tickreel_recorder_finish`, released with `tickreel_finish_free`.
pub struct TickreelFinish {
    _private: [u8; 0],
}

/// Options of `tickreel_engine_new`. Fill with `tickreel_engine_options_default`, then change
/// what you need.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TickreelEngineOptions {
    /// Writer threads; recordings are spread over them (default 1). 1 to 64.
    pub writer_threads: u32,
    /// Tick messages that may wait in each writer's queue (default 65536). Must be > 0.
    pub queue_capacity: usize,
    /// Bytes of submitted ticks that may be in flight, engine-wide (default 64 MiB). A single
    /// tick is always accepted when nothing else is in flight.
    pub max_inflight_bytes: usize,
    /// Reusable tick buffers kept in the engine's pool (default 4096).
    pub pool_buffers: usize,
}

/// Most writer threads an engine may have.
const MAX_WRITER_THREADS: u32 = 64;

impl TickreelEngineOptions {
    fn from_core(o: &EngineOptions) -> Self {
        TickreelEngineOptions {
            writer_threads: u32::try_from(o.writer_threads).unwrap_or(u32::MAX),
            queue_capacity: o.queue_capacity,
            max_inflight_bytes: o.max_inflight_bytes,
            pool_buffers: o.pool_buffers,
        }
    }

    fn to_core(self) -> FfiResult<EngineOptions> {
        if self.writer_threads == 0 || self.writer_threads > MAX_WRITER_THREADS {
            return Err(FfiError::Invalid(format!(
                "options.writer_threads must be in 1..={MAX_WRITER_THREADS}"
            )));
        }
        if self.queue_capacity == 0 {
            return Err(FfiError::Invalid(
                "options.queue_capacity must be > 0".into(),
            ));
        }
        Ok(EngineOptions {
            writer_threads: self.writer_threads as usize,
            queue_capacity: self.queue_capacity,
            max_inflight_bytes: self.max_inflight_bytes,
            pool_buffers: self.pool_buffers,
        })
    }
}

/// Engine-wide counters, as filled in by `tickreel_engine_stats`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickreelEngineStats {
    /// Recordings open (started, not yet finished, aborted or freed).
    pub active_recordings: usize,
    /// Messages waiting in the writers' queues.
    pub queue_depth: usize,
    /// Bytes of submitted ticks not yet processed by a writer.
    pub inflight_bytes: usize,
    /// Ticks dropped by backpressure, over all recordings.
    pub dropped_ticks: u64,
    /// Compressed bytes written to live directories.
    pub bytes_written: u64,
    /// Duration of the last flush, in microseconds.
    pub last_flush_latency_us: u64,
    /// Finished recordings waiting for, or in, compaction.
    pub compactions_pending: u64,
    /// Compactions completed successfully.
    pub compactions_done: u64,
    /// Compactions that failed.
    pub compactions_failed: u64,
}

/// `TickreelRecorderOptions.backpressure`: when the writer falls behind, wait up to
/// `block_deadline_ms` for room, then drop the tick (counted, recorded as a gap) and return
/// `TICKREEL_RESULT_BACKPRESSURE`. The default.
pub const TICKREEL_BACKPRESSURE_BLOCK: u32 = 0;
/// `TickreelRecorderOptions.backpressure`: when the writer falls behind, drop the tick at once
/// (counted, recorded as a gap); `tickreel_recorder_submit_tick` returns `TICKREEL_RESULT_OK`
/// and sets `*out_dropped` to true.
pub const TICKREEL_BACKPRESSURE_DROP: u32 = 1;

/// Options of `tickreel_recorder_start`. Fill with `tickreel_recorder_options_default`, then
/// change what you need. Flag fields are `uint32_t`: 0 is false, any other value true.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TickreelRecorderOptions {
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
    /// Most ticks one live chunk spans (default 100). 1 to 1048576.
    pub chunk_ticks: u32,
    /// Ticks between snapshots (default 600). Must be > 0.
    pub snapshot_interval: u32,
    /// Zstd level of the live segments (default 3: fast).
    pub zstd_level: i32,
    /// Flush at least this often while ticks arrive, in milliseconds (default 5000). Must be > 0.
    pub flush_interval_ms: u32,
    /// Flush once this many compressed bytes are waiting (default 256 KiB). Must be > 0.
    pub flush_max_pending_bytes: usize,
    /// Flush when a player leaves (a `PlayerLeave` event or `tickreel_recorder_player_left`)
    /// (default 1).
    pub flush_on_player_leave: u32,
    /// `TICKREEL_BACKPRESSURE_BLOCK` (default) or `TICKREEL_BACKPRESSURE_DROP`.
    pub backpressure: u32,
    /// With `TICKREEL_BACKPRESSURE_BLOCK`: the longest `tickreel_recorder_submit_tick` waits for
    /// room, in milliseconds (default 50).
    pub block_deadline_ms: u32,
    /// Zstd level of the final compacted file (default 9).
    pub compaction_zstd_level: i32,
    /// Chunk span of the final compacted file (default 100). 1 to 1048576.
    pub compaction_chunk_ticks: u32,
    /// Read the final file back and check it before reporting the finish done (default 1).
    pub compaction_verify: u32,
    /// Largest accepted tick batch in bytes (default 1 MiB). Must be >= 2.
    pub max_batch_bytes: usize,
    /// Replace an existing finished file at the path instead of refusing (default 0).
    pub overwrite: u32,
}

fn check_zstd(name: &str, level: i32) -> FfiResult {
    tickreel::record::check_zstd_level(&format!("options.{name}"), level).map_err(|e| match e {
        tickreel::Error::InvalidArgument(m) => FfiError::Invalid(m),
        other => other.into(),
    })
}

impl TickreelRecorderOptions {
    fn from_core(o: &RecorderOptions) -> Self {
        let (backpressure, deadline) = match o.backpressure {
            Backpressure::Block { deadline } => (TICKREEL_BACKPRESSURE_BLOCK, deadline),
            Backpressure::Drop => (TICKREEL_BACKPRESSURE_DROP, Duration::from_millis(50)),
        };
        let ms = |d: Duration| u32::try_from(d.as_millis()).unwrap_or(u32::MAX);
        TickreelRecorderOptions {
            tick_rate_millihz: o.info.tick_rate_millihz,
            game_data_version: o.info.game_data_version,
            timestamp_ms: o.info.timestamp_ms,
            world_id: o.info.world_id,
            world_version: o.info.world_version,
            chunk_ticks: o.chunk.chunk_ticks,
            snapshot_interval: o.chunk.snapshot_interval,
            zstd_level: o.chunk.zstd_level,
            flush_interval_ms: ms(o.flush.interval),
            flush_max_pending_bytes: o.flush.max_pending_bytes,
            flush_on_player_leave: u32::from(o.flush.on_player_leave),
            backpressure,
            block_deadline_ms: ms(deadline),
            compaction_zstd_level: o.compaction.zstd_level,
            compaction_chunk_ticks: o.compaction.chunk_ticks,
            compaction_verify: u32::from(o.compaction.verify),
            max_batch_bytes: o.max_batch_bytes,
            overwrite: u32::from(o.overwrite),
        }
    }

    fn to_core(self) -> FfiResult<RecorderOptions> {
        let bad = |m: String| Err(FfiError::Invalid(m));
        let d = RecorderOptions::default();
        if self.tick_rate_millihz == 0 {
            return bad("options.tick_rate_millihz must be > 0".into());
        }
        let max_ticks = Limits::default().max_chunk_ticks;
        for (name, v) in [
            ("chunk_ticks", self.chunk_ticks),
            ("compaction_chunk_ticks", self.compaction_chunk_ticks),
        ] {
            if v == 0 || v as usize > max_ticks {
                return bad(format!("options.{name} must be in 1..={max_ticks}"));
            }
        }
        if self.snapshot_interval == 0 {
            return bad("options.snapshot_interval must be > 0".into());
        }
        if self.flush_interval_ms == 0 {
            return bad("options.flush_interval_ms must be > 0".into());
        }
        if self.flush_max_pending_bytes == 0 {
            return bad("options.flush_max_pending_bytes must be > 0".into());
        }
        if self.max_batch_bytes < 2 {
            return bad("options.max_batch_bytes must be >= 2".into());
        }
        check_zstd("zstd_level", self.zstd_level)?;
        check_zstd("compaction_zstd_level", self.compaction_zstd_level)?;
        let backpressure = match self.backpressure {
            TICKREEL_BACKPRESSURE_BLOCK => Backpressure::Block {
                deadline: Duration::from_millis(u64::from(self.block_deadline_ms)),
            },
            TICKREEL_BACKPRESSURE_DROP => Backpressure::Drop,
            other => {
                return bad(format!(
                    "options.backpressure {other} is neither TICKREEL_BACKPRESSURE_BLOCK nor \
                     TICKREEL_BACKPRESSURE_DROP"
                ));
            }
        };
        Ok(RecorderOptions {
            info: RecordingInfo {
                world_id: self.world_id,
                world_version: self.world_version,
                timestamp_ms: self.timestamp_ms,
                tick_rate_millihz: self.tick_rate_millihz,
                game_data_version: self.game_data_version,
                dictionary_id: d.info.dictionary_id,
            },
            chunk: ChunkPolicy {
                chunk_ticks: self.chunk_ticks,
                snapshot_interval: self.snapshot_interval,
                zstd_level: self.zstd_level,
                ..d.chunk
            },
            flush: FlushPolicy {
                max_pending_bytes: self.flush_max_pending_bytes,
                interval: Duration::from_millis(u64::from(self.flush_interval_ms)),
                on_player_leave: self.flush_on_player_leave != 0,
            },
            backpressure,
            compaction: CompactOptions {
                zstd_level: self.compaction_zstd_level,
                chunk_ticks: self.compaction_chunk_ticks,
                verify: self.compaction_verify != 0,
                ..d.compaction
            },
            snapshot_provider: None,
            max_batch_bytes: self.max_batch_bytes,
            overwrite: self.overwrite != 0,
        })
    }
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

/// The object behind an engine handle.
pub(crate) struct EngineObj {
    engine: Engine,
}

impl HandleType for EngineObj {
    type Opaque = TickreelEngine;
    const TAG: u8 = 4;
    const NAME: &'static str = "engine";
}

/// The object behind a recorder handle. Dropping it closes an open recording (resumable).
pub(crate) struct RecorderObj {
    rec: Recorder,
}

impl HandleType for RecorderObj {
    type Opaque = TickreelRecorder;
    const TAG: u8 = 5;
    const NAME: &'static str = "recorder";
}

/// The object behind a finish handle.
pub(crate) struct FinishObj {
    handle: FinishHandle,
}

impl HandleType for FinishObj {
    type Opaque = TickreelFinish;
    const TAG: u8 = 6;
    const NAME: &'static str = "finish";
}

fn rec_of(recorder: *mut TickreelRecorder) -> FfiResult<std::sync::Arc<RecorderObj>> {
    handle::get::<RecorderObj>(recorder)
}

/// Fills `*out_options` with the engine defaults (1 writer thread, 65536 queued ticks, 64 MiB
/// in flight, 4096 pooled buffers).
///
/// # Safety
/// `out_options` must be NULL or point to a writable `TickreelEngineOptions`.
///
/// Thread safety: any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_engine_options_default(
    out_options: *mut TickreelEngineOptions,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one options struct.
        let out = unsafe { Out::new(out_options, "out_options") }?;
        out.set(TickreelEngineOptions::from_core(&EngineOptions::default()));
        Ok(())
    })
}

/// Reads a caller's options struct, or `None` for NULL.
///
/// # Safety
/// `ptr` must be NULL or point to a readable `T`; `T` must be plain data valid for any bit
/// pattern.
unsafe fn read_options<T: Copy>(ptr: *const T) -> FfiResult<Option<T>> {
    if ptr.is_null() {
        return Ok(None);
    }
    if !ptr.is_aligned() {
        return Err(FfiError::Invalid("`options` is misaligned".into()));
    }
    // SAFETY: non-NULL, aligned, readable by the caller's contract; `T` is plain data (integers
    // and byte arrays only) valid for any bit pattern.
    Ok(Some(unsafe { ptr.read() }))
}

/// Starts an engine: its writer thread(s) and compaction worker. `options` may be NULL for the
/// defaults of `tickreel_engine_options_default`. Stores its handle in `*out_engine` (NULL on
/// failure, when it can be written).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an invalid option, `TICKREEL_RESULT_IO` if a
/// thread cannot be started.
///
/// # Safety
/// `options` must be NULL or point to a readable `TickreelEngineOptions`; `out_engine` must be
/// NULL or point to writable storage for one pointer.
///
/// Thread safety: any thread. An engine may then be used from any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_engine_new(
    options: *const TickreelEngineOptions,
    out_engine: *mut *mut TickreelEngine,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_engine, "out_engine") }?;
        out.set(std::ptr::null_mut());
        // SAFETY: caller contract: NULL or a readable options struct (plain data).
        let options = match unsafe { read_options(options) }? {
            Some(o) => o.to_core()?,
            None => EngineOptions::default(),
        };
        let engine = Engine::new(options)?;
        out.set(handle::insert(EngineObj { engine })?);
        Ok(())
    })
}

/// Shuts an engine down and frees it: open recordings are flushed and closed (they stay
/// resumable: starting a recorder on the same path later continues them), pending compactions
/// (recordings already finished) complete, then the threads are joined. Blocks until then.
/// Recorders of this engine that are still held afterwards refuse every call with
/// `TICKREEL_RESULT_INVALID_STATE` (free them); finish handles stay valid.
///
/// Call it before the program exits, after freeing or finishing its recorders: the engine's
/// threads are only stopped here. `tickreel_engine_free(NULL)` is a no-op returning
/// `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. Calls on the same engine running in other threads finish
/// normally (a recorder started meanwhile is closed by the shutdown); calls that start after
/// this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_engine_free(engine: *mut TickreelEngine) -> TickreelResult {
    guard(|| {
        if let Some(obj) = handle::remove::<EngineObj>(engine)? {
            obj.engine.shutdown();
        }
        Ok(())
    })
}

/// Stores the engine-wide counters in `*out_stats`.
///
/// # Safety
/// `out_stats` must be NULL or point to a writable `TickreelEngineStats`.
///
/// Thread safety: any thread, concurrently with any other call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_engine_stats(
    engine: *mut TickreelEngine,
    out_stats: *mut TickreelEngineStats,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one stats struct.
        let out = unsafe { Out::new(out_stats, "out_stats") }?;
        let s = handle::get::<EngineObj>(engine)?.engine.stats();
        out.set(TickreelEngineStats {
            active_recordings: s.active_recordings,
            queue_depth: s.queue_depth,
            inflight_bytes: s.inflight_bytes,
            dropped_ticks: s.dropped_ticks,
            bytes_written: s.bytes_written,
            last_flush_latency_us: s.last_flush_latency_us,
            compactions_pending: s.compactions_pending,
            compactions_done: s.compactions_done,
            compactions_failed: s.compactions_failed,
        });
        Ok(())
    })
}

/// Fills `*out_options` with the recorder defaults (20 ticks/s, 100-tick live chunks at zstd
/// level 3, a snapshot every 600 ticks, flush every 5 s / 256 KiB / on player leave, block up to
/// 50 ms under backpressure, compaction at zstd level 9 with verification, batches up to 1 MiB,
/// no overwrite).
///
/// # Safety
/// `out_options` must be NULL or point to a writable `TickreelRecorderOptions`.
///
/// Thread safety: any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_recorder_options_default(
    out_options: *mut TickreelRecorderOptions,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one options struct.
        let out = unsafe { Out::new(out_options, "out_options") }?;
        out.set(TickreelRecorderOptions::from_core(
            &RecorderOptions::default(),
        ));
        Ok(())
    })
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
        with_batch(batch, |b| submit(&obj.rec, tick, b.encoded(), dropped))
    })
}

/// A player left: asks the writer to flush (if the flush policy's `flush_on_player_leave` is
/// set) so that their part of the recording is durable. Adds no event: record the leave itself
/// with `tickreel_batch_player_leave` in the tick's batch. Never does I/O; waits only
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
/// second finish) or the engine has shut down. On failure `*out_finish` is set to NULL (when it
/// can be written).
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

fn finish_result(r: tickreel::Result<std::path::PathBuf>) -> FfiResult<std::path::PathBuf> {
    Ok(r?)
}

/// Stores in `*out_done` whether the compaction has completed. Never blocks.
///
/// Returns `TICKREEL_RESULT_OK` while it runs (`*out_done` false) and once it succeeded
/// (`*out_done` true); if it failed, `*out_done` is true and the call returns the failure's code
/// (e.g. `TICKREEL_RESULT_IO`, `TICKREEL_RESULT_CORRUPT`) with its message, every time it is
/// asked.
///
/// # Safety
/// `out_done` must be NULL or point to a writable `bool`.
///
/// Thread safety: any thread, concurrently with any other call on the handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_finish_poll(
    finish: *mut TickreelFinish,
    out_done: *mut bool,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one bool.
        let out = unsafe { Out::new(out_done, "out_done") }?;
        let obj = handle::get::<FinishObj>(finish)?;
        match obj.handle.poll() {
            None => {
                out.set(false);
                Ok(())
            }
            Some(r) => {
                out.set(true);
                finish_result(r).map(drop)
            }
        }
    })
}

/// Waits until the compaction has completed and copies the final file's path into `path_buf` as
/// a NUL-terminated string (in the platform's encoding), storing its length in bytes, without the
/// NUL, in `*out_len`. Blocks: not for the server thread (poll with `tickreel_finish_poll`
/// there). With `capacity` 0 nothing is copied (`path_buf` may then be NULL): a wait and a length
/// query. `out_len` may be NULL.
///
/// Returns the compaction's failure code if it failed (every time it is asked), or
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` if `capacity` is less than `*out_len + 1` (nothing is
/// copied; calling again does not wait any more).
///
/// # Safety
/// `path_buf` must point to `capacity` writable bytes (or `capacity` must be 0); `out_len` must
/// be NULL or point to a writable `size_t`.
///
/// Thread safety: any thread, concurrently with any other call on the handle; several threads
/// may wait.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_finish_wait(
    finish: *mut TickreelFinish,
    path_buf: *mut c_char,
    capacity: usize,
    out_len: *mut usize,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: `capacity` writable bytes at `path_buf`, or capacity 0.
        let buf = unsafe { OutArray::new(path_buf, capacity, "path_buf") }?;
        // SAFETY: caller contract: NULL or writable for one size_t.
        let out_len = unsafe { Out::optional(out_len, "out_len") }?;
        let obj = handle::get::<FinishObj>(finish)?;
        let path = finish_result(obj.handle.wait())?;
        let bytes = path_bytes(&path);
        if let Some(l) = out_len {
            l.set(bytes.len());
        }
        if capacity == 0 {
            return Ok(()); // a wait and a length query
        }
        if bytes.len() >= buf.capacity() {
            return Err(FfiError::BufferTooSmall(format!(
                "the path needs {} bytes with its NUL, the buffer has {}",
                bytes.len() + 1,
                buf.capacity()
            )));
        }
        for (i, &b) in bytes.iter().enumerate() {
            buf.set(i, b as c_char);
        }
        buf.set(bytes.len(), 0);
        Ok(())
    })
}

#[cfg(unix)]
fn path_bytes(p: &std::path::Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(p: &std::path::Path) -> Vec<u8> {
    p.to_string_lossy().into_owned().into_bytes()
}

/// Frees a finish handle. The compaction goes on regardless (freeing does not cancel it).
/// `tickreel_finish_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or invalid
/// handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A wait on the same handle in another thread finishes normally;
/// calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_finish_free(finish: *mut TickreelFinish) -> TickreelResult {
    guard(|| handle::remove::<FinishObj>(finish).map(drop))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::batch::*;
    use crate::ffi::reader::*;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    fn engine(options: Option<TickreelEngineOptions>) -> *mut TickreelEngine {
        let mut e = std::ptr::null_mut();
        let opts = options.as_ref().map_or(std::ptr::null(), |o| o as *const _);
        // SAFETY: `opts` is NULL or a live options struct; `e` is writable.
        assert_eq!(unsafe { tickreel_engine_new(opts, &mut e) }, OK);
        e
    }

    fn recorder_options() -> TickreelRecorderOptions {
        let mut o = std::mem::MaybeUninit::uninit();
        // SAFETY: writable storage for one options struct.
        assert_eq!(
            unsafe { tickreel_recorder_options_default(o.as_mut_ptr()) },
            OK
        );
        // SAFETY: initialised by the call above.
        unsafe { o.assume_init() }
    }

    fn start(
        e: *mut TickreelEngine,
        path: &CString,
        o: &TickreelRecorderOptions,
    ) -> *mut TickreelRecorder {
        let mut r = std::ptr::null_mut();
        // SAFETY: valid string, options and out-pointer.
        assert_eq!(
            unsafe { tickreel_recorder_start(e, path.as_ptr(), o, &mut r) },
            OK
        );
        r
    }

    fn stats(r: *mut TickreelRecorder) -> TickreelRecorderStats {
        let mut s = TickreelRecorderStats::default();
        // SAFETY: `s` is writable.
        assert_eq!(unsafe { tickreel_recorder_stats(r, &mut s) }, OK);
        s
    }

    fn finish_and_wait(r: *mut TickreelRecorder) -> String {
        let mut f = std::ptr::null_mut();
        // SAFETY: `f` is writable.
        assert_eq!(unsafe { tickreel_recorder_finish(r, &mut f) }, OK);
        let mut buf = [0 as c_char; 512];
        let mut len = 0;
        // SAFETY: `buf` has 512 writable bytes, `len` is writable.
        assert_eq!(
            unsafe { tickreel_finish_wait(f, buf.as_mut_ptr(), buf.len(), &mut len) },
            OK
        );
        let mut done = false;
        // SAFETY: `done` is writable.
        assert_eq!(unsafe { tickreel_finish_poll(f, &mut done) }, OK);
        assert!(done);
        let mut tiny = [0 as c_char; 4];
        let mut len2 = 0;
        // SAFETY: `tiny` has 4 writable bytes.
        let got = unsafe { tickreel_finish_wait(f, tiny.as_mut_ptr(), 4, &mut len2) };
        assert_eq!((got, len2), (TickreelResult::BufferTooSmall, len));
        assert_eq!(tickreel_finish_free(f), OK);
        // SAFETY: NUL-terminated by tickreel_finish_wait.
        let s = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
        assert_eq!(s.to_bytes().len(), len);
        s.to_str().unwrap().to_owned()
    }

    #[test]
    fn records_through_the_engine_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = CString::new(dir.path().join("e.reel").to_str().unwrap()).unwrap();
        let e = engine(None);
        let mut o = recorder_options();
        o.chunk_ticks = 10;
        o.compaction_chunk_ticks = 10;
        let r = start(e, &path, &o);
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        for t in 0..50u32 {
            assert_eq!(tickreel_batch_clear(b), OK);
            let x = f64::from(t) * 0.5;
            let res = if t == 0 {
                tickreel_batch_add_entity(b, 1, 7, x, 64.0, 0.0, 0.0, 0.0)
            } else {
                tickreel_batch_add_pose(b, 1, x, 64.0, 0.0, 0.0, 0.0)
            };
            assert_eq!(res, OK);
            let mut dropped = true;
            // SAFETY: `dropped` is writable.
            assert_eq!(
                unsafe { tickreel_recorder_submit_batch(r, t, b, &mut dropped) },
                OK
            );
            assert!(!dropped);
        }
        assert_eq!(tickreel_batch_free(b), OK);
        assert_eq!(tickreel_recorder_flush(r), OK);
        let s = stats(r);
        assert_eq!((s.submitted_ticks, s.rejected_ticks), (50, 0));
        assert!(s.has_flushed_tick && s.flushed_tick == 49, "{s:?}");
        assert_eq!(tickreel_recorder_status(r), OK);
        let got = finish_and_wait(r);
        assert_eq!(got, path.to_str().unwrap());
        // Finished: no more ticks, no second finish.
        let tick = [0u8, 0];
        // SAFETY: `tick` has 2 readable bytes.
        let res =
            unsafe { tickreel_recorder_submit_tick(r, 60, tick.as_ptr(), 2, std::ptr::null_mut()) };
        assert_eq!(res, TickreelResult::InvalidState);
        let mut f = std::ptr::null_mut();
        // SAFETY: `f` is writable.
        assert_eq!(
            unsafe { tickreel_recorder_finish(r, &mut f) },
            TickreelResult::InvalidState
        );
        assert!(f.is_null());
        assert_eq!(tickreel_recorder_free(r), OK);
        let mut es = TickreelEngineStats::default();
        // SAFETY: `es` is writable.
        assert_eq!(unsafe { tickreel_engine_stats(e, &mut es) }, OK);
        assert_eq!((es.compactions_done, es.active_recordings), (1, 0));
        assert_eq!(tickreel_engine_free(e), OK);
        assert_eq!(tickreel_engine_free(e), TickreelResult::InvalidHandle);

        let mut rd = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        assert_eq!(unsafe { tickreel_reader_open(path.as_ptr(), &mut rd) }, OK);
        let mut st = [TickreelEntityState {
            id: 0,
            kind: 0,
            flags: 0,
            x: 0.0,
            y: 0.0,
            z: 0.0,
            yaw: 0.0,
            pitch: 0.0,
        }];
        let (mut n, mut at) = (0, 0);
        // SAFETY: `st` has room for 1.
        let res = unsafe { tickreel_reader_seek(rd, 31, st.as_mut_ptr(), 1, &mut n, &mut at) };
        assert_eq!((res, n, at, st[0].x), (OK, 1, 31, 15.5));
        assert_eq!(tickreel_reader_free(rd), OK);
    }

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

    #[test]
    fn backpressure_drops_or_fails_by_policy() {
        let dir = tempfile::tempdir().unwrap();
        let mut eo = std::mem::MaybeUninit::uninit();
        // SAFETY: writable storage for one options struct.
        assert_eq!(
            unsafe { tickreel_engine_options_default(eo.as_mut_ptr()) },
            OK
        );
        // SAFETY: initialised above.
        let mut eo = unsafe { eo.assume_init() };
        eo.queue_capacity = 2;
        let tick = [0u8, 0];
        for (name, policy) in [
            ("drop.reel", TICKREEL_BACKPRESSURE_DROP),
            ("block.reel", TICKREEL_BACKPRESSURE_BLOCK),
        ] {
            // One engine each: starting a recording queues its opening, which waits while the
            // queue is full.
            let e = engine(Some(eo));
            let obj = handle::get::<EngineObj>(e).unwrap();
            obj.engine.set_writers_stalled(true);
            let path = CString::new(dir.path().join(name).to_str().unwrap()).unwrap();
            let mut o = recorder_options();
            o.backpressure = policy;
            o.block_deadline_ms = 1;
            let r = start(e, &path, &o);
            let mut outcomes = Vec::new();
            for t in 0..6 {
                let mut dropped = false;
                // SAFETY: `tick` has 2 readable bytes; `dropped` is writable.
                let res =
                    unsafe { tickreel_recorder_submit_tick(r, t, tick.as_ptr(), 2, &mut dropped) };
                outcomes.push((res, dropped));
            }
            let want = if policy == TICKREEL_BACKPRESSURE_DROP {
                (OK, true)
            } else {
                (TickreelResult::Backpressure, true)
            };
            assert!(outcomes.contains(&want), "{name}: {outcomes:?}");
            assert!(outcomes.contains(&(OK, false)), "{name}: {outcomes:?}");
            let s = stats(r);
            assert_eq!(s.dropped_ticks + s.submitted_ticks, 6, "{s:?}");
            assert!(s.dropped_ticks > 0);
            // Unstall so that the writer takes the queued ticks and the close.
            obj.engine.set_writers_stalled(false);
            assert_eq!(tickreel_recorder_free(r), OK);
            drop(obj);
            assert_eq!(tickreel_engine_free(e), OK);
        }
    }

    #[test]
    fn bad_options_and_handles_are_refused() {
        let mut e = std::ptr::null_mut();
        let mut eo = TickreelEngineOptions::from_core(&EngineOptions::default());
        eo.writer_threads = 0;
        // SAFETY: valid options and out-pointer.
        assert_eq!(
            unsafe { tickreel_engine_new(&eo, &mut e) },
            TickreelResult::InvalidArgument
        );
        let e = engine(None);
        let path = c"x.reel";
        let mut r = std::ptr::null_mut();
        for change in [
            |o: &mut TickreelRecorderOptions| o.backpressure = 7,
            |o: &mut TickreelRecorderOptions| o.zstd_level = 99,
            |o: &mut TickreelRecorderOptions| o.flush_interval_ms = 0,
            |o: &mut TickreelRecorderOptions| o.compaction_chunk_ticks = 0,
        ] {
            let mut o = recorder_options();
            change(&mut o);
            // SAFETY: valid string, options and out-pointer.
            let res = unsafe { tickreel_recorder_start(e, path.as_ptr(), &o, &mut r) };
            assert_eq!(res, TickreelResult::InvalidArgument);
            assert!(r.is_null());
        }
        let as_rec = e.cast::<TickreelRecorder>();
        assert_eq!(
            tickreel_recorder_flush(as_rec),
            TickreelResult::InvalidHandle
        );
        assert_eq!(
            tickreel_recorder_free(as_rec),
            TickreelResult::InvalidHandle
        );
        assert_eq!(tickreel_recorder_free(std::ptr::null_mut()), OK);
        assert_eq!(tickreel_finish_free(std::ptr::null_mut()), OK);
        assert_eq!(tickreel_engine_free(e), OK);
        // SAFETY: valid string and out-pointer; the engine handle is stale.
        let res = unsafe { tickreel_recorder_start(e, path.as_ptr(), std::ptr::null(), &mut r) };
        assert_eq!(res, TickreelResult::InvalidHandle);
    }
}
