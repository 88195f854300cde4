//! Jumps: moving to any tick by replaying its chunk from the keyframe (seeks, the first position,
//! a switch-over's re-seek) and jumping over unreadable chunks.

use super::fetch::{Fetch, Mode, transient};
use super::rebuild::custom_between;
use super::update::diff;
use super::{Ctx, Direction, Motion, Playhead};
use crate::format::index::FLAG_WORLD;
use crate::format::index::find_chunk;
use crate::format::index::rebuild_range;
use crate::play::cache::{Fault, Part};
use crate::play::cursor::forward_tick;

/// What a jump attempt came to.
pub(super) enum JumpResult {
    Done,
    Stalled,
    Failed(usize, Fault),
}

impl Playhead {
    /// The chunk holding `q`, and the rebuild range if the world must be rebuilt for a jump there
    /// (never without the world).
    pub(super) fn jump_plan(&self, q: u32, force_rebuild: bool) -> (usize, Option<(usize, usize)>) {
        let idx = self.view.reader.index();
        let k = find_chunk(idx, q).expect("clamped tick has a chunk");
        let rebuild = self.options.world
            && (force_rebuild
                || !self.world_known
                || custom_between(idx, self.pos.min(q), self.pos.max(q)));
        (k, rebuild.then(|| rebuild_range(idx, q)))
    }

    /// Moves to `q` by replaying its chunk from the keyframe.
    pub(super) fn jump(&mut self, q: u32, mode: Mode, force_rebuild: bool) -> JumpResult {
        let view = self.view.clone();
        let Ok(q) = view.reader.clamp_tick(q) else {
            self.u.at_edge = true;
            return JumpResult::Done;
        };
        let (k, rb) = self.jump_plan(q, force_rebuild);
        let whole = self.whole();
        if mode == Mode::Blocking
            && let Some((s, e)) = rb
        {
            // A seek into the snapshot chunk itself hands over that chunk's world part all the
            // same: a worker reading it puts its world section on its keyframe (kept by the
            // reader), which this thread's read of the chunk then finds there instead of reading
            // the keyframe's chunk after its own.
            let world = view.reader.index()[s].flags & FLAG_WORLD != 0;
            self.hand_off(s..if s == e && world { e + 1 } else { e }, Part::World);
        }
        // The rebuild's chunks from the last back: this thread, done with chunk `k`, runs those
        // still queued from that end while a worker goes from the other.
        let keys = std::iter::once((k, whole)).chain(
            rb.into_iter()
                .flat_map(|(s, e)| (s..=e).rev().map(|i| (i, Part::World))),
        );
        self.gather(keys, mode);
        match self.gathered.get(k, whole) {
            Some(Fetch::Failed(f)) if transient(f) && mode == Mode::NonBlocking => {
                let f = f.clone();
                self.fault(k, f);
                return JumpResult::Stalled;
            }
            Some(Fetch::Failed(f)) => return JumpResult::Failed(k, f.clone()),
            _ => {}
        }
        if self.gathered.any_pending() {
            return JumpResult::Stalled;
        }
        let chunk = self.gathered.decoded(k, whole).expect("gathered");
        self.prev.clone_from(&self.u.entities);
        let state = &mut self.u.entities;
        state.reset_to(&chunk.keyframe);
        self.cursor.place(&chunk, -1);
        let rel = q.saturating_sub(chunk.start_tick);
        for r in 0..chunk.tick_count.min(rel.saturating_add(1)) {
            forward_tick(&chunk, &mut self.cursor, r, state, |_| {});
        }
        self.ctx = Some(Ctx {
            index: k,
            chunk,
            log: None,
        });
        self.pos = q;
        self.u.motion = Motion::Jump;
        diff(
            self.prev.as_slice(),
            self.u.entities.as_slice(),
            &mut self.u.added,
            &mut self.u.removed,
        );
        if let Some(range) = rb {
            self.fill_rebuild(range, Part::World, mode);
            self.rebuild_world();
        }
        self.world_known = true;
        self.waiting = false;
        JumpResult::Done
    }

    /// Jumps over unreadable chunk `k` (and any unreadable neighbours) in direction `d`.
    pub(super) fn skip(&mut self, mut k: usize, mut f: Fault, d: Direction, mode: Mode) {
        let idx_len = self.view.reader.index().len();
        loop {
            self.fault(k, f);
            let e = self.view.reader.index()[k];
            let target = match d {
                Direction::Forward if k + 1 < idx_len => self.view.reader.index()[k + 1].start_tick,
                Direction::Backward if k > 0 => e.start_tick - 1,
                _ => {
                    self.u.at_edge = true;
                    return;
                }
            };
            match self.jump(target, mode, true) {
                JumpResult::Done => return,
                JumpResult::Stalled => {
                    self.stall_in_move(mode);
                    return;
                }
                JumpResult::Failed(k2, f2) => {
                    k = k2;
                    f = f2;
                }
            }
        }
    }
}
