//! What `tickreel dump FILE [--from T] [--to T] [--metadata]` prints: every non-empty tick of a
//! `.reel` file or a live recording directory as one JSON line, `{"tick": T, "events": [...]}` (event forms in
//! [`crate::json::event_to_json`]).
//!
//! Each tick lists a `pose` event for every entity that moved (unless an `entity_add` or `teleport`
//! of the same tick carries the pose), then the tick's other events in recorded order. If a chunk
//! cannot be read, the ticks decoded so far are printed and the command fails naming the damage.
//!
//! With `--metadata`, two more kinds of line make the output a complete description that
//! `tickreel import` turns back into the same recording (the same ticks, events, states, world
//! and terrain at every tick, header and metadata; the chunking is the importer's own). Without
//! it the output is as
//! it always was: tick lines only.
//!
//! - First, one `{"recording": {...}}` line: `tick_rate_millihz`, `timestamp_ms`, `world_id`,
//!   `world_version`, `recording_id` (32 hex digits each), `game_data_version`, `dictionary_id`,
//!   the registered `entities` (`{"id", "kind", "uuid"?, "name"?}`) and `event_types`
//!   (`{"id", "name", "version"}`), the dropped-tick `gaps` (`[from, to]`, inclusive) and
//!   `dropped_ticks`, `user` (the user's metadata keys as readable JSON, see `info`) and `nbt`
//!   (hex of an NBT compound of the user's keys and the library's `analysis`: what `import` reads,
//!   exact where JSON is not).
//! - Before the tick line of the tick where a chunk with a snapshot starts (or the first tick
//!   after it), a `{"snapshot": {"tick": T, "data": HEX}}` line with the snapshot's bytes, and,
//!   where the world of that snapshot (its world section, as readers resolve it) is not what
//!   the events before it made (a recording that starts in the middle of a world, a world
//!   section another writer put there), a `{"world": {"tick": T, "blocks": [[x, y, z, state,
//!   NBT?], ...], "entities": [[id, health?, [[slot, item, count], ...]], ...]}}` line with that
//!   world whole (`NBT` the hex of a block's block entity, `health` in hundredths of a point or
//!   `null`). A world the recording does not know (a delta section whose keyframe it does not
//!   hold) is not printed: the import has what the events after it make there.
//! - Before the tick line of the tick where a chunk with terrain starts (or the first tick
//!   after it), a `{"terrain": {"tick": T, "data": HEX}}` line with its terrain piece as stored
//!   ([`tickreel::play::Reader::terrain_piece`]: still compressed); with `--from`, the pieces
//!   of the chunks before it too, at `--from`, so that the import has the terrain in effect.
//!
//! Library metadata keys this build does not know are not printed. A range that starts after the
//! recording's first tick (`--from`) does not add the entities alive before it: its import holds
//! only what the range shows (a pose of an entity never added adds it, of kind 0), so only a whole
//! dump round-trips exactly.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};
use tickreel::format::{FLAG_TERRAIN, LibraryMeta, Metadata, WorldState};
use tickreel::play::Reader;

use crate::errors::{context, in_file};
use crate::json::{event_to_json_named, hex, nbt_to_json, palette_to_json};

