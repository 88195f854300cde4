//! The CLI on live recordings: simulate, info/verify/dump on a live directory, recover, compact.

use crate::tool::{succeeded, tickreel};

#[test]
fn simulate_recover_and_compact_a_live_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.reel");
    let live = dir.path().join("s.reel.live");
    let o = tickreel(&[
        "simulate",
        "--out",
        out.to_str().unwrap(),
        "--players",
        "3",
        "--ticks",
        "900",
        "--flush-ms",
        "1",
        "--chunk-ticks",
        "50",
        "--no-finish",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(stdout.lines().any(|l| l == "flushed 899"), "{stdout}");
    assert!(live.is_dir() && !out.exists());
    let l = live.to_str().unwrap();
    let v = tickreel(&["verify", l]);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    // damage the tail of the segment as a crash during a write would
    let seg = live.join("seg-000000.tks");
    let len = std::fs::metadata(&seg).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&seg).unwrap();
    f.set_len(len - 7).unwrap();
    drop(f);
    assert!(
        !tickreel(&["verify", l]).status.success(),
        "a torn last frame fails verify"
    );
    let r = tickreel(&["recover", l]);
    assert!(r.status.success());
    let rs = String::from_utf8(r.stdout).unwrap();
    assert!(rs.contains("truncated") && rs.contains("kept"), "{rs}");
    // piped output: no progress bar escape codes
    assert!(!r.stderr.contains(&b'\x1b'));
    assert!(tickreel(&["verify", l]).status.success());
    let compacted = dir.path().join("c.reel");
    let c = tickreel(&["compact", l, compacted.to_str().unwrap()]);
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    assert!(!c.stderr.contains(&b'\x1b'));
    assert!(
        tickreel(&["verify", compacted.to_str().unwrap()])
            .status
            .success()
    );
    // recovering something that is not a recording fails clearly
    let bad = tickreel(&["recover", dir.path().join("nope").to_str().unwrap()]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a directory"));
}

fn info_json(path: &str) -> serde_json::Value {
    serde_json::from_str(succeeded(&tickreel(&["info", path, "--json"])).trim()).unwrap()
}

#[test]
fn info_verify_dump_and_compact_read_a_live_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("l.reel");
    let live = dir.path().join("l.reel.live");
    let sim = succeeded(&tickreel(&[
        "simulate",
        "--out",
        out.to_str().unwrap(),
        "--players",
        "3",
        "--ticks",
        "600",
        "--chunk-ticks",
        "40",
        "--flush-bytes",
        "4000",
        "--no-finish",
    ]));
    assert_eq!(sim.lines().last(), Some("flushed 599"), "{sim}");
    assert!(live.is_dir() && !out.exists());
    let l = live.to_str().unwrap();

    // info: the live recording's ticks and chunks, and the bytes of its files (not the
    // directory's own size)
    let reader = tickreel::play::Reader::open_live(&live).unwrap();
    let chunks = reader.index().len();
    assert!(chunks >= 15, "{chunks} chunks");
    let j = info_json(l);
    assert_eq!(j["layout"], "segmented");
    assert_eq!(j["first_tick"], 0);
    assert_eq!(j["last_tick"], 599);
    assert_eq!(j["tick_count"], 600);
    assert_eq!(j["chunk_count"], chunks);
    assert_eq!(j["index"]["chunks"], chunks);
    let mut meta = 0;
    let mut segments = (0, 0);
    for e in std::fs::read_dir(&live).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        let len = e.metadata().unwrap().len();
        if name == "meta.tkrl" {
            meta = len;
        } else if name.starts_with("seg-") {
            segments = (segments.0 + 1, segments.1 + len);
        }
    }
    assert!(meta > 0 && segments.1 > 0);
    assert_eq!(j["file_size"], meta + segments.1);
    assert_eq!(j["live_files"]["meta_bytes"], meta);
    assert_eq!(j["live_files"]["segments"], segments.0);
    assert_eq!(j["live_files"]["segment_bytes"], segments.1);
    let text = succeeded(&tickreel(&["info", l]));
    for needle in [
        format!(
            "live directory    {l} ({} bytes in its files",
            meta + segments.1
        ),
        "600 ticks, 0..=599".to_string(),
        format!("chunks            {chunks} "),
    ] {
        assert!(text.contains(&needle), "info lacks {needle:?}:\n{text}");
    }

    let v = succeeded(&tickreel(&["verify", l]));
    assert!(
        v.starts_with(&format!("ok: {chunks} chunks, 600 ticks")),
        "{v}"
    );

    // dump: every tick, in order; a range across chunk boundaries
    let all = succeeded(&tickreel(&["dump", l]));
    let ticks: Vec<u64> = all
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            v["tick"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(ticks, (0..600).collect::<Vec<u64>>());
    let part = succeeded(&tickreel(&["dump", l, "--from", "35", "--to", "124"]));
    assert_eq!(part.lines().count(), 90);
    assert!(part.starts_with("{\"tick\":35,"), "{part}");

    // compact: a file with the same ticks and content
    let compacted = dir.path().join("c.reel");
    let c = compacted.to_str().unwrap();
    let report = succeeded(&tickreel(&["compact", l, c]));
    assert!(
        report.starts_with(&format!("compacted {chunks} chunks (")),
        "{report}"
    );
    assert!(report.contains("600 ticks"), "{report}");
    let cj = info_json(c);
    assert_eq!(cj["layout"], "compacted");
    assert!(cj["live_files"].is_null());
    assert_eq!(
        cj["file_size"],
        std::fs::metadata(&compacted).unwrap().len()
    );
    for key in ["first_tick", "last_tick", "tick_count", "tick_rate"] {
        assert_eq!(cj[key], j[key], "{key}");
    }
    // (not uncompressed_bytes: compaction re-chunks)
    for key in ["ticks_written", "events", "pose_samples", "dropped_ticks"] {
        assert_eq!(cj["stats"][key], j["stats"][key], "stats.{key}");
    }
    assert_eq!(
        cj["metadata"]["tickreel"]["entities"],
        j["metadata"]["tickreel"]["entities"]
    );
    assert_eq!(
        succeeded(&tickreel(&["dump", c])),
        all,
        "same ticks after compaction"
    );
    assert!(succeeded(&tickreel(&["verify", c])).contains("600 ticks"));
}

