//! Playing a recording: the C types of the playhead operations (`crate::api::playhead`, whose
//! entry points are generated) and how their results cross into C.

use super::convert::{CRecord, CResult};
use super::generated::records::TickreelUpdate;
use super::result::FfiResult;
use crate::api::playhead::UpdateRef;
use tickreel::play::Motion;

/// A viewer's position in a recording. Opaque: open with `tickreel_playhead_open`, release with
/// `tickreel_playhead_free`. The pointer is a handle, not an address: never dereference it.
pub struct TickreelPlayhead {
    _private: [u8; 0],
}

/// `TickreelUpdate::motion`: the position did not change (paused, a slow speed between two
/// recorded ticks, the edge of the recording, or a stall).
pub const TICKREEL_MOTION_STILL: u32 = 0;
/// `TickreelUpdate::motion`: forward play over `ticks_covered` recorded ticks.
pub const TICKREEL_MOTION_FORWARD: u32 = 1;
/// `TickreelUpdate::motion`: any other move (reverse play, seek, step back, a jump over an
/// unreadable chunk): set every entity's state from `tickreel_playhead_entities`.
pub const TICKREEL_MOTION_JUMP: u32 = 2;

// The motion codes are the core's `Motion` in order (`UpdateRef::info` casts it).
const _: () = assert!(
    Motion::Still as u32 == TICKREEL_MOTION_STILL
        && Motion::Forward as u32 == TICKREEL_MOTION_FORWARD
        && Motion::Jump as u32 == TICKREEL_MOTION_JUMP
);

