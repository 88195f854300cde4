//! The bytes of a compacted file on their way to its path: frames collected in memory or spilled
//! to a temporary file ([`FrameBody`]), the whole file written and synced under a unique temporary
//! name next to its path ([`UnpublishedReel`]), and only then published: atomically renamed into
//! place, or moved without replacing anything. Every temporary file is removed when a step fails.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::frame::FRAME_HEADER_LEN;
use crate::format::header::{HEADER_LEN, Header, HeaderStats, Layout};
use crate::format::index::{IndexEntry, encode_index};
use crate::format::metadata::Metadata;
use crate::record::encode::chunker::Frame;
use crate::record::file::identity::RecordingIdentity;
use crate::storage::live::LiveDir;
use crate::storage::{Storage, StorageFile, TempFile, parent_dir};

/// Frames kept in memory before spilling to a temporary file.
const SPILL_THRESHOLD: usize = 8 << 20;

/// Bytes copied at a time from a spill file into the final file.
const COPY_BLOCK: usize = 1 << 20;

/// Frames collected so far, in memory or spilled to a temporary file (removed on drop).
#[derive(Debug)]
pub(crate) struct FrameBody {
    storage: Arc<dyn Storage>,
    mem: Vec<u8>,
    spill: Option<(TempFile, Box<dyn StorageFile>)>,
    len: u64,
    /// Where a spill file goes, and its name's prefix.
    spill_dir: PathBuf,
    spill_prefix: String,
    pub(crate) entries: Vec<IndexEntry>,
}

