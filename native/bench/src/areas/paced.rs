//! `submit_tick` at a server's real pace (issue 16's hot path): 200 players at 20 ticks/s, the
//! server thread sleeping between ticks, so that every tick finds cold caches and a writer that
//! went idle. Next to it, the floor in the same run at the same moments: the same bytes copied
//! into a reused buffer. Once as one 200-player recording, once as 200 one-player recordings (a
//! race server's runs, issue 21).
//!
//! A second floor, the handoff floor: the same copy into reused buffers that another thread then
//! reads (as the writer reads a submitted tick), so that the next copy finds those cache lines
//! shared with, or taken by, the other core. A submit hands its bytes to the writer thread; the
//! plain floor hands them to no one.
//!
//! A third, the staged floor: what a design that batches per recording would cost (BENCHMARKS.md,
//! "staged handover"). Each recording appends its tick (with an 8-byte tick and length header) to
//! a buffer of its own behind a lock, and every [`STAGE_TICKS`] ticks hands the buffer to a thread
//! that polls a crossbeam channel as the writer does and reads what it takes, taking a fresh buffer
//! from a shared pool the reader refills.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use tickreel::{Engine, EngineOptions, RecorderOptions};

use super::record::batches;
use super::shared::percentile;
use super::{Figures, put};

const PLAYERS: u32 = 200;
const PERIOD: Duration = Duration::from_millis(50);
/// Ticks a recording stages before the staged floor hands them over.
const STAGE_TICKS: u32 = 4;

/// Per player-tick: the submits' median and p99, the floor's median, the median of per-tick
/// ratios; the handoff floor's median and the median of per-tick ratios to it.
struct Paced {
    median: f64,
    p99: f64,
    floor: f64,
    ratio: f64,
    handoff: f64,
    handoff_ratio: f64,
    staged: f64,
    staged_ratio: f64,
}

/// The staged floor's shared parts: the channel of full stages and the pool of empty ones.
struct Stages {
    tx: crossbeam_channel::Sender<Vec<u8>>,
    pool: Arc<Mutex<Vec<Vec<u8>>>>,
    stages: Vec<Mutex<(Vec<u8>, u32)>>,
}

impl Stages {
    /// The staged floor's reader: polls as the writer does (50 us naps, then 500 us), reads every
    /// stage it takes and gives it back to the pool; an empty stage without capacity stops it.
    fn reader(rx: crossbeam_channel::Receiver<Vec<u8>>, pool: Arc<Mutex<Vec<Vec<u8>>>>) {
        let mut idle = 0u32;
        loop {
            match rx.try_recv() {
                Ok(v) if v.capacity() == 0 => return,
                Ok(mut v) => {
                    idle = 0;
                    std::hint::black_box(v.iter().fold(0u8, |x, &y| x ^ y));
                    v.clear();
                    pool.lock().expect("pool").push(v);
                }
                Err(_) => {
                    idle += 1;
                    let nap = if idle <= 16 { 50 } else { 500 };
                    std::thread::sleep(Duration::from_micros(nap));
                }
            }
        }
    }

    /// One recording's tick: staged, and handed over with the stage's fourth tick.
    fn submit(&self, r: usize, tick: u32, batch: &[u8]) {
        let mut stage = self.stages[r].lock().expect("stage");
        stage.0.extend_from_slice(&tick.to_le_bytes());
        stage
            .0
            .extend_from_slice(&(batch.len() as u32).to_le_bytes());
        stage.0.extend_from_slice(batch);
        stage.1 += 1;
        if stage.1 >= STAGE_TICKS {
            let fresh = self.pool.lock().expect("pool").pop().unwrap_or_default();
            let full = std::mem::replace(&mut stage.0, fresh);
            stage.1 = 0;
            self.tx
                .try_send(full)
                .expect("the staged floor's queue has room");
        }
    }
}

/// Buffers one thread fills and another reads: (generation written, generation read, buffers).
type Shared = Arc<(Mutex<(u64, u64, Vec<Vec<u8>>)>, Condvar)>;

