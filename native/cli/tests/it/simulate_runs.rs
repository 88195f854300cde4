//! `tickreel simulate --runs N`: many one-player runs at once through the real pipeline, each
//! finished into a file of its own that holds one whole run ending with its player's leave.

use crate::tool::{assert_ok, p, stderr, stdout, tickreel};
use tickreel::Event;
use tickreel::play::Reader;

#[test]
fn many_one_player_runs_each_end_in_a_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let o = tickreel(&[
        "simulate",
        "--runs",
        "20",
        "--ticks",
        "900",
        "--seed",
        "3",
        "--out",
        p(&runs),
    ]);
    assert_ok(&o);
    let out = stdout(&o);
    let summary = out.lines().last().unwrap();
    let started: usize = summary.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(
        summary.contains(&format!("finished {started} failed 0")),
        "{out}"
    );
    // 20 places, runs of 100 to 1,200 ticks in 900: more runs than places.
    assert!(started > 20, "{out}");
    let files: Vec<_> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        files.len(),
        started,
        "one file per run, no live directory left: {files:?}"
    );
    for f in files {
        let r = Reader::open_path(&f).unwrap();
        r.verify().unwrap();
        let ticks: Vec<_> = r.ticks(0, u32::MAX).map(|t| t.unwrap()).collect();
        assert_eq!(ticks.first().unwrap().tick, 0, "{}", f.display());
        let adds = ticks
            .iter()
            .flat_map(|t| &t.events)
            .filter(|e| matches!(e, Event::EntityAdd { .. }))
            .count();
        assert_eq!(adds, 1, "one player: {}", f.display());
        let last = ticks.last().unwrap();
        assert!(
            last.events
                .iter()
                .any(|e| matches!(e, Event::PlayerLeave { .. })),
            "{} ends with its player leaving",
            f.display()
        );
    }
}

#[test]
fn zero_runs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let o = tickreel(&["simulate", "--runs", "0", "--out", p(dir.path())]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--runs must be at least 1"),
        "{}",
        stderr(&o)
    );
}
