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
use crate::format::block_coding::BlockCoding;
use crate::format::bytes::{put_ivarint, put_ivarints, put_uvarint};
use crate::format::event::{Event, MAX_CUSTOM_EVENT_BYTES, kind};
use crate::format::frame::FrameHeader;
use crate::format::index::{FLAG_CUSTOM_EVENTS, FLAG_SNAPSHOT, FLAG_WORLD};
use crate::format::movement;
use crate::format::pose::Pose;
use crate::format::state::{EntityState, EntityTable};
use crate::format::world::{self, world_kind};
use crate::format::world_state::WorldState;
use crate::format::{DATA_VERSION, gap_prediction};

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
    /// The data version the last encoded payload needs: 5 if it has a world section (which
    /// starts with what it stands on, a keyframe or a delta), 4 if it holds a world event (its
    /// block changes are coded against the chunk), else 2 if a column uses predictor 4
    /// (linear in time) or a track's ticks are stored as deltas, else 1 (so that readers of data
    /// version 1 read it).
    payload_version: u16,
    /// The chunk holds a world event (its payload needs data version 3).
    world_events: bool,
    /// The running world (edited blocks, equipment, health) after the last tick added.
    world: WorldState,
    /// The world section of the open chunk (the running world at its start), if it carries a
    /// snapshot and the world was not empty then.
    world_section: Option<Vec<u8>>,
    /// What the open chunk's block changes are coded against (data version 4).
    blocks: BlockCoding,
    /// The start tick of the chunk whose world section is the keyframe the next delta sections
    /// are written against (data version 5), and the snapshots with a world section begun since.
    /// `None`: the next world section is a keyframe.
    world_keyframe: Option<(u32, u32)>,
    /// `encode_payload`'s working buffers on a thread that is not the library's (the caller of a
    /// synchronous writer): see [`crate::threads`].
    own_scratch: Option<Box<Scratch>>,
}

/// Most snapshots with a world section written against one keyframe (the keyframe's included).
pub(crate) const MAX_SNAPSHOTS_PER_WORLD_KEYFRAME: u32 = 64;

/// Whether a snapshot's world section must be a keyframe rather than a delta: `snapshots`
/// sections were written against the keyframe already ([`MAX_SNAPSHOTS_PER_WORLD_KEYFRAME`]),
/// or the delta, `changed` blocks since the keyframe of `keyframe_blocks`, grew past a quarter
/// of it. A delta then costs a seek at most a quarter of decoding the whole world, and the
/// keyframes of a growing world come at least 25 % apart in size (their total stays within
/// five times the last one's).
fn keyframe_due(snapshots: u32, changed: usize, keyframe_blocks: usize) -> bool {
    snapshots >= MAX_SNAPSHOTS_PER_WORLD_KEYFRAME || changed * 4 > keyframe_blocks
}

