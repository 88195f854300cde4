//! The viewer over a network's recordings, in headless Chromium (as `viewer_moderator`): the
//! list of every server's recordings filtered by server, player and course and sorted by size
//! and duration; the terrain fetched again after a seek (bounded: once per seek, not per frame);
//! and, over HTTP, named staff tokens with the audit log of report views. Fails (never skips)
//! when the browser cannot start.

use std::path::Path;

use crate::serve_support::page::*;
use crate::serve_support::*;
use serde_json::{Value, json};

/// A recording of `entities` entities walking for `ticks` ticks, recorded on `server`.
fn server_recording(path: &Path, server: &str, entities: u32, ticks: u32) {
    use tickreel::format::{Event, encode_batch};
    use tickreel::{Engine, EngineOptions, Pose, RecorderOptions};
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let options = RecorderOptions {
        server: Some(server.into()),
        ..RecorderOptions::default()
    };
    let rec = engine.start_recording(path, options).unwrap();
    let mut batch = Vec::new();
    for t in 0..ticks {
        let ev: Vec<Event> = (1..=entities)
            .map(|id| {
                let pose = Pose::from_f64(
                    f64::from(t) * 0.1 + f64::from(id),
                    64.0,
                    f64::from(id * t % 7),
                    0.0,
                    0.0,
                );
                if t == 0 {
                    Event::EntityAdd {
                        entity: id,
                        kind: 147,
                        pose,
                    }
                } else {
                    Event::Pose { entity: id, pose }
                }
            })
            .collect();
        batch.clear();
        encode_batch(&ev, &mut batch).unwrap();
        rec.submit_tick(t, &batch).unwrap();
    }
    rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
}

