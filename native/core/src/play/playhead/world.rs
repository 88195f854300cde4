//! The world the library keeps at the playhead's position (edited blocks, equipment, health):
//! carried forward event by event, and rebuilt on jumps (seeks, reverse play) from the nearest
//! snapshot's world section and the world events after it, each update reporting what changed
//! (a forward update as it plays, a jump by comparing the worlds before and after it, when asked:
//! [`super::Update::world_changes`]).

use std::sync::Arc;

use super::Playhead;
use crate::format::world_state::WorldState;

impl Playhead {
    /// Forward play: applies the world events of `self.u.events[from..]` (the ticks just played).
    /// After a jump in the same update, the changes are the jump's comparison (which sees
    /// these too), so they are not recorded one by one.
    /// Nothing without the world ([`super::PlayheadOptions::world`]).
    pub(super) fn world_forward(&mut self, from: usize) {
        if !self.options.world {
            return;
        }
        let u = &mut self.u;
        let jumped = u.world_before.is_some();
        for e in &u.events[from..] {
            if !WorldState::changes_with(e) {
                continue;
            }
            let w = Arc::make_mut(&mut self.world);
            if jumped {
                w.apply(e);
            } else {
                w.apply_with(e, |c| u.world_changes.push(c));
            }
        }
    }

    /// A jump's world rebuild (after [`Playhead::fill_rebuild`]): the world at the position from
    /// the rebuild's chunks (the snapshot's world, shared with its decoded chunk until an event
    /// changes it, then the world events after it). The world before is kept in the update (the
    /// one before the update's first jump), which compares the two only when its changes are
    /// asked for ([`WorldState::changes_to`]): a seek pays nothing for the changes nobody reads.
    pub(super) fn rebuild_world(&mut self) {
        let to = self.pos;
        let chunks = &self.u.rb_chunks;
        let mut world: Arc<WorldState> = if self.u.rb_has_snapshot {
            chunks
                .first()
                .and_then(|c| c.world.clone())
                .unwrap_or_default()
        } else {
            Arc::default()
        };
        // the world events from the snapshot through the position, applied at once (the block
        // changes sorted by position: one pass over the snapshot's sorted list)
        let mut events = chunks
            .iter()
            .flat_map(|c| {
                let start = c.start_tick;
                c.records.iter().take_while(move |r| start + r.rel <= to)
            })
            .flat_map(|r| &r.events)
            .filter(|e| WorldState::changes_with(e))
            .peekable();
        if events.peek().is_some() {
            Arc::make_mut(&mut world).apply_all(events);
        }
        let before = std::mem::replace(&mut self.world, world);
        if self.u.world_before.is_none() {
            self.u.world_before = Some(before);
        }
        self.world_complete = self.u.rb_complete && !self.u.rb_cut_short;
    }
}
