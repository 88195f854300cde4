//! The demo's catalog stage: every run the runners finished on the course
//! ([`super::demo_course`]) is registered as a run in an SQLite catalog next to the recording
//! (`OUT/catalog.sqlite`, replaced on each demo), with its splits from its checkpoint events; the
//! board (one row per player, their best) must be the one the session produced; the best run's
//! ghost is loaded through the catalog (`load_ghost(course, 1)`) and raced twice: by a live run
//! that is its own path some ticks later (every reading must be exactly that), and by the
//! runner-up's best run (the finish split must be the difference of their times).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tickreel::ghost::{GhostCursor, GhostRange, GhostTrack, LiveDelta, LiveSplits, SignedSeconds};
use tickreel::{Error, Result};
use tickreel_catalog::{Catalog, RunSpec};

use super::demo_course::{self, Run};

/// The course the demo's runners run.
pub const COURSE: &str = "demo-course";
/// Rows of the board printed.
pub const TOP: usize = 5;
/// How far the live racer trails the ghost, in ticks.
pub const RACE_TRAIL_TICKS: u32 = 10;

/// What the catalog stage measured.
#[derive(Debug, Clone)]
pub struct CatalogStage {
    pub db: PathBuf,
    /// Runs registered (every finished run).
    pub runs: usize,
    /// One `register` call for all of them: times and splits read from the file.
    pub register_time: Duration,
    /// The top of the board: (rank, name, shown time, ticks).
    pub board: Vec<(u64, String, String, u32)>,
    pub splits: usize,
    /// From `load_ghost(COURSE, 1)` to the loaded track.
    pub ghost_time: Duration,
    /// The best run's ghost raced by its own path, trailing.
    pub race: Race,
    /// The runner-up's best run against the best ghost.
    pub runner_up: Option<RunnerUp>,
}

/// The runner-up's best run raced against the best ghost.
#[derive(Debug, Clone)]
pub struct RunnerUp {
    pub name: String,
    /// The delta at the finish, in seconds.
    pub finish: f64,
    /// (checkpoint, delta seconds).
    pub splits: Vec<(u32, f64)>,
}

/// What a ghost race measured.
#[derive(Debug, Clone, Default)]
pub struct Race {
    pub name: String,
    pub run_ticks: u32,
    pub samples: u64,
    pub sample_time: Duration,
    /// Largest distance between the ghost and the recorded pose at recorded ticks (blocks).
    pub max_error_at_recorded_ticks: f64,
    /// Live delta readings (live ticks, seconds) at a few moments.
    pub deltas: Vec<(u32, f64)>,
    /// Split comparisons (checkpoint, seconds).
    pub splits: Vec<(u32, f64)>,
}

/// Registers the finished `runs` in the recording `reel`, checks the board against
/// them, loads the best ghost through the catalog and races it. `None` when no run finished.
pub fn run(out_dir: &Path, reel: &Path, runs: &[Run]) -> Result<Option<CatalogStage>> {
    let db = out_dir.join("catalog.sqlite");
    // The demo's own output: a new catalog each run, so the board holds this recording only.
    for suffix in ["", "-wal", "-shm"] {
        let p = PathBuf::from(format!("{}{suffix}", db.display()));
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(super::io_at(&p, e)),
        }
    }
    let want = demo_course::board(runs);
    if want.is_empty() {
        return Ok(None);
    }
    let catalog = Catalog::open(&format!("sqlite:{}", db.display()))?;
    let specs: Vec<RunSpec> = runs.iter().map(spec).collect();
    let started = Instant::now();
    catalog.register(reel, &specs)?;
    let register_time = started.elapsed();
    let top = catalog.top(COURSE, want.len() as u64)?;
    let got: Vec<(String, u32)> = top
        .iter()
        .map(|p| (p.run.player_name.clone(), p.run.ticks))
        .collect();
    let expected: Vec<(String, u32)> = want
        .iter()
        .map(|a| (demo_course::RUNNERS[a.runner].to_string(), a.ticks()))
        .collect();
    if got != expected {
        return Err(Error::invalid(format!(
            "the catalog's board {got:?} is not the session's {expected:?}"
        )));
    }
    let best = &top[0];
    let splits = catalog.splits(best.run.id)?.len();
    let started = Instant::now();
    let ghost = Arc::new(catalog.load_ghost(COURSE, 1u64)?.load.wait()?);
    let ghost_time = started.elapsed();
    if ghost.duration_ticks() != best.run.ticks {
        return Err(Error::invalid(format!(
            "the best ghost lasts {} ticks, the best run {}",
            ghost.duration_ticks(),
            best.run.ticks
        )));
    }
    let mut race = trail_race(&ghost, RACE_TRAIL_TICKS);
    race.name = best.run.player_name.clone();
    let runner_up = match top.get(1) {
        Some(second) => {
            let track = Arc::new(catalog.load_ghost(COURSE, 2u64)?.load.wait()?);
            let (finish, splits) = head_to_head(&track, &ghost);
            let diff = f64::from(second.run.ticks) - f64::from(best.run.ticks);
            if (finish - diff / ghost.tick_rate()).abs() > 1e-9 {
                return Err(Error::invalid(format!(
                    "{} finished {finish} s after the ghost, their times differ by {diff} ticks",
                    second.run.player_name
                )));
            }
            Some(RunnerUp {
                name: second.run.player_name.clone(),
                finish,
                splits,
            })
        }
        None => None,
    };
    Ok(Some(CatalogStage {
        db,
        runs: specs.len(),
        register_time,
        board: top
            .iter()
            .take(TOP)
            .map(|p| {
                (
                    p.rank,
                    p.run.player_name.clone(),
                    p.run.shown(),
                    p.run.ticks,
                )
            })
            .collect(),
        splits,
        ghost_time,
        race,
        runner_up,
    }))
}

