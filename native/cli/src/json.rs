//! JSON forms shared by `info`, `dump` (see [`crate::dump`]) and the JSON lines import
//! ([`crate::json_import`]), and by `play` and the web viewer's seek: NBT metadata, events, an
//! entity's state, hex bytes, UTC timestamps.

use fastnbt::Value as Nbt;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value, json};
use tickreel::Event;
use tickreel::format::flag;
use tickreel::format::{ANGLE_UNITS_PER_TURN, POS_SCALE, Pose, VEL_SCALE};
use tickreel::format::{BlockPos, EntityState, Palette, PaletteKind, UseTarget};

/// Converts an NBT value to JSON. Compounds become objects (keys sorted), lists and arrays become
/// arrays, numbers stay numbers (non-finite floats become `null`, which JSON cannot express).
pub fn nbt_to_json(v: &Nbt) -> Value {
    match v {
        Nbt::Byte(b) => json!(b),
        Nbt::Short(s) => json!(s),
        Nbt::Int(i) => json!(i),
        Nbt::Long(l) => json!(l),
        Nbt::Float(f) => finite(f64::from(*f)),
        Nbt::Double(d) => finite(*d),
        Nbt::String(s) => Value::String(s.clone()),
        Nbt::ByteArray(a) => Value::Array(a.iter().map(|b| json!(b)).collect()),
        Nbt::IntArray(a) => Value::Array(a.iter().map(|i| json!(i)).collect()),
        Nbt::LongArray(a) => Value::Array(a.iter().map(|l| json!(l)).collect()),
        Nbt::List(items) => Value::Array(items.iter().map(nbt_to_json).collect()),
        Nbt::Compound(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), nbt_to_json(v)))
                .collect::<Map<_, _>>(),
        ),
    }
}

fn finite(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Names of the library's flag bits set in `flags`; unknown bits are left to the raw value.
pub fn flag_names(flags: u32) -> Vec<&'static str> {
    [
        (flag::ON_GROUND, "on_ground"),
        (flag::SNEAKING, "sneaking"),
        (flag::SPRINTING, "sprinting"),
        (flag::SWIMMING, "swimming"),
        (flag::GLIDING, "gliding"),
    ]
    .into_iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|(_, name)| name)
    .collect()
}

/// A JSON object that keeps its keys in insertion order when serialised (`serde_json::Map` sorts
/// them), so that `dump` lines read `{"tick": .., "events": [{"type": .., "entity": .., ...}]}`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ordered(pub Vec<(&'static str, Value)>);

impl Ordered {
    pub fn put(&mut self, key: &'static str, v: impl Into<Value>) {
        self.0.push((key, v.into()));
    }
}

