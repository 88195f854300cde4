//! Playing a recording: a playhead moved once per server tick, plus seeking and stepping
//! ([`tickreel::play::Playhead`]).

use std::path::Path;
use std::sync::Arc;

use tickreel_sync::sync::{Mutex, MutexGuard};

use crate::api::world_state::WorldChangeRow;
use crate::api::{New, Released, Rows};
use crate::shared::handle::HandleType;
use tickreel::format::EntityState;

use tickreel::play::{
    self, Direction, FollowOptions, LiveFollower, PlaybackContext, Reader, Recording, Update,
};
use tickreel_bridge_macros::{bridge_fn, bridge_struct};

/// A viewer's position in a recording (C: `TickreelPlayhead`, Java: `Playhead`). Calls on one
/// playhead are serialised by its lock. A playhead that follows a recording being written owns
/// its follower (whose polling thread stops when the playhead is freed).
pub struct Playhead {
    inner: Mutex<play::Playhead>,
    /// Kept alive with the playhead (dropping it stops and joins its thread).
    _follower: Option<LiveFollower>,
}

impl HandleType for Playhead {
    const TAG: u8 = 11;
    const NAME: &'static str = "playhead";
}

/// The update of the call that returned it, read under the playhead's lock.
pub struct UpdateRef<'a>(MutexGuard<'a, play::Playhead>);

impl UpdateRef<'_> {
    pub fn update(&self) -> &Update {
        self.0.update()
    }

    /// What the update did, as C reads it.
    pub fn info(&self) -> UpdateInfo {
        let u = self.update();
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        UpdateInfo {
            position: u.to,
            motion: u.motion as u32,
            ticks_covered: count(u.ticks().len()),
            stalled: u.stalled,
            at_edge: u.at_edge,
            waiting: u.waiting,
            fault_count: count(u.faults().len()),
            entity_count: count(u.entities().len()),
        }
    }
}

/// What one playhead call did, as filled in by `tickreel_playhead_advance` and friends.
#[bridge_struct(c = "TickreelUpdate", what = "updates")]
#[derive(Debug, Clone, Copy)]
pub struct UpdateInfo {
    /// Position after the call (a tick of the recording).
    pub position: u32,
    /// How the position moved: `TICKREEL_MOTION_STILL`, `_FORWARD` or `_JUMP`.
    pub motion: u32,
    /// Forward motion: recorded ticks covered by the call (0 for other motions).
    pub ticks_covered: u32,
    /// The data for the next ticks was not decoded yet: the position moved less than asked
    /// (maybe not at all); later calls catch up.
    pub stalled: bool,
    /// The position is the first (playing backward) or last (forward) tick of the recording.
    pub at_edge: bool,
    /// The recording has no tick yet: no position and no entity.
    pub waiting: bool,
    /// Chunks that could not be read during this call (playback continues past them).
    pub fault_count: u32,
    /// Live entities at `position` (what `tickreel_playhead_entities` reports).
    pub entity_count: u32,
}

/// Entity states a result lists (a seek, the playhead's live entities, those a jump added), and
/// what they are (for messages).
pub trait EntityStates {
    fn states(&self) -> &[EntityState];
    fn describe(&self) -> String;
}

impl EntityStates for tickreel::play::SeekState {
    fn states(&self) -> &[EntityState] {
        self.entities.as_slice()
    }
    fn describe(&self) -> String {
        format!("{} entities at tick {}", self.entities.len(), self.tick)
    }
}

impl EntityStates for Added<'_> {
    fn states(&self) -> &[EntityState] {
        self.entities()
    }
    fn describe(&self) -> String {
        format!("{} added entities", self.entities().len())
    }
}

impl EntityStates for EntityList<'_> {
    fn states(&self) -> &[EntityState] {
        self.entities()
    }
    fn describe(&self) -> String {
        format!(
            "{} entities at tick {}",
            self.entities().len(),
            self.position()
        )
    }
}

/// The entities the last update spawned (a jump), read under the playhead's lock.
pub struct Added<'a>(MutexGuard<'a, play::Playhead>);

impl Added<'_> {
    pub fn entities(&self) -> &[EntityState] {
        self.0.update().added()
    }
}

