//! Ghost racing ([`tickreel::ghost`]): one entity's run loaded from a recording (a ghost), its
//! info and splits, cursors that sample it at any fractional tick, the live time delta of a live
//! player against it, and loads on a background thread; several ghosts sampled together (a ghost
//! set) and a live attempt's splits against the player's best segments (gold splits).

use std::path::Path;
use std::sync::Arc;

use tickreel_sync::sync::Mutex;

use crate::api::pending::{Kind, Outcome, Pending};
use crate::api::reader::Reader;
use crate::api::{New, Released, Rows};
use crate::shared::handle::HandleType;
use tickreel::error::check_finite;
use tickreel::ghost::{
    self, DeltaReading, GhostRange, GhostSample, GhostState, GhostTrack, GoldSplit, Split,
};
use tickreel_bridge_macros::{bridge_fn, bridge_struct};

/// A ghost track (C: `TickreelGhost`, Java: `Ghost`): read only, shared with the cursors and
/// deltas made from it.
pub struct Ghost(pub(crate) Arc<GhostTrack>);

impl HandleType for Ghost {
    const TAG: u8 = 7;
    const NAME: &'static str = "ghost";
}

/// A cursor (C: `TickreelGhostCursor`, Java: `GhostCursor`); calls are serialised by its lock.
pub struct GhostCursor(Mutex<ghost::GhostCursor>);

impl HandleType for GhostCursor {
    const TAG: u8 = 8;
    const NAME: &'static str = "ghost cursor";
}

/// A live delta (C: `TickreelLiveDelta`, Java: `LiveDelta`); calls are serialised by its lock.
pub struct LiveDelta(Mutex<ghost::LiveDelta>);

impl HandleType for LiveDelta {
    const TAG: u8 = 9;
    const NAME: &'static str = "live delta";
}

/// What `tickreel_ghost_info` reports about a ghost track.
#[bridge_struct(c = "TickreelGhostInfo", what = "ghost info")]
pub struct GhostInfo {
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
#[bridge_struct(c = "TickreelSplit", what = "splits", of = "tickreel::ghost::Split")]
pub struct SplitFields {
    /// The checkpoint index.
    pub checkpoint: u32,
    /// Ticks from the run's start.
    pub tick: u32,
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
/// Thread safety: any thread. A ghost may then be used from any thread, by any number of
/// threads at once (it is read only).
#[bridge_fn(c = "tickreel_ghost_load", c_out = "out_ghost", java = "ghostLoad")]
pub fn load(path: &Path, entity: u32, range: GhostRange) -> tickreel::Result<New<Ghost>> {
    let track = GhostTrack::load_path(path, entity, range)?;
    Ok(New(Ghost(Arc::new(track))))
}

/// Like `tickreel_ghost_load`, from a recording already open in `reader`.
///
/// Thread safety: any thread, concurrently with any other call on the reader.
#[bridge_fn(c = "tickreel_ghost_load_from_reader", c_out = "out_ghost")]
pub fn load_from_reader(
    reader: &Reader,
    entity: u32,
    range: GhostRange,
) -> tickreel::Result<New<Ghost>> {
    let track = GhostTrack::load(&reader.0, entity, range)?;
    Ok(New(Ghost(Arc::new(track))))
}

/// Frees a ghost. Cursors and deltas made from it stay usable (they share its data).
/// `tickreel_ghost_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or invalid
/// handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. Calls on the same ghost running in other threads finish normally;
/// calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_ghost_free")]
pub fn free(_ghost: Released<Ghost>) {}

/// Stores what the ghost's run spans in `*out_info`: entity, origin tick, duration, sample and
/// split counts, tick rate.
///
/// Thread safety: any thread, concurrently with any other call.
#[bridge_fn(
    c = "tickreel_ghost_info",
    c_out = "out_info",
    c_out_type = "TickreelGhostInfo",
    java = "ghostInfo"
)]
pub fn info(ghost: &Ghost) -> GhostInfo {
    let t = &ghost.0;
    GhostInfo {
        entity: t.entity(),
        origin_tick: t.origin_tick(),
        duration_ticks: t.duration_ticks(),
        sample_count: t.len(),
        split_count: t.splits().len(),
        tick_rate: t.tick_rate(),
        duration_seconds: t.duration_seconds(),
    }
}

