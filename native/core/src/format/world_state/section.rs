//! The world section of a snapshot chunk (FORMAT.md §7.2): how a [`WorldState`] is written into
//! the chunks that carry a snapshot and read back, refusing what a writer never writes. Apart
//! from the in-memory world ([`super`]), which knows nothing of bytes.

use std::sync::Arc;

use super::delta::DeltaBlocks;
use super::lazy::{KeyList, Packed, get_list, state_plus_one};
use super::{EntityWorld, Item, WorldDelta, WorldState};
use crate::error::{Error, Result};
use crate::format::Limits;
use crate::format::bytes::{ByteReader, put_ivarint, put_uvarint};
use crate::format::frame::pad_payload;
use crate::format::limits::check_expansion;
use crate::format::world::{BlockPos, MAX_BLOCK_ENTITY_BYTES};

impl WorldState {
    /// Writes the world section's body (FORMAT.md: the world section):
    ///
    /// ```text
    /// varint n                       edited blocks, sorted by (x, y, z)
    ///   n × { ivarint dx, ivarint dy, ivarint dz, varint state }
    ///                                position as the difference from the previous block's
    ///                                (the first from 0, 0, 0)
    /// varint m                       block entities, sorted by (x, y, z)
    ///   m × { ivarint dx, ivarint dy, ivarint dz, varint len, len bytes of NBT }
    /// varint k                       entities with health or equipment, by id
    ///   k × { varint id (the first absolute, then the difference from the previous, ≥ 1),
    ///         varint health + 1 (0: none),
    ///         varint slot count s, s × { u8 slot (increasing), varint item (≥ 1),
    ///                                    varint count (≥ 1) } }
    /// ```
    #[cfg(any(test, feature = "wire"))]
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let blocks = self.sorted_view();
        put_uvarint(out, blocks.len() as u64);
        let mut prev = BlockPos::default();
        for &(p, s) in blocks.iter() {
            put_delta(out, prev, p);
            put_uvarint(out, u64::from(s));
            prev = p;
        }
        self.encode_rest(out);
    }

    /// Writes a world section of data version 5 (FORMAT.md: the world section): `varint back`
    /// first, then either the whole world as [`WorldState::encode`] writes it (`back` = 0, a
    /// *keyframe* section) or, `back` ≥ 1 ticks after the start of the keyframe's chunk, the
    /// blocks changed since that keyframe (a *delta* section):
    ///
    /// ```text
    /// varint n                       blocks changed since the keyframe, sorted by (x, y, z)
    ///   n × { ivarint dx, ivarint dy, ivarint dz, varint state + 1 (0: no longer edited) }
    /// block entities and entities    whole, as in a keyframe section
    /// ```
    ///
    /// A delta is the changes since the sorted list the world was last compacted to
    /// ([`WorldState::compact`]): the writer compacts at each keyframe, so the list *is* the
    /// keyframe's blocks.
    #[cfg(any(test, feature = "wire"))]
    pub(crate) fn encode_v5(&self, back: u32, out: &mut Vec<u8>) {
        put_uvarint(out, u64::from(back));
        if back == 0 {
            self.encode(out);
            return;
        }
        let over = self.changes_since_base();
        put_uvarint(out, over.len() as u64);
        let mut prev = BlockPos::default();
        for &(p, s) in &over {
            put_delta(out, prev, p);
            put_uvarint(out, s.map_or(0, |s| u64::from(s) + 1));
            prev = p;
        }
        self.encode_rest(out);
    }

    /// The block entities and entities of a world section (after its blocks).
    fn encode_rest(&self, out: &mut Vec<u8>) {
        let mut bes: Vec<_> = self.block_entities().collect();
        bes.sort_unstable_by_key(|b| b.0);
        put_uvarint(out, bes.len() as u64);
        let mut prev = BlockPos::default();
        for (p, nbt) in bes {
            put_delta(out, prev, p);
            put_uvarint(out, nbt.len() as u64);
            out.extend_from_slice(nbt);
            prev = p;
        }
        put_uvarint(out, self.entities.len() as u64);
        let mut prev = 0u32;
        for (i, (&id, e)) in self.entities.iter().enumerate() {
            put_uvarint(out, u64::from(if i == 0 { id } else { id - prev }));
            prev = id;
            put_uvarint(out, e.health.map_or(0, |h| u64::from(h) + 1));
            put_uvarint(out, e.equipment.len() as u64);
            for &(slot, it) in &e.equipment {
                out.push(slot);
                put_uvarint(out, u64::from(it.item));
                put_uvarint(out, u64::from(it.count));
            }
        }
    }

    /// Reads a world section's body (all of `bytes`), refusing what [`WorldState::encode`]
    /// never writes (positions out of order or repeated, ids not increasing, empty slots, bytes
    /// left over) and anything over `limits` ([`Limits::max_world_blocks`],
    /// [`Limits::max_alive_entities`], [`MAX_BLOCK_ENTITY_BYTES`]) before allocating for it.
    pub(crate) fn decode(bytes: &[u8], limits: &Limits) -> Result<WorldState> {
        let mut r = ByteReader::new(bytes);
        let mut w = WorldState::default();
        // each block takes at least 4 bytes
        let n = r.len_varint(r.remaining() / 4, "world block count")?;
        if n > limits.max_world_blocks() {
            return Err(Error::limit(format!(
                "a world section of {n} edited blocks; limit {}",
                limits.max_world_blocks()
            )));
        }
        let blocks = get_list(&mut r, n, "edited block", |r| r.uvarint32())?;
        w.base = Arc::new(KeyList::decoded(blocks));
        w.count = std::sync::OnceLock::from(n);
        w.decode_rest(&mut r, limits)?;
        Ok(w)
    }

    /// Reads a world section of data version 5 (all of `bytes`; [`WorldState::encode_v5`]): a
    /// keyframe section as a world, a delta section as what it says of its keyframe, with the
    /// checks and limits of [`WorldState::decode`].
    pub(crate) fn decode_v5(bytes: &[u8], limits: &Limits) -> Result<WorldSection> {
        let mut r = ByteReader::new(bytes);
        let back = r.uvarint()?;
        if back == 0 {
            return WorldState::decode(r.rest(), limits).map(WorldSection::Full);
        }
        let back = u32::try_from(back).map_err(|_| {
            Error::corrupt(format!(
                "world section: keyframe {back} ticks back, past 32 bits"
            ))
        })?;
        // each change takes at least 4 bytes
        let n = r.len_varint(r.remaining() / 4, "world delta block count")?;
        if n > limits.max_world_blocks() {
            return Err(Error::limit(format!(
                "a world delta section of {n} changed blocks; limit {}",
                limits.max_world_blocks()
            )));
        }
        let blocks = get_list(&mut r, n, "changed block", state_plus_one)?;
        let mut rest = WorldState::default();
        rest.decode_rest(&mut r, limits)?;
        Ok(WorldSection::Delta(WorldDelta {
            back,
            blocks: DeltaBlocks::Decoded(blocks),
            count: None,
            block_entities: rest.block_entities,
            entities: rest.entities,
        }))
    }

    /// Writes a world section of data version 9 (FORMAT.md: the world section): as
    /// [`WorldState::encode_v5`] writes one, but each block list in a zstd frame of its own
    /// (compressed at `level`, [`put_packed`]), a delta's after the world's block count. So a
    /// seek holds the lists as they are, decoded on first read ([`super::lazy`]).
    pub(crate) fn encode_section(&self, back: u32, level: i32, out: &mut Vec<u8>) {
        put_uvarint(out, u64::from(back));
        let mut body = Vec::new();
        let n = if back == 0 {
            let blocks = self.sorted_view();
            let mut prev = BlockPos::default();
            for &(p, s) in blocks.iter() {
                put_delta(&mut body, prev, p);
                put_uvarint(&mut body, u64::from(s));
                prev = p;
            }
            blocks.len()
        } else {
            put_uvarint(out, self.block_count() as u64 + 1);
            let over = self.changes_since_base();
            let mut prev = BlockPos::default();
            for &(p, s) in &over {
                put_delta(&mut body, prev, p);
                put_uvarint(&mut body, s.map_or(0, |s| u64::from(s) + 1));
                prev = p;
            }
            over.len()
        };
        put_packed(out, n, &body, level);
        self.encode_rest(out);
    }

    /// Reads a world section (all of `bytes`) of a chunk of data version `data_version` (5 or
    /// later): [`WorldState::decode_v5`]'s, or from data version 9 its block lists kept as
    /// stored ([`get_packed`], checked against the limits here, decoded on first read).
    pub(crate) fn decode_section(
        bytes: &[u8],
        limits: &Limits,
        data_version: u16,
    ) -> Result<WorldSection> {
        if data_version < 9 {
            return WorldState::decode_v5(bytes, limits);
        }
        let mut r = ByteReader::new(bytes);
        let back = r.uvarint()?;
        let back = u32::try_from(back).map_err(|_| {
            Error::corrupt(format!(
                "world section: keyframe {back} ticks back, past 32 bits"
            ))
        })?;
        if back == 0 {
            let p = get_packed(&mut r, limits, "world block list")?;
            let mut w = WorldState {
                count: std::sync::OnceLock::from(p.n),
                base: Arc::new(KeyList::packed(p)),
                ..WorldState::default()
            };
            w.decode_rest(&mut r, limits)?;
            return Ok(WorldSection::Full(w));
        }
        let count = match r.uvarint()? {
            0 => None,
            c => Some(c - 1),
        };
        if let Some(c) = count
            && c > limits.max_world_blocks() as u64
        {
            return Err(Error::limit(format!(
                "a world delta section giving {c} edited blocks; limit {}",
                limits.max_world_blocks()
            )));
        }
        let p = get_packed(&mut r, limits, "world delta block list")?;
        let mut rest = WorldState::default();
        rest.decode_rest(&mut r, limits)?;
        Ok(WorldSection::Delta(WorldDelta {
            back,
            blocks: DeltaBlocks::Packed(p),
            count: count.map(|c| c as usize),
            block_entities: rest.block_entities,
            entities: rest.entities,
        }))
    }

    /// The block entities and entities of a world section, then its end.
    fn decode_rest(&mut self, r: &mut ByteReader<'_>, limits: &Limits) -> Result<()> {
        let w = self;
        // each block entity takes at least 4 bytes
        let m = r.len_varint(r.remaining() / 4, "world block entity count")?;
        if m > limits.max_world_blocks() {
            return Err(Error::limit(format!(
                "a world section of {m} block entities; limit {}",
                limits.max_world_blocks()
            )));
        }
        let mut prev = None;
        for _ in 0..m {
            let p = get_delta(r, &mut prev, "block entity")?;
            let len = r.len_varint(MAX_BLOCK_ENTITY_BYTES, "block entity length")?;
            w.block_entities.insert(p, Arc::from(r.bytes(len)?));
        }
        // each entity takes at least 3 bytes
        let k = r.len_varint(r.remaining() / 3, "world entity count")?;
        if k > limits.max_alive_entities() {
            return Err(Error::limit(format!(
                "a world section of {k} entities; limit {}",
                limits.max_alive_entities()
            )));
        }
        let mut id = 0u32;
        for i in 0..k {
            let d = r.uvarint32()?;
            id = if i == 0 {
                d
            } else if d == 0 {
                return Err(Error::corrupt("world section: entity ids not increasing"));
            } else {
                id.checked_add(d)
                    .ok_or_else(|| Error::corrupt("world section: entity id past 2^32 - 1"))?
            };
            let health = match r.uvarint()? {
                0 => None,
                h => Some(u32::try_from(h - 1).map_err(|_| {
                    Error::corrupt(format!("world section: health {} past 32 bits", h - 1))
                })?),
            };
            // each slot takes at least 3 bytes; at most 256 slots
            let s = r.len_varint(256.min(r.remaining() / 3), "equipment slot count")?;
            let mut equipment = Vec::with_capacity(s);
            for _ in 0..s {
                let slot = r.u8()?;
                let item = r.uvarint32()?;
                let count = r.uvarint32()?;
                if item == 0 || count == 0 {
                    return Err(Error::corrupt(format!(
                        "world section: entity {id} has an empty slot {slot} listed"
                    )));
                }
                if equipment.last().is_some_and(|&(l, _)| l >= slot) {
                    return Err(Error::corrupt(format!(
                        "world section: entity {id}'s slots not increasing"
                    )));
                }
                equipment.push((slot, Item { item, count }));
            }
            let e = EntityWorld { health, equipment };
            if e.is_empty() {
                return Err(Error::corrupt(format!(
                    "world section: entity {id} listed with no health and no equipment"
                )));
            }
            w.entities.insert(id, e);
        }
        if !r.is_empty() {
            return Err(Error::corrupt(format!(
                "world section has {} trailing bytes",
                r.remaining()
            )));
        }
        Ok(())
    }
}

