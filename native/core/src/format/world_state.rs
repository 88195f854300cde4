//! The world at a tick, as the library keeps it itself: the absolute set of edited blocks
//! (position to block-state id, with the block entity's NBT where one was given), and each
//! entity's equipment (slot to item and count) and health. Built by applying world events in
//! order ([`WorldState::apply`]); written by the chunk encoder into every snapshot chunk (the
//! *world section*, see [`crate::format::chunk`]) so that a seek starts from the nearest snapshot
//! instead of the recording's start. Pure data: no I/O.
//!
//! "Not edited" (`None`) is a block no world event touched: the world as the game had it before
//! the recording, which the library does not know from events.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::format::Limits;
use crate::format::bytes::{ByteReader, put_ivarint, put_uvarint};
use crate::format::event::Event;
use crate::format::world::{BlockPos, MAX_BLOCK_ENTITY_BYTES};

/// What an entity has in one equipment slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Item {
    /// An id of the item palette.
    pub item: u32,
    /// At least 1 (an `Equipment` event with count 0 or item 0 empties the slot).
    pub count: u32,
}

/// The world state of one entity: health (hundredths of a health point) if a `Health` event
/// gave one, and its non-empty equipment slots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntityWorld {
    pub health: Option<u32>,
    /// Sorted by slot.
    pub equipment: Vec<(u8, Item)>,
}

impl EntityWorld {
    /// What the entity has in `slot`.
    pub fn slot(&self, slot: u8) -> Option<Item> {
        self.equipment
            .binary_search_by_key(&slot, |e| e.0)
            .ok()
            .map(|i| self.equipment[i].1)
    }

    fn set_slot(&mut self, slot: u8, item: Option<Item>) {
        match (self.equipment.binary_search_by_key(&slot, |e| e.0), item) {
            (Ok(i), Some(it)) => self.equipment[i].1 = it,
            (Ok(i), None) => {
                self.equipment.remove(i);
            }
            (Err(i), Some(it)) => self.equipment.insert(i, (slot, it)),
            (Err(_), None) => {}
        }
    }

    fn is_empty(&self) -> bool {
        self.health.is_none() && self.equipment.is_empty()
    }
}

/// One change of the world, as a playhead update reports it: what was before (so that playing
/// backward restores it) and what is now. `None` is "not edited" for a block, "none" for health,
/// "empty" for a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorldChange {
    /// A block's state or its block entity changed (the block entity, if any, is
    /// [`WorldState::block_entity`] of the world after the update).
    Block {
        pos: BlockPos,
        before: Option<u32>,
        after: Option<u32>,
    },
    /// An entity's health changed.
    Health {
        entity: u32,
        before: Option<u32>,
        after: Option<u32>,
    },
    /// What an entity has in an equipment slot changed.
    Equipment {
        entity: u32,
        slot: u8,
        before: Option<Item>,
        after: Option<Item>,
    },
}

/// The world at one tick. See the [module documentation](self).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorldState {
    blocks: FxHashMap<BlockPos, u32>,
    block_entities: FxHashMap<BlockPos, Arc<[u8]>>,
    entities: BTreeMap<u32, EntityWorld>,
}

impl WorldState {
    pub fn new() -> WorldState {
        WorldState::default()
    }