/// What a playhead update does to the world, as filled in by `tickreel_playhead_rebuild`.
#[bridge_struct(c = "TickreelRebuild")]
#[derive(Debug, Clone, Copy)]
pub struct Rebuild {
    /// Rebuild the world: restore the snapshot (`tickreel_playhead_rebuild_snapshot`, if
    /// `has_snapshot`), then re-apply the events of `tickreel_playhead_rebuild_events`. False: keep
    /// the world as it is.
    pub rebuild: bool,
    /// The recording has a snapshot at or before the position; without one, start from the world
    /// as it was when recording started.
    pub has_snapshot: bool,
    /// The tick whose events come after the snapshot (the snapshot is the world before them).
    pub snapshot_tick: Option<u32>,
    /// False if a chunk between the snapshot and the position could not be read: the events are
    /// incomplete (see `fault_count`).
    pub complete: bool,
}

/// Every live entity at the playhead's position, read under its lock.
pub struct EntityList<'a>(MutexGuard<'a, play::Playhead>);

impl EntityList<'_> {
    pub fn entities(&self) -> &[EntityState] {
        self.0.entities()
    }
    pub fn position(&self) -> u32 {
        self.0.position()
    }
}

/// Opens the recording at `path` (a finished `.reel` file or a live recording directory; a
/// NUL-terminated path in the platform's encoding) and stores, in `*out_playhead`, a paused
/// playhead at `start_tick` (clamped into the recording), playing forward at speed 1. Blocks to
/// read and decode the chunk holding that tick. Chunks are shared with other playheads through
/// the process-wide cache.
///
/// Its state before any call is a jump to the start: spawn everything from
/// `tickreel_playhead_entities`. A live recording without ticks yet gives a waiting playhead.
///
/// Returns `TICKREEL_RESULT_IO`, `TICKREEL_RESULT_CORRUPT`, `TICKREEL_RESULT_TRUNCATED` or
/// `TICKREEL_RESULT_UNSUPPORTED` as `tickreel_reader_open` does. On failure `*out_playhead` is set
/// to NULL (when it can be written).
///
/// Thread safety: any thread. A playhead may then be used from any thread; calls on one playhead
/// are serialised (one viewer: usually the server thread).
#[bridge_fn(
    c = "tickreel_playhead_open",
    c_out = "out_playhead",
    java = "playheadOpen"
)]
pub fn open(path: &Path, start_tick: u32) -> tickreel::Result<New<Playhead>> {
    on_reader(Reader::open_any(path)?, start_tick)
}

/// A paused playhead at `start_tick` over an opened reader (a file, a live directory's snapshot
/// or an object), sharing the process's chunk cache and prefetch threads.
pub(crate) fn on_reader(reader: Reader, start_tick: u32) -> tickreel::Result<New<Playhead>> {
    let rec = Recording::from_reader(reader, &PlaybackContext::global());
    let playhead = play::Playhead::new_at(rec, start_tick)?;
    Ok(New(Playhead {
        inner: Mutex::new(playhead),
        _follower: None,
    }))
}

/// Like `tickreel_playhead_open`, for a recording being written (by this process or another):
/// `path` is its final `.reel` path or its live directory. A background thread polls the live
/// directory (every 100 ms) so that new ticks appear to `tickreel_playhead_advance` within the
/// writer's flush interval plus one poll; `advance` still never does I/O. Before the first flush
/// the playhead is `waiting` and jumps to `start_tick` (clamped) once ticks arrive; at the live
/// edge it is `at_edge` and plays on as the recording grows. When the recording is finished and
/// compacted it goes on from the final file. `tickreel_playhead_free` stops the polling thread.
///
/// Returns `TICKREEL_RESULT_IO` if neither the live directory nor the final file exists.
///
/// Thread safety: any thread, as `tickreel_playhead_open`.
#[bridge_fn(
    c = "tickreel_playhead_follow",
    c_out = "out_playhead",
    java = "playheadFollow"
)]
pub fn follow(path: &Path, start_tick: u32) -> tickreel::Result<New<Playhead>> {
    on_follower(
        Recording::follow(path, FollowOptions::default())?,
        start_tick,
    )
}

/// A paused playhead at `start_tick` over a follower's recording (local or in a bucket), owning
/// the follower.
pub(crate) fn on_follower(
    follower: LiveFollower,
    start_tick: u32,
) -> tickreel::Result<New<Playhead>> {
    let playhead = play::Playhead::new_at(Arc::clone(follower.recording()), start_tick)?;
    Ok(New(Playhead {
        inner: Mutex::new(playhead),
        _follower: Some(follower),
    }))
}

/// Frees a playhead. `tickreel_playhead_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a
/// freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A call on the same playhead still running in another thread
/// finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_playhead_free")]
pub fn free(_playhead: Released<Playhead>) {}

