//! The `tickreel` command-line tool, driven as a real binary.

use crate::common;

use std::process::Output;

use crate::tool::{assert_ok, p, sim_reel, small_policy, stderr, stdout, tickreel};
use crate::trace::{render, trace};
use serde_json::Value;
use tickreel::format::PaletteKind;
use tickreel::play::Reader;
use tickreel::record::{ReelOptions, ReelWriter};

#[track_caller]
fn assert_fails_with(o: &Output, needles: &[&str]) {
    assert!(
        !o.status.success(),
        "expected failure, got success\nstdout: {}",
        stdout(o)
    );
    let err = stderr(o);
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}: {err}");
    }
}

#[test]
fn import_then_export_reproduces_the_trace_within_quantisation() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("trace.csv");
    let reel = dir.path().join("trace.reel");
    let out = dir.path().join("out.csv");
    let input = trace();
    std::fs::write(&csv, render(&input)).unwrap();
    assert_ok(&tickreel(&["import", p(&csv), p(&reel)]));
    assert_ok(&tickreel(&["verify", p(&reel)]));
    assert_ok(&tickreel(&["export", p(&reel), p(&out)]));

    // Expected rows: sorted by tick then entity; on_ground carried forward from 0.
    let mut expected = input.clone();
    expected.sort_by_key(|r| (r.tick, r.entity));
    let mut ground = std::collections::HashMap::new();
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("tick,entity,x,y,z,yaw,pitch,on_ground,teleport,checkpoint")
    );
    let got: Vec<&str> = lines.collect();
    assert_eq!(got.len(), expected.len(), "row count\n{text}");
    for (line, want) in got.iter().zip(&expected) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 10, "{line}");
        assert_eq!(f[0].parse::<u32>().unwrap(), want.tick, "{line}");
        assert_eq!(f[1].parse::<u32>().unwrap(), want.entity, "{line}");
        for (c, (s, w)) in f[2..7].iter().zip(want.pose).enumerate() {
            let v: f64 = s.parse().unwrap();
            let tol = if c < 3 {
                1.0 / 8192.0
            } else {
                360.0 / 131072.0
            };
            assert!(
                (v - w).abs() <= tol * (1.0 + 1e-9),
                "column {c}: {v} vs {w} ({line})"
            );
        }
        let g = ground.entry(want.entity).or_insert(false);
        if let Some(now) = want.on_ground {
            *g = now;
        }
        assert_eq!(f[7], if *g { "1" } else { "0" }, "on_ground: {line}");
        assert_eq!(
            f[8],
            if want.teleport { "1" } else { "0" },
            "teleport: {line}"
        );
        assert_eq!(
            f[9],
            want.checkpoint.map(|c| c.to_string()).unwrap_or_default(),
            "checkpoint: {line}"
        );
    }

    // The export is itself a valid trace, and exported values are exact: a second round is identical.
    let reel2 = dir.path().join("again.reel");
    let out2 = dir.path().join("again.csv");
    assert_ok(&tickreel(&["import", p(&out), p(&reel2)]));
    assert_ok(&tickreel(&["export", p(&reel2), p(&out2)]));
    assert_eq!(std::fs::read_to_string(&out2).unwrap(), text);
}

