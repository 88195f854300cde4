//! Terrain in C: `TickreelTerrainSection`, one chunk section in Minecraft's layout
//! ([`tickreel::format::Section`]), both as the caller lends it to
//! `tickreel_recorder_offer_terrain` / `tickreel_reel_writer_offer_terrain` (checked and copied
//! here, before the operation runs) and as `tickreel_world_state_terrain_sections` fills it in
//! (pointing into the world state). The operations are generated from
//! `crate::api::engine::recorder_offer_terrain`, `crate::api::writer::offer_terrain` and
//! `crate::api::world_state::terrain_sections`.

use super::args::{self, OutArray};
use super::convert::{CArg, CArrayResult};
use super::result::{FfiError, FfiResult};
use crate::api::TerrainSections;
use crate::api::world_state::TerrainSectionsOf;
use crate::shared::terrain::OfferBounds;
use tickreel::format::Section;

/// One chunk section: 16×16×16 blocks at section position (`cx`, `cy`, `cz`) (block
/// `x = 16·cx + lx`, likewise for y and z), exactly as the game keeps it (a Paper plugin reads
/// it from the section's `PalettedContainer`): a palette of block states (ids of the block
/// palette, `tickreel_reader_palette_name`) and, for each block, an index into it, `bits` per
/// index, packed into `uint64_t`s as Minecraft packs them (entries in y-z-x order, `64 / bits`
/// per long, the first in the lowest bits, none spanning two longs). A section of one block
/// state has a palette of one, `bits` 0 and no longs.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TickreelTerrainSection {
    /// Section x (block x / 16, rounded down).
    pub cx: i32,
    /// Section y (block y / 16, rounded down).
    pub cy: i32,
    /// Section z (block z / 16, rounded down).
    pub cz: i32,
    /// The palette: `palette_len` block states (1 to 4096).
    pub palette: *const u32,
    /// Entries at `palette`.
    pub palette_len: usize,
    /// Bits per index: 0 for a palette of one, else at least `max(4, ⌈log2(palette_len)⌉)`, at
    /// most 16.
    pub bits: u32,
    /// The packed indices: `packed_len` longs (`⌈4096 / (64 / bits)⌉`; 0 when `bits` is 0).
    pub packed: *const u64,
    /// Longs at `packed`.
    pub packed_len: usize,
}

/// Sections the caller lends: their number and sizes checked ([`OfferBounds`]) before any is
/// copied; the library then validates each section's contents ([`Section::validate`]).
impl CArg for TerrainSections {
    type C = (*const TickreelTerrainSection, usize);
    type Stored = TerrainSections;
    unsafe fn store(
        (ptr, count): (*const TickreelTerrainSection, usize),
        name: &'static str,
    ) -> FfiResult<TerrainSections> {
        let mut bounds = OfferBounds::new(count, name).map_err(FfiError::Invalid)?;
        // SAFETY: forwarded contract: `count` readable sections at `ptr`, or `count` 0.
        let raw = unsafe { args::array(ptr, count, name) }?;
        for (i, s) in raw.iter().enumerate() {
            bounds
                .section(name, i, s.palette_len, u64::from(s.bits), s.packed_len)
                .map_err(FfiError::Invalid)?;
        }
        let mut sections = Vec::with_capacity(count);
        for s in raw {
            // SAFETY: forwarded contract: each section's `palette` and `packed` point to
            // `palette_len` / `packed_len` readable values (or their length is 0).
            let palette = unsafe { args::array(s.palette, s.palette_len, "palette") }?;
            // SAFETY: as above.
            let packed = unsafe { args::array(s.packed, s.packed_len, "packed") }?;
            sections.push(Section {
                cx: s.cx,
                cy: s.cy,
                cz: s.cz,
                palette: palette.to_vec(),
                bits: s.bits as u8,
                packed: packed.to_vec(),
            });
        }
        Ok(TerrainSections(sections))
    }
}