/// A world section of data version 5, decoded: a whole world (keyframe) or a delta.
#[derive(Debug, PartialEq, Eq)]
pub enum WorldSection {
    Full(WorldState),
    Delta(WorldDelta),
}

fn put_delta(out: &mut Vec<u8>, prev: BlockPos, p: BlockPos) {
    put_ivarint(out, i64::from(p.x) - i64::from(prev.x));
    put_ivarint(out, i64::from(p.y) - i64::from(prev.y));
    put_ivarint(out, i64::from(p.z) - i64::from(prev.z));
}

/// A block list of a section of data version 9: `varint n` (entries), `varint U` (their bytes,
/// coded as data version 5 codes them), `varint Z`, then `Z` bytes: the `U` bytes compressed
/// with zstd at `level` (none when `U` is 0), padded like a chunk payload to the expansion rule.
fn put_packed(out: &mut Vec<u8>, n: usize, body: &[u8], level: i32) {
    put_uvarint(out, n as u64);
    put_uvarint(out, body.len() as u64);
    if body.is_empty() {
        put_uvarint(out, 0);
        return;
    }
    let mut z = zstd::bulk::compress(body, level).expect("zstd compresses a buffer in memory");
    pad_payload(&mut z, body.len());
    put_uvarint(out, z.len() as u64);
    out.extend_from_slice(&z);
}

