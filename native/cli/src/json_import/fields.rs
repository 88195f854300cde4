//! The fields of the JSON lines: numbers, positions, angles, hex, and one event, each checked
//! with a short, bounded message.

use serde_json::{Map, Value};
use tickreel::format::{ANGLE_UNITS_PER_TURN, POS_SCALE, VEL_SCALE};
use tickreel::format::{BlockPos, MAX_BLOCK_ENTITY_BYTES, MAX_BLOCKS_PER_CHANGE, UseTarget};
use tickreel::format::{MAX_CHAT_BYTES, MAX_CUSTOM_EVENT_BYTES, kind};
use tickreel::{Event, Pose};

use super::{MAX_COORD, MAX_UNITS};
use crate::errors::echo;

/// A JSON value quoted for a message: a string as [`echo`] quotes it, anything else as JSON text
/// (bounded the same way).
pub(super) fn quote(v: &Value) -> String {
    match v {
        Value::String(s) => echo(s),
        other => {
            let text = other.to_string();
            if text.chars().count() <= crate::errors::ECHO_MAX_CHARS {
                text
            } else {
                echo(&text)
            }
        }
    }
}

pub(super) fn array<'a>(o: &'a Map<String, Value>, key: &str) -> Result<&'a [Value], String> {
    match o.get(key) {
        None => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(v) => Err(format!("{key} {} is not an array", quote(v))),
    }
}

pub(super) fn field<'a>(o: &'a Map<String, Value>, key: &str) -> Result<&'a Value, String> {
    o.get(key).ok_or_else(|| format!("missing \"{key}\""))
}

/// An unsigned 32-bit integer field.
pub(super) fn uint(o: &Map<String, Value>, key: &str) -> Result<u32, String> {
    let v = field(o, key)?;
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("{key} {} is not an unsigned 32-bit integer", quote(v)))
}

/// An optional unsigned 32-bit integer field (absent or `null`: none).
pub(super) fn opt_uint(o: &Map<String, Value>, key: &str) -> Result<Option<u32>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => uint(o, key).map(Some),
    }
}

/// A signed 32-bit integer field (a block coordinate).
pub(super) fn int(o: &Map<String, Value>, key: &str) -> Result<i32, String> {
    let v = field(o, key)?;
    v.as_i64()
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| format!("{key} {} is not a 32-bit integer", quote(v)))
}

/// A byte field (a hand, a slot).
fn byte(o: &Map<String, Value>, key: &str) -> Result<u8, String> {
    u8::try_from(uint(o, key)?).map_err(|_| format!("{key} {} is over 255", quote(&o[key])))
}

/// A number of health points as hundredths (damage, health), refused beyond 32 bits.
fn hundredths(o: &Map<String, Value>, key: &str) -> Result<u32, String> {
    let v = (number(o, key)? * 100.0).round();
    if !(0.0..=f64::from(u32::MAX)).contains(&v) {
        return Err(format!("{key} {} is out of range", quote(&o[key])));
    }
    Ok(v as u32)
}

fn block_pos(o: &Map<String, Value>) -> Result<BlockPos, String> {
    Ok(BlockPos::new(int(o, "x")?, int(o, "y")?, int(o, "z")?))
}

/// `[[x, y, z, state], ...]`: one to [`MAX_BLOCKS_PER_CHANGE`] blocks.
fn blocks(o: &Map<String, Value>) -> Result<Vec<(BlockPos, u32)>, String> {
    let list = field(o, "blocks")?
        .as_array()
        .ok_or_else(|| "blocks is not an array".to_string())?;
    if list.is_empty() || list.len() > MAX_BLOCKS_PER_CHANGE {
        return Err(format!(
            "blocks has {} entries; 1 to {MAX_BLOCKS_PER_CHANGE}",
            list.len()
        ));
    }
    list.iter()
        .map(|b| {
            let a = b.as_array().filter(|a| a.len() == 4);
            let get = |i: usize| a.and_then(|a| a[i].as_i64());
            let coord = |i: usize| get(i).and_then(|v| i32::try_from(v).ok());
            match (
                coord(0),
                coord(1),
                coord(2),
                get(3).and_then(|v| u32::try_from(v).ok()),
            ) {
                (Some(x), Some(y), Some(z), Some(s)) => Ok((BlockPos::new(x, y, z), s)),
                _ => Err(format!("block {} is not [x, y, z, state]", quote(b))),
            }
        })
        .collect()
}