/// Copies the ghost's splits (checkpoint markers in recorded order, with their tick offsets from
/// the run's start) into `splits`, and stores their number in `*out_count`.
///
/// `*out_count` is always set. If it exceeds `capacity`, nothing is copied and
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `splits` may be NULL when `capacity` is 0, to
/// query the count.
///
/// Thread safety: any thread, concurrently with any other call.
#[bridge_fn(
    c = "tickreel_ghost_splits",
    c_out_array = "splits",
    c_out_type = "TickreelSplit",
    java = "ghostSplits"
)]
pub fn splits(ghost: &Ghost) -> Rows<'_, Split> {
    Rows::from(ghost.0.splits())
}

/// Creates a cursor over the ghost, at the start of its run with no time shift, and stores its
/// handle in `*out_cursor` (NULL on failure, when it can be written).
///
/// Thread safety: any thread. A cursor keeps its position between calls: give each viewer (or
/// thread) its own; calls on one cursor are serialised by an internal lock.
#[bridge_fn(
    c = "tickreel_ghost_cursor_new",
    c_out = "out_cursor",
    java = "ghostCursorNew"
)]
pub fn cursor_new(ghost: &Ghost) -> New<GhostCursor> {
    New(GhostCursor(Mutex::new(ghost::GhostCursor::new(
        Arc::clone(&ghost.0),
    ))))
}

/// Frees a cursor. `tickreel_ghost_cursor_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a
/// freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A call on the same cursor still running in another thread
/// finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_ghost_cursor_free")]
pub fn cursor_free(_cursor: Released<GhostCursor>) {}

/// Stores the ghost's pose at `t` ticks from the (shifted) start of its run in `*out_sample`.
/// `t` is fractional: sample at your frame rate (e.g. `t += 20.0 / 60.0` per frame for a 20
/// ticks/s recording shown at 60 Hz). Between samples the pose is a monotone cubic Hermite
/// interpolation, never across a teleport; at every recorded tick it is exactly the recorded
/// pose. Before the start (or for a NaN `t`) the ghost waits at its first pose
/// (`TICKREEL_GHOST_NOT_STARTED`); at or after the finish it stays at its last
/// (`TICKREEL_GHOST_FINISHED`). O(1) when `t` moves forward a little from the previous call;
/// never allocates.
///
/// Thread safety: any thread; calls on one cursor are serialised.
#[bridge_fn(
    c = "tickreel_ghost_cursor_sample",
    c_out = "out_sample",
    c_out_type = "TickreelGhostSample",
    java = "ghostCursorSample",
    java_fill
)]
pub fn cursor_sample(cursor: &GhostCursor, t: f64) -> GhostSample {
    cursor.0.lock().sample(t)
}

/// Delays the ghost by `ticks` (negative: it starts earlier): `tickreel_ghost_cursor_sample(c, t)`
/// then shows the run at `t - ticks`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `ticks` is not finite.
///
/// Thread safety: any thread; calls on one cursor are serialised.
#[bridge_fn(
    c = "tickreel_ghost_cursor_set_time_shift",
    java = "ghostCursorSetTimeShift"
)]
pub fn cursor_set_time_shift(cursor: &GhostCursor, ticks: f64) -> tickreel::Result<()> {
    let ticks = check_finite("ticks", ticks)?;
    cursor.0.lock().set_time_shift(ticks);
    Ok(())
}

/// Creates a live delta against the ghost (no time shift) and stores its handle in `*out_delta`
/// (NULL on failure, when it can be written).
///
/// Thread safety: any thread. A delta follows one live run: give each live player their own;
/// calls on one delta are serialised by an internal lock.
#[bridge_fn(
    c = "tickreel_live_delta_new",
    c_out = "out_delta",
    java = "liveDeltaNew"
)]
pub fn delta_new(ghost: &Ghost) -> New<LiveDelta> {
    New(LiveDelta(Mutex::new(ghost::LiveDelta::new(Arc::clone(
        &ghost.0,
    )))))
}

/// Frees a delta. `tickreel_live_delta_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed
/// or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A call on the same delta still running in another thread finishes
/// normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_live_delta_free")]
pub fn delta_free(_delta: Released<LiveDelta>) {}

