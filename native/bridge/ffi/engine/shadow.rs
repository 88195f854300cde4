//! Shadow play: a stream kept in memory (`TickreelShadowBuffer`), started by `tickreel_shadow_buffer_start`
//! together with the recorder that feeds it, reported into `.reel` files by
//! `tickreel_shadow_buffer_report` (whose completion is a `TickreelPending`, as a recorder's finish), its
//! counters and its release. Every behaviour is the core's [`ShadowBuffer`].

use super::recorder::TickreelRecorder;
use crate::api::engine::Recorder;
use crate::api::shadow::Started;
use crate::ffi::convert::CResult;
use crate::ffi::handle;
use crate::ffi::result::FfiResult;

/// A shadow buffer: the last minutes of one stream of ticks (a world), kept in memory and turned
/// into a `.reel` file around a player by `tickreel_shadow_buffer_report`. Opaque: create with
/// `tickreel_shadow_buffer_start`, release with `tickreel_shadow_buffer_free`. The pointer is a handle, not an
/// address.
pub struct TickreelShadowBuffer {
    _private: [u8; 0],
}

/// Both handles or neither: the recorder's handle is freed again (ending the stream) if the
/// shadow's cannot be made.
impl CResult for Started {
    type C = (*mut TickreelRecorder, *mut TickreelShadowBuffer);
    fn into_c(self) -> FfiResult<Self::C> {
        let r = handle::insert(self.recorder)?;
        match handle::insert(self.shadow) {
            Ok(s) => Ok((r, s)),
            Err(e) => {
                drop(handle::remove::<Recorder>(r));
                Err(e)
            }
        }
    }
    fn on_failure() -> Option<Self::C> {
        Some((std::ptr::null_mut(), std::ptr::null_mut()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::batch::*;
    use crate::ffi::engine::tests::{engine, recorder_options};
    use crate::ffi::engine::*;
    use crate::ffi::generated::pending::*;
    use crate::ffi::generated::reader::*;
    use crate::ffi::generated::records::*;
    use crate::ffi::generated::report_options::*;
    use crate::ffi::generated::shadow::*;
    use crate::ffi::generated::shadow_options::*;
    use crate::ffi::options::*;
    use crate::ffi::pending::TickreelPending;
    use crate::ffi::result::TickreelResult;
    use crate::ffi::{TICKREEL_CHANNEL_PRIVATE, TICKREEL_CHANNEL_PUBLIC};
    use std::ffi::{CStr, CString};

    const OK: TickreelResult = TickreelResult::Ok;

    fn last_message() -> String {
        let m = crate::ffi::result::tickreel_last_error_message();
        // SAFETY: the thread's last message: a NUL-terminated string valid until its next call.
        unsafe { CStr::from_ptr(m) }.to_string_lossy().into_owned()
    }

    fn shadow_options() -> *mut TickreelShadowOptions {
        let mut o = std::ptr::null_mut();
        // SAFETY: `o` is writable.
        assert_eq!(unsafe { tickreel_shadow_options_new(&mut o) }, OK);
        o
    }

    fn report_options() -> *mut TickreelReportOptions {
        let mut o = std::ptr::null_mut();
        // SAFETY: `o` is writable.
        assert_eq!(unsafe { tickreel_report_options_new(&mut o) }, OK);
        o
    }

    fn start(
        e: *mut TickreelEngine,
        path: Option<&CStr>,
        o: *mut TickreelShadowOptions,
    ) -> (*mut TickreelRecorder, *mut TickreelShadowBuffer) {
        let (mut r, mut s) = (std::ptr::null_mut(), std::ptr::null_mut());
        let p = path.map_or(std::ptr::null(), CStr::as_ptr);
        // SAFETY: `p` is NULL or a valid string; valid options and out-pointers.
        let res =
            unsafe { tickreel_shadow_buffer_start(e, p, std::ptr::null_mut(), o, &mut r, &mut s) };
        assert_eq!(res, OK);
        (r, s)
    }

    /// Ticks `from..to` of two entities walking side by side (1 and 2) and one far away (3).
    fn submit(r: *mut TickreelRecorder, from: u32, to: u32) {
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        for t in from..to {
            assert_eq!(tickreel_batch_clear(b), OK);
            for (id, z) in [(1, 0.0), (2, 3.0), (3, 500.0)] {
                let x = f64::from(t) * 0.1;
                let res = if t == 0 {
                    tickreel_batch_entity_add(b, id, 1, x, 64.0, z, 0.0, 0.0)
                } else {
                    tickreel_batch_pose(b, id, x, 64.0, z, 0.0, 0.0)
                };
                assert_eq!(res, OK);
            }
            // SAFETY: no out-pointer.
            let res = unsafe { tickreel_recorder_submit_batch(r, t, b, std::ptr::null_mut()) };
            assert_eq!(res, OK);
        }
        assert_eq!(tickreel_batch_free(b), OK);
    }

    fn report(
        s: *mut TickreelShadowBuffer,
        player: u32,
        path: &CStr,
        o: *mut TickreelReportOptions,
        meta: &[(&CStr, &CStr)],
    ) -> (TickreelResult, *mut TickreelPending) {
        let keys: Vec<_> = meta.iter().map(|(k, _)| k.as_ptr()).collect();
        let values: Vec<_> = meta.iter().map(|(_, v)| v.as_ptr()).collect();
        let mut f = std::ptr::null_mut();
        // SAFETY: valid string, options, arrays of `meta.len()` strings and out-pointer.
        let res = unsafe {
            tickreel_shadow_buffer_report(
                s,
                player,
                path.as_ptr(),
                o,
                keys.as_ptr(),
                values.as_ptr(),
                meta.len(),
                &mut f,
            )
        };
        (res, f)
    }

    fn wait(f: *mut TickreelPending) -> TickreelResult {
        let mut done = false;
        // SAFETY: `done` is writable.
        let res = unsafe { tickreel_pending_wait(f, -1, &mut done) };
        assert!(done);
        assert_eq!(tickreel_pending_free(f), OK);
        res
    }

    fn ticks_of(path: &CStr) -> (u32, u32, usize) {
        let mut rd = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        assert_eq!(unsafe { tickreel_reader_open(path.as_ptr(), &mut rd) }, OK);
        let (mut first, mut last, mut n) = (0, 0, 0);
        // SAFETY: writable out-values; capacity 0 is a size query.
        unsafe {
            assert_eq!(tickreel_reader_first_tick(rd, &mut first), OK);
            assert_eq!(tickreel_reader_last_tick(rd, &mut last), OK);
            tickreel_reader_seek(
                rd,
                last,
                std::ptr::null_mut(),
                0,
                &mut n,
                std::ptr::null_mut(),
            );
        }
        assert_eq!(tickreel_reader_free(rd), OK);
        (first, last, n)
    }

    #[test]
    fn a_shadow_only_stream_reports_the_window_around_a_player() {
        let dir = tempfile::tempdir().unwrap();
        let e = engine(std::ptr::null_mut());
        let o = shadow_options();
        // 200 ticks at 20 ticks/s.
        assert_eq!(tickreel_shadow_options_set_window(o, 10_000), OK);
        assert_eq!(tickreel_shadow_options_set_block_ticks(o, 20), OK);
        let (r, s) = start(e, None, o);
        assert_eq!(tickreel_shadow_options_free(o), OK);
        submit(r, 0, 300);
        assert_eq!(tickreel_recorder_flush(r), OK);
        let mut st = TickreelShadowStats::default();
        // SAFETY: `st` is writable.
        assert_eq!(unsafe { tickreel_shadow_buffer_stats(s, &mut st) }, OK);
        assert!(st.has_last_tick && st.last_tick == 299, "{st:?}");
        assert_eq!(st.alive_entities, 3);
        let mut es = TickreelEngineStats::default();
        // SAFETY: `es` is writable.
        assert_eq!(unsafe { tickreel_engine_stats(e, &mut es) }, OK);
        assert_eq!(es.shadow_bytes, st.bytes);

        let ro = report_options();
        assert_eq!(tickreel_report_options_set_after(ro, 0), OK);
        let near = CString::new(dir.path().join("near.reel").to_str().unwrap()).unwrap();
        let (res, f) = report(s, 1, &near, ro, &[(c"reason", c"fly")]);
        assert_eq!(res, OK);
        assert_eq!(wait(f), OK);
        // Entities 1 and 2 (within 48 blocks), not 3.
        assert_eq!(ticks_of(&near), (100, 299, 2));
        assert_eq!(tickreel_report_options_set_every_entity(ro, true), OK);
        let all = CString::new(dir.path().join("all.reel").to_str().unwrap()).unwrap();
        let (res, f) = report(s, 1, &all, ro, &[]);
        assert_eq!((res, wait(f)), (OK, OK));
        assert_eq!(ticks_of(&all), (100, 299, 3));

        // Nothing to finish; freeing the recorder ends the stream, the shadow still reports.
        let mut f = std::ptr::null_mut();
        // SAFETY: `f` is writable.
        let res = unsafe { tickreel_recorder_finish(r, &mut f) };
        assert_eq!((res, f.is_null()), (TickreelResult::InvalidState, true));
        assert_eq!(tickreel_recorder_free(r), OK);
        let mut attached = true;
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::time::Instant::now() < until {
            // SAFETY: `attached` is writable.
            assert_eq!(
                unsafe { tickreel_shadow_buffer_attached(s, &mut attached) },
                OK
            );
            if !attached {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        assert!(!attached, "the stream ended");
        let late = CString::new(dir.path().join("late.reel").to_str().unwrap()).unwrap();
        let (res, f) = report(s, 2, &late, ro, &[]);
        assert_eq!((res, wait(f)), (OK, OK));
        assert_eq!(ticks_of(&late).1, 299);
        assert_eq!(tickreel_report_options_free(ro), OK);
        assert_eq!(tickreel_shadow_buffer_free(s), OK);
        assert_eq!(
            tickreel_shadow_buffer_free(s),
            TickreelResult::InvalidHandle
        );
        assert_eq!(tickreel_engine_free(e), OK);
    }

    #[test]
    fn a_recording_is_shadowed_and_bad_reports_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = engine(std::ptr::null_mut());
        let path = CString::new(dir.path().join("rec.reel").to_str().unwrap()).unwrap();
        let (mut r, mut s) = (std::ptr::null_mut(), std::ptr::null_mut());
        let o = shadow_options();
        assert_eq!(tickreel_shadow_options_set_window(o, 0), OK);
        // SAFETY: valid string, options and out-pointers.
        let res = unsafe {
            tickreel_shadow_buffer_start(e, path.as_ptr(), std::ptr::null_mut(), o, &mut r, &mut s)
        };
        assert_eq!(res, TickreelResult::InvalidArgument);
        assert!(r.is_null() && s.is_null());
        assert_eq!(tickreel_shadow_options_free(o), OK);
        let ro = recorder_options();
        assert_eq!(
            crate::ffi::generated::recorder_options::tickreel_recorder_options_set_chunk_ticks(
                ro, 25
            ),
            OK
        );
        let o = shadow_options();
        // SAFETY: as above.
        let res = unsafe { tickreel_shadow_buffer_start(e, path.as_ptr(), ro, o, &mut r, &mut s) };
        assert_eq!(res, OK);
        assert_eq!(
            crate::ffi::generated::recorder_options::tickreel_recorder_options_free(ro),
            OK
        );
        let out = CString::new(dir.path().join("r.reel").to_str().unwrap()).unwrap();
        let rep = report_options();
        assert_eq!(tickreel_report_options_set_after(rep, 0), OK);
        // Before the first tick.
        let (res, f) = report(s, 1, &out, rep, &[]);
        assert_eq!((res, f.is_null()), (TickreelResult::InvalidState, true));
        submit(r, 0, 100);
        assert_eq!(tickreel_recorder_flush(r), OK);
        assert_eq!(
            report(s, 9, &out, rep, &[]).0,
            TickreelResult::InvalidArgument
        );
        let bad = report_options();
        for radius in [f64::NAN, -1.0, f64::INFINITY] {
            assert_eq!(tickreel_report_options_set_radius(bad, radius), OK);
            assert_eq!(
                report(s, 1, &out, bad, &[]).0,
                TickreelResult::InvalidArgument
            );
            assert!(last_message().contains("the context radius must be a finite number"));
        }
        // Every entity: the radius set before no longer applies.
        assert_eq!(tickreel_report_options_set_every_entity(bad, true), OK);
        assert_eq!(tickreel_report_options_set_before(bad, 86_400_001), OK);
        assert_eq!(
            report(s, 1, &out, bad, &[]).0,
            TickreelResult::InvalidArgument
        );
        let msg = last_message();
        assert!(msg.contains("before and after are at most a day"), "{msg}");
        assert_eq!(tickreel_report_options_free(bad), OK);
        // A handle of another type where report options are expected.
        assert_eq!(
            report(s, 1, &out, o.cast(), &[]).0,
            TickreelResult::InvalidHandle
        );
        let (res, _) = report(s, 1, &out, rep, &[(c"player", c"x")]);
        assert_eq!(res, TickreelResult::InvalidArgument);
        let mut f = std::ptr::null_mut();
        let keys = [c"k".as_ptr()];
        // SAFETY: `values` is NULL with a count of 1: refused before it is read.
        let res = unsafe {
            tickreel_shadow_buffer_report(
                s,
                1,
                out.as_ptr(),
                rep,
                keys.as_ptr(),
                std::ptr::null(),
                1,
                &mut f,
            )
        };
        assert_eq!(res, TickreelResult::NullArgument);
        let (res, f) = report(s, 1, &out, rep, &[(c"k", c"v")]);
        assert_eq!((res, wait(f)), (OK, OK));
        assert_eq!(ticks_of(&out), (0, 99, 2));
        // The recording itself finishes as any.
        let mut f = std::ptr::null_mut();
        // SAFETY: `f` is writable.
        assert_eq!(unsafe { tickreel_recorder_finish(r, &mut f) }, OK);
        assert_eq!(wait(f), OK);
        assert_eq!(ticks_of(&path), (0, 99, 3));
        assert_eq!(tickreel_recorder_free(r), OK);
        // A freed engine: a report after the shutdown is refused; no start.
        assert_eq!(tickreel_engine_free(e), OK);
        let late = CString::new(dir.path().join("late.reel").to_str().unwrap()).unwrap();
        let (res, f) = report(s, 1, &late, rep, &[]);
        assert_eq!(tickreel_report_options_free(rep), OK);
        assert_eq!(res, TickreelResult::InvalidState);
        assert!(f.is_null());
        assert!(!dir.path().join("late.reel").exists());
        let (mut r2, mut s2) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: valid out-pointers.
        let res = unsafe {
            tickreel_shadow_buffer_start(
                e,
                std::ptr::null(),
                std::ptr::null_mut(),
                o,
                &mut r2,
                &mut s2,
            )
        };
        assert_eq!(res, TickreelResult::InvalidHandle);
        assert!(r2.is_null() && s2.is_null());
        assert_eq!(tickreel_shadow_options_free(o), OK);
        assert_eq!(tickreel_shadow_buffer_free(s), OK);
        let mut st = TickreelShadowStats::default();
        // SAFETY: `st` is writable.
        let res = unsafe { tickreel_shadow_buffer_stats(s, &mut st) };
        assert_eq!(res, TickreelResult::InvalidHandle);
    }

    // ---- Reports by UUID and what they keep (world-bindings) ----

    /// Chat lines: sender and text.
    type ChatLines = Vec<(Option<u32>, String)>;

    /// Chat lines and block changes (x, z) a report file holds.
    fn world_of(path: &CStr) -> (ChatLines, Vec<(i32, i32)>) {
        let reader =
            tickreel::play::Reader::open_any(std::path::Path::new(path.to_str().unwrap())).unwrap();
        let (first, last) = (reader.first_tick().unwrap(), reader.last_tick().unwrap());
        let (mut chat, mut blocks) = (Vec::new(), Vec::new());
        for t in reader.ticks(first, last) {
            for e in t.unwrap().events {
                match e {
                    tickreel::format::Event::Chat { sender, text, .. } => chat.push((sender, text)),
                    tickreel::format::Event::BlockChange { pos, .. } => blocks.push((pos.x, pos.z)),
                    _ => {}
                }
            }
        }
        (chat, blocks)
    }

    #[test]
    fn a_report_by_uuid_keeps_near_chat_and_blocks_unless_asked_for_more() {
        let dir = tempfile::tempdir().unwrap();
        let e = engine(std::ptr::null_mut());
        let o = shadow_options();
        assert_eq!(tickreel_shadow_options_set_block_ticks(o, 20), OK);
        let (r, s) = start(e, None, o);
        assert_eq!(tickreel_shadow_options_free(o), OK);
        let uuid = *b"0123456789abcdef";
        let name = CString::new("Steve").unwrap();
        // SAFETY: 16 readable bytes and a valid string.
        let res =
            unsafe { tickreel_recorder_register_entity(r, 1, 1, uuid.as_ptr(), name.as_ptr()) };
        assert_eq!(res, OK);
        submit(r, 0, 40);
        // Entity 1 (the player, at z 0) writes privately and breaks a block beside it; entity 3,
        // 500 blocks away, says something in public and breaks a block there.
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        let (mine, far) = (c"mine", c"far away");
        // SAFETY: valid strings; no block entity.
        unsafe {
            assert_eq!(tickreel_batch_pose(b, 1, 4.0, 64.0, 0.0, 0.0, 0.0), OK);
            assert_eq!(tickreel_batch_pose(b, 3, 4.0, 64.0, 500.0, 0.0, 0.0), OK);
            assert_eq!(
                tickreel_batch_chat(b, true, 1, TICKREEL_CHANNEL_PRIVATE, mine.as_ptr()),
                OK
            );
            assert_eq!(
                tickreel_batch_chat(b, true, 3, TICKREEL_CHANNEL_PUBLIC, far.as_ptr()),
                OK
            );
            let none = std::ptr::null();
            assert_eq!(
                tickreel_batch_block_change(b, 5, 63, 1, 7, true, 1, none, 0),
                OK
            );
            assert_eq!(
                tickreel_batch_block_change(b, 5, 63, 500, 8, true, 3, none, 0),
                OK
            );
            // SAFETY: no out-pointer.
            assert_eq!(
                tickreel_recorder_submit_batch(r, 40, b, std::ptr::null_mut()),
                OK
            );
        }
        assert_eq!(tickreel_batch_free(b), OK);
        submit(r, 41, 60);
        assert_eq!(tickreel_recorder_flush(r), OK);

        let report_uuid = |path: &CStr, o: *mut TickreelReportOptions, uuid: *const u8| {
            let mut f = std::ptr::null_mut();
            // SAFETY: `uuid` is NULL or 16 readable bytes; valid string, options, out-pointer.
            let res = unsafe {
                tickreel_shadow_buffer_report_uuid(
                    s,
                    uuid,
                    path.as_ptr(),
                    o,
                    std::ptr::null(),
                    std::ptr::null(),
                    0,
                    &mut f,
                )
            };
            (res, f)
        };
        let ro = report_options();
        assert_eq!(tickreel_report_options_set_after(ro, 0), OK);
        let near = CString::new(dir.path().join("near.reel").to_str().unwrap()).unwrap();
        let (res, f) = report_uuid(&near, ro, uuid.as_ptr());
        assert_eq!((res, wait(f)), (OK, OK));
        let (chat, blocks) = world_of(&near);
        assert_eq!(
            chat,
            vec![(Some(1), "mine".to_owned())],
            "no chat of a far player"
        );
        assert_eq!(blocks, vec![(5, 1)], "no block change out of the radius");

        assert_eq!(tickreel_report_options_set_keep_all_blocks(ro, true), OK);
        assert_eq!(
            tickreel_report_options_set_chat(ro, TICKREEL_REPORT_CHAT_ALL),
            OK
        );
        let all = CString::new(dir.path().join("all.reel").to_str().unwrap()).unwrap();
        let (res, f) = report_uuid(&all, ro, uuid.as_ptr());
        assert_eq!((res, wait(f)), (OK, OK));
        let (chat, blocks) = world_of(&all);
        assert_eq!(chat.len(), 2, "{chat:?}");
        assert_eq!(blocks, vec![(5, 1), (5, 500)]);

        // A UUID nobody has, no UUID: refused at once; an unknown chat code: by its setter.
        let other = *b"fedcba9876543210";
        let none = CString::new(dir.path().join("none.reel").to_str().unwrap()).unwrap();
        let (res, f) = report_uuid(&none, ro, other.as_ptr());
        assert_eq!((res, f.is_null()), (TickreelResult::InvalidArgument, true));
        let (res, f) = report_uuid(&none, ro, std::ptr::null());
        assert_eq!((res, f.is_null()), (TickreelResult::InvalidArgument, true));
        assert_eq!(
            tickreel_report_options_set_chat(ro, 9),
            TickreelResult::InvalidArgument
        );
        let msg = last_message();
        assert!(
            msg.contains("chat 9 is none of TICKREEL_REPORT_CHAT_NEAR (0)"),
            "{msg}"
        );
        assert_eq!(tickreel_report_options_free(ro), OK);

        assert_eq!(tickreel_recorder_free(r), OK);
        assert_eq!(tickreel_shadow_buffer_free(s), OK);
        assert_eq!(tickreel_engine_free(e), OK);
    }
}
