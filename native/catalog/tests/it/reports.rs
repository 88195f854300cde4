//! Shadow-play reports on SQLite and on PostgreSQL: a moderator's decision (reviewed or
//! actioned) is stored with who made it and when, and a name that is empty, too long or holds
//! control characters is refused.

use crate::common;

use crate::common::{Db, player};
use tickreel_catalog::reports::MAX_REVIEWER_CHARS;
use tickreel_catalog::{NewReport, ReportStatus};

fn reviewed_with_who_and_when(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    let new = |n: u32| NewReport {
        reported: player(n),
        reported_name: format!("player{n}"),
        reporter: player(99),
        reason: "fly hack".into(),
        created_ms: Some(1_000 + i64::from(n)),
        server: None,
    };
    let a = cat.add_report(&new(1), None).unwrap();
    let b = cat.add_report(&new(2), None).unwrap();
    assert_eq!(
        (a.status, a.reviewed_by.as_deref()),
        (ReportStatus::Open, None)
    );
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    cat.review_report(a.id, ReportStatus::Reviewed, "mod Ada")
        .unwrap();
    cat.review_report(b.id, ReportStatus::Actioned, "Bö")
        .unwrap();
    let all = cat.reports(None).unwrap();
    let got = |id| all.iter().find(|r| r.id == id).unwrap().clone();
    let (a, b) = (got(a.id), got(b.id));
    assert_eq!(a.status, ReportStatus::Reviewed);
    assert_eq!(a.reviewed_by.as_deref(), Some("mod Ada"));
    assert!(a.reviewed_ms.unwrap() >= before, "{a:?}");
    assert_eq!(b.status, ReportStatus::Actioned);
    assert_eq!(b.reviewed_by.as_deref(), Some("Bö"));
    assert!(cat.reports(Some(ReportStatus::Open)).unwrap().is_empty());
    assert_eq!(cat.reports(Some(ReportStatus::Actioned)).unwrap().len(), 1);

    let long = "x".repeat(MAX_REVIEWER_CHARS + 1);
    for bad in ["", long.as_str(), "a\nb"] {
        let e = cat
            .review_report(a.id, ReportStatus::Actioned, bad)
            .unwrap_err();
        assert!(e.to_string().contains("reviewer"), "{e}");
    }
    let e = cat
        .review_report(999, ReportStatus::Reviewed, "mod")
        .unwrap_err();
    assert!(e.to_string().contains("no report 999"), "{e}");
    assert_eq!(got(a.id).status, ReportStatus::Reviewed);
}

on_both! {
    a_decision_is_stored_with_who_and_when => reviewed_with_who_and_when;
}
