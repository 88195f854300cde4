//! The two kinds of object a [`super::LiveShipper`] writes, and how their bytes are laid out. A
//! reader trusts none of their counts or lengths beyond the limits here.
//!
//! The manifest (`<key>.live/manifest`), rewritten whole at every shipment, has a size that does
//! not grow with the recording's length: it names how many batch objects there are and where
//! each local segment's shipped bytes end, and carries the writer's metadata file without its
//! index (a follower rebuilds the index from the frames of the batches it reads, as recovery
//! rebuilds it from segments: every frame header carries its index entry's fields).
//!
//! ```text
//! magic "TKRLLIV2"
//! u64 seq                  shipments so far (changes every shipment, even with nothing new)
//! u32 interval_ms          the writer's shipping interval
//! u32 batches              batch objects written: batch-00000000 .. batches - 1
//! u32 segments, then per segment (12 bytes):
//!   u32 segment  u64 shipped_end      bytes 0..shipped_end of the local segment are in batches
//! u32 prefix_len, then the metadata file's header and metadata (its index left out)
//! ```
//!
//! A batch object (`<key>.live/batch-NNNNNNNN`), written once, names its own pieces:
//!
//! ```text
//! magic "TKRLBAT1"
//! u32 pieces, then per piece (20 bytes):
//!   u32 segment  u64 segment_offset  u64 len
//! the pieces' bytes, back to back (whole frames; a piece at segment offset 0 starts with the
//! segment's preamble)
//! ```
//! Integers big-endian, as everywhere in the format.

use tickreel::format::HEADER_LEN;
use tickreel::{Error, Result};

pub const MAGIC: &[u8; 8] = b"TKRLLIV2";
/// The magic of a batch object.
pub const BATCH_MAGIC: &[u8; 8] = b"TKRLBAT1";
/// Most batch objects a manifest may name (a shipment every second for 12 days).
pub const MAX_BATCHES: u32 = 1 << 20;
/// Most segments a manifest may name.
pub const MAX_SEGMENTS: usize = 1 << 16;
/// Most pieces a batch may hold (a shipment holds one per segment it adds to).
pub const MAX_PIECES: usize = 1 << 12;
/// Largest header and metadata a manifest may carry: a header and the most metadata a reader
/// accepts (`Limits::max_metadata_bytes`, 16 MiB), checked before the metadata is read.
pub const MAX_META_BYTES: usize = HEADER_LEN + (16 << 20);
/// Largest manifest a reader fetches.
pub const MAX_MANIFEST_BYTES: u64 = (MAX_META_BYTES + MAX_SEGMENTS * SEGMENT_LEN + 64) as u64;
const SEGMENT_LEN: usize = 12;
const PIECE_LEN: usize = 20;

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
    /// Batch objects written.
    pub batches: u32,
    /// Per local segment, in segment order: where its bytes in the bucket end.
    pub shipped: Vec<(u32, u64)>,
    /// The metadata file's header and metadata, without the index (its header still counts
    /// the index the writer had: a reader replaces those fields, see `super::index`).
    pub prefix: Vec<u8>,
}

