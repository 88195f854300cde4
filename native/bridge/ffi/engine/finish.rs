//! Tests of a recording's finish through C: the pending `tickreel_recorder_finish` returns
//! (`crate::ffi::pending`), and a playhead following a recording while it is written.

#[cfg(test)]
mod tests {
    use crate::ffi::TickreelUpdate;
    use crate::ffi::batch::*;
    use crate::ffi::engine::recorder::*;
    use crate::ffi::engine::tests::{engine, recorder_options, start, stats};
    use crate::ffi::engine::*;
    use crate::ffi::generated::pending::*;
    use crate::ffi::generated::playhead::*;
    use crate::ffi::generated::reader::*;
    use crate::ffi::generated::recorder_options::*;
    use crate::ffi::generated::records::*;
    use crate::ffi::reader::*;
    use crate::ffi::result::TickreelResult;
    use std::ffi::CString;
    use std::ffi::c_char;

    const OK: TickreelResult = TickreelResult::Ok;

    fn finish_and_wait(r: *mut TickreelRecorder) -> String {
        let mut f = std::ptr::null_mut();
        // SAFETY: `f` is writable.
        assert_eq!(unsafe { tickreel_recorder_finish(r, &mut f) }, OK);
        let mut done = false;
        // SAFETY: `done` is writable.
        assert_eq!(unsafe { tickreel_pending_wait(f, -1, &mut done) }, OK);
        assert!(done);
        let mut buf = [0 as c_char; 512];
        let mut len = 0;
        // SAFETY: `buf` has 512 writable bytes, `len` is writable.
        assert_eq!(
            unsafe { tickreel_pending_take_path(f, buf.as_mut_ptr(), buf.len(), &mut len) },
            OK
        );
        let mut tiny = [0 as c_char; 4];
        let mut len2 = 0;
        // SAFETY: `tiny` has 4 writable bytes.
        let got = unsafe { tickreel_pending_take_path(f, tiny.as_mut_ptr(), 4, &mut len2) };
        assert_eq!((got, len2), (TickreelResult::BufferTooSmall, len));
        assert_eq!(tickreel_pending_free(f), OK);
        // SAFETY: NUL-terminated by tickreel_pending_take_path.
        let s = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
        assert_eq!(s.to_bytes().len(), len);
        s.to_str().unwrap().to_owned()
    }

    /// Submits ticks `from..to` of one entity moving along x.
    fn submit(r: *mut TickreelRecorder, from: u32, to: u32) {
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        for t in from..to {
            assert_eq!(tickreel_batch_clear(b), OK);
            let x = f64::from(t) * 0.5;
            let res = if t == 0 {
                tickreel_batch_entity_add(b, 1, 7, x, 64.0, 0.0, 0.0, 0.0)
            } else {
                tickreel_batch_pose(b, 1, x, 64.0, 0.0, 0.0, 0.0)
            };
            assert_eq!(res, OK);
            // SAFETY: NULL out_dropped is allowed.
            let res = unsafe { tickreel_recorder_submit_batch(r, t, b, std::ptr::null_mut()) };
            assert_eq!(res, OK);
        }
        assert_eq!(tickreel_batch_free(b), OK);
    }

    #[test]
    fn a_playhead_follows_a_recording_being_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = CString::new(dir.path().join("f.reel").to_str().unwrap()).unwrap();
        let e = engine(std::ptr::null_mut());
        let o = recorder_options();
        let r = start(e, &path, o);
        assert_eq!(tickreel_recorder_options_free(o), OK);
        submit(r, 0, 10);
        assert_eq!(tickreel_recorder_flush(r), OK);
        let mut p = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        assert_eq!(
            unsafe { tickreel_playhead_follow(path.as_ptr(), 0, &mut p) },
            OK
        );
        let mut u = TickreelUpdate::default();
        // SAFETY: `u` is writable.
        assert_eq!(unsafe { tickreel_playhead_current(p, &mut u) }, OK);
        assert_eq!((u.position, u.entity_count, u.waiting), (0, 1, false));
        // Ticks written after the playhead was made reach it: play to the live edge.
        submit(r, 10, 20);
        assert_eq!(tickreel_recorder_flush(r), OK);
        assert_eq!(tickreel_playhead_play(p), OK);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while u.position < 19 && std::time::Instant::now() < deadline {
            assert_eq!(tickreel_playhead_prepare(p), OK);
            // SAFETY: `u` is writable.
            assert_eq!(unsafe { tickreel_playhead_advance(p, &mut u) }, OK);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(
            u.position, 19,
            "the playhead followed the recording to its last flushed tick"
        );
        assert_eq!(tickreel_playhead_free(p), OK);
        assert_eq!(tickreel_recorder_abort(r), OK);
        assert_eq!(tickreel_recorder_free(r), OK);
        assert_eq!(tickreel_engine_free(e), OK);
    }

    #[test]
    fn records_through_the_engine_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = CString::new(dir.path().join("e.reel").to_str().unwrap()).unwrap();
        let e = engine(std::ptr::null_mut());
        let o = recorder_options();
        assert_eq!(tickreel_recorder_options_set_chunk_ticks(o, 10), OK);
        assert_eq!(
            tickreel_recorder_options_set_compaction_chunk_ticks(o, 10),
            OK
        );
        let r = start(e, &path, o);
        assert_eq!(tickreel_recorder_options_free(o), OK);
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        for t in 0..50u32 {
            assert_eq!(tickreel_batch_clear(b), OK);
            let x = f64::from(t) * 0.5;
            let res = if t == 0 {
                tickreel_batch_entity_add(b, 1, 7, x, 64.0, 0.0, 0.0, 0.0)
            } else {
                tickreel_batch_pose(b, 1, x, 64.0, 0.0, 0.0, 0.0)
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
        // A reader opens the live directory too: what was flushed so far.
        let live = CString::new(format!("{}.live", path.to_str().unwrap())).unwrap();
        let mut rd = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        assert_eq!(unsafe { tickreel_reader_open(live.as_ptr(), &mut rd) }, OK);
        let (mut first, mut last) = (u32::MAX, 0);
        // SAFETY: writable locals.
        unsafe {
            assert_eq!(tickreel_reader_first_tick(rd, &mut first), OK);
            assert_eq!(tickreel_reader_last_tick(rd, &mut last), OK);
        }
        assert_eq!((first, last), (0, 49));
        assert_eq!(tickreel_reader_free(rd), OK);
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
        // Flushes and compaction made durable: at least the group commit of the flush and the
        // compacted file's sync.
        assert!(es.syncs >= 2, "{es:?}");
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
