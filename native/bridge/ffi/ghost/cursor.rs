//! Cursors (`TickreelCursor`): a ghost sampled at any fractional tick of its run (its pose,
//! interpolated between recorded ticks, and whether it has started or finished), with a time shift.

use std::sync::Mutex;

use super::{TickreelGhost, check_finite, track_of};
use crate::ffi::args::Out;
use crate::ffi::handle::{self, HandleType};
use crate::ffi::result::{FfiError, FfiResult, TickreelResult, guard};
use tickreel::ghost::{GhostCursor, GhostState};

/// Samples a ghost track at fractional ticks. Opaque: create with `tickreel_cursor_new`,
/// release with `tickreel_cursor_free`.
pub struct TickreelCursor {
    _private: [u8; 0],
}

/// `TickreelGhostSample.state`: before the run's start; the ghost waits at its first pose.
pub const TICKREEL_GHOST_NOT_STARTED: u32 = 0;
/// `TickreelGhostSample.state`: running.
pub const TICKREEL_GHOST_RUNNING: u32 = 1;
/// `TickreelGhostSample.state`: at or after the finish; the ghost stays at its last pose.
pub const TICKREEL_GHOST_FINISHED: u32 = 2;

/// The ghost at one moment, as filled in by `tickreel_cursor_sample`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TickreelGhostSample {
    /// The time sampled on the ghost's own clock (after its time shift), in ticks.
    pub t: f64,
    /// Position in blocks.
    pub x: f64,
    /// Height in blocks.
    pub y: f64,
    /// Position in blocks.
    pub z: f64,
    /// Yaw in degrees, unbounded (continuous with the recorded values).
    pub yaw: f64,
    /// Pitch in degrees.
    pub pitch: f64,
    /// State flags (`TICKREEL_FLAG_*` bits and the game's own) in effect.
    pub flags: u32,
    /// `TICKREEL_GHOST_NOT_STARTED`, `TICKREEL_GHOST_RUNNING` or `TICKREEL_GHOST_FINISHED`.
    pub state: u32,
}

/// The object behind a cursor handle.
pub(crate) struct CursorObj {
    cursor: Mutex<GhostCursor>,
}

impl HandleType for CursorObj {
    type Opaque = TickreelCursor;
    const TAG: u8 = 8;
    const NAME: &'static str = "cursor";
}

/// Creates a cursor over the ghost, at the start of its run with no time shift, and stores its
/// handle in `*out_cursor` (NULL on failure, when it can be written).
///
/// # Safety
/// `out_cursor` must be NULL or point to writable storage for one pointer.
///
/// Thread safety: any thread. A cursor keeps its position between calls: give each viewer (or
/// thread) its own; calls on one cursor are serialised by an internal lock.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_cursor_new(
    ghost: *mut TickreelGhost,
    out_cursor: *mut *mut TickreelCursor,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_cursor, "out_cursor") }?;
        out.set(std::ptr::null_mut());
        let cursor = GhostCursor::new(track_of(ghost)?);
        out.set(handle::insert(CursorObj {
            cursor: Mutex::new(cursor),
        })?);
        Ok(())
    })
}

/// Frees a cursor. `tickreel_cursor_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a
/// freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A call on the same cursor still running in another thread
/// finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_cursor_free(cursor: *mut TickreelCursor) -> TickreelResult {
    guard(|| handle::remove::<CursorObj>(cursor).map(drop))
}

fn with_cursor<R>(
    cursor: *mut TickreelCursor,
    f: impl FnOnce(&mut GhostCursor) -> R,
) -> FfiResult<R> {
    let obj = handle::get::<CursorObj>(cursor)?;
    let mut c = obj
        .cursor
        .lock()
        .map_err(|_| FfiError::Poisoned("cursor"))?;
    Ok(f(&mut c))
}

