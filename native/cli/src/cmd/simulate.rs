//! `tickreel simulate`: records a synthetic server through the real pipeline (Engine, Recorder,
//! writer thread, segments, compaction). Prints `flushed TICK` whenever every tick up to TICK is
//! durably on disk, and `finished PATH` after compaction. Deterministic for a seed, and resumable:
//! ticks already in the recording are simulated but not submitted again.
//!
//! The final file is not replaced if it exists, unless `--force` is given.
//!
//! The recording loop is [`record`], which `tickreel demo` also records its session with.
//!
//! With `--runs N`, a race server instead: N one-player runs at once, each its own recording
//! (`runs`). With `--network N`, N servers as separate processes on one catalog and one bucket
//! (`network`).

pub mod network;
mod runs;

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use tickreel::format::encode_batch;
use tickreel::play::Reader;
use tickreel::record::{Backpressure, FlushPolicy, OnExisting, RecorderStats};
use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions, ShadowStats};
use tickreel::{Engine, EngineOptions, Error, Event, Recorder, RecorderOptions};
use tickreel_sim::{SimConfig, Simulator};

use super::Out;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Final `.reel` path (the live directory is `<out>.live`, resumed if it exists). It must not
    /// exist, unless --force.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace the final file at --out if it exists.
    #[arg(long)]
    pub force: bool,
    /// Simulated players online at once.
    #[arg(long, default_value_t = 10)]
    pub players: u32,
    /// Ticks to simulate (from tick 0; ticks already recorded are skipped when resuming).
    #[arg(long, default_value_t = 1200)]
    pub ticks: u32,
    /// Ticks per second to pace at; 0 = as fast as possible.
    #[arg(long, default_value_t = 0.0)]
    pub tps: f64,
    /// Random seed of the simulation.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Chance per player per tick of leaving (a new player joins in its place); 0 = never.
    #[arg(long, default_value_t = 0.0005)]
    pub churn: f64,
    /// Flush at least this often (milliseconds).
    #[arg(long, default_value_t = 5000)]
    pub flush_ms: u64,
    /// Flush once this many compressed bytes wait.
    #[arg(long, default_value_t = 256 * 1024)]
    pub flush_bytes: usize,
    /// Do not flush when a player leaves (by default every tick with a player leave is flushed).
    #[arg(long)]
    pub no_flush_on_leave: bool,
    /// Ticks per chunk at most (a flush also ends the open chunk).
    #[arg(long, default_value_t = 200)]
    pub chunk_ticks: u32,
    /// Leave the recording live (do not compact).
    #[arg(long)]
    pub no_finish: bool,
    /// Shadow the world too (the last 5 minutes in memory) and, after the last tick, report a
    /// player who is online then: the report is written to --report-out and its path printed.
    #[arg(long)]
    pub shadow: bool,
    /// Where --shadow writes the report (default: the --out path with `.report.reel`).
    #[arg(long, requires = "shadow")]
    pub report_out: Option<PathBuf>,
    /// Record N one-player runs at once (a race server: each run starts at a random tick, lasts
    /// 5 to 60 s, ends with its player leaving and is finished; its place then starts another).
    /// --out is then a directory for the runs' files; --players and --churn do not apply.
    #[arg(long, conflicts_with_all = ["shadow", "no_finish"])]
    pub runs: Option<u32>,
    /// Offer terrain before the first tick: the SIDE×SIDE chunk columns (SIDE odd, 1 to 15)
    /// around the origin made by `tickreel_sim::terrain::TerrainGen` with --seed, its block
    /// names registered (a new recording only, not a resumed one).
    #[arg(long, value_name = "SIDE", conflicts_with = "runs")]
    pub terrain: Option<i32>,
    /// Run N game servers as separate processes (2 to 3 make a small network), each recording
    /// --sessions sessions of --ticks ticks with shadow play, uploading each recording and report
    /// to --bucket (the AWS_* variables reach the store) and registering them in --catalog with
    /// their s3:// locations once uploaded; then check the catalog against the bucket and print a
    /// summary. --out is a directory for the servers' local files.
    #[arg(long, value_name = "N", requires_all = ["catalog", "bucket"],
          conflicts_with_all = ["runs", "shadow", "no_finish", "terrain"])]
    pub network: Option<u32>,
    /// --network: the catalog every server registers in (`postgres://...`, or `sqlite:PATH`).
    #[arg(long, requires = "network")]
    pub catalog: Option<String>,
    /// --network: the bucket every server uploads to.
    #[arg(long, requires = "network")]
    pub bucket: Option<String>,
    /// --network: sessions each server records.
    #[arg(long, default_value_t = 2, requires = "network")]
    pub sessions: u32,
    /// --network: SIGKILL server SERVER (1-based) when it prints its NTH STEP line (STEP:
    /// recorded, uploading, uploaded or acknowledged), e.g. `2:uploading:3`; the check then
    /// tells what it left.
    #[arg(long, value_name = "SERVER:STEP:NTH", requires = "network")]
    pub kill: Option<network::Kill>,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    if !(a.tps.is_finite() && a.tps >= 0.0) {
        return Err(Error::InvalidArgument(format!(
            "--tps {} is not a rate (0 = as fast as possible)",
            a.tps
        )));
    }
    if !(0.0..=1.0).contains(&a.churn) {
        return Err(Error::InvalidArgument(format!(
            "--churn {} is not a chance between 0 and 1",
            a.churn
        )));
    }
    let mut options = RecorderOptions {
        flush: FlushPolicy {
            max_pending_bytes: a.flush_bytes,
            interval: Duration::from_millis(a.flush_ms),
            on_player_leave: !a.no_flush_on_leave,
        },
        backpressure: Backpressure::Block {
            deadline: Duration::from_secs(5),
        },
        // A simulation carries on where a stopped one left its recording.
        on_existing: OnExisting::Resume,
        ..RecorderOptions::default()
    };
    options.chunk_policy.chunk_ticks = a.chunk_ticks;
    options.overwrite = a.force;
    if let Some(servers) = a.network {
        let network = network::Network {
            servers,
            dir: a.out,
            catalog: a.catalog.unwrap_or_default(),
            bucket: a.bucket.unwrap_or_default(),
            sessions: a.sessions,
            ticks: a.ticks,
            players: a.players,
            seed: a.seed,
            kill: a.kill,
        };
        return network::run(network, out);
    }
    if let Some(n) = a.runs {
        let runs = runs::Runs {
            runs: n,
            dir: a.out,
            ticks: a.ticks,
            tps: a.tps,
            seed: a.seed,
            options,
        };
        return runs::run(runs, out);
    }
    if !a.force && a.out.symlink_metadata().is_ok() {
        return Err(super::files::exists(&a.out));
    }
    let shadow = a.shadow.then(|| {
        let out = a
            .report_out
            .clone()
            .unwrap_or_else(|| report_path_for(&a.out));
        ShadowSession {
            options: ShadowOptions::default(),
            out,
            report: ReportOptions {
                after: Duration::ZERO,
                overwrite: a.force,
                ..ReportOptions::default()
            },
        }
    });
    if let Some(sh) = &shadow
        && !a.force
        && sh.out.symlink_metadata().is_ok()
    {
        return Err(super::files::exists(&sh.out));
    }
    if let Some(side) = a.terrain
        && !(side % 2 == 1 && (1..=15).contains(&side))
    {
        return Err(Error::InvalidArgument(format!(
            "--terrain {side}: an odd number of chunks from 1 to 15"
        )));
    }
    // Lines are read as they come (a test kills the writer after a `flushed` line).
    out.set_line_buffered(true);
    let session = Session {
        out: a.out,
        options,
        sim: SimConfig {
            players: a.players,
            seed: a.seed,
            teleport_chance: 0.001,
            churn_chance: a.churn,
            custom_event_chance: 0.005,
        },
        ticks: a.ticks,
        tps: a.tps,
        finish: !a.no_finish,
        shadow,
    };
    let terrain = a.terrain.map(|side| (a.seed, side));
    let mut printer = Printer {
        out,
        error: None,
        terrain,
    };
    // I/O errors name the recording (its live directory is `<out>.live`).
    let done = record(&session, &mut printer).map_err(|e| super::io_in_file(&session.out, e))?;
    if let Some(r) = &done.report {
        writeln!(
            printer.out,
            "report {} player {} ticks {}..={} entities {} in {} ms",
            r.path.display(),
            r.player,
            r.first_tick,
            r.last_tick,
            r.entities,
            r.time.as_millis()
        )?;
    }
    if let Some(path) = done.finished {
        writeln!(printer.out, "finished {}", path.display())?;
    }
    Ok(())
}

