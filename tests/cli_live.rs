//! The CLI on live recordings: simulate, info/verify/dump on a live directory, recover, compact.

use std::process::Command;

fn tickreel(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args(args)
        .output()
        .unwrap()
}

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
