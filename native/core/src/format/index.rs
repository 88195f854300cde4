//! The chunk index, entry for entry as in the seed: start tick (varint), tick count (varint),
//! flags (1 byte), byte offset (8 bytes BE), compressed length (varint), uncompressed length (varint).

use crate::error::{Error, Result};
use crate::format::bytes::{ByteReader, put_uvarint};

/// Index flag: the chunk carries a snapshot of user world state.
pub const FLAG_SNAPSHOT: u8 = 1 << 0;
/// Index flag: the chunk's event stream has custom or extension events (world changes to replay).
pub const FLAG_CUSTOM_EVENTS: u8 = 1 << 1;
/// The chunk's payload carries a world section after its snapshot (only with [`FLAG_SNAPSHOT`],
/// in data version 3 and later): the world at its start was not empty. A snapshot chunk without
/// it starts with an empty world.
pub const FLAG_WORLD: u8 = 1 << 2;

/// The chunk's compressed payload starts with a terrain piece (sections of blocks the game
/// handed over, in effect from the chunk's first tick; [`crate::format::Terrain`]): a zstd
/// skippable frame, which readers that do not know the flag step over with the rest of zstd's
/// decompression. Needs no data version (FORMAT.md §6.1).
pub const FLAG_TERRAIN: u8 = 1 << 3;

/// With [`FLAG_TERRAIN`]: the chunk's terrain piece is **full**, the whole terrain in effect from
/// the chunk's first tick (every section of the earlier pieces, with the piece's own), so that
/// the terrain at a tick is built from the last full piece at or before it and the pieces after
/// it, never from the first chunk. Writers make a terrain piece full when it is the first of
/// the recording (or the first after a resume), or when the last full piece is
/// [`MAX_CHUNKS_PER_SNAPSHOT`] chunks back or more: the terrain at any tick merges at most that
/// many chunks' pieces. Readers that do not know the flag merge every piece, which gives the
/// same terrain (FORMAT.md §6.1).
pub const FLAG_TERRAIN_FULL: u8 = 1 << 4;

/// Most terrain pieces a reader merges for the terrain at one tick (those of the last full piece
/// ([`FLAG_TERRAIN_FULL`]) at or before it and after it; from the first chunk in a file that
/// has none, one written before full pieces were): more is refused (`LimitExceeded`), naming
/// the chunk and the limit. tickreel's writers merge at most [`MAX_CHUNKS_PER_SNAPSHOT`];
/// `compact` rewrites an earlier file with full pieces.
pub const MAX_TERRAIN_PIECES_MERGED: usize = 4096;

/// Where the terrain in effect at chunk `last` (a chunk with [`FLAG_TERRAIN`]) is built from:
/// the nearest chunk at or before it with [`FLAG_TERRAIN_FULL`], or the first chunk when there
/// is none (a file written before full pieces), with the number of terrain pieces from there
/// through `last`. Refuses (`LimitExceeded`) more than [`MAX_TERRAIN_PIECES_MERGED`] pieces,
/// naming both chunks; looks at the index only.
pub(crate) fn terrain_start(entries: &[IndexEntry], last: usize) -> Result<(usize, usize)> {
    let mut pieces = 0usize;
    for i in (0..=last).rev() {
        let f = entries[i].flags;
        if f & FLAG_TERRAIN == 0 {
            continue;
        }
        pieces += 1;
        if f & FLAG_TERRAIN_FULL != 0 {
            return Ok((i, pieces));
        }
        if pieces > MAX_TERRAIN_PIECES_MERGED {
            return Err(Error::limit(format!(
                "the terrain at chunk {last} (tick {}) merges more than \
                 {MAX_TERRAIN_PIECES_MERGED} terrain pieces (chunk {i}, tick {}, and later; no \
                 full terrain piece before it: a file written before them, which `tickreel \
                 compact` rewrites with them); limit {MAX_TERRAIN_PIECES_MERGED}",
                entries[last].start_tick, entries[i].start_tick
            )));
        }
    }
    Ok((0, pieces))
}

/// One index entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexEntry {
    /// Absolute tick of the chunk's first tick.
    pub start_tick: u32,
    /// Ticks spanned by the chunk.
    pub tick_count: u32,
    pub flags: u8,
    /// Compacted: file offset of the chunk frame. Segmented: `(segment << 32) | offset in segment`.
    pub offset: u64,
    /// Length of the compressed payload (after the frame header).
    pub compressed_len: u32,
    /// Length of the payload once decompressed.
    pub uncompressed_len: u32,
}

impl IndexEntry {
    pub fn has_snapshot(&self) -> bool {
        self.flags & FLAG_SNAPSHOT != 0
    }
    /// One past the last tick of the chunk.
    pub fn end_tick(&self) -> u64 {
        u64::from(self.start_tick) + u64::from(self.tick_count)
    }
    /// Segment number of a segmented offset.
    pub fn segment(&self) -> u32 {
        (self.offset >> 32) as u32
    }
    /// Offset within the segment of a segmented offset.
    pub fn segment_offset(&self) -> u32 {
        self.offset as u32
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        put_uvarint(out, u64::from(self.start_tick));
        put_uvarint(out, u64::from(self.tick_count));
        out.push(self.flags);
        out.extend_from_slice(&self.offset.to_be_bytes());
        put_uvarint(out, u64::from(self.compressed_len));
        put_uvarint(out, u64::from(self.uncompressed_len));
    }

