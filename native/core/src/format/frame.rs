//! Self-describing, checksummed chunk frames. Every compressed chunk on disk is preceded by a
//! 36-byte frame header, so that an index can always be rebuilt by scanning frames (after a crash,
//! or when a metadata file is damaged), and so that any corruption of a chunk is detected.
//!
//! ```text
//! 0..4   magic "TKCF"
//! 4      frame version (1)
//! 5      flags (index flags: bit 0 snapshot, bit 1 custom events)
//! 6..8   data version (u16 BE) of the payload
//! 8..12  start tick (u32 BE)
//! 12..16 tick count (u32 BE)
//! 16..20 compressed payload length (u32 BE)
//! 20..24 uncompressed payload length (u32 BE)
//! 24..32 XXH64 (seed 0) of the compressed payload
//! 32..36 low 32 bits of XXH64 (seed 0) of bytes 0..32 (the frame header's own checksum)
//! ```

use crate::error::{Error, Result};
use xxhash_rust::xxh64::xxh64;

pub const FRAME_MAGIC: [u8; 4] = *b"TKCF";
pub const FRAME_VERSION: u8 = 1;
pub const FRAME_HEADER_LEN: usize = 36;

/// The header of one chunk frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    pub flags: u8,
    pub data_version: u16,
    pub start_tick: u32,
    pub tick_count: u32,
    pub compressed_len: u32,
    pub uncompressed_len: u32,
    pub payload_checksum: u64,
}

impl FrameHeader {
    /// Builds the header for a compressed payload, computing its checksum.
    pub fn for_payload(
        flags: u8,
        data_version: u16,
        start_tick: u32,
        tick_count: u32,
        uncompressed_len: u32,
        payload: &[u8],
    ) -> FrameHeader {
        FrameHeader {
            flags,
            data_version,
            start_tick,
            tick_count,
            compressed_len: payload.len() as u32,
            uncompressed_len,
            payload_checksum: xxh64(payload, 0),
        }
    }

    pub fn encode(&self) -> [u8; FRAME_HEADER_LEN] {
        let mut b = [0u8; FRAME_HEADER_LEN];
        b[0..4].copy_from_slice(&FRAME_MAGIC);
        b[4] = FRAME_VERSION;
        b[5] = self.flags;
        b[6..8].copy_from_slice(&self.data_version.to_be_bytes());
        b[8..12].copy_from_slice(&self.start_tick.to_be_bytes());
        b[12..16].copy_from_slice(&self.tick_count.to_be_bytes());
        b[16..20].copy_from_slice(&self.compressed_len.to_be_bytes());
        b[20..24].copy_from_slice(&self.uncompressed_len.to_be_bytes());
        b[24..32].copy_from_slice(&self.payload_checksum.to_be_bytes());
        let sum = xxh64(&b[..32], 0) as u32;
        b[32..36].copy_from_slice(&sum.to_be_bytes());
        b
    }

    /// Parses a frame header, checking its magic and its own checksum.
    pub fn decode(b: &[u8]) -> Result<FrameHeader> {
        if b.len() < FRAME_HEADER_LEN {
            return Err(Error::truncated("chunk frame header cut short"));
        }
        if b[0..4] != FRAME_MAGIC {
            return Err(Error::corrupt("bad chunk frame magic"));
        }
        let be32 = |o: usize| u32::from_be_bytes(b[o..o + 4].try_into().expect("4"));
        if be32(32) != xxh64(&b[..32], 0) as u32 {
            return Err(Error::corrupt("chunk frame header checksum mismatch"));
        }
        if b[4] != FRAME_VERSION {
            return Err(Error::Unsupported(format!("chunk frame version {}", b[4])));
        }
        let h = FrameHeader {
            flags: b[5],
            data_version: u16::from_be_bytes([b[6], b[7]]),
            start_tick: be32(8),
            tick_count: be32(12),
            compressed_len: be32(16),
            uncompressed_len: be32(20),
            payload_checksum: u64::from_be_bytes(b[24..32].try_into().expect("8")),
        };
        if h.tick_count == 0 {
            return Err(Error::corrupt("chunk frame spans no ticks"));
        }
        if u64::from(h.start_tick) + u64::from(h.tick_count) > 1 << 32 {
            return Err(Error::corrupt("chunk frame reaches past tick 2^32 - 1"));
        }
        Ok(h)
    }

    /// Checks the compressed payload against the header's checksum.
    pub fn verify_payload(&self, payload: &[u8]) -> Result<()> {
        if payload.len() != self.compressed_len as usize {
            return Err(Error::truncated(format!(
                "chunk payload at tick {} has {} of {} bytes",
                self.start_tick,
                payload.len(),
                self.compressed_len
            )));
        }
        if xxh64(payload, 0) != self.payload_checksum {
            return Err(Error::corrupt(format!(
                "chunk at tick {} fails its checksum",
                self.start_tick
            )));
        }
        Ok(())
    }

    /// Total bytes of the frame on disk.
    pub fn frame_len(&self) -> u64 {
        FRAME_HEADER_LEN as u64 + u64::from(self.compressed_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_header_round_trip_and_checks() {
        let payload = b"compressed bytes";
        let h = FrameHeader::for_payload(1, 1, 200, 100, 999, payload);
        let b = h.encode();
        let d = FrameHeader::decode(&b).unwrap();
        assert_eq!(d, h);
        d.verify_payload(payload).unwrap();
        assert!(d.verify_payload(b"compressed bytez").is_err());
        for i in 0..FRAME_HEADER_LEN {
            let mut bad = b;
            bad[i] ^= 0x10;
            assert!(FrameHeader::decode(&bad).is_err(), "flip at {i}");
        }
    }
}
