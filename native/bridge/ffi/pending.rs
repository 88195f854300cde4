//! Results that come later (`crate::api::pending`, whose entry points are generated): the C type
//! of a pending (a poll crosses as `crate::api::pending::Ended`, see `crate::ffi::convert`).

/// Work running on a background thread and its result, later: a recording's finish, a report, a
/// finish followed by its upload, a ghost load, a catalog call. Opaque: returned by those calls,
/// polled with `tickreel_pending_poll`, waited on with `tickreel_pending_wait`, its result read
/// with the take of its kind (`tickreel_pending_take_path`, `_take_upload`, `_take_rows`,
/// `_take_ghost`, `_take_ghost_set`), released with `tickreel_pending_free`.
pub struct TickreelPending {
    _private: [u8; 0],
}

#[cfg(test)]
mod tests {
    use std::ffi::{CStr, c_char};
    use std::time::{Duration, Instant};

    use super::TickreelPending;
    use crate::api::New;
    use crate::api::pending::Pending;
    use crate::ffi::generated::ghost::*;
    use crate::ffi::generated::pending::*;
    use crate::ffi::generated::records::TickreelGhostInfo;
    use crate::ffi::ghost::record;
    use crate::ffi::ghost::{TICKREEL_GHOST_BOUND_CHECKPOINT, TickreelGhostRange};
    use crate::ffi::result::{TickreelResult, tickreel_last_error_message};
    use tickreel::Pose;
    use tickreel::ghost::GhostTrack;

    const OK: TickreelResult = TickreelResult::Ok;

    fn insert(p: New<Pending>) -> *mut TickreelPending {
        crate::ffi::handle::insert(p.0).unwrap()
    }

    fn track() -> GhostTrack {
        let poses: Vec<_> = (0..20u32)
            .map(|t| (t, Pose::from_f64(f64::from(t), 64.0, 0.0, 0.0, 0.0)))
            .collect();
        GhostTrack::from_poses(20.0, &poses, &[]).unwrap()
    }

