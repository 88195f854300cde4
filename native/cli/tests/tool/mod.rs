//! Running the `tickreel` binary from the CLI's integration tests.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

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
