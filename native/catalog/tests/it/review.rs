//! The review desk on SQLite and on PostgreSQL (schema version 9): staff kept by their token's
//! hash; reports assigned to N reviewers; votes making a verdict by majority, or a moderator
//! deciding; calibration cases scoring reviewers, a reviewer below the threshold no longer
//! counting; every action in the audit log; retention by verdict deleting a cleared report and
//! its file but never a recording another row still points at.

use crate::common;

use crate::common::{Db, Runner, player};
use tickreel_catalog::review::{BY_MAJORITY, token_sha256};
use tickreel_catalog::{
    Catalog, NewReport, PruneOptions, ReportStatus, ReviewRule, Verdict, VerdictRule,
};

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

fn rule(reviewers: u32, rule: VerdictRule) -> ReviewRule {
    ReviewRule {
        reviewers,
        rule,
        min_agreement: 0.5,
        min_known: 1,
    }
}

fn staff_by_token_hash(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, url) = common::fresh(db, dir.path());
    let token = "alice-review-token-0123";
    cat.add_staff("alice", "reviewer", token, "admin").unwrap();
    cat.add_staff("bob", "moderator", "bob-moderator-token-0123", "admin")
        .unwrap();
    let found = cat.staff_by_token(token).unwrap().unwrap();
    assert_eq!(
        (found.name.as_str(), found.role.as_str()),
        ("alice", "reviewer")
    );
    assert!(
        cat.staff_by_token("alice-review-token-012")
            .unwrap()
            .is_none()
    );
    // the token is never stored: only its hash
    let stored = Catalog::open(&url).unwrap();
    assert_eq!(stored.staff().unwrap().len(), 2);
    assert_eq!(token_sha256(token).len(), 64);
    for bad in [
        ("carol", "boss", "carol-token-0123456789"),
        ("carol", "reviewer", "short"),
        ("ca rol", "reviewer", "carol-token-0123456789"),
        ("carol", "reviewer", token),
    ] {
        let e = cat.add_staff(bad.0, bad.1, bad.2, "admin").unwrap_err();
        assert!(!e.to_string().contains(bad.2) || bad.2 == "boss", "{e}");
    }
    assert!(cat.remove_staff("alice", "admin").unwrap());
    assert!(cat.staff_by_token(token).unwrap().is_none());
    let actions: Vec<String> = cat
        .report_views(10)
        .unwrap()
        .into_iter()
        .map(|v| v.action)
        .collect();
    assert_eq!(actions, ["staff-remove", "staff-add", "staff-add"]);
}

