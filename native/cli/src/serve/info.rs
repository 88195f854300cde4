//! What the viewer shows about a recording besides frames: its summary (ticks, tick rate,
//! registered entities and their names, a shadow-play report's metadata) and the timeline's
//! markers (teleports and checkpoints), scanned once per recording and kept; a live recording's
//! scan continues from where it stopped as it grows.

use std::collections::HashMap;

use fastnbt::Value as Nbt;
use parking_lot::Mutex;
use serde_json::{Value, json};
use tickreel::format::Event;
use tickreel::shadow::REPORT_KEY;

use super::error::ApiResult;
use super::frames::edge;
use super::library::Handle;

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
    Ok(json!({
        "name": h.name,
        "kind": h.kind,
        "tick_rate": r.tick_rate(),
        "chunks": r.index().len(),
        "entities": entities,
        "gaps": meta.library.gaps.iter().map(|g| json!([g.from, g.to])).collect::<Vec<_>>(),
        "report": meta.user.get(REPORT_KEY).map(|v| nbt_json(v, 0)),
        "metadata": user,
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

/// Teleports and checkpoints found so far in one recording.
#[derive(Default, Clone)]
struct Scan {
    /// The recording's view generation and the next tick to scan.
    generation: u64,
    next: Option<u32>,
    teleports: Vec<[u32; 2]>,
    checkpoints: Vec<[u32; 3]>,
    dropped: u64,
    damaged: Vec<String>,
}

/// The markers of every recording scanned, by name.
#[derive(Default)]
pub struct Markers {
    scans: Mutex<HashMap<String, Scan>>,
}

impl Markers {
    /// The markers of `h`: `{"teleports": [[tick, entity]...], "checkpoints": [[tick, entity,
    /// index]...]}`. Blocking: the first call reads the whole recording once.
    pub fn of(&self, h: &Handle) -> ApiResult<Value> {
        let view = h.rec.view();
        let generation = h.rec.generation();
        let mut scan = {
            let scans = self.scans.lock();
            match scans.get(&h.name) {
                // A file replaced under the same name starts over; a live recording grows.
                Some(s) if s.generation == generation || h.follower.is_some() => s.clone(),
                _ => Scan {
                    generation,
                    ..Scan::default()
                },
            }
        };
        let r = view.reader();
        if let (Some(first), Some(last)) = (r.first_tick(), r.last_tick()) {
            let from = scan.next.unwrap_or(first).max(first);
            if from <= last {
                for t in r.ticks(from, last) {
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
        scan.generation = generation;
        let v = json!({
            "teleports": scan.teleports,
            "checkpoints": scan.checkpoints,
            "dropped": scan.dropped,
            "damaged": scan.damaged,
            "edge": edge(h),
        });
        self.scans.lock().insert(h.name.clone(), scan);
        Ok(v)
    }
}

impl Scan {
    fn add(&mut self, tick: u32, e: &Event) {
        match *e {
            Event::Teleport { entity, .. } => {
                if self.teleports.len() < MAX_MARKERS {
                    self.teleports.push([tick, entity]);
                } else {
                    self.dropped += 1;
                }
            }
            Event::Checkpoint { entity, index } => {
                if self.checkpoints.len() < MAX_MARKERS {
                    self.checkpoints.push([tick, entity, index]);
                } else {
                    self.dropped += 1;
                }
            }
            _ => {}
        }
    }
}
