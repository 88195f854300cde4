//! Live deltas (`TickreelLiveDelta`): how far behind (or ahead of) a ghost a live player is, in
//! seconds, matched by position and smoothed for display.

//! The operations are `crate::api::ghost`; here is how a reading crosses into C.

use crate::ffi::convert::CResult;
use crate::ffi::result::FfiResult;
use tickreel::ghost::DeltaReading;

/// The live time delta of a live player against a ghost. Opaque: create with
/// `tickreel_live_delta_new`, release with `tickreel_live_delta_free`.
pub struct TickreelLiveDelta {
    _private: [u8; 0],
}

/// C gets the shown delta in seconds.
impl CResult for DeltaReading {
    type C = f64;
    fn into_c(self) -> FfiResult<f64> {
        Ok(self.seconds())
    }
}

#[cfg(test)]
mod tests {
    use crate::ffi::generated::ghost::*;
    use crate::ffi::ghost::tests::record;
    use crate::ffi::result::TickreelResult;

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
        assert_eq!(unsafe { tickreel_live_delta_new(g, &mut d) }, OK);
        let mut secs = 0.0;
        // SAFETY: `secs` is writable.
        assert_eq!(
            unsafe { tickreel_live_delta_update(d, 12.0, 2.5, 64.0, 0.0, &mut secs) },
            OK
        );
        assert!((secs - 0.1).abs() < 1e-9, "{secs}");
        // SAFETY: `secs` is writable.
        let res = unsafe { tickreel_live_delta_update(d, f64::INFINITY, 0.0, 0.0, 0.0, &mut secs) };
        assert_eq!(res, TickreelResult::InvalidArgument);
        assert_eq!(tickreel_live_delta_reset(d), OK);
        assert_eq!(tickreel_live_delta_free(d), OK);
        assert_eq!(tickreel_ghost_free(g), OK);
    }
}
