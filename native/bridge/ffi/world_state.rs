//! The world at a tick in C: the types of `crate::api::world_state` (a world state's info, its
//! blocks, block entities, entities and equipment) and of a playhead's world changes
//! (`tickreel_playhead_world_changes`), and how they cross into C. The operations are generated
//! from `crate::api::world_state`, `crate::api::reader::world_at` and
//! `crate::api::playhead::{world_state, world_changes}`.

use super::args::OutArray;
use super::convert::{CArrayResult, CResult};
use super::result::FfiResult;
use super::world::TickreelBlockState;
use crate::api::world_state::{BlockAt, Blocks};

/// The world at a tick (edited blocks, block entities, each entity's health and equipment).
/// Opaque: made by `tickreel_reader_world_at` or `tickreel_playhead_world_state`, released with
/// `tickreel_world_state_free`; never changes. The pointer is a handle, not an address: never
/// dereference it.
pub struct TickreelWorldState {
    _private: [u8; 0],
}

/// The block at one position, as filled in by `tickreel_world_state_block`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TickreelBlockAt {
    /// `state` is set: a world event edited the block, or a terrain section covers it. False:
    /// the library does not know the block (the world there is as the game had it).
    pub known: bool,
    /// A world event edited the block: `state` is the state it gave, which overrides the
    /// terrain's. False: `state` is the terrain's, if `known`.
    pub edited: bool,
    /// The block's state: an id of the block palette (`tickreel_reader_palette_name`); 0 if not
    /// `known`.
    pub state: u32,
    /// The block entity NBT its last change gave (NULL if none), valid until
    /// `tickreel_world_state_free`.
    pub block_entity: *const u8,
    /// Bytes at `block_entity` (0 if none).
    pub block_entity_len: usize,
}

/// `TickreelWorldChange::kind`: a block's state (or its block entity) changed: `x`, `y`, `z`;
/// `before`/`after` are block states.
pub const TICKREEL_WORLD_CHANGE_BLOCK: u32 = 0;
/// `TickreelWorldChange::kind`: an entity's health changed: `entity`; `before`/`after` are
/// hundredths of a health point.
pub const TICKREEL_WORLD_CHANGE_HEALTH: u32 = 1;
/// `TickreelWorldChange::kind`: what an entity has in a slot changed: `entity`, `slot`;
/// `before`/`after` are items with `before_count`/`after_count`.
pub const TICKREEL_WORLD_CHANGE_EQUIPMENT: u32 = 2;

impl CResult for BlockAt<'_> {
    type C = TickreelBlockAt;
    fn into_c(self) -> FfiResult<TickreelBlockAt> {
        Ok(TickreelBlockAt {
            known: self.edited.or(self.terrain).is_some(),
            edited: self.edited.is_some(),
            state: self.edited.or(self.terrain).unwrap_or(0),
            block_entity: self.block_entity.map_or(std::ptr::null(), <[u8]>::as_ptr),
            block_entity_len: self.block_entity.map_or(0, <[u8]>::len),
        })
    }
}