#[test]
fn malformed_csv_fails_with_the_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("x.reel");
    let header = "tick,entity,x,y,z,yaw,pitch\n";
    let cases: &[(&str, &[&str])] = &[
        (
            "0,1,0,64,0,0,0\n1,1,0.5,64,0,0,0\n2,1,0.5,sixty,0,0,0\n",
            &["line 4", "y", "sixty"],
        ),
        ("0,1,0,64,0,0,0\n1,1,0,64,0\n", &["line 3", "5 fields"]),
        (
            "5,1,0,64,0,0,0\n6,2,0,64,0,0,0\n4,1,0,64,0,0,0\n",
            &["line 4", "sorted by tick"],
        ),
        (
            "5,1,0,64,0,0,0\n5,1,1,64,0,0,0\n",
            &["line 3", "already has a row"],
        ),
        ("0,-1,0,64,0,0,0\n", &["line 2", "entity"]),
        (
            "0,1,0,64,0,0,0\n4294967295,1,0,64,0,0,0\n",
            &["line 3", "too far"],
        ),
    ];
    for (body, needles) in cases {
        let csv = dir.path().join("bad.csv");
        std::fs::write(&csv, format!("{header}{body}")).unwrap();
        let o = tickreel(&["import", p(&csv), p(&reel)]);
        assert_fails_with(&o, needles);
        assert!(!reel.exists(), "no output on failure");
    }
    let csv = dir.path().join("bad_header.csv");
    std::fs::write(&csv, "tick,entity,x,y,z,yaw\n0,1,0,0,0,0\n").unwrap();
    assert_fails_with(
        &tickreel(&["import", p(&csv), p(&reel)]),
        &["line 1", "missing column \"pitch\""],
    );
}

#[test]
fn verify_accepts_a_good_file_and_rejects_damage() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.reel");
    sim_reel(&good, 400);
    let o = tickreel(&["verify", p(&good)]);
    assert_ok(&o);
    assert!(stdout(&o).starts_with("ok:"), "{}", stdout(&o));

    let bytes = std::fs::read(&good).unwrap();
    let reader = Reader::open_path(&good).unwrap();
    assert!(reader.index().len() >= 4);
    // A flipped byte in the middle of the third chunk's compressed payload.
    let e = reader.index()[2];
    let at = e.offset as usize + 36 + e.compressed_len as usize / 2;
    let mut flipped = bytes.clone();
    flipped[at] ^= 0x20;
    let bad = dir.path().join("flipped.reel");
    std::fs::write(&bad, &flipped).unwrap();
    assert_fails_with(
        &tickreel(&["verify", p(&bad)]),
        &["flipped.reel", "chunk 2", "checksum"],
    );
    // dump prints the ticks before the damaged chunk, then fails.
    let o = tickreel(&["dump", p(&bad)]);
    assert_fails_with(
        &o,
        &["checksum", &format!("after tick {}", e.start_tick - 1)],
    );
    let out = stdout(&o);
    let last: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["tick"], e.start_tick - 1);
    assert_eq!(out.lines().count() as u32, e.start_tick);

    let cut = dir.path().join("truncated.reel");
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    assert_fails_with(
        &tickreel(&["verify", p(&cut)]),
        &["truncated", "truncated.reel"],
    );
    std::fs::write(&cut, &bytes[..200]).unwrap();
    assert_fails_with(&tickreel(&["verify", p(&cut)]), &["truncated", "header"]);
}

#[test]
fn info_json_reports_header_metadata_and_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("info.reel");
    let mut options = ReelOptions {
        chunk_policy: small_policy(),
        ..ReelOptions::default()
    };
    options.identity.tick_rate_millihz = 25_000;
    options.identity.timestamp_ms = 1_700_000_000_000;
    let mut w = ReelWriter::create(&path, options).unwrap();
    w.user_metadata_mut()
        .insert("map".into(), fastnbt::Value::String("parkour_1".into()));
    w.user_metadata_mut()
        .insert("attempt".into(), fastnbt::Value::Long(3));
    for (t, events) in common::sim_ticks(3, 230, 1) {
        w.write_tick(t + 10, &events).unwrap();
    }
    let size = w.finish().unwrap();
    let reader = Reader::open_path(&path).unwrap();

    let o = tickreel(&["info", p(&path), "--json"]);
    assert_ok(&o);
    let j: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(j["tick_count"], 230);
    assert_eq!(j["first_tick"], 10);
    assert_eq!(j["last_tick"], 239);
    assert_eq!(j["chunk_count"], reader.index().len());
    assert!(reader.index().len() > 1);
    assert_eq!(j["tick_rate"], 25.0);
    assert_eq!(j["timestamp_ms"], 1_700_000_000_000i64);
    assert_eq!(j["timestamp_utc"], "2023-11-14T22:13:20.000Z");
    assert_eq!(j["file_size"], size);
    assert_eq!(j["metadata"]["map"], "parkour_1");
    assert_eq!(j["metadata"]["attempt"], 3);
    let stats = &j["stats"];
    assert_eq!(stats["ticks_written"], 230);
    assert_eq!(
        stats["pose_samples"],
        reader.metadata().library.stats.pose_samples
    );
    let compressed: u64 = reader
        .index()
        .iter()
        .map(|e| u64::from(e.compressed_len))
        .sum();
    assert_eq!(j["index"]["compressed_bytes"], compressed);
    assert_eq!(
        j["index"]["snapshot_chunks"],
        reader.index().iter().filter(|e| e.has_snapshot()).count()
    );

    // The text form names the same things.
    let o = tickreel(&["info", p(&path)]);
    assert_ok(&o);
    let text = stdout(&o);
    for needle in [
        "25 ticks/s",
        "230 ticks, 10..=239",
        "parkour_1",
        "2023-11-14T22:13:20.000Z",
    ] {
        assert!(text.contains(needle), "info lacks {needle:?}:\n{text}");
    }
}