impl CResult for UpdateRef<'_> {
    type C = TickreelUpdate;
    fn into_c(self) -> FfiResult<TickreelUpdate> {
        Ok(self.info().to_c())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::TickreelEntityState;
    use crate::ffi::batch::*;
    use crate::ffi::generated::playhead::*;
    use crate::ffi::generated::reader::*;
    use crate::ffi::generated::records::TickreelRebuild;
    use crate::ffi::reader::entity_state;
    use crate::ffi::result::TickreelResult;
    use crate::ffi::writer::*;
    use std::ffi::CString;
    use tickreel::format::EntityState;

    const OK: TickreelResult = TickreelResult::Ok;

    /// Records 40 ticks (100..=139) of two entities moving along x, in chunks of 10 ticks.
    fn record(dir: &std::path::Path) -> CString {
        let path = CString::new(dir.join("p.reel").to_str().unwrap()).unwrap();
        let w = crate::ffi::writer::writer(&path, 10, 600);
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        for t in 0..40u32 {
            assert_eq!(tickreel_batch_clear(b), OK);
            for e in 1..=2u32 {
                let x = f64::from(e) + f64::from(t) * 0.25;
                let r = if t == 0 {
                    tickreel_batch_entity_add(b, e, 7, x, 64.0, 0.0, 0.0, 0.0)
                } else {
                    tickreel_batch_pose(b, e, x, 64.0, 0.0, 0.0, 0.0)
                };
                assert_eq!(r, OK);
            }
            assert_eq!(tickreel_reel_writer_write_batch(w, 100 + t, b), OK);
        }
        assert_eq!(tickreel_batch_free(b), OK);
        // SAFETY: NULL size is allowed.
        assert_eq!(
            unsafe { tickreel_reel_writer_finish(w, std::ptr::null_mut()) },
            OK
        );
        assert_eq!(tickreel_reel_writer_free(w), OK);
        path
    }

    fn entities(p: *mut TickreelPlayhead) -> Vec<TickreelEntityState> {
        let mut n = 0;
        // SAFETY: capacity 0 with NULL is a count query.
        let res = unsafe { tickreel_playhead_entities(p, std::ptr::null_mut(), 0, &mut n) };
        assert!(res == OK || res == TickreelResult::BufferTooSmall);
        let mut v = vec![entity_state(&EntityState::default()); n];
        // SAFETY: `v` has room for `n` states.
        let res = unsafe { tickreel_playhead_entities(p, v.as_mut_ptr(), n, &mut n) };
        assert_eq!((res, n), (OK, v.len()));
        v
    }

    #[test]
    fn a_playhead_plays_both_ways_and_matches_the_reader() {
        let dir = tempfile::tempdir().unwrap();
        let path = record(dir.path());
        let mut p = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        assert_eq!(
            unsafe { tickreel_playhead_open(path.as_ptr(), 105, &mut p) },
            OK
        );
        let mut at = 0;
        // SAFETY: `at` is writable.
        assert_eq!(unsafe { tickreel_playhead_position(p, &mut at) }, OK);
        assert_eq!(at, 105);
        // The opening jump spawns both entities and rebuilds the world (from no custom events).
        let mut n = 0;
        let mut added = vec![entity_state(&EntityState::default()); 2];
        // SAFETY: `added` has room for 2.
        let res = unsafe { tickreel_playhead_added(p, added.as_mut_ptr(), 2, &mut n) };
        assert_eq!((res, n, added[0].id, added[1].id), (OK, 2, 1, 2));
        // SAFETY: capacity 0 with NULL is a count query.
        let res = unsafe { tickreel_playhead_removed(p, std::ptr::null_mut(), 0, &mut n) };
        assert_eq!((res, n), (OK, 0));
        let mut world = TickreelRebuild::default();
        // SAFETY: `world` is writable.
        assert_eq!(unsafe { tickreel_playhead_rebuild(p, &mut world) }, OK);
        assert!(world.rebuild && world.complete, "{world:?}");
        // SAFETY: capacity 0 with NULL is a length query.
        let res = unsafe { tickreel_playhead_rebuild_events(p, std::ptr::null_mut(), 0, &mut n) };
        assert_eq!((res, n), (OK, 0));
        assert_eq!(tickreel_playhead_set_speed(p, 2.0), OK);
        for bad in [0.1, 17.0, f64::NAN] {
            assert_eq!(
                tickreel_playhead_set_speed(p, bad),
                TickreelResult::InvalidArgument
            );
        }
        assert_eq!(tickreel_playhead_play(p), OK);
        let mut u = TickreelUpdate::default();
        for k in 1..=5u32 {
            assert_eq!(tickreel_playhead_prepare(p), OK);
            // SAFETY: `u` is writable.
            assert_eq!(unsafe { tickreel_playhead_advance(p, &mut u) }, OK);
            assert_eq!(
                (u.position, u.motion, u.ticks_covered, u.stalled),
                (105 + 2 * k, TICKREEL_MOTION_FORWARD, 2, false)
            );
            assert_eq!(u.entity_count, 2);
            // The two recorded ticks covered, each with the two entities' poses.
            let mut len = 0;
            // SAFETY: capacity 0 with NULL is a length query.
            let res = unsafe { tickreel_playhead_ticks(p, std::ptr::null_mut(), 0, &mut len) };
            assert_eq!(res, TickreelResult::BufferTooSmall);
            let mut buf = vec![0u8; len];
            // SAFETY: `buf` has room for `len` bytes.
            let res = unsafe { tickreel_playhead_ticks(p, buf.as_mut_ptr(), len, &mut len) };
            assert_eq!(res, OK);
            let mut ticks = Vec::new();
            let mut at = 0;
            while at < buf.len() {
                let tick = u32::from_be_bytes(buf[at..at + 4].try_into().unwrap());
                let n = u32::from_be_bytes(buf[at + 4..at + 8].try_into().unwrap()) as usize;
                let events = tickreel::format::decode_batch(&buf[at + 8..at + 8 + n]).unwrap();
                ticks.push((tick, events.len()));
                at += 8 + n;
            }
            assert_eq!(ticks, [(104 + 2 * k, 2), (105 + 2 * k, 2)]);
        }
        assert_eq!(tickreel_playhead_set_reverse(p, true), OK);
        assert_eq!(tickreel_playhead_prepare(p), OK);
        // SAFETY: `u` is writable.
        assert_eq!(unsafe { tickreel_playhead_advance(p, &mut u) }, OK);
        assert_eq!((u.position, u.motion), (113, TICKREEL_MOTION_JUMP));
        // SAFETY: `u` is writable.
        assert_eq!(unsafe { tickreel_playhead_step_back(p, &mut u) }, OK);
        assert_eq!(u.position, 112);
        assert_eq!(tickreel_playhead_pause(p), OK);
        // SAFETY: `u` is writable.
        assert_eq!(unsafe { tickreel_playhead_advance(p, &mut u) }, OK);
        assert_eq!((u.position, u.motion), (112, TICKREEL_MOTION_STILL));

        // The state equals the reader's at the same tick.
        let got = entities(p);
        let mut r = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        assert_eq!(unsafe { tickreel_reader_open(path.as_ptr(), &mut r) }, OK);
        let mut want = vec![entity_state(&EntityState::default()); 2];
        let mut n = 0;
        // SAFETY: `want` has room for 2; NULL out_tick is allowed.
        let res = unsafe {
            tickreel_reader_seek(r, 112, want.as_mut_ptr(), 2, &mut n, std::ptr::null_mut())
        };
        assert_eq!((res, n), (OK, 2));
        assert_eq!(got, want);
        assert_eq!(tickreel_reader_free(r), OK);

        // Seeks clamp; a too-small buffer reports the count and writes nothing.
        // SAFETY: `u` is writable.
        assert_eq!(unsafe { tickreel_playhead_seek(p, 9999, &mut u) }, OK);
        assert_eq!(
            (u.position, u.motion, u.at_edge),
            (139, TICKREEL_MOTION_JUMP, false)
        );
        let mut one = [entity_state(&EntityState::default())];
        // SAFETY: `one` has room for 1.
        let res = unsafe { tickreel_playhead_entities(p, one.as_mut_ptr(), 1, &mut n) };
        assert_eq!((res, n, one[0].id), (TickreelResult::BufferTooSmall, 2, 0));

        assert_eq!(tickreel_playhead_free(p), OK);
        assert_eq!(tickreel_playhead_free(p), TickreelResult::InvalidHandle);
        assert_eq!(tickreel_playhead_play(p), TickreelResult::InvalidHandle);
        assert_eq!(tickreel_playhead_free(std::ptr::null_mut()), OK);
        assert_eq!(
            tickreel_playhead_play(r.cast()),
            TickreelResult::InvalidHandle
        );
    }
}
