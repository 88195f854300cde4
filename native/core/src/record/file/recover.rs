//! Crash recovery of a live recording directory: scan every segment for valid frames (past the
//! last indexed one too), truncate torn tails, rebuild the index from the frames themselves, and
//! rewrite the metadata file. The index in the metadata file is only ever a cache of the frames.
//! Only segments of the recording are scanned: one whose preamble names another recording (the
//! metadata file's header holds the recording's id) is left out, untouched, and named in the
//! report.

use std::path::Path;

use crate::error::{Error, Result};
use crate::format::Limits;
use crate::format::header::Header;
use crate::format::index::IndexEntry;
use crate::format::limits::check_expansion;
use crate::format::metadata::Metadata;
use crate::format::segment::SegmentStart;
use crate::storage::frames::read_prefix;
use crate::storage::is_refused_member;
use crate::storage::live::{
    LiveDir, RefusedSegment, describe_refused, encode_meta_file, scan_segment_in, segment_name,
};

/// What recovery kept and dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoverReport {
    pub segments: usize,
    /// Chunks indexed by the metadata file before recovery.
    pub chunks_indexed_before: usize,
    /// Chunks in the rebuilt index.
    pub chunks_kept: usize,
    /// Chunks found past (or missing from) the old index and now indexed.
    pub chunks_recovered: usize,
    /// Valid frames dropped because their ticks overlap earlier frames.
    pub chunks_dropped: usize,
    /// Valid frames dropped because a reader refuses them: larger than `Limits::max_chunk_bytes`,
    /// or more uncompressed bytes than their compressed length allows
    /// (`format::limits::check_expansion`); written by versions that did not refuse or pad them.
    pub chunks_oversized: usize,
    /// Bytes cut off torn segment tails.
    pub bytes_truncated: u64,
    /// Bytes of damaged regions skipped between valid frames.
    pub bytes_skipped: u64,
    /// The metadata file was missing or unreadable and was rebuilt from the segments alone.
    pub metadata_rebuilt: bool,
    /// Segments that are not this recording's (their preamble names another recording or cannot
    /// be read, or they have none while the recording has an id): left out of the index and left
    /// untouched on disk.
    pub segments_refused: Vec<RefusedSegment>,
    pub first_tick: Option<u32>,
    pub last_tick: Option<u32>,
}

impl std::fmt::Display for RecoverReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} segments: kept {} chunks ({} were indexed, {} recovered, {} dropped as overlapping, \
             {} dropped as too large to read); truncated {} torn bytes, skipped {} damaged bytes{}",
            self.segments,
            self.chunks_kept,
            self.chunks_indexed_before,
            self.chunks_recovered,
            self.chunks_dropped,
            self.chunks_oversized,
            self.bytes_truncated,
            self.bytes_skipped,
            if self.metadata_rebuilt {
                "; metadata file was unreadable and was rebuilt (user metadata lost)"
            } else {
                ""
            }
        )?;
        if let (Some(a), Some(b)) = (self.first_tick, self.last_tick) {
            write!(f, "; ticks {a} to {b}")?;
        }
        if !self.segments_refused.is_empty() {
            write!(
                f,
                "; left {} segments out, untouched, as not this recording's: {}",
                self.segments_refused.len(),
                describe_refused(&self.segments_refused)
            )?;
        }
        Ok(())
    }
}

/// The recovered state of a live directory.
#[derive(Debug)]
pub struct Recovered {
    pub report: RecoverReport,
    pub header: Header,
    pub metadata: Metadata,
    pub index: Vec<IndexEntry>,
    pub segments: Vec<u32>,
}

/// Recovers `dir` (taking its writer lock for the duration). See the module docs.
pub fn recover(dir: &Path) -> Result<RecoverReport> {
    recover_with_progress(dir, &mut |_, _| {})
}

