//! Ghost racing: one entity's run loaded from a recording (a ghost track, `TickreelGhost`), its
//! info and its splits (loads on a background thread are pendings, `crate::ffi::pending`), the cursors that sample a
//! ghost at any fractional tick in [`cursor`], the live time delta of a live player against it in
//! [`delta`].

//!
//! The operations are `crate::api::ghost` (their entry points are generated); this module holds
//! their C types and how those cross into C (the info, `TickreelGhostInfo`, is the record
//! `crate::api::ghost::GhostInfo`).

use super::convert::CArg;
use super::result::{FfiError, FfiResult};
use tickreel::ghost::{GhostRange, RunEnd, RunStart};

// cbindgen emits a module's declarations after its parent's, submodules in `mod` order: these are
// in the order of `include/tickreel.h` (one per group, so that rustfmt does not sort them).
pub mod cursor;

pub mod delta;

pub mod set;

pub mod gold;

/// A ghost track: one entity's run, decoded once into compact arrays. Opaque: create with
/// `tickreel_ghost_load` (or `_load_from_reader`, or `tickreel_pending_take_ghost`), release with
/// `tickreel_ghost_free`. Cursors and deltas made from it keep the data alive on their own.
pub struct TickreelGhost {
    _private: [u8; 0],
}

/// A bound of `TickreelGhostRange`: the entity's first pose (as a start) or last pose (as an
/// end); the bound's `value` is ignored.
pub const TICKREEL_GHOST_BOUND_EDGE: u32 = 0;
/// A bound of `TickreelGhostRange`: an absolute tick of the recording (`value`).
pub const TICKREEL_GHOST_BOUND_TICK: u32 = 1;
/// A bound of `TickreelGhostRange`: a checkpoint marker (`value` is its index, as given to
/// `tickreel_batch_checkpoint`). As a start, the last crossing before the run's end counts (after
/// restarts); as an end, the first crossing after the start (strictly after it for a lap).
pub const TICKREEL_GHOST_BOUND_CHECKPOINT: u32 = 2;

/// Which part of an entity's recorded life is the run. `{0, 0, 0, 0}` (or a NULL pointer) is
/// the whole presence of the entity.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct TickreelGhostRange {
    /// `TICKREEL_GHOST_BOUND_*`: where the run starts (its `t = 0`).
    pub start_kind: u32,
    /// The start tick or checkpoint index.
    pub start_value: u32,
    /// `TICKREEL_GHOST_BOUND_*`: where the run ends (the ghost's finish).
    pub end_kind: u32,
    /// The end tick or checkpoint index.
    pub end_value: u32,
}

impl TickreelGhostRange {
    fn to_core(self) -> FfiResult<GhostRange> {
        let bad = |which: &str, k: u32| {
            Err(FfiError::Invalid(format!(
                "range.{which}_kind {k} is not a TICKREEL_GHOST_BOUND_* value"
            )))
        };
        let start = match self.start_kind {
            TICKREEL_GHOST_BOUND_EDGE => RunStart::First,
            TICKREEL_GHOST_BOUND_TICK => RunStart::Tick(self.start_value),
            TICKREEL_GHOST_BOUND_CHECKPOINT => RunStart::Checkpoint(self.start_value),
            k => return bad("start", k),
        };
        let end = match self.end_kind {
            TICKREEL_GHOST_BOUND_EDGE => RunEnd::Last,
            TICKREEL_GHOST_BOUND_TICK => RunEnd::Tick(self.end_value),
            TICKREEL_GHOST_BOUND_CHECKPOINT => RunEnd::Checkpoint(self.end_value),
            k => return bad("end", k),
        };
        Ok(GhostRange { start, end })
    }
}

/// A caller's range (NULL: the whole presence).
impl CArg for GhostRange {
    type C = *const TickreelGhostRange;
    type Stored = GhostRange;
    unsafe fn store(range: *const TickreelGhostRange, _: &'static str) -> FfiResult<GhostRange> {
        if range.is_null() {
            return Ok(GhostRange::all());
        }
        if !range.is_aligned() {
            return Err(FfiError::Invalid("`range` is misaligned".into()));
        }
        // SAFETY: non-NULL, aligned and readable by the caller's contract; the struct is four
        // `u32`s, valid for any bit pattern.
        unsafe { range.read() }.to_core()
    }
}

