//! Compaction: a recording (live directory, or frames held in memory) -> one `.reel` file, streaming
//! chunk by chunk (never the whole recording in memory), re-chunked and recompressed at a higher
//! zstd level, with analysis metadata appended, written to a temporary file that is verified by
//! reading it back and only then published at the final path.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use fastnbt::Value;

use crate::error::{Error, Result};
use crate::format::event::Event;
use crate::format::pose::Pose;
use crate::format::state::EntityState;
use crate::play::Reader;
use crate::record::chunker::ChunkPolicy;
use crate::record::reel_writer::{RecordingInfo, ReelOptions, ReelWriter, UnpublishedReel};
use crate::storage::live::{is_locked, live_dir_for};

/// How compaction writes the final file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactOptions {
    pub zstd_level: i32,
    /// Chunk span of the compacted file.
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

impl Default for CompactOptions {
    fn default() -> Self {
        CompactOptions {
            zstd_level: 9,
            chunk_ticks: 100,
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
}

/// Per-entity figures gathered while compacting (see FORMAT.md, section 4, `analysis`).
#[derive(Debug, Clone)]
struct EntityAnalysis {
    /// Ticks of closed presence intervals counted so far.
    ticks: u64,
    /// The tick since which the entity is present (in the entity table), if it is.
    since: Option<u32>,
    distance: f64,
    min: [f64; 3],
    max: [f64; 3],
    /// Where the next move is measured from: `None` after a removal.
    from: Option<[f64; 3]>,
}

impl EntityAnalysis {
    fn new(p: [f64; 3]) -> EntityAnalysis {
        EntityAnalysis {
            ticks: 0,
            since: None,
            distance: 0.0,
            min: p,
            max: p,
            from: None,
        }
    }

    fn extend(&mut self, p: [f64; 3]) {
        for (k, v) in p.iter().enumerate() {
            self.min[k] = self.min[k].min(*v);
            self.max[k] = self.max[k].max(*v);
        }
    }

    /// A pose sample.
    fn sample(&mut self, p: [f64; 3]) {
        self.extend(p);
    }
}

fn position(pose: &Pose) -> [f64; 3] {
    [pose.x_f64(), pose.y_f64(), pose.z_f64()]
}

/// The largest f32 not above `v` (a box's lower corner rounded outwards).
fn f32_at_most(v: f64) -> f32 {
    let f = v as f32;
    if f64::from(f) > v { f.next_down() } else { f }
}

/// The smallest f32 not below `v` (a box's upper corner rounded outwards).
fn f32_at_least(v: f64) -> f32 {
    let f = v as f32;
    if f64::from(f) < v { f.next_up() } else { f }
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// The analysis metadata, computed from the straight decode of the source (`DecodedChunk::ticks`,
/// which skips empty ticks: presence is therefore counted from tick spans, not from the ticks the
/// decode yields).
#[derive(Debug, Default)]
struct Analysis {
    entities: BTreeMap<u32, EntityAnalysis>,
}

impl Analysis {
    fn entity(&mut self, id: u32, p: [f64; 3]) -> &mut EntityAnalysis {
        self.entities
            .entry(id)
            .or_insert_with(|| EntityAnalysis::new(p))
    }

    /// Entities in a chunk's keyframe are present from the chunk's start. Only matters when the
    /// source does not start with an empty table (else they were all seen appearing).
    fn keyframe(&mut self, start: u32, states: &[EntityState]) {
        for s in states {
            let p = position(&s.pose);
            let a = self.entity(s.id, p);
            if a.since.is_none() {
                a.since = Some(start);
                a.from = Some(p);
                a.extend(p);
            }
        }
    }

    /// One event of the straight decode at `tick`. There, every pose sample is carried by exactly
    /// one `Pose`, `EntityAdd` or `Teleport` event of its tick (both of the last two if one tick
    /// has both), and `Position`/`Rotation` never appear.
    fn event(&mut self, tick: u32, e: &Event) {
        match *e {
            Event::EntityAdd {
                entity, ref pose, ..
            }
            | Event::Teleport { entity, ref pose } => {
                // An appearance (or a replacement, or a jump) starts a new path: no distance.
                let p = position(pose);
                let a = self.entity(entity, p);
                a.since.get_or_insert(tick);
                a.sample(p);
                a.from = Some(p);
            }
            Event::Pose { entity, ref pose } => {
                let p = position(pose);
                let a = self.entity(entity, p);
                a.since.get_or_insert(tick);
                a.sample(p);
                if let Some(f) = a.from {
                    a.distance += dist(f, p);
                }
                a.from = Some(p);
            }
            Event::EntityRemove { entity } | Event::PlayerLeave { entity } => {
                if let Some(a) = self.entities.get_mut(&entity)
                    && let Some(since) = a.since.take()
                {
                    // Present after ticks since..tick-1; gone after this one.
                    a.ticks += u64::from(tick - since);
                    a.from = None;
                }
            }
            _ => {}
        }
    }

    /// Closes the presence of every entity still there at the recording's last tick.
    fn finish(&mut self, last: u32) {
        for a in self.entities.values_mut() {
            if let Some(since) = a.since.take() {
                a.ticks += u64::from(last - since) + 1;
            }
        }
    }

    /// The analysis as NBT, kept small (it is a quarter of a 3-second run's file): Floats, with
    /// boxes rounded outwards so that they still hold every position, and of the totals only the
    /// distance (the span is in the header, the entity count is the list's length, the overall box
    /// is the union of the entities' boxes).
    fn to_nbt(&self) -> Value {
        // Counts are Ints holding u32 bit patterns (as ids and ticks elsewhere in the metadata).
        let count = |v: u64| Value::Int(v.min(u64::from(u32::MAX)) as u32 as i32);
        let bbox = |min: &[f64; 3], max: &[f64; 3]| {
            let lo = min.iter().map(|v| Value::Float(f32_at_most(*v)));
            let hi = max.iter().map(|v| Value::Float(f32_at_least(*v)));
            Value::List(lo.chain(hi).collect())
        };
        let mut total = 0.0;
        let list = self
            .entities
            .iter()
            .map(|(id, a)| {
                total += a.distance;
                let mut c = HashMap::new();
                c.insert("id".into(), Value::Int(*id as i32));
                c.insert("ticks".into(), count(a.ticks));
                c.insert("distance".into(), Value::Float(a.distance as f32));
                c.insert("bbox".into(), bbox(&a.min, &a.max));
                Value::Compound(c)
            })
            .collect();
        let mut root = HashMap::new();
        root.insert("entities".into(), Value::List(list));
        root.insert("distance".into(), Value::Float(total as f32));
        Value::Compound(root)
    }
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
    let exists = || {
        Error::InvalidState(format!(
            "{} already exists; compaction does not replace it unless the overwrite option is set",
            out.display()
        ))
    };
    // Fails early; the publication itself is what guarantees that nothing is replaced.
    if !options.overwrite && out.symlink_metadata().is_ok() {
        return Err(exists());
    }
    let (report, file) = compact_unpublished(source, out, options, progress)?;
    match file.publish_at(out, options.overwrite) {
        Ok(_) => Ok(report),
        Err(e) if e.is_conflict() => Err(exists()),
        Err(e) => Err(e.error),
    }
}

/// [`compact`] up to, not including, publication: the checked file, still under its temporary
/// name next to `out`.
pub(crate) fn compact_unpublished(
    source: &Reader,
    out: &Path,
    options: CompactOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(CompactReport, UnpublishedReel)> {
    let h = source.header();
    let info = RecordingInfo {
        world_id: h.world_id,
        world_version: h.world_version,
        timestamp_ms: h.timestamp_ms,
        tick_rate_millihz: h.tick_rate_millihz,
        game_data_version: h.game_data_version,
        dictionary_id: options.dictionary_id.unwrap_or(h.dictionary_id),
    };
    let mut w = ReelWriter::create(
        out,
        ReelOptions {
            info,
            policy: ChunkPolicy {
                chunk_ticks: options.chunk_ticks,
                // Snapshots are carried over exactly where the source has them.
                snapshot_interval: u32::MAX,
                zstd_level: options.zstd_level,
                ..ChunkPolicy::default()
            },
        },
    )?;
    let meta = source.metadata();
    *w.user_metadata_mut() = meta.user.clone();
    for e in &meta.library.entities {
        w.register_entity(e.clone());
    }
    for t in &meta.library.event_types {
        w.register_event_type(t.clone());
    }
    w.set_gaps(meta.library.gaps.clone(), meta.library.stats.dropped_ticks);
    let mut analysis = Analysis::default();
    let mut report = CompactReport {
        chunks_in: source.index().len(),
        ..CompactReport::default()
    };
    let total = source.index().len() as u64;
    let (mut src_samples, mut src_events) = (0u64, 0u64);
    for (i, entry) in source.index().iter().enumerate() {
        let chunk = source.read_chunk(i)?;
        report.bytes_in += u64::from(entry.compressed_len) + 36;
        src_samples += chunk
            .tracks
            .iter()
            .map(|t| t.ticks.len() as u64)
            .sum::<u64>();
        src_events += chunk
            .records
            .iter()
            .map(|r| r.events.len() as u64)
            .sum::<u64>();
        if let Some(s) = &chunk.snapshot {
            w.offer_snapshot(s.clone());
        }
        analysis.keyframe(chunk.start_tick, &chunk.keyframe);
        let ticks = chunk.ticks();
        // Empty ticks carry nothing, but a chunk's first and last tick bound the recording's span:
        // keep them, so that the compacted file covers exactly the ticks the source covers.
        let last = (chunk.end_tick() - 1) as u32;
        if ticks.first().is_none_or(|t| t.tick > chunk.start_tick) {
            w.write_tick(chunk.start_tick, &[])?;
        }
        let tail = ticks.last().is_none_or(|t| t.tick < last) && last > chunk.start_tick;
        for t in ticks {
            for e in &t.events {
                analysis.event(t.tick, e);
            }
            w.write_tick(t.tick, &t.events)?;
            report.ticks += 1;
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
        let back = Reader::open_path(file.temp_path())?;
        let v = back.verify()?;
        if (back.first_tick(), back.last_tick()) != (first, last) {
            return Err(Error::corrupt(format!(
                "compacted file covers {:?}..{:?}, source {first:?}..{last:?}",
                back.first_tick(),
                back.last_tick()
            )));
        }
        if v.pose_samples != src_samples || v.events != src_events {
            return Err(Error::corrupt(format!(
                "compacted file has {} pose samples and {} events; the source has {src_samples} and {src_events}",
                v.pose_samples, v.events
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
    let live = live_dir_for(out);
    let why = match is_locked(&live) {
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
            live.display()
        ),
        Err(e) => format!(
            "{} may be being recorded by another writer (its live directory {} exists, and its lock \
             could not be checked: {e})",
            out.display(),
            live.display()
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

#[cfg(test)]
mod rounding_tests {
    use super::{f32_at_least, f32_at_most};

    #[test]
    fn boxes_round_outwards_where_f32_cannot_hold_a_position() {
        // 5000 + 1/4096 block: between two f32 values (their step at 5000 is 1/2048).
        let v = 5000.0 + 1.0 / 4096.0;
        let (lo, hi) = (f32_at_most(v), f32_at_least(v));
        assert!(f64::from(lo) < v && f64::from(hi) > v);
        assert_eq!(lo.next_up(), hi);
        // Values an f32 holds stay exact; negative values round away from the box too.
        assert_eq!((f32_at_most(64.5), f32_at_least(64.5)), (64.5, 64.5));
        assert!(f64::from(f32_at_most(-v)) < -v && f64::from(f32_at_least(-v)) > -v);
    }
}
