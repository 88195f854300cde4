//! Shadow play: memory per player for the 5-minute window (on the realistic world, and on the
//! simulator's always-moving players: `_busy`), the server thread's cost with a world shadowed, the
//! writer's extra work, and the time from a report to its finished file (100 busy players).

use std::time::{Duration, Instant};

use tickreel::format::encode_batch;
use tickreel::record::{Backpressure, FlushPolicy};
use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions};
use tickreel::{Engine, EngineOptions, Event, Recorder, RecorderOptions};
use tickreel_sim::realistic::{RealisticConfig, RealisticSim};
use tickreel_sim::{SimConfig, Simulator};

use super::shared::{big_engine, median};
use super::{Figures, put};

/// Ticks of 5 minutes and 10 s at 20 ticks/s: the window is full.
const TICKS: u32 = 6200;

/// The simulated world's batches, and a player moving in its last tick.
fn world(players: u32) -> (Vec<Vec<u8>>, u32) {
    let mut sim = Simulator::new(SimConfig {
        players,
        seed: 11,
        teleport_chance: 0.0005,
        churn_chance: 0.0002,
        custom_event_chance: 0.005,
    });
    let mut out = Vec::with_capacity(TICKS as usize);
    let mut last_mover = 0;
    for _ in 0..TICKS {
        let (_, events) = sim.step();
        if let Some(id) = events.iter().find_map(|e| match e {
            Event::Pose { entity, .. } => Some(*entity),
            _ => None,
        }) {
            last_mover = id;
        }
        let mut b = Vec::new();
        encode_batch(&events, &mut b).expect("batch");
        out.push(b);
    }
    (out, last_mover)
}

/// Options that flush only when asked: the writer's work is encoding, not waiting on fsyncs. A
/// submit that finds no room waits for the writer rather than failing the run (the timed runs are
/// on an engine that holds them whole, where none waits).
fn quiet() -> RecorderOptions {
    RecorderOptions {
        backpressure: Backpressure::Block {
            deadline: Duration::from_secs(60),
        },
        flush: FlushPolicy {
            max_pending_bytes: 256 << 20,
            interval: Duration::from_secs(3600),
            on_player_leave: false,
        },
        ..RecorderOptions::default()
    }
}

/// One run over `data`: with a path, a recording (shadowed or not); without, a shadow-only
/// stream. Returns the server thread's seconds in `submit_tick`, the writer's busy seconds, and
/// the buffer.
fn run_once(
    dir: &std::path::Path,
    data: &[Vec<u8>],
    record: bool,
    shadow: bool,
) -> (f64, f64, Option<ShadowBuffer>, Recorder, Engine) {
    let engine = big_engine();
    let path = dir.join(format!("r{}{}.reel", record as u8, shadow as u8));
    let (rec, buf) = if shadow {
        let (r, b) = ShadowBuffer::start(
            &engine,
            record.then_some(path.as_path()),
            quiet(),
            ShadowOptions::default(),
        )
        .expect("shadow");
        (r, Some(b))
    } else {
        (engine.start_recording(&path, quiet()).expect("start"), None)
    };
    let idle0 = engine.stats().writer_idle_us;
    let started = Instant::now();
    let mut submit = Duration::ZERO;
    for (t, b) in data.iter().enumerate() {
        let s = Instant::now();
        rec.submit_tick(t as u32, b).expect("submit");
        submit += s.elapsed();
    }
    rec.flush().expect("flush");
    let wall = started.elapsed().as_secs_f64();
    // The idle time is published every 20 ms.
    std::thread::sleep(Duration::from_millis(30));
    let idle = (engine.stats().writer_idle_us - idle0) as f64 / 1e6;
    let busy = (wall - idle.min(wall)).max(1e-6);
    (submit.as_secs_f64(), busy, buf, rec, engine)
}

/// Heap bytes of a shadow-only buffer after 5 minutes and 10 s of the realistic world with
/// `players` players (each with the mobs, idle entities and items around them).
fn realistic_bytes(players: u32) -> usize {
    let mut sim = RealisticSim::new(RealisticConfig {
        players,
        seed: 5,
        ..RealisticConfig::default()
    });
    let engine = Engine::new(EngineOptions::default()).expect("engine");
    let (rec, buf) =
        ShadowBuffer::start(&engine, None, quiet(), ShadowOptions::default()).expect("shadow");
    let mut b = Vec::new();
    for _ in 0..TICKS {
        let (t, events) = sim.step();
        b.clear();
        encode_batch(&events, &mut b).expect("batch");
        rec.submit_tick(t, &b).expect("submit");
    }
    rec.flush().expect("flush");
    let bytes = buf.stats().bytes;
    rec.close().expect("close");
    engine.shutdown();
    bytes
}

pub fn run(quick: bool, out: &mut Figures) {
    let players = if quick { 20 } else { 100 };
    let (data, mover) = world(players);
    let dir = tempfile::tempdir().expect("tempdir");
    let rounds = if quick { 1 } else { 3 };
    let (mut submit_ratio, mut writer_ratio) = (Vec::new(), Vec::new());
    let mut bytes = 0usize;
    let mut report_ms = Vec::new();
    let mut report_all_ms = Vec::new();
    for round in 0..rounds {
        let (plain_submit, plain_busy, _, rec, engine) = run_once(dir.path(), &data, true, false);
        rec.abort().expect("abort");
        engine.shutdown();
        let (sh_submit, sh_busy, buf, rec, engine) = run_once(dir.path(), &data, true, true);
        submit_ratio.push(sh_submit / plain_submit);
        writer_ratio.push(sh_busy / plain_busy);
        rec.abort().expect("abort");
        engine.shutdown();
        drop(buf);
        // Shadow only: the memory and the report.
        let (_, _, buf, rec, engine) = run_once(dir.path(), &data, false, true);
        let buf = buf.expect("buffer");
        bytes = buf.stats().bytes;
        for (radius, times) in [(Some(48.0), &mut report_ms), (None, &mut report_all_ms)] {
            let path = dir
                .path()
                .join(format!("report{round}-{}.reel", radius.is_some()));
            let started = Instant::now();
            buf.report(
                mover,
                &path,
                ReportOptions {
                    after: Duration::ZERO,
                    radius,
                    ..ReportOptions::default()
                },
            )
            .expect("report")
            .wait()
            .expect("report file");
            times.push(started.elapsed().as_secs_f64() * 1e3);
        }
        rec.close().expect("close");
        engine.shutdown();
    }
    put(
        out,
        "shadow_bytes_per_player_5min",
        realistic_bytes(players) as f64 / f64::from(players),
    );
    put(
        out,
        "shadow_bytes_per_player_5min_busy",
        bytes as f64 / f64::from(players),
    );
    put(out, "shadow_submit_vs_plain_ratio", median(submit_ratio));
    put(out, "shadow_writer_overhead_ratio", median(writer_ratio));
    put(out, "shadow_report_ms", median(report_ms));
    put(out, "shadow_report_all_entities_ms", median(report_all_ms));
    put(out, "shadow_players", f64::from(players));
}
