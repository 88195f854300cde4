//! `tickreel serve` on recordings that move: a live recording followed as its writer flushes
//! (server-sent events) until it is finished, ghost races (another entity, and the catalog's
//! best run of a course), a shadow-play report's metadata, and the recordings under an
//! object-storage prefix (a real S3-protocol server on loopback).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::serve_support::*;
use serde_json::Value;

#[test]
fn a_live_recording_grows_as_the_writer_flushes_then_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let out = dir.path().join("live.reel");
    // 1,200 ticks at 120 ticks/s (10 s), flushed every 100 ms: long enough to be still live when
    // the stream is opened on a busy machine (this binary's other tests start an S3 server)
    const LAST: u64 = 1199;
    let mut writer = live_writer(&out, 4, LAST as u32 + 1, 120);

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
    assert_eq!(last, Some(LAST));
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
    assert!(*live_ticks.first().unwrap() < LAST - 200, "{edges:?}");
    // asked for by its live name, the finished recording says so, and plays like its file
    let info = s.json("/api/info?rec=live.reel.live");
    assert_eq!(info["edge"]["state"], "finished", "{info}");
    assert_eq!(
        s.json("/api/info?rec=live.reel")["edge"]["state"],
        Value::Null
    );
    let v = s.json(&format!(
        "/api/frames?rec=live.reel.live&from={}&count=10",
        LAST - 9
    ));
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 10);
    assert_close(
        &api_positions(&frames[9]),
        &reader_positions(&out, LAST as u32),
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
fn serves_the_recordings_under_an_object_storage_prefix() {
    let s3 = tickreel_object::testing::S3Server::start_lenient();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("run.reel");
    simulate(&local, 4, 300);
    let s = serve_uploaded(&s3, &local);
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

#[test]
fn with_a_catalog_its_recordings_are_listed_and_its_best_run_is_the_ghost() {
    let dir = tempfile::tempdir().unwrap();
    let reel = course(dir.path());
    let db = format!("sqlite:{}", dir.path().join("catalog.db").display());
    // the slow entity is the course's only (so best) run
    ok(&[
        "catalog",
        "--db",
        &db,
        "add",
        reel.to_str().unwrap(),
        "--course",
        "lava",
        "--player",
        "6f1c1b5e-0c5a-4c41-9f57-5a4f1f1b2c3d",
        "--name",
        "slowpoke",
        "--entity",
        "2",
    ]);
    let s = Server::start(&[
        dir.path().to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--catalog",
        &db,
    ]);
    let list = s.json("/api/recordings");
    assert_eq!(list["has_catalog"], true);
    let cat = list["catalog"].as_array().unwrap();
    assert_eq!(cat.len(), 1, "{list}");
    let name = cat[0]["name"].as_str().unwrap().to_string();
    assert!(name.starts_with("catalog:"), "{name}");
    // a catalog recording plays like its file
    let v = s.json(&format!("/api/frames?rec={}&from=40&count=1", enc(&name)));
    assert_close(
        &api_positions(&v["frames"][0]),
        &reader_positions(&reel, 40),
        "catalog",
    );
    let top = s.json("/api/catalog/top?course=lava");
    assert_eq!(top["runs"][0]["player_name"], "slowpoke");
    assert_eq!(top["runs"][0]["entity"], 2);
    // the catalog's best as the ghost: the same splits as the entity itself
    let v = s.json("/api/ghost?rec=course.reel&entity=1&course=lava");
    assert_eq!(v["ghost"]["catalog"]["player_name"], "slowpoke");
    assert_eq!(v["ghost"]["duration_ticks"], 200);
    let splits: Vec<f64> = v["splits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["delta_seconds"].as_f64().unwrap())
        .collect();
    assert_eq!(splits, vec![-1.25, -2.5, -3.75, -5.0]);
    let (st, e) = s.get("/api/ghost?rec=course.reel&entity=1&course=nowhere");
    assert_eq!(st, 404, "{e}");
    // a chosen part: checkpoints 1 to 2 of both runs (entity 1 at 1 block a tick, 2 at half)
    let v = s.json(
        "/api/ghost?rec=course.reel&entity=1&ghost_entity=2&from_checkpoint=1&to_checkpoint=2",
    );
    assert_eq!(
        (
            v["run"]["duration_ticks"].as_u64(),
            v["ghost"]["duration_ticks"].as_u64()
        ),
        (Some(25), Some(50)),
        "{}",
        v["run"]
    );
    let (st, e) = s.get("/api/ghost?rec=course.reel&entity=1&ghost_entity=2&from_checkpoint=1");
    assert_eq!(st, 400, "{e}");
    let (st, e) = s.get("/api/ghost?rec=course.reel&entity=1&run_id=999");
    assert_eq!(st, 404, "{e}");
    // a catalog run from checkpoint 1 to 4, chosen by id: the run is raced over the same
    // checkpoints (75 ticks), not over its whole recording
    ok(&[
        "catalog",
        "--db",
        &db,
        "add",
        reel.to_str().unwrap(),
        "--course",
        "lap",
        "--player",
        "6f1c1b5e-0c5a-4c41-9f57-5a4f1f1b2c3d",
        "--name",
        "slowpoke",
        "--entity",
        "2",
        "--from-checkpoint",
        "1",
        "--to-checkpoint",
        "4",
    ]);
    let lap = s.json("/api/catalog/top?course=lap");
    let id = lap["runs"][0]["run_id"].as_i64().unwrap();
    let v = s.json(&format!("/api/ghost?rec=course.reel&entity=1&run_id={id}"));
    assert_eq!(v["ghost"]["duration_ticks"], 150, "{}", v["ghost"]);
    assert_eq!(v["run"]["duration_ticks"], 75, "{}", v["run"]);
    let last = v["delta"].as_array().unwrap().last().unwrap()[1]
        .as_f64()
        .unwrap();
    assert!(
        (last + 3.75).abs() < 1e-9,
        "75 ticks ahead at the end: {last}"
    );
    // entity 1 at a block a tick (20 a second) is held by the run checks: not on the board,
    // listed apart with why, and no ghost
    ok(&[
        "catalog",
        "--db",
        &db,
        "add",
        reel.to_str().unwrap(),
        "--course",
        "lava",
        "--player",
        "00000000-0000-4000-8000-00000000000f",
        "--name",
        "speedy",
        "--entity",
        "1",
    ]);
    let top = s.json("/api/catalog/top?course=lava");
    assert_eq!(top["runs"].as_array().unwrap().len(), 1, "{top}");
    assert_eq!(top["held"][0]["player_name"], "speedy", "{top}");
    assert_eq!(
        top["held"][0]["holds"][0]["reason"], "horizontal_speed",
        "{top}"
    );
    let held = top["held"][0]["run_id"].as_i64().unwrap();
    let (st, e) = s.get(&format!(
        "/api/ghost?rec=course.reel&entity=2&run_id={held}"
    ));
    assert_eq!(st, 403, "{e}");
    assert!(e["error"].as_str().unwrap().contains("held"), "{e}");
    let v = s.json("/api/ghost?rec=course.reel&entity=1&course=lava");
    assert_eq!(v["ghost"]["catalog"]["player_name"], "slowpoke");
    let (st, e) = s.get("/api/frames?rec=catalog:999");
    assert_eq!(st, 404, "{e}");
    let (st, e) = s.get("/api/frames?rec=catalog:x");
    assert_eq!(st, 400, "{e}");
}

/// A file replaced under the same name is scanned again: its markers are the new file's, not
/// the old one's (the scan was kept by name and a generation that starts at 0 for every
/// recording opened, so the old markers were served).
#[test]
fn a_replaced_file_gets_its_own_markers() {
    let dir = tempfile::tempdir().unwrap();
    let reel = course(dir.path());
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let before = s.json("/api/markers?rec=course.reel");
    assert_eq!(before["teleports"], serde_json::json!([[10, 3]]));
    // another recording under the same name: one player, no teleport
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    crate::serve_support::simulate(&other.join("x.reel"), 1, 100);
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::rename(other.join("x.reel"), &reel).unwrap();
    let fresh = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let expected = fresh.json("/api/markers?rec=course.reel");
    assert_ne!(expected["teleports"], before["teleports"], "{expected}");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let after = s.json("/api/markers?rec=course.reel");
        if after == expected {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "stale markers: {after} (expected {expected})"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}
