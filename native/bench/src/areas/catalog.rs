//! Issue-19 figures: the catalog on SQLite (and on PostgreSQL when `TICKREEL_BENCH_POSTGRES`
//! names a server: `postgres://user:pw@127.0.0.1:PORT/db`, an empty database).
//!
//! The board: 100,000 runs of 10,000 players on one course (quick: 10,000 of 1,000), registered
//! through `Catalog::register` in calls of 1,000 runs, from recordings of 64 runners with times
//! of 30 to 60 s (20 ticks/s) and a checkpoint halfway. Then:
//! - `catalog_top10_p99_ms` (and `_p50_ms`): the 99th percentile (median) of `top(course, 10)`
//!   over 1,000 calls;
//! - `catalog_pb_p99_ms` (and `_p50_ms`): of a random player's best and rank, 1,000 calls;
//! - `catalog_register_per_s`: one run per `register` call (its own transaction, the recording
//!   read and the run measured from it), 300 calls (quick: 100);
//! - `catalog_load_ghost_ms`: the median of 20 `load_ghost(course, 1)` waited for (the query,
//!   then the ghost loaded from its local file).
//!
//! PostgreSQL's keys end in `_postgres`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use tickreel::record::{ReelOptions, ReelWriter};
use tickreel_catalog::{Catalog, RunSpec};
use uuid::Uuid;

use super::shared::{put_percentiles, write_race};
use super::{Figures, put};

const RUNNERS: u32 = 64;
const COURSE: &str = "bench-course";

/// A recording of `RUNNERS` runners, runner `e` taking `600 + (e * 37 + seed) % 600` ticks.
fn write_recording(path: &Path, seed: u32) -> Vec<u32> {
    let ticks: Vec<u32> = (1..=RUNNERS)
        .map(|e| 600 + (e * 37 + seed * 11) % 600)
        .collect();
    let w = ReelWriter::create(path, ReelOptions::compacted()).expect("create bench file");
    write_race(w, &ticks, true);
    ticks
}

fn player(n: u64) -> Uuid {
    Uuid::from_u128(0xbe00_0000_0000_4000_8000_0000_0000_0000 | u128::from(n))
}

fn measure(
    cat: &Catalog,
    files: &[PathBuf],
    runs: u64,
    players: u64,
    suffix: &str,
    out: &mut Figures,
) {
    // the board
    let batch = 1000u64;
    let mut rng = fastrand::Rng::with_seed(19);
    let mut n = 0u64;
    while n < runs {
        let file = &files[(n / batch) as usize % files.len()];
        let specs: Vec<RunSpec> = (n..(n + batch).min(runs))
            .map(|i| {
                let p = rng.u64(..players);
                let mut s = RunSpec::new(COURSE, player(p), &format!("p{p}"), rng.u32(1..=RUNNERS));
                s.achieved_ms = Some(1_700_000_000_000 + i as i64);
                s
            })
            .collect();
        cat.register(file, &specs).expect("register a batch");
        n += batch;
    }
    let top: Vec<f64> = (0..1000)
        .map(|_| {
            let t = Instant::now();
            let rows = cat.top(COURSE, 10).expect("top");
            assert_eq!(rows.len(), 10);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    put_percentiles(out, "catalog_top10", suffix, top);
    let pb: Vec<f64> = (0..1000)
        .map(|_| {
            let p = player(rng.u64(..players));
            let t = Instant::now();
            let _ = std::hint::black_box(cat.personal_best(COURSE, p).expect("pb"));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    put_percentiles(out, "catalog_pb", suffix, pb);
    let singles = if runs >= 100_000 { 300 } else { 100 };
    let t = Instant::now();
    for i in 0..singles {
        let p = rng.u64(..players);
        let mut s = RunSpec::new(COURSE, player(p), "single", rng.u32(1..=RUNNERS));
        s.achieved_ms = Some(1_800_000_000_000 + i as i64);
        cat.register(&files[i % files.len()], &[s])
            .expect("register one run");
    }
    put(
        out,
        &format!("catalog_register_per_s{suffix}"),
        singles as f64 / t.elapsed().as_secs_f64(),
    );
    let mut ghost: Vec<f64> = (0..20)
        .map(|_| {
            let t = Instant::now();
            let g = cat.load_ghost(COURSE, 1u64).expect("query the ghost");
            let track = g.load.wait().expect("load the ghost");
            std::hint::black_box(track.duration_ticks());
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ghost.sort_by(f64::total_cmp);
    put(
        out,
        &format!("catalog_load_ghost_ms{suffix}"),
        ghost[ghost.len() / 2],
    );
    put(
        out,
        &format!("catalog_players{suffix}"),
        cat.players(COURSE).expect("players") as f64,
    );
}

pub fn run(quick: bool, out: &mut Figures) {
    let (runs, players) = if quick {
        (10_000, 1_000)
    } else {
        (100_000, 10_000)
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let files: Vec<PathBuf> = (0..4)
        .map(|i| {
            let p = dir.path().join(format!("runs{i}.reel"));
            write_recording(&p, i);
            p
        })
        .collect();
    let url = format!("sqlite:{}", dir.path().join("catalog.db").display());
    let cat = Catalog::open(&url).expect("open the SQLite catalog");
    measure(&cat, &files, runs, players, "", out);
    if let Ok(pg) = std::env::var("TICKREEL_BENCH_POSTGRES") {
        let cat = Catalog::open(&pg).expect("open the PostgreSQL catalog");
        measure(&cat, &files, runs, players, "_postgres", out);
    }
}
