//! Terrain: the blocks of an area as the game hands them over, in chunk sections (16×16×16
//! blocks, a palette plus packed indices, the layout Minecraft itself uses), so that a viewer can
//! draw the ground a player stood on, not only the blocks that world events changed. Bytes only:
//! no I/O.
//!
//! - [`Section`]: one section in Minecraft's layout, checked by [`Section::validate`];
//! - [`Terrain`]: a set of sections by position, the terrain in effect at a tick, with the block
//!   at a position ([`Terrain::block`]);
//! - the **terrain piece** of a chunk frame ([`encode_piece`], [`piece_of`], [`decode_piece`]):
//!   a set of sections re-packed (one byte per block where the palette allows) and compressed
//!   with zstd at a high level, stored in a zstd *skippable frame* in front of the chunk's
//!   payload, so that zstd's own decompression (every reader, of every build) steps over it.
//!   The chunk's flag [`crate::format::FLAG_TERRAIN`] says the piece is there (FORMAT.md §6.1).

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::format::Limits;
use crate::format::bytes::{ByteReader, put_ivarint, put_uvarint};

/// Blocks in a section (16 × 16 × 16).
pub const SECTION_BLOCKS: usize = 4096;
/// Most palette entries of a section: one per block.
pub const MAX_SECTION_PALETTE: usize = SECTION_BLOCKS;
/// Widest index a section may use.
pub const MAX_SECTION_BITS: u8 = 16;
/// Magic of the skippable frame that holds a chunk's terrain piece (the last of zstd's 16
/// skippable magics; padding uses the first), written little-endian as zstd's frames are.
pub(crate) const TERRAIN_SKIPPABLE_MAGIC: u32 = 0x184D_2A5E;
/// The first bytes of a terrain piece's content.
pub(crate) const TERRAIN_MAGIC: [u8; 4] = *b"TKTR";
/// The zstd level terrain is compressed with (measured: `tickreel bench --only terrain`).
pub const TERRAIN_ZSTD_LEVEL: i32 = 19;

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
    fn indices(&self) -> Vec<u16> {
        (0..SECTION_BLOCKS).map(|i| self.index(i) as u16).collect()
    }
}

/// Packs palette indices as Minecraft does (see [`Section`]).
fn pack(indices: &[u16], bits: u8) -> Vec<u64> {
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

/// A set of sections by position: what a terrain offer hands over, and the terrain in effect at a
/// tick (every offer up to it, a later offer's section replacing an earlier one at the same
/// position).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terrain {
    sections: BTreeMap<(i32, i32, i32), Section>,
}

