//! The anchor's finished files, counted whole: how HollowCube stores a recording once it is over
//! (`hollow-cube/mapmaker`, `modules/replay`: `ReplayCompactor.java`, `ReplayHeader.java`,
//! `data/ChunkIndex.java`). Its compactor merges consecutive recorded chunks (the reference
//! encoding of `baseline.rs`, 100 ticks each) into frames of at most 256 KiB of raw bytes — a chunk
//! of 256 KiB or more is split at its ticks — and compresses each frame alone at zstd level 19.
//! Its file is a 256-byte header, the metadata (an NBT compound), an index of one entry per frame
//! (varint start tick, varint tick count, a flags byte, an 8-byte offset, varint compressed and
//! uncompressed lengths), then the frames as bare zstd frames. The metadata is counted at its
//! smallest, an empty compound (2 bytes): whatever a host puts there only makes their file larger.

use tickreel::Event;

use super::baseline::{self, RawChunk};

/// Most raw bytes one frame holds (`ReplayCompactor.FRAME_BYTE_LIMIT`).
pub const FRAME_BYTE_LIMIT: usize = 256 << 10;
/// Zstd level of the frames (`ReplayHeader.COMPACT_COMPRESSION_LEVEL`).
pub const COMPACT_LEVEL: i32 = 19;
/// The fixed header (`ReplayHeader.HEADER_LENGTH`).
const HEADER_BYTES: u64 = 256;
/// An empty NBT compound as Minestom's `NetworkBuffer.NBT_COMPOUND` writes it (type, end).
const METADATA_BYTES: u64 = 2;

fn varint_len(mut v: u64) -> u64 {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// The compactor's frame merging, fed chunk by chunk, counting the bytes of the file it writes.
pub struct Compacted {
    compressor: zstd::bulk::Compressor<'static>,
    pending: Vec<u8>,
    /// Start tick and tick count of the open frame.
    open: Option<(u32, u32)>,
    frame_bytes: u64,
    index_bytes: u64,
    frames: u64,
}

impl Compacted {
    pub fn new() -> Compacted {
        Compacted {
            compressor: zstd::bulk::Compressor::new(COMPACT_LEVEL).expect("zstd"),
            pending: Vec::with_capacity(FRAME_BYTE_LIMIT),
            open: None,
            frame_bytes: 0,
            index_bytes: 0,
            frames: 0,
        }
    }

    /// One recorded chunk, in order (`MergedFrames.chunk`).
    pub fn chunk(&mut self, c: &RawChunk) {
        if c.bytes.len() < FRAME_BYTE_LIMIT {
            self.append(c.start_tick, c.tick_count, &c.bytes);
            return;
        }
        let mut from = 0;
        for (i, &end) in c.tick_ends.iter().enumerate() {
            self.append(c.start_tick + i as u32, 1, &c.bytes[from..end]);
            from = end;
        }
    }

    fn append(&mut self, tick: u32, count: u32, bytes: &[u8]) {
        if self.open.is_some() && self.pending.len() + bytes.len() > FRAME_BYTE_LIMIT {
            self.flush();
        }
        let open = self.open.get_or_insert((tick, 0));
        open.1 += count;
        self.pending.extend_from_slice(bytes);
    }

    fn flush(&mut self) {
        let Some((start, count)) = self.open.take() else {
            return;
        };
        let compressed = self.compressor.compress(&self.pending).expect("zstd").len() as u64;
        self.frame_bytes += compressed;
        self.index_bytes += varint_len(u64::from(start))
            + varint_len(u64::from(count))
            + 1
            + 8
            + varint_len(compressed)
            + varint_len(self.pending.len() as u64);
        self.frames += 1;
        self.pending.clear();
    }

    /// Closes the last frame: the size of the whole file.
    pub fn finish(self) -> u64 {
        let (container, frames) = self.finish_parts();
        container + frames
    }

    /// Closes the last frame: the file's container (header, metadata, index) and its frames.
    pub fn finish_parts(mut self) -> (u64, u64) {
        self.flush();
        (
            HEADER_BYTES + METADATA_BYTES + self.index_bytes,
            self.frame_bytes,
        )
    }
}

/// Size of the anchor's compacted file of the workload, header, metadata and index included.
pub fn compacted_size(ticks: &[(u32, Vec<Event>)]) -> u64 {
    let (container, frames) = compacted_parts(ticks);
    container + frames
}

/// The anchor's compacted file of the workload: its container (header, metadata, index) and its
/// frames, in bytes.
pub fn compacted_parts(ticks: &[(u32, Vec<Event>)]) -> (u64, u64) {
    let mut c = Compacted::new();
    baseline::encode_chunks(ticks, |chunk| c.chunk(chunk));
    c.finish_parts()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(start: u32, ticks: u32, tick_bytes: usize, seed: u8) -> RawChunk {
        let mut bytes = Vec::new();
        let mut tick_ends = Vec::new();
        let mut x = u32::from(seed) | 1;
        for _ in 0..ticks {
            for _ in 0..tick_bytes {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                bytes.push(x as u8);
            }
            tick_ends.push(bytes.len());
        }
        RawChunk {
            start_tick: start,
            tick_count: ticks,
            bytes,
            tick_ends,
        }
    }

    #[test]
    fn merges_chunks_up_to_the_frame_limit_and_splits_large_ones_at_ticks() {
        // Three chunks of 100 KiB: the first two share a frame, the third opens another.
        let mut c = Compacted::new();
        for i in 0..3 {
            c.chunk(&chunk(i * 100, 100, 1024, i as u8));
        }
        c.flush();
        assert_eq!(c.frames, 2);
        // One chunk of 400 KiB: split at its ticks into frames of at most 256 KiB.
        let mut c = Compacted::new();
        c.chunk(&chunk(0, 100, 4096, 9));
        c.flush();
        assert_eq!(c.frames, 2);
        // Random bytes do not compress: the file is at least the raw bytes plus its container.
        let size = {
            let mut c = Compacted::new();
            c.chunk(&chunk(0, 10, 100, 3));
            c.finish()
        };
        assert!(size >= 1000 + HEADER_BYTES + METADATA_BYTES + 13, "{size}");
    }
}
