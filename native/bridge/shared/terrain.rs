//! The checks both bindings make on the terrain a caller lends (C's `TickreelTerrainSection`
//! array, Java's `TerrainSection` list) before copying any of it: how many sections, and each
//! section's palette, bits and packed longs within a section's sizes, so that what is copied is
//! bounded by the library's limits whatever the caller claims. The library then validates each
//! section's contents itself ([`tickreel::format::Section::validate`]).

use tickreel::format::{Limits, MAX_SECTION_BITS, MAX_SECTION_PALETTE, SECTION_BLOCKS};

/// The most longs a section's indices take (16 bits per index).
pub(crate) const MAX_PACKED: usize = SECTION_BLOCKS * MAX_SECTION_BITS as usize / 64;

/// The sizes one offer may claim, checked as they are read.
pub(crate) struct OfferBounds {
    limits: Limits,
    /// Bytes of palettes (4 per entry) and indices (8 per long) so far.
    total: usize,
}

impl OfferBounds {
    /// Checks the number of sections (at most `Limits::max_terrain_sections`).
    pub(crate) fn new(count: usize, name: &str) -> Result<OfferBounds, String> {
        let limits = Limits::default();
        if count > limits.max_terrain_sections() {
            return Err(format!(
                "`{name}`: {count} sections; at most {}",
                limits.max_terrain_sections()
            ));
        }
        Ok(OfferBounds { limits, total: 0 })
    }

    /// Checks section `i`'s sizes (a palette of 1 to 4096 states, at most 16 bits per index, at
    /// most the longs of 16-bit indices) and adds it to the offer's total, which must stay within
    /// twice `Limits::max_terrain_bytes` (any offer the library accepts does).
    pub(crate) fn section(
        &mut self,
        name: &str,
        i: usize,
        palette_len: usize,
        bits: u64,
        packed_len: usize,
    ) -> Result<(), String> {
        if palette_len == 0 || palette_len > MAX_SECTION_PALETTE {
            return Err(format!(
                "`{name}[{i}]`: a palette of {palette_len} entries (1 to {MAX_SECTION_PALETTE})"
            ));
        }
        if packed_len > MAX_PACKED {
            return Err(format!(
                "`{name}[{i}]`: {packed_len} packed longs; at most {MAX_PACKED}"
            ));
        }
        if bits > u64::from(MAX_SECTION_BITS) {
            return Err(format!(
                "`{name}[{i}]`: {bits} bits per index; at most {MAX_SECTION_BITS}"
            ));
        }
        self.total += 4 * palette_len + 8 * packed_len;
        if self.total > 2 * self.limits.max_terrain_bytes() {
            return Err(format!(
                "`{name}`: more than {} bytes of palettes and indices",
                2 * self.limits.max_terrain_bytes()
            ));
        }
        Ok(())
    }
}