impl FrameBody {
    pub(crate) fn new(storage: Arc<dyn Storage>, path: &Path) -> FrameBody {
        let (spill_dir, spill_prefix) = temp_location(path);
        FrameBody {
            storage,
            mem: Vec::new(),
            spill: None,
            len: 0,
            spill_dir,
            spill_prefix,
            entries: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, f: &Frame) -> Result<()> {
        let h = &f.header;
        self.entries.push(IndexEntry {
            start_tick: h.start_tick,
            tick_count: h.tick_count,
            flags: h.flags,
            offset: self.len,
            compressed_len: h.compressed_len,
            uncompressed_len: h.uncompressed_len,
        });
        let head = h.encode();
        match &mut self.spill {
            Some((_, file)) => {
                file.append(&head)?;
                file.append(&f.payload)?;
            }
            None => {
                self.mem.extend_from_slice(&head);
                self.mem.extend_from_slice(&f.payload);
                if self.mem.len() > SPILL_THRESHOLD {
                    // A unique name: two writers of the same final path never share a spill file.
                    let (path, mut file) = self.storage.create_temp(
                        &self.spill_dir,
                        &self.spill_prefix,
                        ".body.tmp",
                    )?;
                    let guard = TempFile::new(self.storage.clone(), path);
                    file.append(&self.mem)?;
                    self.mem = Vec::new();
                    self.spill = Some((guard, file));
                }
            }
        }
        self.len += (FRAME_HEADER_LEN + f.payload.len()) as u64;
        Ok(())
    }

    fn copy_into(&self, out: &mut dyn StorageFile) -> Result<()> {
        match &self.spill {
            Some((guard, _)) => {
                let src = self.storage.open(guard.path())?;
                let mut at = 0u64;
                while at < self.len {
                    let n = COPY_BLOCK.min((self.len - at) as usize);
                    out.append(&src.read_exact_at(at, n)?)?;
                    at += n as u64;
                }
            }
            None => out.append(&self.mem)?,
        }
        Ok(())
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Writes `prefix` + the frames into a new temporary file next to `path` and syncs it.
    pub(crate) fn write_file(&self, path: &Path, prefix: &[u8]) -> Result<UnpublishedReel> {
        let (dir, name) = temp_location(path);
        let (tmp, mut file) = self.storage.create_temp(&dir, &name, ".tmp")?;
        let tmp = TempFile::new(self.storage.clone(), tmp);
        file.append(prefix)?;
        self.copy_into(file.as_mut())?;
        file.sync()?;
        Ok(UnpublishedReel {
            storage: self.storage.clone(),
            tmp,
            path: path.to_path_buf(),
            size: prefix.len() as u64 + self.len,
            chunks: self.entries.len(),
        })
    }
}

/// Assembles the bytes that precede the frames of a compacted file: header, metadata, index.
/// Index offsets in `entries` are relative to the first frame; they are shifted here.
pub(crate) fn compacted_prefix(
    identity: &RecordingIdentity,
    recording_id: [u8; 16],
    metadata: &Metadata,
    entries: &[IndexEntry],
    first_tick: u32,
    last_tick: Option<u32>,
    body_len: u64,
) -> Result<Vec<u8>> {
    let meta = metadata.encode()?;
    check_metadata_len(meta.len())?;
    let index_len = encode_index(entries).len();
    let prefix = (HEADER_LEN + meta.len() + index_len) as u64;
    let shifted: Vec<IndexEntry> = entries
        .iter()
        .map(|e| IndexEntry {
            offset: e.offset + prefix,
            ..*e
        })
        .collect();
    let index = encode_index(&shifted);
    let mut body = Vec::with_capacity(meta.len() + index.len());
    body.extend_from_slice(&meta);
    body.extend_from_slice(&index);
    let header = Header {
        world_id: identity.world_id,
        world_version: identity.world_version,
        timestamp_ms: identity.timestamp_ms,
        dictionary_id: identity.dictionary_id,
        metadata_len: u32::try_from(meta.len()).map_err(|_| Error::limit("metadata over 4 GiB"))?,
        index_len: u32::try_from(index.len()).map_err(|_| Error::limit("index over 4 GiB"))?,
        tick_count: match last_tick {
            Some(l) => (l - first_tick)
                .checked_add(1)
                .ok_or_else(|| Error::limit("a recording spans at most 2^32 - 1 ticks"))?,
            None => 0,
        },
        chunk_count: entries.len() as u32,
        tick_rate_millihz: identity.tick_rate_millihz,
        game_data_version: identity.game_data_version,
        layout: Layout::Compacted,
        first_tick: if last_tick.is_some() { first_tick } else { 0 },
        data_end: prefix + body_len,
        body_checksum: xxhash_rust::xxh64::xxh64(&body, 0),
        recording_id,
        stats: HeaderStats::of(&metadata.library.stats),
        ..Header::default()
    };
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&header.encode());
    out.extend_from_slice(&body);
    Ok(out)
}

/// Refuses metadata a reader would refuse (the last guard: every call that adds to the metadata
/// already refuses what would exceed it).
pub(crate) fn check_metadata_len(len: usize) -> Result<()> {
    let max = crate::format::Limits::default().max_metadata_bytes;
    if len > max {
        return Err(Error::limit(format!(
            "metadata of {len} bytes; a reader accepts at most {max}"
        )));
    }
    Ok(())
}

/// A compacted file written and synced under a temporary name in its final directory, not yet
/// visible at its final path. Dropping it (or a failed publication) removes the temporary file.
#[derive(Debug)]
pub struct UnpublishedReel {
    storage: Arc<dyn Storage>,
    tmp: TempFile,
    path: PathBuf,
    size: u64,
    chunks: usize,
}

impl UnpublishedReel {
    /// Where the file is until it is published (a readable, complete `.reel`).
    pub fn temp_path(&self) -> &Path {
        self.tmp.path()
    }
    /// The path it was written for.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }
    /// Its number of chunks.
    pub fn chunks(&self) -> usize {
        self.chunks
    }
    /// The storage it is written on.
    pub fn storage(&self) -> &Arc<dyn Storage> {
        &self.storage
    }

    /// Moves the file to its path and syncs the directory; returns its size. `replace`: an
    /// atomic rename that replaces whatever file is there. Otherwise an atomic no-clobber move
    /// (`renameat2(RENAME_NOREPLACE)`, or hard link + unlink where that is not supported) that
    /// fails with an I/O error of kind `AlreadyExists` if the path exists, even when another
    /// process creates it at the same moment. On failure the temporary file is removed.
    pub fn publish(self, replace: bool) -> Result<u64> {
        let path = self.path.clone();
        self.publish_at(&path, replace).map_err(|e| e.error)
    }

