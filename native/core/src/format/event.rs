//! Events: the built-in kinds the library understands, custom events it carries opaquely, and the
//! tick batch encoding that `Recorder::submit_tick` accepts (and the Java/C batch builders produce).
//!
//! Batch encoding of one tick: `u16 BE event count`, then that many events, each `kind: u8` + body.
//! All integers in bodies are varints (signed ones zigzag). Poses are absolute and quantised
//! (see [`crate::format::pose`]). Kinds `0x40..=0x7F` are reserved extension kinds whose body is
//! always `varint length + bytes`, so that a reader which does not know one skips it; the world
//! events ([`crate::format::world`]) are the first of them this build understands.

use crate::error::{Error, Result};
use crate::format::bytes::{ByteReader, put_ivarint, put_uvarint, unzigzag, uvarint_short};
use crate::format::pose::Pose;
use crate::format::world::{BlockPos, BlockState, UseTarget, put_framed, world_kind};

/// Event kind bytes. Values are part of the format and never reused.
pub mod kind {
    pub const ENTITY_ADD: u8 = 0x01;
    pub const ENTITY_REMOVE: u8 = 0x02;
    pub const POSE: u8 = 0x03;
    pub const POSITION: u8 = 0x04;
    pub const ROTATION: u8 = 0x05;
    pub const TELEPORT: u8 = 0x06;
    pub const FLAGS: u8 = 0x07;
    pub const CHECKPOINT: u8 = 0x08;
    pub const VELOCITY: u8 = 0x09;
    pub const PLAYER_LEAVE: u8 = 0x0A;
    /// First reserved extension kind (length-prefixed, skippable).
    pub const EXTENSION_FIRST: u8 = 0x40;
    /// Last reserved extension kind.
    pub const EXTENSION_LAST: u8 = 0x7F;
    pub const CUSTOM: u8 = 0x80;
}

/// Bits of the `Flags` event's value understood by the library; the rest are the game's own.
pub mod flag {
    pub const ON_GROUND: u32 = 1 << 0;
    pub const SNEAKING: u32 = 1 << 1;
    pub const SPRINTING: u32 = 1 << 2;
    pub const SWIMMING: u32 = 1 << 3;
    pub const GLIDING: u32 = 1 << 4;
}

/// Largest custom event payload accepted (bytes).
pub const MAX_CUSTOM_EVENT_BYTES: usize = 1 << 20;
/// Largest event count in one tick (the count field is a u16).
pub const MAX_EVENTS_PER_TICK: usize = u16::MAX as usize;

