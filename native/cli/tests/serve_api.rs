//! `tickreel serve`'s HTTP API against the real binary on a free loopback port: the listing, a
//! tick-range stream and seeks (equal to the core `Reader::seek`), a recording followed live as
//! its writer flushes, a ghost race, bad input (unknown names, path traversal, huge ranges, damaged
//! files) answered with clear JSON errors while the server keeps serving, and the access token.

mod serve_support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use serve_support::*;

fn names(list: &Value) -> Vec<(String, String)> {
    list["recordings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn assert_close(a: &[(u32, f64, f64, f64)], b: &[(u32, f64, f64, f64)], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: entity count");
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.0, y.0, "{what}: ids");
        for (p, q) in [(x.1, y.1), (x.2, y.2), (x.3, y.3)] {
            assert!(
                (p - q).abs() < 1e-9,
                "{what}: entity {} at {p}, seek says {q}",
                x.0
            );
        }
    }
}

#[test]
fn lists_streams_ranges_and_seeks_like_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("sim.reel");
    simulate(&sim, 6, 600);
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    simulate(&dir.path().join("sub/other.reel"), 2, 100);
    std::fs::write(dir.path().join("notes.txt"), "not a recording").unwrap();
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);

    let list = s.json("/api/recordings");
    assert_eq!(
        names(&list),
        vec![
            ("sim.reel".to_string(), "reel".to_string()),
            ("sub/other.reel".to_string(), "reel".to_string())
        ]
    );

    let info = s.json("/api/info?rec=sim.reel");
    assert_eq!(info["edge"]["first_tick"], 0);
    assert_eq!(info["edge"]["last_tick"], 599);
    assert_eq!(info["tick_rate"], 20.0);
    assert!(info["report"].is_null());

    // a forward range: consecutive ticks, each frame equal to the reader's seek
    let v = s.json("/api/frames?rec=sim.reel&from=150&count=60");
    assert_eq!(v["pos_scale"], 4096.0);
    assert_eq!(v["angle_units"], 65536.0);
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 60);
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f["t"], 150 + i as u64);
    }
    for i in [0usize, 1, 49, 50, 59] {
        let t = 150 + i as u32;
        assert_close(
            &api_positions(&frames[i]),
            &reader_positions(&sim, t),
            &format!("frame at {t}"),
        );
    }
    // backward with a step, across a chunk boundary
    let v = s.json("/api/frames?rec=sim.reel&from=320&count=10&step=7&dir=back");
    let frames = v["frames"].as_array().unwrap();
    let ticks: Vec<u64> = frames.iter().map(|f| f["t"].as_u64().unwrap()).collect();
    assert_eq!(ticks, (0..10).map(|k| 320 - 7 * k).collect::<Vec<_>>());
    for f in frames {
        let t = f["t"].as_u64().unwrap() as u32;
        assert_close(
            &api_positions(f),
            &reader_positions(&sim, t),
            &format!("back at {t}"),
        );
    }
    // the range stops at the last tick
    let v = s.json("/api/frames?rec=sim.reel&from=590&count=100");
    assert_eq!(v["frames"].as_array().unwrap().len(), 10);

    // seeks at random ticks: the same entities and positions as Reader::seek
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..20 {
        let t = rng.u32(0..600);
        let v = s.json(&format!("/api/seek?rec=sim.reel&tick={t}"));
        assert_eq!(v["tick"], t);
        let mut got: Vec<(u32, f64, f64, f64)> = v["entities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["id"].as_u64().unwrap() as u32,
                    e["x"].as_f64().unwrap(),
                    e["y"].as_f64().unwrap(),
                    e["z"].as_f64().unwrap(),
                )
            })
            .collect();
        got.sort_by_key(|e| e.0);
        assert_close(&got, &reader_positions(&sim, t), &format!("seek {t}"));
    }
    // a tick past the end is clamped, as the reader does
    assert_eq!(s.json("/api/seek?rec=sim.reel&tick=99999")["tick"], 599);

    // the viewer's page and its assets come from the binary
    let (st, page) = s.text("/");
    assert_eq!(st, 200);
    assert!(page.contains("viewer.js") && page.contains("<canvas id=\"map\""));
    let (st, js) = s.text("/viewer.js");
    assert_eq!(st, 200);
    assert!(js.contains("window.tickreelViewer"));
}

