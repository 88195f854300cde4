//! Reverse play and steps back: undoing recorded ticks one by one with each chunk's reverse log,
//! reported as a [`super::Motion::Jump`].

use super::fetch::{Fetch, Mode, transient};
use super::update::diff;
use super::{Direction, Motion, Playhead};
use crate::format::index::rebuild_range;
use crate::format::index::{FLAG_CUSTOM_EVENTS, IndexEntry, find_chunk};
use crate::play::cache::Part;
use crate::play::cursor::undo_tick;

impl Playhead {
    pub(super) fn backward(&mut self, n: u32, mode: Mode) -> u32 {
        let view = self.view.clone();
        let idx = view.reader.index();
        let first = view.reader.first_tick().unwrap_or(self.pos);
        if self.pos <= first {
            self.u.at_edge = true;
            return 0;
        }
        let mut q = self.pos.saturating_sub(n).max(first);
        let (whole, reverse) = (self.whole(), self.reverse_part());
        let rb = loop {
            let pos = self.pos;
            let rb = backward_rebuild(idx, pos, q).filter(|_| self.options.world);
            let keys = path_chunks(idx, pos, q)
                .flat_map(|k| [(k, whole), (k, reverse)])
                .chain(
                    rb.into_iter()
                        .flat_map(|(s, e)| (s..=e).map(|i| (i, Part::Decoded))),
                );
            self.gather(keys, mode);
            // The top-most unreadable chunk on the path, if any.
            let failed = path_chunks(idx, pos, q).find_map(|k| {
                [whole, reverse]
                    .iter()
                    .find_map(|&p| match self.gathered.get(k, p) {
                        Some(Fetch::Failed(f)) => Some((k, f.clone())),
                        _ => None,
                    })
            });
            match failed {
                Some((k, f)) if transient(&f) => {
                    self.fault(k, f);
                    self.stall_in_move(mode);
                    return 0;
                }
                Some((k, f)) => {
                    let last_of_k = (idx[k].end_tick() - 1) as u32;
                    if last_of_k < self.pos && q < last_of_k {
                        // Stop just above the unreadable chunk; a later call skips it.
                        q = last_of_k;
                        continue;
                    }
                    self.skip(k, f, Direction::Backward, mode);
                    return 0;
                }
                None => {}
            }
            if self.gathered.any_pending() {
                self.stall_in_move(mode);
                return 0;
            }
            break rb;
        };
        self.prev.clone_from(&self.u.entities);
        let mut world = false;
        let moved = self.pos - q;
        while self.pos > q {
            let k = find_chunk(idx, self.pos).expect("position has a chunk");
            let start = idx[k].start_tick;
            let rel = self.pos - start;
            if rel < idx[k].tick_count {
                let needs_enter = self
                    .ctx
                    .as_ref()
                    .is_none_or(|c| c.index != k || c.log.is_none());
                if needs_enter {
                    let chunk = self.gathered.decoded(k, whole).expect("gathered");
                    let log = self.gathered.reverse(k, reverse).expect("gathered");
                    self.enter(k, chunk, Some(log));
                }
                let ctx = self.ctx.as_ref().expect("entered");
                let log = ctx.log.as_ref().expect("log");
                world |= undo_tick(&ctx.chunk, log, &mut self.cursor, rel, &mut self.u.entities);
            }
            self.pos -= 1;
        }
        self.stats.ticks_backward += u64::from(moved);
        self.u.motion = Motion::Jump;
        diff(
            self.prev.as_slice(),
            self.u.entities.as_slice(),
            &mut self.u.added,
            &mut self.u.removed,
        );
        if world && self.options.world {
            let range = rb.unwrap_or_else(|| rebuild_range(idx, q));
            self.fill_rebuild(range, Part::Decoded, mode);
            self.rebuild_world();
        }
        if self.pos <= first {
            self.u.at_edge = true;
        }
        moved
    }
}

/// Chunks holding ticks to undo to move back from `pos` to `q < pos`, top-down.
pub(super) fn path_chunks(
    idx: &[IndexEntry],
    pos: u32,
    q: u32,
) -> impl Iterator<Item = usize> + '_ {
    let (k_hi, k_lo) = if q < pos {
        (
            find_chunk(idx, pos).unwrap_or(0),
            find_chunk(idx, q + 1).unwrap_or(0),
        )
    } else {
        (0, 1)
    };
    (k_lo..=k_hi).rev().filter(move |&k| {
        let e = &idx[k];
        let lo = u64::from(q + 1).max(u64::from(e.start_tick));
        let hi = (u64::from(pos) + 1).min(e.end_tick());
        lo < hi
    })
}

/// The chunks a world rebuild at `q` needs after moving back from `pos`, if any chunk with
/// ticks to undo has custom events (the world may change).
pub(super) fn backward_rebuild(idx: &[IndexEntry], pos: u32, q: u32) -> Option<(usize, usize)> {
    path_chunks(idx, pos, q)
        .any(|k| idx[k].flags & FLAG_CUSTOM_EVENTS != 0)
        .then(|| rebuild_range(idx, q))
}
