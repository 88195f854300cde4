//! `tickreel demo`: the README's first command. Records a simulated multi-player session (players
//! walking, sprinting, jumping, turning, teleporting, leaving and joining) and its world (blocks
//! broken and placed, zombies hit, held items, chat, the terrain around the course:
//! [`super::demo_world`]) through the real pipeline (Engine, Recorder, writer thread, live
//! segments, compaction), while four runners run a short course over and over
//! ([`super::demo_course`]); verifies the compacted file, checks the world it rebuilds at the end
//! against the simulated one, seeks to random ticks (each checked against what was recorded),
//! decodes it end to end, checks what the shadow-play report of a player kept of the world,
//! registers every finished run in an SQLite catalog, prints the board and races the catalog's
//! best ghost ([`super::demo_catalog`]), and prints a summary with sizes and timings.
//!
//! The work is done by [`run_demo`] in stages ([`record`], [`verify`], [`seek`], [`decode`],
//! [`super::demo_catalog::run`]) that return a [`DemoReport`]; [`print_report`] renders it.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fastnbt::Value as Nbt;
use tickreel::format::EntityInfo;
use tickreel::format::EntityTable;
use tickreel::play::Reader;

use tickreel::record::{FlushPolicy, RecordingIdentity};
use tickreel::shadow::{ReportOptions, ShadowOptions};
use tickreel::{Error, Event, Recorder, RecorderOptions};
use tickreel_sim::SimConfig;

use super::Out;
use super::demo_course::{self, Course, Run};
use super::demo_world::{self, DemoWorld, Rebuilt, ReportWorld, WorldCounts};
use super::simulate::{Hooks, ReportDone, Session, ShadowSession, report_path_for};

#[derive(clap::Args)]
pub struct Args {
    /// Simulated players online at once (four runners of the demo's course join them).
    #[arg(long, default_value_t = 20)]
    pub players: u32,
    /// Seconds of game time to record (20 ticks per second).
    #[arg(long, default_value_t = 120.0)]
    pub seconds: f64,
    /// Directory for the recording (created if missing); the recording is `OUT/demo.reel`,
    /// replacing the one an earlier demo left there.
    #[arg(long, default_value = "demo-out")]
    pub out: PathBuf,
    /// Random seed of the simulation.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Random seeks to time (each checked against the recorded state).
    #[arg(long, default_value_t = 200)]
    pub seeks: usize,
}

/// What the demo does.
#[derive(Debug, Clone)]
pub struct DemoConfig {
    pub players: u32,
    pub seconds: f64,
    pub out_dir: PathBuf,
    pub seed: u64,
    pub seeks: usize,
    /// Replace an existing recording at [`DemoConfig::reel_path`].
    pub force: bool,
}

/// Ticks per second of the simulated server.
pub const TICK_RATE: f64 = 20.0;

impl DemoConfig {
    /// Ticks to record.
    pub fn ticks(&self) -> u32 {
        (self.seconds * TICK_RATE).round() as u32
    }
    /// The recording's path.
    pub fn reel_path(&self) -> PathBuf {
        self.out_dir.join("demo.reel")
    }
    fn sim(&self) -> SimConfig {
        SimConfig {
            players: self.players,
            seed: self.seed,
            teleport_chance: 0.001,
            churn_chance: 0.0005,
            // the world's events are built in ([`super::demo_world`])
            custom_event_chance: 0.0,
        }
    }
}

/// Everything the demo measured.
#[derive(Debug, Clone)]
pub struct DemoReport {
    pub path: PathBuf,
    pub players: u32,
    pub ticks: u32,
    /// Distinct players seen (churn replaces leavers with new players).
    pub players_seen: usize,
    pub file_size: u64,
    /// The session in the batch encoding a server submits (absolute poses, no compression).
    pub raw_bytes: u64,
    /// Chunk payloads before zstd.
    pub payload_bytes: u64,
    pub chunks: usize,
    pub snapshot_chunks: usize,
    pub pose_samples: u64,
    pub events: u64,
    /// Time spent in the writer (the simulation itself excluded).
    pub write_time: Duration,
    /// Server-thread time spent in `submit_tick`.
    pub submit_time: Duration,
    pub submitted_ticks: u64,
    /// Live flushes (segment append + fsync + atomic metadata rewrite) while recording.
    pub flushes: u64,
    pub live_bytes: u64,
    /// Time from `finish()` to the compacted, verified file.
    pub compact_time: Duration,
    /// The runs the runners finished.
    pub runs: usize,
    /// The runs registered in a catalog, the board, the best ghost raced (`None`: no run
    /// finished).
    pub catalog: Option<super::demo_catalog::CatalogStage>,
    pub verify_time: Duration,
    /// Each seek's latency, sorted.
    pub seek_times: Vec<Duration>,
    pub decode_time: Duration,
    /// Pose samples seen by the end-to-end decode.
    pub decoded_samples: u64,
    /// The shadow-play report of a player online at the end.
    pub report: Option<ReportDone>,
    /// What the simulated players did to the world.
    pub world: WorldCounts,
    /// The world rebuilt at the last tick (equal to the simulated one).
    pub rebuilt: Rebuilt,
    /// What the report kept of the reported player's world.
    pub report_world: Option<ReportWorld>,
}

