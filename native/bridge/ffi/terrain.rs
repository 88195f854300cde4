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
use tickreel::format::{Limits, MAX_SECTION_BITS, MAX_SECTION_PALETTE, SECTION_BLOCKS, Section};

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

/// The most longs a section's indices take (16 bits per index).
const MAX_PACKED: usize = SECTION_BLOCKS * MAX_SECTION_BITS as usize / 64;

/// Sections the caller lends: checked (at most `Limits::max_terrain_sections` sections, each
/// within a section's palette and index sizes, at most twice `Limits::max_terrain_bytes` in all,
/// which any offer the library accepts stays within) and copied; the library then validates each
/// section's contents ([`Section::validate`]).
impl CArg for TerrainSections {
    type C = (*const TickreelTerrainSection, usize);
    type Stored = TerrainSections;
    unsafe fn store(
        (ptr, count): (*const TickreelTerrainSection, usize),
        name: &'static str,
    ) -> FfiResult<TerrainSections> {
        let limits = Limits::default();
        if count > limits.max_terrain_sections() {
            return Err(FfiError::Invalid(format!(
                "`{name}`: {count} sections; at most {}",
                limits.max_terrain_sections()
            )));
        }
        // SAFETY: forwarded contract: `count` readable sections at `ptr`, or `count` 0.
        let raw = unsafe { args::array(ptr, count, name) }?;
        let mut total = 0usize;
        for (i, s) in raw.iter().enumerate() {
            if s.palette_len == 0 || s.palette_len > MAX_SECTION_PALETTE {
                return Err(FfiError::Invalid(format!(
                    "`{name}[{i}]`: a palette of {} entries (1 to {MAX_SECTION_PALETTE})",
                    s.palette_len
                )));
            }
            if s.packed_len > MAX_PACKED {
                return Err(FfiError::Invalid(format!(
                    "`{name}[{i}]`: {} packed longs; at most {MAX_PACKED}",
                    s.packed_len
                )));
            }
            if s.bits > u32::from(MAX_SECTION_BITS) {
                return Err(FfiError::Invalid(format!(
                    "`{name}[{i}]`: {} bits per index; at most {MAX_SECTION_BITS}",
                    s.bits
                )));
            }
            total += 4 * s.palette_len + 8 * s.packed_len;
        }
        if total > 2 * limits.max_terrain_bytes() {
            return Err(FfiError::Invalid(format!(
                "`{name}`: {total} bytes of palettes and indices; at most {}",
                2 * limits.max_terrain_bytes()
            )));
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
