//! The chunk encoder: accumulates one chunk's ticks and writes its payload (the layout is described
//! in [`crate::format::chunk`]).
//!
//! Built for the live writer's hot path, where one writer thread interleaves ticks of many
//! recordings: a pose event costs one hash lookup, a store into the entity's slot and one append to
//! the chunk's sample log (a single growing buffer, so the working set per recording stays small).
//! The log is regrouped by entity into columns only when the chunk is encoded. Steady-state
//! encoding does not allocate: every buffer keeps its capacity across chunks.

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::format::DATA_VERSION;
use crate::format::block_coding::{BlockCoding, GAPS_MARKER};
use crate::format::bytes::{put_ivarint, put_uvarint};
use crate::format::event::{Event, MAX_CUSTOM_EVENT_BYTES, kind};
use crate::format::frame::FrameHeader;
use crate::format::index::{FLAG_CUSTOM_EVENTS, FLAG_SNAPSHOT, FLAG_WORLD};
use crate::format::pose::Pose;
use crate::format::state::{EntityState, EntityTable};
use crate::format::world::world_kind;
use crate::format::world_state::WorldState;
pub(crate) use world_sections::DELTA_QUARTERS;
use world_sections::WorldSections;

/// Marks a sample-log entry that follows a teleport (high bit of its slot number).
const RESET_BIT: u32 = 1 << 31;

/// One entity known to the encoder: its current state, and its samples in the open chunk.
#[derive(Debug, Clone, Copy)]
struct Slot {
    id: u32,
    alive: bool,
    kind: u32,
    flags: u32,
    pose: Pose,
    /// Distinct ticks sampled in the open chunk.
    samples: u32,
    /// Relative tick of the latest sample (meaningful when `samples > 0`).
    last_rel: u32,
}

/// One pose sample in arrival order.
#[derive(Debug, Clone, Copy)]
struct LogSample {
    /// Slot index, with [`RESET_BIT`] set after a teleport.
    slot: u32,
    rel: u32,
    pose: [i64; 5],
}

/// Accumulates the ticks of one chunk and encodes its payload. Owns the running entity state, so
/// consecutive chunks continue where the previous one ended. Reusable across chunks (buffers keep
/// their capacity, so steady-state encoding does not allocate).
#[derive(Debug, Default)]
pub struct ChunkEncoder {
    start_tick: u32,
    last_tick: Option<u32>,
    keyframe: Vec<EntityState>,
    snapshot: Option<Vec<u8>>,
    stream: Vec<u8>,
    /// Where each of the stream's records starts, and its relative tick (to write the ticks as
    /// gaps, data version 7).
    records: Vec<(u32, u32)>,
    flags: u8,
    event_count: u64,
    sample_count: u64,
    /// Stored events of the tick being added.
    tick_events: u32,
    slots: Vec<Slot>,
    slot_of: FxHashMap<u32, u32>,
    /// Slots whose entity is not alive (dropped at the next chunk start).
    dead: usize,
    log: Vec<LogSample>,
    /// The data version the last encoded payload needs: 8 if it holds a block change (coded
    /// from two cursors per cause, the table of changed positions and the table of sections, the
    /// stream's ticks as gaps, the block columns), else 5 if it has a world section (which
    /// starts with what it stands on, a keyframe or a delta), 4 if it holds a world event (its
    /// block changes are coded against the chunk), else 2 if a column uses predictor 4
    /// (linear in time) or a track's ticks are stored as deltas, else 1 (so that readers of data
    /// version 1 read it).
    payload_version: u16,
    /// Where the movement starts in the payload [`ChunkEncoder::encode_payload`] wrote last
    /// (what [`ChunkEncoder::compress_frame`] compresses as a zstd frame of its own).
    movement_at: usize,
    /// The chunk holds a world event (its payload needs data version 3).
    world_events: bool,
    /// The running world (edited blocks, equipment, health) after the last tick added.
    world: WorldState,
    /// The world section of the open chunk (the running world at its start), if it carries a
    /// snapshot and the world was not empty then.
    world_section: Option<Vec<u8>>,
    /// What the open chunk's block changes are coded against (data version 4; 6 as written).
    blocks: BlockCoding,
    /// Whether the next world section is a keyframe or a delta, and against which keyframe.
    world_sections: WorldSections,
    /// The zstd level of a world section's block list ([`ChunkEncoder::set_world_level`]).
    world_level: i32,
    /// A world section carried as it is into the next snapshot chunk begun
    /// ([`ChunkEncoder::carry_world_section`]).
    carried_section: Option<Vec<u8>>,
    /// `encode_payload`'s working buffers on a thread that is not the library's (the caller of a
    /// synchronous writer): see [`crate::threads`].
    own_scratch: Option<Box<Scratch>>,
}