/// As [`recover`], calling `progress(done_bytes, total_bytes)` as segments are scanned.
pub fn recover_with_progress(
    dir: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RecoverReport> {
    recover_live(&LiveDir::local(dir), progress)
}

/// [`recover_with_progress`] of a live directory on any storage.
pub fn recover_live(live: &LiveDir, progress: &mut dyn FnMut(u64, u64)) -> Result<RecoverReport> {
    recover_live_with(live, &Limits::default(), progress)
}

/// [`recover_live`] for readers with `limits` instead of the defaults: a frame larger than
/// `limits.max_chunk_bytes` is dropped as too large to read, and a damaged stretch of a segment is
/// searched for the next frame only within one such frame's reach. The `live_dir` fuzz target
/// recovers so, with a small `max_chunk_bytes`, so that a segment extended by gigabytes of zeros
/// costs it a short search instead of the default 64 MiB one.
pub fn recover_live_with(
    live: &LiveDir,
    limits: &Limits,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RecoverReport> {
    if !live.dir_exists()? {
        return Err(Error::invalid(format!(
            "{} is not a directory",
            live.path().display()
        )));
    }
    let _lock = live.lock()?;
    let recovered = recover_locked(live, limits, progress)?;
    // Leftovers of a compaction of this recording that was killed.
    if let Some(out) = live.final_path() {
        crate::record::file::publish::remove_stale_temps(live.storage().as_ref(), &out);
    }
    Ok(recovered.report)
}

/// The recording id of a live directory whose metadata file is lost: the id in the preamble of
/// the lowest-numbered segment that has one, or zero if that segment has none (a legacy
/// recording); unfinished and unreadable segments say nothing. A directory whose segments say
/// nothing holds no frame: it gets a fresh id.
fn adopted_id(starts: &[SegmentStart]) -> [u8; 16] {
    starts
        .iter()
        .find_map(|s| match s {
            SegmentStart::Preamble(id) => Some(*id),
            SegmentStart::Legacy => Some([0; 16]),
            SegmentStart::Unfinished | SegmentStart::Unreadable(_) => None,
        })
        .unwrap_or_else(Header::new_recording_id)
}

/// Recovery for a caller that already holds the writer lock, for readers with `limits`.
pub(crate) fn recover_locked(
    live: &LiveDir,
    limits: &Limits,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Recovered> {
    let mut report = RecoverReport::default();
    let old = live
        .open_meta()
        .and_then(|s| read_prefix(s.as_ref(), limits));
    let fence = live.fence()?;
    let (mut header, metadata, old_index) = match old {
        Ok(parts) => parts,
        // Not a metadata file to rebuild but something else under its name (a symbolic link
        // out of the directory): left as it is, and recovery stops.
        Err(e) if is_refused_member(&e) => return Err(e),
        Err(_) => {
            report.metadata_rebuilt = true;
            (Header::default(), Metadata::default(), Vec::new())
        }
    };
    report.chunks_indexed_before = old_index.len();
    let segments = live.segments()?;
    report.segments = segments.len();
    let starts = segments
        .iter()
        .map(|&n| live.segment_start(n))
        .collect::<Result<Vec<_>>>()?;
    if report.metadata_rebuilt {
        header.recording_id = adopted_id(&starts);
    }
    let total: u64 = segments
        .iter()
        .filter_map(|n| live.segment_len(*n).ok())
        .sum();
    let mut done = 0u64;
    let mut index: Vec<IndexEntry> = Vec::new();
    for (&n, start) in segments.iter().zip(&starts) {
        if let Err(reason) = start.check(&header.recording_id) {
            // Another recording's (or unreadable): not scanned, not cut, not indexed.
            report.segments_refused.push(RefusedSegment {
                number: n,
                path: live.path().join(segment_name(n)),
                reason,
            });
            done += live.segment_len(n).unwrap_or(0);
            progress(done, total);
            continue;
        }
        // Read in pieces: memory is bounded by the limits, not by the segment's length.
        let scan = scan_segment_in(
            live.open_segment_source(n)?.as_ref(),
            limits.max_chunk_bytes,
        )?;
        report.bytes_skipped += scan.skipped.iter().map(|(a, b)| b - a).sum::<u64>();
        if scan.valid_end < scan.file_len {
            report.bytes_truncated += scan.file_len - scan.valid_end;
            live.truncate_segment(n, scan.valid_end)?;
        }
        for fr in scan.frames {
            let h = fr.header;
            let entry = IndexEntry {
                start_tick: h.start_tick,
                tick_count: h.tick_count,
                flags: h.flags,
                offset: (u64::from(n) << 32) | fr.offset,
                compressed_len: h.compressed_len,
                uncompressed_len: h.uncompressed_len,
            };
            let max = limits.max_chunk_bytes;
            if h.compressed_len as usize > max
                || h.uncompressed_len as usize > max
                || check_expansion(h.compressed_len, h.uncompressed_len, h.start_tick).is_err()
            {
                // A reader refuses a recording that indexes such a chunk: the rest stays readable.
                report.chunks_oversized += 1;
                continue;
            }
            if index
                .last()
                .is_some_and(|p| u64::from(entry.start_tick) < p.end_tick())
            {
                report.chunks_dropped += 1;
                continue;
            }
            index.push(entry);
        }
        done += scan.file_len;
        progress(done, total);
    }
    report.chunks_kept = index.len();
    report.chunks_recovered = index.iter().filter(|e| !old_index.contains(e)).count();
    report.first_tick = index.first().map(|e| e.start_tick);
    report.last_tick = index.last().map(|e| (e.end_tick() - 1) as u32);
    let bytes = encode_meta_file(header.clone(), &metadata, &index)?;
    live.write_meta(&bytes, Some(&fence))?;
    let header = Header::decode(&bytes)?;
    Ok(Recovered {
        report,
        header,
        metadata,
        index,
        segments,
    })
}