/// Stores the last update in `*out_info` (`out_info` may be NULL): right after
/// `tickreel_playhead_open`, the jump to the start tick.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_current",
    c_out = "out_info",
    c_out_type = "TickreelUpdate",
    c_out_optional,
    java = "playheadCurrent",
    java_fill
)]
pub fn current(playhead: &Playhead) -> UpdateRef<'_> {
    UpdateRef(playhead.inner.lock())
}

/// Moves the playhead by one server tick's worth of playback (nothing while paused) and stores
/// what happened in `*out_info` (`out_info` may be NULL). Call once per server tick. Never blocks
/// on I/O: it uses chunks already decoded and asks background threads for the next ones; when
/// they are not ready the update is `stalled` and later calls catch up.
///
/// Apply a `TICKREEL_MOTION_FORWARD` or `TICKREEL_MOTION_JUMP` update by setting every entity's
/// state from `tickreel_playhead_entities` (despawning ids no longer listed).
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_advance",
    c_out = "out_info",
    c_out_type = "TickreelUpdate",
    c_out_optional,
    java = "playheadAdvance",
    java_fill
)]
pub fn advance(playhead: &Playhead) -> UpdateRef<'_> {
    let mut p = playhead.inner.lock();
    p.advance();
    UpdateRef(p)
}

/// Blocks until everything the next `tickreel_playhead_advance` needs is decoded, so that it
/// does not stall. For tools and tests that may wait; a server thread should not call it.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(c = "tickreel_playhead_prepare")]
pub fn prepare(playhead: &Playhead) {
    playhead.inner.lock().prepare();
}

/// Moves to `tick` (clamped into the recording) and stores the jump in `*out_info` (`out_info`
/// may be NULL). Blocks until its chunk is decoded. Returns `TICKREEL_RESULT_CORRUPT` or
/// `TICKREEL_RESULT_TRUNCATED`, leaving the position unchanged, if that chunk cannot be read.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_seek",
    c_out = "out_info",
    c_out_type = "TickreelUpdate",
    c_out_optional,
    java = "playheadSeek",
    java_fill
)]
pub fn seek(playhead: &Playhead, tick: u32) -> tickreel::Result<UpdateRef<'_>> {
    let mut p = playhead.inner.lock();
    p.seek(tick)?;
    Ok(UpdateRef(p))
}

/// Moves one recorded tick forward (playing or not; nothing at the last tick) and stores the
/// update in `*out_info` (`out_info` may be NULL). May block to decode the next chunk.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_step_forward",
    c_out = "out_info",
    c_out_type = "TickreelUpdate",
    c_out_optional,
    java = "playheadStepForward",
    java_fill
)]
pub fn step_forward(playhead: &Playhead) -> UpdateRef<'_> {
    let mut p = playhead.inner.lock();
    p.step_forward();
    UpdateRef(p)
}

/// Moves one recorded tick backward (playing or not; nothing at the first tick) and stores the
/// update (a jump) in `*out_info` (`out_info` may be NULL). May block to decode the chunk.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_step_back",
    c_out = "out_info",
    c_out_type = "TickreelUpdate",
    c_out_optional,
    java = "playheadStepBack",
    java_fill
)]
pub fn step_back(playhead: &Playhead) -> UpdateRef<'_> {
    let mut p = playhead.inner.lock();
    p.step_back();
    UpdateRef(p)
}

/// Starts playing, in the current direction at the current speed, from the next
/// `tickreel_playhead_advance`.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(c = "tickreel_playhead_play", java = "playheadPlay")]
pub fn play(playhead: &Playhead) {
    playhead.inner.lock().play();
}

/// Stops playing: `tickreel_playhead_advance` then reports `TICKREEL_MOTION_STILL`.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(c = "tickreel_playhead_pause", java = "playheadPause")]
pub fn pause(playhead: &Playhead) {
    playhead.inner.lock().pause();
}

/// Sets the speed in recorded ticks per server tick, from 0.25 to 16 (fractions accumulate: at
/// 0.25 one recorded tick is played every fourth advance). Returns
/// `TICKREEL_RESULT_INVALID_ARGUMENT`, leaving the speed unchanged, outside that range or for NaN.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(c = "tickreel_playhead_set_speed", java = "playheadSetSpeed")]
pub fn set_speed(playhead: &Playhead, speed: f64) -> tickreel::Result<()> {
    playhead.inner.lock().set_speed(speed)
}

