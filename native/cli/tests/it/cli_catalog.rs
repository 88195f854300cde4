//! `tickreel catalog`: registering runs of real recordings, the board as text and JSON, a
//! player's best and recent runs, retention policies and `prune --dry-run` / `prune` (what the
//! dry run lists is what the real run deletes), on an SQLite catalog.

use std::path::{Path, PathBuf};
use std::process::Command;

use tickreel::format::{Event, encode_batch};
use tickreel::{Engine, EngineOptions, Pose, RecorderOptions};
use uuid::Uuid;

const P1: &str = "00000000-0000-4000-8000-000000000001";
const P2: &str = "00000000-0000-4000-8000-000000000002";

/// A recording of entity 1 running `ticks` ticks, crossing checkpoint 1 halfway.
fn record(dir: &Path, name: &str, ticks: u32) -> PathBuf {
    record_on(dir, name, ticks, None)
}

/// [`record`] on the game server `server`.
fn record_on(dir: &Path, name: &str, ticks: u32, server: Option<&str>) -> PathBuf {
    let options = RecorderOptions {
        server: server.map(str::to_owned),
        ..RecorderOptions::default()
    };
    record_with(dir, name, ticks, options)
}

/// [`record`] on version `version` of the world `WORLD`.
fn record_on_map(dir: &Path, name: &str, ticks: u32, version: &str) -> PathBuf {
    let mut options = RecorderOptions::default();
    options.identity.world_id = *Uuid::parse_str(WORLD).unwrap().as_bytes();
    options.identity.world_version = *Uuid::parse_str(version).unwrap().as_bytes();
    record_with(dir, name, ticks, options)
}

const WORLD: &str = "00000000-0000-0000-0000-000000000077";

/// [`record`] with the recorder's `options`.
fn record_with(dir: &Path, name: &str, ticks: u32, options: RecorderOptions) -> PathBuf {
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine.start_recording(dir.join(name), options).unwrap();
    let mut batch = Vec::new();
    for tick in 0..=ticks {
        let pose = Pose::from_f64(f64::from(tick), 64.0, 0.0, 0.0, 0.0);
        let mut events = vec![if tick == 0 {
            Event::EntityAdd {
                entity: 1,
                kind: 0,
                pose,
            }
        } else {
            Event::Pose { entity: 1, pose }
        }];
        if tick == ticks / 2 {
            events.push(Event::Checkpoint {
                entity: 1,
                index: 1,
            });
        }
        batch.clear();
        encode_batch(&events, &mut batch).unwrap();
        rec.submit_tick(tick, &batch).unwrap();
    }
    let file = rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
    file
}

fn catalog(db: &str, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args(["catalog", "--db", db])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn ok(db: &str, args: &[&str]) -> String {
    let (success, out, err) = catalog(db, args);
    assert!(success, "tickreel catalog {args:?} failed: {err}");
    out
}

fn json(db: &str, args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.push("--json");
    serde_json::from_str(&ok(db, &all)).unwrap()
}

#[test]
fn operators_register_query_and_prune() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("c.db").display());
    let fast = record(dir.path(), "fast.reel", 60);
    let slow = record(dir.path(), "slow.reel", 90);
    let other = record(dir.path(), "other.reel", 70);
    let add = |file: &Path, player: &str, name: &str| {
        let f = file.to_str().unwrap();
        ok(
            &db,
            &[
                "add", f, "--course", "c1", "--player", player, "--name", name, "--entity", "1",
            ],
        )
    };
    add(&slow, P1, "alice");
    add(&fast, P1, "alice");
    add(&other, P2, "bob");

    let top = ok(&db, &["top", "c1"]);
    let lines: Vec<&str> = top.lines().collect();
    assert_eq!(lines.len(), 2, "{top}");
    assert!(
        lines[0].contains("alice") && lines[0].contains("3.00 s"),
        "{top}"
    );
    assert!(
        lines[1].contains("bob") && lines[1].contains("3.50 s"),
        "{top}"
    );
    let top = json(&db, &["top", "c1", "-n", "1"]);
    assert_eq!(top.as_array().unwrap().len(), 1);
    assert_eq!(top[0]["ticks"], 60);
    assert_eq!(top[0]["rank"], 1);
    let pb = json(&db, &["pb", "c1", P2]);
    assert_eq!(pb[0]["rank"], 2);
    let runs = json(&db, &["runs", P1]);
    assert_eq!(runs.as_array().unwrap().len(), 2);
    let run = top[0]["run"].as_i64().unwrap().to_string();
    let splits = json(&db, &["splits", &run]);
    assert_eq!(splits[0]["tick"], 30);
    let sob = json(&db, &["sob", "c1"]);
    assert_eq!(sob["ticks"], 60);

    // a run of an unfinished recording is refused and not listed
    let live = dir.path().join("open.reel.live");
    std::fs::create_dir(&live).unwrap();
    let (success, _, err) = catalog(
        &db,
        &[
            "add",
            live.to_str().unwrap(),
            "--course",
            "c1",
            "--player",
            P2,
            "--name",
            "bob",
            "--entity",
            "1",
        ],
    );
    assert!(!success && err.contains("open.reel.live"), "{err}");
    assert_eq!(json(&db, &["recordings"]).as_array().unwrap().len(), 3);

    // retention: the top 1 only, so alice's slow run and bob's run may go
    ok(
        &db,
        &["retain", "course:c1", "--keep-top", "1", "--no-keep-bests"],
    );
    let policies = json(&db, &["retain"]);
    assert_eq!(policies[0]["scope"], "course:c1");
    let dry = json(&db, &["prune", "--dry-run"]);
    assert_eq!(dry["rows"]["recordings"], 2);
    assert!(slow.exists() && other.exists());
    let real = json(&db, &["prune"]);
    assert_eq!(real["recordings"], dry["recordings"]);
    assert_eq!(real["rows"], dry["rows"]);
    assert!(!slow.exists() && !other.exists() && fast.exists());
    assert_eq!(json(&db, &["top", "c1"]).as_array().unwrap().len(), 1);
    assert!(ok(&db, &["prune", "--dry-run"]).contains("would delete: 0 recordings"));
}

