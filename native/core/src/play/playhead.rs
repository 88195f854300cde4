//! The playhead: one viewer's position in a recording, moved once per server tick by
//! [`Playhead::advance`], plus seeking and stepping.
//!
//! # What to do with an [`Update`] (for plugin authors)
//!
//! Call [`Playhead::advance`] once per server tick (and apply what [`Playhead::seek`],
//! [`Playhead::step_forward`] and [`Playhead::step_back`] return, the same way). Every update
//! says how the position moved ([`Update::motion`]) from [`Update::from`] to [`Update::to`]:
//!
//! * [`Motion::Still`]: nothing to do (paused, a slow speed between two recorded ticks, the edge
//!   of the recording, or a stall). Entity poses are unchanged.
//! * [`Motion::Forward`]: play the recorded ticks just covered. For each `(tick, events)` of
//!   [`Update::ticks`], in order, apply every event in order, exactly as the game did: spawn on
//!   `EntityAdd` (its pose included), move on `Pose` (one per entity that moved that tick, absolute),
//!   move without interpolating on `Teleport`, despawn on `EntityRemove` / `PlayerLeave`, set flags
//!   on `Flags` (sneaking, on ground, ...), and perform your own `Custom` events (block changes,
//!   swings, chat, ...). A tick in which only poses changed appears too. [`Update::entities`] then
//!   holds every live entity's state at `to` (the same result, for convenience).
//! * [`Motion::Jump`]: the position changed in a way that is not forward play: reverse play, a
//!   seek, a step back, or a jump over an unreadable chunk. Do not try to invert events; set the
//!   state instead:
//!   1. despawn every id in [`Update::removed`];
//!   2. spawn every entity in [`Update::added`] (kind, flags and pose given);
//!   3. set the pose and flags of every entity in [`Update::entities`] (all live entities at `to`);
//!   4. if [`Update::world`] is [`World::Rebuild`], restore your world from
//!      [`Rebuild::snapshot`] (the bytes you passed to `offer_snapshot`, i.e. the world as it was
//!      before the events of [`Rebuild::snapshot_tick`]) and re-apply the custom events of
//!      [`Rebuild::events`] in order (every custom event from the snapshot tick through `to`). If
//!      it is [`World::Unchanged`], no custom event lies between `from` and `to`: keep your world.
//!
//! Also look at [`Update::stalled`] (the data for the next ticks was not decoded yet: nothing
//! moved, or less than asked; the playhead catches up on later calls), [`Update::at_edge`] (the
//! first or last tick is reached; a live recording continues when it grows),
//! [`Update::waiting`] (a live recording with no tick yet: no position, no entity; the first
//! update after ticks arrive is a [`Motion::Jump`] that spawns everything) and
//! [`Update::faults`] (chunks that could not be read; playback continues past them).
//!
//! When a followed recording is switched over to its compacted file
//! ([`crate::play::LiveFollower`]), the playhead re-finds its tick in the new file on its next
//! call: nothing to apply, the call plays on as usual (it may report a stall while the new file's
//! chunk is decoded).
//!
//! # Blocking
//!
//! [`Playhead::advance`] never blocks on I/O or decoding: it only uses chunks that are already
//! decoded (in the shared [`crate::play::cache::ChunkCache`]) and asks the prefetch pool for the
//! next ones. [`Playhead::seek`], [`Playhead::step_forward`], [`Playhead::step_back`],
//! [`Playhead::new`] and [`Playhead::prepare`] may block on reading and decoding a chunk (usually
//! a millisecond or so); [`Playhead::request_seek`] is the non-blocking seek: the next `advance`
//! calls perform it as soon as its data is ready.
//!
//! # Allocation
//!
//! The update's buffers are owned by the playhead and reused: in steady state `advance` allocates
//! nothing except clones of custom event payloads in forward updates. World rebuilds reference
//! the cached chunks (no copy of snapshot bytes or events).

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::chunk::DecodedChunk;
use crate::format::event::Event;
use crate::format::index::{FLAG_CUSTOM_EVENTS, IndexEntry, find_chunk, snapshot_at_or_before};
use crate::format::state::{EntityState, EntityTable};
use crate::play::cache::{Cached, Fault, Lookup, Part, error_of};
use crate::play::cursor::{self, Cursor, ReverseLog, forward_tick, undo_tick};
use crate::play::prefetch;
use crate::play::recording::{Recording, View};

/// Slowest playback speed.
pub const MIN_SPEED: f64 = 0.25;
/// Fastest playback speed.
pub const MAX_SPEED: f64 = 16.0;
/// Speeds are kept in 1/65536 recorded tick per server tick.
const SPEED_ONE: u32 = 1 << 16;

/// Direction of play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    #[default]
    Forward,
    Backward,
}

/// How the position moved in one update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Motion {
    /// The position did not change.
    #[default]
    Still,
    /// Forward play: apply [`Update::ticks`] in order.
    Forward,
    /// Any other move (reverse play, seek, step back, a jump over an unreadable chunk): apply the
    /// state ([`Update::removed`], [`Update::added`], [`Update::entities`], [`Update::world`]).
    Jump,
}

/// A chunk that could not be read or decoded.
#[derive(Debug, Clone)]
pub struct ChunkFault {
    /// Index of the chunk.
    pub chunk: usize,
    /// Ticks it spans: `start_tick .. start_tick + tick_count`.
    pub start_tick: u32,
    pub tick_count: u32,
    pub error: Fault,
}

/// The ticks of a forward update: `events[start..end]` happened at `tick`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TickSpan {
    tick: u32,
    start: u32,
    end: u32,
}

