//! Opens a recording through range reads and decodes chunks, seeks and iterates ticks.
//!
//! Below both paths: the read path (`play`, which re-exports [`Reader`] as `tickreel::play::Reader`)
//! builds its shared views and playheads on it, and the write path (`record`) reads with it what
//! compaction and resuming need of a live directory. It stands on `format` and `storage` only.

use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::chunk::{
    DecodedChunk, DecodedTick, decompress_frame, decompress_frame_prefix, prefix_end,
};
use crate::format::frame::{FRAME_HEADER_LEN, FrameHeader};
use crate::format::header::{Header, Layout};
use crate::format::index::{IndexEntry, find_chunk, snapshot_at_or_before};
use crate::format::metadata::Metadata;
use crate::format::state::EntityTable;
use crate::format::{FLAG_TERRAIN, Limits};
use crate::storage::frames::{CompactedFrames, FrameSource, read_prefix};
use crate::storage::live::{META_FILE, SegmentFrames, members_of, segment_name};
use crate::storage::{EntryKind, FileSource, LocalStorage, Source, Storage};

mod world;

use world::Caches;
pub use world::{DEFAULT_CACHE_BUDGET, TerrainArea, WorldAt};

thread_local! {
    /// One decompression context per library thread (see [`crate::threads`]; other threads use
    /// the reader's [`Decompressors`]).
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Options for opening a recording.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReaderOptions {
    pub limits: Limits,
}

/// The state at one tick, as returned by [`Reader::seek`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeekState {
    pub tick: u32,
    /// Every live entity with its kind, flags and pose at `tick`.
    pub entities: EntityTable,
    /// Index of the chunk containing `tick`.
    pub chunk: usize,
    /// Index of the nearest chunk at or before it that carries a snapshot.
    pub snapshot_chunk: Option<usize>,
}

/// What `verify` found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyReport {
    pub chunks: usize,
    pub ticks: u64,
    pub pose_samples: u64,
    pub events: u64,
}

/// A recording opened for reading. Cheap to share between threads (`&self` everywhere).
#[derive(Debug)]
pub struct Reader {
    frames: Arc<dyn FrameSource>,
    header: Header,
    metadata: Metadata,
    index: Vec<IndexEntry>,
    limits: Limits,
    dictionary: Option<Arc<crate::dictionary::Dictionary>>,
    decompressors: Decompressors,
    /// The keyframe worlds and the terrain it decoded, in one byte budget ([`Caches`]).
    caches: Caches,
    /// The heap of its index and decoded metadata, counted once (the metadata's count walks
    /// every value): part of [`Reader::heap_bytes`].
    fixed_bytes: usize,
}

/// Decompression contexts for calls on threads that are not the library's (a plugin's main
/// thread seeking), reused: a thread-local one would keep the shared library mapped after it is
/// unloaded ([`crate::threads`]). At most [`Decompressors::KEEP`] are kept.
#[derive(Default)]
struct Decompressors(std::sync::Mutex<Vec<zstd::bulk::Decompressor<'static>>>);

impl Decompressors {
    const KEEP: usize = 2;

    fn with<R>(
        &self,
        f: impl FnOnce(&mut zstd::bulk::Decompressor<'static>) -> Result<R>,
    ) -> Result<R> {
        let taken = self.0.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut dec = match taken {
            Some(d) => d,
            None => zstd::bulk::Decompressor::new()?,
        };
        let r = f(&mut dec);
        let mut kept = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() < Self::KEEP {
            kept.push(dec);
        }
        r
    }
}

impl std::fmt::Debug for Decompressors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Decompressors")
    }
}

impl Reader {
    /// Opens a compacted `.reel` file.
    pub fn open_path(path: impl AsRef<Path>) -> Result<Reader> {
        Reader::open(Arc::new(FileSource::open(path)?))
    }

    /// Opens a live recording directory (metadata file + segments), as of its last flush. A
    /// segment the index names is checked to belong to the recording when it is first read
    /// (`Corrupt` naming it otherwise).
    pub fn open_live(dir: impl AsRef<Path>) -> Result<Reader> {
        Reader::open_live_with(dir, ReaderOptions::default())
    }