/// One event of one tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// An entity appears with a kind (game-defined, e.g. a Minecraft entity type id) and a pose.
    EntityAdd { entity: u32, kind: u32, pose: Pose },
    /// An entity disappears.
    EntityRemove { entity: u32 },
    /// Absolute pose.
    Pose { entity: u32, pose: Pose },
    /// Position only (rotation unchanged). Folded into `Pose` when stored.
    Position { entity: u32, x: i64, y: i64, z: i64 },
    /// Rotation only (position unchanged). Folded into `Pose` when stored.
    Rotation { entity: u32, yaw: i64, pitch: i64 },
    /// A discontinuity: the entity jumped to `pose` (ghosts never interpolate across it).
    Teleport { entity: u32, pose: Pose },
    /// Entity state flags (see [`flag`]); the full new value, not a change mask.
    Flags { entity: u32, flags: u32 },
    /// The entity reached checkpoint `index` (a split for ghosts).
    Checkpoint { entity: u32, index: u32 },
    /// Velocity in 1/8000 block per tick (e.g. knockback).
    Velocity { entity: u32, x: i64, y: i64, z: i64 },
    /// A player left; removes the entity and triggers a flush of a live recording.
    PlayerLeave { entity: u32 },
    /// A game-specific event: registered type id and opaque bytes.
    Custom { type_id: u32, data: Vec<u8> },
    /// A block changed to `state` (an id of the recording's block palette), changed by `cause`
    /// if an entity did it, with the block entity's NBT where it has one (a sign's text, a
    /// chest's contents; at most [`crate::format::world::MAX_BLOCK_ENTITY_BYTES`]).
    BlockChange {
        pos: BlockPos,
        state: u32,
        cause: Option<u32>,
        block_entity: Option<Vec<u8>>,
    },
    /// Many blocks changed at once (a section update, a fill, an explosion): each position with
    /// its new state; at least one and at most [`crate::format::world::MAX_BLOCKS_PER_CHANGE`].
    BlockChanges {
        cause: Option<u32>,
        blocks: Vec<BlockState>,
    },
    /// An entity swung a hand ([`crate::format::world::hand`]).
    Swing { entity: u32, hand: u8 },
    /// An entity attacked another (a hit, whether or not it did damage).
    Attack { attacker: u32, target: u32 },
    /// An entity used an item (an id of the item palette, 0 for an empty hand) in a hand, on
    /// nothing, an entity or a block.
    Use {
        entity: u32,
        hand: u8,
        item: u32,
        target: UseTarget,
    },
    /// An entity took `amount` hundredths of a health point of damage of `cause` (an id of the
    /// damage palette, 0 for unknown), from `source` if an entity dealt it.
    Damage {
        entity: u32,
        amount: u32,
        cause: u32,
        source: Option<u32>,
    },
    /// An entity's health is now `health` hundredths of a health point.
    Health { entity: u32, health: u32 },
    /// An entity's equipment in `slot` ([`crate::format::world::slot`]) is now `count` of `item` (an id of the
    /// item palette, 0 for nothing).
    Equipment {
        entity: u32,
        slot: u8,
        item: u32,
        count: u32,
    },
    /// A chat line: its sender if an entity sent it, its channel ([`crate::format::world::channel`]) and its
    /// text (at most [`crate::format::world::MAX_CHAT_BYTES`] bytes).
    Chat {
        sender: Option<u32>,
        channel: u32,
        text: String,
    },
    /// A custom event placed at an entity and/or a position (fixed point like a pose's), so
    /// that a report's radius and a viewer can place it. The position is boxed so that it does
    /// not make every event larger (an `Event` stays 56 bytes).
    CustomAt {
        type_id: u32,
        entity: Option<u32>,
        position: Option<Box<[i64; 3]>>,
        data: Vec<u8>,
    },
    /// A reserved extension kind this build does not understand; carried as bytes.
    Extension { kind: u8, data: Vec<u8> },
}

impl Event {
    /// The entity this event concerns, if any.
    pub fn entity(&self) -> Option<u32> {
        match *self {
            Event::EntityAdd { entity, .. }
            | Event::EntityRemove { entity }
            | Event::Pose { entity, .. }
            | Event::Position { entity, .. }
            | Event::Rotation { entity, .. }
            | Event::Teleport { entity, .. }
            | Event::Flags { entity, .. }
            | Event::Checkpoint { entity, .. }
            | Event::Velocity { entity, .. }
            | Event::PlayerLeave { entity }
            | Event::Swing { entity, .. }
            | Event::Use { entity, .. }
            | Event::Damage { entity, .. }
            | Event::Health { entity, .. }
            | Event::Equipment { entity, .. }
            | Event::Attack {
                attacker: entity, ..
            } => Some(entity),
            Event::BlockChange { cause, .. } | Event::BlockChanges { cause, .. } => cause,
            Event::Chat { sender, .. } => sender,
            Event::CustomAt { entity, .. } => entity,
            Event::Custom { .. } | Event::Extension { .. } => None,
        }
    }

    /// The other entity an event involves, beside [`Event::entity`]: an attack's target, a use's
    /// target entity, the source of damage.
    pub fn other_entity(&self) -> Option<u32> {
        match *self {
            Event::Attack { target, .. }
            | Event::Use {
                target: UseTarget::Entity(target),
                ..
            } => Some(target),
            Event::Damage { source, .. } => source,
            _ => None,
        }
    }

    /// Whether the event names `id` as its entity or its other entity.
    pub fn involves(&self, id: u32) -> bool {
        self.entity() == Some(id) || self.other_entity() == Some(id)
    }

    /// The block an event happened at: a block change's position (a multi-block change's first
    /// block), a use's target block.
    pub fn block(&self) -> Option<BlockPos> {
        match self {
            Event::BlockChange { pos, .. } => Some(*pos),
            Event::BlockChanges { blocks, .. } => blocks.first().map(|b| b.0),
            Event::Use {
                target: UseTarget::Block(p),
                ..
            } => Some(*p),
            _ => None,
        }
    }