/// What the plugin must apply after one call. See the [module documentation](self).
#[derive(Debug, Default)]
pub struct Update {
    /// Position before the call.
    pub from: u32,
    /// Position after the call.
    pub to: u32,
    pub motion: Motion,
    /// Direction of play at the time of the call.
    pub direction: Direction,
    /// The data for the next ticks was not ready: the position moved less than asked (maybe not
    /// at all). The playhead catches up on later calls.
    pub stalled: bool,
    /// The position is the first (playing backward) or last (forward) tick of the recording:
    /// further calls return [`Motion::Still`] until the direction changes or, for a recording
    /// still being written, new ticks arrive.
    pub at_edge: bool,
    /// The recording has no tick yet (a live recording before its first flush): there is no
    /// position and no entity. The first update after ticks appear is a [`Motion::Jump`] to the
    /// requested tick (the first one for [`Playhead::new`]) that spawns everything.
    pub waiting: bool,
    spans: Vec<TickSpan>,
    events: Vec<Event>,
    entities: EntityTable,
    added: Vec<EntityState>,
    removed: Vec<u32>,
    rebuild: bool,
    rb_snapshot_chunk: Option<usize>,
    rb_snapshot_tick: Option<u32>,
    rb_has_snapshot: bool,
    rb_chunks: Vec<Arc<DecodedChunk>>,
    rb_complete: bool,
    faults: Vec<ChunkFault>,
}

/// What to do with the world (custom events) in a [`Motion::Jump`] update.
#[derive(Debug, Clone, Copy)]
pub enum World<'a> {
    /// No custom event lies between the old and the new position: keep the world as it is.
    Unchanged,
    /// Rebuild the world: restore the snapshot, then re-apply the custom events.
    Rebuild(Rebuild<'a>),
}

/// A world rebuild: see [`World::Rebuild`].
#[derive(Debug, Clone, Copy)]
pub struct Rebuild<'a> {
    u: &'a Update,
}

impl<'a> Rebuild<'a> {
    /// The snapshot bytes the recorder was given (`offer_snapshot`; empty if none was offered),
    /// or `None` if the recording has no readable snapshot at or before the position: then start
    /// from the world as it was when recording started.
    pub fn snapshot(&self) -> Option<&'a [u8]> {
        if self.u.rb_has_snapshot {
            self.u.rb_chunks.first()?.snapshot.as_deref()
        } else {
            None
        }
    }
    /// The tick whose events come after the snapshot (the snapshot is the world before them).
    pub fn snapshot_tick(&self) -> Option<u32> {
        self.u.rb_snapshot_tick
    }
    /// Index of the chunk carrying the snapshot.
    pub fn snapshot_chunk(&self) -> Option<usize> {
        self.u.rb_snapshot_chunk
    }
    /// Every custom (and extension) event from the snapshot tick through the new position, in
    /// order, with its tick.
    pub fn events(&self) -> impl Iterator<Item = (u32, &'a Event)> + 'a {
        let until = self.u.to;
        self.u.rb_chunks.iter().flat_map(move |c| {
            let start = c.start_tick;
            c.records
                .iter()
                .take_while(move |r| start + r.rel <= until)
                .flat_map(move |r| {
                    r.events
                        .iter()
                        .filter(|e| cursor::is_world_event(e))
                        .map(move |e| (start + r.rel, e))
                })
        })
    }
    /// False if a chunk between the snapshot and the position could not be read: the events
    /// are then incomplete (the faults are in [`Update::faults`]).
    pub fn complete(&self) -> bool {
        self.u.rb_complete
    }
}

impl Update {
    /// Every live entity at [`Update::to`], sorted by id: kind, flags and pose.
    pub fn entities(&self) -> &[EntityState] {
        self.entities.as_slice()
    }
    /// Forward updates: the recorded ticks covered, in order, each with its events (pose changes
    /// first, then the other events in recorded order). Empty for other motions.
    pub fn ticks(&self) -> impl ExactSizeIterator<Item = (u32, &[Event])> {
        self.spans
            .iter()
            .map(|s| (s.tick, &self.events[s.start as usize..s.end as usize]))
    }
    /// All events of [`Update::ticks`], flat.
    pub fn events(&self) -> &[Event] {
        &self.events
    }
    /// Jump updates: entities alive at `to` that were not alive at `from` (or had another kind).
    pub fn added(&self) -> &[EntityState] {
        &self.added
    }
    /// Jump updates: entities alive at `from` that are not alive at `to` (or have another kind).
    pub fn removed(&self) -> &[u32] {
        &self.removed
    }
    /// Jump updates: what to do with the world.
    pub fn world(&self) -> World<'_> {
        if self.rebuild {
            World::Rebuild(Rebuild { u: self })
        } else {
            World::Unchanged
        }
    }
    /// Chunks that could not be read during this call.
    pub fn faults(&self) -> &[ChunkFault] {
        &self.faults
    }
    /// The state at `to` as an [`EntityTable`] (allocates; for tests and tools).
    pub fn table(&self) -> EntityTable {
        self.entities.clone()
    }

    fn heap_bytes(&self) -> usize {
        let custom: usize = self
            .events
            .iter()
            .map(|e| match e {
                Event::Custom { data, .. } | Event::Extension { data, .. } => data.capacity(),
                _ => 0,
            })
            .sum();
        self.spans.capacity() * std::mem::size_of::<TickSpan>()
            + self.events.capacity() * std::mem::size_of::<Event>()
            + custom
            + (self.entities.capacity() + self.added.capacity())
                * std::mem::size_of::<EntityState>()
            + self.removed.capacity() * 4
            + self.rb_chunks.capacity() * std::mem::size_of::<Arc<DecodedChunk>>()
            + self.faults.capacity() * std::mem::size_of::<ChunkFault>()
    }
}

/// Options of a playhead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayheadOptions {
    /// After a stall, at most this many owed recorded ticks are caught up on later calls (the
    /// rest is dropped: the playhead falls behind instead of jumping far). 0: never catch up.
    pub max_catch_up_ticks: u32,
    /// Ask the prefetch pool for the next chunks ahead of time.
    pub prefetch: bool,
}

impl Default for PlayheadOptions {
    fn default() -> Self {
        PlayheadOptions {
            max_catch_up_ticks: 200,
            prefetch: true,
        }
    }
}

/// Counters of one playhead.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlayheadStats {
    /// Calls that reported a stall.
    pub stalls: u64,
    /// Chunk faults reported.
    pub faults: u64,
    /// Recorded ticks played forward.
    pub ticks_forward: u64,
    /// Recorded ticks played backward.
    pub ticks_backward: u64,
    /// Jump updates (seeks, steps back, reverse play, skips).
    pub jumps: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Blocking,
    NonBlocking,
}

