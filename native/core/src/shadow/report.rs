//! Writing a report: the window around the reported player, cut from the retained blocks into an
//! ordinary `.reel` (on the engine's background worker). The first pass ([`near`]) finds the
//! entities that came near the player; the second decodes their movement only, makes the ticks
//! ([`ticks`]) and assembles the file here (entities, names, terrain, analysis, the keeping
//! rules of [`Keeper`], the report compound).

use std::collections::{HashMap, HashSet};

use std::path::PathBuf;
use std::sync::Arc;

use fastnbt::Value;

use crate::error::{Error, Result};
use crate::format::event::Event;
use crate::format::header::Header;
use crate::format::metadata::{EntityInfo, EventType, Metadata};
use crate::format::palette::{Palette, PaletteKind};
use crate::format::state::EntityTable;
use crate::play::{Reader, ReaderOptions};
use crate::record::encode::analysis::Analysis;
use crate::record::worker::compaction_worker::memory_reader;
use crate::record::{ChunkPolicy, RecordingIdentity, ReelOptions, ReelWriter};
use crate::shadow::keep::Keeper;
use crate::shadow::options::{REPORT_KEY, ReportOptions};
use crate::shadow::ring::Block;
use crate::storage::Storage;
use near::near_entities;
use ticks::{Chunks, Followed, report_ticks};

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
    /// The stored terrain piece that holds all of `terrain`, if one does (the buffer's
    /// `terrain_piece`): carried as it is when the report keeps the whole terrain.
    pub terrain_piece: Option<Arc<Vec<u8>>>,
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
    // The window starts in the middle of the stream: a delta world section whose keyframe was
    // dropped with an older block is left unresolved (the report keeps its world from the
    // events), not refused.
    let mut window = Metadata::default();
    window.library.starts_mid_world = true;
    let reader = Arc::new(memory_reader(
        blocks.iter().map(|b| &b.frame),
        header,
        window,
    )?);
    let (included, senders, sampled, columns, kept) = match (job.options.radius, passes) {
        (Some(r), Passes::Fast) => {
            let near = near_entities(&reader, job.player, first, last, r)?;
            (
                near.entities,
                (near.senders, near.senders_everywhere),
                near.sampled,
                near.columns,
                near.payloads,
            )
        }
        #[cfg(test)]
        (Some(r), Passes::Reference) => (
            tests::near_entities_reference(&reader, job.player, first, last, r)?,
            Default::default(),
            Vec::new(),
            tests::player_columns_reference(&reader, job.player, first, last)?,
            Vec::new(),
        ),
        (None, _) => (
            None,
            Default::default(),
            Vec::new(),
            HashSet::new(),
            Vec::new(),
        ),
    };
    // The entities whose poses the report follows: the kept ones, and the chat senders where
    // the keeper measures where they stand ([`Followed`]); `None`: all.
    let followed: Option<Arc<Followed>> = match passes {
        Passes::Fast => included.as_ref().map(|s| {
            let (in_chunk, everywhere) = senders;
            Arc::new(Followed {
                everywhere: s.iter().chain(&everywhere).copied().collect(),
                in_chunk,
                kept: s.clone(),
            })
        }),
        #[cfg(test)]
        Passes::Reference => None,
    }
    // (the first pass said which ticks have samples of any entity)
    .filter(|_| sampled.len() == reader.index().len());
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
            chunk_policy: ChunkPolicy {
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
    // tick; as stored when it is all of it and one stored piece holds it.
    if !job.terrain.is_empty() {
        let kept = match job.options.radius {
            Some(r) => job.terrain.around_columns(&columns, r),
            None => crate::format::Terrain::clone(&job.terrain),
        };
        match &job.terrain_piece {
            // nothing left out: the piece as the stream's writer stored it (a second zstd-19
            // pass of the whole terrain was most of a report's time on a terrain)
            Some(piece) if kept.len() == job.terrain.len() => {
                w.carry_terrain_piece(piece.to_vec(), kept)?
            }
            _ if !kept.is_empty() => w.carry_terrain(kept)?,
            _ => {}
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
    // Only the followed entities' tracks are decoded (from the first pass's payloads where it
    // kept them; they are not needed without a set of followed entities).
    let kept = if followed.is_some() { kept } else { Vec::new() };
    let chunks = Chunks::new(reader.clone(), followed.clone(), kept);
    for (i, chunk) in chunks.enumerate() {
        let chunk = chunk?;
        let part = followed
            .as_deref()
            .zip(sampled.get(i))
            .map(|(f, s)| (f, i, s));
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

mod near;
#[cfg(test)]
mod tests;
mod ticks;
