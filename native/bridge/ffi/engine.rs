//! The engine: the recording runtime (background writer and compaction threads, shared by every
//! recording of a server) behind `TickreelEngine`, its options and counters, and the calls on it.
//! A recording's options are in [`recorder_options`], its calls in [`recorder`] (`submit_tick` on
//! the server thread: a copy and a queue push), and the handles `tickreel_recorder_finish` returns
//! in [`finish`]. Shadow play (a stream kept in memory, reported into a file) is in
//! [`shadow_options`] and [`shadow`].

use super::args::Out;
use super::handle::{self, HandleType};
use super::result::{FfiError, FfiResult, TickreelResult, guard};
use tickreel::record::{Engine, EngineOptions};

// cbindgen emits a module's declarations after its parent's, submodules in `mod` order: these are
// in the order of `include/tickreel.h` (one per group, so that rustfmt does not sort them).
pub mod recorder_options;

pub mod recorder;

pub mod finish;

pub mod shadow_options;

pub mod shadow;

/// The recording runtime: writer thread(s) and a compaction worker, shared by every recording of
/// a server. Opaque: create with `tickreel_engine_new`, release with `tickreel_engine_free`
/// (which stops and joins its threads). The pointer is a handle, not an address.
pub struct TickreelEngine {
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
    /// Bytes the engine's shadow buffers (`tickreel_shadow_start`) may hold in all (default
    /// 256 MiB); past it, the oldest blocks of any buffer are given up first.
    pub shadow_budget_bytes: usize,
}

impl TickreelEngineOptions {
    fn from_core(o: &EngineOptions) -> Self {
        TickreelEngineOptions {
            writer_threads: u32::try_from(o.writer_threads).unwrap_or(u32::MAX),
            queue_capacity: o.queue_capacity,
            max_inflight_bytes: o.max_inflight_bytes,
            pool_buffers: o.pool_buffers,
            shadow_budget_bytes: o.shadow_budget_bytes,
        }
    }

    /// A translation only: `Engine::new` checks the values (`EngineOptions::validate`).
    fn to_core(self) -> EngineOptions {
        EngineOptions {
            writer_threads: self.writer_threads as usize,
            queue_capacity: self.queue_capacity,
            max_inflight_bytes: self.max_inflight_bytes,
            pool_buffers: self.pool_buffers,
            shadow_budget_bytes: self.shadow_budget_bytes,
        }
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
    /// Heap bytes the engine's shadow buffers hold in all, against
    /// `TickreelEngineOptions.shadow_budget_bytes`.
    pub shadow_bytes: usize,
    /// Blocks the shadow buffers gave up for that budget.
    pub shadow_budget_dropped_blocks: u64,
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

/// Fills `*out_options` with the engine defaults (1 writer thread, 65536 queued ticks, 64 MiB
/// in flight, 4096 pooled buffers, 256 MiB of shadow buffers).
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
    // SAFETY: non-NULL, aligned, readable by the caller's contract; `T` is plain data (integers,
    // floats and byte arrays only) valid for any bit pattern.
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
            Some(o) => o.to_core(),
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
            shadow_bytes: s.shadow_bytes,
            shadow_budget_dropped_blocks: s.shadow_budget_dropped_blocks,
        });
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    //! Also the fixtures of the tests of [`recorder_options`](super::recorder_options),
    //! [`recorder`](super::recorder) and [`finish`](super::finish).

    use super::finish::tickreel_finish_free;
    use super::recorder::*;
    use super::recorder_options::*;
    use super::*;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    pub(super) fn engine(options: Option<TickreelEngineOptions>) -> *mut TickreelEngine {
        let mut e = std::ptr::null_mut();
        let opts = options.as_ref().map_or(std::ptr::null(), |o| o as *const _);
        // SAFETY: `opts` is NULL or a live options struct; `e` is writable.
        assert_eq!(unsafe { tickreel_engine_new(opts, &mut e) }, OK);
        e
    }

    pub(super) fn recorder_options() -> TickreelRecorderOptions {
        let mut o = std::mem::MaybeUninit::uninit();
        // SAFETY: writable storage for one options struct.
        assert_eq!(
            unsafe { tickreel_recorder_options_default(o.as_mut_ptr()) },
            OK
        );
        // SAFETY: initialised by the call above.
        unsafe { o.assume_init() }
    }

    pub(super) fn start(
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

    pub(super) fn stats(r: *mut TickreelRecorder) -> TickreelRecorderStats {
        let mut s = TickreelRecorderStats::default();
        // SAFETY: `s` is writable.
        assert_eq!(unsafe { tickreel_recorder_stats(r, &mut s) }, OK);
        s
    }

    #[test]
    fn bad_engine_options_and_handles_are_refused() {
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
