//! Events: the built-in kinds the library understands, custom events it carries opaquely, and the
//! tick batch encoding that `Recorder::submit_tick` accepts (and the Java/C batch builders produce).
//!
//! Batch encoding of one tick: `u16 BE event count`, then that many events, each `kind: u8` + body.
//! All integers in bodies are varints (signed ones zigzag). Poses are absolute and quantised
//! (see [`crate::format::pose`]). Kinds `0x40..=0x7F` are reserved extension kinds whose body is
//! always `varint length + bytes`, so that a reader which does not know one skips it; the world
//! events (their bodies at the end of this file, their parts in [`crate::format::world`]) are the
//! first of them this build understands.

use crate::error::{Error, Result};
use crate::format::bytes::{ByteReader, put_ivarint, put_uvarint, unzigzag, uvarint_short};
use crate::format::pose::Pose;
use crate::format::world::{
    BlockPos, BlockState, MAX_BLOCK_ENTITY_BYTES, MAX_BLOCKS_PER_CHANGE, MAX_CHAT_BYTES, UseTarget,
    get_block_pos, get_blocks, get_hand, get_opt_entity, get_use_target, hand, put_block_pos,
    put_blocks, put_framed, put_opt_entity, put_use_target, world_kind,
};

/// Event kind bytes. Values are part of the format and never reused.
pub mod kind {
    /// An entity appeared.
    pub const ENTITY_ADD: u8 = 0x01;
    /// An entity disappeared.
    pub const ENTITY_REMOVE: u8 = 0x02;
    /// An entity's absolute pose.
    pub const POSE: u8 = 0x03;
    /// An entity's position (as written; readers see poses).
    pub const POSITION: u8 = 0x04;
    /// An entity's rotation (as written; readers see poses).
    pub const ROTATION: u8 = 0x05;
    /// A teleport.
    pub const TELEPORT: u8 = 0x06;
    /// An entity's flags.
    pub const FLAGS: u8 = 0x07;
    /// A checkpoint reached.
    pub const CHECKPOINT: u8 = 0x08;
    /// An entity's velocity.
    pub const VELOCITY: u8 = 0x09;
    /// A player left.
    pub const PLAYER_LEAVE: u8 = 0x0A;
    /// First reserved extension kind (length-prefixed, skippable).
    pub const EXTENSION_FIRST: u8 = 0x40;
    /// Last reserved extension kind.
    pub const EXTENSION_LAST: u8 = 0x7F;
    /// A custom event.
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

// ---- The world events' bodies (data version 3 on; FORMAT.md §8) ----

/// Checks what a caller submits in a world event beyond what its encoding bounds: text is UTF-8
/// (a `String` already is) and within [`MAX_CHAT_BYTES`], block-entity data and multi-block
/// changes within their limits, hands known.
pub fn check_limits(e: &Event) -> Result<()> {
    match e {
        Event::Chat { text, .. } if text.len() > MAX_CHAT_BYTES => Err(Error::invalid(format!(
            "a chat text of {} bytes; at most {MAX_CHAT_BYTES}",
            text.len()
        ))),
        Event::BlockChange {
            block_entity: Some(nbt),
            ..
        } if nbt.len() > MAX_BLOCK_ENTITY_BYTES => Err(Error::invalid(format!(
            "block-entity data of {} bytes; at most {MAX_BLOCK_ENTITY_BYTES}",
            nbt.len()
        ))),
        Event::BlockChanges { blocks, .. } if blocks.len() > MAX_BLOCKS_PER_CHANGE => {
            Err(Error::invalid(format!(
                "a change of {} blocks; at most {MAX_BLOCKS_PER_CHANGE}",
                blocks.len()
            )))
        }
        Event::BlockChanges { blocks, .. } if blocks.is_empty() => {
            Err(Error::invalid("a multi-block change of no block"))
        }
        Event::Swing { hand: h, .. } | Event::Use { hand: h, .. } if *h > hand::OFF => Err(
            Error::invalid(format!("hand {h}; 0 (main) or 1 (off hand)")),
        ),
        Event::CustomAt { data, .. } if data.len() > crate::format::MAX_CUSTOM_EVENT_BYTES => {
            Err(Error::invalid(format!(
                "a custom event of {} bytes; at most {}",
                data.len(),
                crate::format::MAX_CUSTOM_EVENT_BYTES
            )))
        }
        _ => Ok(()),
    }
}

/// The bodies of the world events inside their length frames (the kinds' dispatch and the frame
/// are [`Event::encode`]'s and [`Event::decode`]'s).
impl Event {
    /// The body of a world event, inside its length frame.
    pub(crate) fn encode_world_body(&self, out: &mut Vec<u8>) {
        match self {
            Event::BlockChange {
                pos,
                state,
                cause,
                block_entity,
            } => {
                put_block_pos(out, *pos);
                put_uvarint(out, u64::from(*state));
                put_opt_entity(out, *cause);
                match block_entity {
                    None => out.push(0),
                    Some(nbt) => {
                        out.push(1);
                        put_uvarint(out, nbt.len() as u64);
                        out.extend_from_slice(nbt);
                    }
                }
            }
            Event::BlockChanges { cause, blocks } => {
                put_opt_entity(out, *cause);
                put_blocks(out, blocks);
            }
            Event::Swing { entity, hand } => {
                put_uvarint(out, u64::from(*entity));
                out.push(*hand);
            }
            Event::Attack { attacker, target } => {
                put_uvarint(out, u64::from(*attacker));
                put_uvarint(out, u64::from(*target));
            }
            Event::Use {
                entity,
                hand,
                item,
                target,
            } => {
                put_uvarint(out, u64::from(*entity));
                out.push(*hand);
                put_uvarint(out, u64::from(*item));
                put_use_target(out, target);
            }
            Event::Damage {
                entity,
                amount,
                cause,
                source,
            } => {
                put_uvarint(out, u64::from(*entity));
                put_uvarint(out, u64::from(*amount));
                put_uvarint(out, u64::from(*cause));
                put_opt_entity(out, *source);
            }
            Event::Health { entity, health } => {
                put_uvarint(out, u64::from(*entity));
                put_uvarint(out, u64::from(*health));
            }
            Event::Equipment {
                entity,
                slot,
                item,
                count,
            } => {
                put_uvarint(out, u64::from(*entity));
                out.push(*slot);
                put_uvarint(out, u64::from(*item));
                put_uvarint(out, u64::from(*count));
            }
            Event::Chat {
                sender,
                channel,
                text,
            } => {
                put_opt_entity(out, *sender);
                put_uvarint(out, u64::from(*channel));
                put_uvarint(out, text.len() as u64);
                out.extend_from_slice(text.as_bytes());
            }
            Event::CustomAt {
                type_id,
                entity,
                position,
                data,
            } => {
                put_uvarint(out, u64::from(*type_id));
                put_opt_entity(out, *entity);
                match position {
                    None => out.push(0),
                    Some(p) => {
                        out.push(1);
                        for v in p.iter() {
                            put_ivarint(out, *v);
                        }
                    }
                }
                put_uvarint(out, data.len() as u64);
                out.extend_from_slice(data);
            }
            _ => unreachable!("not a world event"),
        }
    }

