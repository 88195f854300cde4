//! Ghost loads (`TickreelGhostLoad`): a ghost track loaded on a background thread, polled and
//! taken without blocking.

//! The operations are `crate::api::ghost`; here is the C type of a load.

/// A ghost track being loaded on a background thread. Opaque: create with
/// `tickreel_ghost_load_async`, release with `tickreel_ghost_load_free`.
pub struct TickreelGhostLoad {
    _private: [u8; 0],
}

#[cfg(test)]
mod tests {
    use crate::ffi::generated::ghost::*;
    use crate::ffi::ghost::tests::record;
    use crate::ffi::ghost::{
        TICKREEL_GHOST_BOUND_CHECKPOINT, TickreelGhostInfo, TickreelGhostRange,
    };
    use crate::ffi::result::TickreelResult;

    const OK: TickreelResult = TickreelResult::Ok;

    #[test]
    fn async_loads_are_taken_once_and_report_their_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = record(dir.path());
        let mut l = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        let got = unsafe { tickreel_ghost_load_async(path.as_ptr(), 2, std::ptr::null(), &mut l) };
        assert_eq!(got, OK);
        let mut g = std::ptr::null_mut();
        loop {
            // SAFETY: `g` is writable.
            match unsafe { tickreel_ghost_load_take(l, &mut g) } {
                OK => break,
                TickreelResult::NotReady => std::thread::yield_now(),
                other => panic!("{other:?}"),
            }
        }
        let mut info = TickreelGhostInfo::default();
        // SAFETY: `info` is writable.
        assert_eq!(unsafe { tickreel_ghost_info(g, &mut info) }, OK);
        assert_eq!((info.entity, info.origin_tick), (2, 100));
        let mut g2 = std::ptr::null_mut();
        // SAFETY: `g2` is writable.
        let res = unsafe { tickreel_ghost_load_take(l, &mut g2) };
        assert_eq!((res, g2.is_null()), (TickreelResult::InvalidState, true));
        assert_eq!(tickreel_ghost_load_free(l), OK);
        assert_eq!(tickreel_ghost_free(g), OK);

        // A checkpoint the entity never reached.
        let range = TickreelGhostRange {
            end_kind: TICKREEL_GHOST_BOUND_CHECKPOINT,
            end_value: 9,
            ..Default::default()
        };
        // SAFETY: valid string, range and out-pointer.
        let got = unsafe { tickreel_ghost_load_async(path.as_ptr(), 1, &range, &mut l) };
        assert_eq!(got, OK);
        let mut ready = false;
        while !ready {
            // SAFETY: `ready` is writable.
            assert_eq!(unsafe { tickreel_ghost_load_poll(l, &mut ready) }, OK);
        }
        // SAFETY: `g` is writable.
        let res = unsafe { tickreel_ghost_load_take(l, &mut g) };
        assert_eq!((res, g.is_null()), (TickreelResult::InvalidArgument, true));
        assert_eq!(tickreel_ghost_load_free(l), OK);
    }
}
