//! Live deltas (`TickreelDelta`): how far behind (or ahead of) a ghost a live player is, in
//! seconds, matched by position and smoothed for display.

use std::sync::Mutex;

use super::{TickreelGhost, check_finite, track_of};
use crate::ffi::args::Out;
use crate::ffi::handle::{self, HandleType};
use crate::ffi::result::{FfiError, FfiResult, TickreelResult, guard};
use tickreel::ghost::LiveDelta;

/// The live time delta of a live player against a ghost. Opaque: create with
/// `tickreel_delta_new`, release with `tickreel_delta_free`.
pub struct TickreelDelta {
    _private: [u8; 0],
}

/// The object behind a delta handle.
pub(crate) struct DeltaObj {
    delta: Mutex<LiveDelta>,
}

impl HandleType for DeltaObj {
    type Opaque = TickreelDelta;
    const TAG: u8 = 9;
    const NAME: &'static str = "delta";
}

/// Creates a live delta against the ghost (no time shift) and stores its handle in `*out_delta`
/// (NULL on failure, when it can be written).
///
/// # Safety
/// `out_delta` must be NULL or point to writable storage for one pointer.
///
/// Thread safety: any thread. A delta follows one live run: give each live player their own;
/// calls on one delta are serialised by an internal lock.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_delta_new(
    ghost: *mut TickreelGhost,
    out_delta: *mut *mut TickreelDelta,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_delta, "out_delta") }?;
        out.set(std::ptr::null_mut());
        let delta = LiveDelta::new(track_of(ghost)?);
        out.set(handle::insert(DeltaObj {
            delta: Mutex::new(delta),
        })?);
        Ok(())
    })
}

/// Frees a delta. `tickreel_delta_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed
/// or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A call on the same delta still running in another thread finishes
/// normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_delta_free(delta: *mut TickreelDelta) -> TickreelResult {
    guard(|| handle::remove::<DeltaObj>(delta).map(drop))
}

fn with_delta<R>(delta: *mut TickreelDelta, f: impl FnOnce(&mut LiveDelta) -> R) -> FfiResult<R> {
    let obj = handle::get::<DeltaObj>(delta)?;
    let mut d = obj.delta.lock().map_err(|_| FfiError::Poisoned("delta"))?;
    Ok(f(&mut d))
}

/// The live player, `live_t` ticks after the start of their run, is at (`x`, `y`, `z`) blocks:
/// matches that position to the nearest point of the ghost's path and stores how far behind
/// (positive) or ahead (negative) of the ghost they are, in seconds, in `*out_seconds`. The
/// value shown is smoothed (a sign flips only past 0.1 s, the value moves in steps of 0.02 s) so
/// that it does not flicker. Costs O(a small window); never allocates.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if any argument is not finite.
///
/// # Safety
/// `out_seconds` must be NULL or point to a writable `double`.
///
/// Thread safety: any thread; calls on one delta are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_delta_update(
    delta: *mut TickreelDelta,
    live_t: f64,
    x: f64,
    y: f64,
    z: f64,
    out_seconds: *mut f64,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one double.
        let out = unsafe { Out::new(out_seconds, "out_seconds") }?;
        let reading = with_delta(delta, |d| d.try_update(live_t, [x, y, z]))??;
        out.set(reading.seconds());
        Ok(())
    })
}

/// Delays the ghost by `ticks` for this delta (as `tickreel_cursor_set_time_shift`).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `ticks` is not finite.
///
/// Thread safety: any thread; calls on one delta are serialised.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_delta_set_time_shift(
    delta: *mut TickreelDelta,
    ticks: f64,
) -> TickreelResult {
    guard(|| {
        check_finite("ticks", ticks)?;
        with_delta(delta, |d| d.set_time_shift(ticks))
    })
}

/// Forgets the previous match and the smoothed value: call when the live player starts a new
/// attempt.
///
/// Thread safety: any thread; calls on one delta are serialised.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_delta_reset(delta: *mut TickreelDelta) -> TickreelResult {
    guard(|| with_delta(delta, LiveDelta::reset))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::ghost::tests::record;
    use crate::ffi::ghost::{tickreel_ghost_free, tickreel_ghost_load};

    const OK: TickreelResult = TickreelResult::Ok;

    #[test]
    fn a_delta_measures_a_live_player_against_the_ghost() {
        let dir = tempfile::tempdir().unwrap();
        let path = record(dir.path());
        // A delta against the ghost: 2 ticks late at the ghost's tick-10 position.
        let mut g = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer; NULL range (whole presence).
        let got = unsafe { tickreel_ghost_load(path.as_ptr(), 1, std::ptr::null(), &mut g) };
        assert_eq!(got, OK);
        let mut d = std::ptr::null_mut();
        // SAFETY: `d` is writable.
        assert_eq!(unsafe { tickreel_delta_new(g, &mut d) }, OK);
        let mut secs = 0.0;
        // SAFETY: `secs` is writable.
        assert_eq!(
            unsafe { tickreel_delta_update(d, 12.0, 2.5, 64.0, 0.0, &mut secs) },
            OK
        );
        assert!((secs - 0.1).abs() < 1e-9, "{secs}");
        // SAFETY: `secs` is writable.
        let res = unsafe { tickreel_delta_update(d, f64::INFINITY, 0.0, 0.0, 0.0, &mut secs) };
        assert_eq!(res, TickreelResult::InvalidArgument);
        assert_eq!(tickreel_delta_reset(d), OK);
        assert_eq!(tickreel_delta_free(d), OK);
        assert_eq!(tickreel_ghost_free(g), OK);
    }
}
