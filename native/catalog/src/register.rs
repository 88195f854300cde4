//! Registering recordings and runs. A run's time and splits come from the recording itself: the
//! run is loaded as a ghost (the core's loader), so its tick range and checkpoint markers are
//! exactly those a ghost of it shows. Only a compacted, finished file registers: a live
//! directory (a recording that never finished) or a failed `finish` is refused, and nothing of it
//! is stored. A recording registers from a path on this machine or from its object URL
//! ([`Catalog::register_at`]; after an upload: [`Catalog::register_uploaded`]), read from that
//! location so that a row never points at what is not there.

use std::path::Path;
use std::sync::Arc;

use tickreel::ghost::{GhostRange, GhostTrack};
use tickreel::play::Reader;
use tickreel::{Error, Result};

use crate::backend::{Conn, Value};
use crate::bests::{offer_best, recompute_best};
use crate::checks::{CourseLimits, Hold, check_track, sha256_of, store_holds};
use crate::location::{self, Opened};
use crate::model::{CatalogRecording, Registered, Run, RunSpec};
use crate::query::{RUN_COLUMNS, run_from};
use crate::{Catalog, now_ms};

/// A run measured in its recording, ready to store.
struct Measured {
    spec: RunSpec,
    start_tick: u32,
    end_tick: u32,
    splits: Vec<tickreel::ghost::Split>,
    achieved_ms: i64,
    /// Why the run is held (none: it may go on the board).
    holds: Vec<Hold>,
}

impl Catalog {
    /// Registers the finished recording at `file` and its `runs`. Registering the same file
    /// again adds runs to it. Fails, storing nothing, when the file is not a finished recording
    /// or a run's entity or range is not in it.
    pub fn register(&self, file: impl AsRef<Path>, runs: &[RunSpec]) -> Result<Registered> {
        self.register_opened(&location::open_path(file.as_ref())?, runs)
    }

    /// Registers the finished recording at `location` and its `runs`, as [`Catalog::register`]:
    /// `location` is a path on this machine or an object URL (`s3://bucket/key`, with the
    /// feature `object`; read with the `AWS_*` variables, see
    /// [`register_at_with`](Catalog::register_at_with)), checked by [`Location::parse`]. The
    /// recording is read from the location itself (its header, metadata, index and the runs'
    /// ticks), so the row is only stored when what it points at is there and finished: register
    /// an uploaded recording after its upload succeeded ([`Catalog::register_uploaded`]).
    pub fn register_at(&self, location: &str, runs: &[RunSpec]) -> Result<Registered> {
        #[cfg(feature = "object")]
        let opened = location::open(location, None)?;
        #[cfg(not(feature = "object"))]
        let opened = location::open(location)?;
        self.register_opened(&opened, runs)
    }

    /// [`Catalog::register_at`], reading an object URL with the object storage's `options`
    /// (endpoint, credentials).
    #[cfg(feature = "object")]
    pub fn register_at_with(
        &self,
        location: &str,
        runs: &[RunSpec],
        options: &tickreel_object::ObjectOptions,
    ) -> Result<Registered> {
        self.register_opened(&location::open(location, Some(options))?, runs)
    }

    /// Waits for an upload (the [`tickreel::Pending`] of
    /// [`ObjectStorage::upload_when_finished`](tickreel_object::ObjectStorage::upload_when_finished))
    /// and registers the uploaded object, read back through `storage`, with its `runs`: a failed
    /// finish or upload registers nothing (its error is returned), so the catalog never points
    /// at an object that is not in the bucket.
    #[cfg(feature = "object")]
    pub fn register_uploaded(
        &self,
        upload: tickreel::Pending<tickreel_object::Uploaded>,
        storage: &tickreel_object::ObjectStorage,
        runs: &[RunSpec],
    ) -> Result<Registered> {
        let uploaded = upload.wait()?;
        self.register_at_with(&uploaded.report.url.to_string(), runs, storage.options())
    }

