//! What the viewer shows about a recording besides frames: its summary (ticks, tick rate,
//! registered entities and their names, a shadow-play report's metadata, the palette's names,
//! the analysis compaction wrote) and the timeline's markers (teleports, checkpoints, joins and
//! leaves, block changes, hits, damage, chat; and the health and equipment changes the entity
//! inspector shows), scanned once per recording and kept; a live recording's scan continues from
//! where it stopped as it grows.

use std::collections::HashMap;
use std::sync::Arc;

use fastnbt::Value as Nbt;
use parking_lot::Mutex;
use serde::Serialize;
use serde_json::{Value, json};
use tickreel::format::{Event, PaletteKind};
use tickreel::shadow::REPORT_KEY;

use super::error::ApiResult;
use super::library::{Handle, edge};

/// At most this many markers of each kind are kept per recording (the rest are counted).
pub const MAX_MARKERS: usize = 10_000;

/// The summary of a recording. Blocking (reads nothing past what the reader holds).
pub fn info(h: &Handle) -> ApiResult<Value> {
    let view = h.rec.view();
    let r = view.reader();
    let meta = r.metadata();
    let entities: Vec<Value> = meta
        .library
        .entities
        .iter()
        .map(|e| {
            json!({
                "id": e.id,
                "kind": e.kind,
                "name": e.name,
                "uuid": e.uuid.map(|u| u.to_string()),
            })
        })
        .collect();
    let user: serde_json::Map<String, Value> = meta
        .user
        .iter()
        .filter(|(k, _)| k.as_str() != REPORT_KEY)
        .map(|(k, v)| (k.clone(), nbt_json(v, 0)))
        .collect();
    let palette: serde_json::Map<String, Value> = PaletteKind::ALL
        .iter()
        .map(|&k| {
            let names: serde_json::Map<String, Value> = meta
                .library
                .palette
                .names(k)
                .iter()
                .map(|(id, n)| (id.to_string(), json!(n)))
                .collect();
            (k.key().to_string(), Value::Object(names))
        })
        .collect();
    let started = r.header().timestamp_ms;
    Ok(json!({
        "name": h.name,
        "kind": h.kind,
        "tick_rate": r.tick_rate(),
        // the wall clock at the first tick (ms since the epoch; null when the writer set none)
        "started_ms": (started > 0).then_some(started),
        "chunks": r.index().len(),
        "entities": entities,
        "gaps": meta.library.gaps.iter().map(|g| json!([g.from, g.to])).collect::<Vec<_>>(),
        "report": meta.user.get(REPORT_KEY).map(|v| nbt_json(v, 0)),
        "metadata": user,
        "analysis": meta.library.analysis.as_ref().map(|v| nbt_json(v, 0)),
        "palette": palette,
        "edge": edge(h),
    }))
}

/// NBT as JSON (arrays as arrays, compounds as objects); nesting past 32 levels is cut.
fn nbt_json(v: &Nbt, depth: usize) -> Value {
    if depth > 32 {
        return Value::Null;
    }
    match v {
        Nbt::Byte(b) => json!(b),
        Nbt::Short(s) => json!(s),
        Nbt::Int(i) => json!(i),
        Nbt::Long(l) => json!(l),
        Nbt::Float(f) => json!(f),
        Nbt::Double(d) => json!(d),
        Nbt::String(s) => json!(s),
        Nbt::ByteArray(a) => json!(a.iter().collect::<Vec<_>>()),
        Nbt::IntArray(a) => json!(a.iter().collect::<Vec<_>>()),
        Nbt::LongArray(a) => json!(a.iter().collect::<Vec<_>>()),
        Nbt::List(l) => Value::Array(l.iter().map(|x| nbt_json(x, depth + 1)).collect()),
        Nbt::Compound(c) => Value::Object(
            c.iter()
                .map(|(k, x)| (k.clone(), nbt_json(x, depth + 1)))
                .collect(),
        ),
    }
}

/// At most this many block edits are kept per recording for the 3D view (the rest are counted).
pub const MAX_EDITS: usize = 100_000;

/// A chat line's text on the timeline is cut to this many characters (the hover text).
pub const MARKER_TEXT_CHARS: usize = 200;

