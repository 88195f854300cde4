//! Issue-35 figures: the catalog of a network (`--only network`; minutes, so only on request).
//!
//! 1,000,000 runs (`--quick`: 100,000) of 50,000 players over 20 servers and 200 courses, each
//! course on two map versions, registered through `Catalog::register` in calls of 1,000 runs
//! (each call's runs from one server's recording of one map version: the server and the version
//! come from the recording, as they do on a network). On SQLite, and on PostgreSQL when
//! `TICKREEL_BENCH_POSTGRES` names an empty database (keys ending in `_postgres`). Then, each the
//! 99th percentile (and median) over 1,000 calls on random courses:
//! - `catalog_top10_network_p99_ms`: the network's top 10 of a course (any server, any version);
//! - `catalog_top10_server_p99_ms`: one server's top 10 of a course;
//! - `catalog_top10_version_p99_ms`: the network's top 10 of a course on one map version;
//! - `catalog_pb_network_p99_ms`: a random player's best of a course and its rank, network-wide;
//!
//! and `catalog_network_register_runs_per_s`, the registration rate of the calls of 1,000.

use std::path::{Path, PathBuf};
use std::time::Instant;

use tickreel::record::{ReelOptions, ReelWriter};
use tickreel_catalog::{Board, Catalog, MapVersion, RunSpec};
use uuid::Uuid;

use super::shared::{put_percentiles, write_race};
use super::{Figures, put};

const SERVERS: u32 = 20;
const COURSES: u32 = 200;
const VERSIONS: u32 = 2;
const PLAYERS: u64 = 50_000;
const RUNNERS: u32 = 32;
const WORLD: Uuid = Uuid::from_u128(0x6e65_7477_6f72_4b00_8000_0000_0000_0001);

fn server(s: u32) -> String {
    format!("game-{s:02}")
}

fn version(v: u32) -> Uuid {
    Uuid::from_u128(0x7665_7273_696f_4e00_8000_0000_0000_0000 | u128::from(v + 1))
}

fn player(n: u64) -> Uuid {
    Uuid::from_u128(0xbe00_0000_0000_4000_8000_0000_0001_0000 | u128::from(n))
}

fn course(c: u32) -> String {
    format!("course-{c:03}")
}

/// A recording of `RUNNERS` runners on server `s`, map version `v`: runner `e` takes
/// `400 + (e * 37 + s * 11 + v * 5) % 800` ticks.
fn write_recording(path: &Path, s: u32, v: u32) {
    let ticks: Vec<u32> = (1..=RUNNERS)
        .map(|e| 400 + (e * 37 + s * 11 + v * 5) % 800)
        .collect();
    let mut options = ReelOptions::compacted();
    options.identity.world_id = *WORLD.as_bytes();
    options.identity.world_version = *version(v).as_bytes();
    let mut w = ReelWriter::create(path, options).expect("create bench file");
    w.set_server(&server(s)).expect("server id");
    write_race(w, &ticks, false);
}

/// 1,000 timed calls of `f` (milliseconds each).
fn timed(mut f: impl FnMut()) -> Vec<f64> {
    (0..1000)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect()
}

fn measure(cat: &Catalog, files: &[PathBuf], runs: u64, suffix: &str, out: &mut Figures) {
    let batch = 1000u64;
    let mut rng = fastrand::Rng::with_seed(35);
    let started = Instant::now();
    let mut n = 0u64;
    while n < runs {
        // one call: one server's recording of one map version, runs of random courses
        let file = &files[rng.usize(..files.len())];
        let specs: Vec<RunSpec> = (n..(n + batch).min(runs))
            .map(|i| {
                let p = rng.u64(..PLAYERS);
                let c = course(rng.u32(..COURSES));
                let mut s = RunSpec::new(&c, player(p), &format!("p{p}"), rng.u32(1..=RUNNERS));
                s.achieved_ms = Some(1_700_000_000_000 + i as i64);
                s
            })
            .collect();
        cat.register(file, &specs).expect("register a batch");
        n += batch;
    }
    put(
        out,
        &format!("catalog_network_register_runs_per_s{suffix}"),
        runs as f64 / started.elapsed().as_secs_f64(),
    );
    put(out, &format!("catalog_network_runs{suffix}"), runs as f64);

    let top = timed(|| {
        let rows = cat.top(&course(rng.u32(..COURSES)), 10).expect("top");
        assert_eq!(rows.len(), 10);
    });
    put_percentiles(out, "catalog_top10_network", suffix, top);
    let by_server = timed(|| {
        let s = server(rng.u32(..SERVERS));
        let rows = cat
            .top_on(Board::server(&s), &course(rng.u32(..COURSES)), 10)
            .expect("top of a server");
        // with --quick, 25 runs of a course on a server: maybe fewer than 10 players
        assert!(!rows.is_empty() && rows.len() <= 10);
    });
    put_percentiles(out, "catalog_top10_server", suffix, by_server);
    let by_version = timed(|| {
        let v = MapVersion::new(WORLD, version(rng.u32(..VERSIONS)));
        let rows = cat
            .top_on(v, &course(rng.u32(..COURSES)), 10)
            .expect("top of a version");
        assert_eq!(rows.len(), 10);
    });
    put_percentiles(out, "catalog_top10_version", suffix, by_version);
    let pb = timed(|| {
        let p = player(rng.u64(..PLAYERS));
        let c = course(rng.u32(..COURSES));
        std::hint::black_box(cat.personal_best(&c, p).expect("pb"));
    });
    put_percentiles(out, "catalog_pb_network", suffix, pb);
}

pub fn run(quick: bool, out: &mut Figures) {
    let runs = if quick { 100_000 } else { 1_000_000 };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut files = Vec::new();
    for s in 0..SERVERS {
        for v in 0..VERSIONS {
            let p = dir.path().join(format!("{}-v{v}.reel", server(s)));
            write_recording(&p, s, v);
            files.push(p);
        }
    }
    let url = format!("sqlite:{}", dir.path().join("catalog.db").display());
    let cat = Catalog::open(&url).expect("open the SQLite catalog");
    measure(&cat, &files, runs, "", out);
    drop(cat);
    if let Ok(pg) = std::env::var("TICKREEL_BENCH_POSTGRES") {
        let cat = Catalog::open(&pg).expect("open the PostgreSQL catalog");
        measure(&cat, &files, runs, "_postgres", out);
    }
}