/// Stores the ghost's pose at `t` ticks from the (shifted) start of its run in `*out_sample`.
/// `t` is fractional: sample at your frame rate (e.g. `t += 20.0 / 60.0` per frame for a 20
/// ticks/s recording shown at 60 Hz). Between samples the pose is a monotone cubic Hermite
/// interpolation, never across a teleport; at every recorded tick it is exactly the recorded
/// pose. Before the start (or for a NaN `t`) the ghost waits at its first pose
/// (`TICKREEL_GHOST_NOT_STARTED`); at or after the finish it stays at its last
/// (`TICKREEL_GHOST_FINISHED`). O(1) when `t` moves forward a little from the previous call;
/// never allocates.
///
/// # Safety
/// `out_sample` must be NULL or point to a writable `TickreelGhostSample`.
///
/// Thread safety: any thread; calls on one cursor are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_cursor_sample(
    cursor: *mut TickreelCursor,
    t: f64,
    out_sample: *mut TickreelGhostSample,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one sample.
        let out = unsafe { Out::new(out_sample, "out_sample") }?;
        let s = with_cursor(cursor, |c| c.sample(t))?;
        out.set(TickreelGhostSample {
            t: s.t,
            x: s.x,
            y: s.y,
            z: s.z,
            yaw: s.yaw,
            pitch: s.pitch,
            flags: s.flags,
            state: match s.state {
                GhostState::NotStarted => TICKREEL_GHOST_NOT_STARTED,
                GhostState::Running => TICKREEL_GHOST_RUNNING,
                GhostState::Finished => TICKREEL_GHOST_FINISHED,
            },
        });
        Ok(())
    })
}

/// Delays the ghost by `ticks` (negative: it starts earlier): `tickreel_cursor_sample(c, t)`
/// then shows the run at `t - ticks`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `ticks` is not finite.
///
/// Thread safety: any thread; calls on one cursor are serialised.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_cursor_set_time_shift(
    cursor: *mut TickreelCursor,
    ticks: f64,
) -> TickreelResult {
    guard(|| {
        check_finite("ticks", ticks)?;
        with_cursor(cursor, |c| c.set_time_shift(ticks))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::ghost::tests::record;
    use crate::ffi::ghost::{
        TICKREEL_GHOST_BOUND_CHECKPOINT, TickreelGhostRange, tickreel_ghost_free,
        tickreel_ghost_load,
    };

    const OK: TickreelResult = TickreelResult::Ok;

    fn sample(c: *mut TickreelCursor, t: f64) -> TickreelGhostSample {
        let mut s = TickreelGhostSample::default();
        // SAFETY: `s` is writable.
        assert_eq!(unsafe { tickreel_cursor_sample(c, t, &mut s) }, OK);
        s
    }

    #[test]
    fn a_cursor_samples_the_ghost() {
        let dir = tempfile::tempdir().unwrap();
        let path = record(dir.path());
        let range = TickreelGhostRange {
            start_kind: TICKREEL_GHOST_BOUND_CHECKPOINT,
            start_value: 0,
            end_kind: TICKREEL_GHOST_BOUND_CHECKPOINT,
            end_value: 2,
        };
        let mut g = std::ptr::null_mut();
        // SAFETY: valid string, range and out-pointer.
        assert_eq!(
            unsafe { tickreel_ghost_load(path.as_ptr(), 1, &range, &mut g) },
            OK
        );

        let mut c = std::ptr::null_mut();
        // SAFETY: `c` is writable.
        assert_eq!(unsafe { tickreel_cursor_new(g, &mut c) }, OK);
        // The ghost outlives its handle through the cursor.
        assert_eq!(tickreel_ghost_free(g), OK);
        let s = sample(c, 10.0);
        assert_eq!(
            (s.x, s.y, s.yaw, s.state),
            (2.5, 64.0, 90.0, TICKREEL_GHOST_RUNNING)
        );
        let mid = sample(c, 10.5);
        assert!(mid.x > 2.5 && mid.x < 2.75, "{mid:?}");
        assert_eq!(sample(c, -1.0).state, TICKREEL_GHOST_NOT_STARTED);
        assert_eq!(sample(c, 100.0).state, TICKREEL_GHOST_FINISHED);
        assert_eq!(tickreel_cursor_set_time_shift(c, 4.0), OK);
        assert_eq!(sample(c, 14.0).x, 2.5);
        assert_eq!(
            tickreel_cursor_set_time_shift(c, f64::NAN),
            TickreelResult::InvalidArgument
        );
        assert_eq!(tickreel_cursor_free(c), OK);
        assert_eq!(tickreel_cursor_free(c), TickreelResult::InvalidHandle);
    }
}
