//! The world at a tick, as the library keeps it itself: the absolute set of edited blocks
//! (position to block-state id, with the block entity's NBT where one was given), and each
//! entity's equipment (slot to item and count) and health. Built by applying world events in
//! order ([`WorldState::apply`]); written by the chunk encoder into every snapshot chunk (the
//! *world section*, see [`crate::format::chunk`] and [`section`]) so that a seek starts from the nearest snapshot
//! instead of the recording's start. Pure data: no I/O.
//!
//! "Not edited" (`None`) is a block no world event touched: the world as the game had it before
//! the recording, which the library does not know from events.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use crate::format::event::Event;
use crate::format::world::BlockPos;

mod changes; // the changes between two worlds (what a jump reports)
mod delta; // a delta world section's world: the changes since a keyframe, put on it
mod lazy; // the sorted lists as a section stores them, decoded on first use
mod section; // the world section of snapshot chunks: the bytes of a world
use changes::merge_sorted;
pub use delta::WorldDelta;
use lazy::{DeltaList, KeyList};
pub use section::WorldSection;

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
///
/// The edited blocks are a sorted list (`base`, shared with the decoded snapshot chunk whose world
/// section it came from, so that a seek copies nothing), the changes a delta section made on it
/// (`delta`, a second sorted list, shared likewise) and the changes made since (`overlay`): a
/// seek's world is its snapshot's lists plus the few changes after it, and two worlds compare by
/// merging their sorted lists instead of hashing every block. The lists of a section of data
/// version 9 are decoded on first use ([`lazy`]): a seek puts the events after its snapshot into
/// the overlay as the states they set, without looking at the lists, and the block count is
/// settled when they are first read.
#[derive(Debug, Clone)]
pub struct WorldState {
    /// Edited blocks, sorted by position, without repeats.
    base: Arc<KeyList>,
    /// Changes on `base` (a delta section's), sorted by position.
    delta: Option<Arc<DeltaList>>,
    /// Changes since `base` and `delta`: a state, or `None` for "not edited". A writer's world
    /// (whose lists are always decoded) has no entry where the state is the lists' own; a
    /// rebuild onto lists not decoded yet may.
    overlay: FxHashMap<BlockPos, Option<u32>>,
    /// Edited blocks: unset after a rebuild onto lists not decoded yet, until first asked.
    count: OnceLock<usize>,
    block_entities: FxHashMap<BlockPos, Arc<[u8]>>,
    entities: BTreeMap<u32, EntityWorld>,
}

impl Default for WorldState {
    fn default() -> WorldState {
        WorldState {
            base: Arc::default(),
            delta: None,
            overlay: FxHashMap::default(),
            count: OnceLock::from(0),
            block_entities: FxHashMap::default(),
            entities: BTreeMap::new(),
        }
    }
}

impl PartialEq for WorldState {
    fn eq(&self, o: &WorldState) -> bool {
        self.block_count() == o.block_count()
            && self.block_entities == o.block_entities
            && self.entities == o.entities
            && self.sorted_view()[..] == o.sorted_view()[..]
    }
}

impl Eq for WorldState {}

/// Every edited block of a [`WorldState`], in no particular order.
struct Blocks<'a> {
    layers: Cow<'a, [(BlockPos, u32)]>,
    at: usize,
    overlay: std::collections::hash_map::Iter<'a, BlockPos, Option<u32>>,
    has_overlay: bool,
    left: usize,
    w: &'a WorldState,
}