/// `run.reel` -> `run.report.reel`.
pub fn report_path_for(out: &std::path::Path) -> PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    out.with_file_name(format!("{stem}.report.reel"))
}

/// `tickreel simulate`'s output: `resumed after TICK`, then `flushed TICK` lines. A failed write
/// (stdout closed) stops the recording at the next tick, which is left live (resumable).
struct Printer<'a> {
    out: &'a mut Out,
    error: Option<std::io::Error>,
    /// `--terrain`: the generator's seed and the area's side in chunks.
    terrain: Option<(u64, i32)>,
}

impl Hooks for Printer<'_> {
    fn started(&mut self, rec: &Recorder, resumed_after: Option<u32>) -> tickreel::Result<()> {
        if let Some(t) = resumed_after {
            writeln!(self.out, "resumed after {t}")?;
        } else if let Some((seed, side)) = self.terrain {
            use tickreel_sim::terrain::{BLOCKS, TerrainGen};
            for &(id, name) in BLOCKS {
                rec.register_name(tickreel::format::PaletteKind::Block, id, name)?;
            }
            rec.offer_terrain(TerrainGen::new(seed).area(0, 0, side)?)?;
        }
        Ok(())
    }

    fn tick(
        &mut self,
        _rec: &Recorder,
        _tick: u32,
        _events: &mut Vec<Event>,
        _submit: bool,
    ) -> tickreel::Result<()> {
        match self.error.take() {
            Some(e) => Err(Error::Io(e)),
            None => Ok(()),
        }
    }

    fn flushed(&mut self, tick: u32) {
        if self.error.is_none()
            && let Err(e) = writeln!(self.out, "flushed {tick}")
        {
            self.error = Some(e);
        }
    }
}