/// Sets the direction of play: backward if `reverse`, forward otherwise. Reverse play reports
/// `TICKREEL_MOTION_JUMP` updates.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(c = "tickreel_playhead_set_reverse", java = "playheadSetReverse")]
pub fn set_reverse(playhead: &Playhead, reverse: bool) {
    let direction = if reverse {
        Direction::Backward
    } else {
        Direction::Forward
    };
    playhead.inner.lock().set_direction(direction);
}

/// Stores the current position in `*out_tick` (while waiting for a live recording's first tick,
/// the tick asked for).
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_position",
    c_out = "out_tick",
    java = "playheadPosition"
)]
pub fn position(playhead: &Playhead) -> u32 {
    playhead.inner.lock().position()
}

/// Copies the state of every live entity at the current position into `states`, sorted by
/// entity id, exactly as `tickreel_reader_seek` would at that tick.
///
/// `*out_count` is always set to the number of entities. If it exceeds `capacity`, nothing is
/// copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room for
/// `*out_count` states. `states` may be NULL when `capacity` is 0, to query the count.
///
/// Thread safety: any thread; calls on one playhead are serialised.
///
/// (Java: fills its `long[]` with 8 longs per entity if they fit and returns the count, so that a
/// reused array costs nothing per call.)
#[bridge_fn(
    c = "tickreel_playhead_entities",
    c_out_array = "states",
    c_out_type = "TickreelEntityState",
    java = "playheadEntities",
    java_fill
)]
pub fn entities(playhead: &Playhead) -> EntityList<'_> {
    EntityList(playhead.inner.lock())
}

/// The recorded ticks a `TICKREEL_MOTION_FORWARD` update covered, with their events, into `buf`:
/// per tick a big-endian `uint32_t` tick, a big-endian `uint32_t` length, then that many bytes of
/// its events in the tick batch encoding (the format `tickreel_batch_bytes` gives, FORMAT.md).
/// Empty for other motions. Apply them in order.
///
/// `*out_count` is always set to the length in bytes. If it exceeds `capacity`, nothing is
/// copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `buf` may be NULL when `capacity`
/// is 0, to query the length.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_ticks",
    c_out_array = "buf",
    c_out_type = "u8",
    java = "playheadTicks"
)]
pub fn ticks(playhead: &Playhead) -> tickreel::Result<Vec<u8>> {
    let p = playhead.inner.lock();
    let mut out = Vec::new();
    crate::api::encode_ticks(p.update().ticks(), &mut out)?;
    Ok(out)
}

/// The entities the last update removed (a `TICKREEL_MOTION_JUMP`: despawn them), by id, into
/// `ids`.
///
/// `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `ids` may be NULL when `capacity` is 0.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_removed",
    c_out_array = "ids",
    c_out_type = "u32",
    java = "playheadRemoved"
)]
pub fn removed(playhead: &Playhead) -> Vec<u32> {
    playhead.inner.lock().update().removed().to_vec()
}

/// The entities the last update added (a `TICKREEL_MOTION_JUMP`: spawn them), sorted by id, into
/// `states`.
///
/// `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `states` may be NULL when `capacity` is 0.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_added",
    c_out_array = "states",
    c_out_type = "TickreelEntityState",
    java = "playheadAdded"
)]
pub fn added(playhead: &Playhead) -> Added<'_> {
    Added(playhead.inner.lock())
}

/// What the last update does to the world (the custom events: blocks, ...), in `*out_rebuild`: a
/// `TICKREEL_MOTION_JUMP` across custom events asks for a rebuild (restore the snapshot of
/// `tickreel_playhead_rebuild_snapshot`, then re-apply `tickreel_playhead_rebuild_events`); otherwise
/// keep the world.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_rebuild",
    c_out = "out_rebuild",
    c_out_type = "TickreelRebuild",
    java = "playheadRebuild"
)]
pub fn rebuild(playhead: &Playhead) -> Rebuild {
    let p = playhead.inner.lock();
    match p.update().rebuild() {
        None => Rebuild {
            rebuild: false,
            has_snapshot: false,
            snapshot_tick: None,
            complete: true,
        },
        Some(r) => Rebuild {
            rebuild: true,
            has_snapshot: r.snapshot().is_some(),
            snapshot_tick: r.snapshot_tick(),
            complete: r.complete(),
        },
    }
}

