//! The world the library keeps at the playhead's position (edited blocks, equipment, health):
//! carried forward event by event, and rebuilt on jumps (seeks, reverse play) from the nearest
//! snapshot's world section and the world events after it, each update reporting what changed.

use super::Playhead;
use crate::format::event::Event;
use crate::format::world_state::WorldState;

impl Playhead {
    /// Forward play: applies the world events of `self.u.events[from..]` (the ticks just played).
    pub(super) fn world_forward(&mut self, from: usize) {
        let u = &mut self.u;
        for e in &u.events[from..] {
            if !(e.is_world()
                || matches!(e, Event::EntityRemove { .. } | Event::PlayerLeave { .. }))
            {
                continue;
            }
            self.world.apply_with(e, |c| u.world_changes.push(c));
        }
    }

    /// A jump's world rebuild (after [`Playhead::fill_rebuild`]): the world at the position from
    /// the rebuild's chunks (the snapshot's world, shared with its decoded chunk, then the world
    /// events after it), reported as changes from the world before
    /// ([`WorldState::replace_with`]: only the changes since the snapshot when both worlds come
    /// from the same one, a merge of the sorted blocks otherwise).
    pub(super) fn rebuild_world(&mut self) {
        let to = self.pos;
        let chunks = &self.u.rb_chunks;
        let mut world = if self.u.rb_has_snapshot {
            chunks
                .first()
                .and_then(|c| c.world.as_deref().cloned())
                .unwrap_or_default()
        } else {
            WorldState::default()
        };
        for c in chunks {
            let start = c.start_tick;
            for r in c.records.iter().take_while(|r| start + r.rel <= to) {
                for e in &r.events {
                    world.apply(e);
                }
            }
        }
        let changes = &mut self.u.world_changes;
        self.world.replace_with(world, &mut |c| changes.push(c));
        self.world_complete = self.u.rb_complete && !self.u.rb_cut_short;
    }
}
