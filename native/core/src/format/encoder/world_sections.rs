//! Which world section a snapshot chunk carries (FORMAT.md §7.2, data version 5): a *keyframe*
//! (the whole running world) or a *delta* (the blocks changed since the last keyframe), and the
//! bookkeeping that choice needs. The sections' bytes are
//! [`crate::format::world_state`]'s; this decides only which one is written.

use crate::format::world_state::WorldState;

/// Most snapshots with a world section written against one keyframe (the keyframe's included).
pub(crate) const MAX_SNAPSHOTS_PER_WORLD_KEYFRAME: u32 = 64;

/// How large a delta may grow before a keyframe is written instead, in quarters of the
/// keyframe's blocks, unless the writer says otherwise ([`WorldSections::set_delta_quarters`]):
/// a quarter, so that a live recording's keyframes of a growing world come at least 25 % apart
/// in size (their total within five times the last one's).
pub(crate) const DELTA_QUARTERS: u32 = 1;

/// Whether a snapshot's world section must be a keyframe rather than a delta: `snapshots`
/// sections were written against the keyframe already ([`MAX_SNAPSHOTS_PER_WORLD_KEYFRAME`]),
/// or the delta, `changed` blocks since the keyframe of `keyframe_blocks`, grew past
/// `quarters` quarters of it. A seek reads neither list (data version 9: they are decoded on
/// the world's first read), so the rule weighs the bytes of the keyframes against what the
/// first read decodes: the keyframe's list and the delta's.
fn keyframe_due(snapshots: u32, changed: usize, keyframe_blocks: usize, quarters: u32) -> bool {
    snapshots >= MAX_SNAPSHOTS_PER_WORLD_KEYFRAME
        || changed as u64 * 4 > keyframe_blocks as u64 * u64::from(quarters)
}

/// The keyframe the next delta sections are written against.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct WorldSections {
    /// The start tick of the chunk whose world section is the keyframe, and the snapshots with
    /// a world section begun since (that one included). `None`: the next section is a keyframe.
    keyframe: Option<(u32, u32)>,
    /// [`keyframe_due`]'s quarters (0: [`DELTA_QUARTERS`]).
    delta_quarters: u32,
}

impl WorldSections {
    /// Lets a delta grow to `quarters` quarters of its keyframe's blocks before a keyframe is
    /// written instead ([`keyframe_due`]).
    pub(super) fn set_delta_quarters(&mut self, quarters: u32) {
        self.delta_quarters = quarters;
    }

    /// Forgets the keyframe (the running world was replaced): the next section is a keyframe.
    pub(super) fn restart(&mut self) {
        self.keyframe = None;
    }

    /// Takes the keyframe section of a chunk written elsewhere, starting at `start_tick`, as
    /// the keyframe the next deltas stand on (compaction's copy of a chunk as it is).
    pub(super) fn adopt_keyframe(&mut self, start_tick: u32) {
        self.keyframe = Some((start_tick, 1));
    }

    /// The world section of a snapshot chunk starting at `start_tick`, `world` being the
    /// running world then: a delta against the last keyframe while [`keyframe_due`] says it
    /// pays, else a keyframe (the world compacted to it, so that later deltas stand on it).
    /// Its block list is compressed at `level` (FORMAT.md §7.2, data version 9).
    pub(super) fn section(
        &mut self,
        world: &mut WorldState,
        start_tick: u32,
        level: i32,
    ) -> Vec<u8> {
        let mut buf = Vec::new();
        match self.keyframe {
            Some((at, n))
                if !keyframe_due(
                    n,
                    world.changed_since_compact(),
                    world.compacted_len(),
                    match self.delta_quarters {
                        0 => DELTA_QUARTERS,
                        q => q,
                    },
                ) =>
            {
                world.encode_section(start_tick - at, level, &mut buf);
                self.keyframe = Some((at, n + 1));
            }
            _ => {
                world.compact();
                world.encode_section(0, level, &mut buf);
                self.keyframe = Some((start_tick, 1));
            }
        }
        buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::event::Event;
    use crate::format::world::BlockPos;

    /// A keyframe of 100 blocks, then snapshots each adding 30 new blocks: with a quarter (a
    /// live writer's) a keyframe comes as soon as the changes pass a quarter of it; with more
    /// quarters the deltas go on against the first keyframe until they pass that share, or
    /// until 64 sections stood on it.
    #[test]
    fn deltas_grow_to_the_share_the_writer_allows() {
        let kinds = |quarters: u32, snapshots: u32| {
            let mut s = WorldSections::default();
            s.set_delta_quarters(quarters);
            let mut w = WorldState::new();
            let mut x = 0;
            let mut out = Vec::new();
            for i in 0..snapshots {
                let n = if i == 0 { 100 } else { 30 };
                for _ in 0..n {
                    w.apply(&Event::BlockChange {
                        pos: BlockPos::new(x, 0, 0),
                        state: 1,
                        cause: None,
                        block_entity: None,
                    });
                    x += 1;
                }
                let section = s.section(&mut w, 10 * (i + 1), 3);
                out.push(section[0] == 0); // back = 0: a keyframe
            }
            out
        };
        // a quarter: 30 changes on 100 make a keyframe (of 130), 30 on 130 a delta, 60 on 130
        // a keyframe again
        assert_eq!(kinds(0, 4), [true, true, false, true]);
        assert_eq!(kinds(DELTA_QUARTERS, 4), [true, true, false, true]);
        // four quarters (the keyframe's size): 30, 60, 90 changes stand on 100, 120 do not
        assert_eq!(kinds(4, 5), [true, false, false, false, true]);
        // no share: only the count of sections on one keyframe makes a new one
        let all = kinds(u32::MAX, MAX_SNAPSHOTS_PER_WORLD_KEYFRAME + 1);
        assert!(all[0] && all[MAX_SNAPSHOTS_PER_WORLD_KEYFRAME as usize]);
        assert!(
            all[1..MAX_SNAPSHOTS_PER_WORLD_KEYFRAME as usize]
                .iter()
                .all(|k| !k)
        );
    }
}
