//! A delta world section's world (data version 5): the blocks changed since a keyframe's world
//! section ([`WorldDelta`], as [`super::section`] decodes it) and how it is put on that
//! keyframe's world ([`WorldState::with_delta`]) without copying the keyframe's blocks.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use super::lazy::{DeltaList, Packed, check_on};
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
    pub(super) blocks: DeltaBlocks,
    /// The world's edited blocks as the section stores them (data version 9; `None`: not
    /// stored, or a section of data version 5 to 8).
    pub(super) count: Option<usize>,
    pub(super) block_entities: FxHashMap<BlockPos, Arc<[u8]>>,
    pub(super) entities: BTreeMap<u32, EntityWorld>,
}

/// A delta section's changed blocks: decoded (data version 5 to 8), or as stored (data version
/// 9), decoded when the world is first read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum DeltaBlocks {
    /// Sorted by position, without repeats.
    Decoded(Vec<(BlockPos, Option<u32>)>),
    Packed(Packed),
}

impl WorldDelta {
    /// Blocks the delta changes.
    pub fn changed_blocks(&self) -> usize {
        match &self.blocks {
            DeltaBlocks::Decoded(v) => v.len(),
            DeltaBlocks::Packed(p) => p.n,
        }
    }
    /// The heap it holds (cache accounting).
    pub fn heap_bytes(&self) -> usize {
        let blocks = match &self.blocks {
            DeltaBlocks::Decoded(v) => {
                v.capacity() * std::mem::size_of::<(BlockPos, Option<u32>)>()
            }
            DeltaBlocks::Packed(p) => 16 + p.z.len(),
        };
        blocks + rest_heap_bytes(&self.block_entities, &self.entities)
    }
}

impl WorldState {
    /// The world of a delta section on top of its keyframe's world `keyframe` (a keyframe
    /// section's world, nothing changed since: its blocks are one sorted list, shared, not
    /// copied). A delta of data version 5 to 8 is checked against the keyframe's list here,
    /// one of data version 9 when its list is first read (both lists are decoded then, not
    /// here: [`super::lazy`]); either refuses a delta that lists a block as it already is in the
    /// keyframe, or takes away a block the keyframe does not have (a writer never writes either:
    /// the delta was not made against this keyframe), or that makes the world larger than
    /// [`Limits::max_world_blocks`] (here, from the count the section stores, if it does).
    pub(crate) fn with_delta(
        keyframe: &WorldState,
        delta: &WorldDelta,
        limits: &Limits,
    ) -> Result<WorldState> {
        debug_assert!(
            keyframe.overlay.is_empty() && keyframe.delta.is_none(),
            "a keyframe world is one sorted list"
        );
        let max = limits.max_world_blocks();
        let (layer, count) = match &delta.blocks {
            DeltaBlocks::Decoded(list) => {
                let count = check_on(keyframe.base.get(), list, max)?;
                (DeltaList::decoded(list.clone(), count), Some(count))
            }
            DeltaBlocks::Packed(p) => {
                if let Some(c) = delta.count
                    && c > max
                {
                    return Err(Error::limit(format!(
                        "a world of {c} edited blocks (keyframe and delta); limit {max}"
                    )));
                }
                (DeltaList::packed(p.clone(), delta.count, max), delta.count)
            }
        };
        let mut w = WorldState {
            base: keyframe.base.clone(),
            delta: Some(Arc::new(layer)),
            overlay: FxHashMap::default(),
            count: OnceLock::new(),
            block_entities: delta.block_entities.clone(),
            entities: delta.entities.clone(),
        };
        if let Some(c) = count {
            w.count = OnceLock::from(c);
        }
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::super::lazy::gallop;
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