/// Reads a block list as [`put_packed`] writes it, keeping its bytes as they are: `n` within
/// [`Limits::max_world_blocks`] and `U` within `max_chunk_bytes` and the expansion rule
/// (`LimitExceeded`), `n` at most `U / 4` and no bytes for an empty list (`Corrupt`), `Z` bytes
/// present (`Truncated`), all before anything is allocated from them.
fn get_packed(r: &mut ByteReader<'_>, limits: &Limits, what: &str) -> Result<Packed> {
    let n = r.uvarint()?;
    if n > limits.max_world_blocks() as u64 {
        return Err(Error::limit(format!(
            "{what} of {n} blocks; limit {}",
            limits.max_world_blocks()
        )));
    }
    let u = r.uvarint()?;
    if u > limits.max_chunk_bytes as u64 {
        return Err(Error::limit(format!(
            "{what} of {u} bytes; limit {}",
            limits.max_chunk_bytes
        )));
    }
    if n * 4 > u {
        return Err(Error::corrupt(format!(
            "world section: {what} of {n} blocks in {u} bytes"
        )));
    }
    let z = r.uvarint()?;
    if u == 0 && z != 0 {
        return Err(Error::corrupt(format!(
            "world section: {what} of no bytes stored in {z}"
        )));
    }
    let z = usize::try_from(z).unwrap_or(usize::MAX);
    if z > r.remaining() {
        return Err(Error::truncated(format!(
            "world section: {what} of {z} bytes in {} left",
            r.remaining()
        )));
    }
    if u > 0 {
        check_expansion(u32::try_from(z).unwrap_or(u32::MAX), u as u32, 0)
            .map_err(|e| Error::limit(format!("{what}: {e}")))?;
    }
    Ok(Packed {
        n: n as usize,
        raw_len: u as usize,
        z: Arc::from(r.bytes(z)?),
    })
}