impl Serialize for Ordered {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

fn put_pose(m: &mut Ordered, p: &Pose) {
    m.put("x", p.x_f64());
    m.put("y", p.y_f64());
    m.put("z", p.z_f64());
    m.put("yaw", p.yaw_deg());
    m.put("pitch", p.pitch_deg());
}

fn angle_deg(units: i64) -> f64 {
    units as f64 * 360.0 / ANGLE_UNITS_PER_TURN
}

/// The JSON form of one event: `{"type": ..., ...}`. Positions in blocks, angles in degrees,
/// velocities in blocks per tick; custom and extension payloads as hex. `type_name` resolves a
/// custom event's registered name, if any.
pub fn event_to_json(e: &Event, type_name: impl Fn(u32) -> Option<String>) -> Ordered {
    event_to_json_named(e, type_name, None)
}

/// [`event_to_json`], with the names `palette` gives the ids of world events beside them:
/// `state_name` (block change), `item_name` (use, equipment), `cause_name` (damage). Readers of
/// the JSON (the import) take the ids; the names explain them.
pub fn event_to_json_named(
    e: &Event,
    type_name: impl Fn(u32) -> Option<String>,
    palette: Option<&Palette>,
) -> Ordered {
    let name = |kind: PaletteKind, id: u32| palette.and_then(|p| p.name(kind, id));
    let mut m = Ordered::default();
    let type_of = match e {
        Event::EntityAdd { .. } => "entity_add",
        Event::EntityRemove { .. } => "entity_remove",
        Event::Pose { .. } => "pose",
        Event::Position { .. } => "position",
        Event::Rotation { .. } => "rotation",
        Event::Teleport { .. } => "teleport",
        Event::Flags { .. } => "flags",
        Event::Checkpoint { .. } => "checkpoint",
        Event::Velocity { .. } => "velocity",
        Event::PlayerLeave { .. } => "player_leave",
        Event::Custom { .. } => "custom",
        Event::BlockChange { .. } => "block_change",
        Event::BlockChanges { .. } => "block_changes",
        Event::Swing { .. } => "swing",
        Event::Attack { .. } => "attack",
        Event::Use { .. } => "use",
        Event::Damage { .. } => "damage",
        Event::Health { .. } => "health",
        Event::Equipment { .. } => "equipment",
        Event::Chat { .. } => "chat",
        Event::CustomAt { .. } => "custom_at",
        Event::Extension { .. } => "extension",
    };
    m.put("type", type_of);
    if let Some(entity) = e.entity() {
        m.put("entity", entity);
    }
    match e {
        Event::EntityAdd { kind, pose, .. } => {
            m.put("kind", *kind);
            put_pose(&mut m, pose);
        }
        Event::Pose { pose, .. } | Event::Teleport { pose, .. } => put_pose(&mut m, pose),
        Event::Position { x, y, z, .. } => {
            m.put("x", *x as f64 / POS_SCALE);
            m.put("y", *y as f64 / POS_SCALE);
            m.put("z", *z as f64 / POS_SCALE);
        }
        Event::Rotation { yaw, pitch, .. } => {
            m.put("yaw", angle_deg(*yaw));
            m.put("pitch", angle_deg(*pitch));
        }
        Event::Flags { flags, .. } => {
            m.put("flags", *flags);
            m.put("names", json!(flag_names(*flags)));
        }
        Event::Checkpoint { index, .. } => m.put("index", *index),
        Event::Velocity { x, y, z, .. } => {
            m.put("x", *x as f64 / VEL_SCALE);
            m.put("y", *y as f64 / VEL_SCALE);
            m.put("z", *z as f64 / VEL_SCALE);
        }
        Event::EntityRemove { .. } | Event::PlayerLeave { .. } => {}
        Event::Custom { type_id, data } => {
            m.put("type_id", *type_id);
            if let Some(name) = type_name(*type_id) {
                m.put("name", name);
            }
            m.put("data", hex(data));
        }
        Event::Extension { kind, data } => {
            m.put("kind", *kind);
            m.put("data", hex(data));
        }
        Event::BlockChange {
            pos,
            state,
            block_entity,
            ..
        } => {
            put_block(&mut m, *pos);
            m.put("state", *state);
            if let Some(n) = name(PaletteKind::Block, *state) {
                m.put("state_name", n);
            }
            if let Some(nbt) = block_entity {
                m.put("block_entity", hex(nbt));
            }
        }
        Event::BlockChanges { blocks, .. } => {
            let list: Vec<Value> = blocks
                .iter()
                .map(|(p, s)| json!([p.x, p.y, p.z, s]))
                .collect();
            m.put("blocks", Value::Array(list));
        }
        Event::Swing { hand, .. } => m.put("hand", *hand),
        Event::Attack { target, .. } => m.put("target", *target),
        Event::Use {
            hand, item, target, ..
        } => {
            m.put("hand", *hand);
            m.put("item", *item);
            if let Some(n) = name(PaletteKind::Item, *item) {
                m.put("item_name", n);
            }
            match target {
                UseTarget::Nothing => {}
                UseTarget::Entity(t) => m.put("target", *t),
                UseTarget::Block(p) => put_block(&mut m, *p),
            }
        }
        Event::Damage {
            amount,
            cause,
            source,
            ..
        } => {
            m.put("amount", f64::from(*amount) / 100.0);
            m.put("cause", *cause);
            if let Some(n) = name(PaletteKind::DamageCause, *cause) {
                m.put("cause_name", n);
            }
            if let Some(s) = source {
                m.put("source", *s);
            }
        }
        Event::Health { health, .. } => m.put("health", f64::from(*health) / 100.0),
        Event::Equipment {
            slot, item, count, ..
        } => {
            m.put("slot", *slot);
            m.put("item", *item);
            if let Some(n) = name(PaletteKind::Item, *item) {
                m.put("item_name", n);
            }
            m.put("count", *count);
        }
        Event::Chat { channel, text, .. } => {
            m.put("channel", *channel);
            m.put("text", text.clone());
        }
        Event::CustomAt {
            type_id,
            position,
            data,
            ..
        } => {
            m.put("type_id", *type_id);
            if let Some(name) = type_name(*type_id) {
                m.put("name", name);
            }
            if let Some(&[x, y, z]) = position.as_deref() {
                m.put("x", x as f64 / POS_SCALE);
                m.put("y", y as f64 / POS_SCALE);
                m.put("z", z as f64 / POS_SCALE);
            }
            m.put("data", hex(data));
        }
    }
    m
}

/// A palette as JSON: `{"blocks": [[id, name], ...], "items": [...], "damage": [...]}` (the
/// metadata's keys, ids in order), kinds without names left out.
pub fn palette_to_json(p: &Palette) -> Value {
    let mut o = Map::new();
    for kind in PaletteKind::ALL {
        let names = p.names(kind);
        if !names.is_empty() {
            let list = names.iter().map(|(id, n)| json!([id, n])).collect();
            o.insert(kind.key().to_string(), Value::Array(list));
        }
    }
    Value::Object(o)
}

fn put_block(m: &mut Ordered, p: BlockPos) {
    m.put("x", p.x);
    m.put("y", p.y);
    m.put("z", p.z);
}

/// One entity's state at a tick, as `tickreel play` prints it and the web viewer's seek answers
/// it: `{"id", "kind", "flags", "x", "y", "z", "yaw", "pitch"}`, positions in blocks, angles in
/// degrees (keys sorted, as every `serde_json` object).
pub fn entity_state_to_json(e: &EntityState) -> Value {
    json!({
        "id": e.id,
        "kind": e.kind,
        "flags": e.flags,
        "x": e.pose.x_f64(),
        "y": e.pose.y_f64(),
        "z": e.pose.z_f64(),
        "yaw": e.pose.yaw_deg(),
        "pitch": e.pose.pitch_deg(),
    })
}

/// Unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (proleptic Gregorian, UTC).
pub fn utc_timestamp(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        tod / 3600,
        tod % 3600 / 60,
        tod % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn an_entity_state_is_in_blocks_and_degrees() {
        let e = EntityState {
            id: 7,
            kind: 2,
            flags: flag::SNEAKING,
            pose: Pose::from_f64(1.5, -64.0, 0.25, 90.0, -45.0),
        };
        assert_eq!(
            entity_state_to_json(&e),
            json!({"id": 7, "kind": 2, "flags": flag::SNEAKING, "x": 1.5, "y": -64.0,
                   "z": 0.25, "yaw": 90.0, "pitch": -45.0})
        );
    }

    #[test]
    fn nbt_converts_every_tag() {
        let mut c = HashMap::new();
        c.insert("b".to_string(), Nbt::Byte(-1));
        c.insert("s".to_string(), Nbt::Short(300));
        c.insert("l".to_string(), Nbt::Long(1 << 40));
        c.insert("f".to_string(), Nbt::Float(1.5));
        c.insert("nan".to_string(), Nbt::Double(f64::NAN));
        c.insert("str".to_string(), Nbt::String("hi".into()));
        c.insert(
            "list".to_string(),
            Nbt::List(vec![Nbt::Int(1), Nbt::Int(2)]),
        );
        c.insert(
            "ba".to_string(),
            Nbt::ByteArray(fastnbt::ByteArray::new(vec![1, -2])),
        );
        let j = nbt_to_json(&Nbt::Compound(c));
        assert_eq!(
            j,
            json!({"b": -1, "s": 300, "l": 1i64 << 40, "f": 1.5, "nan": null, "str": "hi",
                   "list": [1, 2], "ba": [1, -2]})
        );
    }

    fn to_json(e: &Event) -> Value {
        serde_json::to_value(event_to_json(e, |_| None)).unwrap()
    }

    #[test]
    fn events_have_json_forms() {
        let e = Event::Custom {
            type_id: 7,
            data: vec![0xde, 0xad],
        };
        let j = serde_json::to_value(event_to_json(&e, |id| (id == 7).then(|| "x:y".to_string())))
            .unwrap();
        assert_eq!(
            j,
            json!({"type": "custom", "type_id": 7, "name": "x:y", "data": "dead"})
        );
        let j = to_json(&Event::Flags {
            entity: 3,
            flags: flag::ON_GROUND | 1 << 20,
        });
        assert_eq!(j["names"], json!(["on_ground"]));
        let j = to_json(&Event::Pose {
            entity: 1,
            pose: Pose::from_f64(1.5, 64.0, -2.25, 90.0, -45.0),
        });
        assert_eq!(
            j,
            json!({"type": "pose", "entity": 1, "x": 1.5, "y": 64.0, "z": -2.25, "yaw": 90.0, "pitch": -45.0})
        );
        let line = serde_json::to_string(&event_to_json(
            &Event::Checkpoint {
                entity: 2,
                index: 5,
            },
            |_| None,
        ))
        .unwrap();
        assert_eq!(line, r#"{"type":"checkpoint","entity":2,"index":5}"#);
    }

    #[test]
    fn timestamps_format_as_utc() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(utc_timestamp(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(utc_timestamp(-1), "1969-12-31T23:59:59.999Z");
    }
}
