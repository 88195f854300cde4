//! Writes a finished, compacted `.reel` file from a sequence of ticks: frames are kept in memory
//! up to a threshold and spilled to a temporary file beyond it, then header + metadata + index +
//! frames are written to a temporary file (a unique name next to the final path) that is fsynced,
//! and only then published: atomically renamed into place, or linked without replacing anything.
//! Every temporary file is removed when a step fails.

use std::fs::Permissions;
use std::io::{self, BufWriter, Read, Seek, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::format::event::Event;
use crate::format::frame::FRAME_HEADER_LEN;
use crate::format::header::{HEADER_LEN, Header, Layout};
use crate::format::index::{IndexEntry, encode_index};
use crate::format::metadata::{EntityInfo, EventType, Metadata};
use crate::record::chunker::{ChunkPolicy, Chunker, Frame};
use crate::storage::sync_dir;

/// Frames kept in memory before spilling to a temporary file.
const SPILL_THRESHOLD: usize = 8 << 20;

/// Identity and timing of a recording, written to the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingInfo {
    pub world_id: [u8; 16],
    pub world_version: [u8; 16],
    /// Unix milliseconds when the recording started.
    pub timestamp_ms: i64,
    /// Ticks per second times 1000.
    pub tick_rate_millihz: u32,
    /// The game's own data version.
    pub game_data_version: u32,
    /// Zstd dictionary id (0 = none); the dictionary must be registered.
    pub dictionary_id: u16,
}

impl RecordingInfo {
    /// Checks the values a reader depends on.
    pub fn validate(&self) -> Result<()> {
        if self.tick_rate_millihz == 0 {
            return Err(Error::invalid("the tick rate must be positive"));
        }
        Ok(())
    }
}

impl Default for RecordingInfo {
    fn default() -> Self {
        RecordingInfo {
            world_id: [0; 16],
            world_version: [0; 16],
            timestamp_ms: 0,
            tick_rate_millihz: 20_000,
            game_data_version: 0,
            dictionary_id: 0,
        }
    }
}

/// Options of a [`ReelWriter`].
#[derive(Debug, Clone, Default)]
pub struct ReelOptions {
    pub info: RecordingInfo,
    pub policy: ChunkPolicy,
}

impl ReelOptions {
    /// Defaults for a finished file: zstd level 9.
    pub fn compacted() -> ReelOptions {
        ReelOptions {
            info: RecordingInfo::default(),
            policy: ChunkPolicy {
                zstd_level: 9,
                ..ChunkPolicy::default()
            },
        }
    }
}

/// Frames collected so far, in memory or spilled to a temporary file (removed on drop).
#[derive(Debug)]
pub(crate) struct FrameBody {
    mem: Vec<u8>,
    spill: Option<tempfile::NamedTempFile>,
    len: u64,
    /// Where a spill file goes, and its name's prefix.
    spill_dir: PathBuf,
    spill_prefix: String,
    pub(crate) entries: Vec<IndexEntry>,
}

impl FrameBody {
    pub(crate) fn new(spill_dir: PathBuf, spill_prefix: String) -> FrameBody {
        FrameBody {
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
            Some(file) => {
                file.write_all(&head)?;
                file.write_all(&f.payload)?;
            }
            None => {
                self.mem.extend_from_slice(&head);
                self.mem.extend_from_slice(&f.payload);
                if self.mem.len() > SPILL_THRESHOLD {
                    // A unique name: two writers of the same final path never share a spill file.
                    let mut file = temp_file(&self.spill_dir, &self.spill_prefix, ".body.tmp")?;
                    file.write_all(&self.mem)?;
                    self.mem = Vec::new();
                    self.spill = Some(file);
                }
            }
        }
        self.len += (FRAME_HEADER_LEN + f.payload.len()) as u64;
        Ok(())
    }

    pub(crate) fn copy_into(&mut self, out: &mut impl Write) -> Result<()> {
        match &mut self.spill {
            Some(file) => {
                let file = file.as_file_mut();
                file.flush()?;
                file.seek(io::SeekFrom::Start(0))?;
                let mut r = (&*file).take(self.len);
                io::copy(&mut r, out)?;
            }
            None => out.write_all(&self.mem)?,
        }
        Ok(())
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }
}

