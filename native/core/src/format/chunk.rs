//! The chunk payload (what a frame's compressed bytes decompress to), in four sections:
//!
//! 1. **keyframe**: the entities alive at the chunk's start (id, kind, flags, absolute pose), so
//!    every chunk decodes on its own;
//! 2. **snapshot** (only if the chunk's snapshot flag is set): `varint length` + opaque user bytes;
//!    if the flags also have [`crate::format::FLAG_WORLD`] (data version 3 and later), followed by
//!    the **world section**: `varint length` + the world (edited blocks, equipment, health)
//!    before the chunk's first tick, as [`crate::format::WorldState`] writes it: from data
//!    version 5 a keyframe (the whole world) or a delta against an earlier keyframe section
//!    ([`crate::format::WorldDelta`], put on its keyframe by the reader). A writer sets
//!    the flag when that world is not empty: a snapshot chunk without it starts from an empty
//!    world, and a recording without world events pays nothing;
//! 3. **event stream**: `varint byte length`, then per non-empty tick `varint tick (relative to the
//!    chunk start; from data version 7 the gap since the previous record's, less one)`,
//!    `u16 BE event count` (a varint from data version 7), events in stream encoding (the batch encoding, except
//!    that `EntityAdd` and `Teleport` carry no pose and `Pose`/`Position`/`Rotation` do not appear:
//!    every pose lives in section 4; from data version 8 a block change's fields are in the block
//!    columns before the records, FORMAT.md §7.3);
//! 4. **movement**: per entity the relative ticks of its pose samples (as runs), its teleport
//!    resets, then column by column (x, y, z, yaw, pitch) each entity's predictor and divisor, and
//!    then each column's residuals for all entities together (like values grouped, for zstd).
//!
//! Chunks are compressed with zstd into frames (see [`crate::format::frame`]). The encoder is
//! [`crate::format::encoder`]; this module decodes.

use crate::error::{Error, Result};
use crate::format::block_coding::{self, BlockCoding, GAPS_MARKER};
use crate::format::bytes::ByteReader;
use crate::format::event::{Event, kind};
use crate::format::frame::FrameHeader;
use crate::format::index::{FLAG_SNAPSHOT, FLAG_WORLD};
use crate::format::pose::Pose;
use crate::format::state::{EntityState, EntityTable};
use crate::format::tracks::{Around, decode_movement, next_id};
use crate::format::world::world_kind;
use crate::format::world_state::{WorldSection, WorldState};
use crate::format::{DATA_VERSION, Limits};

pub use crate::format::encoder::ChunkEncoder;
pub(crate) use crate::format::encoder::validate_events;
pub use crate::format::tracks::Track;

/// What a decode keeps of a chunk's tracks.
#[derive(Clone, Copy)]
enum Tracks<'a> {
    All,
    /// One entity's, and only what concerns it of the rest ([`DecodedChunk::decode_entity`]).
    One(u32),
    /// The entities it says; the rest whole but the world ([`DecodedChunk::decode_tracks_of`]).
    Of(&'a dyn Fn(u32) -> bool),
    /// None: the movement section is not read at all ([`DecodedChunk::decode_world_part`]).
    Nothing,
    /// None, and the world section stepped over too ([`DecodedChunk::decode_events`]).
    Events,
    /// The world section only: the decode stops after it, neither the event stream nor the
    /// movement read ([`DecodedChunk::decode_world_section`]).
    World,
    /// Every track's positions, exact for the tracks that may come within a radius of an entity;
    /// no snapshot, no world ([`DecodedChunk::decode_positions_around`]): the entity and the
    /// squared radius.
    PositionsAround(u32, f64),
}

/// The non-pose events of one tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TickRecord {
    pub rel: u32,
    /// Events in recorded order; `EntityAdd`/`Teleport` have their pose filled in.
    pub events: Vec<Event>,
}

/// The heap an event holds beside its own size: its payload, text, block entity or blocks.
fn event_heap_bytes(e: &Event) -> usize {
    match e {
        Event::Custom { data, .. }
        | Event::Extension { data, .. }
        | Event::CustomAt { data, .. } => data.capacity(),
        Event::BlockChange { block_entity, .. } => block_entity.as_ref().map_or(0, Vec::capacity),
        Event::BlockChanges { blocks, .. } => {
            blocks.capacity() * std::mem::size_of::<crate::format::world::BlockState>()
        }
        Event::Chat { text, .. } => text.capacity(),
        _ => 0,
    }
}

