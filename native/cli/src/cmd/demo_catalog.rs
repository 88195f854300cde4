//! The demo's catalog stage: the runner's run is registered in an SQLite catalog next to the
//! recording (`OUT/catalog.sqlite`, replaced on each demo), read back as the course's best, and its
//! ghost loaded through the catalog, which must give the same run the race used.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tickreel::play::Reader;
use tickreel::{Error, Result};
use tickreel_catalog::{Catalog, RunSpec};
use uuid::Uuid;

/// The course the demo's runner is registered on.
pub const COURSE: &str = "demo-course";

/// What the catalog stage measured.
#[derive(Debug, Clone)]
pub struct CatalogStage {
    pub db: PathBuf,
    /// `register` of the finished recording: the run's time and splits read from the file.
    pub register_time: Duration,
    /// The course's best as the board shows it.
    pub best_ticks: u32,
    pub best_shown: String,
    pub splits: usize,
    /// From `load_ghost(COURSE, 1)` to the loaded track.
    pub ghost_time: Duration,
}

/// Registers `entity`'s run of the recording at `reel` (open in `reader`) and checks the catalog's best
/// against `race_ticks` (the run the demo's race loaded straight from the file).
pub fn run(
    out_dir: &Path,
    reel: &Path,
    reader: &Reader,
    entity: u32,
    race_ticks: u32,
) -> Result<CatalogStage> {
    let db = out_dir.join("catalog.sqlite");
    // The demo's own output: a new catalog each run, so the board holds this recording only.
    for suffix in ["", "-wal", "-shm"] {
        let p = PathBuf::from(format!("{}{suffix}", db.display()));
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(super::io_at(&p, e)),
        }
    }
    let catalog = Catalog::open(&format!("sqlite:{}", db.display()))?;
    let (player, name) = identity(reader, entity);
    let started = Instant::now();
    catalog.register(reel, &[RunSpec::new(COURSE, player, &name, entity)])?;
    let register_time = started.elapsed();
    let best = catalog
        .at_rank(COURSE, 1)?
        .ok_or_else(|| Error::invalid(format!("the board of {COURSE} is empty after register")))?;
    let splits = catalog.splits(best.run.id)?.len();
    let started = Instant::now();
    let track = catalog.load_ghost(COURSE, 1u64)?.load.wait()?;
    let ghost_time = started.elapsed();
    if best.run.ticks != race_ticks || track.duration_ticks() != race_ticks {
        return Err(Error::invalid(format!(
            "the catalog's best ({} ticks, ghost {} ticks) is not the raced run ({race_ticks} ticks)",
            best.run.ticks,
            track.duration_ticks()
        )));
    }
    Ok(CatalogStage {
        db,
        register_time,
        best_ticks: best.run.ticks,
        best_shown: best.run.shown(),
        splits,
        ghost_time,
    })
}

/// The player's UUID and name as the recording registered them (a UUID derived from the entity
/// id when the recording has none).
fn identity(reader: &Reader, entity: u32) -> (Uuid, String) {
    let info = reader
        .metadata()
        .library
        .entities
        .iter()
        .find(|e| e.id == entity);
    let uuid = info
        .and_then(|e| e.uuid)
        .unwrap_or_else(|| Uuid::from_u128(u128::from(entity)));
    let name = info
        .and_then(|e| e.name.clone())
        .unwrap_or_else(|| format!("player{entity}"));
    (uuid, name)
}