    /// Registers an opened recording and its runs.
    pub(crate) fn register_opened(&self, opened: &Opened, runs: &[RunSpec]) -> Result<Registered> {
        let reader = &opened.reader;
        let recording = describe(reader, opened.location.clone(), opened.size);
        // what the run rows keep of the file, for a check to find it swapped
        let sha256 = if runs.is_empty() {
            None
        } else {
            Some(sha256_of(opened.source.as_ref())?)
        };
        let gaps = &reader.metadata().library.gaps;
        let mut limits: Vec<(String, CourseLimits)> = Vec::new();
        let mut measured = Vec::with_capacity(runs.len());
        // each (entity, range) is loaded once, however many runs name it
        let mut seen: Vec<((u32, GhostRange), Span)> = Vec::new();
        for spec in runs {
            let key = (spec.entity, spec.range);
            let span = match seen.iter().find(|(k, _)| *k == key) {
                Some((_, span)) => span.clone(),
                None => {
                    let span = measure(reader, spec)?;
                    seen.push((key, span.clone()));
                    span
                }
            };
            let course = match limits.iter().find(|(c, _)| *c == spec.course) {
                Some((_, l)) => l.clone(),
                None => {
                    let l = self.course_limits(&spec.course)?;
                    limits.push((spec.course.clone(), l.clone()));
                    l
                }
            };
            let holds = check_track(&span.track, gaps, &course);
            measured.push(Measured::new(spec, span, &recording, holds));
        }
        let now = now_ms();
        self.tx(|c| store(c, &recording, &measured, now, sha256.as_deref()))
    }

    /// Waits for a recording's `finish` (the [`tickreel::Pending`] `Recorder::finish` returned)
    /// and registers it: a recording whose finish failed is not registered (the error is
    /// returned).
    pub fn register_finished(
        &self,
        finished: tickreel::Pending<std::path::PathBuf>,
        runs: &[RunSpec],
    ) -> Result<Registered> {
        let path = finished.wait()?;
        self.register(path, runs)
    }

    /// Marks a run valid or invalid (anticheat, an operator's decision); the player's best on the
    /// board is recomputed.
    pub fn set_run_valid(&self, run_id: i64, valid: bool) -> Result<()> {
        self.tx(|c| {
            let rows = c.query(
                "SELECT course, player FROM runs WHERE id = $1",
                &[run_id.into()],
            )?;
            let Some(row) = rows.first() else {
                return Err(Error::invalid(format!("no run {run_id} in the catalog")));
            };
            let (course, player) = (row.text(0)?, row.text(1)?);
            c.execute(
                "UPDATE runs SET valid = $1 WHERE id = $2",
                &[i64::from(valid).into(), run_id.into()],
            )?;
            recompute_best(c, &course, &player)
        })
    }
}

/// What the catalog stores about a recording (its id is filled in by [`store`]).
fn describe(reader: &Reader, location: String, size: u64) -> CatalogRecording {
    let h = reader.header();
    let lib = &reader.metadata().library;
    let uuid_of = |b: [u8; 16]| (b != [0; 16]).then(|| uuid::Uuid::from_bytes(b));
    CatalogRecording {
        id: 0,
        location,
        recording_uuid: reader.recording_id(),
        world: uuid_of(h.world_id),
        world_version: uuid_of(h.world_version),
        server: lib.server.clone(),
        started_ms: h.timestamp_ms,
        first_tick: reader.first_tick().unwrap_or(0),
        last_tick: reader.last_tick().unwrap_or(0),
        tick_rate: reader.tick_rate(),
        size_bytes: size,
        entity_count: entity_count(lib),
        summary: format!(
            "{} ticks, {} chunks, {} events, {} dropped ticks",
            h.tick_count, h.chunk_count, lib.stats.events, lib.stats.dropped_ticks
        ),
        registered_ms: 0,
    }
}

/// The number of entities: from compaction's analysis (its per-entity list, or the count it
/// keeps when the list was left out), else the metadata's entity table.
fn entity_count(lib: &tickreel::format::LibraryMeta) -> u32 {
    use fastnbt::Value as Nbt;
    if let Some(Nbt::Compound(a)) = &lib.analysis {
        match (a.get("entities"), a.get("entities_omitted")) {
            (Some(Nbt::List(list)), _) => return list.len() as u32,
            (_, Some(Nbt::Int(n))) => return *n as u32,
            _ => {}
        }
    }
    lib.entities.len() as u32
}

/// Where a run lies in its recording, and its splits.
#[derive(Debug, Clone)]
struct Span {
    start_tick: u32,
    end_tick: u32,
    splits: Vec<tickreel::ghost::Split>,
    /// The run as its ghost loads (the checks read it).
    track: Arc<GhostTrack>,
}

/// Loads the run as a ghost: its tick range and checkpoint markers.
fn measure(reader: &Reader, spec: &RunSpec) -> Result<Span> {
    if spec.course.is_empty() {
        return Err(Error::invalid("a run needs a course"));
    }
    let track = GhostTrack::load(reader, spec.entity, spec.range).map_err(|e| {
        e.with_context(&format!(
            " (run of {} on {})",
            spec.player_name, spec.course
        ))
    })?;
    let start_tick = track.origin_tick();
    Ok(Span {
        start_tick,
        end_tick: start_tick + track.duration_ticks(),
        splits: track.splits().to_vec(),
        track: Arc::new(track),
    })
}