/// One decoded tick: pose updates first (entities that moved, by id, not already covered by an
/// `EntityAdd` or `Teleport` of the same tick), then the other events in recorded order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedTick {
    pub tick: u32,
    pub events: Vec<Event>,
}

/// A fully decoded chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedChunk {
    pub start_tick: u32,
    pub tick_count: u32,
    pub flags: u8,
    pub keyframe: Vec<EntityState>,
    pub snapshot: Option<Vec<u8>>,
    /// The world before the chunk's first tick in a snapshot chunk (its world section, or an
    /// empty world if it has none). `None` in other chunks, and in a snapshot chunk whose world
    /// section is a delta (data version 5) until a reader puts it on top of its keyframe's world
    /// ([`crate::play::Reader::read_chunk`] does).
    pub world: Option<std::sync::Arc<WorldState>>,
    /// A delta world section (data version 5) not yet put on top of its keyframe: the world
    /// is then known from the keyframe's chunk only (`world` is `None`).
    pub world_delta: Option<std::sync::Arc<crate::format::WorldDelta>>,
    pub records: Vec<TickRecord>,
    /// Sorted by entity id.
    pub tracks: Vec<Track>,
}

impl DecodedChunk {
    /// Decodes the block lists of this chunk's world (if it has one) now, refusing, naming the
    /// chunk's tick, what their decode refuses ([`WorldState::read_lists`]): what `verify`,
    /// compaction and `dump` ask of every snapshot chunk they read, where a seek leaves the
    /// lists to the world's first read.
    pub fn read_world_lists(&self) -> Result<()> {
        let Some(w) = &self.world else {
            return Ok(());
        };
        w.read_lists().map_err(|e| match e {
            Error::Corrupt(m) => Error::corrupt(format!("chunk at tick {}: {m}", self.start_tick)),
            Error::LimitExceeded(m) => {
                Error::limit(format!("chunk at tick {}: {m}", self.start_tick))
            }
            other => other,
        })
    }

    /// Decodes a payload. `flags`, `start_tick`, `tick_count` come from the frame header.
    pub fn decode(
        payload: &[u8],
        flags: u8,
        start_tick: u32,
        tick_count: u32,
        limits: &Limits,
    ) -> Result<DecodedChunk> {
        DecodedChunk::decode_part(
            payload,
            flags,
            start_tick,
            tick_count,
            limits,
            Tracks::All,
            DATA_VERSION,
        )
    }

    /// [`DecodedChunk::decode`] of a payload of data version `data_version` (from its frame
    /// header): what a reader decodes, refusing what that version does not have (predictor 4
    /// before data version 2).
    pub(crate) fn decode_version(
        payload: &[u8],
        header: &FrameHeader,
        limits: &Limits,
        only: Option<u32>,
    ) -> Result<DecodedChunk> {
        DecodedChunk::decode_framed(
            payload,
            header,
            limits,
            only.map_or(Tracks::All, Tracks::One),
        )
    }

    /// [`DecodedChunk::decode_version`] with the tracks of the entities `wanted` says only (the
    /// other tracks' residuals are stepped over, as in [`DecodedChunk::decode_entity`]); the
    /// keyframe, snapshot and events are whole, but an `EntityAdd` or `Teleport` of an entity not
    /// wanted keeps a default pose, and the world section is stepped over (`world` is `None`).
    /// What a shadow report decodes once it knows the entities it keeps (its writer keeps the
    /// world from the events).
    pub(crate) fn decode_tracks_of(
        payload: &[u8],
        header: &FrameHeader,
        limits: &Limits,
        wanted: &dyn Fn(u32) -> bool,
    ) -> Result<DecodedChunk> {
        DecodedChunk::decode_framed(payload, header, limits, Tracks::Of(wanted))
    }

    /// [`DecodedChunk::decode_version`] without the movement section: the keyframe, snapshot,
    /// world section and event stream, and no track (an `EntityAdd` or `Teleport` keeps a default
    /// pose). What a world rebuild needs of the chunks between its snapshot and its position
    /// (the movement, section 4, comes last: it is not even stepped over, so its corruption is
    /// left to the payload checksum and to a full decode).
    pub(crate) fn decode_world_part(
        payload: &[u8],
        header: &FrameHeader,
        limits: &Limits,
    ) -> Result<DecodedChunk> {
        DecodedChunk::decode_framed(payload, header, limits, Tracks::Nothing)
    }