impl DemoReport {
    pub fn player_seconds(&self) -> f64 {
        f64::from(self.players) * f64::from(self.ticks) / TICK_RATE
    }
    pub fn bytes_per_player_second(&self) -> f64 {
        self.file_size as f64 / self.player_seconds().max(f64::MIN_POSITIVE)
    }
    /// The latency below which a fraction `q` of the seeks fell (nearest rank).
    pub fn seek_quantile(&self, q: f64) -> Duration {
        let n = self.seek_times.len();
        if n == 0 {
            return Duration::ZERO;
        }
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        self.seek_times[rank - 1]
    }
    /// Player-ticks decoded per second.
    pub fn decode_rate(&self) -> f64 {
        self.decoded_samples as f64 / self.decode_time.as_secs_f64().max(1e-9)
    }
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    if a.players == 0 {
        return Err(Error::InvalidArgument(
            "--players must be at least 1".into(),
        ));
    }
    if !(a.seconds.is_finite() && a.seconds > 0.0 && a.seconds * TICK_RATE <= f64::from(u32::MAX)) {
        return Err(Error::InvalidArgument(format!(
            "--seconds {} is not a positive duration",
            a.seconds
        )));
    }
    let cfg = DemoConfig {
        players: a.players,
        seconds: a.seconds,
        out_dir: a.out,
        seed: a.seed,
        seeks: a.seeks,
        // The demo's own output: running the README's first command again replaces it.
        force: true,
    };
    writeln!(
        out,
        "tickreel demo: {} simulated players, {} s of play ({} ticks at {TICK_RATE} ticks/s)",
        cfg.players,
        cfg.seconds,
        cfg.ticks()
    )?;
    // The first line comes before the recording (which takes a while).
    out.flush()?;
    let report = run_demo(&cfg)?;
    print_report(&report, out)?;
    Ok(())
}

/// Runs every stage of the demo.
pub fn run_demo(cfg: &DemoConfig) -> tickreel::Result<DemoReport> {
    std::fs::create_dir_all(&cfg.out_dir).map_err(|e| super::io_at(&cfg.out_dir, e))?;
    let path = cfg.reel_path();
    let mut rng = fastrand::Rng::with_seed(cfg.seed ^ 0x5eed_5eed);
    let ticks = cfg.ticks().max(1);
    let targets: Vec<u32> = (0..cfg.seeks).map(|_| rng.u32(0..ticks)).collect();
    let rec = record(cfg, &path, &targets)?;
    let (reader, verify_time) = verify(&path)?;
    let rebuilt = rec.world.check_rebuilt(&reader)?;
    let report_world = match &rec.report {
        Some(rp) => Some(
            rec.world
                .check_report(&super::open(&rp.path)?, rp.player)
                .map_err(|e| super::in_file(&rp.path, e))?,
        ),
        None => None,
    };
    let seek_times = seek(&reader, &targets, &rec.truth)?;
    let (decode_time, decoded_samples) = decode(&reader, &rec.final_state)?;
    let catalog = super::demo_catalog::run(&cfg.out_dir, &path, &rec.runs)?;
    let index = reader.index();
    let stats = &reader.metadata().library.stats;
    Ok(DemoReport {
        path,
        // the course's runners are players online too
        players: cfg.players + demo_course::RUNNERS.len() as u32,
        ticks: cfg.ticks(),
        players_seen: rec.players_seen,
        file_size: rec.file_size,
        raw_bytes: rec.raw_bytes,
        payload_bytes: stats.uncompressed_bytes,
        chunks: index.len(),
        snapshot_chunks: index.iter().filter(|e| e.has_snapshot()).count(),
        pose_samples: stats.pose_samples,
        events: stats.events,
        write_time: rec.write_time,
        submit_time: rec.submit_time,
        submitted_ticks: rec.submitted_ticks,
        flushes: rec.flushes,
        live_bytes: rec.live_bytes,
        compact_time: rec.compact_time,
        runs: rec.runs.len(),
        catalog,
        verify_time,
        seek_times,
        decode_time,
        decoded_samples,
        report: rec.report,
        world: rec.world.counts,
        rebuilt,
        report_world,
    })
}