#[test]
fn a_bad_url_is_refused_without_showing_a_password() {
    let (success, _, err) = catalog("mysql://root:TopSecret@h/db", &["top", "c"]);
    assert!(!success);
    assert!(!err.contains("TopSecret") && err.contains("mysql"), "{err}");
}

/// A player's name comes from a game client: the text listings show its control characters and
/// reorderings as `\u{..}` instead of sending them to the moderator's terminal; `--json` keeps
/// the name exact (JSON escapes them itself).
#[test]
fn names_with_terminal_escapes_are_shown_not_sent() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("c.db").display());
    let run = record(dir.path(), "run.reel", 60);
    let evil = "\u{1b}]0;pwned\u{7}\u{1b}[2Jmallory\u{202e}";
    ok(
        &db,
        &[
            "add",
            run.to_str().unwrap(),
            "--course",
            "c1\u{1b}[31m",
            "--player",
            P1,
            "--name",
            evil,
            "--entity",
            "1",
        ],
    );
    for args in [&["top", "c1\u{1b}[31m"][..], &["runs", P1]] {
        let out = ok(&db, args);
        assert!(out.contains("mallory"), "{args:?}: {out}");
        assert!(
            !out.chars()
                .any(|c| c.is_control() && c != '\n' || c == '\u{202e}'),
            "{args:?} printed a control character: {out:?}"
        );
        assert!(
            out.contains("\\u{1b}[2Jmallory\\u{202e}"),
            "{args:?}: {out:?}"
        );
    }
    let doc = json(&db, &["top", "c1\u{1b}[31m"]);
    assert_eq!(doc[0]["name"], evil);
}

/// A network: `top` and `pb` of one server (`--server`), a player's reports on any server or
/// one (`reports --player`), and the rows' server and location in JSON.
#[test]
fn boards_and_reports_of_one_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("c.db").display());
    let eu = record_on(dir.path(), "eu.reel", 60, Some("eu-1"));
    let us = record_on(dir.path(), "us.reel", 50, Some("us-1"));
    for (file, player) in [(&eu, P1), (&us, P2)] {
        let f = file.to_str().unwrap();
        ok(
            &db,
            &[
                "add", f, "--course", "c1", "--player", player, "--name", "p", "--entity", "1",
            ],
        );
    }
    let players = |v: serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["player"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(players(json(&db, &["top", "c1"])), [P2, P1]);
    let on_eu = json(&db, &["top", "c1", "--server", "eu-1"]);
    assert_eq!(players(on_eu.clone()), [P1]);
    assert_eq!(on_eu[0]["server"], "eu-1");
    let loc = on_eu[0]["location"].as_str().unwrap().to_owned();
    assert!(loc.ends_with("eu.reel"), "{loc}");
    assert_eq!(
        json(&db, &["pb", "c1", P1, "--server", "us-1"]),
        serde_json::json!([])
    );

    let e = eu.to_str().unwrap();
    ok(
        &db,
        &[
            "report",
            "--reported",
            P2,
            "--name",
            "b",
            "--reporter",
            P1,
            "--reason",
            "fly",
            "--recording",
            e,
        ],
    );
    ok(
        &db,
        &[
            "report",
            "--reported",
            P2,
            "--name",
            "b",
            "--reporter",
            P1,
            "--reason",
            "x",
            "--server",
            "us-1",
        ],
    );
    let servers = |v: serde_json::Value| -> Vec<serde_json::Value> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["server"].clone())
            .collect()
    };
    assert_eq!(servers(json(&db, &["reports", "--player", P2])).len(), 2);
    assert_eq!(
        servers(json(&db, &["reports", "--player", P2, "--server", "eu-1"])),
        ["eu-1"]
    );
    assert_eq!(
        servers(json(&db, &["reports", "--server", "us-1"])),
        ["us-1"]
    );
    assert!(
        json(&db, &["reports", "--player", P1])
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// `top` and `pb` of one map version (`--world` and `--world-version`, both or neither).
#[test]
fn boards_of_one_map_version() {
    const V1: &str = "00000000-0000-0000-0000-000000001111";
    const V2: &str = "00000000-0000-0000-0000-000000002222";
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("c.db").display());
    let old = record_on_map(dir.path(), "v1.reel", 40, V1);
    let new = record_on_map(dir.path(), "v2.reel", 60, V2);
    for (file, player) in [(&old, P1), (&new, P2)] {
        let f = file.to_str().unwrap();
        ok(
            &db,
            &[
                "add", f, "--course", "c1", "--player", player, "--name", "p", "--entity", "1",
            ],
        );
    }
    let players = |v: serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["player"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(players(json(&db, &["top", "c1"])), [P1, P2]);
    let map = |v| ["--world", WORLD, "--world-version", v];
    let mut args = vec!["top", "c1"];
    args.extend(map(V2));
    assert_eq!(players(json(&db, &args)), [P2]);
    let mut args = vec!["pb", "c1", P1];
    args.extend(map(V2));
    assert_eq!(json(&db, &args), serde_json::json!([]));
    let mut args = vec!["pb", "c1", P1];
    args.extend(map(V1));
    assert_eq!(players(json(&db, &args)), [P1]);
}
