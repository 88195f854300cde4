//! `submit_tick` at a server's real pace (issue 16's hot path): 200 players at 20 ticks/s, the
//! server thread sleeping between ticks, so that every tick finds cold caches and a writer that
//! went idle. Next to it, the floor in the same run at the same moments: the same bytes copied
//! into a reused buffer. Once as one 200-player recording, once as 200 one-player recordings (a
//! race server's runs, issue 21).

use std::time::{Duration, Instant};

use tickreel::{Engine, EngineOptions, RecorderOptions};

use super::record::batches;
use super::{Figures, put};

const PLAYERS: u32 = 200;
const PERIOD: Duration = Duration::from_millis(50);

/// Per player-tick: the submits' median and p99, the floor's median, the median of per-tick
/// ratios.
struct Paced {
    median: f64,
    p99: f64,
    floor: f64,
    ratio: f64,
}

fn quantile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
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
        // Alternating which goes first: neither always finds the caches the sleep left.
        let (s, f) = if t % 2 == 0 {
            let s = timed_submit();
            (s, timed_floor())
        } else {
            let f = timed_floor();
            (timed_submit(), f)
        };
        if t >= warm as usize {
            let per = |d: Duration| d.as_nanos() as f64 / f64::from(PLAYERS);
            submit.push(per(s));
            floor.push(per(f));
            ratio.push(per(s) / per(f).max(0.1));
        }
        let next = start + PERIOD * (t as u32 + 1);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    for r in recorders {
        r.abort().expect("abort");
    }
    engine.shutdown();
    Paced {
        median: quantile(&mut submit, 0.5),
        p99: quantile(&mut submit, 0.99),
        floor: quantile(&mut floor, 0.5),
        ratio: quantile(&mut ratio, 0.5),
    }
}

pub fn run(quick: bool, out: &mut Figures) {
    let ticks = if quick { 100 } else { 400 };
    let one = paced(1, ticks);
    put(out, "submit_paced_ns_per_player_tick", one.median);
    put(out, "submit_paced_p99_ns_per_player_tick", one.p99);
    put(out, "submit_paced_floor_ns_per_player_tick", one.floor);
    put(out, "submit_paced_vs_floor_ratio", one.ratio);
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
}
