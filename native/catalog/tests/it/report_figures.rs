//! Report rows carry the reported player's figures from the report's analysis (schema version
//! 4), staff sort reports by them, and rows filed before version 4 are upgraded with figures
//! unknown. On SQLite and on PostgreSQL.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tickreel::format::encode_batch;
use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions};
use tickreel::{Engine, EngineOptions, Event, Pose, RecorderOptions};
use tickreel_catalog::{Catalog, NewReport, ReportFigure, ReportFigures, ReportStatus};

use crate::common::{self, Db, player};

/// A shadow report of entity 1, which hits entity 2 from `reach` blocks `hits` times (one a
/// tick) and breaks `broken` blocks.
fn report_file(dir: &Path, name: &str, reach: f64, hits: u32, broken: u32) -> PathBuf {
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let (rec, shadow) = ShadowBuffer::start(
        &engine,
        None,
        RecorderOptions::default(),
        ShadowOptions::default(),
    )
    .unwrap();
    for t in 0..100u32 {
        let mut ev = Vec::new();
        if t == 0 {
            for (id, x) in [(1, 0.0), (2, reach)] {
                ev.push(Event::EntityAdd {
                    entity: id,
                    kind: 1,
                    pose: Pose::from_f64(x, 64.0, 0.0, 0.0, 0.0),
                });
            }
        }
        if (1..=hits).contains(&t) {
            ev.push(Event::Attack {
                attacker: 1,
                target: 2,
            });
        }
        if (1..=broken).contains(&t) {
            ev.push(Event::BlockChange {
                pos: tickreel::format::BlockPos::new(t as i32, 60, 0),
                state: 0,
                cause: Some(1),
                block_entity: None,
            });
        }
        let mut b = Vec::new();
        encode_batch(&ev, &mut b).unwrap();
        rec.submit_tick(t, &b).unwrap();
    }
    rec.flush().unwrap();
    let out = dir.join(name);
    shadow
        .report(
            1,
            &out,
            ReportOptions {
                after: Duration::ZERO,
                ..ReportOptions::default()
            },
        )
        .unwrap()
        .wait()
        .unwrap();
    out
}

fn new_report(n: u32, at: i64) -> NewReport {
    NewReport {
        reported: player(n),
        reported_name: format!("player{n}"),
        reporter: player(99),
        reason: "kill aura".into(),
        created_ms: Some(at),
        server: None,
    }
}

fn figures_and_sorting(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    let far = report_file(dir.path(), "far.reel", 6.0, 12, 0);
    let near = report_file(dir.path(), "near.reel", 3.0, 40, 5);
    let a = cat.add_report(&new_report(1, 1000), Some(&far)).unwrap();
    let b = cat.add_report(&new_report(2, 2000), Some(&near)).unwrap();
    let c = cat.add_report(&new_report(3, 3000), None).unwrap();
    assert_eq!(
        a.figures,
        ReportFigures {
            blocks_broken: Some(0),
            blocks_placed: Some(0),
            attacks: Some(12),
            attacked: Some(0),
            attacks_per_second_max: Some(12),
            reach_max: Some(6.0),
            reach_p99: Some(6.0),
            speed_max: Some(0.0),
            rotation_max: Some(0.0),
        }
    );
    assert_eq!(b.figures.blocks_broken, Some(5));
    assert_eq!(b.figures.attacks, Some(40));
    assert_eq!(b.figures.attacks_per_second_max, Some(20));
    assert_eq!(b.figures.reach_max, Some(3.0));
    assert_eq!(c.figures, ReportFigures::default());
    // read back as filed
    let all = cat.reports(None).unwrap();
    assert_eq!(
        all.iter().map(|r| r.id).collect::<Vec<_>>(),
        [c.id, b.id, a.id]
    );
    assert_eq!(all[2].figures, a.figures);
    // largest first, unknown last
    let ids = |f| -> Vec<i64> {
        cat.reports_by(Some(ReportStatus::Open), f)
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect()
    };
    assert_eq!(ids(ReportFigure::ReachMax), [a.id, b.id, c.id]);
    assert_eq!(ids(ReportFigure::Attacks), [b.id, a.id, c.id]);
    assert_eq!(ids(ReportFigure::BlocksBroken), [b.id, a.id, c.id]);
    cat.set_report_status(b.id, ReportStatus::Closed).unwrap();
    assert_eq!(ids(ReportFigure::Attacks), [a.id, c.id]);
}

fn upgrade_from_version_2(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let url = common::fresh_url(db, dir.path());
    let v2 = Catalog::open_at_version(&url, 2).unwrap();
    v2.execute_raw(&format!(
        "INSERT INTO reports (reported, reported_name, reporter, reason, created_ms, status)
         VALUES ('{}', 'old', '{}', 'fly', 5, 'open')",
        player(1),
        player(2)
    ))
    .unwrap();
    drop(v2);
    let cat = Catalog::open(&url).unwrap();
    assert_eq!(
        cat.schema_version().unwrap(),
        tickreel_catalog::SCHEMA_VERSION
    );
    let rows = cat.reports(None).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].reported_name, "old");
    assert_eq!(rows[0].figures, ReportFigures::default());
    let file = report_file(dir.path(), "new.reel", 4.0, 3, 0);
    let new = cat.add_report(&new_report(3, 9), Some(&file)).unwrap();
    let sorted = cat.reports_by(None, ReportFigure::ReachMax).unwrap();
    assert_eq!(
        sorted.iter().map(|r| r.id).collect::<Vec<_>>(),
        [new.id, rows[0].id]
    );
}

on_both! {
    report_rows_carry_the_players_figures_and_sort_by_them => figures_and_sorting;
    an_upgrade_from_version_2_keeps_reports_with_figures_unknown => upgrade_from_version_2;
}