impl Iterator for Blocks<'_> {
    type Item = (BlockPos, u32);

    fn next(&mut self) -> Option<(BlockPos, u32)> {
        while let Some(&(p, s)) = self.layers.get(self.at) {
            self.at += 1;
            if !self.has_overlay || !self.w.overlay.contains_key(&p) {
                self.left = self.left.saturating_sub(1);
                return Some((p, s));
            }
        }
        for (&p, s) in self.overlay.by_ref() {
            if let Some(s) = *s {
                self.left = self.left.saturating_sub(1);
                return Some((p, s));
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Blocks<'_> {}

/// The heap a hash map of `capacity` entries of `entry` bytes takes: its buckets (a power of two
/// at least 8/7 of the capacity) of an entry and a control byte each.
fn table_bytes(capacity: usize, entry: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    let buckets = if capacity < 8 {
        (capacity + 1).next_power_of_two()
    } else {
        (capacity * 8 / 7).next_power_of_two()
    };
    buckets * (entry + 1) + 16
}

/// The heap of a world's block entities and entities (a [`WorldState`]'s or a [`WorldDelta`]'s):
/// the block entities' table (position and shared bytes a bucket) and their bytes (each behind
/// its two counts), the entities' B-tree (about 72 bytes an entity: leaves of up to 11 entries
/// of 36 bytes, about half full when built in order) and their equipment.
fn rest_heap_bytes(
    block_entities: &FxHashMap<BlockPos, Arc<[u8]>>,
    entities: &BTreeMap<u32, EntityWorld>,
) -> usize {
    table_bytes(
        block_entities.capacity(),
        std::mem::size_of::<(BlockPos, Arc<[u8]>)>(),
    ) + block_entities
        .values()
        .map(|b| 16 + b.len().next_multiple_of(8))
        .sum::<usize>()
        + entities
            .values()
            .map(|e| 72 + e.equipment.capacity() * std::mem::size_of::<(u8, Item)>())
            .sum::<usize>()
}

/// The state at `pos` in a sorted list.
#[inline]
fn lookup(list: &[(BlockPos, u32)], pos: BlockPos) -> Option<u32> {
    list.binary_search_by_key(&pos, |b| b.0)
        .ok()
        .map(|i| list[i].1)
}

impl WorldState {
    pub fn new() -> WorldState {
        WorldState::default()
    }

    /// The state id of the block at `pos`, `None` if no event edited it.
    #[inline]
    pub fn block(&self, pos: BlockPos) -> Option<u32> {
        if !self.overlay.is_empty()
            && let Some(&s) = self.overlay.get(&pos)
        {
            return s;
        }
        self.layer_state(pos)
    }
    /// The state at `pos` in the sorted lists (the delta's change, else the keyframe's).
    #[inline]
    fn layer_state(&self, pos: BlockPos) -> Option<u32> {
        if let Some(d) = &self.delta {
            let list = d.get(&self.base);
            if let Ok(i) = list.binary_search_by_key(&pos, |b| b.0) {
                return list[i].1;
            }
        }
        lookup(self.base.get(), pos)
    }
    /// Whether the sorted lists are decoded (a seek's world may hold lists not read yet).
    fn layers_decoded(&self) -> bool {
        self.base.is_decoded() && self.delta.as_ref().is_none_or(|d| d.is_decoded())
    }
    /// Why the decode of this world's stored lists was refused, once a read decoded them (a
    /// crafted file whose lists pass the chunk's checksum but that no writer writes): the world
    /// then holds what the rest of its sources say (the refused list reads as empty) and is
    /// not complete. `None` before the lists are read, and for every world a writer wrote.
    pub fn decode_error(&self) -> Option<&crate::Error> {
        self.base
            .error()
            .or_else(|| self.delta.as_ref().and_then(|d| d.error()))
    }
    /// Decodes this world's stored lists now if they are not yet, and says why their decode was
    /// refused if it was ([`WorldState::decode_error`]): what `verify` and compaction ask of
    /// every world they read, so that a file they accept has no list a reader refuses.
    pub fn read_lists(&self) -> crate::Result<()> {
        self.base.get();
        if let Some(d) = &self.delta {
            d.get(&self.base);
        }
        match self.decode_error() {
            None => Ok(()),
            Some(crate::Error::LimitExceeded(m)) => Err(crate::Error::limit(m.clone())),
            Some(crate::Error::Corrupt(m)) => Err(crate::Error::corrupt(m.clone())),
            Some(e) => Err(crate::Error::corrupt(e.to_string())),
        }
    }
    /// The block entity NBT of the block at `pos`, if its last change gave one.
    pub fn block_entity(&self, pos: BlockPos) -> Option<&[u8]> {
        self.block_entities.get(&pos).map(|b| &b[..])
    }
    /// Every edited block with its state, in no particular order.
    pub fn blocks(&self) -> impl ExactSizeIterator<Item = (BlockPos, u32)> + '_ {
        let layers = self.layers();
        Blocks {
            layers,
            at: 0,
            overlay: self.overlay.iter(),
            has_overlay: !self.overlay.is_empty(),
            left: self.block_count(),
            w: self,
        }
    }
    /// Every edited block with its state, sorted by position (x, then y, then z).
    pub fn sorted_blocks(&self) -> Vec<(BlockPos, u32)> {
        self.sorted_view().into_owned()
    }
    /// The sorted lists merged: the keyframe's list itself without a delta.
    fn layers(&self) -> Cow<'_, [(BlockPos, u32)]> {
        match &self.delta {
            None => Cow::Borrowed(self.base.get()),
            Some(d) => Cow::Owned(merge_sorted(self.base.get(), d.get(&self.base)).collect()),
        }
    }
    /// The edited blocks sorted by position: the keyframe's list itself when nothing changed
    /// since.
    fn sorted_view(&self) -> Cow<'_, [(BlockPos, u32)]> {
        let layers = self.layers();
        if self.overlay.is_empty() {
            return layers;
        }
        let over = self.sorted_overlay();
        Cow::Owned(merge_sorted(&layers, &over).collect())
    }
    /// The changes since the keyframe's list (what a delta section lists), by position: the
    /// overlay of a writer's world; for a world read from a file, whatever its delta and the
    /// events since changed on the list, each block once, none as the list has it.
    fn changes_since_base(&self) -> Vec<(BlockPos, Option<u32>)> {
        if self.delta.is_none() && self.layers_decoded() {
            let base = self.base.get();
            let mut over = self.sorted_overlay();
            over.retain(|&(p, s)| lookup(base, p) != s);
            return over;
        }
        let (base, now) = (self.base.get(), self.sorted_view());
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        loop {
            match (base.get(i), now.get(j)) {
                (None, None) => break,
                (Some(&(p, s)), Some(&(q, t))) if p == q => {
                    if s != t {
                        out.push((p, Some(t)));
                    }
                    i += 1;
                    j += 1;
                }
                (Some(&(p, _)), Some(&(q, _))) if p < q => {
                    out.push((p, None));
                    i += 1;
                }
                (Some(&(p, _)), None) => {
                    out.push((p, None));
                    i += 1;
                }
                (_, Some(&(q, t))) => {
                    out.push((q, Some(t)));
                    j += 1;
                }
            }
        }
        out
    }
    /// The changes since the sorted lists, by position.
    fn sorted_overlay(&self) -> Vec<(BlockPos, Option<u32>)> {
        let mut over: Vec<_> = self.overlay.iter().map(|(&p, &s)| (p, s)).collect();
        over.sort_unstable_by_key(|b| b.0);
        over
    }
    /// A copy with every change folded into the sorted list (a keyframe's world).
    #[cfg(test)]
    pub(crate) fn clone_compacted(&self) -> WorldState {
        let mut w = self.clone();
        w.compact();
        w
    }
    /// Blocks changed since the sorted list (what a delta world section holds).
    pub(crate) fn changed_since_compact(&self) -> usize {
        debug_assert!(self.delta.is_none(), "a writer's world has one sorted list");
        self.overlay.len()
    }
    /// Blocks in the sorted list (the keyframe's, for a writer that compacts at keyframes).
    pub(crate) fn compacted_len(&self) -> usize {
        self.base.len()
    }
    /// Folds the changes since the sorted list into it (a writer does so before writing each
    /// keyframe world section, so that the deltas after it are the changes since).
    pub(crate) fn compact(&mut self) {
        if !self.overlay.is_empty() || self.delta.is_some() {
            let list = self.sorted_view().into_owned();
            self.count = OnceLock::from(list.len());
            self.base = Arc::new(KeyList::decoded(list));
            self.delta = None;
            self.overlay.clear();
        }
    }
    /// Makes this world equal to `target` while keeping its sorted list: `target`'s blocks
    /// become the changes since that list (so that a writer whose list is its last keyframe's
    /// goes on writing deltas against that keyframe). Compaction does so where a snapshot's world
    /// is not what the events before it made (a recording that starts in the middle of a world,
    /// a world section another writer put there).
    pub(crate) fn rebase_to(&mut self, target: &WorldState) {
        self.compact_delta();
        let want = target.sorted_view();
        let base = self.base.get();
        let mut overlay = FxHashMap::default();
        let (mut i, mut j) = (0, 0);
        loop {
            match (base.get(i), want.get(j)) {
                (None, None) => break,
                (Some(&(p, s)), Some(&(q, t))) if p == q => {
                    if s != t {
                        overlay.insert(p, Some(t));
                    }
                    i += 1;
                    j += 1;
                }
                (Some(&(p, _)), Some(&(q, _))) if p < q => {
                    overlay.insert(p, None);
                    i += 1;
                }
                (Some(&(p, _)), None) => {
                    overlay.insert(p, None);
                    i += 1;
                }
                (_, Some(&(q, t))) => {
                    overlay.insert(q, Some(t));
                    j += 1;
                }
            }
        }
        self.overlay = overlay;
        self.count = OnceLock::from(want.len());
        self.block_entities = target.block_entities.clone();
        self.entities = target.entities.clone();
    }
    /// Folds a delta list into the keyframe's (a world read from a file made a writer's).
    fn compact_delta(&mut self) {
        if self.delta.is_some() {
            self.compact();
        }
    }
    /// Every block entity, in no particular order.
    pub fn block_entities(&self) -> impl ExactSizeIterator<Item = (BlockPos, &[u8])> + '_ {
        self.block_entities.iter().map(|(&p, b)| (p, &b[..]))
    }
    /// Edited blocks (a world rebuilt onto lists not read yet reads them to count).
    pub fn block_count(&self) -> usize {
        if self.decode_error().is_some() {
            // a refused list reads as empty: count what the world gives
            return self.sorted_view().len();
        }
        *self.count.get_or_init(|| {
            let mut n = self.layer_count() as isize;
            for (&p, s) in &self.overlay {
                n += isize::from(s.is_some()) - isize::from(self.layer_state(p).is_some());
            }
            if self.decode_error().is_some() {
                return self.sorted_view().len();
            }
            n.max(0) as usize
        })
    }
    /// Edited blocks of the sorted lists (as their sections store it, until decoded).
    fn layer_count(&self) -> usize {
        match &self.delta {
            None => self.base.len(),
            Some(d) => d.world_count(&self.base),
        }
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
        self.block_entities.is_empty() && self.entities.is_empty() && self.block_count() == 0
    }
    /// The heap it holds, as the allocator hands it out (cache accounting; the sorted list
    /// counted whole even where it is shared with another world, a delta's with its keyframe's).
    pub fn heap_bytes(&self) -> usize {
        16 + self.base.heap_bytes()
            + self.delta.as_ref().map_or(0, |d| 16 + d.heap_bytes())
            + table_bytes(
                self.overlay.capacity(),
                std::mem::size_of::<(BlockPos, Option<u32>)>(),
            )
            + rest_heap_bytes(&self.block_entities, &self.entities)
    }

    /// Whether applying `e` can change a world: a block change, health, equipment, or an
    /// entity leaving (which takes its health and equipment with it).
    pub fn changes_with(e: &Event) -> bool {
        matches!(
            e,
            Event::BlockChange { .. }
                | Event::BlockChanges { .. }
                | Event::Health { .. }
                | Event::Equipment { .. }
                | Event::EntityRemove { .. }
                | Event::PlayerLeave { .. }
        )
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

    /// Applies `events` in order, as [`WorldState::apply`] one by one would, reporting no
    /// change: what a world rebuild does with the world events after its snapshot. The block
    /// changes are put on the world sorted by position, each position's last one only, so that
    /// the sorted list is searched once from left to right (a gallop from the previous block)
    /// instead of a binary search of the whole list per change. Equal to applying them one by
    /// one: a block's state and block entity are its last change's, and the other world events
    /// (health, equipment, an entity leaving) touch no block.
    pub fn apply_all<'a>(&mut self, events: impl IntoIterator<Item = &'a Event>) {
        // (position, order, state, block entity)
        let mut writes: Vec<(BlockPos, usize, u32, Option<&'a [u8]>)> = Vec::new();
        for e in events {
            match e {
                Event::BlockChange {
                    pos,
                    state,
                    block_entity,
                    ..
                } => writes.push((*pos, writes.len(), *state, block_entity.as_deref())),
                Event::BlockChanges { blocks, .. } => {
                    for &(pos, state) in blocks {
                        writes.push((pos, writes.len(), state, None));
                    }
                }
                other => self.apply(other),
            }
        }
        writes.sort_unstable_by_key(|w| (w.0, w.1));
        let last = |k: usize| writes.get(k + 1).is_none_or(|next| next.0 != writes[k].0);
        if !self.layers_decoded() {
            // Lists not read yet (a seek's snapshot): each block's last state goes into the
            // overlay as it is, without looking at the lists; the count is settled when the
            // world is first read.
            self.overlay.reserve(writes.len());
            for (k, &(pos, _, state, nbt)) in writes.iter().enumerate() {
                if !last(k) {
                    continue;
                }
                self.overlay.insert(pos, Some(state));
                match nbt {
                    Some(b) => {
                        self.block_entities.insert(pos, Arc::from(b));
                    }
                    None => {
                        self.block_entities.remove(&pos);
                    }
                }
            }
            if !writes.is_empty() {
                self.count = OnceLock::new();
            }
            return;
        }
        let base = self.base.clone();
        let base = base.get();
        let mut at = 0;
        for (k, &(pos, _, state, nbt)) in writes.iter().enumerate() {
            if !last(k) {
                continue; // a later change of the same block
            }
            let in_layers = if self.delta.is_some() {
                self.layer_state(pos)
            } else {
                at = lazy::gallop(base, at, pos);
                base.get(at).filter(|b| b.0 == pos).map(|b| b.1)
            };
            self.set_block_over(
                pos,
                Some(state),
                nbt.map(Arc::from),
                in_layers,
                &mut |_: WorldChange| {},
            );
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
        // one search of the sorted lists: `before` is the overlay's entry, else the lists'
        let in_layers = self.layer_state(pos);
        self.set_block_over(pos, state, nbt, in_layers, changed);
    }

    /// [`WorldState::set_block`] with the sorted list's state at `pos` (`in_base`) known.
    fn set_block_over(
        &mut self,
        pos: BlockPos,
        state: Option<u32>,
        nbt: Option<Arc<[u8]>>,
        in_base: Option<u32>,
        changed: &mut impl FnMut(WorldChange),
    ) {
        let before = match self.overlay.get(&pos) {
            Some(&s) => s,
            None => in_base,
        };
        if before != state {
            let count = self.block_count();
            if state == in_base {
                self.overlay.remove(&pos);
            } else {
                self.overlay.insert(pos, state);
            }
            let count = match (before, state) {
                (None, Some(_)) => count + 1,
                (Some(_), None) => count - 1,
                _ => count,
            };
            self.count = OnceLock::from(count);
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn bc(x: i32, y: i32, z: i32, state: u32) -> Event {
        Event::BlockChange {
            pos: BlockPos::new(x, y, z),
            state,
            cause: None,
            block_entity: None,
        }
    }

    pub(super) fn sample() -> WorldState {
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

    /// Applying a rebuild's events at once (block changes sorted by position, the last of each
    /// block kept) gives the world applying them one by one gives, on a world with a sorted list
    /// and changes since it: repeated blocks, block entities given and taken away, multi-block
    /// changes, a block set back to its list's state, health, equipment and entities leaving.
    #[test]
    fn events_applied_at_once_give_the_world_they_give_one_by_one() {
        let mut rng = fastrand::Rng::with_seed(48);
        for round in 0..200 {
            let mut start = WorldState::new();
            for _ in 0..rng.usize(0..60) {
                start.apply(&bc(
                    rng.i32(0..8),
                    rng.i32(0..3),
                    rng.i32(0..8),
                    rng.u32(0..4),
                ));
            }
            start.compact();
            for _ in 0..rng.usize(0..10) {
                start.apply(&bc(
                    rng.i32(0..8),
                    rng.i32(0..3),
                    rng.i32(0..8),
                    rng.u32(0..4),
                ));
            }
            let events: Vec<Event> = (0..rng.usize(0..80))
                .map(|_| {
                    let pos = BlockPos::new(rng.i32(0..8), rng.i32(0..3), rng.i32(0..8));
                    match rng.u8(0..10) {
                        0 => Event::BlockChange {
                            pos,
                            state: rng.u32(0..4),
                            cause: None,
                            block_entity: Some(vec![rng.u8(..)]),
                        },
                        1 => Event::BlockChanges {
                            cause: None,
                            blocks: (0..rng.usize(1..5))
                                .map(|_| {
                                    (
                                        BlockPos::new(rng.i32(0..8), rng.i32(0..3), rng.i32(0..8)),
                                        rng.u32(0..4),
                                    )
                                })
                                .collect(),
                        },
                        2 => Event::Health {
                            entity: rng.u32(0..4),
                            health: rng.u32(0..20),
                        },
                        3 => Event::Equipment {
                            entity: rng.u32(0..4),
                            slot: rng.u8(0..3),
                            item: rng.u32(0..3),
                            count: rng.u32(0..2),
                        },
                        4 => Event::EntityRemove {
                            entity: rng.u32(0..4),
                        },
                        _ => bc(pos.x, pos.y, pos.z, rng.u32(0..4)),
                    }
                })
                .collect();
            let mut one_by_one = start.clone();
            for e in &events {
                one_by_one.apply(e);
            }
            let mut at_once = start.clone();
            at_once.apply_all(&events);
            assert_eq!(at_once, one_by_one, "round {round}");
            assert_eq!(
                at_once.block_count(),
                one_by_one.block_count(),
                "round {round}"
            );
            assert_eq!(
                at_once.changed_since_compact(),
                one_by_one.changed_since_compact(),
                "round {round}"
            );
        }
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
}