/// A finite number field.
pub(super) fn number(o: &Map<String, Value>, key: &str) -> Result<f64, String> {
    let v = field(o, key)?;
    v.as_f64()
        .filter(|n| n.is_finite())
        .ok_or_else(|| format!("{key} {} is not a number", quote(v)))
}

/// A number field in units of `1 / scale` (rounded), refused beyond what is exact.
pub(super) fn units(
    o: &Map<String, Value>,
    key: &str,
    scale: f64,
    max_units: f64,
) -> Result<i64, String> {
    let v = number(o, key)? * scale;
    if v.abs() > max_units {
        return Err(format!("{key} {} is out of range", quote(&o[key])));
    }
    Ok(v.round() as i64)
}

pub(super) fn pos(o: &Map<String, Value>, key: &str) -> Result<i64, String> {
    units(o, key, POS_SCALE, MAX_COORD * POS_SCALE)
}

pub(super) fn angle(o: &Map<String, Value>, key: &str) -> Result<i64, String> {
    units(o, key, ANGLE_UNITS_PER_TURN / 360.0, MAX_UNITS)
}

pub(super) fn pose(o: &Map<String, Value>) -> Result<Pose, String> {
    Ok(Pose {
        x: pos(o, "x")?,
        y: pos(o, "y")?,
        z: pos(o, "z")?,
        yaw: angle(o, "yaw")?,
        pitch: angle(o, "pitch")?,
    })
}

/// A hex string field of at most `max` bytes.
pub(super) fn hex_field(o: &Map<String, Value>, key: &str, max: usize) -> Result<Vec<u8>, String> {
    let v = field(o, key)?;
    let s = v
        .as_str()
        .ok_or_else(|| format!("{key} {} is not a hex string", quote(v)))?;
    if s.len() / 2 > max {
        return Err(format!("{key} has {} bytes; at most {max}", s.len() / 2));
    }
    unhex(s).ok_or_else(|| format!("{key} {} is not an even number of hex digits", echo(s)))
}

pub(super) fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.as_bytes()
        .chunks(2)
        .map(|p| {
            let d = |c: u8| (c as char).to_digit(16);
            Some((d(p[0])? * 16 + d(p[1])?) as u8)
        })
        .collect()
}

pub(super) fn id16(o: &Map<String, Value>, key: &str) -> Result<[u8; 16], String> {
    let b = hex_field(o, key, 16)?;
    <[u8; 16]>::try_from(b).map_err(|_| format!("{key} is not 32 hex digits"))
}

