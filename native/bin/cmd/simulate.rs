//! `tickreel simulate`: records a synthetic server through the real pipeline (Engine, Recorder,
//! writer thread, segments, compaction). Prints `flushed TICK` whenever every tick up to TICK is
//! durably on disk, and `finished PATH` after compaction. Deterministic for a seed, and resumable:
//! ticks already in the recording are simulated but not submitted again.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tickreel::format::event::encode_batch;
use tickreel::record::{Backpressure, FlushPolicy};
use tickreel::sim::{SimConfig, Simulator};
use tickreel::{Engine, EngineOptions, Error, RecorderOptions};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Final `.reel` path (the live directory is `<out>.live`).
    #[arg(long)]
    pub out: PathBuf,
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
    /// Ticks per chunk.
    #[arg(long, default_value_t = 200)]
    pub chunk_ticks: u32,
    /// Leave the recording live (do not compact).
    #[arg(long)]
    pub no_finish: bool,
}

pub fn run(a: Args) -> tickreel::Result<()> {
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
    let engine = Engine::new(EngineOptions::default())?;
    let mut opts = RecorderOptions {
        flush: FlushPolicy {
            max_pending_bytes: a.flush_bytes,
            interval: Duration::from_millis(a.flush_ms),
            on_player_leave: !a.no_flush_on_leave,
        },
        backpressure: Backpressure::Block {
            deadline: Duration::from_secs(5),
        },
        ..RecorderOptions::default()
    };
    opts.chunk.chunk_ticks = a.chunk_ticks;
    let rec = engine.start_recording(&a.out, opts)?;
    let resume_after = rec.stats().flushed_tick;
    if let Some(t) = resume_after {
        println!("resumed after {t}");
    }
    let mut sim = Simulator::new(SimConfig {
        players: a.players,
        seed: a.seed,
        teleport_chance: 0.001,
        churn_chance: a.churn,
        custom_event_chance: 0.005,
    });
    let mut batch = Vec::new();
    let mut last_reported = resume_after;
    let start = Instant::now();
    let mut submitted = 0u64;
    let report = |last: &mut Option<u32>, rec: &tickreel::Recorder| {
        let f = rec.stats().flushed_tick;
        if let Some(t) = f
            && f != *last
        {
            println!("flushed {t}");
            *last = f;
        }
    };
    for _ in 0..a.ticks {
        let (tick, events) = sim.step();
        if resume_after.is_some_and(|r| tick <= r) {
            continue;
        }
        batch.clear();
        encode_batch(&events, &mut batch)?;
        rec.submit_tick(tick, &batch)?;
        submitted += 1;
        report(&mut last_reported, &rec);
        if a.tps > 0.0 {
            let due = start + Duration::from_secs_f64(submitted as f64 / a.tps);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
    }
    rec.flush()?;
    report(&mut last_reported, &rec);
    rec.status()?;
    if a.no_finish {
        drop(rec);
        engine.shutdown();
        return Ok(());
    }
    let path = rec.finish()?.wait()?;
    println!("finished {}", path.display());
    engine.shutdown();
    Ok(())
}