    /// Like [`UnpublishedReel::publish`], at another `path` in the same directory (a rename never
    /// crosses file systems). If the move fails, the file stays unpublished and comes back in the
    /// error, so that the caller can try another path (or drop it, which removes it).
    pub fn publish_at(self, path: &Path, replace: bool) -> std::result::Result<u64, PublishError> {
        if let Err(error) = self.storage.rename(self.tmp.path(), path, replace) {
            return Err(PublishError {
                error,
                file: Some(Box::new(self)),
            });
        }
        let UnpublishedReel {
            storage, tmp, size, ..
        } = self;
        tmp.keep();
        // Published already: a failed directory sync is reported, nothing is undone.
        storage
            .sync_dir(parent_dir(path))
            .map_err(|error| PublishError { error, file: None })?;
        Ok(size)
    }
}

/// Why [`UnpublishedReel::publish_at`] failed.
#[derive(Debug)]
pub struct PublishError {
    pub error: Error,
    /// The file, still unpublished, if it could not be moved (`None`: it was moved, but the
    /// directory could not be made durable).
    pub file: Option<Box<UnpublishedReel>>,
}

impl PublishError {
    /// Whether the move was refused because something exists at the path (no-clobber moves).
    pub fn is_conflict(&self) -> bool {
        matches!(&self.error, Error::Io(e) if e.kind() == std::io::ErrorKind::AlreadyExists)
            && self.file.is_some()
    }
}

/// The directory a file for `path` is written in, and the prefix of its temporary files there:
/// `dir/.NAME.XXXXXX.tmp` (spilled frames: `dir/.NAME.XXXXXX.body.tmp`).
pub(crate) fn temp_location(path: &Path) -> (PathBuf, String) {
    let dir = parent_dir(path).to_path_buf();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "reel".into());
    (dir, format!(".{name}."))
}

/// Temporary files of a compaction count as stale (left by a process that was killed) this long
/// after they were last written: one still being written by another process is never that old.
pub(crate) const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(600);

