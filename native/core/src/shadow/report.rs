//! Writing a report: the window around the reported player, cut from the retained blocks into an
//! ordinary `.reel` (on the engine's background worker).

use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashSet;
use std::path::PathBuf;
use std::sync::Arc;

use fastnbt::Value;

use crate::error::{Error, Result};
use crate::format::chunk::{DecodedChunk, DecodedTick};
use crate::format::event::Event;
use crate::format::header::Header;
use crate::format::metadata::{EntityInfo, EventType, Metadata};
use crate::format::palette::{Palette, PaletteKind};
use crate::format::pose::{POS_SCALE, Pose};
use crate::format::state::EntityTable;
use crate::play::{Reader, ReaderOptions};
use crate::record::analysis::Analysis;
use crate::record::compaction_worker::memory_reader;
use crate::record::{ChunkPolicy, RecordingIdentity, ReelOptions, ReelWriter};
use crate::shadow::keep::Keeper;
use crate::shadow::options::{REPORT_KEY, ReportOptions};
use crate::shadow::ring::Block;
use crate::storage::Storage;

/// Everything a report needs, taken from the buffer when its capture ended.
pub(crate) struct ReportJob {
    pub storage: Arc<dyn Storage>,
    pub header: Header,
    pub entities: HashMap<u32, EntityInfo>,
    pub event_types: Vec<EventType>,
    pub palette: Palette,
    /// The server that recorded the stream (the report file names it too).
    pub server: Option<String>,
    pub user: HashMap<String, Value>,
    pub blocks: Vec<Arc<Block>>,
    /// The stream's terrain when the report was taken.
    pub terrain: Arc<crate::format::Terrain>,
    /// The stream's first tick ([`super::ring::Ring::origin`]).
    pub origin: Option<u32>,
    pub player: u32,
    /// Ticks wanted (clipped to what the blocks hold).
    pub first: u32,
    pub last: u32,
    pub report_tick: u32,
    pub left_tick: Option<u32>,
    pub created_ms: i64,
    pub path: PathBuf,
    pub options: ReportOptions,
}

/// Writes the report file; its path.
pub(crate) fn write_report(job: ReportJob) -> Result<PathBuf> {
    write_report_by(job, Passes::Fast)
}

/// How a report finds its entities and makes its ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Passes {
    /// [`near_entities`] on each chunk's candidates, then the followed entities' poses only.
    Fast,
    /// The plain walk: every entity checked where it moved, every pose made and filtered (what
    /// the tests hold the fast passes to).
    #[cfg(test)]
    Reference,
}