    /// The world section of a payload and nothing after it: the keyframe is stepped over (its
    /// entries decoded, then dropped), the snapshot's bytes are not kept, and neither the event
    /// stream nor the movement is read (so their corruption is left to the payload checksum and
    /// to the decodes that read them). `world` or `world_delta` is set as
    /// [`DecodedChunk::decode_world_part`] sets it, with the same checks and errors; `keyframe`,
    /// `snapshot`, `records` and `tracks` are empty. What a world seek needs of its keyframe's
    /// chunk ([`crate::Reader::resolve_world`]): that chunk's events play no part in it.
    pub(crate) fn decode_world_section(
        payload: &[u8],
        header: &FrameHeader,
        limits: &Limits,
    ) -> Result<DecodedChunk> {
        DecodedChunk::decode_framed(payload, header, limits, Tracks::World)
    }

    /// [`DecodedChunk::decode_world_part`] without the world section either (stepped over:
    /// `world` and `world_delta` are `None`): the keyframe, snapshot and event stream. What
    /// reads the events only need (the viewer's markers, the block changes after a tick): no
    /// world of a large keyframe decoded for them.
    pub(crate) fn decode_events(
        payload: &[u8],
        header: &FrameHeader,
        limits: &Limits,
    ) -> Result<DecodedChunk> {
        DecodedChunk::decode_framed(payload, header, limits, Tracks::Events)
    }

    /// [`DecodedChunk::decode_version`] of where entities stand and what happens, exact where a
    /// radius test around entity `centre` needs it: the keyframe, the events and every track
    /// with its positions only (yaw and pitch stepped over, left at zero in the tracks and in
    /// the poses of `EntityAdd` and `Teleport`), no snapshot and no world (stepped over). The
    /// tracks whose samples may come within `sqrt(r2)` (fixed point) of a position the centre
    /// takes in the chunk (its keyframe entry, its samples, the positions its events give it)
    /// have their positions; the others only the x (and z) that puts them out of reach, the rest
    /// left at zero ([`crate::format::tracks::Around`]): their y (and z) are stepped over, not
    /// decoded. What a shadow report's first pass reads.
    pub(crate) fn decode_positions_around(
        payload: &[u8],
        header: &FrameHeader,
        limits: &Limits,
        centre: u32,
        r2: f64,
    ) -> Result<DecodedChunk> {
        DecodedChunk::decode_framed(payload, header, limits, Tracks::PositionsAround(centre, r2))
    }

    /// Decodes what a payload holds about one entity: its keyframe entry, the records of the ticks
    /// with events naming it (only those events), its track. No snapshot. Cheaper than
    /// [`DecodedChunk::decode`] on a chunk of many entities: the other entities' residuals are
    /// stepped over, not decoded (so their corruption is not detected here, only by the payload
    /// checksum). Everything about `entity` is exactly what a full decode gives.
    pub fn decode_entity(
        payload: &[u8],
        flags: u8,
        start_tick: u32,
        tick_count: u32,
        limits: &Limits,
        entity: u32,
    ) -> Result<DecodedChunk> {
        DecodedChunk::decode_part(
            payload,
            flags,
            start_tick,
            tick_count,
            limits,
            Tracks::One(entity),
            DATA_VERSION,
        )
    }

    /// [`DecodedChunk::decode_part`] with the fields of the payload's frame header.
    fn decode_framed(
        payload: &[u8],
        header: &FrameHeader,
        limits: &Limits,
        tracks: Tracks<'_>,
    ) -> Result<DecodedChunk> {
        DecodedChunk::decode_part(
            payload,
            header.flags,
            header.start_tick,
            header.tick_count,
            limits,
            tracks,
            header.data_version,
        )
    }