/// One event in `dump`'s JSON form.
pub(super) fn event(v: &Value) -> Result<Event, String> {
    let o = v
        .as_object()
        .ok_or_else(|| format!("{} is not an object", quote(v)))?;
    let ty = field(o, "type")?;
    let ty = ty
        .as_str()
        .ok_or_else(|| format!("type {} is not a string", quote(ty)))?;
    let entity = || uint(o, "entity");
    Ok(match ty {
        "entity_add" => Event::EntityAdd {
            entity: entity()?,
            kind: uint(o, "kind")?,
            pose: pose(o)?,
        },
        "entity_remove" => Event::EntityRemove { entity: entity()? },
        "pose" => Event::Pose {
            entity: entity()?,
            pose: pose(o)?,
        },
        "teleport" => Event::Teleport {
            entity: entity()?,
            pose: pose(o)?,
        },
        "position" => Event::Position {
            entity: entity()?,
            x: pos(o, "x")?,
            y: pos(o, "y")?,
            z: pos(o, "z")?,
        },
        "rotation" => Event::Rotation {
            entity: entity()?,
            yaw: angle(o, "yaw")?,
            pitch: angle(o, "pitch")?,
        },
        "flags" => Event::Flags {
            entity: entity()?,
            flags: uint(o, "flags")?,
        },
        "checkpoint" => Event::Checkpoint {
            entity: entity()?,
            index: uint(o, "index")?,
        },
        "velocity" => Event::Velocity {
            entity: entity()?,
            x: units(o, "x", VEL_SCALE, MAX_UNITS)?,
            y: units(o, "y", VEL_SCALE, MAX_UNITS)?,
            z: units(o, "z", VEL_SCALE, MAX_UNITS)?,
        },
        "player_leave" => Event::PlayerLeave { entity: entity()? },
        "custom" => Event::Custom {
            type_id: uint(o, "type_id")?,
            data: hex_field(o, "data", MAX_CUSTOM_EVENT_BYTES)?,
        },
        "extension" => {
            let k = uint(o, "kind")?;
            let range = kind::EXTENSION_FIRST..=kind::EXTENSION_LAST;
            let k = u8::try_from(k)
                .ok()
                .filter(|k| range.contains(k))
                .ok_or_else(|| {
                    format!(
                        "extension kind {k} is not in {}..={}",
                        range.start(),
                        range.end()
                    )
                })?;
            Event::Extension {
                kind: k,
                data: hex_field(o, "data", MAX_CUSTOM_EVENT_BYTES)?,
            }
        }
        "block_change" => Event::BlockChange {
            pos: block_pos(o)?,
            state: uint(o, "state")?,
            cause: opt_uint(o, "entity")?,
            block_entity: match o.get("block_entity") {
                None | Some(Value::Null) => None,
                Some(_) => Some(hex_field(o, "block_entity", MAX_BLOCK_ENTITY_BYTES)?),
            },
        },
        "block_changes" => Event::BlockChanges {
            cause: opt_uint(o, "entity")?,
            blocks: blocks(o)?,
        },
        "swing" => Event::Swing {
            entity: entity()?,
            hand: byte(o, "hand")?,
        },
        "attack" => Event::Attack {
            attacker: entity()?,
            target: uint(o, "target")?,
        },
        "use" => Event::Use {
            entity: entity()?,
            hand: byte(o, "hand")?,
            item: uint(o, "item")?,
            target: match (o.contains_key("target"), o.contains_key("x")) {
                (true, true) => return Err("a use has a target entity or a block, not both".into()),
                (true, false) => UseTarget::Entity(uint(o, "target")?),
                (false, true) => UseTarget::Block(block_pos(o)?),
                (false, false) => UseTarget::Nothing,
            },
        },
        "damage" => Event::Damage {
            entity: entity()?,
            amount: hundredths(o, "amount")?,
            cause: uint(o, "cause")?,
            source: opt_uint(o, "source")?,
        },
        "health" => Event::Health {
            entity: entity()?,
            health: hundredths(o, "health")?,
        },
        "equipment" => Event::Equipment {
            entity: entity()?,
            slot: byte(o, "slot")?,
            item: uint(o, "item")?,
            count: uint(o, "count")?,
        },
        "chat" => {
            let text = field(o, "text")?;
            let text = text
                .as_str()
                .ok_or_else(|| format!("text {} is not a string", quote(text)))?;
            if text.len() > MAX_CHAT_BYTES {
                return Err(format!(
                    "text has {} bytes; at most {MAX_CHAT_BYTES}",
                    text.len()
                ));
            }
            Event::Chat {
                sender: opt_uint(o, "entity")?,
                channel: uint(o, "channel")?,
                text: text.to_string(),
            }
        }
        "custom_at" => Event::CustomAt {
            type_id: uint(o, "type_id")?,
            entity: opt_uint(o, "entity")?,
            position: if o.contains_key("x") {
                Some(Box::new([pos(o, "x")?, pos(o, "y")?, pos(o, "z")?]))
            } else {
                None
            },
            data: hex_field(o, "data", MAX_CUSTOM_EVENT_BYTES)?,
        },
        other => {
            return Err(format!(
                "unknown event type {}; expected entity_add, entity_remove, pose, position, \
                 rotation, teleport, flags, checkpoint, velocity, player_leave, custom, \
                 extension, block_change, block_changes, swing, attack, use, damage, health, \
                 equipment, chat or custom_at",
                echo(other)
            ));
        }
    })
}

