//! World events: what players do to the world and to each other, beside how they move. Block
//! changes (one block, or many at once), swings, attacks, uses, damage, health, equipment and
//! chat, plus custom events placed at an entity or a position.
//!
//! Each is a *built-in extension kind* (`0x40..`): its body is `varint length + bytes` like every
//! extension, so a reader of an earlier data version skips it as an opaque
//! [`Event::Extension`](crate::format::Event::Extension), and this build parses it. Chunks holding
//! one have data version 3 or later; in chunks of earlier versions the same kind bytes stay opaque.
//!
//! Block states and items are small ids named by the recording's palette (metadata
//! `tickreel.palette`, [`crate::format::Palette`]), so a recording explains itself across game
//! versions. Amounts of health and damage are hundredths of a health point (a Minecraft heart is
//! 2 points: 200).

use crate::error::{Error, Result};
use crate::format::bytes::{ByteReader, put_ivarint, put_uvarint};
use crate::format::event::{Event, MAX_CUSTOM_EVENT_BYTES};

/// Kind bytes of the world events (inside the extension range, so that earlier readers skip them).
pub mod world_kind {
    pub const BLOCK_CHANGE: u8 = 0x40;
    pub const BLOCK_CHANGES: u8 = 0x41;
    pub const SWING: u8 = 0x42;
    pub const ATTACK: u8 = 0x43;
    pub const USE: u8 = 0x44;
    pub const DAMAGE: u8 = 0x45;
    pub const HEALTH: u8 = 0x46;
    pub const EQUIPMENT: u8 = 0x47;
    pub const CHAT: u8 = 0x48;
    pub const CUSTOM_AT: u8 = 0x49;
    /// The last kind this build understands; `LAST + 1..=0x7F` stay opaque extensions.
    pub const LAST: u8 = CUSTOM_AT;
}

/// Which hand (swing, use).
pub mod hand {
    pub const MAIN: u8 = 0;
    pub const OFF: u8 = 1;
}

/// Equipment slots (the order Minecraft's `EquipmentSlot` uses); values above [`slot::BODY`] up
/// to 255 are the game's own.
pub mod slot {
    pub const MAIN_HAND: u8 = 0;
    pub const OFF_HAND: u8 = 1;
    pub const FEET: u8 = 2;
    pub const LEGS: u8 = 3;
    pub const CHEST: u8 = 4;
    pub const HEAD: u8 = 5;
    pub const BODY: u8 = 6;
}

/// Chat channels the library understands (a report keeps only what its privacy rules allow);
/// values above [`channel::SYSTEM`] are the game's own and treated like [`channel::PRIVATE`].
pub mod channel {
    /// Public chat everyone on the server sees.
    pub const PUBLIC: u32 = 0;
    /// A message to one player or a few (whispers, party chat).
    pub const PRIVATE: u32 = 1;
    /// A team's chat.
    pub const TEAM: u32 = 2;
    /// A message of the server (deaths, joins, broadcasts).
    pub const SYSTEM: u32 = 3;
}

/// Largest block-entity NBT carried by one block change (bytes).
pub const MAX_BLOCK_ENTITY_BYTES: usize = 64 << 10;
/// Largest chat text (bytes of UTF-8).
pub const MAX_CHAT_BYTES: usize = 4 << 10;
/// Most blocks in one multi-block change (Minecraft's `/fill` limit).
pub const MAX_BLOCKS_PER_CHANGE: usize = 32_768;

/// A block's position in block coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct BlockPos {
    pub x: i32,
    pub y: i32,
    pub z: i32,
}

impl BlockPos {
    pub const fn new(x: i32, y: i32, z: i32) -> BlockPos {
        BlockPos { x, y, z }
    }
}

/// What a use aimed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UseTarget {
    /// Nothing (an item used in the air).
    #[default]
    Nothing,
    /// An entity (interacting with a villager, a mount).
    Entity(u32),
    /// A block (opening a door, placing against a face).
    Block(BlockPos),
}

/// One block of a multi-block change.
pub type BlockState = (BlockPos, u32);

pub(crate) fn put_block_pos(out: &mut Vec<u8>, p: BlockPos) {
    put_ivarint(out, i64::from(p.x));
    put_ivarint(out, i64::from(p.y));
    put_ivarint(out, i64::from(p.z));
}

pub(crate) fn get_block_pos(r: &mut ByteReader<'_>) -> Result<BlockPos> {
    Ok(BlockPos {
        x: get_i32(r)?,
        y: get_i32(r)?,
        z: get_i32(r)?,
    })
}

