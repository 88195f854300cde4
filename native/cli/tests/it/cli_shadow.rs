//! `tickreel simulate --shadow`: the world is shadowed too, a player online at the end is
//! reported, and the report is an ordinary recording the other commands read.

use crate::tool::{assert_ok, p, stdout, tickreel};

#[test]
fn simulate_shadow_reports_a_player_and_prints_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("world.reel");
    let o = tickreel(&[
        "simulate",
        "--out",
        p(&out),
        "--ticks",
        "900",
        "--players",
        "6",
        "--shadow",
    ]);
    assert_ok(&o);
    let text = stdout(&o);
    let line = text
        .lines()
        .find(|l| l.starts_with("report "))
        .unwrap_or_else(|| panic!("no report line in {text}"));
    let report = dir.path().join("world.report.reel");
    assert!(line.contains(p(&report)), "{line}");
    assert!(line.contains("ticks 0..=899"), "{line}");
    assert_ok(&tickreel(&["verify", p(&report)]));
    let info = stdout(&tickreel(&["info", p(&report)]));
    assert!(info.contains("report"), "{info}");

    // An existing report path is not replaced without --force.
    let again = dir.path().join("again.reel");
    let o = tickreel(&[
        "simulate",
        "--out",
        p(&again),
        "--ticks",
        "100",
        "--shadow",
        "--report-out",
        p(&report),
    ]);
    assert!(!o.status.success());
    assert!(!again.exists());
}
