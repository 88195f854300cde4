//! The world the library keeps at the playhead's position (edited blocks, equipment, health):
//! carried forward event by event, and rebuilt on jumps (seeks, reverse play) from the nearest
//! snapshot's world section and the world events after it, each update reporting what changed.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::Playhead;
use crate::format::event::Event;
use crate::format::world::BlockPos;
use crate::format::world_state::WorldState;

/// A block's state (`None`: not edited) and block entity.
type BlockAt = (Option<u32>, Option<Arc<[u8]>>);

impl Playhead {
    /// Forward play: applies the world events of `self.u.events[from..]` (the ticks just played).
    pub(super) fn world_forward(&mut self, from: usize) {
        let u = &mut self.u;
        let touched = &mut self.world_touched;
        for e in &u.events[from..] {
            if !(e.is_world()
                || matches!(e, Event::EntityRemove { .. } | Event::PlayerLeave { .. }))
            {
                continue;
            }
            self.world.apply_with(e, |c| {
                if let crate::format::WorldChange::Block { pos, .. } = c {
                    touched.insert(pos);
                }
                u.world_changes.push(c);
            });
        }
    }

    /// A jump's world rebuild (after [`Playhead::fill_rebuild`]): the world at the position from
    /// the rebuild's chunks, reported as changes from the world before. Touches only the blocks
    /// changed since the snapshot when the world was last rebuilt from the same one; every block
    /// of both worlds otherwise.
    pub(super) fn rebuild_world(&mut self) {
        let to = self.pos;
        let chunks = &self.u.rb_chunks;
        let base: Option<Arc<WorldState>> = if self.u.rb_has_snapshot {
            chunks.first().and_then(|c| c.world.clone())
        } else {
            None
        };
        let base_id = self
            .u
            .rb_snapshot_chunk
            .filter(|_| base.is_some())
            .map(|k| (self.view.id(), k));
        let empty = WorldState::default();
        let base_ref: &WorldState = base.as_deref().unwrap_or(&empty);
        // What the chunks' events set, last one wins, and the entity part rebuilt whole.
        let mut touched: FxHashMap<BlockPos, BlockAt> = FxHashMap::default();
        let mut ents = base_ref.entities_only();
        for c in chunks {
            let start = c.start_tick;
            for r in c.records.iter().take_while(|r| start + r.rel <= to) {
                for e in &r.events {
                    match e {
                        Event::BlockChange {
                            pos,
                            state,
                            block_entity,
                            ..
                        } => {
                            touched.insert(
                                *pos,
                                (Some(*state), block_entity.as_deref().map(Arc::from)),
                            );
                        }
                        Event::BlockChanges { blocks, .. } => {
                            for &(p, s) in blocks {
                                touched.insert(p, (Some(s), None));
                            }
                        }
                        Event::Health { .. }
                        | Event::Equipment { .. }
                        | Event::EntityRemove { .. }
                        | Event::PlayerLeave { .. } => ents.apply(e),
                        _ => {}
                    }
                }
            }
        }
        let changes = &mut self.u.world_changes;
        let mut push = |c| changes.push(c);
        self.world.replace_entities(ents.take_entities(), &mut push);
        let same_base = base_id.is_some() && base_id == self.world_base;
        let mut candidates: Vec<BlockPos> = touched.keys().copied().collect();
        if same_base {
            candidates.extend(self.world_touched.iter().copied());
        } else {
            candidates.extend(self.world.positions());
            candidates.extend(base_ref.positions());
        }
        for p in candidates {
            let (state, nbt) = match touched.get(&p) {
                Some((s, b)) => (*s, b.clone()),
                None => {
                    let (s, b) = base_ref.block_with_entity(p);
                    (s, b.cloned())
                }
            };
            let (old_state, old_nbt) = self.world.block_with_entity(p);
            if old_state == state && old_nbt.map(|b| &b[..]) == nbt.as_deref() {
                continue;
            }
            self.world.set_block(p, state, nbt, &mut push);
        }
        self.world_base = base_id;
        self.world_touched.clear();
        self.world_touched.extend(touched.keys().copied());
        self.world_complete = self.u.rb_complete && !self.u.rb_cut_short;
    }
}