#[derive(Debug, Clone)]
enum Fetch {
    Ready(Cached),
    Pending,
    Failed(Fault),
}

/// Data gathered before a move: `(chunk, part)` and what the cache had.
#[derive(Debug, Default)]
struct Gathered {
    items: Vec<(usize, Part, Fetch)>,
}

impl Gathered {
    fn get(&self, chunk: usize, part: Part) -> Option<&Fetch> {
        self.items
            .iter()
            .find(|(c, p, _)| *c == chunk && *p == part)
            .map(|(_, _, f)| f)
    }
    fn decoded(&self, chunk: usize) -> Option<Arc<DecodedChunk>> {
        match self.get(chunk, Part::Decoded) {
            Some(Fetch::Ready(v)) => Some(v.clone().decoded()),
            _ => None,
        }
    }
    fn reverse(&self, chunk: usize) -> Option<Arc<ReverseLog>> {
        match self.get(chunk, Part::Reverse) {
            Some(Fetch::Ready(v)) => Some(v.clone().reverse()),
            _ => None,
        }
    }
    fn any_pending(&self) -> bool {
        self.items
            .iter()
            .any(|(_, _, f)| matches!(f, Fetch::Pending))
    }
}

/// The chunk the cursor stands in.
#[derive(Debug, Clone)]
struct Ctx {
    index: usize,
    chunk: Arc<DecodedChunk>,
    log: Option<Arc<ReverseLog>>,
}

/// What a jump attempt came to.
enum JumpResult {
    Done,
    Stalled,
    Failed(usize, Fault),
}

/// A transient fault (I/O, queue full) is retried rather than skipped.
fn transient(f: &Fault) -> bool {
    matches!(**f, Error::Io(_) | Error::NotReady(_))
}

/// One viewer's position in a recording. See the [module documentation](self).
#[derive(Debug)]
pub struct Playhead {
    rec: Arc<Recording>,
    view: Arc<View>,
    generation: u64,
    pos: u32,
    playing: bool,
    direction: Direction,
    speed_fp: u32,
    acc: u32,
    owed: u32,
    pending_seek: Option<u32>,
    /// The pending seek only re-finds the position in a switched-over view (nothing to apply).
    reanchor: bool,
    /// No position yet: the recording had no tick when last looked at.
    waiting: bool,
    world_known: bool,
    ctx: Option<Ctx>,
    cursor: Cursor,
    u: Update,
    prev: EntityTable,
    gathered: Gathered,
    /// The chunks of the last world rebuild (reused by the next one without asking the cache).
    rb_memo: Vec<(usize, Arc<DecodedChunk>)>,
    prefetch_anchor: Option<(u64, usize, Direction, bool)>,
    options: PlayheadOptions,
    stats: PlayheadStats,
}

impl Playhead {
    /// A paused playhead at the first tick (blocks to decode it). Its first update (from
    /// [`Playhead::update`]) is a [`Motion::Jump`] that spawns every entity and rebuilds the world.
    /// On a recording without ticks yet it is [waiting](Update::waiting) for the first one.
    pub fn new(rec: Arc<Recording>) -> Result<Playhead> {
        let first = rec.view().reader.first_tick().unwrap_or(0);
        Playhead::with_options(rec, first, PlayheadOptions::default())
    }

    /// A paused playhead at `tick` (clamped into the recording; blocks to decode it). On a
    /// recording without ticks yet it is [waiting](Update::waiting) and goes to `tick` (clamped)
    /// once ticks appear.
    pub fn new_at(rec: Arc<Recording>, tick: u32) -> Result<Playhead> {
        Playhead::with_options(rec, tick, PlayheadOptions::default())
    }

    pub fn with_options(
        rec: Arc<Recording>,
        tick: u32,
        options: PlayheadOptions,
    ) -> Result<Playhead> {
        let view = rec.view();
        let generation = rec.generation();
        let empty = view.reader.first_tick().is_none();
        let tick = if empty {
            tick
        } else {
            view.reader.clamp_tick(tick)?
        };
        let mut p = Playhead {
            rec,
            view,
            generation,
            pos: tick,
            playing: false,
            direction: Direction::Forward,
            speed_fp: SPEED_ONE,
            acc: 0,
            owed: 0,
            pending_seek: None,
            reanchor: false,
            waiting: false,
            world_known: false,
            ctx: None,
            cursor: Cursor::default(),
            u: Update::default(),
            prev: EntityTable::default(),
            gathered: Gathered::default(),
            rb_memo: Vec::new(),
            prefetch_anchor: None,
            options,
            stats: PlayheadStats::default(),
        };
        if empty {
            p.begin();
            p.wait_for_data();
            p.finish();
        } else {
            p.seek(tick)?;
        }
        Ok(p)
    }

    /// The recording played.
    pub fn recording(&self) -> &Arc<Recording> {
        &self.rec
    }
    /// The current position (a tick of the recording; while [waiting](Playhead::is_waiting), the
    /// tick asked for).
    pub fn position(&self) -> u32 {
        self.pos
    }
    /// Whether the playhead has no position yet because the recording had no tick when last
    /// looked at (see [`Update::waiting`]).
    pub fn is_waiting(&self) -> bool {
        self.waiting
    }
    /// The update returned by the last call.
    pub fn update(&self) -> &Update {
        &self.u
    }
    /// Every live entity at the current position.
    pub fn entities(&self) -> &[EntityState] {
        self.u.entities.as_slice()
    }
    pub fn is_playing(&self) -> bool {
        self.playing
    }
    pub fn direction(&self) -> Direction {
        self.direction
    }
    pub fn speed(&self) -> f64 {
        f64::from(self.speed_fp) / f64::from(SPEED_ONE)
    }
    pub fn stats(&self) -> PlayheadStats {
        self.stats
    }
    pub fn options(&self) -> PlayheadOptions {
        self.options
    }

