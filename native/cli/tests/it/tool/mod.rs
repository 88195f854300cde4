//! Running the `tickreel` binary from the CLI's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tickreel::record::ChunkPolicy;

use crate::common;

pub const BIN: &str = env!("CARGO_BIN_EXE_tickreel");

/// Runs the tool with `args` and waits for it.
pub fn tickreel(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run tickreel")
}

/// A temporary path as an argument.
pub fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 temp path")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[track_caller]
pub fn assert_ok(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status,
        stdout(o),
        stderr(o)
    );
}

/// Its stdout, after checking that it succeeded.
#[track_caller]
pub fn succeeded(o: &Output) -> String {
    assert_ok(o);
    stdout(o)
}

/// A live recording directory `<dir>/<name>.reel.live` left by `simulate --no-finish`: 3 players,
/// ticks 0..ticks, one chunk per 50 ticks (each flushed on its own), in one segment.
pub fn live_dir(dir: &Path, name: &str, ticks: u32) -> PathBuf {
    let out = dir.join(format!("{name}.reel"));
    assert_ok(&tickreel(&[
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
    ]));
    dir.join(format!("{name}.reel.live"))
}

/// Chunks of 50 ticks, a snapshot every 150 ticks.
pub fn small_policy() -> ChunkPolicy {
    ChunkPolicy {
        chunk_ticks: 50,
        chunk_bytes: 1 << 20,
        snapshot_interval: 150,
        zstd_level: 3,
    }
}

/// A multi-chunk simulated recording at `path` (4 players, ticks 0..ticks, every tick non-empty,
/// chunks of 50 ticks).
pub fn sim_reel(path: &Path, ticks: u32) {
    common::write_reel(path, &common::sim_ticks(4, ticks, 7), small_policy());
}