/// Removes the stale temporary files of compactions of `path` (`.NAME.XXXXXX.tmp`,
/// `.NAME.XXXXXX.body.tmp`, not written for [`STALE_TEMP_AGE`]); returns how many. Best effort:
/// a file that cannot be removed stays.
pub(crate) fn remove_stale_temps(storage: &dyn Storage, path: &Path) -> usize {
    let (dir, prefix) = temp_location(path);
    let Ok(names) = storage.list(&dir) else {
        return 0;
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    let stale_before = now - STALE_TEMP_AGE.as_nanos() as i128;
    let mut removed = 0;
    for name in names {
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        let middle = rest
            .strip_suffix(".body.tmp")
            .or_else(|| rest.strip_suffix(".tmp"));
        if !middle.is_some_and(|m| m.len() == 6 && m.bytes().all(|b| b.is_ascii_alphanumeric())) {
            continue;
        }
        let file = dir.join(&name);
        if let Ok(Some(st)) = storage.stat(&file)
            && st.modified_ns < stale_before
            && storage.remove_file(&file).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// `dir/STEM.conflict-N.EXT` for `dir/STEM.EXT` (`dir/NAME.conflict-N` without an extension).
pub(crate) fn conflict_path(out: &Path, n: u32) -> PathBuf {
    let name = match (out.file_stem(), out.extension()) {
        (Some(stem), Some(ext)) => format!(
            "{}.conflict-{n}.{}",
            stem.to_string_lossy(),
            ext.to_string_lossy()
        ),
        _ => format!(
            "{}.conflict-{n}",
            out.file_name().unwrap_or_default().to_string_lossy()
        ),
    };
    out.with_file_name(name)
}

/// Publishes a finished recording compacted from its live directory `dir`. If a file exists at
/// `out` and `overwrite` is not set (another writer of the same path finished first), nothing is
/// published and the live directory stays as it is: `Error::Locked` says so.
pub(crate) fn publish_from_live(
    file: UnpublishedReel,
    out: &Path,
    dir: &Path,
    overwrite: bool,
) -> Result<()> {
    match file.publish_at(out, overwrite) {
        Ok(_) => Ok(()),
        Err(e) if e.is_conflict() => Err(Error::Locked(format!(
            "{} already exists (another writer of the same path finished first) and the recording \
             does not overwrite: it was not published and stays in its live directory {} (resume it, \
             or compact it to another path)",
            out.display(),
            dir.display()
        ))),
        Err(e) => Err(e.error),
    }
}

/// Publishes a finished recording compacted straight from memory (it never had a live directory).
/// It is not published at `out`, but kept at the first free `conflict_path(out, n)` with
/// `Error::Locked` naming both paths, if another writer records `out` (its live directory is
/// locked; whatever `overwrite` says), or if a file exists at `out` and `overwrite` is not set.
pub(crate) fn publish_from_memory(
    file: UnpublishedReel,
    out: &Path,
    overwrite: bool,
) -> Result<()> {
    let live = LiveDir::new(
        file.storage().clone(),
        crate::storage::live::live_dir_for(out),
    );
    let why = match live.is_locked() {
        Ok(false) => match file.publish_at(out, overwrite) {
            Ok(_) => return Ok(()),
            Err(e) if e.is_conflict() => {
                let why = format!(
                    "{} already exists (another writer of the same path finished first) and the \
                     recording does not overwrite",
                    out.display()
                );
                return keep_at_conflict_path(
                    *e.file.expect("a conflict hands the file back"),
                    out,
                    why,
                );
            }
            Err(e) => return Err(e.error),
        },
        Ok(true) => format!(
            "{} is being recorded by another writer (its live directory {} is locked)",
            out.display(),
            live.path().display()
        ),
        Err(e) => format!(
            "{} may be being recorded by another writer (its live directory {} exists, and its lock \
             could not be checked: {e})",
            out.display(),
            live.path().display()
        ),
    };
    keep_at_conflict_path(file, out, why)
}

fn keep_at_conflict_path(mut file: UnpublishedReel, out: &Path, why: String) -> Result<()> {
    for n in 1..=1000 {
        let at = conflict_path(out, n);
        match file.publish_at(&at, false) {
            Ok(_) => {
                return Err(Error::Locked(format!(
                    "{why}: the recording was not published there, it was kept at {}",
                    at.display()
                )));
            }
            Err(e) if e.is_conflict() => file = *e.file.expect("a conflict hands the file back"),
            Err(e) => {
                return Err(Error::Locked(format!(
                    "{why}; keeping the recording at {} failed too, it is lost: {}",
                    at.display(),
                    e.error
                )));
            }
        }
    }
    Err(Error::Locked(format!(
        "{why}; {} to {} exist already, the recording is lost",
        conflict_path(out, 1).display(),
        conflict_path(out, 1000).display()
    )))
}

/// Checks, when a recording starts, what would otherwise fail only at its first flush or at
/// `finish` (when a run that never flushed has nowhere else to go): the path names a file, in a
/// directory that exists and takes new files. The probe creates and removes one temporary file
/// (named as compaction's temporary files, so a crash in between leaves nothing the next
/// compaction does not clean). Not when `resuming` (the recording's live directory is there): its
/// ticks are kept there if `finish` cannot write, and resuming stays about a millisecond on the
/// calling thread (the probe's file creation took 1-8 ms on a loaded disk).
pub(crate) fn check_recording_path(
    storage: &dyn Storage,
    path: &Path,
    resuming: bool,
) -> Result<()> {
    if path.as_os_str().is_empty() || path.file_name().is_none() {
        return Err(Error::invalid(format!(
            "\"{}\" does not name a file; a recording's path is its .reel file",
            path.display()
        )));
    }
    let (dir, prefix) = crate::record::file::publish::temp_location(path);
    // The refusals below are I/O errors at the path they are about, of the kind the operating
    // system would have given (bindings map them: Java's NoSuchFileException...).
    let refused = |at: &Path, kind: std::io::ErrorKind, why: String| {
        Error::io_at(at, std::io::Error::new(kind, why))
    };
    match storage.stat(&dir)? {
        Some(st) if st.kind == crate::storage::EntryKind::Dir => {}
        Some(_) => {
            return Err(refused(
                &dir,
                std::io::ErrorKind::NotADirectory,
                format!(
                    "not a directory (the recording {} goes there)",
                    path.display()
                ),
            ));
        }
        None => {
            return Err(refused(
                &dir,
                std::io::ErrorKind::NotFound,
                format!(
                    "the directory does not exist (the recording {} goes there)",
                    path.display()
                ),
            ));
        }
    }
    if let Some(st) = storage.stat(path)?
        && st.kind == crate::storage::EntryKind::Dir
    {
        return Err(refused(
            path,
            std::io::ErrorKind::IsADirectory,
            "is a directory; a recording's path is its .reel file".into(),
        ));
    }
    if resuming {
        return Ok(());
    }
    let (probe, file) = storage.create_temp(&dir, &prefix, ".tmp").map_err(|e| {
        e.with_context(&format!(
            "; the recording {} could not be written there",
            path.display()
        ))
    })?;
    drop(file);
    storage.remove_file(&probe)
}
