//! Cursors (`TickreelGhostCursor`): a ghost sampled at any fractional tick of its run (its pose,
//! interpolated between recorded ticks, and whether it has started or finished), with a time shift.

//! The operations are `crate::api::ghost`; here are their C types.

use crate::ffi::convert::CResult;
use crate::ffi::result::FfiResult;
use tickreel::ghost::{GhostSample, GhostState};

/// Samples a ghost track at fractional ticks. Opaque: create with `tickreel_ghost_cursor_new`,
/// release with `tickreel_ghost_cursor_free`.
pub struct TickreelGhostCursor {
    _private: [u8; 0],
}

/// `TickreelGhostSample.state`: before the run's start; the ghost waits at its first pose.
pub const TICKREEL_GHOST_NOT_STARTED: u32 = 0;
/// `TickreelGhostSample.state`: running.
pub const TICKREEL_GHOST_RUNNING: u32 = 1;
/// `TickreelGhostSample.state`: at or after the finish; the ghost stays at its last pose.
pub const TICKREEL_GHOST_FINISHED: u32 = 2;

/// The ghost at one moment, as filled in by `tickreel_ghost_cursor_sample`.
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

impl CResult for GhostSample {
    type C = TickreelGhostSample;
    fn into_c(self) -> FfiResult<TickreelGhostSample> {
        let s = self;
        Ok(TickreelGhostSample {
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
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::generated::ghost::*;
    use crate::ffi::ghost::tests::record;
    use crate::ffi::ghost::{TICKREEL_GHOST_BOUND_CHECKPOINT, TickreelGhostRange};
    use crate::ffi::result::TickreelResult;

    const OK: TickreelResult = TickreelResult::Ok;

    fn sample(c: *mut TickreelGhostCursor, t: f64) -> TickreelGhostSample {
        let mut s = TickreelGhostSample::default();
        // SAFETY: `s` is writable.
        assert_eq!(unsafe { tickreel_ghost_cursor_sample(c, t, &mut s) }, OK);
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
        assert_eq!(unsafe { tickreel_ghost_cursor_new(g, &mut c) }, OK);
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
        assert_eq!(tickreel_ghost_cursor_set_time_shift(c, 4.0), OK);
        assert_eq!(sample(c, 14.0).x, 2.5);
        assert_eq!(
            tickreel_ghost_cursor_set_time_shift(c, f64::NAN),
            TickreelResult::InvalidArgument
        );
        assert_eq!(tickreel_ghost_cursor_free(c), OK);
        assert_eq!(tickreel_ghost_cursor_free(c), TickreelResult::InvalidHandle);
    }
}
