//! Migrations on SQLite and on PostgreSQL: an empty database, an already-current one, one at
//! schema version 1 with rows (upgraded, its board built from its runs), one from a newer build
//! (refused).

use crate::common;

use crate::common::{Db, Runner, player, record, spec};
use tickreel::ErrorKind;
use tickreel_catalog::{Catalog, Migrated, SCHEMA_VERSION};

fn empty_current_and_newer(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let url = common::fresh_url(db, dir.path());
    let cat = Catalog::open(&url).unwrap();
    assert_eq!(
        cat.migrated(),
        Migrated {
            from: 0,
            to: SCHEMA_VERSION
        }
    );
    assert_eq!(cat.schema_version().unwrap(), SCHEMA_VERSION);
    drop(cat);
    let again = Catalog::open(&url).unwrap();
    assert_eq!(
        again.migrated(),
        Migrated {
            from: SCHEMA_VERSION,
            to: SCHEMA_VERSION
        }
    );
    again
        .execute_raw(
            "INSERT INTO tickreel_schema (version, name, applied_ms) VALUES (99, 'future', 0)",
        )
        .unwrap();
    drop(again);
    let e = Catalog::open(&url).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("99"), "{e}");
}

fn upgrade_from_version_1(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let url = common::fresh_url(db, dir.path());
    let v1 = Catalog::open_at_version(&url, 1).unwrap();
    assert_eq!(v1.schema_version().unwrap(), 1);
    // a version-1 catalog's rows: player 1 twice (90, then 60), player 2 at 60 later, and an
    // invalid 30 of player 2
    let p = |n| player(n).to_string();
    v1.execute_raw(&format!(
        "INSERT INTO recordings (id, location, started_ms, first_tick, last_tick, tick_rate,
             size_bytes, entity_count, summary, registered_ms)
         VALUES (1, '/old/a.reel', 0, 0, 200, 20.0, 1000, 3, 'old', 0);
         INSERT INTO runs (id, recording_id, course, player, player_name, entity, start_tick,
             end_tick, ticks, tick_rate, achieved_ms, valid, flags) VALUES
           (1, 1, 'c', '{a}', 'a', 1, 0, 90, 90, 20.0, 100, 1, 0),
           (2, 1, 'c', '{a}', 'a', 2, 0, 60, 60, 20.0, 200, 1, 0),
           (3, 1, 'c', '{b}', 'b', 3, 0, 60, 60, 20.0, 300, 1, 0),
           (4, 1, 'c', '{b}', 'b', 3, 0, 30, 30, 20.0, 400, 0, 0);
         INSERT INTO splits (run_id, seq, checkpoint, tick) VALUES (2, 0, 1, 25);",
        a = p(1),
        b = p(2)
    ))
    .unwrap();
    drop(v1);

    let cat = Catalog::open(&url).unwrap();
    assert_eq!(
        cat.migrated(),
        Migrated {
            from: 1,
            to: SCHEMA_VERSION
        }
    );
    let top: Vec<(i64, u64)> = cat
        .top("c", 10)
        .unwrap()
        .iter()
        .map(|p| (p.run.id, p.rank))
        .collect();
    assert_eq!(top, [(2, 1), (3, 2)]);
    assert_eq!(cat.splits(2).unwrap().len(), 1);
    // the upgraded catalog registers new runs (its id sequences continue after the old rows on
    // PostgreSQL too: the old rows gave explicit ids, so new ones must not collide)
    if db == Db::Postgres {
        cat.execute_raw(
            "SELECT setval(pg_get_serial_sequence('recordings', 'id'), (SELECT MAX(id) FROM recordings));
             SELECT setval(pg_get_serial_sequence('runs', 'id'), (SELECT MAX(id) FROM runs));",
        )
        .unwrap();
    }
    let file = record(dir.path(), "new.reel", &[Runner::new(5, 0, 50, &[])]);
    cat.register(&file, &[spec("c", 2, 5, 500)]).unwrap();
    let pb = cat.personal_best("c", player(2)).unwrap().unwrap();
    assert_eq!((pb.rank, pb.run.ticks), (1, 50));
}

