//! Outputs and time bounded by the input (issue 31): every command's work follows the bytes it
//! reads, never a count or span a file claims. `play` of a small file whose two chunks are
//! 2^32 - 2 ticks apart ends; `ghost` of a file whose tick rate is 1 mHz writes rows in proportion
//! to the recorded poses (it wrote 374 MB); `ghost --plot` of a run spanning 2^32 - 2 ticks ends.
//!
//! Each run is bounded by what it writes (the child is killed past a byte cap: a failure) and by
//! a generous deadline, never by timing.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::tool::{BIN, p};
use tickreel::Pose;
use tickreel::format::EntityInfo;
use tickreel::format::Event;
use tickreel::record::{RecordingIdentity, ReelOptions, ReelWriter};

/// Generous: a command that ends at all ends well within it, even on a busy 2-core machine.
const DEADLINE: Duration = Duration::from_secs(60);
/// How much of stdout a test sees.
const HEAD: usize = 1 << 20;

struct Run {
    ok: bool,
    /// Bytes written to stdout (counted up to the cap).
    out_bytes: u64,
    /// The first bytes of stdout.
    head: String,
    stderr: String,
}

/// Runs the tool, counting its stdout; kills it (a failure) once it has written more than
/// `cap` bytes or is still running after [`DEADLINE`].
fn run_capped(args: &[&str], cap: u64) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tickreel");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let over = Arc::new(AtomicBool::new(false));
    let over2 = over.clone();
    let out_reader = std::thread::spawn(move || {
        let mut head = Vec::new();
        let mut n = 0u64;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match out.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(k) => {
                    if head.len() < HEAD {
                        head.extend_from_slice(&buf[..k.min(HEAD - head.len())]);
                    }
                    n += k as u64;
                    if n > cap {
                        over2.store(true, Ordering::SeqCst);
                        break;
                    }
                }
            }
        }
        (n, String::from_utf8_lossy(&head).into_owned())
    });
    let err_reader = std::thread::spawn(move || {
        let mut e = Vec::new();
        let _ = err.read_to_end(&mut e);
        String::from_utf8_lossy(&e).into_owned()
    });
    let end = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if over.load(Ordering::SeqCst) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tickreel {args:?} wrote more than {cap} bytes: its output is not bounded");
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tickreel {args:?} still running after {DEADLINE:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (out_bytes, head) = out_reader.join().unwrap();
    assert!(!over.load(Ordering::SeqCst), "wrote more than {cap} bytes");
    Run {
        ok: status.success(),
        out_bytes,
        head,
        stderr: err_reader.join().unwrap(),
    }
}

fn pose(x: f64) -> Pose {
    Pose::from_f64(x, 64.0, 0.0, 0.0, 0.0)
}

/// A small file: entity 1 added at tick 0 and posed at `last`, written by the library's writer
/// with `options`.
fn two_poses(path: &Path, last: u32, options: ReelOptions) -> u64 {
    let mut w = ReelWriter::create(path, options).unwrap();
    w.write_tick(
        0,
        &[Event::EntityAdd {
            entity: 1,
            kind: 0,
            pose: pose(0.0),
        }],
    )
    .unwrap();
    w.write_tick(
        last,
        &[Event::Pose {
            entity: 1,
            pose: pose(100.0),
        }],
    )
    .unwrap();
    w.finish().unwrap();
    std::fs::metadata(path).unwrap().len()
}

/// `play` of a file whose two chunks are 2^32 - 2 ticks apart: it jumped over the gap (it
/// printed a line for every tick of it, for days).
#[test]
fn play_jumps_over_a_gap_of_four_billion_ticks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("span.reel");
    let size = two_poses(&path, u32::MAX - 1, ReelOptions::default());
    assert!(size < 4096, "a small file: {size} bytes");
    for reverse in [false, true] {
        let mut args = vec!["play", p(&path)];
        if reverse {
            args.push("--reverse");
        }
        let r = run_capped(&args, 1 << 20);
        assert!(r.ok, "{}", r.stderr);
        let lines: Vec<serde_json::Value> = r
            .head
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(lines.len() < 10, "{} lines: {}", lines.len(), r.head);
        let last = lines.last().unwrap();
        let edge = if reverse { 0 } else { u64::from(u32::MAX - 1) };
        assert_eq!(last["tick"], edge, "{}", r.head);
        assert_eq!(last["at_edge"], true, "{}", r.head);
        // the entity as recorded at the edge
        let x = last["entities"][0]["x"].as_f64().unwrap();
        assert_eq!(x, if reverse { 0.0 } else { 100.0 }, "{}", r.head);
        assert!(
            lines.iter().any(|l| l["motion"] == "jump"),
            "the gap is jumped: {}",
            r.head
        );
    }
}