impl Measured {
    fn new(spec: &RunSpec, span: Span, rec: &CatalogRecording, holds: Vec<Hold>) -> Measured {
        let achieved_ms = spec.achieved_ms.unwrap_or_else(|| {
            let offset = f64::from(span.end_tick.saturating_sub(rec.first_tick)) / rec.tick_rate;
            rec.started_ms + (offset * 1000.0).round() as i64
        });
        Measured {
            spec: spec.clone(),
            start_tick: span.start_tick,
            end_tick: span.end_tick,
            splits: span.splits,
            achieved_ms,
            holds,
        }
    }
}

fn store(
    c: &mut dyn Conn,
    rec: &CatalogRecording,
    runs: &[Measured],
    now: i64,
    sha256: Option<&str>,
) -> Result<Registered> {
    let inserted = c.query(
        "INSERT INTO recordings (location, recording_uuid, world, started_ms, first_tick,
             last_tick, tick_rate, size_bytes, entity_count, summary, registered_ms,
             world_version, server)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
         ON CONFLICT (location) DO NOTHING RETURNING id",
        &[
            rec.location.as_str().into(),
            rec.recording_uuid.map(|u| u.to_string()).into(),
            rec.world.map(|u| u.to_string()).into(),
            rec.started_ms.into(),
            rec.first_tick.into(),
            rec.last_tick.into(),
            rec.tick_rate.into(),
            (rec.size_bytes as i64).into(),
            rec.entity_count.into(),
            rec.summary.as_str().into(),
            now.into(),
            rec.world_version.map(|u| u.to_string()).into(),
            rec.server.clone().into(),
        ],
    )?;
    let recording_id = match inserted.first() {
        Some(row) => row.int(0)?,
        None => {
            let row = c.one(
                "SELECT id, deleting_ms FROM recordings WHERE location = $1",
                &[rec.location.as_str().into()],
            )?;
            if row.opt_int(1)?.is_some() {
                return Err(Error::InvalidState(format!(
                    "{} is being pruned from the catalog",
                    rec.location
                )));
            }
            row.int(0)?
        }
    };
    // Boards in a fixed order, so that two writers never wait on each other's rows in a cycle.
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by(|&a, &b| {
        (&runs[a].spec.course, runs[a].spec.player)
            .cmp(&(&runs[b].spec.course, runs[b].spec.player))
    });
    let mut stored: Vec<Option<Run>> = vec![None; runs.len()];
    for i in order {
        stored[i] = Some(store_run(c, recording_id, rec, &runs[i], sha256)?);
    }
    Ok(Registered {
        recording_id,
        runs: stored.into_iter().flatten().collect(),
    })
}

fn store_run(
    c: &mut dyn Conn,
    recording_id: i64,
    rec: &CatalogRecording,
    m: &Measured,
    sha256: Option<&str>,
) -> Result<Run> {
    let s = &m.spec;
    let player = s.player.to_string();
    let ticks = m.end_tick - m.start_tick;
    let tick_rate = rec.tick_rate;
    let mut row = c.one(
        &format!(
            "INSERT INTO runs (recording_id, course, player, player_name, entity, start_tick,
                 end_tick, ticks, tick_rate, achieved_ms, valid, flags, server, world,
                 world_version, held, recording_sha256)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                 $17)
             RETURNING {RUN_COLUMNS}"
        ),
        &[
            recording_id.into(),
            s.course.as_str().into(),
            player.as_str().into(),
            s.player_name.as_str().into(),
            s.entity.into(),
            m.start_tick.into(),
            m.end_tick.into(),
            ticks.into(),
            tick_rate.into(),
            m.achieved_ms.into(),
            i64::from(s.valid).into(),
            (s.flags as i64).into(),
            rec.server.clone().into(),
            rec.world.map(|u| u.to_string()).into(),
            rec.world_version.map(|u| u.to_string()).into(),
            i64::from(!m.holds.is_empty()).into(),
            sha256.map(str::to_owned).into(),
        ],
    )?;
    row.0.push(Value::Text(rec.location.clone()));
    let run = run_from(&row, 0)?;
    for (seq, split) in m.splits.iter().enumerate() {
        c.execute(
            "INSERT INTO splits (run_id, seq, checkpoint, tick) VALUES ($1, $2, $3, $4)",
            &[
                run.id.into(),
                (seq as i64).into(),
                split.checkpoint.into(),
                split.tick.into(),
            ],
        )?;
    }
    store_holds(c, run.id, &m.holds)?;
    if s.valid && !run.held {
        offer_best(c, &run)?;
    }
    Ok(run)
}