#[test]
fn bad_input_gets_clear_errors_and_the_server_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("served");
    std::fs::create_dir(&root).unwrap();
    let good = root.join("good.reel");
    simulate(&good, 20, 3000);
    // outside the served directory, and a symbolic link to it from inside
    let secret = dir.path().join("secret.reel");
    simulate(&secret, 1, 20);
    std::os::unix::fs::symlink(&secret, root.join("link.reel")).unwrap();
    // damaged: garbage, a truncated copy, and a good file with one chunk's bytes flipped
    std::fs::write(root.join("garbage.reel"), b"this is not a recording at all").unwrap();
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(root.join("truncated.reel"), &bytes[..bytes.len() / 3]).unwrap();
    let mut flipped = bytes.clone();
    let r = tickreel::play::Reader::open_path(&good).unwrap();
    assert!(r.index().len() >= 3, "{} chunks", r.index().len());
    let e = r.index()[r.index().len() / 2];
    let mid = (e.offset + u64::from(e.compressed_len) / 2) as usize;
    for b in &mut flipped[mid..mid + 16] {
        *b ^= 0x5a;
    }
    std::fs::write(root.join("flipped.reel"), &flipped).unwrap();
    let mut s = Server::start(&[root.to_str().unwrap(), "--listen", "127.0.0.1:0"]);

    let expect = |path: &str, status: u16, needle: &str| {
        let (st, v) = s.get(path);
        assert_eq!(st, status, "GET {path}: {v}");
        let msg = v["error"]
            .as_str()
            .unwrap_or_else(|| panic!("GET {path}: no error: {v}"));
        assert!(msg.contains(needle), "GET {path}: {msg:?} lacks {needle:?}");
        assert_eq!(v["status"], status);
    };
    expect(
        "/api/info?rec=nope.reel",
        404,
        "nope.reel: no such recording",
    );
    expect(
        "/api/info?rec=../secret.reel",
        403,
        "outside the served directory",
    );
    expect(
        "/api/info?rec=%2E%2E%2Fsecret.reel",
        403,
        "outside the served directory",
    );
    expect(
        "/api/frames?rec=sub/../../secret.reel",
        403,
        "outside the served directory",
    );
    expect(
        &format!("/api/info?rec={}", enc(secret.to_str().unwrap())),
        403,
        "outside the served directory",
    );
    expect(
        "/api/seek?rec=link.reel&tick=0",
        403,
        "outside the served directory",
    );
    expect("/api/info?rec=", 400, "no recording named");
    expect(
        "/api/frames?rec=good.reel&count=100000",
        400,
        "between 1 and 2048",
    );
    expect(
        "/api/frames?rec=good.reel&count=2000&step=1000",
        400,
        "range too large",
    );
    expect(
        "/api/frames?rec=good.reel&dir=sideways",
        400,
        "expected fwd or back",
    );
    expect("/api/frames?rec=good.reel&from=-3", 400, "bad query");
    expect("/api/seek?rec=good.reel", 400, "bad query");
    expect("/api/info?rec=garbage.reel", 422, "garbage.reel");
    expect("/api/frames?rec=truncated.reel", 422, "truncated.reel");
    expect("/api/nothing", 404, "no such page");
    // a damaged chunk: the frames around it are answered, the damage is named
    let first_bad = e.start_tick;
    let (st, v) = s.get(&format!("/api/seek?rec=flipped.reel&tick={first_bad}"));
    assert_eq!(st, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("flipped.reel"), "{v}");
    let v = s.json("/api/frames?rec=flipped.reel&from=0&count=10");
    assert_eq!(v["frames"].as_array().unwrap().len(), 10);
    // read-only: nothing but GET
    let resp = s
        .agent()
        .post(format!("{}/api/info?rec=good.reel", s.base))
        .send("")
        .unwrap();
    assert_eq!(resp.status().as_u16(), 405);
    let resp = s
        .agent()
        .delete(format!("{}/api/info?rec=good.reel", s.base))
        .call()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 405);
    assert!(good.exists() && secret.exists());

    // still serving, and the listing names every file (damaged ones too), not the secret nor
    // the link to it
    assert!(s.alive());
    let list = names(&s.json("/api/recordings"));
    let listed: Vec<&str> = list.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        listed,
        [
            "flipped.reel",
            "garbage.reel",
            "good.reel",
            "truncated.reel"
        ]
    );
    let v = s.json("/api/frames?rec=good.reel&from=10&count=3");
    assert_close(
        &api_positions(&v["frames"][2]),
        &reader_positions(&good, 12),
        "after errors",
    );
}