/// `tickreel simulate` with the deterministic seed: runs paced (so that flushes happen while it
/// runs), with time and size flushes out of the way; returns its `flushed` lines and the live
/// recording's chunk count.
fn churn_run(dir: &std::path::Path, name: &str, flush_on_leave: bool) -> (Vec<String>, usize) {
    let out = dir.join(name);
    let mut args = vec![
        "simulate",
        "--out",
        out.to_str().unwrap(),
        "--players",
        "4",
        "--ticks",
        "1000",
        "--tps",
        "1000",
        "--churn",
        "0.01",
        "--flush-ms",
        "3600000",
        "--flush-bytes",
        "1000000000",
        "--chunk-ticks",
        "2000",
        "--no-finish",
    ];
    if !flush_on_leave {
        args.push("--no-flush-on-leave");
    }
    let s = succeeded(&tickreel(&args));
    let flushed: Vec<String> = s
        .lines()
        .filter(|l| l.starts_with("flushed "))
        .map(String::from)
        .collect();
    let live = tickreel::storage::live::live_dir_for(&out);
    let chunks = tickreel::play::Reader::open_live(&live)
        .unwrap()
        .index()
        .len();
    (flushed, chunks)
}

#[test]
fn player_leaves_flush_unless_no_flush_on_leave() {
    // the players who leave in this simulation (`simulate`'s settings, --churn 0.01)
    let mut sim = tickreel_sim::Simulator::new(tickreel_sim::SimConfig {
        players: 4,
        seed: 42,
        teleport_chance: 0.001,
        churn_chance: 0.01,
        custom_event_chance: 0.005,
    });
    let leave_ticks = (0..1000)
        .filter(|_| {
            sim.step()
                .1
                .iter()
                .any(|e| matches!(e, tickreel::Event::PlayerLeave { .. }))
        })
        .count();
    assert!(leave_ticks >= 10, "{leave_ticks} ticks with a leave");

    let dir = tempfile::tempdir().unwrap();
    let (off_lines, off_chunks) = churn_run(dir.path(), "off.reel", false);
    // only the final flush
    assert_eq!(off_lines, ["flushed 999"]);
    let (on_lines, on_chunks) = churn_run(dir.path(), "on.reel", true);
    // Leaves flush (cutting the open chunk) while the simulation runs. A leave flush waits 20 ms
    // for a finish that would make it moot, so leaves that close together share a flush: the
    // 1-second run (--tps 1000) has between a few and one chunk per leave.
    assert!(
        on_chunks >= 3 && on_chunks <= leave_ticks + off_chunks,
        "{on_chunks} chunks, {leave_ticks} leaves"
    );
    assert!(on_chunks > off_chunks, "{on_chunks} vs {off_chunks} chunks");
    assert!(on_lines.len() >= 2, "{on_lines:?}");
    assert_eq!(on_lines.last().map(String::as_str), Some("flushed 999"));
}

#[test]
fn recover_and_compact_name_a_segment_of_another_recording_and_leave_it_be() {
    let dir = tempfile::tempdir().unwrap();
    let live_of = |name: &str| {
        let out = dir.path().join(format!("{name}.reel"));
        succeeded(&tickreel(&[
            "simulate",
            "--out",
            out.to_str().unwrap(),
            "--players",
            "2",
            "--ticks",
            "100",
            "--no-finish",
        ]));
        dir.path().join(format!("{name}.reel.live"))
    };
    let (mine, other) = (live_of("mine"), live_of("other"));
    let (m, o) = (mine.to_str().unwrap(), other.to_str().unwrap());
    let id = info_json(m)["recording_id"].as_str().unwrap().to_owned();
    let other_id = info_json(o)["recording_id"].as_str().unwrap().to_owned();
    assert_ne!(id, other_id);
    assert!(succeeded(&tickreel(&["info", m])).contains(&format!("recording id      {id}")));
    // The other recording's segment lands in mine (as a writer racing the re-creation of the
    // directory would put it).
    let foreign = mine.join("seg-000009.tks");
    std::fs::copy(other.join("seg-000000.tks"), &foreign).unwrap();
    let bytes = std::fs::read(&foreign).unwrap();
    let before = info_json(m)["last_tick"].clone();
    let r = tickreel(&["recover", m]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stdout).contains("recovered"));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("seg-000009.tks") && err.contains(&other_id),
        "{err}"
    );
    let compacted = dir.path().join("c.reel");
    let c = tickreel(&["compact", m, compacted.to_str().unwrap()]);
    assert!(!c.status.success());
    assert!(String::from_utf8_lossy(&c.stderr).contains("seg-000009.tks"));
    let j = info_json(compacted.to_str().unwrap());
    assert_eq!(j["recording_id"].as_str(), Some(id.as_str()));
    assert_eq!(j["last_tick"], before);
    succeeded(&tickreel(&["verify", compacted.to_str().unwrap()]));
    assert_eq!(std::fs::read(&foreign).unwrap(), bytes);
}
