//! Self-describing, checksummed chunk frames. Every compressed chunk on disk is preceded by a
//! 36-byte frame header, so that an index can always be rebuilt by scanning frames (after a crash,
//! or when a metadata file is damaged), and so that any corruption of a chunk is detected.
//!
//! ```text
//! 0..4   magic "TKCF"
//! 4      frame version (1)
//! 5      flags (index flags: bit 0 snapshot, bit 1 custom events, bit 2 world section)
//! 6..8   data version (u16 BE) of the payload
//! 8..12  start tick (u32 BE)
//! 12..16 tick count (u32 BE)
//! 16..20 compressed payload length (u32 BE)
//! 20..24 uncompressed payload length (u32 BE)
//! 24..32 XXH64 (seed 0) of the compressed payload
//! 32..36 low 32 bits of XXH64 (seed 0) of bytes 0..32 (the frame header's own checksum)
//! ```
//!
//! The compressed payload is one zstd frame (two when the movement takes at least
//! `SPLIT_MOVEMENT_BYTES`: the bytes before it, then the movement; FORMAT.md section 6), followed
//! by one zstd skippable frame when the payload compresses better than
//! [`crate::format::limits::MAX_EXPANSION`] allows ([`pad_payload`]).

use crate::error::{Error, Result};
use xxhash_rust::xxh64::xxh64;

pub(crate) const FRAME_MAGIC: [u8; 4] = *b"TKCF";
pub(crate) const FRAME_VERSION: u8 = 1;
pub const FRAME_HEADER_LEN: usize = 36;

/// Magic of the zstd skippable frame that pads a payload (the first of the 16 skippable magics
/// `0x184D2A50..=0x184D2A5F`), written little-endian as zstd's frames are.
pub(crate) const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;
/// A skippable frame's header: magic and content length (u32 LE each).
pub(crate) const SKIPPABLE_HEADER_LEN: usize = 8;

/// Pads a compressed payload of `uncompressed_len` bytes up to the least compressed length a reader
/// accepts for it ([`crate::format::limits::min_compressed_len`]), by appending one zstd skippable
/// frame (magic, u32 LE content length, that many zero bytes), which zstd's decompression skips.
/// A payload that is long enough already is left as it is.
pub fn pad_payload(compressed: &mut Vec<u8>, uncompressed_len: usize) {
    let need = crate::format::limits::min_compressed_len(uncompressed_len as u64);
    let have = compressed.len() as u64;
    if have >= need {
        return;
    }
    // `need` is at most 16 MiB for a 4 GiB payload: the content length fits a u32.
    let content = (need - have).saturating_sub(SKIPPABLE_HEADER_LEN as u64) as usize;
    compressed.reserve(SKIPPABLE_HEADER_LEN + content);
    compressed.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
    compressed.extend_from_slice(&(content as u32).to_le_bytes());
    compressed.resize(compressed.len() + content, 0);
}

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
    pub(crate) fn verify_payload(&self, payload: &[u8]) -> Result<()> {
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
    use crate::format::limits::max_uncompressed_len;

    /// Compresses `payload`, with `dictionary` if given, and pads it as a writer does.
    fn padded(payload: &[u8], dictionary: Option<&[u8]>) -> Vec<u8> {
        let mut c = match dictionary {
            Some(d) => zstd::bulk::Compressor::with_dictionary(3, d).unwrap(),
            None => zstd::bulk::Compressor::new(3).unwrap(),
        }
        .compress(payload)
        .unwrap();
        pad_payload(&mut c, payload.len());
        c
    }

    #[test]
    fn a_padded_payload_meets_the_ratio_and_decompresses_to_the_payload() {
        // A raw-content dictionary: zstd loads any bytes as one.
        let dictionary = b"a dictionary of raw content, loaded as such by zstd ".repeat(40);
        let mixed: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        for payload in [vec![0u8; 16 << 20], vec![0u8; 5000], vec![0u8; 100], mixed] {
            for dict in [None, Some(dictionary.as_slice())] {
                let c = padded(&payload, dict);
                assert!(
                    payload.len() as u64 <= max_uncompressed_len(c.len() as u64),
                    "{} bytes from {}",
                    payload.len(),
                    c.len()
                );
                // A zstd frame followed by a skippable frame: the decompression the reader uses
                // skips it, with and without a dictionary.
                let mut dec = match dict {
                    Some(d) => zstd::bulk::Decompressor::with_dictionary(d).unwrap(),
                    None => zstd::bulk::Decompressor::new().unwrap(),
                };
                assert_eq!(dec.decompress(&c, payload.len()).unwrap(), payload);
            }
        }
        // 16 MiB of zeros compress to a few hundred bytes: padded, with a skippable frame at the
        // end of exactly the length the ratio asks for.
        let c = padded(&vec![0u8; 16 << 20], None);
        assert_eq!(c.len() as u64, ((16 << 20) - 4096) / 256);
        let zstd_len = zstd::zstd_safe::find_frame_compressed_size(&c).unwrap();
        assert_eq!(
            &c[zstd_len..zstd_len + 4],
            &[0x50, 0x2A, 0x4D, 0x18],
            "skippable magic"
        );
        let content = u32::from_le_bytes(c[zstd_len + 4..zstd_len + 8].try_into().unwrap());
        assert_eq!(zstd_len + 8 + content as usize, c.len());
        // A payload that compresses less than the ratio is not touched.
        let mixed: Vec<u8> = (0..300_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let plain = zstd::bulk::compress(&mixed, 3).unwrap();
        assert_eq!(padded(&mixed, None), plain);
    }

    #[test]
    fn padding_shorter_than_a_skippable_header_still_writes_a_whole_frame() {
        // 3 bytes short: the skippable frame has no content, and the payload ends 5 bytes past
        // the least length.
        let mut c = vec![0xAB; 10];
        pad_payload(&mut c, 4096 + 256 * 13);
        assert_eq!(c.len(), 18);
        assert_eq!(&c[10..], &[0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0]);
    }

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