#[test]
fn a_live_recording_grows_as_the_writer_flushes_then_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let out = dir.path().join("live.reel");
    // 240 ticks at 60 ticks/s (4 s), flushed every 100 ms
    let mut writer = Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args([
            "simulate",
            "--out",
            out.to_str().unwrap(),
            "--players",
            "4",
            "--ticks",
            "240",
            "--tps",
            "60",
            "--flush-ms",
            "100",
            "--chunk-ticks",
            "20",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(writer.stdout.take().unwrap()).lines();
    // the first flush
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("flushed "), "{first}");
    std::thread::spawn(move || for _ in lines {});

    let list = names(&s.json("/api/recordings"));
    assert!(
        list.contains(&("live.reel.live".to_string(), "live".to_string())),
        "{list:?}"
    );
    // the event stream: the newest flushed tick, growing, then the end
    let mut resp = agent(Duration::from_secs(60))
        .get(format!("{}/api/live?rec=live.reel.live", s.base))
        .call()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let mut edges: Vec<(Option<u64>, String)> = Vec::new();
    let reader = BufReader::new(resp.body_mut().as_reader());
    let started = Instant::now();
    let mut frames_checked = 0;
    for line in reader.lines() {
        let line = line.unwrap();
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        let v: Value = serde_json::from_str(data).unwrap();
        let last = v["last_tick"].as_u64();
        let state = v["state"].as_str().unwrap().to_string();
        if state == "live"
            && let Some(t) = last
            && frames_checked < 3
        {
            // what the stream announces can be played: frames up to that tick
            let f = s.json(&format!(
                "/api/frames?rec=live.reel.live&from={}&count=5",
                t.saturating_sub(4)
            ));
            let got: Vec<u64> = f["frames"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["t"].as_u64().unwrap())
                .collect();
            assert_eq!(got.last(), Some(&t), "frames up to the announced edge {t}");
            frames_checked += 1;
        }
        edges.push((last, state));
        assert!(started.elapsed() < Duration::from_secs(50), "{edges:?}");
    }
    // the stream ended after the recording was finished
    assert!(writer.wait().unwrap().success());
    let (last, state) = edges.last().unwrap().clone();
    assert_eq!(state, "finished", "{edges:?}");
    assert_eq!(last, Some(239));
    let live_ticks: Vec<u64> = edges
        .iter()
        .filter(|(_, st)| st == "live")
        .filter_map(|(t, _)| *t)
        .collect();
    assert!(
        live_ticks.len() >= 3,
        "ticks appear as the writer flushes: {edges:?}"
    );
    assert!(live_ticks.windows(2).all(|w| w[0] < w[1]), "{edges:?}");
    assert!(*live_ticks.first().unwrap() < 200, "{edges:?}");
    // the finished recording plays like its file
    let v = s.json("/api/frames?rec=live.reel.live&from=230&count=10");
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 10);
    assert_close(
        &api_positions(&frames[9]),
        &reader_positions(&out, 239),
        "finished",
    );
}

/// A course in CSV: entity 1 runs x 0..100 at 1 block/tick, entity 2 at 0.5 block/tick; both
/// pass checkpoints 1..4 every 25 blocks. Entity 3 teleports once.
fn course(dir: &Path) -> std::path::PathBuf {
    let mut csv = String::from("tick,entity,x,y,z,yaw,pitch,on_ground,teleport,checkpoint\n");
    for t in 0..=200u32 {
        let cp = |x: f64| {
            if x > 0.0 && x % 25.0 == 0.0 {
                format!("{}", (x / 25.0) as u32)
            } else {
                String::new()
            }
        };
        if t <= 100 {
            let x = f64::from(t);
            csv.push_str(&format!("{t},1,{x},64,0,-90,0,1,0,{}\n", cp(x)));
        }
        let x = f64::from(t) * 0.5;
        csv.push_str(&format!("{t},2,{x},64,2,-90,0,1,0,{}\n", cp(x)));
        if t < 50 {
            let tp = if t == 10 { 1 } else { 0 };
            let x = if t >= 10 { 500.0 } else { -5.0 };
            csv.push_str(&format!("{t},3,{x},64,5,0,0,1,{tp},\n"));
        }
    }
    let path = dir.join("course.csv");
    std::fs::write(&path, csv).unwrap();
    let reel = dir.join("course.reel");
    ok(&["import", path.to_str().unwrap(), reel.to_str().unwrap()]);
    reel
}