/// The live player, `live_t` ticks after the start of their run, is at (`x`, `y`, `z`) blocks:
/// matches that position to the nearest point of the ghost's path and stores how far behind
/// (positive) or ahead (negative) of the ghost they are, in seconds, in `*out_seconds`. The
/// value shown is smoothed (a sign flips only past 0.1 s, the value moves in steps of 0.02 s) so
/// that it does not flicker. Costs O(a small window); never allocates.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if any argument is not finite.
///
/// Thread safety: any thread; calls on one delta are serialised.
#[bridge_fn(
    c = "tickreel_live_delta_update",
    c_out = "out_seconds",
    c_out_type = "f64",
    java = "liveDeltaUpdate",
    java_fill
)]
pub fn delta_update(
    delta: &LiveDelta,
    live_t: f64,
    x: f64,
    y: f64,
    z: f64,
) -> tickreel::Result<DeltaReading> {
    delta.0.lock().try_update(live_t, [x, y, z])
}

/// Delays the ghost by `ticks` for this delta (as `tickreel_ghost_cursor_set_time_shift`).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `ticks` is not finite.
///
/// Thread safety: any thread; calls on one delta are serialised.
#[bridge_fn(
    c = "tickreel_live_delta_set_time_shift",
    java = "liveDeltaSetTimeShift"
)]
pub fn delta_set_time_shift(delta: &LiveDelta, ticks: f64) -> tickreel::Result<()> {
    let ticks = check_finite("ticks", ticks)?;
    delta.0.lock().set_time_shift(ticks);
    Ok(())
}

/// Forgets the previous match and the smoothed value: call when the live player starts a new
/// attempt.
///
/// Thread safety: any thread; calls on one delta are serialised.
#[bridge_fn(c = "tickreel_live_delta_reset", java = "liveDeltaReset")]
pub fn delta_reset(delta: &LiveDelta) {
    delta.0.lock().reset();
}

/// Starts loading `entity`'s run in `range` (NULL: its whole presence) from the `.reel` file at
/// `path` on a background thread, and stores the pending's handle in `*out_pending` (NULL on
/// failure, when it can be written). Never blocks: poll it with `tickreel_pending_poll` and take
/// the ghost with `tickreel_pending_take_ghost`, which reports the load's own errors (file,
/// range). Freeing the pending first cancels the load.
///
/// Thread safety: any thread. The pending may then be used from any thread.
#[bridge_fn(
    c = "tickreel_ghost_load_async",
    c_out = "out_pending",
    java = "ghostLoadAsync"
)]
pub fn load_async(path: &Path, entity: u32, range: GhostRange) -> New<Pending> {
    Pending::ghost(GhostTrack::load_async(path.to_path_buf(), entity, range))
}

/// Several ghosts sampled together (C: `TickreelGhostSet`, Java: `GhostSet`): the top N, a
/// personal best, a chosen rank, each with its own cursor; calls are serialised by its lock.
pub struct GhostSet(pub(crate) Mutex<ghost::GhostSet>);

impl HandleType for GhostSet {
    const TAG: u8 = 21;
    const NAME: &'static str = "ghost set";
}

/// A live attempt's splits against the player's gold segments (C: `TickreelGoldSplits`, Java:
/// `GoldSplits`); calls are serialised by its lock.
pub struct GoldSplits(Mutex<ghost::GoldSplits>);

impl HandleType for GoldSplits {
    const TAG: u8 = 22;
    const NAME: &'static str = "gold splits";
}

/// Numbers a ghost set writes per ghost into the caller's buffer, in this order: `t, x, y, z,
/// yaw, pitch, flags, state` (as `TickreelGhostSample`'s fields; state 0 not started, 1 running,
/// 2 finished).
pub const GHOST_SAMPLE_VALUES: usize = 8;

/// Creates an empty ghost set and stores its handle in `*out_set` (NULL on failure, when it can
/// be written). Add ghosts with `tickreel_ghost_set_push`, or get a course's from the catalog
/// with `tickreel_catalog_load_ghosts`.
///
/// Thread safety: any thread. Calls on one set are serialised by an internal lock.
#[bridge_fn(c = "tickreel_ghost_set_new", c_out = "out_set", java = "ghostSetNew")]
pub fn set_new() -> New<GhostSet> {
    New(GhostSet(Mutex::new(ghost::GhostSet::new())))
}

/// Frees a ghost set (its ghosts stay usable through their own handles).
/// `tickreel_ghost_set_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or invalid
/// handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A call on the same set still running in another thread finishes
/// normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_ghost_set_free")]
pub fn set_free(_set: Released<GhostSet>) {}

