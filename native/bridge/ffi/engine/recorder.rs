//! Recorders: one recording being written by an engine (`TickreelRecorder`), its counters, and
//! the calls on it from `tickreel_recorder_start` to `_finish` or `_abort`. `submit_tick` runs on
//! the server thread: a copy and a queue push.

//!
//! The operations are `crate::api::engine`; here are the recorder's C types and how its results
//! cross into C.

use crate::api::engine::Submission;
use crate::ffi::convert::CResult;
use crate::ffi::result::FfiResult;
use tickreel::record::Submitted;

/// One recording being written by an engine. Opaque: create with `tickreel_recorder_start`,
/// release with `tickreel_recorder_free`. The pointer is a handle, not an address.
pub struct TickreelRecorder {
    _private: [u8; 0],
}

/// C learns whether the tick was dropped (by the drop policy, or refused by backpressure) even
/// when the call fails.
impl CResult for Submission {
    type C = bool;
    fn into_c(self) -> FfiResult<bool> {
        match self.split() {
            (_, Err(e)) => Err(e),
            (v, Ok(())) => Ok(v.unwrap_or(false)),
        }
    }
    fn split(self) -> (Option<bool>, FfiResult<()>) {
        match self.0 {
            Ok(Submitted::Queued) => (Some(false), Ok(())),
            Ok(Submitted::Dropped) => (Some(true), Ok(())),
            Err(e @ tickreel::Error::Backpressure(_)) => (Some(true), Err(e.into())),
            Err(e) => (Some(false), Err(e.into())),
        }
    }
    fn on_failure() -> Option<bool> {
        Some(false)
    }
}

/// `(has_tick, tick)`: the last recorded tick of a resumed recording, if any.
impl CResult for Option<u32> {
    type C = (bool, u32);
    fn into_c(self) -> FfiResult<(bool, u32)> {
        Ok((self.is_some(), self.unwrap_or(0)))
    }
}

#[cfg(test)]
mod tests {
    use crate::ffi::engine::tests::{engine, recorder_options, start, stats};
    use crate::ffi::engine::*;
    use crate::ffi::generated::engine_options::*;
    use crate::ffi::generated::recorder_options::*;
    use crate::ffi::options::*;
    use crate::ffi::result::TickreelResult;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    fn last_message() -> String {
        let m = crate::ffi::result::tickreel_last_error_message();
        // SAFETY: the thread's last message: a NUL-terminated string valid until its next call.
        unsafe { std::ffi::CStr::from_ptr(m) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn malformed_batches_are_reported_by_status_and_a_freed_recorder_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let path = CString::new(dir.path().join("m.reel").to_str().unwrap()).unwrap();
        let e = engine(std::ptr::null_mut());
        let o = recorder_options();
        // Started again below: resumed, not set aside.
        assert_eq!(
            tickreel_recorder_options_set_on_existing(o, TICKREEL_ON_EXISTING_RESUME),
            OK
        );
        let r = start(e, &path, o);
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
            match unsafe { tickreel_recorder_start(e, path.as_ptr(), o, &mut r) } {
                OK => break r,
                // the writer thread may not have closed it yet
                TickreelResult::Locked => std::thread::yield_now(),
                other => panic!("{other:?}"),
            }
        };
        // Recovered on a thread of its own: where it ends is known once that is done.
        let (mut has, mut last) = (false, 0u32);
        // SAFETY: writable out-values.
        let res = unsafe { tickreel_recorder_wait_resumed(r, 30_000, &mut has, &mut last) };
        assert_eq!((res, has, last), (OK, true, 1));
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
        assert_eq!(tickreel_recorder_options_free(o), OK);
        assert_eq!(tickreel_engine_free(e), OK);
    }