fn two_votes_make_a_verdict(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    cat.set_review_rule(rule(2, VerdictRule::Majority), "admin")
        .unwrap();
    let a = cat.add_report(&new_report(1, 1_000), None).unwrap();
    let b = cat.add_report(&new_report(2, 2_000), None).unwrap();
    let made = cat
        .assign_reports(&["alice", "bob", "carol"], "desk")
        .unwrap();
    // each report to two reviewers, the least loaded first
    assert_eq!(made.len(), 4);
    let of = |id| {
        let mut v: Vec<String> = made
            .iter()
            .filter(|m| m.report_id == id)
            .map(|m| m.reviewer.clone())
            .collect();
        v.sort();
        v
    };
    assert_eq!(of(a.id), ["alice", "bob"]);
    assert_eq!(of(b.id), ["alice", "carol"]);
    // assigning again adds nothing
    assert!(
        cat.assign_reports(&["alice", "bob", "carol"], "desk")
            .unwrap()
            .is_empty()
    );
    assert_eq!(cat.queue("alice").unwrap().len(), 2);

    // a vote from someone it is not assigned to is refused
    let e = cat
        .vote(a.id, "carol", Verdict::Cheating, None, &[])
        .unwrap_err();
    assert!(e.to_string().contains("not assigned"), "{e}");
    let first = cat
        .vote(
            a.id,
            "alice",
            Verdict::Cheating,
            Some("aim snaps"),
            &[40, 12, 40],
        )
        .unwrap();
    assert_eq!(first, None, "one vote of two is no majority");
    assert!(cat.vote(a.id, "alice", Verdict::Unsure, None, &[]).is_err());
    let decided = cat
        .vote(a.id, "bob", Verdict::Cheating, None, &[])
        .unwrap()
        .expect("two of two");
    assert_eq!(
        (decided.verdict, decided.by.as_str()),
        (Verdict::Cheating, BY_MAJORITY)
    );
    let v = cat.verdict(a.id).unwrap().unwrap();
    assert_eq!(v.by, BY_MAJORITY);
    assert!(v.at_ms > 0);
    let row = cat
        .reports(None)
        .unwrap()
        .into_iter()
        .find(|r| r.id == a.id)
        .unwrap();
    assert_eq!(row.status, ReportStatus::Actioned);
    let votes = cat.votes(a.id).unwrap();
    assert_eq!(votes.len(), 2);
    assert_eq!(votes[0].ticks, [12, 40]);
    assert_eq!(votes[0].note.as_deref(), Some("aim snaps"));
    assert!(votes.iter().all(|v| v.counted));
    assert_eq!(cat.queue("alice").unwrap().len(), 1);

    // split votes decide nothing; a moderator does
    cat.vote(b.id, "alice", Verdict::NotCheating, None, &[])
        .unwrap();
    assert_eq!(
        cat.vote(b.id, "carol", Verdict::Cheating, None, &[])
            .unwrap(),
        None
    );
    assert!(cat.verdict(b.id).unwrap().is_none());
    let m = cat
        .decide_verdict(b.id, Verdict::NotCheating, "mod-ada")
        .unwrap();
    assert_eq!(cat.verdict(b.id).unwrap().unwrap().by, "mod-ada");
    assert_eq!(m.verdict, Verdict::NotCheating);

    // every action is in the audit log, with who
    let log = cat.report_views(100).unwrap();
    let count = |action: &str| log.iter().filter(|v| v.action == action).count();
    assert_eq!(
        (count("assign"), count("vote"), count("verdict")),
        (4, 4, 2)
    );
    assert!(log.iter().any(|v| v.action == "verdict"
        && v.who == "mod-ada"
        && v.detail.as_deref() == Some("not_cheating")));
    assert!(log.iter().any(|v| v.action == "vote"
        && v.who == "alice"
        && v.detail.as_deref() == Some("cheating (aim snaps)")));

    // under the moderator rule, votes only advise
    cat.set_review_rule(rule(1, VerdictRule::Moderator), "admin")
        .unwrap();
    let c = cat.add_report(&new_report(3, 3_000), None).unwrap();
    cat.assign_reports(&["bob"], "desk").unwrap();
    assert_eq!(
        cat.vote(c.id, "bob", Verdict::Cheating, None, &[]).unwrap(),
        None
    );
    assert!(cat.verdict(c.id).unwrap().is_none());
    assert!(
        cat.set_review_rule(rule(0, VerdictRule::Majority), "admin")
            .is_err()
    );
}

