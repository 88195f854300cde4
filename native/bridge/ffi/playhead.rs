//! Playing a recording: a playhead moved once per server tick, plus seeking and stepping.

use std::ffi::c_char;
use std::sync::Mutex;

use super::args::{self, Out, OutArray};
use super::handle::{self, HandleType};
use super::reader::TickreelEntityState;
use super::result::{FfiError, FfiResult, TickreelResult, guard};
use tickreel::format::state::EntityState;
use tickreel::play::{Direction, MAX_SPEED, MIN_SPEED, Motion, Playhead, Update};
use tickreel::play::{PlaybackContext, Reader, Recording};

/// A viewer's position in a recording. Opaque: open with `tickreel_playhead_open`, release with
/// `tickreel_playhead_free`. The pointer is a handle, not an address: never dereference it.
pub struct TickreelPlayhead {
    _private: [u8; 0],
}

/// `TickreelUpdateInfo::motion`: the position did not change (paused, a slow speed between two
/// recorded ticks, the edge of the recording, or a stall).
pub const TICKREEL_MOTION_STILL: u32 = 0;
/// `TickreelUpdateInfo::motion`: forward play over `ticks_covered` recorded ticks.
pub const TICKREEL_MOTION_FORWARD: u32 = 1;
/// `TickreelUpdateInfo::motion`: any other move (reverse play, seek, step back, a jump over an
/// unreadable chunk): set every entity's state from `tickreel_playhead_entities`.
pub const TICKREEL_MOTION_JUMP: u32 = 2;

/// What one playhead call did, as filled in by `tickreel_playhead_advance` and friends.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickreelUpdateInfo {
    /// Position after the call (a tick of the recording).
    pub position: u32,
    /// How the position moved: `TICKREEL_MOTION_STILL`, `_FORWARD` or `_JUMP`.
    pub motion: u32,
    /// Forward motion: recorded ticks covered by the call (0 for other motions).
    pub ticks_covered: u32,
    /// The data for the next ticks was not decoded yet: the position moved less than asked
    /// (maybe not at all); later calls catch up.
    pub stalled: bool,
    /// The position is the first (playing backward) or last (forward) tick of the recording.
    pub at_edge: bool,
    /// The recording has no tick yet: no position and no entity.
    pub waiting: bool,
    /// Chunks that could not be read during this call (playback continues past them).
    pub fault_count: u32,
    /// Live entities at `position` (what `tickreel_playhead_entities` reports).
    pub entity_count: u32,
}

/// The object behind a playhead handle.
pub(crate) struct PlayheadObj {
    playhead: Mutex<Playhead>,
}

impl HandleType for PlayheadObj {
    type Opaque = TickreelPlayhead;
    const TAG: u8 = 11;
    const NAME: &'static str = "playhead";
}

fn info(u: &Update) -> TickreelUpdateInfo {
    TickreelUpdateInfo {
        position: u.to,
        motion: match u.motion {
            Motion::Still => TICKREEL_MOTION_STILL,
            Motion::Forward => TICKREEL_MOTION_FORWARD,
            Motion::Jump => TICKREEL_MOTION_JUMP,
        },
        ticks_covered: u32::try_from(u.ticks().len()).unwrap_or(u32::MAX),
        stalled: u.stalled,
        at_edge: u.at_edge,
        waiting: u.waiting,
        fault_count: u32::try_from(u.faults().len()).unwrap_or(u32::MAX),
        entity_count: u32::try_from(u.entities().len()).unwrap_or(u32::MAX),
    }
}

fn entity_state(e: &EntityState) -> TickreelEntityState {
    TickreelEntityState {
        id: e.id,
        kind: e.kind,
        flags: e.flags,
        x: e.pose.x_f64(),
        y: e.pose.y_f64(),
        z: e.pose.z_f64(),
        yaw: e.pose.yaw_deg(),
        pitch: e.pose.pitch_deg(),
    }
}

fn with_playhead<R>(
    playhead: *mut TickreelPlayhead,
    f: impl FnOnce(&mut Playhead) -> FfiResult<R>,
) -> FfiResult<R> {
    let obj = handle::get::<PlayheadObj>(playhead)?;
    let mut p = obj
        .playhead
        .lock()
        .map_err(|_| FfiError::Poisoned("playhead"))?;
    f(&mut p)
}

