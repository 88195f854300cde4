//! One chunk section in Minecraft's own layout: a palette of block states and, per block, an
//! index into it, packed into longs. Bytes only: no I/O.

use crate::error::{Error, Result};

/// Blocks in a section (16 × 16 × 16).
pub const SECTION_BLOCKS: usize = 4096;
/// Most palette entries of a section: one per block.
pub const MAX_SECTION_PALETTE: usize = SECTION_BLOCKS;
/// Widest index a section may use.
pub const MAX_SECTION_BITS: u8 = 16;

/// One chunk section: 16×16×16 blocks at section position (`cx`, `cy`, `cz`) (block
/// `x = 16·cx + lx`, and likewise for y and z), as a palette of block-state ids (named through
/// the recording's block palette, [`crate::format::Palette`]) and, for each block, an index into
/// it, packed as Minecraft packs them: entries in y-z-x order (entry `(ly·16 + lz)·16 + lx`),
/// `64 / bits` entries per `u64`, the first in the lowest bits, an entry never spanning two longs.
/// A section of one block state has a palette of one, `bits` 0 and no longs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub cx: i32,
    pub cy: i32,
    pub cz: i32,
    pub palette: Vec<u32>,
    /// Bits per index: 0 for a palette of one, else at least `max(4, ⌈log2(palette len)⌉)`, at
    /// most 16.
    pub bits: u8,
    pub packed: Vec<u64>,
}

/// The least bits a section with a palette of `len` entries uses (0 for one entry).
pub fn bits_for(len: usize) -> u8 {
    if len <= 1 {
        0
    } else {
        let need = usize::BITS - (len - 1).leading_zeros();
        need.max(4) as u8
    }
}

/// Longs a section packed with `bits` per entry takes.
pub fn longs_for(bits: u8) -> usize {
    if bits == 0 {
        0
    } else {
        SECTION_BLOCKS.div_ceil(64 / bits as usize)
    }
}

impl Section {
    /// A section of one block state.
    pub fn single(cx: i32, cy: i32, cz: i32, state: u32) -> Section {
        Section {
            cx,
            cy,
            cz,
            palette: vec![state],
            bits: 0,
            packed: Vec::new(),
        }
    }

    /// Builds a section from its 4096 block states in y-z-x order, with a palette in order of
    /// first appearance and the least bits.
    pub fn from_states(cx: i32, cy: i32, cz: i32, states: &[u32]) -> Result<Section> {
        if states.len() != SECTION_BLOCKS {
            return Err(Error::invalid(format!(
                "a section has {SECTION_BLOCKS} blocks, not {}",
                states.len()
            )));
        }
        let mut palette: Vec<u32> = Vec::new();
        let mut lookup: rustc_hash::FxHashMap<u32, u16> = Default::default();
        let mut indices = vec![0u16; SECTION_BLOCKS];
        for (slot, &s) in indices.iter_mut().zip(states) {
            *slot = *lookup.entry(s).or_insert_with(|| {
                palette.push(s);
                (palette.len() - 1) as u16
            });
        }
        let bits = bits_for(palette.len());
        Ok(Section {
            cx,
            cy,
            cz,
            packed: pack(&indices, bits),
            palette,
            bits,
        })
    }

    /// Checks the section against its own rules: a palette of 1 to 4096 entries, `bits` as
    /// described on [`Section`], exactly [`longs_for`] longs, every index inside the palette,
    /// unused high bits of each long zero.
    pub fn validate(&self) -> Result<()> {
        let at = || format!("section ({}, {}, {})", self.cx, self.cy, self.cz);
        let p = self.palette.len();
        if p == 0 || p > MAX_SECTION_PALETTE {
            return Err(Error::invalid(format!(
                "{}: a palette of {p} entries (1 to {MAX_SECTION_PALETTE})",
                at()
            )));
        }
        let min = bits_for(p);
        let bits_ok = if p == 1 {
            self.bits == 0
        } else {
            (min..=MAX_SECTION_BITS).contains(&self.bits)
        };
        if !bits_ok {
            return Err(Error::invalid(format!(
                "{}: {} bits per index for a palette of {p} (needs {})",
                at(),
                self.bits,
                if p == 1 {
                    "0".to_string()
                } else {
                    format!("{min} to {MAX_SECTION_BITS}")
                }
            )));
        }
        let longs = longs_for(self.bits);
        if self.packed.len() != longs {
            return Err(Error::invalid(format!(
                "{}: {} longs of packed indices, {longs} expected for {} bits",
                at(),
                self.packed.len(),
                self.bits
            )));
        }
        if self.bits == 0 {
            return Ok(());
        }
        let bits = u32::from(self.bits);
        let per = 64 / bits;
        let mask = (1u64 << bits) - 1;
        for (i, &long) in self.packed.iter().enumerate() {
            let entries = (SECTION_BLOCKS - i * per as usize).min(per as usize) as u32;
            let used = entries * bits;
            if used < 64 && long >> used != 0 {
                return Err(Error::invalid(format!(
                    "{}: long {i} has bits set past its {entries} entries",
                    at()
                )));
            }
            for e in 0..entries {
                let idx = (long >> (e * bits)) & mask;
                if idx as usize >= p {
                    return Err(Error::invalid(format!(
                        "{}: block {} indexes entry {idx} of a palette of {p}",
                        at(),
                        i * per as usize + e as usize
                    )));
                }
            }
        }
        Ok(())
    }