/// The run of a finished run: its exact ticks, checkpoint 0 to the finish.
fn spec(a: &Run) -> RunSpec {
    let (uuid, name) = demo_course::identity(a.runner);
    RunSpec::new(COURSE, uuid, &name, a.entity).range(GhostRange::ticks(a.start, a.finish))
}

/// Samples the ghost at 60 Hz over the whole run, and races it against a live run that is the
/// same path `trail` ticks later: the live delta and every split must read `+trail` ticks.
pub fn trail_race(track: &Arc<GhostTrack>, trail: u32) -> Race {
    let run_ticks = track.duration_ticks();
    let mut cursor = GhostCursor::new(track.clone());
    let step = track.tick_rate() / 60.0;
    let n = (f64::from(run_ticks) / step) as u64;
    let started = Instant::now();
    let mut sink = 0.0;
    for i in 0..=n {
        sink += cursor.sample(i as f64 * step).x;
    }
    let sample_time = started.elapsed();
    std::hint::black_box(sink);
    let mut max_err: f64 = 0.0;
    for i in 0..track.len() {
        let s = cursor.sample(f64::from(track.tick(i)));
        let p = track.pose(i);
        let d = ((s.x - p[0]).powi(2) + (s.y - p[1]).powi(2) + (s.z - p[2]).powi(2)).sqrt();
        max_err = max_err.max(d);
    }
    let mut delta = LiveDelta::new(track.clone());
    let mut splits = LiveSplits::new(track.clone());
    let mut deltas = Vec::new();
    let mut split_out = Vec::new();
    let marks: Vec<u32> = (1..4).map(|q| run_ticks * q / 4).collect();
    let mut own = GhostCursor::new(track.clone());
    for live_t in trail..=run_ticks + trail {
        let reading = delta.update(
            f64::from(live_t),
            own.sample(f64::from(live_t - trail)).position(),
        );
        if marks.contains(&(live_t - trail)) {
            deltas.push((live_t, reading.seconds()));
        }
        for s in track.splits().iter().filter(|s| s.tick + trail == live_t) {
            if let Some(c) = splits.checkpoint(s.checkpoint, f64::from(live_t)) {
                split_out.push((s.checkpoint, c.delta_seconds));
            }
        }
    }
    Race {
        name: String::new(),
        run_ticks,
        samples: n + 1,
        sample_time,
        max_error_at_recorded_ticks: max_err,
        deltas,
        splits: split_out,
    }
}

/// Races `run` (tick by tick, at its recorded positions) against `ghost`: the delta at its
/// finish and each split, in seconds.
fn head_to_head(run: &Arc<GhostTrack>, ghost: &Arc<GhostTrack>) -> (f64, Vec<(u32, f64)>) {
    let mut splits = LiveSplits::new(ghost.clone());
    let mut out = Vec::new();
    for s in run.splits() {
        if let Some(c) = splits.checkpoint(s.checkpoint, f64::from(s.tick)) {
            out.push((s.checkpoint, c.delta_seconds));
        }
    }
    let finish = out.last().map_or(0.0, |s| s.1);
    (finish, out)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn signed(splits: &[(u32, f64)]) -> String {
    let s: Vec<String> = splits
        .iter()
        .map(|(c, s)| format!("#{c} {}", SignedSeconds::new(*s)))
        .collect();
    s.join(", ")
}

/// The stage's lines of the demo's summary.
pub fn print(c: Option<&CatalogStage>, runs: usize, out: &mut impl Write) -> io::Result<()> {
    let Some(c) = c else {
        return writeln!(
            out,
            "course           no run on {COURSE} finished in this session: nothing to register"
        );
    };
    writeln!(
        out,
        "course           {} runners finished {runs} runs of {COURSE} ({:.0} blocks, checkpoints 0..={}); {} runs registered in sqlite:{} in {:.1} ms",
        demo_course::RUNNERS.len(),
        demo_course::length(),
        demo_course::FINISH,
        c.runs,
        c.db.display(),
        ms(c.register_time)
    )?;
    let rows: Vec<String> = c
        .board
        .iter()
        .map(|(rank, name, shown, ticks)| format!("{rank}. {name} {shown} ({ticks} ticks)"))
        .collect();
    writeln!(out, "board            {}", rows.join(", "))?;
    let g = &c.race;
    writeln!(
        out,
        "ghost            rank 1 ({}, {} splits) loaded through the catalog in {:.2} ms: {} ticks; {} samples at 60 Hz, {:.0} ns each; max {:.5} blocks from the recorded poses at recorded ticks",
        g.name,
        c.splits,
        ms(c.ghost_time),
        g.run_ticks,
        g.samples,
        g.sample_time.as_nanos() as f64 / g.samples.max(1) as f64,
        g.max_error_at_recorded_ticks
    )?;
    let deltas: Vec<String> = g
        .deltas
        .iter()
        .map(|(t, s)| format!("tick {t}: {}", SignedSeconds::new(*s)))
        .collect();
    writeln!(
        out,
        "race             a live run {RACE_TRAIL_TICKS} ticks behind the ghost reads {}",
        deltas.join(", ")
    )?;
    writeln!(out, "splits           {}", signed(&g.splits))?;
    if let Some(RunnerUp {
        name,
        finish,
        splits,
    }) = &c.runner_up
    {
        writeln!(
            out,
            "runner-up        {name}'s best against {}'s ghost: {} at the finish; splits {}",
            g.name,
            SignedSeconds::new(*finish),
            signed(splits)
        )?;
    }
    Ok(())
}
