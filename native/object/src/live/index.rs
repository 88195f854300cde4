//! Rebuilding a shipped live recording's index from the frames of its batch objects (the
//! manifest carries the metadata file without its index, so that its size does not grow with
//! the recording): each frame header carries its index entry's fields, as recovery rebuilds the
//! index of a local live directory from its segments. Used by followers and by `recover_url`.

use std::collections::BTreeMap;

use tickreel::format::{
    FrameHeader, HEADER_LEN, Header, IndexEntry, Limits, Metadata, SegmentStart,
};
use tickreel::storage::live::encode_meta_file;
use tickreel::{Error, Result};

use super::manifest::Piece;

/// The index of a shipped recording as far as its batches have been read, and where each
/// segment's bytes read so far end.
#[derive(Debug, Default, Clone)]
pub struct ShippedIndex {
    pub entries: Vec<IndexEntry>,
    /// Per segment: the end of the bytes read (the next piece of the segment starts there).
    pub ends: BTreeMap<u32, u64>,
    /// Frames left out because their ticks overlap an earlier frame (as recovery leaves them).
    pub overlapping: u64,
}

impl ShippedIndex {
    /// Adds the frames of `piece`, whose bytes are `bytes`; `what` names the batch in errors.
    /// Nothing is added unless the whole piece is read: a piece must start where the
    /// segment's bytes so far end, and hold whole frames (after the preamble, at offset 0).
    pub fn add(&mut self, piece: &Piece, bytes: &[u8], what: &str) -> Result<()> {
        let bad = |m: String| Error::corrupt(format!("{what}: {m}"));
        let seg = piece.segment;
        let at = self.ends.get(&seg).copied().unwrap_or(0);
        if piece.segment_offset != at {
            return Err(bad(format!(
                "segment {seg} continues at byte {} but its bytes so far end at {at}",
                piece.segment_offset
            )));
        }
        if bytes.len() as u64 != piece.len {
            return Err(bad(format!(
                "a piece of {} bytes holds {}",
                piece.len,
                bytes.len()
            )));
        }
        let mut pos = 0usize;
        if piece.segment_offset == 0 {
            let start = SegmentStart::read(&bytes[..bytes.len().min(64)]);
            if let SegmentStart::Unreadable(why) = start {
                return Err(bad(format!("segment {seg}: {why}")));
            }
            pos = start.frames_offset().min(bytes.len());
        }
        let max = Limits::default().max_chunk_bytes as u64;
        let mut found = Vec::new();
        let mut last_end = self.entries.last().map(IndexEntry::end_tick);
        while pos < bytes.len() {
            let h = FrameHeader::decode(&bytes[pos..])
                .map_err(|e| bad(format!("segment {seg} at byte {}: {e}", at + pos as u64)))?;
            let len = h.frame_len();
            if u64::from(h.compressed_len) > max + max / 128 + 4096 {
                return Err(bad(format!(
                    "segment {seg} at byte {}: a frame of {} compressed bytes; limit {max}",
                    at + pos as u64,
                    h.compressed_len
                )));
            }
            let end = (pos as u64)
                .checked_add(len)
                .filter(|&e| e <= bytes.len() as u64)
                .ok_or_else(|| {
                    bad(format!(
                        "segment {seg} at byte {}: a frame reaches past its piece",
                        at + pos as u64
                    ))
                })?;
            let offset = at + pos as u64;
            let in_segment = u32::try_from(offset)
                .map_err(|_| bad(format!("segment {seg}: an offset past 4 GiB")))?;
            let entry = IndexEntry {
                start_tick: h.start_tick,
                tick_count: h.tick_count,
                flags: h.flags,
                offset: (u64::from(seg) << 32) | u64::from(in_segment),
                compressed_len: h.compressed_len,
                uncompressed_len: h.uncompressed_len,
            };
            if last_end.is_some_and(|e| u64::from(entry.start_tick) < e) {
                self.overlapping += 1;
            } else {
                last_end = Some(entry.end_tick());
                found.push(entry);
            }
            pos = end as usize;
        }
        self.entries.extend(found);
        self.ends.insert(seg, at + piece.len);
        Ok(())
    }
}

/// The bytes of a live metadata file: `prefix` (a metadata file's header and metadata, as a
/// manifest carries them) with `index`, the header's index fields replaced.
pub fn rebuild_meta(prefix: &[u8], index: &[IndexEntry], what: &str) -> Result<Vec<u8>> {
    let named = |e: Error| e.with_context(&format!(" (the metadata in {what})"));
    let header = Header::decode(prefix).map_err(named)?;
    let meta_len = header.metadata_len as usize;
    let max = Limits::default().max_metadata_bytes;
    if meta_len > max {
        return Err(Error::limit(format!(
            "{what}: metadata of {meta_len} bytes; a reader accepts at most {max}"
        )));
    }
    let bytes = prefix
        .get(HEADER_LEN..)
        .filter(|b| b.len() == meta_len)
        .ok_or_else(|| {
            Error::corrupt(format!(
                "{what}: {} bytes of metadata; its header says {meta_len}",
                prefix.len().saturating_sub(HEADER_LEN)
            ))
        })?;
    let metadata = Metadata::decode_file(bytes, &header, index).map_err(named)?;
    encode_meta_file(header, &metadata, index).map_err(named)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_past_a_readers_limit_is_refused_naming_the_manifest() {
        let what = "s3://b/runs/a.reel.live/manifest";
        let max = Limits::default().max_metadata_bytes;
        let prefix = |len: usize| {
            let h = Header {
                metadata_len: len as u32,
                ..Header::default()
            };
            let mut p = h.encode().to_vec();
            p.resize(HEADER_LEN + len, 0);
            p
        };
        let e = rebuild_meta(&prefix(max + 1), &[], what).unwrap_err();
        assert!(matches!(e, Error::LimitExceeded(_)), "{e:?}");
        assert!(e.to_string().contains(what), "{e}");
        // Within the limit, damaged metadata is named too.
        let e = rebuild_meta(&prefix(64), &[], what).unwrap_err();
        assert!(e.to_string().contains(what), "{e}");
    }
}