#[test]
fn dump_respects_from_and_to() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dump.reel");
    let input = common::sim_ticks(4, 300, 3);
    common::write_reel(&path, &input, small_policy());

    // A range crossing chunk boundaries (chunks of 50 ticks).
    let o = tickreel(&["dump", p(&path), "--from", "37", "--to", "161"]);
    assert_ok(&o);
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ticks: Vec<u64> = lines.iter().map(|l| l["tick"].as_u64().unwrap()).collect();
    assert_eq!(ticks, (37..=161).collect::<Vec<u64>>());
    // Every event has a type; poses are in blocks and match the input within quantisation.
    let mut poses = 0;
    for l in &lines {
        let tick = l["tick"].as_u64().unwrap() as usize;
        for e in l["events"].as_array().unwrap() {
            assert!(e["type"].is_string(), "{e}");
            if e["type"] == "pose" {
                poses += 1;
                let id = e["entity"].as_u64().unwrap() as u32;
                let want = input[tick]
                    .1
                    .iter()
                    .find_map(|ev| match ev {
                        tickreel::Event::Pose { entity, pose } if *entity == id => Some(*pose),
                        _ => None,
                    })
                    .expect("a pose in the input");
                assert_eq!(e["x"].as_f64().unwrap(), want.x_f64());
                assert_eq!(e["yaw"].as_f64().unwrap(), want.yaw_deg());
            }
        }
    }
    assert!(poses > 100, "{poses} poses");

    // Defaults: the whole recording; --from alone; an empty range outside the recording.
    let all = tickreel(&["dump", p(&path)]);
    assert_ok(&all);
    assert_eq!(stdout(&all).lines().count(), 300);
    let tail = tickreel(&["dump", p(&path), "--from", "290"]);
    assert_ok(&tail);
    assert_eq!(stdout(&tail).lines().count(), 10);
    let none = tickreel(&["dump", p(&path), "--from", "5000", "--to", "6000"]);
    assert_ok(&none);
    assert_eq!(stdout(&none), "");
    assert_fails_with(
        &tickreel(&["dump", p(&path), "--from", "9", "--to", "3"]),
        &["--from 9 is after --to 3"],
    );
}