/// The tests' recording, for the tests of ghost loads (`crate::ffi::pending`).
#[cfg(test)]
pub(crate) use tests::record;

#[cfg(test)]
mod tests {
    //! Also the fixture of the tests of [`cursor`](super::cursor), [`delta`](super::delta) and
    //! of ghost loads (`crate::ffi::pending`).

    use super::*;
    use crate::ffi::batch::*;
    use crate::ffi::generated::ghost::*;
    use crate::ffi::generated::records::{TickreelGhostInfo, TickreelSplit};
    use crate::ffi::result::TickreelResult;
    use crate::ffi::writer::*;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    /// Entity 1 runs along x for 60 ticks from tick 100, crossing checkpoints 0, 1, 2 at +0,
    /// +20, +59; entity 2 stands still.
    pub(crate) fn record(dir: &std::path::Path) -> CString {
        let path = CString::new(dir.join("g.reel").to_str().unwrap()).unwrap();
        let mut w = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer; NULL options.
        let got =
            unsafe { tickreel_reel_writer_create(path.as_ptr(), std::ptr::null_mut(), &mut w) };
        assert_eq!(got, OK);
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        for k in 0..60u32 {
            assert_eq!(tickreel_batch_clear(b), OK);
            let x = f64::from(k) * 0.25;
            if k == 0 {
                assert_eq!(
                    tickreel_batch_entity_add(b, 1, 1, x, 64.0, 0.0, 90.0, 0.0),
                    OK
                );
                assert_eq!(
                    tickreel_batch_entity_add(b, 2, 1, 5.0, 64.0, 5.0, 0.0, 0.0),
                    OK
                );
            } else {
                assert_eq!(tickreel_batch_pose(b, 1, x, 64.0, 0.0, 90.0, 0.0), OK);
            }
            if matches!(k, 0 | 20 | 59) {
                assert_eq!(
                    tickreel_batch_checkpoint(
                        b,
                        1,
                        [0, 20, 59].iter().position(|&c| c == k).unwrap() as u32
                    ),
                    OK
                );
            }
            assert_eq!(tickreel_reel_writer_write_batch(w, 100 + k, b), OK);
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

    #[test]
    fn a_ghost_loads_and_reports_its_info_and_splits() {
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
        let mut info = TickreelGhostInfo::default();
        // SAFETY: `info` is writable.
        assert_eq!(unsafe { tickreel_ghost_info(g, &mut info) }, OK);
        assert_eq!(
            (
                info.entity,
                info.origin_tick,
                info.duration_ticks,
                info.split_count
            ),
            (1, 100, 59, 3)
        );
        assert_eq!(info.tick_rate, 20.0);
        let mut splits = [TickreelSplit::default(); 3];
        let mut n = 0;
        // SAFETY: capacity 0 with NULL is a count query.
        let res = unsafe { tickreel_ghost_splits(g, std::ptr::null_mut(), 0, &mut n) };
        assert_eq!((res, n), (TickreelResult::BufferTooSmall, 3));
        // SAFETY: `splits` has room for 3.
        assert_eq!(
            unsafe { tickreel_ghost_splits(g, splits.as_mut_ptr(), 3, &mut n) },
            OK
        );
        assert_eq!(
            splits[1],
            TickreelSplit {
                checkpoint: 1,
                tick: 20
            }
        );
        assert_eq!(tickreel_ghost_free(g), OK);
    }

    #[test]
    fn an_absent_entity_and_an_invalid_range_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = record(dir.path());
        let mut g = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        let res = unsafe { tickreel_ghost_load(path.as_ptr(), 77, std::ptr::null(), &mut g) };
        assert_eq!(res, TickreelResult::InvalidArgument);
        let bad = TickreelGhostRange {
            start_kind: 3,
            ..Default::default()
        };
        // SAFETY: valid string, range and out-pointer.
        let res = unsafe { tickreel_ghost_load(path.as_ptr(), 1, &bad, &mut g) };
        assert_eq!(res, TickreelResult::InvalidArgument);
    }
}
