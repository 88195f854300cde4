//! The review desk (`/desk`) in headless Chromium, with a catalog on SQLite: two reviewers'
//! votes make a report's verdict; a calibration miss lowers a reviewer's score (and they stop
//! counting); retention by verdict removes a cleared report and its file but not a recording
//! another report still points at. Reviewers come from a tokens file and from the catalog;
//! what a reviewer is answered says nothing of calibration cases or verdicts. Fails (never
//! skips) when the browser cannot start.

use std::path::Path;
use std::time::Duration;

use crate::serve_support::page::*;
use crate::serve_support::*;
use serde_json::{Value, json};
use tickreel_bench::browser::Browser;
use tickreel_catalog::{Catalog, NewReport, Verdict};

const ALICE: &str = "alice-reviewer-token-01";
const BOB: &str = "bob-reviewer-token-0123";
const CAROL: &str = "carol-reviewer-token-01";
const MODERATOR: &str = "ada-moderator-token-012";
const ADMIN: &str = "root-admin-token-012345";

fn report(cat: &Catalog, n: u32, file: Option<&Path>) -> i64 {
    let r = NewReport {
        reported: uuid::Uuid::from_u128(0x1000_0000_0000_4000_8000_0000_0000_0000 | u128::from(n)),
        reported_name: format!("Suspect{n}"),
        reporter: uuid::Uuid::from_u128(0x2000_0000_0000_4000_8000_0000_0000_0099),
        reason: format!("kill aura {n}"),
        created_ms: Some(1_000 * i64::from(n)),
        server: None,
    };
    cat.add_report(&r, file).unwrap().id
}

/// Opens the desk as the holder of `token` and waits for its first answer.
fn desk_as(b: &mut Browser, base: &str, token: &str) -> Value {
    b.open(&format!("{base}/desk?token={token}")).unwrap();
    wait(b, "!!window.tickreelDesk && !!window.tickreelDesk.state()");
    b.eval("window.tickreelDesk.state()")
}

#[track_caller]
fn wait(b: &mut Browser, expr: &str) {
    b.wait_until(
        expr,
        Duration::from_secs(20),
        "JSON.stringify(window.tickreelDesk && window.tickreelDesk.state())",
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// Votes through the page's form on report `id` of the queue.
fn vote(b: &mut Browser, id: i64, verdict: &str, note: &str, ticks: &str) {
    b.eval(&format!(
        "(() => {{ document.querySelector('#queue li[data-id=\"{id}\"]').click();
           document.getElementById('vote-verdict').value = '{verdict}';
           document.getElementById('vote-note').value = '{note}';
           document.getElementById('vote-ticks').value = '{ticks}';
           document.getElementById('vote-go').click(); return true; }})()"
    ));
    wait(
        b,
        &format!("!window.tickreelDesk.state().queue.some((q) => q.id === {id})"),
    );
}

fn score_text(b: &mut Browser, who: &str) -> String {
    b.eval(&format!(
        "document.querySelector('#scores tr[data-reviewer=\"{who}\"] .known-agreement').textContent"
    ))
    .as_str()
    .unwrap()
    .to_string()
}