    pub fn open_live_with(dir: impl AsRef<Path>, options: ReaderOptions) -> Result<Reader> {
        Reader::open_live_in(&LocalStorage::shared(), dir.as_ref(), options)
    }

    /// [`Reader::open_live_with`] through `storage`.
    pub fn open_live_in(
        storage: &Arc<dyn Storage>,
        dir: &Path,
        options: ReaderOptions,
    ) -> Result<Reader> {
        // A member of the directory: never followed out of it.
        let meta = members_of(storage).open(&dir.join(META_FILE))?;
        let (header, metadata, index) = read_prefix(meta.as_ref(), &options.limits)?;
        if header.layout != Layout::Segmented {
            return Err(Error::corrupt(format!(
                "{}: metadata file is not of a live recording",
                dir.display()
            )));
        }
        check_span(&header, &index).map_err(|e| in_meta(dir, e))?;
        // Every segment the index names is there (one stat each, no read): a missing one is
        // said at open, not met as an I/O error half way through a playback.
        let mut last = None;
        for e in &index {
            let n = e.segment();
            if last == Some(n) {
                continue;
            }
            last = Some(n);
            let path = dir.join(segment_name(n));
            if storage.stat(&path)?.is_none() {
                return Err(Error::Io(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!(
                        "{}: missing: the metadata file names segment {n} (chunks from tick {}), \
                         which is not there",
                        path.display(),
                        e.start_tick
                    ),
                )));
            }
        }
        let recording_id = header.recording_id;
        Reader::from_parts(
            header,
            metadata,
            index,
            Arc::new(SegmentFrames::new(storage.clone(), dir, recording_id)),
            options.limits,
        )
    }

    /// Opens a live recording from its metadata file's bytes (`meta`) and the frames it indexes,
    /// wherever they are kept (a follower of a remote live recording: see
    /// [`crate::storage::remote`]). The same checks as [`Reader::open_live_in`] but the segments'
    /// presence, which `frames` answers for when read.
    pub fn open_live_parts(
        meta: &dyn Source,
        frames: Arc<dyn FrameSource>,
        options: ReaderOptions,
    ) -> Result<Reader> {
        let (header, metadata, index) = read_prefix(meta, &options.limits)?;
        if header.layout != Layout::Segmented {
            return Err(Error::corrupt(format!(
                "{}: not the metadata of a live recording",
                meta.describe()
            )));
        }
        check_span(&header, &index).map_err(|e| annotate(e, &meta.describe()))?;
        Reader::from_parts(header, metadata, index, frames, options.limits)
    }

    /// A reader of a recording that has no chunk yet (a live recording before its first flush).
    pub fn empty() -> Reader {
        Reader {
            frames: Arc::new(crate::storage::frames::NoFrames),
            header: Header::default(),
            metadata: Metadata::default(),
            index: Vec::new(),
            limits: Limits::default(),
            dictionary: None,
            decompressors: Decompressors::default(),
            caches: Caches::default(),
            fixed_bytes: 0,
        }
    }

    /// Opens every file the indexed frames are read from, so that they stay readable after the
    /// files are deleted (see [`FrameSource::pin`]).
    pub fn pin(&self) -> Result<()> {
        self.frames.pin(&self.index)
    }

    /// Opens a compacted file or a live recording directory, whichever `path` is.
    pub fn open_any(path: impl AsRef<Path>) -> Result<Reader> {
        Reader::open_any_in(
            &LocalStorage::shared(),
            path.as_ref(),
            ReaderOptions::default(),
        )
    }

    /// [`Reader::open_any`] through `storage`.
    pub fn open_any_in(
        storage: &Arc<dyn Storage>,
        path: &Path,
        options: ReaderOptions,
    ) -> Result<Reader> {
        match storage.stat(path)? {
            Some(s) if s.kind == EntryKind::Dir => Reader::open_live_in(storage, path, options),
            _ => Reader::open_with(storage.open(path)?, options),
        }
    }

    /// Opens a compacted recording from any range-read source.
    pub fn open(source: Arc<dyn Source>) -> Result<Reader> {
        Reader::open_with(source, ReaderOptions::default())
    }

    pub fn open_with(source: Arc<dyn Source>, options: ReaderOptions) -> Result<Reader> {
        let (header, metadata, index) = read_prefix(source.as_ref(), &options.limits)?;
        if header.layout != Layout::Compacted {
            return Err(Error::invalid(format!(
                "{} is the metadata file of a live recording; open its directory instead",
                source.describe()
            )));
        }
        let len = source.len()?;
        if len < header.data_end {
            return Err(Error::truncated(format!(
                "{} has {len} bytes; its header says {}",
                source.describe(),
                header.data_end
            )));
        }
        check_span(&header, &index).map_err(|e| annotate(e, &source.describe()))?;
        for (i, e) in index.iter().enumerate() {
            let end = e
                .offset
                .checked_add(FRAME_HEADER_LEN as u64 + u64::from(e.compressed_len));
            if e.offset < header.body_end() || end.is_none_or(|end| end > header.data_end) {
                return Err(Error::corrupt(format!(
                    "index entry {i} points outside the chunk area"
                )));
            }
        }
        Reader::from_parts(
            header,
            metadata,
            index,
            Arc::new(CompactedFrames::new(source)),
            options.limits,
        )
    }

    /// A reader of frames held in memory (each frame's header and its compressed payload, in
    /// file order), with the header and metadata they belong to: what compaction and shadow-play
    /// reports read before anything is written. The index is built from the frames' headers.
    pub fn from_frames<'a>(
        frames: impl IntoIterator<Item = (&'a FrameHeader, &'a [u8])>,
        header: Header,
        metadata: Metadata,
        limits: Limits,
    ) -> Result<Reader> {
        let mut bytes = Vec::new();
        let mut index = Vec::new();
        for (h, payload) in frames {
            index.push(IndexEntry {
                start_tick: h.start_tick,
                tick_count: h.tick_count,
                flags: h.flags,
                offset: bytes.len() as u64,
                compressed_len: h.compressed_len,
                uncompressed_len: h.uncompressed_len,
            });
            bytes.extend_from_slice(&h.encode());
            bytes.extend_from_slice(payload);
        }
        Reader::from_parts(
            header,
            metadata,
            index,
            Arc::new(crate::storage::frames::MemFrames::new(bytes)),
            limits,
        )
    }

    /// Assembles a reader from parsed parts (used for live recording directories).
    pub fn from_parts(
        header: Header,
        metadata: Metadata,
        index: Vec<IndexEntry>,
        frames: Arc<dyn FrameSource>,
        limits: Limits,
    ) -> Result<Reader> {
        for (i, e) in index.iter().enumerate() {
            // Checked before anything is allocated from these lengths (a live index is untrusted too).
            if e.compressed_len as usize > limits.max_chunk_bytes
                || e.uncompressed_len as usize > limits.max_chunk_bytes
            {
                return Err(Error::limit(format!(
                    "index entry {i}: chunk of {} bytes ({} compressed); limit {}",
                    e.uncompressed_len, e.compressed_len, limits.max_chunk_bytes
                )));
            }
        }
        let dictionary = crate::dictionary::lookup(header.dictionary_id)?;
        let fixed_bytes =
            index.capacity() * std::mem::size_of::<IndexEntry>() + metadata.heap_bytes();
        Ok(Reader {
            fixed_bytes,
            frames,
            header,
            metadata,
            index,
            limits,
            dictionary,
            decompressors: Decompressors::default(),
            caches: Caches::default(),
        })
    }

    pub fn header(&self) -> &Header {
        &self.header
    }
    /// The recording's id (header bytes 96..112), `None` if it has none (all zero: files of
    /// earlier builds, or of the synchronous writer unless it was given one).
    pub fn recording_id(&self) -> Option<uuid::Uuid> {
        self.header.recording_uuid()
    }
    /// Segments of another recording found in a live directory's files and left out (never read):
    /// see [`crate::storage::live::LiveDir::refused_segments`]. Empty for a compacted file.
    pub fn refused_segments(&self) -> Result<Vec<crate::storage::live::RefusedSegment>> {
        self.frames.refused_segments()
    }
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }
    pub fn index(&self) -> &[IndexEntry] {
        &self.index
    }
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
    pub fn describe(&self) -> String {
        self.frames.describe()
    }
    /// Tick rate in ticks per second.
    pub fn tick_rate(&self) -> f64 {
        self.header.tick_rate()
    }
    /// First tick with data, if any.
    pub fn first_tick(&self) -> Option<u32> {
        self.index.first().map(|e| e.start_tick)
    }
    /// Last tick covered by a chunk, if any.
    pub fn last_tick(&self) -> Option<u32> {
        self.index.last().map(|e| (e.end_tick() - 1) as u32)
    }

    /// Index of the chunk that holds `tick` (or the last one before it).
    pub fn chunk_for_tick(&self, tick: u32) -> Option<usize> {
        find_chunk(&self.index, tick)
    }

    /// Reads, checks and decodes chunk `i`. A delta world section (data version 5) is put on
    /// top of its keyframe's world ([`Reader::resolve_world`]).
    pub fn read_chunk(&self, i: usize) -> Result<DecodedChunk> {
        let (fh, payload) = self.read_payload(i)?;
        let mut c = DecodedChunk::decode_version(&payload, &fh, &self.limits, None)?;
        self.resolve_world(&mut c)?;
        Ok(c)
    }

    /// Reads and checks chunk `i` and decodes only what it holds about `entity`
    /// ([`DecodedChunk::decode_entity`]): what a ghost load needs from a file of many entities.
    pub fn read_chunk_entity(&self, i: usize, entity: u32) -> Result<DecodedChunk> {
        let (fh, payload) = self.read_payload(i)?;
        DecodedChunk::decode_version(&payload, &fh, &self.limits, Some(entity))
    }

    /// Reads and checks chunk `i` and decodes all but its movement
    /// ([`DecodedChunk::decode_world_part`]): its keyframe, snapshot, world section and events,
    /// and no track. What a world rebuild needs of the chunks before its position.
    pub fn read_chunk_world(&self, i: usize) -> Result<DecodedChunk> {
        let (fh, payload) = self.read_payload_prefix(i, false)?;
        let mut c = DecodedChunk::decode_world_part(&payload, &fh, &self.limits)?;
        self.resolve_world(&mut c)?;
        Ok(c)
    }

    /// Reads and checks chunk `i` and decodes its entities: the keyframe, the events and every
    /// track, as [`Reader::read_chunk`] does, but neither its world section (stepped over, not put
    /// on a keyframe: `world` and `world_delta` are `None`) nor its snapshot bytes (`None`). What
    /// a playhead without the world plays ([`crate::play::PlayheadOptions::world`]): neither a
    /// large world nor a damaged one costs anything there.
    pub fn read_chunk_entities(&self, i: usize) -> Result<DecodedChunk> {
        let (fh, payload) = self.read_payload(i)?;
        let mut c = DecodedChunk::decode_tracks_of(&payload, &fh, &self.limits, &|_| true)?;
        c.snapshot = None;
        Ok(c)
    }

    /// Reads and checks chunk `i` and decodes its keyframe, snapshot and events only
    /// ([`DecodedChunk::decode_events`]): no movement and no world section (neither decoded nor
    /// put on a keyframe, so neither a large world nor a damaged one costs anything here). What
    /// a scan of the events needs.
    pub fn read_chunk_events(&self, i: usize) -> Result<DecodedChunk> {
        let (fh, payload) = self.read_payload_prefix(i, false)?;
        DecodedChunk::decode_events(&payload, &fh, &self.limits)
    }

    /// Reads chunk `i`'s frame, checks it against the index and its checksum, and decompresses
    /// its payload (section 7's bytes, not decoded).
    pub fn read_payload(&self, i: usize) -> Result<(FrameHeader, Vec<u8>)> {
        let (fh, bytes) = self.read_frame(i)?;
        let payload = self.decompress(&fh, &bytes[FRAME_HEADER_LEN..])?;
        Ok((fh, payload))
    }

    /// Reads chunk `i`'s compressed payload as stored, with its frame header checked against the
    /// index (its checksum is checked by [`Reader::decompress`]).
    pub fn read_compressed(&self, i: usize) -> Result<(FrameHeader, Vec<u8>)> {
        let (fh, mut bytes) = self.read_frame(i)?;
        bytes.drain(..FRAME_HEADER_LEN);
        Ok((fh, bytes))
    }

    /// Reads chunk `i`'s frame (header and compressed payload) and checks its header against the
    /// index.
    fn read_frame(&self, i: usize) -> Result<(FrameHeader, Vec<u8>)> {
        let entry = self
            .index
            .get(i)
            .ok_or_else(|| Error::invalid(format!("chunk {i} of {}", self.index.len())))?;
        let bytes = self.frames.read_frame(entry)?;
        let fh = FrameHeader::decode(&bytes)?;
        if fh.start_tick != entry.start_tick
            || fh.tick_count != entry.tick_count
            || fh.compressed_len != entry.compressed_len
            || fh.uncompressed_len != entry.uncompressed_len
            || fh.flags != entry.flags
        {
            return Err(Error::corrupt(format!(
                "chunk {i}: frame header disagrees with the index"
            )));
        }
        Ok((fh, bytes))
    }

    /// Checks a compressed payload read by [`Reader::read_compressed`] (checksum, data version,
    /// lengths) and decompresses it, with the recording's dictionary if it has one.
    pub fn decompress(&self, fh: &FrameHeader, compressed: &[u8]) -> Result<Vec<u8>> {
        self.with_decompressor(|dec| decompress_frame(fh, compressed, dec, &self.limits))
    }

    /// Runs `f` with a decompression context: the recording's dictionary's, or one per thread,
    /// reused (creating one costs ~10 us).
    fn with_decompressor(
        &self,
        f: impl FnOnce(&mut zstd::bulk::Decompressor<'_>) -> Result<Vec<u8>>,
    ) -> Result<Vec<u8>> {
        match &self.dictionary {
            Some(d) => f(&mut d.decompressor()?),
            None if !crate::threads::is_library_thread() => self.decompressors.with(f),
            None => DECOMPRESSOR.with(|cell| {
                let mut slot = cell.borrow_mut();
                if slot.is_none() {
                    *slot = Some(zstd::bulk::Decompressor::new()?);
                }
                f(slot.as_mut().expect("just set"))
            }),
        }
    }

    /// Reads chunk `i`'s frame, checks it against the index and its checksum (as
    /// [`Reader::read_payload`]), and decompresses the first bytes of its payload that a decode
    /// without the movement reads: through the event stream, or (`world_only`) through the world
    /// section; only the payload's first zstd frame when it holds them (the movement compressed
    /// as a frame of its own, FORMAT.md section 6), else all of it
    /// ([`crate::format::chunk::decompress_frame_prefix`]). What a world rebuild reads of the
    /// chunks before its position and of its keyframe's chunk, and a scan of the events.
    pub(crate) fn read_payload_prefix(
        &self,
        i: usize,
        world_only: bool,
    ) -> Result<(FrameHeader, Vec<u8>)> {
        let (fh, bytes) = self.read_frame(i)?;
        let compressed = &bytes[FRAME_HEADER_LEN..];
        let end = |p: &[u8]| prefix_end(p, fh.flags, world_only);
        let payload = self.with_decompressor(|dec| {
            decompress_frame_prefix(&fh, compressed, dec, &self.limits, end)
        })?;
        Ok((fh, payload))
    }

    /// Clamps `tick` into the recording, or fails if it is empty.
    pub fn clamp_tick(&self, tick: u32) -> Result<u32> {
        match (self.first_tick(), self.last_tick()) {
            (Some(f), Some(l)) => Ok(tick.clamp(f, l)),
            _ => Err(Error::InvalidState("the recording has no ticks".into())),
        }
    }

    /// The state at `tick` (clamped into the recording): decodes only the chunk holding it.
    pub fn seek(&self, tick: u32) -> Result<SeekState> {
        let tick = self.clamp_tick(tick)?;
        let chunk = self.chunk_for_tick(tick).expect("clamped tick has a chunk");
        let decoded = self.read_chunk(chunk)?;
        Ok(self.seek_in(&decoded, chunk, tick))
    }

    /// The state at `tick` from an already decoded chunk `chunk`.
    pub fn seek_in(&self, decoded: &DecodedChunk, chunk: usize, tick: u32) -> SeekState {
        SeekState {
            tick,
            entities: decoded.state_at(tick),
            chunk,
            snapshot_chunk: snapshot_at_or_before(&self.index, chunk),
        }
    }

    /// Iterates decoded ticks in `from..=to`, one chunk decoded at a time.
    pub fn ticks(&self, from: u32, to: u32) -> TickIter<'_> {
        self.tick_iter(from, to, false)
    }

    /// Iterates the ticks in `from..=to` that have events other than poses, with those events
    /// only (an `EntityAdd` or `Teleport` with a default pose), one chunk at a time, each read
    /// by [`Reader::read_chunk_events`]: neither movement nor world sections are decoded. What
    /// a scan of a recording's events needs.
    pub fn events(&self, from: u32, to: u32) -> TickIter<'_> {
        self.tick_iter(from, to, true)
    }

    fn tick_iter(&self, from: u32, to: u32, events_only: bool) -> TickIter<'_> {
        let start = self.chunk_for_tick(from).unwrap_or(0);
        TickIter {
            reader: self,
            next_chunk: start,
            from,
            to,
            buf: Vec::new().into_iter(),
            done: false,
            events_only,
        }
    }

    /// Reads and decodes every chunk, checking checksums and index consistency, and everything a
    /// reader may decode from it: its world section (a delta resolved on its keyframe) and its
    /// terrain piece ([`Reader::read_terrain`]), and that the terrain in effect never holds more
    /// than `Limits::max_terrain_sections` nor needs more than
    /// [`crate::format::MAX_TERRAIN_PIECES_MERGED`] pieces merged (as [`Reader::terrain_at`]
    /// refuses). So a file that verifies is one every reader reads.
    pub fn verify(&self) -> Result<VerifyReport> {
        self.verify_decoding(&|_| true)
    }

    /// [`Reader::verify`], decoding only the chunks `i` for which `decode(i)`; the others are
    /// read and checked against the index and their payload checksum, and their pose samples and
    /// events are not counted and their terrain is not decoded. Compaction checks the chunks it
    /// copied this way.
    pub(crate) fn verify_decoding(&self, decode: &dyn Fn(usize) -> bool) -> Result<VerifyReport> {
        let mut report = VerifyReport::default();
        // The positions of the terrain in effect so far (the sections themselves are dropped
        // once checked): what `terrain_at`'s merge counts.
        let mut terrain = std::collections::HashSet::new();
        // terrain pieces since the last full one, this one included
        let mut pieces = 0usize;
        for i in 0..self.index.len() {
            if !decode(i) {
                let (fh, bytes) = self
                    .read_frame(i)
                    .map_err(|e| annotate(e, &format!("chunk {i}")))?;
                fh.verify_payload(&bytes[FRAME_HEADER_LEN..])
                    .map_err(|e| annotate(e, &format!("chunk {i}")))?;
                report.chunks += 1;
                report.ticks += u64::from(fh.tick_count);
                continue;
            }
            let c = self
                .read_chunk(i)
                .and_then(|c| {
                    // its world's block lists, decoded (a seek leaves them to the first read)
                    c.read_world_lists()?;
                    Ok(c)
                })
                .map_err(|e| annotate(e, &format!("chunk {i}")))?;
            report.chunks += 1;
            report.ticks += u64::from(c.tick_count);
            report.pose_samples += c.tracks.iter().map(|t| t.ticks.len() as u64).sum::<u64>();
            report.events += c.records.iter().map(|r| r.events.len() as u64).sum::<u64>();
            if self.index[i].flags & FLAG_TERRAIN != 0 {
                // the pieces `terrain_at` merges here, from the last full piece: refused past
                // the bound as it refuses them
                pieces = if self.index[i].flags & crate::format::FLAG_TERRAIN_FULL != 0 {
                    1
                } else {
                    pieces + 1
                };
                if pieces > crate::format::MAX_TERRAIN_PIECES_MERGED {
                    crate::format::index::terrain_start(&self.index, i)?;
                }
                // names the chunk and its tick
                let piece = self.read_terrain(i)?;
                terrain.extend(piece.sections().map(|s| s.key()));
                let max = self.limits.max_terrain_sections();
                if terrain.len() > max {
                    return Err(Error::limit(format!(
                        "chunk {i} (tick {}): the terrain in effect from it holds {} sections; \
                         limit {max}",
                        self.index[i].start_tick,
                        terrain.len()
                    )));
                }
            }
        }
        check_span(&self.header, &self.index)?;
        Ok(report)
    }
}