/// What [`record`] wrote, with the ground truth to check the file against.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub file_size: u64,
    pub raw_bytes: u64,
    pub write_time: Duration,
    pub submit_time: Duration,
    pub submitted_ticks: u64,
    pub flushes: u64,
    pub live_bytes: u64,
    pub compact_time: Duration,
    pub players_seen: usize,
    /// The entity state after each requested tick, as the simulator produced it.
    pub truth: HashMap<u32, EntityTable>,
    /// The entity state after the last tick.
    pub final_state: EntityTable,
    /// The shadow-play report made at the end of the session.
    pub report: Option<ReportDone>,
    /// The runners' finished runs.
    pub runs: Vec<Run>,
    /// The simulated world: what the players did, the truth to check the file against.
    pub world: DemoWorld,
}

/// Simulates `cfg.ticks()` ticks and records them through the real pipeline with
/// [`super::simulate::record`] (the loop of `tickreel simulate`): an `Engine`, a `Recorder` fed
/// one batch per tick (the server thread's only work), the writer thread flushing live segments,
/// and the compaction worker producing `path`. [`DemoHooks`] moves the course's runners
/// (their poses and checkpoints), registers the players, and records the true entity state after
/// each tick in `targets`.
pub fn record(cfg: &DemoConfig, path: &Path, targets: &[u32]) -> tickreel::Result<Recorded> {
    let options = RecorderOptions {
        identity: RecordingIdentity {
            tick_rate_millihz: (TICK_RATE * 1000.0) as u32,
            timestamp_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64),
            world_id: *uuid::Uuid::new_v4().as_bytes(),
            ..RecordingIdentity::default()
        },
        // Small flushes so that the demo exercises the live segments and the metadata rewrite.
        flush: FlushPolicy {
            max_pending_bytes: 64 << 10,
            interval: Duration::from_millis(250),
            on_player_leave: true,
        },
        overwrite: cfg.force,
        ..RecorderOptions::default()
    };
    let session = Session {
        out: path.to_path_buf(),
        options,
        sim: cfg.sim(),
        ticks: cfg.ticks(),
        tps: 0.0,
        finish: true,
        // The world is shadowed too; a player online at the end is reported.
        shadow: Some(ShadowSession {
            options: ShadowOptions::default(),
            out: report_path_for(path),
            report: ReportOptions {
                after: Duration::ZERO,
                overwrite: cfg.force,
                ..ReportOptions::default()
            },
        }),
    };
    let mut hooks = DemoHooks {
        cfg,
        wanted: targets.iter().copied().collect(),
        truth: HashMap::new(),
        table: EntityTable::default(),
        players_seen: 0,
        course: Course::new(cfg.seed),
        world: DemoWorld::new(cfg.seed),
    };
    let done =
        super::simulate::record(&session, &mut hooks).map_err(|e| super::io_in_file(path, e))?;
    let out = done
        .finished
        .ok_or_else(|| Error::InvalidState("the demo recording was not finished".into()))?;
    Ok(Recorded {
        file_size: std::fs::metadata(&out)
            .map_err(|e| super::io_at(&out, e))?
            .len(),
        raw_bytes: done.raw_bytes,
        write_time: done.elapsed,
        submit_time: done.submit_time,
        submitted_ticks: done.submitted_ticks,
        flushes: done.stats.flushes,
        live_bytes: done.stats.bytes_written,
        compact_time: done.compact_time,
        players_seen: hooks.players_seen,
        truth: hooks.truth,
        final_state: hooks.table,
        report: done.report,
        runs: hooks.course.runs,
        world: hooks.world,
    })
}

/// The demo's part of the recording loop.
struct DemoHooks<'a> {
    cfg: &'a DemoConfig,
    /// Ticks whose state [`Recorded::truth`] keeps.
    wanted: HashSet<u32>,
    truth: HashMap<u32, EntityTable>,
    /// The entity state after the last simulated tick.
    table: EntityTable,
    players_seen: usize,
    course: Course,
    world: DemoWorld,
}

