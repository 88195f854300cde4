//! The tool's behaviour at the edges: damage makes every command fail, a closed stdout is a quiet
//! end, nothing is overwritten without --force (and never an input), following a missing path
//! fails at once, error messages quote bounded input and name the path.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::tool::{BIN, assert_ok, live_dir, p, sim_reel, stderr, stdout, tickreel};
use tickreel::play::Reader;

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

/// A copy of `good` with a byte flipped in the middle of chunk `k`'s compressed payload; returns
/// the chunk's first tick.
fn damage_chunk(good: &Path, bad: &Path, k: usize) -> u32 {
    let reader = Reader::open_path(good).unwrap();
    let e = reader.index()[k];
    let mut bytes = std::fs::read(good).unwrap();
    bytes[e.offset as usize + 36 + e.compressed_len as usize / 2] ^= 0x20;
    std::fs::write(bad, &bytes).unwrap();
    e.start_tick
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

// 1. Damage found: a non-zero exit, and stderr names the file (and the chunk).

#[test]
fn play_exits_non_zero_naming_the_damaged_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.reel");
    sim_reel(&good, 400);
    let bad = dir.path().join("damaged.reel");
    let start = damage_chunk(&good, &bad, 2);

    let o = tickreel(&["play", p(&bad)]);
    assert_fails_with(
        &o,
        &[
            "damaged.reel",
            "chunk 2",
            &format!("ticks {start}..={}", start + 49),
            "checksum",
        ],
    );
    // What could be played was printed: every server tick up to the end, past the damage.
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() > 300, "{} lines", lines.len());
    assert!(lines.iter().any(|l| l.get("faults").is_some()));
    let last = lines.last().unwrap();
    assert_eq!(
        (last["tick"].as_u64(), last["at_edge"].as_bool()),
        (Some(399), Some(true))
    );
    // Backward and bounded runs over the damage fail too; a run that stays clear of it does not.
    assert_fails_with(
        &tickreel(&["play", p(&bad), "--reverse", "--speed", "4"]),
        &["chunk 2"],
    );
    assert_fails_with(
        &tickreel(&["play", p(&bad), "--from", "90", "--ticks", "40"]),
        &["chunk 2"],
    );
    assert_ok(&tickreel(&[
        "play",
        p(&bad),
        "--from",
        "0",
        "--ticks",
        "20",
    ]));
    assert_ok(&tickreel(&["play", p(&good)]));
    // Following a finished file with damage fails the same way.
    assert_fails_with(
        &tickreel(&["play", p(&bad), "--follow", "--max-ms", "20000"]),
        &["damaged.reel", "chunk 2"],
    );
}

#[test]
fn every_command_that_finds_damage_exits_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.reel");
    sim_reel(&good, 400);
    let bad = dir.path().join("damaged.reel");
    damage_chunk(&good, &bad, 2);
    let b = p(&bad);
    let csv = dir.path().join("out.csv");
    let compacted = dir.path().join("c.reel");
    for args in [
        vec!["verify", b],
        vec!["dump", b],
        vec!["export", b, "-"],
        vec!["export", b, p(&csv)],
        vec!["compact", b, p(&compacted)],
        vec!["ghost", b, "--entity", "1"],
        vec!["play", b],
        vec!["play", b, "--follow", "--max-ms", "20000"],
    ] {
        let o = tickreel(&args);
        assert_fails_with(&o, &["damaged.reel"]);
    }
    assert!(
        !csv.exists() && !compacted.exists(),
        "no output from damage"
    );

    // recover: damaged bytes between valid frames are skipped (the directory is repaired) and the
    // command fails saying so; a torn tail alone is a successful recovery (tests/cli_live.rs).
    let live = live_dir(dir.path(), "l", 600);
    let seg = live.join("seg-000000.tks");
    let mut bytes = std::fs::read(&seg).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(&seg, &bytes).unwrap();
    let o = tickreel(&["recover", p(&live)]);
    assert_fails_with(&o, &["l.reel.live", "damaged bytes", "lost"]);
    assert!(stdout(&o).contains("skipped"), "{}", stdout(&o));
    assert_ok(&tickreel(&["verify", p(&live)]));
}

// 4. play --follow of a path that does not exist fails at once.

#[test]
fn play_follow_of_a_missing_path_fails_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.reel");
    let mut child = Command::new(BIN)
        .args(["play", p(&missing), "--follow"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("play --follow of a missing path is still waiting");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains(p(&missing)), "{err}");
    assert!(err.contains("no such recording"), "{err}");
    assert!(err.contains("--wait"), "{err}");
    // The same for a live directory path.
    let o = tickreel(&["play", p(&dir.path().join("gone.reel.live")), "--follow"]);
    assert_fails_with(&o, &["gone.reel.live", "no such recording"]);
    // With --wait it waits (here until --max-ms).
    let o = tickreel(&["play", p(&missing), "--follow", "--wait", "--max-ms", "100"]);
    assert_fails_with(&o, &["gave up", "missing.reel"]);

    // The help says how following ends.
    let help = stdout(&tickreel(&["play", "--help"]));
    for needle in ["--follow", "finished", "--max-ms", "--wait", "writer"] {
        assert!(
            help.contains(needle),
            "play --help lacks {needle:?}:\n{help}"
        );
    }
}

