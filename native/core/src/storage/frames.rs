//! Reading a recording's bytes: the prefix every reader starts from (header, metadata, index:
//! [`read_prefix`]) and chunk frames by index entry ([`FrameSource`]), from a compacted file or a
//! live directory's segments (`live::SegmentFrames`). Used by playback, compaction and recovery.

use std::sync::Arc;

use super::Source;
use super::live::RefusedSegment;
use crate::error::{Error, Result};
use crate::format::Limits;
use crate::format::frame::FRAME_HEADER_LEN;
use crate::format::header::{HEADER_LEN, Header};
use crate::format::index::{IndexEntry, decode_index};
use crate::format::metadata::Metadata;

/// Bytes read by the first read of a recording (header + metadata + index usually fit).
pub const FIRST_READ: usize = 256 << 10;

/// Where a reader fetches chunk frames from, given an index entry.
pub trait FrameSource: Send + Sync + std::fmt::Debug {
    /// The frame's bytes: 36-byte frame header followed by the compressed payload.
    fn read_frame(&self, entry: &IndexEntry) -> Result<Vec<u8>>;
    fn describe(&self) -> String;
    /// Opens now whatever the frames of `index` will be read from, so that they stay readable
    /// even if their files are deleted later (a live directory removed after compaction).
    fn pin(&self, _index: &[IndexEntry]) -> Result<()> {
        Ok(())
    }
    /// Files next to the frames that belong to another recording and are left out: segments of
    /// a live directory whose preamble names another recording (see
    /// [`super::live::LiveDir::refused_segments`]). None for other sources.
    fn refused_segments(&self) -> Result<Vec<RefusedSegment>> {
        Ok(Vec::new())
    }
}

/// The frames of a recording that has none yet.
#[derive(Debug)]
pub struct NoFrames;

impl FrameSource for NoFrames {
    fn read_frame(&self, _entry: &IndexEntry) -> Result<Vec<u8>> {
        Err(Error::InvalidState("the recording has no chunks".into()))
    }
    fn describe(&self) -> String {
        "(no recording yet)".into()
    }
}

/// Frames of a compacted file: the index offset is a file offset.
#[derive(Debug)]
pub struct CompactedFrames {
    source: Arc<dyn Source>,
}

impl CompactedFrames {
    pub fn new(source: Arc<dyn Source>) -> CompactedFrames {
        CompactedFrames { source }
    }
}

impl FrameSource for CompactedFrames {
    fn read_frame(&self, e: &IndexEntry) -> Result<Vec<u8>> {
        self.source
            .read_exact_at(e.offset, FRAME_HEADER_LEN + e.compressed_len as usize)
    }
    fn describe(&self) -> String {
        self.source.describe()
    }
}

/// Frames held in memory, addressed by offsets into one buffer.
#[derive(Debug)]
pub struct MemFrames {
    bytes: Vec<u8>,
}

impl MemFrames {
    /// `bytes`: frames back to back; index offsets point into it.
    pub fn new(bytes: Vec<u8>) -> MemFrames {
        MemFrames { bytes }
    }
}

impl FrameSource for MemFrames {
    fn read_frame(&self, e: &IndexEntry) -> Result<Vec<u8>> {
        let start = e.offset as usize;
        let end = start + FRAME_HEADER_LEN + e.compressed_len as usize;
        self.bytes
            .get(start..end)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| Error::corrupt("in-memory frame out of range"))
    }
    fn describe(&self) -> String {
        "<unflushed recording>".into()
    }
}

/// Reads and checks header, metadata and index from the start of a source.
pub fn read_prefix(
    source: &dyn Source,
    limits: &Limits,
) -> Result<(Header, Metadata, Vec<IndexEntry>)> {
    let first = source.read_up_to(0, FIRST_READ)?;
    let header = Header::decode(&first)?;
    let meta_len = header.metadata_len as usize;
    let index_len = header.index_len as usize;
    if meta_len > limits.max_metadata_bytes {
        return Err(Error::limit(format!(
            "metadata of {meta_len} bytes; limit {}",
            limits.max_metadata_bytes
        )));
    }
    if index_len > limits.max_index_bytes {
        return Err(Error::limit(format!(
            "index of {index_len} bytes; limit {}",
            limits.max_index_bytes
        )));
    }
    let need = HEADER_LEN + meta_len + index_len;
    let prefix = if need <= first.len() {
        first
    } else {
        source.read_exact_at(0, need)?
    };
    let body = &prefix[HEADER_LEN..need];
    if xxhash_rust::xxh64::xxh64(body, 0) != header.body_checksum {
        return Err(Error::corrupt("metadata/index checksum mismatch"));
    }
    let index = decode_index(&body[meta_len..], header.chunk_count)?;
    let metadata = Metadata::decode_file(&body[..meta_len], &header, &index)?;
    Ok((header, metadata, index))
}