    fn decode_part(
        payload: &[u8],
        flags: u8,
        start_tick: u32,
        tick_count: u32,
        limits: &Limits,
        tracks: Tracks<'_>,
        data_version: u16,
    ) -> Result<DecodedChunk> {
        let (only, tracks_of) = match tracks {
            Tracks::All | Tracks::PositionsAround(..) => (None, None),
            Tracks::One(id) => (Some(id), None),
            Tracks::Of(wanted) => (None, Some(wanted)),
            Tracks::Nothing | Tracks::Events | Tracks::World => (None, None),
        };
        let movement = !matches!(tracks, Tracks::Nothing | Tracks::Events | Tracks::World);
        let world_only = matches!(tracks, Tracks::World);
        let positions_only = matches!(tracks, Tracks::PositionsAround(..));
        // The world section is decoded for a full decode and a world rebuild only.
        let world_wanted = matches!(tracks, Tracks::All | Tracks::Nothing | Tracks::World);
        if tick_count as usize > limits.max_chunk_ticks {
            return Err(Error::limit(format!(
                "chunk spans {tick_count} ticks; limit {}",
                limits.max_chunk_ticks
            )));
        }
        if u64::from(start_tick) + u64::from(tick_count) > 1 << 32 {
            return Err(Error::corrupt("chunk reaches past tick 2^32 - 1"));
        }
        let mut r = ByteReader::new(payload);
        // 1. keyframe (each entry takes at least 8 bytes)
        let n = r.len_varint(r.remaining() / 8, "keyframe entity count")?;
        if n > limits.max_alive_entities() {
            return Err(Error::limit(format!(
                "a keyframe of {n} entities; limit {}",
                limits.max_alive_entities()
            )));
        }
        let mut keyframe = Vec::with_capacity(n);
        let mut id = 0u32;
        for i in 0..n {
            id = next_id(&mut r, i, id, "keyframe")?;
            let kind = r.uvarint32()?;
            let flags = r.uvarint32()?;
            let pose = crate::format::event::get_pose(&mut r)?;
            keyframe.push(EntityState {
                id,
                kind,
                flags,
                pose,
            });
        }
        // 2. snapshot
        let snapshot = if flags & FLAG_SNAPSHOT != 0 {
            let len = r.len_varint(r.remaining(), "snapshot length")?;
            let bytes = r.bytes(len)?;
            (!positions_only && !world_only).then(|| bytes.to_vec())
        } else {
            None
        };
        if flags & FLAG_WORLD != 0 && (flags & FLAG_SNAPSHOT == 0 || data_version < 3) {
            return Err(Error::corrupt(format!(
                "chunk at tick {start_tick} has the world flag without a snapshot or in data \
                 version {data_version}"
            )));
        }
        let mut world_delta = None;
        let world = if flags & FLAG_WORLD != 0 {
            let len = r.len_varint(r.remaining(), "world section length")?;
            let body = r.bytes(len)?;
            if !world_wanted {
                None
            } else {
                let at = |e| match e {
                    Error::Corrupt(m) => Error::corrupt(format!("chunk at tick {start_tick}: {m}")),
                    Error::LimitExceeded(m) => {
                        Error::limit(format!("chunk at tick {start_tick}: {m}"))
                    }
                    other => other,
                };
                if data_version < 5 {
                    Some(std::sync::Arc::new(
                        WorldState::decode(body, limits).map_err(at)?,
                    ))
                } else {
                    match WorldState::decode_section(body, limits, data_version).map_err(at)? {
                        WorldSection::Full(w) => Some(std::sync::Arc::new(w)),
                        WorldSection::Delta(d) => {
                            if d.back > start_tick {
                                return Err(Error::corrupt(format!(
                                    "chunk at tick {start_tick}: world delta section against a \
                                     keyframe {} ticks back, before tick 0",
                                    d.back
                                )));
                            }
                            world_delta = Some(std::sync::Arc::new(d));
                            None
                        }
                    }
                }
            }
        } else if flags & FLAG_SNAPSHOT != 0 && world_wanted {
            Some(std::sync::Arc::new(WorldState::default()))
        } else {
            None
        };
        if world_only {
            return Ok(DecodedChunk {
                start_tick,
                tick_count,
                flags,
                keyframe: Vec::new(),
                snapshot,
                world,
                world_delta,
                records: Vec::new(),
                tracks: Vec::new(),
            });
        }
        // 3. stream
        let stream_len = r.len_varint(r.remaining(), "event stream length")?;
        let stream = r.bytes(stream_len)?;
        let mut records =
            decode_stream(stream, tick_count, limits.max_chunk_events(), data_version)?;
        // 4. movement
        if !movement {
            return Ok(DecodedChunk {
                start_tick,
                tick_count,
                flags,
                keyframe,
                snapshot,
                world,
                world_delta,
                records,
                tracks: Vec::new(),
            });
        }
        let around = match tracks {
            Tracks::PositionsAround(centre, r2) => Some(Around {
                centre,
                r2,
                also: positions_given(&records, centre),
            }),
            _ => None,
        };
        let tracks = decode_movement(
            &mut r,
            &keyframe,
            tick_count,
            limits.max_chunk_samples(),
            &|id| only.is_none_or(|o| o == id) && tracks_of.is_none_or(|w| w(id)),
            around.as_ref(),
            data_version,
        )?;
        if !r.is_empty() {
            return Err(Error::corrupt(format!(
                "chunk at tick {start_tick} has {} trailing bytes",
                r.remaining()
            )));
        }
        let mut snapshot = snapshot;
        let mut world = world;
        if let Some(id) = only {
            keyframe.retain(|e| e.id == id);
            snapshot = None;
            world = None;
            world_delta = None;
            for rec in &mut records {
                rec.events.retain(|e| e.involves(id));
            }
            records.retain(|rec| !rec.events.is_empty());
        }
        // Fill the poses of EntityAdd / Teleport from the tracks.
        for rec in &mut records {
            for e in &mut rec.events {
                if let Event::EntityAdd { entity, pose, .. } | Event::Teleport { entity, pose } = e
                    && tracks_of.is_none_or(|w| w(*entity))
                {
                    let t = tracks
                        .binary_search_by_key(entity, |t| t.entity)
                        .ok()
                        .map(|i| &tracks[i]);
                    let s = t.and_then(|t| t.sample_at(rec.rel).map(|s| t.poses[s]));
                    *pose = s.ok_or_else(|| {
                        Error::corrupt(format!(
                            "entity {entity} added or teleported at tick {} without a pose",
                            start_tick + rec.rel
                        ))
                    })?;
                }
            }
        }
        Ok(DecodedChunk {
            start_tick,
            tick_count,
            flags,
            keyframe,
            snapshot,
            world,
            world_delta,
            records,
            tracks,
        })
    }