#[test]
fn ghost_race_markers_and_splits() {
    let dir = tempfile::tempdir().unwrap();
    course(dir.path());
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let m = s.json("/api/markers?rec=course.reel");
    assert_eq!(m["teleports"], serde_json::json!([[10, 3]]));
    let cps: Vec<(u64, u64, u64)> = m["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c[0].as_u64().unwrap(),
                c[1].as_u64().unwrap(),
                c[2].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        cps,
        vec![
            (25, 1, 1),
            (50, 1, 2),
            (50, 2, 1),
            (75, 1, 3),
            (100, 1, 4),
            (100, 2, 2),
            (150, 2, 3),
            (200, 2, 4)
        ]
    );
    let v = s.json("/api/ghost?rec=course.reel&entity=1&ghost_entity=2");
    assert_eq!(v["run"]["duration_ticks"], 100);
    assert_eq!(v["ghost"]["duration_ticks"], 200);
    let splits: Vec<(u64, f64)> = v["splits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["checkpoint"].as_u64().unwrap(),
                s["delta_seconds"].as_f64().unwrap(),
            )
        })
        .collect();
    // entity 1 reaches checkpoint k at 25k ticks, the ghost at 50k: 25k ticks (1.25k s) ahead
    assert_eq!(splits, vec![(1, -1.25), (2, -2.5), (3, -3.75), (4, -5.0)]);
    let delta = v["delta"].as_array().unwrap();
    let last = delta.last().unwrap();
    assert_eq!(last[0], 100);
    assert!(
        (last[1].as_f64().unwrap() + 5.0).abs() < 0.2,
        "final delta {last}"
    );
    // halfway, the run is at x=50, where the ghost was at tick 100: 50 ticks = 2.5 s ahead
    let mid = delta.iter().find(|d| d[0] == 50).unwrap();
    assert!(
        (mid[1].as_f64().unwrap() + 2.5).abs() < 0.2,
        "delta at 50: {mid}"
    );
    // paths: the run ends at x=100, the ghost too
    let run_end = v["run"]["path"].as_array().unwrap().last().unwrap().clone();
    assert!(
        (run_end[1].as_f64().unwrap() - 100.0).abs() < 1e-6,
        "{run_end}"
    );
    // the other way round, the ghost is ahead
    let w = s.json("/api/ghost?rec=course.reel&entity=2&ghost_entity=1");
    assert_eq!(w["splits"][0]["delta_seconds"], 1.25);
    // errors: no ghost, an entity that is not there, a catalog course without a catalog
    let (st, e) = s.get("/api/ghost?rec=course.reel&entity=1");
    assert_eq!(st, 400, "{e}");
    let (st, e) = s.get("/api/ghost?rec=course.reel&entity=1&ghost_entity=77");
    assert!(st == 400 || st == 422 || st == 409, "{st} {e}");
    assert!(e["error"].as_str().unwrap().contains("entity 77"), "{e}");
    let (st, e) = s.get("/api/ghost?rec=course.reel&entity=1&course=lava");
    assert_eq!(st, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("--catalog"), "{e}");
}

#[test]
fn a_shadow_play_report_carries_its_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("world.reel");
    let printed = ok(&[
        "simulate",
        "--out",
        out.to_str().unwrap(),
        "--players",
        "8",
        "--ticks",
        "400",
        "--shadow",
    ]);
    assert!(printed.contains("report"), "{printed}");
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let list = names(&s.json("/api/recordings"));
    assert!(
        list.iter().any(|(n, _)| n == "world.report.reel"),
        "{list:?}"
    );
    let info = s.json("/api/info?rec=world.report.reel");
    let rep = &info["report"];
    let player = rep["player"].as_u64().expect("the reported player");
    let tick = rep["report_tick"].as_u64().unwrap();
    assert!(rep["context_entities"].is_array(), "{rep}");
    assert!(rep["first_tick"].as_u64().unwrap() <= tick);
    // the reported player is in the recording at the report's tick
    let v = s.json(&format!("/api/seek?rec=world.report.reel&tick={tick}"));
    assert!(
        v["entities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["id"] == player),
        "{v}"
    );
}

