//! The JSON lines of `tickreel dump` to a compacted recording (what `tickreel import DUMP.jsonl
//! OUT.reel` runs): the lossless import, where the CSV ([`crate::csv::import`]) is for plain traces.
//!
//! Three kinds of line, one JSON object each (blank lines are skipped):
//!
//! - `{"tick": T, "events": [EVENT, ...]}`: the events of tick `T`, written in their order. Ticks
//!   must be strictly increasing (one line per tick); a line with no events writes nothing.
//! - `{"recording": {...}}` (only as the first line; `dump --metadata` prints it): the header
//!   fields `tick_rate_millihz`, `timestamp_ms`, `world_id`, `world_version`, `recording_id` (32
//!   hex digits each), `game_data_version`, `dictionary_id`; the registered `entities`
//!   (`{"id", "kind", "uuid"?, "name"?}`), `event_types` (`{"id", "name", "version"}`) and the
//!   `palette` naming world events' ids (`{"blocks": [[id, name], ...], "items": [...],
//!   "damage": [...]}`); the
//!   dropped-tick `gaps` (`[from, to]`, inclusive) and `dropped_ticks`; and `nbt`, the hex of an NBT
//!   compound holding the user's metadata keys and the library's `analysis` (the `user` field is
//!   a readable copy of the user's keys and is not read). Every field is optional.
//! - `{"snapshot": {"tick": T, "data": HEX}}`: snapshot bytes; the next tick written starts a
//!   chunk carrying them.
//! - `{"world": {"tick": T, "blocks": [[x, y, z, state, NBT?], ...], "entities": [[id,
//!   health?, [[slot, item, count], ...]], ...]}}` (after a `snapshot` line): the world before
//!   the next tick, whatever the ticks before made it (`dump --metadata` prints one where a
//!   snapshot's world is not what the events before it made); the snapshot's chunk carries it.
//! - `{"terrain": {"tick": T, "data": HEX}}`: a terrain piece as `dump --metadata` prints it
//!   (stored as it is, not compressed again); the next tick written starts a chunk carrying it.
//!
//! EVENT is one of the forms `dump` prints ([`crate::json::event_to_json`]): `{"type": "entity_add",
//! "entity", "kind", "x", "y", "z", "yaw", "pitch"}`, `entity_remove`, `pose` and `teleport`
//! (entity and pose), `position` (x, y, z), `rotation` (yaw, pitch), `flags` (the raw `flags`;
//! `names` is not read), `checkpoint` (`index`), `velocity` (x, y, z in blocks per tick),
//! `player_leave`, `custom` (`type_id`, `data` in hex; `name` is read only without a `recording`
//! line, see below), `extension` (`kind` in 64..=127, `data` in hex), and the world events:
//! `block_change` (block `x`, `y`, `z`, `state`, the causing `entity`?, `block_entity` in hex?),
//! `block_changes` (`entity`?, `blocks` as `[[x, y, z, state], ...]`), `swing` (`entity`,
//! `hand`), `attack` (`entity` the attacker, `target`), `use` (`entity`, `hand`, `item`, and a
//! `target` entity or a block `x`, `y`, `z`, or neither), `damage` (`entity`, `amount` in health
//! points, `cause`, `source`?), `health` (`entity`, `health` in health points), `equipment`
//! (`entity`, `slot`, `item`, `count`), `chat` (the sender `entity`?, `channel`, `text`) and
//! `custom_at` (`type_id`, `entity`?, `x`, `y`, `z`?, `data` in hex); the names dump prints
//! from the palette (`state_name`, `item_name`, `cause_name`) are read only without a `recording`
//! line, where they name the ids. Positions are blocks,
//! angles degrees, quantised like the CSV's; other keys are ignored, and a key repeated in one
//! object is an error. Numbers too large to be carried exactly (positions beyond 2^40 blocks,
//! angles and velocities beyond 2^52 units, integers beyond `u32`) are errors.
//!
//! A line longer than [`MAX_LINE_BYTES`] is refused (`LimitExceeded`, naming the line and the
//! limit) once that many bytes of it came, before it is held whole.
//!
//! Errors name the file and the line, and quote at most [`crate::errors::ECHO_MAX_CHARS`]
//! characters of the input. Without a `recording` line the file gets the tick rate given and an
//! `import_source` user metadata key, like a CSV import, and the `name`s of custom events register
//! their types (schema version 0; one name per type id); with one it gets exactly what it says.