impl Terrain {
    /// A terrain of `sections`, a later one replacing an earlier one at the same position.
    pub fn from_sections(sections: impl IntoIterator<Item = Section>) -> Terrain {
        let mut t = Terrain::default();
        for s in sections {
            t.sections.insert(s.key(), s);
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
        self.sections.values()
    }
    /// The section at section position (`cx`, `cy`, `cz`).
    pub fn section(&self, cx: i32, cy: i32, cz: i32) -> Option<&Section> {
        self.sections.get(&(cx, cz, cy))
    }
    /// The block state at block position (`x`, `y`, `z`), if a section covers it.
    pub fn block(&self, x: i32, y: i32, z: i32) -> Option<u32> {
        let s = self.section(x >> 4, y >> 4, z >> 4)?;
        Some(s.state((x & 15) as usize, (y & 15) as usize, (z & 15) as usize))
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

/// Refuses terrain whose coded body could exceed `limits.max_terrain_bytes()`.
pub(crate) fn check_offer_size(t: &Terrain, limits: &Limits) -> Result<()> {
    let bytes: usize = 5 + t.sections().map(body_bound).sum::<usize>();
    if bytes > limits.max_terrain_bytes() {
        return Err(Error::limit(format!(
            "terrain of {bytes} bytes coded; limit {}",
            limits.max_terrain_bytes()
        )));
    }
    Ok(())
}

/// An upper bound of the bytes a section takes in the coded body.
fn body_bound(s: &Section) -> usize {
    let idx = match s.palette.len() {
        1 => 0,
        2..=256 => SECTION_BLOCKS,
        _ => 2 * SECTION_BLOCKS,
    };
    3 * 5 + 1 + 3 + 5 * s.palette.len() + idx
}

/// The terrain's body, uncompressed (FORMAT.md §6.1): the sections' headers (position deltas,
/// bits, palette), then the indices of every section with more than one palette entry, one byte
/// each for a palette of at most 256 entries, else two (big-endian).
pub fn encode_body(t: &Terrain) -> Vec<u8> {
    let mut out = Vec::with_capacity(t.sections().map(body_bound).sum());
    put_uvarint(&mut out, t.len() as u64);
    let mut prev = (0i64, 0i64, 0i64);
    for s in t.sections() {
        let (x, z, y) = (i64::from(s.cx), i64::from(s.cz), i64::from(s.cy));
        put_ivarint(&mut out, x - prev.0);
        put_ivarint(&mut out, z - prev.1);
        put_ivarint(&mut out, y - prev.2);
        prev = (x, z, y);
        out.push(s.bits);
        put_uvarint(&mut out, s.palette.len() as u64);
        for &p in &s.palette {
            put_uvarint(&mut out, u64::from(p));
        }
    }
    for s in t.sections().filter(|s| s.palette.len() > 1) {
        let wide = s.palette.len() > 256;
        for i in s.indices() {
            if wide {
                out.extend_from_slice(&i.to_be_bytes());
            } else {
                out.push(i as u8);
            }
        }
    }
    out
}

/// Decodes a body written by [`encode_body`], checking everything before allocating from it.
pub fn decode_body(body: &[u8], limits: &Limits) -> Result<Terrain> {
    let mut r = ByteReader::new(body);
    // A section header takes at least 5 bytes.
    let n = r.len_varint(r.remaining() / 5, "terrain section count")?;
    if n > limits.max_terrain_sections() {
        return Err(Error::limit(format!(
            "terrain of {n} sections; limit {}",
            limits.max_terrain_sections()
        )));
    }
    let mut heads = Vec::with_capacity(n);
    let mut prev = (0i64, 0i64, 0i64);
    for i in 0..n {
        let x = prev.0 + r.ivarint()?;
        let z = prev.1 + r.ivarint()?;
        let y = prev.2 + r.ivarint()?;
        let fits = |v: i64| i32::try_from(v).is_ok();
        if !(fits(x) && fits(y) && fits(z)) {
            return Err(Error::corrupt(format!(
                "terrain section {i} lies outside 32 bits"
            )));
        }
        if i > 0 && (x, z, y) <= prev {
            return Err(Error::corrupt(format!(
                "terrain section {i} is not after the previous one"
            )));
        }
        prev = (x, z, y);
        let bits = r.u8()?;
        let p = r.len_varint(r.remaining().min(MAX_SECTION_PALETTE), "section palette")?;
        let mut palette = Vec::with_capacity(p);
        for _ in 0..p {
            palette.push(r.uvarint32()?);
        }
        heads.push((x as i32, y as i32, z as i32, bits, palette));
    }
    let mut t = Terrain::default();
    let mut indices = vec![0u16; SECTION_BLOCKS];
    for (cx, cy, cz, bits, palette) in heads {
        let p = palette.len();
        if p == 0 {
            return Err(Error::corrupt(format!(
                "terrain section ({cx}, {cy}, {cz}) has an empty palette"
            )));
        }
        if p > 1 {
            let wide = p > 256;
            let raw = r.bytes(SECTION_BLOCKS * if wide { 2 } else { 1 })?;
            for (i, slot) in indices.iter_mut().enumerate() {
                *slot = if wide {
                    u16::from_be_bytes([raw[2 * i], raw[2 * i + 1]])
                } else {
                    u16::from(raw[i])
                };
                if *slot as usize >= p {
                    return Err(Error::corrupt(format!(
                        "terrain section ({cx}, {cy}, {cz}): block {i} indexes entry {slot} of a palette of {p}"
                    )));
                }
            }
        }
        let min = bits_for(p);
        if (p == 1 && bits != 0) || (p > 1 && !(min..=MAX_SECTION_BITS).contains(&bits)) {
            return Err(Error::corrupt(format!(
                "terrain section ({cx}, {cy}, {cz}): {bits} bits for a palette of {p}"
            )));
        }
        let s = Section {
            cx,
            cy,
            cz,
            packed: if p > 1 {
                pack(&indices, bits)
            } else {
                Vec::new()
            },
            palette,
            bits,
        };
        t.sections.insert(s.key(), s);
    }
    if !r.is_empty() {
        return Err(Error::corrupt(format!(
            "terrain body has {} bytes left over",
            r.remaining()
        )));
    }
    Ok(t)
}

/// The terrain piece: a zstd skippable frame (magic [`TERRAIN_SKIPPABLE_MAGIC`], u32 LE content
/// length) whose content is [`TERRAIN_MAGIC`], `varint` body length and the body compressed by
/// zstd at `level` (padded, like a chunk payload, to the expansion rule of
/// [`crate::format::limits`]). Refuses a body over `limits.max_terrain_bytes()`.
pub fn encode_piece(t: &Terrain, level: i32, limits: &Limits) -> Result<Vec<u8>> {
    let body = encode_body(t);
    if body.len() > limits.max_terrain_bytes() {
        return Err(Error::limit(format!(
            "terrain of {} bytes coded; limit {}",
            body.len(),
            limits.max_terrain_bytes()
        )));
    }
    let mut z = zstd::bulk::compress(&body, level)?;
    crate::format::frame::pad_payload(&mut z, body.len());
    let mut content = Vec::with_capacity(z.len() + 16);
    content.extend_from_slice(&TERRAIN_MAGIC);
    put_uvarint(&mut content, body.len() as u64);
    content.extend_from_slice(&z);
    let mut out = Vec::with_capacity(content.len() + 8);
    out.extend_from_slice(&TERRAIN_SKIPPABLE_MAGIC.to_le_bytes());
    out.extend_from_slice(
        &u32::try_from(content.len())
            .map_err(|_| Error::limit("terrain piece over 4 GiB"))?
            .to_le_bytes(),
    );
    out.extend_from_slice(&content);
    Ok(out)
}

/// The terrain piece at the front of a chunk's compressed payload (a chunk with
/// [`crate::format::FLAG_TERRAIN`]): its content, still compressed.
pub fn piece_of(payload: &[u8]) -> Result<&[u8]> {
    let mut r = ByteReader::new(payload);
    let magic = u32::from_le_bytes(r.bytes(4)?.try_into().expect("4 bytes"));
    if magic != TERRAIN_SKIPPABLE_MAGIC {
        return Err(Error::corrupt(format!(
            "a chunk flagged with terrain starts with {magic:#010x}, not the terrain frame"
        )));
    }
    let len = u32::from_le_bytes(r.bytes(4)?.try_into().expect("4 bytes")) as usize;
    if len > r.remaining() {
        return Err(Error::truncated(format!(
            "terrain frame of {len} bytes in {} bytes of payload",
            r.remaining()
        )));
    }
    r.bytes(len)
}

/// Decodes a terrain piece's content ([`piece_of`]): the body length within
/// `limits.max_terrain_bytes()` and the expansion rule, both checked before decompressing.
pub fn decode_piece(content: &[u8], limits: &Limits) -> Result<Terrain> {
    let mut r = ByteReader::new(content);
    if r.bytes(4)? != TERRAIN_MAGIC {
        return Err(Error::corrupt("terrain frame without its magic"));
    }
    let len = r.len_varint(limits.max_terrain_bytes(), "terrain body length")?;
    let z = r.rest();
    crate::format::limits::check_expansion(
        u32::try_from(z.len()).unwrap_or(u32::MAX),
        len as u32,
        0,
    )
    .map_err(|e| Error::limit(format!("terrain: {e}")))?;
    let body = zstd::bulk::Decompressor::new()?
        .decompress(z, len)
        .map_err(|e| Error::corrupt(format!("terrain body: {e}")))?;
    if body.len() != len {
        return Err(Error::corrupt(format!(
            "terrain body decompressed to {} bytes, expected {len}",
            body.len()
        )));
    }
    decode_body(&body, limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varied(cx: i32, cy: i32, cz: i32, kinds: u32) -> Section {
        let states: Vec<u32> = (0..SECTION_BLOCKS as u32)
            .map(|i| (i * 7 + i / 13) % kinds + 1)
            .collect();
        Section::from_states(cx, cy, cz, &states).unwrap()
    }

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

    #[test]
    fn body_and_piece_round_trip() {
        let t = Terrain::from_sections([
            varied(0, -4, 0, 3),
            varied(0, -3, 0, 40),
            varied(-1, 2, 5, 300),
            Section::single(0, 5, 0, 0),
            Section::single(1, 5, -7, 12),
        ]);
        let limits = Limits::default();
        assert_eq!(decode_body(&encode_body(&t), &limits).unwrap(), t);
        let piece = encode_piece(&t, 3, &limits).unwrap();
        // zstd's decompression steps over the piece.
        let mut framed = piece.clone();
        framed.extend_from_slice(&zstd::bulk::compress(b"payload", 3).unwrap());
        assert_eq!(zstd::bulk::decompress(&framed, 100).unwrap(), b"payload");
        assert_eq!(
            decode_piece(piece_of(&framed).unwrap(), &limits).unwrap(),
            t
        );
        assert_eq!(
            t.block(-16 + 3, 2 * 16, 5 * 16),
            Some(t.section(-1, 2, 5).unwrap().state(3, 0, 0))
        );
        assert_eq!(t.block(5, 5 * 16 + 15, 3), Some(0));
        assert_eq!(t.block(5, 6 * 16, 3), None);
        // A 5-bit section keeps its bits.
        let mut wide = varied(3, 3, 3, 20);
        assert_eq!(wide.bits, 5);
        let idx = wide.indices();
        wide.bits = 7;
        wide.packed = pack(&idx, 7);
        wide.validate().unwrap();
        let t = Terrain::from_sections([wide]);
        assert_eq!(decode_body(&encode_body(&t), &limits).unwrap(), t);
    }

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

    #[test]
    fn crafted_bodies_refused() {
        let limits = Limits::default();
        let t = Terrain::from_sections([varied(0, 0, 0, 20), varied(0, 1, 0, 2)]);
        let body = encode_body(&t);
        // Truncation at every byte, and a byte too many.
        for n in 0..body.len() {
            assert!(decode_body(&body[..n], &limits).is_err(), "cut at {n}");
        }
        let mut long = body.clone();
        long.push(0);
        assert!(decode_body(&long, &limits).is_err());
        // An index outside the palette (the second section has 2 entries).
        let mut b = body.clone();
        let last = b.len() - 1;
        b[last] = 2;
        let e = decode_body(&b, &limits).unwrap_err().to_string();
        assert!(e.contains("indexes entry 2"), "{e}");
        // A count claiming more sections than the bytes hold.
        let mut b = Vec::new();
        put_uvarint(&mut b, 1 << 40);
        assert!(decode_body(&b, &limits).is_err());
        // Sections out of order.
        let mut b = Vec::new();
        put_uvarint(&mut b, 2);
        for _ in 0..2 {
            b.extend_from_slice(&[0, 0, 0, 0, 1, 1]);
        }
        let e = decode_body(&b, &limits).unwrap_err().to_string();
        assert!(e.contains("not after"), "{e}");
        // A piece claiming a body over the limit, or over the expansion rule.
        let small = Limits {
            max_chunk_bytes: 1 << 14,
            ..Limits::default()
        };
        let piece = encode_piece(&t, 3, &limits).unwrap();
        let e = decode_piece(piece_of(&piece).unwrap(), &small).unwrap_err();
        assert!(matches!(e, Error::LimitExceeded(_)), "{e}");
        let mut forged = TERRAIN_MAGIC.to_vec();
        put_uvarint(&mut forged, 1 << 20);
        forged.extend_from_slice(&zstd::bulk::compress(&vec![0u8; 1 << 20], 19).unwrap());
        let e = decode_piece(&forged, &limits).unwrap_err();
        assert!(matches!(e, Error::LimitExceeded(_)), "{e}");
        // A skippable frame claiming more than the payload.
        let mut p = piece.clone();
        p.truncate(p.len() - 1);
        assert!(matches!(piece_of(&p), Err(Error::Truncated(_))));
        assert!(piece_of(&p[8..]).is_err());
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