// 3. No command writes over an existing file without --force, nor over its input ever.

#[test]
fn export_and_import_never_overwrite_without_force_nor_their_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let reel = d.join("a.reel");
    sim_reel(&reel, 200);
    let original = std::fs::read(&reel).unwrap();

    // export a.reel a.reel: refused, even with --force; the recording is untouched.
    for force in [false, true] {
        let mut args = vec!["export", p(&reel), p(&reel)];
        if force {
            args.push("--force");
        }
        assert_fails_with(&tickreel(&args), &["a.reel", "input", "--force"]);
        assert_eq!(std::fs::read(&reel).unwrap(), original);
    }
    // ... also through another name for the same file.
    let link = d.join("link.csv");
    std::os::unix::fs::symlink(&reel, &link).unwrap();
    let dotted = format!("{}/./a.reel", p(d));
    for out in [p(&link), dotted.as_str()] {
        assert_fails_with(&tickreel(&["export", p(&reel), out, "--force"]), &["input"]);
        assert_eq!(std::fs::read(&reel).unwrap(), original);
    }

    // An existing CSV is kept unless --force.
    let csv = d.join("a.csv");
    std::fs::write(&csv, "keep me\n").unwrap();
    assert_fails_with(
        &tickreel(&["export", p(&reel), p(&csv)]),
        &["a.csv", "already exists", "--force"],
    );
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "keep me\n");
    assert_ok(&tickreel(&["export", p(&reel), p(&csv), "--force"]));
    let exported = std::fs::read_to_string(&csv).unwrap();
    assert!(exported.starts_with("tick,entity,"), "{exported}");

    // import a.csv a.csv: refused, even with --force; the trace is untouched.
    for force in [false, true] {
        let mut args = vec!["import", p(&csv), p(&csv)];
        if force {
            args.push("--force");
        }
        assert_fails_with(&tickreel(&args), &["a.csv", "input"]);
        assert_eq!(std::fs::read_to_string(&csv).unwrap(), exported);
    }
    // import over an existing recording: only with --force.
    let other = d.join("b.reel");
    std::fs::write(&other, b"not a recording").unwrap();
    assert_fails_with(
        &tickreel(&["import", p(&csv), p(&other)]),
        &["b.reel", "already exists", "--force"],
    );
    assert_eq!(std::fs::read(&other).unwrap(), b"not a recording");
    assert_ok(&tickreel(&["import", p(&csv), p(&other), "--force"]));
    assert_ok(&tickreel(&["verify", p(&other)]));
    // export to stdout needs no --force.
    assert_ok(&tickreel(&["export", p(&reel), "-"]));
}

#[test]
fn compact_never_overwrites_without_force_nor_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let reel = d.join("a.reel");
    sim_reel(&reel, 200);
    let original = std::fs::read(&reel).unwrap();
    for force in [false, true] {
        let mut args = vec!["compact", p(&reel), p(&reel)];
        if force {
            args.push("--force");
        }
        assert_fails_with(&tickreel(&args), &["a.reel", "input"]);
        assert_eq!(std::fs::read(&reel).unwrap(), original);
    }

    // A live directory: no output inside it, nor over it.
    let live = live_dir(d, "l", 300);
    let meta = live.join("meta.tkrl");
    let meta_bytes = std::fs::read(&meta).unwrap();
    for out in [meta.clone(), live.join("new.reel"), live.clone()] {
        for force in [false, true] {
            let mut args = vec!["compact", p(&live), p(&out)];
            if force {
                args.push("--force");
            }
            let why = if out == live {
                "over the input"
            } else {
                "inside the input directory"
            };
            assert_fails_with(&tickreel(&args), &[p(&out), why]);
        }
    }
    assert_eq!(std::fs::read(&meta).unwrap(), meta_bytes);
    assert_ok(&tickreel(&["verify", p(&live)]));

    // An existing file next to it: replaced only with --force.
    let out = d.join("l.reel");
    std::fs::write(&out, b"old").unwrap();
    assert_fails_with(
        &tickreel(&["compact", p(&live), p(&out)]),
        &["l.reel", "already exists", "--force"],
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    assert_ok(&tickreel(&["compact", p(&live), p(&out), "--force"]));
    assert_ok(&tickreel(&["verify", p(&out)]));
}