/// A delta world section as it was read ([`WorldState::decode_section`]), written back
/// ([`WorldDelta::encode_section`]): compaction carries a delta whose keyframe the recording does
/// not hold (it starts in the middle of a world) as it is, so that its world stays unknown there
/// rather than made up.
impl WorldDelta {
    /// Writes the section as a section of data version 9: a list read from one byte for byte,
    /// one read from an earlier data version compressed at `level` (its world's block count
    /// then not stored: its keyframe is unknown).
    pub(crate) fn encode_section(&self, level: i32, out: &mut Vec<u8>) {
        put_uvarint(out, u64::from(self.back));
        put_uvarint(out, self.count.map_or(0, |c| c as u64 + 1));
        match &self.blocks {
            DeltaBlocks::Packed(p) => {
                put_uvarint(out, p.n as u64);
                put_uvarint(out, p.raw_len as u64);
                put_uvarint(out, p.z.len() as u64);
                out.extend_from_slice(&p.z);
            }
            DeltaBlocks::Decoded(list) => {
                let mut body = Vec::new();
                let mut prev = BlockPos::default();
                for &(p, s) in list {
                    put_delta(&mut body, prev, p);
                    put_uvarint(&mut body, s.map_or(0, |s| u64::from(s) + 1));
                    prev = p;
                }
                put_packed(out, list.len(), &body, level);
            }
        }
        WorldState {
            block_entities: self.block_entities.clone(),
            entities: self.entities.clone(),
            ..WorldState::default()
        }
        .encode_rest(out);
    }

