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

/// Bytes read from a segment at a time while scanning it (and the most a scan holds besides).
const SCAN_PIECE: usize = 1 << 20;

/// Scans a segment's bytes for valid frames: [`scan_segment_in`] of bytes in memory, with the
/// default limits.
pub fn scan_segment(bytes: &[u8]) -> SegmentScan {
    let src = crate::storage::MemSource::new(bytes.to_vec());
    scan_segment_in(&src, crate::format::Limits::default().max_chunk_bytes)
        .expect("reading bytes in memory does not fail")
}

/// Scans a segment for valid frames (header checksum and payload checksum), after its preamble
/// if it has one, reading it in pieces of at most 1 MiB: memory stays bounded whatever the
/// segment's length, and only the bytes up to the end of the recording's frames (plus at most one
/// search window, below) are read. Whether the segment belongs to the recording is the caller's
/// to check ([`SegmentStart::check`] of `start`).
///
/// Where no valid frame starts, the scan resynchronises on the next frame magic, as SectorFile
/// rebuilds from its records, but only within `36 + max_payload` bytes (a whole frame of the
/// largest payload a reader accepts, `max_payload`: `Limits::max_chunk_bytes`) of the last place
/// a frame started or was expected: a longer run without a magic cannot hold a frame after a
/// damaged one, and everything from the end of the last valid frame on is a torn tail. A header
/// whose own checksum holds but whose payload does not is trusted for its length: the scan goes
/// on right after that frame (and a frame claiming to end past the file is a torn tail). A header
/// claiming a compressed payload larger than `max_payload` could compress to is no frame.
pub fn scan_segment_in(src: &dyn Source, max_payload: usize) -> Result<SegmentScan> {
    let file_len = src.len()?;
    let start = SegmentStart::read(&src.read_up_to(0, PREAMBLE_LEN)?);
    let first = start.frames_offset() as u64;
    let mut scan = SegmentScan {
        start,
        frames: Vec::new(),
        valid_end: first,
        skipped: Vec::new(),
        file_len,
    };
    match start {
        SegmentStart::Unfinished => return Ok(scan),
        SegmentStart::Unreadable(_) => {
            scan.valid_end = scan.file_len;
            return Ok(scan);
        }
        SegmentStart::Preamble(_) | SegmentStart::Legacy => {}
    }
    let reach = FRAME_HEADER_LEN as u64 + max_payload as u64;
    let compressed_max = max_payload as u64 + max_payload as u64 / 128 + 4096;
    let mut r = Pieces::new(src, file_len);
    let mut pos = first;
    let mut bad_from: Option<u64> = None;
    while pos + FRAME_HEADER_LEN as u64 <= file_len {
        // A header claiming more compressed payload than the largest payload a reader accepts
        // can take (zstd's bound on incompressible bytes) is no frame: a crafted length would
        // have the scan checksum gigabytes. Resynchronise past it.
        if let Ok(h) = FrameHeader::decode(r.get(pos, FRAME_HEADER_LEN)?)
            .map_err(|_| ())
            .and_then(|h| match h.compressed_len as u64 <= compressed_max {
                true => Ok(h),
                false => Err(()),
            })
        {
            let end = pos + h.frame_len();
            if end > file_len {
                // A frame cut short: the torn tail.
                break;
            }
            if r.checksum(pos + FRAME_HEADER_LEN as u64, end)? == Some(h.payload_checksum) {
                if let Some(b) = bad_from.take() {
                    scan.skipped.push((b, pos));
                }
                scan.frames.push(ScannedFrame {
                    offset: pos,
                    header: h,
                });
                scan.valid_end = end;
            } else {
                // A damaged payload behind a sound header: the next frame follows it.
                bad_from.get_or_insert(pos);
            }
            pos = end;
            continue;
        }
        bad_from.get_or_insert(pos);
        // Resynchronise on the next frame magic within one frame's reach.
        let limit = pos
            .saturating_add(reach)
            .min(file_len - FRAME_MAGIC.len() as u64);
        match r.find_magic(pos + 1, limit)? {
            Some(p) => pos = p,
            None => break,
        }
    }
    Ok(scan)
}

/// A segment read in pieces of [`SCAN_PIECE`] bytes (more only for a frame header that straddles
/// two pieces).
struct Pieces<'a> {
    src: &'a dyn Source,
    len: u64,
    at: u64,
    buf: Vec<u8>,
}

impl<'a> Pieces<'a> {
    fn new(src: &'a dyn Source, len: u64) -> Pieces<'a> {
        Pieces {
            src,
            len,
            at: 0,
            buf: Vec::new(),
        }
    }

    /// `n` bytes at `pos` (fewer at the end of the segment); `n` is at most [`SCAN_PIECE`].
    fn get(&mut self, pos: u64, n: usize) -> Result<&[u8]> {
        let have = pos >= self.at && pos + n as u64 <= self.at + self.buf.len() as u64;
        if !have {
            let want = SCAN_PIECE.max(n) as u64;
            self.buf = self
                .src
                .read_up_to(pos, want.min(self.len.saturating_sub(pos)) as usize)?;
            self.at = pos;
        }
        let from = (pos - self.at) as usize;
        let to = (from + n).min(self.buf.len());
        Ok(&self.buf[from..to])
    }

    /// XXH64 of the bytes `from..to` (within the segment), `None` if the segment no longer
    /// holds them all (it shrank under the scan).
    fn checksum(&mut self, from: u64, to: u64) -> Result<Option<u64>> {
        let mut h = xxhash_rust::xxh64::Xxh64::new(0);
        let mut p = from;
        while p < to {
            let n = (to - p).min(SCAN_PIECE as u64) as usize;
            let piece = self.get(p, n)?;
            if piece.is_empty() {
                return Ok(None);
            }
            h.update(piece);
            p += piece.len() as u64;
        }
        Ok(Some(h.digest()))
    }

    /// The first position in `from..=limit` where the frame magic starts.
    fn find_magic(&mut self, from: u64, limit: u64) -> Result<Option<u64>> {
        let m = FRAME_MAGIC.len();
        let mut p = from;
        while p <= limit {
            let n = ((limit - p) as usize).min(SCAN_PIECE - m) + m;
            let piece = self.get(p, n)?;
            if piece.len() < m {
                return Ok(None);
            }
            if let Some(d) = memchr::memmem::find(piece, &FRAME_MAGIC) {
                return Ok(Some(p + d as u64));
            }
            p += (piece.len() - m + 1) as u64;
        }
        Ok(None)
    }
}
