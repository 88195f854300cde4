//! Compaction: a recording (live directory, or frames held in memory) -> one `.reel` file, streaming
//! chunk by chunk (never the whole recording in memory), re-chunked and recompressed at a higher
//! zstd level, with analysis metadata appended, written to a temporary file that is verified by
//! reading it back and only then published at the final path. The compacted file keeps the
//! source's recording id; segments of another recording in a live source are left out (they are
//! never read) and named in the report.
//!
//! Whatever a reader rebuilds from the source, the compacted file holds: every chunk is read as
//! a reader reads it (a delta world section put on its keyframe's world, `Reader::resolve_world`;
//! the terrain piece decoded, `Reader::read_terrain`), and what a reader refuses is refused with
//! the reader's own error; the world at the start of every snapshot chunk is carried into the
//! compacted chunk that starts at the same tick, even where the events before it did not make it
//! (a recording that starts in the middle of a world), so the world at every tick is the
//! source's (a delta whose keyframe the source does not hold is carried as it is: the world
//! there stays unknown); terrain pieces are carried as they are, never compressed again.

use crate::format::palette::PaletteKind;
use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::chunk::DecodedChunk;
use crate::format::event::Event;
use crate::format::frame::FrameHeader;
use crate::reader::{Reader, ReaderOptions};
use crate::record::encode::analysis::Analysis;
use crate::record::encode::chunker::{AdoptedChunk, ChunkPolicy, Frame};
use crate::record::file::identity::RecordingIdentity;
use crate::record::file::publish::UnpublishedReel;
use crate::record::file::reel_writer::{ReelOptions, ReelWriter};
use crate::storage::live::RefusedSegment;
use crate::storage::{LocalStorage, Storage};

/// How compaction writes the final file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactOptions {
    /// Zstd level of the chunks compaction re-encodes (default 9; sparse chunks at least 19,
    /// `ChunkPolicy::level_for`). Source chunks of 32 KiB of
    /// payload or more that span at most `chunk_ticks` are copied as they are, at their level.
    pub zstd_level: i32,
    /// Most ticks a chunk of the compacted file spans (default 12,000); chunks are cut sooner at
    /// 64 KiB of payload (`ChunkPolicy::compacted`).
    pub chunk_ticks: u32,
    /// Read the result back and check it before reporting success.
    pub verify: bool,
    /// Compress the output with this registered zstd dictionary (`None`: keep the source's).
    pub dictionary_id: Option<u16>,
    /// Replace a file that exists at the output path. If `false` (the default), the output is
    /// published without replacing anything, atomically (another process creating the file at the
    /// same moment is not replaced either), and [`compact`] fails with `InvalidState` if the path
    /// exists. A recording's `finish` uses `RecorderOptions::overwrite` instead of this field.
    pub overwrite: bool,
}

impl CompactOptions {
    /// Checks the compacted file's zstd level and chunk span against what the linked zstd and
    /// readers accept.
    pub fn validate(&self) -> Result<()> {
        let max_ticks = crate::format::Limits::default().max_chunk_ticks as u32;
        if self.chunk_ticks == 0 || self.chunk_ticks > max_ticks {
            return Err(Error::invalid(format!(
                "{} must be {} (got {})",
                crate::error::option("compaction_chunk_ticks"),
                crate::error::between(1, max_ticks),
                self.chunk_ticks
            )));
        }
        crate::record::encode::chunker::check_zstd_level("compaction_zstd_level", self.zstd_level)
    }
}

impl Default for CompactOptions {
    fn default() -> Self {
        CompactOptions {
            zstd_level: 9,
            chunk_ticks: crate::record::encode::chunker::COMPACTED_CHUNK_TICKS,
            verify: true,
            dictionary_id: None,
            overwrite: false,
        }
    }
}

/// What compaction produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompactReport {
    pub chunks_in: usize,
    pub chunks_out: usize,
    /// Compressed bytes of the source chunks (frames included).
    pub bytes_in: u64,
    /// Size of the compacted file.
    pub bytes_out: u64,
    pub ticks: u64,
    /// Segments of another recording found in the source's live directory: left out of the
    /// compacted file and untouched (see `Reader::refused_segments`).
    pub refused_segments: Vec<RefusedSegment>,
}