/// A payload whose movement takes at least this many bytes is compressed as two zstd frames,
/// the bytes before the movement and the movement (FORMAT.md, section 6): a read without the
/// movement (a world rebuild's, a scan of the events) decompresses the first alone. Below it the
/// whole payload decompresses in a few microseconds, and one frame compresses a little better.
pub(crate) const SPLIT_MOVEMENT_BYTES: usize = 16 << 10;

/// The zstd level of a world section's block lists unless the writer sets one
/// ([`ChunkEncoder::set_world_level`]): a live writer's, on its thread at every snapshot.
pub(crate) const WORLD_LIST_ZSTD_LEVEL: i32 = 3;

thread_local! {
    /// `encode_payload`'s working buffers, shared by every encoder of a library thread (a writer
    /// thread serving many recordings keeps one warm set instead of one per recording). Not used
    /// on other threads: its destructor would keep the shared library mapped.
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

impl ChunkEncoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the zstd level of the block lists of the world sections written from now on
    /// ([`WORLD_LIST_ZSTD_LEVEL`] unless set): a finished file's writer spends more on them.
    pub(crate) fn set_world_level(&mut self, level: i32) {
        self.world_level = level;
    }

    /// Lets a delta world section grow to `quarters` quarters of its keyframe's blocks before a
    /// keyframe is written instead (a quarter unless set): a finished file's writer lets them
    /// grow further.
    pub(crate) fn set_world_delta_quarters(&mut self, quarters: u32) {
        self.world_sections.set_delta_quarters(quarters);
    }

    /// The running world after the last tick added.
    pub fn world(&self) -> &WorldState {
        &self.world
    }

    /// Replaces the running world (to continue a recording written earlier).
    pub(crate) fn set_world(&mut self, world: WorldState) {
        self.world = world;
        // one sorted list, as a writer's world has it (a world read from a file may have two)
        self.world.compact();
        self.world_sections.restart();
    }

    /// Makes `world` the running world without forgetting the keyframe the next delta section
    /// stands on ([`WorldState::rebase_to`]): compaction's world of a snapshot chunk where the
    /// events before it did not make it.
    pub(crate) fn carry_world(&mut self, world: &WorldState) {
        self.world.rebase_to(world);
    }

    /// Makes `world`, the keyframe world section of a chunk starting at `start_tick` that was
    /// written elsewhere (compaction's copy of a chunk as it is), the running world and the
    /// keyframe the next delta sections stand on.
    pub(crate) fn adopt_keyframe(&mut self, world: &WorldState, start_tick: u32) {
        self.world = world.clone();
        self.world.compact();
        self.world_sections.adopt_keyframe(start_tick);
    }

    /// Makes the next snapshot chunk begun carry `section` (a world section's body, as
    /// [`crate::format::WorldDelta::encode_v5`] writes it) instead of one of the running world:
    /// compaction's copy of a delta section whose keyframe the recording does not hold, whose
    /// world is unknown. The running world is emptied (what the events after it change is all
    /// that is known, as a reader rebuilds it), and the section after it is a keyframe.
    pub(crate) fn carry_world_section(&mut self, section: Vec<u8>) {
        self.set_world(WorldState::default());
        self.carried_section = Some(section);
    }

    /// Applies events to the running world only (a chunk written as it is, elsewhere).
    pub(crate) fn apply_world(&mut self, events: &[Event]) {
        for e in events {
            self.world.apply(e);
        }
    }

    /// Replaces the running entity state (to continue a recording written earlier).
    pub fn set_table(&mut self, table: &EntityTable) {
        self.slots.clear();
        self.slot_of.clear();
        self.dead = 0;
        self.log.clear();
        for e in table.iter() {
            self.slot_of.insert(e.id, self.slots.len() as u32);
            self.slots.push(Slot {
                id: e.id,
                alive: true,
                kind: e.kind,
                flags: e.flags,
                pose: e.pose,
                samples: 0,
                last_rel: 0,
            });
        }
    }

    /// The running entity state: every entity alive after the last tick added.
    pub fn table(&self) -> EntityTable {
        self.slots
            .iter()
            .filter(|s| s.alive)
            .map(|s| s.state())
            .collect()
    }

    /// Starts a new chunk at `start_tick` whose keyframe is the running entity state.
    pub fn begin(&mut self, start_tick: u32, snapshot: Option<Vec<u8>>) {
        self.start_tick = start_tick;
        self.last_tick = None;
        if self.dead > 0 {
            self.slots.retain(|s| s.alive);
            self.slot_of.clear();
            for (i, s) in self.slots.iter().enumerate() {
                self.slot_of.insert(s.id, i as u32);
            }
            self.dead = 0;
        }
        self.keyframe.clear();
        self.keyframe.extend(self.slots.iter().map(Slot::state));
        self.keyframe.sort_unstable_by_key(|e| e.id);
        for s in &mut self.slots {
            s.samples = 0;
        }
        self.log.clear();
        self.flags = if snapshot.is_some() { FLAG_SNAPSHOT } else { 0 };
        self.world_section = match self.carried_section.take() {
            Some(carried) if snapshot.is_some() => Some(carried),
            _ => (snapshot.is_some() && !self.world.is_empty()).then(|| {
                self.world_sections.section(
                    &mut self.world,
                    start_tick,
                    match self.world_level {
                        0 => WORLD_LIST_ZSTD_LEVEL,
                        l => l,
                    },
                )
            }),
        };
        if self.world_section.is_some() {
            self.flags |= FLAG_WORLD;
        }
        self.snapshot = snapshot;
        self.stream.clear();
        self.records.clear();
        self.blocks.restart(DATA_VERSION);
        self.world_events = false;
        self.event_count = 0;
        self.sample_count = 0;
    }

    pub fn start_tick(&self) -> u32 {
        self.start_tick
    }
    /// Rough uncompressed size of what the chunk's ticks added so far (for cutting chunks by
    /// bytes). The keyframe is left out: every chunk repeats it, so cutting sooner never makes
    /// it smaller (with tens of thousands of live entities it alone would cut every tick into a
    /// chunk of its own). The format's bound, [`Self::bound_bytes`], counts it.
    pub fn approx_bytes(&self) -> usize {
        self.stream.len()
            + self.blocks.columns_len()
            + self.sample_count as usize * 6
            + self.snapshot.as_ref().map_or(0, Vec::len)
            + self.world_section.as_ref().map_or(0, Vec::len)
    }
    /// Uncompressed bytes of the block changes' fields so far (data version 8's block columns,
    /// 0 in a chunk without block changes): what tells a chunk made mostly of block changes
    /// ([`crate::record::ChunkPolicy::chunk_bytes_for`]).
    pub fn block_bytes(&self) -> usize {
        self.blocks.columns_len()
    }
    /// An upper bound of the uncompressed chunk so far (for the format's limits; see
    /// `format::limits`): every sample and keyframe entry at its largest, per-entity track
    /// headers included.
    pub fn bound_bytes(&self) -> usize {
        use crate::format::limits::{EVENT_BYTES_MAX, KEYFRAME_ENTRY_MAX};
        1024 + self.stream.len()
            + self.blocks.columns_len()
            + self.sample_count as usize * EVENT_BYTES_MAX
            + self.snapshot.as_ref().map_or(0, Vec::len)
            + self.world_section.as_ref().map_or(0, Vec::len)
            + self.keyframe.len() * KEYFRAME_ENTRY_MAX
            + self.slots.len() * 32
    }
    /// Entities alive after the last tick added.
    pub fn alive_count(&self) -> usize {
        self.slots.len() - self.dead
    }
    /// Whether entity `id` is alive after the last tick added.
    pub fn is_alive(&self, id: u32) -> bool {
        self.slot_of
            .get(&id)
            .is_some_and(|&s| self.slots[s as usize].alive)
    }
    pub fn event_count(&self) -> u64 {
        self.event_count
    }
    pub fn sample_count(&self) -> u64 {
        self.sample_count
    }
    /// Index/frame flags of the chunk being built.
    #[cfg_attr(not(feature = "wire"), allow(dead_code))] // the codec tests read it through `wire`
    pub fn flags(&self) -> u8 {
        self.flags
    }

    /// Adds one tick's events, applying them to the running entity state.
    /// Ticks must increase strictly within a chunk.
    pub fn push_tick(&mut self, tick: u32, events: &[Event]) -> Result<()> {
        if tick < self.start_tick || self.last_tick.is_some_and(|l| tick <= l) {
            return Err(Error::invalid(match self.last_tick {
                Some(l) if tick <= l => format!(
                    "tick {tick} is not after the previous tick {l} of the chunk starting at {}",
                    self.start_tick
                ),
                _ => format!(
                    "tick {tick} is before the chunk's first tick {}",
                    self.start_tick
                ),
            }));
        }
        validate_events(events)?;
        let rel = tick - self.start_tick;
        let record_start = self.stream.len();
        put_uvarint(&mut self.stream, u64::from(rel));
        let count_pos = self.stream.len();
        self.stream.extend_from_slice(&[0, 0]);
        self.tick_events = 0;
        for e in events {
            self.apply(rel, e);
        }
        let count = self.tick_events;
        if count == 0 {
            self.stream.truncate(record_start);
        } else {
            let count = u16::try_from(count).map_err(|_| {
                self.stream.truncate(record_start);
                Error::invalid("more than 65535 stored events in one tick")
            })?;
            self.stream[count_pos..count_pos + 2].copy_from_slice(&count.to_be_bytes());
            self.event_count += u64::from(count);
            self.records.push((record_start as u32, rel));
        }
        self.last_tick = Some(tick);
        Ok(())
    }

    /// Applies one event: pose-bearing events become samples (the stream keeps only what readers
    /// cannot get from the movement section), the rest go to the event stream as they are.
    #[inline]
    fn apply(&mut self, rel: u32, e: &Event) {
        match *e {
            Event::Pose { entity, pose } => {
                let s = self.touch_implicit(entity).0;
                self.slots[s].pose = pose;
                self.sample(s, rel, false);
            }
            Event::Position { entity, x, y, z } => {
                let s = self.touch_implicit(entity).0;
                let p = &mut self.slots[s].pose;
                (p.x, p.y, p.z) = (x, y, z);
                self.sample(s, rel, false);
            }
            Event::Rotation { entity, yaw, pitch } => {
                let s = self.touch_implicit(entity).0;
                let p = &mut self.slots[s].pose;
                (p.yaw, p.pitch) = (yaw, pitch);
                self.sample(s, rel, false);
            }
            Event::Teleport { entity, pose } => {
                let s = self.touch_implicit(entity).0;
                self.stream.push(kind::TELEPORT);
                put_uvarint(&mut self.stream, u64::from(entity));
                self.tick_events += 1;
                self.slots[s].pose = pose;
                self.sample(s, rel, true);
            }
            Event::EntityAdd {
                entity,
                kind: k,
                pose,
            } => {
                let s = self.slot(entity);
                self.revive(s, k, pose);
                self.stream.push(kind::ENTITY_ADD);
                put_uvarint(&mut self.stream, u64::from(entity));
                put_uvarint(&mut self.stream, u64::from(k));
                self.tick_events += 1;
                self.sample(s, rel, false);
            }
            Event::Flags { entity, flags } => {
                // Flags for an entity that is not alive add it (kind 0, at the origin, as
                // `EntityTable::apply` does), with a pose sample, so that its re-creation
                // supersedes any sample from before a removal.
                let (s, implicit) = self.touch_implicit(entity);
                if implicit {
                    self.sample(s, rel, false);
                }
                self.slots[s].flags = flags;
                e.encode(&mut self.stream);
                self.tick_events += 1;
            }
            Event::EntityRemove { entity } | Event::PlayerLeave { entity } => {
                self.world.apply(e);
                if let Some(&s) = self.slot_of.get(&entity) {
                    let slot = &mut self.slots[s as usize];
                    if slot.alive {
                        slot.alive = false;
                        self.dead += 1;
                    }
                }
                e.encode(&mut self.stream);
                self.tick_events += 1;
            }
            Event::BlockChange {
                pos,
                state,
                cause,
                ref block_entity,
            } => {
                self.world_events = true;
                self.world.apply(e);
                self.flags |= FLAG_CUSTOM_EVENTS;
                self.stream.push(world_kind::BLOCK_CHANGE);
                self.blocks
                    .encode(&mut self.stream, pos, state, cause, block_entity.as_deref());
                self.tick_events += 1;
            }
            Event::Custom { .. }
            | Event::Extension { .. }
            | Event::BlockChanges { .. }
            | Event::Swing { .. }
            | Event::Attack { .. }
            | Event::Use { .. }
            | Event::Damage { .. }
            | Event::Health { .. }
            | Event::Equipment { .. }
            | Event::Chat { .. }
            | Event::CustomAt { .. } => {
                if e.is_world() {
                    self.world_events = true;
                    self.world.apply(e);
                }
                self.flags |= FLAG_CUSTOM_EVENTS;
                e.encode(&mut self.stream);
                self.tick_events += 1;
            }
            Event::Checkpoint { .. } | Event::Velocity { .. } => {
                e.encode(&mut self.stream);
                self.tick_events += 1;
            }
        }
    }

    /// The slot of `entity`, created (not alive) if it has none.
    #[inline]
    fn slot(&mut self, entity: u32) -> usize {
        if let Some(&s) = self.slot_of.get(&entity) {
            return s as usize;
        }
        let s = self.slots.len();
        self.slot_of.insert(entity, s as u32);
        self.slots.push(Slot {
            id: entity,
            alive: false,
            kind: 0,
            flags: 0,
            pose: Pose::default(),
            samples: 0,
            last_rel: 0,
        });
        self.dead += 1;
        s
    }

    /// (Re)creates the entity in slot `s` with `kind` and `pose` (flags cleared).
    #[inline]
    fn revive(&mut self, s: usize, kind: u32, pose: Pose) {
        let slot = &mut self.slots[s];
        if !slot.alive {
            slot.alive = true;
            self.dead -= 1;
        }
        slot.kind = kind;
        slot.flags = 0;
        slot.pose = pose;
    }

    /// The slot of an entity an event names; an entity that is not alive is added implicitly
    /// (kind 0 at the origin, written to the stream as an `EntityAdd` so that readers, which never
    /// see pose events in the stream, rebuild the same entity table). Returns whether it was.
    #[inline]
    fn touch_implicit(&mut self, entity: u32) -> (usize, bool) {
        let s = self.slot(entity);
        if self.slots[s].alive {
            return (s, false);
        }
        self.revive(s, 0, Pose::default());
        self.stream.push(kind::ENTITY_ADD);
        put_uvarint(&mut self.stream, u64::from(entity));
        put_uvarint(&mut self.stream, 0);
        self.tick_events += 1;
        (s, true)
    }

    /// Logs slot `s`'s current pose as its sample at `rel` (a later sample of the same tick
    /// replaces it).
    #[inline]
    fn sample(&mut self, s: usize, rel: u32, reset: bool) {
        let slot = &mut self.slots[s];
        if slot.samples == 0 || slot.last_rel != rel {
            slot.samples += 1;
            slot.last_rel = rel;
            self.sample_count += 1;
        }
        self.log.push(LogSample {
            slot: s as u32 | if reset { RESET_BIT } else { 0 },
            rel,
            pose: slot.pose.to_array(),
        });
    }

    /// Encodes the payload (uncompressed). The chunk spans `start_tick..=last_tick`.
    pub fn encode_payload(&mut self, out: &mut Vec<u8>) {
        out.clear();
        // 1. keyframe
        put_uvarint(out, self.keyframe.len() as u64);
        let mut prev = 0u32;
        for (i, e) in self.keyframe.iter().enumerate() {
            put_uvarint(out, u64::from(if i == 0 { e.id } else { e.id - prev }));
            prev = e.id;
            put_uvarint(out, u64::from(e.kind));
            put_uvarint(out, u64::from(e.flags));
            for v in e.pose.to_array() {
                put_ivarint(out, v);
            }
        }
        // 2. snapshot, and the world section after it (flag FLAG_WORLD, data version 3 and later)
        let world = self.world_events || self.world_section.is_some();
        if let Some(s) = &self.snapshot {
            put_uvarint(out, s.len() as u64);
            out.extend_from_slice(s);
            if let Some(w) = &self.world_section {
                put_uvarint(out, w.len() as u64);
                out.extend_from_slice(w);
            }
        }
        // 3. event stream: with a block change (data version 8), the block columns, then each
        // record's tick as the gap since the record before
        if self.blocks.is_used() {
            self.put_stream_with_gaps(out);
        } else {
            put_uvarint(out, self.stream.len() as u64);
            out.extend_from_slice(&self.stream);
        }
        // 4. movement
        self.movement_at = out.len();
        let v2 = if crate::threads::is_library_thread() {
            SCRATCH.with(|sc| self.encode_movement(&mut sc.borrow_mut(), out))
        } else {
            let mut sc = self.own_scratch.take().unwrap_or_default();
            let v2 = self.encode_movement(&mut sc, out);
            self.own_scratch = Some(sc);
            v2
        };
        self.payload_version = if self.world_section.is_some() {
            DATA_VERSION
        } else if self.blocks.is_used() {
            8
        } else if world {
            4
        } else if v2 {
            2
        } else {
            1
        };
    }

    /// Writes the event stream with each record's tick as the gap since the previous record's
    /// (its relative tick for the first) and its event count as a varint, after the marker
    /// [`GAPS_MARKER`] (data version 7) and the block columns (data version 8): a machine's bursts
    /// every few ticks then repeat byte for byte.
    fn put_stream_with_gaps(&self, out: &mut Vec<u8>) {
        let varint_len = |v: u32| (32 - (v | 1).leading_zeros()).div_ceil(7) as usize;
        let gap = |i: usize| match i {
            0 => self.records[0].1,
            _ => self.records[i].1 - self.records[i - 1].1 - 1,
        };
        let count = |i: usize| {
            let at = self.records[i].0 as usize + varint_len(self.records[i].1);
            u32::from(u16::from_be_bytes([self.stream[at], self.stream[at + 1]]))
        };
        let columns = self.blocks.columns();
        let columns_len = self.blocks.columns_len();
        let len = GAPS_MARKER.len()
            + columns_len
            + self.stream.len()
            + (0..self.records.len())
                .map(|i| varint_len(gap(i)) + varint_len(count(i)))
                .sum::<usize>()
            - self
                .records
                .iter()
                .map(|r| varint_len(r.1) + 2)
                .sum::<usize>();
        put_uvarint(out, len as u64);
        let at = out.len();
        out.extend_from_slice(&GAPS_MARKER);
        // data version 8: the block changes' fields, a column each, before the records
        for c in columns.into_iter().flatten() {
            put_uvarint(out, c.len() as u64);
            out.extend_from_slice(c);
        }
        for (i, &(start, rel)) in self.records.iter().enumerate() {
            let body = start as usize + varint_len(rel) + 2;
            let end = self
                .records
                .get(i + 1)
                .map_or(self.stream.len(), |r| r.0 as usize);
            put_uvarint(out, u64::from(gap(i)));
            put_uvarint(out, u64::from(count(i)));
            out.extend_from_slice(&self.stream[body..end]);
        }
        debug_assert_eq!(out.len() - at, len);
    }

    /// The data version of the payload [`ChunkEncoder::encode_payload`] wrote last: the lowest
    /// that reads it (8 if it holds a block change; 5 if it has a world section; 4 if it holds a world event; else 2 if a column uses predictor 4, linear in
    /// time, or a track header stores its ticks as deltas; else 1).
    #[cfg(test)]
    pub fn payload_version(&self) -> u16 {
        self.payload_version
    }

    /// Encodes and compresses the chunk into a frame header + compressed payload (of exactly its
    /// length), padded to what a reader accepts ([`crate::format::frame::pad_payload`]).
    /// `scratch` and `compress_buf` are working buffers. The chunker calls its two halves,
    /// [`ChunkEncoder::encode_frame_payload`] and [`ChunkEncoder::compress_frame`] (every
    /// writer's frames come from the latter), to pick the level from the payload between them.
    #[cfg(any(test, feature = "wire"))]
    pub fn finish_frame(
        &mut self,
        compressor: &mut zstd::bulk::Compressor<'_>,
        scratch: &mut Vec<u8>,
        compress_buf: &mut Vec<u8>,
    ) -> Result<(FrameHeader, Vec<u8>)> {
        self.encode_frame_payload(scratch)?;
        self.compress_frame(compressor, scratch, compress_buf)
    }

    /// The first half of [`ChunkEncoder::finish_frame`]: encodes the chunk's payload into
    /// `scratch` and returns its tick count (so that the chunker can pick the compression level
    /// from the payload's density before [`ChunkEncoder::compress_frame`]).
    pub fn encode_frame_payload(&mut self, scratch: &mut Vec<u8>) -> Result<u32> {
        let last = self
            .last_tick
            .ok_or_else(|| Error::InvalidState("cannot finish an empty chunk".into()))?;
        self.encode_payload(scratch);
        Ok(last - self.start_tick + 1)
    }

    /// The second half of [`ChunkEncoder::finish_frame`]: compresses the payload `scratch` that
    /// [`ChunkEncoder::encode_frame_payload`] wrote into a frame.
    pub fn compress_frame(
        &mut self,
        compressor: &mut zstd::bulk::Compressor<'_>,
        scratch: &[u8],
        compress_buf: &mut Vec<u8>,
    ) -> Result<(FrameHeader, Vec<u8>)> {
        let last = self
            .last_tick
            .ok_or_else(|| Error::InvalidState("cannot finish an empty chunk".into()))?;
        compress_buf.clear();
        let at = self.movement_at;
        if at > 0 && at < scratch.len() && scratch.len() - at >= SPLIT_MOVEMENT_BYTES {
            // Two frames: what a read without the movement decompresses alone, then the
            // movement (FORMAT.md, section 6).
            let (head, movement) = scratch.split_at(at);
            compress_buf.reserve(zstd::zstd_safe::compress_bound(head.len()));
            compressor.compress_to_buffer(head, compress_buf)?;
            let first = compress_buf.len();
            compress_buf.resize(first + zstd::zstd_safe::compress_bound(movement.len()), 0);
            let n = compressor.compress_to_buffer(movement, &mut compress_buf[first..])?;
            compress_buf.truncate(first + n);
        } else {
            compress_buf.reserve(zstd::zstd_safe::compress_bound(scratch.len()));
            compressor.compress_to_buffer(scratch, compress_buf)?;
        }
        // A payload that compresses beyond what a reader accepts is padded (format::limits).
        crate::format::frame::pad_payload(compress_buf, scratch.len());
        let compressed = compress_buf.to_vec();
        let header = FrameHeader::for_payload(
            self.flags,
            self.payload_version,
            self.start_tick,
            last - self.start_tick + 1,
            u32::try_from(scratch.len()).map_err(|_| Error::limit("chunk payload over 4 GiB"))?,
            &compressed,
        );
        Ok((header, compressed))
    }
}