mod fields;

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use tickreel::format::MAX_EVENTS_PER_TICK;
use tickreel::format::{EntityInfo, EventType, Gap, Metadata, PaletteKind};
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel::{Error, Event};

use crate::errors::{echo, io_at, io_in_file};
use crate::lines::BoundedLines;
use fields::*;

/// Longest line accepted, in bytes, refused while it is read (before it is held whole): 64 MiB,
/// twice the longest line `dump` prints for a file readers accept (a 16 MiB snapshot or custom
/// payloads in hex, 32 MiB; a tick of the most blocks a writer takes, about 42 MB).
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// Largest coordinate accepted, in blocks (as the CSV's: keeps fixed point exact).
const MAX_COORD: f64 = (1u64 << 40) as f64;
/// Largest angle or velocity accepted, in the recording's units (exact in an `f64`).
const MAX_UNITS: f64 = (1u64 << 52) as f64;

/// What a JSON import wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonImportSummary {
    /// Tick lines read (empty ones included).
    pub lines: u64,
    pub events: u64,
    /// Ticks written (tick lines with events).
    pub ticks: u64,
    pub snapshots: u64,
    /// Whether a `recording` line gave the header and metadata.
    pub with_metadata: bool,
    pub first_tick: Option<u32>,
    pub last_tick: Option<u32>,
    pub bytes: u64,
}