fn calibration_scores_reviewers(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    cat.set_review_rule(
        ReviewRule {
            reviewers: 2,
            rule: VerdictRule::Majority,
            min_agreement: 0.75,
            min_known: 1,
        },
        "admin",
    )
    .unwrap();
    // a decided report made a calibration case: it goes to every reviewer
    let known = cat.add_report(&new_report(1, 1_000), None).unwrap();
    cat.decide_verdict(known.id, Verdict::Cheating, "mod")
        .unwrap();
    cat.mark_known(known.id, Some(Verdict::Cheating), "mod")
        .unwrap();
    let made = cat
        .assign_reports(&["alice", "bob", "carol"], "desk")
        .unwrap();
    assert_eq!(made.len(), 3);
    // in a queue as any report is
    assert_eq!(cat.queue("bob").unwrap()[0].report_id, known.id);
    cat.vote(known.id, "alice", Verdict::Cheating, None, &[])
        .unwrap();
    cat.vote(known.id, "bob", Verdict::NotCheating, None, &[])
        .unwrap();
    // a calibration vote decides nothing and counts for nothing
    assert!(cat.votes(known.id).unwrap().iter().all(|v| !v.counted));
    assert_eq!(cat.verdict(known.id).unwrap().unwrap().by, "mod");
    let scores = cat.reviewer_scores().unwrap();
    let s = |n: &str| scores.iter().find(|s| s.reviewer == n).unwrap().clone();
    assert_eq!((s("alice").known, s("alice").known_agreed), (1, 1));
    assert_eq!(s("alice").known_agreement(), Some(1.0));
    assert_eq!(s("bob").known_agreement(), Some(0.0));
    assert!(s("alice").counts && !s("bob").counts);
    assert!(s("carol").counts, "no calibration vote yet: counts");
    assert_eq!(s("carol").pending, 1);

    // bob gets no new report; his vote on one assigned before does not count
    let r = cat.add_report(&new_report(2, 2_000), None).unwrap();
    let made = cat
        .assign_reports(&["alice", "bob", "carol"], "desk")
        .unwrap();
    let to: Vec<&str> = made.iter().map(|m| m.reviewer.as_str()).collect();
    assert_eq!(to, ["alice", "carol"]);
    cat.assign_report(r.id, "bob", "mod").unwrap();
    cat.vote(r.id, "bob", Verdict::Cheating, None, &[]).unwrap();
    assert_eq!(
        cat.vote(r.id, "alice", Verdict::Cheating, None, &[])
            .unwrap(),
        None
    );
    let v = cat
        .vote(r.id, "carol", Verdict::Cheating, None, &[])
        .unwrap()
        .expect("alice and carol count: two of two");
    assert_eq!(v.verdict, Verdict::Cheating);
    let votes = cat.votes(r.id).unwrap();
    assert!(!votes.iter().find(|v| v.reviewer == "bob").unwrap().counted);
    // agreement with the consensus
    let scores = cat.reviewer_scores().unwrap();
    let bob = scores.iter().find(|s| s.reviewer == "bob").unwrap();
    assert_eq!((bob.consensus, bob.consensus_agreed), (1, 1));
    assert_eq!(
        cat.known_outcomes().unwrap(),
        [(known.id, Verdict::Cheating)]
    );
}

/// A report with a recording of its own, and one whose recording a run also points at.
fn retention_by_verdict(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    let own = common::record(dir.path(), "own.reel", &[Runner::new(1, 0, 20, &[])]);
    let shared = common::record(
        dir.path(),
        "shared.reel",
        &[Runner::new(1, 0, 20, &[(1, 10)])],
    );
    let cheat = common::record(dir.path(), "cheat.reel", &[Runner::new(2, 0, 20, &[])]);
    let day = 86_400_000i64;
    let cleared = cat.add_report(&new_report(1, 0), Some(&own)).unwrap();
    let both = cat.add_report(&new_report(2, 0), Some(&shared)).unwrap();
    let run = cat
        .register(&shared, &[common::spec("c", 7, 1, 0)])
        .unwrap();
    assert_eq!(run.recording_id, both.recording_id.unwrap());
    let kept = cat.add_report(&new_report(3, 0), Some(&cheat)).unwrap();
    let open = cat.add_report(&new_report(4, 0), None).unwrap();
    for (r, v) in [
        (&cleared, Verdict::NotCheating),
        (&both, Verdict::NotCheating),
        (&kept, Verdict::Cheating),
    ] {
        cat.decide_verdict(r.id, v, "mod").unwrap();
    }
    cat.set_verdict_retention(Verdict::NotCheating, Some(7))
        .unwrap();
    cat.set_verdict_retention(Verdict::Cheating, Some(365))
        .unwrap();
    cat.set_verdict_retention(Verdict::Unsure, None).unwrap();
    assert_eq!(cat.verdict_retention().unwrap().len(), 3);
    let at = |days: i64| PruneOptions {
        dry_run: true,
        now_ms: Some(common_now() + days * day),
        ..PruneOptions::default()
    };
    // six days on, nothing goes
    let dry = cat.prune(at(6)).unwrap();
    assert!(
        dry.recordings.is_empty() && dry.reports_alone.is_empty(),
        "{dry:?}"
    );
    // eight days on: the cleared report and its file; the other cleared report's row alone
    let dry = cat.prune(at(8)).unwrap();
    let locs: Vec<&str> = dry.recordings.iter().map(|p| p.location.as_str()).collect();
    assert_eq!(
        locs,
        [cleared_location(&cat, cleared.recording_id.unwrap()).as_str()]
    );
    assert_eq!(dry.reports_alone, [both.id]);
    assert!(own.exists());
    let real = cat
        .prune(PruneOptions {
            dry_run: false,
            ..at(8)
        })
        .unwrap();
    assert_eq!(real.recordings, dry.recordings);
    assert_eq!(real.reports_alone, dry.reports_alone);
    assert!(!own.exists(), "the cleared report's file is gone");
    assert!(shared.exists(), "a run still points at it");
    assert!(cheat.exists());
    let left: Vec<i64> = cat.reports(None).unwrap().iter().map(|r| r.id).collect();
    assert_eq!(left, [open.id, kept.id]);
    assert_eq!(cat.recordings().unwrap().len(), 2);
    // a year and a day on, the cheating report goes too
    let real = cat
        .prune(PruneOptions {
            dry_run: false,
            ..at(366)
        })
        .unwrap();
    assert_eq!(real.recordings.len(), 1);
    assert!(!cheat.exists() && shared.exists());
}