/// Compacts everything `source` holds into the file `out`. `progress(done_chunks, total)`.
///
/// The file is written under a temporary name next to `out`, read back and checked (if
/// `options.verify`), and only then published at `out`: a file that fails verification never
/// appears there, and a failure at any step leaves no temporary file. Unless `options.overwrite`
/// is set, an existing file at `out` is not replaced: `InvalidState`, and nothing is written.
pub fn compact(
    source: &Reader,
    out: &Path,
    options: CompactOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<CompactReport> {
    compact_in(&LocalStorage::shared(), source, out, options, progress)
}

/// [`compact`], writing `out` on `storage`.
pub fn compact_in(
    storage: &Arc<dyn Storage>,
    source: &Reader,
    out: &Path,
    options: CompactOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<CompactReport> {
    options.validate()?;
    let exists = || {
        Error::exists_at(
            out,
            &format!(
                "; compaction does not replace it unless {} is set",
                crate::error::option("overwrite")
            ),
        )
    };
    // Fails early; the publication itself is what guarantees that nothing is replaced.
    if !options.overwrite && storage.stat(out)?.is_some() {
        return Err(exists());
    }
    let (report, file) = compact_unpublished(storage, source, out, options, progress)?;
    match file.publish_at(out, options.overwrite) {
        Ok(_) => Ok(report),
        Err(e) if e.is_conflict() => Err(exists()),
        Err(e) => Err(e.error),
    }
}

/// Whether a source chunk goes into the compacted file as it is (its compressed bytes copied, not
/// re-encoded nor recompressed): when re-chunking would not merge it with its neighbours (its
/// payload is at least half of the bytes a compacted chunk is cut at, and it spans no more ticks
/// than allowed) and the dictionary stays the same. Its data version is kept (its frame names it,
/// and every version this build reads is one it may write). Measured on 5 minutes of 100 players
/// (BENCHMARKS.md, Compaction): recompressing such chunks at level 9 would make the file 0.7 %
/// smaller and cost more time than everything else compaction does; re-encoding them, 1.4 %
/// smaller at four times the time.
fn copies_as_is(fh: &FrameHeader, same_dictionary: bool, options: &CompactOptions) -> bool {
    same_dictionary
        && fh.tick_count <= options.chunk_ticks
        && fh.uncompressed_len as usize >= crate::record::encode::chunker::COMPACTED_CHUNK_BYTES / 2
}

/// The ticks of a chunk that its straight decode yields (those with a pose sample or a record),
/// counted without building them: how many, and the first and last (relative).
struct TicksUsed {
    count: u64,
    first: Option<u32>,
    last: Option<u32>,
}

impl TicksUsed {
    fn of(c: &DecodedChunk) -> TicksUsed {
        let mut used = vec![false; c.tick_count as usize];
        for t in &c.tracks {
            for &rel in &t.ticks {
                used[rel as usize] = true;
            }
        }
        for r in &c.records {
            used[r.rel as usize] = true;
        }
        TicksUsed {
            count: used.iter().filter(|&&u| u).count() as u64,
            first: used.iter().position(|&u| u).map(|p| p as u32),
            last: used.iter().rposition(|&u| u).map(|p| p as u32),
        }
    }
}

/// [`compact`] up to, not including, publication: the checked file, still under its temporary
/// name next to `out`.
pub(crate) fn compact_unpublished(
    storage: &Arc<dyn Storage>,
    source: &Reader,
    out: &Path,
    options: CompactOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(CompactReport, UnpublishedReel)> {
    crate::record::file::publish::remove_stale_temps(storage.as_ref(), out);
    let h = source.header();
    let identity = RecordingIdentity {
        world_id: h.world_id,
        world_version: h.world_version,
        timestamp_ms: h.timestamp_ms,
        tick_rate_millihz: h.tick_rate_millihz,
        game_data_version: h.game_data_version,
        dictionary_id: options.dictionary_id.unwrap_or(h.dictionary_id),
    };
    let same_dictionary = identity.dictionary_id == h.dictionary_id;
    let mut w = ReelWriter::create_in(
        storage.clone(),
        out,
        ReelOptions {
            identity,
            chunk_policy: ChunkPolicy {
                chunk_ticks: options.chunk_ticks,
                // Snapshots are carried over exactly where the source has them.
                snapshot_interval: u32::MAX,
                zstd_level: options.zstd_level,
                ..ChunkPolicy::compacted()
            },
        },
    )?;
    // The compacted file is the same recording: it keeps the source's id.
    w.set_recording_id(h.recording_id);
    w.carry_snapshots_only();
    let meta = source.metadata();
    for (k, v) in &meta.user {
        w.set_user_metadata(k.clone(), v.clone())?;
    }
    for e in &meta.library.entities {
        w.register_entity(e.clone())?;
    }
    for t in &meta.library.event_types {
        w.register_event_type(t.clone())?;
    }
    for kind in PaletteKind::ALL {
        for (&id, name) in meta.library.palette.names(kind) {
            w.register_name(kind, id, name)?;
        }
    }
    if meta.library.starts_mid_world {
        w.set_starts_mid_world();
    }
    if let Some(server) = &meta.library.server {
        w.set_server(server)?;
    }
    w.set_gaps(meta.library.gaps.clone(), meta.library.stats.dropped_ticks);
    let mut analysis = Analysis::new(source.header().tick_rate_millihz, &meta.library.palette);
    let mut report = CompactReport {
        chunks_in: source.index().len(),
        refused_segments: source.refused_segments()?,
        ..CompactReport::default()
    };
    let total = source.index().len() as u64;
    let (mut src_samples, mut src_events) = (0u64, 0u64);
    // Chunks copied as they are: their samples and events (counted from the source's decode).
    let (mut copied_samples, mut copied_events) = (0u64, 0u64);
    // Start ticks of the chunks copied, sorted (chunks never overlap, so they name them).
    let mut copied: Vec<u32> = Vec::new();
    for (i, entry) in source.index().iter().enumerate() {
        // Read as a reader reads it (`Reader::read_chunk`): its delta world section put on its
        // keyframe's world, refused with the reader's own error where readers refuse it (a
        // delta on a delta, on a chunk without a world section, not written against its
        // keyframe), named as `verify` names it.
        let (fh, compressed, mut chunk) = source
            .read_compressed(i)
            .and_then(|(fh, compressed)| {
                let payload = source.decompress(&fh, &compressed)?;
                let chunk = DecodedChunk::decode_version(&payload, &fh, source.limits(), None)?;
                Ok((fh, compressed, chunk))
            })
            .map_err(|e| crate::reader::annotate(e, &format!("chunk {i}")))?;
        let had_delta = chunk.world_delta.is_some();
        source
            .resolve_world(&mut chunk)
            .and_then(|()| chunk.read_world_lists())
            .map_err(|e| crate::reader::annotate(e, &format!("chunk {i}")))?;
        if i == 0 {
            // The entities alive before the first tick (a file cut out of a longer stream has
            // some), and, in a recording that starts in the middle of a world without a
            // snapshot at its first tick, no snapshot of the compacted file's own there: an
            // empty one would claim an empty world where the source's is unknown.
            let table: crate::format::state::EntityTable = chunk.keyframe.iter().copied().collect();
            if meta.library.starts_mid_world && chunk.snapshot.is_none() {
                w.start_mid_world(table, chunk.start_tick);
            } else if !table.is_empty() {
                w.start_from(table);
            }
        }
        // Its terrain, decoded as readers decode it (`Reader::read_terrain`, which names the
        // chunk in its errors), carried as the source has it.
        let terrain = if fh.flags & crate::format::FLAG_TERRAIN != 0 {
            let t = source.read_terrain(i)?;
            let content = crate::format::terrain::piece_of(&compressed)?;
            // the skippable frame's 8 bytes of magic and length, and its content
            Some((compressed[..8 + content.len()].to_vec(), t))
        } else {
            None
        };
        report.bytes_in += u64::from(entry.compressed_len) + 36;
        let samples = chunk
            .tracks
            .iter()
            .map(|t| t.ticks.len() as u64)
            .sum::<u64>();
        let events = chunk
            .records
            .iter()
            .map(|r| r.events.len() as u64)
            .sum::<u64>();
        src_samples += samples;
        src_events += events;
        analysis.chunk(&chunk);
        let used = TicksUsed::of(&chunk);
        report.ticks += used.count;
        // Empty ticks carry nothing, but a chunk's first and last tick bound the recording's span:
        // keep them, so that the compacted file covers exactly the ticks the source covers.
        let last = (chunk.end_tick() - 1) as u32;
        let head = used.first.is_none_or(|t| t > 0);
        let tail = used.last.is_none_or(|t| t < chunk.tick_count - 1) && last > chunk.start_tick;
        // A delta world section stands on a keyframe of the source: re-encoded, so that it
        // stands on one of the compacted file's. (`chunk` was resolved: its world is the
        // keyframe's with the delta's changes, or unknown if the keyframe is not in the source.)
        // A terrain piece where the compacted file needs a full one (FORMAT.md §6.1) is not
        // copied either: the re-encoded chunk carries the whole terrain.
        let full_due = terrain.is_some()
            && fh.flags & crate::format::FLAG_TERRAIN_FULL == 0
            && w.full_terrain_due();
        if !had_delta && !full_due && copies_as_is(&fh, same_dictionary, &options) {
            w.adopt_chunk(AdoptedChunk {
                end_table: chunk.state_at(last),
                world_events: chunk
                    .records
                    .iter()
                    .flat_map(|r| &r.events)
                    .filter(|e| {
                        e.is_world()
                            || matches!(e, Event::EntityRemove { .. } | Event::PlayerLeave { .. })
                    })
                    .cloned()
                    .collect(),
                frame: Frame {
                    header: fh,
                    payload: compressed,
                },
                events,
                pose_samples: samples,
                ticks_written: used.count + u64::from(head) + u64::from(tail),
                start_world: chunk.world.as_deref().cloned(),
                terrain: terrain.as_ref().map(|(_, t)| t.clone()),
            })?;
            copied.push(fh.start_tick);
            copied_samples += samples;
            copied_events += events;
            progress(i as u64 + 1, total);
            continue;
        }
        if let Some(s) = &chunk.snapshot {
            w.carry_snapshot(s.clone());
            // The world before its first tick, as the source's readers have it: the compacted
            // chunk starting at the same tick carries it (a delta where its events made it, a
            // keyframe where they did not), or the same unresolved delta if the source does
            // not hold its keyframe.
            match (&chunk.world, &chunk.world_delta) {
                (Some(world), _) => w.carry_world(world),
                (None, Some(delta)) => w.carry_world_delta(delta),
                (None, None) => w.carry_world(&crate::format::WorldState::default()),
            }
        }
        if let Some((piece, t)) = terrain {
            // The terrain starts the re-encoded chunk that begins at this chunk's first tick,
            // its piece as it is (not compressed again).
            w.carry_terrain_piece(piece, t)
                .map_err(|e| e.with_context(&format!(" (chunk {i}, tick {})", fh.start_tick)))?;
        }
        if head {
            w.write_tick(chunk.start_tick, &[])?;
        }
        for t in chunk.ticks() {
            w.write_tick(t.tick, &t.events)?;
        }
        if tail {
            w.write_tick(last, &[])?;
        }
        progress(i as u64 + 1, total);
    }
    let (first, last) = (source.first_tick(), source.last_tick());
    if let Some(l) = last {
        analysis.finish(l);
    }
    w.set_analysis(analysis.to_nbt());
    let file = w.finish_unpublished()?;
    report.bytes_out = file.size();
    report.chunks_out = file.chunks();
    if options.verify {
        // Re-encoded chunks are decoded in full; copied ones were decoded from the source above,
        // and are checked to be the same bytes (frame header against the index, payload
        // checksum), which costs a read instead of a decode.
        let back = Reader::open_with(storage.open(file.temp_path())?, ReaderOptions::default())?;
        let index = back.index();
        let v = back.verify_decoding(&|j| copied.binary_search(&index[j].start_tick).is_err())?;
        if (back.first_tick(), back.last_tick()) != (first, last) {
            return Err(Error::corrupt(format!(
                "the compacted file covers {}, its source {}",
                crate::error::tick_span(back.first_tick(), back.last_tick()),
                crate::error::tick_span(first, last)
            )));
        }
        let (samples, events) = (v.pose_samples + copied_samples, v.events + copied_events);
        let kept = index
            .iter()
            .filter(|e| copied.binary_search(&e.start_tick).is_ok())
            .count();
        if samples != src_samples || events != src_events || kept != copied.len() {
            return Err(Error::corrupt(format!(
                "compacted file has {samples} pose samples and {events} events in {} chunks, \
                 {kept} of them copied; the source has {src_samples} and {src_events}, {} copied",
                v.chunks,
                copied.len()
            )));
        }
        if v.chunks != file.chunks() {
            return Err(Error::corrupt(format!(
                "compacted file has {} chunks, {} were written",
                v.chunks,
                file.chunks()
            )));
        }
    }
    Ok((report, file))
}