fn shown_names(b: &mut tickreel_bench::browser::Browser) -> Vec<String> {
    b.eval("[...document.querySelectorAll('#list li')].map(li => li.dataset.name)")
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

fn set(b: &mut tickreel_bench::browser::Browser, id: &str, value: &str) {
    b.eval(&format!(
        "(() => {{ const s = document.getElementById('{id}'); s.value = {}; \
         s.dispatchEvent(new Event('input')); }})()",
        json!(value)
    ));
}

#[test]
fn the_list_filters_by_server_player_and_course_and_sorts_by_size_and_duration() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // eu-1: a short small one and a long one; us-2: a mid-length one with many entities (the
    // largest); a file the catalog does not know (no server)
    let files = [
        ("eu-1", "a.reel", 1, 100),
        ("eu-1", "b.reel", 2, 600),
        ("us-2", "c.reel", 40, 300),
    ];
    for (server, name, entities, ticks) in files {
        server_recording(&root.join(name), server, entities, ticks);
    }
    server_recording(&root.join("loose.reel"), "eu-1", 1, 50);
    let db = format!("sqlite:{}", root.join("catalog.db").display());
    let cat = tickreel_catalog::Catalog::open(&db).unwrap();
    for (_, name, _, _) in files {
        let runs = if name == "c.reel" {
            vec![tickreel_catalog::RunSpec::new(
                "spiral",
                uuid::Uuid::from_u128(7),
                "Zed",
                3,
            )]
        } else {
            vec![]
        };
        cat.register(root.join(name), &runs).unwrap();
    }
    drop(cat);
    let size = |n: &str| std::fs::metadata(root.join(n)).unwrap().len();
    let s = Server::start(&[
        root.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--catalog",
        &db,
    ]);
    // the API: each catalog recording with its server, courses and players
    let api = s.json("/api/recordings");
    let c = api["catalog"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["location"].as_str().unwrap().ends_with("/c.reel"))
        .unwrap()
        .clone();
    assert_eq!(
        (&c["server"], &c["courses"], &c["players"]),
        (&json!("us-2"), &json!(["spiral"]), &json!(["Zed"])),
        "{c}"
    );

    let mut b = browser();
    b.open(&format!("{}/", s.base)).unwrap();
    wait_for(&mut b, "!!window.tickreelViewer");
    assert_eq!(b.eval("window.tickreelViewer.ready"), json!(true));
    // one entry per recording (the catalog's are the files), each with its server shown
    assert_eq!(
        shown_names(&mut b),
        ["a.reel", "b.reel", "c.reel", "loose.reel"]
    );
    let servers: Vec<String> = b
        .eval("[...document.querySelectorAll('#list li .server')].map(s => s.textContent)")
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    assert_eq!(servers, ["eu-1", "eu-1", "us-2", "—"]);
    assert_eq!(
        b.eval("[...document.getElementById('list-server').options].map(o => o.value)"),
        json!(["", "eu-1", "us-2"])
    );

    // by server, then the longest first
    set(&mut b, "list-server", "eu-1");
    assert_eq!(shown_names(&mut b), ["a.reel", "b.reel"]);
    set(&mut b, "list-sort", "duration");
    assert_eq!(shown_names(&mut b), ["b.reel", "a.reel"]);
    // every server, the largest first (as the files' sizes order them)
    set(&mut b, "list-server", "");
    set(&mut b, "list-sort", "size");
    let mut by_size: Vec<&str> = vec!["a.reel", "b.reel", "c.reel", "loose.reel"];
    by_size.sort_by_key(|n| std::cmp::Reverse(size(n)));
    assert_eq!(
        by_size[0], "c.reel",
        "the 40-entity recording is the largest"
    );
    assert_eq!(shown_names(&mut b), by_size);
    // at least 20 s long (600 ticks at 20 ticks/s is 30 s; 300 is 15 s)
    set(&mut b, "list-min-minutes", "0.3");
    assert_eq!(shown_names(&mut b), ["b.reel"]);
    set(&mut b, "list-min-minutes", "");
    // by player and by course (the catalog's runs)
    set(&mut b, "list-player", "zed");
    assert_eq!(shown_names(&mut b), ["c.reel"]);
    set(&mut b, "list-player", "");
    set(&mut b, "list-course", "spir");
    assert_eq!(shown_names(&mut b), ["c.reel"]);
    set(&mut b, "list-course", "");
    set(&mut b, "list-server", "us-2");
    set(&mut b, "list-search", "a.");
    assert!(shown_names(&mut b).is_empty());
    assert_eq!(
        b.eval("document.getElementById('list-count').textContent"),
        json!("0 of 4")
    );
}

