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

/// A recording of entity 1 running `ticks` ticks at a sprint (0.25 blocks a tick), crossing
/// checkpoint 1 halfway.
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
        let pose = Pose::from_f64(f64::from(tick) * 0.25, 64.0, 0.0, 0.0, 0.0);
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

/// The demo's course (`tickreel demo`'s `demo_course::COURSE_POINTS`, x/z corners start to
/// finish, checkpoint 0 at the start, 4 at the finish) run by entity 1 at `speed` blocks a tick,
/// crossing checkpoint `i` at the course's corner `i + 1`.
fn demo_course_run(dir: &Path, name: &str, speed: f64) -> PathBuf {
    const POINTS: [[f64; 2]; 6] = [
        [0.0, 0.0],
        [20.0, 0.0],
        [20.0, 12.0],
        [40.0, 12.0],
        [40.0, -4.0],
        [56.0, -4.0],
    ];
    let lengths: Vec<f64> = POINTS
        .windows(2)
        .map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt())
        .collect();
    let total: f64 = lengths.iter().sum();
    let at = |s: f64| {
        let mut left = s.min(total);
        for (w, len) in POINTS.windows(2).zip(&lengths) {
            if left <= *len {
                let f = left / len;
                return [
                    w[0][0] + f * (w[1][0] - w[0][0]),
                    w[0][1] + f * (w[1][1] - w[0][1]),
                ];
            }
            left -= len;
        }
        POINTS[5]
    };
    // checkpoints 0 (start), 1..3 at the corners after the first, 4 at the finish
    let marks: Vec<f64> = [
        0.0,
        lengths[0] + lengths[1],
        lengths[..3].iter().sum(),
        lengths[..4].iter().sum(),
        total,
    ]
    .to_vec();
    let ticks = (total / speed).ceil() as u32;
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(dir.join(name), RecorderOptions::default())
        .unwrap();
    let mut batch = Vec::new();
    let mut next = 0;
    for tick in 0..=ticks {
        let s = f64::from(tick) * speed;
        let p = at(s);
        let pose = Pose::from_f64(p[0], 64.0, p[1], 0.0, 0.0);
        let mut events = vec![if tick == 0 {
            Event::EntityAdd {
                entity: 1,
                kind: 147,
                pose,
            }
        } else {
            Event::Pose { entity: 1, pose }
        }];
        while next < marks.len() && (marks[next] <= s || tick == ticks) {
            events.push(Event::Checkpoint {
                entity: 1,
                index: next as u32,
            });
            next += 1;
        }
        batch.clear();
        encode_batch(&events, &mut batch).unwrap();
        rec.submit_tick(tick, &batch).unwrap();
    }
    let file = rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
    file
}

/// `tickreel catalog add` checks a run before the board: a crafted run of the demo's course at
/// 100 blocks a second (0.9 s, the honest best is 13.5 s) is held with its reason, stays off the
/// board and its ghost, until `catalog clear` (recorded in the audit log); `catalog check` finds
/// a file swapped after registration.
#[test]
fn a_crafted_run_on_the_demo_course_is_held() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("c.db").display());
    let honest = demo_course_run(dir.path(), "honest.reel", 0.3);
    let crafted = demo_course_run(dir.path(), "crafted.reel", 5.0);
    let add = |file: &Path, player: &str, name: &str| {
        let f = file.to_str().unwrap();
        let mut args = vec![
            "add",
            f,
            "--course",
            "demo-course",
            "--player",
            player,
            "--name",
            name,
            "--entity",
            "1",
            "--from-checkpoint",
            "0",
            "--to-checkpoint",
            "4",
        ];
        args.push("--json");
        serde_json::from_str::<serde_json::Value>(&ok(&db, &args)).unwrap()
    };
    let h = add(&honest, P1, "alice");
    assert_eq!(h[0]["held"], false, "{h}");
    let c = add(&crafted, P2, "mallory");
    assert_eq!(c[0]["held"], true, "{c}");
    assert_eq!(c[0]["ticks"], 17, "{c}");
    assert_eq!(c[0]["holds"][0]["reason"], "horizontal_speed", "{c}");
    let crafted_id = c[0]["run"].as_i64().unwrap().to_string();
    // the text says why
    let text = ok(
        &db,
        &[
            "add",
            crafted.to_str().unwrap(),
            "--course",
            "demo-course",
            "--player",
            P2,
            "--name",
            "mallory",
            "--entity",
            "1",
            "--from-checkpoint",
            "0",
            "--to-checkpoint",
            "4",
        ],
    );
    assert!(
        text.contains("held") && text.contains("horizontal_speed at tick"),
        "{text}"
    );

    let top = json(&db, &["top", "demo-course"]);
    assert_eq!(top.as_array().unwrap().len(), 1, "{top}");
    assert_eq!(top[0]["name"], "alice");
    assert_eq!(
        json(&db, &["pb", "demo-course", P2])
            .as_array()
            .unwrap()
            .len(),
        0
    );
    let held = json(&db, &["held"]);
    assert_eq!(held.as_array().unwrap().len(), 2, "{held}");
    assert_eq!(held[0]["holds"][0]["reason"], "horizontal_speed");

    let check = json(&db, &["check", &crafted_id]);
    assert_eq!(check["held"], true);
    // a moderator clears it: on the board, first, and the audit log says who
    let (success, _, err) = catalog(&db, &["clear", &crafted_id]);
    assert!(!success && err.contains("--by"), "{err}");
    let cleared = json(&db, &["clear", &crafted_id, "--by", "mod-alice"]);
    assert_eq!(
        (cleared["held"].clone(), cleared["cleared_by"].clone()),
        (false.into(), "mod-alice".into())
    );
    assert_eq!(json(&db, &["top", "demo-course"])[0]["name"], "mallory");
    let reviews = json(&db, &["held", "--reviews"]);
    assert_eq!(reviews[0]["who"], "mod-alice");
    assert_eq!(reviews[0]["run"].as_i64().unwrap().to_string(), crafted_id);

    // the honest file swapped for the crafted one after registration
    let honest_id = h[0]["run"].as_i64().unwrap().to_string();
    std::fs::copy(&crafted, &honest).unwrap();
    let check = json(&db, &["check", &honest_id]);
    assert_eq!(check["held"], true, "{check}");
    assert_eq!(check["holds"][0]["reason"], "hash", "{check}");
    assert!(ok(&db, &["check", &honest_id]).contains("hash: the recording's SHA-256"));

    // an elytra course's limits, set and printed
    let limits = json(
        &db,
        &[
            "limits",
            "demo-course",
            "--movement",
            "elytra",
            "--teleport-zone",
            "0 60 0 5 70 5",
        ],
    );
    assert_eq!(limits["movement"], "elytra");
    assert_eq!(limits["teleport_zones"].as_array().unwrap().len(), 1);
    assert_eq!(
        json(&db, &["limits", "demo-course"])["horizontal_tick"],
        4.0
    );
}