    /// The heap it holds (with itself), as the allocator hands it out: what the chunk cache
    /// counts. A world is counted whole even where it shares its sorted blocks with another (a
    /// delta's world with its keyframe's).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let tracks: usize = self
            .tracks
            .iter()
            .map(|t| {
                t.ticks.capacity() * 4
                    + t.poses.capacity() * size_of::<Pose>()
                    + t.resets.capacity() * 4
            })
            .sum::<usize>()
            + self.tracks.capacity() * size_of::<Track>();
        let records: usize = self
            .records
            .iter()
            .map(|r| {
                r.events.capacity() * size_of::<Event>()
                    + r.events.iter().map(event_heap_bytes).sum::<usize>()
            })
            .sum::<usize>()
            + self.records.capacity() * size_of::<TickRecord>();
        // a world behind its `Arc`: two counts and the world itself
        let arc = |bytes: usize, of: usize| 16 + of + bytes;
        size_of::<Self>()
            + self.keyframe.capacity() * size_of::<EntityState>()
            + self.snapshot.as_ref().map_or(0, Vec::capacity)
            + self
                .world
                .as_ref()
                .map_or(0, |w| arc(w.heap_bytes(), size_of::<WorldState>()))
            + self.world_delta.as_ref().map_or(0, |d| {
                arc(d.heap_bytes(), size_of::<crate::format::WorldDelta>())
            })
            + tracks
            + records
    }

    /// One past the last tick of the chunk.
    pub fn end_tick(&self) -> u64 {
        u64::from(self.start_tick) + u64::from(self.tick_count)
    }

    /// Entity state at absolute tick `tick` (clamped into the chunk): keyframe, then every event
    /// and pose sample up to and including `tick`.
    pub fn state_at(&self, tick: u32) -> EntityTable {
        let rel = tick.saturating_sub(self.start_tick);
        let mut table: EntityTable = self.keyframe.iter().copied().collect();
        for rec in self.records.iter().take_while(|r| r.rel <= rel) {
            for e in &rec.events {
                table.apply(e);
            }
        }
        for t in &self.tracks {
            if let Some(i) = t.sample_at_or_before(rel)
                && let Some(s) = table.get_mut(t.entity)
            {
                s.pose = t.poses[i];
            }
        }
        table
    }

    /// Every non-empty tick of the chunk in order, as a reader would straight-decode it.
    pub fn ticks(&self) -> Vec<DecodedTick> {
        let mut by_tick: Vec<Vec<(u32, Pose)>> = vec![Vec::new(); self.tick_count as usize];
        for t in &self.tracks {
            for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
                by_tick[rel as usize].push((t.entity, *pose));
            }
        }
        let mut out = Vec::new();
        let mut ri = 0;
        for (rel, poses) in by_tick.into_iter().enumerate() {
            let rel = rel as u32;
            let rec = self.records.get(ri).filter(|r| r.rel == rel);
            if poses.is_empty() && rec.is_none() {
                continue;
            }
            let mut events = Vec::with_capacity(poses.len() + rec.map_or(0, |r| r.events.len()));
            for (entity, pose) in poses {
                let covered = rec.is_some_and(|r| {
                    r.events.iter().any(|e| {
                        matches!(e, Event::EntityAdd { entity: x, .. } | Event::Teleport { entity: x, .. } if *x == entity)
                    })
                });
                if !covered {
                    events.push(Event::Pose { entity, pose });
                }
            }
            if let Some(r) = rec {
                events.extend(r.events.iter().cloned());
                ri += 1;
            }
            out.push(DecodedTick {
                tick: self.start_tick + rel,
                events,
            });
        }
        out
    }
}

