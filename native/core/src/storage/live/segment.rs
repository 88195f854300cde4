//! Segment files of a live directory: written ([`SegmentWriter`], which starts each with the
//! recording's preamble), read by segmented offset ([`SegmentFrames`], which refuses a segment of
//! another recording), and scanned for frames by recovery ([`scan_segment`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::sync::Mutex;

use super::segment_name;
use crate::error::{Error, Result};
use crate::format::frame::{FRAME_HEADER_LEN, FRAME_MAGIC, FrameHeader};
use crate::format::index::IndexEntry;
use crate::format::segment::{PREAMBLE_LEN, SegmentStart};
use crate::storage::frames::FrameSource;
use crate::storage::{Source, Storage, StorageFile};

/// A segment left out because it does not belong to the recording (another writer's, or one
/// whose preamble cannot be read): never read from, never changed, never removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedSegment {
    pub number: u32,
    pub path: PathBuf,
    /// Why, in words.
    pub reason: String,
}

impl fmt::Display for RefusedSegment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.path.display(), self.reason)
    }
}

/// The names of `refused`, for an error or a report.
pub fn describe_refused(refused: &[RefusedSegment]) -> String {
    refused
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// An append-only segment being written.
#[derive(Debug)]
pub struct SegmentWriter {
    pub(super) file: Box<dyn StorageFile>,
    pub(super) number: u32,
}

impl SegmentWriter {
    pub fn number(&self) -> u32 {
        self.number
    }
    /// Bytes appended, preamble included.
    pub fn len(&self) -> u64 {
        self.file.len()
    }
    pub fn is_empty(&self) -> bool {
        self.file.is_empty()
    }
    /// Whether no frame was appended (only the preamble, if that).
    pub fn has_no_frames(&self) -> bool {
        self.file.len() <= PREAMBLE_LEN as u64
    }
    /// Appends one frame (not yet durable) and returns its segmented offset.
    pub fn append(&mut self, header: &FrameHeader, payload: &[u8]) -> Result<u64> {
        let offset = self.file.len();
        let mut buf = Vec::with_capacity(FRAME_HEADER_LEN + payload.len());
        buf.extend_from_slice(&header.encode());
        buf.extend_from_slice(payload);
        self.file.append(&buf)?;
        Ok((u64::from(self.number) << 32) | offset)
    }
    /// Makes appended bytes durable.
    pub fn sync(&mut self) -> Result<()> {
        self.file.sync()
    }
}

/// Reads frames of a live directory by segmented offset. Segment files are opened lazily and
/// kept; each is checked, when first opened, to belong to the recording (its preamble names the
/// recording's id, or it has none and the recording is a legacy one with id zero).
#[derive(Debug)]
pub struct SegmentFrames {
    storage: Arc<dyn Storage>,
    /// `storage` for the segment files ([`super::members_of`]).
    members: Arc<dyn Storage>,
    dir: PathBuf,
    recording_id: [u8; 16],
    open: Mutex<Vec<(u32, Arc<dyn Source>)>>,
}

impl SegmentFrames {
    /// The frames of the live directory `dir` of the recording `recording_id` (its metadata
    /// file's header).
    pub fn new(storage: Arc<dyn Storage>, dir: &Path, recording_id: [u8; 16]) -> SegmentFrames {
        SegmentFrames {
            members: super::members_of(&storage),
            storage,
            dir: dir.to_path_buf(),
            recording_id,
            open: Mutex::new(Vec::new()),
        }
    }
    fn file(&self, n: u32) -> Result<Arc<dyn Source>> {
        let mut open = self.open.lock();
        if let Some((_, f)) = open.iter().find(|(m, _)| *m == n) {
            return Ok(f.clone());
        }
        let path = self.dir.join(segment_name(n));
        let f = self.members.open(&path)?;
        let start = SegmentStart::read(&f.read_up_to(0, PREAMBLE_LEN)?);
        start.check(&self.recording_id).map_err(|why| {
            Error::corrupt(format!(
                "{}: the index names segment {n}, but {why}",
                path.display()
            ))
        })?;
        open.push((n, f.clone()));
        Ok(f)
    }
}

impl FrameSource for SegmentFrames {
    fn read_frame(&self, e: &IndexEntry) -> Result<Vec<u8>> {
        let f = self.file(e.segment())?;
        let len = FRAME_HEADER_LEN + e.compressed_len as usize;
        let buf = f.read_up_to(u64::from(e.segment_offset()), len)?;
        if buf.len() < len {
            return Err(Error::truncated(format!(
                "segment {} ends inside the frame at {}",
                e.segment(),
                e.segment_offset()
            )));
        }
        Ok(buf)
    }
    fn describe(&self) -> String {
        self.dir.display().to_string()
    }
    fn pin(&self, index: &[IndexEntry]) -> Result<()> {
        let mut last = None;
        for e in index {
            if last != Some(e.segment()) {
                self.file(e.segment())?;
                last = Some(e.segment());
            }
        }
        Ok(())
    }
    fn refused_segments(&self) -> Result<Vec<RefusedSegment>> {
        super::LiveDir::new(self.storage.clone(), &self.dir).refused_segments(&self.recording_id)
    }
}

/// One frame found by scanning a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScannedFrame {
    pub offset: u64,
    pub header: FrameHeader,
}