    pub(crate) fn decode(r: &mut ByteReader<'_>) -> Result<IndexEntry> {
        Ok(IndexEntry {
            start_tick: r.uvarint32()?,
            tick_count: r.uvarint32()?,
            flags: r.u8()?,
            offset: r.u64_be()?,
            compressed_len: r.uvarint32()?,
            uncompressed_len: r.uvarint32()?,
        })
    }
}

/// Encodes a whole index.
pub fn encode_index(entries: &[IndexEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * 16);
    for e in entries {
        e.encode(&mut out);
    }
    out
}

/// Decodes `count` entries from exactly `bytes`, checking order (ascending, non-overlapping).
pub fn decode_index(bytes: &[u8], count: u32) -> Result<Vec<IndexEntry>> {
    // Each entry takes at least 13 bytes, so a count larger than that is corrupt; checked before allocating.
    if u64::from(count) * 13 > bytes.len() as u64 {
        return Err(Error::corrupt(format!(
            "index claims {count} chunks in {} bytes",
            bytes.len()
        )));
    }
    let mut r = ByteReader::new(bytes);
    let mut out = Vec::with_capacity(count as usize);
    let mut prev_end = 0u64;
    for i in 0..count {
        let e = IndexEntry::decode(&mut r)?;
        if e.tick_count == 0 {
            return Err(Error::corrupt(format!("index entry {i} spans no ticks")));
        }
        if e.end_tick() > 1 << 32 {
            return Err(Error::corrupt(format!(
                "index entry {i} reaches past tick 2^32 - 1"
            )));
        }
        if i > 0 && u64::from(e.start_tick) < prev_end {
            return Err(Error::corrupt(format!(
                "index entry {i} starts at tick {} before the previous chunk ends ({prev_end})",
                e.start_tick
            )));
        }
        prev_end = e.end_tick();
        out.push(e);
    }
    if !r.is_empty() {
        return Err(Error::corrupt(format!(
            "index has {} trailing bytes",
            r.remaining()
        )));
    }
    Ok(out)
}

/// Index of the chunk containing `tick`, or the last chunk starting before it (ticks may be absent).
pub fn find_chunk(entries: &[IndexEntry], tick: u32) -> Option<usize> {
    let n = entries.partition_point(|e| e.start_tick <= tick);
    n.checked_sub(1)
}

/// Most chunks from a snapshot chunk through the last chunk before the next snapshot, in the files
/// tickreel's recorders and synchronous writer write (they start a snapshot chunk at least every
/// this many chunks, besides every `snapshot_interval` ticks): a seek's world rebuild decodes at
/// most this many chunks. A reader's rebuild reads at most this many chunks back in any file
/// ([`rebuild_start`]).
pub const MAX_CHUNKS_PER_SNAPSHOT: usize = 256;

/// Where a world rebuild at chunk `chunk` starts: the nearest chunk at or before it that carries
/// a snapshot, looking at most [`MAX_CHUNKS_PER_SNAPSHOT`] chunks back (`chunk` included), or the
/// first chunk if it is within that reach. The flag tells whether the start is such a chunk (a
/// snapshot, or the recording's start); `false`: the recording has no snapshot within reach and
/// the rebuild starts `MAX_CHUNKS_PER_SNAPSHOT - 1` chunks before `chunk`, without the world
/// state before it.
pub(crate) fn rebuild_start(entries: &[IndexEntry], chunk: usize) -> (usize, bool) {
    let lo = (chunk + 1).saturating_sub(MAX_CHUNKS_PER_SNAPSHOT);
    match (lo..=chunk).rev().find(|&i| entries[i].has_snapshot()) {
        Some(s) => (s, true),
        None => (lo, lo == 0),
    }
}

/// Chunks a world rebuild at `q` needs: from the nearest snapshot at or before `q`'s chunk (or
/// the first chunk) through `q`'s chunk, but at most
/// [`MAX_CHUNKS_PER_SNAPSHOT`] chunks
/// ([`rebuild_start`]: a file without snapshots costs a bounded number of chunks per seek).
pub(crate) fn rebuild_range(idx: &[IndexEntry], q: u32) -> (usize, usize) {
    let k = find_chunk(idx, q).unwrap_or(0);
    (rebuild_start(idx, k).0, k)
}

/// Index of the nearest chunk at or before `chunk` that carries a snapshot.
pub fn snapshot_at_or_before(entries: &[IndexEntry], chunk: usize) -> Option<usize> {
    (0..=chunk).rev().find(|&i| entries[i].has_snapshot())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_round_trip_and_lookup() {
        let entries = vec![
            IndexEntry {
                start_tick: 0,
                tick_count: 100,
                flags: FLAG_SNAPSHOT,
                offset: 300,
                compressed_len: 50,
                uncompressed_len: 400,
            },
            IndexEntry {
                start_tick: 150,
                tick_count: 100,
                flags: 0,
                offset: (2 << 32) | 12,
                compressed_len: 70,
                uncompressed_len: 900,
            },
        ];
        let bytes = encode_index(&entries);
        assert_eq!(decode_index(&bytes, 2).unwrap(), entries);
        assert_eq!(find_chunk(&entries, 0), Some(0));
        assert_eq!(find_chunk(&entries, 120), Some(0));
        assert_eq!(find_chunk(&entries, 150), Some(1));
        assert_eq!(snapshot_at_or_before(&entries, 1), Some(0));
        assert_eq!(entries[1].segment(), 2);
        assert!(decode_index(&bytes, 3).is_err());
        assert!(decode_index(&bytes[..bytes.len() - 1], 2).is_err());
    }
}
