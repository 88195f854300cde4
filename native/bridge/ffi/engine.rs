//! The engine: the recording runtime (background writer and compaction threads, shared by every
//! recording of a server) behind `TickreelEngine`, its options and counters, and the calls on it.
//! A recording's options are a builder (`crate::api::recorder_options`), its calls in [`recorder`]
//! (`submit_tick` on the server thread: a copy and a queue push), and the tests of
//! `tickreel_recorder_finish` in [`finish`]. Shadow play (a stream kept in memory, reported into
//! a file) is in [`shadow`]; its options are builders too (`crate::api::shadow_options`,
//! `crate::api::report_options`).

use super::convert::CResult;
use super::result::FfiResult;
pub use crate::ffi::options::TickreelEngineOptions;
use tickreel::record::EngineStats;

/// The generated entry points of `crate::api::engine` (engine, recorder, finish), also
/// reachable here.
pub use super::generated::engine::*;

// cbindgen emits a module's declarations after its parent's, submodules in `mod` order: these are
// in the order of `include/tickreel.h` (one per group, so that rustfmt does not sort them).
pub mod recorder;

mod finish;

pub mod shadow;

/// The recording runtime: writer thread(s) and a compaction worker, shared by every recording of
/// a server. Opaque: create with `tickreel_engine_new`, release with `tickreel_engine_free`
/// (which stops and joins its threads). The pointer is a handle, not an address.
pub struct TickreelEngine {
    _private: [u8; 0],
}

/// Engine-wide counters, as filled in by `tickreel_engine_stats`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickreelEngineStats {
    /// Recordings open (started, not yet finished, aborted or freed).
    pub active_recordings: usize,
    /// Messages waiting in the writers' queues, and ticks staged in the recordings' rings.
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
    /// `tickreel_engine_options_set_shadow_budget_bytes`.
    pub shadow_bytes: usize,
    /// Blocks the shadow buffers gave up for that budget.
    pub shadow_budget_dropped_blocks: u64,
    /// File-system syncs (`fsync`, `fdatasync`, `syncfs`) the engine's recordings made since it
    /// started: flushes (one group commit, two syncs, for every recording flushed together),
    /// compaction, publication, recovery.
    pub syncs: u64,
}

impl CResult for EngineStats {
    type C = TickreelEngineStats;
    fn into_c(self) -> FfiResult<TickreelEngineStats> {
        let s = self;
        Ok(TickreelEngineStats {
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
            syncs: s.syncs,
        })
    }
}

#[cfg(test)]
mod tests {
    //! Also the fixtures of the tests of [`recorder`](super::recorder) and
    //! [`finish`](super::finish).

    use super::recorder::*;
    use super::*;
    use crate::ffi::generated::engine_options::*;
    use crate::ffi::generated::recorder_options::*;
    use crate::ffi::options::TickreelRecorderOptions;
    use crate::ffi::result::TickreelResult;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    /// An engine with `options` (NULL: the defaults).
    pub(super) fn engine(options: *mut TickreelEngineOptions) -> *mut TickreelEngine {
        let mut e = std::ptr::null_mut();
        // SAFETY: `e` is writable.
        assert_eq!(unsafe { tickreel_engine_new(options, &mut e) }, OK);
        e
    }

    /// New recorder options (the defaults); the caller frees them.
    pub(super) fn recorder_options() -> *mut TickreelRecorderOptions {
        let mut o = std::ptr::null_mut();
        // SAFETY: `o` is writable.
        assert_eq!(unsafe { tickreel_recorder_options_new(&mut o) }, OK);
        o
    }

    pub(super) fn start(
        e: *mut TickreelEngine,
        path: &CString,
        o: *mut TickreelRecorderOptions,
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
        let mut eo = std::ptr::null_mut();
        // SAFETY: `eo` is writable.
        assert_eq!(unsafe { tickreel_engine_options_new(&mut eo) }, OK);
        assert_eq!(tickreel_engine_options_set_writer_threads(eo, 0), OK);
        // SAFETY: valid out-pointer.
        assert_eq!(
            unsafe { tickreel_engine_new(eo, &mut e) },
            TickreelResult::InvalidArgument
        );
        assert!(e.is_null());
        assert_eq!(tickreel_engine_options_free(eo), OK);
        let e = engine(std::ptr::null_mut());
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
        assert_eq!(
            crate::ffi::generated::pending::tickreel_pending_free(std::ptr::null_mut()),
            OK
        );
        assert_eq!(tickreel_engine_free(e), OK);
        // SAFETY: valid string and out-pointer; the engine handle is stale.
        let res =
            unsafe { tickreel_recorder_start(e, path.as_ptr(), std::ptr::null_mut(), &mut r) };
        assert_eq!(res, TickreelResult::InvalidHandle);
    }
}
