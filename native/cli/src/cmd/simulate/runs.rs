//! `tickreel simulate --runs N`: a race or parkour server, where every player's run is a recording
//! of its own. N runs are under way at any moment; each starts at a random tick, lasts a random
//! 5 to 60 seconds, ends with its player leaving and is finished (compacted), and its slot starts
//! another run after a short random pause, as players start and finish courses. Everything goes
//! through the real pipeline (one engine, its writer, group commit and compaction threads).
//!
//! Prints a progress line about every 10 simulated seconds and a summary at the end; fails if any
//! run could not be recorded or finished.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use tickreel::format::encode_batch;
use tickreel::{Engine, EngineOptions, Error, Event, Recorder, RecorderOptions};
use tickreel_sim::{SimConfig, Simulator};

use crate::cmd::Out;

/// What `--runs` needs of `tickreel simulate`'s arguments.
pub struct Runs {
    pub runs: u32,
    /// Directory the runs' files go to (created if missing).
    pub dir: PathBuf,
    pub ticks: u32,
    pub tps: f64,
    pub seed: u64,
    pub options: RecorderOptions,
}

/// Shortest and longest run, in ticks (5 and 60 s at 20 ticks/s).
const RUN_TICKS: std::ops::RangeInclusive<u32> = 100..=1200;
/// Longest pause of a slot between two runs, in ticks.
const PAUSE_TICKS: u32 = 40;

/// One run being recorded.
struct Run {
    rec: Recorder,
    sim: Simulator,
    tick: u32,
    len: u32,
    player: Option<u32>,
}

/// One of the N places a run is recorded in, one after the other.
struct Slot {
    run: Option<Run>,
    next_start: u32,
    count: u32,
}

#[derive(Default)]
struct Tally {
    started: u64,
    finished: u64,
    failed: u64,
    ticks: u64,
    first_error: Option<String>,
}

impl Tally {
    /// Counts the finishes that are done; keeps the others.
    fn collect(&mut self, handles: &mut Vec<tickreel::Pending<PathBuf>>, wait: bool) {
        handles.retain_mut(|h| {
            if !wait && !h.is_ready() {
                return true;
            }
            match h.wait_in_place() {
                Ok(_) => self.finished += 1,
                Err(e) => {
                    self.failed += 1;
                    self.first_error.get_or_insert_with(|| e.to_string());
                }
            }
            false
        });
    }
}

pub fn run(a: Runs, out: &mut Out) -> tickreel::Result<()> {
    if a.runs == 0 {
        return Err(Error::InvalidArgument("--runs must be at least 1".into()));
    }
    std::fs::create_dir_all(&a.dir).map_err(|e| crate::cmd::io_in_file(&a.dir, e.into()))?;
    let engine = Engine::new(EngineOptions::default())?;
    let mut rng = fastrand::Rng::with_seed(a.seed);
    let mut slots: Vec<Slot> = (0..a.runs)
        .map(|_| Slot {
            run: None,
            next_start: rng.u32(0..a.ticks.clamp(1, 200)),
            count: 0,
        })
        .collect();
    let mut tally = Tally::default();
    let mut handles = Vec::new();
    let period = (a.tps > 0.0).then(|| Duration::from_secs_f64(1.0 / a.tps));
    let started_at = Instant::now();
    let mut batch = Vec::new();
    let report_every = 200u32;
    for t in 0..a.ticks {
        let last_tick = t + 1 == a.ticks;
        for (i, slot) in slots.iter_mut().enumerate() {
            if slot.run.is_none() && t >= slot.next_start && !last_tick {
                let path = a.dir.join(format!("run-{i:05}-{:04}.reel", slot.count));
                let rec = engine.start_recording(&path, a.options.clone())?;
                let sim = Simulator::new(SimConfig {
                    players: 1,
                    seed: a.seed ^ (u64::from(i as u32) << 20) ^ u64::from(slot.count),
                    churn_chance: 0.0,
                    ..SimConfig::default()
                });
                slot.run = Some(Run {
                    rec,
                    sim,
                    tick: 0,
                    len: rng.u32(RUN_TICKS),
                    player: None,
                });
                slot.count += 1;
                tally.started += 1;
            }
            let Some(run) = &mut slot.run else {
                continue;
            };
            let (_, mut events) = run.sim.step();
            if run.player.is_none() {
                run.player = events.iter().find_map(|e| match e {
                    Event::EntityAdd { entity, .. } => Some(*entity),
                    _ => None,
                });
            }
            let ends = run.tick + 1 >= run.len || last_tick;
            if ends && let Some(entity) = run.player {
                events.push(Event::PlayerLeave { entity });
            }
            batch.clear();
            encode_batch(&events, &mut batch)?;
            run.rec.submit_tick(run.tick, &batch)?;
            run.tick += 1;
            tally.ticks += 1;
            if ends {
                let run = slot.run.take().expect("a run");
                handles.push(run.rec.finish()?);
                slot.next_start = t + 1 + rng.u32(0..=PAUSE_TICKS);
            }
        }
        if t % 20 == 0 {
            tally.collect(&mut handles, false);
        }
        if t % report_every == report_every - 1 {
            let active = slots.iter().filter(|s| s.run.is_some()).count();
            writeln!(
                out,
                "tick {} active {active} started {} finished {} failed {}",
                t + 1,
                tally.started,
                tally.finished,
                tally.failed
            )?;
        }
        if let Some(p) = period {
            let next = started_at + p * (t + 1);
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
        }
    }
    tally.collect(&mut handles, true);
    let wall = started_at.elapsed().as_secs_f64();
    let stats = engine.stats();
    engine.shutdown();
    let busy = (1.0 - stats.writer_idle_us as f64 / 1e6 / wall).clamp(0.0, 1.0);
    writeln!(
        out,
        "runs {} finished {} failed {} ticks {} in {wall:.1} s: {:.0} syncs/s, writer busy {busy:.2}, {} bytes written",
        tally.started,
        tally.finished,
        tally.failed,
        tally.ticks,
        stats.syncs as f64 / wall,
        stats.bytes_written
    )?;
    match tally.first_error {
        Some(e) => Err(Error::InvalidState(format!(
            "{} of {} runs failed to finish; the first: {e}",
            tally.failed, tally.started
        ))),
        None => Ok(()),
    }
}