/// The markers found so far in one recording, each kind as rows of numbers (JSON arrays), at
/// most [`MAX_MARKERS`] of each kind.
#[derive(Default, Clone)]
struct Scan {
    /// The identity of the view scanned ([`tickreel::play::View::id`]: unique in the process,
    /// kept while a live recording only grows, new for a file replaced under the same name).
    identity: u64,
    /// When it was last brought up to date (`None`: never).
    scanned_at: Option<std::time::Instant>,
    next: Option<u32>,
    /// `[tick, entity]`
    teleports: Vec<[u32; 2]>,
    /// `[tick, entity, index]`
    checkpoints: Vec<[u32; 3]>,
    /// `[tick, entity]`: an entity added, and one removed or a player who left
    joins: Vec<[u32; 2]>,
    leaves: Vec<[u32; 2]>,
    /// `[tick, cause or null, x, y, z, state, blocks in the change]` (a multi-block change by
    /// its first block)
    blocks: Vec<Value>,
    /// `[tick, attacker, target]`
    attacks: Vec<[u32; 3]>,
    /// `[tick, entity, amount (hundredths), cause, source or null]`
    damage: Vec<Value>,
    /// `[tick, sender or null, channel, text]`
    chat: Vec<Value>,
    /// `[tick, entity, health (hundredths)]`
    health: Vec<[u32; 3]>,
    /// `[tick, entity, slot, item, count]`
    equipment: Vec<[u32; 5]>,
    /// Every block changed, `[tick, x, y, z, state]` (a multi-block change block by block), for
    /// the 3D view; at most [`MAX_EDITS`], then counted in `dropped_edits`.
    edits: Vec<[i64; 5]>,
    dropped_edits: u64,
    dropped: u64,
    damaged: Vec<String>,
}

/// The markers of every recording scanned, by name (at most [`SCANS_KEPT`] recordings; one
/// scanned longer ago than the others leaves first). A recording is scanned by one request at a
/// time: the others asking for it meanwhile wait for that scan (which they would otherwise make
/// themselves) instead of making it again.
#[derive(Default)]
pub struct Markers {
    scans: Mutex<HashMap<String, Arc<Mutex<Scan>>>>,
}

/// How many recordings' markers are kept.
pub const SCANS_KEPT: usize = 64;

impl Markers {
    /// The markers of `h`: `{"teleports": [[tick, entity]...], "checkpoints": [[tick, entity,
    /// index]...], "joins", "leaves", "blocks", "attacks", "damage", "chat", "health",
    /// "equipment"}` (the rows of [`Scan`]). Blocking: the first call reads the whole recording
    /// once.
    /// As JSON bytes, written from the rows (not made into JSON values first).
    pub fn of(&self, h: &Handle) -> ApiResult<Vec<u8>> {
        #[derive(Serialize)]
        struct Answer<'a> {
            teleports: &'a [[u32; 2]],
            checkpoints: &'a [[u32; 3]],
            joins: &'a [[u32; 2]],
            leaves: &'a [[u32; 2]],
            blocks: &'a [Value],
            attacks: &'a [[u32; 3]],
            damage: &'a [Value],
            chat: &'a [Value],
            health: &'a [[u32; 3]],
            equipment: &'a [[u32; 5]],
            dropped: u64,
            damaged: &'a [String],
            edge: Value,
        }
        self.scanned(h, |scan| {
            serde_json::to_vec(&Answer {
                teleports: &scan.teleports,
                checkpoints: &scan.checkpoints,
                joins: &scan.joins,
                leaves: &scan.leaves,
                blocks: &scan.blocks,
                attacks: &scan.attacks,
                damage: &scan.damage,
                chat: &scan.chat,
                health: &scan.health,
                equipment: &scan.equipment,
                dropped: scan.dropped,
                damaged: &scan.damaged,
                edge: edge(h),
            })
        })
    }

    /// The blocks changed in `h`, for the 3D view: `{"edits": [[tick, x, y, z, state]...],
    /// "dropped": N}` in tick order, as JSON bytes. Blocking, like [`Markers::of`] (one scan
    /// serves both).
    pub fn blocks(&self, h: &Handle) -> ApiResult<Vec<u8>> {
        #[derive(Serialize)]
        struct Answer<'a> {
            edits: &'a [[i64; 5]],
            dropped: u64,
        }
        self.scanned(h, |scan| {
            serde_json::to_vec(&Answer {
                edits: &scan.edits,
                dropped: scan.dropped_edits,
            })
        })
    }

    /// Brings the scan of `h` up to its last tick, and answers `f` of it. Reads the events of
    /// the chunks not scanned yet, nothing else of them ([`tickreel::play::Reader::events`]).
    fn scanned(
        &self,
        h: &Handle,
        f: impl FnOnce(&Scan) -> serde_json::Result<Vec<u8>>,
    ) -> ApiResult<Vec<u8>> {
        let view = h.rec.view();
        let identity = view.id();
        let slot = {
            let mut scans = self.scans.lock();
            if !scans.contains_key(&h.name) && scans.len() >= SCANS_KEPT {
                // one not being scanned, scanned longest ago
                let oldest = scans
                    .iter()
                    .filter_map(|(k, s)| s.try_lock().map(|s| (s.scanned_at, k.clone())))
                    .min();
                if let Some((_, k)) = oldest {
                    scans.remove(&k);
                }
            }
            scans.entry(h.name.clone()).or_default().clone()
        };
        // another request scanning this recording is waited for: what it scans is not scanned
        // again
        let mut scan = slot.lock();
        // A file replaced under the same name starts over (a new view: the generation of each
        // opened recording starts at 0, so it told two files apart only by chance); a live
        // recording that grows keeps its view's identity and is scanned on from where it was.
        if scan.identity != identity || scan.scanned_at.is_none() {
            *scan = Scan {
                identity,
                scanned_at: Some(std::time::Instant::now()),
                ..Scan::default()
            };
        }
        let r = view.reader();
        if let (Some(first), Some(last)) = (r.first_tick(), r.last_tick()) {
            let from = scan.next.unwrap_or(first).max(first);
            if from <= last {
                for t in r.events(from, last) {
                    match t {
                        Ok(t) => {
                            for e in &t.events {
                                scan.add(t.tick, e);
                            }
                        }
                        Err(e) => {
                            // Damage is reported; markers past it are not shown.
                            scan.damaged.push(e.to_string());
                            break;
                        }
                    }
                }
                scan.next = Some(last + 1);
            }
        }
        scan.identity = identity;
        scan.scanned_at = Some(std::time::Instant::now());
        f(&scan).map_err(|e| {
            super::error::ApiError::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                e.to_string(),
            )
        })
    }
}

