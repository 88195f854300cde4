//! Live recording directories: one writer (enforced by a lock file), a metadata file rewritten
//! whole and atomically, and append-only segment files of checksummed chunk frames.
//!
//! ```text
//! run.reel.live/
//!   lock          held with an exclusive advisory lock by the one writer
//!   meta.tkrl     header (layout = segmented) + metadata + index; offsets are (segment << 32) | offset
//!   seg-000000.tks, seg-000001.tks, ...   frames (36-byte frame header + zstd payload), appended
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::format::frame::{FRAME_HEADER_LEN, FrameHeader};
use crate::format::header::{HEADER_LEN, Header, Layout};
use crate::format::index::{IndexEntry, encode_index};
use crate::format::metadata::Metadata;
use crate::play::reader::FrameSource;
use crate::storage::{sync_dir, write_atomic};

pub const META_FILE: &str = "meta.tkrl";
pub const LOCK_FILE: &str = "lock";
/// Largest segment before a new one is started (offsets within a segment are 32-bit).
pub const MAX_SEGMENT_BYTES: u64 = 64 << 20;

/// The live directory for a final `.reel` path: `<path>.live`.
pub fn live_dir_for(reel: &Path) -> PathBuf {
    let mut s = reel.as_os_str().to_owned();
    s.push(".live");
    PathBuf::from(s)
}

/// Name of segment `n`.
pub fn segment_name(n: u32) -> String {
    format!("seg-{n:06}.tks")
}

/// Segment numbers present in `dir`, sorted.
pub fn list_segments(dir: &Path) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir)? {
        let name = e?.file_name();
        let name = name.to_string_lossy();
        if let Some(n) = name
            .strip_prefix("seg-")
            .and_then(|r| r.strip_suffix(".tks"))
            .and_then(|n| n.parse::<u32>().ok())
        {
            out.push(n);
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// Whether `dir` looks like a live recording directory.
pub fn is_live_dir(dir: &Path) -> bool {
    dir.is_dir() && dir.join(META_FILE).is_file()
}

/// The exclusive writer lock of a live directory, released on drop (and by the OS on a crash).
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Takes the lock or fails with `Error::Locked` if another writer (any process) holds it.
    pub fn acquire(dir: &Path) -> Result<WriterLock> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                return Err(Error::Locked(format!(
                    "{} is being written by another writer",
                    dir.display()
                )));
            }
            Err(fs::TryLockError::Error(e)) => return Err(e.into()),
        }
        file.set_len(0)?;
        let _ = writeln!(file, "{}", std::process::id());
        Ok(WriterLock { _file: file })
    }
}

/// Whether a writer (another process, or another handle in this one) holds the lock of the live
/// directory `dir`. `false` if `dir` or its lock file does not exist; nothing is created. An
/// advisory lock cannot be queried, so this takes it for an instant if it is free (a writer trying
/// to acquire it at that very instant is refused, as if `dir` were locked).
pub fn is_locked(dir: &Path) -> Result<bool> {
    let file = match File::open(dir.join(LOCK_FILE)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e.into()),
    };
    match file.try_lock() {
        // Released when `file` is closed.
        Ok(()) => Ok(false),
        Err(fs::TryLockError::WouldBlock) => Ok(true),
        Err(fs::TryLockError::Error(e)) => Err(e.into()),
    }
}

/// Encodes the metadata file's bytes: header (segmented layout) + metadata + index.
pub fn encode_meta_file(
    mut header: Header,
    metadata: &Metadata,
    index: &[IndexEntry],
) -> Result<Vec<u8>> {
    let meta = metadata.encode()?;
    let idx = encode_index(index);
    let mut body = Vec::with_capacity(meta.len() + idx.len());
    body.extend_from_slice(&meta);
    body.extend_from_slice(&idx);
    header.layout = Layout::Segmented;
    header.metadata_len = meta.len() as u32;
    header.index_len = idx.len() as u32;
    header.chunk_count = index.len() as u32;
    header.data_end = 0;
    header.body_checksum = xxhash_rust::xxh64::xxh64(&body, 0);
    match (index.first(), index.last()) {
        (Some(f), Some(l)) => {
            header.first_tick = f.start_tick;
            header.tick_count = u32::try_from(l.end_tick() - u64::from(f.start_tick))
                .map_err(|_| Error::limit("a recording spans at most 2^32 - 1 ticks"))?;
        }
        _ => {
            header.first_tick = 0;
            header.tick_count = 0;
        }
    }
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&header.encode());
    out.extend_from_slice(&body);
    Ok(out)
}

