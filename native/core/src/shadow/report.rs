//! Writing a report: the window around the reported player, cut from the retained blocks into an
//! ordinary `.reel` (on the engine's background worker).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use fastnbt::Value;

use crate::error::{Error, Result};
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
    let included = match job.options.radius {
        Some(r) => near_entities(&reader, job.player, first, last, r)?,
        None => None,
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
        let chunk = reader.read_chunk(i)?;
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
        for t in chunk.ticks() {
            if t.tick < first || t.tick > last {
                continue;
            }
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

/// The entities that came within `radius` blocks of `player` at any tick of `first..=last`, the
/// player included (`None` when the player is never alive there: everything is kept then).
///
/// Walks each chunk's pose samples and events in tick order on one entity table, checking a
/// distance only where it may have changed: every entity after the player moved, else the
/// entities that moved.
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

fn near_entities(
    reader: &Reader,
    player: u32,
    first: u32,
    last: u32,
    radius: f64,
) -> Result<Option<HashSet<u32>>> {
    let r = radius * POS_SCALE;
    let r2 = r * r;
    let mut near = HashSet::from([player]);
    let mut seen_player = false;
    let close = |a: &Pose, b: &Pose| {
        let (dx, dy, dz) = ((a.x - b.x) as f64, (a.y - b.y) as f64, (a.z - b.z) as f64);
        dx * dx + dy * dy + dz * dz <= r2
    };
    let mut samples: Vec<(u32, u32, Pose)> = Vec::new();
    let mut moved: Vec<u32> = Vec::new();
    for i in 0..reader.index().len() {
        let chunk = reader.read_chunk(i)?;
        let from = first.max(chunk.start_tick);
        let mut table: EntityTable = if from > chunk.start_tick {
            chunk.state_at(from - 1)
        } else {
            chunk.keyframe.iter().copied().collect()
        };
        let (rel_from, rel_to) = (
            from - chunk.start_tick,
            last.saturating_sub(chunk.start_tick),
        );
        samples.clear();
        for t in &chunk.tracks {
            for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
                if rel >= rel_from && rel <= rel_to {
                    samples.push((rel, t.entity, *pose));
                }
            }
        }
        samples.sort_unstable_by_key(|s| s.0);
        let mut all = true; // check everyone at the first tick
        let (mut si, mut ri) = (0, 0);
        let records = &chunk.records;
        while ri < records.len() && records[ri].rel < rel_from {
            ri += 1;
        }
        loop {
            let next_s = samples.get(si).map(|s| s.0);
            let next_r = records.get(ri).map(|r| r.rel).filter(|&r| r <= rel_to);
            let Some(rel) = next_s.into_iter().chain(next_r).min() else {
                break;
            };
            moved.clear();
            while let Some(&(t, id, pose)) = samples.get(si)
                && t == rel
            {
                if let Some(e) = table.get_mut(id) {
                    e.pose = pose;
                }
                moved.push(id);
                si += 1;
            }
            if next_r == Some(rel) {
                for e in &records[ri].events {
                    table.apply(e);
                    moved.extend(e.entity());
                }
                ri += 1;
            }
            let Some(p) = table.get(player).map(|e| e.pose) else {
                all = true;
                continue;
            };
            seen_player = true;
            if all || moved.contains(&player) {
                for e in table.iter() {
                    if !near.contains(&e.id) && close(&e.pose, &p) {
                        near.insert(e.id);
                    }
                }
                all = false;
            } else {
                for id in &moved {
                    if !near.contains(id)
                        && let Some(e) = table.get(*id)
                        && close(&e.pose, &p)
                    {
                        near.insert(*id);
                    }
                }
            }
        }
        // A chunk where nothing happened after the start still counts its starting state.
        if all && let Some(p) = table.get(player).map(|e| e.pose) {
            seen_player = true;
            for e in table.iter() {
                if close(&e.pose, &p) {
                    near.insert(e.id);
                }
            }
        }
    }
    Ok(seen_player.then_some(near))
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
