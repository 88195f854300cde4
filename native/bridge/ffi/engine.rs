//! The engine: the recording runtime (background writer and compaction threads, shared by every
//! recording of a server) behind `TickreelEngine`, its options and counters, and the calls on it.
//! A recording's options are a builder (`crate::api::recorder_options`), its calls in [`recorder`]
//! (`submit_tick` on the server thread: a copy and a queue push), and the tests of
//! `tickreel_recorder_finish` in [`finish`]. Shadow play (a stream kept in memory, reported into
//! a file) is in [`shadow`]; its options are builders too (`crate::api::shadow_options`,
//! `crate::api::report_options`).

pub use crate::ffi::options::TickreelEngineOptions;

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

#[cfg(test)]
mod tests {
    //! Also the fixtures of the tests of [`recorder`](super::recorder) and
    //! [`finish`](super::finish).

    use super::recorder::*;
    use super::*;
    use crate::ffi::generated::engine_options::*;
    use crate::ffi::generated::recorder_options::*;
    use crate::ffi::generated::records::*;
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