/// The event stream of a chunk of `data_version`: world events from 3 on, block changes coded
/// against the chunk ([`BlockCoding`]) from 4 on, from two cursors per cause from 6 on, with
/// the table of changed positions and each record's tick as a gap from 7 on, their fields in
/// columns before the records, far steps by section and code 0 the next state from 8 on.
/// The positions `entity`'s events in `records` put it at, besides its pose samples (an
/// `EntityAdd` or `Teleport` takes its pose from them): a pose or a position it is given, the
/// origin where a rotation or flags may add it ([`EntityTable::apply`]).
fn positions_given(records: &[TickRecord], entity: u32) -> Vec<[i64; 3]> {
    let mut out = Vec::new();
    for e in records.iter().flat_map(|r| &r.events) {
        match *e {
            Event::Pose { entity: id, pose } if id == entity => out.push([pose.x, pose.y, pose.z]),
            Event::Position {
                entity: id,
                x,
                y,
                z,
            } if id == entity => out.push([x, y, z]),
            Event::Rotation { entity: id, .. } | Event::Flags { entity: id, .. }
                if id == entity =>
            {
                out.push([0, 0, 0])
            }
            _ => {}
        }
    }
    out
}

fn decode_stream(
    stream: &[u8],
    tick_count: u32,
    max_events: usize,
    data_version: u16,
) -> Result<Vec<TickRecord>> {
    let world = data_version >= 3;
    let mut blocks = (data_version >= 4).then(|| BlockCoding::for_version(data_version));
    // data version 7: after the marker, each record's tick is the gap since the previous
    // record's, and its count a varint
    let gaps = data_version >= 7 && stream.starts_with(&GAPS_MARKER);
    let stream = if gaps {
        &stream[GAPS_MARKER.len()..]
    } else {
        stream
    };
    let mut r = ByteReader::new(stream);
    // data version 8: the block changes' fields, a column each, before the records
    let mut columns = if gaps && data_version >= 8 {
        let mut c: [ByteReader<'_>; block_coding::COLUMNS] =
            std::array::from_fn(|_| ByteReader::new(&[]));
        for c in &mut c {
            let n = r.len_varint(r.remaining(), "block column length")?;
            *c = ByteReader::new(r.bytes(n)?);
        }
        Some(c)
    } else {
        None
    };
    // each event takes at least 2 bytes in the stream (its kind and a field), a block change
    // with its fields in columns 1
    let min_event = if columns.is_some() { 1 } else { 2 };
    let mut records: Vec<TickRecord> = Vec::new();
    let mut total = 0usize;
    while !r.is_empty() {
        let rel = match (gaps, records.last()) {
            (true, Some(p)) => u32::try_from(
                r.uvarint()?
                    .checked_add(u64::from(p.rel) + 1)
                    .ok_or_else(|| Error::corrupt("event stream tick gap past 64 bits"))?,
            )
            .unwrap_or(u32::MAX),
            _ => r.uvarint32()?,
        };
        if rel >= tick_count || records.last().is_some_and(|p| rel <= p.rel) {
            return Err(Error::corrupt(format!(
                "event stream tick {rel} out of order or outside the chunk"
            )));
        }
        let count = if gaps {
            r.len_varint(usize::from(u16::MAX), "event count")?
        } else {
            r.u16_be()? as usize
        };
        if gaps && count == 0 {
            return Err(Error::corrupt("an event stream record without events"));
        }
        if count * min_event > r.remaining() {
            return Err(Error::corrupt("event count larger than the stream"));
        }
        total += count;
        if total > max_events {
            return Err(Error::limit(format!(
                "more than {max_events} events in one chunk"
            )));
        }
        let mut events = Vec::with_capacity(count);
        for _ in 0..count {
            let k = r.u8()?;
            let e = match k {
                kind::ENTITY_ADD => Event::EntityAdd {
                    entity: r.uvarint32()?,
                    kind: r.uvarint32()?,
                    pose: Pose::default(),
                },
                kind::TELEPORT => Event::Teleport {
                    entity: r.uvarint32()?,
                    pose: Pose::default(),
                },
                kind::POSE | kind::POSITION | kind::ROTATION => {
                    return Err(Error::corrupt("pose event inside an event stream"));
                }
                world_kind::BLOCK_CHANGE if blocks.is_some() => {
                    let b = blocks.as_mut().expect("checked");
                    b.decode(&mut r, columns.as_mut())?
                }
                _ => {
                    // Same encoding as a batch: step back over the kind byte.
                    let mut sub = ByteReader::new(&stream[r.position() - 1..]);
                    let e = Event::decode_version(&mut sub, world)?;
                    r.bytes(sub.position() - 1)?;
                    e
                }
            };
            events.push(e);
        }
        records.push(TickRecord { rel, events });
    }
    if columns.is_some_and(|c| c.iter().any(|c| !c.is_empty())) {
        return Err(Error::corrupt(
            "block columns longer than the stream's block changes",
        ));
    }
    Ok(records)
}

/// Decompresses and checks a frame's payload, then decodes it. A payload whose uncompressed length
/// its compressed length does not allow ([`crate::format::limits::check_expansion`]) is refused
/// before decompressing.
// Only the fuzz harness decodes a frame on its own (through `wire`); the reader goes by the cache.
#[cfg_attr(not(feature = "wire"), allow(dead_code))]
pub fn decode_frame(
    header: &FrameHeader,
    compressed: &[u8],
    decompressor: &mut zstd::bulk::Decompressor<'_>,
    limits: &Limits,
) -> Result<DecodedChunk> {
    let payload = decompress_frame(header, compressed, decompressor, limits)?;
    DecodedChunk::decode_version(&payload, header, limits, None)
}

/// Where a decode that reads no movement stops in a payload whose first bytes are `prefix`: after
/// the world section (`world_only`: [`DecodedChunk::decode_world_section`]) or after the event
/// stream ([`DecodedChunk::decode_world_part`], [`DecodedChunk::decode_events`]); `None` while
/// `prefix` is too short to say (or is malformed: the whole payload is then decompressed, and
/// its decode says what is wrong). `flags` are the frame header's.
pub(crate) fn prefix_end(prefix: &[u8], flags: u8, world_only: bool) -> Option<usize> {
    let mut r = ByteReader::new(prefix);
    // 1. keyframe: entries are stepped over as the decode reads them
    let n = r.uvarint().ok()?;
    let mut id = 0u32;
    for i in 0..usize::try_from(n).ok()? {
        id = next_id(&mut r, i, id, "keyframe").ok()?;
        r.uvarint32().ok()?;
        r.uvarint32().ok()?;
        crate::format::event::get_pose(&mut r).ok()?;
    }
    let mut at = prefix.len() - r.remaining();
    // 2.-3. snapshot, world section, event stream: each a length and its bytes
    let sections = [
        flags & FLAG_SNAPSHOT != 0,
        flags & FLAG_WORLD != 0,
        !world_only,
    ];
    for present in sections {
        if !present {
            continue;
        }
        let mut r = ByteReader::new(prefix.get(at..)?);
        let len = usize::try_from(r.uvarint().ok()?).ok()?;
        at = (prefix.len() - r.remaining()).checked_add(len)?;
    }
    (at <= prefix.len()).then_some(at)
}

/// The first zstd frame of a compressed payload (skippable frames before it stepped over), as
/// `(offset, compressed length, content length)`, if its header gives a content length of at
/// most `max`; `None` otherwise (then the whole payload is decompressed).
fn first_frame(compressed: &[u8], max: usize) -> Option<(usize, usize, usize)> {
    let mut at = 0usize;
    loop {
        let rest = compressed.get(at..)?;
        let magic = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?);
        // any of the 16 skippable magics (padding, a terrain piece)
        if magic & 0xFFFF_FFF0 == crate::format::frame::SKIPPABLE_MAGIC {
            let n = u32::from_le_bytes(rest.get(4..8)?.try_into().ok()?);
            at = at.checked_add(8)?.checked_add(usize::try_from(n).ok()?)?;
            continue;
        }
        let len = zstd::zstd_safe::find_frame_compressed_size(rest).ok()?;
        let content = zstd::zstd_safe::get_frame_content_size(rest).ok()??;
        let content = usize::try_from(content).ok().filter(|&c| c <= max)?;
        return Some((at, len, content));
    }
}

