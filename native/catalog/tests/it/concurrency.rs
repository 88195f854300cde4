//! Two processes of four threads each (eight writers) register runs of one course at once, all
//! from the same recording file, on SQLite and on PostgreSQL: the board is exact afterwards (no
//! lost run, one row per player holding their best, ties by the earlier run).

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Db, Runner, player, record, spec};
use tickreel_catalog::Catalog;

const COURSE: &str = "concurrent";
const ENTITIES: u32 = 16;
const PLAYERS: u32 = 12;
const PER_WRITER: u32 = 10;
const THREADS: u32 = 4;

/// Entity `e`'s time: entities `e` and `e + 8` tie.
fn ticks_of(e: u32) -> u32 {
    40 + (e % 8) * 5
}

/// The `i`th run of writer `w`: (player, entity, achieved_ms), all distinct in time.
fn run_of(w: u32, i: u32) -> (u32, u32, i64) {
    let entity = 1 + (w * 31 + i * 7) % ENTITIES;
    let p = (w * 5 + i * 3) % PLAYERS;
    (p, entity, 1_000 + i64::from(w) * 1_000 + i64::from(i))
}

fn writer(url: &str, file: &Path, w: u32) {
    let cat = Catalog::open(url).unwrap();
    for i in 0..PER_WRITER {
        let (p, e, at) = run_of(w, i);
        cat.register(file, &[spec(COURSE, p, e, at)]).unwrap();
    }
}

/// Writers `first..first + THREADS`, one thread each.
fn writers(url: &str, file: &Path, first: u32) {
    std::thread::scope(|s| {
        for w in first..first + THREADS {
            s.spawn(move || writer(url, file, w));
        }
    });
}

/// The second process: runs its writers when the parent test started it.
#[test]
fn child_writers() {
    let (Ok(url), Ok(file)) = (
        std::env::var("TICKREEL_CATALOG_URL"),
        std::env::var("TICKREEL_CATALOG_FILE"),
    ) else {
        return; // run as an ordinary test: nothing to do
    };
    writers(&url, &PathBuf::from(file), THREADS);
}

fn two_processes_eight_threads(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let runners: Vec<Runner> = (1..=ENTITIES)
        .map(|e| Runner::new(e, 0, ticks_of(e), &[(1, 10)]))
        .collect();
    let file = record(dir.path(), "many.reel", &runners);
    let url = common::fresh_url(db, dir.path());
    drop(Catalog::open(&url).unwrap()); // the schema, before the writers race
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "concurrency::child_writers", "--test-threads=1"])
        .env("TICKREEL_CATALOG_URL", &url)
        .env("TICKREEL_CATALOG_FILE", &file)
        .spawn()
        .unwrap();
    writers(&url, &file, 0);
    assert!(child.wait().unwrap().success(), "the second process failed");

    // what the board must be: each player's fastest run, ties by the earlier
    let mut best: HashMap<u32, (u32, i64, u32)> = HashMap::new();
    let mut runs_of: HashMap<u32, usize> = HashMap::new();
    for w in 0..2 * THREADS {
        for i in 0..PER_WRITER {
            let (p, e, at) = run_of(w, i);
            *runs_of.entry(p).or_default() += 1;
            let cand = (ticks_of(e), at, e);
            let b = best.entry(p).or_insert(cand);
            if (cand.0, cand.1) < (b.0, b.1) {
                *b = cand;
            }
        }
    }
    let mut expected: Vec<(u32, u32, i64, u32)> =
        best.iter().map(|(&p, &(t, at, e))| (p, t, at, e)).collect();
    expected.sort_by_key(|&(_, t, at, _)| (t, at));

    let cat = Catalog::open(&url).unwrap();
    let top = cat.top(COURSE, 100).unwrap();
    let got: Vec<(u32, u32, i64, u32)> = top
        .iter()
        .map(|p| {
            let r = &p.run;
            (r.player.as_u128() as u32, r.ticks, r.achieved_ms, r.entity)
        })
        .collect();
    assert_eq!(got, expected);
    assert_eq!(cat.players(COURSE).unwrap(), u64::from(PLAYERS));
    assert_eq!(
        cat.recordings().unwrap().len(),
        1,
        "one row for the shared file"
    );
    for (p, n) in runs_of {
        assert_eq!(
            cat.recent(player(p), Some(COURSE), 1000).unwrap().len(),
            n,
            "player {p}"
        );
    }
}

on_both! {
    two_processes_and_eight_threads_register_at_once => two_processes_eight_threads;
}

/// One PostgreSQL catalog shared by threads opens up to `pool_max` connections, no more.
#[test]
fn a_shared_catalog_runs_calls_on_a_pool_of_pool_max_connections() {
    let url = format!("{}?pool_max=3", crate::common::pg::fresh_database());
    let cat = std::sync::Arc::new(tickreel_catalog::Catalog::open(&url).unwrap());
    assert_eq!(cat.connections(), 1);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let cat = cat.clone();
            std::thread::spawn(move || {
                for _ in 0..20 {
                    // pg_sleep holds each connection long enough for the calls to overlap
                    cat.execute_raw("SELECT pg_sleep(0.01)").unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(cat.connections(), 3);
}
