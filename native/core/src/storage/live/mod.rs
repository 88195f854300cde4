//! Live recording directories: one writer (enforced by a lock file), a metadata file rewritten
//! whole and atomically, and append-only segment files of checksummed chunk frames.
//!
//! ```text
//! run.reel.live/
//!   lock          held with an exclusive advisory lock by the one writer
//!   meta.tkrl     header (layout = segmented) + metadata + index; offsets are (segment << 32) | offset
//!   seg-000000.tks, seg-000001.tks, ...   a 32-byte preamble naming the recording (its id), then
//!                 frames (36-byte frame header + zstd payload), appended
//! ```
//!
//! Every file operation goes through [`Storage`]; [`LiveDir`] names the files and orders the
//! steps (the durability protocol in FORMAT.md). A segment whose preamble names another recording
//! than the metadata file's (a writer that raced a removal and re-creation of the directory) is
//! refused by readers, recovery, compaction and removal alike ([`LiveDir::refused_segments`]).
//!
//! The directory's members (every file in it) are never followed out of it: they go through
//! [`members_of`] the storage ([`Storage::members`]), which opens, creates, truncates, locks and
//! stats them without following a symbolic link and refuses one that is not a regular file with
//! an error naming it ([`super::is_refused_member`]). Only the directory itself, the path a user
//! names, may be a symbolic link.

mod segment;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use segment::{
    RefusedSegment, ScannedFrame, SegmentFrames, SegmentScan, SegmentWriter, describe_refused,
    scan_segment, scan_segment_in,
};

use super::{EntryKind, LocalStorage, Source, Storage, StorageLock, write_atomic_checked};
use crate::error::{Error, Result};
use crate::format::header::{HEADER_LEN, Header, Layout};
use crate::format::index::{IndexEntry, encode_index};
use crate::format::metadata::Metadata;
use crate::format::segment::{PREAMBLE_LEN, SegmentStart, encode_preamble};

pub const META_FILE: &str = "meta.tkrl";
pub const LOCK_FILE: &str = "lock";
/// The metadata file's temporary name while it is rewritten.
pub const META_TEMP: &str = ".meta.tkrl.tmp";
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

/// The segment number a file name stands for, if it is a segment's name.
pub fn parse_segment_name(name: &str) -> Option<u32> {
    name.strip_prefix("seg-")
        .and_then(|r| r.strip_suffix(".tks"))
        .and_then(|n| n.parse::<u32>().ok())
}

/// Segment numbers present in the local directory `dir`, sorted.
pub fn list_segments(dir: &Path) -> Result<Vec<u32>> {
    LiveDir::local(dir).segments()
}

/// Whether the local directory `dir` looks like a live recording directory.
pub fn is_live_dir(dir: &Path) -> bool {
    LiveDir::local(dir).exists()
}

/// Whether a writer (another process, or another handle in this one) holds the lock of the local
/// live directory `dir` (see [`LiveDir::is_locked`]).
pub fn is_locked(dir: &Path) -> Result<bool> {
    LiveDir::local(dir).is_locked()
}

/// `storage` as the members of a live directory (every file inside it) are used through:
/// [`Storage::members`], which never follows a symbolic link out of the directory and refuses a
/// member that is not a regular file, or `storage` itself if it has no such view. Every file the
/// core opens, creates, truncates, locks or stats inside a live directory goes through it
/// ([`LiveDir`], the readers of a live directory, recovery, resumption, removal, following).
pub fn members_of(storage: &Arc<dyn Storage>) -> Arc<dyn Storage> {
    storage.members().unwrap_or_else(|| storage.clone())
}

/// One live directory on a [`Storage`].
#[derive(Debug, Clone)]
pub struct LiveDir {
    storage: Arc<dyn Storage>,
    /// `storage` for the files inside the directory ([`members_of`]).
    members: Arc<dyn Storage>,
    dir: PathBuf,
}

/// The identity of a live directory and of its lock file (see [`LiveDir::fence`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fence {
    dir: (u64, u64),
    lock: (u64, u64),
}

/// The exclusive writer lock of a live directory, released on drop (and by the OS on a crash).
#[derive(Debug)]
pub struct WriterLock {
    _lock: Box<dyn StorageLock>,
}

