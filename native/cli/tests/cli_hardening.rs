//! The tool's behaviour at the edges: damage makes every command fail, a closed stdout is a quiet
//! end, nothing is overwritten without --force (and never an input), following a missing path
//! fails at once, error messages quote bounded input and name the path.

#[path = "../../core/tests/common/mod.rs"]
mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use tickreel::record::ChunkPolicy;

const BIN: &str = env!("CARGO_BIN_EXE_tickreel");

fn tickreel(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run tickreel")
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 temp path")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[track_caller]
fn assert_ok(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status,
        stdout(o),
        stderr(o)
    );
}

#[track_caller]
fn assert_fails_with(o: &Output, needles: &[&str]) {
    let err = stderr(o);
    assert!(
        !o.status.success(),
        "expected failure, got success\nstdout: {}\nstderr: {err}",
        stdout(o)
    );
    assert_eq!(o.status.code(), Some(1), "exit status; stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}: {err}");
    }
}

fn small_policy() -> ChunkPolicy {
    ChunkPolicy {
        chunk_ticks: 50,
        chunk_bytes: 1 << 20,
        snapshot_interval: 150,
        zstd_level: 3,
    }
}

/// A multi-chunk recording (ticks 0..ticks, chunks of 50 ticks).
fn sim_reel(path: &Path, ticks: u32) {
    common::write_reel(path, &common::sim_ticks(4, ticks, 7), small_policy());
}

/// A copy of `good` with a byte flipped in the middle of chunk `k`'s compressed payload; returns
/// the chunk's first tick.
fn live_dir(dir: &Path, name: &str, ticks: u32) -> PathBuf {
    let out = dir.join(format!("{name}.reel"));
    let o = tickreel(&[
        "simulate",
        "--out",
        p(&out),
        "--players",
        "3",
        "--ticks",
        &ticks.to_string(),
        "--flush-ms",
        "1",
        "--chunk-ticks",
        "50",
        "--no-finish",
    ]);
    assert_ok(&o);
    dir.join(format!("{name}.reel.live"))
}

// 2. A closed stdout is a quiet end (exit 0), never a panic.

/// Runs the tool with stdout a pipe whose read end is closed at once (before the tool writes).
fn closed_stdout(args: &[&str]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tickreel");
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    Output {
        status,
        stdout: Vec::new(),
        stderr: err.into_bytes(),
    }
}

#[test]
fn no_command_panics_on_a_closed_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let reel = d.join("big.reel");
    sim_reel(&reel, 3000); // its dump is megabytes of JSON
    let r = p(&reel);
    let live = live_dir(d, "l", 200);
    let csv = d.join("trace.csv");
    assert_ok(&tickreel(&["export", r, p(&csv)]));
    let n = std::cell::Cell::new(0);
    let fresh = |ext: &str| {
        n.set(n.get() + 1);
        d.join(format!("fresh{}.{ext}", n.get()))
            .to_str()
            .unwrap()
            .to_string()
    };
    let demo_dir = fresh("d");
    let cases: Vec<Vec<String>> = vec![
        vec!["info".into(), r.into()],
        vec!["info".into(), r.into(), "--json".into()],
        vec!["verify".into(), r.into()],
        vec!["dump".into(), r.into()],
        vec!["export".into(), r.into(), "-".into()],
        vec!["export".into(), r.into(), fresh("csv")],
        vec!["import".into(), p(&csv).into(), fresh("reel")],
        vec!["compact".into(), r.into(), fresh("reel")],
        vec!["recover".into(), p(&live).into()],
        vec!["ghost".into(), r.into(), "--entity".into(), "1".into()],
        vec![
            "ghost".into(),
            r.into(),
            "--entity".into(),
            "1".into(),
            "--splits".into(),
        ],
        vec!["play".into(), r.into()],
        vec!["play".into(), r.into(), "--follow".into()],
        vec![
            "simulate".into(),
            "--out".into(),
            fresh("reel"),
            "--ticks".into(),
            "400".into(),
            "--flush-ms".into(),
            "1".into(),
        ],
        vec![
            "demo".into(),
            "--players".into(),
            "2".into(),
            "--seconds".into(),
            "2".into(),
            "--seeks".into(),
            "2".into(),
            "--out".into(),
            demo_dir,
        ],
    ];
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = closed_stdout(&args);
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(o.status.code(), Some(101), "{args:?}: {err}");
        assert_eq!(o.status.code(), Some(0), "{args:?}: a quiet end: {err}");
        assert!(err.is_empty(), "{args:?}: nothing on stderr: {err}");
    }
}

#[test]
fn a_full_stdout_is_an_error_naming_standard_output() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("r.reel");
    sim_reel(&reel, 200);
    for args in [vec!["info", p(&reel)], vec!["dump", p(&reel)]] {
        let o = Command::new(BIN)
            .args(&args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_fails_with(&o, &["standard output"]);
    }
}