#[test]
fn simulate_and_demo_never_overwrite_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("s.reel");
    std::fs::write(&out, b"old").unwrap();
    let sim = |force: bool| {
        let mut args = vec!["simulate", "--out", p(&out), "--ticks", "50"];
        if force {
            args.push("--force");
        }
        tickreel(&args)
    };
    assert_fails_with(&sim(false), &["s.reel", "already exists", "--force"]);
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    assert_ok(&sim(true));
    assert_ok(&tickreel(&["verify", p(&out)]));

    let demo_dir = d.join("demo");
    // The demo replaces its own recording: the README's first command can run again.
    let demo = || {
        let args = vec![
            "demo",
            "--players",
            "2",
            "--seconds",
            "2",
            "--seeks",
            "2",
            "--out",
            p(&demo_dir),
        ];
        tickreel(&args)
    };
    assert_ok(&demo());
    assert_ok(&demo());
    assert_ok(&tickreel(&["verify", p(&demo_dir.join("demo.reel"))]));
}

#[test]
fn help_texts_mention_force() {
    for cmd in ["export", "import", "compact", "simulate"] {
        let o = tickreel(&[cmd, "--help"]);
        assert_ok(&o);
        assert!(stdout(&o).contains("--force"), "{cmd}: {}", stdout(&o));
    }
}

// 5. Error messages quote at most 64 characters of any input.

#[test]
fn import_errors_quote_a_bounded_part_of_a_bad_field() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("huge.csv");
    let reel = dir.path().join("huge.reel");
    let field = format!("{}x", "9".repeat(1 << 20)); // not a number, 1 MiB
    std::fs::write(
        &csv,
        format!("tick,entity,x,y,z,yaw,pitch\n0,1,0,64,0,0,0\n1,1,0,{field},0,0,0\n"),
    )
    .unwrap();
    let o = tickreel(&["import", p(&csv), p(&reel)]);
    let len = field.len().to_string();
    assert_fails_with(&o, &["line 3", "y \"9999", "is not a number", &len, "…"]);
    assert!(stderr(&o).len() < 400, "{} bytes of stderr", o.stderr.len());
    assert!(!reel.exists());

    // A huge unknown column name too.
    let name = "c".repeat(100_000);
    std::fs::write(&csv, format!("tick,entity,x,y,z,yaw,pitch,{name}\n")).unwrap();
    let o = tickreel(&["import", p(&csv), p(&reel)]);
    assert_fails_with(&o, &["line 1", "unknown column", "100000 bytes"]);
    assert!(stderr(&o).len() < 600, "{} bytes of stderr", o.stderr.len());

    // Short fields are quoted whole, as before.
    std::fs::write(&csv, "tick,entity,x,y,z,yaw,pitch\n0,1,0,sixty,0,0,0\n").unwrap();
    assert_fails_with(
        &tickreel(&["import", p(&csv), p(&reel)]),
        &["line 2", "y \"sixty\" is not a number"],
    );
}

// 6. I/O errors name the file.

#[test]
fn io_errors_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let reel = d.join("a.reel");
    sim_reel(&reel, 100);
    let nodir = d.join("nodir");
    let a_file = d.join("plain");
    std::fs::write(&a_file, b"x").unwrap();
    let csv_dir = d.join("csvdir");
    std::fs::create_dir(&csv_dir).unwrap();

    let out_csv = nodir.join("x.csv");
    let o = tickreel(&["export", p(&reel), p(&out_csv)]);
    assert_fails_with(&o, &[p(&out_csv)]);
    assert!(
        !stderr(&o).contains(".x.csv."),
        "not the temporary file: {}",
        stderr(&o)
    );
    assert_fails_with(
        &tickreel(&["compact", p(&reel), p(&nodir.join("x.reel"))]),
        &[p(&nodir)],
    );
    // A directory given as the CSV: reading it fails.
    assert_fails_with(
        &tickreel(&["import", p(&csv_dir), p(&d.join("i.reel"))]),
        &[p(&csv_dir)],
    );
    assert_fails_with(
        &tickreel(&["import", p(&nodir.join("t.csv")), p(&d.join("i.reel"))]),
        &["t.csv"],
    );
    // The demo's directory cannot be created under a file.
    let under = a_file.join("sub");
    assert_fails_with(
        &tickreel(&["demo", "--seconds", "1", "--out", p(&under)]),
        &[p(&under)],
    );
    for cmd in ["info", "verify", "dump", "play"] {
        assert_fails_with(&tickreel(&[cmd, p(&nodir.join("r.reel"))]), &["r.reel"]);
    }
    assert_fails_with(&tickreel(&["recover", p(&nodir)]), &[p(&nodir)]);
}

#[test]
fn play_follow_of_a_recording_whose_writer_is_gone_ends_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("left.reel");
    // A writer that stops without finishing: the live directory stays, nobody holds it.
    assert_ok(&tickreel(&[
        "simulate",
        "--out",
        p(&out),
        "--ticks",
        "60",
        "--players",
        "3",
        "--no-finish",
    ]));
    let start = std::time::Instant::now();
    let o = tickreel(&["play", p(&out), "--follow", "--max-ms", "30000"]);
    assert_fails_with(&o, &["left.reel", "writer is gone", "recover"]);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    // It played what was flushed before saying so.
    assert!(stdout(&o).lines().count() > 10, "{}", stdout(&o));
}