    /// Starts playing (in the current direction, at the current speed) on the next `advance`.
    pub fn play(&mut self) {
        self.playing = true;
    }
    /// Stops playing; `advance` then returns [`Motion::Still`] updates.
    pub fn pause(&mut self) {
        self.playing = false;
        self.owed = 0;
    }
    /// Sets the speed in recorded ticks per server tick, from 0.25 to 16 (fractions accumulate:
    /// at 0.25 one recorded tick is played every fourth call).
    pub fn set_speed(&mut self, speed: f64) -> Result<()> {
        if !(MIN_SPEED..=MAX_SPEED).contains(&speed) {
            return Err(Error::invalid(format!(
                "speed {speed} outside {MIN_SPEED}..={MAX_SPEED}"
            )));
        }
        self.speed_fp = (speed * f64::from(SPEED_ONE)).round() as u32;
        Ok(())
    }
    pub fn set_direction(&mut self, d: Direction) {
        if d != self.direction {
            self.direction = d;
            self.owed = 0;
            self.prefetch_anchor = None;
        }
    }

    /// Heap bytes owned by this playhead (its buffers), not counting the shared cached chunks.
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.u.heap_bytes()
            + self.prev.capacity() * std::mem::size_of::<EntityState>()
            + self.cursor.heap_bytes()
            + self.gathered.items.capacity() * std::mem::size_of::<(usize, Part, Fetch)>()
            + self.rb_memo.capacity() * std::mem::size_of::<(usize, Arc<DecodedChunk>)>()
    }

    // ----- the calls that return an update -----

    /// Moves by one server tick's worth of playback. Never blocks. See the [module docs](self).
    pub fn advance(&mut self) -> &Update {
        self.refresh_view();
        self.begin();
        if self.wait_for_data() {
            self.finish();
            return &self.u;
        }
        if let Some(t) = self.pending_seek {
            let carry_on = match self.jump(t, Mode::NonBlocking, false) {
                JumpResult::Done => {
                    self.pending_seek = None;
                    self.settle_reanchor()
                }
                JumpResult::Stalled => {
                    self.stall();
                    false
                }
                JumpResult::Failed(k, f) => {
                    self.pending_seek = None;
                    self.reanchor = false;
                    self.leave_waiting();
                    self.fault(k, f);
                    false
                }
            };
            if !carry_on {
                self.finish();
                return &self.u;
            }
        }
        if self.playing {
            self.acc += self.speed_fp;
            let want = (self.acc >> 16) + self.owed;
            self.acc &= SPEED_ONE - 1;
            if want > 0 {
                let moved = match self.direction {
                    Direction::Forward => self.forward(want, Mode::NonBlocking),
                    Direction::Backward => self.backward(want, Mode::NonBlocking),
                };
                self.owed = if self.u.stalled {
                    (want - moved.min(want)).min(self.options.max_catch_up_ticks)
                } else {
                    0
                };
                if self.u.stalled {
                    self.stats.stalls += 1;
                }
            }
        }
        self.finish();
        &self.u
    }

    /// Moves to `tick` (clamped into the recording). Blocks until its chunk (and, for a world
    /// rebuild, the chunks since the nearest snapshot) are decoded. Fails, leaving the position
    /// unchanged, if the chunk holding `tick` cannot be read.
    pub fn seek(&mut self, tick: u32) -> Result<&Update> {
        self.refresh_view();
        self.begin();
        self.reanchor = false;
        self.owed = 0;
        if self.view.reader.first_tick().is_none() {
            // Nothing to seek in yet: go there once ticks appear.
            self.pending_seek = Some(tick);
            self.wait_for_data();
            self.finish();
            return Ok(&self.u);
        }
        self.pending_seek = None;
        match self.jump(tick, Mode::Blocking, false) {
            JumpResult::Done | JumpResult::Stalled => {}
            JumpResult::Failed(_, f) => return Err(error_of(&f)),
        }
        self.finish();
        Ok(&self.u)
    }

    /// Asks for a seek without blocking: the next [`Playhead::advance`] calls report a stall
    /// until the data is ready, then return the seek's [`Motion::Jump`] update.
    pub fn request_seek(&mut self, tick: u32) {
        self.owed = 0;
        self.reanchor = false;
        let view = self.view.clone();
        match view.reader.clamp_tick(tick) {
            Ok(t) => {
                self.pending_seek = Some(t);
                if let Some(k) = find_chunk(view.reader.index(), t) {
                    let _ = self.fetch(k, Part::Decoded, Mode::NonBlocking);
                }
            }
            // No tick yet: go there once ticks appear.
            Err(_) => self.pending_seek = Some(tick),
        }
    }

    /// Moves one recorded tick forward (playing or not). May block to decode the next chunk.
    pub fn step_forward(&mut self) -> &Update {
        self.step(Direction::Forward)
    }

    /// Moves one recorded tick backward (playing or not). May block to decode the chunk and
    /// build its reverse log.
    pub fn step_back(&mut self) -> &Update {
        self.step(Direction::Backward)
    }

    fn step(&mut self, d: Direction) -> &Update {
        self.refresh_view();
        self.begin();
        self.owed = 0;
        if self.wait_for_data() {
            self.finish();
            return &self.u;
        }
        self.reanchor = false;
        if let Some(t) = self.pending_seek.take() {
            let t = match d {
                Direction::Forward => t.saturating_add(1),
                Direction::Backward => t.saturating_sub(1),
            };
            let t = self.view.reader.clamp_tick(t).unwrap_or(t);
            if let JumpResult::Failed(k, f) = self.jump(t, Mode::Blocking, false) {
                self.fault(k, f);
            }
        } else {
            match d {
                Direction::Forward => self.forward(1, Mode::Blocking),
                Direction::Backward => self.backward(1, Mode::Blocking),
            };
        }
        self.finish();
        &self.u
    }

    /// Blocks until everything the next [`Playhead::advance`] needs is decoded (tools and tests
    /// that may wait use this before each `advance`; a server must not).
    pub fn prepare(&mut self) {
        self.refresh_view();
        let view = self.view.clone();
        let idx = view.reader.index();
        if idx.is_empty() {
            return;
        }
        let mut keys: Vec<(usize, Part)> = Vec::new();
        if let Some(t) = self.pending_seek {
            let t = view.reader.clamp_tick(t).unwrap_or(t);
            let (k, rb) = self.jump_plan(t, false);
            keys.push((k, Part::Decoded));
            if let Some((s, e)) = rb {
                keys.extend((s..=e).map(|i| (i, Part::Decoded)));
            }
        } else if self.playing {
            let want = ((self.acc + self.speed_fp) >> 16) + self.owed;
            match self.direction {
                Direction::Forward => {
                    let last = view.reader.last_tick().unwrap_or(self.pos);
                    let to = self.pos.saturating_add(want).min(last);
                    if to > self.pos {
                        let a = find_chunk(idx, self.pos + 1).unwrap_or(0);
                        let b = find_chunk(idx, to).unwrap_or(0);
                        keys.extend((a..=b).map(|i| (i, Part::Decoded)));
                    }
                }
                Direction::Backward => {
                    let first = view.reader.first_tick().unwrap_or(self.pos);
                    let q = self.pos.saturating_sub(want).max(first);
                    if q < self.pos {
                        for k in path_chunks(idx, self.pos, q) {
                            keys.push((k, Part::Decoded));
                            keys.push((k, Part::Reverse));
                        }
                        if let Some((s, e)) = backward_rebuild(idx, self.pos, q) {
                            keys.extend((s..=e).map(|i| (i, Part::Decoded)));
                        }
                    }
                }
            }
        }
        // An unreadable chunk on the way is jumped over: also load where the jump lands (the
        // next chunk forward, the previous one backward) and what its world rebuild needs.
        let mut landing: Vec<(usize, Part)> = Vec::new();
        for (k, part) in keys {
            if let Fetch::Failed(f) = self.fetch(k, part, Mode::Blocking)
                && !transient(&f)
            {
                let target = match self.direction {
                    Direction::Forward => idx.get(k + 1).map(|e| e.start_tick),
                    Direction::Backward => idx[k].start_tick.checked_sub(1),
                };
                if let Some(t) = target.filter(|&t| t >= idx[0].start_tick) {
                    let (s, e) = rebuild_range(idx, t);
                    landing.extend((s..=e).map(|i| (i, Part::Decoded)));
                }
            }
        }
        for (k, part) in landing {
            let _ = self.fetch(k, part, Mode::Blocking);
        }
    }

    // ----- internals -----

    fn refresh_view(&mut self) {
        let g = self.rec.generation();
        if g == self.generation {
            return;
        }
        self.generation = g;
        let view = self.rec.view();
        let same = view.id() == self.view.id();
        self.view = view;
        self.prefetch_anchor = None;
        if !same {
            // Chunks may be numbered differently: re-seek to the same tick (a no-op for the
            // plugin: nothing added or removed, world unchanged; see `settle_reanchor`).
            self.ctx = None;
            self.rb_memo.clear();
            if self.pending_seek.is_none() && !self.waiting {
                self.reanchor = true;
            }
            let t = self.pending_seek.unwrap_or(self.pos);
            self.pending_seek = Some(self.view.reader.clamp_tick(t).unwrap_or(t));
        }
    }

    /// While the recording has no tick: marks the playhead waiting (keeping where to go once
    /// ticks appear) and returns true.
    fn wait_for_data(&mut self) -> bool {
        if self.view.reader.first_tick().is_some() {
            return false;
        }
        if !self.waiting {
            self.waiting = true;
            self.reanchor = false;
            self.ctx = None;
            self.rb_memo.clear();
            self.owed = 0;
            self.pending_seek.get_or_insert(self.pos);
        }
        true
    }

    /// Ticks appeared but the first position could not be reached: take the nearest tick as the
    /// position (playing on from it skips the unreadable chunk as usual).
    fn leave_waiting(&mut self) {
        if self.waiting {
            self.waiting = false;
            self.pos = self.view.reader.clamp_tick(self.pos).unwrap_or(self.pos);
        }
    }

    /// After the re-seek of a switch-over: if it landed on the same tick with the same state and
    /// nothing to rebuild, the update becomes [`Motion::Still`] (nothing to apply) and the call
    /// carries on playing. Returns whether it does.
    fn settle_reanchor(&mut self) -> bool {
        if !std::mem::take(&mut self.reanchor) {
            return false;
        }
        let same = self.u.from == self.pos && !self.u.rebuild && self.prev == self.u.entities;
        if same {
            self.u.motion = Motion::Still;
            self.u.added.clear();
            self.u.removed.clear();
        }
        same
    }

    fn begin(&mut self) {
        let u = &mut self.u;
        u.from = self.pos;
        u.to = self.pos;
        u.motion = Motion::Still;
        u.direction = self.direction;
        u.stalled = false;
        u.at_edge = false;
        u.waiting = false;
        u.spans.clear();
        u.events.clear();
        u.added.clear();
        u.removed.clear();
        u.rebuild = false;
        u.rb_snapshot_chunk = None;
        u.rb_snapshot_tick = None;
        u.rb_has_snapshot = false;
        u.rb_chunks.clear();
        u.rb_complete = true;
        u.faults.clear();
    }

    fn finish(&mut self) {
        self.u.to = self.pos;
        self.u.waiting = self.waiting;
        self.gathered.items.clear();
        if self.u.motion == Motion::Jump {
            self.stats.jumps += 1;
        }
        self.prefetch_ahead();
    }

    fn stall(&mut self) {
        self.u.stalled = true;
        self.stats.stalls += 1;
    }

    fn fault(&mut self, k: usize, f: Fault) {
        let e = self.view.reader.index()[k];
        self.stats.faults += 1;
        self.u.faults.push(ChunkFault {
            chunk: k,
            start_tick: e.start_tick,
            tick_count: e.tick_count,
            error: f,
        });
    }

    fn fetch(&self, chunk: usize, part: Part, mode: Mode) -> Fetch {
        let key = self.view.key(chunk, part);
        let cache = self.rec.cache();
        match mode {
            Mode::Blocking => {
                match cache.get_blocking(key, || prefetch::load(&self.view, cache, key)) {
                    Ok(v) => Fetch::Ready(v),
                    Err(f) => Fetch::Failed(f),
                }
            }
            Mode::NonBlocking => match self.rec.prefetch().request(&self.view, cache, key) {
                Lookup::Ready(v) => Fetch::Ready(v),
                Lookup::Failed(f) => Fetch::Failed(f),
                Lookup::Pending | Lookup::Absent => Fetch::Pending,
            },
        }
    }

    /// Fetches every item of `self.gathered` (in the given mode).
    fn gather(&mut self, keys: impl Iterator<Item = (usize, Part)>, mode: Mode) {
        let mut g = std::mem::take(&mut self.gathered);
        g.items.clear();
        for (k, part) in keys {
            if g.items.iter().any(|(c, p, _)| *c == k && *p == part) {
                continue;
            }
            let f = match self.held(k, part) {
                Some(v) => Fetch::Ready(v),
                None => self.fetch(k, part, mode),
            };
            g.items.push((k, part, f));
        }
        self.gathered = g;
    }

    /// Data this playhead already holds (its current chunk and reverse log, the chunks of its
    /// last world rebuild): no need to ask the cache.
    fn held(&self, k: usize, part: Part) -> Option<Cached> {
        if let Some(c) = &self.ctx
            && c.index == k
        {
            match part {
                Part::Decoded => return Some(Cached::Decoded(c.chunk.clone())),
                Part::Reverse => {
                    if let Some(l) = &c.log {
                        return Some(Cached::Reverse(l.clone()));
                    }
                }
            }
        }
        match part {
            Part::Decoded => self
                .rb_memo
                .iter()
                .find(|(i, _)| *i == k)
                .map(|(_, c)| Cached::Decoded(c.clone())),
            Part::Reverse => None,
        }
    }

    /// Sets the cursor's chunk, placing the cursor at the current position.
    fn enter(&mut self, k: usize, chunk: Arc<DecodedChunk>, log: Option<Arc<ReverseLog>>) {
        if self.ctx.as_ref().is_some_and(|c| c.index == k) {
            if log.is_some() {
                self.ctx.as_mut().expect("ctx").log = log;
            }
            return;
        }
        let rel = i64::from(self.pos) - i64::from(chunk.start_tick);
        self.cursor.place(&chunk, rel);
        self.ctx = Some(Ctx {
            index: k,
            chunk,
            log,
        });
    }

    fn forward(&mut self, n: u32, mode: Mode) -> u32 {
        let view = self.view.clone();
        let idx = view.reader.index();
        let Some(last) = view.reader.last_tick() else {
            self.u.at_edge = true;
            return 0;
        };
        let mut moved = 0;
        while moved < n {
            if self.pos >= last {
                self.u.at_edge = true;
                break;
            }
            let t = self.pos + 1;
            let k = find_chunk(idx, t).expect("a tick after the first has a chunk");
            if self.ctx.as_ref().map(|c| c.index) != Some(k) {
                match self.fetch(k, Part::Decoded, mode) {
                    Fetch::Ready(v) => self.enter(k, v.decoded(), None),
                    Fetch::Pending => {
                        self.stall_in_move(mode);
                        break;
                    }
                    Fetch::Failed(f) if transient(&f) => {
                        self.fault(k, f);
                        self.stall_in_move(mode);
                        break;
                    }
                    Fetch::Failed(f) => {
                        if moved == 0 {
                            // Nothing played yet in this call: jump over the unreadable chunk(s).
                            self.skip(k, f, Direction::Forward, mode);
                            return 0;
                        }
                        // Deliver what was played; the next call reports and skips the chunk.
                        break;
                    }
                }
            }
            let ctx = self.ctx.as_ref().expect("entered");
            let rel = t - ctx.chunk.start_tick;
            if rel < ctx.chunk.tick_count {
                let u = &mut self.u;
                let start = u.events.len() as u32;
                let events = &mut u.events;
                forward_tick(&ctx.chunk, &mut self.cursor, rel, &mut u.entities, |e| {
                    events.push(e.clone())
                });
                let end = u.events.len() as u32;
                if end > start {
                    u.spans.push(TickSpan {
                        tick: t,
                        start,
                        end,
                    });
                }
            }
            self.pos = t;
            moved += 1;
        }
        if moved > 0 {
            self.u.motion = Motion::Forward;
            self.stats.ticks_forward += u64::from(moved);
        }
        if self.pos >= last {
            self.u.at_edge = true;
        }
        moved
    }

    /// A blocking call cannot stall; a transient failure there is just reported.
    fn stall_in_move(&mut self, mode: Mode) {
        if mode == Mode::NonBlocking {
            self.u.stalled = true;
        }
    }

    fn backward(&mut self, n: u32, mode: Mode) -> u32 {
        let view = self.view.clone();
        let idx = view.reader.index();
        let first = view.reader.first_tick().unwrap_or(self.pos);
        if self.pos <= first {
            self.u.at_edge = true;
            return 0;
        }
        let mut q = self.pos.saturating_sub(n).max(first);
        let rb = loop {
            let pos = self.pos;
            let rb = backward_rebuild(idx, pos, q);
            let keys = path_chunks(idx, pos, q)
                .flat_map(|k| [(k, Part::Decoded), (k, Part::Reverse)])
                .chain(
                    rb.into_iter()
                        .flat_map(|(s, e)| (s..=e).map(|i| (i, Part::Decoded))),
                );
            self.gather(keys, mode);
            // The top-most unreadable chunk on the path, if any.
            let failed = path_chunks(idx, pos, q).find_map(|k| {
                [Part::Decoded, Part::Reverse]
                    .iter()
                    .find_map(|&p| match self.gathered.get(k, p) {
                        Some(Fetch::Failed(f)) => Some((k, f.clone())),
                        _ => None,
                    })
            });
            match failed {
                Some((k, f)) if transient(&f) => {
                    self.fault(k, f);
                    self.stall_in_move(mode);
                    return 0;
                }
                Some((k, f)) => {
                    let last_of_k = (idx[k].end_tick() - 1) as u32;
                    if last_of_k < self.pos && q < last_of_k {
                        // Stop just above the unreadable chunk; a later call skips it.
                        q = last_of_k;
                        continue;
                    }
                    self.skip(k, f, Direction::Backward, mode);
                    return 0;
                }
                None => {}
            }
            if self.gathered.any_pending() {
                self.stall_in_move(mode);
                return 0;
            }
            break rb;
        };
        self.prev.clone_from(&self.u.entities);
        let mut world = false;
        let moved = self.pos - q;
        while self.pos > q {
            let k = find_chunk(idx, self.pos).expect("position has a chunk");
            let start = idx[k].start_tick;
            let rel = self.pos - start;
            if rel < idx[k].tick_count {
                let needs_enter = self
                    .ctx
                    .as_ref()
                    .is_none_or(|c| c.index != k || c.log.is_none());
                if needs_enter {
                    let chunk = self.gathered.decoded(k).expect("gathered");
                    let log = self.gathered.reverse(k).expect("gathered");
                    self.enter(k, chunk, Some(log));
                }
                let ctx = self.ctx.as_ref().expect("entered");
                let log = ctx.log.as_ref().expect("log");
                world |= undo_tick(&ctx.chunk, log, &mut self.cursor, rel, &mut self.u.entities);
            }
            self.pos -= 1;
        }
        self.stats.ticks_backward += u64::from(moved);
        self.u.motion = Motion::Jump;
        diff(
            self.prev.as_slice(),
            self.u.entities.as_slice(),
            &mut self.u.added,
            &mut self.u.removed,
        );
        if world {
            let range = rb.unwrap_or_else(|| rebuild_range(idx, q));
            self.fill_rebuild(range, mode);
        }
        if self.pos <= first {
            self.u.at_edge = true;
        }
        moved
    }

    /// The chunk holding `q`, and the rebuild range if the world must be rebuilt for a jump there.
    fn jump_plan(&self, q: u32, force_rebuild: bool) -> (usize, Option<(usize, usize)>) {
        let idx = self.view.reader.index();
        let k = find_chunk(idx, q).expect("clamped tick has a chunk");
        let rebuild = force_rebuild
            || !self.world_known
            || custom_between(idx, self.pos.min(q), self.pos.max(q));
        (k, rebuild.then(|| rebuild_range(idx, q)))
    }

    /// Moves to `q` by replaying its chunk from the keyframe.
    fn jump(&mut self, q: u32, mode: Mode, force_rebuild: bool) -> JumpResult {
        let view = self.view.clone();
        let Ok(q) = view.reader.clamp_tick(q) else {
            self.u.at_edge = true;
            return JumpResult::Done;
        };
        let (k, rb) = self.jump_plan(q, force_rebuild);
        let keys = std::iter::once((k, Part::Decoded)).chain(
            rb.into_iter()
                .flat_map(|(s, e)| (s..=e).map(|i| (i, Part::Decoded))),
        );
        self.gather(keys, mode);
        match self.gathered.get(k, Part::Decoded) {
            Some(Fetch::Failed(f)) if transient(f) && mode == Mode::NonBlocking => {
                let f = f.clone();
                self.fault(k, f);
                return JumpResult::Stalled;
            }
            Some(Fetch::Failed(f)) => return JumpResult::Failed(k, f.clone()),
            _ => {}
        }
        if self.gathered.any_pending() {
            return JumpResult::Stalled;
        }
        let chunk = self.gathered.decoded(k).expect("gathered");
        self.prev.clone_from(&self.u.entities);
        let state = &mut self.u.entities;
        state.reset_to(&chunk.keyframe);
        self.cursor.place(&chunk, -1);
        let rel = q.saturating_sub(chunk.start_tick);
        for r in 0..chunk.tick_count.min(rel.saturating_add(1)) {
            forward_tick(&chunk, &mut self.cursor, r, state, |_| {});
        }
        self.ctx = Some(Ctx {
            index: k,
            chunk,
            log: None,
        });
        self.pos = q;
        self.u.motion = Motion::Jump;
        diff(
            self.prev.as_slice(),
            self.u.entities.as_slice(),
            &mut self.u.added,
            &mut self.u.removed,
        );
        if let Some(range) = rb {
            self.fill_rebuild(range, mode);
        }
        self.world_known = true;
        self.waiting = false;
        JumpResult::Done
    }

    /// Jumps over unreadable chunk `k` (and any unreadable neighbours) in direction `d`.
    fn skip(&mut self, mut k: usize, mut f: Fault, d: Direction, mode: Mode) {
        let idx_len = self.view.reader.index().len();
        loop {
            self.fault(k, f);
            let e = self.view.reader.index()[k];
            let target = match d {
                Direction::Forward if k + 1 < idx_len => self.view.reader.index()[k + 1].start_tick,
                Direction::Backward if k > 0 => e.start_tick - 1,
                _ => {
                    self.u.at_edge = true;
                    return;
                }
            };
            match self.jump(target, mode, true) {
                JumpResult::Done => return,
                JumpResult::Stalled => {
                    self.stall_in_move(mode);
                    return;
                }
                JumpResult::Failed(k2, f2) => {
                    k = k2;
                    f = f2;
                }
            }
        }
    }

    /// Fills the world rebuild of the update from the gathered chunks `s..=e` (fetching any that
    /// were not gathered; in non-blocking mode a missing one makes the rebuild incomplete).
    fn fill_rebuild(&mut self, (s, e): (usize, usize), mode: Mode) {
        let view = self.view.clone();
        let idx = view.reader.index();
        let snap = idx[s].has_snapshot().then_some(s);
        self.u.rebuild = true;
        self.u.rb_snapshot_chunk = snap;
        self.u.rb_snapshot_tick = snap.map(|i| idx[i].start_tick);
        self.u.rb_chunks.clear();
        self.u.rb_complete = true;
        let mut memo = std::mem::take(&mut self.rb_memo);
        memo.clear();
        for i in s..=e {
            let got = match self.gathered.get(i, Part::Decoded) {
                Some(f) => f.clone(),
                None => match self.held(i, Part::Decoded) {
                    Some(v) => Fetch::Ready(v),
                    None => self.fetch(i, Part::Decoded, mode),
                },
            };
            match got {
                Fetch::Ready(v) => {
                    if i == s && snap.is_some() {
                        self.u.rb_has_snapshot = true;
                    }
                    let c = v.decoded();
                    memo.push((i, c.clone()));
                    self.u.rb_chunks.push(c);
                }
                Fetch::Pending => self.u.rb_complete = false,
                Fetch::Failed(f) => {
                    self.u.rb_complete = false;
                    self.fault(i, f);
                }
            }
        }
        self.rb_memo = memo;
    }

    /// Asks the prefetch pool for what the next calls will need.
    fn prefetch_ahead(&mut self) {
        if !self.options.prefetch {
            return;
        }
        let view = self.view.clone();
        let idx = view.reader.index();
        let Some(k) = find_chunk(idx, self.pos) else {
            return;
        };
        let has_log = self
            .ctx
            .as_ref()
            .is_some_and(|c| c.index == k && c.log.is_some());
        let anchor = (view.id(), k, self.direction, has_log);
        if self.prefetch_anchor == Some(anchor) {
            return;
        }
        self.prefetch_anchor = Some(anchor);
        match self.direction {
            Direction::Forward => {
                let ahead = if self.speed_fp >= 4 * SPEED_ONE { 2 } else { 1 };
                for j in 1..=ahead {
                    if k + j < idx.len() {
                        let _ = self.fetch(k + j, Part::Decoded, Mode::NonBlocking);
                    }
                }
            }
            Direction::Backward => {
                if !has_log {
                    let _ = self.fetch(k, Part::Reverse, Mode::NonBlocking);
                }
                if k > 0 {
                    let _ = self.fetch(k - 1, Part::Reverse, Mode::NonBlocking);
                }
                for kk in [Some(k), k.checked_sub(1)].into_iter().flatten() {
                    if idx[kk].flags & FLAG_CUSTOM_EVENTS != 0 {
                        let (s, e) = rebuild_range(idx, idx[kk].start_tick);
                        for i in s..=e {
                            let _ = self.fetch(i, Part::Decoded, Mode::NonBlocking);
                        }
                    }
                }
            }
        }
    }
}