    /// Parses the body of world event `k` (the bytes inside its length frame), requiring that it
    /// is consumed exactly.
    pub(crate) fn decode_world_body(k: u8, body: &[u8]) -> Result<Event> {
        let mut r = ByteReader::new(body);
        let e = match k {
            world_kind::BLOCK_CHANGE => Event::BlockChange {
                pos: get_block_pos(&mut r)?,
                state: r.uvarint32()?,
                cause: get_opt_entity(&mut r)?,
                block_entity: match r.u8()? {
                    0 => None,
                    1 => {
                        let len = r.len_varint(MAX_BLOCK_ENTITY_BYTES, "block-entity data")?;
                        Some(r.bytes(len)?.to_vec())
                    }
                    t => return Err(Error::corrupt(format!("block-entity tag {t}"))),
                },
            },
            world_kind::BLOCK_CHANGES => {
                let cause = get_opt_entity(&mut r)?;
                let blocks = get_blocks(&mut r)?;
                if blocks.is_empty() {
                    return Err(Error::corrupt("a multi-block change of no block"));
                }
                Event::BlockChanges { cause, blocks }
            }
            world_kind::SWING => Event::Swing {
                entity: r.uvarint32()?,
                hand: get_hand(&mut r)?,
            },
            world_kind::ATTACK => Event::Attack {
                attacker: r.uvarint32()?,
                target: r.uvarint32()?,
            },
            world_kind::USE => Event::Use {
                entity: r.uvarint32()?,
                hand: get_hand(&mut r)?,
                item: r.uvarint32()?,
                target: get_use_target(&mut r)?,
            },
            world_kind::DAMAGE => Event::Damage {
                entity: r.uvarint32()?,
                amount: r.uvarint32()?,
                cause: r.uvarint32()?,
                source: get_opt_entity(&mut r)?,
            },
            world_kind::HEALTH => Event::Health {
                entity: r.uvarint32()?,
                health: r.uvarint32()?,
            },
            world_kind::EQUIPMENT => Event::Equipment {
                entity: r.uvarint32()?,
                slot: r.u8()?,
                item: r.uvarint32()?,
                count: r.uvarint32()?,
            },
            world_kind::CHAT => {
                let sender = get_opt_entity(&mut r)?;
                let channel = r.uvarint32()?;
                let len = r.len_varint(MAX_CHAT_BYTES, "chat text length")?;
                let text = std::str::from_utf8(r.bytes(len)?)
                    .map_err(|_| Error::corrupt("chat text is not UTF-8"))?
                    .to_owned();
                Event::Chat {
                    sender,
                    channel,
                    text,
                }
            }
            world_kind::CUSTOM_AT => {
                let type_id = r.uvarint32()?;
                let entity = get_opt_entity(&mut r)?;
                let position = match r.u8()? {
                    0 => None,
                    1 => Some(Box::new([r.ivarint()?, r.ivarint()?, r.ivarint()?])),
                    t => return Err(Error::corrupt(format!("position tag {t}"))),
                };
                let len = r.len_varint(MAX_CUSTOM_EVENT_BYTES, "custom event length")?;
                Event::CustomAt {
                    type_id,
                    entity,
                    position,
                    data: r.bytes(len)?.to_vec(),
                }
            }
            _ => unreachable!("not a world kind"),
        };
        if !r.is_empty() {
            return Err(Error::corrupt(format!(
                "event kind 0x{k:02x} has {} bytes after its fields",
                r.remaining()
            )));
        }
        Ok(e)
    }
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
        .chain(world_event_tests::world_events())
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

#[cfg(test)]
pub(crate) mod world_event_tests {
    use super::*;
    use crate::format::bytes::ByteReader;
    use crate::format::world::{channel, slot};