/// Version 4 to 5: rows without a server, runs given their recording's world (version
/// unknown), and the upgraded catalog registers servers' runs beside them.
fn upgrade_from_version_4(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let url = common::fresh_url(db, dir.path());
    let v4 = Catalog::open_at_version(&url, 4).unwrap();
    assert_eq!(v4.schema_version().unwrap(), 4);
    let world = uuid::Uuid::from_u128(0x77);
    v4.execute_raw(&format!(
        "INSERT INTO recordings (id, location, world, started_ms, first_tick, last_tick,
             tick_rate, size_bytes, entity_count, summary, registered_ms)
         VALUES (1, '/old/a.reel', '{world}', 0, 0, 200, 20.0, 1000, 3, 'old', 0);
         INSERT INTO runs (id, recording_id, course, player, player_name, entity, start_tick,
             end_tick, ticks, tick_rate, achieved_ms, valid, flags) VALUES
           (1, 1, 'c', '{a}', 'a', 1, 0, 90, 90, 20.0, 100, 1, 0);
         INSERT INTO bests (course, player, run_id, ticks, achieved_ms) VALUES ('c', '{a}', 1, 90, 100);
         INSERT INTO reports (id, reported, reported_name, reporter, reason, created_ms, status,
             recording_id) VALUES (1, '{a}', 'a', '{b}', 'fly', 5, 'open', 1);",
        a = player(1),
        b = player(2)
    ))
    .unwrap();
    drop(v4);

    let cat = Catalog::open(&url).unwrap();
    assert_eq!(
        cat.migrated(),
        Migrated {
            from: 4,
            to: SCHEMA_VERSION
        }
    );
    let top = cat.top("c", 10).unwrap();
    assert_eq!(top.len(), 1);
    let run = &top[0].run;
    assert_eq!(
        (run.server.as_deref(), run.world, run.world_version),
        (None, Some(world), None)
    );
    assert_eq!(run.location, "/old/a.reel");
    let reports = cat.reports_of(player(1), None).unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].server, None);
    assert_eq!(reports[0].location.as_deref(), Some("/old/a.reel"));
    assert!(cat.reports_of(player(1), Some("eu-1")).unwrap().is_empty());
    assert!(cat.top_on("eu-1", "c", 10).unwrap().is_empty());

    if db == Db::Postgres {
        cat.execute_raw(
            "SELECT setval(pg_get_serial_sequence('recordings', 'id'), (SELECT MAX(id) FROM recordings));
             SELECT setval(pg_get_serial_sequence('runs', 'id'), (SELECT MAX(id) FROM runs));",
        )
        .unwrap();
    }
    let file = common::record_with(
        dir.path(),
        "new.reel",
        &[Runner::new(5, 0, 50, &[])],
        tickreel::RecorderOptions {
            server: Some("eu-1".into()),
            ..tickreel::RecorderOptions::default()
        },
    );
    cat.register(&file, &[spec("c", 2, 5, 500)]).unwrap();
    let on_eu: Vec<_> = cat
        .top_on("eu-1", "c", 10)
        .unwrap()
        .into_iter()
        .map(|p| (p.rank, p.run.player))
        .collect();
    assert_eq!(on_eu, [(1, player(2))]);
    assert_eq!(cat.top("c", 10).unwrap().len(), 2);
}

/// Version 5 to 6: the audit log of report views, empty, then appended to and read newest
/// first; its rows refuse control characters and empty names.
fn upgrade_from_version_5(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let url = common::fresh_url(db, dir.path());
    let v5 = Catalog::open_at_version(&url, 5).unwrap();
    assert_eq!(v5.schema_version().unwrap(), 5);
    assert!(v5.execute_raw("SELECT 1 FROM report_views").is_err());
    drop(v5);
    let cat = Catalog::open(&url).unwrap();
    assert_eq!(
        cat.migrated(),
        Migrated {
            from: 5,
            to: SCHEMA_VERSION
        }
    );
    assert!(cat.report_views(10).unwrap().is_empty());
    cat.log_report_view("alice", "open", Some(3), "catalog:7")
        .unwrap();
    cat.log_report_view("bob", "reviewed", Some(3), "catalog:7")
        .unwrap();
    cat.log_report_view("bob", "open", None, "x.report.reel")
        .unwrap();
    let rows: Vec<_> = cat
        .report_views(2)
        .unwrap()
        .into_iter()
        .map(|v| (v.who, v.action, v.report_id, v.recording))
        .collect();
    assert_eq!(
        rows,
        [
            ("bob".into(), "open".into(), None, "x.report.reel".into()),
            ("bob".into(), "reviewed".into(), Some(3), "catalog:7".into()),
        ]
    );
    for (who, what) in [("", "open"), ("a\nb", "open"), ("alice", "")] {
        assert_eq!(
            cat.log_report_view(who, what, None, "r")
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidArgument
        );
    }
    assert_eq!(cat.report_views(100).unwrap().len(), 3);
}