    /// Bytes the event holds beside its fixed size: payloads, text, blocks (an upper bound of
    /// what they add to its encoding too, less than [`crate::format::limits`]'s per-event bound
    /// for every fixed field).
    pub fn heap_bytes(&self) -> usize {
        match self {
            Event::Custom { data, .. }
            | Event::Extension { data, .. }
            | Event::CustomAt { data, .. } => data.len(),
            Event::BlockChange { block_entity, .. } => block_entity.as_ref().map_or(0, Vec::len),
            // three coordinate deltas and a state: at most 5 + 5 + 5 + 5 varint bytes each
            Event::BlockChanges { blocks, .. } => blocks.len() * 20,
            Event::Chat { text, .. } => text.len(),
            _ => 0,
        }
    }

    /// Whether this is one of the world events ([`crate::format::world`]).
    pub fn is_world(&self) -> bool {
        (kind::EXTENSION_FIRST..=world_kind::LAST).contains(&self.kind())
            && !matches!(self, Event::Extension { .. })
    }

    /// The kind byte.
    pub fn kind(&self) -> u8 {
        match self {
            Event::EntityAdd { .. } => kind::ENTITY_ADD,
            Event::EntityRemove { .. } => kind::ENTITY_REMOVE,
            Event::Pose { .. } => kind::POSE,
            Event::Position { .. } => kind::POSITION,
            Event::Rotation { .. } => kind::ROTATION,
            Event::Teleport { .. } => kind::TELEPORT,
            Event::Flags { .. } => kind::FLAGS,
            Event::Checkpoint { .. } => kind::CHECKPOINT,
            Event::Velocity { .. } => kind::VELOCITY,
            Event::PlayerLeave { .. } => kind::PLAYER_LEAVE,
            Event::Custom { .. } => kind::CUSTOM,
            Event::BlockChange { .. } => world_kind::BLOCK_CHANGE,
            Event::BlockChanges { .. } => world_kind::BLOCK_CHANGES,
            Event::Swing { .. } => world_kind::SWING,
            Event::Attack { .. } => world_kind::ATTACK,
            Event::Use { .. } => world_kind::USE,
            Event::Damage { .. } => world_kind::DAMAGE,
            Event::Health { .. } => world_kind::HEALTH,
            Event::Equipment { .. } => world_kind::EQUIPMENT,
            Event::Chat { .. } => world_kind::CHAT,
            Event::CustomAt { .. } => world_kind::CUSTOM_AT,
            Event::Extension { kind, .. } => *kind,
        }
    }