    /// One of each world event, with their optional parts both present and absent.
    pub(crate) fn world_events() -> Vec<Event> {
        let p = BlockPos::new(-30_000_000, -64, 29_999_999);
        vec![
            Event::BlockChange {
                pos: p,
                state: 27_000,
                cause: Some(7),
                block_entity: Some(vec![10, 0, 0, 0]),
            },
            Event::BlockChange {
                pos: BlockPos::new(1, 2, 3),
                state: 0,
                cause: None,
                block_entity: None,
            },
            Event::BlockChanges {
                cause: Some(u32::MAX),
                blocks: vec![
                    (BlockPos::new(16, 64, 16), 1),
                    (BlockPos::new(17, 64, 16), 1),
                    (p, 2),
                ],
            },
            Event::Swing {
                entity: 7,
                hand: hand::OFF,
            },
            Event::Attack {
                attacker: 7,
                target: 9,
            },
            Event::Use {
                entity: 7,
                hand: hand::MAIN,
                item: 812,
                target: UseTarget::Block(p),
            },
            Event::Use {
                entity: 7,
                hand: hand::MAIN,
                item: 0,
                target: UseTarget::Entity(9),
            },
            Event::Use {
                entity: 7,
                hand: hand::OFF,
                item: 3,
                target: UseTarget::Nothing,
            },
            Event::Damage {
                entity: 9,
                amount: 350,
                cause: 4,
                source: Some(7),
            },
            Event::Health {
                entity: 9,
                health: 1650,
            },
            Event::Equipment {
                entity: 7,
                slot: slot::HEAD,
                item: 900,
                count: 1,
            },
            Event::Chat {
                sender: Some(7),
                channel: channel::PUBLIC,
                text: "gg — ünïcödé 🎉".into(),
            },
            Event::Chat {
                sender: None,
                channel: channel::SYSTEM,
                text: String::new(),
            },
            Event::CustomAt {
                type_id: 1001,
                entity: None,
                position: Some(Box::new([-5, 64 * 4096, 1 << 40])),
                data: vec![0xAB; 200],
            },
            Event::CustomAt {
                type_id: 1001,
                entity: Some(0),
                position: None,
                data: vec![],
            },
        ]
    }