/// A new temporary file `dir/{prefix}XXXXXX{suffix}` (unique, created exclusively), removed when
/// dropped unless persisted. Created with mode 0666 (before the umask), like `File::create`.
fn temp_file(dir: &Path, prefix: &str, suffix: &str) -> Result<tempfile::NamedTempFile> {
    Ok(tempfile::Builder::new()
        .prefix(prefix)
        .suffix(suffix)
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(dir)?)
}

/// Assembles the bytes that precede the frames of a compacted file: header, metadata, index.
/// Index offsets in `entries` are relative to the first frame; they are shifted here.
pub(crate) fn compacted_prefix(
    info: &RecordingInfo,
    metadata: &Metadata,
    entries: &[IndexEntry],
    first_tick: u32,
    last_tick: Option<u32>,
    body_len: u64,
) -> Result<Vec<u8>> {
    let meta = metadata.encode()?;
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
        world_id: info.world_id,
        world_version: info.world_version,
        timestamp_ms: info.timestamp_ms,
        dictionary_id: info.dictionary_id,
        metadata_len: u32::try_from(meta.len()).map_err(|_| Error::limit("metadata over 4 GiB"))?,
        index_len: u32::try_from(index.len()).map_err(|_| Error::limit("index over 4 GiB"))?,
        tick_count: match last_tick {
            Some(l) => (l - first_tick)
                .checked_add(1)
                .ok_or_else(|| Error::limit("a recording spans at most 2^32 - 1 ticks"))?,
            None => 0,
        },
        chunk_count: entries.len() as u32,
        tick_rate_millihz: info.tick_rate_millihz,
        game_data_version: info.game_data_version,
        layout: Layout::Compacted,
        first_tick: if last_tick.is_some() { first_tick } else { 0 },
        data_end: prefix + body_len,
        body_checksum: xxhash_rust::xxh64::xxh64(&body, 0),
        ..Header::default()
    };
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&header.encode());
    out.extend_from_slice(&body);
    Ok(out)
}

/// Writes a compacted `.reel` file.
#[derive(Debug)]
pub struct ReelWriter {
    path: PathBuf,
    options: ReelOptions,
    chunker: Chunker,
    body: FrameBody,
    metadata: Metadata,
    first_tick: Option<u32>,
}