fn write_report_by(job: ReportJob, passes: Passes) -> Result<PathBuf> {
    let blocks: Vec<&Arc<Block>> = job
        .blocks
        .iter()
        .filter(|b| b.last_tick() >= job.first && b.first_tick() <= job.last)
        .collect();
    let (Some(head), Some(tail)) = (blocks.first(), blocks.last()) else {
        return Err(Error::InvalidState(format!(
            "the shadow buffer no longer holds ticks {} to {} of entity {} (dropped for the memory budget)",
            job.first, job.last, job.player
        )));
    };
    let first = job.first.max(head.first_tick());
    let last = job.last.min(tail.last_tick());
    let mut header = job.header.clone();
    header.chunk_count = 0;
    let reader = memory_reader(blocks.iter().map(|b| &b.frame), header, Metadata::default())?;
    let (included, senders, sampled) = match (job.options.radius, passes) {
        (Some(r), Passes::Fast) => {
            let near = near_entities(&reader, job.player, first, last, r)?;
            (near.entities, near.senders, near.sampled)
        }
        #[cfg(test)]
        (Some(r), Passes::Reference) => (
            tests::near_entities_reference(&reader, job.player, first, last, r)?,
            FxHashSet::default(),
            Vec::new(),
        ),
        (None, _) => (None, FxHashSet::default(), Vec::new()),
    };
    // The entities whose poses the report follows: the kept ones, and the chat senders (the
    // keeper measures where they stand); `None`: all.
    let followed: Option<FxHashSet<u32>> = match passes {
        Passes::Fast => included
            .as_ref()
            .map(|s| s.iter().chain(&senders).copied().collect()),
        #[cfg(test)]
        Passes::Reference => None,
    };
    let keep = |id: u32| included.as_ref().is_none_or(|s| s.contains(&id));

    let mut w = ReelWriter::create_in(
        job.storage.clone(),
        &job.path,
        ReelOptions {
            identity: RecordingIdentity {
                world_id: job.header.world_id,
                world_version: job.header.world_version,
                timestamp_ms: job.header.timestamp_ms,
                tick_rate_millihz: job.header.tick_rate_millihz,
                game_data_version: job.header.game_data_version,
                dictionary_id: job.header.dictionary_id,
            },
            policy: ChunkPolicy {
                zstd_level: job.options.zstd_level,
                // Snapshots are carried over where the blocks have them.
                snapshot_interval: u32::MAX,
                ..ChunkPolicy::compacted()
            },
        },
    )?;
    // A report is a recording of its own.
    w.set_recording_id(*uuid::Uuid::new_v4().as_bytes());
    // Snapshots are the blocks' own: none is added for the chunk count.
    w.carry_snapshots_only();
    for (k, v) in &job.user {
        w.set_user_metadata(k.clone(), v.clone())?;
    }
    let mut ids: Vec<u32> = job
        .entities
        .keys()
        .copied()
        .filter(|&id| keep(id))
        .collect();
    ids.sort_unstable();
    for id in &ids {
        w.register_entity(job.entities[id].clone())?;
    }
    for t in &job.event_types {
        w.register_event_type(t.clone())?;
    }
    if let Some(server) = &job.server {
        w.set_server(server)?;
    }
    for kind in PaletteKind::ALL {
        for (&id, name) in job.palette.names(kind) {
            w.register_name(kind, id, name)?;
        }
    }

    // The terrain around the player: the sections within the radius of every chunk column the
    // player stood in during the report (all of it without a radius), in effect from its first
    // tick.
    if !job.terrain.is_empty() {
        let kept = match job.options.radius {
            Some(r) => job
                .terrain
                .around_columns(&player_columns(&reader, job.player, first, last)?, r),
            None => crate::format::Terrain::clone(&job.terrain),
        };
        if !kept.is_empty() {
            w.carry_terrain(kept)?;
        }
    }
    let mut analysis = Analysis::new(job.header.tick_rate_millihz, &job.palette);
    let mut context = HashSet::new();
    let mut started = false;
    // The world before the first tick is known when the report starts with the stream, or with
    // a snapshot of its own; otherwise the file says it starts mid-world, so that a rebuild
    // before its first snapshot is cut short instead of starting from an empty world.
    let mut world_known = job.origin.is_some_and(|o| first <= o);
    let mut keeper = Keeper::new(
        job.player,
        job.options.radius,
        included.clone(),
        job.options.keep,
    );
    for i in 0..reader.index().len() {
        // Only the followed entities' tracks are decoded (the first pass said which ticks have
        // samples of any entity).
        let part = followed.as_ref().zip(sampled.get(i));
        let chunk = match part {
            Some((set, _)) => {
                let (fh, payload) = reader.read_payload(i)?;
                DecodedChunk::decode_tracks_of(&payload, &fh, reader.limits(), &|id| {
                    set.contains(&id)
                })?
            }
            None => reader.read_chunk(i)?,
        };
        if !started {
            world_known |= chunk.start_tick == first && chunk.snapshot.is_some();
            // The state just before the first tick: the file's first keyframe.
            let before: EntityTable = if first > chunk.start_tick {
                chunk.state_at(first - 1)
            } else {
                chunk.keyframe.iter().copied().collect()
            };
            keeper.observe_state(before.as_slice());
            let table: EntityTable = before.iter().copied().filter(|e| keep(e.id)).collect();
            context.extend(table.iter().map(|e| e.id));
            analysis.keyframe(first, table.as_slice());
            if world_known {
                w.start_from(table);
            } else {
                w.start_mid_world(table, first);
            }
            started = true;
        } else {
            let kf: Vec<_> = chunk
                .keyframe
                .iter()
                .copied()
                .filter(|e| keep(e.id))
                .collect();
            analysis.keyframe(chunk.start_tick, &kf);
        }
        if let Some(s) = &chunk.snapshot
            && chunk.start_tick >= first
        {
            w.carry_snapshot(s.clone());
        }
        for t in report_ticks(&chunk, first, last, part) {
            if w.last_tick().is_none() && t.tick > first {
                // The file spans exactly the report's ticks, from the first on.
                w.write_tick(first, &[])?;
            }
            keeper.observe(&t.events);
            let events: Vec<Event> = t
                .events
                .into_iter()
                .filter_map(|e| keeper.filter(e))
                .collect();
            for e in &events {
                analysis.event(t.tick, e);
                if let Some(id) = e.entity().filter(|&id| keep(id)) {
                    context.insert(id);
                }
            }
            w.write_tick(t.tick, &events)?;
        }
    }
    if w.last_tick().is_none() {
        w.write_tick(first, &[])?;
    }
    if w.last_tick() != Some(last) {
        w.write_tick(last, &[])?;
    }
    analysis.finish(last);
    w.set_analysis(analysis.to_nbt());
    w.set_user_metadata(REPORT_KEY, report_compound(&job, first, last, &context))?;

    let file = w.finish_unpublished()?;
    let back = Reader::open_with(
        job.storage.open(file.temp_path())?,
        ReaderOptions::default(),
    )?;
    back.verify()?;
    if (back.first_tick(), back.last_tick()) != (Some(first), Some(last)) {
        return Err(Error::corrupt(format!(
            "the report covers {}, not ticks {first} to {last}",
            crate::error::tick_span(back.first_tick(), back.last_tick())
        )));
    }
    match file.publish_at(&job.path, job.options.overwrite) {
        Ok(_) => Ok(job.path),
        Err(e) if e.is_conflict() => Err(Error::exists_at(
            &job.path,
            &format!(
                "; set the report's {} option to replace it",
                crate::error::option("overwrite")
            ),
        )),
        Err(e) => Err(e.error),
    }
}

