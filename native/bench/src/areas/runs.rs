//! Many one-player recordings at once (issue 21's case: a parkour or race server records each
//! run on its own): 1,000 recordings fed at a real 20 ticks/s with the default flush policy,
//! fsyncs included (counted: `EngineStats::syncs`), the share of one core the writer is busy, and
//! the memory an idle recording holds. Then resuming a large live directory: how long
//! `start_recording` takes on the calling thread, and the recovery behind it.

use std::time::{Duration, Instant};

use tickreel::format::{Event, encode_batch};
use tickreel::record::{Backpressure, OnExisting};
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
    let rss_before = rss_bytes();
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
        "fsyncs_per_second_1000_runs",
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
    // Idle: everything flushed, no tick coming. What each recording holds then (its state on
    // the writer, its handle, its share of the pool), by the process's resident memory.
    for r in &recorders {
        r.flush().expect("flush");
    }
    put(
        out,
        "runs_1000_idle_rss_bytes_per_recording",
        rss_bytes().saturating_sub(rss_before) as f64 / runs as f64,
    );
    put(
        out,
        "runs_1000_open_files_per_recording",
        open_files() as f64 / runs as f64,
    );
    for r in &recorders {
        r.abort().expect("abort");
    }
    drop(recorders);
    engine.shutdown();
    resume(quick, out);
}

/// Resident memory of this process (Linux; 0 elsewhere).
fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// Open file descriptors of this process (Linux; 0 elsewhere).
fn open_files() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

/// `resume_call_ms`: `start_recording` on a live directory of 64 MiB (16 with `--quick`) of
/// incompressible ticks, timed on the calling thread; `resume_recover_ms`: until the recovery
/// on its own thread is done (`Recorder::wait_resumed`).
fn resume(quick: bool, out: &mut Figures) {
    let mib: usize = if quick { 16 } else { 64 };
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("resume.reel");
    let engine = Engine::new(EngineOptions::default()).expect("engine");
    // Every tick kept (waiting for room), and the second start resumes the first recording.
    let options = || RecorderOptions {
        backpressure: Backpressure::Block {
            deadline: Duration::from_secs(10),
        },
        on_existing: OnExisting::Resume,
        ..RecorderOptions::default()
    };
    let rec = engine.start_recording(&path, options()).expect("start");
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut data = vec![0u8; 64 << 10];
    let mut batch = Vec::new();
    for tick in 0..(mib * 16) as u32 {
        for b in data.chunks_mut(8) {
            // xorshift: bytes zstd cannot shrink
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b.copy_from_slice(&x.to_le_bytes()[..b.len()]);
        }
        let custom = Event::Custom {
            type_id: 1000,
            data: data.clone(),
        };
        batch.clear();
        encode_batch(&[custom], &mut batch).expect("batch");
        rec.submit_tick(tick, &batch).expect("submit");
    }
    rec.close().expect("close");
    drop(rec);
    let started = Instant::now();
    let rec = engine.start_recording(&path, options()).expect("resume");
    let call = started.elapsed();
    rec.wait_resumed(Duration::from_secs(120))
        .expect("recovered");
    let recovered = started.elapsed();
    put(out, "resume_live_dir_mib", mib as f64);
    put(out, "resume_call_ms", call.as_secs_f64() * 1e3);
    put(out, "resume_recover_ms", recovered.as_secs_f64() * 1e3);
    rec.abort().expect("abort");
    engine.shutdown();
}
