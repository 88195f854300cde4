//! Terrain: the blocks of an area as the game hands them over, in chunk sections (16×16×16
//! blocks, a palette plus packed indices, the layout Minecraft itself uses), so that a viewer can
//! draw the ground a player stood on, not only the blocks that world events changed. Bytes only:
//! no I/O.
//!
//! - [`Section`]: one section in Minecraft's layout, checked by [`Section::validate`]
//!   ([`section`]);
//! - [`Terrain`]: a set of sections by position, the terrain in effect at a tick, with the block
//!   at a position ([`Terrain::block`]);
//! - the **terrain piece** of a chunk frame ([`encode_piece`], [`piece_of`], [`decode_piece`];
//!   [`piece`]):
//!   a set of sections re-packed (one byte per block where the palette allows) and compressed
//!   with zstd at a high level, stored in a zstd *skippable frame* in front of the chunk's
//!   payload, so that zstd's own decompression (every reader, of every build) steps over it.
//!   The chunk's flag [`crate::format::FLAG_TERRAIN`] says the piece is there (FORMAT.md §6.1).

mod piece;
mod section;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::Limits;

pub(crate) use piece::TERRAIN_SKIPPABLE_MAGIC;
use piece::body_len;
pub(crate) use piece::decode_piece_where;
#[cfg_attr(not(feature = "wire"), allow(unused_imports))]
pub use piece::{
    TERRAIN_ZSTD_LEVEL, decode_body, decode_piece, encode_body, encode_piece, piece_of,
};
pub use section::{
    MAX_SECTION_BITS, MAX_SECTION_PALETTE, SECTION_BLOCKS, Section, bits_for, longs_for,
};

/// A set of sections by position: what a terrain offer hands over, and the terrain in effect at a
/// tick (every offer up to it, a later offer's section replacing an earlier one at the same
/// position).
///
/// The sections are shared (`Arc`): a clone, or the terrain at a later tick built on an earlier
/// one ([`Terrain::merge`]), copies no section.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terrain {
    sections: BTreeMap<(i32, i32, i32), Arc<Section>>,
}