/// The chunk columns (x, z) the player stood in from `first` to `last`: its keyframe entries and
/// pose samples, decoded for that entity only.
fn player_columns(
    reader: &Reader,
    player: u32,
    first: u32,
    last: u32,
) -> Result<HashSet<(i32, i32)>> {
    let column = |p: &Pose| {
        let c = |v: i64| ((v as f64 / POS_SCALE).floor() as i64 >> 4) as i32;
        (c(p.x), c(p.z))
    };
    let mut out = HashSet::new();
    for i in 0..reader.index().len() {
        let chunk = reader.read_chunk_entity(i, player)?;
        if chunk.start_tick > last || chunk.end_tick() <= u64::from(first) {
            continue;
        }
        out.extend(
            chunk
                .keyframe
                .iter()
                .filter(|e| e.id == player)
                .map(|e| column(&e.pose)),
        );
        for t in chunk.tracks.iter().filter(|t| t.entity == player) {
            for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
                let tick = chunk.start_tick + rel;
                if tick >= first && tick <= last {
                    out.insert(column(pose));
                }
            }
        }
    }
    Ok(out)
}

/// The chunk's ticks within `first..=last` as [`DecodedChunk::ticks`] gives them, with the pose
/// samples of the `followed` entities only (with the relative ticks where any entity has a
/// sample; `None`: all entities): the other entities' poses are left out before they are made.
/// A tick with nothing but poses of others is there, empty.
fn report_ticks(
    chunk: &DecodedChunk,
    first: u32,
    last: u32,
    followed: Option<(&FxHashSet<u32>, &Vec<bool>)>,
) -> Vec<DecodedTick> {
    let Some((followed, sampled)) = followed else {
        let mut ticks = chunk.ticks();
        ticks.retain(|t| t.tick >= first && t.tick <= last);
        return ticks;
    };
    let n = chunk.tick_count as usize;
    let from = first.saturating_sub(chunk.start_tick) as usize;
    let to = (last.saturating_sub(chunk.start_tick) as usize).min(n.saturating_sub(1));
    if last < chunk.start_tick || from > to {
        return Vec::new();
    }
    // The followed samples by tick.
    let mut by_tick: Vec<Vec<(u32, Pose)>> = vec![Vec::new(); n];
    for t in chunk.tracks.iter().filter(|t| followed.contains(&t.entity)) {
        for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
            by_tick[rel as usize].push((t.entity, *pose));
        }
    }
    let mut out = Vec::new();
    let mut records = chunk.records.iter().peekable();
    for (rel, poses) in by_tick.iter_mut().enumerate().take(to + 1).skip(from) {
        while records.next_if(|r| (r.rel as usize) < rel).is_some() {}
        let rec = records.next_if(|r| r.rel as usize == rel);
        if !sampled.get(rel).is_some_and(|&b| b) && rec.is_none() {
            continue;
        }
        let poses = std::mem::take(poses);
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
        }
        out.push(DecodedTick {
            tick: chunk.start_tick + rel as u32,
            events,
        });
    }
    out
}