#[test]
fn demo_runs_with_small_settings() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    let o = tickreel(&[
        "demo",
        "--players",
        "3",
        "--seconds",
        "40",
        "--seeks",
        "20",
        "--out",
        p(&out),
    ]);
    assert_ok(&o);
    let text = stdout(&o);
    for needle in [
        "bytes per player-second",
        "p99",
        "every state matched",
        "live flushes",
        // every finished attempt is a run in the catalog; the board has one row per runner
        "runs registered in sqlite:",
        "board            1. ",
        // the best ghost, loaded through the catalog, raced by its own path 10 ticks later:
        // every reading and split is +0.50 s
        "rank 1 (",
        "loaded through the catalog",
        "ticks behind the ghost reads tick",
        "splits           #0 +0.50 s, #1 +0.50 s, #2 +0.50 s, #3 +0.50 s, #4 +0.50 s",
        "max 0.00000 blocks",
        // and by the runner-up's best run
        "runner-up        ",
        "tickreel render",
        // the world: built-in events, checked against the simulation at the end
        "the world rebuilt at the last tick equals the simulated one",
        "terrain sections around the course",
        // the report kept the reported player's hits and blocks and no far chat
        "report world     the player's ",
        "lines sent from beyond 48 blocks",
    ] {
        assert!(
            text.contains(needle),
            "demo output lacks {needle:?}:\n{text}"
        );
    }
    // the board the demo printed is the catalog's, one row per runner
    let db = format!("sqlite:{}", out.join("catalog.sqlite").display());
    let top = tickreel(&["catalog", "top", "demo-course", "--db", &db, "--json"]);
    assert_ok(&top);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout(&top)).unwrap();
    let mut names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    let board_line = text.lines().find(|l| l.starts_with("board")).unwrap();
    for (i, row) in rows.iter().enumerate() {
        let entry = format!("{}. {} ", i + 1, row["name"].as_str().unwrap());
        assert!(
            board_line.contains(&entry),
            "{entry:?} not in {board_line:?}"
        );
    }
    names.sort_unstable();
    assert_eq!(names, vec!["Alex", "Kai", "Noor", "Sam"]);
    // the runner-up's finish split is the difference of the two best times
    let ticks = |r: &serde_json::Value| r["ticks"].as_f64().unwrap();
    let diff = (ticks(&rows[1]) - ticks(&rows[0])) / 20.0;
    let runner_up = text.lines().find(|l| l.starts_with("runner-up")).unwrap();
    assert!(
        runner_up.contains(&format!("+{diff:.2} s at the finish")),
        "{runner_up} (expected +{diff:.2} s)"
    );
    let reel = out.join("demo.reel");
    assert_ok(&tickreel(&["verify", p(&reel)]));
    let reader = Reader::open_path(&reel).unwrap();
    assert_eq!(reader.header().tick_count, 800);
    assert!(reader.index().iter().filter(|e| e.has_snapshot()).count() >= 2);
    // world events of the built-in kinds, named by the recording's palette, and no custom type
    let lib = &reader.metadata().library;
    assert!(lib.event_types.is_empty(), "{:?}", lib.event_types);
    assert_eq!(
        lib.palette
            .id_of(PaletteKind::Block, "minecraft:cobblestone"),
        Some(7)
    );
    let world_line = text.lines().find(|l| l.starts_with("world ")).unwrap();
    let number = |after: &str| -> u64 {
        let at = world_line
            .find(after)
            .unwrap_or_else(|| panic!("{after:?} in {world_line}"));
        world_line[..at]
            .rsplit(|c: char| !c.is_ascii_digit())
            .find(|w| !w.is_empty())
            .unwrap()
            .parse()
            .unwrap()
    };
    for what in [
        " blocks changed",
        " hits",
        " chat lines",
        " held-item changes",
        " edited blocks",
    ] {
        assert!(number(what) > 0, "no{what} in {world_line}");
    }
    let mut counts = std::collections::HashMap::new();
    for t in reader.ticks(0, 799) {
        for e in t.unwrap().events {
            *counts.entry(std::mem::discriminant(&e)).or_insert(0u64) += 1;
        }
    }
    let attack = std::mem::discriminant(&tickreel::Event::Attack {
        attacker: 0,
        target: 0,
    });
    assert_eq!(counts.get(&attack).copied(), Some(number(" hits")));
    // the world at the end, as `tickreel` rebuilds it, holds the edited blocks the demo counted
    let world = reader.world_at(799).unwrap();
    assert!(world.complete);
    assert_eq!(world.world.blocks().len() as u64, number(" edited blocks"));
    assert_fails_with(&tickreel(&["demo", "--players", "0"]), &["--players"]);
}
