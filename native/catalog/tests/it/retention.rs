//! Retention on SQLite and on PostgreSQL: policies per course and per kind decide what `prune`
//! deletes; a dry run lists exactly what a real run deletes; a prune stopped after any step (or
//! killed with SIGKILL) leaves no listed recording without its file, and the next prune
//! finishes the job.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::{Db, Runner, player, record, spec};
use tickreel_catalog::retain::PruneStep;
use tickreel_catalog::{
    Catalog, NewReport, PruneOptions, Pruned, ReportStatus, RetentionPolicy, RetentionScope,
};

const DAY: i64 = 86_400_000;

struct World {
    now: i64,
    /// Recording ids: best, slow, second, young, closed report, open report, other, course B.
    ids: [i64; 8],
    files: [PathBuf; 8],
}

fn world(cat: &Catalog, dir: &Path) -> World {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
        + 30 * DAY;
    let one = |name: &str, ticks| record(dir, name, &[Runner::new(1, 0, ticks, &[(1, 10)])]);
    let files = [
        one("best.reel", 60),
        one("slow.reel", 100),
        one("second.reel", 80),
        one("young.reel", 120),
        one("closed.reel", 30),
        one("open.reel", 30),
        one("other.reel", 30),
        one("course-b.reel", 30),
    ];
    let run = |f: &PathBuf, course, p, at| {
        cat.register(f, &[spec(course, p, 1, at)])
            .unwrap()
            .recording_id
    };
    let report = |f: &PathBuf, n| {
        let r = NewReport {
            reported: player(n),
            reported_name: format!("player{n}"),
            reporter: player(99),
            reason: "fly".into(),
            created_ms: Some(now - 10 * DAY),
            server: None,
        };
        cat.add_report(&r, Some(f)).unwrap()
    };
    let best = run(&files[0], "A", 1, now - 20 * DAY);
    let slow = run(&files[1], "A", 1, now - 19 * DAY);
    let second = run(&files[2], "A", 2, now - 18 * DAY);
    let young = run(&files[3], "A", 3, now - DAY);
    let closed = report(&files[4], 5);
    cat.set_report_status(closed.id, ReportStatus::Closed)
        .unwrap();
    let open = report(&files[5], 6);
    let other = cat.register(&files[6], &[]).unwrap().recording_id;
    let b = run(&files[7], "B", 4, now - 40 * DAY);

    let course_a = RetentionPolicy {
        keep_top: Some(1),
        keep_personal_bests: false,
        keep_days: Some(7),
        keep_open_reports: false,
    };
    cat.set_retention(&RetentionScope::Course("A".into()), course_a)
        .unwrap();
    let reports = RetentionPolicy {
        keep_days: Some(7),
        ..RetentionPolicy::default()
    };
    cat.set_retention(&RetentionScope::Reports, reports)
        .unwrap();
    let other_policy = RetentionPolicy {
        keep_days: Some(1),
        ..RetentionPolicy::default()
    };
    cat.set_retention(&RetentionScope::Other, other_policy)
        .unwrap();
    assert_eq!(cat.retention().unwrap().len(), 3);
    World {
        now,
        ids: [
            best,
            slow,
            second,
            young,
            closed.recording_id.unwrap(),
            open.recording_id.unwrap(),
            other,
            b,
        ],
        files,
    }
}

fn options(w: &World, dry_run: bool, stop_after: Option<PruneStep>) -> PruneOptions {
    PruneOptions {
        dry_run,
        now_ms: Some(w.now),
        stop_after,
    }
}

/// Slow, second, closed report, other: by the policies; best (top 1), young (7 days), the open
/// report and course B (no policy) stay.
fn doomed(w: &World) -> Vec<i64> {
    vec![w.ids[1], w.ids[2], w.ids[4], w.ids[6]]
}

fn kept(w: &World) -> Vec<i64> {
    vec![w.ids[0], w.ids[3], w.ids[5], w.ids[7]]
}

/// Nothing listed is gone: every listed recording's file exists, and so does every board
/// run's.
fn listed_files_exist(cat: &Catalog) {
    for r in cat.recordings().unwrap() {
        assert!(
            Path::new(&r.location).exists(),
            "{} is listed but gone",
            r.location
        );
    }
    for p in cat.top("A", 100).unwrap() {
        let rec = cat.recording(p.run.recording_id).unwrap().expect("listed");
        assert!(Path::new(&rec.location).exists());
    }
}

fn listed(cat: &Catalog) -> Vec<i64> {
    cat.recordings().unwrap().iter().map(|r| r.id).collect()
}

fn ids(p: &[Pruned]) -> Vec<i64> {
    p.iter().map(|p| p.recording_id).collect()
}