impl CArrayResult for TerrainSectionsOf<'_> {
    type Item = TickreelTerrainSection;
    fn len(&self) -> usize {
        self.0.terrain.len()
    }
    fn write(self, out: &OutArray<TickreelTerrainSection>) {
        for (i, s) in self.0.terrain.sections().enumerate() {
            out.set(
                i,
                TickreelTerrainSection {
                    cx: s.cx,
                    cy: s.cy,
                    cz: s.cz,
                    palette: s.palette.as_ptr(),
                    palette_len: s.palette.len(),
                    bits: u32::from(s.bits),
                    packed: if s.packed.is_empty() {
                        std::ptr::null()
                    } else {
                        s.packed.as_ptr()
                    },
                    packed_len: s.packed.len(),
                },
            );
        }
    }
    fn describe(&self) -> String {
        format!("{} terrain sections", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::batch::*;
    use crate::ffi::generated::reader::*;
    use crate::ffi::generated::world_state::*;
    use crate::ffi::generated::writer::*;
    use crate::ffi::result::TickreelResult;
    use crate::ffi::{TickreelBlockAt, TickreelWorldState, TickreelWorldStateInfo};
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    fn section(
        cx: i32,
        cy: i32,
        cz: i32,
        palette: &[u32],
        packed: &[u64],
        bits: u32,
    ) -> TickreelTerrainSection {
        TickreelTerrainSection {
            cx,
            cy,
            cz,
            palette: palette.as_ptr(),
            palette_len: palette.len(),
            bits,
            packed: if packed.is_empty() {
                std::ptr::null()
            } else {
                packed.as_ptr()
            },
            packed_len: packed.len(),
        }
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

    /// Terrain offered through the C writer at tick 0 (section (0,4,0) all stone, section
    /// (1,4,0) two states: block lx 0 of each row dirt, the rest grass), a block edited inside it
    /// at tick 5; read back through a world state.
    #[test]
    fn terrain_offered_in_c_reads_back_under_the_edited_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let path = CString::new(dir.path().join("t.reel").to_str().unwrap()).unwrap();
        let w = crate::ffi::writer::writer(&path, 10, 600);
        let stone = [1u32];
        let two = [9u32, 8];
        // 4 bits: 16 entries per long; entry lx 0 of each row (every 16th) is index 0 (dirt 9).
        let packed = vec![0x1111_1111_1111_1110u64; 256];
        let sections = [
            section(0, 4, 0, &stone, &[], 0),
            section(1, 4, 0, &two, &packed, 4),
        ];
        // Refused, nothing offered: an empty palette, NULL with a count, a position twice, bits
        // not matching the indices.
        let empty = [section(0, 4, 0, &[], &[], 0)];
        // SAFETY: `empty` is readable (its palette has length 0).
        let res = unsafe { tickreel_reel_writer_offer_terrain(w, empty.as_ptr(), 1) };
        assert_eq!(res, TickreelResult::InvalidArgument);
        // SAFETY: NULL with a count is refused before reading.
        let res = unsafe { tickreel_reel_writer_offer_terrain(w, std::ptr::null(), 1) };
        assert_eq!(res, TickreelResult::NullArgument);
        let twice = [sections[0], sections[0]];
        // SAFETY: each section points to readable data for its lengths.
        let res = unsafe { tickreel_reel_writer_offer_terrain(w, twice.as_ptr(), 2) };
        assert_eq!(res, TickreelResult::InvalidArgument);
        let bad_bits = [section(1, 4, 0, &two, &packed, 5)];
        // SAFETY: as above.
        let res = unsafe { tickreel_reel_writer_offer_terrain(w, bad_bits.as_ptr(), 1) };
        assert_eq!(res, TickreelResult::InvalidArgument);
        // SAFETY: as above.
        assert_eq!(
            unsafe { tickreel_reel_writer_offer_terrain(w, sections.as_ptr(), 2) },
            OK
        );
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        for t in 0..20u32 {
            assert_eq!(tickreel_batch_clear(b), OK);
            let r = if t == 0 {
                tickreel_batch_entity_add(b, 1, 7, 0.0, 64.0, 0.0, 0.0, 0.0)
            } else {
                tickreel_batch_pose(b, 1, 0.0, 64.0, 0.0, 0.0, 0.0)
            };
            assert_eq!(r, OK);
            if t == 5 {
                // SAFETY: NULL with length 0.
                let r = unsafe {
                    tickreel_batch_block_change(b, 17, 64, 0, 42, false, 0, std::ptr::null(), 0)
                };
                assert_eq!(r, OK);
            }
            assert_eq!(tickreel_reel_writer_write_batch(w, t, b), OK);
        }
        assert_eq!(tickreel_batch_free(b), OK);
        let mut size = 0;
        // SAFETY: `size` is writable.
        assert_eq!(unsafe { tickreel_reel_writer_finish(w, &mut size) }, OK);
        assert_eq!(tickreel_reel_writer_free(w), OK);

        let mut r = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        assert_eq!(unsafe { tickreel_reader_open(path.as_ptr(), &mut r) }, OK);
        let mut ws = std::ptr::null_mut();
        // SAFETY: `ws` is writable.
        assert_eq!(unsafe { tickreel_reader_world_at(r, 15, &mut ws) }, OK);
        let mut info = TickreelWorldStateInfo::default();
        // SAFETY: `info` is writable.
        assert_eq!(unsafe { tickreel_world_state_info(ws, &mut info) }, OK);
        assert_eq!((info.block_count, info.terrain_section_count), (1, 2));

        // Terrain only: stone in section (0,4,0); dirt at lx 0 and grass elsewhere in (1,4,0).
        let s = block_at(ws, 3, 70, 5);
        assert_eq!((s.known, s.edited, s.state), (true, false, 1));
        let s = block_at(ws, 16, 64, 3);
        assert_eq!((s.known, s.edited, s.state), (true, false, 9));
        let s = block_at(ws, 18, 79, 15);
        assert_eq!((s.known, s.edited, s.state), (true, false, 8));
        // The edited block wins over the terrain; outside every section nothing is known.
        let s = block_at(ws, 17, 64, 0);
        assert_eq!((s.known, s.edited, s.state), (true, true, 42));
        let s = block_at(ws, 40, 64, 0);
        assert_eq!((s.known, s.edited, s.state), (false, false, 0));

        let mut n = 0;
        // SAFETY: capacity 0 with NULL is a count query.
        let res =
            unsafe { tickreel_world_state_terrain_sections(ws, std::ptr::null_mut(), 0, &mut n) };
        assert_eq!((res, n), (TickreelResult::BufferTooSmall, 2));
        let mut out = [section(0, 0, 0, &[], &[], 0); 2];
        // SAFETY: `out` has room for 2.
        let res = unsafe { tickreel_world_state_terrain_sections(ws, out.as_mut_ptr(), 2, &mut n) };
        assert_eq!((res, n), (OK, 2));
        assert_eq!(
            (out[0].cx, out[0].cy, out[0].bits, out[0].packed_len),
            (0, 4, 0, 0)
        );
        assert!(out[0].packed.is_null());
        assert_eq!((out[1].cx, out[1].bits, out[1].palette_len), (1, 4, 2));
        // SAFETY: valid until the world state is freed.
        let (pal, longs) = unsafe {
            (
                std::slice::from_raw_parts(out[1].palette, out[1].palette_len),
                std::slice::from_raw_parts(out[1].packed, out[1].packed_len),
            )
        };
        assert_eq!((pal, longs), (&two[..], &packed[..]));
        assert_eq!(tickreel_world_state_free(ws), OK);
        assert_eq!(tickreel_reader_free(r), OK);
    }
}