/// The reader of the handoff floor: reads every buffer once per generation, until generation 0.
fn handoff_reader(shared: &Shared) {
    let (lock, cv) = &**shared;
    let mut g = lock.lock().expect("lock");
    loop {
        while g.0 == g.1 {
            g = cv.wait(g).expect("wait");
        }
        if g.0 == u64::MAX {
            return;
        }
        let sum =
            g.2.iter()
                .fold(0u8, |a, b| a ^ b.iter().fold(0u8, |x, &y| x ^ y));
        std::hint::black_box(sum);
        g.1 = g.0;
        cv.notify_all();
    }
}

/// `recs` recordings sharing [`PLAYERS`] players, `ticks` ticks at 20 ticks/s. Ticks are submitted
/// tick-major across recordings (as a server does), so the loop indexes by tick.
#[allow(clippy::needless_range_loop)]
fn paced(recs: u32, ticks: u32) -> Paced {
    let players = PLAYERS / recs;
    let dir = tempfile::tempdir().expect("tempdir");
    // A few seconds of warm-up (pool, queue, first flush) are not measured.
    let warm = 40;
    let data: Vec<Vec<Vec<u8>>> = (0..recs)
        .map(|r| batches(players, warm + ticks, u64::from(r)))
        .collect();
    let engine = Engine::new(EngineOptions::default()).expect("engine");
    let recorders: Vec<_> = (0..recs)
        .map(|r| {
            engine
                .start_recording(
                    dir.path().join(format!("p{r}.reel")),
                    RecorderOptions::default(),
                )
                .expect("start")
        })
        .collect();
    // The floor's buffers: one per recording, reused (as a pooled buffer is).
    let mut floor_bufs: Vec<Vec<u8>> = data
        .iter()
        .map(|d| Vec::with_capacity(d[0].len()))
        .collect();
    let (mut submit, mut floor, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    let (mut handoff, mut handoff_ratio) = (Vec::new(), Vec::new());
    let shared: Shared = Arc::new((
        Mutex::new((
            0,
            0,
            data.iter()
                .map(|d| Vec::with_capacity(d[0].len()))
                .collect(),
        )),
        Condvar::new(),
    ));
    let reader = {
        let s = shared.clone();
        std::thread::spawn(move || handoff_reader(&s))
    };
    let (stage_tx, stage_rx) = crossbeam_channel::bounded(65_536);
    let stages = Stages {
        tx: stage_tx,
        pool: Arc::new(Mutex::new(Vec::new())),
        stages: data
            .iter()
            .map(|d| {
                let cap = (d[0].len() + 8) * STAGE_TICKS as usize;
                Mutex::new((Vec::with_capacity(cap), 0))
            })
            .collect(),
    };
    let stage_reader = {
        let pool = stages.pool.clone();
        std::thread::spawn(move || Stages::reader(stage_rx, pool))
    };
    let mut staged = Vec::new();
    let mut staged_ratio = Vec::new();
    let start = Instant::now();
    for t in 0..(warm + ticks) as usize {
        // The tick's batches were just built by the server: read them first, so that neither
        // side pays for bringing the source bytes into the cache.
        let touched = data
            .iter()
            .fold(0u8, |a, d| a ^ d[t].iter().fold(0u8, |x, &y| x ^ y));
        std::hint::black_box(touched);
        let timed_submit = || {
            let s = Instant::now();
            for (r, rec) in recorders.iter().enumerate() {
                rec.submit_tick(t as u32, &data[r][t]).expect("submit");
            }
            s.elapsed()
        };
        let mut timed_floor = || {
            let s = Instant::now();
            for (r, b) in floor_bufs.iter_mut().enumerate() {
                b.clear();
                b.extend_from_slice(&data[r][t]);
                std::hint::black_box(&b);
            }
            s.elapsed()
        };
        // The handoff floor: copy under the lock (taken once per tick), then let the reader
        // read every buffer and wait until it has.
        let timed_handoff = || {
            let (lock, cv) = &*shared;
            let s = Instant::now();
            let mut g = lock.lock().expect("lock");
            for (r, b) in g.2.iter_mut().enumerate() {
                b.clear();
                b.extend_from_slice(&data[r][t]);
            }
            g.0 += 1;
            drop(g);
            let took = s.elapsed();
            cv.notify_all();
            let mut g = lock.lock().expect("lock");
            while g.1 != g.0 {
                g = cv.wait(g).expect("wait");
            }
            took
        };
        let timed_staged = || {
            let s = Instant::now();
            for r in 0..recs as usize {
                stages.submit(r, t as u32, &data[r][t]);
            }
            s.elapsed()
        };
        // Rotating which goes first: none always finds the caches the sleep left.
        let (s, f, h, g) = match t % 4 {
            0 => {
                let s = timed_submit();
                let f = timed_floor();
                let h = timed_handoff();
                (s, f, h, timed_staged())
            }
            1 => {
                let f = timed_floor();
                let h = timed_handoff();
                let g = timed_staged();
                (timed_submit(), f, h, g)
            }
            2 => {
                let h = timed_handoff();
                let g = timed_staged();
                let s = timed_submit();
                (s, timed_floor(), h, g)
            }
            _ => {
                let g = timed_staged();
                let s = timed_submit();
                let f = timed_floor();
                (s, f, timed_handoff(), g)
            }
        };
        if t >= warm as usize {
            let per = |d: Duration| d.as_nanos() as f64 / f64::from(PLAYERS);
            submit.push(per(s));
            floor.push(per(f));
            ratio.push(per(s) / per(f).max(0.1));
            handoff.push(per(h));
            handoff_ratio.push(per(s) / per(h).max(0.1));
            staged.push(per(g));
            staged_ratio.push(per(g) / per(f).max(0.1));
        }
        let next = start + PERIOD * (t as u32 + 1);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    {
        let (lock, cv) = &*shared;
        lock.lock().expect("lock").0 = u64::MAX;
        cv.notify_all();
    }
    reader.join().expect("handoff reader");
    stages
        .tx
        .send(Vec::new())
        .expect("the staged floor's reader is running");
    stage_reader.join().expect("staged floor reader");
    for r in recorders {
        r.abort().expect("abort");
    }
    engine.shutdown();
    Paced {
        median: percentile(&mut submit, 0.5),
        p99: percentile(&mut submit, 0.99),
        floor: percentile(&mut floor, 0.5),
        ratio: percentile(&mut ratio, 0.5),
        handoff: percentile(&mut handoff, 0.5),
        handoff_ratio: percentile(&mut handoff_ratio, 0.5),
        staged: percentile(&mut staged, 0.5),
        staged_ratio: percentile(&mut staged_ratio, 0.5),
    }
}

pub fn run(quick: bool, out: &mut Figures) {
    let ticks = if quick { 100 } else { 400 };
    let one = paced(1, ticks);
    put(out, "submit_paced_ns_per_player_tick", one.median);
    put(out, "submit_paced_p99_ns_per_player_tick", one.p99);
    put(out, "submit_paced_floor_ns_per_player_tick", one.floor);
    put(out, "submit_paced_vs_floor_ratio", one.ratio);
    put(
        out,
        "submit_paced_handoff_floor_ns_per_player_tick",
        one.handoff,
    );
    put(
        out,
        "submit_paced_vs_handoff_floor_ratio",
        one.handoff_ratio,
    );
    put(
        out,
        "submit_paced_staged_floor_ns_per_player_tick",
        one.staged,
    );
    put(
        out,
        "submit_paced_staged_floor_vs_floor_ratio",
        one.staged_ratio,
    );
    let runs = paced(PLAYERS, ticks);
    put(
        out,
        "submit_paced_ns_per_player_tick_1_player_recordings",
        runs.median,
    );
    put(
        out,
        "submit_paced_p99_ns_per_player_tick_1_player_recordings",
        runs.p99,
    );
    put(
        out,
        "submit_paced_floor_ns_per_player_tick_1_player_recordings",
        runs.floor,
    );
    put(
        out,
        "submit_paced_vs_floor_ratio_1_player_recordings",
        runs.ratio,
    );
    put(
        out,
        "submit_paced_handoff_floor_ns_per_player_tick_1_player_recordings",
        runs.handoff,
    );
    put(
        out,
        "submit_paced_vs_handoff_floor_ratio_1_player_recordings",
        runs.handoff_ratio,
    );
    put(
        out,
        "submit_paced_staged_floor_ns_per_player_tick_1_player_recordings",
        runs.staged,
    );
    put(
        out,
        "submit_paced_staged_floor_vs_floor_ratio_1_player_recordings",
        runs.staged_ratio,
    );
}