fn edit(tick: u32, pos: &tickreel::format::BlockPos, state: u32) -> [i64; 5] {
    [
        i64::from(tick),
        i64::from(pos.x),
        i64::from(pos.y),
        i64::from(pos.z),
        i64::from(state),
    ]
}

/// Pushes an edit unless [`MAX_EDITS`] are kept.
fn keep_edit(rows: &mut Vec<[i64; 5]>, dropped: &mut u64, row: [i64; 5]) {
    if rows.len() < MAX_EDITS {
        rows.push(row);
    } else {
        *dropped += 1;
    }
}

/// Pushes `row` unless `rows` is full (then counts it in `dropped`).
fn keep<T>(rows: &mut Vec<T>, dropped: &mut u64, row: T) {
    if rows.len() < MAX_MARKERS {
        rows.push(row);
    } else {
        *dropped += 1;
    }
}

impl Scan {
    fn add(&mut self, tick: u32, e: &Event) {
        let d = &mut self.dropped;
        match e {
            Event::Teleport { entity, .. } => keep(&mut self.teleports, d, [tick, *entity]),
            Event::Checkpoint { entity, index } => {
                keep(&mut self.checkpoints, d, [tick, *entity, *index])
            }
            Event::EntityAdd { entity, .. } => keep(&mut self.joins, d, [tick, *entity]),
            Event::EntityRemove { entity } | Event::PlayerLeave { entity } => {
                keep(&mut self.leaves, d, [tick, *entity])
            }
            Event::BlockChange {
                pos, state, cause, ..
            } => {
                keep_edit(
                    &mut self.edits,
                    &mut self.dropped_edits,
                    edit(tick, pos, *state),
                );
                keep(
                    &mut self.blocks,
                    d,
                    json!([tick, cause, pos.x, pos.y, pos.z, state, 1]),
                )
            }
            Event::BlockChanges { cause, blocks } => {
                for (pos, state) in blocks {
                    keep_edit(
                        &mut self.edits,
                        &mut self.dropped_edits,
                        edit(tick, pos, *state),
                    );
                }
                if let Some((pos, state)) = blocks.first() {
                    keep(
                        &mut self.blocks,
                        d,
                        json!([tick, cause, pos.x, pos.y, pos.z, state, blocks.len()]),
                    )
                }
            }
            Event::Attack { attacker, target } => {
                keep(&mut self.attacks, d, [tick, *attacker, *target])
            }
            Event::Damage {
                entity,
                amount,
                cause,
                source,
            } => keep(
                &mut self.damage,
                d,
                json!([tick, entity, amount, cause, source]),
            ),
            Event::Chat {
                sender,
                channel,
                text,
            } => {
                let cut: String = text.chars().take(MARKER_TEXT_CHARS).collect();
                keep(&mut self.chat, d, json!([tick, sender, channel, cut]))
            }
            Event::Health { entity, health } => keep(&mut self.health, d, [tick, *entity, *health]),
            Event::Equipment {
                entity,
                slot,
                item,
                count,
            } => keep(
                &mut self.equipment,
                d,
                [tick, *entity, u32::from(*slot), *item, *count],
            ),
            _ => {}
        }
    }
}
