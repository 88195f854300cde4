//! The sorted block lists of a world as a world section of data version 9 stores them (FORMAT.md
//! §7.2, "block list"): each list compressed on its own, kept as it was read and decoded on
//! first use. A seek onto a snapshot so holds its keyframe's and its delta's lists without
//! decoding either (the chunk's checksum, checked at the seek, covers their bytes); the first
//! read of a block decodes them once, shared by every world standing on them. A list its
//! checksum cannot tell from a writer's but that a writer never writes (a crafted file) is
//! refused by that decode: the list then reads as empty and the refusal is kept, so that the
//! world says it is not complete ([`super::WorldState::decode_error`]).

use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result};
use crate::format::bytes::{ByteReader, unzigzag};
use crate::format::world::BlockPos;

/// A list as stored: `n` entries, coded as data version 5 codes them (a position step and a
/// value each), `raw_len` bytes compressed with zstd into `z`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Packed {
    pub(crate) n: usize,
    pub(crate) raw_len: usize,
    pub(crate) z: Arc<[u8]>,
}

impl Packed {
    /// The list's bytes, exactly `raw_len` of them.
    fn unpack(&self) -> Result<Vec<u8>> {
        if self.raw_len == 0 {
            return Ok(Vec::new());
        }
        let raw = zstd::bulk::Decompressor::new()?
            .decompress(&self.z, self.raw_len)
            .map_err(|e| Error::corrupt(format!("world section: block list: {e}")))?;
        if raw.len() != self.raw_len {
            return Err(Error::corrupt(format!(
                "world section: block list decompressed to {} bytes, {} stored",
                raw.len(),
                self.raw_len
            )));
        }
        Ok(raw)
    }

    /// Decodes the list's `n` entries, each position followed by what `value` reads, refusing
    /// bytes left over.
    fn decode<T>(
        &self,
        what: &str,
        value: impl FnMut(&mut ByteReader<'_>) -> Result<T>,
    ) -> Result<Vec<(BlockPos, T)>> {
        let raw = self.unpack()?;
        let mut r = ByteReader::new(&raw);
        let list = get_list(&mut r, self.n, what, value)?;
        if !r.is_empty() {
            return Err(Error::corrupt(format!(
                "world section: block list has {} bytes left over",
                r.remaining()
            )));
        }
        Ok(list)
    }

    fn heap_bytes(&self) -> usize {
        16 + self.z.len()
    }
}

/// A keyframe's edited blocks, sorted by position without repeats: decoded when the world is
/// built (a writer's world, a section of data version 3 to 8) or on first use (`packed`).
#[derive(Debug)]
pub(crate) struct KeyList {
    packed: Option<Packed>,
    list: OnceLock<Result<Vec<(BlockPos, u32)>>>,
}

impl Default for KeyList {
    fn default() -> KeyList {
        KeyList::decoded(Vec::new())
    }
}

impl KeyList {
    pub(crate) fn decoded(list: Vec<(BlockPos, u32)>) -> KeyList {
        KeyList {
            packed: None,
            list: OnceLock::from(Ok(list)),
        }
    }

    pub(crate) fn packed(p: Packed) -> KeyList {
        KeyList {
            packed: Some(p),
            list: OnceLock::new(),
        }
    }

    /// The list, decoded on first use; empty if its decode was refused ([`KeyList::error`]).
    pub(crate) fn get(&self) -> &[(BlockPos, u32)] {
        let r = self.list.get_or_init(|| {
            self.packed
                .as_ref()
                .expect("a list not decoded has its bytes")
                .decode("edited block", |r| r.uvarint32())
        });
        match r {
            Ok(v) => v,
            Err(_) => &[],
        }
    }

    pub(crate) fn is_decoded(&self) -> bool {
        self.list.get().is_some()
    }

    /// Why the list's decode was refused, once it ran.
    pub(crate) fn error(&self) -> Option<&Error> {
        self.list.get().and_then(|r| r.as_ref().err())
    }

    /// Its blocks: as stored until decoded.
    pub(crate) fn len(&self) -> usize {
        match self.list.get() {
            Some(Ok(v)) => v.len(),
            Some(Err(_)) => 0,
            None => self.packed.as_ref().map_or(0, |p| p.n),
        }
    }

