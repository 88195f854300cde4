//! What the catalog's tests share: recordings made by the real engine, catalogs on SQLite and on
//! a throwaway PostgreSQL cluster ([`pg`]).
#![allow(dead_code)]

pub mod pg;

use std::path::{Path, PathBuf};

use tickreel::format::{Event, encode_batch};
use tickreel::{Engine, EngineOptions, Pose, RecorderOptions};
use tickreel_catalog::{Catalog, RunSpec};
use uuid::Uuid;

/// One entity's run in a recording: present from `start` for `ticks` ticks, crossing
/// `checkpoints` (index, ticks from its start).
#[derive(Debug, Clone)]
pub struct Runner {
    pub entity: u32,
    pub start: u32,
    pub ticks: u32,
    pub checkpoints: Vec<(u32, u32)>,
}

impl Runner {
    pub fn new(entity: u32, start: u32, ticks: u32, checkpoints: &[(u32, u32)]) -> Runner {
        Runner {
            entity,
            start,
            ticks,
            checkpoints: checkpoints.to_vec(),
        }
    }
}

/// Records `runners` into `dir/name` through the real engine (finished, compacted).
pub fn record(dir: &Path, name: &str, runners: &[Runner]) -> PathBuf {
    record_with(dir, name, runners, RecorderOptions::default())
}

/// [`record`] with the recorder's `options` (a server id, a world version).
pub fn record_with(
    dir: &Path,
    name: &str,
    runners: &[Runner],
    options: RecorderOptions,
) -> PathBuf {
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.join(name);
    let rec = engine.start_recording(&path, options).unwrap();
    let last = runners.iter().map(|r| r.start + r.ticks).max().unwrap_or(0) + 1;
    let mut batch = Vec::new();
    for tick in 0..=last {
        let mut events = Vec::new();
        for r in runners {
            let pose = Pose::from_f64(f64::from(tick) * 0.25, 64.0, f64::from(r.entity), 90.0, 0.0);
            if tick == r.start {
                events.push(Event::EntityAdd {
                    entity: r.entity,
                    kind: 0,
                    pose,
                });
            } else if tick > r.start && tick <= r.start + r.ticks {
                events.push(Event::Pose {
                    entity: r.entity,
                    pose,
                });
            } else if tick == r.start + r.ticks + 1 {
                events.push(Event::EntityRemove { entity: r.entity });
            }
            for &(index, at) in &r.checkpoints {
                if tick == r.start + at {
                    events.push(Event::Checkpoint {
                        entity: r.entity,
                        index,
                    });
                }
            }
        }
        batch.clear();
        encode_batch(&events, &mut batch).unwrap();
        rec.submit_tick(tick, &batch).unwrap();
    }
    let file = rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
    file
}

/// A player UUID from a small number (readable in failures).
pub fn player(n: u32) -> Uuid {
    Uuid::from_u128(0x1000_0000_0000_4000_8000_0000_0000_0000 | u128::from(n))
}

/// A valid run of `entity` by player `n`, achieved at `at_ms`.
pub fn spec(course: &str, n: u32, entity: u32, at_ms: i64) -> RunSpec {
    let mut s = RunSpec::new(course, player(n), &format!("player{n}"), entity);
    s.achieved_ms = Some(at_ms);
    s
}

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Db {
    Sqlite,
    Postgres,
}

/// A fresh, empty catalog URL on `db` (SQLite: a file in `dir`; PostgreSQL: a new database on
/// the test cluster).
pub fn fresh_url(db: Db, dir: &Path) -> String {
    match db {
        Db::Sqlite => format!("sqlite:{}", dir.join("catalog.db").display()),
        Db::Postgres => pg::fresh_database(),
    }
}

/// A fresh catalog on `db`.
pub fn fresh(db: Db, dir: &Path) -> (Catalog, String) {
    let url = fresh_url(db, dir);
    (Catalog::open(&url).unwrap(), url)
}

/// Defines `NAME_sqlite` and `NAME_postgres` tests that call `body(Db)`.
#[macro_export]
macro_rules! on_both {
    ($($name:ident => $body:ident;)*) => {
        mod sqlite {
            $(#[test] fn $name() { super::$body($crate::common::Db::Sqlite) })*
        }
        mod postgres {
            $(#[test] fn $name() { super::$body($crate::common::Db::Postgres) })*
        }
    };
}