impl CArrayResult for Blocks<'_> {
    type Item = TickreelBlockState;
    fn len(&self) -> usize {
        self.0.blocks.len()
    }
    fn write(self, out: &OutArray<TickreelBlockState>) {
        for (i, &(p, state)) in self.0.blocks.iter().enumerate() {
            out.set(
                i,
                TickreelBlockState {
                    x: p.x,
                    y: p.y,
                    z: p.z,
                    state,
                },
            );
        }
    }
    fn describe(&self) -> String {
        format!("{} edited blocks", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::TICKREEL_SLOT_MAIN_HAND;
    use crate::ffi::TickreelUpdate;
    use crate::ffi::batch::*;
    use crate::ffi::generated::playhead::*;
    use crate::ffi::generated::reader::*;
    use crate::ffi::generated::records::*;
    use crate::ffi::generated::world_state::*;
    use crate::ffi::result::TickreelResult;
    use crate::ffi::writer::*;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    /// Ticks 0..60 of entity 1 through the C functions, with world events: a block placed at
    /// tick 10 (a chest with NBT), changed at tick 30, a second block at tick 40; health 2000 at
    /// tick 5 and 1500 at tick 35; a sword in the main hand from tick 20.
    fn record(dir: &std::path::Path) -> CString {
        let path = CString::new(dir.join("w.reel").to_str().unwrap()).unwrap();
        let w = crate::ffi::writer::writer(&path, 10, 20);
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        let nbt = [10u8, 0, 0, 0];
        for t in 0..60u32 {
            assert_eq!(tickreel_batch_clear(b), OK);
            let x = f64::from(t) * 0.1;
            let r = if t == 0 {
                tickreel_batch_entity_add(b, 1, 7, x, 64.0, 0.0, 0.0, 0.0)
            } else {
                tickreel_batch_pose(b, 1, x, 64.0, 0.0, 0.0, 0.0)
            };
            assert_eq!(r, OK);
            // SAFETY: `nbt` is readable for its length; NULL with length 0.
            unsafe {
                match t {
                    5 => assert_eq!(tickreel_batch_health(b, 1, 2000), OK),
                    10 => assert_eq!(
                        tickreel_batch_block_change(b, 1, 64, -2, 54, true, 1, nbt.as_ptr(), 4),
                        OK
                    ),
                    20 => assert_eq!(
                        tickreel_batch_equipment(b, 1, TICKREEL_SLOT_MAIN_HAND, 812, 1),
                        OK
                    ),
                    30 => assert_eq!(
                        tickreel_batch_block_change(b, 1, 64, -2, 0, true, 1, std::ptr::null(), 0),
                        OK
                    ),
                    35 => assert_eq!(tickreel_batch_health(b, 1, 1500), OK),
                    40 => assert_eq!(
                        tickreel_batch_block_change(b, -3, 70, 9, 1, false, 0, std::ptr::null(), 0),
                        OK
                    ),
                    _ => {}
                }
            }
            assert_eq!(tickreel_reel_writer_write_batch(w, t, b), OK);
        }
        assert_eq!(tickreel_batch_free(b), OK);
        let mut size = 0;
        // SAFETY: `size` is writable.
        assert_eq!(unsafe { tickreel_reel_writer_finish(w, &mut size) }, OK);
        assert_eq!(tickreel_reel_writer_free(w), OK);
        path
    }

    fn info(ws: *mut TickreelWorldState) -> TickreelWorldStateInfo {
        let mut i = TickreelWorldStateInfo::default();
        // SAFETY: `i` is writable.
        assert_eq!(unsafe { tickreel_world_state_info(ws, &mut i) }, OK);
        i
    }

    fn blocks(ws: *mut TickreelWorldState) -> Vec<TickreelBlockState> {
        let mut n = 0;
        // SAFETY: capacity 0 with NULL is a count query.
        let res = unsafe { tickreel_world_state_blocks(ws, std::ptr::null_mut(), 0, &mut n) };
        assert!(res == OK || res == TickreelResult::BufferTooSmall);
        let mut v = vec![TickreelBlockState::default(); n];
        // SAFETY: `v` has room for `n`.
        assert_eq!(
            unsafe { tickreel_world_state_blocks(ws, v.as_mut_ptr(), n, &mut n) },
            OK
        );
        v
    }

    fn block_at(ws: *mut TickreelWorldState, x: i32, y: i32, z: i32) -> TickreelBlockAt {
        let mut b = std::mem::MaybeUninit::uninit();
        // SAFETY: `b` is writable.
        assert_eq!(
            unsafe { tickreel_world_state_block(ws, x, y, z, b.as_mut_ptr()) },
            OK
        );
        // SAFETY: written by the call above.
        unsafe { b.assume_init() }
    }

    #[test]
    fn the_world_at_a_tick_reads_as_typed_lists() {
        let dir = tempfile::tempdir().unwrap();
        let path = record(dir.path());
        let mut r = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        assert_eq!(unsafe { tickreel_reader_open(path.as_ptr(), &mut r) }, OK);

        let mut ws = std::ptr::null_mut();
        // SAFETY: `ws` is writable.
        assert_eq!(unsafe { tickreel_reader_world_at(r, 25, &mut ws) }, OK);
        let i = info(ws);
        assert_eq!(
            (i.tick, i.complete, i.block_count, i.block_entity_count),
            (25, true, 1, 1)
        );
        assert_eq!((i.entity_count, i.equipment_count), (1, 1));
        assert_eq!(
            blocks(ws),
            vec![TickreelBlockState {
                x: 1,
                y: 64,
                z: -2,
                state: 54
            }]
        );
        let b = block_at(ws, 1, 64, -2);
        assert_eq!((b.edited, b.state, b.block_entity_len), (true, 54, 4));
        // SAFETY: the pointer is valid for its length until the handle is freed.
        let nbt = unsafe { std::slice::from_raw_parts(b.block_entity, b.block_entity_len) };
        assert_eq!(nbt, [10, 0, 0, 0]);
        let b = block_at(ws, 0, 0, 0);
        assert_eq!((b.edited, b.block_entity.is_null()), (false, true));
        let mut be = [TickreelBlockEntity {
            x: 0,
            y: 0,
            z: 0,
            data: std::ptr::null(),
            data_len: 0,
        }; 1];
        let mut n = 0;
        // SAFETY: `be` has room for 1.
        let res = unsafe { tickreel_world_state_block_entities(ws, be.as_mut_ptr(), 1, &mut n) };
        assert_eq!(
            (res, n, be[0].x, be[0].z, be[0].data_len),
            (OK, 1, 1, -2, 4)
        );
        let mut ents = [TickreelEntityWorld::default(); 1];
        // SAFETY: `ents` has room for 1.
        let res = unsafe { tickreel_world_state_entities(ws, ents.as_mut_ptr(), 1, &mut n) };
        assert_eq!(res, OK);
        assert_eq!(
            ents[0],
            TickreelEntityWorld {
                entity: 1,
                has_health: true,
                health: 2000,
                equipment_count: 1
            }
        );
        let mut eq = [TickreelEquipment::default(); 1];
        // SAFETY: `eq` has room for 1.
        let res = unsafe { tickreel_world_state_equipment(ws, eq.as_mut_ptr(), 1, &mut n) };
        assert_eq!(res, OK);
        assert_eq!(
            eq[0],
            TickreelEquipment {
                entity: 1,
                slot: TICKREEL_SLOT_MAIN_HAND,
                item: 812,
                count: 1
            }
        );
        assert_eq!(tickreel_world_state_free(ws), OK);
        assert_eq!(tickreel_world_state_free(ws), TickreelResult::InvalidHandle);

        // After tick 40 (from the snapshot at tick 40's chunk or before): both blocks, the first
        // changed, no block entity any more; health 1500.
        // SAFETY: `ws` is writable.
        assert_eq!(unsafe { tickreel_reader_world_at(r, 59, &mut ws) }, OK);
        let i = info(ws);
        assert_eq!((i.tick, i.block_count, i.block_entity_count), (59, 2, 0));
        assert_eq!(
            blocks(ws),
            vec![
                TickreelBlockState {
                    x: -3,
                    y: 70,
                    z: 9,
                    state: 1
                },
                TickreelBlockState {
                    x: 1,
                    y: 64,
                    z: -2,
                    state: 0
                },
            ]
        );
        let mut small = [TickreelBlockState::default(); 1];
        // SAFETY: `small` has room for 1 (2 blocks: nothing is written).
        let res = unsafe { tickreel_world_state_blocks(ws, small.as_mut_ptr(), 1, &mut n) };
        assert_eq!((res, n), (TickreelResult::BufferTooSmall, 2));
        assert_eq!(tickreel_world_state_free(ws), OK);
        // A reader handle is not a world state.
        let res =
            unsafe { tickreel_world_state_info(r.cast(), &mut TickreelWorldStateInfo::default()) };
        assert_eq!(res, TickreelResult::InvalidHandle);
        assert_eq!(tickreel_reader_free(r), OK);
    }

    #[test]
    fn a_seek_reports_world_changes_and_the_playhead_world() {
        let dir = tempfile::tempdir().unwrap();
        let path = record(dir.path());
        let mut p = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        assert_eq!(
            unsafe { tickreel_playhead_open(path.as_ptr(), 0, &mut p) },
            OK
        );
        let mut u = TickreelUpdate::default();
        // SAFETY: `u` is writable.
        assert_eq!(unsafe { tickreel_playhead_seek(p, 45, &mut u) }, OK);
        assert_eq!(u.position, 45);
        let changes = |p| {
            let mut n = 0;
            // SAFETY: capacity 0 with NULL is a count query.
            unsafe { tickreel_playhead_world_changes(p, std::ptr::null_mut(), 0, &mut n) };
            let mut v = vec![TickreelWorldChange::default(); n];
            // SAFETY: `v` has room for `n`.
            let res = unsafe { tickreel_playhead_world_changes(p, v.as_mut_ptr(), n, &mut n) };
            assert_eq!(res, OK);
            v.sort_by_key(|c| (c.kind, c.x, c.entity, c.slot));
            v
        };
        // From tick 0 (nothing) to 45: two blocks, a health and a slot, each once.
        let c = changes(p);
        assert_eq!(c.len(), 4, "{c:?}");
        assert_eq!(
            (
                c[0].kind,
                c[0].x,
                c[0].has_before,
                c[0].has_after,
                c[0].after
            ),
            (TICKREEL_WORLD_CHANGE_BLOCK, -3, false, true, 1)
        );
        assert_eq!((c[1].x, c[1].z, c[1].after), (1, -2, 0));
        assert_eq!(
            (c[2].kind, c[2].entity, c[2].has_before, c[2].after),
            (TICKREEL_WORLD_CHANGE_HEALTH, 1, false, 1500)
        );
        assert_eq!(
            (
                c[3].kind,
                c[3].slot,
                c[3].after,
                c[3].after_count,
                c[3].has_before
            ),
            (
                TICKREEL_WORLD_CHANGE_EQUIPMENT,
                TICKREEL_SLOT_MAIN_HAND,
                812,
                1,
                false
            )
        );
        // Back to 25: the second block goes (no longer edited), the first had state 54 there.
        // SAFETY: `u` is writable.
        assert_eq!(unsafe { tickreel_playhead_seek(p, 25, &mut u) }, OK);
        let c = changes(p);
        let block = |x| {
            c.iter()
                .find(|c| c.kind == TICKREEL_WORLD_CHANGE_BLOCK && c.x == x)
                .copied()
        };
        let gone = block(-3).expect("the block placed at tick 40");
        assert_eq!(
            (gone.has_before, gone.before, gone.has_after),
            (true, 1, false)
        );
        let back = block(1).expect("the block changed at tick 30");
        assert_eq!((back.before, back.after), (0, 54));
        let health = c
            .iter()
            .find(|c| c.kind == TICKREEL_WORLD_CHANGE_HEALTH)
            .unwrap();
        assert_eq!((health.before, health.after), (1500, 2000));

        let mut ws = std::ptr::null_mut();
        // SAFETY: `ws` is writable.
        assert_eq!(unsafe { tickreel_playhead_world_state(p, &mut ws) }, OK);
        let i = info(ws);
        assert_eq!(
            (i.tick, i.complete, i.block_count, i.block_entity_count),
            (25, true, 1, 1)
        );
        assert_eq!(block_at(ws, 1, 64, -2).state, 54);
        assert_eq!(tickreel_world_state_free(ws), OK);
        assert_eq!(tickreel_playhead_free(p), OK);
    }
}