impl Slot {
    fn state(&self) -> EntityState {
        EntityState {
            id: self.id,
            kind: self.kind,
            flags: self.flags,
            pose: self.pose,
        }
    }
}

/// Checks what `push_tick` would refuse, before anything is changed: event count, custom/extension
/// payload sizes (so that the writer never produces a chunk its own reader refuses), extension kinds.
pub(crate) fn validate_events(events: &[Event]) -> Result<()> {
    if events.len() > u16::MAX as usize {
        return Err(Error::invalid("more than 65535 events in one tick"));
    }
    for e in events {
        if let Event::Custom { data, .. } | Event::Extension { data, .. } = e
            && data.len() > MAX_CUSTOM_EVENT_BYTES
        {
            return Err(Error::invalid(format!(
                "a custom event of {} bytes; at most {MAX_CUSTOM_EVENT_BYTES}",
                data.len(),
            )));
        }
        if let Event::Extension { kind: k, .. } = e {
            if !(kind::EXTENSION_FIRST..=kind::EXTENSION_LAST).contains(k) {
                return Err(Error::invalid(format!(
                    "0x{k:02x} is not an extension kind"
                )));
            }
            if *k <= world_kind::LAST {
                return Err(Error::invalid(format!(
                    "extension kind 0x{k:02x} is a world event's (see format::world_kind): \
                     submit the world event itself"
                )));
            }
        }
        crate::format::event::check_limits(e)?;
    }
    Ok(())
}

/// Sorted relative ticks as runs: `varint run count`, then per run `varint gap` (from the end of
/// the previous run, or from 0) and `varint length`.
mod sample_ticks;

/// Which world section a snapshot chunk carries: a keyframe or a delta.
mod world_sections;

/// The movement section: the open chunk's samples regrouped by entity into coded columns.
mod movement_section;
use movement_section::Scratch;

#[cfg(test)]
mod tests;