/// Rewrites the metadata file atomically (temp file, fsync, rename, fsync directory).
pub fn write_meta_file(dir: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic(&dir.join(META_FILE), &[bytes])
}

/// An append-only segment being written.
#[derive(Debug)]
pub struct SegmentWriter {
    file: File,
    number: u32,
    len: u64,
}

impl SegmentWriter {
    /// Creates segment `number` in `dir` (it must not exist) and fsyncs the directory.
    pub fn create(dir: &Path, number: u32) -> Result<SegmentWriter> {
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(dir.join(segment_name(number)))?;
        sync_dir(dir)?;
        Ok(SegmentWriter {
            file,
            number,
            len: 0,
        })
    }
    pub fn number(&self) -> u32 {
        self.number
    }
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Appends one frame (not yet durable) and returns its segmented offset.
    pub fn append(&mut self, header: &FrameHeader, payload: &[u8]) -> Result<u64> {
        let offset = self.len;
        let mut buf = Vec::with_capacity(FRAME_HEADER_LEN + payload.len());
        buf.extend_from_slice(&header.encode());
        buf.extend_from_slice(payload);
        self.file.write_all(&buf)?;
        self.len += buf.len() as u64;
        Ok((u64::from(self.number) << 32) | offset)
    }
    /// Makes appended frames durable.
    pub fn sync(&self) -> Result<()> {
        self.file.sync_data()?;
        Ok(())
    }
}

/// Reads frames of a live directory by segmented offset. Segment files are opened lazily and kept.
#[derive(Debug)]
pub struct SegmentFrames {
    dir: PathBuf,
    open: Mutex<Vec<(u32, Arc<File>)>>,
}

impl SegmentFrames {
    pub fn new(dir: &Path) -> SegmentFrames {
        SegmentFrames {
            dir: dir.to_path_buf(),
            open: Mutex::new(Vec::new()),
        }
    }
    fn file(&self, n: u32) -> Result<Arc<File>> {
        let mut open = self.open.lock();
        if let Some((_, f)) = open.iter().find(|(m, _)| *m == n) {
            return Ok(f.clone());
        }
        let path = self.dir.join(segment_name(n));
        let f = Arc::new(File::open(&path).map_err(|e| {
            Error::Io(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", path.display()),
            ))
        })?);
        open.push((n, f.clone()));
        Ok(f)
    }
}

impl FrameSource for SegmentFrames {
    fn read_frame(&self, e: &IndexEntry) -> Result<Vec<u8>> {
        let f = self.file(e.segment())?;
        let len = FRAME_HEADER_LEN + e.compressed_len as usize;
        let mut buf = vec![0u8; len];
        let mut done = 0;
        while done < len {
            let n = f.read_at(
                &mut buf[done..],
                u64::from(e.segment_offset()) + done as u64,
            )?;
            if n == 0 {
                return Err(Error::truncated(format!(
                    "segment {} ends inside the frame at {}",
                    e.segment(),
                    e.segment_offset()
                )));
            }
            done += n;
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
}

/// One frame found by scanning a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScannedFrame {
    pub offset: u64,
    pub header: FrameHeader,
}

/// What scanning one segment found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SegmentScan {
    pub frames: Vec<ScannedFrame>,
    /// End of the last valid frame (everything after it is a torn tail or garbage).
    pub valid_end: u64,
    /// Byte ranges skipped as damaged between valid frames.
    pub skipped: Vec<(u64, u64)>,
    pub file_len: u64,
}

/// Scans a segment's bytes for valid frames (header checksum and payload checksum). After a damaged
/// region it resynchronises on the next valid frame, as SectorFile rebuilds from its records.
pub fn scan_segment(bytes: &[u8]) -> SegmentScan {
    let mut scan = SegmentScan {
        file_len: bytes.len() as u64,
        ..SegmentScan::default()
    };
    let mut pos = 0usize;
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
    b.windows(4)
        .position(|w| w == crate::format::frame::FRAME_MAGIC)
}