impl LiveDir {
    pub fn new(storage: Arc<dyn Storage>, dir: impl Into<PathBuf>) -> LiveDir {
        LiveDir {
            members: members_of(&storage),
            storage,
            dir: dir.into(),
        }
    }
    /// A directory of the local file system.
    pub fn local(dir: impl Into<PathBuf>) -> LiveDir {
        LiveDir::new(LocalStorage::shared(), dir)
    }
    pub fn path(&self) -> &Path {
        &self.dir
    }
    /// The final `.reel` path this directory records (`NAME` of `NAME.live`), if it is named so.
    pub fn final_path(&self) -> Option<PathBuf> {
        let s = self.dir.to_str()?;
        s.strip_suffix(".live").map(PathBuf::from)
    }
    pub fn storage(&self) -> &Arc<dyn Storage> {
        &self.storage
    }
    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Whether the directory exists and holds a metadata file.
    pub fn exists(&self) -> bool {
        matches!(self.storage.stat(&self.dir), Ok(Some(s)) if s.kind == EntryKind::Dir)
            && matches!(self.members.stat(&self.file(META_FILE)), Ok(Some(s)) if s.kind == EntryKind::File)
    }

    /// Whether the directory exists (with or without a metadata file).
    pub fn dir_exists(&self) -> Result<bool> {
        Ok(self
            .storage
            .stat(&self.dir)?
            .is_some_and(|s| s.kind == EntryKind::Dir))
    }

    /// Creates the directory (not yet durable: see [`LiveDir::sync_parent`]).
    pub fn create(&self) -> Result<()> {
        self.storage.create_dir_all(&self.dir)
    }

    /// Makes the directory's own entry in its parent durable.
    pub fn sync_parent(&self) -> Result<()> {
        self.storage.sync_dir(super::parent_dir(&self.dir))
    }

    /// Takes the writer lock or fails with `Error::Locked` if another writer (any process) holds it.
    pub fn lock(&self) -> Result<WriterLock> {
        let lock = self
            .members
            .lock(&self.file(LOCK_FILE))
            .map_err(|e| match e {
                Error::Locked(_) => Error::Locked(format!(
                    "{} is being written by another writer",
                    self.dir.display()
                )),
                other => other,
            })?;
        Ok(WriterLock { _lock: lock })
    }

    /// What identifies this directory and its lock file now: a writer takes it right after its
    /// lock and checks it before every flush ([`LiveDir::check_fence`]).
    pub fn fence(&self) -> Result<Fence> {
        let id = |storage: &Arc<dyn Storage>, p: &Path| -> Result<(u64, u64)> {
            storage
                .stat(p)?
                .map(|s| s.identity)
                .ok_or_else(|| self.gone())
        };
        Ok(Fence {
            dir: id(&self.storage, &self.dir)?,
            lock: id(&self.members, &self.file(LOCK_FILE))?,
        })
    }

    /// Fails with `InvalidState` if the directory or its lock file is no longer the one `fence`
    /// was taken of: it was removed, or removed and created again (by another writer of the same
    /// path). A writer then stops instead of writing into someone else's recording.
    pub fn check_fence(&self, fence: &Fence) -> Result<()> {
        if self.fence().ok().as_ref() == Some(fence) {
            Ok(())
        } else {
            Err(self.gone())
        }
    }

    fn gone(&self) -> Error {
        Error::InvalidState(format!(
            "the live directory {} was removed or replaced while this recording was writing it; \
             nothing more is written there",
            self.dir.display()
        ))
    }

    /// Whether a writer holds the lock. `false` if the directory or its lock file does not exist;
    /// nothing is created. An advisory lock cannot be queried, so this takes it for an instant if
    /// it is free (a writer taking it at that very instant retries for a few milliseconds).
    pub fn is_locked(&self) -> Result<bool> {
        self.members.is_locked(&self.file(LOCK_FILE))
    }

    /// Segment numbers present, sorted.
    pub fn segments(&self) -> Result<Vec<u32>> {
        let mut out: Vec<u32> = self
            .storage
            .list(&self.dir)?
            .iter()
            .filter_map(|n| parse_segment_name(n))
            .collect();
        out.sort_unstable();
        Ok(out)
    }

