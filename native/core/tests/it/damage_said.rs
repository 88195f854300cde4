//! Damage is said by the core, for every command and binding (issue 31): a header whose tick
//! span disagrees with its index (or runs past tick 2^32 - 1) is refused when the file is
//! opened, not only by `verify`; a live directory missing a segment its metadata file names is
//! refused at open, naming the segment; a follower of a live directory that cannot be read (a
//! segment or the metadata file missing, nobody writing) reports it damaged after `lost_after`.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tickreel::Error;
use tickreel::format::{HEADER_LEN, Header};
use tickreel::play::{FollowOptions, FollowState, LiveFollower, Reader};
use tickreel::record::ChunkPolicy;
use tickreel::{Engine, EngineOptions};

fn patch_header(from: &Path, to: &Path, f: impl FnOnce(&mut Header)) {
    let mut bytes = std::fs::read(from).unwrap();
    let mut h = Header::decode(&bytes).unwrap();
    f(&mut h);
    bytes[..HEADER_LEN].copy_from_slice(&h.encode());
    std::fs::write(to, &bytes).unwrap();
}

/// A change to a header.
type Patch = fn(&mut Header);

#[track_caller]
fn assert_corrupt(r: tickreel::Result<Reader>, needle: &str) {
    match r {
        Err(Error::Corrupt(m)) => assert!(m.contains(needle), "{m}"),
        other => panic!("expected Corrupt naming {needle:?}, got {other:?}"),
    }
}

#[test]
fn a_header_that_verify_refuses_is_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.reel");
    let policy = ChunkPolicy {
        chunk_ticks: 50,
        ..ChunkPolicy::default()
    };
    common::write_reel(&good, &common::sim_ticks(3, 200, 1), policy);
    Reader::open_path(&good).unwrap().verify().unwrap();
    let bad = dir.path().join("bad.reel");
    let cases: [(&str, Patch); 4] = [
        ("index covers", |h| h.tick_count += 1),
        ("index covers", |h| h.first_tick += 1),
        ("past tick 2^32", |h| {
            h.first_tick = u32::MAX - 10;
            h.tick_count = 200;
        }),
        ("past tick 2^32", |h| {
            h.first_tick = 5;
            h.tick_count = u32::MAX;
        }),
    ];
    for (needle, f) in cases {
        patch_header(&good, &bad, f);
        assert_corrupt(Reader::open_path(&bad), needle);
        assert_corrupt(Reader::open_any(&bad), needle);
    }
}

/// A live directory of two segments (the second written after a resume), closed: nobody holds
/// it.
fn two_segments(dir: &Path) -> (PathBuf, PathBuf) {
    let path = dir.join("run.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    for (from, to) in [(0, 10), (10, 20)] {
        let rec = engine
            .start_recording(&path, common::flushed_when_asked())
            .unwrap();
        rec.wait_resumed(Duration::from_secs(60)).unwrap();
        for t in from..to {
            rec.submit_tick(t, &common::pose_tick(1, i64::from(t)))
                .unwrap();
        }
        rec.flush().unwrap();
        rec.close().unwrap();
    }
    engine.shutdown();
    let live = dir.join("run.reel.live");
    assert!(live.join("seg-000001.tks").exists());
    (path, live)
}

fn follow_until_damaged(path: &Path) -> LiveFollower {
    let follower = LiveFollower::open(
        path,
        FollowOptions {
            background: false,
            lost_after: Duration::from_millis(100),
            ..FollowOptions::default()
        },
    )
    .unwrap();
    let end = Instant::now() + Duration::from_secs(30);
    while follower.refresh() != FollowState::Damaged {
        assert!(
            Instant::now() < end,
            "not damaged: {:?} {:?}",
            follower.state(),
            follower.stats()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    follower
}

#[test]
fn a_missing_segment_is_refused_at_open_and_a_follower_says_it() {
    let dir = tempfile::tempdir().unwrap();
    let (path, live) = two_segments(dir.path());
    assert_eq!(
        Reader::open_live(&live).unwrap().verify().unwrap().ticks,
        20
    );
    let seg = live.join("seg-000001.tks");
    let kept = dir.path().join("kept.tks");
    std::fs::rename(&seg, &kept).unwrap();
    let err = Reader::open_live(&live).unwrap_err();
    assert!(
        matches!(&err, Error::Io(e) if e.kind() == std::io::ErrorKind::NotFound),
        "{err:?}"
    );
    assert!(err.to_string().contains("seg-000001.tks"), "{err}");
    assert!(err.to_string().contains("missing"), "{err}");

    let follower = follow_until_damaged(&path);
    let damage = follower.stats().damage.unwrap();
    assert!(damage.contains("seg-000001.tks"), "{damage}");
    // Put back, it is live again (well, abandoned-or-live: nobody writes it).
    std::fs::rename(&kept, &seg).unwrap();
    let state = follower.refresh();
    assert!(
        matches!(state, FollowState::Live | FollowState::Abandoned),
        "{state:?}"
    );
    assert_eq!(follower.stats().damage, None);
    assert_eq!(follower.stats().last_tick, Some(19));
}

#[test]
fn a_follower_says_a_live_directory_without_its_metadata_file_is_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let (path, live) = two_segments(dir.path());
    std::fs::remove_file(live.join("meta.tkrl")).unwrap();
    let follower = follow_until_damaged(&path);
    let damage = follower.stats().damage.unwrap();
    assert!(damage.contains("meta.tkrl"), "{damage}");
    assert!(damage.contains("no writer"), "{damage}");
}
