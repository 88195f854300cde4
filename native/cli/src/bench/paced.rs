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

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use tickreel::{Engine, EngineOptions, RecorderOptions};

use super::record::batches;
use super::shared::percentile;
use super::{Figures, put};

const PLAYERS: u32 = 200;
const PERIOD: Duration = Duration::from_millis(50);

/// Per player-tick: the submits' median and p99, the floor's median, the median of per-tick
/// ratios; the handoff floor's median and the median of per-tick ratios to it.
struct Paced {
    median: f64,
    p99: f64,
    floor: f64,
    ratio: f64,
    handoff: f64,
    handoff_ratio: f64,
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
        // Rotating which goes first: none always finds the caches the sleep left.
        let (s, f, h) = match t % 3 {
            0 => {
                let s = timed_submit();
                let f = timed_floor();
                (s, f, timed_handoff())
            }
            1 => {
                let f = timed_floor();
                let h = timed_handoff();
                (timed_submit(), f, h)
            }
            _ => {
                let h = timed_handoff();
                let s = timed_submit();
                (s, timed_floor(), h)
            }
        };
        if t >= warm as usize {
            let per = |d: Duration| d.as_nanos() as f64 / f64::from(PLAYERS);
            submit.push(per(s));
            floor.push(per(f));
            ratio.push(per(s) / per(f).max(0.1));
            handoff.push(per(h));
            handoff_ratio.push(per(s) / per(h).max(0.1));
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
}