    #[test]
    fn an_event_stays_56_bytes() {
        // decoded batches and chunk records are vectors of events: world events must not make
        // every pose event larger
        assert_eq!(std::mem::size_of::<Event>(), 56);
    }

    #[test]
    fn world_events_are_opaque_extensions_before_data_version_3() {
        for e in world_events() {
            let mut buf = Vec::new();
            e.encode(&mut buf);
            let mut r = ByteReader::new(&buf);
            let old = Event::decode_version(&mut r, false).unwrap();
            assert!(r.is_empty());
            let Event::Extension { kind, .. } = &old else {
                panic!("{old:?}")
            };
            assert_eq!(*kind, e.kind());
            // the opaque body is exactly the world event's body
            let mut again = Vec::new();
            old.encode(&mut again);
            assert_eq!(again, buf);
            assert_eq!(decode_one(&buf).unwrap(), e);
        }
    }

    fn decode_one(buf: &[u8]) -> Result<Event> {
        let mut r = ByteReader::new(buf);
        let e = Event::decode(&mut r)?;
        if !r.is_empty() {
            return Err(Error::corrupt("trailing"));
        }
        Ok(e)
    }

    #[test]
    fn crafted_world_events_are_refused_with_what_is_wrong() {
        let framed = |k: u8, body: &[u8]| {
            let mut b = vec![k];
            put_uvarint(&mut b, body.len() as u64);
            b.extend_from_slice(body);
            b
        };
        let cases: &[(u8, &[u8], &str)] = &[
            // a field beyond the body's end
            (world_kind::ATTACK, &[7], "ends early"),
            // a byte after the last field
            (world_kind::ATTACK, &[7, 9, 0], "after its fields"),
            (world_kind::SWING, &[7, 2], "unknown hand"),
            (world_kind::USE, &[7, 0, 0, 3], "unknown use target"),
            (world_kind::CHAT, &[0, 0, 2, 0xC3, 0x28], "not utf-8"),
            (world_kind::BLOCK_CHANGES, &[0, 0], "no block"),
            // a coordinate beyond i32
            (
                world_kind::BLOCK_CHANGE,
                &[0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 0, 0],
                "32 bits",
            ),
            (
                world_kind::BLOCK_CHANGE,
                &[0, 0, 0, 0, 0, 2],
                "block-entity tag",
            ),
            (world_kind::CUSTOM_AT, &[1, 0, 5, 0], "position tag"),
        ];
        for (k, body, why) in cases {
            let e = decode_one(&framed(*k, body)).unwrap_err().to_string();
            assert!(e.to_lowercase().contains(why), "kind 0x{k:02x}: {e}");
        }
        // a chat text over the limit, however its length is claimed
        let mut body = vec![0, 0];
        put_uvarint(&mut body, MAX_CHAT_BYTES as u64 + 1);
        body.extend(std::iter::repeat_n(b'a', MAX_CHAT_BYTES + 1));
        let e = decode_one(&framed(world_kind::CHAT, &body)).unwrap_err();
        assert!(e.to_string().contains("exceeds limit"), "{e}");
        // a multi-block change claiming more blocks than it holds
        let mut body = vec![0];
        put_uvarint(&mut body, 1_000_000);
        assert!(decode_one(&framed(world_kind::BLOCK_CHANGES, &body)).is_err());
    }

    #[test]
    fn submitted_world_events_beyond_their_limits_are_refused() {
        use crate::format::encoder::validate_events;
        let big = |e: Event| validate_events(&[e]).unwrap_err().to_string();
        assert!(
            big(Event::Chat {
                sender: None,
                channel: 0,
                text: "a".repeat(MAX_CHAT_BYTES + 1)
            })
            .contains("chat text")
        );
        assert!(
            big(Event::BlockChange {
                pos: BlockPos::default(),
                state: 1,
                cause: None,
                block_entity: Some(vec![0; MAX_BLOCK_ENTITY_BYTES + 1]),
            })
            .contains("block-entity")
        );
        assert!(
            big(Event::BlockChanges {
                cause: None,
                blocks: vec![(BlockPos::default(), 1); MAX_BLOCKS_PER_CHANGE + 1],
            })
            .contains("blocks")
        );
        assert!(big(Event::Swing { entity: 1, hand: 2 }).contains("hand"));
        assert!(
            big(Event::Extension {
                kind: world_kind::CHAT,
                data: vec![],
            })
            .contains("world event")
        );
        assert!(validate_events(&world_events()).is_ok());
    }
}