#[test]
fn reviewers_votes_calibration_and_retention_on_the_desk() {
    let shots = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer");
    std::fs::create_dir_all(&shots).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (shared, cleared) = (root.join("shared.reel"), root.join("cleared.reel"));
    simulate(&shared, 2, 60);
    simulate(&cleared, 2, 60);
    let db = format!("sqlite:{}", root.join("catalog.db").display());
    let cat = Catalog::open(&db).unwrap();
    // two calibration cases (decided, outcome known), then the report to review, then two
    // cleared reports: one with a file of its own, one on the report's recording
    let (k1, k2) = (report(&cat, 1, None), report(&cat, 2, None));
    for k in [k1, k2] {
        cat.decide_verdict(k, Verdict::Cheating, "ada").unwrap();
        cat.mark_known(k, Some(Verdict::Cheating), "ada").unwrap();
    }
    let a = report(&cat, 3, Some(&shared));
    let c = report(&cat, 4, Some(&cleared));
    let d = report(&cat, 5, Some(&shared));
    drop(cat);
    // the two others were found unsure (by the command line); the moderator clears them later
    for id in [c, d] {
        ok(&[
            "catalog",
            "--db",
            &db,
            "desk",
            "verdict",
            &id.to_string(),
            "unsure",
            "--by",
            "ada",
        ]);
    }
    let tokens = root.join("tokens.txt");
    std::fs::write(
        &tokens,
        format!(
            "alice reviewer {ALICE}\nbob reviewer {BOB}\nada moderator {MODERATOR}\n\
             root admin {ADMIN}\n"
        ),
    )
    .unwrap();
    // carol is kept in the catalog (her token read from a file, never an argument)
    let carol_file = root.join("carol.token");
    std::fs::write(&carol_file, format!("{CAROL}\n")).unwrap();
    ok(&[
        "catalog",
        "--db",
        &db,
        "staff",
        "add",
        "carol",
        "reviewer",
        "--token-file",
        carol_file.to_str().unwrap(),
    ]);
    ok(&[
        "catalog",
        "--db",
        &db,
        "desk",
        "rule",
        "--reviewers",
        "2",
        "--min-agreement",
        "0.75",
        "--min-known",
        "1",
    ]);
    let s = Server::start(&[
        root.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--catalog",
        &db,
        "--tokens-file",
        tokens.to_str().unwrap(),
    ]);
    // a reviewer reads no inbox and no audit log
    assert_eq!(s.get_with("/api/reports", Some(ALICE)).0, 403);
    assert_eq!(s.get_with("/api/audit", Some(BOB)).0, 403);
    assert_eq!(s.get_with("/api/reports", Some(CAROL)).0, 403);
    assert_eq!(s.get_with("/api/reports", Some(MODERATOR)).0, 200);

    let mut b = browser();
    // alice: the report and both calibration cases, told apart by nothing
    let mine = desk_as(&mut b, &s.base, ALICE);
    let ids: Vec<i64> = mine["queue"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [k1, k2, a]);
    assert!(mine.get("reports").is_none() && mine.get("scores").is_none());
    let keys: Vec<String> = mine["queue"][0]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["created_ms", "id", "reason", "recording"]);
    assert!(
        b.eval("document.getElementById('mod-section').hidden")
            .as_bool()
            .unwrap()
    );
    vote(&mut b, a, "cheating", "snaps to heads", "12, 40");
    vote(&mut b, k1, "cheating", "", "");
    vote(&mut b, k2, "cheating", "", "");
    // carol (from the catalog) has the calibration cases only: the report went to two
    let carols = desk_as(&mut b, &s.base, CAROL);
    let ids: Vec<i64> = carols["queue"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [k1, k2]);

    // bob: hits the first calibration case; the moderator sees his score
    desk_as(&mut b, &s.base, BOB);
    vote(&mut b, k1, "cheating", "", "");
    desk_as(&mut b, &s.base, MODERATOR);
    wait(
        &mut b,
        "!!document.querySelector('#scores tr[data-reviewer=\"bob\"]')",
    );
    let before = score_text(&mut b, "bob");
    assert_eq!(before, "100 % of 1");
    // no verdict on one vote of two
    let row = |d: &Value, id: i64| {
        d["reports"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()
            .clone()
    };
    let m = b.eval("window.tickreelDesk.state()");
    assert_eq!(row(&m, a)["verdict"], Value::Null);

    // bob: the second vote on the report makes its verdict; he misses the second case
    desk_as(&mut b, &s.base, BOB);
    vote(&mut b, a, "cheating", "", "");
    vote(&mut b, k2, "not_cheating", "looked fine", "");
    let m = desk_as(&mut b, &s.base, MODERATOR);
    let ra = row(&m, a);
    assert_eq!(
        (&ra["verdict"], &ra["verdict_by"]),
        (&json!("cheating"), &json!("majority"))
    );
    assert_eq!(ra["status"], "actioned");
    let votes: Vec<(&str, &str)> = ra["votes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["reviewer"].as_str().unwrap(),
                v["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(votes, [("alice", "cheating"), ("bob", "cheating")]);
    assert_eq!(ra["votes"][0]["ticks"], json!([12, 40]));
    let shown = b
        .eval(&format!(
            "document.querySelector('#desk-reports tr[data-id=\"{a}\"] .verdict').textContent"
        ))
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(shown, "cheating by majority");
    // the miss lowers bob's score below the threshold: he no longer counts
    let after = score_text(&mut b, "bob");
    assert_eq!(after, "50 % of 2");
    let counts =
        b.eval("document.querySelector('#scores tr[data-reviewer=\"bob\"] .counts').textContent");
    assert_eq!(counts, "no");
    assert_eq!(score_text(&mut b, "alice"), "100 % of 2");
    // the moderator clears the two other reports from the page
    for id in [c, d] {
        b.eval(&format!(
            "document.querySelector('#desk-reports tr[data-id=\"{id}\"] button[data-verdict=\"not_cheating\"]').click()"
        ));
        wait(
            &mut b,
            &format!(
                "window.tickreelDesk.state().reports.some((r) => r.id === {id} && r.verdict === 'not_cheating')"
            ),
        );
    }
    assert!(screenshot(&mut b, &shots.join("desk-moderator.png")) > 5000);
    // a moderator sets no retention
    assert!(
        b.eval("document.getElementById('admin-section').hidden")
            .as_bool()
            .unwrap()
    );

    // the admin: cleared reports go at once (0 days), cheating ones are kept for good
    desk_as(&mut b, &s.base, ADMIN);
    b.eval(
        "document.getElementById('keep-not_cheating').value = '0';
         document.getElementById('keep-cheating').value = 'keep';
         document.getElementById('retention-dry').click()",
    );
    wait(&mut b, "!!window.tickreelDesk.state().retention_result");
    let dry = b.eval("window.tickreelDesk.state().retention_result");
    assert_eq!(dry["dry_run"], true);
    let locs: Vec<&str> = dry["recordings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["location"].as_str().unwrap())
        .collect();
    let cleared_loc = cleared.canonicalize().unwrap();
    assert_eq!(locs, [cleared_loc.to_str().unwrap()]);
    assert_eq!(dry["reports_alone"], json!([d]));
    assert!(cleared.exists(), "a dry run deletes nothing");
    let listed = b.eval("document.getElementById('retention-list').textContent");
    assert!(
        listed.as_str().unwrap().contains("would delete"),
        "{listed}"
    );
    b.eval("document.getElementById('retention-apply').click()");
    wait(
        &mut b,
        "window.tickreelDesk.state().retention_result.dry_run === false",
    );
    assert!(!cleared.exists(), "the cleared report's file is gone");
    assert!(shared.exists(), "another report still points at it");
    let left: Vec<i64> = b
        .eval("window.tickreelDesk.state().reports.map((r) => r.id)")
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let mut left = left;
    left.sort_unstable();
    assert_eq!(left, [k1, k2, a]);
    assert!(screenshot(&mut b, &shots.join("desk-admin.png")) > 5000);

    // every action is in the audit log, with who
    let (_, log) = s.get_with("/api/audit?n=200", Some(MODERATOR));
    let of = |action: &str, who: &str| {
        log["views"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v["action"] == action && v["who"] == who)
            .count()
    };
    assert_eq!(of("vote", "alice"), 3);
    assert_eq!(of("vote", "bob"), 3);
    assert_eq!(of("verdict", "majority"), 1);
    assert_eq!(
        of("verdict", "ada"),
        6,
        "two cases, two unsure, two cleared"
    );
    assert_eq!(of("prune", "root"), 1);
    assert_eq!(
        of("retention", "root"),
        4,
        "two policies, set twice (dry run, apply)"
    );
}