/// Version 6 to 7: the index of a course's runs on one map version, built over the runs there
/// are; on PostgreSQL the tables are then analysed (statistics of the runs exist).
fn upgrade_from_version_6(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let url = common::fresh_url(db, dir.path());
    let v6 = Catalog::open_at_version(&url, 6).unwrap();
    // a version-6 catalog's rows (this build registers with version 8's columns)
    let p = |n| player(n).to_string();
    v6.execute_raw(&format!(
        "INSERT INTO recordings (id, location, started_ms, first_tick, last_tick, tick_rate,
             size_bytes, entity_count, summary, registered_ms)
         VALUES (1, '/old/a.reel', 0, 0, 41, 20.0, 1000, 1, 'old', 0);
         INSERT INTO runs (id, recording_id, course, player, player_name, entity, start_tick,
             end_tick, ticks, tick_rate, achieved_ms, valid, flags) VALUES
           (1, 1, 'c', '{a}', 'a', 1, 0, 40, 40, 20.0, 100, 1, 0),
           (2, 1, 'c', '{b}', 'b', 1, 0, 40, 40, 20.0, 200, 1, 0);
         INSERT INTO bests (course, player, run_id, ticks, achieved_ms) VALUES
           ('c', '{a}', 1, 40, 100), ('c', '{b}', 2, 40, 200);",
        a = p(1),
        b = p(2)
    ))
    .unwrap();
    let (has_index, analysed) = match db {
        Db::Sqlite => (
            "DELETE FROM runs INDEXED BY runs_by_version WHERE course = 'none'",
            None,
        ),
        Db::Postgres => (
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'runs_by_version')
             THEN RAISE EXCEPTION 'no index runs_by_version'; END IF; END $$",
            Some(
                "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_stats WHERE tablename = 'runs'
                 AND attname = 'course') THEN RAISE EXCEPTION 'runs not analysed'; END IF; END $$",
            ),
        ),
    };
    assert!(v6.execute_raw(has_index).is_err());
    if let Some(analysed) = analysed {
        assert!(v6.execute_raw(analysed).is_err(), "not analysed before");
    }
    drop(v6);
    let cat = Catalog::open(&url).unwrap();
    assert_eq!(
        cat.migrated(),
        Migrated {
            from: 6,
            to: SCHEMA_VERSION
        }
    );
    cat.execute_raw(has_index).unwrap();
    if let Some(analysed) = analysed {
        cat.execute_raw(analysed).unwrap();
    }
    assert_eq!(cat.top("c", 10).unwrap().len(), 2);
}

on_both! {
    an_empty_a_current_and_a_newer_schema => empty_current_and_newer;
    an_upgrade_from_version_6_adds_the_version_index => upgrade_from_version_6;
    an_upgrade_from_version_5_adds_the_audit_log => upgrade_from_version_5;
    an_upgrade_from_version_1_builds_the_board => upgrade_from_version_1;
    an_upgrade_from_version_4_adds_servers => upgrade_from_version_4;
}

/// A database that fails (here a file that is not an SQLite database) is `ErrorKind::Database`
/// in every language (code 12), not an I/O error.
#[test]
fn a_failing_database_is_a_database_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("not-a-database.sqlite");
    std::fs::write(&path, vec![0x5au8; 8192]).unwrap();
    let e = Catalog::open(&format!("sqlite:{}", path.display())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Database, "{e}");
    assert_eq!(e.code(), 12);
    assert!(
        e.to_string().starts_with("database error: catalog: "),
        "{e}"
    );
}