impl Terrain {
    /// A terrain of `sections`, a later one replacing an earlier one at the same position.
    pub fn from_sections(sections: impl IntoIterator<Item = Section>) -> Terrain {
        let mut t = Terrain::default();
        for s in sections {
            t.sections.insert(s.key(), Arc::new(s));
        }
        t
    }
    pub fn len(&self) -> usize {
        self.sections.len()
    }
    pub fn is_empty(&self) -> bool {
        self.sections.is_empty()
    }
    /// The sections, sorted by x, then z, then y.
    pub fn sections(&self) -> impl Iterator<Item = &Section> {
        self.sections.values().map(|s| &**s)
    }
    /// The section at section position (`cx`, `cy`, `cz`).
    pub fn section(&self, cx: i32, cy: i32, cz: i32) -> Option<&Section> {
        self.sections.get(&(cx, cz, cy)).map(|s| &**s)
    }
    /// The heap this terrain holds (its sections counted whole, even where shared with another
    /// terrain): what a reader's cache budget counts of it. Within a few percent of what the
    /// allocator hands out for it (`tests/it/reader_memory.rs` measures it).
    pub fn heap_bytes(&self) -> usize {
        // A B-tree leaf of up to 11 keys of 12 bytes and 11 pointers (about 232 bytes), filled
        // to about two thirds; each section in an `Arc` (two counts and the `Section` itself).
        const PER_SECTION: usize = 36 + 16 + std::mem::size_of::<Section>();
        self.sections
            .values()
            .map(|s| PER_SECTION + s.palette.capacity() * 4 + s.packed.capacity() * 8)
            .sum()
    }
    /// The block state at block position (`x`, `y`, `z`), if a section covers it.
    pub fn block(&self, x: i32, y: i32, z: i32) -> Option<u32> {
        let s = self.section(x >> 4, y >> 4, z >> 4)?;
        Some(s.state((x & 15) as usize, (y & 15) as usize, (z & 15) as usize))
    }
    /// The first `n` sections (in the terrain's order), shared with this terrain.
    pub fn first_sections(&self, n: usize) -> Terrain {
        Terrain {
            sections: self
                .sections
                .iter()
                .take(n)
                .map(|(k, s)| (*k, s.clone()))
                .collect(),
        }
    }
    /// Drops the sections after position `last` (`cx`, `cz`, `cy`: the terrain's order).
    pub(crate) fn retain_up_to(&mut self, last: (i32, i32, i32)) {
        self.sections.retain(|k, _| *k <= last);
    }
    /// Adds `other`'s sections, replacing those at the same positions. Refuses (nothing changed)
    /// to hold more than `max_sections`.
    pub fn merge(&mut self, other: Terrain, max_sections: usize) -> Result<()> {
        let new = other
            .sections
            .keys()
            .filter(|k| !self.sections.contains_key(k))
            .count();
        if self.sections.len() + new > max_sections {
            return Err(Error::limit(format!(
                "terrain of {} sections; limit {max_sections}",
                self.sections.len() + new
            )));
        }
        self.sections.extend(other.sections);
        Ok(())
    }
    /// The sections whose chunk columns come within `radius` blocks (horizontally, column edge
    /// to column edge) of one of `columns` (chunk x, z): the terrain a shadow-play report keeps
    /// around the columns its player stood in.
    pub fn around_columns(
        &self,
        columns: &std::collections::HashSet<(i32, i32)>,
        radius: f64,
    ) -> Terrain {
        // Whole columns apart, times 16 blocks: 0 for the same or a neighbouring column.
        let gap = |a: i32, b: i32| (f64::from(a) - f64::from(b)).abs().max(1.0) * 16.0 - 16.0;
        let reach = (radius / 16.0).ceil() as i64 + 1;
        Terrain {
            sections: self
                .sections
                .iter()
                .filter(|(_, s)| {
                    columns.iter().any(|&(x, z)| {
                        (i64::from(x) - i64::from(s.cx)).abs() <= reach
                            && (i64::from(z) - i64::from(s.cz)).abs() <= reach
                            && gap(x, s.cx).hypot(gap(z, s.cz)) <= radius
                    })
                })
                .map(|(k, s)| (*k, s.clone()))
                .collect(),
        }
    }
}

/// Checks an offer: every section valid, at most `limits.max_terrain_sections()`, no position
/// twice, and its coded body within `limits.max_terrain_bytes()`. Returns the terrain.
pub fn check_offer(sections: Vec<Section>, limits: &Limits) -> Result<Terrain> {
    if sections.len() > limits.max_terrain_sections() {
        return Err(Error::limit(format!(
            "a terrain offer of {} sections; limit {}",
            sections.len(),
            limits.max_terrain_sections()
        )));
    }
    let n = sections.len();
    for s in &sections {
        s.validate()?;
    }
    let t = Terrain::from_sections(sections);
    if t.len() != n {
        return Err(Error::invalid(
            "a terrain offer names a section position twice",
        ));
    }
    check_offer_size(&t, limits)?;
    Ok(t)
}