/// The world of a `{"world": {...}}` line (what `dump --metadata` prints where a snapshot's
/// world is not what the events before it made): `blocks` as `[[x, y, z, state, NBT?], ...]`
/// (`NBT` the hex of the block's block entity), `entities` as `[[id, health?, [[slot, item,
/// count], ...]], ...]` (`health` in hundredths of a point, or `null`). At most `max_blocks`
/// blocks and `max_entities` entities.
pub(super) fn world(
    o: &Map<String, Value>,
    max_blocks: usize,
    max_entities: usize,
) -> Result<tickreel::format::WorldState, String> {
    let mut w = tickreel::format::WorldState::new();
    let blocks = array(o, "blocks")?;
    if blocks.len() > max_blocks {
        return Err(format!(
            "blocks has {} entries; at most {max_blocks}",
            blocks.len()
        ));
    }
    for b in blocks {
        let a = b.as_array().filter(|a| a.len() == 4 || a.len() == 5);
        let get = |i: usize| a.and_then(|a| a[i].as_i64());
        let coord = |i: usize| get(i).and_then(|v| i32::try_from(v).ok());
        let nbt = match a.and_then(|a| a.get(4)) {
            None => None,
            Some(v) => Some(
                v.as_str()
                    .and_then(unhex)
                    .filter(|n| n.len() <= MAX_BLOCK_ENTITY_BYTES)
                    .ok_or_else(|| {
                        format!(
                            "block {}: its block entity is not hex of at most \
                             {MAX_BLOCK_ENTITY_BYTES} bytes",
                            quote(b)
                        )
                    })?,
            ),
        };
        let (Some(x), Some(y), Some(z), Some(state)) = (
            coord(0),
            coord(1),
            coord(2),
            get(3).and_then(|v| u32::try_from(v).ok()),
        ) else {
            return Err(format!("block {} is not [x, y, z, state, NBT?]", quote(b)));
        };
        w.apply(&Event::BlockChange {
            pos: BlockPos::new(x, y, z),
            state,
            cause: None,
            block_entity: nbt,
        });
    }
    let entities = array(o, "entities")?;
    if entities.len() > max_entities {
        return Err(format!(
            "entities has {} entries; at most {max_entities}",
            entities.len()
        ));
    }
    for e in entities {
        let bad = || {
            format!(
                "entity {} is not [id, health?, [[slot, item, count], ...]]",
                quote(e)
            )
        };
        let a = e.as_array().filter(|a| a.len() == 3).ok_or_else(bad)?;
        let u32_of = |v: &Value| v.as_u64().and_then(|n| u32::try_from(n).ok());
        let id = u32_of(&a[0]).ok_or_else(bad)?;
        match &a[1] {
            Value::Null => {}
            h => w.apply(&Event::Health {
                entity: id,
                health: u32_of(h).ok_or_else(bad)?,
            }),
        }
        let slots = a[2].as_array().filter(|s| s.len() <= 256).ok_or_else(bad)?;
        for s in slots {
            let s = s.as_array().filter(|s| s.len() == 3).ok_or_else(bad)?;
            let slot = s[0]
                .as_u64()
                .and_then(|n| u8::try_from(n).ok())
                .ok_or_else(bad)?;
            let (item, count) = (
                u32_of(&s[1]).ok_or_else(bad)?,
                u32_of(&s[2]).ok_or_else(bad)?,
            );
            if item == 0 || count == 0 {
                return Err(format!("{}: an empty equipment slot", bad()));
            }
            w.apply(&Event::Equipment {
                entity: id,
                slot,
                item,
                count,
            });
        }
    }
    Ok(w)
}