/// Whether `input` starts like JSON lines: its first character other than white space and a
/// byte-order mark is `{`. Reads at most the first 64 KiB.
pub fn looks_like_json(input: impl Read) -> std::io::Result<bool> {
    let mut buf = Vec::new();
    input.take(64 * 1024).read_to_end(&mut buf)?;
    let text = buf.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&buf);
    Ok(text
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{'))
}

/// Imports the JSON lines file `json` into a new recording at `out` (replacing a file there only
/// if `replace`). `options` apply unless a `recording` line gives the header. Nothing is left at
/// `out` on failure.
pub fn import(
    json: &Path,
    out: &Path,
    options: ReelOptions,
    replace: bool,
) -> tickreel::Result<JsonImportSummary> {
    let file = File::open(json).map_err(|e| io_at(json, e))?;
    import_from(file, json, out, options, replace)
}

/// [`import`] of lines read from `input`, in one pass; `json` names the input in messages.
pub fn import_from(
    input: impl Read,
    json: &Path,
    out: &Path,
    mut options: ReelOptions,
    replace: bool,
) -> tickreel::Result<JsonImportSummary> {
    let mut lines = BoundedLines::new(BufReader::new(input), MAX_LINE_BYTES);
    let at_out = |e: Error| io_in_file(out, e);
    let mut summary = JsonImportSummary {
        lines: 0,
        events: 0,
        ticks: 0,
        snapshots: 0,
        with_metadata: false,
        first_tick: None,
        last_tick: None,
        bytes: 0,
    };
    let mut writer: Option<ReelWriter> = None;
    // The last tick line's tick and line number.
    let mut last: Option<(u32, u64)> = None;
    let mut pending_snapshot: Option<u64> = None;
    let mut pending_terrain: Option<u64> = None;
    // Custom event types registered from the events' names (without a `recording` line).
    let mut named: HashMap<u32, String> = HashMap::new();
    while let Some((lineno, line)) = lines.next_line(json)? {
        let text = if lineno == 1 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        if text.trim().is_empty() {
            continue;
        }
        let at =
            |m: String| Error::InvalidArgument(format!("{}: line {lineno}: {m}", json.display()));
        let obj = match serde_json::from_str::<Strict>(text).map(|s| s.0) {
            Ok(Value::Object(o)) => o,
            Ok(_) => return Err(at(format!("{} is not a JSON object", echo(text)))),
            Err(e) => {
                return Err(at(format!("not valid JSON ({e}): {}", echo(text))));
            }
        };
        if let Some(rec) = obj.get("recording") {
            if writer.is_some() {
                return Err(at(
                    "a \"recording\" line must be the first line of the file".to_string(),
                ));
            }
            let rec = rec
                .as_object()
                .ok_or_else(|| at("\"recording\" is not an object".to_string()))?;
            let setup = recording(rec, &mut options).map_err(at)?;
            let mut w = ReelWriter::create(out, options.clone()).map_err(at_out)?;
            setup.apply(&mut w).map_err(|e| at(e.to_string()))?;
            writer = Some(w);
            summary.with_metadata = true;
            continue;
        }
        let w = match &mut writer {
            Some(w) => w,
            None => {
                let mut w = ReelWriter::create(out, options.clone()).map_err(at_out)?;
                w.user_metadata_mut().insert(
                    "import_source".into(),
                    fastnbt::Value::String(json.display().to_string()),
                );
                writer.insert(w)
            }
        };
        if let Some(snap) = obj.get("snapshot") {
            let snap = snap
                .as_object()
                .ok_or_else(|| at("\"snapshot\" is not an object".to_string()))?;
            let tick = uint(snap, "tick").map_err(&at)?;
            if let Some((prev, _)) = last
                && tick <= prev
            {
                return Err(at(format!(
                    "snapshot of tick {tick} comes after tick {prev}; it must precede its tick"
                )));
            }
            let data = hex_field(snap, "data", usize::MAX).map_err(&at)?;
            w.offer_snapshot(data).map_err(|e| at(e.to_string()))?;
            pending_snapshot = Some(lineno);
            summary.snapshots += 1;
            continue;
        }
        if let Some(piece) = obj.get("terrain") {
            let piece = piece
                .as_object()
                .ok_or_else(|| at("\"terrain\" is not an object".to_string()))?;
            let tick = uint(piece, "tick").map_err(&at)?;
            if let Some((prev, _)) = last
                && tick <= prev
            {
                return Err(at(format!(
                    "terrain of tick {tick} comes after tick {prev}; it must precede its tick"
                )));
            }
            let data = hex_field(piece, "data", usize::MAX).map_err(&at)?;
            w.offer_terrain_piece(&data)
                .map_err(|e| at(format!("terrain: {e}")))?;
            pending_terrain = Some(lineno);
            continue;
        }
        if let Some(world) = obj.get("world") {
            let world = world
                .as_object()
                .ok_or_else(|| at("\"world\" is not an object".to_string()))?;
            let tick = uint(world, "tick").map_err(&at)?;
            if let Some((prev, _)) = last
                && tick <= prev
            {
                return Err(at(format!(
                    "world of tick {tick} comes after tick {prev}; it must precede its tick"
                )));
            }
            let limits = tickreel::format::Limits::default();
            let world = fields::world(
                world,
                limits.max_world_blocks(),
                limits.max_alive_entities(),
            )
            .map_err(|m| at(format!("world: {m}")))?;
            w.set_world(&world);
            continue;
        }
        let (Some(_), Some(events)) = (obj.get("tick"), obj.get("events")) else {
            let keys: Vec<&str> = obj.keys().map(String::as_str).take(8).collect();
            return Err(at(format!(
                "expected a line {{\"tick\": T, \"events\": [...]}}, a \"recording\", a \
                 \"snapshot\", a \"world\" or a \"terrain\" line; this one has the keys {}",
                echo(&keys.join(","))
            )));
        };
        let tick = uint(&obj, "tick").map_err(&at)?;
        if let Some((prev, prev_line)) = last
            && tick <= prev
        {
            return Err(at(format!(
                "tick {tick} comes after tick {prev} (line {prev_line}); ticks must be strictly \
                 increasing"
            )));
        }
        if let Some(first) = summary.first_tick
            && u64::from(tick) - u64::from(first) >= u64::from(u32::MAX)
        {
            return Err(at(format!(
                "tick {tick} is too far from the first tick {first}: a recording spans at most {} \
                 ticks",
                u32::MAX
            )));
        }
        let events = events
            .as_array()
            .ok_or_else(|| at("\"events\" is not an array".to_string()))?;
        if events.len() > MAX_EVENTS_PER_TICK {
            return Err(at(format!(
                "{} events in tick {tick}; at most {MAX_EVENTS_PER_TICK}",
                events.len()
            )));
        }
        let mut parsed = Vec::with_capacity(events.len());
        for (i, e) in events.iter().enumerate() {
            let at_event = |m: String| at(format!("event {} of tick {tick}: {m}", i + 1));
            let ev = event(e).map_err(at_event)?;
            // Without a `recording` line, the names of custom events register their types.
            if let (Event::Custom { type_id, .. }, false) = (&ev, summary.with_metadata)
                && let Some(name) = e.get("name")
            {
                let name = name
                    .as_str()
                    .ok_or_else(|| at_event(format!("name {} is not a string", quote(name))))?;
                match named.get(type_id) {
                    Some(known) if known == name => {}
                    Some(_) => {
                        return Err(at_event(format!(
                            "custom type {type_id} is named {} here and otherwise before",
                            echo(name)
                        )));
                    }
                    None => {
                        w.register_event_type(EventType {
                            id: *type_id,
                            name: name.to_string(),
                            version: 0,
                        })
                        .map_err(|e| at_event(e.to_string()))?;
                        named.insert(*type_id, name.to_string());
                    }
                }
            }
            // Without a `recording` line, the palette names beside world events' ids name them.
            if !summary.with_metadata {
                for (kind, id, key) in palette_keys(&ev) {
                    if let Some(name) = e.get(key) {
                        let name = name.as_str().ok_or_else(|| {
                            at_event(format!("{key} {} is not a string", quote(name)))
                        })?;
                        w.register_name(kind, id, name)
                            .map_err(|e| at_event(e.to_string()))?;
                    }
                }
            }
            parsed.push(ev);
        }
        summary.lines += 1;
        last = Some((tick, lineno));
        if parsed.is_empty() {
            if pending_snapshot.is_some() || pending_terrain.is_some() {
                return Err(at(format!(
                    "tick {tick} has no events, but the {} before it needs a tick to start its \
                     chunk",
                    if pending_snapshot.is_some() {
                        "snapshot"
                    } else {
                        "terrain"
                    }
                )));
            }
            continue;
        }
        w.write_tick(tick, &parsed).map_err(|e| at(e.to_string()))?;
        pending_snapshot = None;
        pending_terrain = None;
        summary.ticks += 1;
        summary.events += parsed.len() as u64;
        summary.first_tick.get_or_insert(tick);
        summary.last_tick = Some(tick);
    }
    if let Some(l) = pending_snapshot {
        return Err(Error::InvalidArgument(format!(
            "{}: line {l}: a snapshot with no tick after it",
            json.display()
        )));
    }
    if let Some(l) = pending_terrain {
        return Err(Error::InvalidArgument(format!(
            "{}: line {l}: terrain with no tick after it",
            json.display()
        )));
    }
    let writer = match writer {
        Some(w) => w,
        None => {
            return Err(Error::InvalidArgument(format!(
                "{}: empty file; expected JSON lines as `tickreel dump` prints them",
                json.display()
            )));
        }
    };
    summary.bytes = crate::files::publish_import(writer, out, replace)?;
    Ok(summary)
}

/// A JSON value in which no object repeats a key (`serde_json::Value` keeps the last silently,
/// which would drop what the line says first).
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            if m.contains_key(&k) {
                return Err(de::Error::custom(format!(
                    "the key {} appears twice in one object",
                    echo(&k)
                )));
            }
            let Strict(v) = map.next_value()?;
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

/// What a `recording` line sets on the writer, besides its options.
/// The palette ids of a world event with the key `dump` prints each one's name under.
fn palette_keys(e: &Event) -> Vec<(PaletteKind, u32, &'static str)> {
    match e {
        Event::BlockChange { state, .. } => vec![(PaletteKind::Block, *state, "state_name")],
        Event::Use { item, .. } | Event::Equipment { item, .. } => {
            vec![(PaletteKind::Item, *item, "item_name")]
        }
        Event::Damage { cause, .. } => vec![(PaletteKind::DamageCause, *cause, "cause_name")],
        _ => Vec::new(),
    }
}

struct Setup {
    entities: Vec<EntityInfo>,
    /// Palette names: kind, id, name.
    names: Vec<(PaletteKind, u32, String)>,
    event_types: Vec<EventType>,
    gaps: Vec<Gap>,
    dropped_ticks: u64,
    recording_id: [u8; 16],
    metadata: Option<Metadata>,
}

impl Setup {
    fn apply(self, w: &mut ReelWriter) -> tickreel::Result<()> {
        for e in self.entities {
            w.register_entity(e)?;
        }
        for t in self.event_types {
            w.register_event_type(t)?;
        }
        for (kind, id, name) in &self.names {
            w.register_name(*kind, *id, name)?;
        }
        w.set_gaps(self.gaps, self.dropped_ticks);
        w.set_recording_id(self.recording_id);
        if let Some(m) = self.metadata {
            for (k, v) in m.user {
                w.set_user_metadata(k, v)?;
            }
            if m.library.starts_mid_world {
                w.set_starts_mid_world();
            }
            if let Some(a) = m.library.analysis {
                w.set_analysis(a);
            }
        }
        Ok(())
    }
}

fn recording(rec: &Map<String, Value>, options: &mut ReelOptions) -> Result<Setup, String> {
    let identity = &mut options.identity;
    if rec.contains_key("tick_rate_millihz") {
        identity.tick_rate_millihz = uint(rec, "tick_rate_millihz")?;
        if identity.tick_rate_millihz == 0 {
            return Err("tick_rate_millihz must be positive".to_string());
        }
    }
    if let Some(v) = rec.get("timestamp_ms") {
        identity.timestamp_ms = v
            .as_i64()
            .ok_or_else(|| format!("timestamp_ms {} is not a 64-bit integer", quote(v)))?;
    }
    if rec.contains_key("game_data_version") {
        identity.game_data_version = uint(rec, "game_data_version")?;
    }
    if rec.contains_key("dictionary_id") {
        identity.dictionary_id = u16::try_from(uint(rec, "dictionary_id")?)
            .map_err(|_| "dictionary_id is not a 16-bit integer".to_string())?;
    }
    if rec.contains_key("world_id") {
        identity.world_id = id16(rec, "world_id")?;
    }
    if rec.contains_key("world_version") {
        identity.world_version = id16(rec, "world_version")?;
    }
    let recording_id = if rec.contains_key("recording_id") {
        id16(rec, "recording_id")?
    } else {
        [0; 16]
    };
    let mut entities = Vec::new();
    for (i, e) in array(rec, "entities")?.iter().enumerate() {
        let at = |m: String| format!("entities[{i}]: {m}");
        let o = e.as_object().ok_or_else(|| at("not an object".into()))?;
        let uuid = match o.get("uuid") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_str()
                    .and_then(|s| uuid::Uuid::parse_str(s).ok())
                    .ok_or_else(|| at(format!("uuid {} is not a UUID", quote(v))))?,
            ),
        };
        let name = match o.get("name") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_str()
                    .ok_or_else(|| at(format!("name {} is not a string", quote(v))))?
                    .to_string(),
            ),
        };
        entities.push(EntityInfo {
            id: uint(o, "id").map_err(at)?,
            kind: uint(o, "kind").map_err(at)?,
            uuid,
            name,
        });
    }
    let mut event_types = Vec::new();
    for (i, t) in array(rec, "event_types")?.iter().enumerate() {
        let at = |m: String| format!("event_types[{i}]: {m}");
        let o = t.as_object().ok_or_else(|| at("not an object".into()))?;
        let name = o
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| at("name is missing or not a string".into()))?;
        event_types.push(EventType {
            id: uint(o, "id").map_err(at)?,
            name: name.to_string(),
            version: uint(o, "version").map_err(at)?,
        });
    }
    let mut names = Vec::new();
    if let Some(p) = rec.get("palette") {
        let p = p
            .as_object()
            .ok_or_else(|| format!("palette {} is not an object", quote(p)))?;
        for kind in PaletteKind::ALL {
            for (i, entry) in array(p, kind.key())?.iter().enumerate() {
                let pair = entry.as_array().filter(|a| a.len() == 2).and_then(|a| {
                    let id = u32::try_from(a[0].as_u64()?).ok()?;
                    Some((id, a[1].as_str()?.to_string()))
                });
                let (id, name) = pair.ok_or_else(|| {
                    format!(
                        "palette {}[{i}] {} is not [id, name]",
                        kind.key(),
                        quote(entry)
                    )
                })?;
                names.push((kind, id, name));
            }
        }
    }
    let mut gaps = Vec::new();
    for g in array(rec, "gaps")? {
        let pair = g.as_array().filter(|a| a.len() == 2).and_then(|a| {
            let f = u32::try_from(a[0].as_u64()?).ok()?;
            let t = u32::try_from(a[1].as_u64()?).ok()?;
            (f <= t).then_some(Gap { from: f, to: t })
        });
        gaps.push(
            pair.ok_or_else(|| format!("gap {} is not [from, to] with from <= to", quote(g)))?,
        );
    }
    let dropped_ticks = match rec.get("dropped_ticks") {
        None => 0,
        Some(v) => v
            .as_u64()
            .ok_or_else(|| format!("dropped_ticks {} is not an unsigned integer", quote(v)))?,
    };
    let metadata = if rec.contains_key("nbt") {
        let bytes = hex_field(rec, "nbt", usize::MAX)?;
        Some(Metadata::decode(&bytes).map_err(|e| format!("nbt: {e}"))?)
    } else {
        None
    };
    Ok(Setup {
        entities,
        names,
        event_types,
        gaps,
        dropped_ticks,
        recording_id,
        metadata,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tickreel::Pose;

    fn ev(v: Value) -> Result<Event, String> {
        event(&v)
    }

    #[test]
    fn events_parse_from_dump_forms() {
        assert_eq!(
            ev(
                json!({"type": "pose", "entity": 1, "x": 1.5, "y": 64.0, "z": -2.25,
                      "yaw": 90.0, "pitch": -45.0})
            )
            .unwrap(),
            Event::Pose {
                entity: 1,
                pose: Pose::from_f64(1.5, 64.0, -2.25, 90.0, -45.0)
            }
        );
        assert_eq!(
            ev(json!({"type": "custom", "type_id": 7, "name": "x", "data": "dEAd"})).unwrap(),
            Event::Custom {
                type_id: 7,
                data: vec![0xde, 0xad]
            }
        );
        assert_eq!(
            ev(json!({"type": "extension", "kind": 64, "data": ""})).unwrap(),
            Event::Extension {
                kind: 64,
                data: vec![]
            }
        );
        assert_eq!(
            ev(json!({"type": "velocity", "entity": 2, "x": 0.42, "y": -1, "z": 0})).unwrap(),
            Event::Velocity {
                entity: 2,
                x: 3360,
                y: -8000,
                z: 0
            }
        );
    }

    #[test]
    fn bad_events_are_refused_with_bounded_quotes() {
        let long = "q".repeat(10_000);
        for (v, want) in [
            (json!({"type": "warp", "entity": 1}), "unknown event type"),
            (json!({"type": long.clone()}), "unknown event type"),
            (
                json!({"type": "entity_remove", "entity": 4294967296u64}),
                "unsigned 32-bit",
            ),
            (
                json!({"type": "entity_remove", "entity": -1}),
                "unsigned 32-bit",
            ),
            (
                json!({"type": "checkpoint", "entity": 1}),
                "missing \"index\"",
            ),
            (
                json!({"type": "extension", "kind": 200, "data": ""}),
                "64..=127",
            ),
            (
                json!({"type": "custom", "type_id": 1, "data": "abc"}),
                "hex",
            ),
            (
                json!({"type": "custom", "type_id": 1, "data": long.clone()}),
                "hex",
            ),
            (
                json!({"type": "pose", "entity": 1, "x": 1e300, "y": 0, "z": 0, "yaw": 0, "pitch": 0}),
                "out of range",
            ),
            (
                json!({"type": "rotation", "entity": 1, "yaw": 1e20, "pitch": 0}),
                "out of range",
            ),
        ] {
            let e = ev(v.clone()).unwrap_err();
            assert!(e.contains(want), "{v}: {e}");
            assert!(e.len() < 400, "{e}");
        }
    }

    #[test]
    fn json_is_detected_by_its_first_character() {
        assert!(looks_like_json(&b"\xef\xbb\xbf \n{\"tick\":1}"[..]).unwrap());
        assert!(!looks_like_json(&b"tick,entity,x,y,z,yaw,pitch\n"[..]).unwrap());
        assert!(!looks_like_json(&b""[..]).unwrap());
    }
}