/// The snapshot bytes of a world rebuild (as the recorder was given them), into `buf`; empty
/// without a rebuild or a snapshot.
///
/// `*out_count` is always set to the length in bytes. If it exceeds `capacity`, nothing is
/// copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `buf` may be NULL when `capacity`
/// is 0.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_rebuild_snapshot",
    c_out_array = "buf",
    c_out_type = "u8",
    java = "playheadRebuildSnapshot"
)]
pub fn rebuild_snapshot(playhead: &Playhead) -> Vec<u8> {
    let p = playhead.inner.lock();
    match p.update().rebuild() {
        Some(r) => r.snapshot().map(<[u8]>::to_vec).unwrap_or_default(),
        None => Vec::new(),
    }
}

/// The world events of a rebuild (every custom event from the snapshot tick through the new
/// position), into `buf` in the format of `tickreel_playhead_ticks`; empty without a rebuild.
/// Re-apply them in order after restoring the snapshot.
///
/// `*out_count` is always set to the length in bytes. If it exceeds `capacity`, nothing is
/// copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `buf` may be NULL when `capacity`
/// is 0.
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_rebuild_events",
    c_out_array = "buf",
    c_out_type = "u8",
    java = "playheadRebuildEvents"
)]
pub fn rebuild_events(playhead: &Playhead) -> tickreel::Result<Vec<u8>> {
    let p = playhead.inner.lock();
    let Some(r) = p.update().rebuild() else {
        return Ok(Vec::new());
    };
    // Consecutive events of one tick form that tick's batch.
    let mut groups: Vec<(u32, Vec<tickreel::format::Event>)> = Vec::new();
    for (tick, e) in r.events() {
        match groups.last_mut() {
            Some((t, events)) if *t == tick => events.push(e.clone()),
            _ => groups.push((tick, vec![e.clone()])),
        }
    }
    let mut out = Vec::new();
    crate::api::encode_ticks(groups.iter().map(|(t, e)| (*t, e.as_slice())), &mut out)?;
    Ok(out)
}

// ---- The world the library keeps (world-bindings; see `crate::api::world_state`) ----

/// Stores in `*out_world` a copy of the world at the playhead's position as the library keeps
/// it from world events (edited blocks, block entities, each entity's health and equipment;
/// `complete` false if the world before some chunk is unknown or a chunk on the way could not be
/// read). Read it with the `tickreel_world_state_*` functions, free it with
/// `tickreel_world_state_free`. The copy does not follow the playhead: to keep a world current,
/// take it once, then apply each update's `tickreel_playhead_world_changes`.
///
/// On failure `*out_world` is set to NULL (when it can be written).
///
/// Thread safety: any thread; calls on one playhead are serialised.
#[bridge_fn(
    c = "tickreel_playhead_world_state",
    c_out = "out_world",
    java = "playheadWorldState"
)]
pub fn world_state(
    playhead: &Playhead,
) -> tickreel::Result<New<crate::api::world_state::WorldState>> {
    let p = playhead.inner.lock();
    let terrain = p.terrain()?;
    Ok(crate::api::world_state::new(
        p.position(),
        p.world_complete(),
        p.world_state(),
        terrain,
    ))
}

/// Copies what the last update changed in the world the library keeps into `changes`: every
/// block, health and equipment slot that changed from the update's start to its position, each
/// with what was before (so that reverse play restores it) and what is now, whatever the motion
/// (forward play, reverse play, a seek). Applying them in order takes a world that was as at the
/// update's start to its position; a block whose `has_after` is false is no longer edited (restore
/// the world's own block there). In a `TICKREEL_MOTION_JUMP` each position, entity and slot
/// appears at most once.
///
/// `*out_count` is always set to the number of changes. If it exceeds `capacity`, nothing is
/// copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `changes` may be NULL when
/// `capacity` is 0, to query the count.
///
/// Thread safety: any thread; calls on one playhead are serialised.
///
/// (Java: fills its `long[]` with 10 longs per change if they fit and returns the count, so that
/// a reused array costs nothing per call.)
#[bridge_fn(
    c = "tickreel_playhead_world_changes",
    c_out_array = "changes",
    c_out_type = "TickreelWorldChange",
    java = "playheadWorldChanges",
    java_fill
)]
pub fn world_changes(playhead: &Playhead) -> Rows<'static, WorldChangeRow> {
    let p = playhead.inner.lock();
    Rows::from(
        p.update()
            .world_changes()
            .iter()
            .map(WorldChangeRow::from)
            .collect::<Vec<_>>(),
    )
}