/// The header's own checks that [`Reader::verify`] makes and that cost nothing to make at open
/// (they read no chunk): the tick span the header states (first tick, tick count) stays within
/// the `u32` ticks and is the span of the index, and the chunk count is the index's length. A
/// file failing them is refused when it is opened (`Corrupt`), by every command and binding,
/// not only by `verify`.
pub(crate) fn check_span(header: &Header, index: &[IndexEntry]) -> Result<()> {
    let (first, count) = (header.first_tick, header.tick_count);
    if u64::from(first) + u64::from(count) > 1 << 32 {
        return Err(Error::corrupt(format!(
            "header says {count} ticks from tick {first}, which runs past tick 2^32 - 1"
        )));
    }
    if let (Some(f), Some(l)) = (index.first(), index.last()) {
        let (f, end) = (f.start_tick, l.end_tick());
        if end - u64::from(f) != u64::from(count) || f != first {
            return Err(Error::corrupt(format!(
                "header says {count} ticks from {first}, index covers ticks {f} to {}",
                end - 1
            )));
        }
    }
    if index.len() != header.chunk_count as usize {
        return Err(Error::corrupt("chunk count disagrees with the index"));
    }
    Ok(())
}

/// `e`, said to be about the metadata file of the live directory `dir`.
fn in_meta(dir: &Path, e: Error) -> Error {
    annotate(e, &format!("{}", dir.join(META_FILE).display()))
}

