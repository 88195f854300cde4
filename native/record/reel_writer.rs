//! Writes a finished, compacted `.reel` file from a sequence of ticks: frames are kept in memory
//! up to a threshold and spilled to a temporary file beyond it, then header + metadata + index +
//! frames are written to a temporary file that is fsynced and atomically renamed into place.

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Seek, Write};
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

/// Frames collected so far, in memory or spilled to a temporary file.
#[derive(Debug)]
pub(crate) struct FrameBody {
    mem: Vec<u8>,
    spill: Option<(File, PathBuf)>,
    len: u64,
    spill_path: PathBuf,
    pub(crate) entries: Vec<IndexEntry>,
}

impl FrameBody {
    pub(crate) fn new(spill_path: PathBuf) -> FrameBody {
        FrameBody {
            mem: Vec::new(),
            spill: None,
            len: 0,
            spill_path,
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
            Some((file, _)) => {
                file.write_all(&head)?;
                file.write_all(&f.payload)?;
            }
            None => {
                self.mem.extend_from_slice(&head);
                self.mem.extend_from_slice(&f.payload);
                if self.mem.len() > SPILL_THRESHOLD {
                    let mut file = fs::OpenOptions::new()
                        .read(true)
                        .write(true)
                        .create(true)
                        .truncate(true)
                        .open(&self.spill_path)?;
                    file.write_all(&self.mem)?;
                    self.mem = Vec::new();
                    self.spill = Some((file, self.spill_path.clone()));
                }
            }
        }
        self.len += (FRAME_HEADER_LEN + f.payload.len()) as u64;
        Ok(())
    }

    pub(crate) fn copy_into(&mut self, out: &mut impl Write) -> Result<()> {
        match &mut self.spill {
            Some((file, _)) => {
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

impl Drop for FrameBody {
    fn drop(&mut self) {
        if let Some((_, p)) = self.spill.take() {
            let _ = fs::remove_file(p);
        }
    }
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
        let spill = sibling(&path, "body.tmp");
        Ok(ReelWriter {
            path,
            options,
            chunker,
            body: FrameBody::new(spill),
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

    /// Writes the file and returns its size in bytes.
    pub fn finish(mut self) -> Result<u64> {
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
        let tmp = sibling(&self.path, "tmp");
        {
            let mut f = BufWriter::new(File::create(&tmp)?);
            f.write_all(&prefix)?;
            self.body.copy_into(&mut f)?;
            let f = f.into_inner().map_err(|e| e.into_error())?;
            f.sync_all()?;
        }
        fs::rename(&tmp, &self.path)?;
        if let Some(dir) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(dir)?;
        }
        Ok(prefix.len() as u64 + self.body.len())
    }
}

/// `dir/.name.suffix` next to `path`.
pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "reel".into());
    path.with_file_name(format!(".{name}.{suffix}"))
}
