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
//!   4. if [`Update::rebuild`] is `Some`, restore your world from
//!      [`Rebuild::snapshot`] (the bytes you passed to `offer_snapshot`, i.e. the world as it was
//!      before the events of [`Rebuild::snapshot_tick`]) and re-apply the custom events of
//!      [`Rebuild::events`] in order (every custom event from the snapshot tick through `to`). If
//!      it is `None`, no custom event lies between `from` and `to`: keep your world.
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

use crate::error::Result;
use crate::format::chunk::DecodedChunk;
use crate::format::index::find_chunk;
use crate::format::state::{EntityState, EntityTable};
use crate::format::world_state::WorldState;
use crate::play::cache::{Part, error_of};
use crate::play::cursor::{Cursor, ReverseLog};
use crate::play::recording::Recording;
use crate::play::view::View;

// The public API is here; the work behind it is split by what a call does:
mod backward; // reverse play and steps back
mod fetch; // getting decoded chunks and reverse logs, prefetching
mod forward; // forward play
mod jump; // seeks and jumps over unreadable chunks
mod live; // a recording that grows, is switched over, or has no tick yet
mod options; // PlayheadOptions, PlayheadStats
mod rebuild; // world rebuilds of jump updates
mod speed; // the speed and the fraction of a tick carried between calls
mod update; // Update and the types it holds; starting and finishing a call
mod world; // the world the library keeps (edited blocks, equipment, health)

pub use options::{PlayheadOptions, PlayheadStats};
pub use speed::{MAX_SPEED, MIN_SPEED};
pub use update::{ChunkFault, Direction, Motion, Rebuild, Update};

use crate::format::index::rebuild_range;
use backward::{backward_rebuild, path_chunks};
use fetch::{Fetch, Gathered, Mode, transient};
use jump::JumpResult;
use speed::SpeedAccumulator;

/// The chunk the cursor stands in.
#[derive(Debug, Clone)]
struct Ctx {
    index: usize,
    chunk: Arc<DecodedChunk>,
    log: Option<Arc<ReverseLog>>,
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
    speed: SpeedAccumulator,
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
    rb_memo: Vec<(usize, Part, Arc<DecodedChunk>)>,
    prefetch_anchor: Option<(u64, usize, Direction, bool)>,
    /// The world the library keeps at the position (see [`Playhead::world_state`]); shared with the
    /// snapshot chunk it came from until an event changes it, and with a jump's update.
    world: Arc<WorldState>,
    /// Whether everything before the position is known (see [`Playhead::world_complete`]).
    world_complete: bool,
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
            speed: SpeedAccumulator::default(),
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
            world: Arc::default(),
            // Without the world, it is never known.
            world_complete: options.world,
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
    /// The world at the current position as the library keeps it from world events: edited
    /// blocks (position to state, with block entities), each entity's equipment and health.
    /// Kept through forward and reverse play, seeks and live following; each update's
    /// [`Update::world_changes`] say what changed. Empty for a playhead without the world
    /// ([`PlayheadOptions::world`]).
    pub fn world_state(&self) -> &WorldState {
        &self.world
    }
    /// The terrain in effect at the current position ([`crate::Reader::terrain_at`]: the chunk
    /// sections the game handed over, a later offer replacing an earlier section), which the
    /// edited blocks of [`Playhead::world_state`] override: [`Playhead::block`]. Empty while waiting
    /// or when the recording has none. Reads the terrain's frames when the position passed to
    /// another terrain since the last call (the reader keeps the last one).
    pub fn terrain(&self) -> Result<Arc<crate::format::Terrain>> {
        if self.waiting {
            return Ok(Arc::default());
        }
        self.view.reader.terrain_at(self.pos)
    }
    /// The block state at `pos` at the current position: the edited block there if a world
    /// event set one, else the terrain's block, `None` where neither knows it. Fails for a
    /// playhead without the world ([`PlayheadOptions::world`]): it does not know the edits.
    pub fn block(&self, pos: crate::format::BlockPos) -> Result<Option<u32>> {
        if !self.options.world {
            return Err(crate::error::Error::InvalidState(
                "a playhead without the world knows no block".into(),
            ));
        }
        if let Some(b) = self.world.block(pos) {
            return Ok(Some(b));
        }
        Ok(self.terrain()?.block(pos.x, pos.y, pos.z))
    }
    /// False if the world before some chunk is unknown (see [`Rebuild::cut_short`]) or a chunk
    /// on the way could not be read: [`Playhead::world_state`] then holds what the chunks read changed.
    /// Always false for a playhead without the world ([`PlayheadOptions::world`]).
    /// A world rebuilt onto a snapshot's stored block lists reads them on first use: if their
    /// decode is refused then (a crafted file), the world is not complete from then on, and
    /// [`WorldState::decode_error`] of [`Playhead::world_state`] says why.
    pub fn world_complete(&self) -> bool {
        self.world_complete && self.world.decode_error().is_none()
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
        self.speed.speed()
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
        self.speed.set_speed(speed)
    }
    pub fn set_direction(&mut self, d: Direction) {
        if d != self.direction {
            self.direction = d;
            self.owed = 0;
            self.prefetch_anchor = None;
        }
    }