    /// The heap it holds once read (the list counted before it is decoded, so that a cache
    /// counting a world when it takes it counts what it comes to hold).
    pub(crate) fn heap_bytes(&self) -> usize {
        let n = match self.list.get() {
            Some(Ok(v)) => v.capacity(),
            Some(Err(_)) => 0,
            None => self.packed.as_ref().map_or(0, |p| p.n),
        };
        let list = if n == 0 {
            0
        } else {
            std::mem::size_of::<Vec<(BlockPos, u32)>>() + n * std::mem::size_of::<(BlockPos, u32)>()
        };
        list + self.packed.as_ref().map_or(0, Packed::heap_bytes)
    }
}

/// Changes on a keyframe's list, sorted by position: a state, or `None` (no longer edited).
type Changes = Vec<(BlockPos, Option<u32>)>;

/// A delta section's changes on its keyframe's list, sorted by position (a state, or `None`: no
/// longer edited), with the world's block count they give: decoded and checked against the
/// keyframe's list when the world is built (a section of data version 5 to 8) or on first use.
#[derive(Debug)]
pub(crate) struct DeltaList {
    packed: Option<Packed>,
    /// The world's edited blocks as the section stores them (`None`: not stored).
    count: Option<usize>,
    /// Most edited blocks of the world (`Limits::max_world_blocks` of the reader).
    max_blocks: usize,
    /// The changes and the world's count.
    list: OnceLock<Result<(Changes, usize)>>,
}

impl DeltaList {
    /// Changes already checked against their keyframe, giving `count` blocks.
    pub(crate) fn decoded(list: Vec<(BlockPos, Option<u32>)>, count: usize) -> DeltaList {
        DeltaList {
            packed: None,
            count: Some(count),
            max_blocks: usize::MAX,
            list: OnceLock::from(Ok((list, count))),
        }
    }

    pub(crate) fn packed(p: Packed, count: Option<usize>, max_blocks: usize) -> DeltaList {
        DeltaList {
            packed: Some(p),
            count,
            max_blocks,
            list: OnceLock::new(),
        }
    }

    fn init(&self, keyframe: &KeyList) -> &Result<(Changes, usize)> {
        self.list.get_or_init(|| {
            if keyframe.get().is_empty()
                && let Some(e) = keyframe.error()
            {
                return Err(Error::corrupt(format!(
                    "world delta section on a keyframe whose block list was refused ({e})"
                )));
            }
            let p = self
                .packed
                .as_ref()
                .expect("a list not decoded has its bytes");
            let list = p.decode("changed block", state_plus_one)?;
            let count = check_on(keyframe.get(), &list, self.max_blocks)?;
            if let Some(c) = self.count
                && c != count
            {
                return Err(Error::corrupt(format!(
                    "world delta section gives {count} edited blocks, {c} stored"
                )));
            }
            Ok((list, count))
        })
    }

    /// The changes, decoded on first use; empty if their decode was refused.
    pub(crate) fn get(&self, keyframe: &KeyList) -> &[(BlockPos, Option<u32>)] {
        match self.init(keyframe) {
            Ok((v, _)) => v,
            Err(_) => &[],
        }
    }

    /// The world's edited blocks: as stored, else decoded; the keyframe's if refused.
    pub(crate) fn world_count(&self, keyframe: &KeyList) -> usize {
        match (self.list.get(), self.count) {
            (Some(Ok((_, n))), _) => *n,
            (Some(Err(_)), _) => keyframe.len(),
            (None, Some(n)) => n,
            (None, None) => match self.init(keyframe) {
                Ok((_, n)) => *n,
                Err(_) => keyframe.len(),
            },
        }
    }

    pub(crate) fn is_decoded(&self) -> bool {
        self.list.get().is_some()
    }

    pub(crate) fn error(&self) -> Option<&Error> {
        self.list.get().and_then(|r| r.as_ref().err())
    }

