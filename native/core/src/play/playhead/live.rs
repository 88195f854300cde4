//! A recording that changes under the playhead: it grows, it is switched over to its compacted
//! file (the playhead re-finds its tick there, with nothing for the plugin to apply), or it has
//! no tick yet (the playhead waits for one).

use super::{Motion, Playhead};

impl Playhead {
    pub(super) fn refresh_view(&mut self) {
        let g = self.rec.generation();
        if g == self.generation {
            return;
        }
        self.generation = g;
        let view = self.rec.view();
        let same = view.id() == self.view.id();
        self.view = view;
        self.prefetch_anchor = None;
        if !same {
            // Chunks may be numbered differently: re-seek to the same tick (a no-op for the
            // plugin: nothing added or removed, world unchanged; see `settle_reanchor`).
            self.ctx = None;
            self.rb_memo.clear();
            if self.pending_seek.is_none() && !self.waiting {
                self.reanchor = true;
            }
            let t = self.pending_seek.unwrap_or(self.pos);
            self.pending_seek = Some(self.view.reader.clamp_tick(t).unwrap_or(t));
        }
    }

    /// While the recording has no tick: marks the playhead waiting (keeping where to go once
    /// ticks appear) and returns true.
    pub(super) fn wait_for_data(&mut self) -> bool {
        if self.view.reader.first_tick().is_some() {
            return false;
        }
        if !self.waiting {
            self.waiting = true;
            self.reanchor = false;
            self.ctx = None;
            self.rb_memo.clear();
            self.owed = 0;
            self.pending_seek.get_or_insert(self.pos);
        }
        true
    }

    /// Ticks appeared but the first position could not be reached: take the nearest tick as the
    /// position (playing on from it skips the unreadable chunk as usual).
    pub(super) fn leave_waiting(&mut self) {
        if self.waiting {
            self.waiting = false;
            self.pos = self.view.reader.clamp_tick(self.pos).unwrap_or(self.pos);
        }
    }

    /// After the re-seek of a switch-over: if it landed on the same tick with the same state and
    /// nothing to rebuild, the update becomes [`Motion::Still`] (nothing to apply) and the call
    /// carries on playing. Returns whether it does.
    pub(super) fn settle_reanchor(&mut self) -> bool {
        if !std::mem::take(&mut self.reanchor) {
            return false;
        }
        let same = self.u.from == self.pos && !self.u.rebuild && self.prev == self.u.entities;
        if same {
            self.u.motion = Motion::Still;
            self.u.added.clear();
            self.u.removed.clear();
        }
        same
    }
}
