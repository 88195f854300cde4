//! A delta world section's world (data version 5): the blocks changed since a keyframe's world
//! section ([`WorldDelta`], as [`super::section`] decodes it) and how it is put on that
//! keyframe's world ([`WorldState::with_delta`]) without copying the keyframe's blocks.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{EntityWorld, WorldState, lookup, rest_heap_bytes};
use crate::error::{Error, Result};
use crate::format::Limits;
use crate::format::world::BlockPos;

/// What a delta world section (data version 5) says: the blocks changed since the world section
/// of a keyframe, an earlier snapshot chunk `back` ticks before this one's start (a state, or
/// `None`: no longer edited), and the block entities and entities whole. Made into a world by
/// [`WorldState::with_delta`] on top of the keyframe's world.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldDelta {
    /// Ticks from the start of the keyframe's chunk to the start of this one (at least 1).
    pub back: u32,
    /// Sorted by position, without repeats.
    pub(super) blocks: Vec<(BlockPos, Option<u32>)>,
    pub(super) block_entities: FxHashMap<BlockPos, Arc<[u8]>>,
    pub(super) entities: BTreeMap<u32, EntityWorld>,
}

impl WorldDelta {
    /// Blocks the delta changes.
    pub fn changed_blocks(&self) -> usize {
        self.blocks.len()
    }
    /// Rough heap size (cache accounting).
    pub fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<(BlockPos, Option<u32>)>()
            + rest_heap_bytes(&self.block_entities, &self.entities)
    }
}

impl WorldState {
    /// The world of a delta section on top of its keyframe's world `keyframe` (a keyframe
    /// section's world, nothing changed since: its blocks are one sorted list, shared, not
    /// copied). Refuses a delta that lists a block as it already is in the keyframe, or takes
    /// away a block the keyframe does not have (a writer never writes either: the delta was not
    /// made against this keyframe), or that makes the world larger than
    /// [`Limits::max_world_blocks`].
    pub(crate) fn with_delta(
        keyframe: &WorldState,
        delta: &WorldDelta,
        limits: &Limits,
    ) -> Result<WorldState> {
        debug_assert!(
            keyframe.overlay.is_empty(),
            "a keyframe world is one sorted list"
        );
        let mut overlay = FxHashMap::default();
        overlay.reserve(delta.blocks.len());
        let mut count = keyframe.base.len();
        for &(p, s) in &delta.blocks {
            let was = lookup(&keyframe.base, p);
            match (was, s) {
                (a, b) if a == b => {
                    return Err(Error::corrupt(format!(
                        "world delta section lists block ({}, {}, {}) as its keyframe has it \
                         (not the keyframe it was written against)",
                        p.x, p.y, p.z
                    )));
                }
                (None, _) => count += 1,
                (_, None) => count -= 1,
                _ => {}
            }
            overlay.insert(p, s);
        }
        if count > limits.max_world_blocks() {
            return Err(Error::limit(format!(
                "a world of {count} edited blocks (keyframe and delta); limit {}",
                limits.max_world_blocks()
            )));
        }
        Ok(WorldState {
            base: keyframe.base.clone(),
            overlay,
            count,
            block_entities: delta.block_entities.clone(),
            entities: delta.entities.clone(),
        })
    }
}