impl ReelWriter {
    /// Starts a file at `path` (written only on [`ReelWriter::finish`]).
    pub fn create(path: impl AsRef<Path>, options: ReelOptions) -> Result<ReelWriter> {
        let path = path.as_ref().to_path_buf();
        options.info.validate()?;
        match path.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(dir) if !dir.is_dir() => {
                return Err(Error::Io(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("{} is not an existing directory", dir.display()),
                )));
            }
            _ => {}
        }
        let dict = crate::dictionary::lookup(options.info.dictionary_id)?;
        let chunker = Chunker::new(options.policy, dict.as_deref().map(|v| v.as_slice()))?;
        let (dir, prefix) = temp_location(&path);
        Ok(ReelWriter {
            path,
            options,
            chunker,
            body: FrameBody::new(dir, prefix),
            metadata: Metadata::default(),
            first_tick: None,
        })
    }

    /// The user's metadata compound (the library's keys are kept separately).
    pub fn user_metadata_mut(&mut self) -> &mut std::collections::HashMap<String, fastnbt::Value> {
        &mut self.metadata.user
    }

    /// Registers an entity's identity (uuid, name) in the metadata.
    pub fn register_entity(&mut self, info: EntityInfo) {
        let list = &mut self.metadata.library.entities;
        match list.iter_mut().find(|e| e.id == info.id) {
            Some(e) => *e = info,
            None => list.push(info),
        }
    }

    /// Registers a custom event type.
    pub fn register_event_type(&mut self, t: EventType) {
        let list = &mut self.metadata.library.event_types;
        match list.iter_mut().find(|e| e.id == t.id) {
            Some(e) => *e = t,
            None => list.push(t),
        }
    }

    /// Records dropped-tick gaps (carried over by compaction).
    pub fn set_gaps(&mut self, gaps: Vec<crate::format::metadata::Gap>, dropped_ticks: u64) {
        self.metadata.library.gaps = gaps;
        self.metadata.library.stats.dropped_ticks = dropped_ticks;
    }

    /// Sets the analysis metadata (per-entity figures) written into the library keys.
    pub fn set_analysis(&mut self, analysis: fastnbt::Value) {
        self.metadata.library.analysis = Some(analysis);
    }

    /// Supplies snapshot bytes; the next tick starts a chunk carrying them.
    pub fn offer_snapshot(&mut self, bytes: Vec<u8>) {
        self.chunker.offer_snapshot(bytes);
    }

    /// Appends one tick (ticks strictly increasing; empty ticks may be skipped).
    pub fn write_tick(&mut self, tick: u32, events: &[Event]) -> Result<()> {
        if let Some(f) = self.chunker.push_tick(tick, events)? {
            self.body.push(&f)?;
        }
        self.first_tick.get_or_insert(tick);
        Ok(())
    }

    /// Encodes and writes one batch-encoded tick.
    pub fn write_batch(&mut self, tick: u32, batch: &[u8]) -> Result<()> {
        let events = crate::format::event::decode_batch(batch)?;
        self.write_tick(tick, &events)
    }

    /// Writes the file, publishes it at its path (replacing any file there) and returns its size
    /// in bytes. On failure nothing is left behind: no temporary file, and the path untouched.
    pub fn finish(self) -> Result<u64> {
        self.finish_unpublished()?.publish(true)
    }

    /// Writes and fsyncs the file under a temporary name next to its path, without publishing it:
    /// read or check it at [`UnpublishedReel::temp_path`], then [`UnpublishedReel::publish`] it.
    /// On failure, or if the result is dropped unpublished, the temporary file is removed.
    pub fn finish_unpublished(mut self) -> Result<UnpublishedReel> {
        if let Some(f) = self.chunker.finish_chunk()? {
            self.body.push(&f)?;
        }
        let c = &self.chunker;
        self.metadata.library.stats.ticks_written = c.ticks_written;
        self.metadata.library.stats.events = c.events;
        self.metadata.library.stats.pose_samples = c.pose_samples;
        self.metadata.library.stats.uncompressed_bytes = c.uncompressed_bytes;
        let prefix = compacted_prefix(
            &self.options.info,
            &self.metadata,
            &self.body.entries,
            self.first_tick.unwrap_or(0),
            self.chunker.last_tick(),
            self.body.len(),
        )?;
        let (dir, name) = temp_location(&self.path);
        let mut tmp = temp_file(&dir, &name, ".tmp")?;
        {
            let mut f = BufWriter::new(tmp.as_file_mut());
            f.write_all(&prefix)?;
            self.body.copy_into(&mut f)?;
            let f = f.into_inner().map_err(|e| e.into_error())?;
            f.sync_all()?;
        }
        Ok(UnpublishedReel {
            tmp: tmp.into_temp_path(),
            path: self.path,
            size: prefix.len() as u64 + self.body.len(),
            chunks: self.body.entries.len(),
        })
    }
}

/// A compacted file written and fsynced under a temporary name in its final directory, not yet
/// visible at its final path. Dropping it (or a failed publication) removes the temporary file.
#[derive(Debug)]
pub struct UnpublishedReel {
    tmp: tempfile::TempPath,
    path: PathBuf,
    size: u64,
    chunks: usize,
}

impl UnpublishedReel {
    /// Where the file is until it is published (a readable, complete `.reel`).
    pub fn temp_path(&self) -> &Path {
        &self.tmp
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

    /// Moves the file to its path and fsyncs the directory; returns its size. `replace`: an
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
        let UnpublishedReel {
            tmp,
            path: own,
            size,
            chunks,
        } = self;
        let moved = if replace {
            tmp.persist(path)
        } else {
            tmp.persist_noclobber(path)
        };
        if let Err(e) = moved {
            return Err(PublishError {
                error: Error::Io(e.error),
                file: Some(Box::new(UnpublishedReel {
                    tmp: e.path,
                    path: own,
                    size,
                    chunks,
                })),
            });
        }
        if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            // Published already: a failed directory fsync is reported, nothing is undone.
            sync_dir(dir).map_err(|error| PublishError { error, file: None })?;
        }
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
        matches!(&self.error, Error::Io(e) if e.kind() == io::ErrorKind::AlreadyExists)
            && self.file.is_some()
    }
}

/// The directory a file for `path` is written in, and the prefix of its temporary files there:
/// `dir/.NAME.XXXXXX.tmp` (spilled frames: `dir/.NAME.XXXXXX.body.tmp`).
fn temp_location(path: &Path) -> (PathBuf, String) {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "reel".into());
    (dir, format!(".{name}."))
}