impl Manifest {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.shipped.len() * SEGMENT_LEN + self.prefix.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.seq.to_be_bytes());
        out.extend_from_slice(&self.interval_ms.to_be_bytes());
        out.extend_from_slice(&self.batches.to_be_bytes());
        out.extend_from_slice(&(self.shipped.len() as u32).to_be_bytes());
        for (seg, end) in &self.shipped {
            out.extend_from_slice(&seg.to_be_bytes());
            out.extend_from_slice(&end.to_be_bytes());
        }
        out.extend_from_slice(&(self.prefix.len() as u32).to_be_bytes());
        out.extend_from_slice(&self.prefix);
        out
    }

    /// Decodes a manifest, checking every count and length against the bytes there are and the
    /// limits; `what` names it in errors.
    pub fn decode(b: &[u8], what: &str) -> Result<Manifest> {
        let bad = |m: &str| Error::corrupt(format!("{what}: {m}"));
        let mut r = Cursor { b, at: 0 };
        match r.take(8) {
            Some(m) if m == MAGIC => {}
            Some(m) if m == b"TKRLLIV1" => {
                return Err(Error::Unsupported(format!(
                    "{what}: a live manifest of an earlier build (whole index inside); finish \
                     it with that build, or `tickreel recover` it with it"
                )));
            }
            Some(_) => return Err(bad("not a live recording's manifest (bad magic)")),
            None => return Err(bad("too short")),
        }
        let seq = r.u64().ok_or_else(|| bad("too short"))?;
        let interval_ms = r.u32().ok_or_else(|| bad("too short"))?;
        let batches = r.u32().ok_or_else(|| bad("too short"))?;
        if batches > MAX_BATCHES {
            return Err(bad(&format!("{batches} batches; limit {MAX_BATCHES}")));
        }
        let n = r.u32().ok_or_else(|| bad("too short"))? as usize;
        if n > MAX_SEGMENTS || n.saturating_mul(SEGMENT_LEN) > b.len() - r.at {
            return Err(bad(&format!(
                "{n} segments: more than the limit or the bytes"
            )));
        }
        let mut shipped: Vec<(u32, u64)> = Vec::with_capacity(n);
        for _ in 0..n {
            let s = (|| Some((r.u32()?, r.u64()?)))().ok_or_else(|| bad("truncated segment"))?;
            if shipped.last().is_some_and(|l| l.0 >= s.0) {
                return Err(bad("segments out of order"));
            }
            shipped.push(s);
        }
        let prefix_len = r.u32().ok_or_else(|| bad("too short"))? as usize;
        if prefix_len > MAX_META_BYTES {
            return Err(Error::limit(format!(
                "{what}: a header and metadata of {prefix_len} bytes; a reader accepts at most \
                 {MAX_META_BYTES}"
            )));
        }
        if prefix_len < HEADER_LEN {
            return Err(bad("metadata shorter than a header"));
        }
        let prefix = r
            .take(prefix_len)
            .ok_or_else(|| bad("metadata cut short"))?
            .to_vec();
        if r.at != b.len() {
            return Err(bad("bytes after the metadata"));
        }
        Ok(Manifest {
            seq,
            interval_ms,
            batches,
            shipped,
            prefix,
        })
    }
}