/// A simulated session to record through the real pipeline.
#[derive(Debug, Clone)]
pub struct Session {
    /// Final `.reel` path; the recording is live in `<out>.live` until finished, and resumes
    /// from there if that directory exists.
    pub out: PathBuf,
    pub options: RecorderOptions,
    pub sim: SimConfig,
    /// Ticks to simulate, from tick 0.
    pub ticks: u32,
    /// Ticks per second to pace the submissions at; 0 = as fast as possible.
    pub tps: f64,
    /// Compact into `out` at the end; otherwise the recording is left live (resumable).
    pub finish: bool,
    /// Shadow the world too, and report a player online after the last tick.
    pub shadow: Option<ShadowSession>,
}

/// Shadow play in a simulated session.
#[derive(Debug, Clone)]
pub struct ShadowSession {
    pub options: ShadowOptions,
    /// Where the report is written.
    pub out: PathBuf,
    pub report: ReportOptions,
}

/// A report [`record`] made.
#[derive(Debug, Clone)]
pub struct ReportDone {
    pub path: PathBuf,
    pub player: u32,
    pub first_tick: u32,
    pub last_tick: u32,
    /// Entities in the report (the player and its context).
    pub entities: usize,
    pub file_size: u64,
    /// From the report call to the finished file.
    pub time: Duration,
    /// The buffer when the report was made.
    pub stats: ShadowStats,
}

/// What [`record`] tells its caller as it goes. Every method does nothing by default.
pub trait Hooks {
    /// The recording is open (resumed after `resumed_after` if it was already live); no tick
    /// has been submitted yet.
    fn started(&mut self, _rec: &Recorder, _resumed_after: Option<u32>) -> tickreel::Result<()> {
        Ok(())
    }

    /// Each simulated tick's events, before they are submitted; events may be added. `submit`
    /// is false for a tick already in a resumed recording (it is not submitted again).
    fn tick(
        &mut self,
        _rec: &Recorder,
        _tick: u32,
        _events: &mut Vec<Event>,
        _submit: bool,
    ) -> tickreel::Result<()> {
        Ok(())
    }

    /// Every tick up to `tick` is durably on disk (called once per new value the recorder
    /// reports; checked after each submitted tick and after the last flush).
    fn flushed(&mut self, _tick: u32) {}
}

/// What [`record`] did.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub submitted_ticks: u64,
    /// Bytes of the tick batches submitted (the batch encoding, uncompressed).
    pub raw_bytes: u64,
    /// Server-thread time spent in `submit_tick`.
    pub submit_time: Duration,
    /// The recorder's counters after the last flush, before finishing.
    pub stats: RecorderStats,
    /// The compacted file, when [`Session::finish`] is set.
    pub finished: Option<PathBuf>,
    /// Time from `finish()` to the compacted, verified file (zero if not finished).
    pub compact_time: Duration,
    /// Time from starting the recording to the end (compacted, or flushed and closed).
    pub elapsed: Duration,
    /// The shadow-play report, when [`Session::shadow`] is set.
    pub report: Option<ReportDone>,
}