/// Adds `ghost` to the set with a cursor of its own (no time shift) and stores its index in
/// `*out_index` (0 for the first).
///
/// Thread safety: any thread; calls on one set are serialised.
#[bridge_fn(
    c = "tickreel_ghost_set_push",
    c_out = "out_index",
    java = "ghostSetPush"
)]
pub fn set_push(set: &GhostSet, ghost: &Ghost) -> u32 {
    set.0.lock().push(Arc::clone(&ghost.0)) as u32
}

/// Stores the number of ghosts in the set in `*out_count`.
///
/// Thread safety: any thread; calls on one set are serialised.
#[bridge_fn(
    c = "tickreel_ghost_set_len",
    c_out = "out_count",
    java = "ghostSetLen"
)]
pub fn set_len(set: &GhostSet) -> u32 {
    set.0.lock().len() as u32
}

/// Stores ghost `index`'s run length in ticks in `*out_ticks`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` when the set has no ghost `index`.
///
/// Thread safety: any thread; calls on one set are serialised.
#[bridge_fn(
    c = "tickreel_ghost_set_duration",
    c_out = "out_ticks",
    java = "ghostSetDuration"
)]
pub fn set_duration(set: &GhostSet, index: u32) -> tickreel::Result<u32> {
    let set = set.0.lock();
    let track = set
        .track(index as usize)
        .ok_or_else(|| no_ghost(index, set.len()))?;
    Ok(track.duration_ticks())
}

fn no_ghost(index: u32, len: usize) -> tickreel::Error {
    tickreel::Error::invalid(format!("no ghost {index} in a set of {len}"))
}

/// Delays ghost `index` of the set by `ticks` (negative: it starts earlier), as
/// `tickreel_ghost_cursor_set_time_shift`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `ticks` is not finite or the set has no ghost
/// `index`.
///
/// Thread safety: any thread; calls on one set are serialised.
#[bridge_fn(c = "tickreel_ghost_set_set_time_shift", java = "ghostSetSetTimeShift")]
pub fn set_set_time_shift(set: &GhostSet, index: u32, ticks: f64) -> tickreel::Result<()> {
    let ticks = check_finite("ticks", ticks)?;
    let mut set = set.0.lock();
    let len = set.len();
    if set.set_time_shift(index as usize, ticks) {
        Ok(())
    } else {
        Err(no_ghost(index, len))
    }
}

/// Samples every ghost of the set at `t` ticks from the (shifted) start of its run, in one call:
/// ghost `i`'s pose is written at `out[8 * i ..]` as 8 numbers, `t, x, y, z, yaw, pitch, flags,
/// state` (`TickreelGhostSample`'s fields in order; state `TICKREEL_GHOST_NOT_STARTED`,
/// `_RUNNING` or `_FINISHED`). Stores the number of ghosts written in `*out_count`: the set's
/// size, or fewer when `out_len` holds fewer whole ghosts. Each ghost is sampled as
/// `tickreel_ghost_cursor_sample` samples it; never allocates.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `t` is not finite.
///
/// Thread safety: any thread; calls on one set are serialised.
#[bridge_fn(
    c = "tickreel_ghost_set_sample",
    c_out = "out_count",
    java = "ghostSetSample"
)]
pub fn set_sample(set: &GhostSet, t: f64, out: &mut [f64]) -> tickreel::Result<u32> {
    let t = check_finite("t", t)?;
    let mut set = set.0.lock();
    let n = set.len().min(out.len() / GHOST_SAMPLE_VALUES);
    for (i, o) in out
        .chunks_exact_mut(GHOST_SAMPLE_VALUES)
        .take(n)
        .enumerate()
    {
        let s = set.cursor_mut(i).expect("i < len").sample(t);
        o.copy_from_slice(&sample_values(&s));
    }
    Ok(n as u32)
}

