//! Ghost racing: one entity's run loaded from a recording (a ghost track), cursors that sample it
//! at any fractional tick, its splits, and the live time delta of a live player against it.

use std::ffi::c_char;
use std::sync::{Arc, Mutex};

use super::args::{self, Out, OutArray};
use super::handle::{self, HandleType};
use super::reader::{ReaderObj, TickreelReader};
use super::result::{FfiError, FfiResult, TickreelResult, guard};
use tickreel::ghost::{
    GhostCursor, GhostLoad, GhostRange, GhostState, GhostTrack, LiveDelta, RunEnd, RunStart,
};

/// A ghost track: one entity's run, decoded once into compact arrays. Opaque: create with
/// `tickreel_ghost_load` (or `_load_from_reader`, or `tickreel_ghost_load_take`), release with
/// `tickreel_ghost_free`. Cursors and deltas made from it keep the data alive on their own.
pub struct TickreelGhost {
    _private: [u8; 0],
}

/// Samples a ghost track at fractional ticks. Opaque: create with `tickreel_cursor_new`,
/// release with `tickreel_cursor_free`.
pub struct TickreelCursor {
    _private: [u8; 0],
}

/// The live time delta of a live player against a ghost. Opaque: create with
/// `tickreel_delta_new`, release with `tickreel_delta_free`.
pub struct TickreelDelta {
    _private: [u8; 0],
}

/// A ghost track being loaded on a background thread. Opaque: create with
/// `tickreel_ghost_load_async`, release with `tickreel_ghost_load_free`.
pub struct TickreelGhostLoad {
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

/// What `tickreel_ghost_info` reports about a ghost track.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TickreelGhostInfo {
    /// The entity whose run it is.
    pub entity: u32,
    /// Absolute tick of the recording at which the run starts (its `t = 0`).
    pub origin_tick: u32,
    /// The run's length in ticks (its last sample's tick offset).
    pub duration_ticks: u32,
    /// Number of pose samples.
    pub sample_count: usize,
    /// Number of splits (checkpoint markers in the run), for `tickreel_ghost_splits`.
    pub split_count: usize,
    /// Ticks per second of the source recording (seconds = ticks / tick_rate).
    pub tick_rate: f64,
    /// The run's length in seconds.
    pub duration_seconds: f64,
}

/// One split of a ghost: a checkpoint marker and its tick offset from the run's start.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickreelSplit {
    /// The checkpoint index.
    pub checkpoint: u32,
    /// Ticks from the run's start.
    pub tick: u32,
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

/// The object behind a ghost handle.
pub(crate) struct GhostObj {
    track: Arc<GhostTrack>,
}

impl HandleType for GhostObj {
    type Opaque = TickreelGhost;
    const TAG: u8 = 7;
    const NAME: &'static str = "ghost";
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

/// The object behind a delta handle.
pub(crate) struct DeltaObj {
    delta: Mutex<LiveDelta>,
}

impl HandleType for DeltaObj {
    type Opaque = TickreelDelta;
    const TAG: u8 = 9;
    const NAME: &'static str = "delta";
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

/// Reads a caller's range (NULL: the whole presence).
///
/// # Safety
/// `range` must be NULL or point to a readable `TickreelGhostRange`.
unsafe fn read_range(range: *const TickreelGhostRange) -> FfiResult<GhostRange> {
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

fn track_of(ghost: *mut TickreelGhost) -> FfiResult<Arc<GhostTrack>> {
    Ok(handle::get::<GhostObj>(ghost)?.track.clone())
}

/// Loads `entity`'s run in `range` (NULL: the entity's whole presence) from the finished `.reel`
/// file at `path` and stores the ghost's handle in `*out_ghost` (NULL on failure, when it can be
/// written). Reads only the chunks up to the run's end. Blocks for the I/O: on a server thread,
/// use `tickreel_ghost_load_async`.
///
/// Returns the reader's errors for the file (`TICKREEL_RESULT_IO`, `_CORRUPT`, `_TRUNCATED`...),
/// `TICKREEL_RESULT_INVALID_ARGUMENT` for an invalid range, an entity with no pose in it, or a
/// checkpoint the entity never reached.
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string; `range` must be NULL or point to a readable
/// `TickreelGhostRange`; `out_ghost` must be NULL or point to writable storage for one pointer.
///
/// Thread safety: any thread. A ghost may then be used from any thread, by any number of
/// threads at once (it is read only).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_ghost_load(
    path: *const c_char,
    entity: u32,
    range: *const TickreelGhostRange,
    out_ghost: *mut *mut TickreelGhost,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_ghost, "out_ghost") }?;
        out.set(std::ptr::null_mut());
        // SAFETY: caller contract: NULL or NUL-terminated.
        let path = unsafe { args::path(path, "path") }?;
        // SAFETY: caller contract: NULL or a readable range.
        let range = unsafe { read_range(range) }?;
        let track = GhostTrack::load_path(path, entity, range)?;
        out.set(handle::insert(GhostObj {
            track: Arc::new(track),
        })?);
        Ok(())
    })
}