/// Chunks holding ticks to undo to move back from `pos` to `q < pos`, top-down.
fn path_chunks(idx: &[IndexEntry], pos: u32, q: u32) -> impl Iterator<Item = usize> + '_ {
    let (k_hi, k_lo) = if q < pos {
        (
            find_chunk(idx, pos).unwrap_or(0),
            find_chunk(idx, q + 1).unwrap_or(0),
        )
    } else {
        (0, 1)
    };
    (k_lo..=k_hi).rev().filter(move |&k| {
        let e = &idx[k];
        let lo = u64::from(q + 1).max(u64::from(e.start_tick));
        let hi = (u64::from(pos) + 1).min(e.end_tick());
        lo < hi
    })
}

/// The chunks a world rebuild at `q` needs after moving back from `pos`, if any chunk with
/// ticks to undo has custom events (the world may change).
fn backward_rebuild(idx: &[IndexEntry], pos: u32, q: u32) -> Option<(usize, usize)> {
    path_chunks(idx, pos, q)
        .any(|k| idx[k].flags & FLAG_CUSTOM_EVENTS != 0)
        .then(|| rebuild_range(idx, q))
}

/// Chunks a world rebuild at `q` needs: from the nearest snapshot at or before `q`'s chunk (or
/// the first chunk) through `q`'s chunk.
fn rebuild_range(idx: &[IndexEntry], q: u32) -> (usize, usize) {
    let k = find_chunk(idx, q).unwrap_or(0);
    (snapshot_at_or_before(idx, k).unwrap_or(0), k)
}