#[test]
fn a_token_is_required_when_set_and_public_binds_need_one() {
    let dir = tempfile::tempdir().unwrap();
    simulate(&dir.path().join("a.reel"), 2, 50);
    let d = dir.path().to_str().unwrap();
    let token = "correct-horse-battery-staple";

    // refused configurations
    for (args, needle) in [
        (vec![d, "--listen", "0.0.0.0:0"], "not a loopback address"),
        (
            vec![d, "--listen", "0.0.0.0:0", "--public"],
            "needs an access token",
        ),
        (
            vec![d, "--listen", "127.0.0.1:0", "--token", "short"],
            "too short",
        ),
        (
            vec!["/no/such/dir", "--listen", "127.0.0.1:0"],
            "/no/such/dir",
        ),
    ] {
        let mut full = vec!["serve"];
        full.extend(&args);
        let o = tickreel(&full);
        assert!(!o.status.success(), "{args:?} was accepted");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }

    // public, with the token from the environment: every request needs it
    let s = Server::start_env(
        &[d, "--listen", "0.0.0.0:0", "--public"],
        &[("TICKREEL_TOKEN", token)],
    );
    let port = s.base.rsplit(':').next().unwrap().to_string();
    let local = Client::at(&format!("http://127.0.0.1:{port}"));
    for path in ["/", "/viewer.js", "/api/recordings", "/api/info?rec=a.reel"] {
        let (st, _) = local.raw(path, None);
        assert_eq!(st, 401, "{path} without a token");
        let (st, _) = local.raw(path, Some("wrong-token-wrong-token"));
        assert_eq!(st, 401, "{path} with a wrong token");
        let (st, _) = local.raw(path, Some(token));
        assert_eq!(st, 200, "{path} with the token");
    }
    let (st, body) = local.raw(&format!("/api/recordings?token={token}"), None);
    assert_eq!(st, 200, "{body}");
    // a public server answers any host name
    let (st, _) = local.raw_host("/api/recordings", Some(token), "viewer.example:80");
    assert_eq!(st, 200);

    // loopback (the default): a token may still be set; other host names are refused
    let s2 = Server::start(&[d, "--listen", "127.0.0.1:0", "--token", token]);
    assert_eq!(s2.get("/api/recordings").0, 401);
    assert_eq!(s2.get_with("/api/recordings", Some(token)).0, 200);
    let s3 = Server::start(&[d, "--listen", "127.0.0.1:0"]);
    let l3 = Client::at(&s3.base);
    let (st, body) = l3.raw_host("/api/recordings", None, "attacker.example:80");
    assert_eq!(st, 403, "{body}");
    assert_eq!(l3.raw("/api/recordings", None).0, 200);
}

#[test]
fn serves_the_recordings_under_an_object_storage_prefix() {
    let s3 = tickreel_object::testing::S3Server::start_lenient();
    let env: Vec<(String, String)> = s3
        .env()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let env_ref: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("run.reel");
    simulate(&local, 4, 300);
    let mut up = Command::new(env!("CARGO_BIN_EXE_tickreel"));
    up.args([
        "upload",
        local.to_str().unwrap(),
        &s3.url("course/run.reel"),
    ]);
    for (k, v) in &env_ref {
        up.env(k, v);
    }
    let o = up.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let s = Server::start_env(&[&s3.url("course"), "--listen", "127.0.0.1:0"], &env_ref);
    let list = names(&s.json("/api/recordings"));
    assert_eq!(list, vec![("run.reel".to_string(), "object".to_string())]);
    let v = s.json("/api/frames?rec=run.reel&from=120&count=3");
    assert_close(
        &api_positions(&v["frames"][2]),
        &reader_positions(&local, 122),
        "object",
    );
    let (st, e) = s.get("/api/info?rec=missing.reel");
    assert!(st == 404 || st == 500, "{st} {e}");
    assert!(e["error"].as_str().unwrap().contains("missing.reel"), "{e}");
    let (st, _) = s.get("/api/info?rec=../course/run.reel");
    assert_eq!(st, 403);
}
