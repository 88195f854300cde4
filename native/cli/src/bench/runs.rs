//! Many one-player recordings at once (issue 21's case: a parkour or race server records each
//! run on its own): 1,000 recordings fed at a real 20 ticks/s with the default flush policy,
//! fsyncs included, and the share of one core the writer is busy. The baseline before group
//! commit.

use std::time::{Duration, Instant};

use tickreel::format::event::encode_batch;
use tickreel::{Engine, EngineOptions, RecorderOptions};
use tickreel_sim::{SimConfig, Simulator};

use super::{Figures, put};

pub fn run(quick: bool, out: &mut Figures) {
    let runs: usize = 1000;
    let frames: u32 = if quick { 120 } else { 240 }; // 6 s / 12 s at 20 ticks/s
    const RAMP: u32 = 40; // the first 2 s are not measured
    let mut sim = Simulator::new(SimConfig {
        players: 1,
        ..SimConfig::default()
    });
    let data: Vec<Vec<u8>> = (0..frames)
        .map(|_| {
            let (_, events) = sim.step();
            let mut b = Vec::new();
            encode_batch(&events, &mut b).expect("batch");
            b
        })
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::new(EngineOptions::default()).expect("engine");
    let recorders: Vec<_> = (0..runs)
        .map(|i| {
            engine
                .start_recording(
                    dir.path().join(format!("run{i}.reel")),
                    RecorderOptions::default(),
                )
                .expect("start")
        })
        .collect();
    let period = Duration::from_millis(50);
    let start = Instant::now();
    let mut window = None;
    for f in 0..frames {
        if f == RAMP {
            let st = engine.stats();
            window = Some((Instant::now(), st.writer_idle_us, st.syncs));
        }
        for rec in &recorders {
            rec.submit_tick(f, &data[f as usize]).expect("submit");
        }
        let next = start + period * (f + 1);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    // The idle time is published every 20 ms: read it after one more publication.
    std::thread::sleep(Duration::from_millis(30));
    let (from, idle0, syncs0) = window.expect("window");
    let wall = from.elapsed().as_secs_f64();
    let st = engine.stats();
    let idle = (st.writer_idle_us - idle0) as f64 / 1e6;
    put(
        out,
        "runs_1000_fsyncs_per_s",
        (st.syncs - syncs0) as f64 / wall,
    );
    let flushes: u64 = recorders.iter().map(|r| r.stats().flushes).sum();
    put(
        out,
        "runs_1000_writer_busy",
        ((wall - idle) / wall).clamp(0.0, 1.0),
    );
    put(
        out,
        "runs_1000_flushes_per_second",
        flushes as f64 / start.elapsed().as_secs_f64(),
    );
    for r in &recorders {
        r.abort().expect("abort");
    }
    drop(recorders);
    engine.shutdown();
}