/// Like `tickreel_ghost_load`, from a recording already open in `reader`.
///
/// # Safety
/// As `tickreel_ghost_load` (without `path`).
///
/// Thread safety: any thread, concurrently with any other call on the reader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_ghost_load_from_reader(
    reader: *mut TickreelReader,
    entity: u32,
    range: *const TickreelGhostRange,
    out_ghost: *mut *mut TickreelGhost,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_ghost, "out_ghost") }?;
        out.set(std::ptr::null_mut());
        // SAFETY: caller contract: NULL or a readable range.
        let range = unsafe { read_range(range) }?;
        let obj = handle::get::<ReaderObj>(reader)?;
        let track = GhostTrack::load(&obj.reader, entity, range)?;
        out.set(handle::insert(GhostObj {
            track: Arc::new(track),
        })?);
        Ok(())
    })
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

/// Frees a ghost. Cursors and deltas made from it stay usable (they share its data).
/// `tickreel_ghost_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or invalid
/// handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. Calls on the same ghost running in other threads finish normally;
/// calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_ghost_free(ghost: *mut TickreelGhost) -> TickreelResult {
    guard(|| handle::remove::<GhostObj>(ghost).map(drop))
}

/// Stores what the ghost's run spans in `*out_info`: entity, origin tick, duration, sample and
/// split counts, tick rate.
///
/// # Safety
/// `out_info` must be NULL or point to a writable `TickreelGhostInfo`.
///
/// Thread safety: any thread, concurrently with any other call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_ghost_info(
    ghost: *mut TickreelGhost,
    out_info: *mut TickreelGhostInfo,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one info struct.
        let out = unsafe { Out::new(out_info, "out_info") }?;
        let t = track_of(ghost)?;
        out.set(TickreelGhostInfo {
            entity: t.entity(),
            origin_tick: t.origin_tick(),
            duration_ticks: t.duration_ticks(),
            sample_count: t.len(),
            split_count: t.splits().len(),
            tick_rate: t.tick_rate(),
            duration_seconds: t.duration_seconds(),
        });
        Ok(())
    })
}

/// Copies the ghost's splits (checkpoint markers in recorded order, with their tick offsets from
/// the run's start) into `splits`, and stores their number in `*out_count`.
///
/// `*out_count` is always set. If it exceeds `capacity`, nothing is copied and
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `splits` may be NULL when `capacity` is 0, to
/// query the count.
///
/// # Safety
/// `splits` must point to `capacity` writable `TickreelSplit`s (or `capacity` must be 0);
/// `out_count` must be NULL or point to a writable `size_t`.
///
/// Thread safety: any thread, concurrently with any other call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_ghost_splits(
    ghost: *mut TickreelGhost,
    splits: *mut TickreelSplit,
    capacity: usize,
    out_count: *mut usize,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: `capacity` writable splits at `splits`, or capacity 0.
        let out = unsafe { OutArray::new(splits, capacity, "splits") }?;
        // SAFETY: caller contract: NULL or writable for one size_t.
        let count = unsafe { Out::new(out_count, "out_count") }?;
        let t = track_of(ghost)?;
        let s = t.splits();
        count.set(s.len());
        if s.len() > out.capacity() {
            return Err(FfiError::BufferTooSmall(format!(
                "{} splits, room for {}",
                s.len(),
                out.capacity()
            )));
        }
        for (i, sp) in s.iter().enumerate() {
            out.set(
                i,
                TickreelSplit {
                    checkpoint: sp.checkpoint,
                    tick: sp.tick,
                },
            );
        }
        Ok(())
    })
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

fn check_finite(name: &str, v: f64) -> FfiResult {
    if v.is_finite() {
        Ok(())
    } else {
        Err(FfiError::Invalid(format!(
            "`{name}` is {v}; it must be finite"
        )))
    }
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
        check_finite("live_t", live_t)?;
        check_finite("x", x)?;
        check_finite("y", y)?;
        check_finite("z", z)?;
        let reading = with_delta(delta, |d| d.update(live_t, [x, y, z]))?;
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
    use crate::ffi::batch::*;
    use crate::ffi::writer::*;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    /// Entity 1 runs along x for 60 ticks from tick 100, crossing checkpoints 0, 1, 2 at +0,
    /// +20, +59; entity 2 stands still.
    fn record(dir: &std::path::Path) -> CString {
        let path = CString::new(dir.join("g.reel").to_str().unwrap()).unwrap();
        let mut w = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer; NULL options.
        let got = unsafe { tickreel_writer_create(path.as_ptr(), std::ptr::null(), &mut w) };
        assert_eq!(got, OK);
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        for k in 0..60u32 {
            assert_eq!(tickreel_batch_clear(b), OK);
            let x = f64::from(k) * 0.25;
            if k == 0 {
                assert_eq!(
                    tickreel_batch_add_entity(b, 1, 1, x, 64.0, 0.0, 90.0, 0.0),
                    OK
                );
                assert_eq!(
                    tickreel_batch_add_entity(b, 2, 1, 5.0, 64.0, 5.0, 0.0, 0.0),
                    OK
                );
            } else {
                assert_eq!(tickreel_batch_add_pose(b, 1, x, 64.0, 0.0, 90.0, 0.0), OK);
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
            assert_eq!(tickreel_writer_write_batch(w, 100 + k, b), OK);
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

    fn sample(c: *mut TickreelCursor, t: f64) -> TickreelGhostSample {
        let mut s = TickreelGhostSample::default();
        // SAFETY: `s` is writable.
        assert_eq!(unsafe { tickreel_cursor_sample(c, t, &mut s) }, OK);
        s
    }

    #[test]
    fn a_ghost_loads_samples_splits_and_deltas() {
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

        // A checkpoint the entity never reached, and an entity that is not there.
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