    /// Appends this event in batch encoding.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(self.kind());
        match self {
            Event::EntityAdd { entity, kind, pose } => {
                put_uvarint(out, u64::from(*entity));
                put_uvarint(out, u64::from(*kind));
                put_pose(out, pose);
            }
            Event::EntityRemove { entity } | Event::PlayerLeave { entity } => {
                put_uvarint(out, u64::from(*entity))
            }
            Event::Pose { entity, pose } | Event::Teleport { entity, pose } => {
                put_uvarint(out, u64::from(*entity));
                put_pose(out, pose);
            }
            Event::Position { entity, x, y, z } | Event::Velocity { entity, x, y, z } => {
                put_uvarint(out, u64::from(*entity));
                put_ivarint(out, *x);
                put_ivarint(out, *y);
                put_ivarint(out, *z);
            }
            Event::Rotation { entity, yaw, pitch } => {
                put_uvarint(out, u64::from(*entity));
                put_ivarint(out, *yaw);
                put_ivarint(out, *pitch);
            }
            Event::Flags { entity, flags } => {
                put_uvarint(out, u64::from(*entity));
                put_uvarint(out, u64::from(*flags));
            }
            Event::Checkpoint { entity, index } => {
                put_uvarint(out, u64::from(*entity));
                put_uvarint(out, u64::from(*index));
            }
            Event::Custom { type_id, data } => {
                put_uvarint(out, u64::from(*type_id));
                put_uvarint(out, data.len() as u64);
                out.extend_from_slice(data);
            }
            Event::Extension { data, .. } => {
                put_uvarint(out, data.len() as u64);
                out.extend_from_slice(data);
            }
            world => put_framed(out, |out| world.encode_world_body(out)),
        }
    }

    /// Reads one event in batch encoding (as this build writes it: world kinds parsed).
    pub(crate) fn decode(r: &mut ByteReader<'_>) -> Result<Event> {
        Event::decode_version(r, true)
    }

    /// Reads one event; `world` says whether the world kinds are parsed (data version 3 and
    /// later) or carried as opaque extensions (the same kind bytes in earlier versions).
    pub(crate) fn decode_version(r: &mut ByteReader<'_>, world: bool) -> Result<Event> {
        let k = r.u8()?;
        Ok(match k {
            kind::ENTITY_ADD => Event::EntityAdd {
                entity: r.uvarint32()?,
                kind: r.uvarint32()?,
                pose: get_pose(r)?,
            },
            kind::ENTITY_REMOVE => Event::EntityRemove {
                entity: r.uvarint32()?,
            },
            kind::POSE => Event::Pose {
                entity: r.uvarint32()?,
                pose: get_pose(r)?,
            },
            kind::POSITION => Event::Position {
                entity: r.uvarint32()?,
                x: r.ivarint()?,
                y: r.ivarint()?,
                z: r.ivarint()?,
            },
            kind::ROTATION => Event::Rotation {
                entity: r.uvarint32()?,
                yaw: r.ivarint()?,
                pitch: r.ivarint()?,
            },
            kind::TELEPORT => Event::Teleport {
                entity: r.uvarint32()?,
                pose: get_pose(r)?,
            },
            kind::FLAGS => Event::Flags {
                entity: r.uvarint32()?,
                flags: r.uvarint32()?,
            },
            kind::CHECKPOINT => Event::Checkpoint {
                entity: r.uvarint32()?,
                index: r.uvarint32()?,
            },
            kind::VELOCITY => Event::Velocity {
                entity: r.uvarint32()?,
                x: r.ivarint()?,
                y: r.ivarint()?,
                z: r.ivarint()?,
            },
            kind::PLAYER_LEAVE => Event::PlayerLeave {
                entity: r.uvarint32()?,
            },
            kind::CUSTOM => {
                let type_id = r.uvarint32()?;
                let len = r.len_varint(MAX_CUSTOM_EVENT_BYTES, "custom event length")?;
                Event::Custom {
                    type_id,
                    data: r.bytes(len)?.to_vec(),
                }
            }
            kind::EXTENSION_FIRST..=world_kind::LAST if world => {
                let len = r.len_varint(MAX_CUSTOM_EVENT_BYTES, "world event length")?;
                Event::decode_world_body(k, r.bytes(len)?).map_err(|e| match e {
                    Error::Corrupt(m) => Error::Corrupt(format!("event kind 0x{k:02x}: {m}")),
                    Error::Truncated(m) => {
                        Error::Corrupt(format!("event kind 0x{k:02x} ends early: {m}"))
                    }
                    Error::LimitExceeded(m) => {
                        Error::LimitExceeded(format!("event kind 0x{k:02x}: {m}"))
                    }
                    other => other,
                })?
            }
            kind::EXTENSION_FIRST..=kind::EXTENSION_LAST => {
                let len = r.len_varint(MAX_CUSTOM_EVENT_BYTES, "extension event length")?;
                Event::Extension {
                    kind: k,
                    data: r.bytes(len)?.to_vec(),
                }
            }
            other => return Err(Error::corrupt(format!("unknown event kind 0x{other:02x}"))),
        })
    }
}

pub(crate) fn put_pose(out: &mut Vec<u8>, p: &Pose) {
    for v in p.to_array() {
        put_ivarint(out, v);
    }
}

pub(crate) fn get_pose(r: &mut ByteReader<'_>) -> Result<Pose> {
    Ok(Pose {
        x: r.ivarint()?,
        y: r.ivarint()?,
        z: r.ivarint()?,
        yaw: r.ivarint()?,
        pitch: r.ivarint()?,
    })
}

/// The writer's common case: a `Pose` event whose six varints are each at most 8 bytes long with
/// 8 bytes readable, decoded without per-field error handling and pushed onto `out` in place.
/// `false` (reader untouched) sends the caller to [`Event::decode`], which also reports what is
/// wrong with a malformed event.
#[inline(always)]
fn decode_pose_fast(r: &mut ByteReader<'_>, out: &mut Vec<Event>) -> bool {
    let b = r.rest();
    if b.first() != Some(&kind::POSE) {
        return false;
    }
    let field = |p: usize| uvarint_short(b, p);
    let Some((entity, l0)) = field(1) else {
        return false;
    };
    let Ok(entity) = u32::try_from(entity) else {
        return false;
    };
    let p = 1 + l0;
    let Some((x, l1)) = field(p) else {
        return false;
    };
    let p = p + l1;
    let Some((y, l2)) = field(p) else {
        return false;
    };
    let p = p + l2;
    let Some((z, l3)) = field(p) else {
        return false;
    };
    let p = p + l3;
    let Some((yaw, l4)) = field(p) else {
        return false;
    };
    let p = p + l4;
    let Some((pitch, l5)) = field(p) else {
        return false;
    };
    r.advance(p + l5);
    out.push(Event::Pose {
        entity,
        pose: Pose {
            x: unzigzag(x),
            y: unzigzag(y),
            z: unzigzag(z),
            yaw: unzigzag(yaw),
            pitch: unzigzag(pitch),
        },
    });
    true
}