/// Short gaps are still played tick by tick (as time passing).
#[test]
fn play_walks_a_short_gap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short.reel");
    two_poses(&path, 5000, ReelOptions::default());
    let r = run_capped(&["play", p(&path)], 64 << 20);
    assert!(r.ok, "{}", r.stderr);
    // one line per tick up to the gap's last 1200, then a jump
    let n = r.head.lines().count();
    assert!(n > 1, "{n}");
    assert!(r.out_bytes < 1 << 20, "{} bytes", r.out_bytes);
}

/// `ghost` of a run of two poses 100 ticks apart in a file whose tick rate is 1 mHz (the header
/// field at 1, which the writer accepts): at 60 Hz that was 60,000 rows a tick (374 MB); now at
/// most 16 rows per recorded pose (beyond 4096), said on stderr.
#[test]
fn ghost_csv_rows_follow_the_recorded_poses_not_the_tick_rate() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("slow.reel");
    let size = two_poses(
        &path,
        100,
        ReelOptions {
            identity: RecordingIdentity {
                tick_rate_millihz: 1,
                ..RecordingIdentity::default()
            },
            ..ReelOptions::default()
        },
    );
    assert!(size < 4096, "a small file: {size} bytes");
    let r = run_capped(&["ghost", p(&path), "--entity", "1"], 4 << 20);
    assert!(r.ok, "{}", r.stderr);
    assert!(r.out_bytes < 1 << 20, "{} bytes", r.out_bytes);
    assert!(r.stderr.contains("one row every"), "{}", r.stderr);
    let rows: Vec<&str> = r.head.lines().collect();
    assert_eq!(rows[0], "t,x,y,z,yaw,pitch");
    assert!(rows[1].starts_with("0.0000,0.000000,"), "{}", rows[1]);
    assert!(r.out_bytes <= r.head.len() as u64, "all of it read");
    assert!(
        rows.last().unwrap().starts_with("100.0000,100.000000,"),
        "the finish is the last row: {}",
        rows.last().unwrap()
    );
    // at 20 ticks/s the default 60 Hz is unchanged: 3 rows a tick
    let ok = dir.path().join("ok.reel");
    two_poses(&ok, 100, ReelOptions::default());
    let r = run_capped(&["ghost", p(&ok), "--entity", "1"], 4 << 20);
    assert!(r.ok, "{}", r.stderr);
    assert!(!r.stderr.contains("one row every"), "{}", r.stderr);
    assert_eq!(r.head.lines().count(), 1 + 301, "{}", r.head);
}

/// `ghost --plot` of a run whose two poses are 2^32 - 2 ticks apart: it raced every tick (and
/// asked for 64 GiB up front); now at most 2^20 positions, at an even stride.
#[test]
fn ghost_plot_over_a_claimed_span_of_four_billion_ticks_ends() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("span.reel");
    two_poses(&path, u32::MAX - 1, ReelOptions::default());
    let svg = dir.path().join("delta.svg");
    let r = run_capped(
        &[
            "ghost",
            p(&path),
            "--entity",
            "1",
            "--plot",
            p(&svg),
            "--ghost-entity",
            "1",
        ],
        1 << 20,
    );
    assert!(r.ok, "{}", r.stderr);
    assert!(r.head.contains("ticks raced"), "{}", r.head);
    let len = std::fs::metadata(&svg).unwrap().len();
    assert!(len < 1 << 20, "{len} bytes of SVG");
}

/// `compact` accepts what a reader accepts: a recording of 180,000 registered entities (each
/// with a UUID and a name) whose metadata is 15 MB, under the 16 MiB a reader accepts. The
/// writers' metadata budget counted 96 bytes and twice the name's UTF-8 per entity, and refused
/// it (registering them in the writer, and compacting a file holding them).
#[test]
fn compact_accepts_the_entities_a_reader_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crowd.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    for id in 0..180_000u32 {
        w.register_entity(EntityInfo {
            id,
            kind: 7,
            uuid: Some(uuid::Uuid::from_u128(u128::from(id) << 64 | 0xabcdef)),
            name: Some(format!("player {id}")),
        })
        .unwrap();
    }
    w.write_tick(
        0,
        &[Event::EntityAdd {
            entity: 1,
            kind: 7,
            pose: pose(0.0),
        }],
    )
    .unwrap();
    w.finish().unwrap();
    let r = tickreel::play::Reader::open_path(&path).unwrap();
    assert_eq!(r.metadata().library.entities.len(), 180_000);
    let out = dir.path().join("out.reel");
    let c = run_capped(&["compact", p(&path), p(&out)], 1 << 20);
    assert!(c.ok, "{}", c.stderr);
    let back = tickreel::play::Reader::open_path(&out).unwrap();
    assert_eq!(back.metadata().library.entities.len(), 180_000);
    assert_eq!(
        back.metadata().library.entities[179_999].name.as_deref(),
        Some("player 179999")
    );
}
