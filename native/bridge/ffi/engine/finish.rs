//! Finish handles: the completion of a finished recording's compaction into its final `.reel`
//! file (`TickreelFinish`, returned by `tickreel_recorder_finish`), polled, waited on and freed.

use std::ffi::c_char;

use crate::ffi::args::{Out, OutArray};
use crate::ffi::handle::{self, HandleType};
use crate::ffi::result::{FfiError, FfiResult, TickreelResult, guard};
use tickreel::record::FinishHandle;

/// The completion of a finished recording's compaction into its final `.reel` file, or of a
/// shadow report's file. Opaque: returned by `tickreel_recorder_finish` and
/// `tickreel_shadow_report`, released with `tickreel_finish_free`.
pub struct TickreelFinish {
    _private: [u8; 0],
}

/// The object behind a finish handle.
pub(crate) struct FinishObj {
    pub(super) handle: FinishHandle,
}

impl HandleType for FinishObj {
    type Opaque = TickreelFinish;
    const TAG: u8 = 6;
    const NAME: &'static str = "finish";
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
    use crate::ffi::engine::recorder::*;
    use crate::ffi::engine::tests::{engine, recorder_options, start, stats};
    use crate::ffi::engine::{TickreelEngineStats, tickreel_engine_free, tickreel_engine_stats};
    use crate::ffi::generated::reader::*;
    use crate::ffi::reader::*;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

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
}