    fn last_error() -> String {
        // SAFETY: the library's own NUL-terminated message for this thread.
        unsafe { CStr::from_ptr(tickreel_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    /// `(result, ready)` of a poll.
    fn poll(p: *mut TickreelPending) -> (TickreelResult, bool) {
        let mut ready = false;
        // SAFETY: `ready` is writable.
        let r = unsafe { tickreel_pending_poll(p, &mut ready) };
        (r, ready)
    }

    /// `(result, ready)` of a wait of `ms` milliseconds (negative: no limit).
    fn wait(p: *mut TickreelPending, ms: i64) -> (TickreelResult, bool) {
        let mut ready = false;
        // SAFETY: `ready` is writable.
        let r = unsafe { tickreel_pending_wait(p, ms, &mut ready) };
        (r, ready)
    }

    fn take_ghost(p: *mut TickreelPending) -> (TickreelResult, *mut crate::ffi::TickreelGhost) {
        let mut g = std::ptr::null_mut();
        // SAFETY: `g` is writable.
        let r = unsafe { tickreel_pending_take_ghost(p, &mut g) };
        (r, g)
    }

    #[test]
    fn a_ghost_load_is_waited_for_and_taken_and_reports_its_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = record(dir.path());
        let mut p = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer; NULL range.
        let got = unsafe { tickreel_ghost_load_async(path.as_ptr(), 2, std::ptr::null(), &mut p) };
        assert_eq!(got, OK);
        assert_eq!(wait(p, -1), (OK, true));
        assert_eq!(poll(p), (OK, true));
        // A take may be repeated: a new handle to the same ghost each time.
        let (r1, g1) = take_ghost(p);
        let (r2, g2) = take_ghost(p);
        assert_eq!((r1, r2), (OK, OK));
        assert_ne!(g1, g2);
        let mut info = TickreelGhostInfo::default();
        // SAFETY: `info` is writable.
        assert_eq!(unsafe { tickreel_ghost_info(g2, &mut info) }, OK);
        assert_eq!((info.entity, info.origin_tick), (2, 100));
        assert_eq!(tickreel_ghost_free(g1), OK);
        assert_eq!(tickreel_ghost_free(g2), OK);
        // A take of another kind says which kind the pending holds.
        let mut buf = [0 as c_char; 64];
        // SAFETY: `buf` has 64 writable bytes; NULL out_len.
        let r = unsafe {
            tickreel_pending_take_path(p, buf.as_mut_ptr(), buf.len(), std::ptr::null_mut())
        };
        assert_eq!(r, TickreelResult::InvalidState);
        let e = last_error();
        assert!(
            e.contains("holds a ghost") && e.contains("not a path"),
            "{e}"
        );
        assert_eq!(tickreel_pending_free(p), OK);
        assert_eq!(tickreel_pending_free(p), TickreelResult::InvalidHandle);

        // A checkpoint the entity never reached: the failure is the poll's result, and the take's.
        let range = TickreelGhostRange {
            end_kind: TICKREEL_GHOST_BOUND_CHECKPOINT,
            end_value: 9,
            ..Default::default()
        };
        // SAFETY: valid string, range and out-pointer.
        let got = unsafe { tickreel_ghost_load_async(path.as_ptr(), 1, &range, &mut p) };
        assert_eq!(got, OK);
        loop {
            match poll(p) {
                (OK, false) => std::thread::yield_now(),
                got => {
                    assert_eq!(got, (TickreelResult::InvalidArgument, true));
                    break;
                }
            }
        }
        assert_eq!(wait(p, 0), (TickreelResult::InvalidArgument, true));
        let (r, g) = take_ghost(p);
        assert_eq!((r, g.is_null()), (TickreelResult::InvalidArgument, true));
        assert_eq!(tickreel_pending_free(p), OK);
    }

    #[test]
    fn a_wait_gives_up_at_its_limit_and_a_poll_never_waits_behind_a_wait() {
        let (tx, work) = tickreel::Pending::<GhostTrack>::channel("test load");
        let p = insert(Pending::ghost(work));
        assert_eq!(poll(p), (OK, false));
        let (r, g) = take_ghost(p);
        assert_eq!((r, g.is_null()), (TickreelResult::NotReady, true));
        let t0 = Instant::now();
        assert_eq!(wait(p, 30), (OK, false));
        assert!(t0.elapsed() >= Duration::from_millis(30));
        let token = p as usize;
        let waiter = std::thread::spawn(move || wait(token as *mut TickreelPending, -1));
        std::thread::sleep(Duration::from_millis(30));
        let t0 = Instant::now();
        assert_eq!(poll(p), (OK, false));
        assert!(
            t0.elapsed() < Duration::from_millis(20),
            "the poll waited for the lock"
        );
        tx.send(Ok(track())).unwrap();
        assert_eq!(waiter.join().unwrap(), (OK, true));
        let (r, g) = take_ghost(p);
        assert_eq!(r, OK);
        assert_eq!(tickreel_ghost_free(g), OK);
        assert_eq!(tickreel_pending_free(p), OK);
    }

    #[test]
    fn a_limit_too_far_to_represent_is_no_limit() {
        let (tx, work) = tickreel::Pending::<GhostTrack>::channel("test load");
        let p = std::sync::Arc::new(Pending::ghost(work).0);
        let waiter = {
            let p = p.clone();
            std::thread::spawn(move || p.wait(Some(Duration::MAX)).is_some())
        };
        std::thread::sleep(Duration::from_millis(30));
        assert!(!waiter.is_finished(), "the wait gave up at once");
        tx.send(Ok(track())).unwrap();
        assert!(waiter.join().unwrap());
    }

    #[test]
    fn a_pending_freed_before_its_work_ends_is_dropped_at_once() {
        for kind in 0..2 {
            let (tx, work) = tickreel::Pending::<std::path::PathBuf>::channel("test finish");
            let (tg, load) = tickreel::Pending::<GhostTrack>::channel("test load");
            let p = match kind {
                0 => insert(Pending::path(work)),
                _ => insert(Pending::ghost(load)),
            };
            assert_eq!(poll(p), (OK, false));
            let t0 = Instant::now();
            assert_eq!(tickreel_pending_free(p), OK);
            assert!(t0.elapsed() < Duration::from_millis(100));
            // Nobody holds the result any more: the work's send says so.
            match kind {
                0 => assert!(tx.send(Ok("x".into())).is_err()),
                _ => assert!(tg.send(Ok(track())).is_err()),
            }
        }
    }

    #[cfg(feature = "catalog")]
    #[test]
    fn a_ghost_set_lookup_ends_when_its_last_load_does() {
        use crate::ffi::generated::catalog::tickreel_pending_take_ghost_set;
        type Loads = Vec<tickreel::Pending<GhostTrack>>;
        let (tx, lookup) = tickreel::Pending::<Loads>::channel("test lookup");
        let (t1, l1) = tickreel::Pending::<GhostTrack>::channel("test load 1");
        let (t2, l2) = tickreel::Pending::<GhostTrack>::channel("test load 2");
        let p = insert(Pending::ghosts_lookup(lookup));
        assert_eq!(poll(p), (OK, false));
        tx.send(Ok(vec![l1, l2])).unwrap();
        assert_eq!(poll(p), (OK, false));
        t2.send(Ok(track())).unwrap();
        assert_eq!(poll(p), (OK, false), "the first load still runs");
        let token = p as usize;
        let waiter = std::thread::spawn(move || wait(token as *mut TickreelPending, -1));
        std::thread::sleep(Duration::from_millis(20));
        t1.send(Ok(track())).unwrap();
        assert_eq!(waiter.join().unwrap(), (OK, true));
        let mut set = std::ptr::null_mut();
        // SAFETY: `set` is writable.
        assert_eq!(unsafe { tickreel_pending_take_ghost_set(p, &mut set) }, OK);
        let mut n = 0;
        // SAFETY: `n` is writable.
        assert_eq!(unsafe { tickreel_ghost_set_len(set, &mut n) }, OK);
        assert_eq!(n, 2);
        assert_eq!(tickreel_ghost_set_free(set), OK);
        // Rows of a ghost set: another kind.
        let mut rows = [0u8; 8];
        let mut count = 0;
        // SAFETY: `rows` has 8 writable bytes, `count` is writable.
        let r = unsafe {
            crate::ffi::generated::catalog::tickreel_pending_take_rows(
                p,
                rows.as_mut_ptr(),
                rows.len(),
                &mut count,
            )
        };
        assert_eq!(r, TickreelResult::InvalidState);
        let e = last_error();
        assert!(
            e.contains("holds a ghost set") && e.contains("not rows"),
            "{e}"
        );
        assert_eq!(tickreel_pending_free(p), OK);

        // A load that fails fails the set.
        let (tx, lookup) = tickreel::Pending::<Loads>::channel("test lookup");
        let (t1, l1) = tickreel::Pending::<GhostTrack>::channel("test load 1");
        let p = insert(Pending::ghosts_lookup(lookup));
        tx.send(Ok(vec![l1])).unwrap();
        t1.send(Err(tickreel::Error::invalid("no such run")))
            .unwrap();
        assert_eq!(wait(p, 1000), (TickreelResult::InvalidArgument, true));
        assert!(last_error().contains("no such run"));
        assert_eq!(tickreel_pending_free(p), OK);
    }
}