/// What the first pass over a report's chunks finds.
struct Near {
    /// The entities that came within the radius of the player, the player included (`None`
    /// when the player is never alive in the report: everything is kept then).
    entities: Option<FxHashSet<u32>>,
    /// Senders of the report's chat lines: whether a line is kept may depend on where its
    /// sender stands ([`Keeper`]), so their poses are followed even when they are not kept.
    senders: FxHashSet<u32>,
    /// Per chunk, per relative tick: whether any entity has a pose sample there.
    sampled: Vec<Vec<bool>>,
}

/// The entities that came within `radius` blocks of `player` at any tick of `first..=last`
/// ([`Near`]).
///
/// Walks each chunk's ticks in order on one entity table, checking a distance where it may have
/// changed: every entity after the player moved, else the entities that moved (from the first
/// tick with a change on). Only the chunk's candidates are followed: the entities whose
/// positions in the chunk (where they stand before its first tick and their pose samples) come
/// within the radius of the box around the player's, and those an event names (an event may
/// add an entity at the origin); no other one can be within the radius at any tick of the chunk.
fn near_entities(reader: &Reader, player: u32, first: u32, last: u32, radius: f64) -> Result<Near> {
    let r = radius * POS_SCALE;
    let r2 = r * r;
    let mut near = FxHashSet::default();
    near.insert(player);
    let mut senders = FxHashSet::default();
    let mut seen_player = false;
    let close = |a: &Pose, b: &Pose| {
        let (dx, dy, dz) = ((a.x - b.x) as f64, (a.y - b.y) as f64, (a.z - b.z) as f64);
        dx * dx + dy * dy + dz * dz <= r2
    };
    // Per chunk, reused: candidate ids (sorted), the tick bucket offsets of their samples and
    // the samples, the candidates that changed at a tick.
    let mut candidates: Vec<u32> = Vec::new();
    let mut offsets: Vec<u32> = Vec::new();
    let mut samples: Vec<(u32, Pose)> = Vec::new();
    let mut moved: Vec<u32> = Vec::new();
    let mut sampled = Vec::with_capacity(reader.index().len());
    for i in 0..reader.index().len() {
        let chunk = reader.read_chunk(i)?;
        let mut any = vec![false; chunk.tick_count as usize];
        for t in &chunk.tracks {
            for &rel in &t.ticks {
                any[rel as usize] = true;
            }
        }
        sampled.push(any);
        let any = &sampled[i];
        let from = first.max(chunk.start_tick);
        let mut table: EntityTable = if from > chunk.start_tick {
            chunk.state_at(from - 1)
        } else {
            chunk.keyframe.iter().copied().collect()
        };
        let rel_from = from - chunk.start_tick;
        let rel_to = last.saturating_sub(chunk.start_tick);
        // The last relative tick of the chunk in the report (the chunks overlap the report).
        let hi = rel_to.min(chunk.tick_count.saturating_sub(1));
        if rel_from > hi {
            continue;
        }
        let in_range = |rel: u32| rel >= rel_from && rel <= rel_to;
        let records = &chunk.records;
        let r_lo = records.partition_point(|r| r.rel < rel_from);
        let r_hi = records.partition_point(|r| r.rel <= rel_to);
        let records = &records[r_lo..r_hi];

        // The box around the player's positions, and the candidates.
        let track_of = |id: u32| {
            chunk
                .tracks
                .binary_search_by_key(&id, |t| t.entity)
                .ok()
                .map(|k| &chunk.tracks[k])
        };
        let mut pbox = BoxOf::default();
        if let Some(e) = table.get(player) {
            pbox.add(&e.pose);
        }
        // (flags for an entity not in the table put it there, at the origin)
        if records.iter().any(|r| {
            r.events
                .iter()
                .any(|e| matches!(*e, Event::Flags { entity, .. } if entity == player))
        }) {
            pbox.add(&Pose::default());
        }
        if let Some(t) = track_of(player) {
            for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
                if in_range(rel) {
                    pbox.add(pose);
                }
            }
        }
        candidates.clear();
        if !pbox.is_empty() {
            // entities that stand still in the chunk (no samples)
            let mut ti = chunk.tracks.iter().peekable();
            for e in table.iter() {
                while ti.next_if(|t| t.entity < e.id).is_some() {}
                if ti.peek().is_some_and(|t| t.entity == e.id) {
                    continue;
                }
                if pbox.within(&e.pose, r2) {
                    candidates.push(e.id);
                }
            }
            for t in &chunk.tracks {
                let mut b = BoxOf::default();
                if let Some(e) = table.get(t.entity) {
                    b.add(&e.pose);
                }
                for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
                    if in_range(rel) {
                        b.add(pose);
                    }
                }
                if !b.is_empty() && pbox.meets(&b, r2) {
                    candidates.push(t.entity);
                }
            }
        }
        for rec in records {
            for e in &rec.events {
                candidates.extend(e.entity());
                if let Event::Chat {
                    sender: Some(s), ..
                } = e
                {
                    senders.insert(*s);
                }
            }
        }
        candidates.push(player);
        candidates.sort_unstable();
        candidates.dedup();

        // The candidates' samples by tick (a counting sort: ticks in order, ids in order).
        let span = (hi - rel_from + 1) as usize;
        offsets.clear();
        offsets.resize(span + 1, 0);
        let tracks: Vec<_> = candidates.iter().filter_map(|&id| track_of(id)).collect();
        for t in &tracks {
            for &rel in &t.ticks {
                if in_range(rel) {
                    offsets[(rel - rel_from) as usize + 1] += 1;
                }
            }
        }
        for k in 1..=span {
            offsets[k] += offsets[k - 1];
        }
        samples.clear();
        samples.resize(offsets[span] as usize, (0, Pose::default()));
        let mut fill = offsets.clone();
        for t in &tracks {
            for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
                if in_range(rel) {
                    let k = &mut fill[(rel - rel_from) as usize];
                    samples[*k as usize] = (t.entity, *pose);
                    *k += 1;
                }
            }
        }
        // The ticks where anything changed (a sample of any entity, or an event).
        let mut changed = any[rel_from as usize..=hi as usize].to_vec();
        for rec in records {
            if rec.rel <= hi {
                changed[(rec.rel - rel_from) as usize] = true;
            }
        }

        let mut all = true; // check everyone at the first tick
        let mut ri = 0;
        for k in 0..span {
            if !changed[k] {
                continue;
            }
            let rel = rel_from + k as u32;
            moved.clear();
            let mut player_moved = false;
            for &(id, pose) in &samples[offsets[k] as usize..offsets[k + 1] as usize] {
                if let Some(e) = table.get_mut(id) {
                    e.pose = pose;
                }
                moved.push(id);
                player_moved |= id == player;
            }
            if records.get(ri).is_some_and(|r| r.rel == rel) {
                for e in &records[ri].events {
                    table.apply(e);
                    if let Some(id) = e.entity() {
                        moved.push(id);
                        player_moved |= id == player;
                    }
                }
                ri += 1;
            }
            let Some(p) = table.get(player).map(|e| e.pose) else {
                all = true;
                continue;
            };
            seen_player = true;
            let check: &[u32] = if all || player_moved {
                all = false;
                &candidates
            } else {
                &moved
            };
            for id in check {
                if let Some(e) = table.get(*id)
                    && close(&e.pose, &p)
                {
                    near.insert(*id);
                }
            }
        }
        // A chunk where nothing happened after the start still counts its starting state.
        if all && let Some(p) = table.get(player).map(|e| e.pose) {
            seen_player = true;
            for id in &candidates {
                if let Some(e) = table.get(*id)
                    && close(&e.pose, &p)
                {
                    near.insert(*id);
                }
            }
        }
    }
    Ok(Near {
        entities: seen_player.then_some(near),
        senders,
        sampled,
    })
}

