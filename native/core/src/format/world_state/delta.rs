//! A delta world section's world (data version 5): the blocks changed since a keyframe's world
//! section ([`WorldDelta`], as [`super::section`] decodes it) and how it is put on that
//! keyframe's world ([`WorldState::with_delta`]) without copying the keyframe's blocks.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{EntityWorld, WorldState, rest_heap_bytes};
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
    /// The heap it holds (cache accounting).
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
        let base = &keyframe.base[..];
        let mut count = base.len();
        // Both lists are sorted by position: each block is looked for from where the last was
        // found (a gallop, not a binary search of the whole keyframe per block).
        let mut i = 0;
        for &(p, s) in &delta.blocks {
            i = gallop(base, i, p);
            let was = base.get(i).filter(|b| b.0 == p).map(|b| b.1);
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

/// The first index at or after `from` of the sorted list `list` whose position is not below `p`
/// (`list.len()` if none), for `from` not past it: steps of 1, 2, 4, ... from `from`, then a
/// binary search in the last step.
pub(super) fn gallop(list: &[(BlockPos, u32)], from: usize, p: BlockPos) -> usize {
    let (mut lo, mut hi, mut step) = (from, from, 1);
    while hi < list.len() && list[hi].0 < p {
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    let hi = hi.min(list.len());
    lo + list[lo..hi].partition_point(|b| b.0 < p)
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    #[test]
    fn a_gallop_finds_what_a_binary_search_finds() {
        let mut rng = fastrand::Rng::with_seed(3);
        for n in [0usize, 1, 2, 7, 100, 1000] {
            let mut list: Vec<(BlockPos, u32)> = (0..n)
                .map(|_| (BlockPos::new(rng.i32(0..50), rng.i32(0..4), 0), 1))
                .collect();
            list.sort_unstable();
            list.dedup_by_key(|b| b.0);
            let mut from = 0;
            let mut ps: Vec<BlockPos> = (0..40)
                .map(|_| BlockPos::new(rng.i32(-1..52), rng.i32(0..4), 0))
                .collect();
            ps.sort_unstable();
            for p in ps {
                let want = list.partition_point(|b| b.0 < p);
                from = gallop(&list, from, p);
                assert_eq!(from, want, "{n} blocks, {p:?}");
                assert_eq!(
                    lookup(&list, p),
                    list.get(from).filter(|b| b.0 == p).map(|b| b.1)
                );
            }
        }
    }
}