/// Whether any chunk with custom events overlaps ticks `(lo, hi]`.
fn custom_between(idx: &[IndexEntry], lo: u32, hi: u32) -> bool {
    if lo >= hi {
        return false;
    }
    let a = find_chunk(idx, lo + 1).unwrap_or(0);
    let b = find_chunk(idx, hi).unwrap_or(0);
    (a..=b).any(|k| {
        let e = &idx[k];
        e.flags & FLAG_CUSTOM_EVENTS != 0
            && u64::from(e.start_tick) <= u64::from(hi)
            && e.end_tick() > u64::from(lo + 1)
    })
}

/// Entities of `cur` not in `prev` (or of another kind) and ids of `prev` not in `cur` (or of
/// another kind). Both lists are sorted by id.
fn diff(
    prev: &[EntityState],
    cur: &[EntityState],
    added: &mut Vec<EntityState>,
    removed: &mut Vec<u32>,
) {
    added.clear();
    removed.clear();
    let (mut i, mut j) = (0, 0);
    while i < prev.len() || j < cur.len() {
        match (prev.get(i), cur.get(j)) {
            (Some(a), Some(b)) if a.id == b.id => {
                if a.kind != b.kind {
                    removed.push(a.id);
                    added.push(*b);
                }
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a.id < b.id => {
                removed.push(a.id);
                i += 1;
            }
            (Some(a), None) => {
                removed.push(a.id);
                i += 1;
            }
            (_, Some(b)) => {
                added.push(*b);
                j += 1;
            }
            (None, None) => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::pose::Pose;

    fn st(id: u32, kind: u32) -> EntityState {
        EntityState {
            id,
            kind,
            flags: 0,
            pose: Pose::default(),
        }
    }

    #[test]
    fn diff_reports_additions_removals_and_kind_changes() {
        let prev = [st(1, 0), st(2, 0), st(4, 1)];
        let cur = [st(2, 0), st(3, 0), st(4, 2), st(9, 0)];
        let (mut a, mut r) = (Vec::new(), Vec::new());
        diff(&prev, &cur, &mut a, &mut r);
        assert_eq!(r, vec![1, 4]);
        assert_eq!(a.iter().map(|e| e.id).collect::<Vec<_>>(), vec![3, 4, 9]);
    }

    #[test]
    fn speeds_outside_the_range_are_rejected() {
        // Exercised through the public API in native/core/tests/play.rs; here only the fixed point.
        assert_eq!((0.25 * f64::from(SPEED_ONE)).round() as u32, SPEED_ONE / 4);
        assert!(!(MIN_SPEED..=MAX_SPEED).contains(&f64::NAN));
    }
}