/// The box around some positions (fixed point, x, y, z).
#[derive(Clone, Copy)]
struct BoxOf {
    lo: [i64; 3],
    hi: [i64; 3],
}

impl Default for BoxOf {
    fn default() -> BoxOf {
        BoxOf {
            lo: [i64::MAX; 3],
            hi: [i64::MIN; 3],
        }
    }
}

impl BoxOf {
    fn add(&mut self, p: &Pose) {
        for (k, v) in [p.x, p.y, p.z].into_iter().enumerate() {
            self.lo[k] = self.lo[k].min(v);
            self.hi[k] = self.hi[k].max(v);
        }
    }
    fn is_empty(&self) -> bool {
        self.lo[0] > self.hi[0]
    }
    /// Whether a point may be within `sqrt(r2)` of a point of the box: the squared distance to
    /// the box, computed as a distance between two points is, at most `r2`.
    fn within(&self, p: &Pose, r2: f64) -> bool {
        let mut b = BoxOf::default();
        b.add(p);
        self.meets(&b, r2)
    }
    /// Whether a point of `other` may be within `sqrt(r2)` of a point of the box. Each gap is
    /// at most the difference of any two points' coordinates, so a pair of points closer than
    /// the radius (by the same arithmetic as `close`) makes this true.
    fn meets(&self, other: &BoxOf, r2: f64) -> bool {
        let mut d2 = 0.0;
        for k in 0..3 {
            let gap = if other.lo[k] > self.hi[k] {
                (other.lo[k] - self.hi[k]) as f64
            } else if self.lo[k] > other.hi[k] {
                (self.lo[k] - other.hi[k]) as f64
            } else {
                0.0
            };
            d2 += gap * gap;
        }
        d2 <= r2
    }
}