/// A recording whose terrain is captured twice: at tick 0 a stone floor (one section, its
/// lowest layer), at tick 100 the same floor with a stone pillar on it; 200 ticks of one walker.
fn retold_terrain(path: &Path) {
    use tickreel::format::{Event, Section};
    use tickreel::record::{ReelOptions, ReelWriter};
    let floor = |pillar: bool| {
        let mut states = vec![0u32; 4096];
        states[..256].fill(1);
        if pillar {
            // (x 8, z 8), y 1..=4 (y-z-x order: index = y * 256 + z * 16 + x)
            for y in 1..=4 {
                states[y * 256 + 8 * 16 + 8] = 1;
            }
        }
        Section::from_states(0, 4, 0, &states).unwrap()
    };
    let mut w = ReelWriter::create(path, ReelOptions::default()).unwrap();
    w.offer_terrain(vec![floor(false)]).unwrap();
    let pose = |t: u32| tickreel::Pose::from_f64(f64::from(t) * 0.05, 65.0, 2.0, 0.0, 0.0);
    for t in 0..200u32 {
        if t == 100 {
            w.offer_terrain(vec![floor(true)]).unwrap();
        }
        let ev = if t == 0 {
            Event::EntityAdd {
                entity: 1,
                kind: 147,
                pose: pose(0),
            }
        } else {
            Event::Pose {
                entity: 1,
                pose: pose(t),
            }
        };
        w.write_tick(t, &[ev]).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn the_terrain_is_fetched_again_after_a_seek_once_per_seek() {
    let dir = tempfile::tempdir().unwrap();
    retold_terrain(&dir.path().join("pillar.reel"));
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let before = s.json("/api/terrain?rec=pillar.reel&tick=10");
    let after = s.json("/api/terrain?rec=pillar.reel&tick=150");
    // from tick 100 on, the pillar's four blocks are seen, and the floor block under it is not
    assert_eq!(
        (before["blocks"].as_u64(), after["blocks"].as_u64()),
        (Some(256), Some(256 - 1 + 4)),
        "{before} / {after}"
    );

    let mut b = browser();
    b.open(&format!("{}/?rec=pillar.reel&tick=10", s.base))
        .unwrap();
    wait_for(&mut b, "!!window.tickreelViewer");
    assert_eq!(b.eval("window.tickreelViewer.ready"), json!(true));
    wait_for(&mut b, "!!window.tickreelViewer.state().terrain");
    let t = state(&mut b)["terrain"].clone();
    assert_eq!((&t["tick"], &t["blocks"]), (&json!(10), &before["blocks"]));
    assert_eq!(state(&mut b)["world"]["terrainRequests"], 1);

    // a burst of seeks (a dragged timeline) ends past the second capture: one request, and
    // the page holds the terrain as of its tick
    b.eval(
        "(async () => { for (const t of [20, 60, 90, 120, 150]) await window.tickreelViewer.seek(t); })()",
    );
    wait_for(&mut b, "window.tickreelViewer.state().terrain.tick === 150");
    let st = state(&mut b);
    assert_eq!(st["terrain"]["blocks"], after["blocks"], "{st}");
    assert_eq!(st["world"]["terrainRequests"], 2, "{st}");
    // the 3D view meshes the terrain of the tick shown
    assert_eq!(b.eval("window.tickreelViewer.set3d(true)"), json!(true));
    wait_for(
        &mut b,
        "(() => { const v = window.tickreelViewer.view3d(); return v.ready && v.terrainBlocks > 0; })()",
    );
    assert_eq!(
        b.eval("window.tickreelViewer.view3d().terrainBlocks"),
        after["blocks"]
    );
    // and back before it: the pillar is gone again
    b.eval("window.tickreelViewer.seek(30)");
    wait_for(&mut b, "window.tickreelViewer.state().terrain.tick === 30");
    let st = state(&mut b);
    assert_eq!(st["terrain"]["blocks"], before["blocks"], "{st}");
    assert_eq!(st["world"]["terrainRequests"], 3, "{st}");
    wait_for(
        &mut b,
        &format!(
            "window.tickreelViewer.view3d().terrainBlocks === {}",
            before["blocks"]
        ),
    );
    // no request while nothing moves
    std::thread::sleep(std::time::Duration::from_millis(700));
    assert_eq!(state(&mut b)["world"]["terrainRequests"], 3);
}

fn post(s: &Server, body: &str, token: &str) -> (u16, Value) {
    let mut resp = s
        .agent()
        .post(format!("{}/api/reports/decide", s.base))
        .header("Content-Type", "application/json")
        .header("Authorization", format!("Bearer {token}"))
        .send(body)
        .unwrap();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[test]
fn staff_tokens_have_names_and_every_view_of_a_report_is_logged() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let sim = root.join("sim.reel");
    ok(&[
        "simulate",
        "--out",
        sim.to_str().unwrap(),
        "--players",
        "6",
        "--ticks",
        "300",
        "--shadow",
    ]);
    simulate(&root.join("plain.reel"), 2, 50);
    let db = format!("sqlite:{}", root.join("catalog.db").display());
    ok(&[
        "catalog",
        "--db",
        &db,
        "report",
        "--reported",
        "6f1c1b5e-0c5a-4c41-9f57-5a4f1f1b2c3d",
        "--name",
        "Mallory",
        "--reporter",
        "11111111-2222-4333-8444-555555555555",
        "--reason",
        "fly hack",
        "--recording",
        root.join("sim.report.reel").to_str().unwrap(),
    ]);
    let alice = "alice-secret-token-0123";
    let bob = "bob-secret-token-456789";
    let tokens = root.join("tokens.txt");
    std::fs::write(
        &tokens,
        format!("# staff\nbob {bob}\nalice moderator {alice}\n"),
    )
    .unwrap();
    let audit = root.join("audit.jsonl");

    // a short token is refused, and the refusal does not show it
    let short = root.join("short.txt");
    std::fs::write(&short, "carol tooshort-123\n").unwrap();
    let short = tickreel(&["serve", ".", "--tokens-file", short.to_str().unwrap()]);
    assert!(!short.status.success());
    let said = String::from_utf8_lossy(&short.stderr);
    assert!(
        said.contains("carol") && !said.contains("tooshort-123"),
        "{said}"
    );

    let s = Server::start(&[
        root.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--catalog",
        &db,
        "--tokens-file",
        tokens.to_str().unwrap(),
        "--audit-log",
        audit.to_str().unwrap(),
    ]);
    // an unknown token, and none, are refused; each known one is its name
    for token in [None, Some("mallory-guessed-token-0")] {
        let (st, _) = s.get_with("/api/recordings", token);
        assert_eq!(st, 401);
    }
    let (st, list) = s.get_with("/api/recordings", Some(alice));
    assert_eq!((st, &list["staff"]), (200, &json!("alice")));
    let (_, list) = s.get_with("/api/recordings", Some(bob));
    assert_eq!(list["staff"], "bob");

    let (_, reports) = s.get_with("/api/reports", Some(bob));
    let report = reports["reports"][0].clone();
    let (id, rec) = (
        report["id"].as_i64().unwrap(),
        report["recording"].as_str().unwrap().to_string(),
    );
    // a recording that is no report's: not logged
    let (st, _) = s.get_with("/api/info?rec=plain.reel", Some(alice));
    assert_eq!(st, 200);
    let (_, views) = s.get_with("/api/audit", Some(alice));
    assert_eq!(views["views"], json!([]));
    // bob opens the report (from the inbox: its catalog name; then as the served file)
    let (st, _) = s.get_with(&format!("/api/info?rec={}", enc(&rec)), Some(bob));
    assert_eq!(st, 200);
    let (st, _) = s.get_with("/api/info?rec=sim.report.reel", Some(bob));
    assert_eq!(st, 200);
    // alice marks it reviewed: the row names her, whatever the page sends as `by`
    let (st, row) = post(
        &s,
        &json!({"id": id, "status": "reviewed", "by": "someone else"}).to_string(),
        alice,
    );
    assert_eq!(st, 200, "{row}");
    assert_eq!(row["reviewed_by"], "alice");
    let (st, _) = post(
        &s,
        &json!({"id": id, "status": "actioned"}).to_string(),
        "mallory-guessed-token-0",
    );
    assert_eq!(st, 401);

    let (_, views) = s.get_with("/api/audit", Some(alice));
    let got: Vec<(String, String, i64, String)> = views["views"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["who"].as_str().unwrap().to_string(),
                v["action"].as_str().unwrap().to_string(),
                v["report_id"].as_i64().unwrap(),
                v["recording"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want =
        |who: &str, action: &str, r: &str| (who.to_string(), action.to_string(), id, r.to_string());
    assert_eq!(
        got,
        [
            want("alice", "reviewed", &rec),
            want("bob", "open", "sim.report.reel"),
            want("bob", "open", &rec),
        ]
    );
    // the same rows in the audit file, oldest first; no token anywhere in it
    let text = std::fs::read_to_string(&audit).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(
        (
            &lines[0]["who"],
            &lines[0]["action"],
            &lines[0]["report_id"]
        ),
        (&json!("bob"), &json!("open"), &json!(id))
    );
    assert_eq!(lines[2]["who"], "alice");
    assert!(!text.contains(alice) && !text.contains(bob));
    // and in the catalog, for any tool to read
    let cat = tickreel_catalog::Catalog::open(&db).unwrap();
    let rows = cat.report_views(10).unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[2].who, "bob");
}