/// The ghost at one moment, as filled in by `tickreel_ghost_cursor_sample`.
#[bridge_struct(
    c = "TickreelGhostSample",
    what = "ghost sample",
    of = "tickreel::ghost::GhostSample"
)]
pub struct GhostSampleFields {
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

/// A sample as the [`GHOST_SAMPLE_VALUES`] numbers a ghost set writes (the record's order).
pub fn sample_values(s: &GhostSample) -> [f64; GHOST_SAMPLE_VALUES] {
    let state = match s.state {
        GhostState::NotStarted => 0.0,
        GhostState::Running => 1.0,
        GhostState::Finished => 2.0,
    };
    [
        s.t,
        s.x,
        s.y,
        s.z,
        s.yaw,
        s.pitch,
        f64::from(s.flags),
        state,
    ]
}

/// A reading of gold splits, as filled in by `tickreel_gold_splits_checkpoint` and `_finish`.
#[bridge_struct(c = "TickreelGoldSplit", what = "gold split")]
#[derive(Default)]
pub struct GoldReading {
    /// A split was counted (the route's next checkpoint, or the finish after all of them); the
    /// fields below up to `new_gold` are zero otherwise.
    pub split: bool,
    /// The segment a split ended (0: from the start to the route's first checkpoint).
    pub segment: u32,
    /// The segment beat its gold (it is now the gold).
    pub new_gold: bool,
    /// Ticks from the live run's start to the split.
    pub live_ticks: f64,
    /// Ticks the live run took for the segment.
    pub segment_ticks: f64,
    /// The segment's gold before this split, in ticks.
    pub gold_ticks: f64,
    /// `segment_ticks - gold_ticks`: negative when faster than the gold.
    pub delta_ticks: f64,
    /// `delta_ticks` in seconds.
    pub delta_seconds: f64,
    /// The best possible time: at a split, the time so far plus the remaining gold; otherwise
    /// as `tickreel_gold_splits_best_possible`. In ticks.
    pub best_possible_ticks: f64,
    /// `best_possible_ticks` in seconds.
    pub best_possible_seconds: f64,
}

/// Creates a live attempt's splits against the player's gold segments and stores its handle in
/// `*out_splits` (NULL on failure, when it can be written): `route` lists the `route_len`
/// checkpoints crossed in order between the start and the finish, `gold` the best time of each
/// segment in ticks (`route_len + 1` of them: start to the first checkpoint, ..., last checkpoint
/// to the finish; a catalog's sum of best gives them), at `tick_rate` ticks a second.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` when `gold_len` is not `route_len + 1` or the tick
/// rate is not a positive number.
///
/// Thread safety: any thread. Give each live player their own; calls on one are serialised by an
/// internal lock.
#[bridge_fn(
    c = "tickreel_gold_splits_new",
    c_out = "out_splits",
    java = "goldSplitsNew"
)]
pub fn gold_new(route: &[u32], gold: &[u32], tick_rate: f64) -> tickreel::Result<New<GoldSplits>> {
    let g = ghost::GoldSplits::new(route, gold, tick_rate)?;
    Ok(New(GoldSplits(Mutex::new(g))))
}

/// Frees gold splits. `tickreel_gold_splits_free(NULL)` is a no-op returning
/// `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A call on the same splits still running in another thread finishes
/// normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_gold_splits_free")]
pub fn gold_free(_splits: Released<GoldSplits>) {}

/// The live player crossed `checkpoint` `live_ticks` after their start: stores the reading in
/// `*out_split`. When `checkpoint` is the route's next one, `split` is true and the reading holds
/// the segment's time against its gold (`delta_ticks` negative when faster), whether it is a new
/// gold (it then becomes the gold for the rest of this attempt and the next ones) and the best
/// possible time from this split (time so far plus the remaining gold). Any other crossing
/// (skipped, repeated, off the route) counts no split: `split` is false and only the best
/// possible time is set. Never allocates.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `live_ticks` is not finite.
///
/// Thread safety: any thread; calls on one are serialised.
#[bridge_fn(
    c = "tickreel_gold_splits_checkpoint",
    c_out = "out_split",
    c_out_type = "TickreelGoldSplit",
    java = "goldSplitsCheckpoint",
    java_fill
)]
pub fn gold_checkpoint(
    splits: &GoldSplits,
    checkpoint: u32,
    live_ticks: f64,
) -> tickreel::Result<GoldReading> {
    let live_ticks = check_finite("live_ticks", live_ticks)?;
    let mut g = splits.0.lock();
    let split = g.checkpoint(checkpoint, live_ticks);
    Ok(reading(&g, split, live_ticks))
}

/// The live player finished `live_ticks` after their start: stores the last segment's reading in
/// `*out_split` (as `tickreel_gold_splits_checkpoint`; `split` is false when a checkpoint of the
/// route was missed, the run having taken another route).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `live_ticks` is not finite.
///
/// Thread safety: any thread; calls on one are serialised.
#[bridge_fn(
    c = "tickreel_gold_splits_finish",
    c_out = "out_split",
    c_out_type = "TickreelGoldSplit",
    java = "goldSplitsFinish",
    java_fill
)]
pub fn gold_finish(splits: &GoldSplits, live_ticks: f64) -> tickreel::Result<GoldReading> {
    let live_ticks = check_finite("live_ticks", live_ticks)?;
    let mut g = splits.0.lock();
    let split = g.finish(live_ticks);
    Ok(reading(&g, split, live_ticks))
}