    /// Size of segment `n` in bytes.
    pub fn segment_len(&self, n: u32) -> Result<u64> {
        Ok(self
            .members
            .stat(&self.file(&segment_name(n)))?
            .map_or(0, |s| s.len))
    }

    /// What segment `n` starts with (its preamble, if it has one).
    pub fn segment_start(&self, n: u32) -> Result<SegmentStart> {
        let f = self.members.open(&self.file(&segment_name(n)))?;
        Ok(SegmentStart::read(&f.read_up_to(0, PREAMBLE_LEN)?))
    }

    /// The segments present that do not belong to the recording `recording_id` (the metadata
    /// file's): whose preamble names another recording or cannot be read, or that have none while
    /// the recording has an id ([`SegmentStart::check`]).
    pub fn refused_segments(&self, recording_id: &[u8; 16]) -> Result<Vec<RefusedSegment>> {
        let mut refused = Vec::new();
        for n in self.segments()? {
            if let Err(reason) = self.segment_start(n)?.check(recording_id) {
                refused.push(RefusedSegment {
                    number: n,
                    path: self.file(&segment_name(n)),
                    reason,
                });
            }
        }
        Ok(refused)
    }

    /// The whole of segment `n` (as long as the file is: recovery reads segments in pieces
    /// through [`LiveDir::open_segment_source`] instead).
    pub fn read_segment(&self, n: u32) -> Result<Vec<u8>> {
        self.members.read(&self.file(&segment_name(n)))
    }

    /// Segment `n`, for range reads.
    pub fn open_segment_source(&self, n: u32) -> Result<Arc<dyn Source>> {
        self.members.open(&self.file(&segment_name(n)))
    }

    /// Cuts segment `n` to `len` bytes, durably.
    pub fn truncate_segment(&self, n: u32, len: u64) -> Result<()> {
        self.members.truncate(&self.file(&segment_name(n)), len)
    }

    /// Removes segment `n` (one that holds nothing).
    pub fn remove_segment(&self, n: u32) -> Result<()> {
        self.members.remove_file(&self.file(&segment_name(n)))
    }

    /// The metadata file, for range reads.
    pub fn open_meta(&self) -> Result<Arc<dyn Source>> {
        self.members.open(&self.file(META_FILE))
    }

    /// Rewrites the metadata file atomically (temp file, sync, rename, sync directory). With a
    /// `fence`, the directory is checked to still be the one it was taken of right before the
    /// rename ([`LiveDir::check_fence`]): a writer whose directory was replaced stops there, and
    /// leaves the temporary file (perhaps the other writer's) alone.
    pub fn write_meta(&self, bytes: &[u8], fence: Option<&Fence>) -> Result<()> {
        let check = || fence.map_or(Ok(()), |f| self.check_fence(f));
        write_atomic_checked(
            self.members.as_ref(),
            &self.file(META_FILE),
            &[bytes],
            &check,
        )
    }

    /// The first half of a metadata file rewrite made durable by a group commit: writes `bytes`
    /// to the temporary file `.meta.tkrl.tmp` (not synced; removed again if writing fails).
    /// [`LiveDir::publish_staged_meta`] renames it once a [`Storage::sync_filesystem`] made it
    /// durable.
    pub fn stage_meta(&self, bytes: &[u8]) -> Result<()> {
        let tmp = self.file(META_TEMP);
        let written = self.members.create(&tmp).and_then(|mut f| f.append(bytes));
        if written.is_err() {
            let _ = self.members.remove_file(&tmp);
        }
        written
    }

    /// The second half: renames the staged metadata file over the metadata file, after checking
    /// the `fence` as [`LiveDir::write_meta`] does (a failed check leaves the temporary file
    /// alone). Durable after the next [`Storage::sync_filesystem`].
    pub fn publish_staged_meta(&self, fence: Option<&Fence>) -> Result<()> {
        if let Some(f) = fence {
            self.check_fence(f)?;
        }
        self.members
            .rename(&self.file(META_TEMP), &self.file(META_FILE), true)
    }

