//! Ghost sets (`TickreelGhostSet`): several ghosts, each with its own cursor, sampled together
//! into a caller's buffer.
//!
//! The operations are `crate::api::ghost`; here is their C type.

/// Several ghosts sampled together. Opaque: create with `tickreel_ghost_set_new` (or
/// `tickreel_pending_take_ghost_set`), release with `tickreel_ghost_set_free`.
pub struct TickreelGhostSet {
    _private: [u8; 0],
}

/// Numbers `tickreel_ghost_set_sample` writes per ghost: `t, x, y, z, yaw, pitch, flags, state`.
pub const TICKREEL_GHOST_SAMPLE_VALUES: usize = 8;

const _: () = assert!(TICKREEL_GHOST_SAMPLE_VALUES == crate::api::ghost::GHOST_SAMPLE_VALUES);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::generated::ghost::*;
    use crate::ffi::ghost::cursor::{TICKREEL_GHOST_FINISHED, TICKREEL_GHOST_RUNNING};
    use crate::ffi::ghost::tests::record;
    use crate::ffi::ghost::{TICKREEL_GHOST_BOUND_CHECKPOINT, TickreelGhostRange};
    use crate::ffi::result::TickreelResult;

    const OK: TickreelResult = TickreelResult::Ok;
    const V: usize = TICKREEL_GHOST_SAMPLE_VALUES;

    /// Entity 1's run from checkpoint 0 to `end` (59 or 20 ticks long).
    fn ghost(path: &std::ffi::CString, end: u32) -> *mut crate::ffi::TickreelGhost {
        let range = TickreelGhostRange {
            start_kind: TICKREEL_GHOST_BOUND_CHECKPOINT,
            start_value: 0,
            end_kind: TICKREEL_GHOST_BOUND_CHECKPOINT,
            end_value: end,
        };
        let mut g = std::ptr::null_mut();
        // SAFETY: valid string, range and out-pointer.
        assert_eq!(
            unsafe { tickreel_ghost_load(path.as_ptr(), 1, &range, &mut g) },
            OK
        );
        g
    }

    #[test]
    fn a_set_samples_each_ghost_with_its_own_cursor_into_the_callers_buffer() {
        let dir = tempfile::tempdir().unwrap();
        let path = record(dir.path());
        let (long, short) = (ghost(&path, 2), ghost(&path, 1));
        let mut set = std::ptr::null_mut();
        // SAFETY: `set` is writable.
        assert_eq!(unsafe { tickreel_ghost_set_new(&mut set) }, OK);
        let mut index = 9;
        // SAFETY: `index` is writable.
        assert_eq!(
            unsafe { tickreel_ghost_set_push(set, long, &mut index) },
            OK
        );
        assert_eq!(index, 0);
        // SAFETY: as above.
        assert_eq!(
            unsafe { tickreel_ghost_set_push(set, short, &mut index) },
            OK
        );
        assert_eq!(index, 1);
        assert_eq!(tickreel_ghost_free(long), OK);
        assert_eq!(tickreel_ghost_free(short), OK);
        let mut n = 0;
        // SAFETY: `n` is writable.
        assert_eq!(unsafe { tickreel_ghost_set_len(set, &mut n) }, OK);
        assert_eq!(n, 2);
        let mut ticks = 0;
        // SAFETY: `ticks` is writable.
        assert_eq!(
            unsafe { tickreel_ghost_set_duration(set, 1, &mut ticks) },
            OK
        );
        assert_eq!(ticks, 20);
        // SAFETY: as above.
        let res = unsafe { tickreel_ghost_set_duration(set, 2, &mut ticks) };
        assert_eq!(res, TickreelResult::InvalidArgument);
        assert_eq!(tickreel_ghost_set_set_time_shift(set, 1, 4.0), OK);
        assert_eq!(
            tickreel_ghost_set_set_time_shift(set, 5, 1.0),
            TickreelResult::InvalidArgument
        );

        // One more ghost's room than the set needs: the extra stays untouched.
        let mut out = [-1.0f64; 3 * V];
        let mut count = 0;
        // SAFETY: `out` holds `out.len()` doubles; `count` is writable.
        let res = unsafe {
            tickreel_ghost_set_sample(set, 10.0, out.as_mut_ptr(), out.len(), &mut count)
        };
        assert_eq!((res, count), (OK, 2));
        // ghost 0 at its tick 10 (0.25 blocks a tick), running; ghost 1 shifted by 4: its tick 6
        assert_eq!(&out[..4], &[10.0, 2.5, 64.0, 0.0]);
        assert_eq!(out[7], f64::from(TICKREEL_GHOST_RUNNING));
        assert_eq!(&out[V..V + 2], &[6.0, 1.5]);
        assert!(out[2 * V..].iter().all(|&v| v == -1.0));
        // SAFETY: as above.
        unsafe { tickreel_ghost_set_sample(set, 30.0, out.as_mut_ptr(), out.len(), &mut count) };
        assert_eq!(out[V + 7], f64::from(TICKREEL_GHOST_FINISHED));
        assert_eq!(out[V + 1], 5.0, "the short ghost waits at its finish");
        // Room for one whole ghost only: one written.
        // SAFETY: `out` holds at least `V + 3` doubles.
        unsafe { tickreel_ghost_set_sample(set, 1.0, out.as_mut_ptr(), V + 3, &mut count) };
        assert_eq!(count, 1);

        // Checked: NULL with a length, a length that overflows, a misaligned buffer, NaN.
        // SAFETY: NULL is checked before use.
        let res =
            unsafe { tickreel_ghost_set_sample(set, 1.0, std::ptr::null_mut(), 8, &mut count) };
        assert_eq!(res, TickreelResult::NullArgument);
        // SAFETY: the length is refused before the pointer is used.
        let res = unsafe {
            tickreel_ghost_set_sample(set, 1.0, out.as_mut_ptr(), usize::MAX / 2, &mut count)
        };
        assert_eq!(res, TickreelResult::InvalidArgument);
        // SAFETY: refused for its alignment before use.
        let res = unsafe {
            tickreel_ghost_set_sample(
                set,
                1.0,
                out.as_mut_ptr().cast::<u8>().add(1).cast(),
                8,
                &mut count,
            )
        };
        assert_eq!(res, TickreelResult::InvalidArgument);
        // SAFETY: `out` is valid; the NaN is refused.
        let res =
            unsafe { tickreel_ghost_set_sample(set, f64::NAN, out.as_mut_ptr(), V, &mut count) };
        assert_eq!(res, TickreelResult::InvalidArgument);
        // An empty buffer (NULL with length 0) samples nothing.
        // SAFETY: length 0.
        let res =
            unsafe { tickreel_ghost_set_sample(set, 1.0, std::ptr::null_mut(), 0, &mut count) };
        assert_eq!((res, count), (OK, 0));

        assert_eq!(tickreel_ghost_set_free(set), OK);
        assert_eq!(tickreel_ghost_set_free(set), TickreelResult::InvalidHandle);
    }
}
