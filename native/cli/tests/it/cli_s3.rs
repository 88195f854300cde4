//! The commands against object URLs on a real S3-protocol server on loopback (`moto_server`,
//! signatures checked): `upload`, `ls`, and `info`, `verify`, `dump`, `export`, `ghost`, `play`
//! giving the same output for `s3://...` as for the local file (`render` and `ghost --plot` the
//! same picture).

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use tickreel::record::ChunkPolicy;
use tickreel_object::testing::S3Server;

fn tickreel(server: &S3Server, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tickreel"));
    c.args(args);
    for (k, v) in server.env() {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn failed(server: &S3Server, out: Output) -> String {
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    let c = server.credentials();
    assert!(
        !err.contains(&c.access_key_id) && !err.contains(&c.secret_access_key),
        "{err}"
    );
    err
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn read_commands_take_an_object_url_and_upload_and_ls_manage_objects() {
    let server = S3Server::start_lenient();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("run.reel");
    let ticks = common::checkpoint_run(900, 5);
    common::write_reel(
        &local,
        &ticks,
        ChunkPolicy {
            chunk_ticks: 50,
            ..ChunkPolicy::default()
        },
    );
    let url = server.url("course/run.reel");

    let up = ok(tickreel(&server, &["upload", s(&local), &url]));
    assert!(up.starts_with(&format!("uploaded {url} (")), "{up}");
    let again = failed(&server, tickreel(&server, &["upload", s(&local), &url]));
    assert!(
        again.contains("already exists") && again.contains("local file is kept"),
        "{again}"
    );
    ok(tickreel(&server, &["upload", s(&local), &url, "--force"]));
    // a key ending in '/' takes the file's name
    ok(tickreel(
        &server,
        &["upload", s(&local), &server.url("other/")],
    ));

    let ls = ok(tickreel(&server, &["ls", &server.url(""), "--json"]));
    let listed: Vec<serde_json::Value> = ls
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let size = std::fs::metadata(&local).unwrap().len();
    assert_eq!(listed.len(), 2, "{ls}");
    assert_eq!(listed[0]["url"], url.as_str());
    assert_eq!(listed[0]["size"], size);
    assert_eq!(listed[1]["url"], server.url("other/run.reel").as_str());
    let ls = ok(tickreel(&server, &["ls", &server.url("course")]));
    assert_eq!(ls.lines().count(), 1, "{ls}");

    // every read command: the same output from the URL as from the file
    let same = |args: &[&str]| {
        let at = |file: &str| {
            let mut a: Vec<&str> = vec![args[0], file];
            a.extend_from_slice(&args[1..]);
            ok(tickreel(&server, &a))
        };
        let (from_file, from_url) = (at(s(&local)), at(&url));
        assert!(!from_file.is_empty());
        assert_eq!(from_url, from_file, "{args:?}");
    };
    same(&["verify"]);
    same(&["dump"]);
    same(&["export", "-"]);
    same(&["ghost", "--entity", "1"]);
    same(&["ghost", "--entity", "1", "--splits"]);
    same(&["play", "--from", "100", "--ticks", "40", "--speed", "2"]);
    // render and ghost --plot draw the same picture from the URL as from the file
    let draw = |input: &str, name: &str, args: &[&str]| {
        let out = dir.path().join(name);
        let mut a: Vec<&str> = vec![args[0], input];
        a.extend_from_slice(&args[1..]);
        a.extend_from_slice(&[
            "--force",
            if args[0] == "ghost" {
                "--plot"
            } else {
                "--out"
            },
        ]);
        a.push(s(&out));
        ok(tickreel(&server, &a));
        std::fs::read_to_string(&out)
            .unwrap()
            .replace(input, "FILE")
    };
    for args in [
        &["render"][..],
        &["render", "--entity", "1", "--from", "100"][..],
        &["ghost", "--entity", "1", "--ghost-entity", "2"][..],
    ] {
        let (from_file, from_url) = (draw(s(&local), "f.svg", args), draw(&url, "u.svg", args));
        assert!(from_file.contains("<svg"), "{args:?}");
        assert_eq!(from_url, from_file, "{args:?}");
    }
    let info_url: serde_json::Value =
        serde_json::from_str(&ok(tickreel(&server, &["info", &url, "--json"]))).unwrap();
    let info_file: serde_json::Value =
        serde_json::from_str(&ok(tickreel(&server, &["info", s(&local), "--json"]))).unwrap();
    let mut a = info_url.as_object().unwrap().clone();
    let mut b = info_file.as_object().unwrap().clone();
    assert_eq!(a.remove("file").unwrap(), url.as_str());
    b.remove("file");
    assert_eq!(
        a, b,
        "info of the object and of the file (its size included)"
    );
    let text = ok(tickreel(&server, &["info", &url]));
    assert!(text.contains(&url), "{text}");

    let missing = failed(
        &server,
        tickreel(&server, &["verify", &server.url("none.reel")]),
    );
    assert!(
        missing.contains("s3://tickreel-test/none.reel") && missing.contains("no such object"),
        "{missing}"
    );
    // --follow of a finished object: plays it to its end, as a local finished file.
    let follow = ok(tickreel(
        &server,
        &["play", &url, "--follow", "--speed", "16"],
    ));
    assert!(follow.lines().count() > 1, "{follow}");
    let bad = failed(&server, tickreel(&server, &["ls", "s3://No_Such"]));
    assert!(bad.contains("bucket name"), "{bad}");
}

/// Retention by verdict on recordings in object storage: `catalog prune --dry-run` lists the
/// cleared report's object and deletes nothing; `catalog prune` deletes that object and its rows,
/// and keeps the cheating report's object.
#[test]
fn retention_by_verdict_deletes_a_cleared_reports_object() {
    let server = S3Server::start_lenient();
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("catalog.db").display());
    let mut urls = Vec::new();
    for name in ["cleared.reel", "cheat.reel"] {
        let local = dir.path().join(name);
        common::write_reel(
            &local,
            &common::checkpoint_run(200, 2),
            ChunkPolicy::default(),
        );
        let url = server.url(&format!("reports/{name}"));
        ok(tickreel(&server, &["upload", s(&local), &url]));
        urls.push(url);
    }
    let mut ids = Vec::new();
    for url in &urls {
        let out = ok(tickreel(
            &server,
            &[
                "catalog",
                "--db",
                &db,
                "--json",
                "report",
                "--reported",
                "6f1c1b5e-0c5a-4c41-9f57-5a4f1f1b2c3d",
                "--name",
                "Mallory",
                "--reporter",
                "11111111-2222-4333-8444-555555555555",
                "--reason",
                "fly",
                "--recording",
                url,
            ],
        ));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        ids.push(v[0]["report"].as_i64().unwrap().to_string());
    }
    let desk = |args: &[&str]| {
        let mut full = vec!["catalog", "--db", &db, "desk"];
        full.extend(args);
        ok(tickreel(&server, &full))
    };
    desk(&["verdict", &ids[0], "not_cheating", "--by", "ada"]);
    desk(&["verdict", &ids[1], "cheating", "--by", "ada"]);
    desk(&["retain", "not_cheating", "0"]);
    desk(&["retain", "cheating", "keep"]);
    let listed = |server: &S3Server| -> usize {
        ok(tickreel(server, &["ls", &server.url("reports/")]))
            .lines()
            .count()
    };
    assert_eq!(listed(&server), 2);
    let dry = ok(tickreel(
        &server,
        &["catalog", "--db", &db, "prune", "--dry-run"],
    ));
    assert!(dry.contains(&format!("would delete {}", urls[0])), "{dry}");
    assert!(!dry.contains(&urls[1]), "{dry}");
    assert_eq!(listed(&server), 2, "a dry run deletes nothing");
    let done = ok(tickreel(&server, &["catalog", "--db", &db, "prune"]));
    assert!(done.contains(&format!("deleted {}", urls[0])), "{done}");
    let ls = ok(tickreel(&server, &["ls", &server.url("reports/")]));
    assert_eq!(ls.lines().count(), 1, "{ls}");
    assert!(
        ls.contains("cheat.reel") && !ls.contains("cleared.reel"),
        "{ls}"
    );
    let reports = ok(tickreel(
        &server,
        &["catalog", "--db", &db, "--json", "reports"],
    ));
    let v: serde_json::Value = serde_json::from_str(&reports).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1, "{reports}");
}