    /// The state id of the block at `pos`, `None` if no event edited it.
    #[inline]
    pub fn block(&self, pos: BlockPos) -> Option<u32> {
        self.blocks.get(&pos).copied()
    }
    /// The block entity NBT of the block at `pos`, if its last change gave one.
    pub fn block_entity(&self, pos: BlockPos) -> Option<&[u8]> {
        self.block_entities.get(&pos).map(|b| &b[..])
    }
    /// Every edited block with its state, in no particular order.
    pub fn blocks(&self) -> impl ExactSizeIterator<Item = (BlockPos, u32)> + '_ {
        self.blocks.iter().map(|(&p, &s)| (p, s))
    }
    /// Every edited block with its state, sorted by position (x, then y, then z).
    pub fn sorted_blocks(&self) -> Vec<(BlockPos, u32)> {
        let mut v: Vec<_> = self.blocks().collect();
        v.sort_unstable_by_key(|b| b.0);
        v
    }
    /// Every block entity, in no particular order.
    pub fn block_entities(&self) -> impl ExactSizeIterator<Item = (BlockPos, &[u8])> + '_ {
        self.block_entities.iter().map(|(&p, b)| (p, &b[..]))
    }
    /// Edited blocks.
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }
    /// The world state of entity `id` (health, equipment), if it has any.
    pub fn entity(&self, id: u32) -> Option<&EntityWorld> {
        self.entities.get(&id)
    }
    /// Every entity with a health or equipment, by id.
    pub fn entities(&self) -> impl Iterator<Item = (u32, &EntityWorld)> + '_ {
        self.entities.iter().map(|(&id, e)| (id, e))
    }
    /// Nothing edited, no entity with health or equipment.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty() && self.block_entities.is_empty() && self.entities.is_empty()
    }
    /// Rough heap size (cache accounting).
    pub fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * 20
            + self
                .block_entities
                .values()
                .map(|b| b.len() + 40)
                .sum::<usize>()
            + self
                .entities
                .values()
                .map(|e| 48 + e.equipment.capacity() * 12)
                .sum::<usize>()
    }

    /// Applies one event (events that change no world state are ignored).
    pub fn apply(&mut self, e: &Event) {
        self.apply_with(e, |_| {});
    }

    /// Applies one event, telling `changed` every change it makes (a block set to the state and
    /// block entity it has is no change).
    pub fn apply_with(&mut self, e: &Event, mut changed: impl FnMut(WorldChange)) {
        match e {
            Event::BlockChange {
                pos,
                state,
                block_entity,
                ..
            } => {
                let nbt = block_entity.as_deref().map(Arc::from);
                self.set_block(*pos, Some(*state), nbt, &mut changed);
            }
            Event::BlockChanges { blocks, .. } => {
                for &(pos, state) in blocks {
                    self.set_block(pos, Some(state), None, &mut changed);
                }
            }
            Event::Health { entity, health } => {
                self.set_health(*entity, Some(*health), &mut changed);
            }
            Event::Equipment {
                entity,
                slot,
                item,
                count,
            } => {
                let it = (*item != 0 && *count != 0).then_some(Item {
                    item: *item,
                    count: *count,
                });
                self.set_equipment(*entity, *slot, it, &mut changed);
            }
            // An entity that leaves takes its health and equipment with it (an id used again
            // starts without any).
            Event::EntityRemove { entity } | Event::PlayerLeave { entity } => {
                if let Some(old) = self.entities.remove(entity) {
                    if old.health.is_some() {
                        changed(WorldChange::Health {
                            entity: *entity,
                            before: old.health,
                            after: None,
                        });
                    }
                    for (slot, it) in old.equipment {
                        changed(WorldChange::Equipment {
                            entity: *entity,
                            slot,
                            before: Some(it),
                            after: None,
                        });
                    }
                }
            }
            _ => {}
        }
    }

    /// Sets the block at `pos` (`None`: not edited) and its block entity.
    pub(crate) fn set_block(
        &mut self,
        pos: BlockPos,
        state: Option<u32>,
        nbt: Option<Arc<[u8]>>,
        changed: &mut impl FnMut(WorldChange),
    ) {
        let before = match state {
            Some(s) => self.blocks.insert(pos, s),
            None => self.blocks.remove(&pos),
        };
        let nbt_before = match nbt {
            Some(b) => self.block_entities.insert(pos, b),
            None => self.block_entities.remove(&pos),
        };
        let nbt_changed = match (&nbt_before, self.block_entities.get(&pos)) {
            (None, None) => false,
            (Some(a), Some(b)) => a[..] != b[..],
            _ => true,
        };
        if before != state || nbt_changed {
            changed(WorldChange::Block {
                pos,
                before,
                after: state,
            });
        }
    }

    pub(crate) fn set_health(
        &mut self,
        entity: u32,
        health: Option<u32>,
        changed: &mut impl FnMut(WorldChange),
    ) {
        let e = self.entities.entry(entity).or_default();
        let before = std::mem::replace(&mut e.health, health);
        if e.is_empty() {
            self.entities.remove(&entity);
        }
        if before != health {
            changed(WorldChange::Health {
                entity,
                before,
                after: health,
            });
        }
    }

    pub(crate) fn set_equipment(
        &mut self,
        entity: u32,
        slot: u8,
        item: Option<Item>,
        changed: &mut impl FnMut(WorldChange),
    ) {
        let e = self.entities.entry(entity).or_default();
        let before = e.slot(slot);
        e.set_slot(slot, item);
        if e.is_empty() {
            self.entities.remove(&entity);
        }
        if before != item {
            changed(WorldChange::Equipment {
                entity,
                slot,
                before,
                after: item,
            });
        }
    }

    /// Positions of every block edited or carrying a block entity (with repeats).
    pub(crate) fn positions(&self) -> impl Iterator<Item = BlockPos> + '_ {
        self.blocks
            .keys()
            .chain(self.block_entities.keys())
            .copied()
    }

    /// The block at `pos` with its block entity.
    pub(crate) fn block_with_entity(&self, pos: BlockPos) -> (Option<u32>, Option<&Arc<[u8]>>) {
        (
            self.blocks.get(&pos).copied(),
            self.block_entities.get(&pos),
        )
    }

    /// Replaces the entity part (health, equipment) with `entities`, telling `changed` every
    /// difference.
    pub(crate) fn replace_entities(
        &mut self,
        entities: BTreeMap<u32, EntityWorld>,
        changed: &mut impl FnMut(WorldChange),
    ) {
        let old = std::mem::replace(&mut self.entities, entities);
        let empty = EntityWorld::default();
        let ids: std::collections::BTreeSet<u32> =
            old.keys().chain(self.entities.keys()).copied().collect();
        for id in ids {
            let a = old.get(&id).unwrap_or(&empty);
            let b = self.entities.get(&id).unwrap_or(&empty);
            if a.health != b.health {
                changed(WorldChange::Health {
                    entity: id,
                    before: a.health,
                    after: b.health,
                });
            }
            let slots: std::collections::BTreeSet<u8> = a
                .equipment
                .iter()
                .chain(&b.equipment)
                .map(|e| e.0)
                .collect();
            for s in slots {
                let (x, y) = (a.slot(s), b.slot(s));
                if x != y {
                    changed(WorldChange::Equipment {
                        entity: id,
                        slot: s,
                        before: x,
                        after: y,
                    });
                }
            }
        }
    }

    /// A world of this one's entity part only (health, equipment), without blocks.
    pub(crate) fn entities_only(&self) -> WorldState {
        WorldState {
            entities: self.entities.clone(),
            ..WorldState::default()
        }
    }

    /// Takes the entity part out.
    pub(crate) fn take_entities(&mut self) -> BTreeMap<u32, EntityWorld> {
        std::mem::take(&mut self.entities)
    }

    // ----- the world section of a snapshot chunk -----

    /// Writes the world section's body (FORMAT.md: the world section):
    ///
    /// ```text
    /// varint n                       edited blocks, sorted by (x, y, z)
    ///   n × { ivarint dx, ivarint dy, ivarint dz, varint state }
    ///                                position as the difference from the previous block's
    ///                                (the first from 0, 0, 0)
    /// varint m                       block entities, sorted by (x, y, z)
    ///   m × { ivarint dx, ivarint dy, ivarint dz, varint len, len bytes of NBT }
    /// varint k                       entities with health or equipment, by id
    ///   k × { varint id (the first absolute, then the difference from the previous, ≥ 1),
    ///         varint health + 1 (0: none),
    ///         varint slot count s, s × { u8 slot (increasing), varint item (≥ 1),
    ///                                    varint count (≥ 1) } }
    /// ```
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let blocks = self.sorted_blocks();
        put_uvarint(out, blocks.len() as u64);
        let mut prev = BlockPos::default();
        for (p, s) in blocks {
            put_delta(out, prev, p);
            put_uvarint(out, u64::from(s));
            prev = p;
        }
        let mut bes: Vec<_> = self.block_entities().collect();
        bes.sort_unstable_by_key(|b| b.0);
        put_uvarint(out, bes.len() as u64);
        let mut prev = BlockPos::default();
        for (p, nbt) in bes {
            put_delta(out, prev, p);
            put_uvarint(out, nbt.len() as u64);
            out.extend_from_slice(nbt);
            prev = p;
        }
        put_uvarint(out, self.entities.len() as u64);
        let mut prev = 0u32;
        for (i, (&id, e)) in self.entities.iter().enumerate() {
            put_uvarint(out, u64::from(if i == 0 { id } else { id - prev }));
            prev = id;
            put_uvarint(out, e.health.map_or(0, |h| u64::from(h) + 1));
            put_uvarint(out, e.equipment.len() as u64);
            for &(slot, it) in &e.equipment {
                out.push(slot);
                put_uvarint(out, u64::from(it.item));
                put_uvarint(out, u64::from(it.count));
            }
        }
    }

    /// Reads a world section's body (all of `bytes`), refusing what [`WorldState::encode`]
    /// never writes (positions out of order or repeated, ids not increasing, empty slots, bytes
    /// left over) and anything over `limits` ([`Limits::max_world_blocks`],
    /// [`Limits::max_alive_entities`], [`MAX_BLOCK_ENTITY_BYTES`]) before allocating for it.
    pub(crate) fn decode(bytes: &[u8], limits: &Limits) -> Result<WorldState> {
        let mut r = ByteReader::new(bytes);
        let mut w = WorldState::default();
        // each block takes at least 4 bytes
        let n = r.len_varint(r.remaining() / 4, "world block count")?;
        if n > limits.max_world_blocks() {
            return Err(Error::limit(format!(
                "a world section of {n} edited blocks; limit {}",
                limits.max_world_blocks()
            )));
        }
        w.blocks.reserve(n);
        let mut prev = None;
        for _ in 0..n {
            let p = get_delta(&mut r, &mut prev, "edited block")?;
            w.blocks.insert(p, r.uvarint32()?);
        }
        // each block entity takes at least 4 bytes
        let m = r.len_varint(r.remaining() / 4, "world block entity count")?;
        if m > limits.max_world_blocks() {
            return Err(Error::limit(format!(
                "a world section of {m} block entities; limit {}",
                limits.max_world_blocks()
            )));
        }
        let mut prev = None;
        for _ in 0..m {
            let p = get_delta(&mut r, &mut prev, "block entity")?;
            let len = r.len_varint(MAX_BLOCK_ENTITY_BYTES, "block entity length")?;
            w.block_entities.insert(p, Arc::from(r.bytes(len)?));
        }
        // each entity takes at least 3 bytes
        let k = r.len_varint(r.remaining() / 3, "world entity count")?;
        if k > limits.max_alive_entities() {
            return Err(Error::limit(format!(
                "a world section of {k} entities; limit {}",
                limits.max_alive_entities()
            )));
        }
        let mut id = 0u32;
        for i in 0..k {
            let d = r.uvarint32()?;
            id = if i == 0 {
                d
            } else if d == 0 {
                return Err(Error::corrupt("world section: entity ids not increasing"));
            } else {
                id.checked_add(d)
                    .ok_or_else(|| Error::corrupt("world section: entity id past 2^32 - 1"))?
            };
            let health = match r.uvarint()? {
                0 => None,
                h => Some(u32::try_from(h - 1).map_err(|_| {
                    Error::corrupt(format!("world section: health {} past 32 bits", h - 1))
                })?),
            };
            // each slot takes at least 3 bytes; at most 256 slots
            let s = r.len_varint(256.min(r.remaining() / 3), "equipment slot count")?;
            let mut equipment = Vec::with_capacity(s);
            for _ in 0..s {
                let slot = r.u8()?;
                let item = r.uvarint32()?;
                let count = r.uvarint32()?;
                if item == 0 || count == 0 {
                    return Err(Error::corrupt(format!(
                        "world section: entity {id} has an empty slot {slot} listed"
                    )));
                }
                if equipment.last().is_some_and(|&(l, _)| l >= slot) {
                    return Err(Error::corrupt(format!(
                        "world section: entity {id}'s slots not increasing"
                    )));
                }
                equipment.push((slot, Item { item, count }));
            }
            let e = EntityWorld { health, equipment };
            if e.is_empty() {
                return Err(Error::corrupt(format!(
                    "world section: entity {id} listed with no health and no equipment"
                )));
            }
            w.entities.insert(id, e);
        }
        if !r.is_empty() {
            return Err(Error::corrupt(format!(
                "world section has {} trailing bytes",
                r.remaining()
            )));
        }
        Ok(w)
    }
}