/// Refuses terrain whose coded body exceeds `limits.max_terrain_bytes()`: the reader's bound,
/// the body's exact length (not an estimate, which refused terrain every reader accepts).
pub(crate) fn check_offer_size(t: &Terrain, limits: &Limits) -> Result<()> {
    let bytes = body_len(t);
    if bytes > limits.max_terrain_bytes() {
        return Err(Error::limit(format!(
            "terrain of {bytes} bytes coded; limit {}",
            limits.max_terrain_bytes()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::section::varied;
    use super::*;

    #[test]
    fn crafted_sections_refused() {
        let good = varied(0, 0, 0, 20);
        let bad = |f: &dyn Fn(&mut Section), what: &str| {
            let mut s = good.clone();
            f(&mut s);
            let e = s.validate().unwrap_err().to_string();
            assert!(e.contains(what), "{e} lacks {what}");
        };
        bad(&|s| s.palette.clear(), "palette of 0");
        bad(&|s| s.palette = vec![1; 4097], "palette of 4097");
        bad(&|s| s.bits = 4, "4 bits per index");
        bad(&|s| s.bits = 17, "17 bits");
        bad(&|s| s.packed.pop().map(|_| ()).unwrap(), "341 longs");
        bad(&|s| s.palette.truncate(19), "palette of 19");
        bad(&|s| s.packed[0] |= 1 << 63, "bits set past");
        bad(
            &|s| {
                s.bits = 0;
                s.packed.clear()
            },
            "0 bits",
        );
        let mut one = Section::single(0, 0, 0, 1);
        one.packed = vec![0; 256];
        assert!(one.validate().is_err());
        // An offer: limits, duplicates.
        let limits = Limits {
            max_chunk_bytes: 4096 * 8,
            ..Limits::default()
        };
        assert_eq!(limits.max_terrain_sections(), 8);
        let many: Vec<Section> = (0..9).map(|y| Section::single(0, y, 0, 1)).collect();
        assert!(matches!(
            check_offer(many, &limits),
            Err(Error::LimitExceeded(_))
        ));
        let twice = vec![Section::single(0, 1, 0, 1), Section::single(0, 1, 0, 2)];
        assert!(check_offer(twice, &Limits::default()).is_err());
        let big: Vec<Section> = (0..5).map(|y| varied(0, y, 0, 20)).collect();
        assert!(matches!(
            check_offer(big, &limits),
            Err(Error::LimitExceeded(_))
        ));
    }

    /// A section of a 4096-entry palette of one-byte ids codes in 12,295 bytes (an estimate of
    /// 5 bytes an entry made it 28,691): a reader whose terrain bound is 16 KiB accepts it, so an
    /// offer (and compaction, and import) must too; one byte over the bound is refused.
    #[test]
    fn an_offer_is_bounded_by_its_coded_length() {
        let mut wide = Section::single(0, 0, 0, 0);
        wide.palette = (0..4096).map(|i| i % 100).collect();
        wide.bits = 12;
        wide.packed = vec![0; super::section::longs_for(12)];
        let limits = Limits {
            max_chunk_bytes: 64 << 10,
            ..Limits::default()
        };
        assert_eq!(limits.max_terrain_bytes(), 16 << 10);
        let t = check_offer(vec![wide.clone()], &limits).unwrap();
        let body = encode_body(&t);
        assert_eq!(body.len(), 12_295);
        assert_eq!(decode_body(&body, &limits).unwrap(), t);
        let exact = Limits {
            max_chunk_bytes: 4 * 12_295,
            ..Limits::default()
        };
        check_offer(vec![wide.clone()], &exact).unwrap();
        let under = Limits {
            max_chunk_bytes: 4 * 12_294,
            ..Limits::default()
        };
        assert!(matches!(
            check_offer(vec![wide], &under),
            Err(Error::LimitExceeded(_))
        ));
    }

    #[test]
    fn around_keeps_columns_within_radius() {
        let t = Terrain::from_sections(
            (-3..=3)
                .flat_map(|x| (-3..=3).map(move |z| Section::single(x, 0, z, 1)))
                .collect::<Vec<_>>(),
        );
        // A player in column (0, 0): radius 16 reaches two columns out along an axis (16
        // blocks edge to edge) but not the corners two out diagonally (22.6).
        let cols = std::collections::HashSet::from([(0, 0)]);
        assert_eq!(t.around_columns(&cols, 16.0).len(), 21);
        assert_eq!(t.around_columns(&cols, 0.0).len(), 9);
        assert_eq!(t.around_columns(&cols, 1000.0).len(), 49);
        let two = std::collections::HashSet::from([(0, 0), (3, 3)]);
        assert_eq!(t.around_columns(&two, 0.0).len(), 13);
    }
}