/// Runs an update-returning call on a playhead and stores its summary in `*out_info` (optional).
///
/// # Safety
/// `out_info` must be NULL or point to a writable `TickreelUpdateInfo`.
unsafe fn update_call(
    playhead: *mut TickreelPlayhead,
    out_info: *mut TickreelUpdateInfo,
    f: impl FnOnce(&mut Playhead) -> tickreel::Result<TickreelUpdateInfo>,
) -> TickreelResult {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let out = unsafe { Out::optional(out_info, "out_info") }?;
        let i = with_playhead(playhead, |p| Ok(f(p)?))?;
        if let Some(out) = out {
            out.set(i);
        }
        Ok(())
    })
}

/// Opens the recording at `path` (a finished `.reel` file or a live recording directory; a
/// NUL-terminated path in the platform's encoding) and stores, in `*out_playhead`, a paused
/// playhead at `start_tick` (clamped into the recording), playing forward at speed 1. Blocks to
/// read and decode the chunk holding that tick. Chunks are shared with other playheads through
/// the process-wide cache.
///
/// Its state before any call is a jump to the start: spawn everything from
/// `tickreel_playhead_entities`. A live recording without ticks yet gives a waiting playhead.
///
/// Returns `TICKREEL_RESULT_IO`, `TICKREEL_RESULT_CORRUPT`, `TICKREEL_RESULT_TRUNCATED` or
/// `TICKREEL_RESULT_UNSUPPORTED` as `tickreel_reader_open` does. On failure `*out_playhead` is set
/// to NULL (when it can be written).
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string; `out_playhead` must be NULL or point to
/// writable storage for one pointer.
///
/// Thread safety: any thread. A playhead may then be used from any thread; calls on one playhead
/// are serialised (one viewer: usually the server thread).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_playhead_open(
    path: *const c_char,
    start_tick: u32,
    out_playhead: *mut *mut TickreelPlayhead,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_playhead, "out_playhead") }?;
        out.set(std::ptr::null_mut());
        // SAFETY: caller contract: NULL or NUL-terminated.
        let path = unsafe { args::path(path, "path") }?;
        let rec = Recording::from_reader(Reader::open_any(path)?, &PlaybackContext::global());
        let playhead = Playhead::new_at(rec, start_tick)?;
        out.set(handle::insert(PlayheadObj {
            playhead: Mutex::new(playhead),
        })?);
        Ok(())
    })
}

/// Frees a playhead. `tickreel_playhead_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a
/// freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A call on the same playhead still running in another thread
/// finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_playhead_free(playhead: *mut TickreelPlayhead) -> TickreelResult {
    guard(|| handle::remove::<PlayheadObj>(playhead).map(drop))
}

/// Moves the playhead by one server tick's worth of playback (nothing while paused) and stores
/// what happened in `*out_info` (`out_info` may be NULL). Call once per server tick. Never blocks
/// on I/O: it uses chunks already decoded and asks background threads for the next ones; when
/// they are not ready the update is `stalled` and later calls catch up.
///
/// Apply a `TICKREEL_MOTION_FORWARD` or `TICKREEL_MOTION_JUMP` update by setting every entity's
/// state from `tickreel_playhead_entities` (despawning ids no longer listed).
///
/// # Safety
/// `out_info` must be NULL or point to a writable `TickreelUpdateInfo`.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_playhead_advance(
    playhead: *mut TickreelPlayhead,
    out_info: *mut TickreelUpdateInfo,
) -> TickreelResult {
    // SAFETY: forwarded caller contract.
    unsafe { update_call(playhead, out_info, |p| Ok(info(p.advance()))) }
}

/// Blocks until everything the next `tickreel_playhead_advance` needs is decoded, so that it
/// does not stall. For tools and tests that may wait; a server thread should not call it.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_playhead_prepare(playhead: *mut TickreelPlayhead) -> TickreelResult {
    guard(|| {
        with_playhead(playhead, |p| {
            p.prepare();
            Ok(())
        })
    })
}