    /// Opens segment `n` to append frames to it (a writer reopens its segment for each flush
    /// rather than keeping it open).
    pub fn open_segment(&self, n: u32) -> Result<SegmentWriter> {
        let file = self.members.open_append(&self.file(&segment_name(n)))?;
        Ok(SegmentWriter { file, number: n })
    }

    /// Creates segment `n` without making its entry durable (a group commit's
    /// [`Storage::sync_filesystem`] does that before the metadata file names it), and writes the
    /// preamble. A segment whose preamble could not be written is removed.
    pub fn create_segment_unsynced(
        &self,
        n: u32,
        recording_id: &[u8; 16],
    ) -> Result<SegmentWriter> {
        let path = self.file(&segment_name(n));
        let mut file = self.members.create_new(&path)?;
        if let Err(e) = file.append(&encode_preamble(recording_id)) {
            drop(file);
            let _ = self.members.remove_file(&path);
            return Err(e);
        }
        Ok(SegmentWriter { file, number: n })
    }

    /// Creates segment `n` (it must not exist), makes its entry durable and writes the preamble
    /// naming the recording `recording_id` (durable with the segment's first sync). A segment
    /// whose preamble could not be written is removed.
    pub fn create_segment(&self, n: u32, recording_id: &[u8; 16]) -> Result<SegmentWriter> {
        let path = self.file(&segment_name(n));
        let mut file = self.members.create_new(&path)?;
        let started = self
            .storage
            .sync_dir(&self.dir)
            .and_then(|()| file.append(&encode_preamble(recording_id)));
        if let Err(e) = started {
            drop(file);
            let _ = self.members.remove_file(&path);
            return Err(e);
        }
        Ok(SegmentWriter { file, number: n })
    }

    /// Reads the directory's frames by segmented offset, refusing segments that do not belong to
    /// the recording `recording_id`.
    pub fn frames(&self, recording_id: [u8; 16]) -> SegmentFrames {
        SegmentFrames::new(self.storage.clone(), &self.dir, recording_id)
    }

    /// Removes the directory of the recording `recording_id`: the metadata file first (a reader
    /// that can still open it finds every segment it names), then the segments and other files,
    /// holding `lock` until only the lock file is left, then the lock file and the directory.
    ///
    /// Segments of another recording ([`LiveDir::refused_segments`]) are left untouched, and so
    /// are the lock file and the directory then: `InvalidState` naming them.
    pub fn remove(&self, lock: WriterLock, recording_id: &[u8; 16]) -> Result<()> {
        let refused = self.refused_segments(recording_id)?;
        match self.members.remove_file(&self.file(META_FILE)) {
            Err(Error::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
            Ok(()) => {}
        }
        for name in self.storage.list(&self.dir)? {
            let foreign =
                parse_segment_name(&name).is_some_and(|n| refused.iter().any(|r| r.number == n));
            if name != LOCK_FILE && !foreign {
                self.members.remove_file(&self.file(&name))?;
            }
        }
        if !refused.is_empty() {
            self.storage.sync_dir(&self.dir)?;
            return Err(Error::InvalidState(format!(
                "{} is left in place: it holds segments that are not this recording's, left \
                 untouched: {}",
                self.dir.display(),
                describe_refused(&refused)
            )));
        }
        drop(lock);
        self.members.remove_file(&self.file(LOCK_FILE))?;
        self.storage.remove_dir(&self.dir)?;
        self.sync_parent()
    }
}

/// Encodes the metadata file's bytes: header (segmented layout) + metadata + index.
pub fn encode_meta_file(
    mut header: Header,
    metadata: &Metadata,
    index: &[IndexEntry],
) -> Result<Vec<u8>> {
    let meta = metadata.encode()?;
    let max = crate::format::Limits::default().max_metadata_bytes;
    if meta.len() > max {
        return Err(Error::limit(format!(
            "metadata of {} bytes; a reader accepts at most {max}",
            meta.len()
        )));
    }
    let idx = encode_index(index);
    let mut body = Vec::with_capacity(meta.len() + idx.len());
    body.extend_from_slice(&meta);
    body.extend_from_slice(&idx);
    header.layout = Layout::Segmented;
    header.stats = crate::format::HeaderStats::of(&metadata.library.stats);
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