fn get_i32(r: &mut ByteReader<'_>) -> Result<i32> {
    let v = r.ivarint()?;
    i32::try_from(v).map_err(|_| Error::corrupt(format!("block coordinate {v} outside 32 bits")))
}

/// An optional entity as `varint (id + 1)`, 0 for none.
pub(crate) fn put_opt_entity(out: &mut Vec<u8>, e: Option<u32>) {
    put_uvarint(out, e.map_or(0, |e| u64::from(e) + 1));
}

pub(crate) fn get_opt_entity(r: &mut ByteReader<'_>) -> Result<Option<u32>> {
    match r.uvarint()? {
        0 => Ok(None),
        v => u32::try_from(v - 1)
            .map(Some)
            .map_err(|_| Error::corrupt(format!("entity id {} does not fit in 32 bits", v - 1))),
    }
}

pub(crate) fn put_use_target(out: &mut Vec<u8>, t: &UseTarget) {
    match *t {
        UseTarget::Nothing => out.push(0),
        UseTarget::Entity(e) => {
            out.push(1);
            put_uvarint(out, u64::from(e));
        }
        UseTarget::Block(p) => {
            out.push(2);
            put_block_pos(out, p);
        }
    }
}

pub(crate) fn get_use_target(r: &mut ByteReader<'_>) -> Result<UseTarget> {
    Ok(match r.u8()? {
        0 => UseTarget::Nothing,
        1 => UseTarget::Entity(r.uvarint32()?),
        2 => UseTarget::Block(get_block_pos(r)?),
        t => return Err(Error::corrupt(format!("unknown use target {t}"))),
    })
}

pub(crate) fn get_hand(r: &mut ByteReader<'_>) -> Result<u8> {
    match r.u8()? {
        h @ (hand::MAIN | hand::OFF) => Ok(h),
        h => Err(Error::corrupt(format!("unknown hand {h}"))),
    }
}

/// Positions of a multi-block change: the first absolute, each next one as the difference from
/// the one before (a section update or a fill is mostly +1 steps), each with its state.
pub(crate) fn put_blocks(out: &mut Vec<u8>, blocks: &[BlockState]) {
    put_uvarint(out, blocks.len() as u64);
    let mut prev = BlockPos::default();
    for &(p, state) in blocks {
        put_ivarint(out, i64::from(p.x) - i64::from(prev.x));
        put_ivarint(out, i64::from(p.y) - i64::from(prev.y));
        put_ivarint(out, i64::from(p.z) - i64::from(prev.z));
        put_uvarint(out, u64::from(state));
        prev = p;
    }
}

pub(crate) fn get_blocks(r: &mut ByteReader<'_>) -> Result<Vec<BlockState>> {
    // each block takes at least 4 bytes
    let n = r.len_varint(MAX_BLOCKS_PER_CHANGE.min(r.remaining() / 4), "block count")?;
    let mut out = Vec::with_capacity(n);
    let mut prev = [0i64; 3];
    for _ in 0..n {
        let mut c = [0i32; 3];
        for (k, v) in c.iter_mut().enumerate() {
            let d = r.ivarint()?;
            let abs = prev[k]
                .checked_add(d)
                .and_then(|a| i32::try_from(a).ok())
                .ok_or_else(|| Error::corrupt("block position outside 32 bits"))?;
            prev[k] = i64::from(abs);
            *v = abs;
        }
        out.push((BlockPos::new(c[0], c[1], c[2]), r.uvarint32()?));
    }
    Ok(out)
}

/// Appends `varint length + body` where `body` writes the body (one pass: the length is patched
/// in front once known).
pub(crate) fn put_framed(out: &mut Vec<u8>, body: impl FnOnce(&mut Vec<u8>)) {
    let at = out.len();
    out.push(0);
    body(out);
    let len = out.len() - at - 1;
    if len < 0x80 {
        out[at] = len as u8;
    } else {
        let mut prefix = Vec::with_capacity(4);
        put_uvarint(&mut prefix, len as u64);
        out.splice(at..at + 1, prefix);
    }
}

/// Checks what a caller submits in a world event beyond what its encoding bounds: text is UTF-8
/// (a `String` already is) and within [`MAX_CHAT_BYTES`], block-entity data and multi-block
/// changes within their limits, hands known.
pub fn check_limits(e: &crate::format::Event) -> Result<()> {
    use crate::format::Event;
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
pub(crate) mod tests {
    use super::*;
    use crate::format::bytes::ByteReader;

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