/// The first bytes of a frame's payload that a decode without the movement reads, `end` saying
/// how many it needs of the bytes decompressed (see [`prefix_end`]): checked as
/// [`decompress_frame`] checks the frame (checksum of the whole compressed payload, data version,
/// lengths against `limits`), then only the payload's first zstd frame decompressed when it
/// holds them (a writer compresses the movement as a frame of its own, FORMAT.md section 6),
/// else the whole payload. What a world rebuild reads of the chunks before its position and of
/// its keyframe's chunk, and a scan of the events. The frames after the first are not checked
/// to decompress (the payload checksum covers them; a full decode checks them).
pub(crate) fn decompress_frame_prefix(
    header: &FrameHeader,
    compressed: &[u8],
    decompressor: &mut zstd::bulk::Decompressor<'_>,
    limits: &Limits,
    end: impl Fn(&[u8]) -> Option<usize>,
) -> Result<Vec<u8>> {
    let len = check_frame(header, compressed, limits)?;
    if let Some((at, n, content)) = first_frame(compressed, len)
        && content < len
        && let Ok(prefix) = decompressor.decompress(&compressed[at..at + n], content)
        && prefix.len() == content
        && end(&prefix).is_some()
    {
        return Ok(prefix);
    }
    decompress_checked(header, compressed, decompressor, len)
}