fn common_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn cleared_location(cat: &Catalog, id: i64) -> String {
    cat.recording(id).unwrap().unwrap().location
}

/// Version 8 to 9: a report and an audit row of before keep their values, have no verdict and no
/// detail, and go through the desk like a new report.
fn upgrade_from_version_8(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let url = common::fresh_url(db, dir.path());
    let v8 = Catalog::open_at_version(&url, 8).unwrap();
    assert_eq!(v8.schema_version().unwrap(), 8);
    assert!(v8.execute_raw("SELECT 1 FROM report_votes").is_err());
    v8.execute_raw(&format!(
        "INSERT INTO reports (id, reported, reported_name, reporter, reason, created_ms, status)
         VALUES (5, '{}', 'old', '{}', 'fly', 100, 'open');
         INSERT INTO report_views (at_ms, who, action, report_id, recording)
         VALUES (200, 'ada', 'open', 5, 'catalog:1');",
        player(1),
        player(2)
    ))
    .unwrap();
    drop(v8);
    let cat = Catalog::open(&url).unwrap();
    assert_eq!(
        cat.migrated(),
        tickreel_catalog::Migrated {
            from: 8,
            to: tickreel_catalog::SCHEMA_VERSION
        }
    );
    assert_eq!(tickreel_catalog::SCHEMA_VERSION, 9);
    let old = cat.report_views(10).unwrap();
    assert_eq!(
        (old[0].who.as_str(), old[0].detail.as_deref()),
        ("ada", None)
    );
    assert!(cat.verdict(5).unwrap().is_none());
    assert_eq!(cat.review_rule().unwrap(), ReviewRule::default());
    cat.set_review_rule(rule(1, VerdictRule::Majority), "admin")
        .unwrap();
    cat.assign_reports(&["alice"], "desk").unwrap();
    let v = cat.vote(5, "alice", Verdict::Unsure, None, &[]).unwrap();
    assert_eq!(v.map(|v| v.verdict), Some(Verdict::Unsure));
    assert_eq!(cat.reports(None).unwrap()[0].status, ReportStatus::Reviewed);
}

on_both! {
    an_upgrade_from_version_8_adds_the_desk => upgrade_from_version_8;
    staff_are_kept_by_their_tokens_hash => staff_by_token_hash;
    two_votes_make_a_verdict_and_every_action_is_logged => two_votes_make_a_verdict;
    calibration_misses_stop_a_reviewer_counting => calibration_scores_reviewers;
    retention_by_verdict_keeps_a_recording_still_pointed_at => retention_by_verdict;
}
