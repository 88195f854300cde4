//! The manifest of a live recording in a bucket (`<key>.live/manifest`): which batch objects hold
//! which bytes of which local segment, and the writer's metadata file as of the last shipment.
//! Rewritten whole at every shipment; a reader trusts none of its counts or lengths beyond the
//! limits here.
//!
//! ```text
//! magic "TKRLLIV1"
//! u64 seq                  shipments so far (changes every shipment, even with nothing new)
//! u32 interval_ms          the writer's shipping interval
//! u32 pieces, then per piece (32 bytes):
//!   u32 batch  u64 batch_offset  u32 segment  u64 segment_offset  u64 len
//! u32 meta_len, then the metadata file's bytes (header, metadata, index: as `meta.tkrl`)
//! ```
//! Integers big-endian, as everywhere in the format.

use tickreel::{Error, Result};

pub const MAGIC: &[u8; 8] = b"TKRLLIV1";
/// Most pieces a manifest may name (a shipment every 10 s for 100 days).
pub const MAX_PIECES: usize = 1 << 20;
/// Largest metadata file a manifest may carry.
pub const MAX_META_BYTES: usize = 64 << 20;
/// Largest manifest a reader fetches.
pub const MAX_MANIFEST_BYTES: u64 = (MAX_META_BYTES + MAX_PIECES * PIECE_LEN + 64) as u64;
const PIECE_LEN: usize = 32;

/// Bytes `segment_offset..segment_offset + len` of local segment `segment`, stored at
/// `batch_offset` in batch object `batch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub batch: u32,
    pub batch_offset: u64,
    pub segment: u32,
    pub segment_offset: u64,
    pub len: u64,
}

impl Piece {
    /// Whether `offset..offset + len` of `segment` lies inside this piece.
    pub fn holds(&self, segment: u32, offset: u64, len: u64) -> bool {
        self.segment == segment
            && offset >= self.segment_offset
            && offset
                .checked_add(len)
                .is_some_and(|end| end <= self.segment_offset + self.len)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    pub seq: u64,
    pub interval_ms: u32,
    pub pieces: Vec<Piece>,
    pub meta: Vec<u8>,
}

impl Manifest {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.pieces.len() * PIECE_LEN + self.meta.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.seq.to_be_bytes());
        out.extend_from_slice(&self.interval_ms.to_be_bytes());
        out.extend_from_slice(&(self.pieces.len() as u32).to_be_bytes());
        for p in &self.pieces {
            out.extend_from_slice(&p.batch.to_be_bytes());
            out.extend_from_slice(&p.batch_offset.to_be_bytes());
            out.extend_from_slice(&p.segment.to_be_bytes());
            out.extend_from_slice(&p.segment_offset.to_be_bytes());
            out.extend_from_slice(&p.len.to_be_bytes());
        }
        out.extend_from_slice(&(self.meta.len() as u32).to_be_bytes());
        out.extend_from_slice(&self.meta);
        out
    }

    /// Decodes a manifest, checking every count and length against the bytes there are and the
    /// limits; `what` names it in errors.
    pub fn decode(b: &[u8], what: &str) -> Result<Manifest> {
        let bad = |m: &str| Error::corrupt(format!("{what}: {m}"));
        let mut r = Cursor { b, at: 0 };
        if r.take(8).ok_or_else(|| bad("too short"))? != MAGIC {
            return Err(bad("not a live recording's manifest (bad magic)"));
        }
        let seq = r.u64().ok_or_else(|| bad("too short"))?;
        let interval_ms = r.u32().ok_or_else(|| bad("too short"))?;
        let n = r.u32().ok_or_else(|| bad("too short"))? as usize;
        if n > MAX_PIECES || n.saturating_mul(PIECE_LEN) > b.len() - r.at {
            return Err(bad(&format!(
                "{n} pieces: more than the limit or the bytes"
            )));
        }
        let mut pieces = Vec::with_capacity(n);
        for _ in 0..n {
            let p = (|| {
                Some(Piece {
                    batch: r.u32()?,
                    batch_offset: r.u64()?,
                    segment: r.u32()?,
                    segment_offset: r.u64()?,
                    len: r.u64()?,
                })
            })()
            .ok_or_else(|| bad("truncated piece"))?;
            if p.batch_offset.checked_add(p.len).is_none()
                || p.segment_offset.checked_add(p.len).is_none()
            {
                return Err(bad("a piece's range overflows"));
            }
            pieces.push(p);
        }
        let meta_len = r.u32().ok_or_else(|| bad("too short"))? as usize;
        if meta_len > MAX_META_BYTES {
            return Err(bad(&format!(
                "metadata of {meta_len} bytes; limit {MAX_META_BYTES}"
            )));
        }
        let meta = r
            .take(meta_len)
            .ok_or_else(|| bad("metadata cut short"))?
            .to_vec();
        if r.at != b.len() {
            return Err(bad("bytes after the metadata"));
        }
        Ok(Manifest {
            seq,
            interval_ms,
            pieces,
            meta,
        })
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_be_bytes(self.take(8)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_refusals() {
        let m = Manifest {
            seq: 7,
            interval_ms: 10_000,
            pieces: vec![Piece {
                batch: 2,
                batch_offset: 0,
                segment: 0,
                segment_offset: 32,
                len: 100,
            }],
            meta: b"meta".to_vec(),
        };
        let b = m.encode();
        assert_eq!(Manifest::decode(&b, "m").unwrap(), m);
        assert!(Manifest::decode(&b[..b.len() - 1], "m").is_err());
        let mut more = b.clone();
        more.push(0);
        assert!(Manifest::decode(&more, "m").is_err());
        let mut huge = b.clone();
        huge[20..24].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(Manifest::decode(&huge, "m").is_err());
        let mut magic = b;
        magic[0] = b'X';
        assert!(Manifest::decode(&magic, "m").is_err());
        let p = m.pieces[0];
        assert!(p.holds(0, 32, 100) && p.holds(0, 50, 10));
        assert!(!p.holds(0, 31, 10) && !p.holds(0, 120, 13) && !p.holds(1, 40, 1));
    }
}