    /// Writes the section as [`WorldState::encode_v5`] wrote it: `varint back`, the changed
    /// blocks (`varint state + 1`, 0 for a block no longer edited), then the block entities and
    /// entities whole.
    #[cfg(test)]
    pub(crate) fn encode_v5(&self, out: &mut Vec<u8>) {
        let DeltaBlocks::Decoded(blocks) = &self.blocks else {
            panic!("a delta of data version 5 to 8");
        };
        put_uvarint(out, u64::from(self.back));
        put_uvarint(out, blocks.len() as u64);
        let mut prev = BlockPos::default();
        for &(p, s) in blocks {
            put_delta(out, prev, p);
            put_uvarint(out, s.map_or(0, |s| u64::from(s) + 1));
            prev = p;
        }
        WorldState {
            block_entities: self.block_entities.clone(),
            entities: self.entities.clone(),
            ..WorldState::default()
        }
        .encode_rest(out);
    }
}

/// The next position of a sorted list; `prev` is the previous one (`None` before the first).
fn get_delta(r: &mut ByteReader<'_>, prev: &mut Option<BlockPos>, what: &str) -> Result<BlockPos> {
    let base = prev.unwrap_or_default();
    let mut c = [0i32; 3];
    for (k, v) in c.iter_mut().enumerate() {
        let b = [base.x, base.y, base.z][k];
        let d = r.ivarint()?;
        *v = i64::from(b)
            .checked_add(d)
            .and_then(|a| i32::try_from(a).ok())
            .ok_or_else(|| Error::corrupt(format!("world section: {what} outside 32 bits")))?;
    }
    let p = BlockPos::new(c[0], c[1], c[2]);
    if prev.is_some_and(|q| q >= p) {
        return Err(Error::corrupt(format!(
            "world section: {what} positions not increasing"
        )));
    }
    *prev = Some(p);
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{bc, sample};
    use super::*;

    #[test]
    fn the_world_section_round_trips() {
        let w = sample();
        let mut out = Vec::new();
        w.encode(&mut out);
        assert_eq!(WorldState::decode(&out, &Limits::default()).unwrap(), w);
        let mut empty = Vec::new();
        WorldState::new().encode(&mut empty);
        assert_eq!(empty, [0, 0, 0]);
        assert!(
            WorldState::decode(&empty, &Limits::default())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn crafted_world_sections_are_refused() {
        let lim = Limits::default();
        let mut ok = Vec::new();
        sample().encode(&mut ok);
        // trailing bytes, truncation
        let mut t = ok.clone();
        t.push(0);
        assert!(WorldState::decode(&t, &lim).is_err());
        for cut in 0..ok.len() {
            assert!(WorldState::decode(&ok[..cut], &lim).is_err(), "cut {cut}");
        }
        // a block count far beyond the bytes
        let mut big = Vec::new();
        put_uvarint(&mut big, u64::from(u32::MAX));
        assert!(WorldState::decode(&big, &lim).is_err());
        // a block count over the limit, with the bytes to back it
        let small = Limits {
            max_chunk_bytes: 64 * 64,
            ..Limits::default()
        };
        assert_eq!(small.max_world_blocks(), 64);
        let mut w = WorldState::new();
        for x in 0..65 {
            w.apply(&bc(x, 0, 0, 1));
        }
        let mut out = Vec::new();
        w.encode(&mut out);
        let err = WorldState::decode(&out, &small).unwrap_err();
        assert!(matches!(err, Error::LimitExceeded(_)), "{err}");
        assert!(WorldState::decode(&out, &lim).is_ok());
        // the same position twice (a zero step after the first)
        let mut dup = Vec::new();
        put_uvarint(&mut dup, 2);
        for _ in 0..2 {
            put_ivarint(&mut dup, 0);
            put_ivarint(&mut dup, 0);
            put_ivarint(&mut dup, 0);
            put_uvarint(&mut dup, 1);
        }
        dup.extend_from_slice(&[0, 0]);
        let err = WorldState::decode(&dup, &lim).unwrap_err();
        assert!(err.to_string().contains("not increasing"), "{err}");
        // a position outside 32 bits
        let mut far = Vec::new();
        put_uvarint(&mut far, 1);
        put_ivarint(&mut far, i64::from(i32::MAX) + 1);
        put_ivarint(&mut far, 0);
        put_ivarint(&mut far, 0);
        put_uvarint(&mut far, 1);
        far.extend_from_slice(&[0, 0]);
        assert!(WorldState::decode(&far, &lim).is_err());
        // an empty slot listed
        let mut slot = vec![0, 0, 1, 7, 0, 1, 0, 0, 1];
        assert!(WorldState::decode(&slot, &lim).is_err());
        slot[7] = 1; // item 1, count 1: valid
        assert!(WorldState::decode(&slot, &lim).is_ok());
        // a block entity over its limit
        let mut nbt = vec![0, 1, 0, 0, 0];
        put_uvarint(&mut nbt, (MAX_BLOCK_ENTITY_BYTES + 1) as u64);
        nbt.extend(std::iter::repeat_n(0, MAX_BLOCK_ENTITY_BYTES + 1));
        nbt.push(0);
        assert!(WorldState::decode(&nbt, &lim).is_err());
    }

    /// A keyframe world (compacted: one sorted list) and the world after changes on top of it:
    /// new blocks, changed blocks, a block set back to its keyframe state, a block taken out.
    fn keyframe_and_changed() -> (WorldState, WorldState) {
        let mut kf = sample();
        kf.compact();
        let mut w = kf.clone();
        w.apply(&bc(100, 64, 100, 7)); // new
        w.apply(&bc(5, 64, -3, 2)); // changed (was 1)
        w.apply(&bc(-7, 70, 2, 3));
        w.apply(&bc(-7, 70, 2, 9)); // back to the keyframe's state: no change
        w.set_block(BlockPos::new(0, 0, 1), None, None, &mut |_| {}); // taken out
        (kf, w)
    }

    /// Compaction makes its running world a source's snapshot world that the events did not
    /// make: rebased, it keeps its keyframe's list, and its delta on that keyframe gives the
    /// world.
    #[test]
    fn a_world_rebased_on_its_keyframe_writes_a_delta_to_it() {
        let lim = Limits::default();
        let (kf, w) = keyframe_and_changed();
        let mut r = kf.clone();
        r.apply(&bc(1000, 1, 1, 4)); // a change `w` does not have
        r.apply(&bc(5, 64, -3, 6)); // one it has otherwise
        r.rebase_to(&w);
        assert_eq!(r, w);
        assert_eq!(r.block_count(), w.block_count());
        assert!(Arc::ptr_eq(&r.base, &kf.base));
        let mut delta = Vec::new();
        r.encode_v5(10, &mut delta);
        let WorldSection::Delta(d) = WorldState::decode_v5(&delta, &lim).unwrap() else {
            panic!("a delta section");
        };
        assert_eq!(d.changed_blocks(), 3);
        assert_eq!(WorldState::with_delta(&kf, &d, &lim).unwrap(), w);
    }

    #[test]
    fn a_delta_section_on_its_keyframe_gives_the_world_back() {
        let lim = Limits::default();
        let (kf, w) = keyframe_and_changed();
        assert_eq!(w.changed_since_compact(), 3);
        let mut full = Vec::new();
        w.encode_v5(0, &mut full);
        let WorldSection::Full(back) = WorldState::decode_v5(&full, &lim).unwrap() else {
            panic!("a keyframe section");
        };
        assert_eq!(back, w);
        let mut delta = Vec::new();
        w.encode_v5(40, &mut delta);
        assert!(delta.len() < full.len());
        let WorldSection::Delta(d) = WorldState::decode_v5(&delta, &lim).unwrap() else {
            panic!("a delta section");
        };
        assert_eq!((d.back, d.changed_blocks()), (40, 3));
        // written back as it was read, byte for byte (compaction carries a delta so)
        let mut again = Vec::new();
        d.encode_v5(&mut again);
        assert_eq!(again, delta);
        let got = WorldState::with_delta(&kf, &d, &lim).unwrap();
        assert_eq!(got, w);
        assert_eq!(got.block_count(), w.block_count());
        assert_eq!(got.block(BlockPos::new(0, 0, 1)), None);
        assert_eq!(got.block(BlockPos::new(100, 64, 100)), Some(7));
        // the keyframe's sorted list is shared, not copied
        assert!(Arc::ptr_eq(&got.base, &kf.base));
        // nothing changed since the keyframe: an empty delta
        let mut none = Vec::new();
        kf.encode_v5(3, &mut none);
        let WorldSection::Delta(d) = WorldState::decode_v5(&none, &lim).unwrap() else {
            panic!("a delta section");
        };
        assert_eq!(WorldState::with_delta(&kf, &d, &lim).unwrap(), kf);
    }

    #[test]
    fn crafted_delta_sections_are_refused() {
        let lim = Limits::default();
        let (_, w) = keyframe_and_changed();
        let mut ok = Vec::new();
        w.encode_v5(40, &mut ok);
        for cut in 0..ok.len() {
            assert!(
                WorldState::decode_v5(&ok[..cut], &lim).is_err(),
                "cut {cut}"
            );
        }
        let mut t = ok.clone();
        t.push(0);
        assert!(WorldState::decode_v5(&t, &lim).is_err());
        // against another keyframe: a change that is no change there, a removal of a block
        // that keyframe does not have
        let WorldSection::Delta(d) = WorldState::decode_v5(&ok, &lim).unwrap() else {
            panic!("a delta section");
        };
        let err = WorldState::with_delta(&w.clone_compacted(), &d, &lim).unwrap_err();
        assert!(err.to_string().contains("as its keyframe has it"), "{err}");
        let err = WorldState::with_delta(&WorldState::new(), &d, &lim).unwrap_err();
        assert!(err.to_string().contains("as its keyframe has it"), "{err}");
        // a change count far beyond the bytes, and one over the limit with the bytes for it
        let mut big = Vec::new();
        put_uvarint(&mut big, 1);
        put_uvarint(&mut big, u64::from(u32::MAX));
        let err = WorldState::decode_v5(&big, &lim).unwrap_err();
        assert!(err.to_string().contains("world delta block count"), "{err}");
        let small = Limits {
            max_chunk_bytes: 64 * 64,
            ..Limits::default()
        };
        let mut many = WorldState::new();
        many.compact();
        for x in 0..65 {
            many.apply(&bc(x, 0, 0, 1));
        }
        let mut out = Vec::new();
        many.encode_v5(1, &mut out);
        let err = WorldState::decode_v5(&out, &small).unwrap_err();
        assert!(matches!(err, Error::LimitExceeded(_)), "{err}");
        // a world past the limit once the delta is on its keyframe
        let mut kf64 = WorldState::new();
        for x in 0..64 {
            kf64.apply(&bc(x, 1, 0, 1));
        }
        kf64.compact();
        let WorldSection::Delta(d) = WorldState::decode_v5(&out, &lim).unwrap() else {
            panic!("a delta section");
        };
        let err = WorldState::with_delta(&kf64, &d, &small).unwrap_err();
        assert!(matches!(err, Error::LimitExceeded(_)), "{err}");
        assert!(WorldState::with_delta(&kf64, &d, &lim).is_ok());
        // a state past 32 bits, a back past 32 bits
        let mut st = vec![1, 1, 0, 0, 0];
        put_uvarint(&mut st, u64::from(u32::MAX) + 2);
        st.extend_from_slice(&[0, 0]);
        let err = WorldState::decode_v5(&st, &lim).unwrap_err();
        assert!(err.to_string().contains("past 32 bits"), "{err}");
        let mut far = Vec::new();
        put_uvarint(&mut far, 1 << 32);
        far.extend_from_slice(&[0, 0, 0]);
        assert!(WorldState::decode_v5(&far, &lim).is_err());
    }
}