    /// Heap bytes owned by this playhead (its buffers and the world it keeps, and after a jump
    /// the world before it, kept for [`Update::world_changes`] until the next call), not counting
    /// the shared cached chunks (the world's sorted blocks, shared with the snapshot chunk they
    /// came from, are counted: the playhead keeps them after the cache lets the chunk go).
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.u.heap_bytes()
            + self.prev.capacity() * std::mem::size_of::<EntityState>()
            + self.cursor.heap_bytes()
            + self.gathered.heap_bytes()
            + self.rb_memo.capacity() * std::mem::size_of::<(usize, Part, Arc<DecodedChunk>)>()
            + self.world.heap_bytes()
            + self.u.world_before.as_ref().map_or(0, |w| w.heap_bytes())
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
            let want = self.speed.take_ticks() + self.owed;
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
                    let _ = self.fetch(k, self.whole(), Mode::NonBlocking);
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
            keys.push((k, self.whole()));
            if let Some((s, e)) = rb {
                keys.extend((s..=e).map(|i| (i, Part::World)));
            }
        } else if self.playing {
            let want = self.speed.next_ticks() + self.owed;
            match self.direction {
                Direction::Forward => {
                    let last = view.reader.last_tick().unwrap_or(self.pos);
                    let to = self.pos.saturating_add(want).min(last);
                    if to > self.pos {
                        let a = find_chunk(idx, self.pos + 1).unwrap_or(0);
                        let b = find_chunk(idx, to).unwrap_or(0);
                        keys.extend((a..=b).map(|i| (i, self.whole())));
                    }
                }
                Direction::Backward => {
                    let first = view.reader.first_tick().unwrap_or(self.pos);
                    let q = self.pos.saturating_sub(want).max(first);
                    if q < self.pos {
                        for k in path_chunks(idx, self.pos, q) {
                            keys.push((k, self.whole()));
                            keys.push((k, self.reverse_part()));
                        }
                        if self.options.world
                            && let Some((s, e)) = backward_rebuild(idx, self.pos, q)
                        {
                            keys.extend((s..=e).map(|i| (i, Part::Decoded)));
                        }
                    }
                }
            }
        }
        // An unreadable chunk on the way is jumped over: also load where the jump lands (the
        // next chunk forward, the previous one backward) and what its world rebuild needs.
        let mut landing: Vec<(usize, Part)> = Vec::new();
        // A chunk wanted whole serves a rebuild too: not decoded a second time without movement.
        let whole: std::collections::HashSet<usize> = keys
            .iter()
            .filter(|(_, p)| *p == self.whole())
            .map(|(k, _)| *k)
            .collect();
        keys.retain(|(k, p)| *p != Part::World || !whole.contains(k));
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
                    landing.push((e, self.whole()));
                    if self.options.world {
                        landing.extend((s..e).map(|i| (i, Part::World)));
                    }
                }
            }
        }
        for (k, part) in landing {
            let _ = self.fetch(k, part, Mode::Blocking);
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
}