fn reading(g: &ghost::GoldSplits, split: Option<GoldSplit>, live_ticks: f64) -> GoldReading {
    let rate = g.tick_rate();
    let best = split.map_or_else(
        || g.best_possible_ticks(live_ticks),
        |s| s.best_possible_ticks,
    );
    let mut r = GoldReading {
        best_possible_ticks: best,
        best_possible_seconds: best / rate,
        ..GoldReading::default()
    };
    if let Some(s) = split {
        r.split = true;
        r.segment = u32::try_from(s.segment).unwrap_or(u32::MAX);
        r.new_gold = s.new_gold;
        r.live_ticks = s.live_ticks;
        r.segment_ticks = s.segment_ticks;
        r.gold_ticks = f64::from(s.gold_ticks);
        r.delta_ticks = s.delta_ticks;
        r.delta_seconds = s.delta_ticks / rate;
    }
    r
}

/// Stores the best possible time in ticks when the live player is `live_ticks` into the run in
/// `*out_ticks`: the last split's time, the current segment's elapsed time or its gold (the
/// larger), and the gold of the segments after it; the run's time once finished. Call every tick
/// for the live figure; O(1), never allocates.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `live_ticks` is not finite.
///
/// Thread safety: any thread; calls on one are serialised.
#[bridge_fn(
    c = "tickreel_gold_splits_best_possible",
    c_out = "out_ticks",
    java = "goldSplitsBestPossible"
)]
pub fn gold_best_possible(splits: &GoldSplits, live_ticks: f64) -> tickreel::Result<f64> {
    let live_ticks = check_finite("live_ticks", live_ticks)?;
    Ok(splits.0.lock().best_possible_ticks(live_ticks))
}

/// Stores the sum of the gold segments in ticks (the best possible time before the run starts,
/// new golds included) in `*out_ticks`.
///
/// Thread safety: any thread; calls on one are serialised.
#[bridge_fn(
    c = "tickreel_gold_splits_sum_of_best",
    c_out = "out_ticks",
    java = "goldSplitsSumOfBest"
)]
pub fn gold_sum_of_best(splits: &GoldSplits) -> u64 {
    splits.0.lock().sum_of_best_ticks()
}

/// Copies the gold of each segment in ticks (new golds included) into `gold` and stores how many
/// were written in `*out_count` (the route's segments, or fewer when `gold_len` is shorter).
///
/// Thread safety: any thread; calls on one are serialised.
#[bridge_fn(
    c = "tickreel_gold_splits_gold",
    c_out = "out_count",
    java = "goldSplitsGold"
)]
pub fn gold_gold(splits: &GoldSplits, gold: &mut [i64]) -> u32 {
    let g = splits.0.lock();
    let n = g.gold().len().min(gold.len());
    for (o, &v) in gold.iter_mut().zip(g.gold()) {
        *o = i64::from(v);
    }
    n as u32
}

/// Starts a new attempt (the gold, new golds included, is kept).
///
/// Thread safety: any thread; calls on one are serialised.
#[bridge_fn(c = "tickreel_gold_splits_reset", java = "goldSplitsReset")]
pub fn gold_reset(splits: &GoldSplits) {
    splits.0.lock().reset();
}

/// Takes the loaded ghost: stores a new handle to it in `*out_ghost` (free it with
/// `tickreel_ghost_free`). Never blocks; may be asked again (each call gives a new handle to the
/// same ghost).
///
/// Returns `TICKREEL_RESULT_NOT_READY` while the load runs, its failure's code if it failed (e.g.
/// `TICKREEL_RESULT_IO`, `_INVALID_ARGUMENT`), `TICKREEL_RESULT_INVALID_STATE` (naming the kind it
/// holds) for a pending of another kind. `*out_ghost` is NULL unless the call succeeded (when it
/// can be written).
///
/// Thread safety: any thread, concurrently with any other call on the handle.
#[bridge_fn(
    c = "tickreel_pending_take_ghost",
    c_out = "out_ghost",
    java = "pendingTakeGhost"
)]
pub fn take_ghost(pending: &Pending) -> tickreel::Result<New<Ghost>> {
    match pending.take(Kind::Ghost)? {
        Outcome::Ghost(g) => Ok(New(Ghost(g))),
        _ => unreachable!("a pending's result is of its kind"),
    }
}