/// Checks a frame's compressed payload (checksum, data version, lengths against `limits`) and
/// decompresses it: the payload bytes of section 7, exactly `uncompressed length` of them.
pub(crate) fn decompress_frame(
    header: &FrameHeader,
    compressed: &[u8],
    decompressor: &mut zstd::bulk::Decompressor<'_>,
    limits: &Limits,
) -> Result<Vec<u8>> {
    let len = check_frame(header, compressed, limits)?;
    decompress_checked(header, compressed, decompressor, len)
}

/// Checks a frame's compressed payload (checksum, data version, lengths against `limits`): its
/// uncompressed length, once checked.
fn check_frame(header: &FrameHeader, compressed: &[u8], limits: &Limits) -> Result<usize> {
    header.verify_payload(compressed)?;
    if header.data_version > DATA_VERSION {
        return Err(Error::Unsupported(format!(
            "chunk data version {}; this build reads up to {DATA_VERSION}",
            header.data_version
        )));
    }
    let len = header.uncompressed_len as usize;
    if len > limits.max_chunk_bytes {
        return Err(Error::limit(format!(
            "chunk of {len} bytes uncompressed; limit {}",
            limits.max_chunk_bytes
        )));
    }
    // Decompression costs what it outputs: bounded by the bytes read (format::limits).
    crate::format::limits::check_expansion(
        header.compressed_len,
        header.uncompressed_len,
        header.start_tick,
    )?;
    Ok(len)
}

/// Decompresses a payload [`check_frame`] checked: exactly `len` bytes.
fn decompress_checked(
    header: &FrameHeader,
    compressed: &[u8],
    decompressor: &mut zstd::bulk::Decompressor<'_>,
    len: usize,
) -> Result<Vec<u8>> {
    let payload = decompressor
        .decompress(compressed, len)
        .map_err(|e| Error::corrupt(format!("chunk at tick {}: {e}", header.start_tick)))?;
    if payload.len() != len {
        return Err(Error::corrupt(format!(
            "chunk at tick {} decompressed to {} bytes, expected {len}",
            header.start_tick,
            payload.len()
        )));
    }
    Ok(payload)
}
