//! What world events are made of: block positions and states, use targets, hands, slots and chat
//! channels, the kinds' numbers, their limits and the pieces their bodies are written with. The
//! events themselves (block changes, swings, attacks, uses, damage, health, equipment, chat,
//! custom events at an entity or a position) and their bodies' coding are
//! [`crate::format::Event`]'s (`format/event.rs`), above this file.
//!
//! Each world event is a *built-in extension kind* (`0x40..`): its body is `varint length + bytes` like every
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

/// Kind bytes of the world events (inside the extension range, so that earlier readers skip them).
pub mod world_kind {
    /// A block changed.
    pub const BLOCK_CHANGE: u8 = 0x40;
    /// Many blocks changed at once.
    pub const BLOCK_CHANGES: u8 = 0x41;
    /// An entity swung a hand.
    pub const SWING: u8 = 0x42;
    /// An entity attacked another.
    pub const ATTACK: u8 = 0x43;
    /// An entity used an item.
    pub const USE: u8 = 0x44;
    /// An entity took damage.
    pub const DAMAGE: u8 = 0x45;
    /// An entity's health.
    pub const HEALTH: u8 = 0x46;
    /// An entity's equipment in a slot.
    pub const EQUIPMENT: u8 = 0x47;
    /// A chat line.
    pub const CHAT: u8 = 0x48;
    /// A custom event placed at an entity and/or a position.
    pub const CUSTOM_AT: u8 = 0x49;
    /// The last kind this build understands; `LAST + 1..=0x7F` stay opaque extensions.
    pub const LAST: u8 = CUSTOM_AT;
}

/// Which hand (swing, use).
pub mod hand {
    /// The main hand.
    pub const MAIN: u8 = 0;
    /// The off hand.
    pub const OFF: u8 = 1;
}

/// Equipment slots (the order Minecraft's `EquipmentSlot` uses); values above [`slot::BODY`] up
/// to 255 are the game's own.
pub mod slot {
    /// Main hand.
    pub const MAIN_HAND: u8 = 0;
    /// Off hand.
    pub const OFF_HAND: u8 = 1;
    /// Feet.
    pub const FEET: u8 = 2;
    /// Legs.
    pub const LEGS: u8 = 3;
    /// Chest.
    pub const CHEST: u8 = 4;
    /// Head.
    pub const HEAD: u8 = 5;
    /// Body (a horse's armour).
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