fn put_delta(out: &mut Vec<u8>, prev: BlockPos, p: BlockPos) {
    put_ivarint(out, i64::from(p.x) - i64::from(prev.x));
    put_ivarint(out, i64::from(p.y) - i64::from(prev.y));
    put_ivarint(out, i64::from(p.z) - i64::from(prev.z));
}

/// The next position of a sorted list; `prev` is the previous one (`None` before the first).
fn get_delta(r: &mut ByteReader<'_>, prev: &mut Option<BlockPos>, what: &str) -> Result<BlockPos> {
    let base = prev.unwrap_or_default();
    let mut c = [0i32; 3];
    for (k, v) in c.iter_mut().enumerate() {
        let b = [base.x, base.y, base.z][k];
        let d = r.ivarint()?;
        *v = i64::from(b)
            .checked_add(d)
            .and_then(|a| i32::try_from(a).ok())
            .ok_or_else(|| Error::corrupt(format!("world section: {what} outside 32 bits")))?;
    }
    let p = BlockPos::new(c[0], c[1], c[2]);
    if prev.is_some_and(|q| q >= p) {
        return Err(Error::corrupt(format!(
            "world section: {what} positions not increasing"
        )));
    }
    *prev = Some(p);
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bc(x: i32, y: i32, z: i32, state: u32) -> Event {
        Event::BlockChange {
            pos: BlockPos::new(x, y, z),
            state,
            cause: None,
            block_entity: None,
        }
    }

    fn sample() -> WorldState {
        let mut w = WorldState::new();
        w.apply(&bc(5, 64, -3, 1));
        w.apply(&bc(-7, 70, 2, 9));
        w.apply(&Event::BlockChange {
            pos: BlockPos::new(1, 2, 3),
            state: 4,
            cause: Some(1),
            block_entity: Some(vec![10, 0, 0, 0]),
        });
        w.apply(&Event::BlockChanges {
            cause: None,
            blocks: vec![(BlockPos::new(0, 0, 0), 3), (BlockPos::new(0, 0, 1), 3)],
        });
        w.apply(&Event::Health {
            entity: 7,
            health: 2000,
        });
        w.apply(&Event::Equipment {
            entity: 7,
            slot: 5,
            item: 12,
            count: 1,
        });
        w.apply(&Event::Equipment {
            entity: 3,
            slot: 0,
            item: 2,
            count: 64,
        });
        w
    }

    #[test]
    fn events_build_the_world_and_report_each_change_with_what_was_before() {
        let mut w = sample();
        assert_eq!(w.block(BlockPos::new(5, 64, -3)), Some(1));
        assert_eq!(
            w.block_entity(BlockPos::new(1, 2, 3)),
            Some(&[10, 0, 0, 0][..])
        );
        assert_eq!(w.entity(7).unwrap().health, Some(2000));
        let mut ch = Vec::new();
        w.apply_with(&bc(5, 64, -3, 2), |c| ch.push(c));
        w.apply_with(&bc(5, 64, -3, 2), |c| ch.push(c));
        // a block change without block entity data removes the block entity: a change of the
        // block even with the same state
        w.apply_with(&bc(1, 2, 3, 4), |c| ch.push(c));
        assert_eq!(w.block_entity(BlockPos::new(1, 2, 3)), None);
        w.apply_with(
            &Event::Equipment {
                entity: 3,
                slot: 0,
                item: 0,
                count: 0,
            },
            |c| ch.push(c),
        );
        w.apply_with(&Event::EntityRemove { entity: 7 }, |c| ch.push(c));
        assert_eq!(
            ch,
            vec![
                WorldChange::Block {
                    pos: BlockPos::new(5, 64, -3),
                    before: Some(1),
                    after: Some(2)
                },
                WorldChange::Block {
                    pos: BlockPos::new(1, 2, 3),
                    before: Some(4),
                    after: Some(4)
                },
                WorldChange::Equipment {
                    entity: 3,
                    slot: 0,
                    before: Some(Item { item: 2, count: 64 }),
                    after: None
                },
                WorldChange::Health {
                    entity: 7,
                    before: Some(2000),
                    after: None
                },
                WorldChange::Equipment {
                    entity: 7,
                    slot: 5,
                    before: Some(Item { item: 12, count: 1 }),
                    after: None
                },
            ]
        );
        assert!(w.entity(7).is_none() && w.entity(3).is_none());
    }

    #[test]
    fn the_world_section_round_trips() {
        let w = sample();
        let mut out = Vec::new();
        w.encode(&mut out);
        assert_eq!(WorldState::decode(&out, &Limits::default()).unwrap(), w);
        let mut empty = Vec::new();
        WorldState::new().encode(&mut empty);
        assert_eq!(empty, [0, 0, 0]);
        assert!(
            WorldState::decode(&empty, &Limits::default())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn crafted_world_sections_are_refused() {
        let lim = Limits::default();
        let mut ok = Vec::new();
        sample().encode(&mut ok);
        // trailing bytes, truncation
        let mut t = ok.clone();
        t.push(0);
        assert!(WorldState::decode(&t, &lim).is_err());
        for cut in 0..ok.len() {
            assert!(WorldState::decode(&ok[..cut], &lim).is_err(), "cut {cut}");
        }
        // a block count far beyond the bytes
        let mut big = Vec::new();
        put_uvarint(&mut big, u64::from(u32::MAX));
        assert!(WorldState::decode(&big, &lim).is_err());
        // a block count over the limit, with the bytes to back it
        let small = Limits {
            max_chunk_bytes: 64 * 64,
            ..Limits::default()
        };
        assert_eq!(small.max_world_blocks(), 64);
        let mut w = WorldState::new();
        for x in 0..65 {
            w.apply(&bc(x, 0, 0, 1));
        }
        let mut out = Vec::new();
        w.encode(&mut out);
        let err = WorldState::decode(&out, &small).unwrap_err();
        assert!(matches!(err, Error::LimitExceeded(_)), "{err}");
        assert!(WorldState::decode(&out, &lim).is_ok());
        // the same position twice (a zero step after the first)
        let mut dup = Vec::new();
        put_uvarint(&mut dup, 2);
        for _ in 0..2 {
            put_ivarint(&mut dup, 0);
            put_ivarint(&mut dup, 0);
            put_ivarint(&mut dup, 0);
            put_uvarint(&mut dup, 1);
        }
        dup.extend_from_slice(&[0, 0]);
        let err = WorldState::decode(&dup, &lim).unwrap_err();
        assert!(err.to_string().contains("not increasing"), "{err}");
        // a position outside 32 bits
        let mut far = Vec::new();
        put_uvarint(&mut far, 1);
        put_ivarint(&mut far, i64::from(i32::MAX) + 1);
        put_ivarint(&mut far, 0);
        put_ivarint(&mut far, 0);
        put_uvarint(&mut far, 1);
        far.extend_from_slice(&[0, 0]);
        assert!(WorldState::decode(&far, &lim).is_err());
        // an empty slot listed
        let mut slot = vec![0, 0, 1, 7, 0, 1, 0, 0, 1];
        assert!(WorldState::decode(&slot, &lim).is_err());
        slot[7] = 1; // item 1, count 1: valid
        assert!(WorldState::decode(&slot, &lim).is_ok());
        // a block entity over its limit
        let mut nbt = vec![0, 1, 0, 0, 0];
        put_uvarint(&mut nbt, (MAX_BLOCK_ENTITY_BYTES + 1) as u64);
        nbt.extend(std::iter::repeat_n(0, MAX_BLOCK_ENTITY_BYTES + 1));
        nbt.push(0);
        assert!(WorldState::decode(&nbt, &lim).is_err());
    }
}