/// Encodes one tick's events as a batch (`u16` count + events).
pub fn encode_batch(events: &[Event], out: &mut Vec<u8>) -> Result<()> {
    if events.len() > MAX_EVENTS_PER_TICK {
        return Err(Error::invalid(format!(
            "{} events in one tick; at most {MAX_EVENTS_PER_TICK}",
            events.len()
        )));
    }
    out.extend_from_slice(&(events.len() as u16).to_be_bytes());
    for e in events {
        e.encode(out);
    }
    Ok(())
}

/// Decodes a batch, requiring that it is consumed exactly.
pub fn decode_batch(bytes: &[u8]) -> Result<Vec<Event>> {
    let mut out = Vec::new();
    decode_batch_into(bytes, &mut out)?;
    Ok(out)
}

/// Decodes a batch into `out` (cleared first), requiring that it is consumed exactly.
pub fn decode_batch_into(bytes: &[u8], out: &mut Vec<Event>) -> Result<()> {
    out.clear();
    let mut r = ByteReader::new(bytes);
    let n = r
        .u16_be()
        .map_err(|_| Error::invalid("tick batch shorter than its 2-byte count"))?;
    out.reserve(usize::from(n).min(bytes.len()));
    for i in 0..n {
        if decode_pose_fast(&mut r, out) {
            continue;
        }
        let e = Event::decode(&mut r).map_err(|e| {
            Error::invalid(format!("malformed tick batch at event {i} of {n}: {e}"))
        })?;
        out.push(e);
    }
    if !r.is_empty() {
        return Err(Error::invalid(format!(
            "tick batch has {} trailing bytes after {n} events",
            r.remaining()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn every_kind() -> Vec<Event> {
        let pose = Pose {
            x: -5,
            y: 64 * 4096,
            z: 1 << 40,
            yaw: -65536 * 30 + 7,
            pitch: 1234,
        };
        vec![
            Event::EntityAdd {
                entity: 7,
                kind: 122,
                pose,
            },
            Event::EntityRemove { entity: 3 },
            Event::Pose { entity: 7, pose },
            Event::Position {
                entity: 7,
                x: 1,
                y: -2,
                z: 3,
            },
            Event::Rotation {
                entity: 7,
                yaw: 100_000_000,
                pitch: -16384,
            },
            Event::Teleport { entity: 9, pose },
            Event::Flags {
                entity: 7,
                flags: flag::ON_GROUND | flag::SNEAKING | (1 << 20),
            },
            Event::Checkpoint {
                entity: 7,
                index: 4,
            },
            Event::Velocity {
                entity: 7,
                x: -8000,
                y: 3360,
                z: 0,
            },
            Event::PlayerLeave { entity: u32::MAX },
            Event::Custom {
                type_id: 1000,
                data: vec![1, 2, 3],
            },
            Event::Extension {
                kind: 0x4A,
                data: vec![9; 5],
            },
        ]
        .into_iter()
        .chain(crate::format::world::tests::world_events())
        .collect()
    }

    #[test]
    fn batch_round_trips_every_kind() {
        let events = every_kind();
        let mut buf = Vec::new();
        encode_batch(&events, &mut buf).unwrap();
        assert_eq!(decode_batch(&buf).unwrap(), events);
    }

    #[test]
    fn malformed_batches_are_rejected() {
        let mut buf = Vec::new();
        encode_batch(&every_kind(), &mut buf).unwrap();
        for cut in 0..buf.len() {
            assert!(decode_batch(&buf[..cut]).is_err(), "cut at {cut}");
        }
        buf.push(0);
        assert!(decode_batch(&buf).is_err());
        assert!(decode_batch(&[0, 1, 0x33]).is_err());
    }
}
