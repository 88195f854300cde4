//! Damage is always said (issue 31, defects 6 and 7): what `verify` refuses in a header no
//! reading command reads with exit 0; `play` and `play --follow` of a live directory missing a
//! segment or its metadata file end with an error naming it, in bounded time; `simulate` whose
//! live directory is removed under it stops with the recording's error.

use crate::common;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::tool::{BIN, assert_ok, live_dir, p, stderr, stdout, tickreel};
use tickreel::format::{HEADER_LEN, Header};
use tickreel::record::ChunkPolicy;

/// Generous: a command that ends at all ends well within it, even on a busy 2-core machine.
const DEADLINE: Duration = Duration::from_secs(60);

#[track_caller]
fn assert_fails_with(o: &Output, needles: &[&str]) {
    let err = stderr(o);
    assert!(
        !o.status.success(),
        "expected failure, got success\nstdout: {}\nstderr: {err}",
        stdout(o).chars().take(2000).collect::<String>()
    );
    assert_eq!(o.status.code(), Some(1), "exit status; stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}: {err}");
    }
}

/// Runs the tool with stdout thrown away, and kills it if it has not ended by [`DEADLINE`]
/// (a failure: it hung).
fn run_bounded(args: &[&str]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tickreel");
    let mut err_pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut err = Vec::new();
        let _ = err_pipe.read_to_end(&mut err);
        err
    });
    let end = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tickreel {args:?} still running after {DEADLINE:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: Vec::new(),
        stderr: reader.join().unwrap(),
    }
}

/// A compacted recording of ticks 0..400 in chunks of 50.
fn sim_reel(path: &Path) {
    let policy = ChunkPolicy {
        chunk_ticks: 50,
        chunk_bytes: 1 << 20,
        snapshot_interval: 150,
        zstd_level: 3,
    };
    common::write_reel(path, &common::sim_ticks(4, 400, 7), policy);
}

/// A copy of `from` at `to` whose header is changed by `f` (its checksum recomputed: only
/// what the header says is wrong).
fn patch_header(from: &Path, to: &Path, f: impl FnOnce(&mut Header)) {
    let mut bytes = std::fs::read(from).unwrap();
    let mut h = Header::decode(&bytes).unwrap();
    f(&mut h);
    bytes[..HEADER_LEN].copy_from_slice(&h.encode());
    std::fs::write(to, &bytes).unwrap();
}

#[test]
fn every_reading_command_refuses_a_header_that_verify_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.reel");
    sim_reel(&good);
    // One tick more than the index covers; and a span that wraps past tick 2^32 - 1.
    let more = dir.path().join("more.reel");
    patch_header(&good, &more, |h| h.tick_count += 1);
    let wraps = dir.path().join("wraps.reel");
    patch_header(&good, &wraps, |h| {
        h.first_tick = 0x8000_0000;
        h.tick_count = 0x9000_0000;
    });
    let svg = dir.path().join("out.svg");
    let csv = dir.path().join("out.csv");
    for (bad, needle) in [(&more, "index covers"), (&wraps, "past tick 2^32")] {
        let b = p(bad);
        for args in [
            vec!["verify", b],
            vec!["info", b],
            vec!["dump", b],
            vec!["export", b, "-"],
            vec!["export", b, p(&csv)],
            vec!["ghost", b, "--entity", "1"],
            vec!["render", b, "--out", p(&svg)],
            vec!["play", b],
            vec!["play", b, "--follow", "--max-ms", "20000"],
        ] {
            let o = run_bounded(&args);
            let name = bad.file_name().unwrap().to_str().unwrap();
            assert_fails_with(&o, &[name, needle]);
        }
        assert!(!svg.exists() && !csv.exists(), "no output from damage");
    }
    // The good file reads.
    assert_ok(&tickreel(&["dump", p(&good)]));

    // The same in a live directory's metadata file.
    let live = live_dir(dir.path(), "l", 200);
    let meta = live.join("meta.tkrl");
    patch_header(&meta, &meta, |h| h.tick_count += 7);
    let l = p(&live);
    for args in [
        vec!["verify", l],
        vec!["dump", l],
        vec!["export", l, "-"],
        vec!["play", l],
        vec!["play", l, "--follow", "--max-ms", "20000"],
    ] {
        let o = run_bounded(&args);
        assert_fails_with(&o, &["meta.tkrl", "index covers"]);
    }
}