/// Writes the dump of `r` (named `file` in errors) from tick `from` to `to` inclusive (default:
/// the recording's first and last), with the `recording` and `snapshot` lines if `metadata`.
pub fn dump(
    r: &Reader,
    file: &Path,
    from: Option<u32>,
    to: Option<u32>,
    metadata: bool,
    out: &mut impl Write,
) -> tickreel::Result<()> {
    let span = match (r.first_tick(), r.last_tick()) {
        (Some(first), Some(last)) => {
            let (from, to) = (from.unwrap_or(first), to.unwrap_or(last));
            if from > to {
                return Err(tickreel::Error::InvalidArgument(format!(
                    "--from {from} is after --to {to}"
                )));
            }
            Some((from, to))
        }
        _ => None,
    };
    if metadata {
        // Also for a recording without ticks: its metadata is all there is to it.
        let line = recording_line(r)?;
        writeln!(out, "{line}")?;
    }
    let Some((from, to)) = span else {
        return Ok(()); // no ticks, nothing more to print
    };
    let names: HashMap<u32, String> = r
        .metadata()
        .library
        .event_types
        .iter()
        .map(|t| (t.id, t.name.clone()))
        .collect();
    // Chunks with a snapshot, by start tick, in order (only with --metadata).
    let mut snapshots: VecDeque<(u32, usize)> = if metadata {
        r.index()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.has_snapshot() && e.start_tick <= to)
            .filter(|(_, e)| u64::from(e.start_tick) + u64::from(e.tick_count) > u64::from(from))
            .map(|(i, e)| (e.start_tick, i))
            .collect()
    } else {
        Default::default()
    };
    // Chunks with terrain, by start tick, in order (only with --metadata): those before `from`
    // are printed at `from`.
    let mut terrain: VecDeque<(u32, usize)> = if metadata {
        r.index()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.flags & FLAG_TERRAIN != 0 && e.start_tick <= to)
            .map(|(i, e)| (e.start_tick, i))
            .collect()
    } else {
        Default::default()
    };
    // The world the events printed so far make (with the `world` lines printed).
    let mut world = WorldState::new();
    let mut printed: Option<u32> = None;
    for t in r.ticks(from, to) {
        let t = match t {
            Ok(t) => t,
            Err(e) => {
                let after = match printed {
                    Some(p) => format!("dump stopped after tick {p}"),
                    None => "dump stopped before the first tick".to_string(),
                };
                return Err(in_file(file, context(e, &after)));
            }
        };
        while let Some(&(start, chunk)) = snapshots.front()
            && start <= t.tick
        {
            snapshots.pop_front();
            let c = r
                .read_chunk(chunk)
                .and_then(|c| {
                    // its world's block lists read, refused as `verify` refuses them
                    c.read_world_lists()?;
                    Ok(c)
                })
                .map_err(|e| in_file(file, e))?;
            if let Some(bytes) = &c.snapshot {
                let j =
                    serde_json::json!({"snapshot": {"tick": start.max(from), "data": hex(bytes)}});
                writeln!(out, "{j}")?;
            }
            if let Some(w) = c.world.as_deref()
                && *w != world
            {
                writeln!(out, "{}", world_line(start.max(from), w))?;
                world = w.clone();
            }
        }
        while let Some(&(start, chunk)) = terrain.front()
            && start <= t.tick
        {
            terrain.pop_front();
            if let Some(piece) = r.terrain_piece(chunk).map_err(|e| in_file(file, e))? {
                let j = json!({"terrain": {"tick": start.max(from), "data": hex(&piece)}});
                writeln!(out, "{j}")?;
            }
        }
        if metadata {
            for e in &t.events {
                world.apply(e);
            }
        }
        let mut line = format!("{{\"tick\":{},\"events\":[", t.tick);
        for (i, e) in t.events.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            let j = event_to_json_named(
                e,
                |id| names.get(&id).cloned(),
                Some(&r.metadata().library.palette),
            );
            line.push_str(&serde_json::to_string(&j).map_err(std::io::Error::other)?);
        }
        line.push_str("]}");
        writeln!(out, "{line}")?;
        printed = Some(t.tick);
    }
    Ok(())
}

/// The `{"world": ...}` line of `--metadata`: `w` whole, sorted.
fn world_line(tick: u32, w: &WorldState) -> String {
    let blocks: Vec<Value> = w
        .sorted_blocks()
        .into_iter()
        .map(|(p, state)| match w.block_entity(p) {
            Some(nbt) => json!([p.x, p.y, p.z, state, hex(nbt)]),
            None => json!([p.x, p.y, p.z, state]),
        })
        .collect();
    let entities: Vec<Value> = w
        .entities()
        .map(|(id, e)| {
            let slots: Vec<Value> = e
                .equipment
                .iter()
                .map(|(slot, it)| json!([slot, it.item, it.count]))
                .collect();
            json!([id, e.health, slots])
        })
        .collect();
    json!({"world": {"tick": tick, "blocks": blocks, "entities": entities}}).to_string()
}

/// The `{"recording": ...}` line of `--metadata`.
fn recording_line(r: &Reader) -> tickreel::Result<String> {
    let h = r.header();
    let m = r.metadata();
    let entities: Vec<Value> = m
        .library
        .entities
        .iter()
        .map(|e| {
            let mut o = json!({"id": e.id, "kind": e.kind});
            if let Some(u) = e.uuid {
                o["uuid"] = json!(u.to_string());
            }
            if let Some(n) = &e.name {
                o["name"] = json!(n);
            }
            o
        })
        .collect();
    let event_types: Vec<Value> = m
        .library
        .event_types
        .iter()
        .map(|t| json!({"id": t.id, "name": t.name, "version": t.version}))
        .collect();
    let gaps: Vec<Value> = m
        .library
        .gaps
        .iter()
        .map(|g| json!([g.from, g.to]))
        .collect();
    let user = nbt_to_json(&fastnbt::Value::Compound(m.user.clone()));
    let nbt = Metadata {
        user: m.user.clone(),
        library: LibraryMeta {
            analysis: m.library.analysis.clone(),
            starts_mid_world: m.library.starts_mid_world,
            ..LibraryMeta::default()
        },
    }
    .encode()?;
    let rec = json!({"recording": {
        "tick_rate_millihz": h.tick_rate_millihz,
        "timestamp_ms": h.timestamp_ms,
        "world_id": hex(&h.world_id),
        "world_version": hex(&h.world_version),
        "recording_id": hex(&h.recording_id),
        "game_data_version": h.game_data_version,
        "dictionary_id": h.dictionary_id,
        "entities": entities,
        "event_types": event_types,
        "gaps": gaps,
        "palette": palette_to_json(&m.library.palette),
        "dropped_ticks": m.library.stats.dropped_ticks,
        "user": user,
        "nbt": hex(&nbt),
    }});
    Ok(rec.to_string())
}