/// The head of a batch object: its pieces' segments, offsets and lengths.
pub fn encode_batch_head(pieces: &[(u32, u64, u64)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(12 + pieces.len() * PIECE_LEN);
    out.extend_from_slice(BATCH_MAGIC);
    out.extend_from_slice(&(pieces.len() as u32).to_be_bytes());
    for (seg, off, len) in pieces {
        out.extend_from_slice(&seg.to_be_bytes());
        out.extend_from_slice(&off.to_be_bytes());
        out.extend_from_slice(&len.to_be_bytes());
    }
    out
}

/// The pieces of batch object `batch` (all of its bytes: `b`), checked to lie inside it, one
/// after another; `what` names it in errors.
pub fn decode_batch(batch: u32, b: &[u8], what: &str) -> Result<Vec<Piece>> {
    let bad = |m: &str| Error::corrupt(format!("{what}: {m}"));
    let mut r = Cursor { b, at: 0 };
    if r.take(8) != Some(BATCH_MAGIC.as_slice()) {
        return Err(bad("not a live recording's batch (bad magic)"));
    }
    let n = r.u32().ok_or_else(|| bad("too short"))? as usize;
    if n > MAX_PIECES || n.saturating_mul(PIECE_LEN) > b.len() - r.at {
        return Err(bad(&format!(
            "{n} pieces: more than the limit or the bytes"
        )));
    }
    let mut pieces = Vec::with_capacity(n);
    let mut at = (r.at + n * PIECE_LEN) as u64;
    for _ in 0..n {
        let (segment, segment_offset, len) =
            (|| Some((r.u32()?, r.u64()?, r.u64()?)))().ok_or_else(|| bad("truncated piece"))?;
        let end = at
            .checked_add(len)
            .filter(|&e| e <= b.len() as u64)
            .ok_or_else(|| bad("a piece reaches past the batch's end"))?;
        if segment_offset.checked_add(len).is_none() {
            return Err(bad("a piece's range overflows"));
        }
        pieces.push(Piece {
            batch,
            batch_offset: at,
            segment,
            segment_offset,
            len,
        });
        at = end;
    }
    if at != b.len() as u64 {
        return Err(bad("bytes after the last piece"));
    }
    Ok(pieces)
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
    fn metadata_past_a_readers_limit_is_refused_before_it_is_read_naming_the_manifest() {
        use tickreel::format::Limits;
        assert_eq!(
            MAX_META_BYTES,
            HEADER_LEN + Limits::default().max_metadata_bytes
        );
        let what = "s3://b/runs/a.reel.live/manifest";
        let m = |prefix: Vec<u8>| Manifest {
            seq: 1,
            interval_ms: 10_000,
            batches: 0,
            shipped: Vec::new(),
            prefix,
        };
        // Whole, one byte past the limit; and a length claiming 64 MiB with no bytes behind it.
        let over = m(vec![0; MAX_META_BYTES + 1]).encode();
        let mut claimed = m(vec![0; HEADER_LEN]).encode();
        let at = claimed.len() - HEADER_LEN - 4;
        claimed[at..at + 4].copy_from_slice(&(64u32 << 20).to_be_bytes());
        for b in [over, claimed] {
            let e = Manifest::decode(&b, what).unwrap_err();
            assert!(matches!(e, Error::LimitExceeded(_)), "{e:?}");
            assert!(e.to_string().contains(what), "{e}");
        }
        assert!(Manifest::decode(&m(vec![0; MAX_META_BYTES]).encode(), what).is_ok());
    }

    #[test]
    fn manifest_round_trip_and_refusals() {
        let m = Manifest {
            seq: 7,
            interval_ms: 10_000,
            batches: 3,
            shipped: vec![(0, 4096), (1, 100)],
            prefix: vec![7; HEADER_LEN + 5],
        };
        let b = m.encode();
        assert_eq!(Manifest::decode(&b, "m").unwrap(), m);
        assert!(Manifest::decode(&b[..b.len() - 1], "m").is_err());
        let mut more = b.clone();
        more.push(0);
        assert!(Manifest::decode(&more, "m").is_err());
        let mut huge = b.clone();
        huge[24..28].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(Manifest::decode(&huge, "m").is_err());
        let mut batches = b.clone();
        batches[20..24].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(Manifest::decode(&batches, "m").is_err());
        let mut order = b.clone();
        order[40..44].copy_from_slice(&0u32.to_be_bytes());
        assert!(Manifest::decode(&order, "m").is_err());
        let mut magic = b;
        magic[0] = b'X';
        assert!(Manifest::decode(&magic, "m").is_err());
    }

    #[test]
    fn batch_round_trip_and_refusals() {
        let mut b = encode_batch_head(&[(0, 0, 3), (1, 32, 2)]);
        let head = b.len() as u64;
        b.extend_from_slice(b"abcde");
        let p = decode_batch(4, &b, "b").unwrap();
        assert_eq!(
            p,
            vec![
                Piece {
                    batch: 4,
                    batch_offset: head,
                    segment: 0,
                    segment_offset: 0,
                    len: 3
                },
                Piece {
                    batch: 4,
                    batch_offset: head + 3,
                    segment: 1,
                    segment_offset: 32,
                    len: 2
                }
            ]
        );
        assert!(decode_batch(4, &b[..b.len() - 1], "b").is_err());
        let mut more = b.clone();
        more.push(0);
        assert!(decode_batch(4, &more, "b").is_err());
        let mut count = b.clone();
        count[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(decode_batch(4, &count, "b").is_err());
        let q = p[1];
        assert!(q.holds(1, 32, 2) && q.holds(1, 33, 1));
        assert!(!q.holds(1, 31, 1) && !q.holds(1, 33, 2) && !q.holds(0, 32, 1));
    }
}