pub(crate) fn annotate(e: Error, what: &str) -> Error {
    match e {
        Error::Corrupt(m) => Error::Corrupt(format!("{what}: {m}")),
        Error::Truncated(m) => Error::Truncated(format!("{what}: {m}")),
        other => other,
    }
}

/// Iterator over decoded ticks; yields an error (once) if a chunk cannot be read.
pub struct TickIter<'a> {
    reader: &'a Reader,
    next_chunk: usize,
    from: u32,
    to: u32,
    buf: std::vec::IntoIter<DecodedTick>,
    done: bool,
    /// [`Reader::events`]: the chunks read without movement and world.
    events_only: bool,
}

impl Iterator for TickIter<'_> {
    type Item = Result<DecodedTick>;
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(t) = self.buf.next() {
                if t.tick < self.from {
                    continue;
                }
                if t.tick > self.to {
                    self.done = true;
                    return None;
                }
                return Some(Ok(t));
            }
            if self.done || self.next_chunk >= self.reader.index.len() {
                return None;
            }
            if self.reader.index[self.next_chunk].start_tick > self.to {
                return None;
            }
            let i = self.next_chunk;
            self.next_chunk += 1;
            let read = if self.events_only {
                self.reader.read_chunk_events(i)
            } else {
                self.reader.read_chunk(i)
            };
            match read {
                Ok(c) => self.buf = c.ticks().into_iter(),
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}