/// What scanning one segment found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentScan {
    /// What the segment starts with (scanning starts after a preamble).
    pub start: SegmentStart,
    pub frames: Vec<ScannedFrame>,
    /// End of the preamble or of the last valid frame (everything after it is a torn tail or
    /// garbage). 0 for an unfinished segment (a torn preamble); the file's length for an
    /// unreadable one, which is not scanned.
    pub valid_end: u64,
    /// Byte ranges skipped as damaged between valid frames.
    pub skipped: Vec<(u64, u64)>,
    pub file_len: u64,
}

/// Scans a segment's bytes for valid frames (header checksum and payload checksum), after its
/// preamble if it has one. After a damaged region it resynchronises on the next valid frame, as
/// SectorFile rebuilds from its records. Whether the segment belongs to the recording is the
/// caller's to check ([`SegmentStart::check`] of `start`).
pub fn scan_segment(bytes: &[u8]) -> SegmentScan {
    let start = SegmentStart::read(&bytes[..bytes.len().min(PREAMBLE_LEN)]);
    let first = start.frames_offset();
    let mut scan = SegmentScan {
        start,
        frames: Vec::new(),
        valid_end: first as u64,
        skipped: Vec::new(),
        file_len: bytes.len() as u64,
    };
    match start {
        SegmentStart::Unfinished => return scan,
        SegmentStart::Unreadable(_) => {
            scan.valid_end = scan.file_len;
            return scan;
        }
        SegmentStart::Preamble(_) | SegmentStart::Legacy => {}
    }
    let mut pos = first;
    let mut bad_from: Option<usize> = None;
    while pos + FRAME_HEADER_LEN <= bytes.len() {
        let valid = FrameHeader::decode(&bytes[pos..]).ok().and_then(|h| {
            let end = pos + FRAME_HEADER_LEN + h.compressed_len as usize;
            (end <= bytes.len()
                && h.verify_payload(&bytes[pos + FRAME_HEADER_LEN..end])
                    .is_ok())
            .then_some((h, end))
        });
        match valid {
            Some((h, end)) => {
                if let Some(b) = bad_from.take() {
                    scan.skipped.push((b as u64, pos as u64));
                }
                scan.frames.push(ScannedFrame {
                    offset: pos as u64,
                    header: h,
                });
                pos = end;
                scan.valid_end = end as u64;
            }
            None => {
                bad_from.get_or_insert(pos);
                // resynchronise on the next frame magic
                match memchr_magic(&bytes[pos + 1..]) {
                    Some(d) => pos += 1 + d,
                    None => break,
                }
            }
        }
    }
    scan
}

fn memchr_magic(b: &[u8]) -> Option<usize> {
    b.windows(4).position(|w| w == FRAME_MAGIC)
}