    /// The palette index of block `i` (y-z-x order, below 4096) of a valid section.
    pub fn index(&self, i: usize) -> usize {
        if self.bits == 0 {
            return 0;
        }
        let bits = self.bits as usize;
        let per = 64 / bits;
        ((self.packed[i / per] >> ((i % per) * bits)) & ((1u64 << bits) - 1)) as usize
    }

    /// The block state at local position (`lx`, `ly`, `lz`), each 0 to 15, of a valid section.
    pub fn state(&self, lx: usize, ly: usize, lz: usize) -> u32 {
        self.palette[self.index((ly * 16 + lz) * 16 + lx)]
    }

    /// The section's position as the key [`Terrain`] sorts by (x, then z, then y: a column's
    /// sections together).
    pub fn key(&self) -> (i32, i32, i32) {
        (self.cx, self.cz, self.cy)
    }

    /// The 4096 palette indices, y-z-x order.
    pub(super) fn indices(&self) -> Vec<u16> {
        (0..SECTION_BLOCKS).map(|i| self.index(i) as u16).collect()
    }
}

/// Packs palette indices as Minecraft does (see [`Section`]).
pub(super) fn pack(indices: &[u16], bits: u8) -> Vec<u64> {
    if bits == 0 {
        return Vec::new();
    }
    let bits = bits as usize;
    let per = 64 / bits;
    let mut out = vec![0u64; longs_for(bits as u8)];
    for (i, &v) in indices.iter().enumerate() {
        out[i / per] |= u64::from(v) << ((i % per) * bits);
    }
    out
}

/// A section of `kinds` block states in a varied pattern (tests).
#[cfg(test)]
pub(crate) fn varied(cx: i32, cy: i32, cz: i32, kinds: u32) -> Section {
    let states: Vec<u32> = (0..SECTION_BLOCKS as u32)
        .map(|i| (i * 7 + i / 13) % kinds + 1)
        .collect();
    Section::from_states(cx, cy, cz, &states).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minecraft_layout() {
        assert_eq!(bits_for(1), 0);
        assert_eq!(bits_for(2), 4);
        assert_eq!(bits_for(16), 4);
        assert_eq!(bits_for(17), 5);
        assert_eq!(bits_for(4096), 12);
        assert_eq!(longs_for(4), 256);
        // 5 bits: 12 entries per long, 4 bits unused in each, 342 longs (Minecraft's count).
        assert_eq!(longs_for(5), 342);
        let mut states = vec![1u32; SECTION_BLOCKS];
        states[(3 * 16 + 2) * 16 + 1] = 9; // x 1, y 3, z 2
        let s = Section::from_states(0, 0, 0, &states).unwrap();
        assert_eq!((s.bits, s.palette.as_slice()), (4, &[1, 9][..]));
        assert_eq!(s.state(1, 3, 2), 9);
        assert_eq!(s.state(2, 3, 1), 1);
        // Entry 801 = 50 * 16 + 1: long 50, bits 4..8.
        assert_eq!(s.packed[50], 1 << 4);
        s.validate().unwrap();
        assert_eq!(
            Section::from_states(0, 0, 0, &[5; SECTION_BLOCKS]).unwrap(),
            Section::single(0, 0, 0, 5)
        );
    }
}