    /// The heap it holds once read (as [`KeyList::heap_bytes`]).
    pub(crate) fn heap_bytes(&self) -> usize {
        let n = match self.list.get() {
            Some(Ok((v, _))) => v.capacity(),
            Some(Err(_)) => 0,
            None => self.packed.as_ref().map_or(0, |p| p.n),
        };
        n * std::mem::size_of::<(BlockPos, Option<u32>)>()
            + self.packed.as_ref().map_or(0, Packed::heap_bytes)
    }
}

/// A delta list's value: `varint state + 1`, 0 for a block no longer edited.
pub(super) fn state_plus_one(r: &mut ByteReader<'_>) -> Result<Option<u32>> {
    match r.uvarint()? {
        0 => Ok(None),
        s => Ok(Some(u32::try_from(s - 1).map_err(|_| {
            Error::corrupt(format!("world section: block state {} past 32 bits", s - 1))
        })?)),
    }
}

/// The edited blocks of the world `delta` makes of the keyframe's `base`, refusing a delta that
/// lists a block as the keyframe has it or takes away a block the keyframe does not have (a
/// writer never writes either: the delta was not made against this keyframe), or makes a world
/// of more than `max_blocks`.
pub(super) fn check_on(
    base: &[(BlockPos, u32)],
    delta: &[(BlockPos, Option<u32>)],
    max_blocks: usize,
) -> Result<usize> {
    let mut count = base.len();
    // Both lists are sorted by position: each block is looked for from where the last was
    // found (a gallop, not a binary search of the whole keyframe per block).
    let mut i = 0;
    for &(p, s) in delta {
        i = gallop(base, i, p);
        let was = base.get(i).filter(|b| b.0 == p).map(|b| b.1);
        match (was, s) {
            (a, b) if a == b => {
                return Err(Error::corrupt(format!(
                    "world delta section lists block ({}, {}, {}) as its keyframe has it \
                     (not the keyframe it was written against)",
                    p.x, p.y, p.z
                )));
            }
            (None, _) => count += 1,
            (_, None) => count -= 1,
            _ => {}
        }
    }
    if count > max_blocks {
        return Err(Error::limit(format!(
            "a world of {count} edited blocks (keyframe and delta); limit {max_blocks}"
        )));
    }
    Ok(count)
}

/// A signed varint, one-byte ones (most steps of a sorted list) on a short path.
#[inline(always)]
fn ivarint(r: &mut ByteReader<'_>) -> Result<i64> {
    match r.rest().first() {
        Some(&b) if b < 0x80 => {
            r.advance(1);
            Ok(unzigzag(u64::from(b)))
        }
        _ => r.ivarint(),
    }
}

/// The `n` entries of a sorted list of blocks (a world section's blocks or a delta's), each
/// its position as the step from the previous one (the first from 0, 0, 0) and then what
/// `value` reads: the checks of `section::get_delta` (each position inside 32 bits, increasing) in
/// one loop over the list, with the list's capacity known up front (`n` was checked against
/// the bytes and the limits).
#[inline(always)]
pub(super) fn get_list<T>(
    r: &mut ByteReader<'_>,
    n: usize,
    what: &str,
    mut value: impl FnMut(&mut ByteReader<'_>) -> Result<T>,
) -> Result<Vec<(BlockPos, T)>> {
    let mut out = Vec::with_capacity(n);
    let (mut x, mut y, mut z) = (0i64, 0i64, 0i64);
    let fits = |v: i64| i64::from(v as i32) == v;
    for i in 0..n {
        let (dx, dy, dz) = (ivarint(r)?, ivarint(r)?, ivarint(r)?);
        let (Some(nx), Some(ny), Some(nz)) =
            (x.checked_add(dx), y.checked_add(dy), z.checked_add(dz))
        else {
            return Err(Error::corrupt(format!(
                "world section: {what} outside 32 bits"
            )));
        };
        if !(fits(nx) && fits(ny) && fits(nz)) {
            return Err(Error::corrupt(format!(
                "world section: {what} outside 32 bits"
            )));
        }
        if i > 0 && (nx, ny, nz) <= (x, y, z) {
            return Err(Error::corrupt(format!(
                "world section: {what} positions not increasing"
            )));
        }
        (x, y, z) = (nx, ny, nz);
        let v = value(r)?;
        out.push((BlockPos::new(x as i32, y as i32, z as i32), v));
    }
    Ok(out)
}

/// The first index at or after `from` of the sorted list `list` whose position is not below `p`
/// (`list.len()` if none), for `from` not past it: steps of 1, 2, 4, ... from `from`, then a
/// binary search in the last step.
pub(super) fn gallop(list: &[(BlockPos, u32)], from: usize, p: BlockPos) -> usize {
    let (mut lo, mut hi, mut step) = (from, from, 1);
    while hi < list.len() && list[hi].0 < p {
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    let hi = hi.min(list.len());
    lo + list[lo..hi].partition_point(|b| b.0 < p)
}