/// A live directory of two segments (the second written by a resumed recording), the second
/// removed.
fn live_dir_missing_a_segment(dir: &Path) -> PathBuf {
    let live = live_dir(dir, "gap", 300);
    let out = dir.join("gap.reel");
    let o = tickreel(&[
        "simulate",
        "--out",
        p(&out),
        "--players",
        "3",
        "--ticks",
        "600",
        "--flush-ms",
        "1",
        "--chunk-ticks",
        "50",
        "--no-finish",
    ]);
    assert!(stdout(&o).contains("resumed after"), "{}", stdout(&o));
    assert_ok(&o);
    let second = live.join("seg-000001.tks");
    assert!(
        second.exists(),
        "a resumed recording writes a second segment"
    );
    std::fs::remove_file(&second).unwrap();
    live
}

#[test]
fn play_of_a_live_directory_missing_a_segment_fails_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let live = live_dir_missing_a_segment(dir.path());
    let l = p(&live);
    for args in [
        vec!["play", l],
        vec!["play", l, "--follow"],
        vec!["play", p(&dir.path().join("gap.reel")), "--follow"],
        vec!["dump", l],
    ] {
        let o = run_bounded(&args);
        assert_fails_with(&o, &["seg-000001.tks", "missing"]);
    }
}

#[test]
fn play_of_a_segment_that_cannot_be_read_fails_naming_it_instead_of_stalling() {
    let dir = tempfile::tempdir().unwrap();
    let live = live_dir_missing_a_segment(dir.path());
    // There (opening the directory finds it) but unreadable: every read of it fails with an
    // I/O error, which the playhead retries.
    std::fs::create_dir(live.join("seg-000001.tks")).unwrap();
    let o = run_bounded(&["play", p(&live)]);
    assert_fails_with(&o, &["gap.reel.live", "stalled", "seg-000001.tks"]);
    // Following, the directory is opened again: the storage check refuses the member at once.
    let o = run_bounded(&["play", p(&live), "--follow"]);
    assert_fails_with(
        &o,
        &["gap.reel.live", "seg-000001.tks", "not a regular file"],
    );
}

#[test]
fn play_follow_of_a_live_directory_without_its_metadata_file_fails_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let live = live_dir(dir.path(), "nometa", 200);
    std::fs::remove_file(live.join("meta.tkrl")).unwrap();
    // No writer holds it: nothing will write the metadata file again.
    let o = run_bounded(&["play", p(&live), "--follow"]);
    assert_fails_with(&o, &["meta.tkrl", "missing", "recover"]);
    let o = run_bounded(&["play", p(&dir.path().join("nometa.reel")), "--follow"]);
    assert_fails_with(&o, &["meta.tkrl", "missing"]);
}

#[test]
fn simulate_stops_with_the_error_when_its_live_directory_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gone.reel");
    let live = dir.path().join("gone.reel.live");
    // 2,000,000 ticks at 200 per second: hours, unless it stops.
    let mut child = Command::new(BIN)
        .args(["simulate", "--out", p(&out)])
        .args(["--players", "2", "--ticks", "2000000", "--tps", "200"])
        .args(["--flush-ms", "20", "--chunk-ticks", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Its first flush made the directory.
    loop {
        match lines.next() {
            Some(Ok(l)) if l.starts_with("flushed") => break,
            Some(Ok(_)) => {}
            other => {
                let _ = child.kill();
                panic!("simulate ended before its first flush: {other:?}");
            }
        }
    }
    let drain = std::thread::spawn(move || lines.count());
    // The writer may create a file while it is being removed: try until it is gone.
    let end = Instant::now() + DEADLINE;
    while live.exists() {
        let _ = std::fs::remove_dir_all(&live);
        assert!(Instant::now() < end, "could not remove {}", live.display());
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("simulate still running {DEADLINE:?} after its live directory was removed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drain.join().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("gone.reel.live"), "{err}");
    assert!(err.contains("removed"), "{err}");
    assert!(!out.exists(), "nothing published");
}