/// Moves to `tick` (clamped into the recording) and stores the jump in `*out_info` (`out_info`
/// may be NULL). Blocks until its chunk is decoded. Returns `TICKREEL_RESULT_CORRUPT` or
/// `TICKREEL_RESULT_TRUNCATED`, leaving the position unchanged, if that chunk cannot be read.
///
/// # Safety
/// `out_info` must be NULL or point to a writable `TickreelUpdateInfo`.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_playhead_seek(
    playhead: *mut TickreelPlayhead,
    tick: u32,
    out_info: *mut TickreelUpdateInfo,
) -> TickreelResult {
    // SAFETY: forwarded caller contract.
    unsafe { update_call(playhead, out_info, |p| Ok(info(p.seek(tick)?))) }
}

/// Moves one recorded tick forward (playing or not; nothing at the last tick) and stores the
/// update in `*out_info` (`out_info` may be NULL). May block to decode the next chunk.
///
/// # Safety
/// `out_info` must be NULL or point to a writable `TickreelUpdateInfo`.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_playhead_step_forward(
    playhead: *mut TickreelPlayhead,
    out_info: *mut TickreelUpdateInfo,
) -> TickreelResult {
    // SAFETY: forwarded caller contract.
    unsafe { update_call(playhead, out_info, |p| Ok(info(p.step_forward()))) }
}

/// Moves one recorded tick backward (playing or not; nothing at the first tick) and stores the
/// update (a jump) in `*out_info` (`out_info` may be NULL). May block to decode the chunk.
///
/// # Safety
/// `out_info` must be NULL or point to a writable `TickreelUpdateInfo`.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_playhead_step_back(
    playhead: *mut TickreelPlayhead,
    out_info: *mut TickreelUpdateInfo,
) -> TickreelResult {
    // SAFETY: forwarded caller contract.
    unsafe { update_call(playhead, out_info, |p| Ok(info(p.step_back()))) }
}

/// Starts playing, in the current direction at the current speed, from the next
/// `tickreel_playhead_advance`.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_playhead_play(playhead: *mut TickreelPlayhead) -> TickreelResult {
    guard(|| {
        with_playhead(playhead, |p| {
            p.play();
            Ok(())
        })
    })
}

/// Stops playing: `tickreel_playhead_advance` then reports `TICKREEL_MOTION_STILL`.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_playhead_pause(playhead: *mut TickreelPlayhead) -> TickreelResult {
    guard(|| {
        with_playhead(playhead, |p| {
            p.pause();
            Ok(())
        })
    })
}

/// Sets the speed in recorded ticks per server tick, from 0.25 to 16 (fractions accumulate: at
/// 0.25 one recorded tick is played every fourth advance). Returns
/// `TICKREEL_RESULT_INVALID_ARGUMENT`, leaving the speed unchanged, outside that range or for NaN.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_playhead_set_speed(
    playhead: *mut TickreelPlayhead,
    speed: f64,
) -> TickreelResult {
    guard(|| {
        if !(MIN_SPEED..=MAX_SPEED).contains(&speed) {
            return Err(FfiError::Invalid(format!(
                "speed {speed} outside {MIN_SPEED}..={MAX_SPEED}"
            )));
        }
        with_playhead(playhead, |p| Ok(p.set_speed(speed)?))
    })
}

/// Sets the direction of play: backward if `reverse`, forward otherwise. Reverse play reports
/// `TICKREEL_MOTION_JUMP` updates.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_playhead_set_reverse(
    playhead: *mut TickreelPlayhead,
    reverse: bool,
) -> TickreelResult {
    guard(|| {
        with_playhead(playhead, |p| {
            p.set_direction(if reverse {
                Direction::Backward
            } else {
                Direction::Forward
            });
            Ok(())
        })
    })
}

/// Stores the current position in `*out_tick` (while waiting for a live recording's first tick,
/// the tick asked for).
///
/// # Safety
/// `out_tick` must be NULL or point to a writable `uint32_t`.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_playhead_position(
    playhead: *mut TickreelPlayhead,
    out_tick: *mut u32,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one u32.
        let out = unsafe { Out::new(out_tick, "out_tick") }?;
        out.set(with_playhead(playhead, |p| Ok(p.position()))?);
        Ok(())
    })
}