/// Simulates `s.ticks` ticks and records them through the real pipeline: an [`Engine`], a
/// `Recorder` fed one encoded batch per tick, the writer thread flushing live segments per the
/// flush policy, then (if `s.finish`) the compaction worker producing `s.out`. A recording already
/// live at `s.out` is resumed: its ticks are simulated again but not submitted.
pub fn record(s: &Session, hooks: &mut dyn Hooks) -> tickreel::Result<Recorded> {
    let mut sim = Simulator::new(s.sim);
    let engine = Engine::new(EngineOptions::default())?;
    let started_all = Instant::now();
    let (rec, shadow) = match &s.shadow {
        Some(sh) => {
            let (rec, buf) =
                ShadowBuffer::start(&engine, Some(&s.out), s.options.clone(), sh.options)?;
            (rec, Some(buf))
        }
        None => (engine.start_recording(&s.out, s.options.clone())?, None),
    };
    // A player who moved in the last tick: the one a report at the end is about.
    let mut online = None;
    // A resumed recording is recovered on a thread of its own: wait for where it ends.
    let resumed_after = rec.wait_resumed(Duration::from_secs(3600))?;
    hooks.started(&rec, resumed_after)?;
    let mut batch = Vec::new();
    let mut reported = resumed_after;
    let mut report = |rec: &Recorder, hooks: &mut dyn Hooks| {
        let f = rec.stats().flushed_tick;
        if let Some(t) = f
            && f != reported
        {
            hooks.flushed(t);
            reported = f;
        }
    };
    let mut raw_bytes = 0u64;
    let mut submit_time = Duration::ZERO;
    let mut submitted = 0u64;
    let paced_from = Instant::now();
    for _ in 0..s.ticks {
        let (tick, mut events) = sim.step();
        let submit = resumed_after.is_none_or(|r| tick > r);
        hooks.tick(&rec, tick, &mut events, submit)?;
        if !submit {
            continue;
        }
        if shadow.is_some() {
            online = events
                .iter()
                .find_map(|e| match e {
                    Event::Pose { entity, .. } => Some(*entity),
                    _ => None,
                })
                .or(online);
        }
        batch.clear();
        encode_batch(&events, &mut batch)?;
        raw_bytes += batch.len() as u64;
        let started = Instant::now();
        rec.submit_tick(tick, &batch)?;
        submit_time += started.elapsed();
        submitted += 1;
        // A recording that failed (its live directory removed under it: the writer is fenced
        // and writes nothing more) stops the session with its error at once. A failed flush
        // (an I/O error) is retried by the writer and fails the session at the end.
        if let Err(e) = rec.status()
            && !matches!(e, Error::Io(_))
        {
            return Err(e);
        }
        report(&rec, hooks);
        if s.tps > 0.0 {
            let due = paced_from + Duration::from_secs_f64(submitted as f64 / s.tps);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
    }
    rec.flush()?;
    report(&rec, hooks);
    rec.status()?;
    let stats = rec.stats();
    let report_done = match (&s.shadow, &shadow, online) {
        (Some(sh), Some(buf), Some(player)) => Some(shadow_report(sh, buf, player)?),
        _ => None,
    };
    let mut out = Recorded {
        submitted_ticks: submitted,
        raw_bytes,
        submit_time,
        stats,
        finished: None,
        compact_time: Duration::ZERO,
        elapsed: Duration::ZERO,
        report: report_done,
    };
    if s.finish {
        let started = Instant::now();
        out.finished = Some(rec.finish()?.wait()?);
        out.compact_time = started.elapsed();
    } else {
        drop(rec);
    }
    out.elapsed = started_all.elapsed();
    engine.shutdown();
    Ok(out)
}

/// Reports `player` from the buffer and waits for the file.
fn shadow_report(
    sh: &ShadowSession,
    buf: &ShadowBuffer,
    player: u32,
) -> tickreel::Result<ReportDone> {
    let stats = buf.stats();
    let started = Instant::now();
    let path = buf.report(player, &sh.out, sh.report.clone())?.wait()?;
    let time = started.elapsed();
    let r = Reader::open_path(&path)?;
    let entities = r
        .ticks(r.first_tick().unwrap_or(0), r.last_tick().unwrap_or(0))
        .filter_map(|t| t.ok())
        .flat_map(|t| t.events)
        .filter_map(|e| e.entity())
        .chain(
            r.seek(r.first_tick().unwrap_or(0))?
                .entities
                .iter()
                .map(|e| e.id),
        )
        .collect::<std::collections::HashSet<u32>>()
        .len();
    Ok(ReportDone {
        file_size: std::fs::metadata(&path)
            .map_err(|e| super::io_at(&path, e))?
            .len(),
        first_tick: r.first_tick().unwrap_or(0),
        last_tick: r.last_tick().unwrap_or(0),
        path,
        player,
        entities,
        time,
        stats,
    })
}