impl Hooks for DemoHooks<'_> {
    fn started(&mut self, rec: &Recorder, _resumed_after: Option<u32>) -> tickreel::Result<()> {
        self.world.started(rec, self.cfg.seed)?;
        let demo: HashMap<String, Nbt> = HashMap::from([
            ("players".to_string(), Nbt::Int(self.cfg.players as i32)),
            ("seconds".to_string(), Nbt::Double(self.cfg.seconds)),
            ("seed".to_string(), Nbt::Long(self.cfg.seed as i64)),
        ]);
        rec.set_user_metadata("demo", Nbt::Compound(demo))
    }

    fn tick(
        &mut self,
        rec: &Recorder,
        tick: u32,
        events: &mut Vec<Event>,
        submit: bool,
    ) -> tickreel::Result<()> {
        self.course.tick(tick, events);
        self.world.tick(tick, events, &self.table);
        for e in events.iter() {
            if let Event::EntityAdd { entity, kind, .. } = *e
                && entity < demo_world::FIRST_MOB
            {
                self.players_seen += 1;
                if submit {
                    rec.register_entity(demo_course::runner_info(entity).unwrap_or_else(|| {
                        EntityInfo {
                            id: entity,
                            kind,
                            uuid: Some(uuid::Uuid::from_u128(
                                0x7e57_0000_0000 + u128::from(entity),
                            )),
                            name: Some(format!("player{entity}")),
                        }
                    }))?;
                }
            }
            self.table.apply(e);
        }
        if self.wanted.contains(&tick) {
            self.truth.insert(tick, self.table.clone());
        }
        Ok(())
    }
}

/// Opens the file and checks every checksum and the index.
pub fn verify(path: &Path) -> tickreel::Result<(Reader, Duration)> {
    let started = Instant::now();
    let reader = super::open(path)?;
    reader.verify().map_err(|e| super::in_file(path, e))?;
    Ok((reader, started.elapsed()))
}

/// Seeks to each target (in the given, random order) and checks the state against `truth`.
/// Returns the latencies, sorted.
pub fn seek(
    reader: &Reader,
    targets: &[u32],
    truth: &HashMap<u32, EntityTable>,
) -> tickreel::Result<Vec<Duration>> {
    let mut times = Vec::with_capacity(targets.len());
    for &t in targets {
        let started = Instant::now();
        let state = reader.seek(t)?;
        times.push(started.elapsed());
        let expected = truth
            .get(&t)
            .ok_or_else(|| Error::InvalidState(format!("no recorded state for tick {t}")))?;
        if state.tick != t || &state.entities != expected {
            return Err(Error::Corrupt(format!(
                "seek to tick {t} disagrees with what was recorded"
            )));
        }
    }
    times.sort_unstable();
    Ok(times)
}