    #[test]
    fn backpressure_drops_or_fails_by_policy() {
        use crate::api::engine::Engine;
        use crate::ffi::handle;
        let dir = tempfile::tempdir().unwrap();
        let mut eo = std::ptr::null_mut();
        // SAFETY: `eo` is writable.
        assert_eq!(unsafe { tickreel_engine_options_new(&mut eo) }, OK);
        assert_eq!(tickreel_engine_options_set_queue_capacity(eo, 2), OK);
        let tick = [0u8, 0];
        for (name, policy) in [
            ("drop.reel", TICKREEL_BACKPRESSURE_DROP),
            ("block.reel", TICKREEL_BACKPRESSURE_BLOCK),
        ] {
            // One engine each: starting a recording queues its opening, which waits while the
            // queue is full.
            let e = engine(eo);
            let obj = handle::get::<Engine>(e).unwrap();
            obj.with(|e| {
                e.set_writers_stalled(true);
                Ok(())
            })
            .unwrap();
            let path = CString::new(dir.path().join(name).to_str().unwrap()).unwrap();
            let o = recorder_options();
            assert_eq!(tickreel_recorder_options_set_backpressure(o, policy), OK);
            assert_eq!(tickreel_recorder_options_set_block_deadline(o, 1), OK);
            let r = start(e, &path, o);
            assert_eq!(tickreel_recorder_options_free(o), OK);
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
            obj.with(|e| {
                e.set_writers_stalled(false);
                Ok(())
            })
            .unwrap();
            assert_eq!(tickreel_recorder_free(r), OK);
            drop(obj);
            assert_eq!(tickreel_engine_free(e), OK);
        }
        assert_eq!(tickreel_engine_options_free(eo), OK);
    }

    #[test]
    fn bad_options_are_refused_by_their_setter_or_at_the_start() {
        let e = engine(std::ptr::null_mut());
        let path = c"x.reel";
        let o = recorder_options();
        // Out of the choices: the setter refuses, naming itself.
        assert_eq!(
            tickreel_recorder_options_set_backpressure(o, 7),
            TickreelResult::InvalidArgument
        );
        let msg = last_message();
        assert!(msg.contains("backpressure 7 is neither"), "{msg}");
        assert_eq!(
            tickreel_recorder_options_set_on_existing(o, 3),
            TickreelResult::InvalidArgument
        );
        assert_eq!(
            tickreel_recorder_options_set_dictionary_id(o, 70_000),
            TickreelResult::InvalidArgument
        );
        assert_eq!(tickreel_recorder_options_free(o), OK);
        // Out of the core's ranges: the core refuses at the start, naming the setter's option.
        type Setter = fn(*mut TickreelRecorderOptions) -> TickreelResult;
        let set: [(Setter, &str); 4] = [
            (
                |o| tickreel_recorder_options_set_zstd_level(o, 99),
                "zstd_level",
            ),
            (
                |o| tickreel_recorder_options_set_flush_interval(o, 0),
                "flush_interval",
            ),
            (
                |o| tickreel_recorder_options_set_compaction_chunk_ticks(o, 0),
                "compaction_chunk_ticks",
            ),
            (
                |o| tickreel_recorder_options_set_max_batch_bytes(o, 1),
                "max_batch_bytes",
            ),
        ];
        for (change, name) in set {
            let o = recorder_options();
            assert_eq!(change(o), OK);
            let mut r = std::ptr::null_mut();
            // SAFETY: valid string, options and out-pointer.
            let res = unsafe { tickreel_recorder_start(e, path.as_ptr(), o, &mut r) };
            assert_eq!(res, TickreelResult::InvalidArgument, "{name}");
            let msg = last_message();
            assert!(msg.contains(name), "{name}: {msg}");
            assert!(r.is_null());
            assert_eq!(tickreel_recorder_options_free(o), OK);
        }
        // A handle of another type where options are expected.
        let mut r = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer; the options handle is an engine's.
        let res = unsafe { tickreel_recorder_start(e, path.as_ptr(), e.cast(), &mut r) };
        assert_eq!(res, TickreelResult::InvalidHandle);
        assert_eq!(tickreel_engine_free(e), OK);
    }
}