thread_local! {
    /// `encode_payload`'s working buffers, shared by every encoder of a library thread (a writer
    /// thread serving many recordings keeps one warm set instead of one per recording). Not used
    /// on other threads: its destructor would keep the shared library mapped.
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// Buffers of `encode_payload`, kept for their capacity.
#[derive(Debug, Default)]
struct Scratch {
    /// Slots with samples, by entity id.
    order: Vec<u32>,
    /// Per slot: first index of its samples in the flat columns, and the next free one.
    start: Vec<u32>,
    cursor: Vec<u32>,
    last_reset: Vec<u32>,
    ticks: Vec<u32>,
    cols: [Vec<i64>; 5],
    res: [Vec<i64>; 5],
    /// (slot, sample index within the entity) of every teleport reset.
    resets: Vec<(u32, u32)>,
    /// Reset indices grouped by entity in `order`, and each entity's range in it.
    reset_idx: Vec<u32>,
    reset_range: Vec<(u32, u32)>,
    bases: Vec<Option<[i64; 5]>>,
    /// The movement section's codings, written after the track headers.
    codings: Vec<u8>,
}

impl ChunkEncoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// The running world after the last tick added.
    pub fn world(&self) -> &WorldState {
        &self.world
    }

    /// Replaces the running world (to continue a recording written earlier).
    pub(crate) fn set_world(&mut self, world: WorldState) {
        self.world = world;
        self.world_keyframe = None;
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
        self.world_section = (snapshot.is_some() && !self.world.is_empty()).then(|| {
            let mut buf = Vec::new();
            match self.world_keyframe {
                Some((at, n))
                    if !keyframe_due(
                        n,
                        self.world.changed_since_compact(),
                        self.world.compacted_len(),
                    ) =>
                {
                    self.world.encode_v5(start_tick - at, &mut buf);
                    self.world_keyframe = Some((at, n + 1));
                }
                _ => {
                    self.world.compact();
                    self.world.encode_v5(0, &mut buf);
                    self.world_keyframe = Some((start_tick, 1));
                }
            }
            buf
        });
        if self.world_section.is_some() {
            self.flags |= FLAG_WORLD;
        }
        self.snapshot = snapshot;
        self.stream.clear();
        self.blocks.clear();
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
            + self.sample_count as usize * 6
            + self.snapshot.as_ref().map_or(0, Vec::len)
            + self.world_section.as_ref().map_or(0, Vec::len)
    }
    /// An upper bound of the uncompressed chunk so far (for the format's limits; see
    /// `format::limits`): every sample and keyframe entry at its largest, per-entity track
    /// headers included.
    pub fn bound_bytes(&self) -> usize {
        use crate::format::limits::{EVENT_BYTES_MAX, KEYFRAME_ENTRY_MAX};
        1024 + self.stream.len()
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
        // 3. event stream
        put_uvarint(out, self.stream.len() as u64);
        out.extend_from_slice(&self.stream);
        // 4. movement
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
        } else if world {
            4
        } else if v2 {
            2
        } else {
            1
        };
    }

    /// The data version of the payload [`ChunkEncoder::encode_payload`] wrote last: the lowest
    /// that reads it (5 if it has a world section; 4 if it holds a world event; else 2 if a column uses predictor 4, linear in
    /// time, or a track header stores its ticks as deltas; else 1).
    #[cfg(test)]
    pub fn payload_version(&self) -> u16 {
        self.payload_version
    }

    /// Section 4: per entity its sample ticks and resets, then per column each entity's coding,
    /// then the residuals. Returns whether the section needs data version 2: a column uses
    /// predictor 4 (linear in time; considered for the tracks with a gap, and taken where it costs
    /// fewer residual bits than the best of the others), or a track's sample ticks are shorter as
    /// tick deltas than as runs. Otherwise it is written in data version 1's layout.
    fn encode_movement(&self, sc: &mut Scratch, out: &mut Vec<u8>) -> bool {
        self.group_samples(sc);
        let n = sc.order.len();
        // The codings first (with the sample ticks, they decide the layout); written after the
        // track headers.
        let mut codings = std::mem::take(&mut sc.codings);
        codings.clear();
        let mut timed = false;
        for col in 0..5 {
            for (i, &s) in sc.order.iter().enumerate() {
                let (a, b) = (
                    sc.start[s as usize] as usize,
                    sc.cursor[s as usize] as usize,
                );
                let (ra, rb) = sc.reset_range[i];
                let (values, base) = (&sc.cols[col][a..b], sc.bases[i].map(|p| p[col]));
                let resets = &sc.reset_idx[ra as usize..rb as usize];
                let (mut pred, mut divisor, cost) =
                    movement::choose_costed(values, base, resets, &mut sc.res[col][a..b]);
                let ticks = &sc.ticks[a..b];
                if gap_prediction::has_gap(ticks)
                    && gap_prediction::cost(values, ticks, base, resets) < cost
                {
                    let res = &mut sc.res[col][a..b];
                    gap_prediction::residuals(values, ticks, base, resets, res);
                    divisor = movement::divide_by_gcd(res);
                    pred = gap_prediction::PRED_TIME_LINEAR;
                    timed = true;
                }
                codings.push(pred);
                put_uvarint(&mut codings, divisor);
            }
        }
        let v2 = timed
            || sc.order.iter().any(|&s| {
                let (a, b) = (sc.start[s as usize], sc.cursor[s as usize]);
                sample_ticks::deltas_shorter(&sc.ticks[a as usize..b as usize])
            });
        put_uvarint(out, n as u64);
        let mut prev = 0u32;
        for (i, &s) in sc.order.iter().enumerate() {
            let id = self.slots[s as usize].id;
            put_uvarint(out, u64::from(if i == 0 { id } else { id - prev }));
            prev = id;
            let (a, b) = (
                sc.start[s as usize] as usize,
                sc.cursor[s as usize] as usize,
            );
            sample_ticks::encode(&sc.ticks[a..b], v2, out);
            let (ra, rb) = sc.reset_range[i];
            let resets = &sc.reset_idx[ra as usize..rb as usize];
            put_uvarint(out, resets.len() as u64);
            let mut p = 0u32;
            for &r in resets {
                put_uvarint(out, u64::from(r - p));
                p = r;
            }
        }
        out.extend_from_slice(&codings);
        sc.codings = codings;
        for col in 0..5 {
            for &s in &sc.order {
                let (a, b) = (
                    sc.start[s as usize] as usize,
                    sc.cursor[s as usize] as usize,
                );
                put_ivarints(out, &sc.res[col][a..b]);
            }
        }
        v2
    }

    /// Regroups the sample log by entity (in id order) into flat columns: each entity's samples
    /// are `start[slot]..cursor[slot]`, a later sample of the same tick replacing the earlier one.
    fn group_samples(&self, sc: &mut Scratch) {
        let slots = &self.slots;
        sc.order.clear();
        sc.order
            .extend((0..slots.len() as u32).filter(|&s| slots[s as usize].samples > 0));
        sc.order.sort_unstable_by_key(|&s| slots[s as usize].id);
        sc.start.clear();
        sc.start.resize(slots.len(), 0);
        let mut total = 0u32;
        for &s in &sc.order {
            sc.start[s as usize] = total;
            total += slots[s as usize].samples;
        }
        sc.cursor.clear();
        sc.cursor.extend_from_slice(&sc.start);
        sc.last_reset.clear();
        sc.last_reset.resize(slots.len(), u32::MAX);
        let total = total as usize;
        sc.ticks.resize(total, 0);
        for c in sc.cols.iter_mut().chain(sc.res.iter_mut()) {
            c.resize(total, 0);
        }
        sc.resets.clear();
        for ls in &self.log {
            let s = (ls.slot & !RESET_BIT) as usize;
            let (start, c) = (sc.start[s], sc.cursor[s]);
            let idx = if c > start && sc.ticks[c as usize - 1] == ls.rel {
                c - 1
            } else {
                sc.ticks[c as usize] = ls.rel;
                sc.cursor[s] = c + 1;
                c
            };
            for (col, v) in sc.cols.iter_mut().zip(ls.pose) {
                col[idx as usize] = v;
            }
            if ls.slot & RESET_BIT != 0 && sc.last_reset[s] != idx {
                sc.last_reset[s] = idx;
                sc.resets.push((s as u32, idx - start));
            }
        }
        // Resets by entity order (the entity's own resets are already in sample order).
        let start = &sc.start;
        sc.resets.sort_by_key(|&(s, _)| start[s as usize]);
        sc.reset_idx.clear();
        sc.reset_range.clear();
        sc.bases.clear();
        let mut j = 0;
        for &s in &sc.order {
            let a = sc.reset_idx.len() as u32;
            while j < sc.resets.len() && sc.resets[j].0 == s {
                sc.reset_idx.push(sc.resets[j].1);
                j += 1;
            }
            sc.reset_range.push((a, sc.reset_idx.len() as u32));
            let id = slots[s as usize].id;
            sc.bases.push(
                self.keyframe
                    .binary_search_by_key(&id, |e| e.id)
                    .ok()
                    .map(|i| self.keyframe[i].pose.to_array()),
            );
        }
    }

    /// Encodes and compresses the chunk into a frame header + compressed payload (of exactly its
    /// length), padded to what a reader accepts ([`crate::format::frame::pad_payload`]): every
    /// writer's frames come from here. `scratch` and `compress_buf` are working buffers.
    pub fn finish_frame(
        &mut self,
        compressor: &mut zstd::bulk::Compressor<'_>,
        scratch: &mut Vec<u8>,
        compress_buf: &mut Vec<u8>,
    ) -> Result<(FrameHeader, Vec<u8>)> {
        let last = self
            .last_tick
            .ok_or_else(|| Error::InvalidState("cannot finish an empty chunk".into()))?;
        self.encode_payload(scratch);
        compress_buf.clear();
        compress_buf.reserve(zstd::zstd_safe::compress_bound(scratch.len()));
        compressor.compress_to_buffer(scratch, compress_buf)?;
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
        world::check_limits(e)?;
    }
    Ok(())
}

/// Sorted relative ticks as runs: `varint run count`, then per run `varint gap` (from the end of
/// the previous run, or from 0) and `varint length`.
mod sample_ticks;

#[cfg(test)]
mod tests;