fn final_state(cat: &Catalog, w: &World) {
    assert_eq!(listed(cat), kept(w));
    for (i, f) in w.files.iter().enumerate() {
        assert_eq!(f.exists(), kept(w).contains(&w.ids[i]), "{}", f.display());
    }
    let board: Vec<u128> = cat
        .top("A", 10)
        .unwrap()
        .iter()
        .map(|p| p.run.player.as_u128())
        .collect();
    assert_eq!(board, [player(1).as_u128(), player(3).as_u128()]);
    assert!(cat.recent(player(2), None, 10).unwrap().is_empty());
    assert_eq!(cat.reports(None).unwrap().len(), 1);
    assert_eq!(cat.top("B", 10).unwrap().len(), 1);
    let again = cat.prune(options(w, false, None)).unwrap();
    assert!(again.recordings.is_empty(), "{again:?}");
}

fn dry_run_lists_what_a_real_run_deletes(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    let w = world(&cat, dir.path());
    let dry = cat.prune(options(&w, true, None)).unwrap();
    assert!(dry.dry_run);
    assert_eq!(ids(&dry.recordings), doomed(&w));
    // a dry run changes nothing
    assert_eq!(listed(&cat).len(), 8);
    assert!(w.files.iter().all(|f| f.exists()));
    let real = cat.prune(options(&w, false, None)).unwrap();
    assert_eq!(real.recordings, dry.recordings);
    assert_eq!(real.rows(), (4, 2, 2, 1));
    assert_eq!(real.bytes(), dry.bytes());
    assert!(real.failed.is_empty());
    final_state(&cat, &w);
}

fn a_prune_stopped_after_any_step_lists_nothing_gone(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    let w = world(&cat, dir.path());
    let planned = cat.prune(options(&w, true, None)).unwrap();

    // stopped after marking: the doomed are listed nowhere, their files still there
    assert!(
        cat.prune(options(&w, false, Some(PruneStep::Marked)))
            .is_err()
    );
    listed_files_exist(&cat);
    assert_eq!(listed(&cat), kept(&w));
    assert!(cat.personal_best("A", player(2)).unwrap().is_none());
    assert!(w.files[1].exists());
    let pending = cat.prune(options(&w, true, None)).unwrap();
    assert_eq!(ids(&pending.recordings), doomed(&w));
    assert!(pending.recordings.iter().all(|p| p.resumed));

    // stopped after removing the files
    assert!(
        cat.prune(options(&w, false, Some(PruneStep::FilesRemoved)))
            .is_err()
    );
    listed_files_exist(&cat);
    assert!(!w.files[1].exists());

    // the next prune finishes, deleting exactly what was planned
    let done = cat.prune(options(&w, false, None)).unwrap();
    assert_eq!(ids(&done.recordings), ids(&planned.recordings));
    assert_eq!(done.rows(), planned.rows());
    final_state(&cat, &w);
}

/// The killed process: prunes slowly (a pause after each file) until killed.
#[test]
fn child_pruner() {
    let (Ok(url), Ok(now)) = (
        std::env::var("TICKREEL_PRUNE_URL"),
        std::env::var("TICKREEL_PRUNE_NOW"),
    ) else {
        return; // run as an ordinary test: nothing to do
    };
    let cat = Catalog::open(&url).unwrap();
    let opts = PruneOptions {
        now_ms: Some(now.parse().unwrap()),
        ..PruneOptions::default()
    };
    cat.prune_with(opts, &|loc| {
        std::fs::remove_file(loc)?;
        std::thread::sleep(Duration::from_millis(400));
        Ok(())
    })
    .unwrap();
}

fn a_prune_killed_midway_lists_nothing_gone(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, url) = common::fresh(db, dir.path());
    let w = world(&cat, dir.path());
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "retention::child_pruner", "--test-threads=1"])
        .env("TICKREEL_PRUNE_URL", &url)
        .env("TICKREEL_PRUNE_NOW", w.now.to_string())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // wait until it has removed a file or two, then SIGKILL it
    let t0 = std::time::Instant::now();
    while w.files[1].exists() && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!w.files[1].exists(), "the child removed no file in time");
    assert!(
        w.files[6].exists(),
        "the child finished before it was killed"
    );
    listed_files_exist(&cat);
    assert_eq!(listed(&cat), kept(&w));
    let done = cat.prune(options(&w, false, None)).unwrap();
    assert_eq!(ids(&done.recordings), doomed(&w));
    assert!(done.recordings.iter().all(|p| p.resumed));
    final_state(&cat, &w);
}

on_both! {
    a_dry_run_lists_what_a_real_run_deletes => dry_run_lists_what_a_real_run_deletes;
    a_prune_stopped_after_any_step_lists_nothing_gone => a_prune_stopped_after_any_step_lists_nothing_gone;
    a_prune_killed_midway_lists_nothing_gone => a_prune_killed_midway_lists_nothing_gone;
}