/// Copies the state of every live entity at the current position into `states`, sorted by
/// entity id, exactly as `tickreel_reader_seek` would at that tick.
///
/// `*out_count` is always set to the number of entities. If it exceeds `capacity`, nothing is
/// copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room for
/// `*out_count` states. `states` may be NULL when `capacity` is 0, to query the count.
///
/// # Safety
/// `states` must point to `capacity` writable `TickreelEntityState`s (or `capacity` must be 0);
/// `out_count` must be NULL or point to a writable `size_t`.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_playhead_entities(
    playhead: *mut TickreelPlayhead,
    states: *mut TickreelEntityState,
    capacity: usize,
    out_count: *mut usize,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: `capacity` writable states at `states`, or capacity 0.
        let states = unsafe { OutArray::new(states, capacity, "states") }?;
        // SAFETY: caller contract: NULL or writable for one size_t.
        let out_count = unsafe { Out::new(out_count, "out_count") }?;
        with_playhead(playhead, |p| {
            let entities = p.entities();
            out_count.set(entities.len());
            if entities.len() > states.capacity() {
                return Err(FfiError::BufferTooSmall(format!(
                    "{} entities at tick {}, room for {}",
                    entities.len(),
                    p.position(),
                    states.capacity()
                )));
            }
            for (i, e) in entities.iter().enumerate() {
                states.set(i, entity_state(e));
            }
            Ok(())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::batch::*;
    use crate::ffi::reader::*;
    use crate::ffi::writer::*;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    /// Records 40 ticks (100..=139) of two entities moving along x, in chunks of 10 ticks.
    fn record(dir: &std::path::Path) -> CString {
        let path = CString::new(dir.join("p.reel").to_str().unwrap()).unwrap();
        let mut opts = std::mem::MaybeUninit::<TickreelWriterOptions>::uninit();
        // SAFETY: `opts` is writable storage for one options struct.
        assert_eq!(
            unsafe { tickreel_writer_options_default(opts.as_mut_ptr()) },
            OK
        );
        // SAFETY: initialised by the call above.
        let mut opts = unsafe { opts.assume_init() };
        opts.chunk_ticks = 10;
        let mut w = std::ptr::null_mut();
        // SAFETY: valid string, options and out-pointer.
        assert_eq!(
            unsafe { tickreel_writer_create(path.as_ptr(), &opts, &mut w) },
            OK
        );
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        for t in 0..40u32 {
            assert_eq!(tickreel_batch_clear(b), OK);
            for e in 1..=2u32 {
                let x = f64::from(e) + f64::from(t) * 0.25;
                let r = if t == 0 {
                    tickreel_batch_add_entity(b, e, 7, x, 64.0, 0.0, 0.0, 0.0)
                } else {
                    tickreel_batch_add_pose(b, e, x, 64.0, 0.0, 0.0, 0.0)
                };
                assert_eq!(r, OK);
            }
            assert_eq!(tickreel_writer_write_batch(w, 100 + t, b), OK);
        }
        assert_eq!(tickreel_batch_free(b), OK);
        // SAFETY: NULL size is allowed.
        assert_eq!(
            unsafe { tickreel_writer_finish(w, std::ptr::null_mut()) },
            OK
        );
        assert_eq!(tickreel_writer_free(w), OK);
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
        assert_eq!(tickreel_playhead_set_speed(p, 2.0), OK);
        for bad in [0.1, 17.0, f64::NAN] {
            assert_eq!(
                tickreel_playhead_set_speed(p, bad),
                TickreelResult::InvalidArgument
            );
        }
        assert_eq!(tickreel_playhead_play(p), OK);
        let mut u = TickreelUpdateInfo::default();
        for k in 1..=5u32 {
            assert_eq!(tickreel_playhead_prepare(p), OK);
            // SAFETY: `u` is writable.
            assert_eq!(unsafe { tickreel_playhead_advance(p, &mut u) }, OK);
            assert_eq!(
                (u.position, u.motion, u.ticks_covered, u.stalled),
                (105 + 2 * k, TICKREEL_MOTION_FORWARD, 2, false)
            );
            assert_eq!(u.entity_count, 2);
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