/// Decodes every tick from the start, rebuilds the entity state, and checks the end state.
/// Returns the time taken and the pose samples decoded.
pub fn decode(reader: &Reader, final_state: &EntityTable) -> tickreel::Result<(Duration, u64)> {
    let (Some(first), Some(last)) = (reader.first_tick(), reader.last_tick()) else {
        return Ok((Duration::ZERO, 0));
    };
    let started = Instant::now();
    let mut table = EntityTable::default();
    let mut samples = 0u64;
    for t in reader.ticks(first, last) {
        for e in &t?.events {
            if matches!(
                e,
                Event::Pose { .. } | Event::EntityAdd { .. } | Event::Teleport { .. }
            ) {
                samples += 1;
            }
            table.apply(e);
        }
    }
    let elapsed = started.elapsed();
    if &table != final_state {
        return Err(Error::Corrupt(
            "the state after decoding every tick disagrees with what was recorded".into(),
        ));
    }
    Ok((elapsed, samples))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Prints the summary.
pub fn print_report(r: &DemoReport, out: &mut impl Write) -> io::Result<()> {
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    writeln!(out)?;
    writeln!(out, "recording        {}", r.path.display())?;
    writeln!(
        out,
        "session          {} players online ({} simulated, {} course runners; {} over the session), {} ticks = {:.0} player-seconds",
        r.players,
        r.players - demo_course::RUNNERS.len() as u32,
        demo_course::RUNNERS.len(),
        r.players_seen,
        r.ticks,
        r.player_seconds()
    )?;
    writeln!(
        out,
        "content          {} pose samples, {} other events, {} chunks ({} with a snapshot)",
        r.pose_samples, r.events, r.chunks, r.snapshot_chunks
    )?;
    let w = &r.world;
    writeln!(
        out,
        "world            {} blocks changed ({} broken, {} placed), {} hits ({} zombies killed), {} \
         chat lines, {} held-item changes, {} terrain sections around the course; the world \
         rebuilt at the last tick equals the simulated one ({} edited blocks, {} terrain sections)",
        w.broken + w.placed,
        w.broken,
        w.placed,
        w.hits,
        w.kills,
        w.chat_lines,
        w.equipment_changes,
        w.terrain_sections,
        r.rebuilt.blocks,
        r.rebuilt.terrain_sections
    )?;
    writeln!(
        out,
        "file size        {} bytes ({:.2} MiB), {:.1} bytes per player-second",
        r.file_size,
        mib(r.file_size),
        r.bytes_per_player_second()
    )?;
    writeln!(
        out,
        "compression      {:.1}x smaller than the raw tick batches ({} bytes), {:.1}x smaller than the chunk payloads before zstd ({} bytes)",
        r.raw_bytes as f64 / r.file_size.max(1) as f64,
        r.raw_bytes,
        r.payload_bytes as f64 / r.file_size.max(1) as f64,
        r.payload_bytes
    )?;
    writeln!(
        out,
        "record           {:.1} ms end to end through Engine + Recorder: server thread spent {:.2} us per tick in submit_tick; {} live flushes wrote {} bytes of segments; compaction {:.1} ms",
        ms(r.write_time),
        r.submit_time.as_secs_f64() * 1e6 / r.submitted_ticks.max(1) as f64,
        r.flushes,
        r.live_bytes,
        ms(r.compact_time)
    )?;
    writeln!(
        out,
        "verify           {:.1} ms, every checksum ok",
        ms(r.verify_time)
    )?;
    writeln!(
        out,
        "seek             {} random seeks, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; every state matched the recording",
        r.seek_times.len(),
        ms(r.seek_quantile(0.5)),
        ms(r.seek_quantile(0.99)),
        ms(r.seek_times.last().copied().unwrap_or_default())
    )?;
    writeln!(
        out,
        "decode           {:.1} ms for every tick, {:.2} M player-ticks/s; end state matched",
        ms(r.decode_time),
        r.decode_rate() / 1e6
    )?;
    super::demo_catalog::print(r.catalog.as_ref(), r.runs, out)?;
    if let Some(rp) = &r.report {
        let secs = f64::from(rp.last_tick - rp.first_tick + 1) / TICK_RATE;
        writeln!(
            out,
            "shadow report    {}: player {}, ticks {}..={} ({secs:.0} s), {} (the player and who \
             came within 48 blocks), {:.1} KiB, written {:.0} ms after the report",
            rp.path.display(),
            rp.player,
            rp.first_tick,
            rp.last_tick,
            match rp.entities {
                1 => "1 entity".to_string(),
                n => format!("{n} entities"),
            },
            rp.file_size as f64 / 1024.0,
            ms(rp.time)
        )?;
        if let Some(rw) = &r.report_world {
            writeln!(
                out,
                "report world     the player's {} hits and every block change of theirs ({} block \
                 changes kept, others' only within 48 blocks), {} chat lines; none of the {} lines \
                 sent from beyond 48 blocks",
                rw.hits, rw.blocks, rw.chat_lines, rw.far_chat_lines
            )?;
        }
        writeln!(
            out,
            "shadow buffer    {:.1} MiB held for {} players ({:.1} KiB each), {} blocks",
            mib(rp.stats.bytes as u64),
            r.players,
            rp.stats.bytes as f64 / 1024.0 / f64::from(r.players.max(1)),
            rp.stats.blocks
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "inspect it with: tickreel info {0} | tickreel dump {0} --to 20 | tickreel export {0} poses.csv",
        r.path.display()
    )?;
    writeln!(
        out,
        "draw it with:    tickreel render {0} --out map.svg --entity {1} --entity {2} | tickreel ghost {0} --entity {2} --from-checkpoint 0 --to-checkpoint {3} --plot race.svg --ghost-entity {1}",
        r.path.display(),
        demo_course::FIRST_RUNNER,
        demo_course::FIRST_RUNNER + 1,
        demo_course::FINISH
    )?;
    Ok(())
}
