//! Cursors (`TickreelGhostCursor`): a ghost sampled at any fractional tick of its run (its pose,
//! interpolated between recorded ticks, and whether it has started or finished), with a time shift.

//! The operations are `crate::api::ghost`; here are their C handle and constants (the sample,
//! `TickreelGhostSample`, is a record declared in `crate::api::ghost`).

use tickreel::ghost::GhostState;

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

/// The state constants are the core's `GhostState` in order (the record reads it `as u32`).
const _: () = assert!(
    GhostState::NotStarted as u32 == TICKREEL_GHOST_NOT_STARTED
        && GhostState::Running as u32 == TICKREEL_GHOST_RUNNING
        && GhostState::Finished as u32 == TICKREEL_GHOST_FINISHED
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::generated::ghost::*;
    use crate::ffi::generated::records::TickreelGhostSample;
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