/// The report compound of the file's user metadata (FORMAT.md).
fn report_compound(job: &ReportJob, first: u32, last: u32, context: &HashSet<u32>) -> Value {
    let mut c: HashMap<String, Value> = HashMap::new();
    for (k, v) in &job.options.metadata {
        c.insert(k.clone(), v.clone());
    }
    let int = |v: u32| Value::Int(v as i32);
    c.insert("player".into(), int(job.player));
    if let Some(info) = job.entities.get(&job.player) {
        if let Some(u) = info.uuid {
            c.insert("player_uuid".into(), Value::String(u.to_string()));
        }
        if let Some(n) = &info.name {
            c.insert("player_name".into(), Value::String(n.clone()));
        }
    }
    c.insert("report_tick".into(), int(job.report_tick));
    c.insert("first_tick".into(), int(first));
    c.insert("last_tick".into(), int(last));
    if let Some(t) = job.left_tick {
        c.insert("left_tick".into(), int(t));
    }
    c.insert(
        "before_ticks".into(),
        int(job.report_tick.saturating_sub(first) + 1),
    );
    c.insert(
        "after_ticks".into(),
        int(last.saturating_sub(job.report_tick)),
    );
    if let Some(r) = job.options.radius {
        c.insert("context_radius".into(), Value::Double(r));
    }
    let mut ids: Vec<u32> = context
        .iter()
        .copied()
        .filter(|&e| e != job.player)
        .collect();
    ids.sort_unstable();
    c.insert(
        "context_entities".into(),
        Value::IntArray(fastnbt::IntArray::new(
            ids.iter().map(|&e| e as i32).collect(),
        )),
    );
    c.insert("created_ms".into(), Value::Long(job.created_ms));
    Value::Compound(c)
}

#[cfg(test)]
mod tests;
