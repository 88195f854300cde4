//! Ghost loads (`TickreelGhostLoad`): a ghost track loaded on a background thread, polled and
//! taken without blocking.

use std::ffi::c_char;
use std::sync::{Arc, Mutex};

use super::{GhostObj, TickreelGhost, TickreelGhostRange, read_range};
use crate::ffi::args::{self, Out};
use crate::ffi::handle::{self, HandleType};
use crate::ffi::result::{FfiError, FfiResult, TickreelResult, guard};
use tickreel::ghost::{GhostLoad, GhostTrack};

/// A ghost track being loaded on a background thread. Opaque: create with
/// `tickreel_ghost_load_async`, release with `tickreel_ghost_load_free`.
pub struct TickreelGhostLoad {
    _private: [u8; 0],
}

/// The object behind an asynchronous load's handle. Dropping it cancels the load.
pub(crate) struct GhostLoadObj {
    load: Mutex<LoadState>,
}

struct LoadState {
    load: GhostLoad,
    taken: bool,
}

impl HandleType for GhostLoadObj {
    type Opaque = TickreelGhostLoad;
    const TAG: u8 = 10;
    const NAME: &'static str = "ghost load";
}

/// Starts loading `entity`'s run in `range` (NULL: its whole presence) from the `.reel` file at
/// `path` on a background thread, and stores the load's handle in `*out_load` (NULL on failure,
/// when it can be written). Never blocks: poll with `tickreel_ghost_load_poll` and take the
/// ghost with `tickreel_ghost_load_take`. Errors of the load itself (file, range) are reported
/// by `_take`.
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string; `range` must be NULL or point to a readable
/// `TickreelGhostRange`; `out_load` must be NULL or point to writable storage for one pointer.
///
/// Thread safety: any thread. The load's handle may then be used from any thread; its calls are
/// serialised by an internal lock.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_ghost_load_async(
    path: *const c_char,
    entity: u32,
    range: *const TickreelGhostRange,
    out_load: *mut *mut TickreelGhostLoad,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_load, "out_load") }?;
        out.set(std::ptr::null_mut());
        // SAFETY: caller contract: NULL or NUL-terminated.
        let path = unsafe { args::path(path, "path") }?;
        // SAFETY: caller contract: NULL or a readable range.
        let range = unsafe { read_range(range) }?;
        let load = GhostTrack::load_async(path, entity, range);
        out.set(handle::insert(GhostLoadObj {
            load: Mutex::new(LoadState { load, taken: false }),
        })?);
        Ok(())
    })
}

fn with_load<R>(
    load: *mut TickreelGhostLoad,
    f: impl FnOnce(&mut LoadState) -> FfiResult<R>,
) -> FfiResult<R> {
    let obj = handle::get::<GhostLoadObj>(load)?;
    let mut l = obj
        .load
        .lock()
        .map_err(|_| FfiError::Poisoned("ghost load"))?;
    f(&mut l)
}

/// Stores in `*out_ready` whether the load has finished (successfully or not) and its result is
/// waiting to be taken with `tickreel_ghost_load_take`. Never blocks.
///
/// # Safety
/// `out_ready` must be NULL or point to a writable `bool`.
///
/// Thread safety: any thread; calls on one load are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_ghost_load_poll(
    load: *mut TickreelGhostLoad,
    out_ready: *mut bool,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one bool.
        let out = unsafe { Out::new(out_ready, "out_ready") }?;
        out.set(with_load(load, |l| Ok(l.load.is_ready()))?);
        Ok(())
    })
}

/// Takes the loaded ghost: stores its handle in `*out_ghost` (free it with `tickreel_ghost_free`).
/// Never blocks.
///
/// Returns `TICKREEL_RESULT_NOT_READY` while the load runs, the load's error code (e.g.
/// `TICKREEL_RESULT_IO`, `_INVALID_ARGUMENT`) if it failed, `TICKREEL_RESULT_INVALID_STATE` if
/// the result was already taken. `*out_ghost` is NULL unless the call succeeded (when it can be
/// written).
///
/// # Safety
/// `out_ghost` must be NULL or point to writable storage for one pointer.
///
/// Thread safety: any thread; calls on one load are serialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_ghost_load_take(
    load: *mut TickreelGhostLoad,
    out_ghost: *mut *mut TickreelGhost,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_ghost, "out_ghost") }?;
        out.set(std::ptr::null_mut());
        let track = with_load(load, |l| {
            if let Some(r) = l.load.try_take() {
                l.taken = true;
                return Ok(r?);
            }
            if !l.taken {
                Err(tickreel::Error::NotReady("the ghost is still loading".into()).into())
            } else {
                Err(tickreel::Error::InvalidState(
                    "the ghost load's result was already taken".into(),
                )
                .into())
            }
        })?;
        out.set(handle::insert(GhostObj {
            track: Arc::new(track),
        })?);
        Ok(())
    })
}

/// Frees a load's handle; a load still running is cancelled (between chunks) and its result
/// dropped. `tickreel_ghost_load_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed
/// or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`. Does not wait for the background
/// thread, which ends on its own.
///
/// Thread safety: any thread. A call on the same load still running in another thread finishes
/// normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_ghost_load_free(load: *mut TickreelGhostLoad) -> TickreelResult {
    guard(|| handle::remove::<GhostLoadObj>(load).map(drop))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::ghost::tests::record;
    use crate::ffi::ghost::{
        TICKREEL_GHOST_BOUND_CHECKPOINT, TickreelGhostInfo, tickreel_ghost_free,
        tickreel_ghost_info,
    };

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
